package matcher_test

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/affinityq/affinityq/matcher"
)

func ExampleCompileSelector() {
	sel, err := matcher.CompileSelector(&metav1.LabelSelector{
		MatchLabels: map[string]string{"app": "web"},
		MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "env", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"prod"}},
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sel)
	fmt.Println(sel.Matches(map[string]string{"app": "web"}))                // env absent: NotIn holds
	fmt.Println(sel.Matches(map[string]string{"app": "web", "env": "prod"})) // env listed
	for _, r := range sel.Positive() {
		fmt.Println("post under", r.Key(), r.Values())
	}

	_, err = matcher.CompileSelector(&metav1.LabelSelector{
		MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpIn}},
	})
	fmt.Println(err != nil)
	// Output:
	// app in (web),env notin (prod)
	// true
	// false
	// post under app [web]
	// true
}

func ExampleCompileTerms() {
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "db-1", Namespace: "shop", Labels: map[string]string{"app": "db"}},
		Spec: v1.PodSpec{Affinity: &v1.Affinity{PodAffinity: &v1.PodAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"role": "primary"}},
				TopologyKey:   "topology.kubernetes.io/zone",
			}},
		}}},
	}
	terms, err := matcher.CompileTerms(pod)
	if err != nil {
		fmt.Println(err)
		return
	}
	t := terms.Affinity[0]
	fmt.Println(t.Kind, t.TopologyKey, t.Scope.Names())
	fmt.Println(t.Matches("shop", map[string]string{"role": "primary"}, nil))
	fmt.Println(t.Matches("other", map[string]string{"role": "primary"}, nil))
	// Output:
	// Affinity topology.kubernetes.io/zone [shop]
	// true
	// false
}
