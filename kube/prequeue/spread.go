package prequeue

import (
	"fmt"
	"math"
	"slices"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	appslisters "k8s.io/client-go/listers/apps/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/component-helpers/resource"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/helper"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/podtopologyspread"
	"k8s.io/utils/ptr"

	"github.com/affinityq/affinityq/placed"
)

// spreadCycle computes PodTopologySpread's extension points from the
// placed index for pods with constraints of their own (filtering.go,
// scoring.go and common.go, with the NodeInclusionPolicyInPodTopologySpread
// and MatchLabelKeysInPodTopologySpread gates on, as by default; the
// wrapper delegates otherwise). A pod without constraints gets the default
// ones: their DoNotSchedule ones are the in-tree plugin's to answer (the
// wrapper's PreFilter falls back), and their ScheduleAnyway ones too
// unless no service or controller selects the pod (then PreScore skips).
type spreadCycle struct {
	view   *snapshotView
	lister fwk.SharedLister
	// The default constraints (the system's, when systemDefaulted) and the
	// listers that select a pod's default selector.
	defaults        []v1.TopologySpreadConstraint
	systemDefaulted bool
	services        corelisters.ServiceLister
	controllers     corelisters.ReplicationControllerLister
	replicaSets     appslisters.ReplicaSetLister
	statefulSets    appslisters.StatefulSetLister
	resizeDeferred  bool // as affinityCycle's
}

// The in-tree plugin's system default constraints (plugin.go).
var systemSpreadDefaults = []v1.TopologySpreadConstraint{
	{TopologyKey: v1.LabelHostname, WhenUnsatisfiable: v1.ScheduleAnyway, MaxSkew: 3},
	{TopologyKey: v1.LabelTopologyZone, WhenUnsatisfiable: v1.ScheduleAnyway, MaxSkew: 5},
}

const (
	spreadPreFilterKey fwk.StateKey = "PreFilter" + PodTopologySpreadName
	spreadPreScoreKey  fwk.StateKey = "PreScore" + PodTopologySpreadName
)

// spreadConstraint is a constraint as the plug-in reads it: its selector
// with matchLabelKeys merged, minDomains defaulted to 1.
type spreadConstraint struct {
	maxSkew    int32
	key        string
	selector   labels.Selector
	minDomains int32
}

