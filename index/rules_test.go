package index

import (
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"
)

// TestTermSet checks the term sets evaluation works on, in one word and
// across words (rules of more than 64 terms).
func TestTermSet(t *testing.T) {
	var buf [2]uint64
	for _, n := range []int{1, 15, 64, 65, 130} {
		a, b := termSets(n, &buf)
		for i := 0; i < n; i += 3 {
			a.add(i)
		}
		want := func(from, to int) int {
			c := 0
			for i := from; i < to; i++ {
				if i%3 == 0 {
					c++
				}
			}
			return c
		}
		for _, r := range [][2]int{{0, n}, {0, 0}, {n / 2, n}, {1, n - 1}, {n - 1, n}} {
			from, to := max(r[0], 0), max(r[1], r[0])
			if got := a.count(from, to); got != want(from, to) {
				t.Errorf("n=%d: count(%d, %d) = %d, want %d", n, from, to, got, want(from, to))
			}
			if got := a.differs(b, from, to); got != (want(from, to) > 0) {
				t.Errorf("n=%d: differs(%d, %d) = %v, want %v", n, from, to, got, want(from, to) > 0)
			}
		}
		if a.allOf(0, n) != (n == 1) || b.anyOf(0, n) {
			t.Errorf("n=%d: allOf = %v, empty set anyOf = %v", n, a.allOf(0, n), b.anyOf(0, n))
		}
		buf = [2]uint64{}
	}
}

// TestManyTerms checks a pod with more affinity terms than a word holds:
// an assigned pod added unblocks it (Transition) only when it matches all.
func TestManyTerms(t *testing.T) {
	const n = 70
	var terms []v1.PodAffinityTerm
	labels := map[string]string{}
	for i := range n {
		k := fmt.Sprintf("k%d", i)
		terms = append(terms, term("zone", sel(exists(k))))
		labels[k] = "v"
	}
	ix := New[any]()
	if err := ix.Add(pod("p", withAffinity(terms...))); err != nil {
		t.Fatal(err)
	}
	all := pod("q", onNode("n1"), withLabels(labels))
	some := all.DeepCopy()
	delete(some.Labels, "k69")
	for _, tc := range []struct {
		name string
		q    *v1.Pod
		tr   RuleSet
	}{{"matches all 70", all, InterPodAffinity}, {"matches 69", some, 0}} {
		hits := ix.AssignedPodAdded(nil, tc.q)
		if len(hits) != 1 || hits[0].Relation != InterPodAffinity || hits[0].Transition != tc.tr {
			t.Errorf("%s: hits %+v, want one with Relation InterPodAffinity, Transition %v", tc.name, hits, tc.tr)
		}
	}
}
