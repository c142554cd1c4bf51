//go:build ignore

// perf-fallbacks-summary prints, from the results of make perf-runs or make
// perf-fallbacks, what the affinityq wrappers' scheduling-cycle counters
// (affinityq_cycle_answers_total, affinityq_cycle_fallbacks_total) gained in
// each workload under the affinityq profile: one row per workload and
// round, the fallbacks by plugin and reason.
//
//	go run scripts/perf-fallbacks-summary.go DIR|FILE...
//
// It reads the AffinityqCycles_<profile>_<run>.json files that kube/perf
// writes into -data-items-dir (the raw/ folder of a results directory),
// found under each DIR. Rows keep the order the workloads ran in, the
// rounds of one workload together. A workload that failed still has its
// row, marked, with what it counted until its ops stopped.
package main

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
)

// cyclesFile is kube/perf's cyclesFile (kube/perf/cycles_test.go).
type cyclesFile struct {
	Suite     string `json:"suite"`
	Profile   string `json:"profile"`
	Run       string `json:"run"`
	Workloads []struct {
		TestCase       string                        `json:"testCase"`
		Workload       string                        `json:"workload"`
		Failed         bool                          `json:"failed"`
		AnswersTotal   float64                       `json:"answersTotal"`
		FallbacksTotal float64                       `json:"fallbacksTotal"`
		Fallbacks      map[string]map[string]float64 `json:"fallbacks"`
	} `json:"workloads"`
}

type row struct {
	suite, workload, run, profile string
	answers, fallbacks            float64
	byReason                      string
	failed                        bool
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: go run scripts/perf-fallbacks-summary.go DIR|FILE...")
		os.Exit(2)
	}
	var files []string
	for _, arg := range os.Args[1:] {
		err := filepath.WalkDir(arg, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && strings.HasPrefix(d.Name(), "AffinityqCycles_") && strings.HasSuffix(d.Name(), ".json") {
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, "perf-fallbacks-summary:", err)
			os.Exit(1)
		}
	}
	if len(files) == 0 {
		fmt.Fprintf(os.Stderr, "perf-fallbacks-summary: no AffinityqCycles_*.json under %s\n", strings.Join(os.Args[1:], " "))
		os.Exit(1)
	}
	slices.Sort(files) // by suite directory, then profile and run (its start time)

	// Rows grouped by workload, in the order each workload first ran.
	var order []string
	byWorkload := map[string][]row{}
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "perf-fallbacks-summary:", err)
			os.Exit(1)
		}
		var f cyclesFile
		if err := json.Unmarshal(data, &f); err != nil {
			fmt.Fprintf(os.Stderr, "perf-fallbacks-summary: %s: %v\n", path, err)
			os.Exit(1)
		}
		for _, w := range f.Workloads {
			r := row{suite: f.Suite, workload: w.TestCase + "/" + w.Workload, run: f.Run, profile: f.Profile,
				answers: w.AnswersTotal, fallbacks: w.FallbacksTotal, failed: w.Failed}
			var reasons []string
			for _, plugin := range slices.Sorted(maps.Keys(w.Fallbacks)) {
				for _, reason := range slices.Sorted(maps.Keys(w.Fallbacks[plugin])) {
					reasons = append(reasons, fmt.Sprintf("%s/%s=%v", plugin, reason, w.Fallbacks[plugin][reason]))
				}
			}
			r.byReason = strings.Join(reasons, " ")
			key := r.suite + " " + r.profile + " " + r.workload
			if _, ok := byWorkload[key]; !ok {
				order = append(order, key)
			}
			byWorkload[key] = append(byWorkload[key], r)
		}
	}

	tw := tabwriter.NewWriter(os.Stdout, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "suite\tworkload\tprofile\trun\tanswers\tfallbacks\tfallbacks by plugin/reason")
	var workloads, withFallbacks, failed int
	for _, key := range order {
		workloads++
		fell := false
		for _, r := range byWorkload[key] {
			note := r.byReason
			if r.failed {
				note = strings.TrimSpace(note + " (workload failed)")
				failed++
			}
			if note == "" {
				note = "-"
			}
			fell = fell || r.fallbacks > 0
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%v\t%v\t%s\n", r.suite, r.workload, r.profile, r.run, r.answers, r.fallbacks, note)
		}
		if fell {
			withFallbacks++
		}
	}
	tw.Flush()
	fmt.Printf("%d workloads, %d with fallbacks in some round, %d failed runs\n", workloads, withFallbacks, failed)
}
