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
	"k8s.io/apimachinery/pkg/types"

	"github.com/affinityq/affinityq/index"
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
			Pending:  pod("p", withAffinity(term("zone", sel(in("service", "securityscan"))))),
			Event:    index.Event{Kind: index.AssignedPodAdd, NewPod: pod("q", onNode("n1"), withLabels(map[string]string{"service": "securityscan"}))},
			Relation: index.InterPodAffinity, Transition: index.InterPodAffinity,
		},
		{
			Name:    "assigned pod added but unscheduled: no node, no nominated node",
			Pending: pod("p", withAffinity(term("zone", sel(in("service", "securityscan"))))),
			Event:   index.Event{Kind: index.AssignedPodAdd, NewPod: pod("q", withLabels(map[string]string{"service": "securityscan"}))},
		},
		{
			Name:     "updated from not matching to matching",
			Pending:  pod("p", withAffinity(term("zone", sel(in("service", "securityscan"))))),
			Event:    index.Event{Kind: index.AssignedPodUpdate, OldPod: pod("q", onNode("n1"), withLabels(map[string]string{"service": "other"})), NewPod: pod("q", onNode("n1"), withLabels(map[string]string{"service": "securityscan"}))},
			Relation: index.InterPodAffinity, Transition: index.InterPodAffinity,
		},
		{
			Name:     "matching before and after: Relation only",
			Pending:  pod("p", withAffinity(term("zone", sel(in("service", "securityscan"))))),
			Event:    index.Event{Kind: index.AssignedPodUpdate, OldPod: pod("q", onNode("n1"), withLabels(map[string]string{"service": "securityscan"})), NewPod: pod("q", onNode("n1"), withLabels(map[string]string{"service": "securityscan", "x": "y"}))},
			Relation: index.InterPodAffinity,
		},
		{
			Name:     "two affinity terms Exists(aaa), Exists(bbb), new labels aaa and bbb empty",
			Pending:  pod("p", withAffinity(term("zone", sel(exists("aaa"))), term("zone", sel(exists("bbb"))))),
			Event:    index.Event{Kind: index.AssignedPodUpdate, OldPod: pod("q", onNode("n1")), NewPod: pod("q", onNode("n1"), withLabels(map[string]string{"aaa": "", "bbb": ""}))},
			Relation: index.InterPodAffinity, Transition: index.InterPodAffinity,
		},
		{
			Name:     "anti-affinity In(service: securityscan, value2), label moved out of the set",
			Pending:  pod("p", withAnti(term("zone", sel(in("service", "securityscan", "value2"))))),
			Event:    index.Event{Kind: index.AssignedPodUpdate, OldPod: pod("q", onNode("n1"), withLabels(map[string]string{"service": "securityscan"})), NewPod: pod("q", onNode("n1"), withLabels(map[string]string{"service": "value3"}))},
			Relation: index.InterPodAffinity, Transition: index.InterPodAffinity,
		},
		{
			Name:     "anti-affinity In(service: securityscan, value2), label moved into the set",
			Pending:  pod("p", withAnti(term("zone", sel(in("service", "securityscan", "value2"))))),
			Event:    index.Event{Kind: index.AssignedPodUpdate, OldPod: pod("q", onNode("n1"), withLabels(map[string]string{"service": "value3"})), NewPod: pod("q", onNode("n1"), withLabels(map[string]string{"service": "value2"}))},
			Relation: index.InterPodAffinity,
		},
		{
			Name:     "deleted pod matching an anti-affinity term",
			Pending:  pod("p", withAnti(term("zone", sel(in("service", "securityscan"))))),
			Event:    index.Event{Kind: index.AssignedPodDelete, OldPod: pod("q", onNode("n1"), withLabels(map[string]string{"service": "securityscan"}))},
			Relation: index.InterPodAffinity, Transition: index.InterPodAffinity,
		},
		{
			Name:     "deleted pod whose anti-affinity matches the pending pod (symmetry)",
			Pending:  pod("p", withLabels(map[string]string{"app": "web"})),
			Event:    index.Event{Kind: index.AssignedPodDelete, OldPod: pod("q", onNode("n1"), withAnti(term("zone", sel(in("app", "web")))))},
			Relation: index.InterPodAffinity, Transition: index.InterPodAffinity,
		},
		{
			Name:     "deleted pod matched all self-matching affinity terms (fix for upstream 141354)",
			Pending:  pod("p", withLabels(map[string]string{"app": "db"}), withAffinity(term("zone", sel(in("app", "db"))))),
			Event:    index.Event{Kind: index.AssignedPodDelete, OldPod: pod("q", onNode("n1"), withLabels(map[string]string{"app": "db"}))},
			Relation: index.InterPodAffinity, Transition: index.InterPodAffinity,
		},
		{
			Name:     "spread Exists(foo), foo=foo1 to foo=foo2: Relation only",
			Pending:  pod("p", withSpread("zone", sel(exists("foo")))),
			Event:    index.Event{Kind: index.AssignedPodUpdate, OldPod: pod("q", onNode("n1"), withLabels(map[string]string{"foo": "foo1"})), NewPod: pod("q", onNode("n1"), withLabels(map[string]string{"foo": "foo2"}))},
			Relation: index.PodTopologySpread,
		},
		{
			Name:     "spread: matching pod added",
			Pending:  pod("p", withSpread("zone", sel(exists("foo")))),
			Event:    index.Event{Kind: index.AssignedPodAdd, NewPod: pod("q", onNode("n1"), withLabels(map[string]string{"foo": ""}))},
			Relation: index.PodTopologySpread, Transition: index.PodTopologySpread,
		},
		{
			Name:    "assigned pod in another namespace",
			Pending: pod("p", withAffinity(term("zone", sel(in("service", "securityscan")))), withSpread("zone", sel(exists("service")))),
			Event:   index.Event{Kind: index.AssignedPodAdd, NewPod: pod("q", inNamespace("other"), onNode("n1"), withLabels(map[string]string{"service": "securityscan"}))},
		},
		{
			Name:     "node gains the affinity topology key",
			Pending:  pod("p", withAffinity(term("zone", sel(exists("a"))))),
			Event:    index.Event{Kind: index.NodeUpdate, OldNode: node(nil), NewNode: node(map[string]string{"zone": "z1"})},
			Relation: index.InterPodAffinity, Transition: index.InterPodAffinity,
		},
		{
			Name:     "node loses an anti-affinity topology key",
			Pending:  pod("p", withAnti(term("zone", sel(exists("a"))))),
			Event:    index.Event{Kind: index.NodeUpdate, OldNode: node(map[string]string{"zone": "z1"}), NewNode: node(nil)},
			Relation: index.InterPodAffinity, Transition: index.InterPodAffinity,
		},
		{
			Name:    "node gains an anti-affinity topology key",
			Pending: pod("p", withAnti(term("zone", sel(exists("a"))))),
			Event:   index.Event{Kind: index.NodeUpdate, OldNode: node(nil), NewNode: node(map[string]string{"zone": "z1"})},
		},
		{
			Name:    "node added without the affinity key",
			Pending: pod("p", withAffinity(term("zone", sel(exists("a"))))),
			Event:   index.Event{Kind: index.NodeAdd, NewNode: node(map[string]string{"region": "r1"})},
		},
		{
			Name:     "node added with the affinity key",
			Pending:  pod("p", withAffinity(term("zone", sel(exists("a"))))),
			Event:    index.Event{Kind: index.NodeAdd, NewNode: node(map[string]string{"zone": "z1"})},
			Relation: index.InterPodAffinity, Transition: index.InterPodAffinity,
		},
		{
			Name:     "node added: any anti-affinity pod may fit",
			Pending:  pod("p", withAnti(term("zone", sel(exists("a"))))),
			Event:    index.Event{Kind: index.NodeAdd, NewNode: node(nil)},
			Relation: index.InterPodAffinity, Transition: index.InterPodAffinity,
		},
		{
			Name:     "spread: node added that carries the topology key",
			Pending:  pod("p", withSpread("zone", sel(exists("foo")))),
			Event:    index.Event{Kind: index.NodeAdd, NewNode: node(map[string]string{"zone": "z1"})},
			Relation: index.PodTopologySpread, Transition: index.PodTopologySpread,
		},
		{
			Name:     "spread: node taints changed on a fitting node",
			Pending:  pod("p", withSpread("zone", sel(exists("foo")))),
			Event:    index.Event{Kind: index.NodeUpdate, OldNode: node(map[string]string{"zone": "z1"}), NewNode: &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1", Labels: map[string]string{"zone": "z1"}}, Spec: v1.NodeSpec{Taints: []v1.Taint{{Key: "k", Effect: v1.TaintEffectNoSchedule}}}}},
			Relation: index.PodTopologySpread, Transition: index.PodTopologySpread,
		},
		{
			Name:     "invalid selector: the pod is affected by every scheduled pod event",
			Pending:  pod("p", withAffinity(term("zone", sel(metav1.LabelSelectorRequirement{Key: "a", Operator: "Bogus"})))),
			Event:    index.Event{Kind: index.AssignedPodAdd, NewPod: pod("q", inNamespace("other"), onNode("n1"))},
			Relation: index.InterPodAffinity, Transition: index.InterPodAffinity,
		},
	}
}

