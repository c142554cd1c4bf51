package fuzz

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/types"
)

// RuleSet is a bitmask of the kube-scheduler plugins under whose rules a
// pending pod is affected.
type RuleSet uint8

const (
	// InterPodAffinity marks the rules of required pod affinity and
	// anti-affinity terms.
	InterPodAffinity RuleSet = 1 << iota
	// PodTopologySpread marks the rules of DoNotSchedule topology-spread
	// constraints.
	PodTopologySpread
)

// Effect says under which rule sets an event affects one pending pod, per
// policy. Relation is always a superset of Transition.
type Effect struct{ Relation, Transition RuleSet }

// Reference is the naive, scanning implementation of the requeue rules: it
// keeps pending pods by UID, with their terms compiled at Add, and answers
// each event by checking the terms of every one of them.
type Reference struct {
	// nsLabels returns a namespace's labels; nil, or ok=false, means unknown,
	// which is treated as a namespace without labels.
	nsLabels func(ns string) (map[string]string, bool)
	// pods holds private deep copies of the pending pods, keyed by their UID.
	pods map[types.UID]*v1.Pod
	// terms holds each pending pod's terms, compiled with apimachinery when
	// it was added (a precompiled scan, as fast as a scan gets).
	terms map[types.UID]podTerms
	// recompile makes every event compile every pod's terms again, as
	// kube-scheduler's queueing hints do (SetRecompile).
	recompile bool
}

// SetRecompile makes the Reference compile every pending pod's terms again
// on every event, as kube-scheduler v1.37.2's queueing hints do, instead of
// using the terms compiled at Add. The answers are the same; benchmarks use
// it to measure what a scheduler without an index pays.
func (r *Reference) SetRecompile(on bool) { r.recompile = on }

// termsOf returns the compiled terms of the pending pod p.
func (r *Reference) termsOf(p *v1.Pod) podTerms {
	if r.recompile {
		return compilePod(p)
	}
	return r.terms[p.UID]
}

// NewReference returns an empty Reference that reads namespace labels from
// nsLabels at event time. nsLabels may be nil: every namespace is then without
// labels.
func NewReference(nsLabels func(ns string) (map[string]string, bool)) *Reference {
	return &Reference{nsLabels: nsLabels, pods: make(map[types.UID]*v1.Pod), terms: make(map[types.UID]podTerms)}
}

// Add inserts pod, or replaces the pending pod with the same UID. The
// Reference keeps a deep copy, so the caller may go on modifying pod. A nil pod
// is ignored.
func (r *Reference) Add(pod *v1.Pod) {
	if pod == nil {
		return
	}
	p := pod.DeepCopy()
	r.pods[p.UID] = p
	r.terms[p.UID] = compilePod(p)
}

// Remove deletes the pending pod with the given UID and reports whether it was
// there.
func (r *Reference) Remove(uid types.UID) bool {
	if _, ok := r.pods[uid]; !ok {
		return false
	}
	delete(r.pods, uid)
	delete(r.terms, uid)
	return true
}

// Len returns the number of pending pods.
func (r *Reference) Len() int { return len(r.pods) }

// Pods returns deep copies of the pending pods, sorted by UID.
func (r *Reference) Pods() []*v1.Pod {
	out := make([]*v1.Pod, 0, len(r.pods))
	for _, p := range r.pods {
		out = append(out, p.DeepCopy())
	}
	slices.SortFunc(out, func(a, b *v1.Pod) int { return strings.Compare(string(a.UID), string(b.UID)) })
	return out
}

// AssignedPodAdded returns the pending pods affected by the addition of the
// assigned pod q. A nil q affects no one.
func (r *Reference) AssignedPodAdded(q *v1.Pod) map[types.UID]Effect {
	return r.assignedPodEvent(podAdded, nil, q)
}

// AssignedPodUpdated returns the pending pods affected by the update of an
// assigned pod from oldQ to newQ. If either is nil, it affects no one.
func (r *Reference) AssignedPodUpdated(oldQ, newQ *v1.Pod) map[types.UID]Effect {
	return r.assignedPodEvent(podUpdated, oldQ, newQ)
}

// AssignedPodDeleted returns the pending pods affected by the deletion of the
// assigned pod q. A nil q affects no one.
func (r *Reference) AssignedPodDeleted(q *v1.Pod) map[types.UID]Effect {
	return r.assignedPodEvent(podDeleted, q, nil)
}

