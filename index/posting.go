package index

import (
	"fmt"
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

// postingMap maps keys to postings. A posting of one group, the most common
// kind in a real pool (a unique label value, the selector of one workload),
// lives in the map's value and allocates nothing; a posting of its own is
// made when a second group joins and dropped when one group is left.
//
// Invariant: a key is present iff its posting is not empty; ref.many is
// nil iff the posting holds exactly one group, ref.one.
type postingMap[K comparable] map[K]postingRef

// postingRef is a postingMap value.
type postingRef struct {
	one  uint32   // the only group, when many is nil
	many *posting // two groups or more
}

// add inserts x into k's posting.
func (m postingMap[K]) add(k K, x uint32, threshold int) {
	r, ok := m[k]
	switch {
	case !ok:
		m[k] = postingRef{one: x}
	case r.many != nil:
		r.many.add(x, threshold)
	case r.one != x:
		p := newPosting()
		p.add(r.one, threshold)
		p.add(x, threshold)
		m[k] = postingRef{many: p}
	}
}

// remove deletes x from k's posting.
func (m postingMap[K]) remove(k K, x uint32, threshold int) {
	r, ok := m[k]
	switch {
	case !ok:
	case r.many == nil:
		if r.one == x {
			delete(m, k)
		}
	case r.many.remove(x, threshold) && r.many.len() == 1:
		var last [1]uint32
		m[k] = postingRef{one: r.many.appendTo(last[:0])[0]}
	}
}

// edit adds x to k's posting, or removes it when add is false.
func (m postingMap[K]) edit(k K, x uint32, add bool, threshold int) {
	if add {
		m.add(k, x, threshold)
	} else {
		m.remove(k, x, threshold)
	}
}

// appendTo appends k's posting to dst in increasing order.
func (m postingMap[K]) appendTo(dst []uint32, k K) []uint32 {
	r, ok := m[k]
	if !ok {
		return dst
	}
	return r.appendTo(dst)
}

func (r postingRef) appendTo(dst []uint32) []uint32 {
	if r.many == nil {
		return append(dst, r.one)
	}
	return r.many.appendTo(dst)
}

func (r postingRef) len() int {
	if r.many == nil {
		return 1
	}
	return r.many.len()
}

func (r postingRef) validate(threshold int) error {
	if r.many == nil {
		return nil
	}
	if n := r.many.len(); n < 2 {
		return fmt.Errorf("a posting of its own holds %d groups", n)
	}
	return r.many.validate(threshold)
}
