package index

import (
	"errors"
	"fmt"
	"iter"
	"math/bits"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
)

// DefaultPostingThreshold is the size above which a posting list turns from a
// sorted slice into a roaring bitmap. Most postings of a real pool hold one
// pod (a unique partner label, a per-deployment hash), where a one-element
// roaring bitmap costs about 5× a slice; above a few dozen elements roaring's
// containers win on memory and on set operations. BenchmarkPostingMemory
// measures both.
const DefaultPostingThreshold = 64

// posting is a set of pod slots: a sorted slice while it is small, a roaring
// bitmap once it has grown past the threshold. It returns to a slice when it
// shrinks to a quarter of the threshold, so a posting hovering at the
// threshold does not convert back and forth.
//
// Invariant: exactly one of small and big is in use; big != nil implies
// small == nil; small is sorted without duplicates.
type posting struct {
	small []uint32
	big   *roaring.Bitmap
	buf   [2]uint32 // small's first backing array in postings made by newPosting
}

// newPosting returns an empty posting whose first two elements need no
// allocation of their own: most postings of a real pool (a unique label
// value, a workload's own selector) hold one or two groups. A posting made
// so must not be copied by value.
func newPosting() *posting {
	p := &posting{}
	p.small = p.buf[:0]
	return p
}

// add inserts x; it reports whether x was absent.
func (p *posting) add(x uint32, threshold int) bool {
	if p.big != nil {
		return p.big.CheckedAdd(x)
	}
	i, found := slices.BinarySearch(p.small, x)
	if found {
		return false
	}
	if len(p.small) >= threshold {
		p.big = roaring.New()
		p.big.AddMany(p.small)
		p.big.Add(x)
		p.small = nil
		return true
	}
	p.small = slices.Insert(p.small, i, x)
	return true
}

// remove deletes x; it reports whether x was present.
func (p *posting) remove(x uint32, threshold int) bool {
	if p.big != nil {
		if !p.big.CheckedRemove(x) {
			return false
		}
		if n := p.big.GetCardinality(); n <= uint64(threshold/4) {
			p.small = p.big.ToArray()
			p.big = nil
		}
		return true
	}
	i, found := slices.BinarySearch(p.small, x)
	if !found {
		return false
	}
	p.small = slices.Delete(p.small, i, i+1)
	return true
}

func (p *posting) len() int {
	if p.big != nil {
		return int(p.big.GetCardinality())
	}
	return len(p.small)
}

func (p *posting) empty() bool {
	if p.big != nil {
		return p.big.IsEmpty()
	}
	return len(p.small) == 0
}

func (p *posting) contains(x uint32) bool {
	if p.big != nil {
		return p.big.Contains(x)
	}
	_, found := slices.BinarySearch(p.small, x)
	return found
}

// appendTo appends the posting's elements to dst in increasing order.
func (p *posting) appendTo(dst []uint32) []uint32 {
	if p.big == nil {
		return append(dst, p.small...)
	}
	p.big.Iterate(func(x uint32) bool {
		dst = append(dst, x)
		return true
	})
	return dst
}

// bytes estimates the posting's heap footprint beyond the struct itself.
func (p *posting) bytes() uint64 {
	if p.big != nil {
		return p.big.GetSizeInBytes()
	}
	return uint64(cap(p.small)) * 4
}

func (p *posting) validate(threshold int) error {
	if p.big != nil {
		if p.small != nil {
			return fmt.Errorf("posting uses both a slice and a bitmap")
		}
		if err := p.big.Validate(); err != nil {
			return fmt.Errorf("posting bitmap: %w", err)
		}
		if p.big.IsEmpty() {
			return fmt.Errorf("empty posting bitmap kept")
		}
		return nil
	}
	if len(p.small) > threshold {
		return fmt.Errorf("posting slice of %d elements above the threshold %d", len(p.small), threshold)
	}
	for i := 1; i < len(p.small); i++ {
		if p.small[i-1] >= p.small[i] {
			return fmt.Errorf("posting slice not sorted and unique at %d", i)
		}
	}
	return nil
}

// postingTable maps posting keys to postings: an open-addressing hash table
// (linear probing, deletion by backward shift, so no tombstones) over keys
// that are hashes already (postHash), indexed by their high bits. Each slot
// takes 12 bytes, a key and a ref, where a Go map of a posting pointer took
// 24 plus its control byte: the two maps of a shard hold an entry per label
// value and per term anchor of every pending group, most of them unique in a
// pool of unique pods, so their slots are most of the index's memory after
// the compiled terms.
//
// A posting of one group, the most common kind in a real pool (a unique
// label value, the selector of one workload), lives in its slot's ref and
// allocates nothing; a posting of its own is made when a second group joins
// and dropped when one group is left.
//
// Invariants: a key is present iff its posting is not empty; a slot is
// empty iff its ref is 0; every present key is reached by probing from its
// home slot without crossing an empty slot; a ref names a posting of many
// (refMany and above) iff that posting holds two groups or more, and every
// such posting is named by exactly one ref.
type postingTable struct {
	blocks []slotBlock // the slots, four per block; len(blocks)*4 is a power of two or 0
	shift  uint8       // 64 - log2(slots): a key's home slot is key >> shift
	n      int         // keys present
	many   []*posting  // postings of two groups or more, by ref - refMany; nil at free indices
	free   []uint32    // free indices of many
}

