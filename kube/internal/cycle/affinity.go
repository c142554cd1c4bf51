package cycle

import (
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	listersv1 "k8s.io/client-go/listers/core/v1"
	"k8s.io/component-helpers/resource"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/interpodaffinity"

	"github.com/affinityq/affinityq/placed"
)

// InterPodAffinity computes InterPodAffinity's extension points from the
// placed index: PreFilter's counts and Filter's verdicts (filtering.go
// without the InterPodAffinityHostnameFastPath gate, which is alpha and off
// by default; the wrapper delegates when it is on), PreFilterExtensions,
// and PreScore's topology score with Score and NormalizeScore (scoring.go).
type InterPodAffinity struct {
	view     *View
	lister   fwk.SharedLister
	nsLister listersv1.NamespaceLister
	args     placed.ScoreArgs
	// resizeDeferred is the in-tree plugin's
	// InPlacePodVerticalScalingSchedulerPreemption gate: a pod whose resize
	// is deferred skips PreFilter and passes Filter.
	resizeDeferred bool
}

// NewInterPodAffinity returns InterPodAffinity's answers with the in-tree
// plugin's args over view, the view of h's snapshot.
func NewInterPodAffinity(view *View, h fwk.Handle, args *config.InterPodAffinityArgs, fts feature.Features) *InterPodAffinity {
	return &InterPodAffinity{
		view: view, lister: h.SnapshotSharedLister(), nsLister: h.SharedInformerFactory().Core().V1().Namespaces().Lister(),
		args:           placed.ScoreArgs{HardPodAffinityWeight: args.HardPodAffinityWeight, IgnorePreferredTermsOfExistingPods: args.IgnorePreferredTermsOfExistingPods},
		resizeDeferred: fts.EnableInPlacePodVerticalScalingSchedulerPreemption,
	}
}

// The cycle state's keys of InterPodAffinity's PreFilter and PreScore
// answers, distinct from the in-tree plugin's.
const (
	affinityPreFilterKey fwk.StateKey = "affinityq.io/InterPodAffinity/PreFilter"
	affinityPreScoreKey  fwk.StateKey = "affinityq.io/InterPodAffinity/PreScore"
)

// affinityState is the PreFilter state: the counts, and the incoming pod's
// required terms with their namespace selectors resolved, as the in-tree
// plugin holds them.
type affinityState struct {
	// existing, affinity and anti are the in-tree plugin's three counts:
	// of the placed pods' anti-affinity terms that the incoming pod
	// matches, of its affinity terms and of its anti-affinity terms.
	existing, affinity, anti *tally
	// existingKeys holds the topology key of every pair of existing (and
	// may hold keys that no longer have one), with its column: Filter
	// reads a node's count at each, where the in-tree plugin looks up
	// every label of the node, a dozen on a cloud provider's.
	existingKeys []keyCol
	// topo is the view's topology as of PreFilter, which the tallies are
	// read against; affinityCols and antiCols are the columns of the
	// required affinity and anti-affinity terms' keys, in the terms' order
	// (-1 where it has none).
	topo                   *topology
	affinityCols, antiCols []int
	podInfo                fwk.PodInfo
	x                      *placed.Index // AffinityChangeTo's namespace labels
}

// keyCol is a topology key and its column in a topology (-1 for none).
type keyCol struct {
	key string
	col int
}

// termCols returns the column in t of each term's key.
func termCols(t *topology, terms []fwk.AffinityTerm) []int {
	cols := make([]int, len(terms))
	for i := range terms {
		cols[i] = t.col(terms[i].TopologyKey)
	}
	return cols
}

// tallies returns the state's counts as the index's overlay takes them.
func (s *affinityState) tallies() placed.AffinityTallies {
	return placed.AffinityTallies{ExistingAntiAffinity: s.existing, Affinity: s.affinity, AntiAffinity: s.anti}
}

// Clone copies the counts, which AddPod and RemovePod change, and clips
// existingKeys, which AddPod appends to.
func (s *affinityState) Clone() fwk.StateData {
	c := *s
	c.existingKeys = slices.Clip(s.existingKeys)
	c.existing, c.affinity, c.anti = s.existing.clone(), s.affinity.clone(), s.anti.clone()
	return &c
}

