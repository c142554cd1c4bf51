package fuzz

import (
	"fmt"
	"math"
	"slices"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	v1helper "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
)

// This file is the naive reference for the scheduling cycle's questions over
// placed pods (DESIGN.md, "The scheduling cycle: placed pods"): what
// kube-scheduler v1.37.2's InterPodAffinity and PodTopologySpread plug-ins
// compute in PreFilter and PreScore by scanning every node and placed pod.
// Each method is a plain scan written from the in-tree rules (with
// apimachinery's selectors and component-helpers' node-affinity and
// toleration matching, the libraries the plug-ins use), so that package
// placed can be checked against it. It is written to be obviously correct,
// not fast: every call is O(nodes × pods × terms).
//
// Feature gates are those of v1.37.2's defaults: InterPodAffinityHostnameFastPath
// off, MatchLabelKeysInPodTopologySpread and
// NodeInclusionPolicyInPodTopologySpread on, TaintTolerationComparisonOperators
// off. Default (cluster-level) spread constraints are not derived: a pod
// without topologySpreadConstraints has none, as under `defaultingType: List`
// with an empty list.

// Cycle is what one scheduling cycle sees: the nodes, the pods placed on them
// and the namespaces' labels. A Cycle is read, never modified, by its methods;
// it is not safe for concurrent modification.
type Cycle struct {
	// Nodes are the cluster's nodes, in any order; names are unique.
	Nodes []*v1.Node
	// Pods are the placed pods: each has spec.nodeName set. Pods on a node
	// that is not in Nodes are ignored, as the scheduler's snapshot lists only
	// the nodes it knows. A pod with a deletionTimestamp is terminating.
	Pods []*v1.Pod
	// NamespaceLabels maps a namespace's name to its labels; a namespace that
	// is absent is taken to have no labels and, for namespaceSelector merging,
	// not to exist.
	NamespaceLabels map[string]map[string]string
}

// TopologyPair is a topology domain: a node label key and its value.
type TopologyPair struct{ Key, Value string }

// TopologyCounts maps topology pairs to counts, as upstream's
// topologyToMatchedTermCount does. Pairs with a zero count are absent.
type TopologyCounts map[TopologyPair]int64

// AffinityPreFilter is InterPodAffinity's preFilterState (gate off): the three
// count maps Filter reads.
type AffinityPreFilter struct {
	// ExistingAntiAffinity counts, per pair, the required anti-affinity terms
	// of placed pods that the incoming pod matches (upstream's
	// existingClusterWideAntiAffinityCounts).
	ExistingAntiAffinity TopologyCounts
	// Affinity counts, per pair of each of the incoming pod's required
	// affinity terms, the placed pods that match all of those terms
	// (clusterWideAffinityCounts).
	Affinity TopologyCounts
	// AntiAffinity counts, per pair, the (placed pod, required anti-affinity
	// term of the incoming pod) matches (clusterWideAntiAffinityCounts).
	AntiAffinity TopologyCounts
}

// cycleTerm is a pod affinity or anti-affinity term compiled as
// kube-scheduler's framework.AffinityTerm is (GetAffinityTerms): the
// labelSelector as it is, with no matchLabelKeys or mismatchLabelKeys merged
// (v1.37.2's scheduler leaves that to the API server, which merges them into
// labelSelector at pod creation).
type cycleTerm struct {
	topologyKey string
	selector    labels.Selector
	// namespaces is the term's list, or the owner's namespace when the term
	// has neither a list nor a namespaceSelector.
	namespaces []string
	// nsSelector is the compiled namespaceSelector: labels.Nothing() when the
	// term has none (or, for an incoming pod's term, once merged into
	// namespaces), labels.Everything() for `{}`.
	nsSelector labels.Selector
	weight     int32
}

// matches is AffinityTerm.Matches: q's namespace is listed or nsLabels (the
// labels of the namespace the caller chose) match the namespace selector, and
// q's labels match the selector.
func (t cycleTerm) matches(q *v1.Pod, nsLabels labels.Set) bool {
	if slices.Contains(t.namespaces, q.Namespace) || t.nsSelector.Matches(nsLabels) {
		return t.selector.Matches(labels.Set(q.Labels))
	}
	return false
}

