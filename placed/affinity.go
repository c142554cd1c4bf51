package placed

import (
	"errors"
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"

	"github.com/affinityq/affinityq/matcher"
)

// AffinityCounts is what InterPodAffinity's PreFilter counts for an
// incoming pod (package doc).
type AffinityCounts struct {
	ExistingAntiAffinity Counts
	Affinity             Counts
	AntiAffinity         Counts
}

// A Tally receives counts at topology pairs, so that a caller can keep
// them in the form it reads them in; Counts is one.
type Tally interface {
	// Add adds n, never 0, at (key, value).
	Add(key, value string, n int64)
}

// AffinityTallies receive the three counts of InterPodAffinity's
// PreFilter, AffinityCounts's fields.
type AffinityTallies struct {
	ExistingAntiAffinity Tally
	Affinity             Tally
	AntiAffinity         Tally
}

// InterPodAffinity returns the counts of InterPodAffinity's PreFilter for
// pod (package doc). The maps are the caller's. A pod whose required
// affinity or anti-affinity terms do not compile is an error, as
// kube-scheduler's PreFilter fails it.
func (x *Index) InterPodAffinity(pod *v1.Pod) (AffinityCounts, error) {
	res := AffinityCounts{ExistingAntiAffinity: Counts{}, Affinity: Counts{}, AntiAffinity: Counts{}}
	dst := [...]*Counts{existingAntiCount: &res.ExistingAntiAffinity, affinityCount: &res.Affinity, antiCount: &res.AntiAffinity}
	if err := x.affinityShapes(pod, func(c int, s *shape) { dst[c].merge(s.counts) }); err != nil {
		return AffinityCounts{}, err
	}
	return res, nil
}

// InterPodAffinityTo adds the counts InterPodAffinity returns to t, pair
// by pair, under the index's lock: no map is built for them. On an error
// (InterPodAffinity's) nothing was added.
func (x *Index) InterPodAffinityTo(t AffinityTallies, pod *v1.Pod) error {
	dst := [...]Tally{existingAntiCount: t.ExistingAntiAffinity, affinityCount: t.Affinity, antiCount: t.AntiAffinity}
	return x.affinityShapes(pod, func(c int, s *shape) {
		for p, n := range s.counts {
			dst[c].Add(p.Key, p.Value, n)
		}
	})
}

// The counts of InterPodAffinity's PreFilter, as affinityShapes names them.
const (
	existingAntiCount = iota
	affinityCount
	antiCount
)

