package placed

import (
	"strconv"
	"strings"

	"github.com/RoaringBitmap/roaring/v2"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/affinityq/affinityq/index"
	"github.com/affinityq/affinityq/matcher"
)

type shapeKind uint8

const (
	// A term of placed pods, by the use InterPodAffinity makes of it when
	// the incoming pod matches it.
	placedAnti          shapeKind = iota + 1 // required anti-affinity (PreFilter)
	placedAffinity                           // required affinity (PreScore, hardPodAffinityWeight)
	placedPreferred                          // preferred affinity (PreScore, +weight)
	placedPreferredAnti                      // preferred anti-affinity (PreScore, -weight)

	// A question of an incoming pod.
	incomingAffinity // its required affinity terms, together
	incomingTerm     // one of its terms: a required anti-affinity term, a preferred term
	incomingSpread   // one of its DoNotSchedule spread constraints, counted per node
)

// shape is one question and its counts per topology pair (package doc): how
// many placed pods carry the term (placed shapes) or match the terms
// (incoming shapes) at each pair. It is indexed, in placedIx or incomingIx,
// as a pod whose only terms are the shape's: one anti-affinity term, or
// the affinity terms of an incomingAffinity shape.
type shape struct {
	kind   shapeKind
	weight int32 // placedPreferred, placedPreferredAnti: the term's weight
	key    string
	uid    types.UID      // the shape's pod in its index
	terms  []matcher.Term // compiled, as the shape's pod compiles them
	counts Counts
	// nodeCounts (incomingSpread) counts the pods matching the constraint
	// per node, leaving out terminating pods, as PodTopologySpread does; a
	// constraint whose selector is {} counts none (its selector is Empty).
	// counts holds the same pods per pair of the constraint's key, for
	// answers whose nodes are all those carrying it.
	nodeCounts map[string]int64
	refs       int    // placed shapes: its terms in the placed pods' term sets
	used       uint64 // incoming shapes: the clock of the last question asked of it
	// Incoming shapes: their neighbours in the index's recency list.
	newer, older *shape
}

// countNode adds d for the pod p, which matches the spread shape s, at its
// node, of labels node.
func (s *shape) countNode(p *placedPod, node map[string]string, d int64) {
	if p.pod.DeletionTimestamp != nil || s.terms[0].Selector.Everything() {
		return
	}
	if n := s.nodeCounts[p.node] + d; n != 0 {
		s.nodeCounts[p.node] = n
	} else {
		delete(s.nodeCounts, p.node)
	}
	s.apply(node, d)
}

// matchedBy reports whether a pod whose matched terms of the shape's pod
// are set counts in the shape: it matches every affinity term, or the
// anti-affinity term.
func (s *shape) matchedBy(set index.TermSet) bool {
	for i := range s.terms {
		if !set.Has(i) {
			return false
		}
	}
	return true
}

// apply adds d times the contribution of one pod matching the shape on a
// node of labels node to its counts.
func (s *shape) apply(node map[string]string, d int64) { s.addTo(s.counts, node, d) }

// addTo adds d times the contribution of one pod matching the shape on a
// node of labels node to c: d at each term's pair.
func (s *shape) addTo(c Counts, node map[string]string, d int64) {
	for i := range s.terms {
		c.add(s.terms[i].TopologyKey, node, d)
	}
}

// shapeKey returns the key of a shape of kind over compiled terms: their
// topology keys, selectors and namespace scopes, which decide which pods
// match them and where they count.
func shapeKey(kind shapeKind, weight int32, terms []matcher.Term) string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(int(kind)))
	b.WriteString("/")
	b.WriteString(strconv.Itoa(int(weight)))
	for i := range terms {
		t := &terms[i]
		b.WriteString("\x00")
		b.WriteString(t.TopologyKey)
		b.WriteString("\x01")
		b.WriteString(t.Selector.String())
		b.WriteString("\x01")
		b.WriteString(strings.Join(t.Scope.Names(), "\x02"))
		b.WriteString("\x01")
		b.WriteString(t.Scope.Selector().String())
	}
	return b.String()
}

