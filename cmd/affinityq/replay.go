package main

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/affinityq/affinityq/bench"
	"github.com/affinityq/affinityq/fuzz"
	"github.com/affinityq/affinityq/index"
	"github.com/affinityq/affinityq/queue"
)

// result is one workload replayed under one policy.
type result struct {
	Workload string `json:"workload"`
	Policy   string `json:"policy"`
	Pods     int    `json:"pods"`
	Events   int    `json:"events"`

	// The queue, over every event.
	P50         time.Duration `json:"p50_ns"`
	P99         time.Duration `json:"p99_ns"`
	Max         time.Duration `json:"max_ns"`
	EventsPerS  float64       `json:"events_per_s"`
	MovedPerEvt float64       `json:"moved_per_event"`
	HeapPerPod  float64       `json:"heap_bytes_per_pod"`

	// The naive reference, over the first Compared events, and the queue's
	// median over the same events.
	Compared   int           `json:"compared_events"`
	NaiveP50   time.Duration `json:"naive_p50_ns"`
	NaiveP99   time.Duration `json:"naive_p99_ns"`
	QueueP50On time.Duration `json:"queue_p50_on_compared_ns"`
	Speedup    float64       `json:"speedup"`

	// Mismatches lists the first pods the two moved differently, if any.
	Mismatches []string `json:"mismatches,omitempty"`
}

// moveCounter is the queue's Metrics hook: it counts the pods each event
// moves.
type moveCounter struct{ moved int }

func (m *moveCounter) Lookup(_ index.EventKind, _, moved int) { m.moved += moved }
func (m *moveCounter) Moved(string, queue.Location)           {}

// replay builds the pool of w in a queue under policy and in the reference,
// replays w's events through both (through the reference only the first
// naiveEvents), and measures.
func replay(w *bench.Workload, policy string, naiveEvents int, rep *reporter) (*result, error) {
	res := &result{Workload: w.Name, Policy: policy, Pods: len(w.Pending), Events: len(w.Events)}
	nsLabels := map[string]map[string]string{}
	for _, ns := range w.Namespaces {
		nsLabels[ns.Name] = ns.Labels
	}
	lookup := func(ns string) (map[string]string, bool) {
		l, ok := nsLabels[ns]
		return l, ok
	}
	pol := queue.Relation
	if policy == "transition" {
		pol = queue.Transition
	}
	counter := &moveCounter{}
	clk := clocktesting.NewFakeClock(time.Unix(1_700_000_000, 0))

	// Build the queue: every pending pod added, popped and rejected by both
	// plugins, so that it sits in the unschedulable pool.
	var before, after runtime.MemStats
	settledHeap(&before)
	q := queue.New(queue.WithPolicy(pol), queue.WithNamespaceLabels(lookup), queue.WithClock(clk), queue.WithMetrics(counter))
	defer q.Close()
	bar := rep.phase(len(w.Pending), w.Name+"/"+policy+": pool")
	for _, p := range w.Pending {
		if err := q.Add(p); err != nil {
			return nil, err
		}
		pi, err := q.Pop(context.Background())
		if err != nil {
			return nil, err
		}
		if err := q.AddUnschedulable(pi, queue.InterPodAffinity, queue.PodTopologySpread); err != nil {
			return nil, err
		}
		bar.add(1)
	}
	bar.done()
	settledHeap(&after)
	res.HeapPerPod = (float64(after.HeapAlloc) - float64(before.HeapAlloc)) / float64(len(w.Pending))

	ref := fuzz.NewReference(lookup)
	compared := min(naiveEvents, len(w.Events))
	if compared > 0 {
		bar = rep.phase(len(w.Pending), w.Name+"/"+policy+": reference")
		for _, p := range w.Pending {
			ref.Add(p)
			bar.add(1)
		}
		bar.done()
	}

	lat := make([]time.Duration, len(w.Events))
	naiveLat := make([]time.Duration, 0, compared)
	moved := 0
	bar = rep.phase(len(w.Events), w.Name+"/"+policy+": events")
	for i := range w.Events {
		ev := &w.Events[i]
		if ev.Kind == index.NamespaceUpdate && ev.NewNamespace != nil {
			nsLabels[ev.NewNamespace.Name] = ev.NewNamespace.Labels
		}
		counter.moved = 0
		start := time.Now()
		deliver(q, ev)
		lat[i] = time.Since(start)
		moved += counter.moved

		if i < compared {
			start = time.Now()
			effects := ref.Event(ev)
			naiveLat = append(naiveLat, time.Since(start))
			want := movedBy(effects, pol)
			if bad := compareMoves(q, want, counter.moved, w.Pending); len(bad) > 0 && len(res.Mismatches) < 20 {
				for _, b := range bad {
					res.Mismatches = append(res.Mismatches, fmt.Sprintf("event %d (%s): %s", i, ev.Kind, b))
				}
			}
			for _, uid := range want {
				ref.Remove(uid)
			}
		}
		bar.add(1)
	}
	bar.done()

	var total time.Duration
	for _, d := range lat {
		total += d
	}
	res.Compared = compared
	res.MovedPerEvt = float64(moved) / float64(len(w.Events))
	res.EventsPerS = float64(len(w.Events)) / total.Seconds()
	res.QueueP50On = percentile(lat[:compared], 50)
	res.P50, res.P99, res.Max = percentile(lat, 50), percentile(lat, 99), percentile(lat, 100)
	if compared > 0 {
		res.NaiveP50, res.NaiveP99 = percentile(naiveLat, 50), percentile(naiveLat, 99)
		res.Speedup = float64(res.NaiveP50) / float64(max(res.QueueP50On, 1))
	}
	return res, nil
}

