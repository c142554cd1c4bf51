package index

import (
	"slices"

	v1 "k8s.io/api/core/v1"

	"github.com/affinityq/affinityq/matcher"
)

// group is the pods of one shard that have one source (source.go), and so
// one set of compiled rules: the replicas of a workload, or a pod whose
// rules are its own. The shard's postings name groups, so a replica joins
// its group without editing a posting and a lookup evaluates an event once
// per group, whatever its size.
//
// The rules are compiled data, immutable and possibly shared with other
// groups (of another shard or index) and with Pendings the embedder keeps.
// Everything else is the shard's, under its lock. A group derives its
// postings from its rules and the namespace and labels of its members
// (which are equal, their sources being equal), read from a member's pod:
// the group keeps no pod of its own, so no pod that left the index is read
// again.
type group[T any] struct {
	shape shape  // first.rules.shape, next to the first member
	rep   uint32 // 1 + the position of the representative among the members, by whose source the shard finds the group (source.go); 0 if none
	// members lists the indexed pods of the group; nil while the group's
	// only member is first, which saves the list for a group of one pod,
	// the most common kind in a pool of unique pods.
	members []*Pending[T]
	// first is the Pending the index keeps for the pod that founded the
	// group: its rules are the group's and its gid the group's id, for all
	// the group's life. A group of one pod is one allocation, which is all
	// a lookup reads of it when the postings decide its terms. first stays
	// valid (the embedder may keep it) after the pod leaves.
	first Pending[T]
}

// id returns the group's slot in shard.groups.
func (g *group[T]) id() uint32 { return g.first.gid }

// rules returns the group's rules.
func (g *group[T]) rules() *rules { return g.first.rules }

// size returns the number of members; a live group has at least one.
func (g *group[T]) size() int {
	if g.members == nil {
		return 1
	}
	return len(g.members)
}

// member returns the member at position i.
func (g *group[T]) member(i int) *Pending[T] {
	if g.members == nil {
		return &g.first
	}
	return g.members[i]
}

// pod returns a member's pod: the namespace and labels of the group.
func (g *group[T]) pod() *v1.Pod { return g.member(0).pod }

// representative returns the member by whose source the group is found,
// nil if none.
func (g *group[T]) representative() *Pending[T] {
	if g.rep == 0 {
		return nil
	}
	return g.member(int(g.rep) - 1)
}

// Term entries. The term postings name (group, term) pairs: an entry is the
// group's id shifted left by termBits, or'ed with the index of the term when
// the posting decides it (below), undecidedTerm otherwise. A term is
// decided by its postings when its selector is a single positive
// requirement, In or Exists, and its scope a list of namespaces: a pod
// matches it exactly when the pod's namespace and label reach one of the
// term's postings. A lookup then knows which of a candidate's decided terms
// the event's pod matches from the postings that found the candidate, and
// evaluates only the others (rules.go): for most pods of a real pool (a
// selector of one label), no term at all. A decision rests on the 64-bit
// posting key: two keys a shard holds would have to share it (odds about
// keys²/2⁶⁴) for a lookup to return a hit it should not, never to miss one.
const (
	termBits      = 4
	undecidedTerm = 1<<termBits - 1
	maxDecided    = undecidedTerm // terms 0 to maxDecided-1 may be decided
	// maxGroups bounds a shard's groups: a term entry's ref (entry + 1) in
	// a postingTable stays below refMany. A shard would need hundreds of
	// gigabytes of pods to reach it.
	maxGroups = (refMany - 1) >> termBits
)

func termEntry(id uint32, term int) uint32 { return id<<termBits | uint32(term) }

// decides reports whether a term's postings decide whether a pod matches it.
func decides(t *matcher.Term) bool {
	return t.Err() == nil && len(t.Selector.Requirements()) == 1 && t.Selector.HasPositive() &&
		t.Scope.Selector().Nothing()
}

// anchor picks the positive requirement a term is posted under: an In
// requirement before an Exists one (a value is more selective than a key),
// then the one with the fewest values, then the first by key. The choice is
// a function of the term alone, so removal finds the same postings.
// ok is false when the term has no positive requirement.
func anchor(sel matcher.Selector) (r matcher.Requirement, ok bool) {
	pos := sel.Positive()
	best := -1
	for i := range pos {
		if best < 0 || better(pos[i], pos[best]) {
			best = i
		}
	}
	if best < 0 {
		return matcher.Requirement{}, false
	}
	return pos[best], true
}

