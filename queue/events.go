package queue

import (
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/affinityq/affinityq/index"
)

// AssignedPodAdded handles the addition of an assigned pod (one with
// spec.nodeName or status.nominatedNodeName; others affect no one): the
// unschedulable pods it affects under the policy are moved. A nil pod is
// ignored. Like every event method, it keeps pod (in the event log while a
// pod is in flight), which must not be modified afterwards.
func (q *Queue) AssignedPodAdded(pod *v1.Pod) {
	if pod == nil {
		return
	}
	q.handle(&index.Event{Kind: index.AssignedPodAdd, NewPod: pod})
}

// AssignedPodUpdated handles an update of an assigned pod.
func (q *Queue) AssignedPodUpdated(oldPod, newPod *v1.Pod) {
	if oldPod == nil || newPod == nil {
		return
	}
	q.handle(&index.Event{Kind: index.AssignedPodUpdate, OldPod: oldPod, NewPod: newPod})
}

// AssignedPodDeleted handles the deletion of an assigned pod.
func (q *Queue) AssignedPodDeleted(pod *v1.Pod) {
	if pod == nil {
		return
	}
	q.handle(&index.Event{Kind: index.AssignedPodDelete, OldPod: pod})
}

// NodeAdded handles the addition of a node.
func (q *Queue) NodeAdded(node *v1.Node) {
	if node == nil {
		return
	}
	q.handle(&index.Event{Kind: index.NodeAdd, NewNode: node})
}

// NodeUpdated handles an update of a node.
func (q *Queue) NodeUpdated(oldNode, newNode *v1.Node) {
	if oldNode == nil || newNode == nil {
		return
	}
	q.handle(&index.Event{Kind: index.NodeUpdate, OldNode: oldNode, NewNode: newNode})
}

// NodeDeleted handles the deletion of a node.
func (q *Queue) NodeDeleted(node *v1.Node) {
	if node == nil {
		return
	}
	q.handle(&index.Event{Kind: index.NodeDelete, OldNode: node})
}

// NamespaceUpdated handles a change of a namespace's labels. Without
// WithNamespaceLabels the queue also records newNS's labels (deletes them
// for a nil newNS) as the namespace's labels from now on; with it, the
// embedder's function must already return the new labels.
func (q *Queue) NamespaceUpdated(oldNS, newNS *v1.Namespace) {
	if oldNS == nil && newNS == nil {
		return
	}
	q.handleWith(&index.Event{Kind: index.NamespaceUpdate, OldNamespace: oldNS, NewNamespace: newNS}, func() {
		if q.namespaces == nil {
			return
		}
		if newNS != nil {
			q.namespaces[newNS.Name] = newNS.Labels
		} else {
			delete(q.namespaces, oldNS.Name)
		}
	})
}

func (q *Queue) handle(ev *index.Event) { q.handleWith(ev, nil) }

// maxKeptHits bounds the lookup buffer kept between events.
const maxKeptHits = 1 << 12

// handleWith runs one event: with mu held across the whole, first before
// (if any), then the index lookup, the moves of the pods the policy selects,
// and the logging of the event for the pods in flight. Holding mu from the
// lookup to the log is what closes the window in which a pod could fail
// unseen by both (see "No lost wake-ups" in the package documentation).
func (q *Queue) handleWith(ev *index.Event, before func()) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if before != nil {
		before()
	}
	if q.hooks.trace != nil {
		q.hooks.trace(traceEvent{what: "event", ev: *ev})
	}
	hits := q.hits[:0]
	if q.pool.len() > 0 {
		hits = q.ix.Lookup(hits, ev)
		q.stats.lookups++
	}
	if q.hooks.afterLookup != nil {
		q.hooks.afterLookup()
	}
	reason := ev.Kind.String()
	var now time.Time
	if q.opts.policy == Transition && len(hits) > 0 {
		now = q.opts.clock.Now()
	}
	moved := 0
	for i := range hits {
		h := &hits[i]
		e := h.Tag // the entry the index was given at parking
		if e == nil || e.loc != Unschedulable || !q.opts.policy.applies(h.Relation, h.Transition, e.rejected) {
			continue
		}
		q.leavePoolDeferredLocked(e)
		q.requeueLocked(e, reason, now)
		moved++
	}
	if moved > 0 {
		q.stats.moves[reason] += uint64(moved)
	}
	if q.opts.metrics != nil {
		q.opts.metrics.Lookup(ev.Kind, len(hits), moved)
	}
	clear(hits)
	if cap(hits) > maxKeptHits {
		hits = nil // do not keep the buffer of a rare huge event
	}
	q.hits = hits[:0]
	q.logEventLocked(ev, "")
}

// MoveAll moves every unschedulable pod, as the policy moves pods: it is
// the wildcard for events the index does not model (a node's resources
// freed, a volume bound…). Like any event it is logged for the pods in
// flight, which are requeued if their attempt fails. reason names the cause
// in Stats.Moves and Metrics ("MoveAll" when empty); keep the set of
// reasons small.
func (q *Queue) MoveAll(reason string) {
	if reason == "" {
		reason = reasonMoveAll
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.hooks.trace != nil {
		q.hooks.trace(traceEvent{what: "moveAll"})
	}
	q.moveWhereLocked(reason, func(*podEntry) bool { return true })
	q.logEventLocked(nil, reason)
}
