package queue

import (
	"cmp"
	"container/list"
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/types"

	"github.com/affinityq/affinityq/index"
)

// Errors returned by the Queue; each is wrapped with the pod it concerns.
var (
	// ErrClosed is returned by Pop after Close.
	ErrClosed = errors.New("queue: closed")
	// ErrInvalidPod is returned by Add, Update and AddUnschedulable for a
	// nil pod or PodInfo, a pod without UID, an update that changes the UID,
	// and a pod the index refuses (absurdly many terms; the index's error is
	// wrapped too). A pod whose terms merely fail to compile is not
	// invalid: it is queued and retried on every event its terms listen to.
	ErrInvalidPod = errors.New("queue: invalid pod")
	// ErrAlreadyQueued is returned by Add for a UID the queue already holds,
	// in flight included.
	ErrAlreadyQueued = errors.New("queue: pod already queued")
	// ErrUnknownPod is returned by Update for a UID the queue does not hold.
	ErrUnknownPod = errors.New("queue: unknown pod")
	// ErrNotInFlight is returned by AddUnschedulable for a pod that is not
	// in flight (and was not deleted while in flight).
	ErrNotInFlight = errors.New("queue: pod not in flight")
)

// Queue is a scheduling queue whose unschedulable pool is an index.Index.
// It is safe for concurrent use; see the package documentation for the
// locking scheme and the cost of each method.
//
// Invariants (Validate checks them): every pod the queue holds has one
// podEntry in entries and sits in exactly one of activeQ, backoffQ, the
// unschedulable pool (pool and the index, which hold the same pods, the
// index also the stale ones; podEntry) and
// the in-flight list, as its entry's loc says; the event log is empty when
// no pod is in flight and otherwise holds, in sequence order, every event
// since the Pop of the oldest pod in flight.
type Queue struct {
	// Set by New, then read-only.
	opts     options
	ix       *index.Index[*podEntry]
	nsLookup index.NamespaceLabels // opts.nsLabels, or q.knownNamespaceLabels
	maxLog   int                   // event log bound; see logEventLocked
	done     chan struct{}         // closed by Close; ends Run

	// mu protects every field below, every podEntry and every PodInfo the
	// queue holds (not one handed out by Pop until it comes back). Lock
	// order: mu, then the index's shard locks (taken inside index calls).
	// The namespace-labels function, the less function and Metrics are
	// called with mu held and must not call the Queue.
	mu         sync.Mutex
	entries    map[types.UID]*podEntry      // every pod held, wherever it is
	active     podHeap                      // activeQ
	backoff    podHeap                      // backoffQ, by expiry
	pool       pool                         // the unschedulable pool; the index holds the same pods, plus the stale ones
	stale      int                          // entries whose index removal waits for Pop (podEntry.stale)
	flight     list.List                    // *podEntry in flight, in Pop order
	orphans    map[*PodInfo]struct{}        // attempts whose pod was deleted in flight, until Done/AddUnschedulable
	log        []loggedEvent                // events while pods are in flight, by seq
	eventSeq   uint64                       // sequence number of the last logged event
	overflow   uint64                       // pods popped before this seq requeue on failure
	arrivals   uint64                       // activeQ arrival counter (podEntry.seq)
	namespaces map[string]map[string]string // labels from NamespaceUpdated; nil with WithNamespaceLabels
	hits       []index.Hit[*podEntry]       // lookup buffer
	wake       chan struct{}                // closed when activeQ gains a pod or the queue closes; nil without waiters
	closed     bool
	stats      counters
	hooks      hooks // test hooks, set by export_test.go before use
}

// hooks are test hooks, nil in production.
type hooks struct {
	afterLookup func()           // with mu held, between an event's lookup and its moves
	trace       func(traceEvent) // with mu held, at every event, MoveAll, Pop and parking
}

// traceEvent is what hooks.trace records, in the order the lock
// serialises them.
type traceEvent struct {
	what string      // "event", "moveAll", "pop" or "park"
	ev   index.Event // for "event": a copy, so that the event does not escape
	uid  types.UID   // for "pop" and "park"
}

