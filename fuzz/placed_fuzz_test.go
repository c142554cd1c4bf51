package fuzz

import (
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/affinityq/affinityq/placed"
)

// placedWorld is what FuzzPlaced drives: a placed.Index and the Cycle the
// reference scans, fed the same nodes, placed pods and namespace labels.
// Every namespace a pod can be in exists (has a labels entry, maybe
// empty), as in a cluster, where a pod's namespace always exists.
type placedWorld struct {
	t *testing.T
	x *placed.Index
	c Cycle
}

var placedNodes = []string{"node-1", "node-2", "node-3", "node-4"}

func newPlacedWorld(t *testing.T, maxShapes int) *placedWorld {
	w := &placedWorld{t: t, c: Cycle{NamespaceLabels: map[string]map[string]string{}}}
	for _, ns := range genNamespaces {
		w.c.NamespaceLabels[ns] = map[string]string{}
	}
	lookup := func(ns string) (map[string]string, bool) {
		l, ok := w.c.NamespaceLabels[ns]
		return l, ok
	}
	w.x = placed.New(placed.WithNamespaceLabels(lookup), placed.WithMaxShapes(maxShapes))
	return w
}

// placedPod returns a pod placed on one of a few nodes (one the world
// never sets), with required and preferred terms of every kind, invalid
// ones among them.
func (g *gen) placedPod() *v1.Pod {
	g.seq++
	p := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("e%d", g.seq), UID: types.UID(fmt.Sprintf("e%d", g.seq)), Namespace: pick(g, genNamespaces), Labels: g.labels(3)},
		Spec:       v1.PodSpec{NodeName: pick(g, append(slices.Clone(placedNodes), "node-gone")), Affinity: g.affinity(2, true)},
	}
	if p.Spec.Affinity != nil && g.chance(30) {
		p.Spec.Affinity.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution = []v1.WeightedPodAffinityTerm{{Weight: int32(1 + g.intn(100)), PodAffinityTerm: g.affinityTerm(true)}}
	}
	if g.chance(10) {
		p.DeletionTimestamp = &metav1.Time{Time: time.Unix(1, 0)}
	}
	return p
}

func (g *gen) placedNode() *v1.Node {
	n := g.node()
	n.Name = pick(g, placedNodes)
	if g.chance(80) {
		n.Labels[v1.LabelHostname] = n.Name // the key PodTopologySpread's PreScore treats apart
	}
	return n
}

func (w *placedWorld) step(g *gen) {
	switch g.intn(10) {
	case 0, 1, 2:
		p := g.placedPod()
		if len(w.c.Pods) > 0 && g.chance(30) {
			// A replica of a placed pod: its terms' shapes are shared.
			from := w.c.Pods[g.intn(len(w.c.Pods))]
			name := p.Name
			p = from.DeepCopy()
			p.Name, p.UID, p.Spec.NodeName = name, types.UID(name), pick(g, placedNodes)
		}
		if err := w.x.AddPod(p); err != nil {
			w.t.Fatalf("AddPod(%s): %v", p.UID, err)
		}
		w.c.Pods = append(w.c.Pods, p)
	case 3:
		if len(w.c.Pods) > 0 {
			i := g.intn(len(w.c.Pods))
			if !w.x.RemovePod(w.c.Pods[i].UID) {
				w.t.Fatalf("RemovePod(%s) = false", w.c.Pods[i].UID)
			}
			w.c.Pods = slices.Delete(w.c.Pods, i, i+1)
		}
	case 4:
		if len(w.c.Pods) > 0 {
			i := g.intn(len(w.c.Pods))
			p := g.relabel(w.c.Pods[i])
			if g.chance(50) {
				p.Spec.NodeName = pick(g, placedNodes)
			}
			if err := w.x.UpdatePod(p); err != nil {
				w.t.Fatalf("UpdatePod(%s): %v", p.UID, err)
			}
			w.c.Pods[i] = p
		}
	case 5, 6:
		n := g.placedNode()
		if err := w.x.SetNode(n); err != nil {
			w.t.Fatalf("SetNode(%s): %v", n.Name, err)
		}
		w.c.Nodes = slices.DeleteFunc(w.c.Nodes, func(o *v1.Node) bool { return o.Name == n.Name })
		w.c.Nodes = append(w.c.Nodes, n)
	case 7:
		if len(w.c.Nodes) > 0 {
			i := g.intn(len(w.c.Nodes))
			if err := w.x.RemoveNode(w.c.Nodes[i].Name); err != nil {
				w.t.Fatalf("RemoveNode(%s): %v", w.c.Nodes[i].Name, err)
			}
			w.c.Nodes = slices.Delete(w.c.Nodes, i, i+1)
		}
	case 8:
		// A namespace relabelled, deleted (its pods stay until their own
		// deletions arrive) or created again.
		ns := pick(g, genNamespaces)
		if g.intn(4) == 0 {
			delete(w.c.NamespaceLabels, ns)
		} else {
			l := g.namespaceLabels()
			if l == nil {
				l = map[string]string{}
			}
			w.c.NamespaceLabels[ns] = l
		}
		w.x.NamespaceChanged(ns)
	}
}

