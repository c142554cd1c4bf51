package index

import (
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/cespare/xxhash/v2"
	"github.com/google/btree"
	"k8s.io/apimachinery/pkg/types"

	"github.com/affinityq/affinityq/matcher"
)

// postKey names a posting list. In the term postings ns is a namespace the
// term is scoped to, or "" for a term whose scope has a namespace selector
// (checked when evaluating); key is the label key of the term's anchor
// requirement, or "" (never a valid label key) for a term without a positive
// requirement; val is the anchor's value for In, "" with exists set for
// Exists. The label postings use the same key for pending pods' own labels.
//
// The maps are keyed by the key's 64-bit hash rather than by the key: one
// short hash instead of three strings hashed per probe, and 8 bytes per
// entry instead of 56. Two keys with the same hash share one posting list,
// which only adds candidates: every candidate is evaluated exactly, so a
// collision can cost time, never a wrong answer.
type postKey struct {
	ns, key, val string
	exists       bool
}

// hash returns the map key of k, without allocating.
func (k postKey) hash() uint64 {
	h := mix(xxhash.Sum64String(k.ns), xxhash.Sum64String(k.key))
	if k.exists {
		return mix(h, 1)
	}
	return mix(h, xxhash.Sum64String(k.val))
}

// mix combines two hashes, order-dependently.
func mix(a, b uint64) uint64 {
	return (bits.RotateLeft64(a, 31) ^ b) * 0x9e3779b97f4a7c15
}

// keyUse counts the postings of shard.terms with one label key, so that a
// lookup skips, with one map probe, the labels no term is anchored at.
type keyUse struct{ in, exists int32 } // anchor entries with the key, by operator

// topoItem lists the pods with a required term on one topology key.
type topoItem struct {
	key               string
	aff, anti, spread posting
}

func topoLess(a, b *topoItem) bool { return a.key < b.key }

func (it *topoItem) empty() bool { return it.aff.len()+it.anti.len()+it.spread.len() == 0 }

// shard is a complete index of the pending pods placed in it (see
// Index.placement).
//
// Invariants (Validate checks them by rebuilding every derived structure
// from slots and comparing):
//   - byUID[p.pod.UID] == slot  ⇔  slots[slot] == p != nil; free holds exactly
//     the nil slots, once each.
//   - terms, labels, nsPods, errs, anti, nsSel and topo hold exactly what
//     indexPod derives from the live slots, and no empty posting.
type shard struct {
	mu sync.RWMutex // protects every field below; taken alone, never nested in another shard's

	byUID map[types.UID]uint32
	slots []*Pending
	free  []uint32
	rules map[uint64]*rules // interned rules by hash, chained through rules.next

	terms  map[uint64]*posting // required terms by anchor (reverse index), by postKey.hash
	use    map[string]keyUse   // how many terms postings each label key has ("" for the always-checked)
	wide   int                 // anchor entries with ns == "" (namespace-selector scopes)
	labels map[uint64]*posting // pending pods' own labels (forward index, for symmetry), by postKey.hash
	nsPods map[string]*posting // pending pods by namespace
	errs   posting             // pods with terms that failed to compile
	anti   posting             // pods with a required anti-affinity term
	nsSel  posting             // pods with a required term scoped by namespace labels
	topo   *btree.BTreeG[*topoItem]
	probe  topoItem // search key for topo.Get; used under mu held for writing

	// foreign counts the pods whose rules reach beyond their own namespace
	// (reachesOut; all of shard 0's when there are several shards). It is
	// written under mu and read without it: a lookup for an event in another
	// namespace skips a shard where it is zero.
	foreign atomic.Int32
}

func newShard() *shard {
	return &shard{
		byUID:  map[types.UID]uint32{},
		rules:  map[uint64]*rules{},
		terms:  map[uint64]*posting{},
		use:    map[string]keyUse{},
		labels: map[uint64]*posting{},
		nsPods: map[string]*posting{},
		topo:   btree.NewG(8, topoLess),
	}
}

// anchor picks the positive requirement a term is posted under: an In
// requirement before an Exists one (a value is more selective than a key),
// then the one with the fewest values, then the first by key. The choice is
// a function of the term alone, so removal finds the same postings.
// ok is false when the term has no positive requirement.
func anchor(sel matcher.Selector) (r matcher.Requirement, ok bool) {
	pos := sel.Positive()
	best := -1
	for i := range pos {
		if best < 0 || better(pos[i], pos[best]) {
			best = i
		}
	}
	if best < 0 {
		return matcher.Requirement{}, false
	}
	return pos[best], true
}

