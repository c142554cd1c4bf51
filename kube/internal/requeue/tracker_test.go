package requeue

import (
	"slices"
	"testing"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
	"k8s.io/component-base/metrics/testutil"

	"github.com/affinityq/affinityq/index"
)

// newTestTracker returns a tracker serving "default-scheduler" over an
// informer that is never started, and that informer's store: the test
// changes the store (which runs the tracker's indexer, as a running
// informer does) and delivers the notifications itself, in any order.
func newTestTracker(t *testing.T) (*Tracker, cache.Indexer) {
	t.Helper()
	factory := informers.NewSharedInformerFactory(fake.NewClientset(), 0)
	tr, err := New(factory, true, logr.Discard())
	if err != nil {
		t.Fatal(err)
	}
	tr.Serve(v1.DefaultSchedulerName)
	return tr, factory.Core().V1().Pods().Informer().GetIndexer()
}

func testPod(name, sched string, labels map[string]string) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("uid-" + name), ResourceVersion: "1", Labels: labels},
		Spec: v1.PodSpec{SchedulerName: sched, Affinity: &v1.Affinity{PodAffinity: &v1.PodAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}},
				TopologyKey:   "zone",
			}},
		}}},
	}
}

// names returns the sorted, de-duplicated candidates of an assigned pod
// labelled app=app added in namespace "ns".
func names(t *testing.T, tr *Tracker, app string) []string {
	t.Helper()
	labels := map[string]string{"app": app}
	q := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "q", UID: "q", Labels: labels}, Spec: v1.PodSpec{NodeName: "n"}}
	got, _ := tr.Candidates(&index.Event{Kind: index.AssignedPodAdd, NewPod: q}, index.InterPodAffinity|index.PodTopologySpread, nil)
	var out []string
	for _, n := range got {
		out = append(out, n.Name)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// reject marks pod rejected by both wrappers (Tracker.MarkRejected), as
// their PreFilter or Filter does in a cycle that rejects it.
func reject(t *testing.T, tr *Tracker, pod *v1.Pod) {
	t.Helper()
	if !tr.MarkRejected(pod, index.InterPodAffinity|index.PodTopologySpread) {
		t.Fatalf("%s not marked rejected", pod.Name)
	}
}

func want(t *testing.T, what string, got []string, w ...string) {
	t.Helper()
	if diff := cmp.Diff(w, got); diff != "" {
		t.Errorf("%s: candidates (-want +got):\n%s", what, diff)
	}
}

// stored returns a copy of p at resource version rv, changed by edit, after
// writing it to store (the informer's cache) without telling the tracker.
func stored(t *testing.T, store cache.Indexer, p *v1.Pod, rv string, edit func(*v1.Pod)) *v1.Pod {
	t.Helper()
	q := p.DeepCopy()
	q.ResourceVersion = rv
	edit(q)
	if err := store.Update(q); err != nil {
		t.Fatal(err)
	}
	return q
}

func validate(t *testing.T, tr *Tracker) {
	t.Helper()
	if err := tr.Validate(); err != nil {
		t.Error(err)
	}
}

func TestTrackerFollowsTheStore(t *testing.T) {
	tr, store := newTestTracker(t)
	p1 := testPod("p", v1.DefaultSchedulerName, map[string]string{"v": "1"})

	// The store has the pod; the tracker's handler has not run yet.
	if err := store.Add(p1); err != nil {
		t.Fatal(err)
	}
	want(t, "before the handler runs", names(t, tr, "other"), "p")
	reject(t, tr, p1)
	tr.onPod(p1)
	validate(t, tr)
	want(t, "once indexed, for an unrelated pod", names(t, tr, "other"))
	want(t, "once indexed, for its partner", names(t, tr, "db"), "p")

	// A relabelling reaches the store; the handler then runs late, with the
	// old object: the tracker indexes the store's version.
	p2 := stored(t, store, p1, "2", func(p *v1.Pod) { p.Labels = map[string]string{"v": "2"} })
	want(t, "relabelled in the store", names(t, tr, "other"), "p")
	tr.onPod(p1)
	if got, _ := tr.ix.Get(p1.UID); got.Tag() != p2 {
		t.Errorf("indexed %v, want the store's version", got.Tag())
	}
	want(t, "indexed relabelled, the queue not seen", names(t, tr, "other"), "p")
	tr.Confirm(p1) // the queue still holds the old labels
	want(t, "the queue holds the old labels", names(t, tr, "other"), "p")
	tr.Confirm(p2)
	want(t, "the queue holds the indexed labels", names(t, tr, "other"))
	validate(t, tr)

	// An update that does not touch the labels leaves no mark.
	p3 := stored(t, store, p2, "3", func(p *v1.Pod) { p.Annotations = map[string]string{"a": "b"} })
	tr.onPod(p3)
	want(t, "annotated", names(t, tr, "other"))

	// Bound: gone from the tracker, whatever notification comes.
	stored(t, store, p3, "4", func(p *v1.Pod) { p.Spec.NodeName = "n1" })
	tr.onPod(p3)
	want(t, "bound", names(t, tr, "db"))
	if n := tr.ix.Len(); n != 0 {
		t.Errorf("index holds %d pods after the bind, want 0", n)
	}
	validate(t, tr)
}

func TestTrackerDelete(t *testing.T) {
	tr, store := newTestTracker(t)
	p := testPod("p", v1.DefaultSchedulerName, nil)
	if err := store.Add(p); err != nil {
		t.Fatal(err)
	}
	tr.onPod(p)
	if err := store.Delete(p); err != nil {
		t.Fatal(err)
	}
	want(t, "deleted, not yet heard of", names(t, tr, "db"), "p")
	tr.onPod(cache.DeletedFinalStateUnknown{Key: "ns/p", Obj: p}) // not a pod: logged, ignored
	tr.onPod(p)
	want(t, "deleted", names(t, tr, "db"))
	if st := tr.State(); st.Indexed+st.Foreign+st.Dirty+st.Relabelled != 0 {
		t.Errorf("after the delete: %+v, want no pod anywhere", st)
	}

	// Recreated under the same name with another UID, the old notification
	// arriving last.
	again := testPod("p", v1.DefaultSchedulerName, nil)
	again.UID = "uid-p-2"
	if err := store.Add(again); err != nil {
		t.Fatal(err)
	}
	tr.onPod(again)
	tr.onPod(p)
	if _, ok := tr.ix.Get(again.UID); !ok {
		t.Error("the recreated pod is not indexed")
	}
	if _, ok := tr.ix.Get(p.UID); ok {
		t.Error("the deleted pod is indexed")
	}
	validate(t, tr)
}

func TestTrackerForeignPods(t *testing.T) {
	tr, store := newTestTracker(t)
	other := testPod("other", "other-scheduler", nil)
	huge := testPod("huge", v1.DefaultSchedulerName, nil)
	for range 5000 { // more terms than the index takes
		huge.Spec.TopologySpreadConstraints = append(huge.Spec.TopologySpreadConstraints,
			v1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: v1.DoNotSchedule})
	}
	for _, p := range []*v1.Pod{other, huge} {
		if err := store.Add(p); err != nil {
			t.Fatal(err)
		}
		tr.onPod(p)
		reject(t, tr, p)
	}
	want(t, "a pod of another scheduler and one the index refuses", names(t, tr, "other"), "huge", "other")
	tr.Serve("other-scheduler")
	want(t, "once its scheduler is served", names(t, tr, "other"), "huge")
	want(t, "once its scheduler is served, for its partner", names(t, tr, "db"), "huge", "other")
	validate(t, tr)
}