// compileCycleTerm compiles term for its owner as newAffinityTerm does.
func compileCycleTerm(owner *v1.Pod, term v1.PodAffinityTerm, weight int32) (cycleTerm, error) {
	sel, err := metav1.LabelSelectorAsSelector(term.LabelSelector)
	if err != nil {
		return cycleTerm{}, err
	}
	nsSel, err := metav1.LabelSelectorAsSelector(term.NamespaceSelector)
	if err != nil {
		return cycleTerm{}, err
	}
	namespaces := term.Namespaces
	if len(term.Namespaces) == 0 && term.NamespaceSelector == nil {
		namespaces = []string{owner.Namespace}
	}
	return cycleTerm{topologyKey: term.TopologyKey, selector: sel, namespaces: namespaces, nsSelector: nsSel, weight: weight}, nil
}

// compileCycleTerms compiles a list of terms; like GetAffinityTerms it fails,
// and yields none, if any term fails.
func compileCycleTerms(owner *v1.Pod, terms []v1.PodAffinityTerm) ([]cycleTerm, error) {
	var out []cycleTerm
	for i, term := range terms {
		t, err := compileCycleTerm(owner, term, 0)
		if err != nil {
			return nil, fmt.Errorf("fuzz: affinity term %d: %w", i, err)
		}
		out = append(out, t)
	}
	return out, nil
}

// compileWeightedTerms compiles preferred terms with their weights; it fails,
// and yields none, if any term fails.
func compileWeightedTerms(owner *v1.Pod, terms []v1.WeightedPodAffinityTerm) ([]cycleTerm, error) {
	var out []cycleTerm
	for i, term := range terms {
		t, err := compileCycleTerm(owner, term.PodAffinityTerm, term.Weight)
		if err != nil {
			return nil, fmt.Errorf("fuzz: preferred affinity term %d: %w", i, err)
		}
		out = append(out, t)
	}
	return out, nil
}

// cyclePodTerms are the four term lists of a pod, as framework.NewPodInfo
// parses them.
type cyclePodTerms struct {
	affinity, anti                   []cycleTerm
	preferredAffinity, preferredAnti []cycleTerm
}

// compileCyclePod parses p's terms as NewPodInfo does. Each list that fails to
// compile is left empty and its error joined into the result; the scheduler's
// cache ignores the error for placed pods (so their failing lists count for
// nothing), while the plug-ins reject an incoming pod that has one.
func compileCyclePod(p *v1.Pod) (cyclePodTerms, error) {
	var pt cyclePodTerms
	var errs []error
	var err error
	if pt.affinity, err = compileCycleTerms(p, requiredAffinityTerms(p)); err != nil {
		errs = append(errs, fmt.Errorf("required affinity: %w", err))
	}
	if pt.anti, err = compileCycleTerms(p, requiredAntiAffinityTerms(p)); err != nil {
		errs = append(errs, fmt.Errorf("required anti-affinity: %w", err))
	}
	var prefAffinity, prefAnti []v1.WeightedPodAffinityTerm
	if a := p.Spec.Affinity; a != nil {
		if a.PodAffinity != nil {
			prefAffinity = a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution
		}
		if a.PodAntiAffinity != nil {
			prefAnti = a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution
		}
	}
	if pt.preferredAffinity, err = compileWeightedTerms(p, prefAffinity); err != nil {
		errs = append(errs, fmt.Errorf("preferred affinity: %w", err))
	}
	if pt.preferredAnti, err = compileWeightedTerms(p, prefAnti); err != nil {
		errs = append(errs, fmt.Errorf("preferred anti-affinity: %w", err))
	}
	if len(errs) > 0 {
		return pt, fmt.Errorf("fuzz: pod %s/%s: %v", p.Namespace, p.Name, errs)
	}
	return pt, nil
}

// mergeNamespaces applies mergeAffinityTermNamespacesIfNotEmpty to the
// incoming pod's terms: a namespace selector that is neither nil nor `{}` is
// replaced by the names of the known namespaces it matches, added to the
// term's list, and then matches nothing itself. `{}` stays and matches every
// namespace (Matches is then called with no labels, which `{}` accepts).
func (c *Cycle) mergeNamespaces(terms []cycleTerm) []cycleTerm {
	out := make([]cycleTerm, len(terms))
	for i, t := range terms {
		if !t.nsSelector.Empty() {
			namespaces := slices.Clone(t.namespaces)
			for ns, l := range c.NamespaceLabels {
				if t.nsSelector.Matches(labels.Set(l)) && !slices.Contains(namespaces, ns) {
					namespaces = append(namespaces, ns)
				}
			}
			t.namespaces, t.nsSelector = namespaces, labels.Nothing()
		}
		out[i] = t
	}
	return out
}

