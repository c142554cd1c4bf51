package fuzz

import (
	"fmt"
	"maps"
	"slices"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// gen turns fuzz input into choices: every decision reads the next byte, so
// the fuzzer's mutations steer the generated objects directly. An exhausted
// input reads as zeros.
type gen struct {
	data []byte
	pos  int
	seq  int // for unique names
}

func (g *gen) byte() byte {
	if g.pos >= len(g.data) {
		return 0
	}
	b := g.data[g.pos]
	g.pos++
	return b
}

func (g *gen) done() bool { return g.pos >= len(g.data) }

func (g *gen) intn(n int) int { return int(g.byte()) % n }

func (g *gen) chance(percent int) bool { return int(g.byte())%100 < percent }

func pick[T any](g *gen, xs []T) T { return xs[g.intn(len(xs))] }

// The small universe keeps collisions frequent: the same keys, values,
// namespaces and topology keys keep coming back.
var (
	genNamespaces = []string{"ns-a", "ns-b", "ns-c"}
	genKeys       = []string{"app", "tier", "env", "example.com/role"}
	genValues     = []string{"a", "b", "c", ""}
	genTopoKeys   = []string{"zone", "host", "region"}
	genOps        = []metav1.LabelSelectorOperator{
		metav1.LabelSelectorOpIn, metav1.LabelSelectorOpNotIn,
		metav1.LabelSelectorOpExists, metav1.LabelSelectorOpDoesNotExist,
	}
)

func (g *gen) labels(maxN int) map[string]string {
	n := g.intn(maxN + 1)
	if n == 0 {
		return nil
	}
	m := make(map[string]string, n)
	for range n {
		m[pick(g, genKeys)] = pick(g, genValues)
	}
	return m
}

// selector returns nil, {}, or matchLabels and matchExpressions over the
// universe; with invalid set it sometimes breaks one requirement.
func (g *gen) selector(invalid bool) *metav1.LabelSelector {
	switch g.intn(10) {
	case 0:
		return nil
	case 1:
		return &metav1.LabelSelector{}
	}
	ls := &metav1.LabelSelector{}
	if g.chance(40) {
		ls.MatchLabels = map[string]string{pick(g, genKeys): pick(g, genValues)}
	}
	for range g.intn(3) {
		e := metav1.LabelSelectorRequirement{Key: pick(g, genKeys), Operator: pick(g, genOps)}
		if e.Operator == metav1.LabelSelectorOpIn || e.Operator == metav1.LabelSelectorOpNotIn {
			for range 1 + g.intn(2) {
				e.Values = append(e.Values, pick(g, genValues))
			}
		}
		ls.MatchExpressions = append(ls.MatchExpressions, e)
	}
	if invalid && g.chance(5) {
		switch g.intn(3) {
		case 0:
			ls.MatchExpressions = append(ls.MatchExpressions, metav1.LabelSelectorRequirement{Key: "app", Operator: "Bogus"})
		case 1:
			ls.MatchExpressions = append(ls.MatchExpressions, metav1.LabelSelectorRequirement{Key: "app", Operator: metav1.LabelSelectorOpIn})
		default:
			ls.MatchExpressions = append(ls.MatchExpressions, metav1.LabelSelectorRequirement{Key: "bad key", Operator: metav1.LabelSelectorOpExists})
		}
	}
	return ls
}

func (g *gen) affinityTerm(invalid bool) v1.PodAffinityTerm {
	t := v1.PodAffinityTerm{LabelSelector: g.selector(invalid), TopologyKey: pick(g, genTopoKeys)}
	switch g.intn(6) {
	case 0:
		t.Namespaces = []string{pick(g, genNamespaces)}
	case 1:
		t.NamespaceSelector = g.selector(invalid)
	case 2:
		t.Namespaces = []string{pick(g, genNamespaces)}
		t.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"team": pick(g, genValues[:2])}}
	}
	if g.chance(15) {
		t.MatchLabelKeys = []string{pick(g, genKeys)}
	}
	if g.chance(10) {
		t.MismatchLabelKeys = []string{pick(g, genKeys)}
	}
	return t
}

