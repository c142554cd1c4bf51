package affinityq_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/features"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/affinityq/affinityq/kube/affinityq"
)

// benchPartners is the unique-partner workload of DESIGN.md: pending pod i
// requires (affinity on zone) a pod labelled color=yellow-i, and partner i
// is the assigned pod that unblocks it and no other.
func benchPartners(n int) (pending, partners []*v1.Pod) {
	for i := range n {
		ns := "ns" + strconv.Itoa(i%4)
		color := "yellow-" + strconv.Itoa(i)
		p := &v1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "pending-" + strconv.Itoa(i), UID: types.UID("pending-" + strconv.Itoa(i)), Labels: map[string]string{"app": "waiter", "i": strconv.Itoa(i)}},
			Spec: v1.PodSpec{SchedulerName: v1.DefaultSchedulerName, Affinity: &v1.Affinity{PodAffinity: &v1.PodAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
					LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"color": color}},
					TopologyKey:   v1.LabelTopologyZone,
				}},
			}}},
		}
		if i%2 == 0 { // every other pod has a second term: 1–2 terms each
			p.Spec.Affinity.PodAntiAffinity = &v1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "waiter", "i": strconv.Itoa(i)}},
				TopologyKey:   v1.LabelHostname,
			}}}
		}
		pending = append(pending, p)
		partners = append(partners, &v1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "partner-" + strconv.Itoa(i), UID: types.UID("partner-" + strconv.Itoa(i)), Labels: map[string]string{"color": color}},
			Spec:       v1.PodSpec{NodeName: "node-" + strconv.Itoa(i%100)},
		})
	}
	return pending, partners
}

// benchObjects returns the cluster's objects for the pending pods: the
// namespaces and the pods.
func benchObjects(pending []*v1.Pod) []runtime.Object {
	objs := make([]runtime.Object, 0, len(pending)+len(genNamespaces))
	for _, ns := range genNamespaces {
		objs = append(objs, ns.DeepCopy())
	}
	for _, p := range pending {
		objs = append(objs, p)
	}
	return objs
}

// queueBench turns SchedulerPreQueueingHints on for b and returns a
// context, cancelled when b ends, whose logger discards: kube-scheduler
// logs every hint at V(5).
func queueBench(b *testing.B) (context.Context, klog.Logger) {
	featuregatetesting.SetFeatureGateDuringTest(b, utilfeature.DefaultFeatureGate, features.SchedulerPreQueueingHints, true)
	logger := klog.Logger(logr.Discard())
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logger))
	b.Cleanup(cancel)
	return ctx, logger
}

// parkedQueues returns the scheduler and two of its PriorityQueues of the README
// configuration holding pending in the unschedulable pool, rejected as rj
// picks, and their hint counters: "on" with the wrappers' registrations as
// they are (pre-hints and gated hints), "off" with the in-tree hints alone.
func parkedQueues(ctx context.Context, b *testing.B, pending []*v1.Pod, rj map[string]rejecters) (*scheduler, map[string]*queue.PriorityQueue, map[string]*hintCounter) {
	logger := klog.FromContext(ctx)
	s := newScheduler(b, readmeConfig(b), benchObjects(pending)...)
	var with, without hintCounter
	now := time.Now()
	queues := map[string]*queue.PriorityQueue{
		"on":  s.newQueue(ctx, with.instrument(s.hints, true), testingclock.NewFakeClock(now)),
		"off": s.newQueue(ctx, without.instrument(s.ungatedHints, false), testingclock.NewFakeClock(now)),
	}
	s.start(b)
	for _, q := range queues {
		for _, p := range pending {
			q.Add(ctx, p)
		}
		s.park(b, logger, q, 0, rj)
		if got := len(q.UnschedulablePods()); got != len(pending) {
			b.Fatalf("%d pods parked, want %d", got, len(pending))
		}
	}
	return s, queues, map[string]*hintCounter{"on": &with, "off": &without}
}

