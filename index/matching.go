package index

import (
	"slices"

	v1 "k8s.io/api/core/v1"
)

// Match is an indexed pod some of whose compiled terms a pod matches
// (Index.Matching), with which of them.
type Match[T any] struct {
	Pod   *v1.Pod
	Tag   T // the indexed Pending's tag, as in Hit
	Terms TermSet
}

// TermSet is a set of a Pending's term positions: its required affinity
// terms first, then its required anti-affinity terms, then its
// DoNotSchedule spread constraints (Pending.Terms gives the counts). Rules
// of up to 64 terms take no allocation.
type TermSet struct {
	word uint64   // terms 0 to 63
	more []uint64 // terms from 64 on, 64 a word; nil for rules of up to 64 terms
}

// Has reports whether term i is in the set.
func (s TermSet) Has(i int) bool {
	if i < 64 {
		return s.word>>i&1 != 0
	}
	w := i/64 - 1
	return w < len(s.more) && s.more[w]>>(i%64)&1 != 0
}

// Empty reports whether the set holds no term.
func (s TermSet) Empty() bool {
	if s.word != 0 {
		return false
	}
	for _, w := range s.more {
		if w != 0 {
			return false
		}
	}
	return true
}

// Terms returns how many required affinity terms, required anti-affinity
// terms and DoNotSchedule spread constraints p has, in the order TermSet
// numbers them. A term that failed to compile is counted, and never
// matches.
func (p *Pending[T]) Terms() (affinity, antiAffinity, spread int) {
	r := p.rules
	return int(r.nAff), int(r.nAnti), int(r.n) - int(r.nAff) - int(r.nAnti)
}

// Matching appends to dst a Match for every indexed pod one of whose
// compiled terms matches pod: an affinity or anti-affinity term whose
// namespace scope holds pod's namespace (a namespace selector read through
// WithNamespaceLabels) and whose selector matches its labels, or a spread
// constraint of the indexed pod's namespace whose selector matches them.
// It is the question "whose terms match this pod" without the requeueing
// rules of Lookup: an index of any set of terms (those of placed pods, or
// questions asked about them) answers it in time proportional to the
// candidates its postings find, as Lookup does. A pod need not be
// scheduled. A nil pod matches nothing. With a dst of enough capacity it
// does not allocate, unless a matching pod has more than 64 terms.
func (ix *Index[T]) Matching(dst []Match[T], pod *v1.Pod) []Match[T] {
	if pod == nil {
		return dst
	}
	e := prepared{kind: AssignedPodAdd, qn: pod, ns: pod.Namespace, nsHash: strHash(pod.Namespace), lookupNS: ix.lookupNS}
	e.nsLabels = e.labelsOf(e.ns)
	sc := ix.scratch.Get().(*scratch[T])
	home, _ := ix.reach(&e)
	for i, s := range ix.shards {
		if i == home || s.foreign.Load() > 0 {
			dst = s.matching(dst, &e, sc)
		}
	}
	ix.scratch.Put(sc)
	return dst
}

// matching appends to dst the Matches of e.qn among the shard's pods; the
// terms of a candidate group are found once for all its members.
func (s *shard[T]) matching(dst []Match[T], e *prepared, sc *scratch[T]) []Match[T] {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.pods == 0 {
		return dst
	}
	c := s.podCandidates(sc.cands[:0], e.nsHash, e.qn.Labels, nil, verNew, verOld, false)
	slices.Sort(c)
	for i := 0; i < len(c); {
		id, m, next := nextGroup(c, i)
		i = next
		g := s.groups[id]
		set := termsMatchedBy(&g.shape, g.rules(), e.qn, e, g.shape.decided, m.new)
		if set.Empty() {
			continue
		}
		for k := range g.size() {
			p := g.member(k)
			dst = append(dst, Match[T]{Pod: p.pod, Tag: p.tag, Terms: set})
		}
	}
	sc.cands = c
	return dst
}

// termsMatchedBy returns the terms of r (of shape sh) that q matches, given
// the terms the postings decided (decided) and which of those q reached
// (matched); the others are evaluated.
func termsMatchedBy(sh *shape, r *rules, q *v1.Pod, e *prepared, decided, matched uint16) TermSet {
	s := TermSet{word: uint64(matched & decided)}
	if sh.decidedBy(decided) {
		return s
	}
	s.word |= matchedTerms(r, q, e, decided, 0)
	if n := int(sh.n); n > 64 {
		s.more = make([]uint64, (n-1)/64)
		for k := range s.more {
			s.more[k] = matchedTerms(r, q, e, decided, 64*(k+1))
		}
	}
	return s
}
