package index

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// The benchmark pool: n pending pods in groups of `affected`. Every pod of
// group g waits for a database pod of its group (required affinity to
// app=db-g on zone) and keeps away from its siblings (required anti-affinity
// to app=pending-g on hostname): two terms per pod, spread over 50
// namespaces. Relabelling one scheduled db-g pod affects exactly the
// `affected` pods of group g.

const benchNamespaces = 50

func benchPending(i, affected int) *v1.Pod {
	g := i / affected
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: "pending-" + strconv.Itoa(i), Namespace: "ns-" + strconv.Itoa(g%benchNamespaces),
			UID:    types.UID("uid-pending-" + strconv.Itoa(i)),
			Labels: map[string]string{"app": "pending-" + strconv.Itoa(g), "pod-template-hash": "h" + strconv.Itoa(g)},
		},
		Spec: v1.PodSpec{Affinity: &v1.Affinity{
			PodAffinity: &v1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db-" + strconv.Itoa(g)}},
				TopologyKey:   "topology.kubernetes.io/zone",
			}}},
			PodAntiAffinity: &v1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "pending-" + strconv.Itoa(g)}},
				TopologyKey:   "kubernetes.io/hostname",
			}}},
		}},
	}
}

// benchEvent returns the old and new version of a scheduled db pod of group
// g whose tier label changes.
func benchEvent(g int) (oldPod, newPod *v1.Pod) {
	oldPod = &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: "db-" + strconv.Itoa(g), Namespace: "ns-" + strconv.Itoa(g%benchNamespaces), UID: "uid-db",
			Labels: map[string]string{"app": "db-" + strconv.Itoa(g), "pod-template-hash": "dbhash", "tier": "one"},
		},
		Spec: v1.PodSpec{NodeName: "node-1"},
	}
	newPod = oldPod.DeepCopy()
	newPod.Labels["tier"] = "two"
	return oldPod, newPod
}

// benchSizes returns the pool sizes: 1,000 with -short (what `make test`
// runs), 1,000 to 100,000 otherwise, plus 1,000,000 with AFFINITYQ_BENCH_1M=1.
func benchSizes() []int {
	if testing.Short() {
		return []int{1000}
	}
	sizes := []int{1000, 10000, 100000}
	if os.Getenv("AFFINITYQ_BENCH_1M") == "1" {
		sizes = append(sizes, 1000000)
	}
	return sizes
}

func benchPool(n, affected int) []*v1.Pod {
	pods := make([]*v1.Pod, n)
	for i := range pods {
		pods[i] = benchPending(i, affected)
	}
	return pods
}

func buildIndex(tb testing.TB, pods []*v1.Pod, opts ...Option) *Index[benchTag] {
	ix := New[benchTag](opts...)
	for _, p := range pods {
		if err := ix.Add(p); err != nil {
			tb.Fatal(err)
		}
	}
	return ix
}

// benchTag is the benchmarks' tag type: a pointer, as the queue's and
// kube/affinityq's are.
type benchTag = *v1.Pod

