package index

import (
	"errors"
	"fmt"
	"maps"
	"slices"
)

// validateLocked checks the shard's invariants by rebuilding every derived
// structure from the live slots and comparing. s.mu must be held.
func (s *shard) validateLocked(threshold int) error {
	var errs []error
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }

	freeSeen := make(map[uint32]bool, len(s.free))
	for _, slot := range s.free {
		switch {
		case int(slot) >= len(s.slots):
			fail("free slot %d out of range %d", slot, len(s.slots))
		case freeSeen[slot]:
			fail("free slot %d listed twice", slot)
		case s.slots[slot] != nil:
			fail("free slot %d holds pod %s", slot, s.slots[slot].pod.UID)
		}
		freeSeen[slot] = true
	}
	live := 0
	for slot, p := range s.slots {
		if p == nil {
			if !freeSeen[uint32(slot)] {
				fail("empty slot %d is not on the free list", slot)
			}
			continue
		}
		live++
		if got, ok := s.byUID[p.pod.UID]; !ok || got != uint32(slot) {
			fail("pod %s in slot %d, byUID says %d (present %v)", p.pod.UID, slot, got, ok)
		}
	}
	foreign := 0
	for _, p := range s.slots {
		if p != nil && p.reachesOut {
			foreign++
		}
	}
	if got := s.foreign.Load(); int(got) != foreign {
		fail("foreign = %d, want %d", got, foreign)
	}
	if live != len(s.byUID) {
		fail("%d live slots, %d UIDs", live, len(s.byUID))
	}

	refs := map[*rules]int32{}
	for _, p := range s.slots {
		if p != nil && p.refs > 0 {
			refs[p.rules]++
		}
	}
	interned := 0
	for h, r := range s.rules {
		for ; r != nil; r = r.next {
			interned++
			if r.hash != h {
				fail("rules with hash %#x chained under %#x", r.hash, h)
			}
			if r.refs != refs[r] || r.refs <= 0 {
				fail("interned rules have %d refs, %d pods use them", r.refs, refs[r])
			}
			if x := r.computeHash(); x != r.hash {
				fail("interned rules hash %#x, recomputed %#x", r.hash, x)
			}
		}
	}
	if interned != len(refs) {
		fail("%d interned rules, %d in use", interned, len(refs))
	}
	for _, p := range s.slots {
		if p != nil && p.internable() && p.refs == 0 {
			fail("pod %s holds rules that are not interned", p.pod.UID)
		}
	}

	want := newShard()
	for slot, p := range s.slots {
		if p != nil {
			want.indexPod(p, uint32(slot), true, threshold)
		}
	}
	if s.wide != want.wide {
		fail("wide = %d, want %d", s.wide, want.wide)
	}
	if !maps.Equal(s.use, want.use) {
		fail("use = %v, want %v", s.use, want.use)
	}
	errs = append(errs, comparePostings("terms", s.terms, want.terms, threshold)...)
	errs = append(errs, comparePostings("labels", s.labels, want.labels, threshold)...)
	errs = append(errs, comparePostings("nsPods", s.nsPods, want.nsPods, threshold)...)
	for _, c := range []struct {
		name      string
		got, want *posting
	}{{"errs", &s.errs, &want.errs}, {"anti", &s.anti, &want.anti}, {"nsSel", &s.nsSel, &want.nsSel}} {
		if err := equalPosting(c.got, c.want, threshold); err != nil {
			fail("%s: %w", c.name, err)
		}
	}
	if s.topo.Len() != want.topo.Len() {
		fail("topo has %d keys, want %d", s.topo.Len(), want.topo.Len())
	}
	want.topo.Ascend(func(w *topoItem) bool {
		got, ok := s.topo.Get(w)
		if !ok {
			fail("topo lacks key %q", w.key)
			return true
		}
		for _, c := range []struct {
			name      string
			got, want *posting
		}{{"aff", &got.aff, &w.aff}, {"anti", &got.anti, &w.anti}, {"spread", &got.spread, &w.spread}} {
			if err := equalPosting(c.got, c.want, threshold); err != nil {
				fail("topo %q %s: %w", w.key, c.name, err)
			}
		}
		return true
	})
	return errors.Join(errs...)
}

func comparePostings[K comparable](name string, got, want map[K]*posting, threshold int) []error {
	var errs []error
	for k, g := range got {
		w, ok := want[k]
		if !ok {
			errs = append(errs, fmt.Errorf("%s: stale posting %+v", name, k))
			continue
		}
		if err := equalPosting(g, w, threshold); err != nil {
			errs = append(errs, fmt.Errorf("%s %+v: %w", name, k, err))
		}
	}
	for k := range want {
		if _, ok := got[k]; !ok {
			errs = append(errs, fmt.Errorf("%s: missing posting %+v", name, k))
		}
	}
	return errs
}

// equalPosting checks got's own invariants and that it holds the same set as
// want, whatever the representation.
func equalPosting(got, want *posting, threshold int) error {
	if err := got.validate(threshold); err != nil {
		return err
	}
	g, w := got.appendTo(nil), want.appendTo(nil)
	if !slices.Equal(g, w) {
		return fmt.Errorf("holds %v, want %v", g, w)
	}
	return nil
}
