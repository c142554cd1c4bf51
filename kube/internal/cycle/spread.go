package cycle

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	appslisters "k8s.io/client-go/listers/apps/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/component-helpers/resource"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/helper"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/podtopologyspread"
	"k8s.io/utils/ptr"

	"github.com/affinityq/affinityq/placed"
)

// PodTopologySpread computes PodTopologySpread's extension points from the
// placed index (filtering.go, scoring.go and common.go): for a pod's own
// constraints, and for the default ones a pod without constraints gets,
// whose selector is derived from the services, replication controllers,
// replica sets and stateful sets that select the pod (helper.DefaultSelector,
// read when PreFilter and PreScore run, as in-tree). The index is asked
// about the pod as the in-tree plugin counts it (counted): its constraints
// of the extension point's action with the gates applied, or the defaults
// with the derived selector, so that the replicas of a workload share one
// shape per default constraint and a selector that changes is a new shape.
type PodTopologySpread struct {
	view   *View
	lister fwk.SharedLister
	// The default constraints (the system's, when systemDefaulted) and the
	// listers that select a pod's default selector.
	defaults        []v1.TopologySpreadConstraint
	systemDefaulted bool
	services        corelisters.ServiceLister
	controllers     corelisters.ReplicationControllerLister
	replicaSets     appslisters.ReplicaSetLister
	statefulSets    appslisters.StatefulSetLister
	// The gates: MatchLabelKeysInPodTopologySpread (a constraint's
	// matchLabelKeys merged into its selector) and
	// NodeInclusionPolicyInPodTopologySpread (a constraint's policies read;
	// off, every constraint honours node affinity and ignores taints).
	matchLabelKeys    bool
	inclusionPolicies bool
	resizeDeferred    bool // as InterPodAffinity's
}

// The in-tree plugin's system default constraints (plugin.go).
var systemSpreadDefaults = []v1.TopologySpreadConstraint{
	{TopologyKey: v1.LabelHostname, WhenUnsatisfiable: v1.ScheduleAnyway, MaxSkew: 3},
	{TopologyKey: v1.LabelTopologyZone, WhenUnsatisfiable: v1.ScheduleAnyway, MaxSkew: 5},
}

// NewPodTopologySpread returns PodTopologySpread's answers with the
// in-tree plugin's args over view, the view of h's snapshot, reading a
// pod's default selector from h's informers.
func NewPodTopologySpread(view *View, h fwk.Handle, args *config.PodTopologySpreadArgs, fts feature.Features) *PodTopologySpread {
	c := &PodTopologySpread{view: view, lister: h.SnapshotSharedLister(), defaults: args.DefaultConstraints,
		matchLabelKeys: fts.EnableMatchLabelKeysInPodTopologySpread, inclusionPolicies: fts.EnableNodeInclusionPolicyInPodTopologySpread,
		resizeDeferred: fts.EnableInPlacePodVerticalScalingSchedulerPreemption}
	if args.DefaultingType == config.SystemDefaulting {
		c.defaults, c.systemDefaulted = systemSpreadDefaults, true
	}
	if len(c.defaults) > 0 {
		f := h.SharedInformerFactory()
		c.services, c.controllers = f.Core().V1().Services().Lister(), f.Core().V1().ReplicationControllers().Lister()
		c.replicaSets, c.statefulSets = f.Apps().V1().ReplicaSets().Lister(), f.Apps().V1().StatefulSets().Lister()
	}
	return c
}

