package perf

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"k8s.io/component-base/metrics/legacyregistry"
	"k8s.io/kubernetes/test/utils/client-go/ktesting"
)

// The affinityq wrappers' scheduling-cycle counters in kube-scheduler's
// registry (kube/affinityq/metrics.go and the metrics.go of kube/internal/requeue and cycle).
const (
	cycleAnswersName   = "affinityq_cycle_answers_total"   // by plugin
	cycleFallbacksName = "affinityq_cycle_fallbacks_total" // by plugin and reason
)

// cyclesFilePrefix starts the name of the JSON file of a profile's cycle
// counts in -data-items-dir (scripts/perf-fallbacks-summary.go reads them).
const cyclesFilePrefix = "AffinityqCycles_"

// A fallback is one series of cycleFallbacksName.
type fallback struct{ plugin, reason string }

// cycleCounts is one reading of the two counters, or what a workload added
// to them.
type cycleCounts struct {
	answers   map[string]float64   // by plugin
	fallbacks map[fallback]float64 // by plugin and reason
}

// readCycleCounts reads the two counters from legacyregistry. Before the
// first affinityq.New registers them, and after the harness resets the
// registry, they have no series: zero.
func readCycleCounts() (cycleCounts, error) {
	c := cycleCounts{answers: map[string]float64{}, fallbacks: map[fallback]float64{}}
	families, err := legacyregistry.DefaultGatherer.Gather()
	if err != nil {
		return c, fmt.Errorf("perf: reading %s and %s: %w", cycleAnswersName, cycleFallbacksName, err)
	}
	for _, f := range families {
		name := f.GetName()
		if name != cycleAnswersName && name != cycleFallbacksName {
			continue
		}
		for _, m := range f.GetMetric() {
			var fb fallback
			for _, l := range m.GetLabel() {
				switch l.GetName() {
				case "plugin":
					fb.plugin = l.GetValue()
				case "reason":
					fb.reason = l.GetValue()
				}
			}
			if name == cycleAnswersName {
				c.answers[fb.plugin] += m.GetCounter().GetValue()
			} else {
				c.fallbacks[fb] += m.GetCounter().GetValue()
			}
		}
	}
	return c, nil
}

// since returns what c counts beyond before, leaving out the series that
// did not grow. A series that shrank means the registry was reset in
// between: an error, since what it counted before the reset is lost.
func (c cycleCounts) since(before cycleCounts) (cycleCounts, error) {
	d := cycleCounts{answers: map[string]float64{}, fallbacks: map[fallback]float64{}}
	for k, n := range c.answers {
		if n -= before.answers[k]; n < 0 {
			return d, fmt.Errorf("perf: %s{plugin=%q} went from %v to %v: the registry was reset", cycleAnswersName, k, before.answers[k], c.answers[k])
		} else if n > 0 {
			d.answers[k] = n
		}
	}
	for k, n := range c.fallbacks {
		if n -= before.fallbacks[k]; n < 0 {
			return d, fmt.Errorf("perf: %s{plugin=%q,reason=%q} went from %v to %v: the registry was reset", cycleFallbacksName, k.plugin, k.reason, before.fallbacks[k], c.fallbacks[k])
		} else if n > 0 {
			d.fallbacks[k] = n
		}
	}
	return d, nil
}

// totals returns the answers and the fallbacks of every series.
func (c cycleCounts) totals() (answers, fallbacks float64) {
	for _, n := range c.answers {
		answers += n
	}
	for _, n := range c.fallbacks {
		fallbacks += n
	}
	return answers, fallbacks
}

// A cycleMetric is one value b.ReportMetric reports.
type cycleMetric struct {
	value float64
	unit  string
}

// metrics returns what a workload reports, units sorted: the totals
// (answers/op and fallbacks/op, always, so that a workload without
// fallbacks shows a 0), then each series that grew
// (answers.<plugin>/op, fallbacks.<plugin>.<reason>/op). One op is one
// workload (-benchtime=1x).
func (c cycleCounts) metrics() []cycleMetric {
	answers, fallbacks := c.totals()
	out := []cycleMetric{{answers, "answers/op"}, {fallbacks, "fallbacks/op"}}
	var series []cycleMetric
	for k, n := range c.answers {
		series = append(series, cycleMetric{n, "answers." + k + "/op"})
	}
	for k, n := range c.fallbacks {
		series = append(series, cycleMetric{n, "fallbacks." + k.plugin + "." + k.reason + "/op"})
	}
	slices.SortFunc(series, func(a, b cycleMetric) int { return strings.Compare(a.unit, b.unit) })
	return append(out, series...)
}

