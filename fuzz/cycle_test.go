package fuzz

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/ptr"
)

// The tests in this file re-create kube-scheduler v1.37.2's own test cases
// (pkg/scheduler/framework/plugins/{interpodaffinity,podtopologyspread}) and
// check that the Cycle reference yields the counts upstream expects. Each
// case is named "UpstreamTest/upstream case name". The builders below mirror
// upstream's pkg/scheduler/testing wrappers (st.MakePod, st.MakeNode) closely
// enough that the cases read the same. The cases' data and expected values
// are kube-scheduler's (Copyright The Kubernetes Authors, Apache License 2.0);
// the scoring tables are upstream's literals with only the framework types
// replaced (cyNodeScore, cyStatus).

// cyPodWrapper builds a pod as st.PodWrapper does.
type cyPodWrapper struct{ v1.Pod }

func cyMakePod() *cyPodWrapper { return &cyPodWrapper{} }

func (p *cyPodWrapper) Obj() *v1.Pod                { return &p.Pod }
func (p *cyPodWrapper) Name(s string) *cyPodWrapper { p.SetName(s); return p }
func (p *cyPodWrapper) Namespace(s string) *cyPodWrapper {
	p.SetNamespace(s)
	return p
}
func (p *cyPodWrapper) Node(s string) *cyPodWrapper { p.Spec.NodeName = s; return p }
func (p *cyPodWrapper) Label(k, v string) *cyPodWrapper {
	if p.Pod.Labels == nil {
		p.Pod.Labels = map[string]string{}
	}
	p.Pod.Labels[k] = v
	return p
}

func (p *cyPodWrapper) Terminating() *cyPodWrapper {
	now := metav1.Now()
	p.DeletionTimestamp = &now
	return p
}

// cyAffinityKind says where a term built by the wrappers goes, as
// st.PodAffinityKind does.
type cyAffinityKind int

const (
	cyRequired cyAffinityKind = iota
	cyPreferred
	cyRequiredPreferred
)

func (p *cyPodWrapper) affinity() *v1.Affinity {
	if p.Spec.Affinity == nil {
		p.Spec.Affinity = &v1.Affinity{}
	}
	return p.Spec.Affinity
}

func (p *cyPodWrapper) PodAffinity(topologyKey string, sel *metav1.LabelSelector, kind cyAffinityKind) *cyPodWrapper {
	a := p.affinity()
	if a.PodAffinity == nil {
		a.PodAffinity = &v1.PodAffinity{}
	}
	term := v1.PodAffinityTerm{LabelSelector: sel, TopologyKey: topologyKey}
	if kind != cyPreferred {
		a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution, term)
	}
	if kind != cyRequired {
		a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution = append(a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution,
			v1.WeightedPodAffinityTerm{Weight: 1, PodAffinityTerm: term})
	}
	return p
}

func (p *cyPodWrapper) PodAntiAffinity(topologyKey string, sel *metav1.LabelSelector, kind cyAffinityKind) *cyPodWrapper {
	a := p.affinity()
	if a.PodAntiAffinity == nil {
		a.PodAntiAffinity = &v1.PodAntiAffinity{}
	}
	term := v1.PodAffinityTerm{LabelSelector: sel, TopologyKey: topologyKey}
	if kind != cyPreferred {
		a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution, term)
	}
	if kind != cyRequired {
		a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution = append(a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution,
			v1.WeightedPodAffinityTerm{Weight: 1, PodAffinityTerm: term})
	}
	return p
}

func (p *cyPodWrapper) PodAffinityExists(key, topologyKey string, kind cyAffinityKind) *cyPodWrapper {
	return p.PodAffinity(topologyKey, cyExists(key), kind)
}

func (p *cyPodWrapper) PodAntiAffinityExists(key, topologyKey string, kind cyAffinityKind) *cyPodWrapper {
	return p.PodAntiAffinity(topologyKey, cyExists(key), kind)
}

func (p *cyPodWrapper) SpreadConstraint(maxSkew int, tpKey string, mode v1.UnsatisfiableConstraintAction, sel *metav1.LabelSelector,
	minDomains *int32, nodeAffinityPolicy, nodeTaintsPolicy *v1.NodeInclusionPolicy, matchLabelKeys []string) *cyPodWrapper {
	p.Spec.TopologySpreadConstraints = append(p.Spec.TopologySpreadConstraints, v1.TopologySpreadConstraint{
		MaxSkew: int32(maxSkew), TopologyKey: tpKey, WhenUnsatisfiable: mode, LabelSelector: sel, MinDomains: minDomains,
		NodeAffinityPolicy: nodeAffinityPolicy, NodeTaintsPolicy: nodeTaintsPolicy, MatchLabelKeys: matchLabelKeys,
	})
	return p
}

// NodeSelector adds a required node-affinity term (ANDed requirements) as
// st.PodWrapper.NodeAffinityIn does for one key; several calls add terms
// that are ORed.
func (p *cyPodWrapper) NodeAffinityIn(key string, vals []string) *cyPodWrapper {
	a := p.affinity()
	if a.NodeAffinity == nil {
		a.NodeAffinity = &v1.NodeAffinity{}
	}
	if a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution = &v1.NodeSelector{}
	}
	ns := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	if len(ns.NodeSelectorTerms) == 0 {
		ns.NodeSelectorTerms = []v1.NodeSelectorTerm{{}}
	}
	ns.NodeSelectorTerms[0].MatchExpressions = append(ns.NodeSelectorTerms[0].MatchExpressions,
		v1.NodeSelectorRequirement{Key: key, Operator: v1.NodeSelectorOpIn, Values: vals})
	return p
}

func (p *cyPodWrapper) NodeAffinityNotIn(key string, vals []string) *cyPodWrapper {
	a := p.affinity()
	if a.NodeAffinity == nil {
		a.NodeAffinity = &v1.NodeAffinity{}
	}
	if a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution = &v1.NodeSelector{}
	}
	ns := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	if len(ns.NodeSelectorTerms) == 0 {
		ns.NodeSelectorTerms = []v1.NodeSelectorTerm{{}}
	}
	ns.NodeSelectorTerms[0].MatchExpressions = append(ns.NodeSelectorTerms[0].MatchExpressions,
		v1.NodeSelectorRequirement{Key: key, Operator: v1.NodeSelectorOpNotIn, Values: vals})
	return p
}

func (p *cyPodWrapper) NodeSelector(m map[string]string) *cyPodWrapper {
	p.Spec.NodeSelector = m
	return p
}

func (p *cyPodWrapper) Toleration(key string) *cyPodWrapper {
	p.Spec.Tolerations = append(p.Spec.Tolerations, v1.Toleration{Key: key, Operator: v1.TolerationOpExists})
	return p
}

// cyNodeWrapper builds a node as st.NodeWrapper does.
type cyNodeWrapper struct{ v1.Node }

func cyMakeNode() *cyNodeWrapper       { return &cyNodeWrapper{} }
func (n *cyNodeWrapper) Obj() *v1.Node { return &n.Node }
func (n *cyNodeWrapper) Name(s string) *cyNodeWrapper {
	n.SetName(s)
	return n
}

func (n *cyNodeWrapper) Label(k, v string) *cyNodeWrapper {
	if n.Labels == nil {
		n.Labels = map[string]string{}
	}
	n.Labels[k] = v
	return n
}

func (n *cyNodeWrapper) Taints(ts []v1.Taint) *cyNodeWrapper {
	n.Spec.Taints = ts
	return n
}

// cySelector builds a label selector as st.LabelSelectorWrapper does.
type cySelector struct{ metav1.LabelSelector }

func cyMakeSelector() *cySelector                { return &cySelector{} }
func (s *cySelector) Obj() *metav1.LabelSelector { return &s.LabelSelector }
func (s *cySelector) Label(k, v string) *cySelector {
	if s.MatchLabels == nil {
		s.MatchLabels = map[string]string{}
	}
	s.MatchLabels[k] = v
	return s
}

func (s *cySelector) Exists(k string) *cySelector {
	s.MatchExpressions = append(s.MatchExpressions, metav1.LabelSelectorRequirement{Key: k, Operator: metav1.LabelSelectorOpExists})
	return s
}

func (s *cySelector) NotExist(k string) *cySelector {
	s.MatchExpressions = append(s.MatchExpressions, metav1.LabelSelectorRequirement{Key: k, Operator: metav1.LabelSelectorOpDoesNotExist})
	return s
}

func (s *cySelector) In(k string, vs []string) *cySelector {
	s.MatchExpressions = append(s.MatchExpressions, metav1.LabelSelectorRequirement{Key: k, Operator: metav1.LabelSelectorOpIn, Values: vs})
	return s
}

func cyExists(key string) *metav1.LabelSelector { return cyMakeSelector().Exists(key).Obj() }

// TestCycleAffinityIncomingCounts ports interpodaffinity's
// TestGetTPMapMatchingIncomingAffinityAntiAffinity (the gate-off runs): the
// incoming pod's affinity and anti-affinity counts.
func TestCycleAffinityIncomingCounts(t *testing.T) {
	newPod := func(labels ...string) *v1.Pod {
		p := cyMakePod().Name("normal").Node("nodeA")
		for _, l := range labels {
			p.Label(l, "")
		}
		return p.Obj()
	}
	normalPodA := newPod("aaa")
	normalPodB := newPod("bbb")
	normalPodAB := newPod("aaa", "bbb")
	nodeA := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "nodeA", Labels: map[string]string{v1.LabelHostname: "nodeA"}}}
	hostA := TopologyPair{v1.LabelHostname, "nodeA"}

	tests := []struct {
		name             string
		existingPods     []*v1.Pod
		nodes            []*v1.Node
		pod              *v1.Pod
		wantAffinity     TopologyCounts
		wantAntiAffinity TopologyCounts
	}{
		{
			name:             "TestGetTPMapMatchingIncomingAffinityAntiAffinity/nil test",
			nodes:            []*v1.Node{nodeA},
			pod:              cyMakePod().Name("aaa-normal").Obj(),
			wantAffinity:     TopologyCounts{},
			wantAntiAffinity: TopologyCounts{},
		},
		{
			name:             "TestGetTPMapMatchingIncomingAffinityAntiAffinity/incoming pod without affinity/anti-affinity causes a no-op",
			existingPods:     []*v1.Pod{normalPodA},
			nodes:            []*v1.Node{nodeA},
			pod:              cyMakePod().Name("aaa-normal").Obj(),
			wantAffinity:     TopologyCounts{},
			wantAntiAffinity: TopologyCounts{},
		},
		{
			name:         "TestGetTPMapMatchingIncomingAffinityAntiAffinity/no pod has label that violates incoming pod's affinity and anti-affinity",
			existingPods: []*v1.Pod{normalPodB},
			nodes:        []*v1.Node{nodeA},
			pod: cyMakePod().Name("aaa-anti").PodAffinityExists("aaa", v1.LabelHostname, cyRequired).
				PodAntiAffinityExists("aaa", v1.LabelHostname, cyRequired).Obj(),
			wantAffinity:     TopologyCounts{},
			wantAntiAffinity: TopologyCounts{},
		},
		{
			name:         "TestGetTPMapMatchingIncomingAffinityAntiAffinity/existing pod matches incoming pod's affinity and anti-affinity - single term case",
			existingPods: []*v1.Pod{normalPodA},
			nodes:        []*v1.Node{nodeA},
			pod: cyMakePod().Name("affi-antiaffi").PodAffinityExists("aaa", v1.LabelHostname, cyRequired).
				PodAntiAffinityExists("aaa", v1.LabelHostname, cyRequired).Obj(),
			wantAffinity:     TopologyCounts{hostA: 1},
			wantAntiAffinity: TopologyCounts{hostA: 1},
		},
		{
			name:         "TestGetTPMapMatchingIncomingAffinityAntiAffinity/existing pod matches incoming pod's affinity and anti-affinity - multiple terms case",
			existingPods: []*v1.Pod{normalPodAB},
			nodes:        []*v1.Node{nodeA},
			pod: cyMakePod().Name("affi-antiaffi").PodAffinityExists("aaa", v1.LabelHostname, cyRequired).
				PodAffinityExists("bbb", v1.LabelHostname, cyRequired).PodAntiAffinityExists("aaa", v1.LabelHostname, cyRequired).Obj(),
			wantAffinity:     TopologyCounts{hostA: 2}, // one for each term
			wantAntiAffinity: TopologyCounts{hostA: 1},
		},
		{
			name:         "TestGetTPMapMatchingIncomingAffinityAntiAffinity/existing pod not match incoming pod's affinity but matches anti-affinity",
			existingPods: []*v1.Pod{normalPodA},
			nodes:        []*v1.Node{nodeA},
			pod: cyMakePod().Name("affi-antiaffi").PodAffinityExists("aaa", v1.LabelHostname, cyRequired).
				PodAffinityExists("bbb", v1.LabelHostname, cyRequired).
				PodAntiAffinityExists("aaa", v1.LabelHostname, cyRequired).
				PodAntiAffinityExists("bbb", v1.LabelHostname, cyRequired).Obj(),
			wantAffinity:     TopologyCounts{},
			wantAntiAffinity: TopologyCounts{hostA: 1},
		},
		{
			name:         "TestGetTPMapMatchingIncomingAffinityAntiAffinity/incoming pod's anti-affinity has more than one term - existing pod violates partial term - case 1",
			existingPods: []*v1.Pod{normalPodAB},
			nodes:        []*v1.Node{nodeA},
			pod: cyMakePod().Name("anaffi-antiaffiti").PodAffinityExists("aaa", v1.LabelHostname, cyRequired).
				PodAffinityExists("ccc", v1.LabelHostname, cyRequired).
				PodAntiAffinityExists("aaa", v1.LabelHostname, cyRequired).
				PodAntiAffinityExists("ccc", v1.LabelHostname, cyRequired).Obj(),
			wantAffinity:     TopologyCounts{},
			wantAntiAffinity: TopologyCounts{hostA: 1},
		},
		{
			name:         "TestGetTPMapMatchingIncomingAffinityAntiAffinity/incoming pod's anti-affinity has more than one term - existing pod violates partial term - case 2",
			existingPods: []*v1.Pod{normalPodB},
			nodes:        []*v1.Node{nodeA},
			pod: cyMakePod().Name("affi-antiaffi").PodAffinityExists("aaa", v1.LabelHostname, cyRequired).
				PodAffinityExists("bbb", v1.LabelHostname, cyRequired).
				PodAntiAffinityExists("aaa", v1.LabelHostname, cyRequired).
				PodAntiAffinityExists("bbb", v1.LabelHostname, cyRequired).Obj(),
			wantAffinity:     TopologyCounts{},
			wantAntiAffinity: TopologyCounts{hostA: 1},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &Cycle{Nodes: tc.nodes, Pods: tc.existingPods}
			got, err := c.AffinityPreFilter(tc.pod)
			if err != nil {
				t.Fatalf("AffinityPreFilter() = %v", err)
			}
			if diff := cmp.Diff(tc.wantAffinity, got.Affinity); diff != "" {
				t.Errorf("AffinityPreFilter().Affinity (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantAntiAffinity, got.AntiAffinity); diff != "" {
				t.Errorf("AffinityPreFilter().AntiAffinity (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCycleAffinityAddRemovePod ports interpodaffinity's
// TestPreFilterStateAddRemovePod (the gate-off runs). Upstream asserts the
// state after AddPod, which it also checks equal to PreFilter over the
// existing pods plus the added one; the reference computes the latter. The
// existing pods' anti-affinity counts, which upstream checks only through
// that equality, are asserted too, with the values the rules give.
func TestCycleAffinityAddRemovePod(t *testing.T) {
	label1 := map[string]string{"region": "r1", "zone": "z11"}
	label2 := map[string]string{"region": "r1", "zone": "z12"}
	label3 := map[string]string{"region": "r2", "zone": "z21"}
	selector1 := map[string]string{"foo": "bar"}
	fooIn := func(vs ...string) *metav1.LabelSelector {
		return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "foo", Operator: metav1.LabelSelectorOpIn, Values: vs}}}
	}
	serviceNotIn := &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
		{Key: "service", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"bar", "security", "test"}}}}
	antiAffinityFooBar := &v1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{
		{LabelSelector: fooIn("bar"), TopologyKey: "region"}}}
	complexTerms := []v1.PodAffinityTerm{
		{LabelSelector: fooIn("bar", "buzz"), TopologyKey: "region"},
		{LabelSelector: serviceNotIn, TopologyKey: "zone"},
	}
	antiAffinityComplex := &v1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: complexTerms}
	affinityComplex := &v1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: complexTerms}
	threeNodes := []*v1.Node{
		{ObjectMeta: metav1.ObjectMeta{Name: "nodeA", Labels: label1}},
		{ObjectMeta: metav1.ObjectMeta{Name: "nodeB", Labels: label2}},
		{ObjectMeta: metav1.ObjectMeta{Name: "nodeC", Labels: label3}},
	}
	withAffinity := func(a *v1.Affinity) v1.PodSpec { return v1.PodSpec{Affinity: a} }
	onNode := func(node string, a *v1.Affinity) v1.PodSpec { return v1.PodSpec{NodeName: node, Affinity: a} }

	tests := []struct {
		name                 string
		pendingPod           *v1.Pod
		addedPod             *v1.Pod
		existingPods         []*v1.Pod
		nodes                []*v1.Node
		wantAntiAffinity     TopologyCounts
		wantAffinity         TopologyCounts
		wantExistingAntiAffi TopologyCounts
	}{
		{
			name:       "TestPreFilterStateAddRemovePod/preFilterState anti-affinity terms are updated correctly after adding and removing a pod",
			pendingPod: &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "pending", Labels: selector1}, Spec: withAffinity(&v1.Affinity{PodAntiAffinity: antiAffinityFooBar})},
			existingPods: []*v1.Pod{
				{ObjectMeta: metav1.ObjectMeta{Name: "p1", Labels: selector1}, Spec: onNode("nodeA", nil)},
				{ObjectMeta: metav1.ObjectMeta{Name: "p2"}, Spec: onNode("nodeC", &v1.Affinity{PodAntiAffinity: antiAffinityFooBar})},
			},
			addedPod:         &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "addedPod", Labels: selector1}, Spec: onNode("nodeB", &v1.Affinity{PodAntiAffinity: antiAffinityFooBar})},
			nodes:            threeNodes,
			wantAntiAffinity: TopologyCounts{{"region", "r1"}: 2},
			wantAffinity:     TopologyCounts{},
			// p2 (region r2) and addedPod (region r1) reject foo=bar.
			wantExistingAntiAffi: TopologyCounts{{"region", "r2"}: 1, {"region", "r1"}: 1},
		},
		{
			name:       "TestPreFilterStateAddRemovePod/preFilterState anti-affinity terms are updated correctly after adding and removing a pod (complex)",
			pendingPod: &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "pending", Labels: selector1}, Spec: withAffinity(&v1.Affinity{PodAntiAffinity: antiAffinityComplex})},
			existingPods: []*v1.Pod{
				{ObjectMeta: metav1.ObjectMeta{Name: "p1", Labels: selector1}, Spec: onNode("nodeA", nil)},
				{ObjectMeta: metav1.ObjectMeta{Name: "p2"}, Spec: onNode("nodeC", &v1.Affinity{PodAntiAffinity: antiAffinityFooBar})},
			},
			addedPod: &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "addedPod", Labels: selector1}, Spec: onNode("nodeA", &v1.Affinity{PodAntiAffinity: antiAffinityComplex})},
			nodes:    threeNodes,
			wantAntiAffinity: TopologyCounts{
				{"region", "r1"}: 2,
				{"zone", "z11"}:  2,
				{"zone", "z21"}:  1,
			},
			wantAffinity: TopologyCounts{},
			// p2's foo=bar term (r2); addedPod's two terms (r1, z11).
			wantExistingAntiAffi: TopologyCounts{{"region", "r2"}: 1, {"region", "r1"}: 1, {"zone", "z11"}: 1},
		},
		{
			name:       "TestPreFilterStateAddRemovePod/preFilterState matching pod affinity and anti-affinity are updated correctly after adding and removing a pod",
			pendingPod: &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "pending", Labels: selector1}, Spec: withAffinity(&v1.Affinity{PodAffinity: affinityComplex})},
			existingPods: []*v1.Pod{
				{ObjectMeta: metav1.ObjectMeta{Name: "p1", Labels: selector1}, Spec: onNode("nodeA", nil)},
				{ObjectMeta: metav1.ObjectMeta{Name: "p2"}, Spec: onNode("nodeC", &v1.Affinity{PodAntiAffinity: antiAffinityFooBar, PodAffinity: affinityComplex})},
			},
			addedPod:         &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "addedPod", Labels: selector1}, Spec: onNode("nodeA", &v1.Affinity{PodAntiAffinity: antiAffinityComplex})},
			nodes:            threeNodes,
			wantAntiAffinity: TopologyCounts{},
			wantAffinity: TopologyCounts{
				{"region", "r1"}: 2,
				{"zone", "z11"}:  2,
			},
			wantExistingAntiAffi: TopologyCounts{{"region", "r2"}: 1, {"region", "r1"}: 1, {"zone", "z11"}: 1},
		},
		{
			name:       "TestPreFilterStateAddRemovePod/preFilterState anti-affinity terms with both hostname and non-hostname are updated correctly after adding and removing a pod",
			pendingPod: &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "pending", Labels: selector1}, Spec: withAffinity(&v1.Affinity{PodAntiAffinity: antiAffinityFooBar})},
			existingPods: []*v1.Pod{
				{ObjectMeta: metav1.ObjectMeta{Name: "p1", Labels: selector1}, Spec: onNode("nodeA", nil)},
			},
			addedPod: &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "addedPod", Labels: selector1}, Spec: onNode("nodeA", &v1.Affinity{
				PodAntiAffinity: &v1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{
					{LabelSelector: fooIn("bar"), TopologyKey: "region"},
					{LabelSelector: fooIn("bar"), TopologyKey: v1.LabelHostname},
				}}})},
			nodes: []*v1.Node{
				{ObjectMeta: metav1.ObjectMeta{Name: "nodeA", Labels: map[string]string{"region": "r1", "zone": "z11", v1.LabelHostname: "nodeA"}}},
				{ObjectMeta: metav1.ObjectMeta{Name: "nodeB", Labels: map[string]string{"region": "r1", "zone": "z12", v1.LabelHostname: "nodeB"}}},
			},
			wantAntiAffinity: TopologyCounts{{"region", "r1"}: 2},
			wantAffinity:     TopologyCounts{},
			// Gate off: the hostname term is counted like any other.
			wantExistingAntiAffi: TopologyCounts{{"region", "r1"}: 1, {v1.LabelHostname, "nodeA"}: 1},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &Cycle{Nodes: tc.nodes, Pods: append(tc.existingPods, tc.addedPod)}
			got, err := c.AffinityPreFilter(tc.pendingPod)
			if err != nil {
				t.Fatalf("AffinityPreFilter() = %v", err)
			}
			want := AffinityPreFilter{ExistingAntiAffinity: tc.wantExistingAntiAffi, Affinity: tc.wantAffinity, AntiAffinity: tc.wantAntiAffinity}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("AffinityPreFilter() (-want +got):\n%s", diff)
			}
		})
	}
}

// cySpreadWant is what the ported PodTopologySpread cases expect of one
// constraint: upstream's topologySpreadConstraint fields (but the selector),
// its TpValueToMatchNum map and its critical paths' MatchNums. Zero
// MinDomains and empty policies stand for the defaults (1, Honor, Ignore).
type cySpreadWant struct {
	key        string
	maxSkew    int32
	minDomains int32
	nap, ntp   v1.NodeInclusionPolicy
	counts     map[string]int
	paths      [2]int
}

func (w cySpreadWant) normalized() cySpreadWant {
	if w.minDomains == 0 {
		w.minDomains = 1
	}
	if w.nap == "" {
		w.nap = v1.NodeInclusionPolicyHonor
	}
	if w.ntp == "" {
		w.ntp = v1.NodeInclusionPolicyIgnore
	}
	if w.maxSkew == 0 {
		w.maxSkew = 1
	}
	return w
}

func cyGotSpread(c SpreadFilterConstraint) cySpreadWant {
	return cySpreadWant{
		key: c.TopologyKey, maxSkew: c.MaxSkew, minDomains: c.MinDomains, nap: c.NodeAffinityPolicy, ntp: c.NodeTaintsPolicy,
		counts: c.Counts, paths: [2]int{c.MinMatch, c.SecondMatch},
	}
}

// cyZoneNodes are the four nodes most of upstream's spread cases use.
func cyZoneNodes() []*v1.Node {
	return []*v1.Node{
		cyMakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
		cyMakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
		cyMakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
		cyMakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
	}
}

// cyFooPods are the placed pods of several upstream cases: two foo pods on
// node-a, one on node-b, n on node-y.
func cyFooPods(n int, value string) []*v1.Pod {
	pods := []*v1.Pod{
		cyMakePod().Name("p-a1").Node("node-a").Label("foo", value).Obj(),
		cyMakePod().Name("p-a2").Node("node-a").Label("foo", value).Obj(),
		cyMakePod().Name("p-b1").Node("node-b").Label("foo", value).Obj(),
	}
	for i := range n {
		pods = append(pods, cyMakePod().Name(fmt.Sprintf("p-y%d", i+1)).Node("node-y").Label("foo", value).Obj())
	}
	return pods
}

// cyBarNodePods are the nodes' placed pods of upstream's inclusion-policy
// cases: bar pods, one on node-a and two on node-b, and an unlabelled one on
// node-c.
func cyBarNodePods() []*v1.Pod {
	return []*v1.Pod{
		cyMakePod().Name("p-a").Node("node-a").Label("bar", "").Obj(),
		cyMakePod().Name("p-b").Node("node-b").Label("bar", "").Obj(),
		cyMakePod().Name("p-c").Node("node-b").Label("bar", "").Obj(),
		cyMakePod().Name("p-d").Node("node-c").Obj(),
	}
}