func better(a, b matcher.Requirement) bool {
	if (a.Operator() == matcher.In) != (b.Operator() == matcher.In) {
		return a.Operator() == matcher.In
	}
	return len(a.Values()) < len(b.Values())
}

// termNamespaces returns the namespaces a term is posted under: its listed
// names, or wide (post under "" only) when its scope has a namespace
// selector, checked when evaluating.
func termNamespaces(t *matcher.Term) (names []string, wide bool) {
	if !t.Scope.Selector().Nothing() {
		return nil, true
	}
	return t.Scope.Names(), false
}

// indexPod adds (add) or deletes every posting entry of p at slot. It is
// the one description of what the index derives from a pod: insertion,
// removal and Validate all go through it, and removal makes exactly the
// calls insertion made.
func (s *shard) indexPod(p *Pending, slot uint32, add bool, threshold int) {
	apply := func(ps *posting, x uint32) {
		if add {
			ps.add(x, threshold)
		} else {
			ps.remove(x, threshold)
		}
	}
	delta := int32(1)
	if !add {
		delta = -1
	}
	editIn := func(m map[uint64]*posting, k postKey) {
		h := k.hash()
		ps, ok := m[h]
		if !ok {
			ps = &posting{}
			m[h] = ps
		}
		apply(ps, slot)
		if ps.len() == 0 {
			delete(m, h)
		}
	}
	// editTerm is editIn on s.terms, keeping use and wide in step.
	// editTerm is editIn on s.terms, keeping use and wide in step. They
	// count anchor entries, not map entries, so that a hash collision
	// between two keys cannot hide either.
	editTerm := func(k postKey) {
		editIn(s.terms, k)
		u := s.use[k.key]
		if k.exists {
			u.exists += delta
		} else {
			u.in += delta
		}
		if u == (keyUse{}) {
			delete(s.use, k.key)
		} else {
			s.use[k.key] = u
		}
		if k.ns == "" {
			s.wide += int(delta)
		}
	}
	editTopo := func(t *matcher.Term) {
		s.probe.key = t.TopologyKey
		it, ok := s.topo.Get(&s.probe)
		if !ok {
			it = &topoItem{key: t.TopologyKey}
			s.topo.ReplaceOrInsert(it)
		}
		switch t.Kind {
		case matcher.Affinity:
			apply(&it.aff, slot)
		case matcher.AntiAffinity:
			apply(&it.anti, slot)
		default:
			apply(&it.spread, slot)
		}
		if it.empty() {
			s.topo.Delete(it)
		}
	}
	pod := p.pod
	byLabels := false
	for i := range p.terms {
		t := &p.terms[i]
		editTopo(t)
		// A namespace-label change flips the scope of such a term even when
		// its selector matches no pod; DESIGN.md's rule does not look at the
		// selector, and neither does the reference.
		byLabels = byLabels || t.Scope.ByLabels()
		if t.Err != nil || t.Selector.Nothing() {
			continue // matches no pod; an error is covered by errs
		}
		r, ok := anchor(t.Selector)
		post := func(ns string) {
			switch {
			case !ok:
				editTerm(postKey{ns: ns})
			case r.Operator() == matcher.Exists:
				editTerm(postKey{ns: ns, key: r.Key(), exists: true})
			default:
				for _, v := range r.Values() {
					editTerm(postKey{ns: ns, key: r.Key(), val: v})
				}
			}
		}
		names, wide := termNamespaces(t)
		if wide {
			post("")
		}
		for _, ns := range names {
			post(ns)
		}
	}
	for k, v := range pod.Labels {
		editIn(s.labels, postKey{ns: pod.Namespace, key: k, val: v})
		editIn(s.labels, postKey{ns: pod.Namespace, key: k, exists: true})
	}
	ps, ok := s.nsPods[pod.Namespace]
	if !ok {
		ps = &posting{}
		s.nsPods[pod.Namespace] = ps
	}
	apply(ps, slot)
	if ps.len() == 0 {
		delete(s.nsPods, pod.Namespace)
	}
	if p.flags != 0 {
		apply(&s.errs, slot)
	}
	if p.nAnti > 0 {
		apply(&s.anti, slot)
	}
	if byLabels {
		apply(&s.nsSel, slot)
	}
}

