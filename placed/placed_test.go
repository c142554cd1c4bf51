package placed

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/affinityq/affinityq/matcher"
)

// scanPod is a placed pod with its required terms compiled, as
// kube-scheduler's PodInfo holds them.
type scanPod struct {
	pod  *v1.Pod
	anti []matcher.Term
	own  []ownTerm // every term PreScore reads
}

// scanPods compiles the placed pods' terms once, as kube-scheduler's
// PodInfos hold them.
func scanPods(pods []*v1.Pod) []scanPod {
	s := make([]scanPod, len(pods))
	for i, p := range pods {
		terms, _ := matcher.CompileRequired(p)
		s[i] = scanPod{p, terms.AntiAffinity, ownTerms(p)}
		for _, t := range terms.AntiAffinity {
			if t.Err() != nil {
				s[i].anti = nil // a list with a failed term is no terms (PodInfo)
			}
		}
	}
	return s
}

// scan computes InterPodAffinity's PreFilter counts by visiting every
// placed pod, as filtering.go does: the second line of defence behind the
// differential fuzz target against the reference in package fuzz, and the
// cost an index saves.
func scan(pods []scanPod, nodes map[string]*v1.Node, nsLabels map[string]map[string]string, in *v1.Pod) AffinityCounts {
	res := AffinityCounts{ExistingAntiAffinity: Counts{}, Affinity: Counts{}, AntiAffinity: Counts{}}
	incoming, _ := matcher.CompileRequired(in)
	for _, sp := range pods {
		e := sp.pod
		n := nodes[e.Spec.NodeName]
		if n == nil {
			continue
		}
		own := sp.anti
		for i := range own {
			if own[i].Matches(in.Namespace, in.Labels, nsLabels[in.Namespace]) {
				res.ExistingAntiAffinity.add(own[i].TopologyKey, n.Labels, 1)
			}
		}
		all := len(incoming.Affinity) > 0
		for i := range incoming.Affinity {
			all = all && resolvedMatch(&incoming.Affinity[i], e, nsLabels)
		}
		if all {
			for _, t := range incoming.Affinity {
				res.Affinity.add(t.TopologyKey, n.Labels, 1)
			}
		}
		for _, t := range incoming.AntiAffinity {
			if resolvedMatch(&t, e, nsLabels) {
				res.AntiAffinity.add(t.TopologyKey, n.Labels, 1)
			}
		}
	}
	return res
}

// resolvedMatch reports whether an incoming pod's term t matches the placed
// pod e as kube-scheduler resolves the term before it counts: its
// namespace selector, other than {}, is replaced by the names of the
// namespaces that exist and it selects. (A placed pod's term matches the
// incoming pod against its namespace's labels, none when it does not
// exist.)
func resolvedMatch(t *matcher.Term, e *v1.Pod, nsLabels map[string]map[string]string) bool {
	inScope := t.Scope.All() || slices.Contains(t.Scope.Names(), e.Namespace)
	if l, exists := nsLabels[e.Namespace]; exists && !inScope {
		inScope = t.Scope.Selector().Matches(l)
	}
	return inScope && t.Selector.Matches(e.Labels)
}

