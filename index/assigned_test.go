package index

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestAntiAffinityCache checks that an assigned pod's anti-affinity is
// compiled once per spec: a lookup for a replica of an assigned pod seen
// before does not allocate, a spec that changed (the same object modified)
// is compiled again, and pods whose terms differ only in their labels
// share their compiled terms (matchLabelKeys is not merged, so the terms
// do not read the labels).
func TestAntiAffinityCache(t *testing.T) {
	ix := New[any]()
	web := func(name string) *v1.Pod {
		return pod(name, withLabels(map[string]string{"app": "web"}))
	}
	for _, name := range []string{"a", "b"} {
		if err := ix.Add(web(name)); err != nil {
			t.Fatal(err)
		}
	}
	blocker := func(name, app string) *v1.Pod {
		return pod(name, onNode("n1"), withLabels(map[string]string{"app": "db"}), withAnti(term("host", sel(in("app", app)))))
	}
	hits := func(q *v1.Pod) int { return len(ix.AssignedPodDeleted(make([]Hit[any], 0, 8), q)) }

	if got := hits(blocker("q1", "web")); got != 2 {
		t.Fatalf("a blocker of app=web deleted: %d hits, want 2", got)
	}
	replica := blocker("q2", "web")
	if allocs := testing.AllocsPerRun(20, func() { hits(replica) }); allocs != 0 && !raceEnabled {
		t.Errorf("a lookup for a replica of a blocker seen before allocates %v times, want 0", allocs)
	}
	// The same object, modified: its terms are compiled again.
	replica.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0].LabelSelector = sel(in("app", "other"))
	if got := hits(replica); got != 0 {
		t.Errorf("the modified blocker deleted: %d hits, want 0", got)
	}
	// matchLabelKeys is not merged (kube-scheduler reads the stored
	// labelSelector): a blocker's {} matches both pending pods whatever its
	// own app label, and blockers that differ only in their labels share
	// one compilation.
	withKeys := func(name, app string) *v1.Pod {
		q := pod(name, onNode("n1"), withLabels(map[string]string{"app": app}))
		q.Spec.Affinity = &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
			LabelSelector: &metav1.LabelSelector{}, TopologyKey: "host", MatchLabelKeys: []string{"app"},
		}}}}
		return q
	}
	for _, app := range []string{"web", "db"} {
		if got := hits(withKeys("k-"+app, app)); got != 2 {
			t.Errorf("a blocker with matchLabelKeys [app] and app=%s deleted: %d hits, want 2", app, got)
		}
	}
	forWeb, forDB := ix.anti.compile(withKeys("k-web", "web")), ix.anti.compile(withKeys("k-db", "db"))
	if len(forWeb) != 1 || len(forDB) != 1 || &forWeb[0] != &forDB[0] {
		t.Errorf("blockers differing only in their labels do not share their compiled terms")
	}
}