// settledHeap reads the heap statistics after two collections: objects that
// take a second cycle to go (sync.Pool victims, finalized objects) from an
// earlier replay must not count against this one.
func settledHeap(m *runtime.MemStats) {
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(m)
}

// deliver hands ev to the queue's event method.
func deliver(q *queue.Queue, ev *index.Event) {
	switch ev.Kind {
	case index.AssignedPodAdd:
		q.AssignedPodAdded(ev.NewPod)
	case index.AssignedPodUpdate:
		q.AssignedPodUpdated(ev.OldPod, ev.NewPod)
	case index.AssignedPodDelete:
		q.AssignedPodDeleted(ev.OldPod)
	case index.NodeAdd:
		q.NodeAdded(ev.NewNode)
	case index.NodeUpdate:
		q.NodeUpdated(ev.OldNode, ev.NewNode)
	case index.NodeDelete:
		q.NodeDeleted(ev.OldNode)
	case index.NamespaceUpdate:
		q.NamespaceUpdated(ev.OldNamespace, ev.NewNamespace)
	}
}

// movedBy returns the pods a policy moves given the reference's effects:
// every pool pod was rejected by both plugins, so Transition moves a pod
// with any Transition rule set.
func movedBy(effects map[types.UID]fuzz.Effect, pol queue.Policy) []types.UID {
	var out []types.UID
	for uid, e := range effects {
		if (pol == queue.Relation && e.Relation != 0) || (pol == queue.Transition && e.Transition != 0) {
			out = append(out, uid)
		}
	}
	slices.Sort(out)
	return out
}

// compareMoves checks that the queue moved exactly want: every pod of want
// left the pool, and the queue moved as many pods as want holds. When they
// differ it names the pods, scanning the pool once.
func compareMoves(q *queue.Queue, want []types.UID, queueMoved int, pending []*v1.Pod) []string {
	ok := queueMoved == len(want)
	for _, uid := range want {
		if loc, found := q.Location(uid); found && loc == queue.Unschedulable {
			ok = false
		}
	}
	if ok {
		return nil
	}
	wanted := map[types.UID]bool{}
	for _, uid := range want {
		wanted[uid] = true
	}
	var bad []string
	for _, p := range pending {
		loc, found := q.Location(p.UID)
		stillPooled := found && loc == queue.Unschedulable
		if wanted[p.UID] && stillPooled {
			bad = append(bad, fmt.Sprintf("%s/%s moved by the reference, not by the queue", p.Namespace, p.Name))
		}
	}
	if len(bad) == 0 {
		bad = append(bad, fmt.Sprintf("the queue moved %d pods, the reference %d", queueMoved, len(want)))
	}
	return bad
}

// percentile returns the p-th percentile (nearest rank) of ds; 100 is the
// maximum.
func percentile(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	rank := (p*len(s) + 99) / 100
	return s[min(max(rank, 1), len(s))-1]
}