// scanScores computes InterPodAffinity's PreScore topology score by
// visiting every placed pod, as scoring.go does.
func scanScores(pods []scanPod, nodes map[string]*v1.Node, nsLabels map[string]map[string]string, in *v1.Pod, args ScoreArgs) (Scores, bool) {
	a := in.Spec.Affinity
	hasPreferred := a != nil && (a.PodAffinity != nil && len(a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution) > 0 ||
		a.PodAntiAffinity != nil && len(a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution) > 0)
	if args.IgnorePreferredTermsOfExistingPods && !hasPreferred {
		return nil, true
	}
	scores := Scores{}
	add := func(t *matcher.Term, weight int64, node *v1.Node) {
		if v, ok := node.Labels[t.TopologyKey]; ok {
			if scores[t.TopologyKey] == nil {
				scores[t.TopologyKey] = map[string]int64{}
			}
			scores[t.TopologyKey][v] += weight
		}
	}
	incoming, _ := matcher.CompileTerms(in)
	for _, sp := range pods {
		e := sp.pod
		node := nodes[e.Spec.NodeName]
		if node == nil || len(node.Labels) == 0 {
			continue
		}
		for i := range incoming.PreferredAffinity {
			if t := &incoming.PreferredAffinity[i]; resolvedMatch(t, e, nsLabels) {
				add(t, int64(t.Weight), node)
			}
		}
		for i := range incoming.PreferredAntiAffinity {
			if t := &incoming.PreferredAntiAffinity[i]; resolvedMatch(t, e, nsLabels) {
				add(t, -int64(t.Weight), node)
			}
		}
		for _, t := range sp.own {
			var w int64
			switch t.kind {
			case placedAffinity:
				if args.HardPodAffinityWeight <= 0 {
					continue
				}
				w = int64(args.HardPodAffinityWeight)
			case placedPreferred:
				w = int64(t.term.Weight)
			case placedPreferredAnti:
				w = -int64(t.term.Weight)
			default:
				continue
			}
			if t.term.Matches(in.Namespace, in.Labels, nsLabels[in.Namespace]) {
				add(t.term, w, node)
			}
		}
	}
	return scores, len(scores) == 0
}

// scoresAt returns the pairs of scores that nodes carry.
func scoresAt(scores Scores, nodes []*v1.Node) Scores {
	if scores == nil {
		return nil
	}
	at := Scores{}
	for _, n := range nodes {
		for k, v := range n.Labels {
			if s, ok := scores[k][v]; ok {
				if at[k] == nil {
					at[k] = map[string]int64{}
				}
				at[k][v] = s
			}
		}
	}
	return at
}

// world drives an Index and the plain lists scan reads with random
// operations.
type world struct {
	r        *rand.Rand
	x        *Index
	pods     map[types.UID]*v1.Pod
	nodes    map[string]*v1.Node
	nsLabels map[string]map[string]string
	seq      int
}

var (
	worldKeys   = []string{"app", "tier", "env"}
	worldValues = []string{"a", "b", "c"}
	worldNS     = []string{"n1", "n2", "n3"}
	worldTopo   = []string{"zone", "kubernetes.io/hostname", "rack"}
)

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

func (w *world) labels() map[string]string {
	l := map[string]string{}
	for range w.r.IntN(3) {
		l[pick(w.r, worldKeys)] = pick(w.r, worldValues)
	}
	return l
}

func (w *world) term() v1.PodAffinityTerm {
	t := v1.PodAffinityTerm{TopologyKey: pick(w.r, worldTopo)}
	ops := []metav1.LabelSelectorOperator{metav1.LabelSelectorOpIn, metav1.LabelSelectorOpNotIn, metav1.LabelSelectorOpExists, metav1.LabelSelectorOpDoesNotExist}
	switch w.r.IntN(8) {
	case 0: // nil selector: matches nothing
	case 1:
		t.LabelSelector = &metav1.LabelSelector{}
	default:
		t.LabelSelector = &metav1.LabelSelector{}
		for range 1 + w.r.IntN(2) {
			q := metav1.LabelSelectorRequirement{Key: pick(w.r, worldKeys), Operator: pick(w.r, ops)}
			if q.Operator == metav1.LabelSelectorOpIn || q.Operator == metav1.LabelSelectorOpNotIn {
				q.Values = []string{pick(w.r, worldValues)}
			}
			t.LabelSelector.MatchExpressions = append(t.LabelSelector.MatchExpressions, q)
		}
	}
	switch w.r.IntN(6) {
	case 0:
		t.Namespaces = []string{pick(w.r, worldNS)}
	case 1:
		t.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"team": pick(w.r, []string{"x", "y"})}}
	case 2:
		// Selectors that match a namespace without labels, and so read
		// differently a namespace that does not exist.
		q := metav1.LabelSelectorRequirement{Key: "team", Operator: metav1.LabelSelectorOpDoesNotExist}
		if w.r.IntN(2) == 0 {
			q = metav1.LabelSelectorRequirement{Key: "team", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"x"}}
		}
		t.NamespaceSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{q}}
		if w.r.IntN(2) == 0 {
			t.Namespaces = []string{pick(w.r, worldNS)}
		}
	case 3:
		t.MatchLabelKeys = []string{pick(w.r, worldKeys)}
	}
	return t
}