// slotBlock keeps four slots' keys and refs side by side, so that a probe
// reads one cache line or two, not a line in each of two arrays.
type slotBlock struct {
	keys [4]uint64
	refs [4]uint32
}

// A ref is a slot's value: 0 for an empty slot, group id + 1 for a posting
// of that one group, refMany + i for the posting many[i]. Group ids are
// below refMany - 1: a shard would need 2^31 live groups, hundreds of
// gigabytes, to reach it.
const refMany = 1 << 31

// minSlots is the size of a table's first allocation, and the size below
// which it does not shrink.
const minSlots = 16

func (t *postingTable) slots() int { return len(t.blocks) * 4 }

func (t *postingTable) key(i int) *uint64 { return &t.blocks[i>>2].keys[i&3] }
func (t *postingTable) ref(i int) *uint32 { return &t.blocks[i>>2].refs[i&3] }

func (t *postingTable) home(k uint64) int { return int(k >> t.shift) }

// find returns k's slot and true, or the empty slot that ends k's probe
// sequence and false. The table must have slots.
func (t *postingTable) find(k uint64) (int, bool) {
	mask := t.slots() - 1
	for i := t.home(k); ; i = (i + 1) & mask {
		b := &t.blocks[i>>2]
		switch {
		case b.refs[i&3] == 0:
			return i, false
		case b.keys[i&3] == k:
			return i, true
		}
	}
}

// add inserts group x into k's posting.
func (t *postingTable) add(k uint64, x uint32, threshold int) {
	if t.n+1 > t.slots()*7/8 {
		t.resize(max(minSlots, 2*t.slots()))
	}
	i, ok := t.find(k)
	r := t.ref(i)
	switch {
	case !ok:
		*t.key(i), *r = k, x+1
		t.n++
	case *r >= refMany:
		t.many[*r-refMany].add(x, threshold)
	case *r != x+1:
		p := newPosting()
		p.add(*r-1, threshold)
		p.add(x, threshold)
		*r = t.hold(p)
	}
}

// remove deletes group x from k's posting.
func (t *postingTable) remove(k uint64, x uint32, threshold int) {
	if t.n == 0 {
		return
	}
	i, ok := t.find(k)
	if !ok {
		return
	}
	r := t.ref(i)
	switch {
	case *r == x+1:
		t.vacate(i)
	case *r >= refMany:
		j := *r - refMany
		p := t.many[j]
		if p.remove(x, threshold) && p.len() == 1 {
			var last [1]uint32
			*r = p.appendTo(last[:0])[0] + 1
			t.many[j] = nil
			t.free = append(t.free, j)
		}
	}
}

// edit adds group x to k's posting, or removes it when add is false.
func (t *postingTable) edit(k uint64, x uint32, add bool, threshold int) {
	if add {
		t.add(k, x, threshold)
	} else {
		t.remove(k, x, threshold)
	}
}

// appendTo appends k's posting to dst in increasing order.
func (t *postingTable) appendTo(dst []uint32, k uint64) []uint32 {
	if t.n == 0 {
		return dst
	}
	i, ok := t.find(k)
	if !ok {
		return dst
	}
	return t.appendRef(dst, *t.ref(i))
}

func (t *postingTable) appendRef(dst []uint32, r uint32) []uint32 {
	if r >= refMany {
		return t.many[r-refMany].appendTo(dst)
	}
	return append(dst, r-1)
}

// hold stores p in many and returns its ref.
func (t *postingTable) hold(p *posting) uint32 {
	if n := len(t.free); n > 0 {
		j := t.free[n-1]
		t.free = t.free[:n-1]
		t.many[j] = p
		return refMany + j
	}
	t.many = append(t.many, p)
	return refMany + uint32(len(t.many)-1)
}

// vacate empties slot i, shifting back the entries after it that probed
// past it, and shrinks a table that has become mostly empty.
func (t *postingTable) vacate(i int) {
	mask := t.slots() - 1
	for j := (i + 1) & mask; *t.ref(j) != 0; j = (j + 1) & mask {
		// The entry at j may move to i if i is no nearer its home than j:
		// i lies cyclically in [home, j).
		if (j-t.home(*t.key(j)))&mask >= (j-i)&mask {
			*t.key(i), *t.ref(i) = *t.key(j), *t.ref(j)
			i = j
		}
	}
	*t.key(i), *t.ref(i) = 0, 0
	t.n--
	if t.slots() > minSlots && t.n < t.slots()/8 {
		t.resize(t.slots() / 2)
	}
}