// namespaceLabels returns ns's labels, nil when ns is unknown.
func (c *Cycle) namespaceLabels(ns string) labels.Set {
	return labels.Set(c.NamespaceLabels[ns])
}

// podsByNode returns, for each node of c in order, the placed pods on it, in
// the order of c.Pods.
func (c *Cycle) podsByNode() [][]*v1.Pod {
	at := make(map[string]int, len(c.Nodes))
	for i, n := range c.Nodes {
		at[n.Name] = i
	}
	out := make([][]*v1.Pod, len(c.Nodes))
	for _, q := range c.Pods {
		if i, ok := at[q.Spec.NodeName]; ok {
			out[i] = append(out[i], q)
		}
	}
	return out
}

// add adds delta at (key, node's value of key) when the node carries key.
func (m TopologyCounts) add(node *v1.Node, key string, delta int64) {
	if v, ok := node.Labels[key]; ok {
		m[TopologyPair{key, v}] += delta
		if m[TopologyPair{key, v}] == 0 {
			delete(m, TopologyPair{key, v})
		}
	}
}

// AffinityPreFilter computes InterPodAffinity's PreFilter state for the
// incoming pod p with the InterPodAffinityHostnameFastPath gate off:
//   - ExistingAntiAffinity: for every placed pod and each of its required
//     anti-affinity terms that p matches (p's namespace judged with p's
//     namespace labels), +1 at (term's key, the pod's node's value) when the
//     node carries the key. Terminating pods count.
//   - Affinity: every placed pod that matches all of p's required affinity
//     terms (there is at least one) adds 1 at each term's pair.
//   - AntiAffinity: each of p's required anti-affinity terms that a placed
//     pod matches adds 1 at its pair.
//
// p's terms have their namespaceSelector merged into their namespaces first
// (mergeAffinityTermNamespacesIfNotEmpty). It fails, as PreFilter does, when
// one of p's terms does not compile. Upstream's PreFilter returns Skip when
// ExistingAntiAffinity is empty and p has no required terms; the counts are
// then all empty, as here.
func (c *Cycle) AffinityPreFilter(p *v1.Pod) (AffinityPreFilter, error) {
	pt, err := compileCyclePod(p)
	if err != nil {
		return AffinityPreFilter{}, err
	}
	affinity, anti := c.mergeNamespaces(pt.affinity), c.mergeNamespaces(pt.anti)
	pLabels := c.namespaceLabels(p.Namespace)
	out := AffinityPreFilter{ExistingAntiAffinity: TopologyCounts{}, Affinity: TopologyCounts{}, AntiAffinity: TopologyCounts{}}
	for i, pods := range c.podsByNode() {
		node := c.Nodes[i]
		for _, q := range pods {
			qt, _ := compileCyclePod(q) // the cache ignores a placed pod's errors
			for _, t := range qt.anti {
				if t.matches(p, pLabels) {
					out.ExistingAntiAffinity.add(node, t.topologyKey, 1)
				}
			}
			if matchesAllCycleTerms(affinity, q) {
				for _, t := range affinity {
					out.Affinity.add(node, t.topologyKey, 1)
				}
			}
			for _, t := range anti {
				if t.matches(q, nil) {
					out.AntiAffinity.add(node, t.topologyKey, 1)
				}
			}
		}
	}
	return out, nil
}

// matchesAllCycleTerms is podMatchesAllAffinityTerms for merged terms: there
// is at least one term and q matches each (no namespace labels needed).
func matchesAllCycleTerms(terms []cycleTerm, q *v1.Pod) bool {
	if len(terms) == 0 {
		return false
	}
	for _, t := range terms {
		if !t.matches(q, nil) {
			return false
		}
	}
	return true
}

// AffinityScoreArgs are the InterPodAffinity plug-in's arguments that
// PreScore reads.
type AffinityScoreArgs struct {
	// HardPodAffinityWeight weighs placed pods' required affinity terms that
	// the incoming pod matches (upstream default 1; 0 turns it off).
	HardPodAffinityWeight int32
	// IgnorePreferredTermsOfExistingPods makes PreScore skip when the incoming
	// pod has no preferred terms. (In v1.37.2 it does nothing else: when the
	// incoming pod has preferred terms, placed pods' preferred terms still
	// count.)
	IgnorePreferredTermsOfExistingPods bool
}

