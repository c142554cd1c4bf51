package index

import (
	"fmt"
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

// TestPostingTable drives a table against a map of sets through growth to
// thousands of keys and back to none, with keys chosen to share home slots
// (so probe sequences run long and deletions shift entries back), checking
// every invariant and every posting after each step, and that a posting of
// one group lives in its slot while two or more get a posting of their own.
func TestPostingTable(t *testing.T) {
	const threshold = 2
	var tab postingTable
	want := map[uint64]map[uint32]bool{}
	steps := 0
	check := func(step string, k uint64) {
		t.Helper()
		// Validate is linear in the table: every step while it is small,
		// then every 64th.
		if steps++; tab.slots() <= 256 || steps%64 == 0 {
			if err := tab.validate(threshold); err != nil {
				t.Fatalf("%s: %v", step, err)
			}
		}
		if tab.len() != len(want) {
			t.Fatalf("%s: %d keys, want %d", step, tab.len(), len(want))
		}
		var ws []uint32
		for x := range want[k] {
			ws = append(ws, x)
		}
		slices.Sort(ws)
		if got := tab.appendTo([]uint32{99}, k); !slices.Equal(got, append([]uint32{99}, ws...)) {
			t.Fatalf("%s: key %#x holds %v, want %v", step, k, got[1:], ws)
		}
		if len(ws) > 0 {
			i, _ := tab.find(k)
			if own := *tab.ref(i) >= refMany; own != (len(ws) > 1) {
				t.Fatalf("%s: key %#x of %d groups has a posting of its own: %v", step, k, len(ws), own)
			}
		}
	}
	// Keys whose top bits take few values share home slots at every size.
	key := func(r uint64) uint64 { return (r%7)<<61 | r%1021 }
	rng := uint64(1)
	next := func() uint64 { rng = rng*6364136223846793005 + 1442695040888963407; return rng >> 11 }
	maxSlots := 0
	for round, n := range []int{20000, 20000} {
		for range n {
			k, x := key(next()), uint32(next()%3)
			add := round == 0 && next()%4 != 0 || round == 1 && next()%4 == 0
			tab.edit(k, x, add, threshold)
			if add {
				if want[k] == nil {
					want[k] = map[uint32]bool{}
				}
				want[k][x] = true
			} else if want[k] != nil {
				delete(want[k], x)
				if len(want[k]) == 0 {
					delete(want, k)
				}
			}
			check(fmt.Sprintf("round %d", round), k)
			maxSlots = max(maxSlots, tab.slots())
		}
	}
	for k, xs := range want {
		for x := range xs {
			tab.remove(k, x, threshold)
		}
		delete(want, k)
		check("drain", k)
	}
	if tab.slots() != 0 && tab.slots() != minSlots || maxSlots < 1024 {
		t.Fatalf("table grew to %d slots and kept %d once empty", maxSlots, tab.slots())
	}
}
