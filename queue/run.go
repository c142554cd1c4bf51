package queue

import (
	"context"
	"slices"
	"strings"
	"time"
)

// Run moves pods whose backoff has expired from backoffQ to activeQ every
// BackoffFlushInterval, and pods that have sat in the unschedulable pool
// longer than the unschedulable timeout out of it every flush interval,
// until ctx ends or the queue is closed. All its tickers and time reads come
// from the queue's clock. An embedder with its own loop may call
// FlushBackoffCompleted and FlushUnschedulableLeftover instead.
func (q *Queue) Run(ctx context.Context) {
	backoff := q.opts.clock.NewTicker(BackoffFlushInterval)
	defer backoff.Stop()
	flush := q.opts.clock.NewTicker(q.opts.flushInterval)
	defer flush.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-q.done:
			return
		case <-backoff.C():
			q.FlushBackoffCompleted()
		case <-flush.C():
			q.FlushUnschedulableLeftover()
		}
	}
}

// FlushBackoffCompleted moves the pods whose backoff has expired from
// backoffQ to activeQ. Run calls it every BackoffFlushInterval.
func (q *Queue) FlushBackoffCompleted() {
	q.mu.Lock()
	defer q.mu.Unlock()
	now := q.opts.clock.Now()
	for e := q.backoff.peek(); e != nil && !e.expiry.After(now); e = q.backoff.peek() {
		q.backoff.pop()
		q.pushActiveLocked(e)
	}
}

// FlushUnschedulableLeftover moves the pods that have sat in the
// unschedulable pool longer than the unschedulable timeout, as the policy
// moves pods (reason "UnschedulableTimeout"). Run calls it every flush
// interval. It scans the pool: O(pool).
func (q *Queue) FlushUnschedulableLeftover() {
	q.mu.Lock()
	defer q.mu.Unlock()
	now := q.opts.clock.Now()
	q.moveWhereLocked(reasonTimeout, func(e *podEntry) bool {
		return now.Sub(e.parked) > q.opts.unschedulableTimeout
	})
}

// moveWhereLocked moves the pool's pods that pick selects, in activeQ order
// (then by UID), so that the order in which they enter the queues does not
// depend on map iteration.
func (q *Queue) moveWhereLocked(reason string, pick func(*podEntry) bool) {
	var moving []*podEntry
	for _, e := range q.pool.items {
		if pick(e) {
			moving = append(moving, e)
		}
	}
	if len(moving) == 0 {
		return
	}
	slices.SortFunc(moving, func(a, b *podEntry) int {
		if c := q.activeOrder(a, b); c != 0 {
			return c
		}
		return strings.Compare(string(a.info.Pod.UID), string(b.info.Pod.UID))
	})
	var now time.Time
	if q.opts.policy == Transition {
		now = q.opts.clock.Now()
	}
	for _, e := range moving {
		q.leavePoolLocked(e)
		q.requeueLocked(e, reason, now)
	}
	if len(moving) > 0 {
		q.stats.moves[reason] += uint64(len(moving))
	}
}
