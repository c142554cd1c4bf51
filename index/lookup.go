package index

import (
	"slices"

	"github.com/affinityq/affinityq/matcher"
)

// Candidates. A lookup gathers, in one buffer, an entry per posting element
// it reaches: the term entry (group.go; a group id with undecidedTerm for
// the postings that name groups) shifted left by two, or'ed with the
// versions of the event's pod that reached it (verOld, verNew). Sorted, the
// entries of one group are adjacent, and together they say which of its
// decided terms each version matches.
const (
	verOld = 1 << iota
	verNew
)

func candidate(entry uint32, ver uint64) uint64 { return uint64(entry)<<2 | ver }

func candidateGroup(c uint64) uint32 { return uint32(c >> (2 + termBits)) }

// scratch is one lookup's working memory, pooled by the index: the
// candidates, and the candidate groups with what their candidates say.
type scratch[T any] struct {
	cands  []uint64
	groups []gathered[T]
}

// gathered is a candidate group and what its candidates say of its terms.
type gathered[T any] struct {
	g *group[T]
	m termMatches
}

// lookup appends to dst the hits of e among the shard's pods for whose
// rules keep (if not nil) reports true, using sc. Each candidate group is
// evaluated once, and all its members are hits or none is. The groups are
// gathered first and evaluated after: gathering is a short loop of
// independent loads, so the cache misses of many groups overlap, where
// evaluating each as it is found would wait for them one by one.
func (s *shard[T]) lookup(dst []Hit[T], e *prepared, sc *scratch[T], keep func(relation, transition RuleSet) bool) []Hit[T] {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.pods == 0 {
		return dst
	}
	c := s.candidates(sc.cands[:0], e)
	slices.Sort(c)
	gs := sc.groups[:0]
	for i := 0; i < len(c); {
		id, m, next := nextGroup(c, i)
		g := s.groups[id]
		m.decided = g.shape.decided
		gs = append(gs, gathered[T]{g, m})
		i = next
	}
	var memo verdicts
	for _, cg := range gs {
		g := cg.g
		rel, tr, ok := memo.get(&g.shape, cg.m)
		if !ok {
			var pure bool
			rel, tr, pure = evaluate(&g.shape, g.first.rules, g.pod(), e, cg.m)
			if pure {
				memo.put(&g.shape, cg.m, rel, tr)
			}
		}
		if rel|tr == 0 || keep != nil && !keep(rel, tr) {
			continue
		}
		for i := range g.size() {
			p := g.member(i)
			dst = append(dst, Hit[T]{Pod: p.pod, Relation: rel, Transition: tr, Tag: p.tag})
		}
	}
	clear(gs) // no pointer into the shard outlives the lock
	sc.cands, sc.groups = c, gs
	return dst
}

// nextGroup reads the candidates of one group from sorted candidates c,
// from position i: the group's id, which of its decided terms each version
// reached (decided is left for the caller, who reads the group), and the
// position after them.
func nextGroup(c []uint64, i int) (id uint32, m termMatches, next int) {
	id = candidateGroup(c[i])
	for ; i < len(c) && candidateGroup(c[i]) == id; i++ {
		if t := c[i] >> 2 & undecidedTerm; t != undecidedTerm {
			if c[i]&verOld != 0 {
				m.old |= 1 << t
			}
			if c[i]&verNew != 0 {
				m.new |= 1 << t
			}
		}
	}
	return id, m, i
}

// verdicts holds, for one lookup, the results of evaluate that depend on
// nothing but a group's shape and term matches (pure): the groups of
// unrelated pods whose rules have one shape (one required term on one
// label, the most common rule there is) share one, so a lookup evaluates
// each combination once. It is a small direct-mapped table; a collision
// costs an evaluation, never a wrong result, as a slot holds its key.
type verdicts [8]verdict

type verdict struct {
	sh       shape
	m        termMatches
	rel, tr  RuleSet
	occupied bool
}

func verdictSlot(sh *shape, m termMatches) int {
	return int(sh.n^sh.nAff<<1^m.old<<2^m.new<<4) & (len(verdicts{}) - 1)
}

func (v *verdicts) get(sh *shape, m termMatches) (rel, tr RuleSet, ok bool) {
	x := &v[verdictSlot(sh, m)]
	if !x.occupied || x.sh != *sh || x.m != m {
		return 0, 0, false
	}
	return x.rel, x.tr, true
}

func (v *verdicts) put(sh *shape, m termMatches, rel, tr RuleSet) {
	v[verdictSlot(sh, m)] = verdict{*sh, m, rel, tr, true}
}