// cyclesFile is the JSON file of one profile's run: every workload it has
// finished so far, in order.
type cyclesFile struct {
	Suite     string         `json:"suite"` // affinityq, or the upstream suite's directory name
	Profile   string         `json:"profile"`
	Run       string         `json:"run"` // when the run started (UTC, RFC 3339): one per round
	Workloads []cyclesRecord `json:"workloads"`
}

// cyclesRecord is one workload's counts.
type cyclesRecord struct {
	TestCase       string                        `json:"testCase"`
	Workload       string                        `json:"workload"`
	Failed         bool                          `json:"failed,omitempty"` // as the workload stood once its ops were done
	AnswersTotal   float64                       `json:"answersTotal"`
	FallbacksTotal float64                       `json:"fallbacksTotal"`
	Answers        map[string]float64            `json:"answers"`   // by plugin
	Fallbacks      map[string]map[string]float64 `json:"fallbacks"` // by plugin, then reason
}

func newCyclesRecord(testCase, workload string, failed bool, c cycleCounts) cyclesRecord {
	r := cyclesRecord{TestCase: testCase, Workload: workload, Failed: failed,
		Answers: c.answers, Fallbacks: map[string]map[string]float64{}}
	r.AnswersTotal, r.FallbacksTotal = c.totals()
	for k, n := range c.fallbacks {
		if r.Fallbacks[k.plugin] == nil {
			r.Fallbacks[k.plugin] = map[string]float64{}
		}
		r.Fallbacks[k.plugin][k.reason] = n
	}
	return r
}

// cycleRecorder counts, for each workload of one profile's run, what the
// affinityq wrappers' cycle counters gained while the workload ran, and
// reports it: with b.ReportMetric on the workload's benchmark line, and in
// a JSON file in -data-items-dir rewritten after each workload (so that it
// holds every finished workload even when a later one fails, which prints
// no benchmark line, or the run is stopped). Not in the workload's log: the
// testing package keeps only the first ten lines of a benchmark's log, and
// the harness fills them.
//
// The harness runs one workload at a time, and its hooks and cleanups on
// the workload's goroutine, so a recorder needs no lock.
type cycleRecorder struct {
	file cyclesFile
	path string // the JSON file; "" without -data-items-dir
}

// newCycleRecorder returns a recorder for one profile's run of suite,
// writing into dir ("" for no file).
func newCycleRecorder(suite, profile, run, dir string) *cycleRecorder {
	r := &cycleRecorder{file: cyclesFile{Suite: suite, Profile: profile, Run: run, Workloads: []cyclesRecord{}}}
	if dir != "" {
		r.path = filepath.Join(dir, cyclesFilePrefix+profile+"_"+run+".json")
	}
	return r
}

// prepare is the harness's prepare hook (perf.WithPrepareFn). It runs once
// the workload's scheduler has started, on a fresh etcd with neither nodes
// nor pods yet, so no cycle has run; it reads the counters, and a cleanup
// reads them again once the workload's ops are done.
//
// That cleanup runs before the harness's own, which stops the scheduler and
// then resets the registry (legacyregistry.Reset) for the next workload: a
// cleanup registered any earlier would run after the reset and read
// nothing. So a cycle that starts after the workload's last op is not
// counted; in upstream's affinity and topology_spreading suites there are
// none, as the last op waits until every pod it created is scheduled (the
// gated pods of SchedulingGatedPodsWithPodAffinityImpactForThroughput stay
// gated: no cycles).
func (r *cycleRecorder) prepare(tCtx ktesting.TContext) error {
	before, err := readCycleCounts()
	if err != nil {
		return err
	}
	tb := tCtx.TB()
	tb.Cleanup(func() {
		after, err := readCycleCounts()
		if err == nil {
			after, err = after.since(before)
		}
		if err != nil {
			tb.Error(err)
			return
		}
		// BenchmarkPerfScheduling/profile=<p>/<test case>/<workload>
		parts := strings.Split(tb.Name(), "/")
		testCase, workload := parts[len(parts)-2], parts[len(parts)-1]
		if answers, fallbacks := after.totals(); answers+fallbacks == 0 && !tb.Failed() {
			// Every pod's cycle counts one or the other, per wrapper: a 0
			// fallbacks that counted nothing at all would read as a pass.
			tb.Errorf("perf: %s/%s: neither %s nor %s counted a cycle: the wrappers did not run, or the series are named otherwise", testCase, workload, cycleAnswersName, cycleFallbacksName)
		}
		if b, ok := tb.(*testing.B); ok {
			for _, m := range after.metrics() {
				b.ReportMetric(m.value, m.unit)
			}
		}
		if err := r.record(newCyclesRecord(testCase, workload, tb.Failed(), after)); err != nil {
			tb.Error(err)
		}
	})
	return nil
}