// TestCycleSpreadPreFilter ports podtopologyspread's TestPreFilterState.
// Upstream runs each case with the NodeInclusionPolicyInPodTopologySpread and
// MatchLabelKeysInPodTopologySpread gates as the case sets them (off unless
// it says otherwise); the reference computes v1.37.2's defaults (both on).
// The cases whose expected state does not depend on that are ported; the
// others are listed at the end of the table with why they are skipped.
func TestCycleSpreadPreFilter(t *testing.T) {
	fooSelector := cyMakeSelector().Exists("foo").Obj()
	barSelector := cyMakeSelector().Exists("bar").Obj()
	ignore, honor := v1.NodeInclusionPolicyIgnore, v1.NodeInclusionPolicyHonor
	taints := []v1.Taint{{Key: v1.TaintNodeUnschedulable, Value: "", Effect: v1.TaintEffectNoSchedule}}
	nodeABC := func(aFoo, bFoo bool, cTaint bool) []*v1.Node {
		a := cyMakeNode().Name("node-a").Label("node", "node-a")
		b := cyMakeNode().Name("node-b").Label("node", "node-b")
		c := cyMakeNode().Name("node-c").Label("node", "node-c").Label("bar", "")
		if aFoo {
			a.Label("foo", "")
		}
		if bFoo {
			b.Label("foo", "")
		}
		if cTaint {
			c.Taints(taints)
		}
		return []*v1.Node{a.Obj(), b.Obj(), c.Obj()}
	}
	const maxInt32 = math.MaxInt32

	tests := []struct {
		name  string
		pod   *v1.Pod
		nodes []*v1.Node
		pods  []*v1.Pod
		want  []cySpreadWant // nil: upstream's Skip
		skip  string
	}{
		{
			name: "TestPreFilterState/clean cluster with one spreadConstraint",
			pod: cyMakePod().Name("p").Label("foo", "").
				SpreadConstraint(5, "zone", v1.DoNotSchedule, cyMakeSelector().Label("foo", "bar").Obj(), nil, nil, nil, nil).Obj(),
			nodes: cyZoneNodes(),
			want:  []cySpreadWant{{key: "zone", maxSkew: 5, counts: map[string]int{"zone1": 0, "zone2": 0}, paths: [2]int{0, 0}}},
		},
		{
			name:  "TestPreFilterState/normal case with one spreadConstraint",
			pod:   cyMakePod().Name("p").Label("foo", "").SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).Obj(),
			nodes: cyZoneNodes(),
			pods:  cyFooPods(2, ""),
			want:  []cySpreadWant{{key: "zone", counts: map[string]int{"zone1": 3, "zone2": 2}, paths: [2]int{2, 3}}},
		},
		{
			name:  "TestPreFilterState/normal case with null label selector",
			pod:   cyMakePod().Name("p").Label("foo", "").SpreadConstraint(1, "zone", v1.DoNotSchedule, nil, nil, nil, nil, nil).Obj(),
			nodes: cyZoneNodes(),
			pods:  cyFooPods(2, ""),
			want:  []cySpreadWant{{key: "zone", counts: map[string]int{"zone1": 0, "zone2": 0}, paths: [2]int{0, 0}}},
		},
		{
			name: "TestPreFilterState/normal case with one spreadConstraint, on a 3-zone cluster",
			pod:  cyMakePod().Name("p").Label("foo", "").SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).Obj(),
			nodes: append(cyZoneNodes(),
				cyMakeNode().Name("node-o").Label("zone", "zone3").Label("node", "node-o").Obj(),
				cyMakeNode().Name("node-p").Label("zone", "zone3").Label("node", "node-p").Obj()),
			pods: cyFooPods(2, ""),
			want: []cySpreadWant{{key: "zone", counts: map[string]int{"zone1": 3, "zone2": 2, "zone3": 0}, paths: [2]int{0, 2}}},
		},
		{
			name:  "TestPreFilterState/namespace mismatch doesn't count",
			pod:   cyMakePod().Name("p").Label("foo", "").SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).Obj(),
			nodes: cyZoneNodes(),
			pods: []*v1.Pod{
				cyMakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-a2").Namespace("ns1").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
				cyMakePod().Name("p-y1").Namespace("ns2").Node("node-y").Label("foo", "").Obj(),
				cyMakePod().Name("p-y2").Node("node-y").Label("foo", "").Obj(),
			},
			want: []cySpreadWant{{key: "zone", counts: map[string]int{"zone1": 2, "zone2": 1}, paths: [2]int{1, 2}}},
		},
		{
			name: "TestPreFilterState/normal case with two spreadConstraints",
			pod: cyMakePod().Name("p").Label("foo", "").
				SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).
				SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).Obj(),
			nodes: cyZoneNodes(),
			pods:  cyFooPods(4, ""),
			want: []cySpreadWant{
				{key: "zone", counts: map[string]int{"zone1": 3, "zone2": 4}, paths: [2]int{3, 4}},
				{key: "node", counts: map[string]int{"node-a": 2, "node-b": 1, "node-x": 0, "node-y": 4}, paths: [2]int{0, 1}},
			},
		},
		{
			name: "TestPreFilterState/soft spreadConstraints should be bypassed",
			pod: cyMakePod().Name("p").Label("foo", "").
				SpreadConstraint(1, "zone", v1.ScheduleAnyway, fooSelector, nil, nil, nil, nil).
				SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).
				SpreadConstraint(1, "node", v1.ScheduleAnyway, fooSelector, nil, nil, nil, nil).
				SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).Obj(),
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
				cyMakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
				cyMakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
			},
			pods: cyFooPods(4, ""),
			want: []cySpreadWant{
				{key: "zone", counts: map[string]int{"zone1": 3, "zone2": 4}, paths: [2]int{3, 4}},
				{key: "node", counts: map[string]int{"node-a": 2, "node-b": 1, "node-y": 4}, paths: [2]int{1, 2}},
			},
		},
		{
			name: "TestPreFilterState/different labelSelectors - simple version",
			pod: cyMakePod().Name("p").Label("foo", "").Label("bar", "").
				SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).
				SpreadConstraint(1, "node", v1.DoNotSchedule, barSelector, nil, nil, nil, nil).Obj(),
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
				cyMakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
				cyMakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
			},
			pods: []*v1.Pod{
				cyMakePod().Name("p-a").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-b").Node("node-b").Label("bar", "").Obj(),
			},
			want: []cySpreadWant{
				{key: "zone", counts: map[string]int{"zone1": 1, "zone2": 0}, paths: [2]int{0, 1}},
				{key: "node", counts: map[string]int{"node-a": 0, "node-b": 1, "node-y": 0}, paths: [2]int{0, 0}},
			},
		},
		{
			name: "TestPreFilterState/different labelSelectors - complex pods",
			pod: cyMakePod().Name("p").Label("foo", "").Label("bar", "").
				SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).
				SpreadConstraint(1, "node", v1.DoNotSchedule, barSelector, nil, nil, nil, nil).Obj(),
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
				cyMakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
				cyMakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
			},
			pods: []*v1.Pod{
				cyMakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-a2").Node("node-a").Label("foo", "").Label("bar", "").Obj(),
				cyMakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
				cyMakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
				cyMakePod().Name("p-y2").Node("node-y").Label("foo", "").Label("bar", "").Obj(),
				cyMakePod().Name("p-y3").Node("node-y").Label("foo", "").Obj(),
				cyMakePod().Name("p-y4").Node("node-y").Label("foo", "").Label("bar", "").Obj(),
			},
			want: []cySpreadWant{
				{key: "zone", counts: map[string]int{"zone1": 3, "zone2": 4}, paths: [2]int{3, 4}},
				{key: "node", counts: map[string]int{"node-a": 1, "node-b": 0, "node-y": 2}, paths: [2]int{0, 1}},
			},
		},
		{
			// Upstream runs it with the inclusion-policy gate off, where the
			// pod's node affinity filters every node; the default Honor policy
			// gives the same counts.
			name: "TestPreFilterState/two spreadConstraints, and with podAffinity",
			pod: cyMakePod().Name("p").Label("foo", "").NodeAffinityNotIn("node", []string{"node-x"}).
				SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).
				SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).Obj(),
			nodes: cyZoneNodes(),
			pods:  cyFooPods(4, ""),
			want: []cySpreadWant{
				{key: "zone", counts: map[string]int{"zone1": 3, "zone2": 4}, paths: [2]int{3, 4}},
				{key: "node", counts: map[string]int{"node-a": 2, "node-b": 1, "node-y": 4}, paths: [2]int{1, 2}},
			},
		},
		{
			name: "TestPreFilterState/TpKeyToDomainsNum is calculated when MinDomains is enabled",
			pod: cyMakePod().Name("p").Label("foo", "").
				SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).
				SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).Obj(),
			nodes: cyZoneNodes(),
			pods:  cyFooPods(4, ""),
			want: []cySpreadWant{
				{key: "zone", counts: map[string]int{"zone1": 3, "zone2": 4}, paths: [2]int{3, 4}},
				{key: "node", counts: map[string]int{"node-a": 2, "node-b": 1, "node-x": 0, "node-y": 4}, paths: [2]int{0, 1}},
			},
		},
		{
			// Gate off upstream: node affinity filters nodes, as Honor does.
			name:  "TestPreFilterState/feature gate disabled with NodeAffinityPolicy",
			pod:   cyMakePod().Name("p").Label("foo", "").NodeSelector(map[string]string{"foo": ""}).SpreadConstraint(1, "node", v1.DoNotSchedule, barSelector, nil, nil, nil, nil).Obj(),
			nodes: nodeABC(true, true, false),
			pods:  cyBarNodePods(),
			want:  []cySpreadWant{{key: "node", counts: map[string]int{"node-a": 1, "node-b": 2}, paths: [2]int{1, 2}}},
		},
		{
			name:  "TestPreFilterState/NodeAffinityPolicy honored with labelSelectors",
			pod:   cyMakePod().Name("p").Label("foo", "").NodeSelector(map[string]string{"foo": ""}).SpreadConstraint(1, "node", v1.DoNotSchedule, barSelector, nil, nil, nil, nil).Obj(),
			nodes: nodeABC(true, true, false),
			pods:  cyBarNodePods(),
			want:  []cySpreadWant{{key: "node", counts: map[string]int{"node-a": 1, "node-b": 2}, paths: [2]int{1, 2}}},
		},
		{
			name:  "TestPreFilterState/NodeAffinityPolicy ignored with labelSelectors",
			pod:   cyMakePod().Name("p").Label("foo", "").NodeSelector(map[string]string{"foo": ""}).SpreadConstraint(1, "node", v1.DoNotSchedule, barSelector, nil, &ignore, nil, nil).Obj(),
			nodes: nodeABC(true, true, false),
			pods:  cyBarNodePods(),
			want:  []cySpreadWant{{key: "node", nap: ignore, counts: map[string]int{"node-a": 1, "node-b": 2, "node-c": 0}, paths: [2]int{0, 1}}},
		},
		{
			name:  "TestPreFilterState/NodeAffinityPolicy honored with nodeAffinity",
			pod:   cyMakePod().Name("p").Label("foo", "").NodeAffinityIn("foo", []string{""}).SpreadConstraint(1, "node", v1.DoNotSchedule, barSelector, nil, nil, nil, nil).Obj(),
			nodes: nodeABC(true, true, false),
			pods:  cyBarNodePods(),
			want:  []cySpreadWant{{key: "node", counts: map[string]int{"node-a": 1, "node-b": 2}, paths: [2]int{1, 2}}},
		},
		{
			name:  "TestPreFilterState/NodeAffinityPolicy ignored with nodeAffinity",
			pod:   cyMakePod().Name("p").Label("foo", "").NodeAffinityIn("foo", []string{""}).SpreadConstraint(1, "node", v1.DoNotSchedule, barSelector, nil, &ignore, nil, nil).Obj(),
			nodes: nodeABC(true, true, false),
			pods:  cyBarNodePods(),
			want:  []cySpreadWant{{key: "node", nap: ignore, counts: map[string]int{"node-a": 1, "node-b": 2, "node-c": 0}, paths: [2]int{0, 1}}},
		},
		{
			// Gate off upstream: taints are not looked at, as under Ignore.
			name:  "TestPreFilterState/feature gate disabled with NodeTaintsPolicy",
			pod:   cyMakePod().Name("p").Label("foo", "").SpreadConstraint(1, "node", v1.DoNotSchedule, barSelector, nil, nil, nil, nil).Obj(),
			nodes: nodeABC(false, false, true),
			pods:  cyBarNodePods(),
			want:  []cySpreadWant{{key: "node", counts: map[string]int{"node-a": 1, "node-b": 2, "node-c": 0}, paths: [2]int{0, 1}}},
		},
		{
			name:  "TestPreFilterState/NodeTaintsPolicy ignored",
			pod:   cyMakePod().Name("p").Label("foo", "").SpreadConstraint(1, "node", v1.DoNotSchedule, barSelector, nil, nil, nil, nil).Obj(),
			nodes: nodeABC(false, false, true),
			pods:  cyBarNodePods(),
			want:  []cySpreadWant{{key: "node", counts: map[string]int{"node-a": 1, "node-b": 2, "node-c": 0}, paths: [2]int{0, 1}}},
		},
		{
			name:  "TestPreFilterState/NodeTaintsPolicy honored",
			pod:   cyMakePod().Name("p").Label("foo", "").SpreadConstraint(1, "node", v1.DoNotSchedule, barSelector, nil, nil, &honor, nil).Obj(),
			nodes: nodeABC(false, false, true),
			pods:  cyBarNodePods(),
			want:  []cySpreadWant{{key: "node", ntp: honor, counts: map[string]int{"node-a": 1, "node-b": 2}, paths: [2]int{1, 2}}},
		},
		{
			name:  "TestPreFilterState/NodeTaintsPolicy honored with tolerated taints",
			pod:   cyMakePod().Name("p").Label("foo", "").Toleration(v1.TaintNodeUnschedulable).SpreadConstraint(1, "node", v1.DoNotSchedule, barSelector, nil, nil, &honor, nil).Obj(),
			nodes: nodeABC(false, false, true),
			pods:  cyBarNodePods(),
			want:  []cySpreadWant{{key: "node", ntp: honor, counts: map[string]int{"node-a": 1, "node-b": 2, "node-c": 0}, paths: [2]int{0, 1}}},
		},
		{
			name: "TestPreFilterState/two node inclusion Constraints, zone: honor/ignore, node: ignore/ignore",
			pod: cyMakePod().Name("p").Label("foo", "").NodeSelector(map[string]string{"foo": ""}).
				SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).
				SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, nil, &ignore, nil, nil).Obj(),
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Label("foo", "").Obj(),
				cyMakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
				cyMakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Label("foo", "").Obj(),
			},
			pods: []*v1.Pod{
				cyMakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
				cyMakePod().Name("p-b2").Node("node-b").Label("foo", "").Obj(),
				cyMakePod().Name("p-x1").Node("node-x").Label("foo", "").Obj(),
			},
			want: []cySpreadWant{
				{key: "zone", counts: map[string]int{"zone1": 0, "zone2": 1}, paths: [2]int{0, 1}},
				{key: "node", nap: ignore, counts: map[string]int{"node-a": 0, "node-b": 2, "node-x": 1}, paths: [2]int{0, 1}},
			},
		},
		{
			name: "TestPreFilterState/two node inclusion Constraints, zone: honor/honor, node: honor/ignore",
			pod: cyMakePod().Name("p").Label("foo", "").
				SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, &honor, nil).
				SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).Obj(),
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Label("foo", "").Obj(),
				cyMakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Taints(taints).Obj(),
				cyMakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Label("foo", "").Obj(),
			},
			pods: []*v1.Pod{
				cyMakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
				cyMakePod().Name("p-b2").Node("node-b").Label("foo", "").Obj(),
				cyMakePod().Name("p-x1").Node("node-x").Label("foo", "").Obj(),
			},
			want: []cySpreadWant{
				{key: "zone", ntp: honor, counts: map[string]int{"zone1": 0, "zone2": 1}, paths: [2]int{0, 1}},
				{key: "node", counts: map[string]int{"node-a": 0, "node-b": 2, "node-x": 1}, paths: [2]int{0, 1}},
			},
		},
		{
			name: "TestPreFilterState/two node inclusion Constraints, zone: honor/ignore, node: honor/ignore",
			pod: cyMakePod().Name("p").Label("foo", "").NodeSelector(map[string]string{"foo": ""}).
				SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).
				SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).Obj(),
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
				cyMakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Label("foo", "").Taints(taints).Obj(),
				cyMakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Label("foo", "").Obj(),
				cyMakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
			},
			pods: []*v1.Pod{
				cyMakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-x1").Node("node-x").Label("foo", "").Obj(),
				cyMakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
			},
			want: []cySpreadWant{
				{key: "zone", counts: map[string]int{"zone1": 0, "zone2": 1}, paths: [2]int{0, 1}},
				{key: "node", counts: map[string]int{"node-b": 0, "node-x": 1}, paths: [2]int{0, 1}},
			},
		},
		{
			name: "TestPreFilterState/two node inclusion Constraints, zone: ignore/ignore, node: honor/honor",
			pod: cyMakePod().Name("p").Label("foo", "").NodeSelector(map[string]string{"foo": ""}).
				SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, nil, &ignore, nil, nil).
				SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, nil, nil, &honor, nil).Obj(),
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
				cyMakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Label("foo", "").Taints(taints).Obj(),
				cyMakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Label("foo", "").Obj(),
				cyMakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Label("foo", "").Obj(),
			},
			pods: []*v1.Pod{
				cyMakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-x1").Node("node-x").Label("foo", "").Obj(),
				cyMakePod().Name("p-x2").Node("node-x").Label("foo", "").Obj(),
				cyMakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
			},
			want: []cySpreadWant{
				{key: "zone", nap: ignore, counts: map[string]int{"zone1": 2, "zone2": 3}, paths: [2]int{2, 3}},
				{key: "node", ntp: honor, counts: map[string]int{"node-x": 2, "node-y": 1}, paths: [2]int{1, 2}},
			},
		},
		{
			name: "TestPreFilterState/matchLabelKeys ANDed with LabelSelector when LabelSelector isn't empty",
			pod: cyMakePod().Name("p").Label("foo", "").Label("bar", "a").
				SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, []string{"bar"}).Obj(),
			nodes: cyZoneNodes(),
			pods: []*v1.Pod{
				cyMakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-a2").Node("node-a").Label("foo", "").Label("bar", "a").Obj(),
				cyMakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
				cyMakePod().Name("p-y1").Node("node-y").Label("foo", "").Label("bar", "a").Obj(),
				cyMakePod().Name("p-y2").Node("node-y").Label("bar", "").Obj(),
			},
			want: []cySpreadWant{{key: "zone", counts: map[string]int{"zone1": 1, "zone2": 1}, paths: [2]int{1, 1}}},
		},
		{
			// `{}` counts nothing, but with matchLabelKeys merged it is no
			// longer empty and counts foo=a pods.
			name: "TestPreFilterState/matchLabelKeys ANDed with LabelSelector when LabelSelector is empty",
			pod: cyMakePod().Name("p").Label("foo", "a").
				SpreadConstraint(1, "zone", v1.DoNotSchedule, cyMakeSelector().Obj(), nil, nil, nil, []string{"foo"}).Obj(),
			nodes: cyZoneNodes(),
			pods:  cyFooPods(2, "a"),
			want:  []cySpreadWant{{key: "zone", counts: map[string]int{"zone1": 3, "zone2": 2}, paths: [2]int{2, 3}}},
		},
		{
			name: "TestPreFilterState/key in matchLabelKeys is ignored when LabelSelector is nil when feature gate enabled",
			pod: cyMakePod().Name("p").Label("foo", "").
				SpreadConstraint(1, "zone", v1.DoNotSchedule, nil, nil, nil, nil, []string{"bar"}).Obj(),
			nodes: cyZoneNodes(),
			pods:  cyFooPods(2, "a"),
			want:  []cySpreadWant{{key: "zone", counts: map[string]int{"zone1": 0, "zone2": 0}, paths: [2]int{0, 0}}},
		},
		{
			// Upstream runs it with the matchLabelKeys gate off; the pod lacks
			// the key, so the gate makes no difference.
			name: "TestPreFilterState/no pod is matched when LabelSelector is nil when feature gate disabled",
			pod: cyMakePod().Name("p").Label("foo", "").
				SpreadConstraint(1, "zone", v1.DoNotSchedule, nil, nil, nil, nil, []string{"bar"}).Obj(),
			nodes: cyZoneNodes(),
			pods:  cyFooPods(2, "a"),
			want:  []cySpreadWant{{key: "zone", counts: map[string]int{"zone1": 0, "zone2": 0}, paths: [2]int{0, 0}}},
		},
		{
			name: "TestPreFilterState/key in matchLabelKeys is ignored when it isn't exist in pod.labels",
			pod: cyMakePod().Name("p").Label("foo", "").
				SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, []string{"bar"}).Obj(),
			nodes: cyZoneNodes(),
			pods:  cyFooPods(2, "a"),
			want:  []cySpreadWant{{key: "zone", counts: map[string]int{"zone1": 3, "zone2": 2}, paths: [2]int{2, 3}}},
		},
		{
			name: "TestPreFilterState/two spreadConstraints with the same topologyKey",
			pod: cyMakePod().Name("p").Label("foo", "").Label("bar", "").
				SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).
				SpreadConstraint(1, "zone", v1.DoNotSchedule, barSelector, nil, nil, nil, nil).Obj(),
			nodes: cyZoneNodes(),
			pods: []*v1.Pod{
				cyMakePod().Name("p-a1").Node("node-a").Label("foo", "").Label("bar", "").Obj(),
				cyMakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
				cyMakePod().Name("p-x1").Node("node-x").Label("bar", "").Obj(),
				cyMakePod().Name("p-y1").Node("node-y").Label("foo", "").Label("bar", "").Obj(),
				cyMakePod().Name("p-y2").Node("node-y").Label("bar", "").Obj(),
			},
			want: []cySpreadWant{
				{key: "zone", counts: map[string]int{"zone1": 2, "zone2": 1}, paths: [2]int{1, 2}},
				{key: "zone", counts: map[string]int{"zone1": 1, "zone2": 3}, paths: [2]int{1, 3}},
			},
		},
		{
			name:  "TestPreFilterState/skip if not specified",
			pod:   cyMakePod().Name("p").Label("foo", "").Obj(),
			nodes: []*v1.Node{cyMakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj()},
			want:  nil,
		},
		{
			name: "TestPreFilterState/matchLabelKeys ignored when feature gate disabled",
			skip: "upstream runs it with MatchLabelKeysInPodTopologySpread off; v1.37.2's default is on",
		},
		{
			name: "TestPreFilterState/default constraints and a service",
			skip: "default (cluster-level) constraints are not derived by the reference",
		},
		{
			name: "TestPreFilterState/default constraints and a service that doesn't match",
			skip: "default (cluster-level) constraints are not derived by the reference",
		},
		{
			// The service only matters for default constraints, which a pod
			// with constraints of its own does not get. No nodes: no domain.
			name: "TestPreFilterState/default constraints and a service, but pod has constraints",
			pod: cyMakePod().Name("p").Label("foo", "bar").Label("baz", "tar").
				SpreadConstraint(1, "zone", v1.DoNotSchedule, cyMakeSelector().Label("baz", "tar").Obj(), nil, nil, nil, nil).
				SpreadConstraint(2, "planet", v1.ScheduleAnyway, cyMakeSelector().Label("fot", "rok").Obj(), nil, nil, nil, nil).Obj(),
			want: []cySpreadWant{{key: "zone", counts: map[string]int{}, paths: [2]int{maxInt32, maxInt32}}},
		},
		{
			name: "TestPreFilterState/default soft constraints and a service",
			skip: "default (cluster-level) constraints are not derived by the reference",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.skip != "" {
				t.Skip(tc.skip)
			}
			c := &Cycle{Nodes: tc.nodes, Pods: tc.pods}
			got, err := c.SpreadPreFilter(tc.pod)
			if err != nil {
				t.Fatalf("SpreadPreFilter() = %v", err)
			}
			var gotW, want []cySpreadWant
			for _, g := range got {
				gotW = append(gotW, cyGotSpread(g))
			}
			for _, w := range tc.want {
				want = append(want, w.normalized())
			}
			if diff := cmp.Diff(want, gotW, cmp.AllowUnexported(cySpreadWant{})); diff != "" {
				t.Errorf("SpreadPreFilter() (-want +got):\n%s", diff)
			}
		})
	}
}

// cyNodeScore is a node's score as fwk.NodeScore holds it.
type cyNodeScore struct {
	Name  string
	Score int64
}

// cyMaxNodeScore is fwk.MaxNodeScore.
const cyMaxNodeScore = 100

// cyStatus is the PreScore outcome an upstream case expects: success
// (the zero value), Skip or Error.
type cyStatus int

const (
	cySuccess cyStatus = iota
	cySkip
	cyError
)

// cyScoringNamespaces are the namespaces of interpodaffinity's scoring tests.
var cyScoringNamespaces = map[string]map[string]string{
	"subteam1.team1": {"team": "team1"},
	"subteam2.team1": {"team": "team1"},
	"subteam1.team2": {"team": "team2"},
	"subteam2.team2": {"team": "team2"},
}

// cyAffinityScores turns a topologyScore into the nodes' normalized scores as
// InterPodAffinity's Score (sum over the map's keys of the node's domain's
// score) and NormalizeScore (min-max scaled to 0..100, truncated; left
// as they are when the map is empty) do.
func cyAffinityScores(topologyScore map[string]map[string]int64, nodes []*v1.Node) []cyNodeScore {
	var out []cyNodeScore
	for _, n := range nodes {
		var s int64
		for key, values := range topologyScore {
			if v, ok := n.Labels[key]; ok {
				s += values[v]
			}
		}
		out = append(out, cyNodeScore{Name: n.Name, Score: s})
	}
	if len(topologyScore) == 0 {
		return out
	}
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for _, s := range out {
		lo, hi = min(lo, s.Score), max(hi, s.Score)
	}
	for i := range out {
		f := float64(0)
		if hi-lo > 0 {
			f = float64(cyMaxNodeScore) * (float64(out[i].Score-lo) / float64(hi-lo))
		}
		out[i].Score = int64(f)
	}
	return out
}

// cyCheckAffinityPreScore runs AffinityPreScore and checks its outcome and,
// on success, the nodes' scores against an upstream case's expectations.
func cyCheckAffinityPreScore(t *testing.T, c *Cycle, pod *v1.Pod, args AffinityScoreArgs, wantStatus cyStatus, want []cyNodeScore) {
	t.Helper()
	scores, ok, err := c.AffinityPreScore(pod, args)
	got := cySuccess
	switch {
	case err != nil:
		got = cyError
	case !ok:
		got = cySkip
	}
	if got != wantStatus {
		t.Fatalf("AffinityPreScore() status = %d (err %v), want %d", got, err, wantStatus)
	}
	if got != cySuccess {
		return
	}
	if diff := cmp.Diff(want, cyAffinityScores(scores, c.Nodes)); diff != "" {
		t.Errorf("scores from AffinityPreScore() (-want +got):\n%s", diff)
	}
}