// The cycle state's keys of PodTopologySpread's PreFilter and PreScore
// answers, distinct from the in-tree plugin's.
const (
	spreadPreFilterKey fwk.StateKey = "affinityq.io/PodTopologySpread/PreFilter"
	spreadPreScoreKey  fwk.StateKey = "affinityq.io/PodTopologySpread/PreScore"
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
	counted     *v1.Pod       // the incoming pod as counted (PodTopologySpread.counted)
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

// counted returns pod as the in-tree plugin counts it for the
// constraints of action: a shallow copy whose constraints are pod's own of
// action (matchLabelKeys dropped and policies cleared where the gates are
// off), or, for a pod without constraints, the defaults of action with the
// derived selector and without matchLabelKeys (the in-tree plugin
// replaces the selector it merged them into). It returns nil when no
// constraint applies: none of action, or defaults that no object's selector
// derives (an empty selector, which the in-tree plugin drops).
func (c *PodTopologySpread) counted(pod *v1.Pod, action v1.UnsatisfiableConstraintAction) (*v1.Pod, error) {
	own := len(pod.Spec.TopologySpreadConstraints) > 0
	src := pod.Spec.TopologySpreadConstraints
	if !own {
		src = c.defaults
	}
	var cs []v1.TopologySpreadConstraint
	for _, sc := range src {
		if sc.WhenUnsatisfiable != action {
			continue
		}
		if !c.matchLabelKeys {
			sc.MatchLabelKeys = nil
		}
		if !c.inclusionPolicies {
			sc.NodeAffinityPolicy, sc.NodeTaintsPolicy = nil, nil
		}
		cs = append(cs, sc)
	}
	if len(cs) == 0 {
		return nil, nil
	}
	if !own {
		sel := helper.DefaultSelector(pod, c.services, c.controllers, c.replicaSets, c.statefulSets)
		if sel.Empty() {
			return nil, nil
		}
		ls, err := labelSelectorOf(sel)
		if err != nil {
			return nil, err
		}
		for i := range cs {
			cs[i].LabelSelector, cs[i].MatchLabelKeys = ls, nil
		}
	}
	out := *pod
	out.Spec.TopologySpreadConstraints = cs
	return &out, nil
}

// labelSelectorOf returns the LabelSelector that selects what sel does:
// sel is a default selector, made of label sets and LabelSelectors, whose
// requirements are all of the operators a LabelSelector has.
func labelSelectorOf(sel labels.Selector) (*metav1.LabelSelector, error) {
	reqs, _ := sel.Requirements()
	ls := &metav1.LabelSelector{}
	for _, r := range reqs {
		var op metav1.LabelSelectorOperator
		switch r.Operator() {
		case selection.In, selection.Equals, selection.DoubleEquals:
			op = metav1.LabelSelectorOpIn
		case selection.NotIn, selection.NotEquals:
			op = metav1.LabelSelectorOpNotIn
		case selection.Exists:
			op = metav1.LabelSelectorOpExists
		case selection.DoesNotExist:
			op = metav1.LabelSelectorOpDoesNotExist
		default:
			return nil, fmt.Errorf("cycle: default selector %q: operator %q has no LabelSelector form", sel, r.Operator())
		}
		ls.MatchExpressions = append(ls.MatchExpressions, metav1.LabelSelectorRequirement{Key: r.Key(), Operator: op, Values: r.ValuesUnsorted()})
	}
	return ls, nil
}

// PreFilter answers PreFilter from the index; a non-nil error is as
// InterPodAffinity.preFilter's (the caller falls back).
func (c *PodTopologySpread) PreFilter(state fwk.CycleState, pod *v1.Pod) (*fwk.PreFilterResult, *fwk.Status, error) {
	if c.resizeDeferred && resource.IsPodResizeDeferred(pod) {
		return nil, fwk.NewStatus(fwk.Skip), nil
	}
	counted, err := c.counted(pod, v1.DoNotSchedule)
	if err != nil {
		return nil, nil, err
	}
	if counted == nil {
		return nil, fwk.NewStatus(fwk.Skip), nil
	}
	cs, err := compileConstraints(counted, v1.DoNotSchedule)
	if err != nil {
		return nil, fwk.AsStatus(fmt.Errorf("get constraints from pod: obtaining pod's hard topology spread constraints: %w", err)), nil
	}
	var counts []placed.SpreadCounts
	var countErr error
	x, err := askSnapshot(state, c.view, c.lister, func(x *placed.Index) { counts, countErr = x.PodTopologySpread(counted) })
	if err = cmp.Or(err, countErr); err != nil {
		return nil, nil, err
	}
	s := &spreadState{constraints: cs, counts: counts, paths: make([]criticalPaths, len(cs)), self: make([]int, len(cs)), counted: counted, x: x}
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

func (c *PodTopologySpread) Keys() (preFilter, preScore fwk.StateKey) {
	return spreadPreFilterKey, spreadPreScoreKey
}

// Update applies a pod added to (d = 1) or removed from (d = -1) the
// cycle's view of a node, moving the critical paths of the domains whose
// counts changed.
func (c *PodTopologySpread) Update(state fwk.CycleState, pod *v1.Pod, p fwk.PodInfo, ni fwk.NodeInfo, d int) *fwk.Status {
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
	if err := s.x.SpreadChange(s.counts, s.counted, p.GetPod(), node, d); err != nil {
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

// Filter decides Filter for one node: for every constraint the node
// carries the key of, the skew its domain would have with the pod.
func (c *PodTopologySpread) Filter(d fwk.StateData, pod *v1.Pod, ni fwk.NodeInfo) *fwk.Status {
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
}

// Clone returns the state itself: Score only reads it.
func (s *spreadScoreState) Clone() fwk.StateData { return s }

// PreScore answers PreScore from the index; a non-nil error is as
// preFilter's.
func (c *PodTopologySpread) PreScore(state fwk.CycleState, pod *v1.Pod, filtered []fwk.NodeInfo) (*fwk.Status, error) {
	all, err := c.lister.NodeInfos().List()
	if err != nil {
		return nil, err
	}
	if len(all) == 0 {
		return fwk.NewStatus(fwk.Skip), nil
	}
	counted, err := c.counted(pod, v1.ScheduleAnyway)
	if err != nil {
		return nil, err
	}
	if counted == nil {
		return fwk.NewStatus(fwk.Skip), nil
	}
	cs, err := compileConstraints(counted, v1.ScheduleAnyway)
	if err != nil {
		return fwk.AsStatus(fmt.Errorf("calculating preScoreState: obtaining pod's soft topology spread constraints: %w", err)), nil
	}
	names := make([]string, len(filtered))
	for i, ni := range filtered {
		names[i] = ni.Node().Name
	}
	// Only the system defaults score nodes that lack a constraint's key.
	requireAll := len(pod.Spec.TopologySpreadConstraints) > 0 || !c.systemDefaulted
	var scores placed.SpreadScores
	var skip bool
	var scoreErr error
	_, err = askSnapshot(state, c.view, c.lister, func(x *placed.Index) {
		scores, skip, scoreErr = x.PodTopologySpreadScores(counted, names, requireAll)
	})
	switch {
	case err != nil || scoreErr != nil:
		return nil, cmp.Or(err, scoreErr)
	case skip:
		return fwk.NewStatus(fwk.Skip), nil
	}
	state.Write(spreadPreScoreKey, &spreadScoreState{constraints: cs, scores: scores})
	return nil, nil
}

// Score sums, over the constraints whose key the node carries, the
// matching pods of its domain (of the node itself, for hostname: PreScore
// took them from the index, which the cycle's snapshot does not change
// after it, so Score reads none of the node's pods) times the
// constraint's normalizing weight, plus maxSkew - 1; an ignored node
// scores 0.
func (c *PodTopologySpread) Score(d fwk.StateData, ni fwk.NodeInfo) (int64, *fwk.Status) {
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
			n = s.scores.Constraints[i].NodeCounts[node.Name]
		} else {
			n = s.scores.Constraints[i].Counts[v]
		}
		sum += float64(n)*s.scores.Constraints[i].NormalizingWeight + float64(cs.maxSkew-1)
	}
	return int64(math.Round(sum)), nil
}

// Normalize maps scores so that the lowest becomes MaxNodeScore and the
// highest its share (maxScore+minScore-score)/maxScore; ignored nodes 0.
func (c *PodTopologySpread) Normalize(state fwk.CycleState, scores fwk.NodeScoreList) *fwk.Status {
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
			scores[i].Score = fwk.MaxScore
		default:
			scores[i].Score = fwk.MaxScore * (hi + lo - scores[i].Score) / hi
		}
	}
	return nil
}