func (w *world) pod(node string) *v1.Pod {
	w.seq++
	p := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("p%d", w.seq), Namespace: pick(w.r, worldNS), UID: types.UID(fmt.Sprintf("uid-%d", w.seq)), Labels: w.labels()},
		Spec:       v1.PodSpec{NodeName: node, Affinity: &v1.Affinity{PodAffinity: &v1.PodAffinity{}, PodAntiAffinity: &v1.PodAntiAffinity{}}},
	}
	for range w.r.IntN(3) {
		p.Spec.Affinity.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(p.Spec.Affinity.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution, w.term())
	}
	for range w.r.IntN(3) {
		p.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(p.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution, w.term())
	}
	for range w.r.IntN(2) {
		p.Spec.Affinity.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution = append(p.Spec.Affinity.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution,
			v1.WeightedPodAffinityTerm{Weight: int32(1 + w.r.IntN(3)), PodAffinityTerm: w.term()})
	}
	for range w.r.IntN(2) {
		p.Spec.Affinity.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution = append(p.Spec.Affinity.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution,
			v1.WeightedPodAffinityTerm{Weight: int32(1 + w.r.IntN(3)), PodAffinityTerm: w.term()})
	}
	if w.r.IntN(10) == 0 {
		p.DeletionTimestamp = &metav1.Time{Time: time.Unix(1, 0)} // terminating: still counted
	}
	return p
}

func (w *world) node() *v1.Node {
	n := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("node-%d", w.r.IntN(6)), Labels: map[string]string{}}}
	for _, k := range worldTopo {
		if w.r.IntN(4) > 0 {
			n.Labels[k] = pick(w.r, []string{"1", "2"})
		}
	}
	return n
}

func (w *world) step(t *testing.T) {
	switch op := w.r.IntN(10); {
	case op < 4:
		node := fmt.Sprintf("node-%d", w.r.IntN(7)) // node-6 is never set
		p := w.pod(node)
		if len(w.pods) > 0 && w.r.IntN(3) == 0 {
			var from *v1.Pod
			for _, from = range w.pods {
				break
			}
			p = from.DeepCopy() // a replica: its terms' shapes are shared
			w.seq++
			p.Name, p.UID, p.Spec.NodeName = fmt.Sprintf("p%d", w.seq), types.UID(fmt.Sprintf("uid-%d", w.seq)), node
		}
		if err := w.x.AddPod(p); err != nil {
			t.Fatal(err)
		}
		w.pods[p.UID] = p
	case op < 5:
		for uid := range w.pods {
			if !w.x.RemovePod(uid) {
				t.Fatalf("RemovePod(%s) = false", uid)
			}
			delete(w.pods, uid)
			break
		}
	case op < 6:
		for _, p := range w.pods {
			q := p.DeepCopy()
			q.Labels = w.labels()
			if w.r.IntN(2) == 0 {
				q.Spec.NodeName = fmt.Sprintf("node-%d", w.r.IntN(7))
			}
			if err := w.x.UpdatePod(q); err != nil {
				t.Fatal(err)
			}
			w.pods[q.UID] = q
			break
		}
	case op < 8:
		n := w.node()
		if err := w.x.SetNode(n); err != nil {
			t.Fatal(err)
		}
		w.nodes[n.Name] = n
	case op < 9:
		for name := range w.nodes {
			if err := w.x.RemoveNode(name); err != nil {
				t.Fatal(err)
			}
			delete(w.nodes, name)
			break
		}
	default:
		// A namespace created, relabelled (maybe to no labels) or deleted,
		// its pods left in place.
		ns := pick(w.r, worldNS)
		switch w.r.IntN(4) {
		case 0:
			delete(w.nsLabels, ns)
		case 1:
			w.nsLabels[ns] = map[string]string{}
		default:
			w.nsLabels[ns] = map[string]string{"team": pick(w.r, []string{"x", "y"})}
		}
		w.x.NamespaceChanged(ns)
	}
}