// New returns an empty Queue configured by opts (see the With… options for
// the defaults). It panics on an invalid policy or flush interval.
func New(opts ...Option) *Queue {
	o := defaultOptions
	for _, opt := range opts {
		opt(&o)
	}
	o.check()
	q := &Queue{
		opts:    o,
		maxLog:  defaultMaxLog,
		done:    make(chan struct{}),
		entries: map[types.UID]*podEntry{},
		orphans: map[*PodInfo]struct{}{},
		stats:   counters{moves: map[string]uint64{}},
	}
	if o.nsLabels != nil {
		q.nsLookup = o.nsLabels
	} else {
		q.namespaces = map[string]map[string]string{}
		q.nsLookup = q.knownNamespaceLabels
	}
	q.ix = index.New[*podEntry](index.WithNamespaceLabels(q.nsLookup))
	q.active.less = func(a, b *podEntry) bool {
		if c := q.activeOrder(a, b); c != 0 {
			return c < 0
		}
		return a.seq < b.seq
	}
	q.backoff.less = func(a, b *podEntry) bool {
		if !a.expiry.Equal(b.expiry) {
			return a.expiry.Before(b.expiry)
		}
		return a.seq < b.seq
	}
	return q
}

// activeOrder is activeQ's order, before the arrival order that breaks its
// ties: -1 when a pops before b, 1 when after, 0 when neither. The default
// (higher priority first, then older Timestamp) compares the entries' copies
// of the pods' priority and Timestamp: no pointer chasing into the pods,
// whose cache misses were most of the cost of moving a pod to activeQ.
func (q *Queue) activeOrder(a, b *podEntry) int {
	if less := q.opts.less; less != nil {
		switch {
		case less(a.info, b.info):
			return -1
		case less(b.info, a.info):
			return 1
		}
		return 0
	}
	if a.prio != b.prio {
		return cmp.Compare(b.prio, a.prio)
	}
	return a.ts.Compare(b.ts)
}

// knownNamespaceLabels is the namespace-labels function when the embedder
// gives none: the labels last seen by NamespaceUpdated. Called with mu held
// (every lookup and replay runs under it).
func (q *Queue) knownNamespaceLabels(ns string) (map[string]string, bool) {
	l, ok := q.namespaces[ns]
	return l, ok
}

func podRef(p *v1.Pod) string {
	return fmt.Sprintf("%s/%s (uid %q)", p.Namespace, p.Name, p.UID)
}

// compile checks pod and compiles it for the index, sharing the compiled
// rules of a parked pod with the same spec (index.Index.Compile); op names
// the caller in errors. It needs no lock.
func (q *Queue) compile(op string, pod *v1.Pod) (*index.Pending[*podEntry], error) {
	if pod == nil {
		return nil, fmt.Errorf("%w: %s: nil pod", ErrInvalidPod, op)
	}
	if pod.UID == "" {
		return nil, fmt.Errorf("%w: %s %s/%s: no UID", ErrInvalidPod, op, pod.Namespace, pod.Name)
	}
	p, err := q.ix.Compile(pod)
	if err != nil {
		return nil, fmt.Errorf("%w: %s %s: %w", ErrInvalidPod, op, podRef(pod), err)
	}
	return p, nil
}