// NodeAdded returns the pending pods affected by the addition of node n. A nil
// node is treated as a node without labels or taints.
func (r *Reference) NodeAdded(n *v1.Node) map[types.UID]Effect {
	return r.nodeEvent(nodeAdded, nil, n)
}

// NodeUpdated returns the pending pods affected by the update of a node from
// oldN to newN. A nil node is treated as a node without labels or taints.
func (r *Reference) NodeUpdated(oldN, newN *v1.Node) map[types.UID]Effect {
	return r.nodeEvent(nodeUpdated, oldN, newN)
}

// NodeDeleted returns the pending pods affected by the deletion of node n. A
// nil node is treated as a node without labels or taints.
func (r *Reference) NodeDeleted(n *v1.Node) map[types.UID]Effect {
	return r.nodeEvent(nodeDeleted, n, nil)
}

// NamespaceUpdated returns the pending pods affected by a change of a
// namespace's labels from oldNS's to newNS's (a nil namespace has no labels).
// It does not change what the lookup function given to NewReference returns:
// the caller updates that.
func (r *Reference) NamespaceUpdated(oldNS, newNS *v1.Namespace) map[types.UID]Effect {
	var oldLabels, newLabels labels.Set
	if oldNS != nil {
		oldLabels = oldNS.Labels
	}
	if newNS != nil {
		newLabels = newNS.Labels
	}
	out := make(map[types.UID]Effect)
	for uid, p := range r.pods {
		pt := r.termsOf(p)
		if pt.ipaErr != nil || namespaceSelectorFlips(pt, oldLabels, newLabels) {
			out[uid] = Effect{Relation: InterPodAffinity, Transition: InterPodAffinity}
		}
	}
	return out
}

// namespaceSelectorFlips reports whether a required affinity or anti-affinity
// term of pt has a namespaceSelector whose result differs between the two
// label sets.
func namespaceSelectorFlips(pt podTerms, oldLabels, newLabels labels.Set) bool {
	for _, t := range slices.Concat(pt.affinity, pt.anti) {
		if t.nsSelector != nil && t.nsSelector.Matches(oldLabels) != t.nsSelector.Matches(newLabels) {
			return true
		}
	}
	return false
}

// eventKind says whether an object was added, updated or deleted.
type eventKind int

const (
	podAdded eventKind = iota
	podUpdated
	podDeleted
	nodeAdded
	nodeUpdated
	nodeDeleted
)

// scheduled reports whether q is bound or nominated to a node. A nil pod is
// not scheduled.
func scheduled(q *v1.Pod) bool {
	return q != nil && (q.Spec.NodeName != "" || q.Status.NominatedNodeName != "")
}

// assignedPodEvent answers an add (oldQ nil), update, or delete (newQ nil) of
// an assigned pod.
func (r *Reference) assignedPodEvent(kind eventKind, oldQ, newQ *v1.Pod) map[types.UID]Effect {
	out := make(map[types.UID]Effect)
	var present []*v1.Pod
	switch kind {
	case podAdded:
		present = []*v1.Pod{newQ}
	case podUpdated:
		present = []*v1.Pod{oldQ, newQ}
	case podDeleted:
		present = []*v1.Pod{oldQ}
	}
	for _, q := range present {
		if !scheduled(q) {
			return out
		}
	}
	if kind == podUpdated && labels.Equals(oldQ.Labels, newQ.Labels) &&
		oldQ.Spec.NodeName == newQ.Spec.NodeName && oldQ.Status.NominatedNodeName == newQ.Status.NominatedNodeName {
		return out // neither its labels nor its node changed: a status-only update
	}
	// The required anti-affinity terms of Q itself, for the symmetric rule.
	oldAnti, newAnti := antiTermsOf(oldQ), antiTermsOf(newQ)
	for uid, p := range r.pods {
		pt := r.termsOf(p)
		var e Effect
		rel, tr := r.podEventIPA(kind, p, pt, oldQ, newQ, oldAnti, newAnti)
		e = e.with(InterPodAffinity, rel, tr)
		rel, tr = podEventPTS(kind, p, pt, present, oldQ, newQ)
		e = e.with(PodTopologySpread, rel, tr)
		if e != (Effect{}) {
			out[uid] = e
		}
	}
	return out
}

// with returns e with rs added to Relation if rel and to Transition if tr.
func (e Effect) with(rs RuleSet, rel, tr bool) Effect {
	if rel {
		e.Relation |= rs
	}
	if tr {
		e.Transition |= rs
	}
	return e
}