// candidates appends the candidates of every group the event may affect: a
// superset of the hits, found through the postings without scanning.
func (s *shard[T]) candidates(c []uint64, e *prepared) []uint64 {
	c = s.errs.appendGroups(c)
	switch e.kind {
	case AssignedPodAdd, AssignedPodUpdate, AssignedPodDelete:
		switch {
		case e.qn != nil && e.qo != nil:
			c = s.podCandidates(c, e.nsHash, e.qn.Labels, e.qo.Labels, verNew, verOld, false)
			c = s.podCandidates(c, e.nsHash, e.qo.Labels, e.qn.Labels, verOld, verNew, true)
		case e.qn != nil:
			c = s.podCandidates(c, e.nsHash, e.qn.Labels, nil, verNew, verOld, false)
		default:
			c = s.podCandidates(c, e.nsHash, e.qo.Labels, nil, verOld, verNew, false)
		}
		c = s.symmetricCandidates(c, e, e.oldAnti)
		c = s.symmetricCandidates(c, e, e.newAnti)
	case NodeAdd, NodeUpdate, NodeDelete:
		c = s.nodeCandidates(c, e)
	case NamespaceUpdate:
		c = s.nsSel.appendGroups(c)
	}
	return c
}

// podCandidates appends the groups with a term that a version of an
// assigned pod in the namespace hashed ns with labels may satisfy: terms
// anchored at one of its labels, and (unless again) terms without a
// positive requirement, as reached by mine, the version's bit. other is the
// other version's labels (nil if none): a posting that both reach is
// probed once, reached by both (theirs too), and again says that labels
// were probed so already.
func (s *shard[T]) podCandidates(c []uint64, ns uint64, labels, other map[string]string, mine, theirs uint64, again bool) []uint64 {
	for k, v := range labels {
		kh := strHash(k)
		u := s.use[bucket(kh)]
		if u == (keyUse{}) {
			continue
		}
		ov, both := other[k]
		same := both && ov == v
		if again && same {
			continue
		}
		if u.in > 0 {
			ver := mine
			if same {
				ver |= theirs
			}
			c = s.appendTerms(c, ns, kh, strHash(v), false, ver)
		}
		if u.exists > 0 && !(again && both) {
			ver := mine
			if both {
				ver |= theirs
			}
			c = s.appendTerms(c, ns, kh, 0, true, ver)
		}
	}
	if !again && s.use[bucket(emptyHash)].in > 0 {
		c = s.appendTerms(c, ns, emptyHash, emptyHash, false, mine)
	}
	return c
}

// appendTerms appends the terms posting of the namespace, key and value
// hashed ns, key and val (postHash), and its selector-scoped counterpart,
// with namespace "", when there are such postings.
func (s *shard[T]) appendTerms(c []uint64, ns, key, val uint64, exists bool, ver uint64) []uint64 {
	c = s.terms.appendEntries(c, postHash(ns, key, val, exists), ver)
	if s.wide > 0 {
		c = s.terms.appendEntries(c, postHash(emptyHash, key, val, exists), ver)
	}
	return c
}

// symmetricCandidates appends the pending pods an assigned pod's required
// anti-affinity terms may match, through the forward postings of pending
// pods' own labels.
func (s *shard[T]) symmetricCandidates(c []uint64, e *prepared, anti []matcher.Term) []uint64 {
	for i := range anti {
		t := &anti[i]
		r, ok := anchor(t.Selector)
		kh := strHash(r.Key())
		each := func(c []uint64, ns string) []uint64 {
			switch {
			case !ok:
				c = s.nsPods.appendGroups(c, ns)
			case r.Operator() == matcher.Exists:
				c = s.labels.appendGroups(c, postHash(strHash(ns), kh, 0, true))
			default:
				nh := strHash(ns)
				for _, v := range r.Values() {
					c = s.labels.appendGroups(c, postHash(nh, kh, strHash(v), false))
				}
			}
			return c
		}
		if t.Scope.Selector().Nothing() {
			for _, ns := range t.Scope.Names() {
				c = each(c, ns)
			}
			continue
		}
		for ns := range s.nsPods {
			if t.Scope.Contains(ns, e.labelsOf(ns)) {
				c = each(c, ns)
			}
		}
	}
	return c
}

// nodeCandidates appends the pods with a term on a topology key the node
// event touches, and every pod with an anti-affinity term on a node add.
func (s *shard[T]) nodeCandidates(c []uint64, e *prepared) []uint64 {
	if e.kind == NodeAdd {
		c = s.anti.appendGroups(c)
	}
	s.topo.Ascend(func(it *topoItem) bool {
		ov, oldHas := e.oldNode[it.key]
		nv, newHas := e.newNode[it.key]
		switch e.kind {
		case NodeAdd:
			if newHas {
				c = it.aff.appendGroups(c)
				c = it.spread.appendGroups(c)
			}
		case NodeDelete:
			if oldHas {
				c = it.spread.appendGroups(c)
			}
		case NodeUpdate:
			if oldHas != newHas || ov != nv {
				c = it.aff.appendGroups(c)
				c = it.anti.appendGroups(c)
				c = it.spread.appendGroups(c)
			} else if e.taintsChanged && newHas {
				c = it.spread.appendGroups(c)
			}
		}
		return true
	})
	return c
}