// TestCycleAffinityPreScorePreferred ports interpodaffinity's
// TestPreferredAffinity: its data and expected scores are upstream's; the
// reference's topologyScore is turned into scores as Score and
// NormalizeScore do (cyAffinityScores). HardPodAffinityWeight is 1, as there.
func TestCycleAffinityPreScorePreferred(t *testing.T) {
	labelRgChina := map[string]string{
		"region": "China",
	}
	labelRgIndia := map[string]string{
		"region": "India",
	}
	labelAzAz1 := map[string]string{
		"az": "az1",
	}
	labelAzAz2 := map[string]string{
		"az": "az2",
	}
	labelRgChinaAzAz1 := map[string]string{
		"region": "China",
		"az":     "az1",
	}
	podLabelSecurityS1 := map[string]string{
		"security": "S1",
	}
	podLabelSecurityS2 := map[string]string{
		"security": "S2",
	}
	// considered only preferredDuringSchedulingIgnoredDuringExecution in pod affinity
	stayWithS1InRegion := &v1.Affinity{
		PodAffinity: &v1.PodAffinity{
			PreferredDuringSchedulingIgnoredDuringExecution: []v1.WeightedPodAffinityTerm{
				{
					Weight: 5,
					PodAffinityTerm: v1.PodAffinityTerm{
						LabelSelector: &metav1.LabelSelector{
							MatchExpressions: []metav1.LabelSelectorRequirement{
								{
									Key:      "security",
									Operator: metav1.LabelSelectorOpIn,
									Values:   []string{"S1"},
								},
							},
						},
						TopologyKey: "region",
					},
				},
			},
		},
	}
	stayWithS2InRegion := &v1.Affinity{
		PodAffinity: &v1.PodAffinity{
			PreferredDuringSchedulingIgnoredDuringExecution: []v1.WeightedPodAffinityTerm{
				{
					Weight: 6,
					PodAffinityTerm: v1.PodAffinityTerm{
						LabelSelector: &metav1.LabelSelector{
							MatchExpressions: []metav1.LabelSelectorRequirement{
								{
									Key:      "security",
									Operator: metav1.LabelSelectorOpIn,
									Values:   []string{"S2"},
								},
							},
						},
						TopologyKey: "region",
					},
				},
			},
		},
	}
	affinity3 := &v1.Affinity{
		PodAffinity: &v1.PodAffinity{
			PreferredDuringSchedulingIgnoredDuringExecution: []v1.WeightedPodAffinityTerm{
				{
					Weight: 8,
					PodAffinityTerm: v1.PodAffinityTerm{
						LabelSelector: &metav1.LabelSelector{
							MatchExpressions: []metav1.LabelSelectorRequirement{
								{
									Key:      "security",
									Operator: metav1.LabelSelectorOpNotIn,
									Values:   []string{"S1"},
								}, {
									Key:      "security",
									Operator: metav1.LabelSelectorOpIn,
									Values:   []string{"S2"},
								},
							},
						},
						TopologyKey: "region",
					},
				}, {
					Weight: 2,
					PodAffinityTerm: v1.PodAffinityTerm{
						LabelSelector: &metav1.LabelSelector{
							MatchExpressions: []metav1.LabelSelectorRequirement{
								{
									Key:      "security",
									Operator: metav1.LabelSelectorOpExists,
								}, {
									Key:      "wrongkey",
									Operator: metav1.LabelSelectorOpDoesNotExist,
								},
							},
						},
						TopologyKey: "region",
					},
				},
			},
		},
	}
	hardAffinity := &v1.Affinity{
		PodAffinity: &v1.PodAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{
				{
					LabelSelector: &metav1.LabelSelector{
						MatchExpressions: []metav1.LabelSelectorRequirement{
							{
								Key:      "security",
								Operator: metav1.LabelSelectorOpIn,
								Values:   []string{"S1", "value2"},
							},
						},
					},
					TopologyKey: "region",
				}, {
					LabelSelector: &metav1.LabelSelector{
						MatchExpressions: []metav1.LabelSelectorRequirement{
							{
								Key:      "security",
								Operator: metav1.LabelSelectorOpExists,
							}, {
								Key:      "wrongkey",
								Operator: metav1.LabelSelectorOpDoesNotExist,
							},
						},
					},
					TopologyKey: "region",
				},
			},
		},
	}
	awayFromS1InAz := &v1.Affinity{
		PodAntiAffinity: &v1.PodAntiAffinity{
			PreferredDuringSchedulingIgnoredDuringExecution: []v1.WeightedPodAffinityTerm{
				{
					Weight: 5,
					PodAffinityTerm: v1.PodAffinityTerm{
						LabelSelector: &metav1.LabelSelector{
							MatchExpressions: []metav1.LabelSelectorRequirement{
								{
									Key:      "security",
									Operator: metav1.LabelSelectorOpIn,
									Values:   []string{"S1"},
								},
							},
						},
						TopologyKey: "az",
					},
				},
			},
		},
	}
	// to stay away from security S2 in any az.
	awayFromS2InAz := &v1.Affinity{
		PodAntiAffinity: &v1.PodAntiAffinity{
			PreferredDuringSchedulingIgnoredDuringExecution: []v1.WeightedPodAffinityTerm{
				{
					Weight: 5,
					PodAffinityTerm: v1.PodAffinityTerm{
						LabelSelector: &metav1.LabelSelector{
							MatchExpressions: []metav1.LabelSelectorRequirement{
								{
									Key:      "security",
									Operator: metav1.LabelSelectorOpIn,
									Values:   []string{"S2"},
								},
							},
						},
						TopologyKey: "az",
					},
				},
			},
		},
	}
	// to stay with security S1 in same region, stay away from security S2 in any az.
	stayWithS1InRegionAwayFromS2InAz := &v1.Affinity{
		PodAffinity: &v1.PodAffinity{
			PreferredDuringSchedulingIgnoredDuringExecution: []v1.WeightedPodAffinityTerm{
				{
					Weight: 8,
					PodAffinityTerm: v1.PodAffinityTerm{
						LabelSelector: &metav1.LabelSelector{
							MatchExpressions: []metav1.LabelSelectorRequirement{
								{
									Key:      "security",
									Operator: metav1.LabelSelectorOpIn,
									Values:   []string{"S1"},
								},
							},
						},
						TopologyKey: "region",
					},
				},
			},
		},
		PodAntiAffinity: &v1.PodAntiAffinity{
			PreferredDuringSchedulingIgnoredDuringExecution: []v1.WeightedPodAffinityTerm{
				{
					Weight: 5,
					PodAffinityTerm: v1.PodAffinityTerm{
						LabelSelector: &metav1.LabelSelector{
							MatchExpressions: []metav1.LabelSelectorRequirement{
								{
									Key:      "security",
									Operator: metav1.LabelSelectorOpIn,
									Values:   []string{"S2"},
								},
							},
						},
						TopologyKey: "az",
					},
				},
			},
		},
	}

	affinityNamespaceSelector := &v1.Affinity{
		PodAffinity: &v1.PodAffinity{
			PreferredDuringSchedulingIgnoredDuringExecution: []v1.WeightedPodAffinityTerm{
				{
					Weight: 5,
					PodAffinityTerm: v1.PodAffinityTerm{
						LabelSelector: &metav1.LabelSelector{
							MatchExpressions: []metav1.LabelSelectorRequirement{
								{
									Key:      "security",
									Operator: metav1.LabelSelectorOpIn,
									Values:   []string{"S1"},
								},
							},
						},
						TopologyKey: "region",
						Namespaces:  []string{"subteam2.team2"},
						NamespaceSelector: &metav1.LabelSelector{
							MatchExpressions: []metav1.LabelSelectorRequirement{
								{
									Key:      "team",
									Operator: metav1.LabelSelectorOpIn,
									Values:   []string{"team1"},
								},
							},
						},
					},
				},
			},
		},
	}
	antiAffinityNamespaceSelector := &v1.Affinity{
		PodAntiAffinity: &v1.PodAntiAffinity{
			PreferredDuringSchedulingIgnoredDuringExecution: []v1.WeightedPodAffinityTerm{
				{
					Weight: 5,
					PodAffinityTerm: v1.PodAffinityTerm{
						LabelSelector: &metav1.LabelSelector{
							MatchExpressions: []metav1.LabelSelectorRequirement{
								{
									Key:      "security",
									Operator: metav1.LabelSelectorOpIn,
									Values:   []string{"S1"},
								},
							},
						},
						TopologyKey: "region",
						Namespaces:  []string{"subteam2.team2"},
						NamespaceSelector: &metav1.LabelSelector{
							MatchExpressions: []metav1.LabelSelectorRequirement{
								{
									Key:      "team",
									Operator: metav1.LabelSelectorOpIn,
									Values:   []string{"team1"},
								},
							},
						},
					},
				},
			},
		},
	}
	affinityNegativeNamespaceSelector := &v1.Affinity{
		PodAffinity: &v1.PodAffinity{
			PreferredDuringSchedulingIgnoredDuringExecution: []v1.WeightedPodAffinityTerm{
				{
					Weight: 5,
					PodAffinityTerm: v1.PodAffinityTerm{
						LabelSelector: &metav1.LabelSelector{
							MatchExpressions: []metav1.LabelSelectorRequirement{
								{
									Key:      "security",
									Operator: metav1.LabelSelectorOpIn,
									Values:   []string{"S1"},
								},
							},
						},
						TopologyKey: "region",
						NamespaceSelector: &metav1.LabelSelector{
							MatchExpressions: []metav1.LabelSelectorRequirement{
								{
									Key:      "team",
									Operator: metav1.LabelSelectorOpNotIn,
									Values:   []string{"team1"},
								},
							},
						},
					},
				},
			},
		},
	}
	antiAffinityNegativeNamespaceSelector := &v1.Affinity{
		PodAntiAffinity: &v1.PodAntiAffinity{
			PreferredDuringSchedulingIgnoredDuringExecution: []v1.WeightedPodAffinityTerm{
				{
					Weight: 5,
					PodAffinityTerm: v1.PodAffinityTerm{
						LabelSelector: &metav1.LabelSelector{
							MatchExpressions: []metav1.LabelSelectorRequirement{
								{
									Key:      "security",
									Operator: metav1.LabelSelectorOpIn,
									Values:   []string{"S1"},
								},
							},
						},
						TopologyKey: "region",
						NamespaceSelector: &metav1.LabelSelector{
							MatchExpressions: []metav1.LabelSelectorRequirement{
								{
									Key:      "team",
									Operator: metav1.LabelSelectorOpNotIn,
									Values:   []string{"team1"},
								},
							},
						},
					},
				},
			},
		},
	}
	invalidAffinityLabels := &v1.Affinity{
		PodAffinity: &v1.PodAffinity{
			PreferredDuringSchedulingIgnoredDuringExecution: []v1.WeightedPodAffinityTerm{
				{
					Weight: 8,
					PodAffinityTerm: v1.PodAffinityTerm{
						LabelSelector: &metav1.LabelSelector{
							MatchExpressions: []metav1.LabelSelectorRequirement{
								{
									Key:      "security",
									Operator: metav1.LabelSelectorOpIn,
									Values:   []string{"{{.bad-value.}}"},
								},
							},
						},
						TopologyKey: "region",
					},
				},
			},
		},
	}
	invalidAntiAffinityLabels := &v1.Affinity{
		PodAntiAffinity: &v1.PodAntiAffinity{
			PreferredDuringSchedulingIgnoredDuringExecution: []v1.WeightedPodAffinityTerm{
				{
					Weight: 5,
					PodAffinityTerm: v1.PodAffinityTerm{
						LabelSelector: &metav1.LabelSelector{
							MatchExpressions: []metav1.LabelSelectorRequirement{
								{
									Key:      "security",
									Operator: metav1.LabelSelectorOpIn,
									Values:   []string{"{{.bad-value.}}"},
								},
							},
						},
						TopologyKey: "az",
					},
				},
			},
		},
	}

	tests := []struct {
		pod                                *v1.Pod
		pods                               []*v1.Pod
		nodes                              []*v1.Node
		expectedList                       []cyNodeScore
		name                               string
		ignorePreferredTermsOfExistingPods bool
		wantStatus                         cyStatus
	}{
		{
			name: "TestPreferredAffinity/all nodes are same priority as Affinity is nil",
			pod:  &v1.Pod{Spec: v1.PodSpec{NodeName: ""}, ObjectMeta: metav1.ObjectMeta{Labels: podLabelSecurityS1}},
			nodes: []*v1.Node{
				{ObjectMeta: metav1.ObjectMeta{Name: "node1", Labels: labelRgChina}},
				{ObjectMeta: metav1.ObjectMeta{Name: "node2", Labels: labelRgIndia}},
				{ObjectMeta: metav1.ObjectMeta{Name: "node3", Labels: labelAzAz1}},
			},
			wantStatus: cySkip,
		},
		// the node(node1) that have the label {"region": "China"} (match the topology key) and that have existing pods that match the labelSelector get high score
		// the node(node3) that don't have the label {"region": "whatever the value is"} (mismatch the topology key) but that have existing pods that match the labelSelector get low score
		// the node(node2) that have the label {"region": "China"} (match the topology key) but that have existing pods that mismatch the labelSelector get low score
		{
			name: "TestPreferredAffinity/Affinity: pod that matches topology key & pods in nodes will get high score comparing to others" +
				"which doesn't match either pods in nodes or in topology key",
			pod: &v1.Pod{Spec: v1.PodSpec{NodeName: "", Affinity: stayWithS1InRegion}, ObjectMeta: metav1.ObjectMeta{Labels: podLabelSecurityS1}},
			pods: []*v1.Pod{
				{Spec: v1.PodSpec{NodeName: "node1"}, ObjectMeta: metav1.ObjectMeta{Labels: podLabelSecurityS1}},
				{Spec: v1.PodSpec{NodeName: "node2"}, ObjectMeta: metav1.ObjectMeta{Labels: podLabelSecurityS2}},
				{Spec: v1.PodSpec{NodeName: "node3"}, ObjectMeta: metav1.ObjectMeta{Labels: podLabelSecurityS1}},
			},
			nodes: []*v1.Node{
				{ObjectMeta: metav1.ObjectMeta{Name: "node1", Labels: labelRgChina}},
				{ObjectMeta: metav1.ObjectMeta{Name: "node2", Labels: labelRgIndia}},
				{ObjectMeta: metav1.ObjectMeta{Name: "node3", Labels: labelAzAz1}},
			},
			expectedList: []cyNodeScore{{Name: "node1", Score: cyMaxNodeScore}, {Name: "node2", Score: 0}, {Name: "node3", Score: 0}},
		},
		// the node1(node1) that have the label {"region": "China"} (match the topology key) and that have existing pods that match the labelSelector get high score
		// the node2(node2) that have the label {"region": "China"}, match the topology key and have the same label value with node1, get the same high score with node1
		// the node3(node3) that have the label {"region": "India"}, match the topology key but have a different label value, don't have existing pods that match the labelSelector,
		// get a low score.
		{
			name: "TestPreferredAffinity/All the nodes that have the same topology key & label value with one of them has an existing pod that match the affinity rules, have the same score",
			pod:  &v1.Pod{Spec: v1.PodSpec{NodeName: "", Affinity: stayWithS1InRegion}},
			pods: []*v1.Pod{
				{Spec: v1.PodSpec{NodeName: "node1"}, ObjectMeta: metav1.ObjectMeta{Labels: podLabelSecurityS1}},
			},
			nodes: []*v1.Node{
				{ObjectMeta: metav1.ObjectMeta{Name: "node1", Labels: labelRgChina}},
				{ObjectMeta: metav1.ObjectMeta{Name: "node2", Labels: labelRgChinaAzAz1}},
				{ObjectMeta: metav1.ObjectMeta{Name: "node3", Labels: labelRgIndia}},
			},
			expectedList: []cyNodeScore{{Name: "node1", Score: cyMaxNodeScore}, {Name: "node2", Score: cyMaxNodeScore}, {Name: "node3", Score: 0}},
		},
		// there are 2 regions, say regionChina(node1,node3,node4) and regionIndia(node2,node5), both regions have nodes that match the preference.
		// But there are more nodes(actually more existing pods) in regionChina that match the preference than regionIndia.
		// Then, nodes in regionChina get higher score than nodes in regionIndia, and all the nodes in regionChina should get a same score(high score),
		// while all the nodes in regionIndia should get another same score(low score).
		{
			name: "TestPreferredAffinity/Affinity: nodes in one region has more matching pods comparing to other region, so the region which has more matches will get high score",
			pod:  &v1.Pod{Spec: v1.PodSpec{NodeName: "", Affinity: stayWithS2InRegion}, ObjectMeta: metav1.ObjectMeta{Labels: podLabelSecurityS1}},
			pods: []*v1.Pod{
				{Spec: v1.PodSpec{NodeName: "node1"}, ObjectMeta: metav1.ObjectMeta{Labels: podLabelSecurityS2}},
				{Spec: v1.PodSpec{NodeName: "node1"}, ObjectMeta: metav1.ObjectMeta{Labels: podLabelSecurityS2}},
				{Spec: v1.PodSpec{NodeName: "node2"}, ObjectMeta: metav1.ObjectMeta{Labels: podLabelSecurityS2}},
				{Spec: v1.PodSpec{NodeName: "node3"}, ObjectMeta: metav1.ObjectMeta{Labels: podLabelSecurityS2}},
				{Spec: v1.PodSpec{NodeName: "node4"}, ObjectMeta: metav1.ObjectMeta{Labels: podLabelSecurityS2}},
				{Spec: v1.PodSpec{NodeName: "node5"}, ObjectMeta: metav1.ObjectMeta{Labels: podLabelSecurityS2}},
			},
			nodes: []*v1.Node{
				{ObjectMeta: metav1.ObjectMeta{Name: "node1", Labels: labelRgChina}},
				{ObjectMeta: metav1.ObjectMeta{Name: "node2", Labels: labelRgIndia}},
				{ObjectMeta: metav1.ObjectMeta{Name: "node3", Labels: labelRgChina}},
				{ObjectMeta: metav1.ObjectMeta{Name: "node4", Labels: labelRgChina}},
				{ObjectMeta: metav1.ObjectMeta{Name: "node5", Labels: labelRgIndia}},
			},
			expectedList: []cyNodeScore{{Name: "node1", Score: cyMaxNodeScore}, {Name: "node2", Score: 0}, {Name: "node3", Score: cyMaxNodeScore}, {Name: "node4", Score: cyMaxNodeScore}, {Name: "node5", Score: 0}},
		},
		// Test with the different operators and values for pod affinity scheduling preference, including some match failures.
		{
			name: "TestPreferredAffinity/Affinity: different Label operators and values for pod affinity scheduling preference, including some match failures ",
			pod:  &v1.Pod{Spec: v1.PodSpec{NodeName: "", Affinity: affinity3}, ObjectMeta: metav1.ObjectMeta{Labels: podLabelSecurityS1}},
			pods: []*v1.Pod{
				{Spec: v1.PodSpec{NodeName: "node1"}, ObjectMeta: metav1.ObjectMeta{Labels: podLabelSecurityS1}},
				{Spec: v1.PodSpec{NodeName: "node2"}, ObjectMeta: metav1.ObjectMeta{Labels: podLabelSecurityS2}},
				{Spec: v1.PodSpec{NodeName: "node3"}, ObjectMeta: metav1.ObjectMeta{Labels: podLabelSecurityS1}},
			},
			nodes: []*v1.Node{
				{ObjectMeta: metav1.ObjectMeta{Name: "node1", Labels: labelRgChina}},
				{ObjectMeta: metav1.ObjectMeta{Name: "node2", Labels: labelRgIndia}},
				{ObjectMeta: metav1.ObjectMeta{Name: "node3", Labels: labelAzAz1}},
			},
			expectedList: []cyNodeScore{{Name: "node1", Score: 20}, {Name: "node2", Score: cyMaxNodeScore}, {Name: "node3", Score: 0}},
		},
		// Test the symmetry cases for affinity, the difference between affinity and symmetry is not the pod wants to run together with some existing pods,
		// but the existing pods have the inter pod affinity preference while the pod to schedule satisfy the preference.
		{
			name: "TestPreferredAffinity/Affinity symmetry: considered only the preferredDuringSchedulingIgnoredDuringExecution in pod affinity symmetry",
			pod:  &v1.Pod{Spec: v1.PodSpec{NodeName: ""}, ObjectMeta: metav1.ObjectMeta{Labels: podLabelSecurityS2}},
			pods: []*v1.Pod{
				{Spec: v1.PodSpec{NodeName: "node1", Affinity: stayWithS1InRegion}, ObjectMeta: metav1.ObjectMeta{Labels: podLabelSecurityS1}},
				{Spec: v1.PodSpec{NodeName: "node2", Affinity: stayWithS2InRegion}, ObjectMeta: metav1.ObjectMeta{Labels: podLabelSecurityS2}},
			},
			nodes: []*v1.Node{
				{ObjectMeta: metav1.ObjectMeta{Name: "node1", Labels: labelRgChina}},
				{ObjectMeta: metav1.ObjectMeta{Name: "node2", Labels: labelRgIndia}},
				{ObjectMeta: metav1.ObjectMeta{Name: "node3", Labels: labelAzAz1}},
			},
			expectedList: []cyNodeScore{{Name: "node1", Score: 0}, {Name: "node2", Score: cyMaxNodeScore}, {Name: "node3", Score: 0}},
		},
		{
			name: "TestPreferredAffinity/Affinity symmetry with namespace selector",
			pod:  &v1.Pod{Spec: v1.PodSpec{NodeName: ""}, ObjectMeta: metav1.ObjectMeta{Namespace: "subteam1.team1", Labels: podLabelSecurityS1}},
			pods: []*v1.Pod{
				{Spec: v1.PodSpec{NodeName: "node1", Affinity: affinityNamespaceSelector}, ObjectMeta: metav1.ObjectMeta{Labels: podLabelSecurityS1}},
				{Spec: v1.PodSpec{NodeName: "node2", Affinity: stayWithS2InRegion}, ObjectMeta: metav1.ObjectMeta{Labels: podLabelSecurityS2}},
			},
			nodes: []*v1.Node{
				{ObjectMeta: metav1.ObjectMeta{Name: "node1", Labels: labelRgChina}},
				{ObjectMeta: metav1.ObjectMeta{Name: "node2", Labels: labelRgIndia}},
				{ObjectMeta: metav1.ObjectMeta{Name: "node3", Labels: labelAzAz1}},
			},
			expectedList: []cyNodeScore{{Name: "node1", Score: cyMaxNodeScore}, {Name: "node2", Score: 0}, {Name: "node3", Score: 0}},
		},
		{
			name: "TestPreferredAffinity/AntiAffinity symmetry with namespace selector",
			pod:  &v1.Pod{Spec: v1.PodSpec{NodeName: ""}, ObjectMeta: metav1.ObjectMeta{Namespace: "subteam1.team1", Labels: podLabelSecurityS1}},
			pods: []*v1.Pod{
				{Spec: v1.PodSpec{NodeName: "node1", Affinity: antiAffinityNamespaceSelector}, ObjectMeta: metav1.ObjectMeta{Labels: podLabelSecurityS1}},
				{Spec: v1.PodSpec{NodeName: "node2", Affinity: stayWithS2InRegion}, ObjectMeta: metav1.ObjectMeta{Labels: podLabelSecurityS2}},
			},
			nodes: []*v1.Node{
				{ObjectMeta: metav1.ObjectMeta{Name: "node1", Labels: labelRgChina}},
				{ObjectMeta: metav1.ObjectMeta{Name: "node2", Labels: labelRgIndia}},
				{ObjectMeta: metav1.ObjectMeta{Name: "node3", Labels: labelAzAz1}},
			},
			expectedList: []cyNodeScore{{Name: "node1", Score: 0}, {Name: "node2", Score: cyMaxNodeScore}, {Name: "node3", Score: cyMaxNodeScore}},
		},
		{
			name: "TestPreferredAffinity/Affinity symmetry: considered RequiredDuringSchedulingIgnoredDuringExecution in pod affinity symmetry",
			pod:  &v1.Pod{Spec: v1.PodSpec{NodeName: ""}, ObjectMeta: metav1.ObjectMeta{Labels: podLabelSecurityS1}},
			pods: []*v1.Pod{
				{Spec: v1.PodSpec{NodeName: "node1", Affinity: hardAffinity}, ObjectMeta: metav1.ObjectMeta{Labels: podLabelSecurityS1}},
				{Spec: v1.PodSpec{NodeName: "node2", Affinity: hardAffinity}, ObjectMeta: metav1.ObjectMeta{Labels: podLabelSecurityS2}},
			},
			nodes: []*v1.Node{
				{ObjectMeta: metav1.ObjectMeta{Name: "node1", Labels: labelRgChina}},
				{ObjectMeta: metav1.ObjectMeta{Name: "node2", Labels: labelRgIndia}},
				{ObjectMeta: metav1.ObjectMeta{Name: "node3", Labels: labelAzAz1}},
			},
			expectedList: []cyNodeScore{{Name: "node1", Score: cyMaxNodeScore}, {Name: "node2", Score: cyMaxNodeScore}, {Name: "node3", Score: 0}},
		},

		// The pod to schedule prefer to stay away from some existing pods at node level using the pod anti affinity.
		// the nodes that have the label {"node": "bar"} (match the topology key) and that have existing pods that match the labelSelector get low score
		// the nodes that don't have the label {"node": "whatever the value is"} (mismatch the topology key) but that have existing pods that match the labelSelector get high score
		// the nodes that have the label {"node": "bar"} (match the topology key) but that have existing pods that mismatch the labelSelector get high score
		// there are 2 nodes, say node1 and node2, both nodes have pods that match the labelSelector and have topology-key in node.Labels.
		// But there are more pods on node1 that match the preference than node2. Then, node1 get a lower score than node2.
		{
			name: "TestPreferredAffinity/Anti Affinity: pod that does not match existing pods in node will get high score ",
			pod:  &v1.Pod{Spec: v1.PodSpec{NodeName: "", Affinity: awayFromS1InAz}, ObjectMeta: metav1.ObjectMeta{Labels: podLabelSecurityS1}},
			pods: []*v1.Pod{
				{Spec: v1.PodSpec{NodeName: "node1"}, ObjectMeta: metav1.ObjectMeta{Labels: podLabelSecurityS1}},
				{Spec: v1.PodSpec{NodeName: "node2"}, ObjectMeta: metav1.ObjectMeta{Labels: podLabelSecurityS2}},
			},
			nodes: []*v1.Node{
				{ObjectMeta: metav1.ObjectMeta{Name: "node1", Labels: labelAzAz1}},
				{ObjectMeta: metav1.ObjectMeta{Name: "node2", Labels: labelRgChina}},
			},
			expectedList: []cyNodeScore{{Name: "node1", Score: 0}, {Name: "node2", Score: cyMaxNodeScore}},
		},
		{
			name: "TestPreferredAffinity/Anti Affinity: pod that does not match topology key & match the pods in nodes will get higher score comparing to others ",
			pod:  &v1.Pod{Spec: v1.PodSpec{NodeName: "", Affinity: awayFromS1InAz}, ObjectMeta: metav1.ObjectMeta{Labels: podLabelSecurityS1}},
			pods: []*v1.Pod{
				{Spec: v1.PodSpec{NodeName: "node1"}, ObjectMeta: metav1.ObjectMeta{Labels: podLabelSecurityS1}},
				{Spec: v1.PodSpec{NodeName: "node2"}, ObjectMeta: metav1.ObjectMeta{Labels: podLabelSecurityS1}},
			},
			nodes: []*v1.Node{
				{ObjectMeta: metav1.ObjectMeta{Name: "node1", Labels: labelAzAz1}},
				{ObjectMeta: metav1.ObjectMeta{Name: "node2", Labels: labelRgChina}},
			},
			expectedList: []cyNodeScore{{Name: "node1", Score: 0}, {Name: "node2", Score: cyMaxNodeScore}},
		},
		{
			name: "TestPreferredAffinity/Anti Affinity: one node has more matching pods comparing to other node, so the node which has more unmatches will get high score",
			pod:  &v1.Pod{Spec: v1.PodSpec{NodeName: "", Affinity: awayFromS1InAz}, ObjectMeta: metav1.ObjectMeta{Labels: podLabelSecurityS1}},
			pods: []*v1.Pod{
				{Spec: v1.PodSpec{NodeName: "node1"}, ObjectMeta: metav1.ObjectMeta{Labels: podLabelSecurityS1}},
				{Spec: v1.PodSpec{NodeName: "node1"}, ObjectMeta: metav1.ObjectMeta{Labels: podLabelSecurityS1}},
				{Spec: v1.PodSpec{NodeName: "node2"}, ObjectMeta: metav1.ObjectMeta{Labels: podLabelSecurityS2}},
			},
			nodes: []*v1.Node{
				{ObjectMeta: metav1.ObjectMeta{Name: "node1", Labels: labelAzAz1}},
				{ObjectMeta: metav1.ObjectMeta{Name: "node2", Labels: labelRgIndia}},
			},
			expectedList: []cyNodeScore{{Name: "node1", Score: 0}, {Name: "node2", Score: cyMaxNodeScore}},
		},
		// Test the symmetry cases for anti affinity
		{
			name: "TestPreferredAffinity/Anti Affinity symmetry: the existing pods in node which has anti affinity match will get high score",
			pod:  &v1.Pod{Spec: v1.PodSpec{NodeName: ""}, ObjectMeta: metav1.ObjectMeta{Labels: podLabelSecurityS2}},
			pods: []*v1.Pod{
				{Spec: v1.PodSpec{NodeName: "node1", Affinity: awayFromS2InAz}, ObjectMeta: metav1.ObjectMeta{Labels: podLabelSecurityS1}},
				{Spec: v1.PodSpec{NodeName: "node2", Affinity: awayFromS1InAz}, ObjectMeta: metav1.ObjectMeta{Labels: podLabelSecurityS2}},
			},
			nodes: []*v1.Node{
				{ObjectMeta: metav1.ObjectMeta{Name: "node1", Labels: labelAzAz1}},
				{ObjectMeta: metav1.ObjectMeta{Name: "node2", Labels: labelAzAz2}},
			},
			expectedList: []cyNodeScore{{Name: "node1", Score: 0}, {Name: "node2", Score: cyMaxNodeScore}},
		},
		// Test both  affinity and anti-affinity
		{
			name: "TestPreferredAffinity/Affinity and Anti Affinity: considered only preferredDuringSchedulingIgnoredDuringExecution in both pod affinity & anti affinity",
			pod:  &v1.Pod{Spec: v1.PodSpec{NodeName: "", Affinity: stayWithS1InRegionAwayFromS2InAz}, ObjectMeta: metav1.ObjectMeta{Labels: podLabelSecurityS1}},
			pods: []*v1.Pod{
				{Spec: v1.PodSpec{NodeName: "node1"}, ObjectMeta: metav1.ObjectMeta{Labels: podLabelSecurityS1}},
				{Spec: v1.PodSpec{NodeName: "node2"}, ObjectMeta: metav1.ObjectMeta{Labels: podLabelSecurityS1}},
			},
			nodes: []*v1.Node{
				{ObjectMeta: metav1.ObjectMeta{Name: "node1", Labels: labelRgChina}},
				{ObjectMeta: metav1.ObjectMeta{Name: "node2", Labels: labelAzAz1}},
			},
			expectedList: []cyNodeScore{{Name: "node1", Score: cyMaxNodeScore}, {Name: "node2", Score: 0}},
		},
		// Combined cases considering both affinity and anti-affinity, the pod to schedule and existing pods have the same labels (they are in the same RC/service),
		// the pod prefer to run together with its brother pods in the same region, but wants to stay away from them at node level,
		// so that all the pods of a RC/service can stay in a same region but trying to separate with each other
		// node-1,node-3,node-4 are in ChinaRegion others node-2,node-5 are in IndiaRegion
		{
			name: "TestPreferredAffinity/Affinity and Anti Affinity: considering both affinity and anti-affinity, the pod to schedule and existing pods have the same labels",
			pod:  &v1.Pod{Spec: v1.PodSpec{NodeName: "", Affinity: stayWithS1InRegionAwayFromS2InAz}, ObjectMeta: metav1.ObjectMeta{Labels: podLabelSecurityS1}},
			pods: []*v1.Pod{
				{Spec: v1.PodSpec{NodeName: "node1"}, ObjectMeta: metav1.ObjectMeta{Labels: podLabelSecurityS1}},
				{Spec: v1.PodSpec{NodeName: "node1"}, ObjectMeta: metav1.ObjectMeta{Labels: podLabelSecurityS1}},
				{Spec: v1.PodSpec{NodeName: "node2"}, ObjectMeta: metav1.ObjectMeta{Labels: podLabelSecurityS1}},
				{Spec: v1.PodSpec{NodeName: "node3"}, ObjectMeta: metav1.ObjectMeta{Labels: podLabelSecurityS1}},
				{Spec: v1.PodSpec{NodeName: "node3"}, ObjectMeta: metav1.ObjectMeta{Labels: podLabelSecurityS1}},
				{Spec: v1.PodSpec{NodeName: "node4"}, ObjectMeta: metav1.ObjectMeta{Labels: podLabelSecurityS1}},
				{Spec: v1.PodSpec{NodeName: "node5"}, ObjectMeta: metav1.ObjectMeta{Labels: podLabelSecurityS1}},
			},
			nodes: []*v1.Node{
				{ObjectMeta: metav1.ObjectMeta{Name: "node1", Labels: labelRgChinaAzAz1}},
				{ObjectMeta: metav1.ObjectMeta{Name: "node2", Labels: labelRgIndia}},
				{ObjectMeta: metav1.ObjectMeta{Name: "node3", Labels: labelRgChina}},
				{ObjectMeta: metav1.ObjectMeta{Name: "node4", Labels: labelRgChina}},
				{ObjectMeta: metav1.ObjectMeta{Name: "node5", Labels: labelRgIndia}},
			},
			expectedList: []cyNodeScore{{Name: "node1", Score: cyMaxNodeScore}, {Name: "node2", Score: 0}, {Name: "node3", Score: cyMaxNodeScore}, {Name: "node4", Score: cyMaxNodeScore}, {Name: "node5", Score: 0}},
		},
		// Consider Affinity, Anti Affinity and symmetry together.
		// for Affinity, the weights are:                8,  0,  0,  0
		// for Anti Affinity, the weights are:           0, -5,  0,  0
		// for Affinity symmetry, the weights are:       0,  0,  8,  0
		// for Anti Affinity symmetry, the weights are:  0,  0,  0, -5
		{
			name: "TestPreferredAffinity/Affinity and Anti Affinity and symmetry: considered only preferredDuringSchedulingIgnoredDuringExecution in both pod affinity & anti affinity & symmetry",
			pod:  &v1.Pod{Spec: v1.PodSpec{NodeName: "", Affinity: stayWithS1InRegionAwayFromS2InAz}, ObjectMeta: metav1.ObjectMeta{Labels: podLabelSecurityS1}},
			pods: []*v1.Pod{
				{Spec: v1.PodSpec{NodeName: "node1"}, ObjectMeta: metav1.ObjectMeta{Labels: podLabelSecurityS1}},
				{Spec: v1.PodSpec{NodeName: "node2"}, ObjectMeta: metav1.ObjectMeta{Labels: podLabelSecurityS2}},
				{Spec: v1.PodSpec{NodeName: "node3", Affinity: stayWithS1InRegionAwayFromS2InAz}},
				{Spec: v1.PodSpec{NodeName: "node4", Affinity: awayFromS1InAz}},
			},
			nodes: []*v1.Node{
				{ObjectMeta: metav1.ObjectMeta{Name: "node1", Labels: labelRgChina}},
				{ObjectMeta: metav1.ObjectMeta{Name: "node2", Labels: labelAzAz1}},
				{ObjectMeta: metav1.ObjectMeta{Name: "node3", Labels: labelRgIndia}},
				{ObjectMeta: metav1.ObjectMeta{Name: "node4", Labels: labelAzAz2}},
			},
			expectedList: []cyNodeScore{{Name: "node1", Score: cyMaxNodeScore}, {Name: "node2", Score: 0}, {Name: "node3", Score: cyMaxNodeScore}, {Name: "node4", Score: 0}},
		},
		// Cover https://github.com/kubernetes/kubernetes/issues/82796 which panics upon:
		// 1. Some nodes in a topology don't have pods with affinity, but other nodes in the same topology have.
		// 2. The incoming pod doesn't have affinity.
		{
			name: "TestPreferredAffinity/Avoid panic when partial nodes in a topology don't have pods with affinity",
			pod:  &v1.Pod{Spec: v1.PodSpec{NodeName: ""}, ObjectMeta: metav1.ObjectMeta{Labels: podLabelSecurityS1}},
			pods: []*v1.Pod{
				{Spec: v1.PodSpec{NodeName: "node1"}, ObjectMeta: metav1.ObjectMeta{Labels: podLabelSecurityS1}},
				{Spec: v1.PodSpec{NodeName: "node2", Affinity: stayWithS1InRegionAwayFromS2InAz}},
			},
			nodes: []*v1.Node{
				{ObjectMeta: metav1.ObjectMeta{Name: "node1", Labels: labelRgChina}},
				{ObjectMeta: metav1.ObjectMeta{Name: "node2", Labels: labelRgChina}},
			},
			expectedList: []cyNodeScore{{Name: "node1", Score: 0}, {Name: "node2", Score: 0}},
		},
		{
			name:       "TestPreferredAffinity/invalid Affinity fails PreScore",
			pod:        &v1.Pod{Spec: v1.PodSpec{NodeName: "", Affinity: invalidAffinityLabels}},
			wantStatus: cyError,
			nodes: []*v1.Node{
				{ObjectMeta: metav1.ObjectMeta{Name: "node1", Labels: labelRgChina}},
				{ObjectMeta: metav1.ObjectMeta{Name: "node2", Labels: labelRgChina}},
			},
		},
		{
			name:       "TestPreferredAffinity/invalid AntiAffinity fails PreScore",
			pod:        &v1.Pod{Spec: v1.PodSpec{NodeName: "", Affinity: invalidAntiAffinityLabels}},
			wantStatus: cyError,
			nodes: []*v1.Node{
				{ObjectMeta: metav1.ObjectMeta{Name: "node1", Labels: labelRgChina}},
				{ObjectMeta: metav1.ObjectMeta{Name: "node2", Labels: labelRgChina}},
			},
		},
		{
			name: "TestPreferredAffinity/Affinity with pods matching NamespaceSelector",
			pod:  &v1.Pod{Spec: v1.PodSpec{Affinity: affinityNamespaceSelector}, ObjectMeta: metav1.ObjectMeta{Namespace: "subteam1.team1", Labels: podLabelSecurityS1}},
			pods: []*v1.Pod{
				{Spec: v1.PodSpec{NodeName: "node1"}, ObjectMeta: metav1.ObjectMeta{Namespace: "subteam1.team1", Labels: podLabelSecurityS1}},
				{Spec: v1.PodSpec{NodeName: "node1"}, ObjectMeta: metav1.ObjectMeta{Namespace: "subteam1.team1", Labels: podLabelSecurityS1}},
				{Spec: v1.PodSpec{NodeName: "node1"}, ObjectMeta: metav1.ObjectMeta{Namespace: "subteam1.team2", Labels: podLabelSecurityS1}},
				{Spec: v1.PodSpec{NodeName: "node2"}, ObjectMeta: metav1.ObjectMeta{Namespace: "subteam2.team1", Labels: podLabelSecurityS1}},
			},
			nodes: []*v1.Node{
				{ObjectMeta: metav1.ObjectMeta{Name: "node1", Labels: labelRgChina}},
				{ObjectMeta: metav1.ObjectMeta{Name: "node2", Labels: labelRgIndia}},
			},
			expectedList: []cyNodeScore{{Name: "node1", Score: cyMaxNodeScore}, {Name: "node2", Score: 0}},
		},
		{
			name: "TestPreferredAffinity/Affinity with pods matching both NamespaceSelector and Namespaces fields",
			pod:  &v1.Pod{Spec: v1.PodSpec{Affinity: affinityNamespaceSelector}, ObjectMeta: metav1.ObjectMeta{Namespace: "subteam1.team1", Labels: podLabelSecurityS1}},
			pods: []*v1.Pod{
				{Spec: v1.PodSpec{NodeName: "node1"}, ObjectMeta: metav1.ObjectMeta{Namespace: "subteam1.team1", Labels: podLabelSecurityS1}},
				{Spec: v1.PodSpec{NodeName: "node1"}, ObjectMeta: metav1.ObjectMeta{Namespace: "subteam1.team1", Labels: podLabelSecurityS1}},
				{Spec: v1.PodSpec{NodeName: "node1"}, ObjectMeta: metav1.ObjectMeta{Namespace: "subteam2.team2", Labels: podLabelSecurityS1}},
				{Spec: v1.PodSpec{NodeName: "node2"}, ObjectMeta: metav1.ObjectMeta{Namespace: "subteam2.team1", Labels: podLabelSecurityS1}},
			},
			nodes: []*v1.Node{
				{ObjectMeta: metav1.ObjectMeta{Name: "node1", Labels: labelRgChina}},
				{ObjectMeta: metav1.ObjectMeta{Name: "node2", Labels: labelRgIndia}},
			},
			expectedList: []cyNodeScore{{Name: "node1", Score: cyMaxNodeScore}, {Name: "node2", Score: 0}},
		},
		{
			name: "TestPreferredAffinity/Affinity with pods matching NamespaceSelector",
			pod:  &v1.Pod{Spec: v1.PodSpec{Affinity: antiAffinityNamespaceSelector}, ObjectMeta: metav1.ObjectMeta{Namespace: "subteam1.team1", Labels: podLabelSecurityS1}},
			pods: []*v1.Pod{
				{Spec: v1.PodSpec{NodeName: "node1"}, ObjectMeta: metav1.ObjectMeta{Namespace: "subteam1.team1", Labels: podLabelSecurityS1}},
				{Spec: v1.PodSpec{NodeName: "node1"}, ObjectMeta: metav1.ObjectMeta{Namespace: "subteam1.team1", Labels: podLabelSecurityS1}},
				{Spec: v1.PodSpec{NodeName: "node1"}, ObjectMeta: metav1.ObjectMeta{Namespace: "subteam1.team2", Labels: podLabelSecurityS1}},
				{Spec: v1.PodSpec{NodeName: "node2"}, ObjectMeta: metav1.ObjectMeta{Namespace: "subteam2.team1", Labels: podLabelSecurityS1}},
			},
			nodes: []*v1.Node{
				{ObjectMeta: metav1.ObjectMeta{Name: "node1", Labels: labelRgChina}},
				{ObjectMeta: metav1.ObjectMeta{Name: "node2", Labels: labelRgIndia}},
			},
			expectedList: []cyNodeScore{{Name: "node1", Score: 0}, {Name: "node2", Score: cyMaxNodeScore}},
		},
		{
			name: "TestPreferredAffinity/Affinity with pods matching both NamespaceSelector and Namespaces fields",
			pod:  &v1.Pod{Spec: v1.PodSpec{Affinity: antiAffinityNamespaceSelector}, ObjectMeta: metav1.ObjectMeta{Namespace: "subteam1.team1", Labels: podLabelSecurityS1}},
			pods: []*v1.Pod{
				{Spec: v1.PodSpec{NodeName: "node1"}, ObjectMeta: metav1.ObjectMeta{Namespace: "subteam1.team1", Labels: podLabelSecurityS1}},
				{Spec: v1.PodSpec{NodeName: "node1"}, ObjectMeta: metav1.ObjectMeta{Namespace: "subteam1.team1", Labels: podLabelSecurityS1}},
				{Spec: v1.PodSpec{NodeName: "node1"}, ObjectMeta: metav1.ObjectMeta{Namespace: "subteam2.team2", Labels: podLabelSecurityS1}},
				{Spec: v1.PodSpec{NodeName: "node2"}, ObjectMeta: metav1.ObjectMeta{Namespace: "subteam2.team1", Labels: podLabelSecurityS1}},
			},
			nodes: []*v1.Node{
				{ObjectMeta: metav1.ObjectMeta{Name: "node1", Labels: labelRgChina}},
				{ObjectMeta: metav1.ObjectMeta{Name: "node2", Labels: labelRgIndia}},
			},
			expectedList: []cyNodeScore{{Name: "node1", Score: 0}, {Name: "node2", Score: cyMaxNodeScore}},
		},
		{
			name: "TestPreferredAffinity/Affinity with pods correctly enforcing negative NamespaceSelector",
			pod:  &v1.Pod{Spec: v1.PodSpec{Affinity: affinityNegativeNamespaceSelector}, ObjectMeta: metav1.ObjectMeta{Namespace: "subteam1.team1", Labels: podLabelSecurityS1}},
			pods: []*v1.Pod{
				{Spec: v1.PodSpec{NodeName: "node1"}, ObjectMeta: metav1.ObjectMeta{Namespace: "subteam1.team1", Labels: podLabelSecurityS1}},
				{Spec: v1.PodSpec{NodeName: "node1"}, ObjectMeta: metav1.ObjectMeta{Namespace: "subteam1.team1", Labels: podLabelSecurityS1}},
				{Spec: v1.PodSpec{NodeName: "node2"}, ObjectMeta: metav1.ObjectMeta{Namespace: "subteam1.team2", Labels: podLabelSecurityS1}},
			},
			nodes: []*v1.Node{
				{ObjectMeta: metav1.ObjectMeta{Name: "node1", Labels: labelRgChina}},
				{ObjectMeta: metav1.ObjectMeta{Name: "node2", Labels: labelRgIndia}},
			},
			expectedList: []cyNodeScore{{Name: "node1", Score: 0}, {Name: "node2", Score: cyMaxNodeScore}},
		},
		{
			name: "TestPreferredAffinity/AntiAffinity with pods correctly enforcing negative NamespaceSelector",
			pod:  &v1.Pod{Spec: v1.PodSpec{Affinity: antiAffinityNegativeNamespaceSelector}, ObjectMeta: metav1.ObjectMeta{Namespace: "subteam1.team1", Labels: podLabelSecurityS1}},
			pods: []*v1.Pod{
				{Spec: v1.PodSpec{NodeName: "node1"}, ObjectMeta: metav1.ObjectMeta{Namespace: "subteam1.team1", Labels: podLabelSecurityS1}},
				{Spec: v1.PodSpec{NodeName: "node1"}, ObjectMeta: metav1.ObjectMeta{Namespace: "subteam1.team1", Labels: podLabelSecurityS1}},
				{Spec: v1.PodSpec{NodeName: "node2"}, ObjectMeta: metav1.ObjectMeta{Namespace: "subteam1.team2", Labels: podLabelSecurityS1}},
			},
			nodes: []*v1.Node{
				{ObjectMeta: metav1.ObjectMeta{Name: "node1", Labels: labelRgChina}},
				{ObjectMeta: metav1.ObjectMeta{Name: "node2", Labels: labelRgIndia}},
			},
			expectedList: []cyNodeScore{{Name: "node1", Score: cyMaxNodeScore}, {Name: "node2", Score: 0}},
		},
		{
			name: "TestPreferredAffinity/Ignore preferred terms of existing pods",
			pod:  &v1.Pod{Spec: v1.PodSpec{NodeName: ""}, ObjectMeta: metav1.ObjectMeta{Labels: podLabelSecurityS2}},
			pods: []*v1.Pod{
				{Spec: v1.PodSpec{NodeName: "node1", Affinity: stayWithS1InRegionAwayFromS2InAz}, ObjectMeta: metav1.ObjectMeta{Labels: podLabelSecurityS1}},
				{Spec: v1.PodSpec{NodeName: "node2", Affinity: stayWithS2InRegion}, ObjectMeta: metav1.ObjectMeta{Labels: podLabelSecurityS2}},
			},
			nodes: []*v1.Node{
				{ObjectMeta: metav1.ObjectMeta{Name: "node1", Labels: labelRgChina}},
				{ObjectMeta: metav1.ObjectMeta{Name: "node2", Labels: labelRgIndia}},
			},
			expectedList:                       []cyNodeScore{{Name: "node1", Score: 0}, {Name: "node2", Score: 0}},
			wantStatus:                         cySkip,
			ignorePreferredTermsOfExistingPods: true,
		},
		{
			name: "TestPreferredAffinity/Do not ignore preferred terms of existing pods",
			pod:  &v1.Pod{Spec: v1.PodSpec{NodeName: ""}, ObjectMeta: metav1.ObjectMeta{Labels: podLabelSecurityS2}},
			pods: []*v1.Pod{
				{Spec: v1.PodSpec{NodeName: "node1", Affinity: stayWithS1InRegionAwayFromS2InAz}, ObjectMeta: metav1.ObjectMeta{Labels: podLabelSecurityS1}},
				{Spec: v1.PodSpec{NodeName: "node2", Affinity: stayWithS2InRegion}, ObjectMeta: metav1.ObjectMeta{Labels: podLabelSecurityS2}},
			},
			nodes: []*v1.Node{
				{ObjectMeta: metav1.ObjectMeta{Name: "node1", Labels: labelRgChina}},
				{ObjectMeta: metav1.ObjectMeta{Name: "node2", Labels: labelRgIndia}},
			},
			expectedList:                       []cyNodeScore{{Name: "node1", Score: 0}, {Name: "node2", Score: cyMaxNodeScore}},
			ignorePreferredTermsOfExistingPods: false,
		},
		{
			name:       "TestPreferredAffinity/No nodes to score",
			pod:        &v1.Pod{Spec: v1.PodSpec{NodeName: ""}, ObjectMeta: metav1.ObjectMeta{Labels: podLabelSecurityS2}},
			pods:       []*v1.Pod{},
			nodes:      []*v1.Node{},
			wantStatus: cySkip,
		},
	}
	for _, test := range tests {
		t.Run(test.name, func(t *testing.T) {
			c := &Cycle{Nodes: test.nodes, Pods: test.pods, NamespaceLabels: cyScoringNamespaces}
			args := AffinityScoreArgs{HardPodAffinityWeight: 1, IgnorePreferredTermsOfExistingPods: test.ignorePreferredTermsOfExistingPods}
			cyCheckAffinityPreScore(t, c, test.pod, args, test.wantStatus, test.expectedList)
		})
	}
}