// affinityShapes calls add, under the lock, for each shape whose counts
// make one of InterPodAffinity's counts for pod, with the count it makes:
// existingAntiCount, affinityCount or antiCount.
func (x *Index) affinityShapes(pod *v1.Pod, add func(count int, s *shape)) error {
	if pod == nil {
		return errors.New("placed: nil pod")
	}
	terms, err := compileIncoming(pod)
	if err != nil {
		return err
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	x.clock++
	x.matches = x.placedIx.Matching(x.matches[:0], pod)
	for _, m := range x.matches {
		if m.Tag.kind == placedAnti {
			add(existingAntiCount, m.Tag)
		}
	}
	clear(x.matches)
	if len(terms.Affinity) > 0 {
		add(affinityCount, x.incomingShape(pod, incomingAffinity, terms.Affinity, pod.Spec.Affinity.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution, nil, nil))
	}
	for i := range terms.AntiAffinity {
		src := pod.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution[i : i+1]
		add(antiCount, x.incomingShape(pod, incomingTerm, terms.AntiAffinity[i:i+1], nil, src, nil))
	}
	return nil
}

// AffinityChange applies to c the change that pod, on node, makes to the
// InterPodAffinity counts of the incoming pod in when it is placed (d = 1)
// or removed (d = -1), without reading or changing the index: the
// per-cycle overlay (nominated pods; preemption's AddPod and RemovePod on a
// cycle's copy of the counts), as kube-scheduler's updateWithPod applies it
// to a cloned PreFilter state. c's maps must be non-nil (InterPodAffinity
// returns such). A pod on a nil node changes nothing.
func (x *Index) AffinityChange(c AffinityCounts, in, pod *v1.Pod, node *v1.Node, d int64) error {
	return x.AffinityChangeTo(AffinityTallies{c.ExistingAntiAffinity, c.Affinity, c.AntiAffinity}, in, pod, node, d)
}

// AffinityChangeTo is AffinityChange adding to tallies; every one of t's
// must be non-nil.
func (x *Index) AffinityChangeTo(t AffinityTallies, in, pod *v1.Pod, node *v1.Node, d int64) error {
	if in == nil || pod == nil {
		return errors.New("placed: nil pod")
	}
	incoming, err := compileIncoming(in)
	if err != nil {
		return err
	}
	if node == nil {
		return nil
	}
	inNS := x.nsLabels(in.Namespace)
	for _, o := range ownTerms(pod) {
		if o.kind == placedAnti && o.term.Matches(in.Namespace, in.Labels, inNS) {
			addAt(t.ExistingAntiAffinity, o.term.TopologyKey, node.Labels, d)
		}
	}
	if len(incoming.Affinity) > 0 && x.incomingMatch(incoming.Affinity, pod) {
		for i := range incoming.Affinity {
			addAt(t.Affinity, incoming.Affinity[i].TopologyKey, node.Labels, d)
		}
	}
	for i := range incoming.AntiAffinity {
		if term := incoming.AntiAffinity[i : i+1]; x.incomingMatch(term, pod) {
			addAt(t.AntiAffinity, term[0].TopologyKey, node.Labels, d)
		}
	}
	return nil
}

// compileIncoming compiles an incoming pod's terms. A term of its
// affinity, required or preferred, that fails to compile is an error, as
// kube-scheduler's PreFilter and PreScore fail a pod whose PodInfo does not
// parse.
func compileIncoming(pod *v1.Pod) (*matcher.Terms, error) {
	terms, _ := matcher.CompileTerms(pod)
	for _, list := range [][]matcher.Term{terms.Affinity, terms.AntiAffinity, terms.PreferredAffinity, terms.PreferredAntiAffinity} {
		for i := range list {
			if err := list[i].Err(); err != nil {
				return nil, fmt.Errorf("placed: pod %s/%s: %w", pod.Namespace, pod.Name, err)
			}
		}
	}
	return terms, nil
}

// Scores is InterPodAffinity's PreScore topology score: by topology key and
// value, the weighted sum of the terms counted there. A pair where terms
// counted and cancelled out is present with 0, as in kube-scheduler's map.
type Scores map[string]map[string]int64

// at returns the map of key, making it with room for n values.
func (s Scores) at(key string, n int) map[string]int64 {
	m := s[key]
	if m == nil {
		m = make(map[string]int64, n)
		s[key] = m
	}
	return m
}

// scoreSink sums the weighted counts of shapes into Scores: every pair, or
// only the pairs whose values the scored nodes carry, which is all that
// Score reads.
type scoreSink struct {
	scores  Scores
	counted bool // a shape counted a pair, whether on the nodes or not
	all     bool
	// values returns the distinct values the scored nodes carry for a
	// key, each once; byKey keeps them, with their set once needed.
	values func(key string) []string
	byKey  map[string]*nodeValues
}

// nodeValues are the distinct values the sink's nodes carry for one key.
type nodeValues struct {
	list []string
	set  map[string]struct{} // built when a shape's pairs are the fewer
}

func (k *scoreSink) add(s *shape, weight int64) {
	if len(s.counts) == 0 {
		return
	}
	k.counted = true
	if k.all {
		// A shape's pairs are mostly of one key: find its map once per
		// run of it.
		var key string
		var m map[string]int64
		for p, n := range s.counts {
			if m == nil || p.Key != key {
				key, m = p.Key, k.scores.at(p.Key, len(s.counts))
			}
			m[p.Value] += weight * n
		}
		return
	}
	for i := range s.terms {
		key := s.terms[i].TopologyKey
		if slices.ContainsFunc(s.terms[:i], func(t matcher.Term) bool { return t.TopologyKey == key }) {
			continue
		}
		vals := k.valuesOf(key)
		if len(vals.list) == 0 {
			continue
		}
		m := k.scores.at(key, len(vals.list))
		// Walk whichever side is smaller: the shape's pairs or the nodes'.
		if len(s.counts) < len(vals.list) {
			if vals.set == nil {
				vals.set = make(map[string]struct{}, len(vals.list))
				for _, v := range vals.list {
					vals.set[v] = struct{}{}
				}
			}
			for p, n := range s.counts {
				if _, ok := vals.set[p.Value]; ok && p.Key == key {
					m[p.Value] += weight * n
				}
			}
		} else {
			for _, v := range vals.list {
				if n, ok := s.counts[Pair{Key: key, Value: v}]; ok {
					m[v] += weight * n
				}
			}
		}
		if len(m) == 0 {
			delete(k.scores, key)
		}
	}
}

func (k *scoreSink) valuesOf(key string) *nodeValues {
	if vals, ok := k.byKey[key]; ok {
		return vals
	}
	vals := &nodeValues{list: k.values(key)}
	if k.byKey == nil {
		k.byKey = map[string]*nodeValues{}
	}
	k.byKey[key] = vals
	return vals
}

// labelValues returns the distinct values nodes carry for key, read from
// their labels.
func labelValues(nodes []*v1.Node) func(key string) []string {
	return func(key string) []string {
		var list []string
		seen := make(map[string]struct{}, len(nodes))
		for _, n := range nodes {
			if v, ok := n.Labels[key]; ok {
				if _, dup := seen[v]; !dup {
					seen[v] = struct{}{}
					list = append(list, v)
				}
			}
		}
		return list
	}
}

// ScoreArgs are the InterPodAffinity arguments PreScore reads.
type ScoreArgs struct {
	HardPodAffinityWeight              int32
	IgnorePreferredTermsOfExistingPods bool
}

// InterPodAffinityScores returns the topology score of InterPodAffinity's
// PreScore for pod (scoring.go): the incoming pod's preferred affinity
// (+weight) and anti-affinity (-weight) terms over the placed pods they
// match, and the placed pods' required affinity terms
// (+HardPodAffinityWeight, when positive) and preferred affinity (+weight)
// and anti-affinity (-weight) terms that the incoming pod matches, each at
// the term's key and the value on the placed pod's node. skip is
// kube-scheduler's Skip: when no pair is counted, or when the pod has no
// preferred terms and args ignore the placed pods' preferred terms.
func (x *Index) InterPodAffinityScores(pod *v1.Pod, args ScoreArgs) (scores Scores, skip bool, err error) {
	return x.interPodAffinityScores(pod, args, &scoreSink{all: true})
}

// InterPodAffinityScoresFor is InterPodAffinityScores with the score kept
// only at the pairs the nodes carry: what Score reads when PreScore is
// given those nodes, built in time that follows them rather than every
// domain with a count. skip is InterPodAffinityScores's, decided by every
// pair counted, on these nodes or not.
func (x *Index) InterPodAffinityScoresFor(pod *v1.Pod, args ScoreArgs, nodes []*v1.Node) (scores Scores, skip bool, err error) {
	return x.interPodAffinityScores(pod, args, &scoreSink{values: labelValues(nodes)})
}

// InterPodAffinityScoresAt is InterPodAffinityScoresFor with the scored
// nodes given by their values: values(key) returns the distinct values
// they carry for key, each once (none for a key none carries). It is
// called under the index's lock, at most once per key, and must not call
// the index. A caller that keeps its nodes' values apart from their label
// maps (a table by node) answers without reading them.
func (x *Index) InterPodAffinityScoresAt(pod *v1.Pod, args ScoreArgs, values func(key string) []string) (scores Scores, skip bool, err error) {
	return x.interPodAffinityScores(pod, args, &scoreSink{values: values})
}

func (x *Index) interPodAffinityScores(pod *v1.Pod, args ScoreArgs, sink *scoreSink) (Scores, bool, error) {
	if pod == nil {
		return nil, false, errors.New("placed: nil pod")
	}
	a := pod.Spec.Affinity
	hasPreferred := a != nil && (a.PodAffinity != nil && len(a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution) > 0 ||
		a.PodAntiAffinity != nil && len(a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution) > 0)
	if args.IgnorePreferredTermsOfExistingPods && !hasPreferred {
		return nil, true, nil
	}
	terms, err := compileIncoming(pod)
	if err != nil {
		return nil, false, err
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	x.clock++
	sink.scores = Scores{}
	for i := range terms.PreferredAffinity {
		src := []v1.PodAffinityTerm{a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution[i].PodAffinityTerm}
		sink.add(x.incomingShape(pod, incomingTerm, terms.PreferredAffinity[i:i+1], nil, src, nil), int64(terms.PreferredAffinity[i].Weight))
	}
	for i := range terms.PreferredAntiAffinity {
		src := []v1.PodAffinityTerm{a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution[i].PodAffinityTerm}
		sink.add(x.incomingShape(pod, incomingTerm, terms.PreferredAntiAffinity[i:i+1], nil, src, nil), -int64(terms.PreferredAntiAffinity[i].Weight))
	}
	x.matches = x.placedIx.Matching(x.matches[:0], pod)
	for _, m := range x.matches {
		switch s := m.Tag; s.kind {
		case placedAffinity:
			if args.HardPodAffinityWeight > 0 {
				sink.add(s, int64(args.HardPodAffinityWeight))
			}
		case placedPreferred:
			sink.add(s, int64(s.weight))
		case placedPreferredAnti:
			sink.add(s, -int64(s.weight))
		}
	}
	clear(x.matches)
	return sink.scores, !sink.counted, nil
}