func (w *world) check(t *testing.T, what string) {
	t.Helper()
	if err := w.x.Validate(); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	in := w.pod("")
	got, err := w.x.InterPodAffinity(in)
	if err != nil {
		t.Fatal(err)
	}
	tallied := AffinityCounts{ExistingAntiAffinity: Counts{}, Affinity: Counts{}, AntiAffinity: Counts{}}
	if err := w.x.InterPodAffinityTo(AffinityTallies{tallied.ExistingAntiAffinity, tallied.Affinity, tallied.AntiAffinity}, in); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(got, tallied); diff != "" {
		t.Fatalf("%s: InterPodAffinityTo differs from InterPodAffinity (-InterPodAffinity +InterPodAffinityTo):\n%s", what, diff)
	}
	args := ScoreArgs{HardPodAffinityWeight: int32(w.r.IntN(3)), IgnorePreferredTermsOfExistingPods: w.r.IntN(2) == 0}
	gotScores, gotSkip, err := w.x.InterPodAffinityScores(in, args)
	if err != nil {
		t.Fatal(err)
	}
	wantScores, wantSkip := scanScores(scanPods(slicesOf(w.pods)), w.nodes, w.nsLabels, in, args)
	if gotSkip != wantSkip || fmt.Sprint(gotScores) != fmt.Sprint(wantScores) {
		t.Fatalf("%s: scores %v (skip %v), want %v (skip %v)", what, gotScores, gotSkip, wantScores, wantSkip)
	}
	var some []*v1.Node
	for _, n := range w.nodes {
		if w.r.IntN(2) == 0 {
			some = append(some, n)
		}
	}
	gotScores, gotSkip, err = w.x.InterPodAffinityScoresFor(in, args, some)
	if err != nil {
		t.Fatal(err)
	}
	if want := scoresAt(wantScores, some); gotSkip != wantSkip || fmt.Sprint(gotScores) != fmt.Sprint(want) {
		t.Fatalf("%s: scores for %d nodes %v (skip %v), want %v (skip %v)", what, len(some), gotScores, gotSkip, want, wantSkip)
	}
	if err := w.x.Validate(); err != nil {
		t.Fatalf("%s, after the questions: %v", what, err)
	}
	want := scan(scanPods(slicesOf(w.pods)), w.nodes, w.nsLabels, in)
	for _, c := range []struct {
		name      string
		got, want Counts
	}{
		{"ExistingAntiAffinity", got.ExistingAntiAffinity, want.ExistingAntiAffinity},
		{"Affinity", got.Affinity, want.Affinity},
		{"AntiAffinity", got.AntiAffinity, want.AntiAffinity},
	} {
		if !maps.Equal(c.got, c.want) {
			t.Fatalf("%s: %s = %v, want %v\nincoming: ns %s labels %v affinity %v", what, c.name, c.got, c.want, in.Namespace, in.Labels, in.Spec.Affinity)
		}
	}
}

func slicesOf(m map[types.UID]*v1.Pod) []*v1.Pod {
	var s []*v1.Pod
	for _, p := range m {
		s = append(s, p)
	}
	return s
}

// TestInterPodAffinity runs random worlds (pods placed, relabelled, moved
// and removed, replicas sharing shapes, nodes set, relabelled and removed,
// namespace labels changed, shapes evicted) and after every step compares
// the counts for a random incoming pod with a scan of every placed pod, and
// validates the index.
func TestInterPodAffinity(t *testing.T) {
	seeds := 8
	if testing.Short() {
		seeds = 3
	}
	for seed := range seeds {
		w := &world{r: rand.New(rand.NewPCG(uint64(seed), 3)), pods: map[types.UID]*v1.Pod{}, nodes: map[string]*v1.Node{},
			nsLabels: map[string]map[string]string{"n1": {"team": "x"}}}
		lookup := func(ns string) (map[string]string, bool) { l, ok := w.nsLabels[ns]; return l, ok }
		w.x = New(WithNamespaceLabels(lookup), WithMaxShapes(1+seed%8))
		for i := range 250 {
			w.step(t)
			w.check(t, fmt.Sprintf("seed %d step %d", seed, i))
		}
	}
}

