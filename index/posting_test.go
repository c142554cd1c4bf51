package index

import (
	"slices"
	"testing"
)

// TestPosting drives a posting through growth past the threshold into a
// bitmap and back, checking it against a plain set at every step.
func TestPosting(t *testing.T) {
	for _, threshold := range []int{0, 1, 4, DefaultPostingThreshold} {
		var p posting
		want := map[uint32]bool{}
		check := func(step string) {
			t.Helper()
			if err := p.validate(threshold); err != nil {
				t.Fatalf("threshold %d, %s: %v", threshold, step, err)
			}
			var keys []uint32
			for k := range want {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			if got := p.appendTo(nil); !slices.Equal(got, keys) {
				t.Fatalf("threshold %d, %s: holds %v, want %v", threshold, step, got, keys)
			}
			if p.len() != len(keys) {
				t.Fatalf("threshold %d, %s: len %d, want %d", threshold, step, p.len(), len(keys))
			}
		}
		x := uint32(7)
		for i := range 300 {
			x = x*1103515245 + 12345
			v := x % 97
			if i%3 == 2 {
				if got := p.remove(v, threshold); got != want[v] {
					t.Fatalf("remove(%d) = %v, want %v", v, got, want[v])
				}
				delete(want, v)
			} else {
				if got := p.add(v, threshold); got == want[v] {
					t.Fatalf("add(%d) = %v, want %v", v, got, !want[v])
				}
				want[v] = true
			}
			if !p.contains(v) && want[v] {
				t.Fatalf("contains(%d) = false after add", v)
			}
			check("step")
		}
		for v := range want {
			p.remove(v, threshold)
			delete(want, v)
		}
		check("emptied")
		if p.big != nil {
			t.Errorf("threshold %d: an empty posting keeps its bitmap", threshold)
		}
	}
}
