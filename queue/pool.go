package queue

// pool is the set of entries in the unschedulable pool: a slice with each
// entry's position in it, so that adding and removing are O(1) without
// hashing (an event moves its pods out one by one).
type pool struct {
	items []*podEntry
}

func (p *pool) add(e *podEntry) {
	e.poolIdx = len(p.items)
	p.items = append(p.items, e)
}

func (p *pool) remove(e *podEntry) {
	last := len(p.items) - 1
	moved := p.items[last]
	p.items[e.poolIdx] = moved
	moved.poolIdx = e.poolIdx
	p.items[last] = nil
	p.items = p.items[:last]
	e.poolIdx = -1
}

func (p *pool) holds(e *podEntry) bool {
	return e.poolIdx >= 0 && e.poolIdx < len(p.items) && p.items[e.poolIdx] == e
}

func (p *pool) len() int { return len(p.items) }
