// Package queue is a Kubernetes-style scheduling queue whose unschedulable
// pool is an index.Index, so that a cluster event finds the pending pods it
// may unblock in time proportional to their number, not to the pool's.
//
// A pod lives in one of four places (Location): activeQ (a heap: higher
// priority first, then older Timestamp; WithLess replaces the order),
// backoffQ (a heap by backoff expiry), the unschedulable pool (the index,
// plus the time each pod entered it), or in flight (popped, being
// scheduled). Add puts a new pod in activeQ; Pop takes the head and hands it
// to the scheduler; the attempt ends with Done (the pod leaves the queue) or
// AddUnschedulable with the names of the plugins that rejected it (the pod
// is parked in the pool, or goes to backoffQ when no plugin rejected it: an
// error). Events on assigned pods, nodes and namespaces move the affected
// pool pods out, as the Policy says:
//
//   - Relation (default): every pod the event relates to (a term of the pod
//     matches the event's pod or the pod matches the event pod's
//     anti-affinity, or the node and namespace rules hold) moves straight to
//     activeQ, its attempt counter reset (WithResetOnMove).
//   - Transition: kube-scheduler v1.37's queueing hints; a pod moves only if
//     the event's transition concerns a plugin that rejected it
//     (InterPodAffinity, PodTopologySpread), to backoffQ while it is still
//     backing off, else to activeQ; counters are kept.
//
// MoveAll moves every pool pod, as the policy moves pods. Run moves expired
// backoffs to activeQ every second and, every flush interval (30 s), the
// pods that outstayed the unschedulable timeout (5 min). Backoff is 1 s
// after the first attempt, doubling per attempt, capped at 10 s, measured
// from the last failure. All times come from the injected clock.
//
// The package is not a scheduler: it does not run plugins, evaluate hints
// of plugins other than InterPodAffinity and PodTopologySpread, nominate
// nodes, gate pods or track pod groups. Events the index does not model are
// the embedder's to turn into MoveAll.
//
// # No lost wake-ups
//
// A pod in flight is in no pool, so an event's lookup cannot see it. While
// any pod is in flight the queue logs every event (and every MoveAll) with a
// sequence number; each pod records the sequence number at its Pop. When an
// attempt fails, the events logged since its Pop are replayed against the
// pod's compiled terms (index.Index.Affected) with the policy's filter,
// and if one applies the pod is requeued instead of parked. Replay sees the
// namespace labels each event was fed with: walking the log backwards, a
// logged NamespaceUpdated stands in for its old labels. The log is pruned
// when the oldest pod in flight finishes and emptied when none is; past
// 16384 events it is dropped and the pods then in flight are requeued on
// failure, so an attempt that never ends cannot grow it without bound. An
// Update that changes a pod's labels or spec while it is in flight likewise
// requeues it when it fails; in the pool, such an Update moves it out.
//
// The same window exists between an event's lookup and a concurrent
// AddUnschedulable. One mutex closes it: an event holds the queue's lock
// from its lookup through its moves to its logging, and AddUnschedulable
// holds it from its replay to the parking of the pod, so each sees the
// other entirely or not at all.
//
// # Concurrency
//
// A Queue is safe for concurrent use. One mutex (Queue.mu) protects all of
// its state: the heaps, the pool, the in-flight list, the event log, the
// namespace labels it keeps, the counters, and every PodInfo it holds. Pop
// waits without it. The lock order is: the queue's mutex, then the index's
// shard locks, which index calls take inside it. Functions the embedder
// passes (WithNamespaceLabels, WithLess, Metrics) are called with the
// queue's lock held, the namespace-labels function with a shard lock too:
// they must not call back into the Queue. A PodInfo returned by Pop belongs
// to the scheduler until Done or AddUnschedulable, and must not be used
// after. Pod objects passed in are kept, not copied, and must not be
// modified (informer objects are not).
//
// # Cost model
//
// With n pods queued, h pods an event affects and k pods in flight: Add,
// Pop, Done, Delete and Update are O(log n) plus compiling the pod's terms
// (Add and Update compile outside the lock) and, for a pool pod, one index
// insertion or removal. An event is one index lookup (proportional to h,
// not to the pool; see package index), plus, per moved pod, a heap push
// (its removal from the index waits for its Pop, and lookups skip it until
// then), plus O(1) to log the event when k > 0. AddUnschedulable is
// O(log n) plus one Index.Affected per event logged since the pod's Pop,
// plus inserting the pod in the index; pruning the log copies what remains
// of it. MoveAll and the flush of leftovers scan the pool and sort what
// moves, O(pool log pool); the backoff flush is O(log n) per pod moved.
// Location is O(1); Stats copies the per-reason counters. The queue adds no
// allocation to an event (the index's own are listed at
// index.Index.Lookup). BENCHMARKS.md has the measured figures
// (BenchmarkQueue).
//
// Every method holds the lock for its whole duration, so events, pops and
// failures are serialised: the queue trades the index's concurrency for a
// simple proof that no wake-up is lost.
package queue
