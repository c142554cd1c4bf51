package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{args: nil, want: "Usage:"},
		{args: []string{"frobnicate"}, want: `unknown command "frobnicate"`},
		{args: []string{"bench", "-pods", "x"}, want: "invalid value"},
		{args: []string{"bench", "-pods", "0"}, want: "-pods 0"},
		{args: []string{"bench", "-workloads", "nope"}, want: `unknown workload "nope"`},
		{args: []string{"bench", "-policies", "fifo"}, want: `unknown policy "fifo"`},
		{args: []string{"bench", "-nosuchflag"}, want: "flag provided but not defined"},
		{args: []string{"bench", "extra"}, want: `unexpected argument "extra"`},
		{args: []string{"bench", "-svg", "x.svg", "-svg-sizes", "1000"}, want: "at least two sizes"},
	}
	for _, tc := range tests {
		var stdout, stderr bytes.Buffer
		if code := run(tc.args, &stdout, &stderr); code != exitUsage {
			t.Errorf("run(%q) = %d, want %d", tc.args, code, exitUsage)
		}
		if !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("run(%q) stderr = %q, want it to contain %q", tc.args, stderr.String(), tc.want)
		}
	}
}

func TestHelpDocumentsEveryFlag(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"help"}, &stdout, &stderr); code != exitOK {
		t.Fatalf("help exited %d", code)
	}
	fs, _ := benchFlags(&stderr)
	for _, name := range []string{"pods", "events", "naive-events", "namespaces", "nodes", "seed", "workloads", "policies", "json", "svg", "svg-sizes", "progress"} {
		if fs.Lookup(name) == nil {
			t.Errorf("flag -%s is not declared", name)
		}
		if !strings.Contains(stdout.String(), "-"+name) {
			t.Errorf("help does not document -%s", name)
		}
	}
}

// TestBenchEndToEnd runs every workload under both policies at a small size:
// the queue and the reference must move the same pods on every event.
func TestBenchEndToEnd(t *testing.T) {
	var stdout, stderr bytes.Buffer
	args := []string{"bench", "-pods", "600", "-events", "120", "-naive-events", "120", "-namespaces", "5", "-nodes", "30",
		"-workloads", "unique-partner,anti-unblock,deployments,spread,node-churn", "-json", "-progress=false",
		"-cycle-nodes", "60", "-cycle-placed", "3000", "-cycle-pods", "8"}
	if code := run(args, &stdout, &stderr); code != exitOK {
		t.Fatalf("bench exited %d: %s", code, stderr.String())
	}
	var out struct {
		Requeue []result        `json:"requeue"`
		Cycle   []cycleQuestion `json:"cycle"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("bad JSON: %v\n%s", err, stdout.String())
	}
	results := out.Requeue
	if len(out.Cycle) != 4 {
		t.Fatalf("%d cycle rows, want 4 (PreFilter and PreScore of both plugins)", len(out.Cycle))
	}
	for _, r := range out.Cycle {
		if r.Compared != 8 || len(r.Mismatches) > 0 || r.P50 <= 0 || r.NaiveP50 <= 0 {
			t.Errorf("cycle %s: %+v", r.Question, r)
		}
	}
	if len(results) != 10 {
		t.Fatalf("%d results, want 10 (5 workloads × 2 policies)", len(results))
	}
	for _, r := range results {
		if r.Compared != 120 || len(r.Mismatches) > 0 || r.P50 <= 0 || r.NaiveP50 <= 0 {
			t.Errorf("%s/%s: %+v", r.Workload, r.Policy, r)
		}
		if (r.Workload == "unique-partner" || r.Workload == "anti-unblock") && r.Policy == "transition" && r.MovedPerEvt != 1 {
			t.Errorf("%s/transition moved %.2f pods per event, want exactly 1", r.Workload, r.MovedPerEvt)
		}
	}
}

func TestBenchTableAndChart(t *testing.T) {
	svg := filepath.Join(t.TempDir(), "latency.svg")
	var stdout, stderr bytes.Buffer
	args := []string{"bench", "-pods", "300", "-events", "40", "-naive-events", "10", "-workloads", "unique-partner",
		"-policies", "relation", "-svg", svg, "-svg-sizes", "100,300", "-progress=false", "-cycle-pods", "0"}
	if code := run(args, &stdout, &stderr); code != exitOK {
		t.Fatalf("bench exited %d: %s", code, stderr.String())
	}
	for _, want := range []string{"unique-partner", "relation", "speedup", "yes (10)"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, stdout.String())
		}
	}
	data, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte("<svg")) || !bytes.Contains(data, []byte("naive scan")) {
		t.Errorf("%s is not the chart (%d bytes)", svg, len(data))
	}
}

// TestBenchLog checks that progress written to a file or a pipe, not a
// terminal, is a line per phase: no progress bar frames.
func TestBenchLog(t *testing.T) {
	var stdout, stderr bytes.Buffer
	args := []string{"bench", "-pods", "300", "-events", "40", "-naive-events", "10", "-workloads", "unique-partner",
		"-policies", "relation", "-cycle-nodes", "30", "-cycle-placed", "600", "-cycle-pods", "4"}
	if code := run(args, &stdout, &stderr); code != exitOK {
		t.Fatalf("bench exited %d: %s", code, stderr.String())
	}
	log := stderr.String()
	lines := strings.Split(strings.TrimSuffix(log, "\n"), "\n")
	// pool, reference and events of the one replay, the cycle's cluster and questions
	if strings.Contains(log, "\r") || len(lines) != 5 {
		t.Errorf("stderr has %d lines, want 5 without carriage returns:\n%q", len(lines), log)
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "affinityq bench: ") {
			t.Errorf("stderr line %q lacks the command's prefix", l)
		}
	}
	for _, want := range []string{"the scheduling cycle", "InterPodAffinity PreFilter", "PodTopologySpread PreScore", "yes (4)"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, stdout.String())
		}
	}
}

func TestDur(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{0, "-"},
		{-time.Second, "-"},
		{999 * time.Nanosecond, "999ns"},
		{999600 * time.Nanosecond, "1ms"},
		{1234567 * time.Nanosecond, "1.23ms"},
		{999600 * time.Microsecond, "1s"},
		{1004 * time.Millisecond, "1s"},
		{12345 * time.Millisecond, "12.3s"},
		{2*time.Minute + 5*time.Second, "125s"},
	} {
		if got := dur(c.d); got != c.want {
			t.Errorf("dur(%v) = %q, want %q", c.d, got, c.want)
		}
	}
}