// shapePod returns the pod a shape is indexed as: the namespace and labels
// of the pod whose terms it holds (a spread constraint's matchLabelKeys
// read them, and a term without namespaces is of its pod's namespace) and
// the terms: required affinity terms, anti-affinity terms and DoNotSchedule
// spread constraints.
func (x *Index) shapePod(from *v1.Pod, affinity, anti []v1.PodAffinityTerm, spread []v1.TopologySpreadConstraint) *v1.Pod {
	x.lastUID++
	uid := "shape-" + strconv.FormatUint(x.lastUID, 10)
	p := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: uid, Namespace: from.Namespace, UID: types.UID(uid), Labels: from.Labels},
		Spec:       v1.PodSpec{Affinity: &v1.Affinity{}, TopologySpreadConstraints: spread},
	}
	if len(affinity) > 0 {
		p.Spec.Affinity.PodAffinity = &v1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: affinity}
	}
	if len(anti) > 0 {
		p.Spec.Affinity.PodAntiAffinity = &v1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: anti}
	}
	return p
}

// insert indexes s as the pod sp.
func insert(ix *index.Index[*shape], s *shape, sp *v1.Pod) {
	pe, _ := ix.Compile(sp) // the terms compiled once already
	ix.InsertWithTag(pe, s)
	s.uid = sp.UID
}

// placedShape returns the shape of kind of a term of the placed pod pod,
// compiled as t, whose spec is src, making it if new.
func (x *Index) placedShape(pod *v1.Pod, kind shapeKind, t *matcher.Term, src v1.PodAffinityTerm) *shape {
	terms := []matcher.Term{*t}
	key := shapeKey(kind, t.Weight, terms)
	if s, ok := x.placedShapes[key]; ok {
		return s
	}
	s := &shape{kind: kind, weight: t.Weight, key: key, terms: terms, counts: Counts{}}
	insert(x.placedIx, s, x.shapePod(pod, nil, []v1.PodAffinityTerm{src}, nil))
	x.placedShapes[key] = s
	return s
}

// incomingShape returns the shape of kind of the incoming pod pod,
// compiled as terms from the specs given (its required affinity terms for
// incomingAffinity; one term for incomingTerm; one DoNotSchedule spread
// constraint for incomingSpread), building it from the postings if new,
// and marks it used by the current question.
func (x *Index) incomingShape(pod *v1.Pod, kind shapeKind, terms []matcher.Term,
	affinity, anti []v1.PodAffinityTerm, spread []v1.TopologySpreadConstraint) *shape {
	key := shapeKey(kind, 0, terms)
	s, ok := x.incomingShapes[key]
	if !ok {
		x.makeRoom()
		s = &shape{kind: kind, key: key, terms: terms, counts: Counts{}}
		if kind == incomingSpread {
			s.nodeCounts = map[string]int64{}
		}
		insert(x.incomingIx, s, x.shapePod(pod, affinity, anti, spread))
		x.build(s)
		x.incomingShapes[key] = s
	} else {
		x.recent.unlink(s)
	}
	x.recent.pushNewest(s)
	s.used = x.clock
	return s
}

// build counts the placed pods matching a new incoming shape: the
// candidates of its first term's postings, each checked against every term.
func (x *Index) build(s *shape) {
	t := &s.terms[0]
	cands := roaring.New()
	for ns := range x.byNS {
		if !t.Scope.Contains(ns, x.nsLabels(ns)) {
			continue
		}
		pos := t.Selector.Positive()
		switch {
		case len(pos) == 0:
			cands.Or(x.byNS[ns])
		case pos[0].Operator() == matcher.Exists:
			if b := x.postings[postKey{ns: ns, key: pos[0].Key(), exists: true}]; b != nil {
				cands.Or(b)
			}
		default:
			for _, v := range pos[0].Values() {
				if b := x.postings[postKey{ns: ns, key: pos[0].Key(), value: v}]; b != nil {
					cands.Or(b)
				}
			}
		}
	}
	// Count the matching pods per node, then add each node's count at its
	// pairs once: a map update per node, not per pod.
	perNode := map[*node]int64{}
	spread := s.kind == incomingSpread
	if spread && s.terms[0].Selector.Everything() {
		return // a {} spread selector counts no pod
	}
	it := cands.Iterator()
	for it.HasNext() {
		p := x.byID[it.Next()]
		if !p.rec.known || spread && p.pod.DeletionTimestamp != nil ||
			!x.incomingMatch(s.terms, p.pod) {
			continue
		}
		perNode[p.rec]++
	}
	for rec, n := range perNode {
		if spread {
			s.nodeCounts[rec.name] += n
		}
		s.apply(rec.labels, n)
	}
}