// TestCycleAffinityPreScoreHardWeight ports interpodaffinity's
// TestPreferredAffinityWithHardPodAffinitySymmetricWeight.
func TestCycleAffinityPreScoreHardWeight(t *testing.T) {
	podLabelServiceS1 := map[string]string{
		"service": "S1",
	}
	labelRgChina := map[string]string{
		"region": "China",
	}
	labelRgIndia := map[string]string{
		"region": "India",
	}
	labelAzAz1 := map[string]string{
		"az": "az1",
	}
	hardPodAffinity := &v1.Affinity{
		PodAffinity: &v1.PodAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{
				{
					LabelSelector: &metav1.LabelSelector{
						MatchExpressions: []metav1.LabelSelectorRequirement{
							{
								Key:      "service",
								Operator: metav1.LabelSelectorOpIn,
								Values:   []string{"S1"},
							},
						},
					},
					Namespaces: []string{"", "subteam2.team2"},
					NamespaceSelector: &metav1.LabelSelector{
						MatchExpressions: []metav1.LabelSelectorRequirement{
							{
								Key:      "team",
								Operator: metav1.LabelSelectorOpIn,
								Values:   []string{"team1"},
							},
						},
					},
					TopologyKey: "region",
				},
			},
		},
	}
	tests := []struct {
		pod                   *v1.Pod
		pods                  []*v1.Pod
		nodes                 []*v1.Node
		hardPodAffinityWeight int32
		expectedList          []cyNodeScore
		name                  string
		wantStatus            cyStatus
	}{
		{
			name: "TestPreferredAffinityWithHardPodAffinitySymmetricWeight/with default weight",
			pod:  &v1.Pod{ObjectMeta: metav1.ObjectMeta{Labels: podLabelServiceS1}},
			pods: []*v1.Pod{
				{Spec: v1.PodSpec{NodeName: "node1", Affinity: hardPodAffinity}},
				{Spec: v1.PodSpec{NodeName: "node2", Affinity: hardPodAffinity}},
			},
			nodes: []*v1.Node{
				{ObjectMeta: metav1.ObjectMeta{Name: "node1", Labels: labelRgChina}},
				{ObjectMeta: metav1.ObjectMeta{Name: "node2", Labels: labelRgIndia}},
				{ObjectMeta: metav1.ObjectMeta{Name: "node3", Labels: labelAzAz1}},
			},
			hardPodAffinityWeight: v1.DefaultHardPodAffinitySymmetricWeight,
			expectedList:          []cyNodeScore{{Name: "node1", Score: cyMaxNodeScore}, {Name: "node2", Score: cyMaxNodeScore}, {Name: "node3", Score: 0}},
		},
		{
			name: "TestPreferredAffinityWithHardPodAffinitySymmetricWeight/with zero weight",
			pod:  &v1.Pod{ObjectMeta: metav1.ObjectMeta{Labels: podLabelServiceS1}},
			pods: []*v1.Pod{
				{Spec: v1.PodSpec{NodeName: "node1", Affinity: hardPodAffinity}},
				{Spec: v1.PodSpec{NodeName: "node2", Affinity: hardPodAffinity}},
			},
			nodes: []*v1.Node{
				{ObjectMeta: metav1.ObjectMeta{Name: "node1", Labels: labelRgChina}},
				{ObjectMeta: metav1.ObjectMeta{Name: "node2", Labels: labelRgIndia}},
				{ObjectMeta: metav1.ObjectMeta{Name: "node3", Labels: labelAzAz1}},
			},
			hardPodAffinityWeight: 0,
			wantStatus:            cySkip,
		},
		{
			name: "TestPreferredAffinityWithHardPodAffinitySymmetricWeight/with no matching namespace",
			pod:  &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "subteam1.team2", Labels: podLabelServiceS1}},
			pods: []*v1.Pod{
				{Spec: v1.PodSpec{NodeName: "node1", Affinity: hardPodAffinity}},
				{Spec: v1.PodSpec{NodeName: "node2", Affinity: hardPodAffinity}},
			},
			nodes: []*v1.Node{
				{ObjectMeta: metav1.ObjectMeta{Name: "node1", Labels: labelRgChina}},
				{ObjectMeta: metav1.ObjectMeta{Name: "node2", Labels: labelRgIndia}},
				{ObjectMeta: metav1.ObjectMeta{Name: "node3", Labels: labelAzAz1}},
			},
			hardPodAffinityWeight: v1.DefaultHardPodAffinitySymmetricWeight,
			wantStatus:            cySkip,
		},
		{
			name: "TestPreferredAffinityWithHardPodAffinitySymmetricWeight/with matching NamespaceSelector",
			pod:  &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "subteam1.team1", Labels: podLabelServiceS1}},
			pods: []*v1.Pod{
				{Spec: v1.PodSpec{NodeName: "node1", Affinity: hardPodAffinity}},
				{Spec: v1.PodSpec{NodeName: "node2", Affinity: hardPodAffinity}},
			},
			nodes: []*v1.Node{
				{ObjectMeta: metav1.ObjectMeta{Name: "node1", Labels: labelRgChina}},
				{ObjectMeta: metav1.ObjectMeta{Name: "node2", Labels: labelRgIndia}},
				{ObjectMeta: metav1.ObjectMeta{Name: "node3", Labels: labelAzAz1}},
			},
			hardPodAffinityWeight: v1.DefaultHardPodAffinitySymmetricWeight,
			expectedList:          []cyNodeScore{{Name: "node1", Score: cyMaxNodeScore}, {Name: "node2", Score: cyMaxNodeScore}, {Name: "node3", Score: 0}},
		},
		{
			name: "TestPreferredAffinityWithHardPodAffinitySymmetricWeight/with matching Namespaces",
			pod:  &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "subteam2.team2", Labels: podLabelServiceS1}},
			pods: []*v1.Pod{
				{Spec: v1.PodSpec{NodeName: "node1", Affinity: hardPodAffinity}},
				{Spec: v1.PodSpec{NodeName: "node2", Affinity: hardPodAffinity}},
			},
			nodes: []*v1.Node{
				{ObjectMeta: metav1.ObjectMeta{Name: "node1", Labels: labelRgChina}},
				{ObjectMeta: metav1.ObjectMeta{Name: "node2", Labels: labelRgIndia}},
				{ObjectMeta: metav1.ObjectMeta{Name: "node3", Labels: labelAzAz1}},
			},
			hardPodAffinityWeight: v1.DefaultHardPodAffinitySymmetricWeight,
			expectedList:          []cyNodeScore{{Name: "node1", Score: cyMaxNodeScore}, {Name: "node2", Score: cyMaxNodeScore}, {Name: "node3", Score: 0}},
		},
	}
	for _, test := range tests {
		t.Run(test.name, func(t *testing.T) {
			c := &Cycle{Nodes: test.nodes, Pods: test.pods, NamespaceLabels: cyScoringNamespaces}
			args := AffinityScoreArgs{HardPodAffinityWeight: test.hardPodAffinityWeight}
			cyCheckAffinityPreScore(t, c, test.pod, args, test.wantStatus, test.expectedList)
		})
	}
}

// cySpreadScoreWant is what the ported PreScore cases expect of one
// constraint; zero MinDomains, MaxSkew and empty policies stand for the
// defaults, as in cySpreadWant.
type cySpreadScoreWant struct {
	key      string
	maxSkew  int32
	nap, ntp v1.NodeInclusionPolicy
	counts   map[string]int64
	// domains is the argument of upstream's topologyNormalizingWeight.
	domains int
}

// TestCycleSpreadPreScoreEmptyNodes ports podtopologyspread's
// TestPreScoreStateEmptyNodes: the filtered nodes are all the nodes, and no
// pod is placed.
func TestCycleSpreadPreScoreEmptyNodes(t *testing.T) {
	fooSelector := cyMakeSelector().Exists("foo").Obj()
	barSelector := cyMakeSelector().Exists("bar").Obj()
	ignore, honor := v1.NodeInclusionPolicyIgnore, v1.NodeInclusionPolicyHonor
	taints := []v1.Taint{{Key: v1.TaintNodeUnschedulable, Value: "", Effect: v1.TaintEffectNoSchedule}}
	policyNodes := func(xTaint bool) []*v1.Node {
		x := cyMakeNode().Name("node-x").Label("zone", "zone2").Label(v1.LabelHostname, "node-x")
		if xTaint {
			x.Taints(taints)
		}
		return []*v1.Node{
			cyMakeNode().Name("node-a").Label("zone", "zone1").Label("foo", "").Label(v1.LabelHostname, "node-a").Obj(),
			cyMakeNode().Name("node-b").Label("zone", "zone1").Label("foo", "").Label(v1.LabelHostname, "node-b").Obj(),
			x.Obj(),
		}
	}
	zones := map[string]int64{"zone1": 0, "zone2": 0}

	tests := []struct {
		name        string
		pod         *v1.Pod
		nodes       []*v1.Node
		want        []cySpreadScoreWant
		wantIgnored []string
		skip        string
	}{
		{
			name: "TestPreScoreStateEmptyNodes/normal case",
			pod: cyMakePod().Name("p").Label("foo", "").
				SpreadConstraint(1, "zone", v1.ScheduleAnyway, fooSelector, nil, nil, nil, nil).
				SpreadConstraint(1, v1.LabelHostname, v1.ScheduleAnyway, fooSelector, nil, nil, nil, nil).Obj(),
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label("zone", "zone1").Label(v1.LabelHostname, "node-a").Obj(),
				cyMakeNode().Name("node-b").Label("zone", "zone1").Label(v1.LabelHostname, "node-b").Obj(),
				cyMakeNode().Name("node-x").Label("zone", "zone2").Label(v1.LabelHostname, "node-x").Obj(),
			},
			want: []cySpreadScoreWant{
				{key: "zone", counts: zones, domains: 2},
				{key: v1.LabelHostname, counts: map[string]int64{}, domains: 3},
			},
		},
		{
			name: "TestPreScoreStateEmptyNodes/null selector",
			pod:  cyMakePod().Name("p").Label("foo", "").SpreadConstraint(1, "zone", v1.ScheduleAnyway, nil, nil, nil, nil, nil).Obj(),
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label("zone", "zone1").Label(v1.LabelHostname, "node-a").Obj(),
				cyMakeNode().Name("node-b").Label("zone", "zone1").Label(v1.LabelHostname, "node-b").Obj(),
				cyMakeNode().Name("node-x").Label("zone", "zone2").Label(v1.LabelHostname, "node-x").Obj(),
			},
			want: []cySpreadScoreWant{{key: "zone", counts: zones, domains: 2}},
		},
		{
			name: "TestPreScoreStateEmptyNodes/node-x doesn't have label zone",
			pod: cyMakePod().Name("p").Label("foo", "").
				SpreadConstraint(1, "zone", v1.ScheduleAnyway, fooSelector, nil, nil, nil, nil).
				SpreadConstraint(1, v1.LabelHostname, v1.ScheduleAnyway, barSelector, nil, nil, nil, nil).Obj(),
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label("zone", "zone1").Label(v1.LabelHostname, "node-a").Obj(),
				cyMakeNode().Name("node-b").Label("zone", "zone1").Label(v1.LabelHostname, "node-b").Obj(),
				cyMakeNode().Name("node-x").Label(v1.LabelHostname, "node-x").Obj(),
			},
			want: []cySpreadScoreWant{
				{key: "zone", counts: map[string]int64{"zone1": 0}, domains: 1},
				{key: v1.LabelHostname, counts: map[string]int64{}, domains: 2},
			},
			wantIgnored: []string{"node-x"},
		},
		{
			name: "TestPreScoreStateEmptyNodes/system default constraints and a replicaset",
			skip: "default (cluster-level) constraints are not derived by the reference",
		},
		{
			name: "TestPreScoreStateEmptyNodes/default constraints and a replicaset",
			skip: "default (cluster-level) constraints are not derived by the reference",
		},
		{
			// The replica set and the default constraints only matter for a pod
			// without constraints of its own.
			name: "TestPreScoreStateEmptyNodes/default constraints and a replicaset, but pod has constraints",
			pod: cyMakePod().Name("p").Namespace("default").Label("foo", "bar").Label("baz", "sup").
				SpreadConstraint(1, "zone", v1.DoNotSchedule, barSelector, nil, nil, nil, nil).
				SpreadConstraint(2, "planet", v1.ScheduleAnyway, cyMakeSelector().Label("baz", "sup").Obj(), nil, nil, nil, nil).Obj(),
			nodes: []*v1.Node{cyMakeNode().Name("node-a").Label("planet", "mars").Label("galaxy", "andromeda").Obj()},
			want:  []cySpreadScoreWant{{key: "planet", maxSkew: 2, counts: map[string]int64{"mars": 0}, domains: 1}},
		},
		{
			// Domains come from the filtered nodes whatever the policies:
			// node-x, which the pod's node selector excludes, still gives zone2.
			name:  "TestPreScoreStateEmptyNodes/NodeAffinityPolicy honored with labelSelectors",
			pod:   cyMakePod().Name("p").Label("foo", "").NodeSelector(map[string]string{"foo": ""}).SpreadConstraint(1, "zone", v1.ScheduleAnyway, barSelector, nil, nil, nil, nil).Obj(),
			nodes: policyNodes(false),
			want:  []cySpreadScoreWant{{key: "zone", counts: zones, domains: 2}},
		},
		{
			name:  "TestPreScoreStateEmptyNodes/NodeAffinityPolicy ignored with labelSelectors",
			pod:   cyMakePod().Name("p").Label("foo", "").NodeSelector(map[string]string{"foo": ""}).SpreadConstraint(1, "zone", v1.ScheduleAnyway, barSelector, nil, &ignore, nil, nil).Obj(),
			nodes: policyNodes(false),
			want:  []cySpreadScoreWant{{key: "zone", nap: ignore, counts: zones, domains: 2}},
		},
		{
			name:  "TestPreScoreStateEmptyNodes/NodeAffinityPolicy honored with nodeAffinity",
			pod:   cyMakePod().Name("p").Label("foo", "").NodeAffinityIn("foo", []string{""}).SpreadConstraint(1, "zone", v1.ScheduleAnyway, barSelector, nil, nil, nil, nil).Obj(),
			nodes: policyNodes(false),
			want:  []cySpreadScoreWant{{key: "zone", counts: zones, domains: 2}},
		},
		{
			name:  "TestPreScoreStateEmptyNodes/NodeAffinityPolicy ignored with nodeAffinity",
			pod:   cyMakePod().Name("p").Label("foo", "").NodeAffinityIn("foo", []string{""}).SpreadConstraint(1, "zone", v1.ScheduleAnyway, barSelector, nil, &ignore, nil, nil).Obj(),
			nodes: policyNodes(false),
			want:  []cySpreadScoreWant{{key: "zone", nap: ignore, counts: zones, domains: 2}},
		},
		{
			name:  "TestPreScoreStateEmptyNodes/NodeTaintsPolicy honored",
			pod:   cyMakePod().Name("p").Label("foo", "").SpreadConstraint(1, "zone", v1.ScheduleAnyway, barSelector, nil, nil, &honor, nil).Obj(),
			nodes: policyNodes(true),
			want:  []cySpreadScoreWant{{key: "zone", ntp: honor, counts: zones, domains: 2}},
		},
		{
			name:  "TestPreScoreStateEmptyNodes/NodeTaintsPolicy ignored",
			pod:   cyMakePod().Name("p").Label("foo", "").SpreadConstraint(1, "zone", v1.ScheduleAnyway, barSelector, nil, nil, nil, nil).Obj(),
			nodes: policyNodes(true),
			want:  []cySpreadScoreWant{{key: "zone", counts: zones, domains: 2}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.skip != "" {
				t.Skip(tc.skip)
			}
			c := &Cycle{Nodes: tc.nodes}
			var filtered []string
			for _, n := range tc.nodes {
				filtered = append(filtered, n.Name)
			}
			got, ok, err := c.SpreadPreScore(tc.pod, filtered)
			if err != nil || !ok {
				t.Fatalf("SpreadPreScore() = ok %v, err %v; want a state", ok, err)
			}
			cyCheckSpreadPreScore(t, got, tc.want, tc.wantIgnored)
		})
	}
}

