package index

import (
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/cespare/xxhash/v2"
	"github.com/google/btree"

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

// hash returns the map key of k, without allocating. It is composed from
// the strings' own hashes (strHash) by postHash, so that callers hash a
// namespace, a key or a value once for all the postings that share it.
func (k postKey) hash() uint64 {
	var val uint64
	if !k.exists {
		val = strHash(k.val)
	}
	return postHash(strHash(k.ns), strHash(k.key), val, k.exists)
}

// strHash is the hash of one string of a postKey.
func strHash(s string) uint64 { return xxhash.Sum64String(s) }

// postHash composes postKey.hash from the hashes of the namespace, the key
// and the value (ignored when exists).
func postHash(ns, key, val uint64, exists bool) uint64 {
	h := mix(ns, key)
	if exists {
		return mix(h, 1)
	}
	return mix(h, val)
}

// emptyHash is strHash(""): the namespace of selector-scoped terms and the
// key of terms without a positive requirement.
var emptyHash = strHash("")

// mix combines two hashes, order-dependently.
func mix(a, b uint64) uint64 {
	return (bits.RotateLeft64(a, 31) ^ b) * 0x9e3779b97f4a7c15
}

// keyUse counts anchor entries of shard.terms by operator. A shard keeps
// them in a counting filter of keyBuckets buckets, by the strHash of the
// anchor's label key, so that a lookup skips, with one array read, the
// labels no term is anchored at. Keys that share a bucket add up, which
// only makes a lookup probe postings it could have skipped.
type keyUse struct{ in, exists int32 }

// keyBuckets is the size of a shard's counting filter of anchor keys (a
// power of two). Real pools anchor their terms at tens of label keys.
const keyBuckets = 1024

func bucket(keyHash uint64) uint64 { return keyHash & (keyBuckets - 1) }

// topoItem lists the pods with a required term on one topology key.
type topoItem struct {
	key               string
	aff, anti, spread posting
}

func topoLess(a, b *topoItem) bool { return a.key < b.key }

func (it *topoItem) empty() bool { return it.aff.empty() && it.anti.empty() && it.spread.empty() }

// shard is a complete index of the pending pods placed in it (see
// Index.placement). Its postings name groups (rules shared by pods, see
// rules), each by a dense uint32 id; a free list reuses the ids of dropped
// groups.
//
// Invariants (Validate checks them by rebuilding every derived structure
// from the groups and comparing):
//   - every member p of a live group g has p.rules == g and
//     g.members[p.at] == p; pods counts the members;
//   - groups[id] == g != nil  ⇔  g.owner == s, g.id == id and g has at
//     least one member; free holds exactly the nil ids, once each;
//   - sources maps the source hash of each live group's representative,
//     a member of it, to the group's id + 1 (source.go); a group without
//     one is not in sources; every member of a live group has the source
//     hash of its group's rules (src), unless they failed to compile;
//   - terms, use, wide, labels, nsPods, errs, anti, nsSel and topo hold
//     exactly what indexGroup derives from the live groups, and no empty
//     posting; foreign counts the live groups that reach out.
type shard struct {
	mu sync.RWMutex // protects every field below and the group fields of the rules it owns; taken alone, never nested in another shard's

	pods    int       // indexed pods (members of the live groups)
	groups  []*rules  // live groups by id; nil for free ids
	free    []uint32  // free group ids
	sources hashTable // group ids + 1 by their representative's source hash (source.go)

	terms  postingTable       // required terms by anchor (reverse index), by postKey.hash
	use    [keyBuckets]keyUse // anchor entries of terms by bucket of their key's strHash (emptyHash for the always-checked)
	wide   int                // anchor entries with ns == "" (namespace-selector scopes)
	labels postingTable       // pending pods' own labels (forward index, for symmetry), by postKey.hash
	nsPods nsPostings         // groups by namespace
	errs   posting            // groups with terms that failed to compile
	anti   posting            // groups with a required anti-affinity term
	nsSel  posting            // groups with a required term scoped by namespace labels
	topo   *btree.BTreeG[*topoItem]
	probe  topoItem // search key for topo.Get; used under mu held for writing

	// foreign counts the groups whose rules reach beyond their own
	// namespace (reachesOut; all of shard 0's when there are several
	// shards). It is written under mu and read without it: a lookup for an
	// event in another namespace skips a shard where it is zero.
	foreign atomic.Int32
}

func newShard() *shard {
	return &shard{
		nsPods: nsPostings{},
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

// indexGroup adds (add) or deletes every posting entry of the group g under
// id. It is the one description of what the index derives from a group's
// rules: group creation, group removal and Validate all go through it, and
// removal makes exactly the calls creation made.
func (s *shard) indexGroup(g *rules, id uint32, add bool, threshold int) {
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
	// editTerm is an edit of s.terms, keeping use and wide in step. They
	// count anchor entries, not map entries, so that a hash collision
	// between two keys cannot hide either.
	editTerm := func(ns, key, val uint64, exists, wide bool) {
		s.terms.edit(postHash(ns, key, val, exists), id, add, threshold)
		if u := &s.use[bucket(key)]; exists {
			u.exists += delta
		} else {
			u.in += delta
		}
		if wide {
			s.wide += int(delta)
		}
	}
	own := g.ns()
	ownHash := strHash(own)
	nsHash := func(ns string) uint64 {
		if ns == own {
			return ownHash
		}
		return strHash(ns)
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
			apply(&it.aff, id)
		case matcher.AntiAffinity:
			apply(&it.anti, id)
		default:
			apply(&it.spread, id)
		}
		if it.empty() {
			s.topo.Delete(it)
		}
	}
	byLabels := false
	for i := range g.terms {
		t := &g.terms[i]
		editTopo(t)
		// A namespace-label change flips the scope of such a term even when
		// its selector matches no pod; DESIGN.md's rule does not look at the
		// selector, and neither does the reference.
		byLabels = byLabels || t.Scope.ByLabels()
		if t.Err() != nil || t.Selector.Nothing() {
			continue // matches no pod; an error is covered by errs
		}
		r, ok := anchor(t.Selector)
		// The same keys as postKey{ns, key, val, exists}.hash(); a term
		// without a positive requirement has key and value "".
		key := strHash(r.Key())
		post := func(ns string) {
			nh := nsHash(ns)
			switch {
			case !ok:
				editTerm(nh, key, emptyHash, false, ns == "")
			case r.Operator() == matcher.Exists:
				editTerm(nh, key, 0, true, ns == "")
			default:
				for _, v := range r.Values() {
					editTerm(nh, key, strHash(v), false, ns == "")
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
	for k, v := range g.labels() {
		kh := strHash(k)
		s.labels.edit(postHash(ownHash, kh, strHash(v), false), id, add, threshold)
		s.labels.edit(postHash(ownHash, kh, 0, true), id, add, threshold)
	}
	s.nsPods.edit(own, id, add, threshold)
	if g.flags != 0 {
		apply(&s.errs, id)
	}
	if g.nAnti > 0 {
		apply(&s.anti, id)
	}
	if byLabels {
		apply(&s.nsSel, id)
	}
}

// insertLocked indexes p in place of old, the Pending of the same UID that
// s holds (nil if none), and returns the Pending it keeps, which carries
// tag. When owned, p and its rules were made by the caller for this call
// alone (Index.Add) and are kept as they are instead of copied. s.mu must
// be held for writing.
func (s *shard) insertLocked(p, old *Pending, owned bool, tag any, threshold int) *Pending {
	if old != nil {
		s.removeLocked(old, threshold)
	}
	if owned && p.rules.owner == nil {
		p.rules.owner = s // published to others only through the shard, under s.mu
	}
	g := s.groupFor(p, threshold)
	kept := p
	if !owned {
		kept = &Pending{pod: p.pod}
	}
	kept.tag = tag
	kept.rules, kept.at = g, uint32(len(g.members))
	g.members = append(g.members, kept)
	s.pods++
	s.remember(g, kept.at)
	return kept
}

// groupFor returns the live group p joins, creating it when there is none: p's rules when they are one of s's live
// groups (found by Index.Compile, or the rules of a pod indexed here), else
// the group remembered under p's source (a pod compiled elsewhere, or
// whose group is in another shard than its namespace's), else a new group.
// Rules that failed to compile are never shared: each such pod has a group
// of its own.
func (s *shard) groupFor(p *Pending, threshold int) *rules {
	// owner and src are immutable once the rules are published, so
	// reading them is safe even when the rules belong to another shard or
	// index; the group fields are only read when it is s.
	r := p.rules
	if !r.shareable() {
		return s.newGroup(r, 0, threshold)
	}
	if r.owner == s && len(r.members) > 0 {
		return r
	}
	src := r.src
	if src == 0 {
		src = sourceHash(p.pod, strHash(p.pod.Namespace)) // compiled by the package's Compile
	}
	if g := s.bySource(src); g != nil && g != r && sameSource(p.pod, g.representative().pod) {
		return g
	}
	return s.newGroup(r, src, threshold)
}

// newGroup makes a group of r, or of a copy of r when r is not s's to
// take: another shard's, or a live group (the failed rules of another pod).
func (s *shard) newGroup(r *rules, src uint64, threshold int) *rules {
	if r.owner != s || len(r.members) > 0 {
		c := &rules{}
		*c = *r
		c.owner, c.members, c.rep = s, nil, 0
		r = c
	}
	if r.src == 0 && src != 0 {
		r.src = src // rules compiled by the package's Compile, now s's alone
	}
	// r is now s's and has no members: a new group, or a dropped one that
	// comes back (its compiled fields are intact).
	if n := len(s.free); n > 0 {
		r.id = s.free[n-1]
		s.free = s.free[:n-1]
		s.groups[r.id] = r
	} else {
		r.id = uint32(len(s.groups))
		s.groups = append(s.groups, r)
	}
	if r.reachesOut {
		s.foreign.Add(1)
	}
	s.indexGroup(r, r.id, true, threshold)
	return r
}

// remove locks the shard and removes p, a Pending it keeps.
func (s *shard) remove(p *Pending, threshold int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.removeLocked(p, threshold)
}

// removeLocked removes p, a Pending the shard keeps. s.mu must be held for
// writing.
func (s *shard) removeLocked(p *Pending, threshold int) {
	s.pods--
	g := p.rules
	last := len(g.members) - 1
	m := g.members[last]
	wasRep := g.rep == p.at+1
	if m != p {
		g.members[p.at], m.at = m, p.at
		if g.rep == uint32(last)+1 {
			g.rep = p.at + 1 // the representative moved
		}
	}
	g.members[last] = nil
	g.members = g.members[:last]
	if wasRep {
		s.forget(g)
		if last > 0 {
			// Another replica represents the group, so that the next one
			// still finds it by its source.
			s.remember(g, 0)
		}
	}
	switch {
	case last == 0:
		s.dropGroup(g, threshold)
	case cap(g.members) > 64 && last < cap(g.members)/4:
		g.members = slices.Clip(slices.Clone(g.members))
	}
}

// dropGroup removes the group g, which has no members left, from every
// structure of the shard. g's compiled fields stay valid: Pendings that
// the embedder kept still evaluate with them.
func (s *shard) dropGroup(g *rules, threshold int) {
	s.indexGroup(g, g.id, false, threshold)
	if g.reachesOut {
		s.foreign.Add(-1)
	}
	s.groups[g.id] = nil
	s.free = append(s.free, g.id)
	g.members = nil
}

// lookup appends to dst the hits of e among the shard's pods, using *scratch
// for candidate group ids. Each candidate group is evaluated once, and all
// its members are hits or none is.
func (s *shard) lookup(dst []Hit, e *prepared, scratch *[]uint32) []Hit {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.pods == 0 {
		return dst
	}
	c := s.candidates((*scratch)[:0], e)
	slices.Sort(c)
	c = slices.Compact(c)
	for _, id := range c {
		g := s.groups[id]
		rel, tr := evaluate(g, e)
		if rel|tr == 0 {
			continue
		}
		for _, p := range g.members {
			dst = append(dst, Hit{Pod: p.pod, Relation: rel, Transition: tr, Tag: p.tag})
		}
	}
	*scratch = c
	return dst
}

// candidates appends the ids of every group the event may affect: a
// superset of the hits, found through the postings without scanning.
func (s *shard) candidates(c []uint32, e *prepared) []uint32 {
	c = s.errs.appendTo(c)
	switch e.kind {
	case AssignedPodAdd, AssignedPodUpdate, AssignedPodDelete:
		if e.qn != nil {
			c = s.podCandidates(c, e.nsHash, e.qn.Labels, nil)
		}
		if e.qo != nil {
			var skip map[string]string
			if e.qn != nil {
				skip = e.qn.Labels // labels both versions carry were looked up already
			}
			c = s.podCandidates(c, e.nsHash, e.qo.Labels, skip)
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

// podCandidates appends the pods with a term that an assigned pod in the
// namespace hashed ns with labels may satisfy: terms anchored at one of its
// labels, and terms without a positive requirement. Labels whose value
// equals skip's are left out, and so are the always-checked terms when skip
// is set: the lookup for the other version of the pod has them already.
func (s *shard) podCandidates(c []uint32, ns uint64, labels, skip map[string]string) []uint32 {
	for k, v := range labels {
		kh := strHash(k)
		u := s.use[bucket(kh)]
		if u == (keyUse{}) {
			continue
		}
		if sv, ok := skip[k]; ok && sv == v {
			continue
		}
		if u.in > 0 {
			c = s.appendTerms(c, ns, kh, strHash(v), false)
		}
		if u.exists > 0 {
			c = s.appendTerms(c, ns, kh, 0, true)
		}
	}
	if skip == nil && s.use[bucket(emptyHash)].in > 0 {
		c = s.appendTerms(c, ns, emptyHash, emptyHash, false)
	}
	return c
}

// appendTerms appends the terms posting of the namespace, key and value
// hashed ns, key and val (postHash), and its selector-scoped counterpart,
// with namespace "", when there are such postings.
func (s *shard) appendTerms(c []uint32, ns, key, val uint64, exists bool) []uint32 {
	c = s.terms.appendTo(c, postHash(ns, key, val, exists))
	if s.wide > 0 {
		c = s.terms.appendTo(c, postHash(emptyHash, key, val, exists))
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
				c = s.nsPods.appendTo(c, ns)
			case r.Operator() == matcher.Exists:
				c = s.labels.appendTo(c, postKey{ns: ns, key: r.Key(), exists: true}.hash())
			default:
				for _, v := range r.Values() {
					c = s.labels.appendTo(c, postKey{ns: ns, key: r.Key(), val: v}.hash())
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
