package index

import (
	"github.com/affinityq/affinityq/matcher"
)

// Affected evaluates ev against p exactly, without the index: the rule sets
// under which ev affects p under the Relation and Transition policies. It is
// the check every index hit passes, and what a queue replays against a pod
// that was in flight when the event happened. lookupNS may be nil.
func (p *Pending) Affected(ev *Event, lookupNS NamespaceLabels) (relation, transition RuleSet) {
	if ev == nil {
		return 0, 0
	}
	var e prepared
	prepare(&e, ev, lookupNS)
	return evaluate(p.rules, &e)
}

// evaluate is the one place where the rules of DESIGN.md ("Which pending
// pods an event affects") are written down; the index only narrows down the
// pods it is asked about. The result depends on the pod's rules alone (its
// terms, namespace and labels), so pods sharing rules share the result.
func evaluate(p *rules, e *prepared) (relation, transition RuleSet) {
	if e.none {
		return 0, 0
	}
	switch e.kind {
	case AssignedPodAdd, AssignedPodUpdate, AssignedPodDelete:
		return assignedPodRules(p, e)
	case NodeAdd, NodeUpdate, NodeDelete:
		r := nodeRules(p, e)
		return r, r
	case NamespaceUpdate:
		r := namespaceRules(p, e)
		return r, r
	}
	return 0, 0
}

func assignedPodRules(p *rules, e *prepared) (relation, transition RuleSet) {
	// InterPodAffinity.
	if p.flags&affinityErr != 0 {
		relation |= InterPodAffinity
		transition |= InterPodAffinity
	} else {
		rel, tr := affinityPodRules(p, e)
		if rel {
			relation |= InterPodAffinity
		}
		if tr {
			transition |= InterPodAffinity
		}
	}
	// PodTopologySpread: only pods of the pending pod's namespace count. The
	// namespace is the pod's (rules.from), a cache line the terms do not
	// share: it is read only when there are spread rules to evaluate.
	spread := p.spread()
	if len(spread) == 0 && p.flags&spreadErr == 0 || e.ns != p.ns() {
		return relation, transition
	}
	if p.flags&spreadErr != 0 {
		return relation | PodTopologySpread, transition | PodTopologySpread
	}
	oldMatch := e.qo != nil && matcher.AnyMatch(spread, e.ns, e.qo.Labels, e.nsLabels)
	newMatch := e.qn != nil && matcher.AnyMatch(spread, e.ns, e.qn.Labels, e.nsLabels)
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
		if e.labelsChanged && spreadMatchDiffers(spread, e) {
			transition |= PodTopologySpread
		}
	}
	return relation, transition
}

func spreadMatchDiffers(spread []matcher.Term, e *prepared) bool {
	for i := range spread {
		if spread[i].Matches(e.ns, e.qo.Labels, e.nsLabels) != spread[i].Matches(e.ns, e.qn.Labels, e.nsLabels) {
			return true
		}
	}
	return false
}

// affinityPodRules applies InterPodAffinity's assigned-pod rules to a pod
// whose terms all compiled.
func affinityPodRules(p *rules, e *prepared) (relation, transition bool) {
	aff, anti := p.affinity(), p.anti()
	ns, nsl := e.ns, e.nsLabels
	var oldAny, newAny, oldAll, newAll, oldAnti, newAnti bool
	if e.qo != nil {
		oldAny, oldAll = anyAll(aff, ns, e.qo.Labels, nsl)
		oldAnti = matcher.AnyMatch(anti, ns, e.qo.Labels, nsl)
		oldAny = oldAny || oldAnti
	}
	if e.qn != nil {
		newAny, newAll = anyAll(aff, ns, e.qn.Labels, nsl)
		newAnti = matcher.AnyMatch(anti, ns, e.qn.Labels, nsl)
		newAny = newAny || newAnti
	}
	// Symmetry: the assigned pod's own anti-affinity may be what blocks p.
	var blockedByOld, blockedByNew bool
	if len(e.oldAnti)+len(e.newAnti) > 0 {
		ns, labels := p.ns(), p.labels()
		pl := e.labelsOf(ns)
		blockedByOld = matcher.AnyMatch(e.oldAnti, ns, labels, pl)
		blockedByNew = matcher.AnyMatch(e.newAnti, ns, labels, pl)
	}
	relation = oldAny || newAny || blockedByOld || blockedByNew
	switch e.kind {
	case AssignedPodAdd:
		transition = newAll
	case AssignedPodUpdate:
		transition = (!oldAll && newAll) || (oldAnti && !newAnti)
	case AssignedPodDelete:
		// The last clause fixes upstream issue 141354: a pod whose affinity
		// matches itself may schedule anywhere once no pod matches it.
		transition = oldAnti || blockedByOld ||
			(oldAll && allMatch(aff, p.ns(), p.labels(), e.labelsOf(p.ns())))
	}
	return relation, transition
}

// anyAll reports whether a pod in ns with labels matches any of terms and
// whether it matches all of them (false without terms, as allMatch), with
// one Matches per term.
func anyAll(terms []matcher.Term, ns string, labels, nsLabels map[string]string) (anyMatch, allMatch bool) {
	allMatch = len(terms) > 0
	for i := range terms {
		if terms[i].Matches(ns, labels, nsLabels) {
			anyMatch = true
		} else {
			allMatch = false
		}
	}
	return anyMatch, allMatch
}

// allMatch is kube-scheduler's podMatchesAllAffinityTerms: false without
// terms.
func allMatch(terms []matcher.Term, ns string, labels, nsLabels map[string]string) bool {
	if len(terms) == 0 {
		return false
	}
	for i := range terms {
		if !terms[i].Matches(ns, labels, nsLabels) {
			return false
		}
	}
	return true
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
