package affinityq_test

import (
	"fmt"
	"math/rand/v2"
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// gen draws random pods, nodes and cluster events from a seeded source,
// shaped like the workloads of DESIGN.md: a few apps, tiers and versions,
// terms over hostname, zone and region, namespace lists and selectors
// (some matching namespaces without labels, some invalid), matchLabelKeys
// and mismatchLabelKeys, and now and then a selector that does not compile.
type gen struct {
	r *rand.Rand
	n int // objects made, for unique names

	nodes    []*v1.Node // the nodes that exist
	assigned []*v1.Pod  // the assigned pods that exist
}

func newGen(seed uint64) *gen {
	return &gen{r: rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))}
}

var (
	genNamespaces = []*v1.Namespace{
		{ObjectMeta: metav1.ObjectMeta{Name: "ns0", Labels: map[string]string{"team": "a", "env": "prod"}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "ns1", Labels: map[string]string{"team": "b"}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "ns2", Labels: map[string]string{"team": "a"}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "ns3"}},
	}
	genApps     = []string{"web", "db", "cache", "queue"}
	genTopology = []string{v1.LabelHostname, v1.LabelTopologyZone, v1.LabelTopologyRegion}
)

func (g *gen) pick(p float64) bool { return g.r.Float64() < p }

func (g *gen) oneOf(s []string) string { return s[g.r.IntN(len(s))] }

func (g *gen) namespace() string { return genNamespaces[g.r.IntN(len(genNamespaces))].Name }

func (g *gen) labels() map[string]string {
	l := map[string]string{"app": g.oneOf(genApps)}
	if g.pick(0.7) {
		l["tier"] = g.oneOf([]string{"front", "back"})
	}
	if g.pick(0.5) {
		l["version"] = g.oneOf([]string{"1", "2"})
	}
	return l
}

func (g *gen) requirement() metav1.LabelSelectorRequirement {
	switch g.r.IntN(6) {
	case 0:
		return metav1.LabelSelectorRequirement{Key: "app", Operator: metav1.LabelSelectorOpIn, Values: []string{g.oneOf(genApps), g.oneOf(genApps)}}
	case 1:
		return metav1.LabelSelectorRequirement{Key: "tier", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"front"}}
	case 2:
		return metav1.LabelSelectorRequirement{Key: "version", Operator: metav1.LabelSelectorOpExists}
	case 3:
		return metav1.LabelSelectorRequirement{Key: "version", Operator: metav1.LabelSelectorOpDoesNotExist}
	case 4:
		return metav1.LabelSelectorRequirement{Key: "app", Operator: metav1.LabelSelectorOpNotIn, Values: []string{g.oneOf(genApps)}}
	}
	return metav1.LabelSelectorRequirement{Key: "tier", Operator: metav1.LabelSelectorOpIn, Values: []string{"back"}}
}

// selector returns a pod label selector; now and then nil, {} or invalid.
func (g *gen) selector() *metav1.LabelSelector {
	switch x := g.r.IntN(100); {
	case x < 4:
		return nil
	case x < 8:
		return &metav1.LabelSelector{}
	case x < 10:
		return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpIn}}}
	case x < 55:
		return &metav1.LabelSelector{MatchLabels: map[string]string{"app": g.oneOf(genApps)}}
	}
	s := &metav1.LabelSelector{}
	for range 1 + g.r.IntN(2) {
		s.MatchExpressions = append(s.MatchExpressions, g.requirement())
	}
	return s
}

func (g *gen) affinityTerm() v1.PodAffinityTerm {
	t := v1.PodAffinityTerm{LabelSelector: g.selector(), TopologyKey: g.oneOf(genTopology)}
	switch x := g.r.IntN(100); {
	case x < 10:
		t.Namespaces = []string{g.namespace()}
	case x < 20:
		t.NamespaceSelector = &metav1.LabelSelector{}
	case x < 26:
		t.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"team": "a"}}
	case x < 32:
		// Matches namespaces without labels: every namespace for the
		// in-tree hints.
		t.NamespaceSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "team", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"a"}}}}
	case x < 34:
		t.Namespaces = []string{g.namespace()}
		t.NamespaceSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "env", Operator: metav1.LabelSelectorOpDoesNotExist}}}
	case x < 35:
		t.NamespaceSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "team", Operator: "Bogus"}}}
	}
	if g.pick(0.1) {
		t.MatchLabelKeys = []string{"version"}
	}
	if g.pick(0.05) {
		t.MismatchLabelKeys = []string{"tier"}
	}
	return t
}

func (g *gen) terms(max int) []v1.PodAffinityTerm {
	var out []v1.PodAffinityTerm
	for range g.r.IntN(max + 1) {
		out = append(out, g.affinityTerm())
	}
	return out
}

func (g *gen) spread() v1.TopologySpreadConstraint {
	c := v1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: g.oneOf(genTopology[:2]), WhenUnsatisfiable: v1.DoNotSchedule, LabelSelector: g.selector()}
	if g.pick(0.25) {
		c.WhenUnsatisfiable = v1.ScheduleAnyway
	}
	if g.pick(0.2) {
		c.MatchLabelKeys = []string{"version"}
	}
	return c
}

func (g *gen) name(prefix string) string {
	g.n++
	return fmt.Sprintf("%s-%d", prefix, g.n)
}

