// Command affinityq runs affinityq's benchmark workloads end to end, both
// halves of the engine. Requeueing: it builds a pool of unschedulable pods
// in an affinityq queue and in the naive reference (a scan of every pending
// pod with apimachinery's selectors), replays a stream of cluster events
// through both, checks that both moved the same pods, and prints per-event
// latency, throughput, memory and the speedup. The scheduling cycle: it
// places pods on a cluster in a placed index and in the naive scan, asks
// both InterPodAffinity's and PodTopologySpread's PreFilter and PreScore
// questions about incoming pods, checks the answers equal, and prints
// their latency and the speedup.
//
//	affinityq bench [flags]   run the workloads (see affinityq help)
//	affinityq help            document every flag
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/affinityq/affinityq/bench"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// Exit codes.
const (
	exitOK       = 0
	exitMismatch = 1 // the queue and the reference moved different pods, or the run failed
	exitUsage    = 2 // bad command or flags
)

// run is main without the process: it returns the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		fs, _ := benchFlags(io.Discard)
		fs.SetOutput(stdout)
		fs.PrintDefaults()
		return exitOK
	case "bench":
		opts, err := parseBench(args[1:], stderr)
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		if err != nil {
			fmt.Fprintf(stderr, "affinityq bench: %v\nRun 'affinityq help' for the flags.\n", err)
			return exitUsage
		}
		return runBench(opts, stdout, stderr)
	default:
		fmt.Fprintf(stderr, "affinityq: unknown command %q\n\n%s", args[0], usage)
		return exitUsage
	}
}

const usage = `affinityq runs affinityq's benchmark workloads, the requeueing queue and the
scheduling cycle's placed index, and compares each with a naive scan.

Usage:
  affinityq bench [flags]   build the pool, replay the events through the queue
                            and the naive reference, check both moved the same
                            pods; place pods, ask the cycle's questions of the
                            placed index and the naive scan, check the answers
                            equal; print a table of each (exit 1 if any differ)
  affinityq help            print this help

Workloads: ` + "unique-partner, anti-unblock, deployments, spread, node-churn" + `
Policies:  relation (affinityq's default), transition (kube-scheduler's hints)

Flags of bench:
`

// benchOptions are the parsed flags of bench.
type benchOptions struct {
	cfg         bench.Config
	workloads   []string
	policies    []string
	naiveEvents int
	jsonOut     bool
	svg         string
	svgSizes    []int
	progress    bool
	cycle       cycleConfig
}

// benchFlags declares the flags of bench; parse fills the returned options.
func benchFlags(out io.Writer) (*flag.FlagSet, func() (*benchOptions, error)) {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(out)
	d := bench.DefaultConfig()
	pods := fs.Int("pods", d.Pods, "pending pods in the unschedulable pool")
	events := fs.Int("events", d.Events, "events replayed through the queue")
	naive := fs.Int("naive-events", 20, "how many of the events are also replayed through the naive reference and compared (it scans the whole pool per event)")
	namespaces := fs.Int("namespaces", d.Namespaces, "namespaces the pods spread over")
	nodes := fs.Int("nodes", d.Nodes, "nodes of the cluster")
	seed := fs.Uint64("seed", d.Seed, "seed of the workload generators")
	workloads := fs.String("workloads", "deployments,unique-partner", "comma-separated workloads: "+strings.Join(bench.Names(), ", "))
	policies := fs.String("policies", "relation,transition", "comma-separated policies: relation, transition")
	jsonOut := fs.Bool("json", false, "print the results as JSON instead of a table")
	svg := fs.String("svg", "", "write a chart of per-event latency against pool size (log-log, queue vs naive) to this SVG file")
	svgSizes := fs.String("svg-sizes", "1000,10000,100000", "pool sizes of the -svg chart (first workload and policy)")
	progress := fs.Bool("progress", true, "report progress on stderr: bars on a terminal, a line per phase otherwise")
	cycleNodes := fs.Int("cycle-nodes", 5000, "nodes of the scheduling-cycle half's cluster")
	cyclePlacedPods := fs.Int("cycle-placed", 150000, "pods placed on those nodes")
	cyclePods := fs.Int("cycle-pods", 12, "incoming pods the cycle half asks about, through the placed index and the naive scan (0: skip the cycle half)")
	return fs, func() (*benchOptions, error) {
		o := &benchOptions{
			cfg:         bench.Config{Pods: *pods, Events: *events, Namespaces: *namespaces, Nodes: *nodes, Seed: *seed},
			naiveEvents: *naive, jsonOut: *jsonOut, svg: *svg, progress: *progress,
			cycle: cycleConfig{Nodes: *cycleNodes, Placed: *cyclePlacedPods, Incoming: *cyclePods, Seed: *seed},
		}
		if *cycleNodes <= 0 || *cyclePlacedPods < 0 || *cyclePods < 0 {
			return nil, fmt.Errorf("-cycle-nodes must be positive, -cycle-placed and -cycle-pods not negative")
		}
		if *pods <= 0 || *pods > bench.MaxPods {
			return nil, fmt.Errorf("-pods %d: want 1 to %d", *pods, bench.MaxPods)
		}
		if *events <= 0 || *naive < 0 || *namespaces <= 0 || *nodes <= 0 {
			return nil, fmt.Errorf("-events, -namespaces and -nodes must be positive, -naive-events not negative")
		}
		for _, w := range splitList(*workloads) {
			if _, ok := bench.Lookup(w); !ok {
				return nil, fmt.Errorf("unknown workload %q (want one of %s)", w, strings.Join(bench.Names(), ", "))
			}
			o.workloads = append(o.workloads, w)
		}
		for _, p := range splitList(*policies) {
			if p != "relation" && p != "transition" {
				return nil, fmt.Errorf("unknown policy %q (want relation or transition)", p)
			}
			o.policies = append(o.policies, p)
		}
		if len(o.workloads) == 0 || len(o.policies) == 0 {
			return nil, fmt.Errorf("-workloads and -policies must name at least one each")
		}
		for _, s := range splitList(*svgSizes) {
			n, err := strconv.Atoi(s)
			if err != nil || n <= 0 || n > bench.MaxPods {
				return nil, fmt.Errorf("-svg-sizes: bad size %q", s)
			}
			o.svgSizes = append(o.svgSizes, n)
		}
		if o.svg != "" && len(o.svgSizes) < 2 {
			return nil, fmt.Errorf("-svg-sizes needs at least two sizes for a chart")
		}
		return o, nil
	}
}

func parseBench(args []string, stderr io.Writer) (*benchOptions, error) {
	fs, parse := benchFlags(stderr)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	return parse()
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
