package index

import (
	"errors"
	"fmt"
	"iter"
	"slices"
)

// validateLocked checks the shard's invariants by rebuilding every derived
// structure from the live groups and comparing. s.mu must be held.
func (s *shard[T]) validateLocked(threshold int) error {
	var errs []error
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }

	freeSeen := make(map[uint32]bool, len(s.free))
	for _, id := range s.free {
		switch {
		case int(id) >= len(s.groups):
			fail("free group id %d out of range %d", id, len(s.groups))
		case freeSeen[id]:
			fail("free group id %d listed twice", id)
		case s.groups[id] != nil:
			fail("free group id %d is in use", id)
		}
		freeSeen[id] = true
	}
	members, foreign := 0, 0
	for id, g := range s.groups {
		if g == nil {
			if !freeSeen[uint32(id)] {
				fail("empty group id %d is not on the free list", id)
			}
			continue
		}
		if g.id() != uint32(id) || (g.members != nil && len(g.members) == 0) {
			fail("group %d: id %d, an empty list of members", id, g.id())
			continue
		}
		if g.rules().reachesOut {
			foreign++
		}
		if g.shape != g.rules().shape {
			fail("group %d: shape %+v, its rules' %+v", id, g.shape, g.rules().shape)
		}
		for at := range g.size() {
			p := g.member(at)
			members++
			if p.rules != g.rules() || p.gid != g.id() || p.at != uint32(at) {
				fail("group %d member %d: pod %s has rules of another group, group %d or position %d", id, at, p.pod.UID, p.gid, p.at)
			}
			if g.rules().shareable() && !sameSource(p.pod, g.pod()) {
				fail("group %d: member %s has another source than member %s", id, p.pod.UID, g.pod().UID)
			}
		}
		if !g.rules().shareable() && g.size() > 1 {
			fail("group %d: rules that failed to compile shared by %d pods", id, g.size())
		}
	}
	if members != s.pods {
		fail("%d group members, pods = %d", members, s.pods)
	}
	if got := s.foreign.Load(); int(got) != foreign {
		fail("foreign = %d, want %d", got, foreign)
	}

	for r, g := range s.unrepresented {
		if g == nil || int(g.id()) >= len(s.groups) || s.groups[g.id()] != g || g.rules() != r {
			fail("unrepresented lists a group that is not live under its rules")
		}
	}
	if err := s.sources.validate(); err != nil {
		fail("sources: %w", err)
	}
	for src, r := range s.sources.all() {
		var g *group[T]
		if int(r-1) < len(s.groups) {
			g = s.groups[r-1]
		}
		switch {
		case g == nil:
			fail("source %#x names group %d, which is not live", src, r-1)
		case g.rules().src != src || g.rep == 0 || int(g.rep) > g.size():
			fail("source %#x names a group of source %#x whose representative is at %d of %d", src, g.rules().src, g.rep, g.size())
		default:
			if c, err := Compile[T](g.representative().pod); err != nil || !c.rules.equal(g.rules()) {
				fail("source %#x: the representative %s does not compile to its group's rules", src, g.representative().pod.UID)
			}
		}
	}
	for _, g := range s.groups {
		if g == nil {
			continue
		}
		if g.rep != 0 && s.bySource(g.rules().src) != g {
			fail("group %d has a representative but the shard does not find it by source %#x", g.id(), g.rules().src)
		}
		if listed := s.unrepresented[g.rules()] == g; listed != (g.rep == 0 && g.rules().shareable()) {
			fail("group %d: listed as unrepresented %v, with a representative %v", g.id(), listed, g.rep != 0)
		}
		if g.rules().src == 0 {
			if g.rules().shareable() {
				fail("group %d: rules that compiled without a source hash", g.id())
			}
			continue
		}
		for i := range g.size() {
			if p := g.member(i); sourceHash(p.pod, strHash(p.pod.Namespace)) != g.rules().src {
				fail("group %d: member %s has another source than its group's %#x", g.id(), p.pod.UID, g.rules().src)
			}
		}
	}

	want := newShard[T]()
	for _, g := range s.groups {
		if g != nil {
			want.indexGroup(g, g.pod(), true, threshold)
		}
	}
	if s.wide != want.wide {
		fail("wide = %d, want %d", s.wide, want.wide)
	}
	for b := range s.use {
		if s.use[b] != want.use[b] {
			fail("key bucket %d counts %+v, want %+v", b, s.use[b], want.use[b])
		}
	}
	for _, c := range []struct {
		name      string
		got, want *postingTable
	}{{"terms", &s.terms, &want.terms}, {"labels", &s.labels, &want.labels}} {
		if err := c.got.validate(threshold); err != nil {
			fail("%s: %w", c.name, err)
		}
		errs = append(errs, comparePostings(c.name, c.got.postings(), c.want.postings())...)
	}
	for ns, p := range s.nsPods {
		if err := p.validate(threshold); err != nil {
			fail("nsPods %q: %w", ns, err)
		} else if p.empty() {
			fail("nsPods %q: empty posting kept", ns)
		}
	}
	errs = append(errs, comparePostings("nsPods", s.nsPods.all(), want.nsPods.all())...)
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

// comparePostings compares two sets of postings by key, each given as its
// groups in increasing order.
func comparePostings[K comparable](name string, got, want iter.Seq2[K, []uint32]) []error {
	var errs []error
	wants := map[K][]uint32{}
	for k, w := range want {
		wants[k] = slices.Clone(w)
	}
	for k, g := range got {
		w, ok := wants[k]
		switch {
		case !ok:
			errs = append(errs, fmt.Errorf("%s: stale posting %+v", name, k))
		case !slices.Equal(g, w):
			errs = append(errs, fmt.Errorf("%s %+v: holds %v, want %v", name, k, g, w))
		}
		delete(wants, k)
	}
	for k := range wants {
		errs = append(errs, fmt.Errorf("%s: missing posting %+v", name, k))
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