// TestBadInput checks that bad input is an error, never a panic, and
// changes nothing.
func TestBadInput(t *testing.T) {
	x := New()
	ok := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "n", UID: "a"}, Spec: v1.PodSpec{NodeName: "n1"}}
	if err := x.AddPod(ok); err != nil {
		t.Fatal(err)
	}
	noUID := ok.DeepCopy()
	noUID.UID = ""
	noNode := ok.DeepCopy()
	noNode.UID, noNode.Spec.NodeName = "b", ""
	unknown := ok.DeepCopy()
	unknown.UID = "c"
	for name, err := range map[string]error{
		"nil pod":        x.AddPod(nil),
		"no UID":         x.AddPod(noUID),
		"no node":        x.AddPod(noNode),
		"duplicate":      x.AddPod(ok),
		"update unknown": x.UpdatePod(unknown),
		"nil node":       x.SetNode(nil),
		"remove unknown": x.RemoveNode("nowhere"),
		"unnamed node":   x.SetNode(&v1.Node{}),
		"update no node": x.UpdatePod(noNode),
		"update nil pod": x.UpdatePod(nil),
		"remove no node": x.RemoveNode(""),
		"bad incoming":   func() error { _, err := x.InterPodAffinity(badSelector()); return err }(),
		"nil incoming":   func() error { _, err := x.InterPodAffinity(nil); return err }(),
		"update no UID":  x.UpdatePod(noUID),
		"remove n1 twice": func() error {
			_ = x.SetNode(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}})
			_ = x.RemoveNode("n1")
			return x.RemoveNode("n1")
		}(),
	} {
		if err == nil || err.Error()[:7] != "placed:" {
			t.Errorf("%s: error %v, want one prefixed placed:", name, err)
		}
	}
	if x.RemovePod("nope") {
		t.Error("RemovePod(unknown) = true")
	}
	if x.Len() != 1 {
		t.Errorf("Len = %d, want 1", x.Len())
	}
	if err := x.Validate(); err != nil {
		t.Error(err)
	}
}

func badSelector() *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "bad", Namespace: "n", UID: "bad"},
		Spec: v1.PodSpec{Affinity: &v1.Affinity{PodAffinity: &v1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
			TopologyKey:   "zone",
			LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "a", Operator: "Bogus"}}},
		}}}}},
	}
}

// TestSharedTermSets checks that placed pods share the shapes of their
// terms only when their specs decide the same terms: replicas in one
// namespace share one set, the same spec in another namespace (where a
// term without namespaces reads its own) has its own, and the shapes live
// while a pod holds them.
func TestSharedTermSets(t *testing.T) {
	x := New()
	if err := x.SetNode(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1", Labels: map[string]string{"host": "n1"}}}); err != nil {
		t.Fatal(err)
	}
	replica := func(ns, uid string) *v1.Pod {
		return &v1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: uid, Namespace: ns, UID: types.UID(uid), Labels: map[string]string{"app": "web"}},
			Spec: v1.PodSpec{NodeName: "n1", Affinity: &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
				TopologyKey: "host", LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			}}}}},
		}
	}
	for _, p := range []*v1.Pod{replica("a", "a1"), replica("a", "a2"), replica("b", "b1")} {
		if err := x.AddPod(p); err != nil {
			t.Fatal(err)
		}
	}
	if st := x.Stats(); st.PlacedShapes != 2 || len(x.ownSets) != 2 {
		t.Errorf("%d placed shapes, %d term sets; want 2 and 2 (one per namespace)", st.PlacedShapes, len(x.ownSets))
	}
	in := replica("a", "in")
	in.Spec.NodeName = ""
	want := Counts{{"host", "n1"}: 2}
	if c, err := x.InterPodAffinity(in); err != nil || !maps.Equal(c.ExistingAntiAffinity, want) {
		t.Errorf("existing anti-affinity %v (%v), want %v", c.ExistingAntiAffinity, err, want)
	}
	x.RemovePod("a1")
	if c, _ := x.InterPodAffinity(in); !maps.Equal(c.ExistingAntiAffinity, Counts{{"host", "n1"}: 1}) {
		t.Errorf("after removing a1: existing anti-affinity %v, want 1 at n1", c.ExistingAntiAffinity)
	}
	x.RemovePod("a2")
	if c, _ := x.InterPodAffinity(in); len(c.ExistingAntiAffinity) != 0 || len(x.ownSets) != 1 || x.Stats().PlacedShapes != 1 {
		t.Errorf("after removing a2: existing anti-affinity %v, %d term sets, %d shapes; want none, 1, 1", c.ExistingAntiAffinity, len(x.ownSets), x.Stats().PlacedShapes)
	}
	if err := x.Validate(); err != nil {
		t.Error(err)
	}
}

