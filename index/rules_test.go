package index

import (
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"
)

// TestReadTerms checks what the assigned-pod rules read of the terms two
// versions of a pod match, in one word (readWord) and across words
// (readWide, rules of more than 64 terms), against a count term by term.
func TestReadTerms(t *testing.T) {
	for _, n := range []int{1, 2, 15, 63, 64, 65, 130} {
		for _, split := range [][2]int{{0, 0}, {n, 0}, {0, n}, {n / 3, n / 3}, {n / 2, n - n/2}, {1, 0}} {
			nAff := min(split[0], n)
			nAnti := min(split[1], n-nAff)
			sh := shape{nAff: uint16(nAff), nAnti: uint16(nAnti), n: uint16(n)}
			for _, stride := range []int{1, 2, 3, n + 1} {
				inO := func(i int) bool { return i%stride == 0 }
				inC := func(i int) bool { return n > 1 && i == n-1 }
				set := func(in func(int) bool) TermSet {
					var s TermSet
					if n > 64 {
						s.more = make([]uint64, (n-1)/64)
					}
					for i := range n {
						if !in(i) {
							continue
						}
						if i < 64 {
							s.word |= 1 << i
						} else {
							s.more[i/64-1] |= 1 << (i % 64)
						}
					}
					return s
				}
				count := func(in func(int) bool, from, to int) int {
					c := 0
					for i := from; i < to; i++ {
						if in(i) {
							c++
						}
					}
					return c
				}
				want := func(in func(int) bool) matched {
					aff := count(in, 0, nAff)
					return matched{
						allAffinity: nAff > 0 && aff == nAff, anyAffinity: aff > 0,
						anyAnti: count(in, nAff, nAff+nAnti) > 0, anySpread: count(in, nAff+nAnti, n) > 0,
					}
				}
				differs := false
				for i := nAff + nAnti; i < n; i++ {
					differs = differs || inO(i) != inC(i)
				}
				reader := "readWide"
				check := func(o, c matched, d bool) {
					if o != want(inO) || c != want(inC) || d != differs {
						t.Errorf("%s, n=%d aff=%d anti=%d stride=%d: %+v, %+v, %v; want %+v, %+v, %v",
							reader, n, nAff, nAnti, stride, o, c, d, want(inO), want(inC), differs)
					}
				}
				o, c := set(inO), set(inC)
				check(readWide(&sh, o, c))
				if n <= 64 {
					reader = "readWord"
					check(readWord(&sh, o.word, c.word))
				}
			}
		}
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
