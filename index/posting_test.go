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

// TestPostingMap checks that a posting of one group lives in the map value,
// that a second group gives it a posting of its own, and that it returns to
// the map value, then disappears, as groups leave.
func TestPostingMap(t *testing.T) {
	m := postingMap[string]{}
	check := func(step string, want []uint32, own bool) {
		t.Helper()
		r, ok := m["k"]
		if ok != (len(want) > 0) {
			t.Fatalf("%s: key present %v, want %v", step, ok, len(want) > 0)
		}
		if !ok {
			return
		}
		if err := r.validate(2); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		if got := m.appendTo(nil, "k"); !slices.Equal(got, want) {
			t.Fatalf("%s: holds %v, want %v", step, got, want)
		}
		if r.len() != len(want) || (r.many != nil) != own {
			t.Fatalf("%s: len %d, own posting %v; want %d, %v", step, r.len(), r.many != nil, len(want), own)
		}
	}
	m.add("k", 5, 2)
	check("one", []uint32{5}, false)
	m.add("k", 5, 2)
	check("one again", []uint32{5}, false)
	m.remove("k", 9, 2)
	check("absent removed", []uint32{5}, false)
	m.add("k", 3, 2)
	check("two", []uint32{3, 5}, true)
	m.add("k", 8, 2) // past the threshold: a bitmap
	check("three", []uint32{3, 5, 8}, true)
	m.remove("k", 3, 2)
	check("two left", []uint32{5, 8}, true)
	m.remove("k", 8, 2)
	check("one left", []uint32{5}, false)
	m.remove("k", 5, 2)
	check("empty", nil, false)
	if got := m.appendTo([]uint32{1}, "absent"); !slices.Equal(got, []uint32{1}) {
		t.Fatalf("appendTo of an absent key = %v", got)
	}
}