// resize rehashes the table into the given number of slots, a power of two
// of at least minSlots.
func (t *postingTable) resize(slots int) {
	old := t.blocks
	t.blocks = make([]slotBlock, slots/4)
	t.shift = uint8(64 - bits.TrailingZeros(uint(slots)))
	for b := range old {
		for l, r := range old[b].refs {
			if r != 0 {
				i, _ := t.find(old[b].keys[l])
				*t.key(i), *t.ref(i) = old[b].keys[l], r
			}
		}
	}
}

// len returns the number of keys.
func (t *postingTable) len() int { return t.n }

// all yields every key with its posting's groups in increasing order; the
// slice is reused between calls.
func (t *postingTable) all() iter.Seq2[uint64, []uint32] {
	return func(yield func(uint64, []uint32) bool) {
		var buf []uint32
		for b := range t.blocks {
			for l, r := range t.blocks[b].refs {
				if r == 0 {
					continue
				}
				buf = t.appendRef(buf[:0], r)
				if !yield(t.blocks[b].keys[l], buf) {
					return
				}
			}
		}
	}
}

// validate checks the table's invariants and every posting of its own.
func (t *postingTable) validate(threshold int) error {
	var errs []error
	slots := t.slots()
	if slots&(slots-1) != 0 || (slots > 0 && t.shift != uint8(64-bits.TrailingZeros(uint(slots)))) {
		return fmt.Errorf("table of %d slots, shift %d", slots, t.shift)
	}
	if t.n > slots*7/8 {
		errs = append(errs, fmt.Errorf("%d keys in %d slots", t.n, slots))
	}
	named := make([]bool, len(t.many))
	n := 0
	for i := range slots {
		r := *t.ref(i)
		if r == 0 {
			continue
		}
		n++
		if j, ok := t.find(*t.key(i)); !ok || j != i {
			errs = append(errs, fmt.Errorf("key %#x at slot %d is not found by probing", *t.key(i), i))
		}
		if r < refMany {
			continue
		}
		j := int(r - refMany)
		switch {
		case j >= len(t.many) || t.many[j] == nil:
			errs = append(errs, fmt.Errorf("key %#x names a missing posting %d", *t.key(i), j))
		case named[j]:
			errs = append(errs, fmt.Errorf("posting %d named twice", j))
		case t.many[j].len() < 2:
			errs = append(errs, fmt.Errorf("a posting of its own holds %d groups", t.many[j].len()))
		default:
			named[j] = true
			if err := t.many[j].validate(threshold); err != nil {
				errs = append(errs, fmt.Errorf("key %#x: %w", *t.key(i), err))
			}
		}
	}
	if n != t.n {
		errs = append(errs, fmt.Errorf("%d keys present, n = %d", n, t.n))
	}
	for j, p := range t.many {
		if p != nil && !named[j] {
			errs = append(errs, fmt.Errorf("posting %d is named by no key", j))
		}
	}
	for _, j := range t.free {
		if int(j) >= len(t.many) || t.many[j] != nil {
			errs = append(errs, fmt.Errorf("free posting index %d in use or out of range", j))
		}
	}
	if nils := len(t.many) - countNonNil(t.many); nils != len(t.free) {
		errs = append(errs, fmt.Errorf("%d free posting indices listed, %d free", len(t.free), nils))
	}
	return errors.Join(errs...)
}

func countNonNil(ps []*posting) int {
	n := 0
	for _, p := range ps {
		if p != nil {
			n++
		}
	}
	return n
}

// nsPostings maps a namespace to its groups. Namespaces are few and hold
// many groups each, so each has a posting of its own.
type nsPostings map[string]*posting

// edit adds group x to ns's posting, or removes it when add is false.
func (m nsPostings) edit(ns string, x uint32, add bool, threshold int) {
	p := m[ns]
	switch {
	case add && p == nil:
		p = newPosting()
		m[ns] = p
		fallthrough
	case add:
		p.add(x, threshold)
	case p != nil:
		p.remove(x, threshold)
		if p.empty() {
			delete(m, ns)
		}
	}
}

// all yields every namespace with its groups in increasing order; the slice
// is reused between calls.
func (m nsPostings) all() iter.Seq2[string, []uint32] {
	return func(yield func(string, []uint32) bool) {
		var buf []uint32
		for ns, p := range m {
			buf = p.appendTo(buf[:0])
			if !yield(ns, buf) {
				return
			}
		}
	}
}

// appendTo appends ns's posting to dst in increasing order.
func (m nsPostings) appendTo(dst []uint32, ns string) []uint32 {
	if p := m[ns]; p != nil {
		return p.appendTo(dst)
	}
	return dst
}