func TestTrackerBadInput(t *testing.T) {
	tr, _ := newTestTracker(t)
	tr.onPod(nil)
	tr.onPod("pod")
	tr.onPod((*v1.Pod)(nil))
	tr.Confirm(nil)
	tr.Confirm(testPod("unknown", v1.DefaultSchedulerName, nil))
	if _, err := tr.markDirty("pod"); err != nil {
		t.Errorf("markDirty(a string) = %v", err)
	}
	want(t, "after bad input", names(t, tr, "db"))
}

// TestSelfCheckCountsMissedPods checks that a self-check counts, in
// affinityq_index_selfcheck_divergences_total, a pod the event affects
// that the index's lookup missed, and nothing while the lookup is right.
func TestSelfCheckCountsMissedPods(t *testing.T) {
	RegisterMetrics()
	tr, store := newTestTracker(t)
	p := testPod("p", v1.DefaultSchedulerName, nil)
	if err := store.Add(p); err != nil {
		t.Fatal(err)
	}
	tr.onPod(p)
	partner := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "db", UID: "db", Labels: map[string]string{"app": "db"}}, Spec: v1.PodSpec{NodeName: "n"}}
	ev := &index.Event{Kind: index.AssignedPodAdd, NewPod: partner}
	count := func() (checks, divergences float64) {
		t.Helper()
		c, err := testutil.GetCounterMetricValue(selfChecksTotal)
		if err != nil {
			t.Fatal(err)
		}
		d, err := testutil.GetCounterMetricValue(selfCheckDivergencesTotal)
		if err != nil {
			t.Fatal(err)
		}
		return c, d
	}
	checks, divergences := count()
	tr.SelfCheck(ev, index.InterPodAffinity)
	if c, d := count(); c != checks+1 || d != divergences {
		t.Errorf("a right lookup checked: checks +%v, divergences +%v, want +1, +0", c-checks, d-divergences)
	}
	tr.lookup = func(dst []index.Hit[*v1.Pod], _ *index.Event, _ func(index.RuleSet, index.RuleSet) bool) []index.Hit[*v1.Pod] {
		return dst[:0]
	}
	tr.SelfCheck(ev, index.InterPodAffinity)
	if c, d := count(); c != checks+2 || d != divergences+1 {
		t.Errorf("a lookup that misses p checked: checks +%v, divergences +%v, want +2, +1", c-checks, d-divergences)
	}
}

