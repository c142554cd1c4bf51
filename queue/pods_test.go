package queue_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/affinityq/affinityq/queue"
)

// Test pods are built by makePod from options; the namespace defaults to
// ns1 and the UID to the name.

type podOption func(*v1.Pod)

func makePod(name string, opts ...podOption) *v1.Pod {
	p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns1", UID: types.UID(name)}}
	for _, o := range opts {
		o(p)
	}
	return p
}

func inNamespace(ns string) podOption { return func(p *v1.Pod) { p.Namespace = ns } }

func withLabels(kv ...string) podOption {
	return func(p *v1.Pod) {
		p.Labels = map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			p.Labels[kv[i]] = kv[i+1]
		}
	}
}

func withPriority(prio int32) podOption { return func(p *v1.Pod) { p.Spec.Priority = &prio } }

func onNode(node string) podOption { return func(p *v1.Pod) { p.Spec.NodeName = node } }

func term(key, value, topologyKey string) v1.PodAffinityTerm {
	return v1.PodAffinityTerm{
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{key: value}},
		TopologyKey:   topologyKey,
	}
}

// withAffinity adds a required affinity term to key=value on zone.
func withAffinity(key, value string) podOption {
	return func(p *v1.Pod) {
		ensureAffinity(p)
		p.Spec.Affinity.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(
			p.Spec.Affinity.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution, term(key, value, "zone"))
	}
}

// withAntiAffinity adds a required anti-affinity term to key=value on host.
func withAntiAffinity(key, value string) podOption {
	return func(p *v1.Pod) {
		ensureAffinity(p)
		p.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(
			p.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution, term(key, value, "host"))
	}
}

// withSpread adds a DoNotSchedule spread constraint over key=value on zone.
func withSpread(key, value string) podOption {
	return func(p *v1.Pod) {
		p.Spec.TopologySpreadConstraints = append(p.Spec.TopologySpreadConstraints, v1.TopologySpreadConstraint{
			MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: v1.DoNotSchedule,
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{key: value}},
		})
	}
}

func ensureAffinity(p *v1.Pod) {
	if p.Spec.Affinity == nil {
		p.Spec.Affinity = &v1.Affinity{}
	}
	if p.Spec.Affinity.PodAffinity == nil {
		p.Spec.Affinity.PodAffinity = &v1.PodAffinity{}
	}
	if p.Spec.Affinity.PodAntiAffinity == nil {
		p.Spec.Affinity.PodAntiAffinity = &v1.PodAntiAffinity{}
	}
}

// relabel returns a copy of p with the labels kv.
func relabel(p *v1.Pod, kv ...string) *v1.Pod {
	n := p.DeepCopy()
	withLabels(kv...)(n)
	return n
}

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// newQueue returns a queue on a fake clock.
func newQueue(t *testing.T, opts ...queue.Option) (*queue.Queue, *testingclock.FakeClock) {
	t.Helper()
	c := testingclock.NewFakeClock(epoch)
	q := queue.New(append([]queue.Option{queue.WithClock(c)}, opts...)...)
	t.Cleanup(q.Close)
	return q, c
}

func mustAdd(t *testing.T, q *queue.Queue, pods ...*v1.Pod) {
	t.Helper()
	for _, p := range pods {
		if err := q.Add(p); err != nil {
			t.Fatalf("Add(%s): %v", p.Name, err)
		}
	}
}

// mustPop pops and checks that the pod popped is want. It never blocks: it
// fails when activeQ is empty.
func mustPop(t *testing.T, q *queue.Queue, want string) *queue.PodInfo {
	t.Helper()
	if q.Stats().Active == 0 {
		t.Fatalf("Pop: activeQ is empty, want %s", want)
	}
	pi, err := q.Pop(context.Background())
	if err != nil {
		t.Fatalf("Pop = %v, want %s", err, want)
	}
	if pi.Pod.Name != want {
		t.Fatalf("Pop = %s, want %s", pi.Pod.Name, want)
	}
	return pi
}

// popAndFail pops name and fails it with the plugins given.
func popAndFail(t *testing.T, q *queue.Queue, name string, plugins ...string) *queue.PodInfo {
	t.Helper()
	pi := mustPop(t, q, name)
	if err := q.AddUnschedulable(pi, plugins...); err != nil {
		t.Fatalf("AddUnschedulable(%s): %v", name, err)
	}
	return pi
}

// locations returns where each named pod is ("-" when not queued).
func locations(q *queue.Queue, names ...string) map[string]string {
	m := map[string]string{}
	for _, n := range names {
		if l, ok := q.Location(types.UID(n)); ok {
			m[n] = l.String()
		} else {
			m[n] = "-"
		}
	}
	return m
}

func checkLocations(t *testing.T, q *queue.Queue, want map[string]string) {
	t.Helper()
	names := make([]string, 0, len(want))
	for n := range want {
		names = append(names, n)
	}
	if diff := cmp.Diff(want, locations(q, names...)); diff != "" {
		t.Errorf("locations (-want +got):\n%s", diff)
	}
	if err := q.Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}
}
