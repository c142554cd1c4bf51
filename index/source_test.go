package index

import (
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// sourcePod is a pod using every field of a source, and an affinity term's
// matchLabelKeys and mismatchLabelKeys, which are not part of it.
func sourcePod(name string) *v1.Pod {
	aff := v1.PodAffinityTerm{
		LabelSelector:     &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}, MatchExpressions: []metav1.LabelSelectorRequirement{in("tier", "a", "b")}},
		TopologyKey:       "zone",
		Namespaces:        []string{"default", "other"},
		NamespaceSelector: sel(exists("team")),
		MatchLabelKeys:    []string{"hash"},
		MismatchLabelKeys: []string{"app"},
	}
	p := pod(name, withLabels(map[string]string{"app": "web", "hash": "h1"}),
		withAffinity(aff), withAnti(term("host", sel(in("app", "web")))), withSpread("zone", sel(in("app", "web"))))
	p.Spec.TopologySpreadConstraints[0].MatchLabelKeys = []string{"hash"}
	return p
}

// TestSameSource changes one field of a source at a time: each change makes
// the source different, so that a replica is never given the rules of a pod
// that differs in a field Compile reads; changes Compile does not read
// leave it the same.
func TestSameSource(t *testing.T) {
	base := sourcePod("base")
	if !sameSource(base, sourcePod("replica")) || sourceHash(base, strHash(base.Namespace)) != sourceHash(sourcePod("replica"), strHash(sourcePod("replica").Namespace)) {
		t.Fatal("two replicas have different sources")
	}
	affTerm := func(p *v1.Pod) *v1.PodAffinityTerm {
		return &p.Spec.Affinity.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0]
	}
	spread := func(p *v1.Pod) *v1.TopologySpreadConstraint { return &p.Spec.TopologySpreadConstraints[0] }
	differ := map[string]func(p *v1.Pod){
		"namespace":           func(p *v1.Pod) { p.Namespace = "other" },
		"label value":         func(p *v1.Pod) { p.Labels["hash"] = "h2" },
		"extra label":         func(p *v1.Pod) { p.Labels["x"] = "" },
		"topology key":        func(p *v1.Pod) { affTerm(p).TopologyKey = "host" },
		"nil selector":        func(p *v1.Pod) { affTerm(p).LabelSelector = nil },
		"matchLabels":         func(p *v1.Pod) { affTerm(p).LabelSelector.MatchLabels["app"] = "cache" },
		"expression key":      func(p *v1.Pod) { affTerm(p).LabelSelector.MatchExpressions[0].Key = "tier2" },
		"expression operator": func(p *v1.Pod) { affTerm(p).LabelSelector.MatchExpressions[0].Operator = metav1.LabelSelectorOpNotIn },
		"expression values":   func(p *v1.Pod) { affTerm(p).LabelSelector.MatchExpressions[0].Values = []string{"a"} },
		"namespaces":          func(p *v1.Pod) { affTerm(p).Namespaces = []string{"default"} },
		"namespace selector":  func(p *v1.Pod) { affTerm(p).NamespaceSelector = nil },
		"one more affinity term": func(p *v1.Pod) {
			p.Spec.Affinity.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(p.Spec.Affinity.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution, term("zone", nil))
		},
		"no anti-affinity": func(p *v1.Pod) { p.Spec.Affinity.PodAntiAffinity = nil },
		"anti topology key": func(p *v1.Pod) {
			p.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0].TopologyKey = "zone"
		},
		"spread when":           func(p *v1.Pod) { spread(p).WhenUnsatisfiable = v1.ScheduleAnyway },
		"spread topology key":   func(p *v1.Pod) { spread(p).TopologyKey = "host" },
		"spread selector":       func(p *v1.Pod) { spread(p).LabelSelector = sel(in("app", "db")) },
		"spread matchLabelKeys": func(p *v1.Pod) { spread(p).MatchLabelKeys = nil },
		"no spread":             func(p *v1.Pod) { p.Spec.TopologySpreadConstraints = nil },
	}
	for name, change := range differ {
		t.Run(name, func(t *testing.T) {
			p := sourcePod("changed")
			change(p)
			if sameSource(base, p) || sameSource(p, base) {
				t.Errorf("the source did not change")
			}
		})
	}
	same := map[string]func(p *v1.Pod){
		"name and UID": func(p *v1.Pod) { p.Name, p.UID = "other", "uid-other" },
		"node name":    func(p *v1.Pod) { p.Spec.NodeName = "n1" },
		"max skew":     func(p *v1.Pod) { spread(p).MaxSkew = 3 },
		"preferred terms": func(p *v1.Pod) {
			p.Spec.Affinity.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution = []v1.WeightedPodAffinityTerm{{Weight: 1, PodAffinityTerm: term("zone", nil)}}
		},
		"annotations":      func(p *v1.Pod) { p.Annotations = map[string]string{"a": "b"} },
		"nil vs empty map": func(p *v1.Pod) { spread(p).LabelSelector.MatchLabels = map[string]string{} },
		// matcher compiles an affinity term from its stored labelSelector
		// alone, as kube-scheduler does: these keys change no rule.
		"affinity matchLabelKeys":    func(p *v1.Pod) { affTerm(p).MatchLabelKeys = nil },
		"affinity mismatchLabelKeys": func(p *v1.Pod) { affTerm(p).MismatchLabelKeys = []string{"hash"} },
	}
	for name, change := range same {
		t.Run(name, func(t *testing.T) {
			p := sourcePod("changed")
			change(p)
			if !sameSource(base, p) || sourceHash(base, strHash(base.Namespace)) != sourceHash(p, strHash(p.Namespace)) {
				t.Errorf("the source changed")
			}
		})
	}
}