// check asks both worlds about an incoming pod: InterPodAffinity's
// PreFilter counts, the counts of a cycle with one more pod placed and one
// taken away for the cycle only, and PreScore's scores.
func (w *placedWorld) check(g *gen, what string) {
	w.t.Helper()
	if err := w.x.Validate(); err != nil {
		w.t.Fatalf("%s: Validate: %v", what, err)
	}
	// The questions come from a generator of their own, seeded by two
	// bytes, so that an input's bytes go to the world it builds.
	g = &gen{data: seedBytes(int(g.byte())<<8|int(g.byte()), 512), seq: 1_000_000 + g.seq}
	in := g.placedPod()
	in.Spec.NodeName = ""
	g.spread(in)
	w.checkSpread(g, in, what)
	got, err := w.x.InterPodAffinity(in)
	want, werr := w.c.AffinityPreFilter(in)
	if (err != nil) != (werr != nil) {
		w.t.Fatalf("%s: InterPodAffinity error %v, reference %v\nincoming: %s", what, err, werr, describePod(in))
	}
	if err == nil {
		w.sameCounts(what, "PreFilter", got, want, in)
		tallied := placed.AffinityCounts{ExistingAntiAffinity: placed.Counts{}, Affinity: placed.Counts{}, AntiAffinity: placed.Counts{}}
		if err := w.x.InterPodAffinityTo(placed.AffinityTallies{ExistingAntiAffinity: tallied.ExistingAntiAffinity,
			Affinity: tallied.Affinity, AntiAffinity: tallied.AntiAffinity}, in); err != nil {
			w.t.Fatalf("%s: InterPodAffinityTo: %v", what, err)
		}
		w.sameCounts(what, "PreFilter, tallied", tallied, want, in)
		// The per-cycle overlay: one more pod on a node, one placed pod gone.
		extra := g.placedPod()
		extra.Spec.NodeName = pick(g, placedNodes)
		cycle := Cycle{Nodes: w.c.Nodes, NamespaceLabels: w.c.NamespaceLabels, Pods: append(slices.Clone(w.c.Pods), extra)}
		if err := w.x.AffinityChange(got, in, extra, nodeNamed(w.c.Nodes, extra.Spec.NodeName), 1); err != nil {
			w.t.Fatalf("%s: AffinityChange: %v", what, err)
		}
		if len(w.c.Pods) > 0 {
			i := g.intn(len(w.c.Pods))
			victim := w.c.Pods[i]
			cycle.Pods = slices.Delete(cycle.Pods, i, i+1)
			if err := w.x.AffinityChange(got, in, victim, nodeNamed(w.c.Nodes, victim.Spec.NodeName), -1); err != nil {
				w.t.Fatalf("%s: AffinityChange: %v", what, err)
			}
		}
		want, _ := cycle.AffinityPreFilter(in)
		w.sameCounts(what, "overlay", got, want, in)
	}
	args := placed.ScoreArgs{HardPodAffinityWeight: int32(g.intn(3)), IgnorePreferredTermsOfExistingPods: g.chance(50)}
	scores, skip, err := w.x.InterPodAffinityScores(in, args)
	wantScores, ok, werr := w.c.AffinityPreScore(in, AffinityScoreArgs{HardPodAffinityWeight: args.HardPodAffinityWeight, IgnorePreferredTermsOfExistingPods: args.IgnorePreferredTermsOfExistingPods})
	if (err != nil) != (werr != nil) {
		w.t.Fatalf("%s: InterPodAffinityScores error %v, reference %v\nincoming: %s", what, err, werr, describePod(in))
	}
	if err == nil && (skip != !ok || !skip && fmt.Sprint(map[string]map[string]int64(scores)) != fmt.Sprint(wantScores)) {
		w.t.Fatalf("%s: scores %v (skip %v), reference %v (skip %v)\nincoming: %s\n%s", what, scores, skip, wantScores, !ok, describePod(in), w.describe())
	}
	if err != nil {
		return
	}
	// PreScore's nodes: the score at the pairs they carry, the skip as
	// over every node.
	var some []*v1.Node
	wantAt := map[string]map[string]int64{}
	for _, n := range w.c.Nodes {
		if !g.chance(50) {
			continue
		}
		some = append(some, n)
		for k, v := range n.Labels {
			if s, ok := wantScores[k][v]; ok {
				if wantAt[k] == nil {
					wantAt[k] = map[string]int64{}
				}
				wantAt[k][v] = s
			}
		}
	}
	scores, skip, err = w.x.InterPodAffinityScoresFor(in, args, some)
	if err != nil || skip != !ok || !skip && fmt.Sprint(map[string]map[string]int64(scores)) != fmt.Sprint(wantAt) {
		w.t.Fatalf("%s: scores for %d nodes %v (skip %v, error %v), reference %v (skip %v)\nincoming: %s\n%s", what, len(some), scores, skip, err, wantAt, !ok, describePod(in), w.describe())
	}
	// The same nodes given by their values, in sorted order, each key
	// asked for at most once.
	asked := map[string]bool{}
	scores, skip, err = w.x.InterPodAffinityScoresAt(in, args, func(key string) []string {
		if asked[key] {
			w.t.Fatalf("%s: InterPodAffinityScoresAt asked for the values of %q twice", what, key)
		}
		asked[key] = true
		var vals []string
		for _, n := range some {
			if v, ok := n.Labels[key]; ok {
				vals = append(vals, v)
			}
		}
		slices.Sort(vals)
		return slices.Compact(vals)
	})
	if err != nil || skip != !ok || !skip && fmt.Sprint(map[string]map[string]int64(scores)) != fmt.Sprint(wantAt) {
		w.t.Fatalf("%s: scores at the values of %d nodes %v (skip %v, error %v), reference %v (skip %v)\nincoming: %s\n%s", what, len(some), scores, skip, err, wantAt, !ok, describePod(in), w.describe())
	}
}