// compileConstraints returns pod's constraints of action, in spec order.
func compileConstraints(pod *v1.Pod, action v1.UnsatisfiableConstraintAction) ([]spreadConstraint, error) {
	var out []spreadConstraint
	for _, c := range pod.Spec.TopologySpreadConstraints {
		if c.WhenUnsatisfiable != action {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(c.LabelSelector)
		if err != nil {
			return nil, err
		}
		keyed := labels.Set{}
		for _, k := range c.MatchLabelKeys {
			if v, ok := pod.Labels[k]; ok {
				keyed[k] = v
			}
		}
		if reqs, ok := sel.Requirements(); ok && len(keyed) > 0 {
			merged := labels.SelectorFromSet(keyed)
			for _, r := range reqs {
				merged = merged.Add(r)
			}
			sel = merged
		}
		out = append(out, spreadConstraint{maxSkew: c.MaxSkew, key: c.TopologyKey, selector: sel, minDomains: ptr.Deref(c.MinDomains, 1)})
	}
	return out, nil
}

// spreadState is the PreFilter state: per DoNotSchedule constraint, the
// matching pods per domain and its two smallest domains.
type spreadState struct {
	constraints []spreadConstraint
	counts      []placed.SpreadCounts
	paths       []criticalPaths
	self        []int         // 1 where the constraint's selector matches the incoming pod
	x           *placed.Index // SpreadChange
}

// Clone copies the counts and paths, which AddPod and RemovePod change.
func (s *spreadState) Clone() fwk.StateData {
	c := *s
	c.counts = make([]placed.SpreadCounts, len(s.counts))
	for i, sc := range s.counts {
		c.counts[i] = placed.SpreadCounts{TopologyKey: sc.TopologyKey, Counts: make(map[string]int, len(sc.Counts))}
		for v, n := range sc.Counts {
			c.counts[i].Counts[v] = n
		}
	}
	c.paths = slices.Clone(s.paths)
	return &c
}

// criticalPaths holds the two domains of the smallest counts seen, kept as
// counts change by the in-tree plugin's rule (filtering.go), so that Filter
// reads the same minimum: a domain's new count replaces its entry when it
// holds one, else enters when below one.
type criticalPaths [2]struct {
	value string
	num   int
}

func newCriticalPaths() criticalPaths {
	var p criticalPaths
	p[0].num, p[1].num = math.MaxInt32, math.MaxInt32
	return p
}

func (p *criticalPaths) update(value string, num int) {
	switch {
	case value == p[0].value || value == p[1].value:
		i := 0
		if value != p[0].value {
			i = 1
		}
		p[i].num = num
		if p[0].num > p[1].num {
			p[0], p[1] = p[1], p[0]
		}
	case num < p[0].num:
		p[1] = p[0]
		p[0].value, p[0].num = value, num
	case num < p[1].num:
		p[1].value, p[1].num = value, num
	}
}

// preFilter answers PreFilter from the index; a non-nil error is as
// affinityCycle.preFilter's (the caller falls back), which includes a pod
// without constraints whose defaults hold DoNotSchedule ones.
func (c *spreadCycle) preFilter(state fwk.CycleState, pod *v1.Pod) (*fwk.PreFilterResult, *fwk.Status, error) {
	if c.resizeDeferred && resource.IsPodResizeDeferred(pod) {
		return nil, fwk.NewStatus(fwk.Skip), nil
	}
	if len(pod.Spec.TopologySpreadConstraints) == 0 {
		if slices.ContainsFunc(c.defaults, func(d v1.TopologySpreadConstraint) bool { return d.WhenUnsatisfiable == v1.DoNotSchedule }) {
			return nil, nil, errDefaultConstraints
		}
		return nil, fwk.NewStatus(fwk.Skip), nil
	}
	cs, err := compileConstraints(pod, v1.DoNotSchedule)
	if err != nil {
		return nil, fwk.AsStatus(fmt.Errorf("get constraints from pod: obtaining pod's hard topology spread constraints: %w", err)), nil
	}
	if len(cs) == 0 {
		return nil, fwk.NewStatus(fwk.Skip), nil
	}
	x, err := syncView(state, c.view, c.lister)
	if err != nil {
		return nil, nil, err
	}
	counts, err := x.PodTopologySpread(pod)
	c.view.mu.Unlock()
	if err != nil {
		return nil, nil, err
	}
	s := &spreadState{constraints: cs, counts: counts, paths: make([]criticalPaths, len(cs)), self: make([]int, len(cs)), x: x}
	for i := range cs {
		if cs[i].selector.Matches(labels.Set(pod.Labels)) {
			s.self[i] = 1
		}
		s.paths[i] = newCriticalPaths()
		for v, n := range counts[i].Counts {
			s.paths[i].update(v, n)
		}
	}
	state.Write(spreadPreFilterKey, s)
	return nil, nil, nil
}

func (c *spreadCycle) keys() (preFilter, preScore fwk.StateKey) {
	return spreadPreFilterKey, spreadPreScoreKey
}

var errDefaultConstraints = fmt.Errorf("prequeue: the pod's default constraints hold DoNotSchedule ones, which the index does not model")

// update applies a pod added to (d = 1) or removed from (d = -1) the
// cycle's view of a node, moving the critical paths of the domains whose
// counts changed.
func (c *spreadCycle) update(state fwk.CycleState, pod *v1.Pod, p fwk.PodInfo, ni fwk.NodeInfo, d int) *fwk.Status {
	s, err := readState[*spreadState](state, spreadPreFilterKey)
	if err != nil {
		return fwk.AsStatus(err)
	}
	node := ni.Node()
	before := make([]int, len(s.counts))
	if node != nil {
		for i := range s.counts {
			before[i] = s.counts[i].Counts[node.Labels[s.constraints[i].key]]
		}
	}
	if err := s.x.SpreadChange(s.counts, pod, p.GetPod(), node, d); err != nil {
		return fwk.AsStatus(err)
	}
	if node == nil {
		return nil
	}
	for i := range s.counts {
		v, ok := node.Labels[s.constraints[i].key]
		if n := s.counts[i].Counts[v]; ok && n != before[i] {
			s.paths[i].update(v, n)
		}
	}
	return nil
}

// filter decides Filter for one node: for every constraint the node
// carries the key of, the skew its domain would have with the pod.
func (c *spreadCycle) filter(d fwk.StateData, pod *v1.Pod, ni fwk.NodeInfo) *fwk.Status {
	if c.resizeDeferred && resource.IsPodResizeDeferred(pod) {
		return nil
	}
	s, ok := d.(*spreadState)
	if !ok {
		return fwk.AsStatus(fmt.Errorf("%q holds a %T", spreadPreFilterKey, d))
	}
	node := ni.Node()
	for i, cs := range s.constraints {
		v, ok := node.Labels[cs.key]
		if !ok {
			return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, podtopologyspread.ErrReasonNodeLabelNotMatch)
		}
		least := s.paths[i][0].num
		if len(s.counts[i].Counts) < int(cs.minDomains) {
			least = 0
		}
		if s.counts[i].Counts[v]+s.self[i]-least > int(cs.maxSkew) {
			return fwk.NewStatus(fwk.Unschedulable, podtopologyspread.ErrReasonConstraintsNotMatch)
		}
	}
	return nil
}

// spreadScoreState is the PreScore state.
type spreadScoreState struct {
	constraints []spreadConstraint
	scores      placed.SpreadScores
	namespace   string
}

