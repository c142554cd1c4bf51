package index

import (
	"errors"
	"fmt"
	"sync"

	"github.com/cespare/xxhash/v2"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/affinityq/affinityq/matcher"
)

// Index is the reverse index of pending pods' affinity, anti-affinity and
// topology-spread terms. It is safe for concurrent use; see the package
// documentation for the locking scheme.
//
// T is the type of the tag an embedder keeps with each indexed pod
// (InsertWithTag) and finds again in each of its Hits: a queue's record of
// the pod, so that a hit needs no lookup by UID and no type assertion.
// struct{} when none is needed; a pointer costs a Pending 8 bytes.
type Index[T any] struct {
	shards    []*shard[T]   // fixed at New; see placement
	locs      []locShard[T] // the indexed pods by UID, sharded by xxhash(UID); len(locs) == len(shards)
	threshold int
	lookupNS  NamespaceLabels
	scratch   sync.Pool // *scratch[T], one per concurrent lookup (lookup.go)
	anti      antiCache // compiled anti-affinity of recent assigned pods (assigned.go)
}

// Option configures New.
type Option func(*options)

type options struct {
	shards    int
	threshold int
	lookupNS  NamespaceLabels
}

// defaultOptions are the settings New starts from.
var defaultOptions = options{
	shards:    DefaultShards,
	threshold: DefaultPostingThreshold,
}

// DefaultShards is the default shard count. Node and namespace events visit
// every shard, an assigned-pod event its namespace's and shard 0 (see
// Lookup), so more shards cost node-event latency and buy write
// concurrency; BenchmarkShards measures the trade.
const DefaultShards = 16

// MaxShards bounds WithShards.
const MaxShards = 1024

// WithShards sets the number of shards, each with its own lock (default
// DefaultShards; values are clamped to [1, MaxShards]).
func WithShards(n int) Option {
	return func(o *options) { o.shards = min(max(n, 1), MaxShards) }
}

// WithNamespaceLabels sets the function that returns a namespace's labels,
// needed by terms with a namespaceSelector. It is called during lookups,
// under a shard's read lock: it must not call back into the Index. Without
// it every namespace is taken to have no labels.
func WithNamespaceLabels(fn NamespaceLabels) Option {
	return func(o *options) { o.lookupNS = fn }
}

// WithPostingThreshold sets the size at which a posting list turns from a
// sorted slice into a roaring bitmap (default DefaultPostingThreshold; 0
// makes every posting of two groups or more a bitmap: a posting of one
// group is always held in its map's value).
func WithPostingThreshold(n int) Option {
	return func(o *options) { o.threshold = max(n, 0) }
}

// New returns an empty Index whose pods carry tags of type T.
func New[T any](opts ...Option) *Index[T] {
	o := defaultOptions
	for _, opt := range opts {
		opt(&o)
	}
	ix := &Index[T]{shards: make([]*shard[T], o.shards), locs: make([]locShard[T], o.shards), threshold: o.threshold, lookupNS: o.lookupNS}
	for i := range ix.shards {
		ix.shards[i] = newShard[T]()
		ix.locs[i].m = map[types.UID]*Pending[T]{}
	}
	ix.scratch.New = func() any { return &scratch[T]{cands: make([]uint64, 0, 64)} }
	return ix
}

// locShard[T] maps the UIDs that hash to it to the Pending the index keeps
// for them; the Pending's placement says which shard holds it.
// It is the index's only map by UID.
type locShard[T any] struct {
	mu sync.RWMutex // protects m; taken before a shard's lock, never after
	m  map[types.UID]*Pending[T]
}

// homeShard returns the shard of the pods of namespace ns whose rules stay
// within it. Shard 0 holds the pods whose rules reach into other namespaces
// (a namespace list or selector) or failed to compile, so that an event
// visits its namespace's shard and shard 0 only.
func (ix *Index[T]) homeShard(ns string) int { return ix.homeOf(xxhash.Sum64String(ns)) }

// homeOf is homeShard for the namespace whose xxhash is nsHash.
func (ix *Index[T]) homeOf(nsHash uint64) int {
	if len(ix.shards) == 1 {
		return 0
	}
	return 1 + int(nsHash%uint64(len(ix.shards)-1))
}

// placement returns the shard p belongs in.
func (ix *Index[T]) placement(p *Pending[T]) int {
	if p.rules.reachesOut {
		return 0
	}
	return ix.homeShard(p.pod.Namespace)
}

func (ix *Index[T]) locOf(uid types.UID) *locShard[T] {
	return &ix.locs[xxhash.Sum64String(string(uid))%uint64(len(ix.locs))]
}

