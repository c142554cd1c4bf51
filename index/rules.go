package index

import (
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
	relation, transition, _ = evaluate(&p.rules.shape, p.rules, p.pod, &e, termMatches{})
	return relation, transition
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
//
// pure reports that the result depends on nothing but the event, sh and m:
// that neither r nor pod was read. A lookup reuses such a result for every
// candidate of the event with the same shape and term matches (lookup.go).
func evaluate(sh *shape, r *rules, pod *v1.Pod, e *prepared, m termMatches) (relation, transition RuleSet, pure bool) {
	if e.none {
		return 0, 0, true
	}
	switch e.kind {
	case AssignedPodAdd, AssignedPodUpdate, AssignedPodDelete:
		return assignedPodRules(sh, r, pod, e, m)
	case NodeAdd, NodeUpdate, NodeDelete:
		x := nodeRules(r, e)
		return x, x, false
	case NamespaceUpdate:
		x := namespaceRules(r, e)
		return x, x, false
	}
	return 0, 0, true
}

// matched is what the assigned-pod rules read of the terms one version of
// the event's pod matches.
type matched struct {
	allAffinity bool // every affinity term; false for rules without one, as kube-scheduler's podMatchesAllAffinityTerms
	anyAffinity bool
	anyAnti     bool
	anySpread   bool
}

// summarize finds the terms of r (of shape sh) that the old and the new
// version of the event's pod match, and reads what the rules need of them:
// what each version matches, and whether the versions differ in a spread
// constraint. m says which terms the postings decided and how; the others
// are evaluated. Rules of up to 64 terms, nearly all, are read from one word
// per version by a few mask operations, and when the postings decide every
// term (most pods of a real pool) no term is evaluated.
func summarize(sh *shape, r *rules, e *prepared, m termMatches) (old, cur matched, spreadDiffers bool) {
	o := termsMatchedBy(sh, r, e.qo, e, m.decided, m.old)
	c := termsMatchedBy(sh, r, e.qn, e, m.decided, m.new)
	if sh.n > 64 {
		return readWide(sh, o, c)
	}
	return readWord(sh, o.word, c.word)
}

// decidedBy reports whether decided names every term of rules of shape sh.
func (sh *shape) decidedBy(decided uint16) bool { return sh.n <= maxDecided && decided == 1<<sh.n-1 }

// matchedTerms evaluates the terms from, …, from+63 of r that decided does
// not name against q, a version of the event's assigned pod (nil: none),
// and returns those q matches: bit i for term from+i.
func matchedTerms(r *rules, q *v1.Pod, e *prepared, decided uint16, from int) uint64 {
	if q == nil {
		return 0
	}
	var x uint64
	for i := from; i < len(r.terms) && i < from+64; i++ {
		if i < maxDecided && decided>>i&1 != 0 {
			continue
		}
		if r.terms[i].Matches(e.ns, q.Labels, e.nsLabels) {
			x |= 1 << (i - from)
		}
	}
	return x
}

// readWord is summarize's reading of the terms o and c of rules of up to 64
// terms.
func readWord(sh *shape, o, c uint64) (old, cur matched, spreadDiffers bool) {
	aff := uint64(1)<<sh.nAff - 1
	anti := (uint64(1)<<(sh.nAff+sh.nAnti) - 1) &^ aff
	spread := (uint64(1)<<sh.n - 1) &^ (aff | anti) // 1<<64 is 0 in Go: all ones for 64 terms
	old = matched{allAffinity: aff != 0 && o&aff == aff, anyAffinity: o&aff != 0, anyAnti: o&anti != 0, anySpread: o&spread != 0}
	cur = matched{allAffinity: aff != 0 && c&aff == aff, anyAffinity: c&aff != 0, anyAnti: c&anti != 0, anySpread: c&spread != 0}
	return old, cur, (o^c)&spread != 0
}

// readWide is summarize's reading of the terms o and c of rules of more
// than 64 terms.
func readWide(sh *shape, o, c TermSet) (old, cur matched, spreadDiffers bool) {
	nAff, nAA, n := int(sh.nAff), int(sh.nAff)+int(sh.nAnti), int(sh.n)
	read := func(s TermSet) matched {
		aff := s.count(0, nAff)
		return matched{allAffinity: nAff > 0 && aff == nAff, anyAffinity: aff > 0, anyAnti: s.count(nAff, nAA) > 0, anySpread: s.count(nAA, n) > 0}
	}
	for i := nAA; i < n && !spreadDiffers; i++ {
		spreadDiffers = o.Has(i) != c.Has(i)
	}
	return read(o), read(c), spreadDiffers
}

// count returns how many of the terms from, …, to-1 are in s.
func (s TermSet) count(from, to int) int {
	n := 0
	for i := from; i < to; i++ {
		if s.Has(i) {
			n++
		}
	}
	return n
}

// assignedPodRules is evaluate for an assigned pod's add, update or delete.
func assignedPodRules(sh *shape, r *rules, pod *v1.Pod, e *prepared, m termMatches) (relation, transition RuleSet, pure bool) {
	old, cur, spreadDiffers := summarize(sh, r, e, m)
	// The result reads r and pod only to evaluate the terms the postings
	// did not decide, where a term failed (a failed spread constraint reads
	// the pod's namespace), for the symmetry of the assigned pod's own
	// anti-affinity, and for a deleted pod that matched every affinity term
	// (the self-affinity clause).
	pure = sh.decidedBy(m.decided) && sh.flags == 0 && len(e.oldAnti)+len(e.newAnti) == 0 &&
		!(e.kind == AssignedPodDelete && old.allAffinity)
	// InterPodAffinity.
	if sh.flags&affinityErr != 0 {
		relation |= InterPodAffinity
		transition |= InterPodAffinity
	} else {
		rel, tr := affinityPodRules(r, pod, e, old, cur)
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
		return relation, transition, pure
	}
	if old.anySpread || cur.anySpread {
		relation |= PodTopologySpread
	}
	switch e.kind {
	case AssignedPodAdd:
		if cur.anySpread {
			transition |= PodTopologySpread
		}
	case AssignedPodDelete:
		if old.anySpread {
			transition |= PodTopologySpread
		}
	case AssignedPodUpdate:
		if e.labelsChanged && spreadDiffers {
			transition |= PodTopologySpread
		}
	}
	return relation, transition, pure
}

// affinityPodRules applies InterPodAffinity's assigned-pod rules to rules
// whose terms all compiled, of pods with pod's namespace and labels; old
// and cur summarize the terms the old and the new version of the assigned
// pod match (nothing for a version the event does not have).
func affinityPodRules(r *rules, pod *v1.Pod, e *prepared, old, cur matched) (relation, transition bool) {
	// Symmetry: the assigned pod's own anti-affinity may be what blocks the
	// pod.
	var blockedByOld, blockedByNew bool
	if len(e.oldAnti)+len(e.newAnti) > 0 {
		pl := e.labelsOf(pod.Namespace)
		blockedByOld = matcher.AnyMatch(e.oldAnti, pod.Namespace, pod.Labels, pl)
		blockedByNew = matcher.AnyMatch(e.newAnti, pod.Namespace, pod.Labels, pl)
	}
	relation = old.anyAffinity || old.anyAnti || cur.anyAffinity || cur.anyAnti || blockedByOld || blockedByNew
	switch e.kind {
	case AssignedPodAdd:
		transition = cur.allAffinity
	case AssignedPodUpdate:
		transition = (!old.allAffinity && cur.allAffinity) || (old.anyAnti && !cur.anyAnti)
	case AssignedPodDelete:
		// The last clause fixes upstream issue 141354: a pod whose affinity
		// matches itself may schedule anywhere once no pod matches it.
		transition = old.anyAnti || blockedByOld ||
			(old.allAffinity && matcher.AllMatch(r.affinity(), pod.Namespace, pod.Labels, e.labelsOf(pod.Namespace)))
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