// spread gives an incoming pod topology-spread constraints of every kind
// (selectors nil, {} and invalid among them; matchLabelKeys; both
// inclusion policies either way), a node selector and a toleration.
func (g *gen) spread(p *v1.Pod) {
	policies := []*v1.NodeInclusionPolicy{nil, ptrTo(v1.NodeInclusionPolicyHonor), ptrTo(v1.NodeInclusionPolicyIgnore)}
	for range g.intn(3) {
		c := v1.TopologySpreadConstraint{
			MaxSkew: 1, TopologyKey: pick(g, append(slices.Clone(genTopoKeys), v1.LabelHostname)), WhenUnsatisfiable: v1.DoNotSchedule,
			LabelSelector: g.selector(true), NodeAffinityPolicy: pick(g, policies), NodeTaintsPolicy: pick(g, policies),
		}
		if g.chance(20) {
			c.WhenUnsatisfiable = v1.ScheduleAnyway
		}
		if g.chance(20) {
			c.MatchLabelKeys = []string{pick(g, genKeys)}
		}
		p.Spec.TopologySpreadConstraints = append(p.Spec.TopologySpreadConstraints, c)
	}
	if g.chance(30) {
		p.Spec.NodeSelector = map[string]string{pick(g, genTopoKeys): pick(g, genValues[:2])}
	}
	if g.chance(30) {
		p.Spec.Tolerations = []v1.Toleration{{Key: "t", Operator: v1.TolerationOpExists}}
	}
}

