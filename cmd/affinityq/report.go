package main

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/affinityq/affinityq/bench"
)

// runBench runs every workload under every policy, prints the results and
// returns the exit code.
func runBench(o *benchOptions, stdout, stderr io.Writer) int {
	var rep *reporter
	if o.progress {
		rep = newReporter(stderr)
	}
	var results []*result
	for _, name := range o.workloads {
		gen, _ := bench.Lookup(name)
		for _, policy := range o.policies {
			w, err := gen(o.cfg) // regenerated per policy: each replay starts from the same cluster
			if err != nil {
				fmt.Fprintf(stderr, "affinityq bench: %v\n", err)
				return exitMismatch
			}
			res, err := replay(w, policy, o.naiveEvents, rep)
			if err != nil {
				fmt.Fprintf(stderr, "affinityq bench: %s/%s: %v\n", name, policy, err)
				return exitMismatch
			}
			results = append(results, res)
		}
	}
	var cycle []*cycleQuestion
	if o.cycle.Incoming > 0 {
		var err error
		if cycle, err = runCycle(o.cycle, rep); err != nil {
			fmt.Fprintf(stderr, "affinityq bench: cycle: %v\n", err)
			return exitMismatch
		}
	}
	if o.svg != "" {
		if err := writeChart(o, rep); err != nil {
			fmt.Fprintf(stderr, "affinityq bench: -svg: %v\n", err)
			return exitMismatch
		}
	}
	if o.jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(report{Requeue: results, Cycle: cycle}); err != nil {
			fmt.Fprintf(stderr, "affinityq bench: %v\n", err)
			return exitMismatch
		}
	} else {
		printTable(stdout, o, results)
		if len(cycle) > 0 {
			printCycleTable(stdout, o, cycle)
		}
	}
	code := exitOK
	for _, r := range results {
		if len(r.Mismatches) > 0 {
			code = exitMismatch
			fmt.Fprintf(stderr, "affinityq bench: %s/%s: the queue and the reference moved different pods:\n  %s\n",
				r.Workload, r.Policy, strings.Join(r.Mismatches, "\n  "))
		}
	}
	for _, r := range cycle {
		if len(r.Mismatches) > 0 {
			code = exitMismatch
			fmt.Fprintf(stderr, "affinityq bench: cycle: %s: the index and the naive scan answered differently:\n  %s\n",
				r.Question, strings.Join(r.Mismatches, "\n  "))
		}
	}
	return code
}

// report is bench's -json output: a result per requeue workload and
// policy, and a row per cycle question.
type report struct {
	Requeue []*result        `json:"requeue"`
	Cycle   []*cycleQuestion `json:"cycle,omitempty"`
}

func printTable(w io.Writer, o *benchOptions, results []*result) {
	fmt.Fprintf(w, "affinityq bench: %d pending pods, %d events, seed %d, %s, GOMAXPROCS=%d\n\n",
		o.cfg.Pods, o.cfg.Events, o.cfg.Seed, runtime.Version(), runtime.GOMAXPROCS(0))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "workload\tpolicy\tp50\tp99\tmax\tevents/s\tmoved/event\theap/pod\tnaive p50\tnaive p99\tspeedup\tsame moves\t")
	for _, r := range results {
		same := fmt.Sprintf("yes (%d)", r.Compared)
		if len(r.Mismatches) > 0 {
			same = "NO"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%.0f\t%.2f\t%.0f B\t%s\t%s\t%.0fx\t%s\t\n",
			r.Workload, r.Policy, dur(r.P50), dur(r.P99), dur(r.Max), r.EventsPerS, r.MovedPerEvt,
			r.HeapPerPod, dur(r.NaiveP50), dur(r.NaiveP99), r.Speedup, same)
	}
	_ = tw.Flush()
	fmt.Fprintln(w, `
p50/p99/max: the queue's time per event (index lookup and moves), over every event.
naive: the reference scanning every pending pod, over the compared events (the
first -naive-events); speedup: naive p50 / queue p50 over those same events.
heap/pod: heap held by the queue and its index per pending pod (the pods' own
objects excluded). same moves: both moved exactly the same pods on every
compared event.`)
}

func printCycleTable(w io.Writer, o *benchOptions, rows []*cycleQuestion) {
	fmt.Fprintf(w, "\naffinityq bench, the scheduling cycle: %d nodes, %d placed pods, %d incoming pods, seed %d\n\n",
		o.cycle.Nodes, o.cycle.Placed, o.cycle.Incoming, o.cycle.Seed)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "question\tp50\tmax\tnaive p50\tnaive max\tspeedup\tsame answers\t")
	for _, r := range rows {
		same := fmt.Sprintf("yes (%d)", r.Compared)
		if len(r.Mismatches) > 0 {
			same = "NO"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%.0fx\t%s\t\n",
			r.Question, dur(r.P50), dur(r.Max), dur(r.NaiveP50), dur(r.NaiveMax), r.Speedup, same)
	}
	_ = tw.Flush()
	fmt.Fprintln(w, `
p50/max: the placed index's time to answer one incoming pod's question, over the
incoming pods, replicas of 4 deployments: a deployment's first replica builds the
index's shapes for its terms (max), the others share them (p50). PreFilter: the
counts Filter reads; PreScore: the topology scores of the 500 nodes Score is
given (and their own matching pods, for a hostname spread constraint). naive:
the same question answered by scanning every placed pod
(fuzz.Cycle); speedup: naive p50 / index p50. same answers: both gave
equal answers for every incoming pod.`)
}

// dur prints a duration with three significant digits, in the unit the
// rounded value falls in: 999.6ms prints as 1s, never as 1e+03ms.
func dur(d time.Duration) string {
	if d <= 0 {
		return "-"
	}
	unit := time.Duration(1)
	for d/unit >= 1000 {
		unit *= 10
	}
	d = d.Round(unit)
	switch {
	case d < time.Microsecond:
		return fmt.Sprintf("%dns", d.Nanoseconds())
	case d < time.Millisecond:
		return fmt.Sprintf("%.3gµs", float64(d)/float64(time.Microsecond))
	case d < time.Second:
		return fmt.Sprintf("%.3gms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.3gs", d.Seconds())
}