// BenchmarkAssignedPodUpdated measures the lookup for a relabelled assigned
// pod against the scans it replaces, in the same run: impl=index repeats one
// event (hot caches), impl=index-stream cycles through the events of every
// group (cold caches, as a real stream), impl=scan evaluates
// every pending pod's precompiled terms with this module's matcher (the best
// a scan can do); BenchmarkAssignedPodUpdatedNaive runs the naive
// reference on the same pool and event in the same run.
func BenchmarkAssignedPodUpdated(b *testing.B) {
	for _, n := range benchSizes() {
		pods := benchPool(n, 10)
		ix := buildIndex(b, pods)
		compiled := make([]*Pending[benchTag], len(pods))
		for i, p := range pods {
			compiled[i], _ = Compile[benchTag](p)
		}
		qo, qn := benchEvent(n / 10 / 2)
		ev := &Event{Kind: AssignedPodUpdate, OldPod: qo, NewPod: qn}
		prefix := fmt.Sprintf("pods=%d/affected=10", n)

		b.Run(prefix+"/impl=index", func(b *testing.B) {
			b.ReportAllocs()
			hits := make([]Hit[benchTag], 0, 64)
			for b.Loop() {
				hits = ix.AssignedPodUpdated(hits[:0], qo, qn)
			}
			b.ReportMetric(float64(len(hits)), "affected/op")
		})
		// The same kind of event, but each for the next group: successive
		// lookups touch different postings and pods, as a real event stream
		// does, so caches are cold where the loop above keeps them hot.
		events := make([]Event, n/10)
		for g := range events {
			o, nw := benchEvent(g)
			events[g] = Event{Kind: AssignedPodUpdate, OldPod: o, NewPod: nw}
		}
		b.Run(prefix+"/impl=index-stream", func(b *testing.B) {
			b.ReportAllocs()
			hits := make([]Hit[benchTag], 0, 64)
			i, affected := 0, 0
			for b.Loop() {
				hits = ix.Lookup(hits[:0], &events[i%len(events)])
				affected += len(hits)
				i++
			}
			b.ReportMetric(float64(affected)/float64(i), "affected/op")
		})
		b.Run(prefix+"/impl=scan", func(b *testing.B) {
			b.ReportAllocs()
			hits := make([]Hit[benchTag], 0, 64)
			for b.Loop() {
				hits = scan(hits[:0], compiled, ev)
			}
			b.ReportMetric(float64(len(hits)), "affected/op")
		})
	}
}

// scan is the precompiled linear scan: prepare the event once, evaluate
// every pending pod.
func scan(dst []Hit[benchTag], pods []*Pending[benchTag], ev *Event) []Hit[benchTag] {
	var e prepared
	prepare(&e, ev, nil, nil)
	for _, p := range pods {
		if rel, tr, _ := evaluate(&p.rules.shape, p.rules, p.pod, &e, termMatches{}); rel|tr != 0 {
			dst = append(dst, Hit[benchTag]{Pod: p.pod, Relation: rel, Transition: tr})
		}
	}
	return dst
}

// BenchmarkAffected shows that the lookup's cost follows the number of
// affected pods, not the pool: the pool size is fixed and the group size
// varies. ns/affected is the cost per affected pod.
func BenchmarkAffected(b *testing.B) {
	n := benchSizes()[len(benchSizes())-1]
	for _, affected := range []int{1, 10, 100, 1000} {
		ix := buildIndex(b, benchPool(n, affected))
		qo, qn := benchEvent(n / affected / 2)
		b.Run(fmt.Sprintf("pods=%d/affected=%d", n, affected), func(b *testing.B) {
			b.ReportAllocs()
			hits := make([]Hit[benchTag], 0, 2*affected)
			for b.Loop() {
				hits = ix.AssignedPodUpdated(hits[:0], qo, qn)
			}
			if len(hits) != affected {
				b.Fatalf("%d hits, want %d", len(hits), affected)
			}
			b.ReportMetric(float64(len(hits)), "affected/op")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(affected), "ns/affected")
		})
	}
}

// BenchmarkAddRemove adds and removes a two-term pending pod in a full
// index: shape=replica is one more replica of an existing group (its
// postings and rules exist already, the common case), shape=unique a pod of
// a new group (every posting and its rules are created and dropped).
func BenchmarkAddRemove(b *testing.B) {
	for _, n := range benchSizes() {
		ix := buildIndex(b, benchPool(n, 10))
		replica := benchPending(n/2, 10)
		replica.UID = "uid-extra-replica"
		for _, shape := range []struct {
			name string
			pod  *v1.Pod
		}{{"replica", replica}, {"unique", benchPending(n+5, 10)}} {
			b.Run(fmt.Sprintf("pods=%d/terms=2/shape=%s", n, shape.name), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if err := ix.Add(shape.pod); err != nil {
						b.Fatal(err)
					}
					ix.Remove(shape.pod.UID)
				}
			})
		}
	}
}