// PreFilter answers PreFilter from the index. A non-nil error is one the
// index cannot answer through (the snapshot's nodes could not be listed
// or synced): the caller falls back to the in-tree plugin.
func (c *InterPodAffinity) PreFilter(state fwk.CycleState, pod *v1.Pod) (*fwk.PreFilterResult, *fwk.Status, error) {
	if c.resizeDeferred && resource.IsPodResizeDeferred(pod) {
		return nil, fwk.NewStatus(fwk.Skip), nil
	}
	pi, err := framework.NewPodInfo(pod)
	if err != nil {
		return nil, fwk.NewStatus(fwk.UnschedulableAndUnresolvable, fmt.Sprintf("parsing pod: %+v", err)), nil
	}
	for _, terms := range [][]fwk.AffinityTerm{pi.GetRequiredAffinityTerms(), pi.GetRequiredAntiAffinityTerms()} {
		for i := range terms {
			if err := c.resolveNamespaces(&terms[i]); err != nil {
				return nil, fwk.AsStatus(err), nil
			}
		}
	}
	if len(pi.GetRequiredAffinityTerms()) == 0 && len(pi.GetRequiredAntiAffinityTerms()) == 0 {
		// Only placed pods' required anti-affinity can reject such a pod;
		// with none in the snapshot the in-tree plugin counts nothing and
		// skips, and so the index need not be synced.
		anti, err := c.lister.NodeInfos().HavePodsWithRequiredAntiAffinityList()
		if err != nil {
			return nil, nil, err
		}
		if len(anti) == 0 {
			return nil, fwk.NewStatus(fwk.Skip), nil
		}
	}
	s := &affinityState{podInfo: pi}
	var parseErr error
	x, err := askSnapshot(state, c.view, c.lister, func(x *placed.Index) {
		// The columns of the incoming pod's keys, then those of the
		// placed pods' terms it meets, added as the counts arrive.
		var keys []string
		for _, terms := range [][]fwk.AffinityTerm{pi.GetRequiredAffinityTerms(), pi.GetRequiredAntiAffinityTerms()} {
			for i := range terms {
				keys = append(keys, terms[i].TopologyKey)
			}
		}
		topo := c.view.topologyFor(keys...)
		grow := func(key string) *topology { return c.view.topologyFor(key) }
		s.existing, s.affinity, s.anti = newTally(topo, grow), newTally(topo, grow), newTally(topo, grow)
		if parseErr = x.InterPodAffinityTo(s.tallies(), pod); parseErr != nil {
			return
		}
		s.topo = c.view.topologyFor()
		for _, t := range []*tally{s.existing, s.affinity, s.anti} {
			t.filled(s.topo)
		}
	})
	if err != nil {
		return nil, nil, err
	}
	if parseErr != nil {
		return nil, fwk.NewStatus(fwk.UnschedulableAndUnresolvable, fmt.Sprintf("parsing pod: %+v", parseErr)), nil
	}
	if s.existing.empty() && len(pi.GetRequiredAffinityTerms()) == 0 && len(pi.GetRequiredAntiAffinityTerms()) == 0 {
		return nil, fwk.NewStatus(fwk.Skip), nil
	}
	s.x = x
	s.existingKeys = make([]keyCol, len(s.existing.keys))
	for i, k := range s.existing.keys {
		s.existingKeys[i] = keyCol{k, s.topo.col(k)}
	}
	s.affinityCols, s.antiCols = termCols(s.topo, pi.GetRequiredAffinityTerms()), termCols(s.topo, pi.GetRequiredAntiAffinityTerms())
	state.Write(affinityPreFilterKey, s)
	return nil, nil, nil
}

// readState returns the state a wrapper's PreFilter or PreScore wrote
// under key.
func readState[T fwk.StateData](state fwk.CycleState, key fwk.StateKey) (T, error) {
	var zero T
	d, err := state.Read(key)
	if err != nil {
		return zero, fmt.Errorf("reading %q from the cycle state: %w", key, err)
	}
	s, ok := d.(T)
	if !ok {
		return zero, fmt.Errorf("%q holds a %T", key, d)
	}
	return s, nil
}

// askSnapshot lists lister's snapshot, that of the cycle whose state is
// state, and asks question of view's index synced with it (see
// View.ask).
func askSnapshot(state fwk.CycleState, view *View, lister fwk.SharedLister, question func(*placed.Index)) (*placed.Index, error) {
	list, err := lister.NodeInfos().List()
	if err != nil {
		return nil, fmt.Errorf("listing the snapshot's nodes: %w", err)
	}
	return view.ask(state, list, question)
}

func (c *InterPodAffinity) Keys() (preFilter, preScore fwk.StateKey) {
	return affinityPreFilterKey, affinityPreScoreKey
}

