package queue

import "container/heap"

// podHeap is a binary heap of entries that keeps each entry's position in
// entry.idx, so that an entry can be removed or fixed in O(log n). activeQ
// and backoffQ are podHeaps with different orders. Not safe for concurrent
// use: the queue's lock protects it.
type podHeap struct {
	items []*podEntry
	less  func(a, b *podEntry) bool
}

var _ heap.Interface = (*podHeap)(nil)

func (h *podHeap) Len() int           { return len(h.items) }
func (h *podHeap) Less(i, j int) bool { return h.less(h.items[i], h.items[j]) }

func (h *podHeap) Swap(i, j int) {
	h.items[i], h.items[j] = h.items[j], h.items[i]
	h.items[i].idx = i
	h.items[j].idx = j
}

// Push is heap.Interface's; use push.
func (h *podHeap) Push(x any) {
	e := x.(*podEntry)
	e.idx = len(h.items)
	h.items = append(h.items, e)
}

// Pop is heap.Interface's; use pop.
func (h *podHeap) Pop() any {
	n := len(h.items) - 1
	e := h.items[n]
	h.items[n] = nil
	h.items = h.items[:n]
	e.idx = -1
	return e
}

func (h *podHeap) push(e *podEntry) { heap.Push(h, e) }

// pop removes and returns the head; the heap must not be empty.
func (h *podHeap) pop() *podEntry { return heap.Pop(h).(*podEntry) }

// peek returns the head, nil when empty.
func (h *podHeap) peek() *podEntry {
	if len(h.items) == 0 {
		return nil
	}
	return h.items[0]
}

// remove removes e, which must be in h.
func (h *podHeap) remove(e *podEntry) { heap.Remove(h, e.idx) }

// fix restores the order after e's key changed.
func (h *podHeap) fix(e *podEntry) { heap.Fix(h, e.idx) }

// holds reports whether e sits in h.
func (h *podHeap) holds(e *podEntry) bool {
	return e.idx >= 0 && e.idx < len(h.items) && h.items[e.idx] == e
}