// insertLocked indexes p, replacing the pod of the same UID, and returns
// the Pending it keeps. s.mu must be held for writing.
func (s *shard) insertLocked(p *Pending, threshold int) *Pending {
	s.removeLocked(p.pod.UID, threshold)
	var slot uint32
	if n := len(s.free); n > 0 {
		slot = s.free[n-1]
		s.free = s.free[:n-1]
	} else {
		slot = uint32(len(s.slots))
		s.slots = append(s.slots, nil)
	}
	if p.internable() {
		p = &Pending{pod: p.pod, rules: s.intern(p.rules), err: p.err, tag: p.tag}
	}
	if p.reachesOut {
		s.foreign.Add(1)
	}
	s.slots[slot] = p
	s.byUID[p.pod.UID] = slot
	s.indexPod(p, slot, true, threshold)
	return p
}

// remove locks the shard and removes the pod with uid.
func (s *shard) remove(uid types.UID, threshold int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.removeLocked(uid, threshold)
}

// removeLocked removes the pod with uid; it reports whether it was there.
// s.mu must be held for writing.
func (s *shard) removeLocked(uid types.UID, threshold int) bool {
	slot, ok := s.byUID[uid]
	if !ok {
		return false
	}
	p := s.slots[slot]
	s.indexPod(p, slot, false, threshold)
	delete(s.byUID, uid)
	if p.refs > 0 {
		s.release(p.rules)
	}
	if p.reachesOut {
		s.foreign.Add(-1)
	}
	s.slots[slot] = nil
	s.free = append(s.free, slot)
	return true
}

// intern returns the shard's shared copy of rules equal to r, creating it
// from r when there is none, and counts one more reference to it.
func (s *shard) intern(r *rules) *rules {
	for x := s.rules[r.hash]; x != nil; x = x.next {
		if x.equal(r) {
			x.refs++
			return x
		}
	}
	shared := &rules{}
	*shared = *r
	shared.refs, shared.next = 1, s.rules[r.hash]
	s.rules[r.hash] = shared
	return shared
}

// release drops one reference to interned rules, forgetting them with the
// last.
func (s *shard) release(r *rules) {
	if r.refs--; r.refs > 0 {
		return
	}
	link := s.rules[r.hash]
	if link == r {
		if r.next == nil {
			delete(s.rules, r.hash)
		} else {
			s.rules[r.hash] = r.next
		}
		return
	}
	for ; link.next != r; link = link.next {
	}
	link.next = r.next
}

// lookup appends to dst the hits of e among the shard's pods, using *scratch
// for candidate slots.
func (s *shard) lookup(dst []Hit, e *prepared, scratch *[]uint32) []Hit {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if len(s.byUID) == 0 {
		return dst
	}
	c := s.candidates((*scratch)[:0], e)
	slices.Sort(c)
	c = slices.Compact(c)
	var memo resultCache
	for _, slot := range c {
		p := s.slots[slot]
		rel, tr, ok := memo.get(p.rules)
		if !ok {
			rel, tr = evaluate(p.rules, e)
			memo.put(p.rules, rel, tr)
		}
		if rel|tr != 0 {
			dst = append(dst, Hit{Pod: p.pod, Relation: rel, Transition: tr, Tag: p.tag})
		}
	}
	*scratch = c
	return dst
}

// resultCache remembers the last few evaluations of one lookup by rules, so
// that the replicas of a workload, which share their rules, are evaluated
// once.
type resultCache struct {
	keys [4]*rules
	rel  [4]RuleSet
	tr   [4]RuleSet
	next int
}

func (m *resultCache) get(r *rules) (rel, tr RuleSet, ok bool) {
	for i, k := range m.keys {
		if k == r {
			return m.rel[i], m.tr[i], true
		}
	}
	return 0, 0, false
}

func (m *resultCache) put(r *rules, rel, tr RuleSet) {
	m.keys[m.next], m.rel[m.next], m.tr[m.next] = r, rel, tr
	m.next = (m.next + 1) % len(m.keys)
}

