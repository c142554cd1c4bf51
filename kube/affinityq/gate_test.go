package affinityq_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	"github.com/affinityq/affinityq/kube/affinityq"
)

// hintOf returns the QueueingHintFn that ext's registrations, as events
// returns them, give ev.
func hintOf(t *testing.T, ext fwk.EnqueueExtensions, ev fwk.ClusterEvent, events func(context.Context, fwk.EnqueueExtensions) ([]fwk.ClusterEventWithHint, error)) fwk.QueueingHintFn {
	t.Helper()
	regs, err := events(context.Background(), ext)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range regs {
		if e.Event == ev && e.QueueingHintFn != nil {
			return e.QueueingHintFn
		}
	}
	t.Fatalf("%s registers no hint for %s", ext.Name(), ev.Label())
	return nil
}

// TestHintGate drives the affinity wrapper's hint for assigned-pod
// deletions under the README configuration, which does not narrow them
// (NodeResourcesFit registers them without a pre-hint): for the pods the
// deletion cannot unblock, the gate answers QueueSkip without the in-tree
// hint, as the in-tree hint does; for the pod it unblocks, the in-tree hint
// answers Queue; the first call for an event (as when a pod's cycle ends
// and the queue asks about the events it overlapped) goes to the in-tree
// hint, the second computes the gate's answer; and a pending pod that
// arrives after the gate kept its answer for the event is answered anew.
func TestHintGate(t *testing.T) {
	pending := func(name, color string) *v1.Pod {
		return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: k8stypes.UID("uid-" + name)}, Spec: v1.PodSpec{SchedulerName: v1.DefaultSchedulerName,
			Affinity: &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"color": color}}, TopologyKey: v1.LabelHostname,
			}}}}}}
	}
	red, blue := pending("red", "red"), pending("blue", "blue")
	s := newScheduler(t, readmeConfig(t), red, blue)
	s.start(t)
	s.reject(t, red, affinityq.InterPodAffinityName)
	s.reject(t, blue, affinityq.InterPodAffinityName)
	ext := wrapperOf(t, s.frameworks[v1.DefaultSchedulerName], affinityq.InterPodAffinityName)
	gated := hintOf(t, ext, framework.EventAssignedPodDelete, func(ctx context.Context, ext fwk.EnqueueExtensions) ([]fwk.ClusterEventWithHint, error) {
		return ext.EventsToRegister(ctx)
	})
	inTree := hintOf(t, ext, framework.EventAssignedPodDelete, affinityq.UngatedEventsToRegister)
	for _, e := range registrations(t, ext) {
		if e.Event == framework.EventAssignedPodDelete && e.PreQueueingHintFn != nil {
			t.Fatal("the README configuration narrows assigned-pod deletions: the gate is not what answers")
		}
	}
	logger := klog.Logger(logr.Discard())
	blocker := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "blocker", UID: "blocker", Labels: map[string]string{"color": "red"}}, Spec: v1.PodSpec{NodeName: "n"}}

	const gate = "affinityq_hint_gate_total,answer=%s,event=AssignedPodDelete,plugin=" + affinityq.InterPodAffinityName
	skipped, asked := fmt.Sprintf(gate, "skipped"), fmt.Sprintf(gate, "asked")
	before := series(t)
	check := func(gone, pod *v1.Pod, want fwk.QueueingHint, wantSkipped, wantAsked float64) {
		t.Helper()
		got, err := gated(logger, pod, gone, nil)
		if err != nil || got != want {
			t.Errorf("gated hint for %s: %v, %v; want %v", pod.Name, got, err, want)
		}
		if in, err := inTree(logger, pod, gone, nil); err != nil || in != got {
			t.Errorf("in-tree hint for %s: %v, %v; the gate said %v", pod.Name, in, err, got)
		}
		now := series(t)
		if d := now[skipped] - before[skipped]; d != wantSkipped {
			t.Errorf("%s: %s grew by %v, want %v", pod.Name, skipped, d, wantSkipped)
		}
		if d := now[asked] - before[asked]; d != wantAsked {
			t.Errorf("%s: %s grew by %v, want %v", pod.Name, asked, d, wantAsked)
		}
		before = now
	}
	// The first call for the deletion is the in-tree hint's; the second is
	// the gate's.
	check(blocker, blue, fwk.QueueSkip, 0, 1)
	check(blocker, red, fwk.Queue, 0, 1)
	check(blocker, blue, fwk.QueueSkip, 1, 0)
	// Another deletion, selected by no pending pod: one call for it goes to
	// the in-tree hint and keeps the gate's answer for the first deletion.
	green := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "green", UID: "green", Labels: map[string]string{"color": "green"}}, Spec: v1.PodSpec{NodeName: "n"}}
	check(green, blue, fwk.QueueSkip, 0, 1)
	check(blocker, blue, fwk.QueueSkip, 1, 0)

	// A pod the blocker's deletion unblocks, pending once the gate has
	// answered for that deletion.
	crimson := pending("crimson", "red")
	if _, err := s.client.CoreV1().Pods("ns").Create(context.Background(), crimson, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for st := s.plugins.TrackerState(); st.Indexed < 3 || st.Dirty > 0; st = s.plugins.TrackerState() {
		if time.Now().After(deadline) {
			t.Fatalf("the tracker did not catch up: %+v", st)
		}
		time.Sleep(time.Millisecond)
	}
	s.reject(t, crimson, affinityq.InterPodAffinityName)
	check(blocker, crimson, fwk.Queue, 0, 1)
	check(blocker, blue, fwk.QueueSkip, 1, 0)
}