// AffinityPreScore computes InterPodAffinity's PreScore topologyScore for the
// incoming pod p: key → value → sum of weights. For each placed pod Q on a
// node with labels (a node without labels contributes nothing):
//   - each of p's preferred affinity terms Q matches adds its weight, each of
//     p's preferred anti-affinity terms Q matches subtracts it (p's terms
//     merged as in PreFilter);
//   - when HardPodAffinityWeight > 0, each of Q's required affinity terms that
//     p matches adds HardPodAffinityWeight;
//   - each of Q's preferred affinity terms p matches adds its weight, each of
//     Q's preferred anti-affinity terms p matches subtracts it (p's namespace
//     judged with p's namespace labels);
//
// always at (term's key, Q's node's value of it), when the node carries the
// key. Upstream scans every pod when p has preferred terms and only the pods
// with pod affinity or anti-affinity otherwise; the sums are the same. A
// pair that was touched keeps its entry even when its sum is zero, as
// upstream's map does.
//
// ok is false where upstream's PreScore returns Skip: IgnorePreferredTermsOfExistingPods
// is set and p has no preferred terms, or no term touched any pair. It fails
// when one of p's terms does not compile.
func (c *Cycle) AffinityPreScore(p *v1.Pod, args AffinityScoreArgs) (scores map[string]map[string]int64, ok bool, err error) {
	a := p.Spec.Affinity
	hasPreferred := a != nil && ((a.PodAffinity != nil && len(a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution) > 0) ||
		(a.PodAntiAffinity != nil && len(a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution) > 0))
	if args.IgnorePreferredTermsOfExistingPods && !hasPreferred {
		return nil, false, nil
	}
	pt, err := compileCyclePod(p)
	if err != nil {
		return nil, false, err
	}
	preferred, preferredAnti := c.mergeNamespaces(pt.preferredAffinity), c.mergeNamespaces(pt.preferredAnti)
	pLabels := c.namespaceLabels(p.Namespace)
	scores = make(map[string]map[string]int64)
	// Deltas are computed as upstream's processTerm does, int64(weight *
	// multiplier) in int32 arithmetic, so that even weights outside the API's
	// 1..100 give the same sums.
	add := func(node *v1.Node, key string, delta int64) {
		v, ok := node.Labels[key]
		if !ok {
			return
		}
		if scores[key] == nil {
			scores[key] = make(map[string]int64)
		}
		scores[key][v] += delta
	}
	for i, pods := range c.podsByNode() {
		node := c.Nodes[i]
		if len(node.Labels) == 0 {
			continue
		}
		for _, q := range pods {
			for _, t := range preferred {
				if t.matches(q, nil) {
					add(node, t.topologyKey, int64(t.weight))
				}
			}
			for _, t := range preferredAnti {
				if t.matches(q, nil) {
					add(node, t.topologyKey, int64(t.weight*-1))
				}
			}
			qt, _ := compileCyclePod(q)
			if args.HardPodAffinityWeight > 0 {
				for _, t := range qt.affinity {
					if t.matches(p, pLabels) {
						add(node, t.topologyKey, int64(args.HardPodAffinityWeight))
					}
				}
			}
			for _, t := range qt.preferredAffinity {
				if t.matches(p, pLabels) {
					add(node, t.topologyKey, int64(t.weight))
				}
			}
			for _, t := range qt.preferredAnti {
				if t.matches(p, pLabels) {
					add(node, t.topologyKey, int64(t.weight*-1))
				}
			}
		}
	}
	if len(scores) == 0 {
		return nil, false, nil
	}
	return scores, true, nil
}

// SpreadConstraint is a topology-spread constraint of the incoming pod as
// PodTopologySpread compiles it (filterTopologySpreadConstraints): defaults
// applied, matchLabelKeys merged into the selector.
type SpreadConstraint struct {
	MaxSkew     int32
	TopologyKey string
	// Selector is the labelSelector (nil: matches nothing) with `key=value`
	// for each matchLabelKeys key the pod carries merged in; a `{}` selector
	// with such keys becomes just those keys. An empty selector counts no pod.
	Selector labels.Selector
	// MinDomains is the constraint's minDomains, 1 when unset.
	MinDomains int32
	// NodeAffinityPolicy defaults to Honor, NodeTaintsPolicy to Ignore.
	NodeAffinityPolicy v1.NodeInclusionPolicy
	NodeTaintsPolicy   v1.NodeInclusionPolicy
}

