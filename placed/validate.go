package placed

import (
	"fmt"
	"maps"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/affinityq/affinityq/matcher"
)

// Stats describes what an Index holds.
type Stats struct {
	Pods, Nodes    int
	PlacedShapes   int // distinct terms of placed pods (and their uses)
	IncomingShapes int // incoming pods' questions kept (at most WithMaxShapes)
	// Pairs counts the topology pairs with a count over all shapes;
	// ShapeBytes estimates the memory the shapes hold (their counts, terms
	// and entries in the two term indexes).
	Pairs      int
	ShapeBytes int64
}

// Bytes a shape holds besides its pairs, and per pair (a map entry of two
// strings and a count, with the map's overhead): estimates.
const shapeBytes, pairBytes = 600, 64

// Stats returns what the index holds.
func (x *Index) Stats() Stats {
	x.mu.Lock()
	defer x.mu.Unlock()
	st := Stats{Pods: len(x.pods), PlacedShapes: len(x.placedShapes), IncomingShapes: len(x.incomingShapes)}
	for _, n := range x.nodes {
		if n.known {
			st.Nodes++
		}
	}
	for _, m := range []map[string]*shape{x.placedShapes, x.incomingShapes} {
		for _, s := range m {
			st.Pairs += len(s.counts)
		}
	}
	st.ShapeBytes = int64(st.PlacedShapes+st.IncomingShapes)*shapeBytes + int64(st.Pairs)*pairBytes
	return st
}

