// Package feed wires client-go informers to an affinityq queue or index:
// it registers event handlers on a SharedInformerFactory's pod, node and
// namespace informers and turns what they deliver into the calls a Sink
// expects.
//
//   - Pending pods (no spec.nodeName) of the scheduler names the feed serves
//     (WithSchedulerNames, default "default-scheduler") → Add, Update,
//     Delete. A pending pod that gets bound leaves through Delete and comes
//     back as an assigned pod.
//   - Assigned pods (spec.nodeName set), of any scheduler → AssignedPodAdded,
//     AssignedPodUpdated (only when the labels changed: no rule of the index
//     reads anything else of an assigned pod that can change),
//     AssignedPodDeleted. As kube-scheduler does, a pending pod of a served
//     scheduler that loses its nominated node (nomination changed, or the
//     pod deleted) is also reported as an assigned pod deleted, since the
//     index counts a nominated pod as placed.
//   - Nodes → NodeAdded, NodeUpdated (only when labels or taints changed),
//     NodeDeleted.
//   - Namespaces → NamespaceUpdated: an added namespace as (nil, ns), a
//     relabelled one as (old, new), a deleted one as (old, nil). A queue
//     without queue.WithNamespaceLabels learns namespace labels from these
//     calls; an index reads them through index.WithNamespaceLabels, which
//     NamespaceLabels builds from the namespace informer's lister.
//
// Pods that have terminated (phase Succeeded or Failed) are treated as gone,
// as kube-scheduler's own informer factory filters them out. Deletions whose
// object arrives as a cache.DeletedFinalStateUnknown tombstone are unwrapped;
// since the tombstone's object may be stale, such a pod is removed as a
// pending pod and reported as an assigned pod deleted (the index ignores the
// latter for a pod that was not placed). Updates that carry the same
// resource version (informer resyncs) are dropped.
//
// *queue.Queue is a Sink. IndexSink adapts an *index.Index[T]: it keeps the
// index's pending pods current and hands each event's hits to a callback.
//
// The feed is not a scheduler: it does not decide which pending pods are in
// the unschedulable pool (the Sink does), and it does not feed the events
// the index does not model (volumes, resource claims, node allocatable);
// an embedder turns those into queue.Queue.MoveAll.
//
// # Cost and concurrency
//
// A handler does O(1) work besides the Sink call, plus a comparison of the
// labels (and, for nodes, taints) of an update. Handlers run on the
// informers' goroutines, one per informer and handler registration, so a
// Sink's methods are called concurrently and must be safe for it (Queue and
// IndexSink are). Errors returned by the Sink and objects of unexpected
// types go to the error handler (WithErrorHandler); the feed never panics
// on input.
package feed