// BenchmarkMemory reports the index's heap per indexed term and per pod,
// with the default slice/bitmap postings and with bitmaps only
// (threshold=0), for two shapes: groups of 10 pods sharing their postings,
// and groups of one (every posting unique, the unique-partner workload).
func BenchmarkMemory(b *testing.B) {
	for _, n := range benchSizes() {
		for _, affected := range []int{1, 10} {
			pods := benchPool(n, affected)
			for _, threshold := range []int{DefaultPostingThreshold, 0} {
				name := fmt.Sprintf("pods=%d/group=%d/postings=%s", n, affected, map[bool]string{true: "hybrid", false: "roaring"}[threshold > 0])
				b.Run(name, func(b *testing.B) {
					var perTerm, perPod float64
					for b.Loop() {
						var before, after runtime.MemStats
						runtime.GC()
						runtime.ReadMemStats(&before)
						ix := buildIndex(b, pods, WithPostingThreshold(threshold))
						runtime.GC()
						runtime.ReadMemStats(&after)
						bytes := float64(after.HeapAlloc) - float64(before.HeapAlloc)
						terms := float64(ix.Stats().Terms)
						perTerm, perPod = bytes/terms, bytes/float64(ix.Len())
						runtime.KeepAlive(ix)
					}
					b.ReportMetric(perTerm, "bytes/term")
					b.ReportMetric(perPod, "bytes/pod")
				})
			}
		}
	}
}

// BenchmarkShards measures what shards cost a single lookup and what they
// buy under concurrency: one goroutine per GOMAXPROCS runs lookups while
// every fourth operation is an add and remove of a pending pod.
func BenchmarkShards(b *testing.B) {
	n := benchSizes()[len(benchSizes())-1]
	pods := benchPool(n, 10)
	for _, shards := range []int{1, 4, 16} {
		ix := buildIndex(b, pods, WithShards(shards))
		qo, qn := benchEvent(n / 10 / 2)
		b.Run(fmt.Sprintf("pods=%d/shards=%d/mode=serial", n, shards), func(b *testing.B) {
			b.ReportAllocs()
			hits := make([]Hit[benchTag], 0, 64)
			for b.Loop() {
				hits = ix.AssignedPodUpdated(hits[:0], qo, qn)
			}
		})
		b.Run(fmt.Sprintf("pods=%d/shards=%d/mode=parallel", n, shards), func(b *testing.B) {
			b.ReportAllocs()
			var worker atomic.Int64
			b.RunParallel(func(pb *testing.PB) {
				w := int(worker.Add(1))
				extra := benchPending(n+w, 10)
				extra.UID = types.UID(fmt.Sprintf("uid-extra-%d", w))
				hits := make([]Hit[benchTag], 0, 64)
				for i := 0; pb.Next(); i++ {
					if i%4 == 3 {
						_ = ix.Add(extra)
						ix.Remove(extra.UID)
						continue
					}
					hits = ix.AssignedPodUpdated(hits[:0], qo, qn)
				}
			})
		})
	}
}

// The unique-rules pool: n pending pods, each its own group (a label of its
// own), waiting for a partner: required affinity to color=c-k on zone, and
// every other pod of a partner also to tier=t-j on hostname. The k of pod i
// is i modulo n/affected, so the affected pods that wait for one partner
// are spread over the whole pool (and over their shard's groups), as the
// pods of unrelated workloads are, and alternate between rules of one and
// of two terms. A relabelled partner affects them all.
func uniquePending(i, n, affected int) *v1.Pod {
	partners := max(n/affected, 1)
	k := i % partners
	p := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: "unique-" + strconv.Itoa(i), Namespace: "ns-" + strconv.Itoa(k%benchNamespaces),
			UID:    types.UID("uid-unique-" + strconv.Itoa(i)),
			Labels: map[string]string{"app": "unique", "pod": "p-" + strconv.Itoa(i)},
		},
		Spec: v1.PodSpec{Affinity: &v1.Affinity{PodAffinity: &v1.PodAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"color": "c-" + strconv.Itoa(k)}},
				TopologyKey:   "topology.kubernetes.io/zone",
			}},
		}}},
	}
	if i/partners%2 == 1 {
		terms := &p.Spec.Affinity.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution
		*terms = append(*terms, v1.PodAffinityTerm{
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"tier": "t-" + strconv.Itoa(i%7)}},
			TopologyKey:   "kubernetes.io/hostname",
		})
	}
	return p
}

