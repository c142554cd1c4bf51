package index

import (
	"errors"
	"fmt"
	"iter"
	"math/bits"
)

// hashTable maps keys that are hashes already (postHash, sourceHash:
// uniform 64-bit values) to nonzero 32-bit refs. It is an open-addressing
// table: a key's home slot is its high bits, a probe walks the slots after
// it (linear probing), and a deletion shifts back the entries after it that
// probed past it, so there are no tombstones. Each slot takes 12 bytes, its
// key in one array and its ref in another; a Go map of the same keys to
// 8-byte values takes 16 and a control byte. The index keeps an entry per
// label value, term anchor and source of every pending group, most of them
// unique in a pool of unique pods, so these slots are a good part of its
// memory.
//
// The table doubles when an insertion would fill more than 7/8 of it and
// halves when less than an eighth is used, rehashing every entry: at
// 25,000 entries, some 0.2 ms on one core.
//
// Invariants: a slot is empty iff its ref is 0; every present key is
// reached by probing from its home slot without crossing an empty slot;
// the slots are a power of two, at least minSlots, or none.
type hashTable struct {
	keys  []uint64 // by slot
	refs  []uint32 // by slot; len(refs) == len(keys)
	shift uint8    // 64 - log2(slots): a key's home slot is key >> shift
	n     int      // keys present
}

// minSlots is the size of a table's first allocation, and the size below
// which it does not shrink.
const minSlots = 16

// maxLoadNum / maxLoadDen is the largest fraction of slots in use.
const maxLoadNum, maxLoadDen = 7, 8

func (t *hashTable) slots() int { return len(t.refs) }

// len returns the number of keys.
func (t *hashTable) len() int { return t.n }

func (t *hashTable) key(i int) *uint64 { return &t.keys[i] }
func (t *hashTable) ref(i int) *uint32 { return &t.refs[i] }

func (t *hashTable) home(k uint64) int { return int(k >> t.shift) }

// find returns k's slot and true, or false when k is absent.
func (t *hashTable) find(k uint64) (int, bool) {
	if t.n == 0 {
		return 0, false
	}
	return t.probe(k)
}

// probe returns k's slot and true, or the empty slot that ends k's probe
// sequence and false. The table must have slots.
func (t *hashTable) probe(k uint64) (int, bool) {
	keys, refs := t.keys, t.refs[:len(t.keys)]
	mask := len(keys) - 1
	for i := t.home(k); ; i = (i + 1) & mask {
		switch {
		case refs[i] == 0:
			return i, false
		case keys[i] == k:
			return i, true
		}
	}
}

// get returns k's ref.
func (t *hashTable) get(k uint64) (uint32, bool) {
	if i, ok := t.find(k); ok {
		return *t.ref(i), true
	}
	return 0, false
}

// claim returns k's slot and true when k is present; otherwise it adds k,
// growing the table if need be, and returns its slot and false. The caller
// must then set the slot's ref (nonzero).
func (t *hashTable) claim(k uint64) (int, bool) {
	if (t.n+1)*maxLoadDen > t.slots()*maxLoadNum {
		t.resize(max(minSlots, 2*t.slots()))
	}
	i, ok := t.probe(k)
	if !ok {
		*t.key(i) = k
		t.n++
	}
	return i, ok
}

// put sets k's ref to r (nonzero).
func (t *hashTable) put(k uint64, r uint32) {
	i, _ := t.claim(k)
	*t.ref(i) = r
}

// delete removes k; it reports whether k was present.
func (t *hashTable) delete(k uint64) bool {
	i, ok := t.find(k)
	if ok {
		t.vacate(i)
	}
	return ok
}

// vacate empties slot i, shifting back the entries after it that probed
// past it, and shrinks a table that has become mostly empty.
func (t *hashTable) vacate(i int) {
	keys, refs := t.keys, t.refs[:len(t.keys)]
	mask := len(keys) - 1
	for j := (i + 1) & mask; refs[j] != 0; j = (j + 1) & mask {
		// The entry at j may move to i if i is no nearer its home than j:
		// i lies cyclically in [home, j).
		if (j-int(keys[j]>>t.shift))&mask >= (j-i)&mask {
			keys[i], refs[i] = keys[j], refs[j]
			i = j
		}
	}
	keys[i], refs[i] = 0, 0
	t.n--
	if t.slots() > minSlots && t.n < t.slots()/8 {
		t.resize(t.slots() / 2)
	}
}

// resize rehashes the table into the given number of slots, a power of two
// of at least minSlots.
func (t *hashTable) resize(slots int) {
	oldKeys, oldRefs := t.keys, t.refs
	t.keys, t.refs = make([]uint64, slots), make([]uint32, slots)
	t.shift = uint8(64 - bits.TrailingZeros(uint(slots)))
	for j, r := range oldRefs {
		if r != 0 {
			i, _ := t.probe(oldKeys[j])
			t.keys[i], t.refs[i] = oldKeys[j], r
		}
	}
}

// all yields every key with its ref, in no particular order.
func (t *hashTable) all() iter.Seq2[uint64, uint32] {
	return func(yield func(uint64, uint32) bool) {
		for i, r := range t.refs {
			if r != 0 && !yield(t.keys[i], r) {
				return
			}
		}
	}
}

// validate checks the table's invariants.
func (t *hashTable) validate() error {
	slots := t.slots()
	if slots != 0 && (slots&(slots-1) != 0 || slots < minSlots || t.shift != uint8(64-bits.TrailingZeros(uint(slots)))) {
		return fmt.Errorf("table of %d slots, shift %d", slots, t.shift)
	}
	var errs []error
	if t.n*maxLoadDen > slots*maxLoadNum {
		errs = append(errs, fmt.Errorf("%d keys in %d slots", t.n, slots))
	}
	n := 0
	for i := range slots {
		if *t.ref(i) == 0 {
			continue
		}
		n++
		if j, ok := t.probe(*t.key(i)); !ok || j != i {
			errs = append(errs, fmt.Errorf("key %#x at slot %d is not found by probing", *t.key(i), i))
		}
	}
	if n != t.n {
		errs = append(errs, fmt.Errorf("%d keys present, n = %d", n, t.n))
	}
	return errors.Join(errs...)
}
