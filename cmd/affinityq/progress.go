package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
)

// reporter shows the progress of bench's phases on w: a progress bar per
// phase when w is a terminal, else one line per phase when it ends, so
// that a log of a run holds a few lines instead of the bars' frames. A nil
// *reporter, or one without w, reports nothing.
type reporter struct {
	w   io.Writer
	tty bool
}

// newReporter returns a reporter on w; isTerminal says whether w is one.
func newReporter(w io.Writer) *reporter {
	f, ok := w.(*os.File)
	if !ok {
		return &reporter{w: w}
	}
	fi, err := f.Stat()
	return &reporter{w: w, tty: err == nil && fi.Mode()&os.ModeCharDevice != 0}
}

// phase is one phase of n steps being reported.
type phase struct {
	r     *reporter
	what  string
	n     int
	start time.Time
	bar   *progressbar.ProgressBar
}

// phase starts reporting a phase of n steps.
func (r *reporter) phase(n int, what string) *phase {
	p := &phase{r: r, what: what, n: n, start: time.Now()}
	if r != nil && r.w != nil && r.tty {
		p.bar = progressbar.NewOptions(n,
			progressbar.OptionSetWriter(r.w),
			progressbar.OptionSetDescription(what),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionShowCount(),
			progressbar.OptionClearOnFinish(),
		)
	}
	return p
}

// add records k more steps done.
func (p *phase) add(k int) {
	if p.bar != nil {
		_ = p.bar.Add(k)
	}
}

// done ends the phase: the bar is cleared, or its line written.
func (p *phase) done() {
	switch {
	case p.bar != nil:
		_ = p.bar.Finish()
	case p.r != nil && p.r.w != nil:
		fmt.Fprintf(p.r.w, "affinityq bench: %s: %d in %s\n", p.what, p.n, dur(time.Since(p.start)))
	}
}