// uniqueEvent returns the old and new version of the scheduled partner k,
// whose rev label changes.
func uniqueEvent(k int) (oldPod, newPod *v1.Pod) {
	oldPod = &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: "partner-" + strconv.Itoa(k), Namespace: "ns-" + strconv.Itoa(k%benchNamespaces), UID: "uid-partner",
			Labels: map[string]string{"color": "c-" + strconv.Itoa(k), "rev": "one"},
		},
		Spec: v1.PodSpec{NodeName: "node-1"},
	}
	newPod = oldPod.DeepCopy()
	newPod.Labels["rev"] = "two"
	return oldPod, newPod
}

// BenchmarkUniqueRules measures the cost of each affected pod when every
// pending pod has rules of its own (shape=unique: a StatefulSet's pods, a
// unique partner label), next to the same number of affected pods in one
// group (shape=group, BenchmarkAssignedPodUpdated's pool): impl=index
// repeats one event (warm caches), impl=index-stream cycles through the
// events of every partner (cold caches, as a real stream). ns/affected is
// the event's cost over its affected pods; the cost each affected pod adds
// is the difference of the affected=150 and affected=15 rows over 135
// (DESIGN.md: the cost grows with the affected pods, not the pool).
func BenchmarkUniqueRules(b *testing.B) {
	for _, n := range benchSizes() {
		for _, shape := range []string{"unique", "group"} {
			for _, affected := range []int{15, 150} {
				var pods []*v1.Pod
				var events []Event
				switch shape {
				case "unique":
					pods = make([]*v1.Pod, n)
					for i := range pods {
						pods[i] = uniquePending(i, n, affected)
					}
					events = make([]Event, max(n/affected, 1))
					for k := range events {
						o, nw := uniqueEvent(k)
						events[k] = Event{Kind: AssignedPodUpdate, OldPod: o, NewPod: nw}
					}
				default:
					pods = benchPool(n, affected)
					events = make([]Event, n/affected)
					for g := range events {
						o, nw := benchEvent(g)
						events[g] = Event{Kind: AssignedPodUpdate, OldPod: o, NewPod: nw}
					}
				}
				ix := buildIndex(b, pods)
				for _, impl := range []string{"index", "index-stream"} {
					b.Run(fmt.Sprintf("pods=%d/shape=%s/affected=%d/impl=%s", n, shape, affected, impl), func(b *testing.B) {
						b.ReportAllocs()
						hits := make([]Hit[benchTag], 0, 2*affected)
						i, got := 0, 0
						for b.Loop() {
							ev := &events[len(events)/2]
							if impl == "index-stream" {
								ev = &events[i%len(events)]
							}
							hits = ix.Lookup(hits[:0], ev)
							got += len(hits)
							i++
						}
						b.ReportMetric(float64(got)/float64(i), "affected/op")
						b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(got), "ns/affected")
					})
				}
			}
		}
	}
}

// BenchmarkMatching measures Index.Matching, the question "whose terms
// match this pod", on the unique-rules pool: the partner pod of an event
// matches the first term of the affected pods that wait for it.
func BenchmarkMatching(b *testing.B) {
	for _, n := range benchSizes() {
		for _, affected := range []int{15, 150} {
			pods := make([]*v1.Pod, n)
			for i := range pods {
				pods[i] = uniquePending(i, n, affected)
			}
			ix := buildIndex(b, pods)
			_, partner := uniqueEvent(max(n/affected, 1) / 2)
			b.Run(fmt.Sprintf("pods=%d/affected=%d", n, affected), func(b *testing.B) {
				b.ReportAllocs()
				dst := make([]Match[benchTag], 0, 2*affected)
				got := 0
				for b.Loop() {
					dst = ix.Matching(dst[:0], partner)
					got = len(dst)
				}
				b.ReportMetric(float64(got), "matches/op")
			})
		}
	}
}