// BenchmarkQueueEvent measures kube-scheduler's PriorityQueue handling one
// assigned-pod event with 100,000 unschedulable pods (1,000 under -short),
// all rejected by InterPodAffinity, with the README configuration: with
// the wrappers' registrations as they are (prehint=on: PreQueueingHints and
// gated hints) and with the in-tree hints alone (prehint=off, the same
// profile with the pre-hints removed and the gates open, which is what
// kube-scheduler does with the in-tree plugins), in the same run. event=add
// adds the assigned pod that unblocks exactly one pending pod (put back in
// the pool between operations, untimed); event=relabel relabels an
// assigned pod so that it matches no pending pod's terms before or after;
// event=delete deletes the assigned pod whose labels exactly one pending
// pod's anti-affinity term selects, an event the README configuration does
// not narrow (NodeResourcesFit registers it without a pre-hint), so that
// every parked pod's hint is called and the gates answer.
func BenchmarkQueueEvent(b *testing.B) {
	n := 100_000
	if testing.Short() {
		n = 1_000
	}
	ctx, logger := queueBench(b)

	pending, partners := benchPartners(n)
	rj := map[string]rejecters{v1.DefaultSchedulerName: {affinity: affinityq.InterPodAffinityName}}
	s, queues, counters := parkedQueues(ctx, b, pending, rj)

	blue := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns0", Name: "blue", UID: "blue", Labels: map[string]string{"color": "blue-a"}},
		Spec:       v1.PodSpec{NodeName: "node-0"},
	}
	blueB := blue.DeepCopy()
	blueB.Labels = map[string]string{"color": "blue-b"}
	relabel := framework.PodSchedulingPropertiesChange(blueB, blue, false)
	if len(relabel) != 1 || relabel[0].ActionType != fwk.UpdatePodLabel {
		b.Fatalf("relabelling events = %v, want one UpdatePodLabel", relabel)
	}

	// blocker i carries the labels pending pod i's anti-affinity term
	// selects (even i: the pods with a second term).
	blocker := func(i int) *v1.Pod {
		i -= i % 2
		return &v1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: pending[i].Namespace, Name: "blocker-" + strconv.Itoa(i), UID: types.UID("blocker-" + strconv.Itoa(i)),
				Labels: map[string]string{"app": "waiter", "i": strconv.Itoa(i)}},
			Spec: v1.PodSpec{NodeName: "node-0"},
		}
	}

	for _, event := range []string{"add", "relabel", "delete"} {
		for _, pre := range []string{"off", "on"} {
			q, c := queues[pre], counters[pre]
			b.Run("pods="+strconv.Itoa(n)+"/event="+event+"/prehint="+pre, func(b *testing.B) {
				b.ReportAllocs()
				hints0, returned0 := c.hints.Load(), c.returned.Load()
				moves, ops := 0, 0
				for b.Loop() {
					switch event {
					case "add":
						partner := partners[ops%n]
						q.MoveAllToActiveOrBackoffQueue(logger, framework.EventAssignedPodAdd, nil, partner, nil)
						b.StopTimer()
						moves += len(q.PodsInActiveQ()) + len(q.PodsInBackoffQ())
						s.park(b, logger, q, ops+1, rj)
						b.StartTimer()
					case "delete":
						b.StopTimer()
						gone := blocker(ops % n)
						b.StartTimer()
						q.MoveAllToActiveOrBackoffQueue(logger, framework.EventAssignedPodDelete, gone, nil, nil)
						b.StopTimer()
						moves += len(q.PodsInActiveQ()) + len(q.PodsInBackoffQ())
						s.park(b, logger, q, ops+1, rj)
						b.StartTimer()
					case "relabel":
						old, cur := blue, blueB
						if ops%2 == 1 {
							old, cur = blueB, blue
						}
						q.MoveAllToActiveOrBackoffQueue(logger, relabel[0], old, cur, nil)
					}
					ops++
				}
				b.ReportMetric(float64(c.hints.Load()-hints0)/float64(ops), "hints/op")
				b.ReportMetric(float64(c.returned.Load()-returned0)/float64(ops), "candidates/op")
				b.ReportMetric(float64(moves)/float64(ops), "moved/op")
			})
		}
	}
}