// Add queues a new pending pod in activeQ. It fails with ErrInvalidPod or
// ErrAlreadyQueued, leaving the queue unchanged. The queue keeps pod, which
// must not be modified afterwards (informer objects are not).
func (q *Queue) Add(pod *v1.Pod) error {
	p, err := q.compile("add", pod)
	if err != nil {
		return err
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if _, ok := q.entries[pod.UID]; ok {
		return fmt.Errorf("%w: add %s", ErrAlreadyQueued, podRef(pod))
	}
	e := &podEntry{info: &PodInfo{Timestamp: q.opts.clock.Now()}, idx: -1, poolIdx: -1}
	e.setPod(pod, p)
	e.ts = e.info.Timestamp
	q.entries[pod.UID] = e
	q.pushActiveLocked(e)
	return nil
}

// Update replaces a pending pod's object (found by newPod's UID; oldPod may
// be nil). In activeQ or backoffQ the object is replaced in place. In the
// unschedulable pool the pod is re-indexed, and moved out as the policy
// moves pods (reason "PodUpdate") when its labels or spec changed, as
// kube-scheduler requeues such a pod. In flight, the newest object is kept
// for when the attempt ends: AddUnschedulable then requeues the pod instead
// of parking it if its labels or spec changed. It fails with ErrInvalidPod
// or ErrUnknownPod, leaving the queue unchanged.
func (q *Queue) Update(oldPod, newPod *v1.Pod) error {
	p, err := q.compile("update", newPod)
	if err != nil {
		return err
	}
	if oldPod != nil && oldPod.UID != newPod.UID {
		return fmt.Errorf("%w: update %s: UID changed from %q", ErrInvalidPod, podRef(newPod), oldPod.UID)
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	e, ok := q.entries[newPod.UID]
	if !ok {
		return fmt.Errorf("%w: update %s", ErrUnknownPod, podRef(newPod))
	}
	switch e.loc {
	case Active:
		e.setPod(newPod, p)
		q.active.fix(e)
	case Backoff:
		e.setPod(newPod, p)
	case Unschedulable:
		changed := podChanged(e.info.Pod, newPod)
		e.setPod(newPod, p)
		if changed {
			q.leavePoolLocked(e)
			q.requeueLocked(e, reasonPodUpdate, q.opts.clock.Now())
			q.stats.moves[reasonPodUpdate]++
		} else {
			e.pending = q.ix.InsertWithTag(p, e)
		}
	case InFlight:
		e.updated, e.updatedPending = newPod, p
	}
	return nil
}

// podChanged reports whether an update changes what scheduling looks at:
// the labels or the spec.
func podChanged(oldPod, newPod *v1.Pod) bool {
	return !maps.Equal(oldPod.Labels, newPod.Labels) || !equality.Semantic.DeepEqual(oldPod.Spec, newPod.Spec)
}

// Delete removes a pending pod (found by UID) wherever it is. For a pod in
// flight, a later Done or AddUnschedulable of that attempt is a no-op. A
// nil pod or an unknown UID is ignored.
func (q *Queue) Delete(pod *v1.Pod) {
	if pod == nil {
		q.opts.logger.V(2).Info("queue: Delete of a nil pod ignored")
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	e, ok := q.entries[pod.UID]
	if !ok {
		return
	}
	switch e.loc {
	case Active:
		q.active.remove(e)
	case Backoff:
		q.backoff.remove(e)
	case Unschedulable:
		q.leavePoolLocked(e)
	case InFlight:
		q.endFlightLocked(e)
		q.orphans[e.info] = struct{}{}
	}
	q.dropStaleLocked(e)
	delete(q.entries, pod.UID)
}

// Pop removes the head of activeQ and returns it, in flight: its Attempts
// counter is incremented, and the attempt must end with Done or
// AddUnschedulable. Pop blocks while activeQ is empty; it returns ctx.Err()
// once ctx ends and ErrClosed once the queue is closed (without popping:
// the pods stay where they are).
func (q *Queue) Pop(ctx context.Context) (*PodInfo, error) {
	q.mu.Lock()
	for {
		if err := ctx.Err(); err != nil {
			q.mu.Unlock()
			return nil, err
		}
		if q.closed {
			q.mu.Unlock()
			return nil, ErrClosed
		}
		if q.active.Len() > 0 {
			break
		}
		if q.wake == nil {
			q.wake = make(chan struct{})
		}
		wake := q.wake
		q.mu.Unlock()
		select {
		case <-ctx.Done():
		case <-wake:
		}
		q.mu.Lock()
	}
	defer q.mu.Unlock()
	e := q.active.pop()
	q.dropStaleLocked(e)
	e.loc = InFlight
	e.popSeq = q.eventSeq
	e.elem = q.flight.PushBack(e)
	pi := e.info
	pi.Attempts++
	if q.hooks.trace != nil {
		q.hooks.trace(traceEvent{what: "pop", uid: pi.Pod.UID})
	}
	if pi.InitialAttemptTimestamp.IsZero() {
		pi.InitialAttemptTimestamp = q.opts.clock.Now()
	}
	return pi, nil
}

// Done ends a successful attempt: the pod leaves the queue. Done of a pod
// that is not in flight is a no-op.
func (q *Queue) Done(uid types.UID) {
	q.mu.Lock()
	defer q.mu.Unlock()
	e, ok := q.entries[uid]
	if !ok || e.loc != InFlight {
		if !q.dropOrphanLocked(nil, uid) {
			q.opts.logger.V(2).Info("queue: Done of a pod not in flight ignored", "uid", uid)
		}
		return
	}
	q.endFlightLocked(e)
	delete(q.entries, uid)
}

// AddUnschedulable ends a failed attempt of pi's pod, rejected by the
// plugins named (kube-scheduler's UnschedulablePlugins). The pod's Timestamp
// becomes now.
//
//   - With no plugin named (the attempt failed with an error), the pod goes
//     to backoffQ (activeQ when its backoff is 0), as kube-scheduler retries
//     errors.
//   - If an Update during the attempt changed its labels or spec, or an
//     event logged since its Pop affects it under the policy (see "No lost
//     wake-ups" in the package documentation), it is requeued as the policy
//     moves pods.
//   - Otherwise it is parked in the unschedulable pool.
//
// The pod is found by pi.Pod's UID; pi is normally what Pop returned, and
// the queue's record of the attempt is used, with the newest object an
// Update brought during it. After a Delete during the attempt it is a no-op.
// It fails with ErrInvalidPod for a nil pi or pod and with ErrNotInFlight
// for a pod not in flight, leaving the queue unchanged.
func (q *Queue) AddUnschedulable(pi *PodInfo, rejectedBy ...string) error {
	if pi == nil || pi.Pod == nil {
		return fmt.Errorf("%w: add unschedulable: nil pod info or pod", ErrInvalidPod)
	}
	uid := pi.Pod.UID
	rejected, names := rejectedSet(rejectedBy)
	q.mu.Lock()
	defer q.mu.Unlock()
	if _, orphan := q.orphans[pi]; orphan {
		delete(q.orphans, pi)
		return nil
	}
	e, ok := q.entries[uid]
	if !ok || e.loc != InFlight {
		if q.dropOrphanLocked(pi, uid) {
			return nil
		}
		return fmt.Errorf("%w: add unschedulable %s", ErrNotInFlight, podRef(pi.Pod))
	}
	changed := false
	if e.updated != nil {
		changed = podChanged(e.info.Pod, e.updated)
		e.setPod(e.updated, e.updatedPending)
		e.updated, e.updatedPending = nil, nil
	}
	now := q.opts.clock.Now()
	e.info.Timestamp, e.ts = now, now
	e.info.UnschedulablePlugins = names
	e.rejected = rejected
	// Replay before the pod leaves the in-flight list: pruning may then
	// drop the events it needs.
	reason, requeue := "", false
	switch {
	case len(names) == 0:
	case changed:
		reason, requeue = reasonPodUpdate, true
	default:
		reason, requeue = q.replayLocked(e)
	}
	q.endFlightLocked(e)
	switch {
	case len(names) == 0:
		q.pushBackoffOrActiveLocked(e, now)
	case requeue:
		q.requeueLocked(e, reason, now)
		q.stats.moves[reason]++
	default:
		q.parkLocked(e, now)
	}
	return nil
}

// dropOrphanLocked forgets an attempt whose pod was deleted in flight: pi
// itself, or else one for uid (the caller may pass a PodInfo of its own).
// It reports whether there was one. The orphans are the deleted attempts
// still out: a handful at most, so the scan is cheap.
func (q *Queue) dropOrphanLocked(pi *PodInfo, uid types.UID) bool {
	if _, ok := q.orphans[pi]; ok {
		delete(q.orphans, pi)
		return true
	}
	for o := range q.orphans {
		if o.Pod.UID == uid {
			delete(q.orphans, o)
			return true
		}
	}
	return false
}

// Close makes Pop return ErrClosed and Run return. The other methods keep
// working, so that pods can still be inspected and removed.
func (q *Queue) Close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return
	}
	q.closed = true
	close(q.done)
	q.wakeLocked()
}

// Location reports where the pod with uid is; false if the queue does not
// hold it (never added, done, or deleted).
func (q *Queue) Location(uid types.UID) (Location, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	e, ok := q.entries[uid]
	if !ok {
		return 0, false
	}
	return e.loc, true
}

// Len returns the number of pods the queue holds, in flight included.
func (q *Queue) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.entries)
}

