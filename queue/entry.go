package queue

import (
	"container/list"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/affinityq/affinityq/index"
)

// podEntry is the queue's record of one pod, wherever it is. Every field is
// protected by Queue.mu.
//
// Invariants (Queue.Validate checks them):
//   - loc says which one structure holds the entry: activeQ or backoffQ
//     (then idx is its heap position), the unschedulable pool (then the
//     index holds pending under the pod's UID), or the in-flight list (then
//     elem is its element); idx is -1 outside the heaps, elem nil outside
//     the list.
//   - pending was compiled from info.Pod.
//   - stale is set only in activeQ or backoffQ, and then the index still
//     holds the pod: an event that moved it out of the pool left its removal
//     from the index to Pop (or Delete), so that the event costs its lookup
//     and O(1) per moved pod. Lookups skip such hits (the entry's loc is
//     not Unschedulable).
type podEntry struct {
	info    *PodInfo
	pending *index.Pending[*podEntry]
	loc     Location
	idx     int // position in activeQ or backoffQ, -1 outside
	poolIdx int // position in the pool, -1 outside
	stale   bool

	prio     int32         // priority(info), kept by setPod for activeQ's default order
	ts       time.Time     // info.Timestamp, for the same
	seq      uint64        // activeQ arrival order, the last tie-break
	expiry   time.Time     // in backoffQ: when the backoff ends
	parked   time.Time     // in the pool: when the pod entered it
	rejected index.RuleSet // rule sets of info.UnschedulablePlugins

	// In flight.
	elem           *list.Element
	popSeq         uint64  // the event log's sequence number at Pop
	updated        *v1.Pod // the newest object from Update, nil if none
	updatedPending *index.Pending[*podEntry]
}

// setPod makes pod (compiled as pending) the entry's pod.
func (e *podEntry) setPod(pod *v1.Pod, pending *index.Pending[*podEntry]) {
	e.info.Pod, e.pending = pod, pending
	e.prio = priority(e.info)
}

// backoffDuration is the backoff after attempts failed attempts: initial,
// doubled per further attempt, capped at max; 0 without attempts (a pod
// whose counter was reset is not backed off) or when initial or max is 0.
func backoffDuration(attempts int, initial, max time.Duration) time.Duration {
	if attempts <= 0 || initial <= 0 || max <= 0 {
		return 0
	}
	d := initial
	for i := 1; i < attempts && d < max; i++ {
		if d > max/2 {
			return max
		}
		d *= 2
	}
	return min(d, max)
}

// backoffExpiry returns when e's backoff ends, measured from its last
// failure (info.Timestamp).
func (q *Queue) backoffExpiry(e *podEntry) time.Time {
	return e.info.Timestamp.Add(backoffDuration(e.info.Attempts, q.opts.initialBackoff, q.opts.maxBackoff))
}
