package queue

import (
	"errors"
	"fmt"
)

// Validate checks the Queue's invariants (see Queue and podEntry): every
// pod in exactly one place, consistent with its entry, the heaps ordered,
// the index holding exactly the pool's pods, the event log ordered and
// pruned. It also runs the index's Validate. It holds the queue's lock
// throughout and is meant for tests.
func (q *Queue) Validate() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	var errs []error
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf("queue: "+format, args...)) }

	counts := map[Location]int{}
	stale := 0
	for uid, e := range q.entries {
		if e.info == nil || e.info.Pod == nil || e.info.Pod.UID != uid {
			fail("entry %q does not hold its pod", uid)
			continue
		}
		if e.prio != priority(e.info) || (e.loc != InFlight && !e.ts.Equal(e.info.Timestamp)) {
			fail("pod %q: the entry's priority %d and timestamp %v are not its pod's", uid, e.prio, e.ts)
		}
		if e.pending == nil || e.pending.Pod() != e.info.Pod {
			fail("pod %q: compiled terms are not of its object", uid)
		}
		counts[e.loc]++
		inActive, inBackoff := q.active.holds(e), q.backoff.holds(e)
		inPool := q.pool.holds(e)
		inFlight := e.elem != nil
		if n := btoi(inActive) + btoi(inBackoff) + btoi(inPool) + btoi(inFlight); n != 1 {
			fail("pod %q (%v) is in %d places", uid, e.loc, n)
		}
		want := map[Location]bool{Active: inActive, Backoff: inBackoff, Unschedulable: inPool, InFlight: inFlight}
		if !want[e.loc] {
			fail("pod %q: location %v, but not there", uid, e.loc)
		}
		if !inActive && !inBackoff && e.idx != -1 {
			fail("pod %q: heap position %d outside the heaps", uid, e.idx)
		}
		if e.loc != InFlight && (e.updated != nil || e.updatedPending != nil) {
			fail("pod %q: pending update outside flight", uid)
		}
		if e.stale {
			stale++
			if e.loc != Active && e.loc != Backoff {
				fail("pod %q: stale index entry in %v", uid, e.loc)
			}
			if _, ok := q.ix.Get(uid); !ok {
				fail("pod %q: marked stale but not in the index", uid)
			}
		}
		if e.loc == Unschedulable {
			p, ok := q.ix.Get(uid)
			if !ok {
				fail("pod %q in the pool but not in the index", uid)
			} else if p.Pod() != e.info.Pod {
				fail("pod %q: the index holds another object than the pool's", uid)
			} else if p.Tag() != e {
				fail("pod %q: the index's tag is not the pod's entry", uid)
			}
		}
	}
	if counts[Active] != q.active.Len() || counts[Backoff] != q.backoff.Len() ||
		counts[Unschedulable] != q.pool.len() || counts[InFlight] != q.flight.Len() {
		fail("counts by location %v differ from the structures' sizes (active %d, backoff %d, pool %d, in flight %d)",
			counts, q.active.Len(), q.backoff.Len(), q.pool.len(), q.flight.Len())
	}
	for i, e := range q.pool.items {
		if e.poolIdx != i || q.entries[e.info.Pod.UID] != e {
			fail("pool item %d (%q) is not its entry's, or at another position (%d)", i, e.info.Pod.UID, e.poolIdx)
		}
	}
	for o := range q.orphans {
		if e, ok := q.entries[o.Pod.UID]; ok && e.info == o {
			fail("deleted attempt of %q is still queued", o.Pod.UID)
		}
	}
	if n := q.ix.Len(); n != q.pool.len()+stale || stale != q.stale {
		fail("index holds %d pods, the pool %d and %d stale (counted %d)", n, q.pool.len(), stale, q.stale)
	}
	for i, h := range []*podHeap{&q.active, &q.backoff} {
		for j, e := range h.items {
			if e.idx != j {
				fail("heap %d: item %d has position %d", i, j, e.idx)
			}
			if j > 0 && h.less(e, h.items[(j-1)/2]) {
				fail("heap %d: item %d before its parent", i, j)
			}
		}
	}
	var prevPop uint64
	for el := q.flight.Front(); el != nil; el = el.Next() {
		e := el.Value.(*podEntry)
		if e.elem != el || e.loc != InFlight || q.entries[e.info.Pod.UID] != e {
			fail("in-flight list holds %q inconsistently", e.info.Pod.UID)
		}
		if e.popSeq < prevPop {
			fail("in-flight list out of Pop order at %q", e.info.Pod.UID)
		}
		prevPop = e.popSeq
	}
	if q.flight.Len() == 0 && len(q.log) > 0 {
		fail("%d logged events with no pod in flight", len(q.log))
	}
	if front := q.flight.Front(); front != nil && len(q.log) > 0 && q.log[0].seq <= front.Value.(*podEntry).popSeq {
		fail("log not pruned: event %d predates the oldest Pop (%d)", q.log[0].seq, front.Value.(*podEntry).popSeq)
	}
	for i := 1; i < len(q.log); i++ {
		if q.log[i].seq <= q.log[i-1].seq {
			fail("log out of order at %d", i)
		}
	}
	if err := q.ix.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("queue: %w", err))
	}
	return errors.Join(errs...)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