// compileSpreadConstraints is filterTopologySpreadConstraints with the
// MatchLabelKeysInPodTopologySpread and NodeInclusionPolicyInPodTopologySpread
// gates on: p's constraints whose whenUnsatisfiable is action.
func compileSpreadConstraints(p *v1.Pod, action v1.UnsatisfiableConstraintAction) ([]SpreadConstraint, error) {
	var out []SpreadConstraint
	for i, tc := range p.Spec.TopologySpreadConstraints {
		if tc.WhenUnsatisfiable != action {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(tc.LabelSelector)
		if err != nil {
			return nil, fmt.Errorf("fuzz: topology spread constraint %d: %w", i, err)
		}
		keys := labels.Set{}
		for _, k := range tc.MatchLabelKeys {
			if v, ok := p.Labels[k]; ok {
				keys[k] = v
			}
		}
		if len(keys) > 0 {
			// mergeLabelSetWithSelector: a nil labelSelector (Nothing, which
			// has no requirements) stays Nothing.
			if reqs, ok := sel.Requirements(); ok {
				merged := labels.SelectorFromSet(keys)
				for _, r := range reqs {
					merged = merged.Add(r)
				}
				sel = merged
			}
		}
		c := SpreadConstraint{
			MaxSkew: tc.MaxSkew, TopologyKey: tc.TopologyKey, Selector: sel, MinDomains: 1,
			NodeAffinityPolicy: v1.NodeInclusionPolicyHonor, NodeTaintsPolicy: v1.NodeInclusionPolicyIgnore,
		}
		if tc.MinDomains != nil {
			c.MinDomains = *tc.MinDomains
		}
		if tc.NodeAffinityPolicy != nil {
			c.NodeAffinityPolicy = *tc.NodeAffinityPolicy
		}
		if tc.NodeTaintsPolicy != nil {
			c.NodeTaintsPolicy = *tc.NodeTaintsPolicy
		}
		out = append(out, c)
	}
	return out, nil
}

// includes is matchNodeInclusionPolicies: under Honor, the node must match
// p's required node affinity (nodeSelector and required node-affinity
// terms) and must carry no NoSchedule or NoExecute taint p does not tolerate.
func (sc SpreadConstraint) includes(p *v1.Pod, node *v1.Node, required nodeaffinity.RequiredNodeAffinity) bool {
	if sc.NodeAffinityPolicy == v1.NodeInclusionPolicyHonor {
		if match, _ := required.Match(node); !match {
			return false
		}
	}
	if sc.NodeTaintsPolicy == v1.NodeInclusionPolicyHonor {
		doNotSchedule := func(t *v1.Taint) bool {
			return t.Effect == v1.TaintEffectNoSchedule || t.Effect == v1.TaintEffectNoExecute
		}
		if _, untolerated := v1helper.FindMatchingUntoleratedTaint(logr.Discard(), node.Spec.Taints, p.Spec.Tolerations, doNotSchedule, false); untolerated {
			return false
		}
	}
	return true
}

// countMatching is countPodsMatchSelector: the pods of namespace ns, not
// terminating, whose labels match sel; an empty selector (`{}`) counts none.
func countMatching(pods []*v1.Pod, sel labels.Selector, ns string) int {
	if sel.Empty() {
		return 0
	}
	n := 0
	for _, q := range pods {
		if q.DeletionTimestamp == nil && q.Namespace == ns && sel.Matches(labels.Set(q.Labels)) {
			n++
		}
	}
	return n
}

// carriesKeys reports whether the node carries the topology key of every
// constraint (nodeLabelsMatchSpreadConstraints).
func carriesKeys(node *v1.Node, cs []SpreadConstraint) bool {
	for _, c := range cs {
		if _, ok := node.Labels[c.TopologyKey]; !ok {
			return false
		}
	}
	return true
}

// SpreadFilterConstraint is one DoNotSchedule constraint's PreFilter state.
type SpreadFilterConstraint struct {
	SpreadConstraint
	// Counts maps each domain (value of the topology key) of the included
	// nodes to its number of matching pods, zero included (TpValueToMatchNum).
	// len(Counts) is the number of domains that minDomains is compared with.
	Counts map[string]int
	// MinMatch is the smallest count (the first critical path's MatchNum),
	// math.MaxInt32 when there is no domain, as upstream's criticalPaths.
	MinMatch int
	// SecondMatch is the second smallest count over distinct domains (the
	// second critical path's MatchNum; equal to MinMatch on a tie),
	// math.MaxInt32 when there are fewer than two domains.
	SecondMatch int
}

// SpreadPreFilter computes PodTopologySpread's PreFilter state
// (calPreFilterState) for the incoming pod p: one entry per DoNotSchedule
// constraint, in p's order. A node is included for a constraint when it
// carries the topology keys of all the DoNotSchedule constraints and passes
// that constraint's inclusion policies; each included node adds its domain to
// Counts and, to it, its pods of p's namespace that are not terminating and
// match the selector. Nil means upstream's Skip (no such constraint). It
// fails when a constraint's selector does not compile.
func (c *Cycle) SpreadPreFilter(p *v1.Pod) ([]SpreadFilterConstraint, error) {
	cs, err := compileSpreadConstraints(p, v1.DoNotSchedule)
	if err != nil || len(cs) == 0 {
		return nil, err
	}
	out := make([]SpreadFilterConstraint, len(cs))
	for i, sc := range cs {
		out[i] = SpreadFilterConstraint{SpreadConstraint: sc, Counts: map[string]int{}}
	}
	required := nodeaffinity.GetRequiredNodeAffinity(p)
	for i, pods := range c.podsByNode() {
		node := c.Nodes[i]
		if !carriesKeys(node, cs) {
			continue
		}
		for j, sc := range cs {
			if !sc.includes(p, node, required) {
				continue
			}
			out[j].Counts[node.Labels[sc.TopologyKey]] += countMatching(pods, sc.Selector, p.Namespace)
		}
	}
	for j := range out {
		counts := slices.Sorted(func(yield func(int) bool) {
			for _, n := range out[j].Counts {
				if !yield(n) {
					return
				}
			}
		})
		out[j].MinMatch, out[j].SecondMatch = math.MaxInt32, math.MaxInt32
		if len(counts) > 0 {
			out[j].MinMatch = counts[0]
		}
		if len(counts) > 1 {
			out[j].SecondMatch = counts[1]
		}
	}
	return out, nil
}

// SpreadScoreConstraint is one ScheduleAnyway constraint's PreScore state.
type SpreadScoreConstraint struct {
	SpreadConstraint
	// Counts maps each domain of the filtered, not ignored nodes to the
	// matching pods over all nodes of that domain that pass the inclusion
	// policies and carry all the keys (TopologyValueToPodCounts). It is
	// empty for the hostname key, which Score counts per node instead.
	Counts map[string]int64
	// NodeCounts, for the hostname key only (nil for any other), maps each
	// filtered node not ignored that holds matching pods to their number:
	// what Score counts for the key on the node (countPodsMatchSelector
	// over the node's pods, with no inclusion policy).
	NodeCounts map[string]int64
	// NormalizingWeight is log(domains + 2), where domains is len(Counts), or
	// for the hostname key the number of filtered nodes not ignored.
	NormalizingWeight float64
}

// SpreadPreScore is PodTopologySpread's preScoreState.
type SpreadPreScore struct {
	// Constraints holds one entry per ScheduleAnyway constraint, in p's order.
	Constraints []SpreadScoreConstraint
	// IgnoredNodes are the filtered nodes lacking a constraint's topology key.
	IgnoredNodes []string
}

// SpreadPreScore computes PodTopologySpread's PreScore state for the incoming
// pod p over the nodes named in filtered (the nodes that passed Filter; names
// not in c are ignored) as PreScore and initPreScoreState do, with explicit
// constraints (requireAllTopologies):
//   - a filtered node lacking the key of some ScheduleAnyway constraint is
//     ignored (IgnoredNodes, sorted); the others give each non-hostname
//     constraint its domains, with zero counts;
//   - then every node of c that carries all the keys and passes a
//     constraint's inclusion policies adds, to its domain if that domain is
//     one of the constraint's, its pods of p's namespace that are not
//     terminating and match the selector.
//
// ok is false where upstream returns Skip: c has no node, or p has no
// ScheduleAnyway constraint. It fails when a selector does not compile.
func (c *Cycle) SpreadPreScore(p *v1.Pod, filtered []string) (s SpreadPreScore, ok bool, err error) {
	return c.SpreadPreScoreTopologies(p, filtered, true)
}

// SpreadPreScoreTopologies is SpreadPreScore with PreScore's
// requireAllTopologies, false for the system default constraints: then no
// filtered node is ignored, and every node of c, whatever keys it carries,
// adds to the domain of each constraint its value of the key, "" when it
// lacks it (node.Labels[key], as initPreScoreState and processAllNode
// read it).
func (c *Cycle) SpreadPreScoreTopologies(p *v1.Pod, filtered []string, requireAllTopologies bool) (s SpreadPreScore, ok bool, err error) {
	if len(c.Nodes) == 0 {
		return SpreadPreScore{}, false, nil
	}
	cs, err := compileSpreadConstraints(p, v1.ScheduleAnyway)
	if err != nil || len(cs) == 0 {
		return SpreadPreScore{}, false, err
	}
	at := make(map[string]int, len(c.Nodes))
	for i, n := range c.Nodes {
		at[n.Name] = i
	}
	podsOf := c.podsByNode()
	s.Constraints = make([]SpreadScoreConstraint, len(cs))
	for i, sc := range cs {
		s.Constraints[i] = SpreadScoreConstraint{SpreadConstraint: sc, Counts: map[string]int64{}}
		if sc.TopologyKey == v1.LabelHostname {
			s.Constraints[i].NodeCounts = map[string]int64{}
		}
	}
	kept := 0
	for _, name := range filtered {
		k, found := at[name]
		if !found {
			continue
		}
		node := c.Nodes[k]
		if requireAllTopologies && !carriesKeys(node, cs) {
			s.IgnoredNodes = append(s.IgnoredNodes, name)
			continue
		}
		kept++
		for i, sc := range cs {
			if sc.TopologyKey != v1.LabelHostname {
				s.Constraints[i].Counts[node.Labels[sc.TopologyKey]] += 0
			} else if n := countMatching(podsOf[k], sc.Selector, p.Namespace); n != 0 {
				s.Constraints[i].NodeCounts[name] = int64(n)
			}
		}
	}
	slices.Sort(s.IgnoredNodes)
	s.IgnoredNodes = slices.Compact(s.IgnoredNodes)
	for i, sc := range cs {
		size := len(s.Constraints[i].Counts)
		if sc.TopologyKey == v1.LabelHostname {
			size = kept
		}
		s.Constraints[i].NormalizingWeight = math.Log(float64(size + 2))
	}
	required := nodeaffinity.GetRequiredNodeAffinity(p)
	for i, pods := range podsOf {
		node := c.Nodes[i]
		if requireAllTopologies && !carriesKeys(node, cs) {
			continue
		}
		for j, sc := range cs {
			if !sc.includes(p, node, required) {
				continue
			}
			v := node.Labels[sc.TopologyKey]
			if _, ok := s.Constraints[j].Counts[v]; ok {
				s.Constraints[j].Counts[v] += int64(countMatching(pods, sc.Selector, p.Namespace))
			}
		}
	}
	return s, true, nil
}

// SpreadUpdate applies to a PodTopologySpread PreFilter state for the
// incoming pod p what PreFilterExtensions' AddPod (delta 1) and RemovePod
// (-1) apply for pod on node (updateWithPod): nothing unless pod is in p's
// namespace and node carries every constraint's key; then, for each
// constraint whose selector matches pod's labels (a {} selector matches;
// terminating pods are not left out) and whose inclusion policies node
// passes, delta at the node's domain, creating the domain if absent.
func SpreadUpdate(state []SpreadFilterConstraint, p, pod *v1.Pod, node *v1.Node, delta int) {
	if pod.Namespace != p.Namespace || node == nil {
		return
	}
	cs := make([]SpreadConstraint, len(state))
	for i := range state {
		cs[i] = state[i].SpreadConstraint
	}
	if !carriesKeys(node, cs) {
		return
	}
	required := nodeaffinity.GetRequiredNodeAffinity(p)
	for i := range state {
		c := &state[i]
		if !c.Selector.Matches(labels.Set(pod.Labels)) || !c.includes(p, node, required) {
			continue
		}
		c.Counts[node.Labels[c.TopologyKey]] += delta
	}
}
