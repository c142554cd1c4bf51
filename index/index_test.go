package index

import (
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestAddBadInput(t *testing.T) {
	tests := []struct {
		name string
		pod  *v1.Pod
		want string
	}{
		{name: "nil pod", pod: nil, want: "index: nil pod"},
		{name: "no UID", pod: &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"}}, want: "index: pod ns/p has no UID"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ix := New[any]()
			keep := pod("keep", withAffinity(term("zone", sel(exists("a")))))
			if err := ix.Add(keep); err != nil {
				t.Fatal(err)
			}
			err := ix.Add(tc.pod)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("Add error = %v, want %q", err, tc.want)
			}
			if ix.Len() != 1 {
				t.Errorf("Len = %d after a rejected Add, want 1: nothing lost", ix.Len())
			}
			if err := ix.Validate(); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestInvalidTermsAreKept(t *testing.T) {
	ix := New[any]()
	bad := pod("bad", withAffinity(term("zone", sel(metav1.LabelSelectorRequirement{Key: "a", Operator: "Bogus"}))))
	if err := ix.Add(bad); err != nil {
		t.Fatalf("Add of a pod with an invalid selector = %v, want nil (kept and always checked)", err)
	}
	p, ok := ix.Get(bad.UID)
	if !ok {
		t.Fatal("the pod is not indexed")
	}
	if p.Err() == nil || !strings.HasPrefix(p.Err().Error(), "index: ") {
		t.Errorf("Err() = %v, want an index: error naming the failed term", p.Err())
	}
	if st := ix.Stats(); st.ErrorPods != 1 {
		t.Errorf("Stats().ErrorPods = %d, want 1", st.ErrorPods)
	}
	hits := ix.NodeAdded(nil, node(nil))
	if len(hits) != 1 || hits[0].Relation != InterPodAffinity {
		t.Errorf("NodeAdded hits = %+v, want the invalid pod under InterPodAffinity", hits)
	}
}

func TestReplaceAndRemove(t *testing.T) {
	ix := New[any](WithShards(3))
	p := pod("p", withAffinity(term("zone", sel(in("app", "db")))))
	if err := ix.Add(p); err != nil {
		t.Fatal(err)
	}
	// Same UID, new rules and even a new namespace: the old entry goes.
	p2 := pod("p", inNamespace("other"), withAffinity(term("zone", sel(in("app", "cache")))))
	if err := ix.Add(p2); err != nil {
		t.Fatal(err)
	}
	if ix.Len() != 1 {
		t.Fatalf("Len = %d after a replacement, want 1", ix.Len())
	}
	if err := ix.Validate(); err != nil {
		t.Fatal(err)
	}
	q := pod("q", inNamespace("other"), onNode("n1"), withLabels(map[string]string{"app": "cache"}))
	if hits := ix.AssignedPodAdded(nil, q); len(hits) != 1 || hits[0].Pod != p2 {
		t.Errorf("hits = %+v, want the replacement", hits)
	}
	old := pod("q", onNode("n1"), withLabels(map[string]string{"app": "db"}))
	if hits := ix.AssignedPodAdded(nil, old); len(hits) != 0 {
		t.Errorf("the replaced rules still answer: %+v", hits)
	}
	if !ix.Remove(p.UID) || ix.Remove(p.UID) || ix.Remove("unknown") {
		t.Errorf("Remove: want true once, then false, and false for an unknown UID")
	}
	if _, ok := ix.Get(p.UID); ok || ix.Len() != 0 {
		t.Errorf("the pod is still there after Remove")
	}
	if err := ix.Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestLookupDoesNotAllocate(t *testing.T) {
	ix := buildIndex(t, benchPool(1000, 10))
	qo, qn := benchEvent(7)
	hits := make([]Hit[benchTag], 0, 64)
	allocs := testing.AllocsPerRun(200, func() {
		hits = ix.AssignedPodUpdated(hits[:0], qo, qn)
	})
	if allocs != 0 && !raceEnabled {
		t.Errorf("AssignedPodUpdated allocates %v times per lookup with a reused buffer, want 0", allocs)
	}
	if len(hits) != 10 {
		t.Errorf("%d hits, want 10", len(hits))
	}
}

func TestStats(t *testing.T) {
	ix := New[any](WithShards(2), WithPostingThreshold(2))
	for _, p := range benchPool(40, 1) { // 40 groups of one pod
		if err := ix.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	always := pod("always", withAnti(term("zone", sel(metav1.LabelSelectorRequirement{Key: "x", Operator: metav1.LabelSelectorOpDoesNotExist}))))
	selector := pod("selector", withAffinity(v1.PodAffinityTerm{LabelSelector: sel(exists("a")), NamespaceSelector: sel(exists("team")), TopologyKey: "zone"}))
	for _, p := range []*v1.Pod{always, selector} {
		if err := ix.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	st := ix.Stats()
	if st.Pods != 42 || st.Groups != 42 || st.Terms != 82 || st.AlwaysChecked != 1 || st.SelectorTerms != 1 || st.Shards != 2 {
		t.Errorf("Stats = %+v, want 42 pods in 42 groups, 82 terms, 1 always checked, 1 selector term, 2 shards", st)
	}
	replicas := New[any]()
	for _, p := range benchPool(40, 10) {
		if err := replicas.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	if st := replicas.Stats(); st.Pods != 40 || st.Groups != 4 {
		t.Errorf("Stats = %+v, want 40 pods in 4 groups of replicas", st)
	}
	if st.Bitmaps == 0 {
		t.Errorf("Stats().Bitmaps = 0 with threshold 2, want some bitmaps: %+v", st)
	}
	if st.TopologyKeys == 0 || st.TermPostings == 0 || st.LabelPostings == 0 || st.PostingBytes == 0 {
		t.Errorf("Stats = %+v, want non-zero postings and topology keys", st)
	}
}

func TestNilEventsAffectNoOne(t *testing.T) {
	ix := New[any]()
	p := pod("p", withAnti(term("zone", sel(exists("a")))))
	if err := ix.Add(p); err != nil {
		t.Fatal(err)
	}
	if hits := ix.Lookup(nil, nil); len(hits) != 0 {
		t.Errorf("Lookup(nil event) = %v, want no hits", hits)
	}
	for _, ev := range []Event{
		{Kind: AssignedPodAdd}, {Kind: AssignedPodUpdate, NewPod: pod("q", onNode("n"))}, {Kind: AssignedPodDelete},
		{Kind: NamespaceUpdate}, {Kind: EventKind(99)},
	} {
		if hits := ix.Lookup(nil, &ev); len(hits) != 0 {
			t.Errorf("Lookup(%v with nil objects) = %v, want no hits", ev.Kind, hits)
		}
	}
	compiled, _ := Compile[any](p)
	if r, x := compiled.Affected(nil, nil); r|x != 0 {
		t.Errorf("Affected(nil) = %v, %v", r, x)
	}
}

// TestGroups follows one group of replicas through its life: replicas share
// it, it survives until its last member goes, a kept Pending comes back
// after its group was dropped, and a Pending kept by one index is indexed
// by another without touching the first's group.
func TestGroups(t *testing.T) {
	ix := New[any](WithShards(2))
	replica := func(name string) *v1.Pod {
		return pod(name, withLabels(map[string]string{"app": "web"}), withAnti(term("zone", sel(in("app", "web")))))
	}
	var kept []*Pending[any]
	for _, name := range []string{"a", "b", "c"} {
		p, err := Compile[any](replica(name))
		if err != nil {
			t.Fatal(err)
		}
		kept = append(kept, ix.Insert(p))
	}
	if kept[0].rules != kept[1].rules || kept[1].rules != kept[2].rules {
		t.Fatal("replicas do not share one group")
	}
	check := func(step string, pods, groups int, want ...string) {
		t.Helper()
		if err := ix.Validate(); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		if st := ix.Stats(); st.Pods != pods || st.Groups != groups {
			t.Errorf("%s: %d pods in %d groups, want %d in %d", step, st.Pods, st.Groups, pods, groups)
		}
		var got []string
		for _, h := range ix.AssignedPodDeleted(nil, pod("blocker", onNode("n1"), withLabels(map[string]string{"app": "web"}))) {
			got = append(got, h.Pod.Name)
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s: hits %v, want %v", step, got, want)
		}
	}
	check("three replicas", 3, 1, "a", "b", "c")
	ix.Remove(kept[0].pod.UID) // the first member goes: the last takes its place
	check("first removed", 2, 1, "b", "c")
	ix.Remove(kept[1].pod.UID)
	ix.Remove(kept[2].pod.UID)
	check("all removed", 0, 0)
	// The group is gone; the Pendings kept by the embedder still evaluate
	// and can be indexed again.
	if rel, _ := kept[1].Affected(&Event{Kind: AssignedPodDelete, OldPod: pod("x", onNode("n1"), withLabels(map[string]string{"app": "web"}))}, nil); rel != InterPodAffinity {
		t.Errorf("a removed pod's Pending evaluates to %v, want InterPodAffinity", rel)
	}
	back := ix.Insert(kept[1].WithTag("again"))
	third := ix.InsertWithTag(kept[2], "tagged")
	check("two back", 2, 1, "b", "c")
	if back.Tag() != "again" || third.Tag() != "tagged" {
		t.Errorf("Tags = %v, %v; want the new tags", back.Tag(), third.Tag())
	}
	if kept[2].Tag() != nil || third == kept[2] {
		t.Errorf("InsertWithTag changed or kept the caller's Pending")
	}
	if allocs := testing.AllocsPerRun(50, func() {
		ix.Remove(third.pod.UID)
		third = ix.InsertWithTag(kept[2], "tagged")
	}); allocs != 1 {
		t.Errorf("a remove and an InsertWithTag of a replica allocate %v times, want 1 (the kept Pending)", allocs)
	}
	tags := map[any]bool{}
	for _, h := range ix.AssignedPodDeleted(nil, pod("x", onNode("n1"), withLabels(map[string]string{"app": "web"}))) {
		tags[h.Tag] = true
	}
	if !tags["again"] || !tags["tagged"] {
		t.Errorf("hits carry tags %v, want again and tagged", tags)
	}
	// Another index takes a Pending of this one: it shares the immutable
	// rules, in a group of its own.
	other := New[any]()
	theirs := other.Insert(back)
	if theirs.rules != back.rules {
		t.Error("another index compiled rules it was given")
	}
	other.Remove(theirs.pod.UID)
	if err := other.Validate(); err != nil {
		t.Fatal(err)
	}
	check("after the other index", 2, 1, "b", "c")
}

// TestLookupReach checks which shards an event's lookup visits: an assigned
// pod's own anti-affinity sends it to every shard only when it reaches
// beyond the pod's namespace.
func TestLookupReach(t *testing.T) {
	ix := New[any](WithShards(4))
	anti := func(ns []string, nsSel *metav1.LabelSelector) podOpt {
		return withAnti(v1.PodAffinityTerm{LabelSelector: sel(exists("app")), TopologyKey: "zone", Namespaces: ns, NamespaceSelector: nsSel})
	}
	tests := []struct {
		name string
		ev   Event
		all  bool
	}{
		{"no anti-affinity", Event{Kind: AssignedPodAdd, NewPod: pod("q", onNode("n"))}, false},
		{"anti-affinity in its own namespace", Event{Kind: AssignedPodAdd, NewPod: pod("q", onNode("n"), anti(nil, nil))}, false},
		{"anti-affinity listing its own namespace", Event{Kind: AssignedPodDelete, OldPod: pod("q", onNode("n"), anti([]string{"default"}, nil))}, false},
		{"anti-affinity listing another namespace", Event{Kind: AssignedPodAdd, NewPod: pod("q", onNode("n"), anti([]string{"other"}, nil))}, true},
		{"anti-affinity by namespace selector", Event{Kind: AssignedPodAdd, NewPod: pod("q", onNode("n"), anti(nil, &metav1.LabelSelector{}))}, true},
		{"old version reaches out", Event{Kind: AssignedPodUpdate, OldPod: pod("q", onNode("n"), anti([]string{"a", "b"}, nil)), NewPod: pod("q", onNode("n"), withLabels(map[string]string{"v": "2"}))}, true},
		{"node event", Event{Kind: NodeAdd, NewNode: node(map[string]string{"zone": "z"})}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var e prepared
			prepare(&e, &tc.ev, nil, nil)
			home, all := ix.reach(&e)
			if all != tc.all {
				t.Errorf("reach(%s) visits every shard = %v, want %v", tc.name, all, tc.all)
			}
			if want := ix.homeShard(e.ns); !all && home != want {
				t.Errorf("reach(%s) home = %d, want %d", tc.name, home, want)
			}
		})
	}
}

// TestStatusOnlyUpdateAffectsNoOne checks that an update of an assigned pod
// that changes neither its labels nor its node affects no pending pod, under
// either policy, while one that changes either does.
func TestStatusOnlyUpdateAffectsNoOne(t *testing.T) {
	ix := New[any]()
	p := pod("p", withAffinity(term("zone", sel(exists("app")))), withAnti(term("host", sel(in("app", "db")))))
	if err := ix.Add(p); err != nil {
		t.Fatal(err)
	}
	q := pod("q", onNode("n1"), withLabels(map[string]string{"app": "db"}))
	status := q.DeepCopy()
	status.Status.Phase = v1.PodRunning
	status.Status.Conditions = []v1.PodCondition{{Type: v1.PodReady, Status: v1.ConditionTrue}}
	relabelled := q.DeepCopy()
	relabelled.Labels = map[string]string{"app": "web"}
	nominated := q.DeepCopy()
	nominated.Status.NominatedNodeName = "n2"
	tests := []struct {
		name     string
		old, new *v1.Pod
		want     int
	}{
		{"status only", q, status, 0},
		{"the same object", q, q, 0},
		{"labels changed", q, relabelled, 1},
		{"nominated node changed", q, nominated, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ix.AssignedPodUpdated(nil, tc.old, tc.new); len(got) != tc.want {
				t.Errorf("AssignedPodUpdated(%s) = %d hits, want %d", tc.name, len(got), tc.want)
			}
			pending, _ := ix.Get(p.UID)
			rel, tr := pending.Affected(&Event{Kind: AssignedPodUpdate, OldPod: tc.old, NewPod: tc.new}, nil)
			if got := rel|tr != 0; got != (tc.want > 0) {
				t.Errorf("Affected(%s) = %v, %v; want affected %v", tc.name, rel, tr, tc.want > 0)
			}
		})
	}
}

// TestFounderLeavesAndChanges checks that a group does not read the pod
// that founded it once that pod has left: its owner may modify it then,
// and the group's postings and answers still follow the members it has.
func TestFounderLeavesAndChanges(t *testing.T) {
	ix := New[any](WithShards(1))
	replica := func(name string) *v1.Pod {
		return pod(name, withLabels(map[string]string{"app": "web"}), withAffinity(term("zone", sel(in("app", "db")))))
	}
	founder, r1, r2 := replica("founder"), replica("r1"), replica("r2")
	for _, p := range []*v1.Pod{founder, r1, r2} {
		if err := ix.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	if st := ix.Stats(); st.Groups != 1 {
		t.Fatalf("%d groups, want the replicas in one", st.Groups)
	}
	ix.Remove(founder.UID)
	founder.Labels = map[string]string{"app": "changed", "extra": "x"} // the owner's again
	founder.Namespace = "elsewhere"
	blocker := pod("q", onNode("n1"), withLabels(map[string]string{"app": "db"}), withAnti(term("host", sel(in("app", "web")))))
	var got []string
	for _, h := range ix.AssignedPodDeleted(nil, blocker) {
		got = append(got, h.Pod.Name)
	}
	slices.Sort(got)
	if want := []string{"r1", "r2"}; !slices.Equal(got, want) {
		t.Errorf("hits %v, want %v", got, want)
	}
	if err := ix.Validate(); err != nil {
		t.Fatal(err)
	}
	ix.Remove(r1.UID)
	ix.Remove(r2.UID)
	if err := ix.Validate(); err != nil {
		t.Fatal(err)
	}
	if st := ix.Stats(); st.TermPostings+st.LabelPostings != 0 {
		t.Errorf("an empty index keeps %d term and %d label postings", st.TermPostings, st.LabelPostings)
	}
}

// TestVerdictsReadThePod checks that a lookup shares a verdict between
// groups of one shape and term matches only when the verdict read nothing
// of their pods: groups alike in shape whose pods' labels differ get their
// own verdicts on the delete of a pod that matched every affinity term (the
// self-affinity clause) and under the assigned pod's anti-affinity
// (symmetry).
func TestVerdictsReadThePod(t *testing.T) {
	ix := New[any](WithShards(1))
	// One required term on app=web each, decided by its posting: one shape.
	self := pod("self", withLabels(map[string]string{"app": "web", "x": "1", "y": "2"}), withAffinity(term("zone", sel(in("app", "web")))))
	other := pod("other", withLabels(map[string]string{"app": "db", "x": "1", "y": "1"}), withAffinity(term("zone", sel(in("app", "web")))))
	for _, p := range []*v1.Pod{self, other} {
		if err := ix.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	web := pod("q", onNode("n"), withLabels(map[string]string{"app": "web"}))
	// An anti-affinity term anchored at x, which both pods carry, that
	// only other matches: neither pod's own term matches the blocker.
	blocker := pod("b", onNode("n"), withAnti(term("host", sel(exists("x"), metav1.LabelSelectorRequirement{Key: "y", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"2"}}))))
	tests := []struct {
		name string
		ev   Event
		want map[string][2]RuleSet // pod name: relation, transition
	}{
		{"delete of a pod that matched every term", Event{Kind: AssignedPodDelete, OldPod: web},
			map[string][2]RuleSet{"self": {InterPodAffinity, InterPodAffinity}, "other": {InterPodAffinity, 0}}},
		{"add of a pod whose anti-affinity matches one", Event{Kind: AssignedPodAdd, NewPod: blocker},
			map[string][2]RuleSet{"self": {0, 0}, "other": {InterPodAffinity, 0}}},
		{"delete of a pod whose anti-affinity matches one", Event{Kind: AssignedPodDelete, OldPod: blocker},
			map[string][2]RuleSet{"self": {0, 0}, "other": {InterPodAffinity, InterPodAffinity}}},
	}
	for _, tc := range tests {
		got := map[string][2]RuleSet{}
		for _, h := range ix.Lookup(nil, &tc.ev) {
			got[h.Pod.Name] = [2]RuleSet{h.Relation, h.Transition}
		}
		for name, want := range tc.want {
			if got[name] != want {
				t.Errorf("%s: %s relation, transition = %v, want %v", tc.name, name, got[name], want)
			}
		}
	}
}

// TestAffinityTermsReadTheStoredSelector indexes pending pods created at
// version 1 whose terms name version in matchLabelKeys or mismatchLabelKeys
// and whose stored labelSelector is app In [a] alone (a pod relabelled since
// its creation, or built by hand): an assigned pod app=a,version=2 matches
// the affinity and anti-affinity terms, as kube-scheduler v1.37.2 reads the
// stored selector, and does not match the spread constraint, whose
// matchLabelKeys PodTopologySpread merges.
func TestAffinityTermsReadTheStoredSelector(t *testing.T) {
	appA := sel(in("app", "a"))
	keyed := func(keys, mismatch []string) v1.PodAffinityTerm {
		return v1.PodAffinityTerm{LabelSelector: appA, TopologyKey: "zone", MatchLabelKeys: keys, MismatchLabelKeys: mismatch}
	}
	version := []string{"version"}
	own := withLabels(map[string]string{"app": "a", "version": "1"})
	spread := pod("spread", own, withSpread("zone", appA))
	spread.Spec.TopologySpreadConstraints[0].MatchLabelKeys = version
	pending := []*v1.Pod{
		pod("anti", own, withAnti(keyed(version, nil))),
		pod("anti-mismatch", own, withAnti(keyed(nil, version))),
		pod("affinity", own, withAffinity(keyed(version, nil))),
		spread,
	}
	ix := New[any]()
	for _, p := range pending {
		if err := ix.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	// names lists the pods hit under Transition (kube-scheduler's queueing
	// hints) and those hit under Relation.
	names := func(hits []Hit[any]) (tr, rel []string) {
		for _, h := range hits {
			if h.Transition != 0 {
				tr = append(tr, h.Pod.Name)
			}
			rel = append(rel, h.Pod.Name)
		}
		slices.Sort(tr)
		slices.Sort(rel)
		return tr, rel
	}
	for _, tc := range []struct {
		version        string
		deleted, added []string // the pods hit under Transition when such an assigned pod is deleted, added
		related        []string // the pods hit under Relation, either way
	}{
		// A deletion hits "affinity" too: the pending pod matches its own
		// term, and with no pod left matching it the term is satisfiable.
		{"2", []string{"affinity", "anti", "anti-mismatch"}, []string{"affinity"}, []string{"affinity", "anti", "anti-mismatch"}},
		{"1", []string{"affinity", "anti", "anti-mismatch", "spread"}, []string{"affinity", "spread"}, []string{"affinity", "anti", "anti-mismatch", "spread"}},
	} {
		q := pod("q", onNode("n1"), withLabels(map[string]string{"app": "a", "version": tc.version}))
		for _, ev := range []struct {
			what string
			hits []Hit[any]
			want []string
		}{
			{"deleted", ix.AssignedPodDeleted(nil, q), tc.deleted},
			{"added", ix.AssignedPodAdded(nil, q), tc.added},
		} {
			tr, rel := names(ev.hits)
			if !slices.Equal(tr, ev.want) || !slices.Equal(rel, tc.related) {
				t.Errorf("an assigned pod app=a,version=%s %s affects %v (Relation %v), want %v (Relation %v)",
					tc.version, ev.what, tr, rel, ev.want, tc.related)
			}
		}
	}
}
