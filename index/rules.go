package index

import (
	"math/bits"

	v1 "k8s.io/api/core/v1"

	"github.com/affinityq/affinityq/matcher"
)

// Affected evaluates ev against p exactly, without the index: the rule sets
// under which ev affects p under the Relation and Transition policies. It is
// the check every index hit passes, and what a queue replays against a pod
// that was in flight when the event happened. lookupNS may be nil.
func (p *Pending[T]) Affected(ev *Event, lookupNS NamespaceLabels) (relation, transition RuleSet) {
	return p.affected(ev, lookupNS, nil)
}

// Affected is p.Affected(ev, lookupNS), reusing the anti-affinity terms ix
// compiled for the assigned pods of recent events (assigned.go): what a
// queue replays against its pods in flight. A nil lookupNS reads as ix's
// (WithNamespaceLabels).
func (ix *Index[T]) Affected(p *Pending[T], ev *Event, lookupNS NamespaceLabels) (relation, transition RuleSet) {
	if lookupNS == nil {
		lookupNS = ix.lookupNS
	}
	return p.affected(ev, lookupNS, &ix.anti)
}

func (p *Pending[T]) affected(ev *Event, lookupNS NamespaceLabels, anti *antiCache) (relation, transition RuleSet) {
	if ev == nil {
		return 0, 0
	}
	var e prepared
	prepare(&e, ev, lookupNS, anti)
	return evaluate(&p.rules.shape, p.rules, p.pod, &e, termMatches{})
}

// termMatches says which terms of a candidate the old and the new version
// of an assigned pod match, for the terms a lookup has decided from the
// postings that found the candidate (decided; term entries in group.go).
// The zero value decides nothing.
type termMatches struct{ decided, old, new uint16 }

// evaluate is the one place where the rules of DESIGN.md ("Which pending
// pods an event affects") are written down; the index only narrows down the
// pods it is asked about. The result depends on the rules and on the
// namespace and labels of pod, a pod with them, so pods sharing rules (and
// so those) share the result; sh is r.shape or a copy of it, m holds what
// the postings decided. When they decide every term, r is not read.
func evaluate(sh *shape, r *rules, pod *v1.Pod, e *prepared, m termMatches) (relation, transition RuleSet) {
	if e.none {
		return 0, 0
	}
	switch e.kind {
	case AssignedPodAdd, AssignedPodUpdate, AssignedPodDelete:
		return assignedPodRules(sh, r, pod, e, m)
	case NodeAdd, NodeUpdate, NodeDelete:
		x := nodeRules(r, e)
		return x, x
	case NamespaceUpdate:
		x := namespaceRules(r, e)
		return x, x
	}
	return 0, 0
}

// termSet is a set of a rules' term indices: the terms that one version of
// an assigned pod matches. Rules of up to 64 terms take one word.
type termSet []uint64

// termSets returns two empty sets for rules of n terms, in buf when they
// fit (they do not allocate then).
func termSets(n int, buf *[2]uint64) (a, b termSet) {
	if n <= 64 {
		return buf[0:1:1], buf[1:2:2]
	}
	w := (n + 63) / 64
	s := make(termSet, 2*w)
	return s[:w:w], s[w:]
}

func (s termSet) add(i int) { s[i>>6] |= 1 << (i & 63) }

// count returns how many of the terms from, …, to-1 are in s.
func (s termSet) count(from, to int) int {
	if to <= 64 {
		return bits.OnesCount64(s[0] >> from << (64 - (to - from))) // the bits from, …, to-1, shifted to the top
	}
	return s.countWide(from, to)
}

// countWide is count for sets of more than one word (rules of more than
// 64 terms), kept out of line so that count inlines.
//
//go:noinline
func (s termSet) countWide(from, to int) int {
	n := 0
	for w := from >> 6; w<<6 < to; w++ {
		x := s[w]
		if lo := w << 6; from > lo {
			x &^= 1<<(from-lo) - 1
		}
		if hi := w<<6 + 64; to < hi {
			x &= 1<<(64-(hi-to)) - 1
		}
		n += bits.OnesCount64(x)
	}
	return n
}