// Bystander returns a pending pod in namespace "default" that no case's
// event affects: its one affinity term's topology key, "rack", is on no
// node of the table, and its selector matches no pod of it.
func Bystander() *v1.Pod {
	return pod("bystander", withAffinity(term("rack", sel(in("unrelated", "x")))))
}

// Builders for the cases: small, explicit pods and nodes.

func sel(expr ...metav1.LabelSelectorRequirement) *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchExpressions: expr}
}

func exists(key string) metav1.LabelSelectorRequirement {
	return metav1.LabelSelectorRequirement{Key: key, Operator: metav1.LabelSelectorOpExists}
}

func in(key string, values ...string) metav1.LabelSelectorRequirement {
	return metav1.LabelSelectorRequirement{Key: key, Operator: metav1.LabelSelectorOpIn, Values: values}
}

func term(topologyKey string, s *metav1.LabelSelector) v1.PodAffinityTerm {
	return v1.PodAffinityTerm{LabelSelector: s, TopologyKey: topologyKey}
}

type podOpt func(*v1.Pod)

func withLabels(l map[string]string) podOpt { return func(p *v1.Pod) { p.Labels = l } }
func onNode(n string) podOpt                { return func(p *v1.Pod) { p.Spec.NodeName = n } }
func inNamespace(ns string) podOpt          { return func(p *v1.Pod) { p.Namespace = ns } }

func withAffinity(terms ...v1.PodAffinityTerm) podOpt {
	return func(p *v1.Pod) {
		if p.Spec.Affinity == nil {
			p.Spec.Affinity = &v1.Affinity{}
		}
		p.Spec.Affinity.PodAffinity = &v1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: terms}
	}
}

func withAnti(terms ...v1.PodAffinityTerm) podOpt {
	return func(p *v1.Pod) {
		if p.Spec.Affinity == nil {
			p.Spec.Affinity = &v1.Affinity{}
		}
		p.Spec.Affinity.PodAntiAffinity = &v1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: terms}
	}
}

func withSpread(topologyKey string, s *metav1.LabelSelector) podOpt {
	return func(p *v1.Pod) {
		p.Spec.TopologySpreadConstraints = append(p.Spec.TopologySpreadConstraints, v1.TopologySpreadConstraint{
			MaxSkew: 1, TopologyKey: topologyKey, WhenUnsatisfiable: v1.DoNotSchedule, LabelSelector: s,
		})
	}
}

func pod(name string, opts ...podOpt) *v1.Pod {
	p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-" + name)}}
	for _, o := range opts {
		o(p)
	}
	return p
}

func node(labels map[string]string) *v1.Node {
	return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1", Labels: labels}}
}