// podEventIPA applies the InterPodAffinity rules of an assigned-pod event to
// the pending pod p (compiled as pt). oldAnti and newAnti are the required
// anti-affinity terms of oldQ and newQ.
func (r *Reference) podEventIPA(kind eventKind, p *v1.Pod, pt podTerms, oldQ, newQ *v1.Pod, oldAnti, newAnti []affinityTerm) (relation, transition bool) {
	if pt.ipaErr != nil {
		return true, true
	}
	relation = r.matchesAny(pt.affinity, oldQ) || r.matchesAny(pt.anti, oldQ) ||
		r.matchesAny(pt.affinity, newQ) || r.matchesAny(pt.anti, newQ) ||
		r.matchesAny(oldAnti, p) || r.matchesAny(newAnti, p)
	switch kind {
	case podAdded:
		transition = r.matchesAll(pt.affinity, newQ)
	case podUpdated:
		transition = (!r.matchesAll(pt.affinity, oldQ) && r.matchesAll(pt.affinity, newQ)) ||
			(r.matchesAny(pt.anti, oldQ) && !r.matchesAny(pt.anti, newQ))
	case podDeleted:
		transition = r.matchesAny(pt.anti, oldQ) ||
			r.matchesAny(oldAnti, p) ||
			// Fix for upstream issue 141354: a deleted pod that satisfied all
			// of P's affinity terms may leave P as the first pod of its group.
			(r.matchesAll(pt.affinity, oldQ) && r.matchesAll(pt.affinity, p))
	}
	return relation, transition
}

// podEventPTS applies the PodTopologySpread rules of an assigned-pod event to
// the pending pod p (compiled as pt); present lists the versions of Q the
// event carries.
func podEventPTS(kind eventKind, p *v1.Pod, pt podTerms, present []*v1.Pod, oldQ, newQ *v1.Pod) (relation, transition bool) {
	for _, q := range present {
		if q.Namespace != p.Namespace {
			return false, false
		}
	}
	if pt.ptsErr != nil {
		return true, true
	}
	relation = matchesAnySpread(pt.spread, oldQ) || matchesAnySpread(pt.spread, newQ)
	switch kind {
	case podAdded:
		transition = matchesAnySpread(pt.spread, newQ)
	case podDeleted:
		transition = matchesAnySpread(pt.spread, oldQ)
	case podUpdated:
		if !equality.Semantic.DeepEqual(oldQ.Labels, newQ.Labels) {
			for _, c := range pt.spread {
				if c.matches(oldQ) != c.matches(newQ) {
					transition = true
					break
				}
			}
		}
	}
	return relation, transition
}

// nodeEvent answers an add (oldN nil), update, or delete (newN nil) of a node.
// Both policies give the same answer.
func (r *Reference) nodeEvent(kind eventKind, oldN, newN *v1.Node) map[types.UID]Effect {
	out := make(map[types.UID]Effect)
	for uid, p := range r.pods {
		pt := r.termsOf(p)
		var rs RuleSet
		if nodeEventIPA(kind, pt, oldN, newN) {
			rs |= InterPodAffinity
		}
		if nodeEventPTS(kind, pt, oldN, newN) {
			rs |= PodTopologySpread
		}
		if rs != 0 {
			out[uid] = Effect{Relation: rs, Transition: rs}
		}
	}
	return out
}

// nodeEventIPA applies the InterPodAffinity rules of a node event to a pending
// pod compiled as pt.
func nodeEventIPA(kind eventKind, pt podTerms, oldN, newN *v1.Node) bool {
	if pt.ipaErr != nil {
		return true
	}
	oldLabels, newLabels := nodeLabels(oldN), nodeLabels(newN)
	switch kind {
	case nodeAdded:
		for _, t := range pt.affinity {
			if _, ok := newLabels[t.topologyKey]; ok {
				return true
			}
		}
		return len(pt.anti) > 0
	case nodeUpdated:
		for _, t := range pt.affinity {
			oldV, oldOK := oldLabels[t.topologyKey]
			newV, newOK := newLabels[t.topologyKey]
			if (!oldOK && newOK) || (oldOK && newOK && oldV != newV) {
				return true
			}
		}
		for _, t := range pt.anti {
			oldV, oldOK := oldLabels[t.topologyKey]
			newV, newOK := newLabels[t.topologyKey]
			if (oldOK && !newOK) || (oldOK && newOK && oldV != newV) {
				return true
			}
		}
	}
	return false
}

