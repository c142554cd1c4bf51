package e2e

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Every scenario labels its pods e2e=<scenario>, and selects with labels
// of its own, so that the scenarios' pods never match each other's terms.

// testPodAffinityPartner creates pods with required pod affinity (zone) to
// a label that no pod has yet, waits until kube-scheduler has rejected all
// of them, and then creates the partner. The partner's binding (an
// assigned pod added, an event the wrappers narrow) must requeue them, and
// each must bind in the partner's zone.
func testPodAffinityPartner(t *testing.T, e *env) {
	term := v1.PodAffinityTerm{
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"affinity-app": "partner"}},
		TopologyKey:   v1.LabelTopologyZone,
	}
	for i := range e.size.waiters {
		p := e.newPod(fmt.Sprintf("waiter-%d", i), map[string]string{"e2e": "affinity", "affinity-role": "waiter"})
		p.Spec.Affinity = &v1.Affinity{PodAffinity: &v1.PodAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{term},
		}}
		e.create(t, p)
	}
	e.waitPods(t, "e2e=affinity,affinity-role=waiter", e.size.waiters, rejectTimeout, "unschedulable", unschedulable)

	e.create(t, e.newPod("partner", map[string]string{"e2e": "affinity", "affinity-app": "partner"}))
	pods := e.waitPods(t, "e2e=affinity", e.size.waiters+1, bindTimeout, "bound", bound)
	i := slices.IndexFunc(pods, func(p v1.Pod) bool { return p.Name == "partner" })
	zone := e.zoneOf[pods[i].Spec.NodeName]
	for _, p := range pods {
		if got := e.zoneOf[p.Spec.NodeName]; got != zone {
			t.Errorf("%s on %s in %s, want the partner's zone %s", p.Name, p.Spec.NodeName, got, zone)
		}
	}
}

// testAntiAffinityUnblocked binds a blocker in every zone, creates pods
// with required zone anti-affinity against the blockers, which fit nowhere,
// waits until kube-scheduler has rejected all of them, and then relabels
// the first zone's blocker so that the anti-affinity no longer matches it.
// The relabelling (an assigned pod updated, the pre-hint path) must
// requeue them, and each must bind in that zone, the only one without a
// blocker.
func testAntiAffinityUnblocked(t *testing.T, e *env) {
	for _, zone := range e.zones {
		p := e.newPod("blocker-"+zone, map[string]string{"e2e": "anti", "anti-role": "blocker"})
		p.Spec.NodeSelector = map[string]string{v1.LabelTopologyZone: zone}
		e.create(t, p)
	}
	e.waitPods(t, "e2e=anti,anti-role=blocker", len(e.zones), bindTimeout, "bound", bound)

	term := v1.PodAffinityTerm{
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"anti-role": "blocker"}},
		TopologyKey:   v1.LabelTopologyZone,
	}
	for i := range e.size.avoiders {
		p := e.newPod(fmt.Sprintf("avoider-%d", i), map[string]string{"e2e": "anti", "anti-role": "avoider"})
		p.Spec.Affinity = &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{term},
		}}
		e.create(t, p)
	}
	e.waitPods(t, "e2e=anti,anti-role=avoider", e.size.avoiders, rejectTimeout, "unschedulable", unschedulable)

	freed := e.zones[0]
	patch := []byte(`{"metadata":{"labels":{"anti-role":"released"}}}`)
	if _, err := e.client.CoreV1().Pods(e.ns).Patch(t.Context(), "blocker-"+freed, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatalf("relabel blocker-%s: %v", freed, err)
	}
	for _, p := range e.waitPods(t, "e2e=anti,anti-role=avoider", e.size.avoiders, bindTimeout, "bound", bound) {
		if got := e.zoneOf[p.Spec.NodeName]; got != freed {
			t.Errorf("%s on %s in %s, want %s, the only zone without a blocker", p.Name, p.Spec.NodeName, got, freed)
		}
	}
}

// testTopologySpread creates pods with a DoNotSchedule spread constraint
// of maxSkew 1 over the zones, and checks that all of them bind and that
// the per-zone counts are at most 1 apart.
func testTopologySpread(t *testing.T, e *env) {
	labels := map[string]string{"e2e": "spread"}
	for i := range e.size.spread {
		p := e.newPod(fmt.Sprintf("spread-%d", i), labels)
		p.Spec.TopologySpreadConstraints = []v1.TopologySpreadConstraint{{
			MaxSkew:           1,
			TopologyKey:       v1.LabelTopologyZone,
			WhenUnsatisfiable: v1.DoNotSchedule,
			LabelSelector:     &metav1.LabelSelector{MatchLabels: labels},
		}}
		e.create(t, p)
	}
	counts := make(map[string]int)
	for _, zone := range e.zones {
		counts[zone] = 0
	}
	for _, p := range e.waitPods(t, "e2e=spread", e.size.spread, bindTimeout, "bound", bound) {
		counts[e.zoneOf[p.Spec.NodeName]]++
	}
	values := slices.Collect(maps.Values(counts))
	if skew := slices.Max(values) - slices.Min(values); skew > 1 {
		t.Errorf("pods per zone %v: skew %d, want at most 1", counts, skew)
	}
}