// TestAffinityChange checks the per-cycle overlay: the counts of a world
// with a pod added for one cycle, or removed, equal the base counts
// changed by AffinityChange, and the base is unchanged.
func TestAffinityChange(t *testing.T) {
	for seed := range 6 {
		w := &world{r: rand.New(rand.NewPCG(uint64(seed), 5)), pods: map[types.UID]*v1.Pod{}, nodes: map[string]*v1.Node{},
			nsLabels: map[string]map[string]string{"n2": {"team": "y"}}}
		lookup := func(ns string) (map[string]string, bool) { l, ok := w.nsLabels[ns]; return l, ok }
		w.x = New(WithNamespaceLabels(lookup))
		for i := range 150 {
			w.step(t)
			in := w.pod("")
			base, err := w.x.InterPodAffinity(in)
			if err != nil {
				t.Fatal(err)
			}
			// Place one more pod for the cycle only, and take one away.
			extra := w.pod(fmt.Sprintf("node-%d", w.r.IntN(7)))
			c := AffinityCounts{ExistingAntiAffinity: maps.Clone(base.ExistingAntiAffinity), Affinity: maps.Clone(base.Affinity), AntiAffinity: maps.Clone(base.AntiAffinity)}
			if err := w.x.AffinityChange(c, in, extra, w.nodes[extra.Spec.NodeName], 1); err != nil {
				t.Fatal(err)
			}
			pods := slicesOf(w.pods)
			var victim *v1.Pod
			if len(pods) > 0 {
				victim = pods[w.r.IntN(len(pods))]
				if err := w.x.AffinityChange(c, in, victim, w.nodes[victim.Spec.NodeName], -1); err != nil {
					t.Fatal(err)
				}
			}
			var cycle []*v1.Pod
			for _, p := range pods {
				if p != victim {
					cycle = append(cycle, p)
				}
			}
			want := scan(scanPods(append(cycle, extra)), w.nodes, w.nsLabels, in)
			if !maps.Equal(c.ExistingAntiAffinity, want.ExistingAntiAffinity) || !maps.Equal(c.Affinity, want.Affinity) || !maps.Equal(c.AntiAffinity, want.AntiAffinity) {
				t.Fatalf("seed %d step %d: overlay counts %+v, want %+v", seed, i, c, want)
			}
			if again, _ := w.x.InterPodAffinity(in); !maps.Equal(again.Affinity, base.Affinity) || !maps.Equal(again.AntiAffinity, base.AntiAffinity) || !maps.Equal(again.ExistingAntiAffinity, base.ExistingAntiAffinity) {
				t.Fatalf("seed %d step %d: the overlay changed the base", seed, i)
			}
		}
	}
}

