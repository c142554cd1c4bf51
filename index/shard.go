package index

import (
	"sync"
	"sync/atomic"

	"github.com/google/btree"
)

// shard is a complete index of the pending pods placed in it (see
// Index.placement). Its postings name groups (group.go), each by a dense
// uint32 id; a free list reuses the ids of dropped groups.
//
// Invariants (Validate checks them by rebuilding every derived structure
// from the groups and comparing):
//   - every member p of a live group g has p.gid == g.id(),
//     g.member(p.at) == p and p.rules == g.rules(); pods counts the
//     members; g.shape is g.rules().shape;
//     the members of a group whose rules compiled have one source;
//   - groups[id] == g != nil  ⇔  g.id() == id and g has at least one member;
//     free holds exactly the nil ids, once each;
//   - sources maps the source hash of each live group's representative,
//     a member of it, to the group's id + 1 (source.go); a group without
//     one is not in sources, and is in unrepresented under its rules if
//     they compiled; every member of a live group has the source hash of
//     its group's rules (src), unless they failed to compile;
//   - terms, use, wide, labels, nsPods, errs, anti, nsSel and topo hold
//     exactly what indexGroup derives from the live groups, and no empty
//     posting; foreign counts the live groups that reach out.
type shard[T any] struct {
	mu sync.RWMutex // protects every field below and the groups it holds; taken alone, never nested in another shard's

	pods    int         // indexed pods (members of the live groups)
	groups  []*group[T] // live groups by id; nil for free ids
	free    []uint32    // free group ids
	sources hashTable   // group ids + 1 by their representative's source hash (source.go)
	// unrepresented lists the live groups of compiled rules without a
	// representative (another group holds their source's hash), by rules.
	unrepresented map[*rules]*group[T]

	terms  postingTable       // required terms by anchor (reverse index): term entries (group.go) by postHash
	use    [keyBuckets]keyUse // anchor entries of terms by bucket of their key's strHash (emptyHash for the always-checked)
	wide   int                // anchor entries with ns == "" (namespace-selector scopes)
	labels postingTable       // pending pods' own labels (forward index, for symmetry): group ids by postHash
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

func newShard[T any]() *shard[T] {
	return &shard[T]{
		nsPods:        nsPostings{},
		unrepresented: map[*rules]*group[T]{},
		topo:          btree.NewG(8, topoLess),
	}
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

// topoItem lists the groups with a required term on one topology key.
type topoItem struct {
	key               string
	aff, anti, spread posting
}

func topoLess(a, b *topoItem) bool { return a.key < b.key }

func (it *topoItem) empty() bool { return it.aff.empty() && it.anti.empty() && it.spread.empty() }

// remove locks the shard and removes p, a Pending it keeps.
func (s *shard[T]) remove(p *Pending[T], threshold int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.removeLocked(p, threshold)
}