// anyOf and allOf report whether s holds any, and every, of the terms from,
// …, to-1; allOf is false for no terms, as kube-scheduler's
// podMatchesAllAffinityTerms.
func (s termSet) anyOf(from, to int) bool { return s.count(from, to) > 0 }
func (s termSet) allOf(from, to int) bool { return to > from && s.count(from, to) == to-from }

// differs reports whether s and o differ in one of the terms from, …, to-1.
func (s termSet) differs(o termSet, from, to int) bool {
	for i := from; i < to; i++ {
		if s[i>>6]>>(i&63)&1 != o[i>>6]>>(i&63)&1 {
			return true
		}
	}
	return false
}

// fill adds to set the terms of r (of shape sh) that q, a version of the
// event's assigned pod, matches: m.decided says which terms m decides,
// matched which of those q matches; the others are evaluated.
func fill(set termSet, sh *shape, r *rules, q *v1.Pod, e *prepared, decided, matched uint16) {
	set[0] |= uint64(matched & decided)
	if n := int(sh.n); n <= maxDecided && decided == 1<<n-1 {
		return // every term decided: for most pods of a real pool
	}
	for i := range r.terms {
		if i < maxDecided && decided>>i&1 != 0 {
			continue
		}
		if r.terms[i].Matches(e.ns, q.Labels, e.nsLabels) {
			set.add(i)
		}
	}
}

func assignedPodRules(sh *shape, r *rules, pod *v1.Pod, e *prepared, m termMatches) (relation, transition RuleSet) {
	var buf [2]uint64
	old, cur := termSets(int(sh.n), &buf)
	if e.qo != nil {
		fill(old, sh, r, e.qo, e, m.decided, m.old)
	}
	if e.qn != nil {
		fill(cur, sh, r, e.qn, e, m.decided, m.new)
	}
	// InterPodAffinity.
	if sh.flags&affinityErr != 0 {
		relation |= InterPodAffinity
		transition |= InterPodAffinity
	} else {
		rel, tr := affinityPodRules(sh, r, pod, e, old, cur)
		if rel {
			relation |= InterPodAffinity
		}
		if tr {
			transition |= InterPodAffinity
		}
	}
	// PodTopologySpread: only pods of the pending pod's namespace count
	// (a compiled constraint's scope is that namespace; a failed one is
	// checked here).
	if sh.flags&spreadErr != 0 {
		if e.ns == pod.Namespace {
			relation, transition = relation|PodTopologySpread, transition|PodTopologySpread
		}
		return relation, transition
	}
	from, to := int(sh.nAff)+int(sh.nAnti), int(sh.n)
	oldMatch, newMatch := old.anyOf(from, to), cur.anyOf(from, to)
	if oldMatch || newMatch {
		relation |= PodTopologySpread
	}
	switch e.kind {
	case AssignedPodAdd:
		if newMatch {
			transition |= PodTopologySpread
		}
	case AssignedPodDelete:
		if oldMatch {
			transition |= PodTopologySpread
		}
	case AssignedPodUpdate:
		if e.labelsChanged && old.differs(cur, from, to) {
			transition |= PodTopologySpread
		}
	}
	return relation, transition
}