func (g *gen) affinity(maxTerms int, invalid bool) *v1.Affinity {
	if g.chance(20) {
		return nil
	}
	a := &v1.Affinity{PodAffinity: &v1.PodAffinity{}, PodAntiAffinity: &v1.PodAntiAffinity{}}
	for range g.intn(maxTerms + 1) {
		a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution, g.affinityTerm(invalid))
	}
	for range g.intn(maxTerms + 1) {
		a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution, g.affinityTerm(invalid))
	}
	if g.chance(20) {
		a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution = []v1.WeightedPodAffinityTerm{{Weight: 1, PodAffinityTerm: g.affinityTerm(invalid)}}
	}
	return a
}

// pendingPod returns a pending pod with one of a few UIDs, so that adds
// replace and removes hit.
func (g *gen) pendingPod() *v1.Pod {
	uid := types.UID(fmt.Sprintf("p%d", g.intn(12)))
	p := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: string(uid), UID: uid, Namespace: pick(g, genNamespaces), Labels: g.labels(3)},
		Spec:       v1.PodSpec{Affinity: g.affinity(2, true)},
	}
	for range g.intn(3) {
		c := v1.TopologySpreadConstraint{
			MaxSkew: 1, TopologyKey: pick(g, genTopoKeys), WhenUnsatisfiable: v1.DoNotSchedule,
			LabelSelector: g.selector(true),
		}
		if g.chance(20) {
			c.WhenUnsatisfiable = v1.ScheduleAnyway
		}
		if g.chance(20) {
			c.MatchLabelKeys = []string{pick(g, genKeys)}
		}
		p.Spec.TopologySpreadConstraints = append(p.Spec.TopologySpreadConstraints, c)
	}
	return p
}

// assignedPod returns a scheduled pod (sometimes only nominated, sometimes
// not scheduled at all), sometimes with anti-affinity of its own.
func (g *gen) assignedPod() *v1.Pod {
	g.seq++
	q := &v1.Pod{ObjectMeta: metav1.ObjectMeta{
		Name: fmt.Sprintf("q%d", g.seq), UID: types.UID(fmt.Sprintf("q%d", g.seq)),
		Namespace: pick(g, genNamespaces), Labels: g.labels(3),
	}}
	switch g.intn(10) {
	case 0:
	case 1:
		q.Status.NominatedNodeName = "node-1"
	default:
		q.Spec.NodeName = "node-1"
	}
	if g.chance(25) {
		a := g.affinity(1, true)
		if a != nil {
			a.PodAffinity = nil
			q.Spec.Affinity = a
		}
	}
	return q
}

// relabel returns a copy of q with new labels (possibly equal to the old).
func (g *gen) relabel(q *v1.Pod) *v1.Pod {
	n := q.DeepCopy()
	switch g.intn(3) {
	case 0:
		n.Labels = g.labels(3)
	case 1:
		if n.Labels == nil {
			n.Labels = map[string]string{}
		}
		n.Labels[pick(g, genKeys)] = pick(g, genValues)
	default:
		// The smallest key, not the first a range yields: map order is
		// random, and the input alone must decide the run.
		if len(n.Labels) > 0 {
			delete(n.Labels, slices.Min(slices.Collect(maps.Keys(n.Labels))))
		}
	}
	return n
}

func (g *gen) node() *v1.Node {
	n := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1", Labels: map[string]string{}}}
	for _, k := range genTopoKeys {
		if g.chance(60) {
			n.Labels[k] = pick(g, genValues[:2])
		}
	}
	if g.chance(20) {
		n.Spec.Taints = []v1.Taint{{Key: "t", Effect: v1.TaintEffectNoSchedule}}
	}
	return n
}

func (g *gen) nodeUpdate(n *v1.Node) *v1.Node {
	m := n.DeepCopy()
	if m.Labels == nil {
		m.Labels = map[string]string{} // a hint case's node
	}
	switch g.intn(3) {
	case 0:
		delete(m.Labels, pick(g, genTopoKeys))
	case 1:
		m.Labels[pick(g, genTopoKeys)] = pick(g, genValues[:3])
	default:
		if len(m.Spec.Taints) == 0 {
			m.Spec.Taints = []v1.Taint{{Key: "t", Effect: v1.TaintEffectNoSchedule}}
		} else {
			m.Spec.Taints = nil
		}
	}
	return m
}

func (g *gen) namespaceLabels() map[string]string {
	switch g.intn(3) {
	case 0:
		return nil
	case 1:
		return map[string]string{"team": pick(g, genValues[:2])}
	default:
		return map[string]string{"team": pick(g, genValues[:2]), pick(g, genKeys): pick(g, genValues)}
	}
}