// TestPodTopologySpread checks PodTopologySpread's PreFilter counts on a
// small cluster: zero domains included, terminating pods and other
// namespaces left out, nodes without every constraint's key left out, the
// node affinity policy honoured by default and the taints policy when
// asked, a {} selector counting nothing, and counts kept as pods come and
// go.
func TestPodTopologySpread(t *testing.T) {
	x := New()
	node := func(name, zone string, taint bool) *v1.Node {
		n := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"zone": zone, "host": name}}}
		if taint {
			n.Spec.Taints = []v1.Taint{{Key: "t", Effect: v1.TaintEffectNoSchedule}}
		}
		return n
	}
	for _, n := range []*v1.Node{node("a", "z1", false), node("b", "z1", true), node("c", "z2", false), node("d", "z3", false),
		{ObjectMeta: metav1.ObjectMeta{Name: "nozone", Labels: map[string]string{"host": "nozone"}}}} {
		if err := x.SetNode(n); err != nil {
			t.Fatal(err)
		}
	}
	pod := func(name, ns, node string, terminating bool) *v1.Pod {
		p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, UID: types.UID(name), Labels: map[string]string{"app": "web"}}, Spec: v1.PodSpec{NodeName: node}}
		if terminating {
			p.DeletionTimestamp = &metav1.Time{Time: time.Unix(1, 0)}
		}
		return p
	}
	for _, p := range []*v1.Pod{pod("p1", "ns", "a", false), pod("p2", "ns", "b", false), pod("p3", "ns", "c", true),
		pod("p4", "other", "c", false), pod("p5", "ns", "nozone", false), pod("p6", "ns", "gone", false)} {
		if err := x.AddPod(p); err != nil {
			t.Fatal(err)
		}
	}
	honor := v1.NodeInclusionPolicyHonor
	in := func(sel *metav1.LabelSelector, taints *v1.NodeInclusionPolicy, nodeSelector map[string]string) *v1.Pod {
		return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "in", Namespace: "ns", UID: "in"}, Spec: v1.PodSpec{
			NodeSelector: nodeSelector,
			TopologySpreadConstraints: []v1.TopologySpreadConstraint{{
				MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: v1.DoNotSchedule, LabelSelector: sel, NodeTaintsPolicy: taints,
			}}}}
	}
	web := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	for _, tc := range []struct {
		name string
		pod  *v1.Pod
		want map[string]int
	}{
		{"defaults", in(web, nil, nil), map[string]int{"z1": 2, "z2": 0, "z3": 0}},
		{"taints honoured", in(web, &honor, nil), map[string]int{"z1": 1, "z2": 0, "z3": 0}},
		{"node selector honoured", in(web, nil, map[string]string{"zone": "z1"}), map[string]int{"z1": 2}},
		{"{} counts nothing", in(&metav1.LabelSelector{}, nil, nil), map[string]int{"z1": 0, "z2": 0, "z3": 0}},
	} {
		got, err := x.PodTopologySpread(tc.pod)
		if err != nil || len(got) != 1 || !maps.Equal(got[0].Counts, tc.want) {
			t.Errorf("%s: PodTopologySpread = %v, %v; want counts %v", tc.name, got, err, tc.want)
		}
	}
	// A domain whose nodes are all left out is absent; a toleration, or a
	// taint's removal with the labels unchanged, brings its nodes back,
	// and a tainted node that moves takes its domain's absence along
	// (asked twice with the same tolerations: the index keeps which nodes
	// they leave out until a node changes).
	tolerating := in(web, &honor, nil)
	tolerating.Spec.Tolerations = []v1.Toleration{{Key: "t", Operator: v1.TolerationOpExists}}
	for _, step := range []struct {
		name  string
		nodes []*v1.Node
		pod   *v1.Pod
		want  map[string]int
	}{
		{"a domain of tainted nodes only", []*v1.Node{node("e", "z4", true)}, in(web, &honor, nil), map[string]int{"z1": 1, "z2": 0, "z3": 0}},
		{"the taints tolerated", nil, tolerating, map[string]int{"z1": 2, "z2": 0, "z3": 0, "z4": 0}},
		{"not tolerated again", nil, in(web, &honor, nil), map[string]int{"z1": 1, "z2": 0, "z3": 0}},
		{"a tainted node moves", []*v1.Node{node("e", "z5", true)}, in(web, &honor, nil), map[string]int{"z1": 1, "z2": 0, "z3": 0}},
		{"a taint goes, the labels unchanged", []*v1.Node{node("b", "z1", false)}, in(web, &honor, nil), map[string]int{"z1": 2, "z2": 0, "z3": 0}},
		{"the last taint goes", []*v1.Node{node("e", "z5", false)}, in(web, &honor, nil), map[string]int{"z1": 2, "z2": 0, "z3": 0, "z5": 0}},
	} {
		for _, n := range step.nodes {
			if err := x.SetNode(n); err != nil {
				t.Fatal(err)
			}
		}
		got, err := x.PodTopologySpread(step.pod)
		if err != nil || len(got) != 1 || !maps.Equal(got[0].Counts, step.want) {
			t.Errorf("%s: PodTopologySpread = %v, %v; want counts %v", step.name, got, err, step.want)
		}
		if err := x.Validate(); err != nil {
			t.Errorf("%s: %v", step.name, err)
		}
	}
	if err := x.RemoveNode("e"); err != nil {
		t.Fatal(err)
	}
	x.RemovePod("p1")
	if err := x.SetNode(node("d", "z1", false)); err != nil { // d moves to z1; z3 is gone
		t.Fatal(err)
	}
	got, _ := x.PodTopologySpread(in(web, nil, nil))
	if want := map[string]int{"z1": 1, "z2": 0}; len(got) != 1 || !maps.Equal(got[0].Counts, want) {
		t.Errorf("after a removal and a relabel: %v, want %v", got, want)
	}
	if err := x.Validate(); err != nil {
		t.Error(err)
	}
}

