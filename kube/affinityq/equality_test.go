package affinityq_test

import (
	"context"
	"hash/fnv"
	"maps"
	"math/rand/v2"
	"os"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/affinityq/affinityq/kube/affinityq"
)

// readmeConfig returns the KubeSchedulerConfiguration of the module's
// README: the configuration the equality test checks is the documented one.
func readmeConfig(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```yaml\n(apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n.*?)```").FindSubmatch(b)
	if m == nil {
		t.Fatal("README.md has no KubeSchedulerConfiguration block")
	}
	return string(m[1])
}

// wrappersOnly is a profile with the wrappers and nothing else that
// registers events: every narrowable event is narrowed.
const wrappersOnly = `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    multiPoint:
      enabled:
      - name: AffinityqInterPodAffinity
      - name: AffinityqPodTopologySpread
      disabled:
      - name: "*"
    queueSort:
      enabled:
      - name: PrioritySort
    bind:
      enabled:
      - name: DefaultBinder
`

// twoProfiles adds to wrappersOnly a profile with kube-scheduler's default
// plugins, in-tree InterPodAffinity and PodTopologySpread included.
const twoProfiles = wrappersOnly + `- schedulerName: plain-scheduler
  plugins:
    queueSort:
      enabled:
      - name: PrioritySort
`

// rejecters lists, per scheduler name, the plugins that may reject a pod.
type rejecters struct {
	affinity, spread string   // the InterPodAffinity and PodTopologySpread plugins
	others           []string // other plugins of the profile that register events
}

var (
	wrapped = rejecters{affinity: affinityq.InterPodAffinityName, spread: affinityq.PodTopologySpreadName}
	plain   = rejecters{affinity: "InterPodAffinity", spread: "PodTopologySpread", others: []string{"NodeResourcesFit", "NodeAffinity", "NodePorts"}}
)

// pick returns a random non-empty set of the plugins that could have
// rejected p at a step, as a function of both. PodTopologySpread only
// rejects pods with DoNotSchedule constraints (its PreFilter skips the
// others); InterPodAffinity may reject any pod (an assigned pod's
// anti-affinity).
func (rj rejecters) pick(p *v1.Pod, step int) sets.Set[string] {
	h := fnv.New64a()
	h.Write([]byte(p.UID))
	r := rand.New(rand.NewPCG(h.Sum64(), uint64(step)))
	out := sets.New[string]()
	if r.IntN(3) > 0 {
		out.Insert(rj.affinity)
	}
	if hardSpread(p) && r.IntN(2) == 0 {
		out.Insert(rj.spread)
	}
	for _, o := range rj.others {
		if r.IntN(3) == 0 {
			out.Insert(o)
		}
	}
	if out.Len() == 0 {
		out.Insert(rj.affinity)
	}
	return out
}

// park pops every pod of activeQ and backoffQ and puts it back in the
// unschedulable pool, rejected by the plugins rejecters picks; the wrappers
// among them mark the pod rejected, as their PreFilter or Filter does in
// the cycle that rejects it.
func (s *scheduler) park(t testing.TB, logger klog.Logger, q *queue.PriorityQueue, step int, rj map[string]rejecters) {
	t.Helper()
	// Listing the queues costs their length: count once, then pop that many.
	for n := len(q.PodsInActiveQ()) + len(q.PodsInBackoffQ()); n > 0; n-- {
		e, err := q.Pop(logger)
		if err != nil {
			t.Fatalf("Pop: %v", err)
		}
		pi, ok := e.(*framework.QueuedPodInfo)
		if !ok {
			t.Fatalf("Pop returned a %T", e)
		}
		pi.UnschedulablePlugins = rj[pi.Pod.Spec.SchedulerName].pick(pi.Pod, step)
		for name := range pi.UnschedulablePlugins {
			s.reject(t, pi.Pod, name)
		}
		if err := q.AddUnschedulablePodIfNotPresent(logger, pi, q.SchedulingCycle()); err != nil {
			t.Fatalf("AddUnschedulablePodIfNotPresent: %v", err)
		}
	}
}

