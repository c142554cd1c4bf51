package index

import (
	"errors"
	"fmt"
	"iter"
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

// posting is a set of groups (their ids, or term entries in the term
// postings): a sorted slice while it is small, a roaring
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

// appendCandidates appends a lookup candidate (lookup.go) per element to
// dst: for the term entries it holds, reached by the versions ver; for the
// group ids it holds when groups, each group undecided.
func (p *posting) appendCandidates(dst []uint64, groups bool, ver uint64) []uint64 {
	if p.big == nil {
		for _, x := range p.small {
			dst = append(dst, asCandidate(x, groups, ver))
		}
		return dst
	}
	p.big.Iterate(func(x uint32) bool {
		dst = append(dst, asCandidate(x, groups, ver))
		return true
	})
	return dst
}

// appendGroups appends the groups of a posting of group ids as undecided
// candidates.
func (p *posting) appendGroups(dst []uint64) []uint64 { return p.appendCandidates(dst, true, 0) }

func asCandidate(x uint32, group bool, ver uint64) uint64 {
	if group {
		return candidate(termEntry(x, undecidedTerm), 0)
	}
	return candidate(x, ver)
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

// postingTable maps posting keys (postHash) to postings of elements, group
// ids or term entries (group.go), in a hashTable whose ref is the posting. A
// posting of one element, the most common kind in a real pool (a unique
// label value, the selector of one workload), is its ref and allocates
// nothing; a posting of its own is made when a second element joins and
// dropped when one is left.
//
// Invariants: a key is present iff its posting is not empty; a ref names a
// posting of many (refMany and above) iff that posting holds two elements
// or more, and every such posting is named by exactly one ref.
type postingTable struct {
	hashTable
	many []*posting // postings of two elements or more, by ref - refMany; nil at free indices
	free []uint32   // free indices of many
}

// A ref of a postingTable is element + 1 for a posting of that one element,
// refMany + i for the posting many[i]. Elements are below refMany - 1
// (maxGroups, group.go, bounds the term entries).
const refMany = 1 << 31

// add inserts element x into k's posting.
func (t *postingTable) add(k uint64, x uint32, threshold int) {
	i, ok := t.claim(k)
	r := t.ref(i)
	switch {
	case !ok:
		*r = x + 1
	case *r >= refMany:
		t.many[*r-refMany].add(x, threshold)
	case *r != x+1:
		p := newPosting()
		p.add(*r-1, threshold)
		p.add(x, threshold)
		*r = t.hold(p)
	}
}

// remove deletes element x from k's posting.
func (t *postingTable) remove(k uint64, x uint32, threshold int) {
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

// edit adds element x to k's posting, or removes it when add is false.
func (t *postingTable) edit(k uint64, x uint32, add bool, threshold int) {
	if add {
		t.add(k, x, threshold)
	} else {
		t.remove(k, x, threshold)
	}
}

// appendEntries appends k's posting of term entries to dst as candidates
// reached by ver.
func (t *postingTable) appendEntries(dst []uint64, k uint64, ver uint64) []uint64 {
	return t.appendCandidates(dst, k, false, ver)
}

// appendGroups appends k's posting of group ids to dst as undecided
// candidates.
func (t *postingTable) appendGroups(dst []uint64, k uint64) []uint64 {
	return t.appendCandidates(dst, k, true, 0)
}

func (t *postingTable) appendCandidates(dst []uint64, k uint64, groups bool, ver uint64) []uint64 {
	r, ok := t.get(k)
	switch {
	case !ok:
		return dst
	case r >= refMany:
		return t.many[r-refMany].appendCandidates(dst, groups, ver)
	}
	return append(dst, asCandidate(r-1, groups, ver))
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

// postings yields every key with its posting's groups in increasing order;
// the slice is reused between calls.
func (t *postingTable) postings() iter.Seq2[uint64, []uint32] {
	return func(yield func(uint64, []uint32) bool) {
		var buf []uint32
		for k, r := range t.all() {
			buf = t.appendRef(buf[:0], r)
			if !yield(k, buf) {
				return
			}
		}
	}
}

// validate checks the table's invariants and every posting of its own.
func (t *postingTable) validate(threshold int) error {
	errs := []error{t.hashTable.validate()}
	named := make([]bool, len(t.many))
	for k, r := range t.all() {
		if r < refMany {
			continue
		}
		j := int(r - refMany)
		switch {
		case j >= len(t.many) || t.many[j] == nil:
			errs = append(errs, fmt.Errorf("key %#x names a missing posting %d", k, j))
		case named[j]:
			errs = append(errs, fmt.Errorf("posting %d named twice", j))
		case t.many[j].len() < 2:
			errs = append(errs, fmt.Errorf("a posting of its own holds %d groups", t.many[j].len()))
		default:
			named[j] = true
			if err := t.many[j].validate(threshold); err != nil {
				errs = append(errs, fmt.Errorf("key %#x: %w", k, err))
			}
		}
	}
	free := 0
	for j, p := range t.many {
		switch {
		case p == nil:
			free++
		case !named[j]:
			errs = append(errs, fmt.Errorf("posting %d is named by no key", j))
		}
	}
	for _, j := range t.free {
		if int(j) >= len(t.many) || t.many[j] != nil {
			errs = append(errs, fmt.Errorf("free posting index %d in use or out of range", j))
		}
	}
	if free != len(t.free) {
		errs = append(errs, fmt.Errorf("%d free posting indices listed, %d free", len(t.free), free))
	}
	return errors.Join(errs...)
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

// appendGroups appends ns's groups to dst as undecided candidates.
func (m nsPostings) appendGroups(dst []uint64, ns string) []uint64 {
	if p := m[ns]; p != nil {
		return p.appendGroups(dst)
	}
	return dst
}
