package index

import (
	"fmt"
	"math/rand/v2"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// TestMatching checks Index.Matching against every term of every indexed
// pod evaluated one by one, over random pools (replicas sharing groups,
// terms of every operator, namespace lists and selectors, spread
// constraints, a term that fails to compile, a pod of more than 64 terms)
// and random pods, with one shard and several.
func TestMatching(t *testing.T) {
	nsLabels := map[string]map[string]string{"n1": {"team": "a"}, "n2": {"team": "b"}, "n3": {}}
	lookupNS := func(ns string) (map[string]string, bool) { l, ok := nsLabels[ns]; return l, ok }
	keys, values, namespaces := []string{"a", "b", "c"}, []string{"x", "y"}, []string{"n1", "n2", "n3", "n4"}
	for _, shards := range []int{1, 4} {
		r := rand.New(rand.NewPCG(uint64(shards), 1))
		pick := func(xs []string) string { return xs[r.IntN(len(xs))] }
		labels := func() map[string]string {
			l := map[string]string{}
			for range r.IntN(3) {
				l[pick(keys)] = pick(values)
			}
			return l
		}
		requirement := func() metav1.LabelSelectorRequirement {
			ops := []metav1.LabelSelectorOperator{metav1.LabelSelectorOpIn, metav1.LabelSelectorOpNotIn, metav1.LabelSelectorOpExists, metav1.LabelSelectorOpDoesNotExist}
			q := metav1.LabelSelectorRequirement{Key: pick(keys), Operator: ops[r.IntN(len(ops))]}
			if q.Operator == metav1.LabelSelectorOpIn || q.Operator == metav1.LabelSelectorOpNotIn {
				q.Values = []string{pick(values)}
			}
			if r.IntN(40) == 0 {
				q.Operator = "Bogus"
			}
			return q
		}
		term := func() v1.PodAffinityTerm {
			t := v1.PodAffinityTerm{TopologyKey: "zone", LabelSelector: &metav1.LabelSelector{}}
			for range 1 + r.IntN(2) {
				t.LabelSelector.MatchExpressions = append(t.LabelSelector.MatchExpressions, requirement())
			}
			switch r.IntN(4) {
			case 0:
				t.Namespaces = []string{pick(namespaces), pick(namespaces)}
			case 1:
				t.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"team": pick([]string{"a", "b"})}}
			}
			return t
		}
		ix := New[int](WithShards(shards), WithNamespaceLabels(lookupNS))
		var pendings []*Pending[int]
		var last *v1.Pod
		for i := range 300 {
			var p *v1.Pod
			if last != nil && r.IntN(3) == 0 {
				p = last.DeepCopy() // a replica: the same spec, joining its group
			} else {
				p = pod("p", inNamespace(pick(namespaces)), withLabels(labels()))
				p.Spec.Affinity = &v1.Affinity{PodAffinity: &v1.PodAffinity{}, PodAntiAffinity: &v1.PodAntiAffinity{}}
				n := r.IntN(3)
				if i == 7 {
					n = 70 // rules of more than one word
				}
				for range n {
					p.Spec.Affinity.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(p.Spec.Affinity.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution, term())
				}
				for range r.IntN(2) {
					p.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(p.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution, term())
				}
				for range r.IntN(2) {
					withSpread("zone", &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{requirement()}})(p)
				}
			}
			p.Name, p.UID = fmt.Sprintf("p%d", i), types.UID(fmt.Sprintf("uid-%d", i))
			last = p
			pe, _ := Compile[int](p)
			pe = pe.WithTag(i)
			ix.Insert(pe)
			pendings = append(pendings, pe)
		}
		if err := ix.Validate(); err != nil {
			t.Fatal(err)
		}
		for q := range 500 {
			qp := pod("q", inNamespace(pick(namespaces)), withLabels(labels()))
			want := map[int][]int{}
			for _, pe := range pendings {
				for i := range pe.rules.terms {
					if pe.rules.terms[i].Matches(qp.Namespace, qp.Labels, nsLabels[qp.Namespace]) {
						want[pe.Tag()] = append(want[pe.Tag()], i)
					}
				}
			}
			got := map[int][]int{}
			for _, m := range ix.Matching(nil, qp) {
				if _, dup := got[m.Tag]; dup {
					t.Fatalf("shards=%d query %d: pod %d matched twice", shards, q, m.Tag)
				}
				got[m.Tag] = []int{}
				for i := range pendings[m.Tag].rules.terms {
					if m.Terms.Has(i) {
						got[m.Tag] = append(got[m.Tag], i)
					}
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("shards=%d query %d (ns %s, labels %v): Matching = %v, want %v", shards, q, qp.Namespace, qp.Labels, got, want)
			}
		}
	}
	if got := New[any]().Matching(nil, nil); len(got) != 0 {
		t.Errorf("Matching(nil) = %v, want none", got)
	}
}

// TestPendingTerms checks the term counts a TermSet is numbered by.
func TestPendingTerms(t *testing.T) {
	p := pod("p", withAffinity(term("zone", sel(exists("a"))), term("host", sel(in("b", "x")))),
		withAnti(term("zone", sel(exists("c")))), withSpread("zone", sel(exists("a"))))
	pe, err := Compile[any](p)
	if err != nil {
		t.Fatal(err)
	}
	if a, b, c := pe.Terms(); a != 2 || b != 1 || c != 1 {
		t.Errorf("Terms() = %d, %d, %d; want 2, 1, 1", a, b, c)
	}
}