// record adds a workload's counts and rewrites the JSON file.
func (r *cycleRecorder) record(w cyclesRecord) error {
	r.file.Workloads = append(r.file.Workloads, w)
	if r.path == "" {
		return nil
	}
	data, err := json.MarshalIndent(r.file, "", "  ")
	if err != nil {
		return fmt.Errorf("perf: %w", err)
	}
	if err := os.WriteFile(r.path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("perf: %w", err)
	}
	return nil
}

// TestCycleCounts checks what a workload reports from two readings of the
// counters: the series that grew, the totals and the metrics' units, and an
// error where a series shrank.
func TestCycleCounts(t *testing.T) {
	const ipa, pts = "AffinityqInterPodAffinity", "AffinityqPodTopologySpread"
	counts := func(answers map[string]float64, fallbacks map[fallback]float64) cycleCounts {
		return cycleCounts{answers: answers, fallbacks: fallbacks}
	}
	for _, tc := range []struct {
		name          string
		before, after cycleCounts
		wantMetrics   []cycleMetric
		wantErr       bool
	}{{
		name:        "no series",
		before:      counts(map[string]float64{}, map[fallback]float64{}),
		after:       counts(map[string]float64{}, map[fallback]float64{}),
		wantMetrics: []cycleMetric{{0, "answers/op"}, {0, "fallbacks/op"}},
	}, {
		name:   "answers only, counted from zero",
		before: counts(map[string]float64{}, map[fallback]float64{}),
		after:  counts(map[string]float64{ipa: 10, pts: 10}, map[fallback]float64{}),
		wantMetrics: []cycleMetric{{20, "answers/op"}, {0, "fallbacks/op"},
			{10, "answers." + ipa + "/op"}, {10, "answers." + pts + "/op"}},
	}, {
		name:   "what an earlier workload counted is left out",
		before: counts(map[string]float64{ipa: 5, pts: 3}, map[fallback]float64{{pts, "defaults"}: 2, {ipa, "sync"}: 1}),
		after:  counts(map[string]float64{ipa: 15, pts: 3}, map[fallback]float64{{pts, "defaults"}: 12, {ipa, "sync"}: 1, {pts, "pod-group"}: 4}),
		wantMetrics: []cycleMetric{{10, "answers/op"}, {14, "fallbacks/op"},
			{10, "answers." + ipa + "/op"}, {10, "fallbacks." + pts + ".defaults/op"}, {4, "fallbacks." + pts + ".pod-group/op"}},
	}, {
		name:    "a series shrank: the registry was reset",
		before:  counts(map[string]float64{ipa: 5}, map[fallback]float64{}),
		after:   counts(map[string]float64{ipa: 2}, map[fallback]float64{}),
		wantErr: true,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := tc.after.since(tc.before)
			if tc.wantErr {
				if err == nil {
					t.Fatalf("since() = %v, nil; want an error", d)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.wantMetrics, d.metrics(), cmp.AllowUnexported(cycleMetric{})); diff != "" {
				t.Errorf("metrics() (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCycleRecorderFile checks that the JSON file holds every workload
// recorded so far after each one, as scripts/perf-fallbacks-summary.go
// reads it.
func TestCycleRecorderFile(t *testing.T) {
	dir := t.TempDir()
	r := newCycleRecorder("topology_spreading", "affinityq", "2026-12-02T10:00:00Z", dir)
	ws := []cyclesRecord{
		newCyclesRecord("TopologySpreading", "5Nodes", false, cycleCounts{
			answers: map[string]float64{"P": 20}, fallbacks: map[fallback]float64{}}),
		newCyclesRecord("DefaultTopologySpreading", "5Nodes", true, cycleCounts{
			answers: map[string]float64{"P": 10}, fallbacks: map[fallback]float64{{"Q", "defaults"}: 10}}),
	}
	for i, w := range ws {
		if err := r.record(w); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(dir, "AffinityqCycles_affinityq_2026-12-02T10:00:00Z.json"))
		if err != nil {
			t.Fatal(err)
		}
		var got cyclesFile
		if err := json.Unmarshal(data, &got); err != nil {
			t.Fatal(err)
		}
		want := cyclesFile{Suite: "topology_spreading", Profile: "affinityq", Run: "2026-12-02T10:00:00Z", Workloads: ws[:i+1]}
		if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("after %d workloads, the file (-want +got):\n%s", i+1, diff)
		}
	}
	if got, want := ws[1].FallbacksTotal, 10.0; got != want {
		t.Errorf("FallbacksTotal = %v, want %v", got, want)
	}
}
