package index

import (
	"testing"
)

// TestHashTable drives a table against a Go map through growth to
// thousands of keys, shrinking, and back to none, with keys chosen to share
// home slots at every size (so probe sequences run long and deletions shift
// entries back), checking the invariants and a key after every step.
func TestHashTable(t *testing.T) {
	var tab hashTable
	want := map[uint64]uint32{}
	rng := uint64(1)
	next := func() uint64 { rng = rng*6364136223846793005 + 1442695040888963407; return rng >> 11 }
	// Keys whose top bits take few values share home slots at every size;
	// 0 is a key like any other.
	key := func() uint64 { r := next(); return (r%7)<<61 | r%1021 }
	steps := 0
	check := func(step string, k uint64) {
		t.Helper()
		if steps++; tab.slots() <= 256 || steps%64 == 0 {
			if err := tab.validate(); err != nil {
				t.Fatalf("%s: %v", step, err)
			}
		}
		if tab.len() != len(want) {
			t.Fatalf("%s: %d keys, want %d", step, tab.len(), len(want))
		}
		r, ok := tab.get(k)
		if w, wok := want[k]; r != w || ok != wok {
			t.Fatalf("%s: get(%#x) = %d, %v, want %d, %v", step, k, r, ok, w, wok)
		}
	}
	maxSlots := 0
	for round, puts := range []uint64{3, 1} { // mostly puts, then mostly deletes
		for range 20000 {
			k := key()
			if next()%4 < puts {
				r := uint32(next()%1000) + 1
				tab.put(k, r)
				want[k] = r
			} else {
				_, present := want[k]
				if got := tab.delete(k); got != present {
					t.Fatalf("delete(%#x) = %v, want %v", k, got, present)
				}
				delete(want, k)
			}
			check([]string{"growing", "shrinking"}[round], k)
			maxSlots = max(maxSlots, tab.slots())
		}
	}
	for k := range want {
		tab.delete(k)
		delete(want, k)
		check("drain", k)
	}
	if maxSlots < 4096 || tab.slots() != minSlots {
		t.Fatalf("table grew to %d slots and kept %d once empty, want ≥ 4096 and %d", maxSlots, tab.slots(), minSlots)
	}
	seen := 0
	for range tab.all() {
		seen++
	}
	if seen != 0 {
		t.Fatalf("an empty table yields %d keys", seen)
	}
}
