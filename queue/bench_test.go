package queue_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/affinityq/affinityq/index"
	"github.com/affinityq/affinityq/queue"
)

// The benchmark pool is index/bench_test.go's: n pending pods in groups of
// 10; every pod of group g has required affinity to app=db-g on zone and
// required anti-affinity to app=pending-g on hostname, over 50 namespaces.
// The event relabels (tier one → two) a scheduled db-g pod: it relates to
// the 10 pods of group g (Relation moves them) and makes none of them
// schedulable (Transition moves none).

const (
	benchNamespaces = 50
	benchGroup      = 10
)

func benchPending(i int) *v1.Pod {
	g := strconv.Itoa(i / benchGroup)
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: "pending-" + strconv.Itoa(i), Namespace: "ns-" + strconv.Itoa(i/benchGroup%benchNamespaces),
			UID:    types.UID("uid-pending-" + strconv.Itoa(i)),
			Labels: map[string]string{"app": "pending-" + g, "pod-template-hash": "h" + g},
		},
		Spec: v1.PodSpec{Affinity: &v1.Affinity{
			PodAffinity: &v1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db-" + g}},
				TopologyKey:   "topology.kubernetes.io/zone",
			}}},
			PodAntiAffinity: &v1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "pending-" + g}},
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

func benchSizes() []int {
	if testing.Short() {
		return []int{1000}
	}
	return []int{1000, 10000, 100000}
}

// reparkEvery is how many events the Relation benchmark runs between two
// untimed re-parkings of the pods it moved (fewer in small pools).
const reparkEvery = 1000

// benchQueue returns a queue whose n pods are all in the unschedulable
// pool, rejected by InterPodAffinity.
func benchQueue(b *testing.B, n int, policy queue.Policy) *queue.Queue {
	b.Helper()
	q := queue.New(queue.WithPolicy(policy))
	for i := range n {
		if err := q.Add(benchPending(i)); err != nil {
			b.Fatal(err)
		}
	}
	repark(b, q, n)
	return q
}

// repark pops the n pods of activeQ and fails them again.
func repark(b *testing.B, q *queue.Queue, n int) {
	b.Helper()
	for range n {
		pi, err := q.Pop(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if err := q.AddUnschedulable(pi, queue.InterPodAffinity); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkQueue measures, in one run:
//
//   - op=assignedPodUpdated, policy=relation: the queue's handling of the
//     event, i.e. lock, index lookup, and moving the 10 related pods from
//     the pool to activeQ. Each event relabels a db pod of the next group,
//     so successive events touch different pods, as in a real stream; every
//     reparkEvery events the timer stops while the moved pods are popped
//     and parked again.
//   - op=assignedPodUpdated, policy=transition: the same events, which
//     Transition filters out: lock, lookup, filter, no move.
//   - op=assignedPodUpdated, impl=index: the index lookup alone for the
//     same events, on an index holding the same pool: the queue-over-index
//     ratio.
//   - op=addPopFailDelete: one pod's life in a full pool: Add, Pop,
//     AddUnschedulable (parking it in the index), Delete.
func BenchmarkQueue(b *testing.B) {
	for _, n := range benchSizes() {
		groups := n / benchGroup
		events := make([][2]*v1.Pod, groups)
		for g := range events {
			events[g][0], events[g][1] = benchEvent(g)
		}
		for _, policy := range []queue.Policy{queue.Relation, queue.Transition} {
			q := benchQueue(b, n, policy)
			name := fmt.Sprintf("pods=%d/policy=%s", n, map[queue.Policy]string{queue.Relation: "relation", queue.Transition: "transition"}[policy])
			b.Run(name+"/op=assignedPodUpdated", func(b *testing.B) {
				b.ReportAllocs()
				before := q.Stats()
				every := max(1, min(reparkEvery, groups/2)) // never more than half the pool out
				i := 0
				for b.Loop() {
					ev := &events[i%groups]
					q.AssignedPodUpdated(ev[0], ev[1])
					i++
					if policy == queue.Relation && i%every == 0 {
						b.StopTimer()
						repark(b, q, q.Stats().Active)
						b.StartTimer()
					}
				}
				after := q.Stats()
				b.ReportMetric(float64(after.Moves["AssignedPodUpdate"]-before.Moves["AssignedPodUpdate"])/float64(b.N), "moved/op")
				repark(b, q, after.Active)
				if st := q.Stats(); st.Active != 0 || st.Unschedulable != n {
					b.Fatalf("pool not restored: %+v", st)
				}
			})
			b.Run(name+"/op=addPopFailDelete", func(b *testing.B) {
				b.ReportAllocs()
				p := benchPending(n + 5)
				for b.Loop() {
					if err := q.Add(p); err != nil {
						b.Fatal(err)
					}
					pi, err := q.Pop(context.Background())
					if err != nil {
						b.Fatal(err)
					}
					if err := q.AddUnschedulable(pi, queue.InterPodAffinity); err != nil {
						b.Fatal(err)
					}
					q.Delete(p)
				}
			})
			q.Close()
		}
		ix := index.New[any]()
		for i := range n {
			if err := ix.Add(benchPending(i)); err != nil {
				b.Fatal(err)
			}
		}
		b.Run(fmt.Sprintf("pods=%d/impl=index/op=assignedPodUpdated", n), func(b *testing.B) {
			b.ReportAllocs()
			hits := make([]index.Hit[any], 0, 64)
			i, affected := 0, 0
			for b.Loop() {
				ev := &events[i%groups]
				hits = ix.AssignedPodUpdated(hits[:0], ev[0], ev[1])
				affected += len(hits)
				i++
			}
			b.ReportMetric(float64(affected)/float64(i), "affected/op")
		})
	}
}
