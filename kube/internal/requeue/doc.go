// Package requeue is the requeueing half of affinityq's kube-scheduler
// plugins: it keeps the pods waiting in kube-scheduler's queue in an
// affinityq index (Tracker) and answers, for an assigned-pod or node
// event, which of them the event may make schedulable, a superset of the
// pods the in-tree QueueingHintFns would move. Package
// github.com/affinityq/affinityq/kube/affinityq turns those answers into
// PreQueueingHintFns; the scheduling cycle is package cycle's.
//
// The Tracker follows the pod informer's store, not its notifications (see
// Consistency in package affinityq's documentation), and feeds the index
// each pod as kube-scheduler's hints read it (Scheduler semantics there).
// The event helpers (Split, IndexKind, IndexEvent, Unhinted) say which
// registrations of a profile can be narrowed and translate the framework's
// events into index events.
//
// A lookup (Tracker.Candidates) costs what the index's does, proportional
// to the pods the event relates to, plus one entry per foreign, dirty or
// relabelled pod. A Tracker is safe for concurrent use; its lock order is
// on the type.
package requeue