func TestPreQueueingHintMovesSamePods(t *testing.T) {
	pods, events := 200, 2000
	if testing.Short() {
		pods, events = 50, 1000 // the README case keeps its 10,000 events
	}
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.SchedulerPreQueueingHints, true)
	for _, tc := range []struct {
		name   string
		config string
		rj     map[string]rejecters
		pods   int
		events int
		// narrows: some events must be narrowed (not a vacuous pass).
		narrows bool
	}{
		{
			name:   "README configuration",
			config: readmeConfig(t),
			rj: map[string]rejecters{
				v1.DefaultSchedulerName: {affinity: affinityq.InterPodAffinityName, spread: affinityq.PodTopologySpreadName, others: plain.others},
			},
			pods: pods, events: 10000, narrows: true,
		},
		{
			name:   "wrappers only",
			config: wrappersOnly,
			rj:     map[string]rejecters{v1.DefaultSchedulerName: wrapped},
			pods:   pods, events: events, narrows: true,
		},
		{
			name:   "a second profile without the wrappers",
			config: twoProfiles,
			rj:     map[string]rejecters{v1.DefaultSchedulerName: wrapped, "plain-scheduler": plain},
			pods:   pods, events: events, narrows: true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkEquality(t, tc.config, tc.rj, tc.pods, tc.events, tc.narrows)
		})
	}
}

func checkEquality(t *testing.T, cfg string, rj map[string]rejecters, nPods, nEvents int, narrows bool) {
	logger := klog.Logger(logr.Discard()) // kube-scheduler logs every hint at V(5)
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logger))
	defer cancel()
	g := newGen(1)
	names := slices.Sorted(maps.Keys(rj))
	var objs []runtime.Object
	for _, ns := range genNamespaces {
		objs = append(objs, ns.DeepCopy())
	}
	var pending []*v1.Pod
	for i := range nPods {
		p := g.pendingPod(names[i%len(names)])
		pending = append(pending, p)
		objs = append(objs, p)
	}
	for range 10 {
		g.nodes = append(g.nodes, g.node())
	}
	s := newScheduler(t, cfg, objs...)
	var with, without hintCounter
	now := time.Now()
	qw := s.newQueue(ctx, with.instrument(s.hints, true), testingclock.NewFakeClock(now))
	qo := s.newQueue(ctx, without.instrument(s.ungatedHints, false), testingclock.NewFakeClock(now))
	s.start(t)
	for _, p := range pending {
		qw.Add(ctx, p)
		qo.Add(ctx, p)
	}
	s.park(t, logger, qw, 0, rj)
	s.park(t, logger, qo, 0, rj)
	if got := len(qw.UnschedulablePods()); got != nPods {
		t.Fatalf("%d pods parked, want %d", got, nPods)
	}
	if err := s.plugins.ValidateTracker(); err != nil {
		t.Fatal(err)
	}

	movedTotal := 0
	for step := 1; step <= nEvents; step++ {
		ev := g.next()
		for _, ce := range ev.events {
			before := unschedulable(qw)
			if diff := cmp.Diff(before, unschedulable(qo)); diff != "" {
				t.Fatalf("event %d: the pools differ before %s (-with +without):\n%s", step, ev.what, diff)
			}
			qw.MoveAllToActiveOrBackoffQueue(logger, ce, ev.old, ev.new, nil)
			qo.MoveAllToActiveOrBackoffQueue(logger, ce, ev.old, ev.new, nil)
			mw, mo := moved(before, unschedulable(qw)), moved(before, unschedulable(qo))
			if diff := cmp.Diff(mo, mw); diff != "" {
				t.Fatalf("event %d (%s, %s): pods moved (-without +with pre-hints):\n%s", step, ev.what, ce.Label(), diff)
			}
			movedTotal += len(mw)
		}
		s.park(t, logger, qw, step, rj)
		s.park(t, logger, qo, step, rj)
	}
	t.Logf("%d events over %d pods: %d pods moved; hint calls %d without pre-hints, %d with; pre-hints: %d narrowed (%.1f pods each), %d all pods",
		nEvents, nPods, movedTotal, without.hints.Load(), with.hints.Load(),
		with.narrowed.Load(), float64(with.returned.Load())/max(float64(with.narrowed.Load()), 1), with.allPods.Load())
	if narrows && (with.narrowed.Load() == 0 || with.hints.Load() >= without.hints.Load()) {
		t.Errorf("the pre-hints narrowed nothing: %d narrowed calls, %d hint calls with, %d without", with.narrowed.Load(), with.hints.Load(), without.hints.Load())
	}
	if movedTotal == 0 {
		t.Error("no event moved any pod: the test checks nothing")
	}
}
