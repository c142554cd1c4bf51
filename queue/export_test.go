package queue

import (
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/affinityq/affinityq/index"
)

// SetAfterLookup installs a hook run with the queue's lock held between an
// event's index lookup and its moves. Call before the queue is shared.
func (q *Queue) SetAfterLookup(f func()) { q.hooks.afterLookup = f }

// SetTrace installs a hook run with the queue's lock held at every event
// (what "event", ev set), MoveAll ("moveAll"), Pop ("pop", uid set) and
// parking of a pod in the pool ("park", uid set), in the order the queue
// serialises them. Call before the queue is shared.
func (q *Queue) SetTrace(f func(what string, ev *index.Event, uid types.UID)) {
	q.hooks.trace = func(t traceEvent) {
		var ev *index.Event
		if t.what == "event" {
			ev = &t.ev
		}
		f(t.what, ev, t.uid)
	}
}

// SetMaxLog sets the event log bound. Call before the queue is shared.
func (q *Queue) SetMaxLog(n int) { q.maxLog = n }

// Rejected returns the rule sets of the plugins that rejected the pod's last
// attempt.
func (q *Queue) Rejected(uid types.UID) index.RuleSet {
	q.mu.Lock()
	defer q.mu.Unlock()
	if e, ok := q.entries[uid]; ok {
		return e.rejected
	}
	return 0
}

// Pending returns the compiled terms the queue holds for the pod.
func (q *Queue) Pending(uid types.UID) (*index.Pending[*podEntry], bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if e, ok := q.entries[uid]; ok {
		return e.pending, true
	}
	return nil, false
}

// BackoffExpiry returns when the backoff of a pod in backoffQ ends.
func (q *Queue) BackoffExpiry(uid types.UID) (time.Time, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if e, ok := q.entries[uid]; ok && e.loc == Backoff {
		return e.expiry, true
	}
	return time.Time{}, false
}

var BackoffDuration = backoffDuration