// resolveNamespaces adds to a term's namespaces those its namespace
// selector selects, as the in-tree plugin does before it counts: a
// selector that is not {} then reads only namespaces that exist.
func (c *InterPodAffinity) resolveNamespaces(t *fwk.AffinityTerm) error {
	if t.NamespaceSelector.Empty() {
		return nil
	}
	nss, err := c.nsLister.List(t.NamespaceSelector)
	if err != nil {
		return err
	}
	for _, ns := range nss {
		t.Namespaces.Insert(ns.Name)
	}
	t.NamespaceSelector = labels.Nothing()
	return nil
}

// Update applies a pod added to (d = 1) or removed from (d = -1) the
// cycle's view of a node.
func (c *InterPodAffinity) Update(state fwk.CycleState, pod *v1.Pod, p fwk.PodInfo, ni fwk.NodeInfo, d int) *fwk.Status {
	s, err := readState[*affinityState](state, affinityPreFilterKey)
	if err != nil {
		return fwk.AsStatus(err)
	}
	if err := s.x.AffinityChangeTo(s.tallies(), pod, p.GetPod(), ni.Node(), int64(d)); err != nil {
		return fwk.AsStatus(err)
	}
	if d > 0 {
		// The pod's required anti-affinity terms are the only ones that
		// add pairs to existing.
		for _, t := range p.GetRequiredAntiAffinityTerms() {
			if !slices.ContainsFunc(s.existingKeys, func(k keyCol) bool { return k.key == t.TopologyKey }) {
				s.existingKeys = append(s.existingKeys, keyCol{t.TopologyKey, s.topo.col(t.TopologyKey)})
			}
		}
	}
	return nil
}

// Filter decides Filter for one node from the counts: the incoming pod's
// affinity (a pair of every term's key with a matching pod, or none
// anywhere and the pod matching its own terms), its anti-affinity, and the
// placed pods' anti-affinity. It reads the node's counts through the
// view's topology (the node's labels for a node or key it lacks).
func (c *InterPodAffinity) Filter(d fwk.StateData, pod *v1.Pod, ni fwk.NodeInfo) *fwk.Status {
	if c.resizeDeferred && resource.IsPodResizeDeferred(pod) {
		return nil
	}
	s, ok := d.(*affinityState)
	if !ok {
		return fwk.AsStatus(fmt.Errorf("%q holds a %T", affinityPreFilterKey, d))
	}
	affinity, anti := s.podInfo.GetRequiredAffinityTerms(), s.podInfo.GetRequiredAntiAffinityTerms()
	if len(affinity) == 0 && (len(anti) == 0 || s.anti.empty()) && s.existing.empty() {
		return nil
	}
	node := ni.Node()
	slot := s.topo.slotOf(node)
	if len(affinity) > 0 {
		found := true
		for i, t := range affinity {
			n, ok := s.affinity.at(slot, node, s.affinityCols[i], t.TopologyKey)
			if !ok {
				return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, interpodaffinity.ErrReasonAffinityRulesNotMatch)
			}
			if n <= 0 {
				found = false
			}
		}
		if !found && (!s.affinity.empty() || !matchesAllTerms(affinity, pod)) {
			return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, interpodaffinity.ErrReasonAffinityRulesNotMatch)
		}
	}
	if !s.anti.empty() {
		for i, t := range anti {
			if n, ok := s.anti.at(slot, node, s.antiCols[i], t.TopologyKey); ok && n > 0 {
				return fwk.NewStatus(fwk.Unschedulable, interpodaffinity.ErrReasonAntiAffinityRulesNotMatch)
			}
		}
	}
	if !s.existing.empty() {
		for _, k := range s.existingKeys {
			if n, ok := s.existing.at(slot, node, k.col, k.key); ok && n > 0 {
				return fwk.NewStatus(fwk.Unschedulable, interpodaffinity.ErrReasonExistingAntiAffinityRulesNotMatch)
			}
		}
	}
	return nil
}

// matchesAllTerms reports whether pod matches every one of terms (with
// their namespaces resolved): the self-affinity rule.
func matchesAllTerms(terms []fwk.AffinityTerm, pod *v1.Pod) bool {
	for _, t := range terms {
		if !t.Matches(pod, nil) {
			return false
		}
	}
	return len(terms) > 0
}

// scoreState is the PreScore state: the topology score, and the same by
// the value ids of topo, the view's topology as of PreScore, in which
// Score finds a node's values without reading its labels.
type scoreState struct {
	scores placed.Scores
	topo   *topology
	keys   []scoreKey
}

// scoreKey is the score at one topology key's values: by value id where
// the key has a column, else read through scores.
type scoreKey struct {
	key  string
	col  int
	byID column
}

