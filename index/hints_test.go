package index

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Builders for the hint cases: small, explicit pods and nodes.

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

// hintCases re-create kube-scheduler v1.37.2's queueing-hint test cases
// (interpodaffinity and podtopologyspread plugin_test.go) for the index:
// each names a pending pod, an event, and whether the pod is affected under
// each policy.
var hintCases = []struct {
	name                 string
	pending              *v1.Pod
	event                Event
	relation, transition RuleSet
}{
	{
		name:     "assigned pod added that matches the affinity term",
		pending:  pod("p", withAffinity(term("zone", sel(in("service", "securityscan"))))),
		event:    Event{Kind: AssignedPodAdd, NewPod: pod("q", onNode("n1"), withLabels(map[string]string{"service": "securityscan"}))},
		relation: InterPodAffinity, transition: InterPodAffinity,
	},
	{
		name:    "assigned pod added but unscheduled: no node, no nominated node",
		pending: pod("p", withAffinity(term("zone", sel(in("service", "securityscan"))))),
		event:   Event{Kind: AssignedPodAdd, NewPod: pod("q", withLabels(map[string]string{"service": "securityscan"}))},
	},
	{
		name:     "updated from not matching to matching",
		pending:  pod("p", withAffinity(term("zone", sel(in("service", "securityscan"))))),
		event:    Event{Kind: AssignedPodUpdate, OldPod: pod("q", onNode("n1"), withLabels(map[string]string{"service": "other"})), NewPod: pod("q", onNode("n1"), withLabels(map[string]string{"service": "securityscan"}))},
		relation: InterPodAffinity, transition: InterPodAffinity,
	},
	{
		name:     "matching before and after: Relation only",
		pending:  pod("p", withAffinity(term("zone", sel(in("service", "securityscan"))))),
		event:    Event{Kind: AssignedPodUpdate, OldPod: pod("q", onNode("n1"), withLabels(map[string]string{"service": "securityscan"})), NewPod: pod("q", onNode("n1"), withLabels(map[string]string{"service": "securityscan", "x": "y"}))},
		relation: InterPodAffinity,
	},
	{
		name:     "two affinity terms Exists(aaa), Exists(bbb), new labels aaa and bbb empty",
		pending:  pod("p", withAffinity(term("zone", sel(exists("aaa"))), term("zone", sel(exists("bbb"))))),
		event:    Event{Kind: AssignedPodUpdate, OldPod: pod("q", onNode("n1")), NewPod: pod("q", onNode("n1"), withLabels(map[string]string{"aaa": "", "bbb": ""}))},
		relation: InterPodAffinity, transition: InterPodAffinity,
	},
	{
		name:     "anti-affinity In(service: securityscan, value2), label moved out of the set",
		pending:  pod("p", withAnti(term("zone", sel(in("service", "securityscan", "value2"))))),
		event:    Event{Kind: AssignedPodUpdate, OldPod: pod("q", onNode("n1"), withLabels(map[string]string{"service": "securityscan"})), NewPod: pod("q", onNode("n1"), withLabels(map[string]string{"service": "value3"}))},
		relation: InterPodAffinity, transition: InterPodAffinity,
	},
	{
		name:     "anti-affinity In(service: securityscan, value2), label moved into the set",
		pending:  pod("p", withAnti(term("zone", sel(in("service", "securityscan", "value2"))))),
		event:    Event{Kind: AssignedPodUpdate, OldPod: pod("q", onNode("n1"), withLabels(map[string]string{"service": "value3"})), NewPod: pod("q", onNode("n1"), withLabels(map[string]string{"service": "value2"}))},
		relation: InterPodAffinity,
	},
	{
		name:     "deleted pod matching an anti-affinity term",
		pending:  pod("p", withAnti(term("zone", sel(in("service", "securityscan"))))),
		event:    Event{Kind: AssignedPodDelete, OldPod: pod("q", onNode("n1"), withLabels(map[string]string{"service": "securityscan"}))},
		relation: InterPodAffinity, transition: InterPodAffinity,
	},
	{
		name:     "deleted pod whose anti-affinity matches the pending pod (symmetry)",
		pending:  pod("p", withLabels(map[string]string{"app": "web"})),
		event:    Event{Kind: AssignedPodDelete, OldPod: pod("q", onNode("n1"), withAnti(term("zone", sel(in("app", "web")))))},
		relation: InterPodAffinity, transition: InterPodAffinity,
	},
	{
		name:     "deleted pod matched all self-matching affinity terms (fix for upstream 141354)",
		pending:  pod("p", withLabels(map[string]string{"app": "db"}), withAffinity(term("zone", sel(in("app", "db"))))),
		event:    Event{Kind: AssignedPodDelete, OldPod: pod("q", onNode("n1"), withLabels(map[string]string{"app": "db"}))},
		relation: InterPodAffinity, transition: InterPodAffinity,
	},
	{
		name:     "spread Exists(foo), foo=foo1 to foo=foo2: Relation only",
		pending:  pod("p", withSpread("zone", sel(exists("foo")))),
		event:    Event{Kind: AssignedPodUpdate, OldPod: pod("q", onNode("n1"), withLabels(map[string]string{"foo": "foo1"})), NewPod: pod("q", onNode("n1"), withLabels(map[string]string{"foo": "foo2"}))},
		relation: PodTopologySpread,
	},
	{
		name:     "spread: matching pod added",
		pending:  pod("p", withSpread("zone", sel(exists("foo")))),
		event:    Event{Kind: AssignedPodAdd, NewPod: pod("q", onNode("n1"), withLabels(map[string]string{"foo": ""}))},
		relation: PodTopologySpread, transition: PodTopologySpread,
	},
	{
		name:    "assigned pod in another namespace",
		pending: pod("p", withAffinity(term("zone", sel(in("service", "securityscan")))), withSpread("zone", sel(exists("service")))),
		event:   Event{Kind: AssignedPodAdd, NewPod: pod("q", inNamespace("other"), onNode("n1"), withLabels(map[string]string{"service": "securityscan"}))},
	},
	{
		name:     "node gains the affinity topology key",
		pending:  pod("p", withAffinity(term("zone", sel(exists("a"))))),
		event:    Event{Kind: NodeUpdate, OldNode: node(nil), NewNode: node(map[string]string{"zone": "z1"})},
		relation: InterPodAffinity, transition: InterPodAffinity,
	},
	{
		name:     "node loses an anti-affinity topology key",
		pending:  pod("p", withAnti(term("zone", sel(exists("a"))))),
		event:    Event{Kind: NodeUpdate, OldNode: node(map[string]string{"zone": "z1"}), NewNode: node(nil)},
		relation: InterPodAffinity, transition: InterPodAffinity,
	},
	{
		name:    "node gains an anti-affinity topology key",
		pending: pod("p", withAnti(term("zone", sel(exists("a"))))),
		event:   Event{Kind: NodeUpdate, OldNode: node(nil), NewNode: node(map[string]string{"zone": "z1"})},
	},
	{
		name:    "node added without the affinity key",
		pending: pod("p", withAffinity(term("zone", sel(exists("a"))))),
		event:   Event{Kind: NodeAdd, NewNode: node(map[string]string{"region": "r1"})},
	},
	{
		name:     "node added with the affinity key",
		pending:  pod("p", withAffinity(term("zone", sel(exists("a"))))),
		event:    Event{Kind: NodeAdd, NewNode: node(map[string]string{"zone": "z1"})},
		relation: InterPodAffinity, transition: InterPodAffinity,
	},
	{
		name:     "node added: any anti-affinity pod may fit",
		pending:  pod("p", withAnti(term("zone", sel(exists("a"))))),
		event:    Event{Kind: NodeAdd, NewNode: node(nil)},
		relation: InterPodAffinity, transition: InterPodAffinity,
	},
	{
		name:     "spread: node added that carries the topology key",
		pending:  pod("p", withSpread("zone", sel(exists("foo")))),
		event:    Event{Kind: NodeAdd, NewNode: node(map[string]string{"zone": "z1"})},
		relation: PodTopologySpread, transition: PodTopologySpread,
	},
	{
		name:     "spread: node taints changed on a fitting node",
		pending:  pod("p", withSpread("zone", sel(exists("foo")))),
		event:    Event{Kind: NodeUpdate, OldNode: node(map[string]string{"zone": "z1"}), NewNode: &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1", Labels: map[string]string{"zone": "z1"}}, Spec: v1.NodeSpec{Taints: []v1.Taint{{Key: "k", Effect: v1.TaintEffectNoSchedule}}}}},
		relation: PodTopologySpread, transition: PodTopologySpread,
	},
	{
		name:     "invalid selector: the pod is affected by every scheduled pod event",
		pending:  pod("p", withAffinity(term("zone", sel(metav1.LabelSelectorRequirement{Key: "a", Operator: "Bogus"})))),
		event:    Event{Kind: AssignedPodAdd, NewPod: pod("q", inNamespace("other"), onNode("n1"))},
		relation: InterPodAffinity, transition: InterPodAffinity,
	},
}

func TestHintCases(t *testing.T) {
	for _, tc := range hintCases {
		t.Run(tc.name, func(t *testing.T) {
			ix := New()
			if err := ix.Add(tc.pending); err != nil {
				t.Fatal(err)
			}
			// A pod related to nothing in any case (its topology key "rack" appears
			// on no node) must never show up.
			if err := ix.Add(pod("bystander", withAffinity(term("rack", sel(in("unrelated", "x")))))); err != nil {
				t.Fatal(err)
			}
			var rel, tr RuleSet
			for _, h := range ix.Lookup(nil, &tc.event) {
				if h.Pod.UID != tc.pending.UID {
					t.Errorf("unexpected hit %s", h.Pod.Name)
					continue
				}
				rel, tr = h.Relation, h.Transition
			}
			if rel != tc.relation || tr != tc.transition {
				t.Errorf("Relation, Transition = %v, %v; want %v, %v", rel, tr, tc.relation, tc.transition)
			}
			// The exact per-pod check agrees with the index.
			p, err := Compile(tc.pending)
			if err != nil {
				t.Fatal(err)
			}
			if r, x := p.Affected(&tc.event, nil); r != tc.relation || x != tc.transition {
				t.Errorf("Affected = %v, %v; want %v, %v", r, x, tc.relation, tc.transition)
			}
		})
	}
}