// cyCheckSpreadPreScore compares a SpreadPreScore with an upstream case's
// expected preScoreState.
func cyCheckSpreadPreScore(t *testing.T, got SpreadPreScore, want []cySpreadScoreWant, wantIgnored []string) {
	t.Helper()
	type view struct {
		Key               string
		MaxSkew           int32
		MinDomains        int32
		NAP, NTP          v1.NodeInclusionPolicy
		Counts            map[string]int64
		NormalizingWeight float64
	}
	var gotV, wantV []view
	for _, c := range got.Constraints {
		gotV = append(gotV, view{c.TopologyKey, c.MaxSkew, c.MinDomains, c.NodeAffinityPolicy, c.NodeTaintsPolicy, c.Counts, c.NormalizingWeight})
	}
	for _, w := range want {
		v := view{Key: w.key, MaxSkew: w.maxSkew, MinDomains: 1, NAP: w.nap, NTP: w.ntp, Counts: w.counts, NormalizingWeight: math.Log(float64(w.domains + 2))}
		if v.MaxSkew == 0 {
			v.MaxSkew = 1
		}
		if v.NAP == "" {
			v.NAP = v1.NodeInclusionPolicyHonor
		}
		if v.NTP == "" {
			v.NTP = v1.NodeInclusionPolicyIgnore
		}
		wantV = append(wantV, v)
	}
	if diff := cmp.Diff(wantV, gotV); diff != "" {
		t.Errorf("SpreadPreScore().Constraints (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantIgnored, got.IgnoredNodes); diff != "" {
		t.Errorf("SpreadPreScore().IgnoredNodes (-want +got):\n%s", diff)
	}
}

// cySpreadScores turns a SpreadPreScore into the filtered nodes' normalized
// scores as PodTopologySpread's Score and NormalizeScore do: an ignored node
// scores 0; otherwise, per constraint whose key the node carries, the count
// (its domain's, or for the hostname key its own matching pods, NodeCounts,
// with no inclusion policy) times the normalizing weight plus maxSkew-1,
// rounded; then 100 × (max + min - score) / max, or 100 for all when max is
// 0.
func cySpreadScores(s SpreadPreScore, filtered []*v1.Node) []cyNodeScore {
	var out []cyNodeScore
	for _, n := range filtered {
		if slices.Contains(s.IgnoredNodes, n.Name) {
			out = append(out, cyNodeScore{Name: n.Name, Score: -1})
			continue
		}
		var f float64
		for _, sc := range s.Constraints {
			v, ok := n.Labels[sc.TopologyKey]
			if !ok {
				continue
			}
			cnt := sc.Counts[v]
			if sc.TopologyKey == v1.LabelHostname {
				cnt = sc.NodeCounts[n.Name]
			}
			f += float64(cnt)*sc.NormalizingWeight + float64(sc.MaxSkew-1)
		}
		out = append(out, cyNodeScore{Name: n.Name, Score: int64(math.Round(f))})
	}
	lo, hi := int64(math.MaxInt64), int64(0)
	for _, s := range out {
		if s.Score != -1 {
			lo, hi = min(lo, s.Score), max(hi, s.Score)
		}
	}
	for i := range out {
		switch {
		case out[i].Score == -1:
			out[i].Score = 0
		case hi == 0:
			out[i].Score = cyMaxNodeScore
		default:
			out[i].Score = cyMaxNodeScore * (hi + lo - out[i].Score) / hi
		}
	}
	return out
}

// TestCycleSpreadScore ports podtopologyspread's TestPodTopologySpreadScore:
// its data and expected scores are upstream's, the reference's PreScore
// state is turned into scores as Score and NormalizeScore do
// (cySpreadScores). Upstream runs each case with the inclusion-policy and
// matchLabelKeys gates as the case sets them (off unless it says otherwise)
// and the plug-in's system-default constraints; a case is skipped where that
// makes its expectation differ from v1.37.2's defaults (a policy field or
// matchLabelKeys set with its gate off) or where it needs default
// constraints (a pod without constraints of its own).
func TestCycleSpreadScore(t *testing.T) {
	fooSelector := cyMakeSelector().Exists("foo").Obj()
	barSelector := cyMakeSelector().Exists("bar").Obj()
	ignorePolicy, honorPolicy := v1.NodeInclusionPolicyIgnore, v1.NodeInclusionPolicyHonor
	taints := []v1.Taint{{Key: v1.TaintNodeUnschedulable, Value: "", Effect: v1.TaintEffectNoSchedule}}
	tests := []struct {
		name                      string
		pod                       *v1.Pod
		existingPods              []*v1.Pod
		nodes                     []*v1.Node
		failedNodes               []*v1.Node // nodes + failedNodes = all nodes
		objs                      []any
		want                      []cyNodeScore
		enableNodeInclusionPolicy bool
		enableMatchLabelKeys      bool
	}{
		// Explanation on the Legend:
		// a) X/Y means there are X matching pods on node1 and Y on node2, both nodes are candidates
		//   (i.e. they have passed all predicates)
		// b) X/~Y~ means there are X matching pods on node1 and Y on node2, but node Y is NOT a candidate
		// c) X/?Y? means there are X matching pods on node1 and Y on node2, both nodes are candidates
		//    but node2 doesn't have all required topologyKeys present.
		{
			name: "TestPodTopologySpreadScore/one constraint on node, no existing pods",
			pod: cyMakePod().Name("p").Label("foo", "").
				SpreadConstraint(1, v1.LabelHostname, v1.ScheduleAnyway, fooSelector, nil, nil, nil, nil).
				Obj(),
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label(v1.LabelHostname, "node-a").Obj(),
				cyMakeNode().Name("node-b").Label(v1.LabelHostname, "node-b").Obj(),
			},
			want: []cyNodeScore{
				{Name: "node-a", Score: 100},
				{Name: "node-b", Score: 100},
			},
		},
		{
			// if there is only one candidate node, it should be scored to 100
			name: "TestPodTopologySpreadScore/one constraint on node, only one node is candidate",
			pod: cyMakePod().Name("p").Label("foo", "").
				SpreadConstraint(1, v1.LabelHostname, v1.ScheduleAnyway, fooSelector, nil, nil, nil, nil).
				Obj(),
			existingPods: []*v1.Pod{
				cyMakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
			},
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label(v1.LabelHostname, "node-a").Obj(),
			},
			failedNodes: []*v1.Node{
				cyMakeNode().Name("node-b").Label(v1.LabelHostname, "node-b").Obj(),
			},
			want: []cyNodeScore{
				{Name: "node-a", Score: 100},
			},
		},
		{
			name: "TestPodTopologySpreadScore/one constraint on node, all nodes have the same number of matching pods",
			pod: cyMakePod().Name("p").Label("foo", "").
				SpreadConstraint(1, v1.LabelHostname, v1.ScheduleAnyway, fooSelector, nil, nil, nil, nil).
				Obj(),
			existingPods: []*v1.Pod{
				cyMakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
			},
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label(v1.LabelHostname, "node-a").Obj(),
				cyMakeNode().Name("node-b").Label(v1.LabelHostname, "node-b").Obj(),
			},
			want: []cyNodeScore{
				{Name: "node-a", Score: 100},
				{Name: "node-b", Score: 100},
			},
		},
		{
			// matching pods spread as 2/1/0/3.
			name: "TestPodTopologySpreadScore/one constraint on node, all 4 nodes are candidates",
			pod: cyMakePod().Name("p").Label("foo", "").
				SpreadConstraint(1, v1.LabelHostname, v1.ScheduleAnyway, fooSelector, nil, nil, nil, nil).
				Obj(),
			existingPods: []*v1.Pod{
				cyMakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
				cyMakePod().Name("p-d1").Node("node-d").Label("foo", "").Obj(),
				cyMakePod().Name("p-d2").Node("node-d").Label("foo", "").Obj(),
				cyMakePod().Name("p-d3").Node("node-d").Label("foo", "").Obj(),
			},
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label(v1.LabelHostname, "node-a").Obj(),
				cyMakeNode().Name("node-b").Label(v1.LabelHostname, "node-b").Obj(),
				cyMakeNode().Name("node-c").Label(v1.LabelHostname, "node-c").Obj(),
				cyMakeNode().Name("node-d").Label(v1.LabelHostname, "node-d").Obj(),
			},
			failedNodes: []*v1.Node{},
			want: []cyNodeScore{
				{Name: "node-a", Score: 20},
				{Name: "node-b", Score: 60},
				{Name: "node-c", Score: 100},
				{Name: "node-d", Score: 0},
			},
		},
		{
			name: "TestPodTopologySpreadScore/one constraint on node, null selector",
			pod: cyMakePod().Name("p").Label("foo", "").
				SpreadConstraint(1, v1.LabelHostname, v1.ScheduleAnyway, nil, nil, nil, nil, nil).
				Obj(),
			existingPods: []*v1.Pod{
				cyMakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
				cyMakePod().Name("p-d1").Node("node-d").Label("foo", "").Obj(),
				cyMakePod().Name("p-d2").Node("node-d").Label("foo", "").Obj(),
				cyMakePod().Name("p-d3").Node("node-d").Label("foo", "").Obj(),
			},
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label(v1.LabelHostname, "node-a").Obj(),
				cyMakeNode().Name("node-b").Label(v1.LabelHostname, "node-b").Obj(),
				cyMakeNode().Name("node-c").Label(v1.LabelHostname, "node-c").Obj(),
				cyMakeNode().Name("node-d").Label(v1.LabelHostname, "node-d").Obj(),
			},
			want: []cyNodeScore{
				{Name: "node-a", Score: 100},
				{Name: "node-b", Score: 100},
				{Name: "node-c", Score: 100},
				{Name: "node-d", Score: 100},
			},
		},
		{
			name: "TestPodTopologySpreadScore/one constraint on node, all 4 nodes are candidates, maxSkew=2",
			pod: cyMakePod().Name("p").Label("foo", "").
				SpreadConstraint(2, v1.LabelHostname, v1.ScheduleAnyway, fooSelector, nil, nil, nil, nil).
				Obj(),
			// matching pods spread as 2/1/0/3.
			existingPods: []*v1.Pod{
				cyMakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
				cyMakePod().Name("p-d1").Node("node-d").Label("foo", "").Obj(),
				cyMakePod().Name("p-d2").Node("node-d").Label("foo", "").Obj(),
				cyMakePod().Name("p-d3").Node("node-d").Label("foo", "").Obj(),
			},
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label(v1.LabelHostname, "node-a").Obj(),
				cyMakeNode().Name("node-b").Label(v1.LabelHostname, "node-b").Obj(),
				cyMakeNode().Name("node-c").Label(v1.LabelHostname, "node-c").Obj(),
				cyMakeNode().Name("node-d").Label(v1.LabelHostname, "node-d").Obj(),
			},
			failedNodes: []*v1.Node{},
			want: []cyNodeScore{
				{Name: "node-a", Score: 33}, // +13, compared to maxSkew=1
				{Name: "node-b", Score: 66}, // +6, compared to maxSkew=1
				{Name: "node-c", Score: 100},
				{Name: "node-d", Score: 16}, // +16, compared to maxSkew=1
			},
		},
		{
			name: "TestPodTopologySpreadScore/one constraint on node, all 4 nodes are candidates, maxSkew=3",
			pod: cyMakePod().Name("p").Label("foo", "").
				SpreadConstraint(3, v1.LabelHostname, v1.ScheduleAnyway, fooSelector, nil, nil, nil, nil).
				Obj(),
			existingPods: []*v1.Pod{
				// matching pods spread as 4/3/2/1.
				cyMakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-a3").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-a4").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
				cyMakePod().Name("p-b2").Node("node-b").Label("foo", "").Obj(),
				cyMakePod().Name("p-b3").Node("node-b").Label("foo", "").Obj(),
				cyMakePod().Name("p-c1").Node("node-c").Label("foo", "").Obj(),
				cyMakePod().Name("p-c2").Node("node-c").Label("foo", "").Obj(),
				cyMakePod().Name("p-d1").Node("node-d").Label("foo", "").Obj(),
			},
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label(v1.LabelHostname, "node-a").Obj(),
				cyMakeNode().Name("node-b").Label(v1.LabelHostname, "node-b").Obj(),
				cyMakeNode().Name("node-c").Label(v1.LabelHostname, "node-c").Obj(),
				cyMakeNode().Name("node-d").Label(v1.LabelHostname, "node-d").Obj(),
			},
			failedNodes: []*v1.Node{},
			want: []cyNodeScore{
				{Name: "node-a", Score: 44}, // +16 compared to maxSkew=1
				{Name: "node-b", Score: 66}, // +9 compared to maxSkew=1
				{Name: "node-c", Score: 77}, // +6 compared to maxSkew=1
				{Name: "node-d", Score: 100},
			},
		},
		{
			name: "TestPodTopologySpreadScore/system defaulting, nodes don't have zone, pods match service",
			pod:  cyMakePod().Name("p").Label("foo", "").Obj(),
			existingPods: []*v1.Pod{
				// matching pods spread as 4/3/2/1.
				cyMakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-a3").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-a4").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
				cyMakePod().Name("p-b2").Node("node-b").Label("foo", "").Obj(),
				cyMakePod().Name("p-b3").Node("node-b").Label("foo", "").Obj(),
				cyMakePod().Name("p-c1").Node("node-c").Label("foo", "").Obj(),
				cyMakePod().Name("p-c2").Node("node-c").Label("foo", "").Obj(),
				cyMakePod().Name("p-d1").Node("node-d").Label("foo", "").Obj(),
			},
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label(v1.LabelHostname, "node-a").Obj(),
				cyMakeNode().Name("node-b").Label(v1.LabelHostname, "node-b").Obj(),
				cyMakeNode().Name("node-c").Label(v1.LabelHostname, "node-c").Obj(),
				cyMakeNode().Name("node-d").Label(v1.LabelHostname, "node-d").Obj(),
			},
			failedNodes: []*v1.Node{},
			objs: []any{
				&v1.Service{Spec: v1.ServiceSpec{Selector: map[string]string{"foo": ""}}},
			},
			want: []cyNodeScore{
				// Same scores as if we were using one spreading constraint.
				{Name: "node-a", Score: 44},
				{Name: "node-b", Score: 66},
				{Name: "node-c", Score: 77},
				{Name: "node-d", Score: 100},
			},
		},
		{
			// matching pods spread as 4/2/1/~3~ (node4 is not a candidate)
			name: "TestPodTopologySpreadScore/one constraint on node, 3 out of 4 nodes are candidates",
			pod: cyMakePod().Name("p").Label("foo", "").
				SpreadConstraint(1, v1.LabelHostname, v1.ScheduleAnyway, fooSelector, nil, nil, nil, nil).
				Obj(),
			existingPods: []*v1.Pod{
				cyMakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-a3").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-a4").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
				cyMakePod().Name("p-b2").Node("node-b").Label("foo", "").Obj(),
				cyMakePod().Name("p-x1").Node("node-x").Label("foo", "").Obj(),
				cyMakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
				cyMakePod().Name("p-y2").Node("node-y").Label("foo", "").Obj(),
				cyMakePod().Name("p-y3").Node("node-y").Label("foo", "").Obj(),
			},
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label(v1.LabelHostname, "node-a").Obj(),
				cyMakeNode().Name("node-b").Label(v1.LabelHostname, "node-b").Obj(),
				cyMakeNode().Name("node-x").Label(v1.LabelHostname, "node-x").Obj(),
			},
			failedNodes: []*v1.Node{
				cyMakeNode().Name("node-y").Label(v1.LabelHostname, "node-y").Obj(),
			},
			want: []cyNodeScore{
				{Name: "node-a", Score: 33},
				{Name: "node-b", Score: 83},
				{Name: "node-x", Score: 100},
			},
		},
		{
			// matching pods spread as 4/?2?/1/~3~, total = 4+?+1 = 5 (as node2 is problematic)
			name: "TestPodTopologySpreadScore/one constraint on node, 3 out of 4 nodes are candidates, one node doesn't match topology key",
			pod: cyMakePod().Name("p").Label("foo", "").
				SpreadConstraint(1, v1.LabelHostname, v1.ScheduleAnyway, fooSelector, nil, nil, nil, nil).
				Obj(),
			existingPods: []*v1.Pod{
				cyMakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-a3").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-a4").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
				cyMakePod().Name("p-b2").Node("node-b").Label("foo", "").Obj(),
				cyMakePod().Name("p-x1").Node("node-x").Label("foo", "").Obj(),
				cyMakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
				cyMakePod().Name("p-y2").Node("node-y").Label("foo", "").Obj(),
				cyMakePod().Name("p-y3").Node("node-y").Label("foo", "").Obj(),
			},
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label(v1.LabelHostname, "node-a").Obj(),
				cyMakeNode().Name("node-b").Label("n", "node-b").Obj(), // label `n` doesn't match topologyKey
				cyMakeNode().Name("node-x").Label(v1.LabelHostname, "node-x").Obj(),
			},
			failedNodes: []*v1.Node{
				cyMakeNode().Name("node-y").Label(v1.LabelHostname, "node-y").Obj(),
			},
			want: []cyNodeScore{
				{Name: "node-a", Score: 16},
				{Name: "node-b", Score: 0},
				{Name: "node-x", Score: 100},
			},
		},
		{
			// matching pods spread as 4/2/1/~3~
			name: "TestPodTopologySpreadScore/one constraint on zone, 3 out of 4 nodes are candidates",
			pod: cyMakePod().Name("p").Label("foo", "").
				SpreadConstraint(1, "zone", v1.ScheduleAnyway, fooSelector, nil, nil, nil, nil).
				Obj(),
			existingPods: []*v1.Pod{
				cyMakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-a3").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-a4").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
				cyMakePod().Name("p-b2").Node("node-b").Label("foo", "").Obj(),
				cyMakePod().Name("p-x1").Node("node-x").Label("foo", "").Obj(),
				cyMakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
				cyMakePod().Name("p-y2").Node("node-y").Label("foo", "").Obj(),
				cyMakePod().Name("p-y3").Node("node-y").Label("foo", "").Obj(),
			},
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label("zone", "zone1").Label(v1.LabelHostname, "node-a").Obj(),
				cyMakeNode().Name("node-b").Label("zone", "zone1").Label(v1.LabelHostname, "node-b").Obj(),
				cyMakeNode().Name("node-x").Label("zone", "zone2").Label(v1.LabelHostname, "node-x").Obj(),
			},
			failedNodes: []*v1.Node{
				cyMakeNode().Name("node-y").Label("zone", "zone2").Label(v1.LabelHostname, "node-y").Obj(),
			},
			want: []cyNodeScore{
				{Name: "node-a", Score: 75},
				{Name: "node-b", Score: 75},
				{Name: "node-x", Score: 100},
			},
		},
		{
			// matching pods spread as 2/~1~/2/~4~.
			name: "TestPodTopologySpreadScore/two Constraints on zone and node, 2 out of 4 nodes are candidates",
			pod: cyMakePod().Name("p").Label("foo", "").
				SpreadConstraint(1, "zone", v1.ScheduleAnyway, fooSelector, nil, nil, nil, nil).
				SpreadConstraint(1, v1.LabelHostname, v1.ScheduleAnyway, fooSelector, nil, nil, nil, nil).
				Obj(),
			existingPods: []*v1.Pod{
				cyMakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
				cyMakePod().Name("p-x1").Node("node-x").Label("foo", "").Obj(),
				cyMakePod().Name("p-x2").Node("node-x").Label("foo", "").Obj(),
				cyMakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
				cyMakePod().Name("p-y2").Node("node-y").Label("foo", "").Obj(),
				cyMakePod().Name("p-y3").Node("node-y").Label("foo", "").Obj(),
				cyMakePod().Name("p-y4").Node("node-y").Label("foo", "").Obj(),
			},
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label("zone", "zone1").Label(v1.LabelHostname, "node-a").Obj(),
				cyMakeNode().Name("node-x").Label("zone", "zone2").Label(v1.LabelHostname, "node-x").Obj(),
			},
			failedNodes: []*v1.Node{
				cyMakeNode().Name("node-b").Label("zone", "zone1").Label(v1.LabelHostname, "node-b").Obj(),
				cyMakeNode().Name("node-y").Label("zone", "zone2").Label(v1.LabelHostname, "node-y").Obj(),
			},
			want: []cyNodeScore{
				{Name: "node-a", Score: 100},
				{Name: "node-x", Score: 63},
			},
		},
		{
			name: "TestPodTopologySpreadScore/two Constraints on zone, 2 out of 4 nodes are candidates",
			pod: cyMakePod().Name("p").Label("foo", "").Label("bar", "").
				SpreadConstraint(1, "zone", v1.ScheduleAnyway, fooSelector, nil, nil, nil, nil).
				SpreadConstraint(1, "zone", v1.ScheduleAnyway, barSelector, nil, nil, nil, nil).
				Obj(),
			existingPods: []*v1.Pod{
				cyMakePod().Name("p-a1").Node("node-a").Label("foo", "").Label("bar", "").Obj(),
				cyMakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-b1").Node("node-b").Label("foo", "").Label("bar", "").Obj(),
				cyMakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
				cyMakePod().Name("p-y2").Node("node-y").Label("foo", "").Label("bar", "").Obj(),
				cyMakePod().Name("p-y3").Node("node-y").Label("foo", "").Obj(),
			},
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label("zone", "zone1").Obj(),
				cyMakeNode().Name("node-x").Label("zone", "zone2").Obj(),
			},
			failedNodes: []*v1.Node{
				cyMakeNode().Name("node-b").Label("zone", "zone1").Obj(),
				cyMakeNode().Name("node-y").Label("zone", "zone2").Obj(),
			},
			want: []cyNodeScore{
				{Name: "node-a", Score: 85},
				{Name: "node-x", Score: 100},
			},
		},
		{
			// If Constraints hold different labelSelectors, it's a little complex.
			// +----------------------+------------------------+
			// |         zone1        |          zone2         |
			// +----------------------+------------------------+
			// | node-a |    node-b   | node-x |     node-y    |
			// +--------+-------------+--------+---------------+
			// | P{foo} | P{foo, bar} |        | P{foo} P{bar} |
			// +--------+-------------+--------+---------------+
			// For the first constraint (zone): the matching pods spread as 2/2/1/1
			// For the second constraint (node): the matching pods spread as 0/1/0/1
			name: "TestPodTopologySpreadScore/two Constraints on zone and node, with different labelSelectors",
			pod: cyMakePod().Name("p").Label("foo", "").Label("bar", "").
				SpreadConstraint(1, "zone", v1.ScheduleAnyway, fooSelector, nil, nil, nil, nil).
				SpreadConstraint(1, v1.LabelHostname, v1.ScheduleAnyway, barSelector, nil, nil, nil, nil).
				Obj(),
			existingPods: []*v1.Pod{
				cyMakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-b1").Node("node-b").Label("foo", "").Label("bar", "").Obj(),
				cyMakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
				cyMakePod().Name("p-y2").Node("node-y").Label("bar", "").Obj(),
			},
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label("zone", "zone1").Label(v1.LabelHostname, "node-a").Obj(),
				cyMakeNode().Name("node-b").Label("zone", "zone1").Label(v1.LabelHostname, "node-b").Obj(),
				cyMakeNode().Name("node-x").Label("zone", "zone2").Label(v1.LabelHostname, "node-x").Obj(),
				cyMakeNode().Name("node-y").Label("zone", "zone2").Label(v1.LabelHostname, "node-y").Obj(),
			},
			failedNodes: []*v1.Node{},
			want: []cyNodeScore{
				{Name: "node-a", Score: 60},
				{Name: "node-b", Score: 20},
				{Name: "node-x", Score: 100},
				{Name: "node-y", Score: 60},
			},
		},
		{
			// For the first constraint (zone): the matching pods spread as 0/0/2/2
			// For the second constraint (node): the matching pods spread as 0/1/0/1
			name: "TestPodTopologySpreadScore/two Constraints on zone and node, with different labelSelectors, some nodes have 0 pods",
			pod: cyMakePod().Name("p").Label("foo", "").Label("bar", "").
				SpreadConstraint(1, "zone", v1.ScheduleAnyway, fooSelector, nil, nil, nil, nil).
				SpreadConstraint(1, v1.LabelHostname, v1.ScheduleAnyway, barSelector, nil, nil, nil, nil).
				Obj(),
			existingPods: []*v1.Pod{
				cyMakePod().Name("p-b1").Node("node-b").Label("bar", "").Obj(),
				cyMakePod().Name("p-x1").Node("node-x").Label("foo", "").Obj(),
				cyMakePod().Name("p-y1").Node("node-y").Label("foo", "").Label("bar", "").Obj(),
			},
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label("zone", "zone1").Label(v1.LabelHostname, "node-a").Obj(),
				cyMakeNode().Name("node-b").Label("zone", "zone1").Label(v1.LabelHostname, "node-b").Obj(),
				cyMakeNode().Name("node-x").Label("zone", "zone2").Label(v1.LabelHostname, "node-x").Obj(),
				cyMakeNode().Name("node-y").Label("zone", "zone2").Label(v1.LabelHostname, "node-y").Obj(),
			},
			failedNodes: []*v1.Node{},
			want: []cyNodeScore{
				{Name: "node-a", Score: 100},
				{Name: "node-b", Score: 60},
				{Name: "node-x", Score: 40},
				{Name: "node-y", Score: 0},
			},
		},
		{
			// For the first constraint (zone): the matching pods spread as 2/2/1/~1~
			// For the second constraint (node): the matching pods spread as 0/1/0/~1~
			name: "TestPodTopologySpreadScore/two Constraints on zone and node, with different labelSelectors, 3 out of 4 nodes are candidates",
			pod: cyMakePod().Name("p").Label("foo", "").Label("bar", "").
				SpreadConstraint(1, "zone", v1.ScheduleAnyway, fooSelector, nil, nil, nil, nil).
				SpreadConstraint(1, v1.LabelHostname, v1.ScheduleAnyway, barSelector, nil, nil, nil, nil).
				Obj(),
			existingPods: []*v1.Pod{
				cyMakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-b1").Node("node-b").Label("foo", "").Label("bar", "").Obj(),
				cyMakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
				cyMakePod().Name("p-y2").Node("node-y").Label("bar", "").Obj(),
			},
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label("zone", "zone1").Label(v1.LabelHostname, "node-a").Obj(),
				cyMakeNode().Name("node-b").Label("zone", "zone1").Label(v1.LabelHostname, "node-b").Obj(),
				cyMakeNode().Name("node-x").Label("zone", "zone2").Label(v1.LabelHostname, "node-x").Obj(),
			},
			failedNodes: []*v1.Node{
				cyMakeNode().Name("node-y").Label("zone", "zone2").Label(v1.LabelHostname, "node-y").Obj(),
			},
			want: []cyNodeScore{
				{Name: "node-a", Score: 50},
				{Name: "node-b", Score: 25},
				{Name: "node-x", Score: 100},
			},
		},
		{
			name: "TestPodTopologySpreadScore/existing pods in a different namespace do not count",
			pod: cyMakePod().Name("p").Label("foo", "").
				SpreadConstraint(1, v1.LabelHostname, v1.ScheduleAnyway, fooSelector, nil, nil, nil, nil).
				Obj(),
			existingPods: []*v1.Pod{
				cyMakePod().Name("p-a1").Namespace("ns1").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
				cyMakePod().Name("p-b2").Node("node-b").Label("foo", "").Obj(),
			},
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label(v1.LabelHostname, "node-a").Obj(),
				cyMakeNode().Name("node-b").Label(v1.LabelHostname, "node-b").Obj(),
			},
			want: []cyNodeScore{
				{Name: "node-a", Score: 100},
				{Name: "node-b", Score: 33},
			},
		},
		{
			name: "TestPodTopologySpreadScore/terminating Pods should be excluded",
			pod: cyMakePod().Name("p").Label("foo", "").
				SpreadConstraint(1, v1.LabelHostname, v1.ScheduleAnyway, fooSelector, nil, nil, nil, nil).
				Obj(),
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label(v1.LabelHostname, "node-a").Obj(),
				cyMakeNode().Name("node-b").Label(v1.LabelHostname, "node-b").Obj(),
			},
			existingPods: []*v1.Pod{
				cyMakePod().Name("p-a").Node("node-a").Label("foo", "").Terminating().Obj(),
				cyMakePod().Name("p-b").Node("node-b").Label("foo", "").Obj(),
			},
			want: []cyNodeScore{
				{Name: "node-a", Score: 100},
				{Name: "node-b", Score: 0},
			},
		},
		{
			// This test is artificial. In the real world, API Server would fail a pod's creation
			// when non-default minDomains is specified along with SchedulingAnyway.
			name: "TestPodTopologySpreadScore/minDomains has no effect when ScheduleAnyway",
			pod: cyMakePod().Name("p").Label("foo", "").SpreadConstraint(
				2,
				"node",
				v1.ScheduleAnyway,
				fooSelector,
				ptr.To[int32](10), // larger than the number of domains(3)
				nil,
				nil,
				nil,
			).Obj(),
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label("node", "node-a").Obj(),
				cyMakeNode().Name("node-b").Label("node", "node-b").Obj(),
				cyMakeNode().Name("node-c").Label("node", "node-c").Obj(),
			},
			existingPods: []*v1.Pod{
				cyMakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
				cyMakePod().Name("p-b2").Node("node-b").Label("foo", "").Obj(),
				cyMakePod().Name("p-c1").Node("node-c").Label("foo", "").Obj(),
			},
			want: []cyNodeScore{
				{Name: "node-a", Score: 75},
				{Name: "node-b", Score: 75},
				{Name: "node-c", Score: 100},
			},
		},
		{
			name: "TestPodTopologySpreadScore/NodeAffinityPolicy honoed with labelSelectors",
			pod: cyMakePod().Name("p").Label("foo", "").
				NodeSelector(map[string]string{"foo": ""}).
				SpreadConstraint(1, "node", v1.ScheduleAnyway, fooSelector, nil, nil, nil, nil).
				Obj(),
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label("node", "node-a").Label("foo", "").Obj(),
				cyMakeNode().Name("node-b").Label("node", "node-b").Label("foo", "").Obj(),
				cyMakeNode().Name("node-c").Label("node", "node-c").Obj(),
			},
			existingPods: []*v1.Pod{
				cyMakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
				cyMakePod().Name("p-c1").Node("node-c").Label("foo", "").Obj(),
			},
			want: []cyNodeScore{
				{Name: "node-a", Score: 0},
				{Name: "node-b", Score: 33},
				{Name: "node-c", Score: 100},
			},
			enableNodeInclusionPolicy: true,
		},
		{
			name: "TestPodTopologySpreadScore/NodeAffinityPolicy ignored with labelSelectors",
			pod: cyMakePod().Name("p").Label("foo", "").
				NodeSelector(map[string]string{"foo": ""}).
				SpreadConstraint(1, "node", v1.ScheduleAnyway, fooSelector, nil, &ignorePolicy, nil, nil).
				Obj(),
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label("node", "node-a").Label("foo", "").Obj(),
				cyMakeNode().Name("node-b").Label("node", "node-b").Label("foo", "").Obj(),
				cyMakeNode().Name("node-c").Label("node", "node-c").Obj(),
			},
			existingPods: []*v1.Pod{
				cyMakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
				cyMakePod().Name("p-c1").Node("node-c").Label("foo", "").Obj(),
			},
			want: []cyNodeScore{
				{Name: "node-a", Score: 66},
				{Name: "node-b", Score: 100},
				{Name: "node-c", Score: 100},
			},
			enableNodeInclusionPolicy: true,
		},
		{
			name: "TestPodTopologySpreadScore/NodeAffinityPolicy honoed with nodeAffinity",
			pod: cyMakePod().Name("p").Label("foo", "").
				NodeAffinityIn("foo", []string{""}).
				SpreadConstraint(1, "node", v1.ScheduleAnyway, fooSelector, nil, nil, nil, nil).
				Obj(),
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label("node", "node-a").Label("foo", "").Obj(),
				cyMakeNode().Name("node-b").Label("node", "node-b").Label("foo", "").Obj(),
				cyMakeNode().Name("node-c").Label("node", "node-c").Obj(),
			},
			existingPods: []*v1.Pod{
				cyMakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
				cyMakePod().Name("p-c1").Node("node-c").Label("foo", "").Obj(),
			},
			want: []cyNodeScore{
				{Name: "node-a", Score: 0},
				{Name: "node-b", Score: 33},
				{Name: "node-c", Score: 100},
			},
			enableNodeInclusionPolicy: true,
		},
		{
			name: "TestPodTopologySpreadScore/NodeAffinityPolicy ignored with nodeAffinity",
			pod: cyMakePod().Name("p").Label("foo", "").
				NodeAffinityIn("foo", []string{""}).
				SpreadConstraint(1, "node", v1.ScheduleAnyway, fooSelector, nil, &ignorePolicy, nil, nil).
				Obj(),
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label("node", "node-a").Label("foo", "").Obj(),
				cyMakeNode().Name("node-b").Label("node", "node-b").Label("foo", "").Obj(),
				cyMakeNode().Name("node-c").Label("node", "node-c").Obj(),
			},
			existingPods: []*v1.Pod{
				cyMakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
				cyMakePod().Name("p-c1").Node("node-c").Label("foo", "").Obj(),
			},
			want: []cyNodeScore{
				{Name: "node-a", Score: 66},
				{Name: "node-b", Score: 100},
				{Name: "node-c", Score: 100},
			},
			enableNodeInclusionPolicy: true,
		},
		{
			name: "TestPodTopologySpreadScore/NodeTaintsPolicy honored",
			pod: cyMakePod().Name("p").Label("foo", "").
				SpreadConstraint(1, "node", v1.ScheduleAnyway, fooSelector, nil, nil, &honorPolicy, nil).
				Obj(),
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label("node", "node-a").Obj(),
				cyMakeNode().Name("node-b").Label("node", "node-b").Obj(),
				cyMakeNode().Name("node-c").Label("node", "node-c").Taints(taints).Obj(),
			},
			existingPods: []*v1.Pod{
				cyMakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
				cyMakePod().Name("p-c1").Node("node-c").Label("foo", "").Obj(),
			},
			want: []cyNodeScore{
				{Name: "node-a", Score: 0},
				{Name: "node-b", Score: 33},
				{Name: "node-c", Score: 100},
			},
			enableNodeInclusionPolicy: true,
		},
		{
			name: "TestPodTopologySpreadScore/NodeTaintsPolicy ignored",
			pod: cyMakePod().Name("p").Label("foo", "").
				SpreadConstraint(1, "node", v1.ScheduleAnyway, fooSelector, nil, nil, nil, nil).
				Obj(),
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label("node", "node-a").Obj(),
				cyMakeNode().Name("node-b").Label("node", "node-b").Obj(),
				cyMakeNode().Name("node-c").Label("node", "node-c").Taints(taints).Obj(),
			},
			existingPods: []*v1.Pod{
				cyMakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
				cyMakePod().Name("p-c1").Node("node-c").Label("foo", "").Obj(),
			},
			want: []cyNodeScore{
				{Name: "node-a", Score: 66},
				{Name: "node-b", Score: 100},
				{Name: "node-c", Score: 100},
			},
			enableNodeInclusionPolicy: true,
		},
		{
			name: "TestPodTopologySpreadScore/matchLabelKeys ignored when feature gate disabled",
			pod: cyMakePod().Name("p").Label("foo", "").Label("bar", "").Label("baz", "").
				SpreadConstraint(1, "zone", v1.ScheduleAnyway, fooSelector, nil, nil, nil, []string{"baz"}).
				SpreadConstraint(1, v1.LabelHostname, v1.ScheduleAnyway, barSelector, nil, nil, nil, []string{"baz"}).
				Obj(),
			existingPods: []*v1.Pod{
				cyMakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-b1").Node("node-b").Label("foo", "").Label("bar", "").Obj(),
				cyMakePod().Name("p-y1").Node("node-c").Label("foo", "").Obj(),
				cyMakePod().Name("p-y2").Node("node-c").Label("bar", "").Obj(),
			},
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label("zone", "zone1").Label(v1.LabelHostname, "node-a").Obj(),
				cyMakeNode().Name("node-b").Label("zone", "zone1").Label(v1.LabelHostname, "node-b").Obj(),
				cyMakeNode().Name("node-c").Label("zone", "zone2").Label(v1.LabelHostname, "node-c").Obj(),
				cyMakeNode().Name("node-d").Label("zone", "zone2").Label(v1.LabelHostname, "node-d").Obj(),
			},
			want: []cyNodeScore{
				{Name: "node-a", Score: 60},
				{Name: "node-b", Score: 20},
				{Name: "node-c", Score: 60},
				{Name: "node-d", Score: 100},
			},
			enableMatchLabelKeys: false,
		},
		{
			name: "TestPodTopologySpreadScore/matchLabelKeys ANDed with LabelSelector when LabelSelector is empty",
			pod: cyMakePod().Name("p").Label("foo", "").Label("bar", "").
				SpreadConstraint(1, "zone", v1.ScheduleAnyway, cyMakeSelector().Obj(), nil, nil, nil, []string{"foo"}).
				SpreadConstraint(1, v1.LabelHostname, v1.ScheduleAnyway, cyMakeSelector().Obj(), nil, nil, nil, []string{"bar"}).
				Obj(),
			existingPods: []*v1.Pod{
				cyMakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-b1").Node("node-b").Label("foo", "").Label("bar", "").Obj(),
				cyMakePod().Name("p-y1").Node("node-c").Label("foo", "").Obj(),
				cyMakePod().Name("p-y2").Node("node-c").Label("bar", "").Obj(),
			},
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label("zone", "zone1").Label(v1.LabelHostname, "node-a").Obj(),
				cyMakeNode().Name("node-b").Label("zone", "zone1").Label(v1.LabelHostname, "node-b").Obj(),
				cyMakeNode().Name("node-c").Label("zone", "zone2").Label(v1.LabelHostname, "node-c").Obj(),
				cyMakeNode().Name("node-d").Label("zone", "zone2").Label(v1.LabelHostname, "node-d").Obj(),
			},
			want: []cyNodeScore{
				{Name: "node-a", Score: 60},
				{Name: "node-b", Score: 20},
				{Name: "node-c", Score: 60},
				{Name: "node-d", Score: 100},
			},
			enableMatchLabelKeys: true,
		},
		{
			name: "TestPodTopologySpreadScore/matchLabelKeys ANDed with LabelSelector when LabelSelector isn't empty",
			pod: cyMakePod().Name("p").Label("foo", "").Label("bar", "").Label("baz", "").
				SpreadConstraint(1, "zone", v1.ScheduleAnyway, fooSelector, nil, nil, nil, nil).
				SpreadConstraint(1, v1.LabelHostname, v1.ScheduleAnyway, barSelector, nil, nil, nil, []string{"baz"}).
				Obj(),
			existingPods: []*v1.Pod{
				cyMakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-b1").Node("node-b").Label("foo", "").Label("bar", "").Label("baz", "").Obj(),
				cyMakePod().Name("p-c1").Node("node-c").Label("foo", "").Obj(),
				cyMakePod().Name("p-c2").Node("node-c").Label("bar", "").Obj(),
				cyMakePod().Name("p-d3").Node("node-c").Label("bar", "").Label("baz", "").Obj(),
			},
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label("zone", "zone1").Label(v1.LabelHostname, "node-a").Obj(),
				cyMakeNode().Name("node-b").Label("zone", "zone1").Label(v1.LabelHostname, "node-b").Obj(),
				cyMakeNode().Name("node-c").Label("zone", "zone2").Label(v1.LabelHostname, "node-c").Obj(),
				cyMakeNode().Name("node-d").Label("zone", "zone2").Label(v1.LabelHostname, "node-d").Obj(),
			},
			want: []cyNodeScore{
				{Name: "node-a", Score: 60},
				{Name: "node-b", Score: 20},
				{Name: "node-c", Score: 60},
				{Name: "node-d", Score: 100},
			},
			enableMatchLabelKeys: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if len(tt.pod.Spec.TopologySpreadConstraints) == 0 {
				t.Skip("needs default (cluster-level) constraints, which the reference does not derive")
			}
			for _, c := range tt.pod.Spec.TopologySpreadConstraints {
				if !tt.enableNodeInclusionPolicy && (c.NodeAffinityPolicy != nil || c.NodeTaintsPolicy != nil) {
					t.Skip("upstream runs it with NodeInclusionPolicyInPodTopologySpread off; v1.37.2's default is on")
				}
				if !tt.enableMatchLabelKeys && len(c.MatchLabelKeys) > 0 {
					t.Skip("upstream runs it with MatchLabelKeysInPodTopologySpread off; v1.37.2's default is on")
				}
			}
			c := &Cycle{Nodes: append(append([]*v1.Node{}, tt.nodes...), tt.failedNodes...), Pods: tt.existingPods}
			var filtered []string
			for _, n := range tt.nodes {
				filtered = append(filtered, n.Name)
			}
			s, ok, err := c.SpreadPreScore(tt.pod, filtered)
			if err != nil || !ok {
				t.Fatalf("SpreadPreScore() = ok %v, err %v; want a state", ok, err)
			}
			if diff := cmp.Diff(tt.want, cySpreadScores(s, tt.nodes)); diff != "" {
				t.Errorf("scores from SpreadPreScore() (-want +got):\n%s", diff)
			}
		})
	}
}

func (p *cyPodWrapper) Labels(m map[string]string) *cyPodWrapper {
	for k, v := range m {
		p.Label(k, v)
	}
	return p
}

func cyReq(key string, op metav1.LabelSelectorOperator, vals []string) *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: key, Operator: op, Values: vals}}}
}

func (p *cyPodWrapper) PodAffinityIn(key, topologyKey string, vals []string, kind cyAffinityKind) *cyPodWrapper {
	return p.PodAffinity(topologyKey, cyReq(key, metav1.LabelSelectorOpIn, vals), kind)
}

func (p *cyPodWrapper) PodAffinityNotIn(key, topologyKey string, vals []string, kind cyAffinityKind) *cyPodWrapper {
	return p.PodAffinity(topologyKey, cyReq(key, metav1.LabelSelectorOpNotIn, vals), kind)
}

func (p *cyPodWrapper) PodAntiAffinityIn(key, topologyKey string, vals []string, kind cyAffinityKind) *cyPodWrapper {
	return p.PodAntiAffinity(topologyKey, cyReq(key, metav1.LabelSelectorOpIn, vals), kind)
}

// cyCreatePodWithAffinityTerms is upstream's createPodWithAffinityTerms.
func cyCreatePodWithAffinityTerms(namespace, nodeName string, labels map[string]string, affinity, antiAffinity []v1.PodAffinityTerm) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Labels: labels, Namespace: namespace},
		Spec: v1.PodSpec{
			NodeName: nodeName,
			Affinity: &v1.Affinity{
				PodAffinity:     &v1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: affinity},
				PodAntiAffinity: &v1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: antiAffinity},
			},
		},
	}
}

// cyFilterStatus is a PreFilter or Filter status as the filtering cases
// expect it: nil is success.
type cyFilterStatus struct{ Code, Reason string }

// InterPodAffinity's Filter reasons.
const (
	cyErrReasonExistingAntiAffinityRulesNotMatch = "node(s) didn't satisfy existing pods anti-affinity rules"
	cyErrReasonAffinityRulesNotMatch             = "node(s) didn't match pod affinity rules"
	cyErrReasonAntiAffinityRulesNotMatch         = "node(s) didn't match pod anti-affinity rules"
)

// cyAffinityPreFilterSkips reports whether upstream's PreFilter returns Skip
// for this state: no placed pod's anti-affinity term matches p, and p has no
// required terms.
func cyAffinityPreFilterSkips(s AffinityPreFilter, p *v1.Pod) bool {
	return len(s.ExistingAntiAffinity) == 0 && len(requiredAffinityTerms(p)) == 0 && len(requiredAntiAffinityTerms(p)) == 0
}

// cyAffinityFilter is InterPodAffinity's Filter (gate off) over the
// reference's PreFilter state: the node must carry every affinity term's key
// and have a matching pod in each term's domain (or, when no pod matches
// anywhere, p must match all its own terms); no anti-affinity term of p may
// have a matching pod in the node's domain; no node label pair may hold a
// placed pod's anti-affinity match.
func cyAffinityFilter(t *testing.T, c *Cycle, s AffinityPreFilter, p *v1.Pod, node *v1.Node) *cyFilterStatus {
	t.Helper()
	pt, err := compileCyclePod(p)
	if err != nil {
		t.Fatalf("compileCyclePod() = %v", err)
	}
	affinity, anti := c.mergeNamespaces(pt.affinity), c.mergeNamespaces(pt.anti)
	if len(affinity) > 0 {
		podsExist := true
		for _, term := range affinity {
			v, ok := node.Labels[term.topologyKey]
			if !ok {
				return &cyFilterStatus{"UnschedulableAndUnresolvable", cyErrReasonAffinityRulesNotMatch}
			}
			if s.Affinity[TopologyPair{term.topologyKey, v}] <= 0 {
				podsExist = false
			}
		}
		if !podsExist && !(len(s.Affinity) == 0 && matchesAllCycleTerms(affinity, p)) {
			return &cyFilterStatus{"UnschedulableAndUnresolvable", cyErrReasonAffinityRulesNotMatch}
		}
	}
	for _, term := range anti {
		if v, ok := node.Labels[term.topologyKey]; ok && s.AntiAffinity[TopologyPair{term.topologyKey, v}] > 0 {
			return &cyFilterStatus{"Unschedulable", cyErrReasonAntiAffinityRulesNotMatch}
		}
	}
	for k, v := range node.Labels {
		if s.ExistingAntiAffinity[TopologyPair{k, v}] > 0 {
			return &cyFilterStatus{"Unschedulable", cyErrReasonExistingAntiAffinityRulesNotMatch}
		}
	}
	return nil
}