// wakeLocked wakes the goroutines blocked in Pop.
func (q *Queue) wakeLocked() {
	if q.wake != nil {
		close(q.wake)
		q.wake = nil
	}
}

// pushActiveLocked puts e, in no structure, into activeQ.
func (q *Queue) pushActiveLocked(e *podEntry) {
	e.loc = Active
	q.arrivals++
	e.seq = q.arrivals
	q.active.push(e)
	q.wakeLocked()
}

// pushBackoffOrActiveLocked puts e, in no structure, into backoffQ while
// its backoff lasts, else into activeQ.
func (q *Queue) pushBackoffOrActiveLocked(e *podEntry, now time.Time) {
	exp := q.backoffExpiry(e)
	if !exp.After(now) {
		q.pushActiveLocked(e)
		return
	}
	e.loc = Backoff
	e.expiry = exp
	q.arrivals++
	e.seq = q.arrivals
	q.backoff.push(e)
}

// parkLocked puts e, in no structure, into the unschedulable pool.
func (q *Queue) parkLocked(e *podEntry, now time.Time) {
	e.loc = Unschedulable
	e.parked = now
	q.pool.add(e)
	// Insert replaces a stale entry; hits carry e; and e keeps the index's
	// Pending, whose rules replicas share.
	e.pending = q.ix.InsertWithTag(e.pending, e)
	e.stale = false
	if q.hooks.trace != nil {
		q.hooks.trace(traceEvent{what: "park", uid: e.info.Pod.UID})
	}
}