// nodeEventPTS applies the PodTopologySpread rules of a node event to a
// pending pod compiled as pt.
func nodeEventPTS(kind eventKind, pt podTerms, oldN, newN *v1.Node) bool {
	if pt.ptsErr != nil {
		return true
	}
	if len(pt.spread) == 0 {
		return false
	}
	oldLabels, newLabels := nodeLabels(oldN), nodeLabels(newN)
	switch kind {
	case nodeAdded:
		return fits(pt.spread, newLabels)
	case nodeDeleted:
		return fits(pt.spread, oldLabels)
	case nodeUpdated:
		oldFits, newFits := fits(pt.spread, oldLabels), fits(pt.spread, newLabels)
		if oldFits != newFits {
			return true
		}
		if !newFits {
			return false
		}
		for _, c := range pt.spread {
			if oldLabels[c.topologyKey] != newLabels[c.topologyKey] {
				return true
			}
		}
		return !equality.Semantic.DeepEqual(nodeTaints(oldN), nodeTaints(newN))
	}
	return false
}

// fits reports whether a node with these labels carries the topology key of
// every constraint.
func fits(spread []spreadConstraint, nodeLabels map[string]string) bool {
	for _, c := range spread {
		if _, ok := nodeLabels[c.topologyKey]; !ok {
			return false
		}
	}
	return true
}

func nodeLabels(n *v1.Node) map[string]string {
	if n == nil {
		return nil
	}
	return n.Labels
}

func nodeTaints(n *v1.Node) []v1.Taint {
	if n == nil {
		return nil
	}
	return n.Spec.Taints
}

// podTerms is what the rules read of one pod: its required affinity and
// anti-affinity terms and its DoNotSchedule spread constraints, each compiled
// for that pod. When ipaErr is set, affinity and anti must not be read; when
// ptsErr is set, spread must not be read.
type podTerms struct {
	affinity, anti []affinityTerm
	ipaErr         error
	spread         []spreadConstraint
	ptsErr         error
}

// compilePod compiles the required terms and DoNotSchedule constraints of p.
func compilePod(p *v1.Pod) podTerms {
	var pt podTerms
	var errAffinity, errAnti error
	pt.affinity, errAffinity = compileAffinityTerms(p, requiredAffinityTerms(p))
	pt.anti, errAnti = compileAffinityTerms(p, requiredAntiAffinityTerms(p))
	pt.ipaErr = errors.Join(errAffinity, errAnti)
	pt.spread, pt.ptsErr = compileSpread(p)
	return pt
}

// antiTermsOf returns the required anti-affinity terms of q compiled for q,
// or nil when q is nil or any of them fails to compile.
func antiTermsOf(q *v1.Pod) []affinityTerm {
	if q == nil {
		return nil
	}
	terms, err := compileAffinityTerms(q, requiredAntiAffinityTerms(q))
	if err != nil {
		return nil
	}
	return terms
}

func requiredAffinityTerms(p *v1.Pod) []v1.PodAffinityTerm {
	if a := p.Spec.Affinity; a != nil && a.PodAffinity != nil {
		return a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	}
	return nil
}

func requiredAntiAffinityTerms(p *v1.Pod) []v1.PodAffinityTerm {
	if a := p.Spec.Affinity; a != nil && a.PodAntiAffinity != nil {
		return a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	}
	return nil
}

// affinityTerm is a required pod affinity or anti-affinity term compiled for
// the pod that owns it.
type affinityTerm struct {
	topologyKey string
	// selector is the term's labelSelector as stored: kube-scheduler
	// v1.37.2's GetAffinityTerms does not read matchLabelKeys or
	// mismatchLabelKeys, which the API server merged into the labelSelector
	// when the pod was created.
	selector labels.Selector
	// namespaces is the term's namespaces list, or the owner's namespace when
	// the term has neither a list nor a namespaceSelector.
	namespaces []string
	// nsSelector is the compiled namespaceSelector, nil when the term has none.
	nsSelector labels.Selector
}

// compileAffinityTerms compiles terms for their owner; it fails if any term
// fails.
func compileAffinityTerms(owner *v1.Pod, terms []v1.PodAffinityTerm) ([]affinityTerm, error) {
	var out []affinityTerm
	for i, term := range terms {
		t, err := compileAffinityTerm(owner, term)
		if err != nil {
			return nil, fmt.Errorf("fuzz: affinity term %d: %w", i, err)
		}
		out = append(out, t)
	}
	return out, nil
}