// makeRoom drops the least recently asked incoming shapes, never one the
// current question used, until a new one fits within the bound. The
// oldest of the recency list is the one to drop, found without a pass
// over the shapes, which would cost the bound's shapes per question in a
// stream of pods with terms of their own (each a new shape once the bound
// is reached). Room is made before the new shape is added, so that the
// shapes never pass the bound but in a question with more shapes than it:
// at the default bound, 4,096, the postings of the shapes' index holding
// every shape would otherwise change container at each new shape, from
// roaring's array to its bitmap and back (BenchmarkUniqueTerms). A
// question's shapes beyond the bound are dropped when a later question
// makes room.
func (x *Index) makeRoom() {
	for len(x.incomingShapes) >= x.opts.maxShapes {
		old := x.recent.oldest
		if old == nil || old.used == x.clock { // every shape is the current question's
			return
		}
		x.dropIncoming(old)
	}
}

func (x *Index) dropIncoming(s *shape) {
	x.incomingIx.Remove(s.uid)
	delete(x.incomingShapes, s.key)
	x.recent.unlink(s)
}

// recency lists the incoming shapes from the most to the least recently
// asked, through their newer and older links, so that the one to evict
// and the move of an asked shape to the front cost O(1).
type recency struct {
	newest, oldest *shape
}

// pushNewest puts s, in no list, at the front.
func (r *recency) pushNewest(s *shape) {
	s.newer, s.older = nil, r.newest
	if r.newest != nil {
		r.newest.newer = s
	} else {
		r.oldest = s
	}
	r.newest = s
}

// unlink takes s out of the list.
func (r *recency) unlink(s *shape) {
	if s.newer != nil {
		s.newer.older = s.older
	} else {
		r.newest = s.older
	}
	if s.older != nil {
		s.older.newer = s.newer
	} else {
		r.oldest = s.newer
	}
	s.newer, s.older = nil, nil
}

// NamespaceChanged tells the index that the labels of namespace ns changed:
// the incoming shapes whose namespace selectors read them are dropped, to be
// built again when asked. (Placed pods' terms read the incoming pod's
// namespace labels when asked, and need nothing.)
func (x *Index) NamespaceChanged(ns string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, s := range x.incomingShapes {
		for i := range s.terms {
			if s.terms[i].Scope.ByLabels() {
				x.dropIncoming(s)
				break
			}
		}
	}
}

// ownTerm is a term of a placed pod that compiled, with the use
// InterPodAffinity makes of it and its spec.
type ownTerm struct {
	kind shapeKind
	term *matcher.Term
	src  v1.PodAffinityTerm
}

// ownTerms returns the terms of a placed pod that count in
// InterPodAffinity when an incoming pod matches them. As kube-scheduler's
// PodInfo of a placed pod, a list of terms (required affinity, required
// anti-affinity, preferred affinity, preferred anti-affinity) with a term
// that fails to compile counts as no terms at all.
func ownTerms(pod *v1.Pod) []ownTerm {
	a := pod.Spec.Affinity
	if a == nil {
		return nil
	}
	terms, _ := matcher.CompileTerms(pod)
	var own []ownTerm
	add := func(kind shapeKind, compiled []matcher.Term, src func(i int) v1.PodAffinityTerm) {
		for i := range compiled {
			if compiled[i].Err() != nil {
				return
			}
		}
		for i := range compiled {
			own = append(own, ownTerm{kind, &compiled[i], src(i)})
		}
	}
	if a.PodAntiAffinity != nil {
		add(placedAnti, terms.AntiAffinity, func(i int) v1.PodAffinityTerm {
			return a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution[i]
		})
	}
	if a.PodAffinity != nil {
		add(placedAffinity, terms.Affinity, func(i int) v1.PodAffinityTerm { return a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution[i] })
		add(placedPreferred, terms.PreferredAffinity, func(i int) v1.PodAffinityTerm {
			return a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution[i].PodAffinityTerm
		})
	}
	if a.PodAntiAffinity != nil {
		add(placedPreferredAnti, terms.PreferredAntiAffinity, func(i int) v1.PodAffinityTerm {
			return a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution[i].PodAffinityTerm
		})
	}
	return own
}