func better(a, b matcher.Requirement) bool {
	if (a.Operator() == matcher.In) != (b.Operator() == matcher.In) {
		return a.Operator() == matcher.In
	}
	return len(a.Values()) < len(b.Values())
}

// indexGroup adds (add) or deletes every posting entry of the group g, whose
// members' namespace and labels are pod's. It is the one description of
// what the index derives from a group: group creation, group removal and
// Validate all go through it, and removal makes exactly the calls creation
// made.
func (s *shard[T]) indexGroup(g *group[T], pod *v1.Pod, add bool, threshold int) {
	id, r := g.id(), g.rules()
	apply := func(ps *posting, x uint32) {
		if add {
			ps.add(x, threshold)
		} else {
			ps.remove(x, threshold)
		}
	}
	delta := int32(1)
	if !add {
		delta = -1
	}
	// editTerm is an edit of s.terms, keeping use and wide in step. They
	// count anchor entries, not table entries, so that a hash collision
	// between two keys cannot hide either.
	editTerm := func(entry uint32, ns, key, val uint64, exists, wide bool) {
		s.terms.edit(postHash(ns, key, val, exists), entry, add, threshold)
		if u := &s.use[bucket(key)]; exists {
			u.exists += delta
		} else {
			u.in += delta
		}
		if wide {
			s.wide += int(delta)
		}
	}
	own := pod.Namespace
	ownHash := strHash(own)
	nsHash := func(ns string) uint64 {
		if ns == own {
			return ownHash
		}
		return strHash(ns)
	}
	editTopo := func(t *matcher.Term) {
		s.probe.key = t.TopologyKey
		it, ok := s.topo.Get(&s.probe)
		if !ok {
			it = &topoItem{key: t.TopologyKey}
			s.topo.ReplaceOrInsert(it)
		}
		switch t.Kind {
		case matcher.Affinity:
			apply(&it.aff, id)
		case matcher.AntiAffinity:
			apply(&it.anti, id)
		default:
			apply(&it.spread, id)
		}
		if it.empty() {
			s.topo.Delete(it)
		}
	}
	byLabels := false
	for i := range r.terms {
		t := &r.terms[i]
		editTopo(t)
		// A namespace-label change flips the scope of such a term even when
		// its selector matches no pod; DESIGN.md's rule does not look at the
		// selector, and neither does the reference.
		byLabels = byLabels || t.Scope.ByLabels()
		if t.Err() != nil || t.Selector.Nothing() {
			continue // matches no pod; an error is covered by errs
		}
		entry := termEntry(id, undecidedTerm)
		if r.decides(i) {
			entry = termEntry(id, i)
		}
		a, ok := anchor(t.Selector)
		key := strHash(a.Key()) // "" for a term without a positive requirement
		post := func(ns string) {
			nh := nsHash(ns)
			switch {
			case !ok:
				editTerm(entry, nh, key, emptyHash, false, ns == "")
			case a.Operator() == matcher.Exists:
				editTerm(entry, nh, key, 0, true, ns == "")
			default:
				for _, v := range a.Values() {
					editTerm(entry, nh, key, strHash(v), false, ns == "")
				}
			}
		}
		if !t.Scope.Selector().Nothing() {
			post("") // the scope is checked per candidate
		}
		for _, ns := range t.Scope.Names() {
			post(ns)
		}
	}
	for k, v := range pod.Labels {
		kh := strHash(k)
		s.labels.edit(postHash(ownHash, kh, strHash(v), false), id, add, threshold)
		s.labels.edit(postHash(ownHash, kh, 0, true), id, add, threshold)
	}
	s.nsPods.edit(own, id, add, threshold)
	if r.flags != 0 {
		apply(&s.errs, id)
	}
	if r.nAnti > 0 {
		apply(&s.anti, id)
	}
	if byLabels {
		apply(&s.nsSel, id)
	}
}