func ptrTo[T any](v T) *T { return &v }

// checkSpread compares PodTopologySpread's PreFilter counts, and its
// PreScore state over a random set of filtered nodes, with the
// reference's.
func (w *placedWorld) checkSpread(g *gen, in *v1.Pod, what string) {
	w.t.Helper()
	var filtered []string
	for _, n := range append(slices.Clone(placedNodes), "node-gone") {
		if g.chance(70) {
			filtered = append(filtered, n)
		}
	}
	requireAll := g.chance(70) // false: as for the system default constraints
	scores, skip, err := w.x.PodTopologySpreadScores(in, filtered, requireAll)
	wantScores, ok, werr := w.c.SpreadPreScoreTopologies(in, filtered, requireAll)
	if (err != nil) != (werr != nil) {
		w.t.Fatalf("%s: PodTopologySpreadScores error %v, reference %v\nincoming: %s", what, err, werr, describePod(in))
	}
	if err == nil && skip != !ok {
		w.t.Fatalf("%s: PodTopologySpreadScores skip %v, reference %v", what, skip, !ok)
	}
	if err == nil && !skip {
		if !slices.Equal(scores.IgnoredNodes, wantScores.IgnoredNodes) || len(scores.Constraints) != len(wantScores.Constraints) {
			w.t.Fatalf("%s: PodTopologySpreadScores ignored %v of %d constraints, reference %v of %d", what, scores.IgnoredNodes, len(scores.Constraints), wantScores.IgnoredNodes, len(wantScores.Constraints))
		}
		for i, c := range scores.Constraints {
			r := wantScores.Constraints[i]
			if c.TopologyKey != r.TopologyKey || !maps.Equal(c.Counts, r.Counts) || !maps.Equal(c.NodeCounts, r.NodeCounts) ||
				(c.NodeCounts == nil) != (r.NodeCounts == nil) || c.NormalizingWeight != r.NormalizingWeight {
				w.t.Fatalf("%s: PodTopologySpreadScores constraint %d: %s %v per node %v %v, reference %s %v per node %v %v\nincoming: %s %v filtered %v\n%s", what, i,
					c.TopologyKey, c.Counts, c.NodeCounts, c.NormalizingWeight, r.TopologyKey, r.Counts, r.NodeCounts, r.NormalizingWeight,
					describePod(in), in.Spec.TopologySpreadConstraints, filtered, w.describe())
			}
		}
	}
	got, err := w.x.PodTopologySpread(in)
	want, werr := w.c.SpreadPreFilter(in)
	if (err != nil) != (werr != nil) {
		w.t.Fatalf("%s: PodTopologySpread error %v, reference %v\nincoming: %s", what, err, werr, describePod(in))
	}
	if err != nil {
		return
	}
	if len(got) != len(want) {
		w.t.Fatalf("%s: PodTopologySpread: %d constraints, reference %d", what, len(got), len(want))
	}
	same := func(which string) {
		w.t.Helper()
		for i := range got {
			if got[i].TopologyKey != want[i].TopologyKey || !maps.Equal(got[i].Counts, want[i].Counts) {
				w.t.Fatalf("%s: PodTopologySpread %s, constraint %d: %s %v, reference %s %v\nincoming: %s %v\n%s", what, which, i,
					got[i].TopologyKey, got[i].Counts, want[i].TopologyKey, want[i].Counts, describePod(in), in.Spec.TopologySpreadConstraints, w.describe())
			}
		}
	}
	same("PreFilter")
	// The per-cycle overlay: one more pod on a node, one placed pod gone,
	// as AddPod and RemovePod change the state.
	extra := g.placedPod()
	extra.Spec.NodeName = pick(g, placedNodes)
	changes := []struct {
		pod *v1.Pod
		d   int
	}{{extra, 1}}
	if len(w.c.Pods) > 0 {
		changes = append(changes, struct {
			pod *v1.Pod
			d   int
		}{w.c.Pods[g.intn(len(w.c.Pods))], -1})
	}
	for _, ch := range changes {
		node := nodeNamed(w.c.Nodes, ch.pod.Spec.NodeName)
		if err := w.x.SpreadChange(got, in, ch.pod, node, ch.d); err != nil {
			w.t.Fatalf("%s: SpreadChange: %v", what, err)
		}
		SpreadUpdate(want, in, ch.pod, node, ch.d)
	}
	same("overlay")
}