// affinityPodRules applies InterPodAffinity's assigned-pod rules to rules
// whose terms all compiled, of pods with pod's namespace and labels; old
// and cur are the terms the old and the new version of the assigned pod
// match (empty for a version the event does not have).
func affinityPodRules(sh *shape, r *rules, pod *v1.Pod, e *prepared, old, cur termSet) (relation, transition bool) {
	nAff, nAA := int(sh.nAff), int(sh.nAff)+int(sh.nAnti)
	oldAll, newAll := old.allOf(0, nAff), cur.allOf(0, nAff)
	oldAnti, newAnti := old.anyOf(nAff, nAA), cur.anyOf(nAff, nAA)
	// Symmetry: the assigned pod's own anti-affinity may be what blocks the
	// pod.
	var blockedByOld, blockedByNew bool
	if len(e.oldAnti)+len(e.newAnti) > 0 {
		pl := e.labelsOf(pod.Namespace)
		blockedByOld = matcher.AnyMatch(e.oldAnti, pod.Namespace, pod.Labels, pl)
		blockedByNew = matcher.AnyMatch(e.newAnti, pod.Namespace, pod.Labels, pl)
	}
	relation = old.anyOf(0, nAA) || cur.anyOf(0, nAA) || blockedByOld || blockedByNew
	switch e.kind {
	case AssignedPodAdd:
		transition = newAll
	case AssignedPodUpdate:
		transition = (!oldAll && newAll) || (oldAnti && !newAnti)
	case AssignedPodDelete:
		// The last clause fixes upstream issue 141354: a pod whose affinity
		// matches itself may schedule anywhere once no pod matches it.
		transition = oldAnti || blockedByOld ||
			(oldAll && matcher.AllMatch(r.affinity(), pod.Namespace, pod.Labels, e.labelsOf(pod.Namespace)))
	}
	return relation, transition
}

func nodeRules(p *rules, e *prepared) RuleSet {
	var r RuleSet
	if p.flags&affinityErr != 0 || affinityNodeRule(p, e) {
		r |= InterPodAffinity
	}
	if p.flags&spreadErr != 0 || spreadNodeRule(p, e) {
		r |= PodTopologySpread
	}
	return r
}

func affinityNodeRule(p *rules, e *prepared) bool {
	switch e.kind {
	case NodeAdd:
		if p.nAnti > 0 {
			return true
		}
		for _, t := range p.affinity() {
			if _, ok := e.newNode[t.TopologyKey]; ok {
				return true
			}
		}
	case NodeUpdate:
		for _, t := range p.affinity() {
			ov, oldHas := e.oldNode[t.TopologyKey]
			nv, newHas := e.newNode[t.TopologyKey]
			if newHas && (!oldHas || ov != nv) {
				return true
			}
		}
		for _, t := range p.anti() {
			ov, oldHas := e.oldNode[t.TopologyKey]
			nv, newHas := e.newNode[t.TopologyKey]
			if oldHas && (!newHas || ov != nv) {
				return true
			}
		}
	}
	return false
}

func spreadNodeRule(p *rules, e *prepared) bool {
	spread := p.spread()
	if len(spread) == 0 {
		return false
	}
	switch e.kind {
	case NodeAdd:
		return fits(spread, e.newNode)
	case NodeDelete:
		return fits(spread, e.oldNode)
	case NodeUpdate:
		oldFits, newFits := fits(spread, e.oldNode), fits(spread, e.newNode)
		if oldFits != newFits {
			return true
		}
		if !newFits {
			return false
		}
		if e.taintsChanged {
			return true
		}
		for _, t := range spread {
			if e.oldNode[t.TopologyKey] != e.newNode[t.TopologyKey] {
				return true
			}
		}
	}
	return false
}

// fits reports whether a node with labels carries every constraint's
// topology key.
func fits(spread []matcher.Term, labels map[string]string) bool {
	for _, t := range spread {
		if _, ok := labels[t.TopologyKey]; !ok {
			return false
		}
	}
	return true
}

func namespaceRules(p *rules, e *prepared) RuleSet {
	if p.flags&affinityErr != 0 {
		return InterPodAffinity
	}
	for _, t := range p.terms[:p.nAff+p.nAnti] {
		if t.Scope.ByLabels() && t.Scope.Selector().Matches(e.oldNS) != t.Scope.Selector().Matches(e.newNS) {
			return InterPodAffinity
		}
	}
	return 0
}