// BenchmarkQueueEventAvoided measures kube-scheduler's PriorityQueue
// handling the addition of an assigned pod that every parked pod avoids:
// 10,000 unschedulable anti-affinity replicas (1,000 under -short), each
// kept by InterPodAffinity off the nodes of the pods labelled color=green,
// and a green pod placed, as in scheduler_perf's PodAdd. No in-tree hint
// queues a pod for a pod it avoids being added, so the pre-hint names none
// of them; prehint=off is what kube-scheduler does with the in-tree
// plugins, asking every replica's hint.
func BenchmarkQueueEventAvoided(b *testing.B) {
	n := 10_000
	if testing.Short() {
		n = 1_000
	}
	ctx, logger := queueBench(b)

	avoid := &v1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"color": "green"}},
		TopologyKey:   v1.LabelHostname,
	}}}
	pending := make([]*v1.Pod, n)
	for i := range pending {
		name := "replica-" + strconv.Itoa(i)
		pending[i] = &v1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "ns0", Name: name, UID: types.UID(name), Labels: map[string]string{"app": "replica"}},
			Spec:       v1.PodSpec{SchedulerName: v1.DefaultSchedulerName, Affinity: &v1.Affinity{PodAntiAffinity: avoid}},
		}
	}
	rj := map[string]rejecters{v1.DefaultSchedulerName: {affinity: affinityq.InterPodAffinityName}}
	_, queues, counters := parkedQueues(ctx, b, pending, rj)
	for _, pre := range []string{"off", "on"} {
		q, c := queues[pre], counters[pre]
		b.Run("pods="+strconv.Itoa(n)+"/prehint="+pre, func(b *testing.B) {
			b.ReportAllocs()
			hints0, returned0 := c.hints.Load(), c.returned.Load()
			ops := 0
			for b.Loop() {
				name := "green-" + strconv.Itoa(ops)
				green := &v1.Pod{
					ObjectMeta: metav1.ObjectMeta{Namespace: "ns0", Name: name, UID: types.UID(name), Labels: map[string]string{"color": "green"}},
					Spec:       v1.PodSpec{NodeName: "node-0"},
				}
				q.MoveAllToActiveOrBackoffQueue(logger, framework.EventAssignedPodAdd, nil, green, nil)
				ops++
			}
			if moved := len(q.PodsInActiveQ()) + len(q.PodsInBackoffQ()); moved != 0 {
				b.Fatalf("%d pods moved, want none", moved)
			}
			b.ReportMetric(float64(c.hints.Load()-hints0)/float64(ops), "hints/op")
			b.ReportMetric(float64(c.returned.Load()-returned0)/float64(ops), "candidates/op")
		})
	}
}

// BenchmarkSelfCheck measures what WithSelfCheck costs: the affinity
// wrapper's pre-hint for an assigned pod added that unblocks one of 100,000
// pending pods (1,000 under -short), without a self-check (check=off) and
// with one on every narrowed answer (check=every), in the same run. A
// self-check lists the informer's store and evaluates the event against
// every pending pod.
func BenchmarkSelfCheck(b *testing.B) {
	n := 100_000
	if testing.Short() {
		n = 1_000
	}
	logger := klog.Logger(logr.Discard())
	pending, partners := benchPartners(n)
	objs := benchObjects(pending)
	for _, check := range []string{"off", "every"} {
		var opts []affinityq.Option
		if check == "every" {
			opts = append(opts, affinityq.WithSelfCheck(1))
		}
		s := buildScheduler(b, wrappersOnly, internalcache.NewEmptySnapshot(), opts, objs...)
		s.start(b)
		add := preHintOf(b, s.frameworks[v1.DefaultSchedulerName], affinityq.InterPodAffinityName, framework.EventAssignedPodAdd)
		b.Run("pods="+strconv.Itoa(n)+"/check="+check, func(b *testing.B) {
			b.ReportAllocs()
			ops := 0
			for b.Loop() {
				res, err := add(logger, nil, partners[ops%n])
				if err != nil || len(res.Pods) != 1 {
					b.Fatalf("pre-hint: %v pods, error %v; want the partner's pod", res.Pods, err)
				}
				ops++
			}
		})
	}
}