// TestIncomingShapesEviction checks which incoming shapes the bound keeps:
// the most recently asked, never one of the current question, and that
// the recency list follows asks, evictions and namespace changes.
func TestIncomingShapesEviction(t *testing.T) {
	x := New(WithMaxShapes(2))
	if err := x.SetNode(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1", Labels: map[string]string{"host": "n1"}}}); err != nil {
		t.Fatal(err)
	}
	// in returns an incoming pod with one required anti-affinity term per
	// value, selecting app=<value>; nsSel gives the terms a namespace
	// selector, which reads namespace labels.
	in := func(nsSel bool, values ...string) *v1.Pod {
		p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "in", Namespace: "a", UID: "in"}, Spec: v1.PodSpec{Affinity: &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{}}}}
		for _, v := range values {
			term := v1.PodAffinityTerm{TopologyKey: "host", LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": v}}}
			if nsSel {
				term.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"team": "web"}}
			}
			p.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(p.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution, term)
		}
		return p
	}
	ask := func(p *v1.Pod) {
		t.Helper()
		if _, err := x.InterPodAffinity(p); err != nil {
			t.Fatal(err)
		}
		if err := x.Validate(); err != nil {
			t.Fatal(err)
		}
	}
	kept := func() []string { // the app values of the kept shapes
		var vs []string
		for s := x.recent.newest; s != nil; s = s.older {
			vs = append(vs, s.terms[0].Selector.Positive()[0].Values()...)
		}
		return vs
	}
	check := func(what string, want ...string) {
		t.Helper()
		if got := kept(); !slices.Equal(got, want) {
			t.Errorf("%s: incoming shapes %q, newest first; want %q", what, got, want)
		}
	}
	ask(in(false, "x"))
	ask(in(false, "y"))
	ask(in(false, "x"))
	check("x, y, x", "x", "y")
	ask(in(false, "z"))
	check("then z: y, the least recently asked, goes", "z", "x")
	ask(in(false, "p", "q", "r"))
	check("one question of three shapes keeps them all", "r", "q", "p")
	ask(in(true, "s"))
	check("a namespace-selector shape: the bound again", "s", "r")
	x.NamespaceChanged("a")
	check("its namespace's labels change", "r")
	ask(in(false, "r"))
	check("asked again", "r")
}
