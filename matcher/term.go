package matcher

import (
	"errors"
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Kind says where a term comes from.
type Kind uint8

// Term kinds.
const (
	Affinity     Kind = iota + 1 // pod affinity term
	AntiAffinity                 // pod anti-affinity term
	Spread                       // DoNotSchedule topology-spread constraint
)

func (k Kind) String() string {
	switch k {
	case Affinity:
		return "Affinity"
	case AntiAffinity:
		return "AntiAffinity"
	case Spread:
		return "Spread"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Term is one compiled pod-affinity term, anti-affinity term or
// topology-spread constraint of a pod.
type Term struct {
	Kind        Kind
	Required    bool  // false for preferred (weighted) affinity terms
	Weight      int32 // weight of a preferred term; 0 when Required
	TopologyKey string
	Selector    Selector // matches nothing when Err() != nil
	Scope       Scope
	err         *termErr // why the term failed to compile (Err); nil for nearly every term
}

// termErr holds a term's compile error out of line, so that a term that
// compiled (nearly every one) carries one pointer for it, not an error's
// two words.
type termErr struct{ err error }

// Err returns why the term failed to compile, nil if it compiled. A term
// that failed matches nothing.
func (t *Term) Err() error {
	if t.err == nil {
		return nil
	}
	return t.err.err
}

// Matches reports whether a pod in namespace ns with the given labels matches
// the term, nsLabels being the labels of ns (nil when unknown). These are
// kube-scheduler's AffinityTerm.Matches semantics, evaluated with the
// namespace's real labels. It does not allocate.
func (t *Term) Matches(ns string, labels, nsLabels map[string]string) bool {
	return t.Scope.Contains(ns, nsLabels) && t.Selector.Matches(labels)
}

// Terms is the compiled form of a pod's affinity, anti-affinity and
// topology-spread rules.
type Terms struct {
	// Required terms, in spec order.
	Affinity     []Term
	AntiAffinity []Term
	// Preferred terms, in spec order. They never make a pod unschedulable.
	PreferredAffinity     []Term
	PreferredAntiAffinity []Term
	// DoNotSchedule topology-spread constraints, in spec order;
	// ScheduleAnyway constraints are not compiled.
	Spread []Term

	required    []Term // Affinity, AntiAffinity and Spread, contiguous in that order
	affinityErr error  // first error among the required (anti-)affinity terms
	spreadErr   error  // first error among the spread constraints
}

// Required returns the required affinity terms, then the required
// anti-affinity terms, then the spread constraints, as one slice sharing the
// memory of those three fields. Do not modify it.
func (t *Terms) Required() []Term { return t.required }

// AffinityErr returns the first compile error among the required affinity
// and anti-affinity terms, nil if they all compiled. kube-scheduler's
// InterPodAffinity requeues such a pod on every relevant event.
func (t *Terms) AffinityErr() error { return t.affinityErr }

// SpreadErr returns the first compile error among the DoNotSchedule spread
// constraints, nil if they all compiled.
func (t *Terms) SpreadErr() error { return t.spreadErr }

// Len returns the number of compiled terms, preferred ones included.
func (t *Terms) Len() int {
	return len(t.Affinity) + len(t.AntiAffinity) + len(t.PreferredAffinity) +
		len(t.PreferredAntiAffinity) + len(t.Spread)
}

// AllAffinityMatch reports whether the pod has at least one required affinity
// term and a pod in ns with labels matches every one of them
// (kube-scheduler's podMatchesAllAffinityTerms).
func (t *Terms) AllAffinityMatch(ns string, labels, nsLabels map[string]string) bool {
	return AllMatch(t.Affinity, ns, labels, nsLabels)
}

// AllMatch reports whether terms is not empty and a pod in ns with labels
// matches every one of them (kube-scheduler's podMatchesAllAffinityTerms).
func AllMatch(terms []Term, ns string, labels, nsLabels map[string]string) bool {
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

// AnyMatch reports whether a pod in ns with labels matches at least one of
// terms (kube-scheduler's podMatchesAnyAffinityTerms).
func AnyMatch(terms []Term, ns string, labels, nsLabels map[string]string) bool {
	for i := range terms {
		if terms[i].Matches(ns, labels, nsLabels) {
			return true
		}
	}
	return false
}

// CompileTerms compiles pod's required and preferred affinity and
// anti-affinity terms and its DoNotSchedule topology-spread constraints.
// An affinity or anti-affinity term's selector is its labelSelector as
// stored; its matchLabelKeys and mismatchLabelKeys are not read, as
// kube-scheduler v1.37.2 does not read them (GetAffinityTerms): the API
// server merged them into the labelSelector when the pod was created. A
// spread constraint's selector has its matchLabelKeys merged from the pod's
// own labels, as PodTopologySpread merges them.
//
// It always returns the compiled terms. A term that fails to compile is kept
// with its Err set and matching nothing; the returned error joins every such
// error (nil when all compiled). A nil pod is an error.
func CompileTerms(pod *v1.Pod) (*Terms, error) {
	t := &Terms{}
	if pod == nil {
		return t, errors.New("matcher: nil pod")
	}
	return t, t.compile(pod, true)
}

// CompileRequired is CompileTerms without the preferred terms, which never
// make a pod unschedulable: what an index of pending pods keeps. It returns
// the Terms by value, so that only the compiled terms themselves allocate.
func CompileRequired(pod *v1.Pod) (Terms, error) {
	var t Terms
	if pod == nil {
		return t, errors.New("matcher: nil pod")
	}
	err := t.compile(pod, false)
	return t, err
}

// compile fills t from pod, with its preferred terms when preferred is set.
// The terms share one backing array, required ones first and contiguous
// (Required); their requirements and values share one array each.
func (t *Terms) compile(pod *v1.Pod, preferred bool) error {
	var paff, panti []v1.WeightedPodAffinityTerm
	var raff, ranti []v1.PodAffinityTerm
	if a := pod.Spec.Affinity; a != nil {
		if a.PodAffinity != nil {
			raff = a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution
			if preferred {
				paff = a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution
			}
		}
		if a.PodAntiAffinity != nil {
			ranti = a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution
			if preferred {
				panti = a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution
			}
		}
	}
	c := &podCompiler{pod: pod}
	nSpread := 0
	for i := range pod.Spec.TopologySpreadConstraints {
		if sc := &pod.Spec.TopologySpreadConstraints[i]; sc.WhenUnsatisfiable == v1.DoNotSchedule {
			nSpread++
			c.size(sc.LabelSelector, sc.MatchLabelKeys, nil, nil)
		}
	}
	for _, terms := range [][]v1.PodAffinityTerm{raff, ranti} {
		for i := range terms {
			c.sizeTerm(&terms[i])
		}
	}
	for _, terms := range [][]v1.WeightedPodAffinityTerm{paff, panti} {
		for i := range terms {
			c.sizeTerm(&terms[i].PodAffinityTerm)
		}
	}
	n := len(raff) + len(ranti) + nSpread + len(paff) + len(panti)
	if n == 0 {
		return nil
	}
	c.allocate()
	all := make([]Term, 0, n)
	var errs []error
	add := func(term Term, first *error) {
		if err := term.Err(); err != nil {
			errs = append(errs, err)
			if first != nil && *first == nil {
				*first = err
			}
		}
		all = append(all, term)
	}
	for i := range raff {
		add(compileAffinityTerm(c, &raff[i], Affinity, true, 0), &t.affinityErr)
	}
	for i := range ranti {
		add(compileAffinityTerm(c, &ranti[i], AntiAffinity, true, 0), &t.affinityErr)
	}
	for i := range pod.Spec.TopologySpreadConstraints {
		if sc := &pod.Spec.TopologySpreadConstraints[i]; sc.WhenUnsatisfiable == v1.DoNotSchedule {
			add(compileSpread(c, sc), &t.spreadErr)
		}
	}
	for i := range paff {
		add(compileAffinityTerm(c, &paff[i].PodAffinityTerm, Affinity, false, paff[i].Weight), nil)
	}
	for i := range panti {
		add(compileAffinityTerm(c, &panti[i].PodAffinityTerm, AntiAffinity, false, panti[i].Weight), nil)
	}
	cut := func(k int) []Term {
		s := all[:k:k]
		all = all[k:]
		if k == 0 {
			return nil
		}
		return s
	}
	t.required = all[: len(raff)+len(ranti)+nSpread : len(raff)+len(ranti)+nSpread]
	t.Affinity, t.AntiAffinity, t.Spread = cut(len(raff)), cut(len(ranti)), cut(nSpread)
	t.PreferredAffinity, t.PreferredAntiAffinity = cut(len(paff)), cut(len(panti))
	return errors.Join(errs...)
}

// CompileRequiredAntiAffinity compiles only pod's required anti-affinity
// terms: what an index needs of an assigned pod to find the pending pods its
// anti-affinity may be blocking. It returns nil without allocating when the
// pod has none, and nil when any of them fails to compile: kube-scheduler's
// PodInfo then keeps no anti-affinity terms for the pod, so it blocks no one.
func CompileRequiredAntiAffinity(pod *v1.Pod) []Term {
	if pod == nil || pod.Spec.Affinity == nil || pod.Spec.Affinity.PodAntiAffinity == nil {
		return nil
	}
	src := pod.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	var out []Term
	c := &podCompiler{pod: pod}
	for i := range src {
		term := compileAffinityTerm(c, &src[i], AntiAffinity, true, 0)
		if term.err != nil {
			return nil
		}
		out = append(out, term)
	}
	return out
}

// podCompiler holds what the terms of one pod share while they compile: two
// arenas, sized up front (size, allocate), from which every requirement and
// value of the pod is taken, so that a pod costs three allocations (terms,
// requirements, values) however many terms and requirements it has. Without
// sizing, or past it, each take allocates on its own.
type podCompiler struct {
	pod        *v1.Pod
	reqs       []Requirement // arena of requirements: windows are cut from it
	vals       []string      // arena of values
	nreq, nval int           // what size counted
}

// size counts the requirements and values a selector with a spread
// constraint's matchLabelKeys, a namespace list and a namespace selector
// need (upper bounds: a key the pod's labels lack makes no requirement).
func (c *podCompiler) size(ls *metav1.LabelSelector, match, names []string, nsSel *metav1.LabelSelector) {
	for _, sel := range []*metav1.LabelSelector{ls, nsSel} {
		if sel == nil {
			continue
		}
		c.nreq += len(sel.MatchLabels) + len(sel.MatchExpressions)
		c.nval += len(sel.MatchLabels)
		for i := range sel.MatchExpressions {
			c.nval += len(sel.MatchExpressions[i].Values)
		}
	}
	c.nreq += len(match)
	c.nval += len(match)
	if len(names) > 1 || nsSel != nil {
		c.nval += len(names) // one name alone is kept in its Scope
	}
}

// sizeTerm is size for an affinity term, whose matchLabelKeys and
// mismatchLabelKeys compileAffinityTerm does not read.
func (c *podCompiler) sizeTerm(t *v1.PodAffinityTerm) {
	c.size(t.LabelSelector, nil, t.Namespaces, t.NamespaceSelector)
}

// allocate makes the arenas size counted.
func (c *podCompiler) allocate() {
	if c.nreq > 0 {
		c.reqs = make([]Requirement, 0, c.nreq)
	}
	if c.nval > 0 {
		c.vals = make([]string, 0, c.nval)
	}
}

// requirements returns an empty window of capacity n for a selector's
// requirements.
func (c *podCompiler) requirements(n int) []Requirement {
	start := len(c.reqs)
	if cap(c.reqs)-start < n {
		return make([]Requirement, 0, n)
	}
	c.reqs = c.reqs[:start+n]
	return c.reqs[start : start : start+n]
}

// values returns a copy of vs of its own capacity, nil when vs is empty.
func (c *podCompiler) values(vs []string) []string {
	if len(vs) == 0 {
		return nil
	}
	start := len(c.vals)
	c.vals = append(c.vals, vs...)
	return c.vals[start:len(c.vals):len(c.vals)]
}

// compileAffinityTerm compiles src as kube-scheduler's newAffinityTerm
// does: its selector is src.LabelSelector alone. src.MatchLabelKeys and
// src.MismatchLabelKeys are ignored: the API server merged them into the
// labelSelector at creation, and the scheduler never merges them again,
// neither in its cycle nor in its queueing hints, so a pod relabelled since
// is matched with the selector it was stored with.
func compileAffinityTerm(c *podCompiler, src *v1.PodAffinityTerm, kind Kind, required bool, weight int32) Term {
	pod := c.pod
	term := Term{Kind: kind, Required: required, Weight: weight, TopologyKey: src.TopologyKey}
	fail := func(err error) Term {
		term.Selector, term.Scope = Nothing(), Scope{}
		term.err = &termErr{fmt.Errorf("matcher: pod %s/%s: %s term (topologyKey %q): %w",
			pod.Namespace, pod.Name, kind, src.TopologyKey, err)}
		return term
	}
	sel, err := termSelector(c, src.LabelSelector, nil)
	if err != nil {
		return fail(err)
	}
	term.Selector = sel
	scope, err := compileScope(c, src.Namespaces, src.NamespaceSelector)
	if err != nil {
		return fail(fmt.Errorf("namespaceSelector: %w", err))
	}
	term.Scope = scope
	return term
}

func compileSpread(pc *podCompiler, c *v1.TopologySpreadConstraint) Term {
	pod := pc.pod
	term := Term{Kind: Spread, Required: true, TopologyKey: c.TopologyKey, Scope: namespaceScope(pod.Namespace)}
	fail := func(err error) Term {
		term.Selector, term.Scope = Nothing(), Scope{}
		term.err = &termErr{fmt.Errorf("matcher: pod %s/%s: spread constraint (topologyKey %q): %w",
			pod.Namespace, pod.Name, c.TopologyKey, err)}
		return term
	}
	sel, err := termSelector(pc, c.LabelSelector, c.MatchLabelKeys)
	if err != nil {
		return fail(err)
	}
	term.Selector = sel
	return term
}

// TopologyKeys appends to dst the distinct topology keys of terms, sorted.
func TopologyKeys(dst []string, terms []Term) []string {
	start := len(dst)
	for i := range terms {
		dst = append(dst, terms[i].TopologyKey)
	}
	slices.Sort(dst[start:])
	return dst[:start+len(slices.Compact(dst[start:]))]
}

// Equal reports whether t and o are the same compiled term. Terms that failed
// to compile are equal to nothing, themselves included.
func (t *Term) Equal(o *Term) bool {
	return t.err == nil && o.err == nil && t.Kind == o.Kind && t.Required == o.Required &&
		t.Weight == o.Weight && t.TopologyKey == o.TopologyKey &&
		t.Selector.Equal(o.Selector) && t.Scope.Equal(&o.Scope)
}