func (w *placedWorld) sameCounts(what, which string, got placed.AffinityCounts, want AffinityPreFilter, in *v1.Pod) {
	w.t.Helper()
	for _, c := range []struct {
		name string
		got  placed.Counts
		want TopologyCounts
	}{
		{"ExistingAntiAffinity", got.ExistingAntiAffinity, want.ExistingAntiAffinity},
		{"Affinity", got.Affinity, want.Affinity},
		{"AntiAffinity", got.AntiAffinity, want.AntiAffinity},
	} {
		conv := map[TopologyPair]int64{}
		for p, n := range c.got {
			conv[TopologyPair{p.Key, p.Value}] = n
		}
		if !maps.Equal(conv, map[TopologyPair]int64(c.want)) {
			w.t.Fatalf("%s: %s %s = %v, reference %v\nincoming: %s\n%s", what, which, c.name, conv, c.want, describePod(in), w.describe())
		}
	}
}

func nodeNamed(nodes []*v1.Node, name string) *v1.Node {
	for _, n := range nodes {
		if n.Name == name {
			return n
		}
	}
	return nil
}

func describePod(p *v1.Pod) string {
	return fmt.Sprintf("%s ns=%s labels=%v node=%q terminating=%v affinity=%s", p.UID, p.Namespace, p.Labels, p.Spec.NodeName, p.DeletionTimestamp != nil, p.Spec.Affinity.String())
}

func (w *placedWorld) describe() string {
	s := "nodes:\n"
	for _, n := range w.c.Nodes {
		s += fmt.Sprintf("  %s %v\n", n.Name, n.Labels)
	}
	s += "pods:\n"
	for _, p := range w.c.Pods {
		s += "  " + describePod(p) + "\n"
	}
	return s + fmt.Sprintf("namespaces: %v\n", w.c.NamespaceLabels)
}

func runPlaced(t *testing.T, data []byte) {
	g := &gen{data: data}
	w := newPlacedWorld(t, 1+g.intn(8))
	for step := 0; !g.done(); step++ {
		w.step(g)
		w.check(g, fmt.Sprintf("step %d", step))
	}
}

// FuzzPlaced drives random nodes, placed pods (replicas, relabels, moves,
// terminating pods, pods on nodes never set or removed), namespace labels
// and incoming pods through placed.Index and the naive reference
// (cycle.go), and after every step compares InterPodAffinity's PreFilter
// counts, the per-cycle overlay and PreScore's scores, and validates the
// index.
func FuzzPlaced(f *testing.F) {
	for seed := range 8 {
		f.Add(seedBytes(seed, maxInput))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		runPlaced(t, bounded(data))
	})
}

// TestPlacedAgainstReferenceLong runs long deterministic sequences, so
// that plain `go test` exercises the differential check too.
func TestPlacedAgainstReferenceLong(t *testing.T) {
	n := 40
	if testing.Short() {
		n = 10
	}
	for seed := range n {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			runPlaced(t, seedBytes(100+seed, 1500))
		})
	}
}