// Clone returns the state itself: Score only reads it.
func (s *spreadScoreState) Clone() fwk.StateData { return s }

// preScore answers PreScore from the index for a pod with constraints of
// its own; a pod whose default constraints apply is the in-tree plugin's
// (the error) unless no service or controller selects it.
func (c *spreadCycle) preScore(state fwk.CycleState, pod *v1.Pod, filtered []fwk.NodeInfo) (*fwk.Status, error) {
	all, err := c.lister.NodeInfos().List()
	if err != nil {
		return nil, err
	}
	if len(all) == 0 {
		return fwk.NewStatus(fwk.Skip), nil
	}
	if len(pod.Spec.TopologySpreadConstraints) == 0 {
		if !slices.ContainsFunc(c.defaults, func(d v1.TopologySpreadConstraint) bool { return d.WhenUnsatisfiable == v1.ScheduleAnyway }) ||
			helper.DefaultSelector(pod, c.services, c.controllers, c.replicaSets, c.statefulSets).Empty() {
			return fwk.NewStatus(fwk.Skip), nil
		}
		return nil, errDefaultConstraints
	}
	cs, err := compileConstraints(pod, v1.ScheduleAnyway)
	if err != nil {
		return fwk.AsStatus(fmt.Errorf("calculating preScoreState: obtaining pod's soft topology spread constraints: %w", err)), nil
	}
	if len(cs) == 0 {
		return fwk.NewStatus(fwk.Skip), nil
	}
	names := make([]string, len(filtered))
	for i, ni := range filtered {
		names[i] = ni.Node().Name
	}
	x, err := syncView(state, c.view, c.lister)
	if err != nil {
		return nil, err
	}
	scores, skip, err := x.PodTopologySpreadScores(pod, names, true)
	c.view.mu.Unlock()
	switch {
	case err != nil:
		return nil, err
	case skip:
		return fwk.NewStatus(fwk.Skip), nil
	}
	state.Write(spreadPreScoreKey, &spreadScoreState{constraints: cs, scores: scores, namespace: pod.Namespace})
	return nil, nil
}

// score sums, over the constraints whose key the node carries, the
// matching pods of its domain (of the node itself, for hostname) times the
// constraint's normalizing weight, plus maxSkew - 1; an ignored node
// scores 0.
func (c *spreadCycle) score(d fwk.StateData, ni fwk.NodeInfo) (int64, *fwk.Status) {
	s, ok := d.(*spreadScoreState)
	if !ok {
		return 0, fwk.AsStatus(fmt.Errorf("%q holds a %T", spreadPreScoreKey, d))
	}
	node := ni.Node()
	if _, ignored := slices.BinarySearch(s.scores.IgnoredNodes, node.Name); ignored {
		return 0, nil
	}
	var sum float64
	for i, cs := range s.constraints {
		v, ok := node.Labels[cs.key]
		if !ok {
			continue
		}
		var n int64
		if cs.key == v1.LabelHostname {
			n = int64(countMatching(ni.GetPods(), cs.selector, s.namespace))
		} else {
			n = s.scores.Constraints[i].Counts[v]
		}
		sum += float64(n)*s.scores.Constraints[i].NormalizingWeight + float64(cs.maxSkew-1)
	}
	return int64(math.Round(sum)), nil
}

// countMatching counts the pods of a namespace, not terminating, that a
// selector other than {} matches.
func countMatching(pods []fwk.PodInfo, sel labels.Selector, ns string) int {
	if sel.Empty() {
		return 0
	}
	n := 0
	for _, pi := range pods {
		if p := pi.GetPod(); p.DeletionTimestamp == nil && p.Namespace == ns && sel.Matches(labels.Set(p.Labels)) {
			n++
		}
	}
	return n
}

// normalize maps scores so that the lowest becomes MaxNodeScore and the
// highest its share (maxScore+minScore-score)/maxScore; ignored nodes 0.
func (c *spreadCycle) normalize(state fwk.CycleState, scores fwk.NodeScoreList) *fwk.Status {
	s, err := readState[*spreadScoreState](state, spreadPreScoreKey)
	if err != nil {
		return fwk.AsStatus(err)
	}
	lo, hi := int64(math.MaxInt64), int64(0)
	ignored := make([]bool, len(scores))
	for i, ns := range scores {
		if _, ok := slices.BinarySearch(s.scores.IgnoredNodes, ns.Name); ok {
			ignored[i] = true
			continue
		}
		lo, hi = min(lo, ns.Score), max(hi, ns.Score)
	}
	for i := range scores {
		switch {
		case ignored[i]:
			scores[i].Score = 0
		case hi == 0:
			scores[i].Score = fwk.MaxNodeScore
		default:
			scores[i].Score = fwk.MaxNodeScore * (hi + lo - scores[i].Score) / hi
		}
	}
	return nil
}