func compileAffinityTerm(owner *v1.Pod, term v1.PodAffinityTerm) (affinityTerm, error) {
	sel, err := metav1.LabelSelectorAsSelector(term.LabelSelector)
	if err != nil {
		return affinityTerm{}, err
	}
	t := affinityTerm{topologyKey: term.TopologyKey, selector: sel, namespaces: term.Namespaces}
	switch {
	case term.NamespaceSelector != nil:
		if t.nsSelector, err = metav1.LabelSelectorAsSelector(term.NamespaceSelector); err != nil {
			return affinityTerm{}, err
		}
	case len(term.Namespaces) == 0:
		t.namespaces = []string{owner.Namespace}
	}
	return t, nil
}

// withMatchLabelKeys adds `key In (owner's value)` to sel for each of a
// spread constraint's matchLabelKeys the owner carries; keys it lacks are
// ignored. The requirements are built even when sel is labels.Nothing() (a
// nil labelSelector), which stays matching nothing; a requirement that fails
// to build is an error.
func withMatchLabelKeys(sel labels.Selector, owner map[string]string, keys []string) (labels.Selector, error) {
	for _, key := range keys {
		value, ok := owner[key]
		if !ok {
			continue
		}
		req, err := labels.NewRequirement(key, selection.In, []string{value})
		if err != nil {
			return nil, err
		}
		sel = sel.Add(*req)
	}
	return sel, nil
}

// matchesAny reports whether some term matches q; a nil q matches nothing.
func (r *Reference) matchesAny(terms []affinityTerm, q *v1.Pod) bool {
	for _, t := range terms {
		if r.termMatches(t, q) {
			return true
		}
	}
	return false
}

// matchesAll reports whether there is at least one term and every term
// matches q; a nil q matches nothing.
func (r *Reference) matchesAll(terms []affinityTerm, q *v1.Pod) bool {
	if len(terms) == 0 {
		return false
	}
	for _, t := range terms {
		if !r.termMatches(t, q) {
			return false
		}
	}
	return true
}

// termMatches reports whether q's namespace is in t's scope and q's labels
// satisfy t's selector.
func (r *Reference) termMatches(t affinityTerm, q *v1.Pod) bool {
	if q == nil {
		return false
	}
	inScope := slices.Contains(t.namespaces, q.Namespace) ||
		(t.nsSelector != nil && t.nsSelector.Matches(r.namespaceLabels(q.Namespace)))
	return inScope && t.selector.Matches(labels.Set(q.Labels))
}

// namespaceLabels returns the labels of namespace ns; unknown namespaces have
// none.
func (r *Reference) namespaceLabels(ns string) labels.Set {
	if r.nsLabels == nil {
		return nil
	}
	l, ok := r.nsLabels(ns)
	if !ok {
		return nil
	}
	return l
}

// spreadConstraint is a DoNotSchedule topology-spread constraint compiled for
// the pod that owns it.
type spreadConstraint struct {
	topologyKey string
	// namespace is the owner's namespace, the constraint's only scope.
	namespace string
	// selector is the constraint's labelSelector with the owner's
	// matchLabelKeys requirements added.
	selector labels.Selector
}

// compileSpread compiles the DoNotSchedule constraints of p; it fails if any
// of them fails. ScheduleAnyway constraints are ignored, even invalid ones.
func compileSpread(p *v1.Pod) ([]spreadConstraint, error) {
	var out []spreadConstraint
	for i, c := range p.Spec.TopologySpreadConstraints {
		if c.WhenUnsatisfiable != v1.DoNotSchedule {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(c.LabelSelector)
		if err == nil {
			sel, err = withMatchLabelKeys(sel, p.Labels, c.MatchLabelKeys)
		}
		if err != nil {
			return nil, fmt.Errorf("fuzz: topology spread constraint %d: %w", i, err)
		}
		out = append(out, spreadConstraint{topologyKey: c.TopologyKey, namespace: p.Namespace, selector: sel})
	}
	return out, nil
}

// matches reports whether q is in the constraint's namespace and its labels
// satisfy the selector; a nil q matches nothing.
func (c spreadConstraint) matches(q *v1.Pod) bool {
	return q != nil && q.Namespace == c.namespace && c.selector.Matches(labels.Set(q.Labels))
}

func matchesAnySpread(spread []spreadConstraint, q *v1.Pod) bool {
	for _, c := range spread {
		if c.matches(q) {
			return true
		}
	}
	return false
}