// insertLocked indexes p in place of old, the Pending of the same UID that
// s holds (nil if none), and returns the Pending it keeps, which carries
// tag: a new one, or the first of a group p founds. s.mu must be held for
// writing.
func (s *shard[T]) insertLocked(p, old *Pending[T], tag T, threshold int) *Pending[T] {
	if old != nil {
		s.removeLocked(old, threshold)
	}
	g, founded := s.groupFor(p, threshold)
	kept := &g.first
	if !founded {
		kept = &Pending[T]{}
		if g.members == nil {
			g.members = append(make([]*Pending[T], 0, 2), &g.first)
		}
	}
	*kept = Pending[T]{pod: p.pod, rules: g.rules(), tag: tag, gid: g.id()}
	if !founded {
		kept.at = uint32(len(g.members))
		g.members = append(g.members, kept)
	}
	s.pods++
	s.remember(g, kept.at)
	return kept
}

// groupFor returns the live group p joins, creating it when there is none:
// the group Index.Compile found p's rules in, when it is still live here
// with them; else the group remembered under p's source; else the group of
// p's rules that has no representative; else a new group.
// Rules that failed to compile are never shared: each such pod has a group
// of its own.
func (s *shard[T]) groupFor(p *Pending[T], threshold int) (g *group[T], founded bool) {
	r := p.rules
	if !r.shareable() {
		return s.newGroup(r, p.pod, threshold), true
	}
	// Pods given the same rules have the same source (Index.Compile gives
	// a group's rules only to a pod of its source), so the group that holds
	// p's rules is p's. p.gid is only a hint for a p not yet indexed: the
	// group may have been dropped, or be of another shard or index.
	if int(p.gid) < len(s.groups) {
		if g := s.groups[p.gid]; g != nil && g.rules() == r {
			return g, false
		}
	}
	if g := s.bySource(r.src); g != nil && sameSource(p.pod, g.representative().pod) {
		return g, false
	}
	if g := s.unrepresented[r]; g != nil {
		return g, false
	}
	return s.newGroup(r, p.pod, threshold), true
}

// newGroup makes and indexes a group of rules r for pod, its founder, whose
// Pending is to be the group's first.
func (s *shard[T]) newGroup(r *rules, pod *v1.Pod, threshold int) *group[T] {
	g := &group[T]{shape: r.shape, first: Pending[T]{rules: r}}
	if n := len(s.free); n > 0 {
		g.first.gid = s.free[n-1]
		s.free = s.free[:n-1]
		s.groups[g.id()] = g
	} else {
		if len(s.groups) >= maxGroups {
			panic("index: a shard holds the most groups its term entries can name")
		}
		g.first.gid = uint32(len(s.groups))
		s.groups = append(s.groups, g)
	}
	if r.reachesOut {
		s.foreign.Add(1)
	}
	s.indexGroup(g, pod, true, threshold)
	return g
}

// removeLocked removes p, a Pending the shard keeps. s.mu must be held for
// writing.
func (s *shard[T]) removeLocked(p *Pending[T], threshold int) {
	s.pods--
	g := s.groups[p.gid]
	if g.size() == 1 {
		s.forget(g)
		s.dropGroup(g, p.pod, threshold)
		return
	}
	last := len(g.members) - 1
	m := g.members[last]
	wasRep := g.rep == p.at+1
	if m != p {
		g.members[p.at], m.at = m, p.at
		if g.rep == uint32(last)+1 {
			g.rep = p.at + 1 // the representative moved
		}
	}
	g.members[last] = nil
	g.members = g.members[:last]
	switch {
	case cap(g.members) > 64 && last < cap(g.members)/4:
		g.members = slices.Clip(slices.Clone(g.members))
	}
	if wasRep {
		// Another member represents the group, so that the next replica
		// still finds it by its source.
		s.forget(g)
		s.remember(g, 0)
	}
}

// dropGroup removes the group g, whose last member, of pod, has just left,
// from every structure of the shard. Its rules stay valid: Pendings that
// the embedder kept still evaluate with them, and a pod of the same source
// compiled by Index.Compile before the drop founds a new group with them.
func (s *shard[T]) dropGroup(g *group[T], pod *v1.Pod, threshold int) {
	s.indexGroup(g, pod, false, threshold)
	s.unlist(g)
	if g.rules().reachesOut {
		s.foreign.Add(-1)
	}
	s.groups[g.id()] = nil
	s.free = append(s.free, g.id())
}