// TestCompileReusesRules checks that a replica of an indexed pod gets its
// group's rules without compiling, also when the group is in shard 0 (its
// terms reach into other namespaces) and after its representative leaves
// (another member takes its place); that pods compiled by the package's
// Compile join the group of their source; and that a pod with failed
// terms is compiled every time and never shares.
func TestCompileReusesRules(t *testing.T) {
	ix := New[any](WithShards(4))
	replica := func(i int) *v1.Pod {
		return pod(fmt.Sprint("web-", i), withLabels(map[string]string{"app": "web"}), withAnti(term("host", sel(in("app", "web")))))
	}
	if err := ix.Add(replica(0)); err != nil {
		t.Fatal(err)
	}
	first, _ := ix.Get(replica(0).UID)
	p, err := ix.Compile(replica(1))
	if err != nil {
		t.Fatal(err)
	}
	if p.rules != first.rules {
		t.Fatal("a replica of an indexed pod was compiled again")
	}
	ix.Insert(p)
	ix.Remove(replica(0).UID) // the representative leaves; its group stays
	if err := ix.Validate(); err != nil {
		t.Fatal(err)
	}
	if p, _ := ix.Compile(replica(2)); p.rules != first.rules {
		t.Error("the group is not found once its representative left")
	}
	ix.Remove(replica(1).UID) // the group is dropped
	if p, _ := ix.Compile(replica(2)); p.rules == first.rules {
		t.Error("a dropped group is found by its source")
	}
	if err := ix.Validate(); err != nil {
		t.Fatal(err)
	}

	wide := func(name string) *v1.Pod {
		return pod(name, withAffinity(v1.PodAffinityTerm{LabelSelector: sel(exists("a")), Namespaces: []string{"x"}, TopologyKey: "zone"}))
	}
	bad := func(name string) *v1.Pod {
		return pod(name, withAffinity(term("zone", sel(metav1.LabelSelectorRequirement{Key: "a", Operator: "Bogus"}))))
	}
	for _, c := range []struct {
		mk    func(string) *v1.Pod
		share bool
	}{{wide, true}, {bad, false}} {
		if err := ix.Add(c.mk("one")); err != nil {
			t.Fatal(err)
		}
		kept, _ := ix.Get(c.mk("one").UID)
		if p, _ := ix.Compile(c.mk("two")); (p.rules == kept.rules) != c.share {
			t.Errorf("%s: rules reused %v, want %v", kept.pod.Name, p.rules == kept.rules, c.share)
		}
		// A pod compiled without the index joins the group of its source.
		p, err := Compile[any](c.mk("three"))
		if err != nil {
			t.Fatal(err)
		}
		if got := ix.Insert(p); (got.rules == kept.rules) != c.share {
			t.Errorf("%s: a pod compiled by the package joins the group %v, want %v", kept.pod.Name, got.rules == kept.rules, c.share)
		}
		ix.Remove(c.mk("one").UID)
		ix.Remove(c.mk("three").UID)
	}
	if err := ix.Validate(); err != nil {
		t.Fatal(err)
	}
}

// TestRepresentativeMoves builds a group whose representative is not its
// first member: its source hash is held by another group (sources that
// differ only in the contents of a matchLabels hash alike) while its first
// members join, and it takes the representative when that group leaves. A
// member before the representative then leaves, moving it: the group must
// still be found by its source.
func TestRepresentativeMoves(t *testing.T) {
	ix := New[any](WithShards(1))
	mk := func(name, db string) *v1.Pod {
		return pod(name, withLabels(map[string]string{"app": "web"}),
			withAffinity(term("zone", &metav1.LabelSelector{MatchLabels: map[string]string{"app": db}})))
	}
	check := func(step string) {
		t.Helper()
		if err := ix.Validate(); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
	}
	if err := ix.Add(mk("founder", "db")); err != nil {
		t.Fatal(err)
	}
	// Three pods compiled into the founder's group, inserted later.
	var later []*Pending[any]
	for i := range 3 {
		p, err := ix.Compile(mk(fmt.Sprint("late-", i), "db"))
		if err != nil {
			t.Fatal(err)
		}
		later = append(later, p)
	}
	rules := later[0].rules
	ix.Remove(mk("founder", "db").UID)                   // the group is dropped
	if err := ix.Add(mk("other", "cache")); err != nil { // same source hash, another source
		t.Fatal(err)
	}
	first := ix.Insert(later[0]) // the group comes back; its source hash is taken
	ix.Insert(later[1])
	check("two members, no representative")
	ix.Remove(mk("other", "cache").UID) // the hash is free again
	ix.Insert(later[2])                 // the third member represents the group
	check("representative last")
	if g := groupOf(ix, first); g.rep != 3 {
		t.Fatalf("representative at %d, want the third member", int(g.rep)-1)
	}
	ix.Remove(later[0].pod.UID) // the representative moves into the first place
	check("representative moved")
	if p, _ := ix.Compile(mk("replica", "db")); p.rules != rules {
		t.Fatal("the group is not found by its source once its representative moved")
	}
}

// groupOf returns the group of p, a Pending ix keeps.
func groupOf(ix *Index[any], p *Pending[any]) *group[any] {
	return ix.shards[ix.placement(p)].groups[p.gid]
}
