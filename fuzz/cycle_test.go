package fuzz

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The tests in this file re-create kube-scheduler v1.37.2's own test cases
// (pkg/scheduler/framework/plugins/{interpodaffinity,podtopologyspread}) and
// check that the Cycle reference yields the counts upstream expects. Each
// case is named "UpstreamTest/upstream case name". The builders below mirror
// upstream's pkg/scheduler/testing wrappers (st.MakePod, st.MakeNode) closely
// enough that the cases read the same.

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
	if p.Labels == nil {
		p.Labels = map[string]string{}
	}
	p.Labels[k] = v
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
