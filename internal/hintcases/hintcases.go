// Package hintcases holds the table of pending pod / cluster event cases,
// re-created from kube-scheduler v1.37.2's queueing-hint tests
// (interpodaffinity and podtopologyspread plugin_test.go), shared by index's
// unit tests and fuzz's seeds: each case names a pending pod, an event, and
// the rule sets under which the event affects the pod for each policy.
//
// It is not API: it holds test data only, built afresh by each call of
// Cases, and has no state. The table assumes an index without namespace
// labels (every namespace has none) in which the case's pod is the only
// one, or is accompanied by pods the event does not affect (Bystander).
package hintcases

import (
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/affinityq/affinityq/index"
	"github.com/affinityq/affinityq/internal/podtest"
)

// Case is one pending pod and one event. The pod is in namespace
// "default"; Relation and Transition are the rule sets under which Event
// affects it, for each policy (none when the event affects it not).
type Case struct {
	Name                 string
	Pending              *v1.Pod
	Event                index.Event
	Relation, Transition index.RuleSet
}

// Cases returns the table. Every call builds new pods, nodes and events, so
// that a caller may index and keep them without sharing them with another.
func Cases() []Case {
	return []Case{
		{
			Name:     "assigned pod added that matches the affinity term",
			Pending:  podtest.Pod("p", podtest.WithAffinity(podtest.Term("zone", podtest.Sel(podtest.In("service", "securityscan"))))),
			Event:    index.Event{Kind: index.AssignedPodAdd, NewPod: podtest.Pod("q", podtest.OnNode("n1"), podtest.WithLabels(map[string]string{"service": "securityscan"}))},
			Relation: index.InterPodAffinity, Transition: index.InterPodAffinity,
		},
		{
			Name:    "assigned pod added but unscheduled: no node, no nominated node",
			Pending: podtest.Pod("p", podtest.WithAffinity(podtest.Term("zone", podtest.Sel(podtest.In("service", "securityscan"))))),
			Event:   index.Event{Kind: index.AssignedPodAdd, NewPod: podtest.Pod("q", podtest.WithLabels(map[string]string{"service": "securityscan"}))},
		},
		{
			Name:     "updated from not matching to matching",
			Pending:  podtest.Pod("p", podtest.WithAffinity(podtest.Term("zone", podtest.Sel(podtest.In("service", "securityscan"))))),
			Event:    index.Event{Kind: index.AssignedPodUpdate, OldPod: podtest.Pod("q", podtest.OnNode("n1"), podtest.WithLabels(map[string]string{"service": "other"})), NewPod: podtest.Pod("q", podtest.OnNode("n1"), podtest.WithLabels(map[string]string{"service": "securityscan"}))},
			Relation: index.InterPodAffinity, Transition: index.InterPodAffinity,
		},
		{
			Name:     "matching before and after: Relation only",
			Pending:  podtest.Pod("p", podtest.WithAffinity(podtest.Term("zone", podtest.Sel(podtest.In("service", "securityscan"))))),
			Event:    index.Event{Kind: index.AssignedPodUpdate, OldPod: podtest.Pod("q", podtest.OnNode("n1"), podtest.WithLabels(map[string]string{"service": "securityscan"})), NewPod: podtest.Pod("q", podtest.OnNode("n1"), podtest.WithLabels(map[string]string{"service": "securityscan", "x": "y"}))},
			Relation: index.InterPodAffinity,
		},
		{
			Name:     "two affinity terms Exists(aaa), Exists(bbb), new labels aaa and bbb empty",
			Pending:  podtest.Pod("p", podtest.WithAffinity(podtest.Term("zone", podtest.Sel(podtest.Exists("aaa"))), podtest.Term("zone", podtest.Sel(podtest.Exists("bbb"))))),
			Event:    index.Event{Kind: index.AssignedPodUpdate, OldPod: podtest.Pod("q", podtest.OnNode("n1")), NewPod: podtest.Pod("q", podtest.OnNode("n1"), podtest.WithLabels(map[string]string{"aaa": "", "bbb": ""}))},
			Relation: index.InterPodAffinity, Transition: index.InterPodAffinity,
		},
		{
			Name:     "anti-affinity In(service: securityscan, value2), label moved out of the set",
			Pending:  podtest.Pod("p", podtest.WithAnti(podtest.Term("zone", podtest.Sel(podtest.In("service", "securityscan", "value2"))))),
			Event:    index.Event{Kind: index.AssignedPodUpdate, OldPod: podtest.Pod("q", podtest.OnNode("n1"), podtest.WithLabels(map[string]string{"service": "securityscan"})), NewPod: podtest.Pod("q", podtest.OnNode("n1"), podtest.WithLabels(map[string]string{"service": "value3"}))},
			Relation: index.InterPodAffinity, Transition: index.InterPodAffinity,
		},
		{
			Name:     "anti-affinity In(service: securityscan, value2), label moved into the set",
			Pending:  podtest.Pod("p", podtest.WithAnti(podtest.Term("zone", podtest.Sel(podtest.In("service", "securityscan", "value2"))))),
			Event:    index.Event{Kind: index.AssignedPodUpdate, OldPod: podtest.Pod("q", podtest.OnNode("n1"), podtest.WithLabels(map[string]string{"service": "value3"})), NewPod: podtest.Pod("q", podtest.OnNode("n1"), podtest.WithLabels(map[string]string{"service": "value2"}))},
			Relation: index.InterPodAffinity,
		},
		{
			Name:     "deleted pod matching an anti-affinity term",
			Pending:  podtest.Pod("p", podtest.WithAnti(podtest.Term("zone", podtest.Sel(podtest.In("service", "securityscan"))))),
			Event:    index.Event{Kind: index.AssignedPodDelete, OldPod: podtest.Pod("q", podtest.OnNode("n1"), podtest.WithLabels(map[string]string{"service": "securityscan"}))},
			Relation: index.InterPodAffinity, Transition: index.InterPodAffinity,
		},
		{
			Name:     "deleted pod whose anti-affinity matches the pending pod (symmetry)",
			Pending:  podtest.Pod("p", podtest.WithLabels(map[string]string{"app": "web"})),
			Event:    index.Event{Kind: index.AssignedPodDelete, OldPod: podtest.Pod("q", podtest.OnNode("n1"), podtest.WithAnti(podtest.Term("zone", podtest.Sel(podtest.In("app", "web")))))},
			Relation: index.InterPodAffinity, Transition: index.InterPodAffinity,
		},
		{
			Name:     "deleted pod matched all self-matching affinity terms (fix for upstream 141354)",
			Pending:  podtest.Pod("p", podtest.WithLabels(map[string]string{"app": "db"}), podtest.WithAffinity(podtest.Term("zone", podtest.Sel(podtest.In("app", "db"))))),
			Event:    index.Event{Kind: index.AssignedPodDelete, OldPod: podtest.Pod("q", podtest.OnNode("n1"), podtest.WithLabels(map[string]string{"app": "db"}))},
			Relation: index.InterPodAffinity, Transition: index.InterPodAffinity,
		},
		{
			Name:     "spread Exists(foo), foo=foo1 to foo=foo2: Relation only",
			Pending:  podtest.Pod("p", podtest.WithSpread("zone", podtest.Sel(podtest.Exists("foo")))),
			Event:    index.Event{Kind: index.AssignedPodUpdate, OldPod: podtest.Pod("q", podtest.OnNode("n1"), podtest.WithLabels(map[string]string{"foo": "foo1"})), NewPod: podtest.Pod("q", podtest.OnNode("n1"), podtest.WithLabels(map[string]string{"foo": "foo2"}))},
			Relation: index.PodTopologySpread,
		},
		{
			Name:     "spread: matching pod added",
			Pending:  podtest.Pod("p", podtest.WithSpread("zone", podtest.Sel(podtest.Exists("foo")))),
			Event:    index.Event{Kind: index.AssignedPodAdd, NewPod: podtest.Pod("q", podtest.OnNode("n1"), podtest.WithLabels(map[string]string{"foo": ""}))},
			Relation: index.PodTopologySpread, Transition: index.PodTopologySpread,
		},
		{
			Name:    "assigned pod in another namespace",
			Pending: podtest.Pod("p", podtest.WithAffinity(podtest.Term("zone", podtest.Sel(podtest.In("service", "securityscan")))), podtest.WithSpread("zone", podtest.Sel(podtest.Exists("service")))),
			Event:   index.Event{Kind: index.AssignedPodAdd, NewPod: podtest.Pod("q", podtest.InNamespace("other"), podtest.OnNode("n1"), podtest.WithLabels(map[string]string{"service": "securityscan"}))},
		},
		{
			Name:     "node gains the affinity topology key",
			Pending:  podtest.Pod("p", podtest.WithAffinity(podtest.Term("zone", podtest.Sel(podtest.Exists("a"))))),
			Event:    index.Event{Kind: index.NodeUpdate, OldNode: podtest.Node(nil), NewNode: podtest.Node(map[string]string{"zone": "z1"})},
			Relation: index.InterPodAffinity, Transition: index.InterPodAffinity,
		},
		{
			Name:     "node loses an anti-affinity topology key",
			Pending:  podtest.Pod("p", podtest.WithAnti(podtest.Term("zone", podtest.Sel(podtest.Exists("a"))))),
			Event:    index.Event{Kind: index.NodeUpdate, OldNode: podtest.Node(map[string]string{"zone": "z1"}), NewNode: podtest.Node(nil)},
			Relation: index.InterPodAffinity, Transition: index.InterPodAffinity,
		},
		{
			Name:    "node gains an anti-affinity topology key",
			Pending: podtest.Pod("p", podtest.WithAnti(podtest.Term("zone", podtest.Sel(podtest.Exists("a"))))),
			Event:   index.Event{Kind: index.NodeUpdate, OldNode: podtest.Node(nil), NewNode: podtest.Node(map[string]string{"zone": "z1"})},
		},
		{
			Name:    "node added without the affinity key",
			Pending: podtest.Pod("p", podtest.WithAffinity(podtest.Term("zone", podtest.Sel(podtest.Exists("a"))))),
			Event:   index.Event{Kind: index.NodeAdd, NewNode: podtest.Node(map[string]string{"region": "r1"})},
		},
		{
			Name:     "node added with the affinity key",
			Pending:  podtest.Pod("p", podtest.WithAffinity(podtest.Term("zone", podtest.Sel(podtest.Exists("a"))))),
			Event:    index.Event{Kind: index.NodeAdd, NewNode: podtest.Node(map[string]string{"zone": "z1"})},
			Relation: index.InterPodAffinity, Transition: index.InterPodAffinity,
		},
		{
			Name:     "node added: any anti-affinity pod may fit",
			Pending:  podtest.Pod("p", podtest.WithAnti(podtest.Term("zone", podtest.Sel(podtest.Exists("a"))))),
			Event:    index.Event{Kind: index.NodeAdd, NewNode: podtest.Node(nil)},
			Relation: index.InterPodAffinity, Transition: index.InterPodAffinity,
		},
		{
			Name:     "spread: node added that carries the topology key",
			Pending:  podtest.Pod("p", podtest.WithSpread("zone", podtest.Sel(podtest.Exists("foo")))),
			Event:    index.Event{Kind: index.NodeAdd, NewNode: podtest.Node(map[string]string{"zone": "z1"})},
			Relation: index.PodTopologySpread, Transition: index.PodTopologySpread,
		},
		{
			Name:     "spread: node taints changed on a fitting node",
			Pending:  podtest.Pod("p", podtest.WithSpread("zone", podtest.Sel(podtest.Exists("foo")))),
			Event:    index.Event{Kind: index.NodeUpdate, OldNode: podtest.Node(map[string]string{"zone": "z1"}), NewNode: &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1", Labels: map[string]string{"zone": "z1"}}, Spec: v1.NodeSpec{Taints: []v1.Taint{{Key: "k", Effect: v1.TaintEffectNoSchedule}}}}},
			Relation: index.PodTopologySpread, Transition: index.PodTopologySpread,
		},
		{
			Name:     "invalid selector: the pod is affected by every scheduled pod event",
			Pending:  podtest.Pod("p", podtest.WithAffinity(podtest.Term("zone", podtest.Sel(metav1.LabelSelectorRequirement{Key: "a", Operator: "Bogus"})))),
			Event:    index.Event{Kind: index.AssignedPodAdd, NewPod: podtest.Pod("q", podtest.InNamespace("other"), podtest.OnNode("n1"))},
			Relation: index.InterPodAffinity, Transition: index.InterPodAffinity,
		},
	}
}

// Bystander returns a pending pod in namespace "default" that no case's
// event affects: its one affinity term's topology key, "rack", is on no
// node of the table, and its selector matches no pod of it.
func Bystander() *v1.Pod {
	return podtest.Pod("bystander", podtest.WithAffinity(podtest.Term("rack", podtest.Sel(podtest.In("unrelated", "x")))))
}
