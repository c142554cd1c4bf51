package queue

import (
	"maps"

	"github.com/affinityq/affinityq/index"
)

// Metrics receives the queue's counts as they happen, for an embedder to
// export (Prometheus counters, say). Its methods are called with the
// queue's lock held: they must be quick and must not call the Queue. Stats
// gives the same figures on demand.
type Metrics interface {
	// Lookup is called once per assigned-pod, node or namespace event, with
	// the number of unschedulable pods the index returned and how many of
	// them the policy moved.
	Lookup(kind index.EventKind, hits, moved int)
	// Moved is called for every pod that leaves the unschedulable pool, or
	// that a failed attempt requeues instead of parking it, with the reason
	// (an event kind such as "AssignedPodUpdate", "PodUpdate",
	// "UnschedulableTimeout", "InFlightOverflow", or MoveAll's reason) and
	// where it went (Active or Backoff).
	Moved(reason string, to Location)
}

// Stats is a snapshot of the queue's sizes and counters.
type Stats struct {
	// Pods per location.
	Active, Backoff, Unschedulable, InFlight int
	// Moves counts the pods that left the unschedulable pool, or that a
	// failed attempt requeued instead of parking, by reason: the event kind
	// (index.EventKind.String(), whether the pod was in the pool or its
	// failure replayed the event), "PodUpdate", "UnschedulableTimeout",
	// "InFlightOverflow", or MoveAll's reason.
	Moves map[string]uint64
	// Lookups counts index lookups (events with a non-empty pool).
	Lookups uint64
	// Replayed counts logged events evaluated against failed pods.
	Replayed uint64
	// LoggedEvents is the current length of the in-flight event log.
	LoggedEvents int
}

// counters are the cumulative figures of Stats.
type counters struct {
	moves    map[string]uint64
	lookups  uint64
	replayed uint64
}

// Stats returns a snapshot of the queue's sizes and counters.
func (q *Queue) Stats() Stats {
	q.mu.Lock()
	defer q.mu.Unlock()
	return Stats{
		Active:        q.active.Len(),
		Backoff:       q.backoff.Len(),
		Unschedulable: q.pool.len(),
		InFlight:      q.flight.Len(),
		Moves:         maps.Clone(q.stats.moves),
		Lookups:       q.stats.lookups,
		Replayed:      q.stats.replayed,
		LoggedEvents:  len(q.log),
	}
}