// pendingPod returns a pending pod of scheduler sched with random terms.
func (g *gen) pendingPod(sched string) *v1.Pod {
	name := g.name("pending")
	p := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: g.namespace(), Name: name, UID: types.UID("uid-" + name), Labels: g.labels()},
		Spec:       v1.PodSpec{SchedulerName: sched},
	}
	aff, anti := g.terms(2), g.terms(2)
	if len(aff)+len(anti) > 0 {
		p.Spec.Affinity = &v1.Affinity{}
		if len(aff) > 0 {
			p.Spec.Affinity.PodAffinity = &v1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: aff}
		}
		if len(anti) > 0 {
			p.Spec.Affinity.PodAntiAffinity = &v1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: anti}
		}
	}
	for range g.r.IntN(3) {
		p.Spec.TopologySpreadConstraints = append(p.Spec.TopologySpreadConstraints, g.spread())
	}
	return p
}

// hardSpread reports whether p has a DoNotSchedule constraint: only then can
// PodTopologySpread reject it (its PreFilter skips the others).
func hardSpread(p *v1.Pod) bool {
	return slices.ContainsFunc(p.Spec.TopologySpreadConstraints, func(c v1.TopologySpreadConstraint) bool {
		return c.WhenUnsatisfiable == v1.DoNotSchedule
	})
}

func (g *gen) node() *v1.Node {
	name := g.name("node")
	l := map[string]string{v1.LabelHostname: name}
	if g.pick(0.9) {
		l[v1.LabelTopologyZone] = g.oneOf([]string{"z1", "z2", "z3"})
	}
	if g.pick(0.7) {
		l[v1.LabelTopologyRegion] = g.oneOf([]string{"r1", "r2"})
	}
	n := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name), Labels: l}}
	n.Status.Allocatable = v1.ResourceList{v1.ResourcePods: resource.MustParse("110")}
	return n
}

// assignedPod returns a pod bound to an existing node (or, now and then,
// only nominated to one), sometimes with required anti-affinity.
func (g *gen) assignedPod() *v1.Pod {
	name := g.name("assigned")
	p := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: g.namespace(), Name: name, UID: types.UID("uid-" + name), Labels: g.labels()},
		Spec:       v1.PodSpec{SchedulerName: v1.DefaultSchedulerName},
	}
	node := "node-0"
	if len(g.nodes) > 0 {
		node = g.nodes[g.r.IntN(len(g.nodes))].Name
	}
	p.Spec.NodeName = node
	if g.pick(0.25) {
		p.Spec.Affinity = &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: g.terms(2)}}
	}
	return p
}

// event is a cluster event as kube-scheduler's handlers turn it into
// queue calls: the events it matches, with the old and new object.
type event struct {
	what     string
	events   []fwk.ClusterEvent
	old, new any
}

// next draws an event among assigned-pod additions, relabellings and
// deletions (and deletions of nominated pending pods) and node additions,
// relabellings, re-taintings and deletions, and applies it to the model.
func (g *gen) next() event {
	switch x := g.r.IntN(100); {
	case x < 35 || len(g.assigned) == 0:
		p := g.assignedPod()
		g.assigned = append(g.assigned, p)
		return event{"assigned pod added", []fwk.ClusterEvent{framework.EventAssignedPodAdd}, nil, p}
	case x < 60:
		i := g.r.IntN(len(g.assigned))
		old := g.assigned[i]
		p := old.DeepCopy()
		p.Labels = g.labels()
		g.assigned[i] = p
		return event{"assigned pod relabelled", framework.PodSchedulingPropertiesChange(p, old, false), old, p}
	case x < 85:
		i := g.r.IntN(len(g.assigned))
		old := g.assigned[i]
		g.assigned = slices.Delete(g.assigned, i, i+1)
		return event{"assigned pod deleted", []fwk.ClusterEvent{framework.EventAssignedPodDelete}, old, nil}
	case x < 87:
		// A pending pod that held a nominated node is deleted.
		p := g.assignedPod()
		p.Status.NominatedNodeName, p.Spec.NodeName = p.Spec.NodeName, ""
		return event{"nominated pod deleted", []fwk.ClusterEvent{framework.EventAssignedPodDelete}, p, nil}
	case x < 90 || len(g.nodes) < 3:
		n := g.node()
		g.nodes = append(g.nodes, n)
		return event{"node added", []fwk.ClusterEvent{{Resource: fwk.Node, ActionType: fwk.Add}}, nil, n}
	case x < 98:
		i := g.r.IntN(len(g.nodes))
		old := g.nodes[i]
		n := old.DeepCopy()
		switch g.r.IntN(4) {
		case 0:
			n.Labels[v1.LabelTopologyZone] = g.oneOf([]string{"z1", "z2", "z3", "z4"})
		case 1:
			delete(n.Labels, g.oneOf(genTopology[1:]))
		case 2:
			n.Labels[v1.LabelTopologyRegion] = g.oneOf([]string{"r1", "r2", "r3"})
		case 3:
			if len(n.Spec.Taints) > 0 {
				n.Spec.Taints = nil
			} else {
				n.Spec.Taints = []v1.Taint{{Key: "dedicated", Value: "5", Effect: v1.TaintEffectNoSchedule}}
			}
		}
		g.nodes[i] = n
		evs := framework.NodeSchedulingPropertiesChange(n, old)
		return event{"node updated", evs, old, n}
	default:
		i := g.r.IntN(len(g.nodes))
		old := g.nodes[i]
		g.nodes = slices.Delete(g.nodes, i, i+1)
		return event{"node deleted", []fwk.ClusterEvent{{Resource: fwk.Node, ActionType: fwk.Delete}}, old, nil}
	}
}