// Add compiles pod (ix.Compile) and indexes it, replacing the entry of the
// same UID. It fails only for a nil pod, a pod without UID or absurd input
// (see Compile); a pod whose terms do not compile is indexed and always
// checked, and Add returns nil. Add does not copy the pod: it must not be
// modified while indexed (from Add or Insert until Remove or the insert of
// another object of its UID). The index reads it no more once it has left:
// its owner may modify it then, whatever replicas of it remain indexed.
func (ix *Index[T]) Add(pod *v1.Pod) error {
	var p Pending[T] // not kept: insert copies it
	if err := ix.compile(&p, pod); err != nil {
		return err
	}
	ix.insert(&p, p.tag) // the zero T
	return nil
}

// Insert indexes a compiled pod, replacing the entry of the same UID.
//
// It returns the Pending the index keeps: p's pod and tag, with rules
// shared with the other indexed pods of p's source. A caller that keeps a
// Pending per pod (a queue, to replay events against a pod in flight) saves
// memory by keeping that one; it stays valid after the pod is removed. A p
// from ix.Compile shares the rules of an indexed pod with the same spec
// when there is one. p itself is not kept.
func (ix *Index[T]) Insert(p *Pending[T]) *Pending[T] { return ix.insert(p, p.tag) }

// InsertWithTag is Insert(p.WithTag(tag)) without the intermediate copy:
// the Pending the index keeps carries tag.
func (ix *Index[T]) InsertWithTag(p *Pending[T], tag T) *Pending[T] { return ix.insert(p, tag) }

// insert is Insert with the kept Pending's tag given.
func (ix *Index[T]) insert(p *Pending[T], tag T) *Pending[T] {
	uid := p.pod.UID
	loc := ix.locOf(uid)
	loc.mu.Lock()
	defer loc.mu.Unlock()
	s := ix.shards[ix.placement(p)]
	old := loc.m[uid]
	if old != nil {
		if os := ix.shards[ix.placement(old)]; os != s {
			os.remove(old, ix.threshold)
			old = nil
		}
	}
	s.mu.Lock()
	kept := s.insertLocked(p, old, tag, ix.threshold)
	s.mu.Unlock()
	loc.m[uid] = kept
	return kept
}

// Remove deletes the pod with uid; it reports whether it was indexed.
func (ix *Index[T]) Remove(uid types.UID) bool {
	loc := ix.locOf(uid)
	loc.mu.Lock()
	defer loc.mu.Unlock()
	p, ok := loc.m[uid]
	if !ok {
		return false
	}
	delete(loc.m, uid)
	ix.shards[ix.placement(p)].remove(p, ix.threshold)
	return true
}

// Get returns the indexed pod with uid.
func (ix *Index[T]) Get(uid types.UID) (*Pending[T], bool) {
	loc := ix.locOf(uid)
	loc.mu.RLock()
	defer loc.mu.RUnlock()
	p, ok := loc.m[uid]
	return p, ok
}

// Len returns the number of indexed pods.
func (ix *Index[T]) Len() int {
	n := 0
	for i := range ix.locs {
		loc := &ix.locs[i]
		loc.mu.RLock()
		n += len(loc.m)
		loc.mu.RUnlock()
	}
	return n
}

// Lookup appends to dst a Hit for every indexed pod ev affects, each pod
// once, and returns the extended slice. With a dst of enough capacity it
// does not allocate, unless ev is an assigned-pod event whose pod has
// required anti-affinity terms of a spec the index has not seen lately
// (they are compiled; assigned.go) or a node event.
//
// A lookup sees every Add and Remove that returned before it started, and
// may or may not see those that run concurrently with it. A nil ev, or an
// event whose objects are nil where its kind needs them, affects no one
// (nil nodes and namespaces read as having no labels).
func (ix *Index[T]) Lookup(dst []Hit[T], ev *Event) []Hit[T] {
	return ix.LookupWhere(dst, ev, nil)
}

// LookupWhere is Lookup keeping only the hits for whose rules keep reports
// true (nil keeps every hit). Pods with the same rules, namespace and
// labels share their rules for an event, and keep is called once for them
// all: a caller that needs one of the two rule sets skips the pods related
// to the event by the other alone at no cost per pod, where Lookup would
// return each of them.
func (ix *Index[T]) LookupWhere(dst []Hit[T], ev *Event, keep func(relation, transition RuleSet) bool) []Hit[T] {
	if ev == nil {
		return dst
	}
	var e prepared
	prepare(&e, ev, ix.lookupNS, &ix.anti)
	if e.none {
		return dst
	}
	sc := ix.scratch.Get().(*scratch[T])
	home, all := ix.reach(&e)
	for i, s := range ix.shards {
		if all || i == home || s.foreign.Load() > 0 {
			dst = s.lookup(dst, &e, sc, keep)
		}
	}
	ix.scratch.Put(sc)
	return dst
}