// candidates appends the slots of every pod the event may affect: a
// superset of the hits, found through the postings without scanning.
func (s *shard) candidates(c []uint32, e *prepared) []uint32 {
	c = s.errs.appendTo(c)
	switch e.kind {
	case AssignedPodAdd, AssignedPodUpdate, AssignedPodDelete:
		if e.qn != nil {
			c = s.podCandidates(c, e.ns, e.qn.Labels, nil)
		}
		if e.qo != nil {
			var skip map[string]string
			if e.qn != nil {
				skip = e.qn.Labels // labels both versions carry were looked up already
			}
			c = s.podCandidates(c, e.ns, e.qo.Labels, skip)
		}
		c = s.symmetricCandidates(c, e, e.oldAnti)
		c = s.symmetricCandidates(c, e, e.newAnti)
	case NodeAdd, NodeUpdate, NodeDelete:
		c = s.nodeCandidates(c, e)
	case NamespaceUpdate:
		c = s.nsSel.appendTo(c)
	}
	return c
}

// podCandidates appends the pods with a term that an assigned pod in ns with
// labels may satisfy: terms anchored at one of its labels, and terms without
// a positive requirement. Labels whose value equals skip's are left out, and
// so are the always-checked terms when skip is set: the lookup for the other
// version of the pod has them already.
func (s *shard) podCandidates(c []uint32, ns string, labels, skip map[string]string) []uint32 {
	for k, v := range labels {
		u, ok := s.use[k]
		if !ok {
			continue
		}
		if sv, ok := skip[k]; ok && sv == v {
			continue
		}
		if u.in > 0 {
			c = s.appendTerms(c, postKey{ns: ns, key: k, val: v})
		}
		if u.exists > 0 {
			c = s.appendTerms(c, postKey{ns: ns, key: k, exists: true})
		}
	}
	if skip == nil && s.use[""].in > 0 {
		c = s.appendTerms(c, postKey{ns: ns})
	}
	return c
}

// appendTerms appends the terms posting k, and its selector-scoped
// counterpart with ns "" when there are such postings.
func (s *shard) appendTerms(c []uint32, k postKey) []uint32 {
	if ps, ok := s.terms[k.hash()]; ok {
		c = ps.appendTo(c)
	}
	if s.wide > 0 {
		k.ns = ""
		if ps, ok := s.terms[k.hash()]; ok {
			c = ps.appendTo(c)
		}
	}
	return c
}

// symmetricCandidates appends the pending pods an assigned pod's required
// anti-affinity terms may match, through the forward postings of pending
// pods' own labels.
func (s *shard) symmetricCandidates(c []uint32, e *prepared, anti []matcher.Term) []uint32 {
	for i := range anti {
		t := &anti[i]
		r, ok := anchor(t.Selector)
		each := func(c []uint32, ns string) []uint32 {
			switch {
			case !ok:
				if ps, found := s.nsPods[ns]; found {
					c = ps.appendTo(c)
				}
			case r.Operator() == matcher.Exists:
				if ps, found := s.labels[postKey{ns: ns, key: r.Key(), exists: true}.hash()]; found {
					c = ps.appendTo(c)
				}
			default:
				for _, v := range r.Values() {
					if ps, found := s.labels[postKey{ns: ns, key: r.Key(), val: v}.hash()]; found {
						c = ps.appendTo(c)
					}
				}
			}
			return c
		}
		if t.Scope.Selector().Nothing() {
			for _, ns := range t.Scope.Names() {
				c = each(c, ns)
			}
			continue
		}
		for ns := range s.nsPods {
			if t.Scope.Contains(ns, e.labelsOf(ns)) {
				c = each(c, ns)
			}
		}
	}
	return c
}

// nodeCandidates appends the pods with a term on a topology key the node
// event touches, and every pod with an anti-affinity term on a node add.
func (s *shard) nodeCandidates(c []uint32, e *prepared) []uint32 {
	if e.kind == NodeAdd {
		c = s.anti.appendTo(c)
	}
	s.topo.Ascend(func(it *topoItem) bool {
		ov, oldHas := e.oldNode[it.key]
		nv, newHas := e.newNode[it.key]
		switch e.kind {
		case NodeAdd:
			if newHas {
				c = it.aff.appendTo(c)
				c = it.spread.appendTo(c)
			}
		case NodeDelete:
			if oldHas {
				c = it.spread.appendTo(c)
			}
		case NodeUpdate:
			if oldHas != newHas || ov != nv {
				c = it.aff.appendTo(c)
				c = it.anti.appendTo(c)
				c = it.spread.appendTo(c)
			} else if e.taintsChanged && newHas {
				c = it.spread.appendTo(c)
			}
		}
		return true
	})
	return c
}