// leavePoolLocked takes e out of the unschedulable pool and the index.
func (q *Queue) leavePoolLocked(e *podEntry) {
	q.pool.remove(e)
	q.ix.Remove(e.info.Pod.UID)
	e.loc = 0
}

// leavePoolDeferredLocked takes e out of the unschedulable pool, leaving its
// removal from the index to Pop or Delete (see podEntry.stale): an event
// moves its pods in O(1) each.
func (q *Queue) leavePoolDeferredLocked(e *podEntry) {
	q.pool.remove(e)
	e.stale = true
	q.stale++
	e.loc = 0
}

// dropStaleLocked removes a stale e from the index.
func (q *Queue) dropStaleLocked(e *podEntry) {
	if e.stale {
		q.ix.Remove(e.info.Pod.UID)
		e.stale = false
		q.stale--
	}
}

// requeueLocked puts e, in no structure, where the policy sends a pod it
// moves. The caller counts the move in q.stats.moves (once per batch).
func (q *Queue) requeueLocked(e *podEntry, reason string, now time.Time) {
	if q.opts.policy == Relation {
		if q.opts.resetOnMove {
			e.info.Attempts = 0
		}
		q.pushActiveLocked(e)
	} else {
		q.pushBackoffOrActiveLocked(e, now)
	}
	if q.opts.metrics != nil {
		q.opts.metrics.Moved(reason, e.loc)
	}
	if l := q.opts.logger.V(4); l.Enabled() {
		l.Info("queue: pod moved", "pod", podRef(e.info.Pod), "reason", reason, "to", e.loc.String())
	}
}