// TestCandidatesFollowTheInTreeHints checks which of an event's related
// pods Candidates names: an added pod that a pending pod's anti-affinity
// term avoids, or a deleted one that its affinity term wanted, is no reason
// for any in-tree hint to queue it, so Candidates leaves it out; a pod
// relabelled is named whenever either version relates to the pending pod
// (Relation), since the in-tree hints ask whether it left a term, which a
// namespace's labels can change.
func TestCandidatesFollowTheInTreeHints(t *testing.T) {
	tr, store := newTestTracker(t)
	p := testPod("p", v1.DefaultSchedulerName, nil)
	p.Spec.Affinity.PodAntiAffinity = &v1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
		TopologyKey:   "zone",
	}}}
	if err := store.Add(p); err != nil {
		t.Fatal(err)
	}
	tr.onPod(p)
	reject(t, tr, p)
	assigned := func(app string) *v1.Pod {
		return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "q", UID: "q", Labels: map[string]string{"app": app}}, Spec: v1.PodSpec{NodeName: "n"}}
	}
	db, web, other := assigned("db"), assigned("web"), assigned("other")
	for _, tc := range []struct {
		what string
		ev   index.Event
		want []string
	}{
		{"the wanted pod added", index.Event{Kind: index.AssignedPodAdd, NewPod: db}, []string{"p"}},
		{"an avoided pod added", index.Event{Kind: index.AssignedPodAdd, NewPod: web}, nil},
		{"the avoided pod deleted", index.Event{Kind: index.AssignedPodDelete, OldPod: web}, []string{"p"}},
		{"a wanted pod deleted", index.Event{Kind: index.AssignedPodDelete, OldPod: db}, nil},
		{"an avoided pod relabelled", index.Event{Kind: index.AssignedPodUpdate, OldPod: web, NewPod: other}, []string{"p"}},
		{"a pod relabelled to be avoided", index.Event{Kind: index.AssignedPodUpdate, OldPod: other, NewPod: web}, []string{"p"}},
		{"an unrelated pod relabelled", index.Event{Kind: index.AssignedPodUpdate, OldPod: other, NewPod: assigned("none")}, nil},
	} {
		got, _ := tr.Candidates(&tc.ev, index.InterPodAffinity|index.PodTopologySpread, nil)
		var gotNames []string
		for _, n := range got {
			gotNames = append(gotNames, n.Name)
		}
		want(t, tc.what, gotNames, tc.want...)
	}
}

// TestMarkRejected: the index's hits are named only for the wrappers that
// rejected the pod; a mark changes the generation, outlives updates of the
// pod, is refused for a pod the store does not hold pending, and goes with
// the pod.
func TestMarkRejected(t *testing.T) {
	tr, store := newTestTracker(t)
	p := testPod("p", v1.DefaultSchedulerName, nil)
	if tr.MarkRejected(p, index.InterPodAffinity) {
		t.Error("marked a pod the store does not hold")
	}
	if err := store.Add(p); err != nil {
		t.Fatal(err)
	}
	tr.onPod(p)
	db := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "q", UID: "q", Labels: map[string]string{"app": "db"}}, Spec: v1.PodSpec{NodeName: "n"}}
	added := &index.Event{Kind: index.AssignedPodAdd, NewPod: db}
	named := func(what string, rules index.RuleSet, w ...string) {
		t.Helper()
		got, _ := tr.Candidates(added, rules, nil)
		var out []string
		for _, n := range got {
			out = append(out, n.Name)
		}
		want(t, what, out, w...)
	}
	named("never rejected", index.InterPodAffinity)
	gen := tr.Generation()
	if !tr.MarkRejected(p, index.PodTopologySpread) {
		t.Fatal("not marked")
	}
	if tr.Generation() == gen {
		t.Error("a new mark left the generation as it was")
	}
	named("rejected by the other wrapper", index.InterPodAffinity)
	if !tr.MarkRejected(p, index.InterPodAffinity) {
		t.Fatal("not marked")
	}
	named("rejected", index.InterPodAffinity, "p")
	gen = tr.Generation()
	if !tr.MarkRejected(p, index.InterPodAffinity) || tr.Generation() != gen {
		t.Error("marking again changed the generation or failed")
	}
	validate(t, tr)

	relabelled := stored(t, store, p, "2", func(p *v1.Pod) { p.Labels = map[string]string{"v": "2"} })
	tr.onPod(relabelled)
	tr.Confirm(relabelled)
	named("relabelled", index.InterPodAffinity, "p")

	bound := stored(t, store, relabelled, "3", func(p *v1.Pod) { p.Spec.NodeName = "n1" })
	if !tr.MarkRejected(relabelled, index.InterPodAffinity) {
		t.Error("a marked pod lost its mark before the tracker heard of the bind")
	}
	tr.onPod(bound)
	if tr.MarkRejected(relabelled, index.InterPodAffinity) {
		t.Error("marked a bound pod")
	}
	tr.rejectedMu.RLock()
	n := len(tr.rejected)
	tr.rejectedMu.RUnlock()
	if n != 0 {
		t.Errorf("%d marks left after the bind, want 0", n)
	}
	validate(t, tr)
}
