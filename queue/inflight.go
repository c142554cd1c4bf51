package queue

import (
	"slices"
	"sort"

	"github.com/affinityq/affinityq/index"
)

// loggedEvent is an event that arrived while a pod was in flight, numbered
// in arrival order: an index event, or a MoveAll (moveAll is its reason).
type loggedEvent struct {
	seq     uint64
	ev      index.Event
	moveAll string
}

// defaultMaxLog bounds the event log. Past it the log is dropped and every
// pod then in flight is requeued when it fails (reason InFlightOverflow), as
// if every event applied: memory stays bounded when an attempt never ends,
// and no wake-up is lost.
const defaultMaxLog = 1 << 14

// Reasons a pod leaves the unschedulable pool (or is requeued instead of
// parked), besides the event kinds (index.EventKind.String()), as counted
// in Stats.Moves and reported to Metrics.Moved.
const (
	reasonPodUpdate   = "PodUpdate"            // its own labels or spec changed
	reasonTimeout     = "UnschedulableTimeout" // the periodic flush
	reasonMoveAll     = "MoveAll"              // MoveAll with an empty reason
	reasonLogOverflow = "InFlightOverflow"     // the event log overflowed during its attempt
)

// logEventLocked appends ev (or, with moveAll set, a MoveAll) to the log
// if a pod is in flight.
func (q *Queue) logEventLocked(ev *index.Event, moveAll string) {
	if q.flight.Len() == 0 {
		return
	}
	q.eventSeq++
	if len(q.log) >= q.maxLog {
		// Every pod in flight now has popSeq < eventSeq: it requeues on
		// failure. Pods popped later replay the log from here on.
		q.overflow = q.eventSeq
		clear(q.log)
		q.log = q.log[:0]
		return
	}
	le := loggedEvent{seq: q.eventSeq, moveAll: moveAll}
	if ev != nil {
		le.ev = *ev
	}
	q.log = append(q.log, le)
}

// replayLocked decides whether e, failing now, must be requeued instead of
// parked because of an event that arrived during its attempt: the log
// overflowed, or a logged event since its Pop affects its compiled terms
// under the policy, given the plugins that rejected it. It returns the
// reason to count the move under.
//
// Events are evaluated with the namespace labels they were fed with: the
// log is walked from the newest event back, and a logged NamespaceUpdate
// makes the events before it see its old labels.
func (q *Queue) replayLocked(e *podEntry) (reason string, requeue bool) {
	if e.popSeq < q.overflow {
		return reasonLogOverflow, true
	}
	start := sort.Search(len(q.log), func(i int) bool { return q.log[i].seq > e.popSeq })
	lookup := q.nsLookup
	var older map[string]map[string]string // namespace → labels before a later NamespaceUpdate
	for i := len(q.log) - 1; i >= start; i-- {
		if r := q.log[i].moveAll; r != "" {
			return r, true
		}
		ev := &q.log[i].ev
		q.stats.replayed++
		rel, tr := q.ix.Affected(e.pending, ev, lookup)
		if q.opts.policy.applies(rel, tr, e.rejected) {
			return ev.Kind.String(), true
		}
		if ev.Kind == index.NamespaceUpdate {
			name, labels := namespaceBefore(ev)
			if older == nil {
				older = map[string]map[string]string{}
				base := q.nsLookup
				lookup = func(ns string) (map[string]string, bool) {
					if l, ok := older[ns]; ok {
						return l, true
					}
					return base(ns)
				}
			}
			older[name] = labels
		}
	}
	return "", false
}

// namespaceBefore returns the namespace a NamespaceUpdate event is about and
// its labels before it.
func namespaceBefore(ev *index.Event) (name string, labels map[string]string) {
	if ev.OldNamespace != nil {
		return ev.OldNamespace.Name, ev.OldNamespace.Labels
	}
	if ev.NewNamespace != nil {
		return ev.NewNamespace.Name, nil
	}
	return "", nil
}

// endFlightLocked takes e off the in-flight list and prunes the log.
func (q *Queue) endFlightLocked(e *podEntry) {
	q.flight.Remove(e.elem)
	e.elem = nil
	e.loc = 0
	q.pruneLocked()
}

// pruneLocked drops the logged events that no pod in flight needs: all of
// them when none is in flight, else those up to the Pop of the oldest.
func (q *Queue) pruneLocked() {
	front := q.flight.Front()
	if front == nil {
		clear(q.log)
		q.log = q.log[:0]
		return
	}
	oldest := front.Value.(*podEntry).popSeq
	n := sort.Search(len(q.log), func(i int) bool { return q.log[i].seq > oldest })
	if n > 0 {
		q.log = slices.Delete(q.log, 0, n)
	}
}