// Clone returns the state itself: Score only reads it.
func (s *scoreState) Clone() fwk.StateData { return s }

// PreScore answers PreScore from the index; a non-nil error is as
// preFilter's.
func (c *InterPodAffinity) PreScore(state fwk.CycleState, pod *v1.Pod, nodes []fwk.NodeInfo) (*fwk.Status, error) {
	a := pod.Spec.Affinity
	preferred := a != nil && (a.PodAffinity != nil && len(a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution) > 0 ||
		a.PodAntiAffinity != nil && len(a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution) > 0)
	if c.args.IgnorePreferredTermsOfExistingPods && !preferred {
		return fwk.NewStatus(fwk.Skip), nil // before the pod is parsed, as in-tree
	}
	if _, err := framework.NewPodInfo(pod); err != nil {
		return fwk.AsStatus(fmt.Errorf("failed to parse pod: %w", err)), nil
	}
	if !preferred {
		// Only placed pods' affinity can score such a pod; with none in
		// the snapshot the in-tree plugin processes no node and skips.
		withAffinity, err := c.lister.NodeInfos().HavePodsWithAffinityList()
		if err != nil {
			return nil, err
		}
		if len(withAffinity) == 0 {
			return fwk.NewStatus(fwk.Skip), nil
		}
	}
	// Score reads the topology score only at the pairs of the nodes it is
	// given, which are these.
	scored := make([]*v1.Node, 0, len(nodes))
	for _, ni := range nodes {
		if n := ni.Node(); n != nil {
			scored = append(scored, n)
		}
	}
	s := &scoreState{}
	var skip bool
	var parseErr error
	if _, err := askSnapshot(state, c.view, c.lister, func(x *placed.Index) {
		s.scores, skip, parseErr = x.InterPodAffinityScoresAt(pod, c.args, c.view.scoredValues(scored))
		s.topo = c.view.topologyFor()
	}); err != nil {
		return nil, err
	}
	switch {
	case parseErr != nil:
		return fwk.AsStatus(fmt.Errorf("failed to parse pod: %w", parseErr)), nil
	case skip:
		return fwk.NewStatus(fwk.Skip), nil
	}
	s.byID()
	state.Write(affinityPreScoreKey, s)
	return nil, nil
}

// byID keys the score by value id at every key with a column in s.topo.
func (s *scoreState) byID() {
	s.keys = s.keys[:0]
	for key, values := range s.scores {
		k := scoreKey{key: key, col: s.topo.col(key)}
		if k.col >= 0 {
			ids := s.topo.ids[k.col]
			for v, n := range values {
				if id, ok := ids.id(v); ok {
					k.byID.add(id, n, ids.len())
				}
			}
		}
		s.keys = append(s.keys, k)
	}
}

// Score sums the topology score at the node's pairs, finding the node's
// values through the topology (its labels for a node or key it lacks).
func (c *InterPodAffinity) Score(d fwk.StateData, ni fwk.NodeInfo) (int64, *fwk.Status) {
	s, ok := d.(*scoreState)
	if !ok {
		return 0, fwk.AsStatus(fmt.Errorf("%q holds a %T", affinityPreScoreKey, d))
	}
	node := ni.Node()
	slot := s.topo.slotOf(node)
	var sum int64
	for i := range s.keys {
		k := &s.keys[i]
		if slot >= 0 && k.col >= 0 {
			if nv := s.topo.cols[k.col][slot]; nv.ok {
				sum += k.byID.get(nv.id)
			}
			continue
		}
		if v, ok := node.Labels[k.key]; ok {
			sum += s.scores[k.key][v]
		}
	}
	return sum, nil
}

// Normalize maps the scores linearly onto [0, MaxNodeScore], the lowest
// to 0, when the topology score is not empty.
func (c *InterPodAffinity) Normalize(state fwk.CycleState, scores fwk.NodeScoreList) *fwk.Status {
	s, err := readState[*scoreState](state, affinityPreScoreKey)
	if err != nil {
		return fwk.AsStatus(err)
	}
	if len(s.scores) == 0 || len(scores) == 0 {
		return nil
	}
	lo, hi := scores[0].Score, scores[0].Score
	for _, ns := range scores {
		lo, hi = min(lo, ns.Score), max(hi, ns.Score)
	}
	for i := range scores {
		f := 0.0
		if hi > lo {
			f = float64(fwk.MaxScore) * (float64(scores[i].Score-lo) / float64(hi-lo))
		}
		scores[i].Score = int64(f)
	}
	return nil
}
