package requeue

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	"github.com/affinityq/affinityq/index"
)

// allActions lists every single action, then the general Update and the
// wildcard All: what kube-scheduler's handlers send.
func allActions() []fwk.ActionType {
	var out []fwk.ActionType
	for a := fwk.ActionType(1); a < fwk.All; a <<= 1 {
		out = append(out, a)
	}
	return append(out, fwk.Update, fwk.All)
}

func TestSplitPreservesMatching(t *testing.T) {
	resources := []fwk.EventResource{fwk.AssignedPod, fwk.UnscheduledPod, fwk.TargetPod, fwk.Node, fwk.Pod, fwk.WildCard, fwk.ResourceClaim}
	// Every registration the in-tree plugins make, and a few more.
	registrations := []fwk.ClusterEvent{
		{Resource: fwk.AssignedPod, ActionType: fwk.Add | fwk.UpdatePodLabel | fwk.Delete},
		{Resource: fwk.TargetPod, ActionType: fwk.UpdatePodLabel},
		{Resource: fwk.TargetPod, ActionType: fwk.UpdatePodToleration | fwk.UpdatePodLabel},
		{Resource: fwk.Node, ActionType: fwk.Add | fwk.UpdateNodeLabel},
		{Resource: fwk.Node, ActionType: fwk.Add | fwk.Delete | fwk.UpdateNodeLabel | fwk.UpdateNodeTaint},
		{Resource: fwk.Node, ActionType: fwk.Add | fwk.UpdateNodeAllocatable},
		{Resource: fwk.AssignedPod, ActionType: fwk.All},
		{Resource: fwk.AssignedPod, ActionType: fwk.Update},
		{Resource: fwk.Node, ActionType: fwk.Update | fwk.Delete},
		{Resource: fwk.WildCard, ActionType: fwk.All},
	}
	for _, reg := range registrations {
		parts := Split(reg)
		var union fwk.ActionType
		for _, p := range parts {
			if p.Resource != reg.Resource {
				t.Errorf("split(%v) has part %v of another resource", reg, p)
			}
			if union&p.ActionType != 0 {
				t.Errorf("split(%v) parts overlap: %v", reg, parts)
			}
			union |= p.ActionType
		}
		if union != reg.ActionType {
			t.Errorf("split(%v) covers %v, want %v", reg, union, reg.ActionType)
		}
		for _, r := range resources {
			for _, a := range allActions() {
				in := fwk.ClusterEvent{Resource: r, ActionType: a}
				want := framework.MatchClusterEvents(reg, in)
				got := false
				for _, p := range parts {
					got = got || framework.MatchClusterEvents(p, in)
				}
				if got != want {
					t.Errorf("incoming %v matches %v: %v, one of its parts %v: %v", in, reg, want, parts, got)
				}
			}
		}
	}
}

func TestSplitAndIndexKind(t *testing.T) {
	for _, tc := range []struct {
		in    fwk.ClusterEvent
		parts []fwk.ClusterEvent
		kinds []index.EventKind // of the parts; 0 for a part not narrowable
	}{
		{
			in: fwk.ClusterEvent{Resource: fwk.AssignedPod, ActionType: fwk.Add | fwk.UpdatePodLabel | fwk.Delete},
			parts: []fwk.ClusterEvent{
				{Resource: fwk.AssignedPod, ActionType: fwk.Add},
				{Resource: fwk.AssignedPod, ActionType: fwk.UpdatePodLabel},
				{Resource: fwk.AssignedPod, ActionType: fwk.Delete},
			},
			kinds: []index.EventKind{index.AssignedPodAdd, index.AssignedPodUpdate, index.AssignedPodDelete},
		},
		{
			in: fwk.ClusterEvent{Resource: fwk.Node, ActionType: fwk.Add | fwk.UpdateNodeAllocatable},
			parts: []fwk.ClusterEvent{
				{Resource: fwk.Node, ActionType: fwk.Add},
				{Resource: fwk.Node, ActionType: fwk.UpdateNodeAllocatable},
			},
			kinds: []index.EventKind{index.NodeAdd, 0},
		},
		{
			in:    fwk.ClusterEvent{Resource: fwk.TargetPod, ActionType: fwk.UpdatePodLabel},
			parts: []fwk.ClusterEvent{{Resource: fwk.TargetPod, ActionType: fwk.UpdatePodLabel}},
			kinds: []index.EventKind{0},
		},
		{
			in:    fwk.ClusterEvent{Resource: fwk.Node, ActionType: fwk.All},
			parts: []fwk.ClusterEvent{{Resource: fwk.Node, ActionType: fwk.All}},
			kinds: []index.EventKind{0},
		},
	} {
		parts := Split(tc.in)
		if diff := cmp.Diff(tc.parts, parts); diff != "" {
			t.Errorf("split(%v) (-want +got):\n%s", tc.in, diff)
			continue
		}
		for i, p := range parts {
			k, ok := IndexKind(p)
			if k != tc.kinds[i] || ok != (tc.kinds[i] != 0) {
				t.Errorf("indexKind(%v) = %v, %v, want %v", p, k, ok, tc.kinds[i])
			}
		}
	}
}

func TestIndexEvent(t *testing.T) {
	pod, node := &v1.Pod{}, &v1.Node{}
	for _, tc := range []struct {
		kind     index.EventKind
		old, new any
		ok       bool
	}{
		{index.AssignedPodAdd, nil, pod, true},
		{index.AssignedPodAdd, nil, node, false},
		{index.AssignedPodAdd, nil, (*v1.Pod)(nil), false},
		{index.AssignedPodAdd, nil, nil, false},
		{index.AssignedPodUpdate, pod, pod, true},
		{index.AssignedPodUpdate, nil, pod, false},
		{index.AssignedPodDelete, pod, nil, true},
		{index.AssignedPodDelete, "pod", nil, false},
		{index.NodeAdd, nil, node, true},
		{index.NodeAdd, nil, pod, false},
		{index.NodeUpdate, node, node, true},
		{index.NodeUpdate, node, nil, false},
		{index.NodeDelete, node, nil, true},
		{index.NodeDelete, (*v1.Node)(nil), nil, false},
	} {
		ev, err := IndexEvent(tc.kind, tc.old, tc.new)
		if (err == nil) != tc.ok {
			t.Errorf("indexEvent(%v, %T, %T) error = %v, want ok %v", tc.kind, tc.old, tc.new, err, tc.ok)
		}
		if err == nil && ev.Kind != tc.kind {
			t.Errorf("indexEvent(%v) kind = %v", tc.kind, ev.Kind)
		}
	}
}