// TestCycleAffinityFilterSingleNode ports interpodaffinity's
// TestRequiredAffinitySingleNode (gate-off runs). Upstream asserts PreFilter's
// and Filter's statuses, not the state, so the reference's state is run
// through Filter's rules (cyAffinityFilter). The table is upstream's literals
// with only the framework types replaced; a "ParseError" status is
// PreFilter's rejection of a pod whose terms do not compile.
func TestCycleAffinityFilterSingleNode(t *testing.T) {
	defaultNamespace := ""
	podLabel := map[string]string{"service": "securityscan"}
	pod := cyMakePod().Labels(podLabel).Node("node1").Obj()

	labels1 := map[string]string{
		"region": "r1",
		"zone":   "z11",
	}
	podLabel2 := map[string]string{"security": "S1"}
	node1 := v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node1", Labels: labels1}}

	tests := []struct {
		pod                 *v1.Pod
		pods                []*v1.Pod
		node                *v1.Node
		name                string
		wantPreFilterStatus *cyFilterStatus
		wantFilterStatus    *cyFilterStatus
	}{
		{
			name:                "TestRequiredAffinitySingleNode/A pod that has no required pod affinity scheduling rules can schedule onto a node with no existing pods",
			pod:                 new(v1.Pod),
			node:                &node1,
			wantPreFilterStatus: &cyFilterStatus{Code: "Skip"},
		},
		{
			name: "TestRequiredAffinitySingleNode/satisfies with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using In operator that matches the existing pod",
			pod:  cyMakePod().Namespace(defaultNamespace).Labels(podLabel2).PodAffinityIn("service", "region", []string{"securityscan", "value2"}, cyRequired).Obj(),
			pods: []*v1.Pod{pod},
			node: &node1,
		},
		{
			name: "TestRequiredAffinitySingleNode/satisfies the pod with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using not in operator in labelSelector that matches the existing pod",
			pod:  cyMakePod().Namespace(defaultNamespace).Labels(podLabel2).PodAffinityNotIn("service", "region", []string{"securityscan3", "value3"}, cyRequired).Obj(),
			pods: []*v1.Pod{pod},
			node: &node1,
		},
		{
			name: "TestRequiredAffinitySingleNode/Does not satisfy the PodAffinity with labelSelector because of diff Namespace",
			pod: cyCreatePodWithAffinityTerms(defaultNamespace, "", podLabel2,
				[]v1.PodAffinityTerm{
					{
						LabelSelector: &metav1.LabelSelector{
							MatchExpressions: []metav1.LabelSelectorRequirement{
								{
									Key:      "service",
									Operator: metav1.LabelSelectorOpIn,
									Values:   []string{"securityscan", "value2"},
								},
							},
						},
						Namespaces: []string{"DiffNameSpace"},
					},
				}, nil),
			pods:             []*v1.Pod{cyMakePod().Namespace("ns").Label("service", "securityscan").Node("node1").Obj()},
			node:             &node1,
			wantFilterStatus: &cyFilterStatus{Code: "UnschedulableAndUnresolvable", Reason: cyErrReasonAffinityRulesNotMatch},
		},
		{
			name:             "TestRequiredAffinitySingleNode/Doesn't satisfy the PodAffinity because of unmatching labelSelector with the existing pod",
			pod:              cyMakePod().Namespace(defaultNamespace).Labels(podLabel).PodAffinityIn("service", "", []string{"antivirusscan", "value2"}, cyRequired).Obj(),
			pods:             []*v1.Pod{pod},
			node:             &node1,
			wantFilterStatus: &cyFilterStatus{Code: "UnschedulableAndUnresolvable", Reason: cyErrReasonAffinityRulesNotMatch},
		},
		{
			name: "TestRequiredAffinitySingleNode/satisfies the PodAffinity with different label Operators in multiple RequiredDuringSchedulingIgnoredDuringExecution ",
			pod: cyCreatePodWithAffinityTerms(defaultNamespace, "", podLabel2,
				[]v1.PodAffinityTerm{
					{
						LabelSelector: &metav1.LabelSelector{
							MatchExpressions: []metav1.LabelSelectorRequirement{
								{
									Key:      "service",
									Operator: metav1.LabelSelectorOpExists,
								}, {
									Key:      "wrongkey",
									Operator: metav1.LabelSelectorOpDoesNotExist,
								},
							},
						},
						TopologyKey: "region",
					}, {
						LabelSelector: &metav1.LabelSelector{
							MatchExpressions: []metav1.LabelSelectorRequirement{
								{
									Key:      "service",
									Operator: metav1.LabelSelectorOpIn,
									Values:   []string{"securityscan"},
								}, {
									Key:      "service",
									Operator: metav1.LabelSelectorOpNotIn,
									Values:   []string{"WrongValue"},
								},
							},
						},
						TopologyKey: "region",
					},
				}, nil),
			pods: []*v1.Pod{pod},
			node: &node1,
		},
		{
			name: "TestRequiredAffinitySingleNode/The labelSelector requirements(items of matchExpressions) are ANDed, the pod cannot schedule onto the node because one of the matchExpression item don't match.",
			pod: cyCreatePodWithAffinityTerms(defaultNamespace, "", podLabel2,
				[]v1.PodAffinityTerm{
					{
						LabelSelector: &metav1.LabelSelector{
							MatchExpressions: []metav1.LabelSelectorRequirement{
								{
									Key:      "service",
									Operator: metav1.LabelSelectorOpExists,
								}, {
									Key:      "wrongkey",
									Operator: metav1.LabelSelectorOpDoesNotExist,
								},
							},
						},
						TopologyKey: "region",
					}, {
						LabelSelector: &metav1.LabelSelector{
							MatchExpressions: []metav1.LabelSelectorRequirement{
								{
									Key:      "service",
									Operator: metav1.LabelSelectorOpIn,
									Values:   []string{"securityscan2"},
								}, {
									Key:      "service",
									Operator: metav1.LabelSelectorOpNotIn,
									Values:   []string{"WrongValue"},
								},
							},
						},
						TopologyKey: "region",
					},
				}, nil),
			pods:             []*v1.Pod{pod},
			node:             &node1,
			wantFilterStatus: &cyFilterStatus{Code: "UnschedulableAndUnresolvable", Reason: cyErrReasonAffinityRulesNotMatch},
		},
		{
			name: "TestRequiredAffinitySingleNode/satisfies the PodAffinity and PodAntiAffinity with the existing pod",
			pod: cyMakePod().Namespace(defaultNamespace).Labels(podLabel2).
				PodAffinityIn("service", "region", []string{"securityscan", "value2"}, cyRequired).
				PodAntiAffinityIn("service", "node", []string{"antivirusscan", "value2"}, cyRequired).Obj(),
			pods: []*v1.Pod{pod},
			node: &node1,
		},
		{
			name: "TestRequiredAffinitySingleNode/satisfies the PodAffinity and PodAntiAffinity and PodAntiAffinity symmetry with the existing pod",
			pod: cyMakePod().Namespace(defaultNamespace).Labels(podLabel2).
				PodAffinityIn("service", "region", []string{"securityscan", "value2"}, cyRequired).
				PodAntiAffinityIn("service", "node", []string{"antivirusscan", "value2"}, cyRequired).Obj(),
			pods: []*v1.Pod{
				cyMakePod().Namespace(defaultNamespace).Node("node1").Labels(podLabel).
					PodAntiAffinityIn("service", "node", []string{"antivirusscan", "value2"}, cyRequired).Obj(),
			},
			node: &node1,
		},
		{
			name: "TestRequiredAffinitySingleNode/satisfies the PodAffinity but doesn't satisfy the PodAntiAffinity with the existing pod",
			pod: cyMakePod().Namespace(defaultNamespace).Labels(podLabel2).
				PodAffinityIn("service", "region", []string{"securityscan", "value2"}, cyRequired).
				PodAntiAffinityIn("service", "zone", []string{"securityscan", "value2"}, cyRequired).Obj(),
			pods:             []*v1.Pod{pod},
			node:             &node1,
			wantFilterStatus: &cyFilterStatus{Code: "Unschedulable", Reason: cyErrReasonAntiAffinityRulesNotMatch},
		},
		{
			name: "TestRequiredAffinitySingleNode/satisfies the PodAffinity and PodAntiAffinity but doesn't satisfy PodAntiAffinity symmetry with the existing pod",
			pod: cyMakePod().Namespace(defaultNamespace).Labels(podLabel).
				PodAffinityIn("service", "region", []string{"securityscan", "value2"}, cyRequired).
				PodAntiAffinityIn("service", "node", []string{"antivirusscan", "value2"}, cyRequired).Obj(),
			pods: []*v1.Pod{
				cyMakePod().Namespace(defaultNamespace).Labels(podLabel).Node("node1").PodAntiAffinityIn("service", "zone", []string{"securityscan", "value2"}, cyRequired).Obj(),
			},
			node:             &node1,
			wantFilterStatus: &cyFilterStatus{Code: "Unschedulable", Reason: cyErrReasonExistingAntiAffinityRulesNotMatch},
		},
		{
			name: "TestRequiredAffinitySingleNode/pod matches its own Label in PodAffinity and that matches the existing pod Labels",
			pod: cyMakePod().Namespace(defaultNamespace).Labels(podLabel).
				PodAffinityNotIn("service", "region", []string{"securityscan", "value2"}, cyRequired).Obj(),
			pods:             []*v1.Pod{cyMakePod().Label("service", "securityscan").Node("node2").Obj()},
			node:             &node1,
			wantFilterStatus: &cyFilterStatus{Code: "UnschedulableAndUnresolvable", Reason: cyErrReasonAffinityRulesNotMatch},
		},
		{
			name: "TestRequiredAffinitySingleNode/verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity constraints. doesn't satisfy PodAntiAffinity symmetry with the existing pod",
			pod:  cyMakePod().Labels(podLabel).Obj(),
			pods: []*v1.Pod{
				cyMakePod().Namespace(defaultNamespace).Node("node1").Labels(podLabel).
					PodAntiAffinityIn("service", "zone", []string{"securityscan", "value2"}, cyRequired).Obj(),
			},
			node:             &node1,
			wantFilterStatus: &cyFilterStatus{Code: "Unschedulable", Reason: cyErrReasonExistingAntiAffinityRulesNotMatch},
		},
		{
			name: "TestRequiredAffinitySingleNode/verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity constraints. satisfy PodAntiAffinity symmetry with the existing pod",
			pod:  cyMakePod().Labels(podLabel).Obj(),
			pods: []*v1.Pod{
				cyMakePod().Namespace(defaultNamespace).Node("node1").Labels(podLabel).
					PodAntiAffinityNotIn("service", "zone", []string{"securityscan", "value2"}, cyRequired).Obj(),
			},
			node:                &node1,
			wantPreFilterStatus: &cyFilterStatus{Code: "Skip"},
		},
		{
			name: "TestRequiredAffinitySingleNode/satisfies the PodAntiAffinity with existing pod but doesn't satisfy PodAntiAffinity symmetry with incoming pod",
			pod: cyMakePod().Namespace(defaultNamespace).Labels(podLabel).
				PodAntiAffinityExists("service", "region", cyRequired).
				PodAntiAffinityExists("security", "region", cyRequired).Obj(),
			pods: []*v1.Pod{
				cyMakePod().Namespace(defaultNamespace).Node("node1").Labels(podLabel2).
					PodAntiAffinityExists("security", "zone", cyRequired).Obj(),
			},
			node:             &node1,
			wantFilterStatus: &cyFilterStatus{Code: "Unschedulable", Reason: cyErrReasonAntiAffinityRulesNotMatch},
		},
		{
			name: "TestRequiredAffinitySingleNode/PodAntiAffinity symmetry check a1: incoming pod and existing pod partially match each other on AffinityTerms",
			pod: cyMakePod().Namespace(defaultNamespace).Labels(podLabel).
				PodAntiAffinityExists("service", "zone", cyRequired).
				PodAntiAffinityExists("security", "zone", cyRequired).Obj(),
			pods: []*v1.Pod{
				cyMakePod().Namespace(defaultNamespace).Node("node1").Labels(podLabel2).
					PodAntiAffinityExists("security", "zone", cyRequired).Obj(),
			},
			node:             &node1,
			wantFilterStatus: &cyFilterStatus{Code: "Unschedulable", Reason: cyErrReasonAntiAffinityRulesNotMatch},
		},
		{
			name: "TestRequiredAffinitySingleNode/PodAntiAffinity symmetry check a2: incoming pod and existing pod partially match each other on AffinityTerms",
			pod: cyMakePod().Namespace(defaultNamespace).Labels(podLabel2).
				PodAntiAffinityExists("security", "zone", cyRequired).Obj(),
			pods: []*v1.Pod{
				cyMakePod().Namespace(defaultNamespace).Node("node1").Labels(podLabel).
					PodAntiAffinityExists("service", "zone", cyRequired).
					PodAntiAffinityExists("security", "zone", cyRequired).Obj(),
			},
			node:             &node1,
			wantFilterStatus: &cyFilterStatus{Code: "Unschedulable", Reason: cyErrReasonExistingAntiAffinityRulesNotMatch},
		},
		{
			name: "TestRequiredAffinitySingleNode/PodAntiAffinity symmetry check b1: incoming pod and existing pod partially match each other on AffinityTerms",
			pod: cyMakePod().Namespace(defaultNamespace).Labels(map[string]string{"abc": "", "xyz": ""}).
				PodAntiAffinityExists("abc", "zone", cyRequired).
				PodAntiAffinityExists("def", "zone", cyRequired).Obj(),
			pods: []*v1.Pod{
				cyMakePod().Namespace(defaultNamespace).Node("node1").Labels(map[string]string{"def": "", "xyz": ""}).
					PodAntiAffinityExists("abc", "zone", cyRequired).
					PodAntiAffinityExists("def", "zone", cyRequired).Obj(),
			},
			node:             &node1,
			wantFilterStatus: &cyFilterStatus{Code: "Unschedulable", Reason: cyErrReasonAntiAffinityRulesNotMatch},
		},
		{
			name: "TestRequiredAffinitySingleNode/PodAntiAffinity symmetry check b2: incoming pod and existing pod partially match each other on AffinityTerms",
			pod: cyMakePod().Namespace(defaultNamespace).Labels(map[string]string{"def": "", "xyz": ""}).
				PodAntiAffinityExists("abc", "zone", cyRequired).
				PodAntiAffinityExists("def", "zone", cyRequired).Obj(),
			pods: []*v1.Pod{
				cyMakePod().Namespace(defaultNamespace).Node("node1").Labels(map[string]string{"abc": "", "xyz": ""}).
					PodAntiAffinityExists("abc", "zone", cyRequired).
					PodAntiAffinityExists("def", "zone", cyRequired).Obj(),
			},
			node:             &node1,
			wantFilterStatus: &cyFilterStatus{Code: "Unschedulable", Reason: cyErrReasonAntiAffinityRulesNotMatch},
		},
		{
			name: "TestRequiredAffinitySingleNode/PodAffinity fails PreFilter with an invalid affinity label syntax",
			pod: cyMakePod().Namespace(defaultNamespace).Labels(podLabel).
				PodAffinityIn("service", "region", []string{"{{.bad-value.}}"}, cyRequired).
				PodAffinityIn("service", "node", []string{"antivirusscan", "value2"}, cyRequired).Obj(),
			node:                &node1,
			wantPreFilterStatus: &cyFilterStatus{Code: "ParseError"},
		},
		{
			name: "TestRequiredAffinitySingleNode/PodAntiAffinity fails PreFilter with an invalid antiaffinity label syntax",
			pod: cyMakePod().Namespace(defaultNamespace).Labels(podLabel).
				PodAffinityIn("service", "region", []string{"foo"}, cyRequired).
				PodAffinityIn("service", "node", []string{"{{.bad-value.}}"}, cyRequired).Obj(),
			node:                &node1,
			wantPreFilterStatus: &cyFilterStatus{Code: "ParseError"},
		},
		{
			name: "TestRequiredAffinitySingleNode/affinity with NamespaceSelector",
			pod: cyCreatePodWithAffinityTerms(defaultNamespace, "", podLabel2,
				[]v1.PodAffinityTerm{
					{
						LabelSelector: &metav1.LabelSelector{
							MatchExpressions: []metav1.LabelSelectorRequirement{
								{
									Key:      "service",
									Operator: metav1.LabelSelectorOpIn,
									Values:   []string{"securityscan", "value2"},
								},
							},
						},
						NamespaceSelector: &metav1.LabelSelector{
							MatchExpressions: []metav1.LabelSelectorRequirement{
								{
									Key:      "team",
									Operator: metav1.LabelSelectorOpIn,
									Values:   []string{"team1"},
								},
							},
						},
						TopologyKey: "region",
					},
				}, nil),
			pods: []*v1.Pod{{Spec: v1.PodSpec{NodeName: "node1"}, ObjectMeta: metav1.ObjectMeta{Namespace: "subteam1.team1", Labels: podLabel}}},
			node: &node1,
		},
		{
			name: "TestRequiredAffinitySingleNode/affinity with non-matching NamespaceSelector",
			pod: cyCreatePodWithAffinityTerms(defaultNamespace, "", podLabel2,
				[]v1.PodAffinityTerm{
					{
						LabelSelector: &metav1.LabelSelector{
							MatchExpressions: []metav1.LabelSelectorRequirement{
								{
									Key:      "service",
									Operator: metav1.LabelSelectorOpIn,
									Values:   []string{"securityscan", "value2"},
								},
							},
						},
						NamespaceSelector: &metav1.LabelSelector{
							MatchExpressions: []metav1.LabelSelectorRequirement{
								{
									Key:      "team",
									Operator: metav1.LabelSelectorOpIn,
									Values:   []string{"team1"},
								},
							},
						},
						TopologyKey: "region",
					},
				}, nil),
			pods:             []*v1.Pod{{Spec: v1.PodSpec{NodeName: "node1"}, ObjectMeta: metav1.ObjectMeta{Namespace: "subteam1.team2", Labels: podLabel}}},
			node:             &node1,
			wantFilterStatus: &cyFilterStatus{Code: "UnschedulableAndUnresolvable", Reason: cyErrReasonAffinityRulesNotMatch},
		},
		{
			name: "TestRequiredAffinitySingleNode/anti-affinity with matching NamespaceSelector",
			pod: cyCreatePodWithAffinityTerms("subteam1.team1", "", podLabel2, nil,
				[]v1.PodAffinityTerm{
					{
						LabelSelector: &metav1.LabelSelector{
							MatchExpressions: []metav1.LabelSelectorRequirement{
								{
									Key:      "service",
									Operator: metav1.LabelSelectorOpIn,
									Values:   []string{"securityscan", "value2"},
								},
							},
						},
						NamespaceSelector: &metav1.LabelSelector{
							MatchExpressions: []metav1.LabelSelectorRequirement{
								{
									Key:      "team",
									Operator: metav1.LabelSelectorOpIn,
									Values:   []string{"team1"},
								},
							},
						},
						TopologyKey: "zone",
					},
				}),
			pods:             []*v1.Pod{{Spec: v1.PodSpec{NodeName: "node1"}, ObjectMeta: metav1.ObjectMeta{Namespace: "subteam2.team1", Labels: podLabel}}},
			node:             &node1,
			wantFilterStatus: &cyFilterStatus{Code: "Unschedulable", Reason: cyErrReasonAntiAffinityRulesNotMatch},
		},
		{
			name: "TestRequiredAffinitySingleNode/anti-affinity with matching all NamespaceSelector",
			pod: cyCreatePodWithAffinityTerms("subteam1.team1", "", podLabel2, nil,
				[]v1.PodAffinityTerm{
					{
						LabelSelector: &metav1.LabelSelector{
							MatchExpressions: []metav1.LabelSelectorRequirement{
								{
									Key:      "service",
									Operator: metav1.LabelSelectorOpIn,
									Values:   []string{"securityscan", "value2"},
								},
							},
						},
						NamespaceSelector: &metav1.LabelSelector{},
						TopologyKey:       "zone",
					},
				}),
			pods:             []*v1.Pod{{Spec: v1.PodSpec{NodeName: "node1"}, ObjectMeta: metav1.ObjectMeta{Namespace: "subteam2.team1", Labels: podLabel}}},
			node:             &node1,
			wantFilterStatus: &cyFilterStatus{Code: "Unschedulable", Reason: cyErrReasonAntiAffinityRulesNotMatch},
		},
		{
			name: "TestRequiredAffinitySingleNode/anti-affinity with non-matching NamespaceSelector",
			pod: cyCreatePodWithAffinityTerms("subteam1.team1", "", podLabel2, nil,
				[]v1.PodAffinityTerm{
					{
						LabelSelector: &metav1.LabelSelector{
							MatchExpressions: []metav1.LabelSelectorRequirement{
								{
									Key:      "service",
									Operator: metav1.LabelSelectorOpIn,
									Values:   []string{"securityscan", "value2"},
								},
							},
						},
						NamespaceSelector: &metav1.LabelSelector{
							MatchExpressions: []metav1.LabelSelectorRequirement{
								{
									Key:      "team",
									Operator: metav1.LabelSelectorOpIn,
									Values:   []string{"team1"},
								},
							},
						},
						TopologyKey: "zone",
					},
				}),
			pods: []*v1.Pod{{Spec: v1.PodSpec{NodeName: "node1"}, ObjectMeta: metav1.ObjectMeta{Namespace: "subteam1.team2", Labels: podLabel}}},
			node: &node1,
		},
	}

	for _, test := range tests {
		t.Run(test.name, func(t *testing.T) {
			c := &Cycle{Nodes: []*v1.Node{test.node}, Pods: test.pods, NamespaceLabels: cyScoringNamespaces}
			s, err := c.AffinityPreFilter(test.pod)
			var pre *cyFilterStatus
			switch {
			case err != nil:
				pre = &cyFilterStatus{Code: "ParseError"}
			case cyAffinityPreFilterSkips(s, test.pod):
				pre = &cyFilterStatus{Code: "Skip"}
			}
			if diff := cmp.Diff(test.wantPreFilterStatus, pre); diff != "" {
				t.Fatalf("PreFilter status (-want +got):\n%s (err %v)", diff, err)
			}
			if pre != nil {
				return
			}
			if diff := cmp.Diff(test.wantFilterStatus, cyAffinityFilter(t, c, s, test.pod, test.node)); diff != "" {
				t.Errorf("Filter status (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCycleAffinityFilterMultipleNodes ports interpodaffinity's
// TestRequiredAffinityMultipleNodes (gate-off runs), as
// TestCycleAffinityFilterSingleNode does.
func TestCycleAffinityFilterMultipleNodes(t *testing.T) {
	defaultNamespace := ""
	podLabelA := map[string]string{
		"foo": "bar",
	}
	labelRgChina := map[string]string{
		"region": "China",
	}
	labelRgChinaAzAz1 := map[string]string{
		"region": "China",
		"az":     "az1",
	}
	labelRgIndia := map[string]string{
		"region": "India",
	}

	tests := []struct {
		pod                 *v1.Pod
		pods                []*v1.Pod
		nodes               []*v1.Node
		wantFilterStatuses  []*cyFilterStatus
		wantPreFilterStatus *cyFilterStatus
		name                string
	}{
		{
			pod: cyMakePod().Namespace(defaultNamespace).PodAffinityIn("foo", "region", []string{"bar"}, cyRequired).Obj(),
			pods: []*v1.Pod{
				cyMakePod().Name("p1").Node("node1").Labels(podLabelA).Obj(),
			},
			nodes: []*v1.Node{
				{ObjectMeta: metav1.ObjectMeta{Name: "node1", Labels: labelRgChina}},
				{ObjectMeta: metav1.ObjectMeta{Name: "node2", Labels: labelRgChinaAzAz1}},
				{ObjectMeta: metav1.ObjectMeta{Name: "node3", Labels: labelRgIndia}},
			},
			wantFilterStatuses: []*cyFilterStatus{
				nil,
				nil,
				&cyFilterStatus{Code: "UnschedulableAndUnresolvable", Reason: cyErrReasonAffinityRulesNotMatch},
			},
			name: "TestRequiredAffinityMultipleNodes/A pod can be scheduled onto all the nodes that have the same topology key & label value with one of them has an existing pod that matches the affinity rules",
		},
		{
			pod: cyMakePod().Namespace(defaultNamespace).Labels(map[string]string{"foo": "bar", "service": "securityscan"}).
				PodAffinityIn("foo", "zone", []string{"bar"}, cyRequired).
				PodAffinityIn("service", "zone", []string{"securityscan"}, cyRequired).Obj(),
			pods: []*v1.Pod{
				cyMakePod().Name("p1").Node("nodeA").Labels(map[string]string{"foo": "bar"}).Obj(),
			},
			nodes: []*v1.Node{
				{ObjectMeta: metav1.ObjectMeta{Name: "nodeA", Labels: map[string]string{"zone": "az1", "hostname": "h1"}}},
				{ObjectMeta: metav1.ObjectMeta{Name: "nodeB", Labels: map[string]string{"zone": "az2", "hostname": "h2"}}},
			},
			wantFilterStatuses: []*cyFilterStatus{nil, nil},
			name: "TestRequiredAffinityMultipleNodes/The affinity rule is to schedule all of the pods of this collection to the same zone. The first pod of the collection " +
				"should not be blocked from being scheduled onto any node, even there's no existing pod that matches the rule anywhere.",
		},
		{
			pod: cyMakePod().Namespace(defaultNamespace).Labels(map[string]string{"foo": "bar", "service": "securityscan"}).
				PodAffinityIn("foo", "zone", []string{"bar"}, cyRequired).
				PodAffinityIn("service", "zone", []string{"securityscan"}, cyRequired).Obj(),
			pods: []*v1.Pod{
				cyMakePod().Name("p1").Node("nodeA").Labels(map[string]string{"foo": "bar"}).Obj(),
			},
			nodes: []*v1.Node{
				{ObjectMeta: metav1.ObjectMeta{Name: "nodeA", Labels: map[string]string{"zoneLabel": "az1", "hostname": "h1"}}},
				{ObjectMeta: metav1.ObjectMeta{Name: "nodeB", Labels: map[string]string{"zoneLabel": "az2", "hostname": "h2"}}},
			},
			wantFilterStatuses: []*cyFilterStatus{
				&cyFilterStatus{Code: "UnschedulableAndUnresolvable", Reason: cyErrReasonAffinityRulesNotMatch},
				&cyFilterStatus{Code: "UnschedulableAndUnresolvable", Reason: cyErrReasonAffinityRulesNotMatch},
			},
			name: "TestRequiredAffinityMultipleNodes/The first pod of the collection can only be scheduled on nodes labelled with the requested topology keys",
		},
		{
			pod: cyMakePod().Namespace(defaultNamespace).PodAntiAffinityIn("foo", "region", []string{"abc"}, cyRequired).Obj(),
			pods: []*v1.Pod{
				cyMakePod().Node("nodeA").Labels(map[string]string{"foo": "abc"}).Obj(),
			},
			nodes: []*v1.Node{
				{ObjectMeta: metav1.ObjectMeta{Name: "nodeA", Labels: map[string]string{"region": "r1", "hostname": "nodeA"}}},
				{ObjectMeta: metav1.ObjectMeta{Name: "nodeB", Labels: map[string]string{"region": "r1", "hostname": "nodeB"}}},
			},
			wantFilterStatuses: []*cyFilterStatus{
				&cyFilterStatus{Code: "Unschedulable", Reason: cyErrReasonAntiAffinityRulesNotMatch},
				&cyFilterStatus{Code: "Unschedulable", Reason: cyErrReasonAntiAffinityRulesNotMatch},
			},
			name: "TestRequiredAffinityMultipleNodes/NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that matches the inter pod affinity rule. The pod can not be scheduled onto nodeA and nodeB.",
		},
		{
			pod: cyMakePod().Namespace(defaultNamespace).PodAntiAffinityIn("foo", "region", []string{"abc"}, cyRequired).
				PodAntiAffinityIn("service", "zone", []string{"securityscan"}, cyRequired).Obj(),
			pods: []*v1.Pod{
				cyMakePod().Node("nodeA").Labels(map[string]string{"foo": "abc", "service": "securityscan"}).Obj(),
			},
			nodes: []*v1.Node{
				{ObjectMeta: metav1.ObjectMeta{Name: "nodeA", Labels: map[string]string{"region": "r1", "zone": "z1", "hostname": "nodeA"}}},
				{ObjectMeta: metav1.ObjectMeta{Name: "nodeB", Labels: map[string]string{"region": "r1", "zone": "z2", "hostname": "nodeB"}}},
			},
			wantFilterStatuses: []*cyFilterStatus{
				&cyFilterStatus{Code: "Unschedulable", Reason: cyErrReasonAntiAffinityRulesNotMatch},
				&cyFilterStatus{Code: "Unschedulable", Reason: cyErrReasonAntiAffinityRulesNotMatch},
			},
			name: "TestRequiredAffinityMultipleNodes/This test ensures that anti-affinity matches a pod when any term of the anti-affinity rule matches a pod.",
		},
		{
			pod: cyMakePod().Namespace(defaultNamespace).PodAntiAffinityIn("foo", "region", []string{"abc"}, cyRequired).Obj(),
			pods: []*v1.Pod{
				cyMakePod().Node("nodeA").Labels(map[string]string{"foo": "abc"}).Obj(),
			},
			nodes: []*v1.Node{
				{ObjectMeta: metav1.ObjectMeta{Name: "nodeA", Labels: labelRgChina}},
				{ObjectMeta: metav1.ObjectMeta{Name: "nodeB", Labels: labelRgChinaAzAz1}},
				{ObjectMeta: metav1.ObjectMeta{Name: "nodeC", Labels: labelRgIndia}},
			},
			wantFilterStatuses: []*cyFilterStatus{
				&cyFilterStatus{Code: "Unschedulable", Reason: cyErrReasonAntiAffinityRulesNotMatch},
				&cyFilterStatus{Code: "Unschedulable", Reason: cyErrReasonAntiAffinityRulesNotMatch},
				nil,
			},
			name: "TestRequiredAffinityMultipleNodes/NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that matches the inter pod affinity rule. The pod can not be scheduled onto nodeA and nodeB but can be scheduled onto nodeC",
		},
		{
			pod: cyMakePod().Namespace("NS1").Labels(map[string]string{"foo": "123"}).PodAntiAffinityIn("foo", "region", []string{"bar"}, cyRequired).Obj(),
			pods: []*v1.Pod{
				cyMakePod().Node("nodeA").Namespace("NS1").Labels(map[string]string{"foo": "bar"}).Obj(),
				cyMakePod().Node("nodeC").Namespace("NS2").PodAntiAffinityIn("foo", "region", []string{"123"}, cyRequired).Obj(),
			},
			nodes: []*v1.Node{
				{ObjectMeta: metav1.ObjectMeta{Name: "nodeA", Labels: labelRgChina}},
				{ObjectMeta: metav1.ObjectMeta{Name: "nodeB", Labels: labelRgChinaAzAz1}},
				{ObjectMeta: metav1.ObjectMeta{Name: "nodeC", Labels: labelRgIndia}},
			},
			wantFilterStatuses: []*cyFilterStatus{
				&cyFilterStatus{Code: "Unschedulable", Reason: cyErrReasonAntiAffinityRulesNotMatch},
				&cyFilterStatus{Code: "Unschedulable", Reason: cyErrReasonAntiAffinityRulesNotMatch},
				nil,
			},
			name: "TestRequiredAffinityMultipleNodes/NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that matches the inter pod affinity rule. The pod can not be scheduled onto nodeA, nodeB, but can be scheduled onto nodeC (NodeC has an existing pod that match the inter pod affinity rule but in different namespace)",
		},
		{
			pod: cyMakePod().Label("foo", "").Obj(),
			pods: []*v1.Pod{
				cyMakePod().Node("nodeA").Namespace(defaultNamespace).PodAntiAffinityExists("foo", "invalid-node-label", cyRequired).Obj(),
			},
			nodes: []*v1.Node{
				{ObjectMeta: metav1.ObjectMeta{Name: "nodeA", Labels: map[string]string{"region": "r1", "zone": "z1", "hostname": "nodeA"}}},
				{ObjectMeta: metav1.ObjectMeta{Name: "nodeB", Labels: map[string]string{"region": "r1", "zone": "z1", "hostname": "nodeB"}}},
			},
			wantPreFilterStatus: &cyFilterStatus{Code: "Skip"},
			wantFilterStatuses:  []*cyFilterStatus{nil, nil},
			name:                "TestRequiredAffinityMultipleNodes/Test existing pod's anti-affinity: if an existing pod has a term with invalid topologyKey, labelSelector of the term is firstly checked, and then topologyKey of the term is also checked",
		},
		{
			pod: cyMakePod().Node("nodeA").Namespace(defaultNamespace).PodAntiAffinityExists("foo", "invalid-node-label", cyRequired).Obj(),
			pods: []*v1.Pod{
				cyMakePod().Node("nodeA").Labels(map[string]string{"foo": ""}).Obj(),
			},
			nodes: []*v1.Node{
				{ObjectMeta: metav1.ObjectMeta{Name: "nodeA", Labels: map[string]string{"region": "r1", "zone": "z1", "hostname": "nodeA"}}},
				{ObjectMeta: metav1.ObjectMeta{Name: "nodeB", Labels: map[string]string{"region": "r1", "zone": "z1", "hostname": "nodeB"}}},
			},
			wantFilterStatuses: []*cyFilterStatus{nil, nil},
			name:               "TestRequiredAffinityMultipleNodes/Test incoming pod's anti-affinity: even if labelSelector matches, we still check if topologyKey matches",
		},
		{
			pod: cyMakePod().Label("foo", "").Label("bar", "").Obj(),
			pods: []*v1.Pod{
				cyMakePod().Node("nodeA").Namespace(defaultNamespace).PodAntiAffinityExists("foo", "zone", cyRequired).Obj(),
				cyMakePod().Node("nodeA").Namespace(defaultNamespace).PodAntiAffinityExists("bar", "region", cyRequired).Obj(),
			},
			nodes: []*v1.Node{
				{ObjectMeta: metav1.ObjectMeta{Name: "nodeA", Labels: map[string]string{"region": "r1", "zone": "z1", "hostname": "nodeA"}}},
				{ObjectMeta: metav1.ObjectMeta{Name: "nodeB", Labels: map[string]string{"region": "r1", "zone": "z2", "hostname": "nodeB"}}},
			},
			wantFilterStatuses: []*cyFilterStatus{
				&cyFilterStatus{Code: "Unschedulable", Reason: cyErrReasonExistingAntiAffinityRulesNotMatch},
				&cyFilterStatus{Code: "Unschedulable", Reason: cyErrReasonExistingAntiAffinityRulesNotMatch},
			},
			name: "TestRequiredAffinityMultipleNodes/Test existing pod's anti-affinity: incoming pod wouldn't considered as a fit as it violates each existingPod's terms on all nodes",
		},
		{
			pod: cyMakePod().Namespace(defaultNamespace).PodAntiAffinityExists("foo", "zone", cyRequired).
				PodAntiAffinityExists("bar", "region", cyRequired).Obj(),
			pods: []*v1.Pod{
				cyMakePod().Node("nodeA").Labels(map[string]string{"foo": ""}).Obj(),
				cyMakePod().Node("nodeB").Labels(map[string]string{"bar": ""}).Obj(),
			},
			nodes: []*v1.Node{
				{ObjectMeta: metav1.ObjectMeta{Name: "nodeA", Labels: map[string]string{"region": "r1", "zone": "z1", "hostname": "nodeA"}}},
				{ObjectMeta: metav1.ObjectMeta{Name: "nodeB", Labels: map[string]string{"region": "r1", "zone": "z2", "hostname": "nodeB"}}},
			},
			wantFilterStatuses: []*cyFilterStatus{
				&cyFilterStatus{Code: "Unschedulable", Reason: cyErrReasonAntiAffinityRulesNotMatch},
				&cyFilterStatus{Code: "Unschedulable", Reason: cyErrReasonAntiAffinityRulesNotMatch},
			},
			name: "TestRequiredAffinityMultipleNodes/Test incoming pod's anti-affinity: incoming pod wouldn't considered as a fit as it at least violates one anti-affinity rule of existingPod",
		},
		{
			pod: cyMakePod().Label("foo", "").Label("bar", "").Obj(),
			pods: []*v1.Pod{
				cyMakePod().Node("nodeA").Namespace(defaultNamespace).PodAntiAffinityExists("foo", "invalid-node-label", cyRequired).
					PodAntiAffinityExists("bar", "zone", cyRequired).Obj(),
			},
			nodes: []*v1.Node{
				{ObjectMeta: metav1.ObjectMeta{Name: "nodeA", Labels: map[string]string{"region": "r1", "zone": "z1", "hostname": "nodeA"}}},
				{ObjectMeta: metav1.ObjectMeta{Name: "nodeB", Labels: map[string]string{"region": "r1", "zone": "z2", "hostname": "nodeB"}}},
			},
			wantFilterStatuses: []*cyFilterStatus{
				&cyFilterStatus{Code: "Unschedulable", Reason: cyErrReasonExistingAntiAffinityRulesNotMatch},
				nil,
			},
			name: "TestRequiredAffinityMultipleNodes/Test existing pod's anti-affinity: only when labelSelector and topologyKey both match, it's counted as a single term match - case when one term has invalid topologyKey",
		},
		{
			pod: cyMakePod().Namespace(defaultNamespace).PodAntiAffinityExists("foo", "invalid-node-label", cyRequired).
				PodAntiAffinityExists("bar", "zone", cyRequired).Obj(),
			pods: []*v1.Pod{
				cyMakePod().Name("podA").Node("nodeA").Labels(map[string]string{"foo": "", "bar": ""}).Obj(),
			},
			nodes: []*v1.Node{
				{ObjectMeta: metav1.ObjectMeta{Name: "nodeA", Labels: map[string]string{"region": "r1", "zone": "z1", "hostname": "nodeA"}}},
				{ObjectMeta: metav1.ObjectMeta{Name: "nodeB", Labels: map[string]string{"region": "r1", "zone": "z2", "hostname": "nodeB"}}},
			},
			wantFilterStatuses: []*cyFilterStatus{
				&cyFilterStatus{Code: "Unschedulable", Reason: cyErrReasonAntiAffinityRulesNotMatch},
				nil,
			},
			name: "TestRequiredAffinityMultipleNodes/Test incoming pod's anti-affinity: only when labelSelector and topologyKey both match, it's counted as a single term match - case when one term has invalid topologyKey",
		},
		{
			pod: cyMakePod().Label("foo", "").Label("bar", "").Obj(),
			pods: []*v1.Pod{
				cyMakePod().Namespace(defaultNamespace).Node("nodeA").PodAntiAffinityExists("foo", "region", cyRequired).
					PodAntiAffinityExists("bar", "zone", cyRequired).Obj(),
			},
			nodes: []*v1.Node{
				{ObjectMeta: metav1.ObjectMeta{Name: "nodeA", Labels: map[string]string{"region": "r1", "zone": "z1", "hostname": "nodeA"}}},
				{ObjectMeta: metav1.ObjectMeta{Name: "nodeB", Labels: map[string]string{"region": "r1", "zone": "z2", "hostname": "nodeB"}}},
			},
			wantFilterStatuses: []*cyFilterStatus{
				&cyFilterStatus{Code: "Unschedulable", Reason: cyErrReasonExistingAntiAffinityRulesNotMatch},
				&cyFilterStatus{Code: "Unschedulable", Reason: cyErrReasonExistingAntiAffinityRulesNotMatch},
			},
			name: "TestRequiredAffinityMultipleNodes/Test existing pod's anti-affinity: only when labelSelector and topologyKey both match, it's counted as a single term match - case when all terms have valid topologyKey",
		},
		{
			pod: cyMakePod().Namespace(defaultNamespace).PodAntiAffinityExists("foo", "region", cyRequired).
				PodAntiAffinityExists("bar", "zone", cyRequired).Obj(),
			pods: []*v1.Pod{
				cyMakePod().Node("nodeA").Labels(map[string]string{"foo": "", "bar": ""}).Obj(),
			},
			nodes: []*v1.Node{
				{ObjectMeta: metav1.ObjectMeta{Name: "nodeA", Labels: map[string]string{"region": "r1", "zone": "z1", "hostname": "nodeA"}}},
				{ObjectMeta: metav1.ObjectMeta{Name: "nodeB", Labels: map[string]string{"region": "r1", "zone": "z2", "hostname": "nodeB"}}},
			},
			wantFilterStatuses: []*cyFilterStatus{
				&cyFilterStatus{Code: "Unschedulable", Reason: cyErrReasonAntiAffinityRulesNotMatch},
				&cyFilterStatus{Code: "Unschedulable", Reason: cyErrReasonAntiAffinityRulesNotMatch},
			},
			name: "TestRequiredAffinityMultipleNodes/Test incoming pod's anti-affinity: only when labelSelector and topologyKey both match, it's counted as a single term match - case when all terms have valid topologyKey",
		},
		{
			pod: cyMakePod().Label("foo", "").Label("bar", "").Obj(),
			pods: []*v1.Pod{
				cyMakePod().Node("nodeA").Namespace(defaultNamespace).PodAntiAffinityExists("foo", "zone", cyRequired).
					PodAntiAffinityExists("labelA", "zone", cyRequired).Obj(),
				cyMakePod().Node("nodeB").Namespace(defaultNamespace).PodAntiAffinityExists("bar", "zone", cyRequired).
					PodAntiAffinityExists("labelB", "zone", cyRequired).Obj(),
			},
			nodes: []*v1.Node{
				{ObjectMeta: metav1.ObjectMeta{Name: "nodeA", Labels: map[string]string{"region": "r1", "zone": "z1", "hostname": "nodeA"}}},
				{ObjectMeta: metav1.ObjectMeta{Name: "nodeB", Labels: map[string]string{"region": "r1", "zone": "z2", "hostname": "nodeB"}}},
				{ObjectMeta: metav1.ObjectMeta{Name: "nodeC", Labels: map[string]string{"region": "r1", "zone": "z3", "hostname": "nodeC"}}},
			},
			wantFilterStatuses: []*cyFilterStatus{
				&cyFilterStatus{Code: "Unschedulable", Reason: cyErrReasonExistingAntiAffinityRulesNotMatch},
				&cyFilterStatus{Code: "Unschedulable", Reason: cyErrReasonExistingAntiAffinityRulesNotMatch},
				nil,
			},
			name: "TestRequiredAffinityMultipleNodes/Test existing pod's anti-affinity: existingPod on nodeA and nodeB has at least one anti-affinity term matches incoming pod, so incoming pod can only be scheduled to nodeC",
		},
		{
			pod: cyMakePod().Namespace(defaultNamespace).PodAffinityExists("foo", "region", cyRequired).
				PodAffinityExists("bar", "zone", cyRequired).Obj(),
			pods: []*v1.Pod{
				cyMakePod().Name("pod1").Labels(map[string]string{"foo": "", "bar": ""}).Node("nodeA").Obj(),
			},
			nodes: []*v1.Node{
				{ObjectMeta: metav1.ObjectMeta{Name: "nodeA", Labels: map[string]string{"region": "r1", "zone": "z1", "hostname": "nodeA"}}},
				{ObjectMeta: metav1.ObjectMeta{Name: "nodeB", Labels: map[string]string{"region": "r1", "zone": "z1", "hostname": "nodeB"}}},
			},
			wantFilterStatuses: []*cyFilterStatus{nil, nil},
			name:               "TestRequiredAffinityMultipleNodes/Test incoming pod's affinity: firstly check if all affinityTerms match, and then check if all topologyKeys match",
		},
		{
			pod: cyMakePod().Namespace(defaultNamespace).PodAffinityExists("foo", "region", cyRequired).
				PodAffinityExists("bar", "zone", cyRequired).Obj(),
			pods: []*v1.Pod{
				cyMakePod().Node("nodeA").Name("pod1").Namespace(defaultNamespace).Labels(map[string]string{"foo": ""}).Obj(),
				cyMakePod().Node("nodeB").Name("pod2").Namespace(defaultNamespace).Labels(map[string]string{"bar": ""}).Obj(),
			},
			nodes: []*v1.Node{
				{ObjectMeta: metav1.ObjectMeta{Name: "nodeA", Labels: map[string]string{"region": "r1", "zone": "z1", "hostname": "nodeA"}}},
				{ObjectMeta: metav1.ObjectMeta{Name: "nodeB", Labels: map[string]string{"region": "r1", "zone": "z2", "hostname": "nodeB"}}},
			},
			wantFilterStatuses: []*cyFilterStatus{
				&cyFilterStatus{Code: "UnschedulableAndUnresolvable", Reason: cyErrReasonAffinityRulesNotMatch},
				&cyFilterStatus{Code: "UnschedulableAndUnresolvable", Reason: cyErrReasonAffinityRulesNotMatch},
			},
			name: "TestRequiredAffinityMultipleNodes/Test incoming pod's affinity: firstly check if all affinityTerms match, and then check if all topologyKeys match, and the match logic should be satisfied on the same pod",
		},
		{
			pod: cyMakePod().Namespace(defaultNamespace).PodAffinityExists("foo", v1.LabelHostname, cyRequired).Obj(),
			pods: []*v1.Pod{
				cyMakePod().Name("pod1").Labels(map[string]string{"foo": ""}).Node("nodeA").Obj(),
			},
			nodes: []*v1.Node{
				{ObjectMeta: metav1.ObjectMeta{Name: "nodeA", Labels: map[string]string{v1.LabelHostname: "nodeA"}}},
				{ObjectMeta: metav1.ObjectMeta{Name: "nodeB", Labels: map[string]string{v1.LabelHostname: "nodeB"}}},
			},
			wantFilterStatuses: []*cyFilterStatus{
				// Result for nodeA: Schedulable
				nil,
				// Result for nodeB: Unschedulable
				&cyFilterStatus{Code: "UnschedulableAndUnresolvable", Reason: cyErrReasonAffinityRulesNotMatch},
			},
			name: "TestRequiredAffinityMultipleNodes/Test incoming pod's host-scoped affinity (fast path)",
		},
		{
			pod: cyMakePod().Namespace(defaultNamespace).PodAntiAffinityExists("foo", v1.LabelHostname, cyRequired).Obj(),
			pods: []*v1.Pod{
				cyMakePod().Name("pod1").Labels(map[string]string{"foo": ""}).Node("nodeA").Obj(),
			},
			nodes: []*v1.Node{
				{ObjectMeta: metav1.ObjectMeta{Name: "nodeA", Labels: map[string]string{v1.LabelHostname: "nodeA"}}},
				{ObjectMeta: metav1.ObjectMeta{Name: "nodeB", Labels: map[string]string{v1.LabelHostname: "nodeB"}}},
			},
			wantFilterStatuses: []*cyFilterStatus{
				// Result for nodeA: Unschedulable
				&cyFilterStatus{Code: "Unschedulable", Reason: cyErrReasonAntiAffinityRulesNotMatch},
				// Result for nodeB: Schedulable
				nil,
			},
			name: "TestRequiredAffinityMultipleNodes/Test incoming pod's host-scoped anti-affinity (fast path)",
		},
	}

	for _, test := range tests {
		t.Run(test.name, func(t *testing.T) {
			c := &Cycle{Nodes: test.nodes, Pods: test.pods, NamespaceLabels: map[string]map[string]string{"NS1": nil}}
			s, err := c.AffinityPreFilter(test.pod)
			var pre *cyFilterStatus
			switch {
			case err != nil:
				pre = &cyFilterStatus{Code: "ParseError"}
			case cyAffinityPreFilterSkips(s, test.pod):
				pre = &cyFilterStatus{Code: "Skip"}
			}
			if diff := cmp.Diff(test.wantPreFilterStatus, pre); diff != "" {
				t.Fatalf("PreFilter status (-want +got):\n%s (err %v)", diff, err)
			}
			if pre != nil {
				return
			}
			for i, node := range test.nodes {
				if diff := cmp.Diff(test.wantFilterStatuses[i], cyAffinityFilter(t, c, s, test.pod, node)); diff != "" {
					t.Errorf("Filter status on %s (-want +got):\n%s", node.Name, diff)
				}
			}
		})
	}
}

func (p *cyPodWrapper) PodAntiAffinityNotIn(key, topologyKey string, vals []string, kind cyAffinityKind) *cyPodWrapper {
	return p.PodAntiAffinity(topologyKey, cyReq(key, metav1.LabelSelectorOpNotIn, vals), kind)
}

// TestCycleAffinityPreFilterRules checks rules of v1.37.2's InterPodAffinity
// PreFilter that upstream's tests leave unasserted; each expectation is
// derived from the code (filtering.go, plugin.go, framework types.go) in the
// case's comment. These cases are ours, not upstream's.
func TestCycleAffinityPreFilterRules(t *testing.T) {
	zoneNode := func(name, zone string) *v1.Node {
		return cyMakeNode().Name(name).Label("zone", zone).Label(v1.LabelHostname, name).Obj()
	}
	nodes := []*v1.Node{zoneNode("n1", "z1"), zoneNode("n2", "z2"), cyMakeNode().Name("n3").Label(v1.LabelHostname, "n3").Obj()}
	nsLabels := map[string]map[string]string{"a": {"team": "t1"}, "b": {"team": "t2"}, "c": {"team": "t1"}}
	teamT1 := cyMakeSelector().Label("team", "t1").Obj()
	antiTerm := func(ns string, nsSel *metav1.LabelSelector) *v1.Pod {
		p := cyMakePod().Name("placed-anti").Namespace(ns).Node("n1").Obj()
		p.Spec.Affinity = &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{
			{LabelSelector: cyExists("app"), TopologyKey: "zone", NamespaceSelector: nsSel},
		}}}
		return p
	}
	incoming := func(ns string, term v1.PodAffinityTerm, anti bool) *v1.Pod {
		p := cyMakePod().Name("incoming").Namespace(ns).Label("app", "x").Obj()
		if anti {
			p.Spec.Affinity = &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{term}}}
		} else {
			p.Spec.Affinity = &v1.Affinity{PodAffinity: &v1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{term}}}
		}
		return p
	}
	placed := func(name, ns, node string, terminating bool) *v1.Pod {
		p := cyMakePod().Name(name).Namespace(ns).Node(node).Label("app", "y")
		if terminating {
			p.Terminating()
		}
		return p.Obj()
	}
	z := func(v string) TopologyPair { return TopologyPair{"zone", v} }

	tests := []struct {
		name string
		pods []*v1.Pod
		pod  *v1.Pod
		want AffinityPreFilter
	}{
		{
			// Matches(incomingPod, nsLabels): a placed pod's namespaceSelector
			// is evaluated with the incoming pod's namespace labels.
			name: "placed anti-affinity namespaceSelector matches the incoming pod's namespace labels",
			pods: []*v1.Pod{antiTerm("b", teamT1)},
			pod:  cyMakePod().Name("incoming").Namespace("c").Label("app", "x").Obj(),
			want: AffinityPreFilter{ExistingAntiAffinity: TopologyCounts{z("z1"): 1}, Affinity: TopologyCounts{}, AntiAffinity: TopologyCounts{}},
		},
		{
			name: "placed anti-affinity namespaceSelector does not match the incoming pod's namespace labels",
			pods: []*v1.Pod{antiTerm("b", teamT1)},
			pod:  cyMakePod().Name("incoming").Namespace("b").Label("app", "x").Obj(),
			want: AffinityPreFilter{ExistingAntiAffinity: TopologyCounts{}, Affinity: TopologyCounts{}, AntiAffinity: TopologyCounts{}},
		},
		{
			// An unknown namespace has no labels; `{}` matches them anyway.
			name: "placed anti-affinity namespaceSelector {} matches an unknown namespace",
			pods: []*v1.Pod{antiTerm("b", cyMakeSelector().Obj())},
			pod:  cyMakePod().Name("incoming").Namespace("unknown").Label("app", "x").Obj(),
			want: AffinityPreFilter{ExistingAntiAffinity: TopologyCounts{z("z1"): 1}, Affinity: TopologyCounts{}, AntiAffinity: TopologyCounts{}},
		},
		{
			// mergeAffinityTermNamespacesIfNotEmpty lists the known namespaces
			// that match: a and c, not b.
			name: "incoming affinity namespaceSelector is merged from the namespace labels",
			pods: []*v1.Pod{placed("pa", "a", "n1", false), placed("pb", "b", "n2", false), placed("pc", "c", "n2", false)},
			pod:  incoming("b", v1.PodAffinityTerm{LabelSelector: cyExists("app"), TopologyKey: "zone", NamespaceSelector: teamT1}, false),
			want: AffinityPreFilter{ExistingAntiAffinity: TopologyCounts{}, Affinity: TopologyCounts{z("z1"): 1, z("z2"): 1}, AntiAffinity: TopologyCounts{}},
		},
		{
			// A namespaceSelector that lists namespaces too: the union.
			name: "incoming anti-affinity namespaces and namespaceSelector are a union",
			pods: []*v1.Pod{placed("pa", "a", "n1", false), placed("pb", "b", "n2", false), placed("pd", "d", "n2", false)},
			pod: incoming("b", v1.PodAffinityTerm{LabelSelector: cyExists("app"), TopologyKey: "zone", Namespaces: []string{"d"},
				NamespaceSelector: cyMakeSelector().Label("team", "none").Obj()}, true),
			want: AffinityPreFilter{ExistingAntiAffinity: TopologyCounts{}, Affinity: TopologyCounts{}, AntiAffinity: TopologyCounts{z("z2"): 1}},
		},
		{
			// `{}` is Empty(), so it is not merged and matches every namespace.
			name: "incoming anti-affinity namespaceSelector {} matches every namespace, known or not",
			pods: []*v1.Pod{placed("pa", "a", "n1", false), placed("px", "unknown", "n2", false)},
			pod:  incoming("b", v1.PodAffinityTerm{LabelSelector: cyExists("app"), TopologyKey: "zone", NamespaceSelector: cyMakeSelector().Obj()}, true),
			want: AffinityPreFilter{ExistingAntiAffinity: TopologyCounts{}, Affinity: TopologyCounts{}, AntiAffinity: TopologyCounts{z("z1"): 1, z("z2"): 1}},
		},
		{
			// InterPodAffinity scans nodeInfo.GetPods(), terminating or not;
			// n3 has no zone label, so its pod adds nothing.
			name: "terminating placed pods count; a node without the key adds nothing",
			pods: []*v1.Pod{placed("p1", "b", "n1", true), placed("p3", "b", "n3", false)},
			pod:  incoming("b", v1.PodAffinityTerm{LabelSelector: cyExists("app"), TopologyKey: "zone"}, false),
			want: AffinityPreFilter{ExistingAntiAffinity: TopologyCounts{}, Affinity: TopologyCounts{z("z1"): 1}, AntiAffinity: TopologyCounts{}},
		},
		{
			name: "a placed pod on a node that is not in the cycle is ignored",
			pods: []*v1.Pod{placed("p1", "b", "gone", false)},
			pod:  incoming("b", v1.PodAffinityTerm{LabelSelector: cyExists("app"), TopologyKey: "zone"}, false),
			want: AffinityPreFilter{ExistingAntiAffinity: TopologyCounts{}, Affinity: TopologyCounts{}, AntiAffinity: TopologyCounts{}},
		},
		{
			// GetAffinityTerms does not merge matchLabelKeys: the API server
			// does at creation. A hand-built pod's keys are ignored.
			name: "matchLabelKeys of an incoming term are not merged by the scheduler",
			pods: []*v1.Pod{placed("p1", "b", "n1", false)},
			pod: incoming("b", v1.PodAffinityTerm{LabelSelector: cyExists("app"), TopologyKey: "zone",
				MatchLabelKeys: []string{"app"}}, false),
			want: AffinityPreFilter{ExistingAntiAffinity: TopologyCounts{}, Affinity: TopologyCounts{z("z1"): 1}, AntiAffinity: TopologyCounts{}},
		},
		{
			// NewPodInfo's error is ignored for placed pods: the failing list
			// is empty, the others still count.
			name: "a placed pod's anti-affinity that does not compile counts for nothing",
			pods: func() []*v1.Pod {
				p := antiTerm("b", nil)
				p.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(p.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution,
					v1.PodAffinityTerm{LabelSelector: cyReq("app", metav1.LabelSelectorOpIn, nil), TopologyKey: "zone"})
				return []*v1.Pod{p}
			}(),
			pod:  cyMakePod().Name("incoming").Namespace("b").Label("app", "x").Obj(),
			want: AffinityPreFilter{ExistingAntiAffinity: TopologyCounts{}, Affinity: TopologyCounts{}, AntiAffinity: TopologyCounts{}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &Cycle{Nodes: nodes, Pods: tc.pods, NamespaceLabels: nsLabels}
			got, err := c.AffinityPreFilter(tc.pod)
			if err != nil {
				t.Fatalf("AffinityPreFilter() = %v", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("AffinityPreFilter() (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("an incoming term that does not compile is an error", func(t *testing.T) {
		c := &Cycle{Nodes: nodes}
		p := incoming("b", v1.PodAffinityTerm{LabelSelector: cyReq("app", metav1.LabelSelectorOpIn, nil), TopologyKey: "zone"}, false)
		if _, err := c.AffinityPreFilter(p); err == nil {
			t.Errorf("AffinityPreFilter() = nil error, want one")
		}
	})
}

// TestCycleSpreadRules checks rules of v1.37.2's PodTopologySpread PreFilter
// and PreScore that upstream's state tests leave unasserted; each
// expectation is derived from the code (common.go, filtering.go, scoring.go)
// in the case's comment. These cases are ours, not upstream's.
func TestCycleSpreadRules(t *testing.T) {
	nodes := []*v1.Node{
		cyMakeNode().Name("n1").Label("zone", "z1").Label("rack", "r1").Obj(),
		cyMakeNode().Name("n2").Label("zone", "z1").Label("rack", "r2").Obj(),
		cyMakeNode().Name("n3").Label("zone", "z2").Obj(), // no rack
		cyMakeNode().Name("n4").Label("zone", "z3").Label("rack", "r4").Obj(),
	}
	foo := func(name, node string) *cyPodWrapper { return cyMakePod().Name(name).Node(node).Label("foo", "") }
	pods := []*v1.Pod{
		foo("a", "n1").Obj(),
		foo("b", "n1").Terminating().Obj(),
		foo("c", "n2").Obj(),
		foo("d", "n3").Obj(),
		foo("e", "n4").Obj(),
	}
	c := &Cycle{Nodes: nodes, Pods: pods}
	two := int32(2)

	t.Run("PreFilter", func(t *testing.T) {
		// Terminating pods are not counted (b); n3 lacks the rack key of the
		// second constraint, so it is left out of both (z2 is no domain).
		// {} (no matchLabelKeys) is Empty: its domains count no pod.
		p := cyMakePod().Name("p").Label("foo", "").
			SpreadConstraint(1, "zone", v1.DoNotSchedule, cyExists("foo"), &two, nil, nil, nil).
			SpreadConstraint(1, "rack", v1.DoNotSchedule, cyMakeSelector().Obj(), nil, nil, nil, nil).Obj()
		got, err := c.SpreadPreFilter(p)
		if err != nil {
			t.Fatal(err)
		}
		var gotW []cySpreadWant
		for _, g := range got {
			gotW = append(gotW, cyGotSpread(g))
		}
		want := []cySpreadWant{
			{key: "zone", minDomains: 2, counts: map[string]int{"z1": 2, "z3": 1}, paths: [2]int{1, 2}},
			{key: "rack", counts: map[string]int{"r1": 0, "r2": 0, "r4": 0}, paths: [2]int{0, 0}},
		}
		for i := range want {
			want[i] = want[i].normalized()
		}
		if diff := cmp.Diff(want, gotW, cmp.AllowUnexported(cySpreadWant{})); diff != "" {
			t.Errorf("SpreadPreFilter() (-want +got):\n%s", diff)
		}
	})
	t.Run("PreScore", func(t *testing.T) {
		// Domains come from the filtered nodes (n1, n3: z1, z2); counts from
		// every node of those domains (n2's pod counts in z1; z3 is no
		// domain); the hostname key has no domains, its weight counts the
		// filtered nodes that are not ignored.
		p := cyMakePod().Name("p").Label("foo", "").
			SpreadConstraint(1, "zone", v1.ScheduleAnyway, cyExists("foo"), nil, nil, nil, nil).Obj()
		got, ok, err := c.SpreadPreScore(p, []string{"n1", "n3"})
		if err != nil || !ok {
			t.Fatalf("SpreadPreScore() = ok %v, err %v", ok, err)
		}
		cyCheckSpreadPreScore(t, got, []cySpreadScoreWant{{key: "zone", counts: map[string]int64{"z1": 2, "z2": 1}, domains: 2}}, nil)

		// A filtered node without a constraint's key is ignored.
		p = cyMakePod().Name("p").Label("foo", "").
			SpreadConstraint(1, "rack", v1.ScheduleAnyway, cyExists("foo"), nil, nil, nil, nil).
			SpreadConstraint(1, v1.LabelHostname, v1.ScheduleAnyway, cyExists("foo"), nil, nil, nil, nil).Obj()
		hostNodes := []*v1.Node{
			cyMakeNode().Name("h1").Label("rack", "r1").Label(v1.LabelHostname, "h1").Obj(),
			cyMakeNode().Name("h2").Label("rack", "r1").Label(v1.LabelHostname, "h2").Obj(),
			cyMakeNode().Name("h3").Label(v1.LabelHostname, "h3").Obj(),
		}
		hc := &Cycle{Nodes: hostNodes, Pods: []*v1.Pod{foo("x", "h2").Obj()}}
		got, ok, err = hc.SpreadPreScore(p, []string{"h1", "h2", "h3"})
		if err != nil || !ok {
			t.Fatalf("SpreadPreScore() = ok %v, err %v", ok, err)
		}
		cyCheckSpreadPreScore(t, got, []cySpreadScoreWant{
			{key: "rack", counts: map[string]int64{"r1": 1}, domains: 1},
			{key: v1.LabelHostname, counts: map[string]int64{}, domains: 2},
		}, []string{"h3"})
	})
	t.Run("PreScore skips", func(t *testing.T) {
		p := cyMakePod().Name("p").SpreadConstraint(1, "zone", v1.DoNotSchedule, cyExists("foo"), nil, nil, nil, nil).Obj()
		if _, ok, err := c.SpreadPreScore(p, []string{"n1"}); ok || err != nil {
			t.Errorf("SpreadPreScore(no ScheduleAnyway constraint) = ok %v, err %v; want Skip", ok, err)
		}
		if _, ok, err := (&Cycle{}).SpreadPreScore(cyMakePod().SpreadConstraint(1, "zone", v1.ScheduleAnyway, nil, nil, nil, nil, nil).Obj(), nil); ok || err != nil {
			t.Errorf("SpreadPreScore(no nodes) = ok %v, err %v; want Skip", ok, err)
		}
	})
}

// cySpreadFilter is PodTopologySpread's Filter over the reference's PreFilter
// state: per constraint, a node without the key is UnschedulableAndUnresolvable;
// otherwise the node's domain count, plus 1 when p matches the selector,
// minus the minimum count (0 when there are fewer domains than minDomains)
// must not exceed maxSkew.
func cySpreadFilter(s []SpreadFilterConstraint, p *v1.Pod, node *v1.Node) string {
	for _, c := range s {
		v, ok := node.Labels[c.TopologyKey]
		if !ok {
			return "UnschedulableAndUnresolvable"
		}
		minMatch := c.MinMatch
		if len(c.Counts) < int(c.MinDomains) {
			minMatch = 0
		}
		self := 0
		if c.Selector.Matches(labels.Set(p.Labels)) {
			self = 1
		}
		if c.Counts[v]+self-minMatch > int(c.MaxSkew) {
			return "Unschedulable"
		}
	}
	return "Success"
}

// cySpreadFilterCase runs one of upstream's Filter cases against the
// reference, skipping it where upstream's gate settings (both gates off
// unless the case enables the inclusion policies) make its expectation
// differ from v1.37.2's defaults.
func cySpreadFilterCase(t *testing.T, pod *v1.Pod, nodes []*v1.Node, pods []*v1.Pod, want map[string]string, inclusionGate bool) {
	t.Helper()
	for _, c := range pod.Spec.TopologySpreadConstraints {
		if !inclusionGate && (c.NodeAffinityPolicy != nil || c.NodeTaintsPolicy != nil) {
			t.Skip("upstream runs it with NodeInclusionPolicyInPodTopologySpread off; v1.37.2's default is on")
		}
		for _, k := range c.MatchLabelKeys {
			if _, ok := pod.Labels[k]; ok {
				t.Skip("upstream runs it with MatchLabelKeysInPodTopologySpread off; v1.37.2's default is on")
			}
		}
	}
	c := &Cycle{Nodes: nodes, Pods: pods}
	s, err := c.SpreadPreFilter(pod)
	if err != nil || s == nil {
		t.Fatalf("SpreadPreFilter() = %v, %v; want a state", s, err)
	}
	got := map[string]string{}
	for _, n := range nodes {
		got[n.Name] = cySpreadFilter(s, pod, n)
	}
	if len(want) == 0 {
		return // upstream checks nothing then
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Filter codes (-want +got):\n%s", diff)
	}
}

// TestCycleSpreadFilterSingleConstraint ports podtopologyspread's
// TestSingleConstraint: upstream asserts Filter's codes, so the reference's
// PreFilter state is run through Filter's rules (cySpreadFilter). The table
// is upstream's literals with only the framework types replaced.
func TestCycleSpreadFilterSingleConstraint(t *testing.T) {
	fooSelector := cyMakeSelector().Exists("foo").Obj()
	barSelector := cyMakeSelector().Exists("bar").Obj()
	ignorePolicy, honorPolicy := v1.NodeInclusionPolicyIgnore, v1.NodeInclusionPolicyHonor
	taints := []v1.Taint{{Key: v1.TaintNodeUnschedulable, Value: "", Effect: v1.TaintEffectNoSchedule}}
	_, _, _, _, _ = fooSelector, barSelector, ignorePolicy, honorPolicy, taints
	tests := []struct {
		name                      string
		pod                       *v1.Pod
		nodes                     []*v1.Node
		existingPods              []*v1.Pod
		wantStatusCode            map[string]string
		enableNodeInclusionPolicy bool
	}{
		{
			name: "TestSingleConstraint/no existing pods",
			pod: cyMakePod().Name("p").Label("foo", "").
				SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).
				Obj(),
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
				cyMakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
				cyMakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
				cyMakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
			},
			wantStatusCode: map[string]string{
				"node-a": "Success",
				"node-b": "Success",
				"node-x": "Success",
				"node-y": "Success",
			},
		},
		{
			name: "TestSingleConstraint/no existing pods, incoming pod doesn't match itself",
			pod: cyMakePod().Name("p").Label("foo", "").
				SpreadConstraint(1, "zone", v1.DoNotSchedule, barSelector, nil, nil, nil, nil).
				Obj(),
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
				cyMakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
				cyMakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
				cyMakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
			},
			wantStatusCode: map[string]string{
				"node-a": "Success",
				"node-b": "Success",
				"node-x": "Success",
				"node-y": "Success",
			},
		},
		{
			name: "TestSingleConstraint/existing pods in a different namespace do not count",
			pod: cyMakePod().Name("p").Label("foo", "").
				SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).
				Obj(),
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
				cyMakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
				cyMakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
				cyMakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
			},
			existingPods: []*v1.Pod{
				cyMakePod().Name("p-a1").Namespace("ns1").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-b1").Namespace("ns2").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-x1").Node("node-x").Label("foo", "").Obj(),
				cyMakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
			},
			wantStatusCode: map[string]string{
				"node-a": "Success",
				"node-b": "Success",
				"node-x": "Unschedulable",
				"node-y": "Unschedulable",
			},
		},
		{
			name: "TestSingleConstraint/existing pods do not match null selector",
			pod: cyMakePod().Name("p").Label("foo", "").
				SpreadConstraint(1, "zone", v1.DoNotSchedule, nil, nil, nil, nil, nil).
				Obj(),
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
				cyMakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
				cyMakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
				cyMakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
			},
			existingPods: []*v1.Pod{
				cyMakePod().Name("p-x1").Node("node-x").Label("foo", "").Obj(),
				cyMakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
			},
			wantStatusCode: map[string]string{
				"node-a": "Success",
				"node-b": "Success",
				"node-x": "Success",
				"node-y": "Success",
			},
		},
		{
			name: "TestSingleConstraint/pods spread across zones as 3/3, all nodes fit",
			pod: cyMakePod().Name("p").Label("foo", "").
				SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).
				Obj(),
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
				cyMakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
				cyMakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
				cyMakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
			},
			existingPods: []*v1.Pod{
				cyMakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
				cyMakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
				cyMakePod().Name("p-y2").Node("node-y").Label("foo", "").Obj(),
				cyMakePod().Name("p-y3").Node("node-y").Label("foo", "").Obj(),
			},
			wantStatusCode: map[string]string{
				"node-a": "Success",
				"node-b": "Success",
				"node-x": "Success",
				"node-y": "Success",
			},
		},
		{
			// TODO(Huang-Wei): maybe document this to remind users that typos on node labels
			// can cause unexpected behavior
			name: "TestSingleConstraint/pods spread across zones as 1/2 due to absence of label 'zone' on node-b",
			pod: cyMakePod().Name("p").Label("foo", "").
				SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).
				Obj(),
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
				cyMakeNode().Name("node-b").Label("zon", "zone1").Label("node", "node-b").Obj(),
				cyMakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
				cyMakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
			},
			existingPods: []*v1.Pod{
				cyMakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
				cyMakePod().Name("p-x1").Node("node-x").Label("foo", "").Obj(),
				cyMakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
			},
			wantStatusCode: map[string]string{
				"node-a": "Success",
				"node-b": "UnschedulableAndUnresolvable",
				"node-x": "Unschedulable",
				"node-y": "Unschedulable",
			},
		},
		{
			name: "TestSingleConstraint/pod cannot be scheduled as all nodes don't have label 'rack'",
			pod: cyMakePod().Name("p").Label("foo", "").
				SpreadConstraint(1, "rack", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).
				Obj(),
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
				cyMakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
			},
			wantStatusCode: map[string]string{
				"node-a": "UnschedulableAndUnresolvable",
				"node-x": "UnschedulableAndUnresolvable",
			},
		},
		{
			name: "TestSingleConstraint/pods spread across nodes as 2/1/0/3, only node-x fits",
			pod: cyMakePod().Name("p").Label("foo", "").
				SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).
				Obj(),
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
				cyMakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
				cyMakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
				cyMakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
			},
			existingPods: []*v1.Pod{
				cyMakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
				cyMakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
				cyMakePod().Name("p-y2").Node("node-y").Label("foo", "").Obj(),
				cyMakePod().Name("p-y3").Node("node-y").Label("foo", "").Obj(),
			},
			wantStatusCode: map[string]string{
				"node-a": "Unschedulable",
				"node-b": "Unschedulable",
				"node-x": "Success",
				"node-y": "Unschedulable",
			},
		},
		{
			name: "TestSingleConstraint/pods spread across nodes as 2/1/0/3, maxSkew is 2, node-b and node-x fit",
			pod: cyMakePod().Name("p").Label("foo", "").
				SpreadConstraint(2, "node", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).
				Obj(),
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
				cyMakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
				cyMakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
				cyMakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
			},
			existingPods: []*v1.Pod{
				cyMakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
				cyMakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
				cyMakePod().Name("p-y2").Node("node-y").Label("foo", "").Obj(),
				cyMakePod().Name("p-y3").Node("node-y").Label("foo", "").Obj(),
			},
			wantStatusCode: map[string]string{
				"node-a": "Unschedulable",
				"node-b": "Success",
				"node-x": "Success",
				"node-y": "Unschedulable",
			},
		},
		{
			// not a desired case, but it can happen
			// TODO(Huang-Wei): document this "pod-not-match-itself" case
			// in this case, placement of the new pod doesn't change pod distribution of the cluster
			// as the incoming pod doesn't have label "foo"
			name: "TestSingleConstraint/pods spread across nodes as 2/1/0/3, but pod doesn't match itself",
			pod: cyMakePod().Name("p").Label("bar", "").
				SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).
				Obj(),
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
				cyMakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
				cyMakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
				cyMakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
			},
			existingPods: []*v1.Pod{
				cyMakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
				cyMakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
				cyMakePod().Name("p-y2").Node("node-y").Label("foo", "").Obj(),
				cyMakePod().Name("p-y3").Node("node-y").Label("foo", "").Obj(),
			},
			wantStatusCode: map[string]string{
				"node-a": "Unschedulable",
				"node-b": "Success",
				"node-x": "Success",
				"node-y": "Unschedulable",
			},
		},
		{
			// only node-a and node-y are considered, so pods spread as 2/~1~/~0~/3
			// ps: '~num~' is a markdown symbol to denote a crossline through 'num'
			// but in this unit test, we don't run NodeAffinity/TaintToleration Predicate, so node-b and node-x are
			// still expected to be fits;
			// the fact that node-a fits can prove the underlying logic works
			name: "TestSingleConstraint/incoming pod has nodeAffinity, pods spread as 2/~1~/~0~/3, hence node-a fits",
			pod: cyMakePod().Name("p").Label("foo", "").
				NodeAffinityIn("node", []string{"node-a", "node-y"}).
				SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).
				Obj(),
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
				cyMakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
				cyMakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
				cyMakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
			},
			existingPods: []*v1.Pod{
				cyMakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
				cyMakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
				cyMakePod().Name("p-y2").Node("node-y").Label("foo", "").Obj(),
				cyMakePod().Name("p-y3").Node("node-y").Label("foo", "").Obj(),
			},
			wantStatusCode: map[string]string{
				"node-a": "Success",
				"node-b": "Success", // in real case, it's false
				"node-x": "Success", // in real case, it's false
				"node-y": "Unschedulable",
			},
		},
		{
			name: "TestSingleConstraint/terminating Pods should be excluded",
			pod: cyMakePod().Name("p").Label("foo", "").
				SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).
				Obj(),
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label("node", "node-a").Obj(),
				cyMakeNode().Name("node-b").Label("node", "node-b").Obj(),
			},
			existingPods: []*v1.Pod{
				cyMakePod().Name("p-a").Node("node-a").Label("foo", "").Terminating().Obj(),
				cyMakePod().Name("p-b").Node("node-b").Label("foo", "").Obj(),
			},
			wantStatusCode: map[string]string{
				"node-a": "Success",
				"node-b": "Unschedulable",
			},
		},
		{
			// In this unit test, NodeAffinity plugin is not involved, so node-b still fits
			name: "TestSingleConstraint/incoming pod has nodeAffinity, pods spread as 0/~2~/0/1, hence node-a fits",
			pod: cyMakePod().Name("p").Label("foo", "").
				NodeAffinityNotIn("node", []string{"node-b"}).
				SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).
				Obj(),
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
				cyMakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
				cyMakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
				cyMakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
			},
			existingPods: []*v1.Pod{
				cyMakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
				cyMakePod().Name("p-b2").Node("node-b").Label("foo", "").Obj(),
				cyMakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
			},
			wantStatusCode: map[string]string{
				"node-a": "Success",
				"node-b": "Success", // in real case, it's Unschedulable
				"node-x": "Unschedulable",
				"node-y": "Unschedulable",
			},
		},
		{
			name: "TestSingleConstraint/pods spread across nodes as 2/2/1, maxSkew is 2, and the number of domains < minDomains, then the third node fits",
			pod: cyMakePod().Name("p").Label("foo", "").SpreadConstraint(
				2,
				"node",
				v1.DoNotSchedule,
				fooSelector,
				ptr.To[int32](4), // larger than the number of domains(3)
				nil,
				nil,
				nil,
			).Obj(),
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label("node", "node-a").Obj(),
				cyMakeNode().Name("node-b").Label("node", "node-b").Obj(),
				cyMakeNode().Name("node-c").Label("node", "node-c").Obj(),
			},
			existingPods: []*v1.Pod{
				cyMakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
				cyMakePod().Name("p-b2").Node("node-b").Label("foo", "").Obj(),
				cyMakePod().Name("p-c1").Node("node-c").Label("foo", "").Obj(),
			},
			wantStatusCode: map[string]string{
				"node-a": "Unschedulable",
				"node-b": "Unschedulable",
				"node-c": "Success",
			},
		},
		{
			name: "TestSingleConstraint/pods spread across nodes as 2/2/1, maxSkew is 2, and the number of domains > minDomains, then the all nodes fit",
			pod: cyMakePod().Name("p").Label("foo", "").SpreadConstraint(
				2,
				"node",
				v1.DoNotSchedule,
				fooSelector,
				ptr.To[int32](2), // smaller than the number of domains(3)
				nil,
				nil,
				nil,
			).Obj(),
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label("node", "node-a").Obj(),
				cyMakeNode().Name("node-b").Label("node", "node-b").Obj(),
				cyMakeNode().Name("node-c").Label("node", "node-c").Obj(),
			},
			existingPods: []*v1.Pod{
				cyMakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
				cyMakePod().Name("p-b2").Node("node-b").Label("foo", "").Obj(),
				cyMakePod().Name("p-c1").Node("node-c").Label("foo", "").Obj(),
			},
			wantStatusCode: map[string]string{
				"node-a": "Success",
				"node-b": "Success",
				"node-c": "Success",
			},
		},
		{
			name: "TestSingleConstraint/pods spread across zone as 2/1, maxSkew is 2 and the number of domains < minDomains, then the third and fourth nodes fit",
			pod: cyMakePod().Name("p").Label("foo", "").SpreadConstraint(
				2,
				"zone",
				v1.DoNotSchedule,
				fooSelector,
				ptr.To[int32](3), // larger than the number of domains(2)
				nil,
				nil,
				nil,
			).Obj(),
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
				cyMakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
				cyMakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
				cyMakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
			},
			existingPods: []*v1.Pod{
				cyMakePod().Name("p-b1").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-b2").Node("node-b").Label("foo", "").Obj(),
				cyMakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
			},
			wantStatusCode: map[string]string{
				"node-a": "Unschedulable",
				"node-b": "Unschedulable",
				"node-x": "Success",
				"node-y": "Success",
			},
		},
		{
			name: "TestSingleConstraint/pods spread across zone as 2/1, maxSkew is 2 and the number of domains > minDomains, then the all nodes fit",
			pod: cyMakePod().Name("p").Label("foo", "").SpreadConstraint(
				2,
				"zone",
				v1.DoNotSchedule,
				fooSelector,
				ptr.To[int32](1), // smaller than the number of domains(2)
				nil,
				nil,
				nil,
			).Obj(),
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
				cyMakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
				cyMakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
				cyMakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
			},
			existingPods: []*v1.Pod{
				cyMakePod().Name("p-b1").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-b2").Node("node-b").Label("foo", "").Obj(),
				cyMakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
			},
			wantStatusCode: map[string]string{
				"node-a": "Success",
				"node-b": "Success",
				"node-x": "Success",
				"node-y": "Success",
			},
		},
		{
			// pods spread across node as 1/1/0/~0~
			name: "TestSingleConstraint/NodeAffinityPolicy honored with labelSelectors",
			pod: cyMakePod().Name("p").Label("foo", "").
				NodeSelector(map[string]string{"foo": ""}).
				SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).
				Obj(),
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label("node", "node-a").Label("foo", "").Obj(),
				cyMakeNode().Name("node-b").Label("node", "node-b").Label("foo", "").Obj(),
				cyMakeNode().Name("node-x").Label("node", "node-x").Label("foo", "").Obj(),
				cyMakeNode().Name("node-y").Label("node", "node-y").Obj(),
			},
			existingPods: []*v1.Pod{
				cyMakePod().Name("p-b1").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-b2").Node("node-b").Label("foo", "").Obj(),
				cyMakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
			},
			wantStatusCode: map[string]string{
				"node-a": "Unschedulable",
				"node-b": "Unschedulable",
				"node-x": "Success",
				"node-y": "Success", // in real case, when we disable NodeAffinity Plugin, node-y will be success.
			},
			enableNodeInclusionPolicy: true,
		},
		{
			// pods spread across node as 1/1/0/~1~
			name: "TestSingleConstraint/NodeAffinityPolicy ignored with labelSelectors",
			pod: cyMakePod().Name("p").Label("foo", "").
				NodeSelector(map[string]string{"foo": ""}).
				SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, nil, &ignorePolicy, nil, nil).
				Obj(),
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label("node", "node-a").Label("foo", "").Obj(),
				cyMakeNode().Name("node-b").Label("node", "node-b").Label("foo", "").Obj(),
				cyMakeNode().Name("node-x").Label("node", "node-x").Label("foo", "").Obj(),
				cyMakeNode().Name("node-y").Label("node", "node-y").Obj(),
			},
			existingPods: []*v1.Pod{
				cyMakePod().Name("p-b1").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-b2").Node("node-b").Label("foo", "").Obj(),
				cyMakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
			},
			wantStatusCode: map[string]string{
				"node-a": "Unschedulable",
				"node-b": "Unschedulable",
				"node-x": "Success",
				"node-y": "Unschedulable",
			},
			enableNodeInclusionPolicy: true,
		},
		{
			// pods spread across node as 1/1/0/~0~
			name: "TestSingleConstraint/NodeAffinityPolicy honored with nodeAffinity",
			pod: cyMakePod().Name("p").Label("foo", "").
				NodeAffinityIn("foo", []string{""}).
				SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).
				Obj(),
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label("node", "node-a").Label("foo", "").Obj(),
				cyMakeNode().Name("node-b").Label("node", "node-b").Label("foo", "").Obj(),
				cyMakeNode().Name("node-x").Label("node", "node-x").Label("foo", "").Obj(),
				cyMakeNode().Name("node-y").Label("node", "node-y").Obj(),
			},
			existingPods: []*v1.Pod{
				cyMakePod().Name("p-b1").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-b2").Node("node-b").Label("foo", "").Obj(),
				cyMakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
			},
			wantStatusCode: map[string]string{
				"node-a": "Unschedulable",
				"node-b": "Unschedulable",
				"node-x": "Success",
				"node-y": "Success", // in real case, when we disable NodeAffinity Plugin, node-y will be success.
			},
			enableNodeInclusionPolicy: true,
		},
		{
			// pods spread across node as 1/1/0/~1~
			name: "TestSingleConstraint/NodeAffinityPolicy ignored with labelSelectors",
			pod: cyMakePod().Name("p").Label("foo", "").
				NodeAffinityIn("foo", []string{""}).
				SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, nil, &ignorePolicy, nil, nil).
				Obj(),
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label("node", "node-a").Label("foo", "").Obj(),
				cyMakeNode().Name("node-b").Label("node", "node-b").Label("foo", "").Obj(),
				cyMakeNode().Name("node-x").Label("node", "node-x").Label("foo", "").Obj(),
				cyMakeNode().Name("node-y").Label("node", "node-y").Obj(),
			},
			existingPods: []*v1.Pod{
				cyMakePod().Name("p-b1").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-b2").Node("node-b").Label("foo", "").Obj(),
				cyMakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
			},
			wantStatusCode: map[string]string{
				"node-a": "Unschedulable",
				"node-b": "Unschedulable",
				"node-x": "Success",
				"node-y": "Unschedulable",
			},
			enableNodeInclusionPolicy: true,
		},
		{
			// pods spread across node as 1/1/0/~0~
			name: "TestSingleConstraint/NodeTaintsPolicy honored",
			pod: cyMakePod().Name("p").Label("foo", "").
				SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, nil, nil, &honorPolicy, nil).
				Obj(),
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label("node", "node-a").Label("foo", "").Obj(),
				cyMakeNode().Name("node-b").Label("node", "node-b").Label("foo", "").Obj(),
				cyMakeNode().Name("node-x").Label("node", "node-x").Label("foo", "").Obj(),
				cyMakeNode().Name("node-y").Label("node", "node-y").Taints(taints).Obj(),
			},
			existingPods: []*v1.Pod{
				cyMakePod().Name("p-b1").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-b2").Node("node-b").Label("foo", "").Obj(),
				cyMakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
			},
			wantStatusCode: map[string]string{
				"node-a": "Unschedulable",
				"node-b": "Unschedulable",
				"node-x": "Success",
				"node-y": "Success", // in real case, when we disable TaintToleration Plugin, node-y will be success.
			},
			enableNodeInclusionPolicy: true,
		},
		{
			// pods spread across node as 1/1/0/~1~
			name: "TestSingleConstraint/NodeTaintsPolicy ignored",
			pod: cyMakePod().Name("p").Label("foo", "").
				SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).
				Obj(),
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label("node", "node-a").Label("foo", "").Obj(),
				cyMakeNode().Name("node-b").Label("node", "node-b").Label("foo", "").Obj(),
				cyMakeNode().Name("node-x").Label("node", "node-x").Label("foo", "").Obj(),
				cyMakeNode().Name("node-y").Label("node", "node-y").Taints(taints).Obj(),
			},
			existingPods: []*v1.Pod{
				cyMakePod().Name("p-b1").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-b2").Node("node-b").Label("foo", "").Obj(),
				cyMakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
			},
			wantStatusCode: map[string]string{
				"node-a": "Unschedulable",
				"node-b": "Unschedulable",
				"node-x": "Success",
				"node-y": "Unschedulable",
			},
			enableNodeInclusionPolicy: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cySpreadFilterCase(t, tt.pod, tt.nodes, tt.existingPods, tt.wantStatusCode, tt.enableNodeInclusionPolicy)
		})
	}
}

