// Package fuzz is the naive reference for affinityq's requeue rules and the home
// of the cross-package differential fuzz targets (fuzzers of a single package stay
// beside that package's code).
//
// Reference keeps pending pods in a map and answers every assigned-pod, node and
// namespace event by scanning all of them, checking each pod's required pod
// affinity and anti-affinity terms and DoNotSchedule topology-spread constraints,
// compiled when the pod was added, with apimachinery itself (metav1.LabelSelectorAsSelector, labels.NewRequirement,
// labels.Selector.Matches). Its rules (reference.go) use no other package of
// this repository, so that it can serve as the oracle the index and the queue
// are compared against: it is written to be obviously correct, not fast.
// Reference.Event only dispatches an index.Event value to the matching method. For each pending pod it
// reports an Effect, the rule sets (InterPodAffinity, PodTopologySpread) under
// which the event affects the pod for each of the two policies, Relation and
// Transition, as DESIGN.md ("Who matches whom", "Which pending pods an event
// affects") specifies them.
//
// It is not a scheduling queue, keeps no index and does not decide which plugins
// rejected a pod: the caller filters a Transition answer by the rejecting
// plugins.
//
// # Cost model
//
// Add compiles the pod's terms; Remove and Len are O(1); Pods is O(n log n).
// Every event is a full scan: O(pods × terms) selector matches per event (a
// precompiled scan, the fastest a scan gets; kube-scheduler's queueing hints
// recompile every term on every event, which costs about 40× more, see
// BENCHMARKS.md). An assigned pod's own anti-affinity terms are compiled per
// event. Namespace selectors are evaluated at event time with the
// labels the lookup function returns then.
//
// # Concurrency
//
// A Reference is not safe for concurrent use; callers serialise access.
package fuzz
