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
			if !slices.Contains(p.appendTo(nil), v) && want[v] {
				t.Fatalf("%d missing after add", v)
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

// TestPostingTable checks that a posting of one group lives in its slot's
// ref, that a second group gives it a posting of its own, past the
// threshold a bitmap, and that it returns to the ref, then disappears, as
// groups leave; the posting indices freed are reused.
func TestPostingTable(t *testing.T) {
	const threshold = 2
	var tab postingTable
	check := func(step string, k uint64, want []uint32) {
		t.Helper()
		if err := tab.validate(threshold); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		if got := tableAppend(&tab, []uint32{99}, k); !slices.Equal(got, append([]uint32{99}, want...)) {
			t.Fatalf("%s: key %#x holds %v, want %v", step, k, got[1:], want)
		}
		r, ok := tab.get(k)
		if ok != (len(want) > 0) || ok && (r >= refMany) != (len(want) > 1) {
			t.Fatalf("%s: key %#x present %v with ref %#x, want %d groups", step, k, ok, r, len(want))
		}
	}
	tab.add(1, 5, threshold)
	check("one", 1, []uint32{5})
	tab.add(1, 5, threshold)
	check("one again", 1, []uint32{5})
	tab.remove(1, 9, threshold)
	check("absent removed", 1, []uint32{5})
	tab.add(1, 3, threshold)
	check("two", 1, []uint32{3, 5})
	tab.add(1, 8, threshold) // past the threshold: a bitmap
	check("three", 1, []uint32{3, 5, 8})
	tab.add(2, 0, threshold)
	tab.add(2, 1, threshold)
	check("another key of two", 2, []uint32{0, 1})
	tab.remove(1, 3, threshold)
	check("two left", 1, []uint32{5, 8})
	tab.remove(1, 8, threshold)
	check("one left", 1, []uint32{5})
	tab.add(3, 4, threshold)
	tab.add(3, 6, threshold)
	check("a freed posting index reused", 3, []uint32{4, 6})
	if len(tab.many) != 2 {
		t.Fatalf("%d postings of their own made, want 2 (one reused)", len(tab.many))
	}
	tab.remove(1, 5, threshold)
	check("empty", 1, nil)
	if got := tableAppend(&tab, []uint32{1}, 77); !slices.Equal(got, []uint32{1}) {
		t.Fatalf("appendTo of an absent key = %v", got)
	}
}

// tableAppend appends k's posting of tab to dst in increasing order.
func tableAppend(tab *postingTable, dst []uint32, k uint64) []uint32 {
	if r, ok := tab.get(k); ok {
		return tab.appendRef(dst, r)
	}
	return dst
}