// TestCycleSpreadFilterMultipleConstraints ports podtopologyspread's
// TestMultipleConstraints, as TestCycleSpreadFilterSingleConstraint does.
func TestCycleSpreadFilterMultipleConstraints(t *testing.T) {
	fooSelector := cyMakeSelector().Exists("foo").Obj()
	barSelector := cyMakeSelector().Exists("bar").Obj()
	ignorePolicy, honorPolicy := v1.NodeInclusionPolicyIgnore, v1.NodeInclusionPolicyHonor
	taints := []v1.Taint{{Key: v1.TaintNodeUnschedulable, Value: "", Effect: v1.TaintEffectNoSchedule}}
	_, _, _, _, _ = fooSelector, barSelector, ignorePolicy, honorPolicy, taints
	tests := []struct {
		name                      string
		pod                       *v1.Pod
		nodes                     []*v1.Node
		existingPods              []*v1.Pod
		wantStatusCode            map[string]string
		enableNodeInclusionPolicy bool
	}{
		{
			// 1. to fulfil "zone" constraint, incoming pod can be placed on any zone (hence any node)
			// 2. to fulfil "node" constraint, incoming pod can be placed on node-x
			// intersection of (1) and (2) returns node-x
			name: "TestMultipleConstraints/two Constraints on zone and node, spreads = [3/3, 2/1/0/3]",
			pod: cyMakePod().Name("p").Label("foo", "").
				SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).
				SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).
				Obj(),
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
				cyMakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
				cyMakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
				cyMakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
			},
			existingPods: []*v1.Pod{
				cyMakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
				cyMakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
				cyMakePod().Name("p-y2").Node("node-y").Label("foo", "").Obj(),
				cyMakePod().Name("p-y3").Node("node-y").Label("foo", "").Obj(),
			},
			wantStatusCode: map[string]string{
				"node-a": "Unschedulable",
				"node-b": "Unschedulable",
				"node-x": "Success",
				"node-y": "Unschedulable",
			},
		},
		{
			// 1. to fulfil "zone" constraint, incoming pod can be placed on zone1 (node-a or node-b)
			// 2. to fulfil "node" constraint, incoming pod can be placed on node-x
			// intersection of (1) and (2) returns no node
			name: "TestMultipleConstraints/two Constraints on zone and node, spreads = [3/4, 2/1/0/4]",
			pod: cyMakePod().Name("p").Label("foo", "").
				SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).
				SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).
				Obj(),
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
				cyMakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
				cyMakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
				cyMakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
			},
			existingPods: []*v1.Pod{
				cyMakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
				cyMakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
				cyMakePod().Name("p-y2").Node("node-y").Label("foo", "").Obj(),
				cyMakePod().Name("p-y3").Node("node-y").Label("foo", "").Obj(),
				cyMakePod().Name("p-y4").Node("node-y").Label("foo", "").Obj(),
			},
			wantStatusCode: map[string]string{
				"node-a": "Unschedulable",
				"node-b": "Unschedulable",
				"node-x": "Unschedulable",
				"node-y": "Unschedulable",
			},
		},
		{
			// 1. to fulfil "zone" constraint, incoming pod can be placed on zone2 (node-x or node-y)
			// 2. to fulfil "node" constraint, incoming pod can be placed on node-a, node-b or node-x
			// intersection of (1) and (2) returns node-x
			name: "TestMultipleConstraints/Constraints hold different labelSelectors, spreads = [1/0, 1/0/0/1]",
			pod: cyMakePod().Name("p").Label("foo", "").Label("bar", "").
				SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).
				SpreadConstraint(1, "node", v1.DoNotSchedule, barSelector, nil, nil, nil, nil).
				Obj(),
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
				cyMakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
				cyMakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
				cyMakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
			},
			existingPods: []*v1.Pod{
				cyMakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-y1").Node("node-y").Label("bar", "").Obj(),
			},
			wantStatusCode: map[string]string{
				"node-a": "Unschedulable",
				"node-b": "Unschedulable",
				"node-x": "Success",
				"node-y": "Unschedulable",
			},
		},
		{
			// 1. to fulfil "zone" constraint, incoming pod can be placed on zone2 (node-x or node-y)
			// 2. to fulfil "node" constraint, incoming pod can be placed on node-a or node-b
			// intersection of (1) and (2) returns no node
			name: "TestMultipleConstraints/Constraints hold different labelSelectors, spreads = [1/0, 0/0/1/1]",
			pod: cyMakePod().Name("p").Label("foo", "").Label("bar", "").
				SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).
				SpreadConstraint(1, "node", v1.DoNotSchedule, barSelector, nil, nil, nil, nil).
				Obj(),
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
				cyMakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
				cyMakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
				cyMakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
			},
			existingPods: []*v1.Pod{
				cyMakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-x1").Node("node-x").Label("bar", "").Obj(),
				cyMakePod().Name("p-y1").Node("node-y").Label("bar", "").Obj(),
			},
			wantStatusCode: map[string]string{
				"node-a": "Unschedulable",
				"node-b": "Unschedulable",
				"node-x": "Unschedulable",
				"node-y": "Unschedulable",
			},
		},
		{
			// 1. to fulfil "zone" constraint, incoming pod can be placed on zone1 (node-a or node-b)
			// 2. to fulfil "node" constraint, incoming pod can be placed on node-b or node-x
			// intersection of (1) and (2) returns node-b
			name: "TestMultipleConstraints/Constraints hold different labelSelectors, spreads = [2/3, 1/0/0/1]",
			pod: cyMakePod().Name("p").Label("foo", "").Label("bar", "").
				SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).
				SpreadConstraint(1, "node", v1.DoNotSchedule, barSelector, nil, nil, nil, nil).
				Obj(),
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
				cyMakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
				cyMakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
				cyMakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
			},
			existingPods: []*v1.Pod{
				cyMakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-a2").Node("node-a").Label("foo", "").Label("bar", "").Obj(),
				cyMakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
				cyMakePod().Name("p-y2").Node("node-y").Label("foo", "").Label("bar", "").Obj(),
				cyMakePod().Name("p-y3").Node("node-y").Label("foo", "").Obj(),
			},
			wantStatusCode: map[string]string{
				"node-a": "Unschedulable",
				"node-b": "Success",
				"node-x": "Unschedulable",
				"node-y": "Unschedulable",
			},
		},
		{
			// 1. pod doesn't match itself on "zone" constraint, so it can be put onto any zone
			// 2. to fulfil "node" constraint, incoming pod can be placed on node-a or node-b
			// intersection of (1) and (2) returns node-a and node-b
			name: "TestMultipleConstraints/Constraints hold different labelSelectors but pod doesn't match itself on 'zone' constraint",
			pod: cyMakePod().Name("p").Label("bar", "").
				SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).
				SpreadConstraint(1, "node", v1.DoNotSchedule, barSelector, nil, nil, nil, nil).
				Obj(),
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
				cyMakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
				cyMakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
				cyMakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
			},
			existingPods: []*v1.Pod{
				cyMakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-x1").Node("node-x").Label("bar", "").Obj(),
				cyMakePod().Name("p-y1").Node("node-y").Label("bar", "").Obj(),
			},
			wantStatusCode: map[string]string{
				"node-a": "Success",
				"node-b": "Success",
				"node-x": "Unschedulable",
				"node-y": "Unschedulable",
			},
		},
		{
			// 1. to fulfil "zone" constraint, incoming pod can be placed on any zone (hence any node)
			// 2. to fulfil "node" constraint, incoming pod can be placed on node-b (node-x doesn't have the required label)
			// intersection of (1) and (2) returns node-b
			name: "TestMultipleConstraints/two Constraints on zone and node, absence of label 'node' on node-x, spreads = [1/1, 1/0/0/1]",
			pod: cyMakePod().Name("p").Label("foo", "").
				SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).
				SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).
				Obj(),
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
				cyMakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
				cyMakeNode().Name("node-x").Label("zone", "zone2").Obj(),
				cyMakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
			},
			existingPods: []*v1.Pod{
				cyMakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-y3").Node("node-y").Label("foo", "").Obj(),
			},
			wantStatusCode: map[string]string{
				"node-a": "Unschedulable",
				"node-b": "Success",
				"node-x": "UnschedulableAndUnresolvable",
				"node-y": "Unschedulable",
			},
		},
		{
			// 1. to fulfil "zone" constraint, pods spread across zones as 2/~0~
			// 2. to fulfil "node" constraint, pods spread across zones as 1/1/0/~1~
			// intersection of (1) and (2) returns node-x
			name: "TestMultipleConstraints/two node inclusion Constraints, zone: honor/ignore, node: ignore/ignore",
			pod: cyMakePod().Name("p").Label("foo", "").
				NodeSelector(map[string]string{"foo": ""}).
				SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).
				SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, nil, &ignorePolicy, nil, nil).
				Obj(),
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Label("foo", "").Obj(),
				cyMakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Label("foo", "").Obj(),
				cyMakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Label("foo", "").Obj(),
				cyMakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
			},
			existingPods: []*v1.Pod{
				cyMakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
				cyMakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
			},
			wantStatusCode: map[string]string{
				"node-a": "Unschedulable",
				"node-b": "Unschedulable",
				"node-x": "Success",
				"node-y": "Unschedulable",
			},
			enableNodeInclusionPolicy: true,
		},
		{
			// 1. to fulfil "zone" constraint, pods spread across zones as 2/0
			// 2. to fulfil "node" constraint, pods spread across zones as 1/1/0/~1~
			// intersection of (1) and (2) returns node-x
			name: "TestMultipleConstraints/two node inclusion Constraints, zone: honor/honor, node: honor/ignore",
			pod: cyMakePod().Name("p").Label("foo", "").
				SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, &honorPolicy, nil).
				SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).
				Obj(),
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Label("foo", "").Obj(),
				cyMakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Label("foo", "").Obj(),
				cyMakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Label("foo", "").Obj(),
				cyMakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Taints(taints).Obj(),
			},
			existingPods: []*v1.Pod{
				cyMakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
				cyMakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
			},
			wantStatusCode: map[string]string{
				"node-a": "Unschedulable",
				"node-b": "Unschedulable",
				"node-x": "Success",
				"node-y": "Unschedulable",
			},
			enableNodeInclusionPolicy: true,
		},
		{
			// 1. to fulfil "zone" constraint, pods spread across zones as 1/~1~
			// 2. to fulfil "node" constraint, pods spread across zones as 1/0/0/~1~
			// intersection of (1) and (2) returns node-x
			name: "TestMultipleConstraints/two node inclusion Constraints, zone: honor/ignore, node: honor/ignore",
			pod: cyMakePod().Name("p").Label("foo", "").
				NodeSelector(map[string]string{"foo": ""}).
				SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).
				SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).
				Obj(),
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Label("foo", "").Obj(),
				cyMakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
				cyMakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Label("foo", "").Obj(),
				cyMakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Label("foo", "").Taints(taints).Obj(),
			},
			existingPods: []*v1.Pod{
				cyMakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
				cyMakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
			},
			wantStatusCode: map[string]string{
				"node-a": "Unschedulable",
				"node-b": "Success",
				"node-x": "Success",
				"node-y": "Unschedulable",
			},
			enableNodeInclusionPolicy: true,
		},
		{
			// 1. to fulfil "zone" constraint, pods spread across zones as 1/0
			// 2. to fulfil "node" constraint, pods spread across zones as 1/~1~/0/~1~
			// intersection of (1) and (2) returns node-x
			name: "TestMultipleConstraints/two node inclusion Constraints, zone: honor/honor, node: ignore/ignore",
			pod: cyMakePod().Name("p").Label("foo", "").
				NodeSelector(map[string]string{"foo": ""}).
				SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, &honorPolicy, nil).
				SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, nil, &ignorePolicy, nil, nil).
				Obj(),
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Label("foo", "").Obj(),
				cyMakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
				cyMakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Label("foo", "").Obj(),
				cyMakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Label("foo", "").Taints(taints).Obj(),
			},
			existingPods: []*v1.Pod{
				cyMakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
				cyMakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
			},
			wantStatusCode: map[string]string{
				"node-a": "Unschedulable",
				"node-b": "Unschedulable",
				"node-x": "Success",
				"node-y": "Unschedulable",
			},
			enableNodeInclusionPolicy: true,
		},
		{
			// 1. to fulfil first "zone" constraint, incoming pod can be placed on zone2 (node-x or node-y)
			// 2. to fulfil second "zone" constraint, incoming pod can be placed on any zone
			// intersection of (1) and (2) returns node-x and node-y
			name: "TestMultipleConstraints/two Constraints on zone, spreads = [3/3, 2/1]",
			pod: cyMakePod().Name("p").Label("foo", "").Label("bar", "").
				SpreadConstraint(1, "zone", v1.DoNotSchedule, barSelector, nil, nil, nil, nil).
				SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).
				Obj(),
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
				cyMakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
				cyMakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
				cyMakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
			},
			existingPods: []*v1.Pod{
				cyMakePod().Name("p-a1").Node("node-a").Label("foo", "").Label("bar", "").Obj(),
				cyMakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-b1").Node("node-b").Label("foo", "").Label("bar", "").Obj(),
				cyMakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
				cyMakePod().Name("p-y2").Node("node-y").Label("foo", "").Label("bar", "").Obj(),
				cyMakePod().Name("p-y3").Node("node-y").Label("foo", "").Obj(),
			},
			wantStatusCode: map[string]string{
				"node-a": "Unschedulable",
				"node-b": "Unschedulable",
				"node-x": "Success",
				"node-y": "Success",
			},
		},
		{
			// 1. to fulfil first "zone" constraint, incoming pod can be placed on zone2 (node-x or node-y)
			// 2. to fulfil second "zone" constraint, incoming pod can be placed on zone1 (node-a or node-b)
			// intersection of (1) and (2) returns no node
			name: "TestMultipleConstraints/two Constraints on zone, spreads = [3/4, 2/1]",
			pod: cyMakePod().Name("p").Label("foo", "").Label("bar", "").
				SpreadConstraint(1, "zone", v1.DoNotSchedule, barSelector, nil, nil, nil, nil).
				SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).
				Obj(),
			nodes: []*v1.Node{
				cyMakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
				cyMakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
				cyMakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
				cyMakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
			},
			existingPods: []*v1.Pod{
				cyMakePod().Name("p-a1").Node("node-a").Label("foo", "").Label("bar", "").Obj(),
				cyMakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
				cyMakePod().Name("p-b1").Node("node-b").Label("foo", "").Label("bar", "").Obj(),
				cyMakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
				cyMakePod().Name("p-y2").Node("node-y").Label("foo", "").Label("bar", "").Obj(),
				cyMakePod().Name("p-y3").Node("node-y").Label("foo", "").Obj(),
				cyMakePod().Name("p-y4").Node("node-y").Label("foo", "").Obj(),
			},
			wantStatusCode: map[string]string{
				"node-a": "Unschedulable",
				"node-b": "Unschedulable",
				"node-x": "Unschedulable",
				"node-y": "Unschedulable",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cySpreadFilterCase(t, tt.pod, tt.nodes, tt.existingPods, tt.wantStatusCode, tt.enableNodeInclusionPolicy)
		})
	}
}