// Validate checks every invariant of the index, rebuilding what it derives
// from the placed pods and nodes and comparing: the ids, the label
// postings, the nodes' pods, the placed pods' shapes and their counts, and
// every incoming shape's counts against a recount over all placed pods. It
// returns the first difference.
func (x *Index) Validate() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if err := x.placedIx.Validate(); err != nil {
		return fmt.Errorf("placed: placed shapes' index: %w", err)
	}
	if err := x.incomingIx.Validate(); err != nil {
		return fmt.Errorf("placed: incoming shapes' index: %w", err)
	}
	live := 0
	for id, p := range x.byID {
		if p == nil {
			continue
		}
		live++
		if p.id != uint32(id) || x.pods[p.pod.UID] != p {
			return fmt.Errorf("placed: pod %s: id %d, listed at %d", p.pod.UID, p.id, id)
		}
		if _, ok := x.nodes[p.node].pods[p]; !ok {
			return fmt.Errorf("placed: pod %s missing from node %q", p.pod.UID, p.node)
		}
	}
	if live != len(x.pods) || live+len(x.free) != len(x.byID) {
		return fmt.Errorf("placed: %d pods, %d live ids, %d free of %d", len(x.pods), live, len(x.free), len(x.byID))
	}
	domains := map[string]map[string]int{}
	for _, n := range x.nodes {
		if !n.known {
			continue
		}
		for k, v := range n.labels {
			if domains[k] == nil {
				domains[k] = map[string]int{}
			}
			domains[k][v]++
		}
	}
	if !maps.EqualFunc(domains, x.domains, maps.Equal) {
		return fmt.Errorf("placed: domains %v, recount %v", x.domains, domains)
	}
	tainted := map[string]*node{}
	for name, n := range x.nodes {
		if n.known && len(n.obj.Spec.Taints) > 0 {
			tainted[name] = n
		}
	}
	if !maps.Equal(tainted, x.tainted) {
		return fmt.Errorf("placed: %d tainted nodes listed, %d known with taints", len(x.tainted), len(tainted))
	}
	nodePods := 0
	for name, n := range x.nodes {
		if !n.known && len(n.pods) == 0 {
			return fmt.Errorf("placed: unknown node %q kept without pods", name)
		}
		nodePods += len(n.pods)
	}
	if nodePods != live {
		return fmt.Errorf("placed: nodes list %d pods, %d placed", nodePods, live)
	}
	byNS, postings := map[string]*roaring.Bitmap{}, map[postKey]*roaring.Bitmap{}
	posting := func(m map[postKey]*roaring.Bitmap, k postKey) *roaring.Bitmap {
		if m[k] == nil {
			m[k] = roaring.New()
		}
		return m[k]
	}
	for _, p := range x.pods {
		if byNS[p.pod.Namespace] == nil {
			byNS[p.pod.Namespace] = roaring.New()
		}
		byNS[p.pod.Namespace].Add(p.id)
		for k, v := range p.pod.Labels {
			posting(postings, postKey{ns: p.pod.Namespace, key: k, value: v}).Add(p.id)
			posting(postings, postKey{ns: p.pod.Namespace, key: k, exists: true}).Add(p.id)
		}
	}
	same := func(a, b *roaring.Bitmap) bool { return a.Equals(b) }
	if !maps.EqualFunc(byNS, x.byNS, same) || !maps.EqualFunc(postings, x.postings, same) {
		return fmt.Errorf("placed: label postings differ from a rebuild")
	}
	// Placed shapes: each placed pod's terms, their sets, refs and counts.
	refs, counts := map[*shape]int{}, map[*shape]Counts{}
	setRefs := map[*ownSet]int{}
	for _, p := range x.pods {
		a := p.pod.Spec.Affinity
		if a == nil || a.PodAffinity == nil && a.PodAntiAffinity == nil {
			if p.own != nil {
				return fmt.Errorf("placed: pod %s without pod affinity holds a term set", p.pod.UID)
			}
			continue
		}
		if key := string(specKey(nil, p.pod)); p.own == nil || p.own.key != key || x.ownSets[key] != p.own {
			return fmt.Errorf("placed: pod %s does not hold its spec's term set", p.pod.UID)
		}
		var want []string
		for _, t := range ownTerms(p.pod) {
			want = append(want, shapeKey(t.kind, t.term.Weight, []matcher.Term{*t.term}))
		}
		if len(want) != len(p.own.shapes) {
			return fmt.Errorf("placed: pod %s has %d shapes of its own, want %d", p.pod.UID, len(p.own.shapes), len(want))
		}
		if setRefs[p.own]++; setRefs[p.own] == 1 {
			for _, s := range p.own.shapes {
				refs[s]++
			}
		}
		for i, s := range p.own.shapes {
			if s.key != want[i] || x.placedShapes[s.key] != s {
				return fmt.Errorf("placed: pod %s: shape %d is not its term's", p.pod.UID, i)
			}
			if counts[s] == nil {
				counts[s] = Counts{}
			}
			if n := x.nodes[p.node]; n.known {
				s.addTo(counts[s], n.labels, 1)
			}
		}
	}
	if len(setRefs) != len(x.ownSets) {
		return fmt.Errorf("placed: %d term sets, %d held by pods", len(x.ownSets), len(setRefs))
	}
	for o, n := range setRefs {
		if o.refs != n {
			return fmt.Errorf("placed: term set of %d shapes: %d refs, %d pods hold it", len(o.shapes), o.refs, n)
		}
	}
	for key, s := range x.placedShapes {
		if s.key != key || s.refs != refs[s] || s.refs == 0 {
			return fmt.Errorf("placed: placed shape %q: %d refs, %d term sets carry it", key, s.refs, refs[s])
		}
		if !maps.Equal(s.counts, counts[s]) {
			return fmt.Errorf("placed: placed shape %q counts %v, recount %v", key, s.counts, counts[s])
		}
	}
	// Incoming shapes: a recount over every placed pod.
	for key, s := range x.incomingShapes {
		if s.kind == incomingSpread {
			want := &shape{terms: s.terms, nodeCounts: map[string]int64{}, counts: Counts{}}
			for _, p := range x.pods {
				if n := x.nodes[p.node]; n.known && x.incomingMatch(s.terms, p.pod) {
					want.countNode(p, n.labels, 1)
				}
			}
			if s.key != key || !maps.Equal(s.counts, want.counts) || !maps.Equal(s.nodeCounts, want.nodeCounts) {
				return fmt.Errorf("placed: spread shape %q counts %v, %v per node; recount %v, %v", key, s.counts, s.nodeCounts, want.counts, want.nodeCounts)
			}
			continue
		}
		want := Counts{}
		for _, p := range x.pods {
			if n := x.nodes[p.node]; n.known && x.incomingMatch(s.terms, p.pod) {
				s.addTo(want, n.labels, 1)
			}
		}
		if s.key != key || !maps.Equal(s.counts, want) {
			return fmt.Errorf("placed: incoming shape %q counts %v, recount %v", key, s.counts, want)
		}
	}
	if n := x.placedIx.Len(); n != len(x.placedShapes) {
		return fmt.Errorf("placed: %d placed shapes, %d indexed", len(x.placedShapes), n)
	}
	if n := x.incomingIx.Len(); n != len(x.incomingShapes) {
		return fmt.Errorf("placed: %d incoming shapes, %d indexed", len(x.incomingShapes), n)
	}
	return x.checkRecency()
}

// checkRecency checks that the recency list holds every incoming shape
// once, linked both ways, the most recently asked first.
func (x *Index) checkRecency() error {
	n := 0
	var newer *shape
	for s := x.recent.newest; s != nil; newer, s = s, s.older {
		if n++; n > len(x.incomingShapes) {
			return fmt.Errorf("placed: recency list longer than the %d incoming shapes", len(x.incomingShapes))
		}
		if x.incomingShapes[s.key] != s {
			return fmt.Errorf("placed: recency list holds shape %q, not an incoming shape", s.key)
		}
		if s.newer != newer || newer != nil && newer.used < s.used {
			return fmt.Errorf("placed: recency list out of order at shape %q", s.key)
		}
	}
	if n != len(x.incomingShapes) || x.recent.oldest != newer {
		return fmt.Errorf("placed: recency list of %d shapes, %d incoming shapes", n, len(x.incomingShapes))
	}
	return nil
}
