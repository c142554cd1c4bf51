package perf

import (
	"fmt"
	"os"
	"runtime/pprof"
	"strings"
	"testing"
	"time"
)

// cpuWindowEnv asks for a CPU profile of a window of the run:
// "<after>,<for>,<file>", durations as time.ParseDuration reads them,
// counted from the start of the process. The harness's -perf-cpuprofile
// profiles a workload only once it ends, which a workload that runs past
// its limit never does; a window profiles the middle of it. Only one CPU
// profile runs at a time, so it cannot be combined with -perf-cpuprofile.
const cpuWindowEnv = "AFFINITYQ_PERF_CPU_WINDOW"

// cpuWindow is a parsed cpuWindowEnv.
type cpuWindow struct {
	after, span time.Duration
	file        string
}

// parseCPUWindow reads v, a cpuWindowEnv value; ok is false when v is "".
func parseCPUWindow(v string) (w cpuWindow, ok bool, err error) {
	if v == "" {
		return cpuWindow{}, false, nil
	}
	fields := strings.SplitN(v, ",", 3)
	if len(fields) != 3 || fields[2] == "" {
		return cpuWindow{}, false, fmt.Errorf("perf: %s=%q: want <after>,<for>,<file>", cpuWindowEnv, v)
	}
	if w.after, err = time.ParseDuration(fields[0]); err != nil || w.after < 0 {
		return cpuWindow{}, false, fmt.Errorf("perf: %s=%q: <after> %q is not a duration ≥ 0", cpuWindowEnv, v, fields[0])
	}
	if w.span, err = time.ParseDuration(fields[1]); err != nil || w.span <= 0 {
		return cpuWindow{}, false, fmt.Errorf("perf: %s=%q: <for> %q is not a duration > 0", cpuWindowEnv, v, fields[1])
	}
	w.file = fields[2]
	return w, true, nil
}

// start creates the profile's file now, so that a bad path fails the run
// at once, and profiles the window in the background. Errors found later
// (profiling already in use) go to stderr: the run goes on without the
// profile.
func (w cpuWindow) start() error {
	f, err := os.Create(w.file)
	if err != nil {
		return fmt.Errorf("perf: %s: %w", cpuWindowEnv, err)
	}
	go func() {
		defer f.Close()
		time.Sleep(w.after)
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintf(os.Stderr, "perf: %s: %v\n", cpuWindowEnv, err)
			return
		}
		fmt.Fprintf(os.Stderr, "perf: %s: profiling %v into %s\n", cpuWindowEnv, w.span, w.file)
		time.Sleep(w.span)
		pprof.StopCPUProfile()
		fmt.Fprintf(os.Stderr, "perf: %s: wrote %s\n", cpuWindowEnv, w.file)
	}()
	return nil
}

func TestParseCPUWindow(t *testing.T) {
	for _, tc := range []struct {
		v    string
		want cpuWindow
		ok   bool
		err  bool
	}{
		{v: ""},
		{v: "12m,60s,/tmp/w.prof", want: cpuWindow{after: 12 * time.Minute, span: time.Minute, file: "/tmp/w.prof"}, ok: true},
		{v: "0s,1s,a,b.prof", want: cpuWindow{span: time.Second, file: "a,b.prof"}, ok: true},
		{v: "12m,60s", err: true},
		{v: "12m,60s,", err: true},
		{v: "soon,60s,f", err: true},
		{v: "-1s,60s,f", err: true},
		{v: "1s,0s,f", err: true},
	} {
		got, ok, err := parseCPUWindow(tc.v)
		if (err != nil) != tc.err || ok != tc.ok || got != tc.want {
			t.Errorf("parseCPUWindow(%q) = %+v, %v, %v; want %+v, %v, error %v", tc.v, got, ok, err, tc.want, tc.ok, tc.err)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "perf: ") {
			t.Errorf("parseCPUWindow(%q): error %q lacks the package prefix", tc.v, err)
		}
	}
}