// reach returns the shards a lookup of e visits besides those holding pods
// whose rules reach out of their namespace (shard 0): every shard (all) for
// node and namespace events, and for an assigned pod whose required
// anti-affinity reaches beyond its own namespace (the pods it blocks may be
// anywhere); otherwise only home, the shard of the event's namespace, whose
// pods are the only others an assigned pod can affect.
func (ix *Index[T]) reach(e *prepared) (home int, all bool) {
	switch e.kind {
	case AssignedPodAdd, AssignedPodUpdate, AssignedPodDelete:
		return ix.homeShard(e.ns), reachesOut(e.oldAnti, e.ns) || reachesOut(e.newAnti, e.ns)
	}
	return 0, true
}

// reachesOut reports whether a term of terms may match a pod outside
// namespace ns.
func reachesOut(terms []matcher.Term, ns string) bool {
	for i := range terms {
		sc := &terms[i].Scope
		if !sc.Selector().Nothing() || len(sc.Names()) != 1 || sc.Names()[0] != ns {
			return true
		}
	}
	return false
}

// AssignedPodAdded appends the pods affected by the addition of an assigned
// pod (one with spec.nodeName or status.nominatedNodeName set; others affect
// no one).
func (ix *Index[T]) AssignedPodAdded(dst []Hit[T], pod *v1.Pod) []Hit[T] {
	return ix.Lookup(dst, &Event{Kind: AssignedPodAdd, NewPod: pod})
}

// AssignedPodUpdated appends the pods affected by an update of an assigned
// pod.
func (ix *Index[T]) AssignedPodUpdated(dst []Hit[T], oldPod, newPod *v1.Pod) []Hit[T] {
	return ix.Lookup(dst, &Event{Kind: AssignedPodUpdate, OldPod: oldPod, NewPod: newPod})
}

// AssignedPodDeleted appends the pods affected by the deletion of an
// assigned pod.
func (ix *Index[T]) AssignedPodDeleted(dst []Hit[T], pod *v1.Pod) []Hit[T] {
	return ix.Lookup(dst, &Event{Kind: AssignedPodDelete, OldPod: pod})
}

// NodeAdded appends the pods affected by the addition of a node.
func (ix *Index[T]) NodeAdded(dst []Hit[T], node *v1.Node) []Hit[T] {
	return ix.Lookup(dst, &Event{Kind: NodeAdd, NewNode: node})
}

// NodeUpdated appends the pods affected by an update of a node.
func (ix *Index[T]) NodeUpdated(dst []Hit[T], oldNode, newNode *v1.Node) []Hit[T] {
	return ix.Lookup(dst, &Event{Kind: NodeUpdate, OldNode: oldNode, NewNode: newNode})
}

// NodeDeleted appends the pods affected by the deletion of a node.
func (ix *Index[T]) NodeDeleted(dst []Hit[T], node *v1.Node) []Hit[T] {
	return ix.Lookup(dst, &Event{Kind: NodeDelete, OldNode: node})
}

// NamespaceUpdated appends the pods affected by a change of a namespace's
// labels. The index reads namespace labels through WithNamespaceLabels; the
// caller updates what that function returns.
func (ix *Index[T]) NamespaceUpdated(dst []Hit[T], oldNS, newNS *v1.Namespace) []Hit[T] {
	return ix.Lookup(dst, &Event{Kind: NamespaceUpdate, OldNamespace: oldNS, NewNamespace: newNS})
}

// Validate checks every invariant of every shard: each derived structure is
// rebuilt from the indexed pods and compared with the one kept; and that
// the locator keeps exactly the pods the shards hold. It locks each shard
// and then each locator shard for reading in turn; it is meant for tests,
// and its answer is exact only when no write runs concurrently.
func (ix *Index[T]) Validate() error {
	var errs []error
	indexed := 0
	for i, s := range ix.shards {
		s.mu.RLock()
		err := s.validateLocked(ix.threshold)
		var members []*Pending[T]
		for _, g := range s.groups {
			if g != nil {
				for i := range g.size() {
					members = append(members, g.member(i))
				}
			}
		}
		s.mu.RUnlock()
		if err != nil {
			errs = append(errs, fmt.Errorf("index: shard %d: %w", i, err))
		}
		indexed += len(members)
		for _, p := range members {
			uid := p.pod.UID
			if want := ix.placement(p); want != i {
				errs = append(errs, fmt.Errorf("index: shard %d holds %s of namespace %q, which belongs in shard %d", i, uid, p.pod.Namespace, want))
			}
			loc := ix.locOf(uid)
			loc.mu.RLock()
			kept := loc.m[uid]
			loc.mu.RUnlock()
			if kept != p {
				errs = append(errs, fmt.Errorf("index: shard %d holds %s, the locator keeps another entry for it or none", i, uid))
			}
		}
	}
	if n := ix.Len(); n != indexed {
		errs = append(errs, fmt.Errorf("index: the locator knows %d pods, the shards hold %d", n, indexed))
	}
	return errors.Join(errs...)
}
