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
