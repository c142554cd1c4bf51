// Package affinityq provides affinityq's kube-scheduler plugins,
// AffinityqInterPodAffinity and AffinityqPodTopologySpread: the in-tree
// InterPodAffinity and PodTopologySpread with their requeueing narrowed by
// an index of the pending pods (package kube/internal/requeue) and their
// scheduling cycles answered from an index of the placed pods (package
// kube/internal/cycle). This package composes the two halves: the plugin
// factories, their arguments and metrics.
//
// The requeueing half gives the plugins' cluster events a
// PreQueueingHintFn (the SchedulerPreQueueingHints extension point, alpha
// in kube-scheduler v1.37, KEP-6132) backed by an affinityq index.
//
// Without a pre-hint, kube-scheduler's queue runs a plugin's QueueingHintFn
// for every unschedulable pod the plugin rejected, on every event the plugin
// registered: at 100,000 such pods, about a second per assigned-pod event.
// With one, the queue first asks the pre-hint which pods are worth asking
// about and runs the hints for those only. The wrappers answer from an
// index.Index of the pending pods, under its Transition rules (the in-tree
// hints written as index rules, broadened where upstream has bugs), so a
// superset of the pods the in-tree hints queue: the in-tree QueueingHintFns
// still decide exactly which pods move; the index only narrows whom they
// are asked about.
//
// # Plugins
//
// AffinityqInterPodAffinity and AffinityqPodTopologySpread (the names
// InterPodAffinityName and PodTopologySpreadName) take the same arguments as
// the in-tree plugins, build an in-tree instance with them, and register the
// same events with the same QueueingHintFns. They differ in three ways:
//
//   - The narrowable events (an assigned pod added, relabelled or deleted; a
//     node added, relabelled, re-tainted or deleted) are registered one
//     action at a time, each with a PreQueueingHintFn and its QueueingHintFn
//     behind a gate (see When the queue does not narrow); the others (the
//     target pod's own updates) keep none. Splitting the actions does not
//     change which registrations an incoming event matches.
//   - PreFilter and the target-pod hints first tell the shared tracker which
//     version of the pod the queue holds (see Consistency).
//   - Both answer the scheduling cycle (PreFilter and its extensions,
//     Filter, PreScore, Score, NormalizeScore) from an index of the placed
//     pods (see Scheduling cycle); SignPod is delegated to the in-tree
//     instance.
//
// A Plugins value holds what the wrappers of one scheduler process share:
// one index, fed from the pod informer of the scheduler's
// SharedInformerFactory. Register both factories of one Plugins value (see
// cmd/kube-scheduler) and enable the wrappers in place of the in-tree pair;
// the module's README shows the KubeSchedulerConfiguration.
//
// # When a pre-hint narrows
//
// kube-scheduler narrows an event to the union of the pods its pre-hints
// return, and then asks every plugin registered for the event about those
// pods only, including plugins that have no pre-hint of their own (a pod
// that only NodeResourcesFit rejected is not asked about a node addition
// unless some pre-hint names it). So a wrapper narrows an event only when
// no other plugin of its profile registers it without a pre-hint: in
// kube-scheduler's default profile, assigned pods added and relabelled and
// nodes deleted, but not assigned pods deleted or nodes added (NodePorts,
// NodeResourcesFit and others register those). For the other events the
// pre-hint answers "all pods", and kube-scheduler behaves as without it.
// The decision is taken per profile when the scheduler asks the wrappers
// for their events; if any profile declines an event, every wrapper
// answers "all pods" for it. Pending pods of scheduler names that no
// wrapper serves (other profiles, other schedulers) are always returned,
// so that their plugins are asked about them as before.
//
// Of its own pending pods a wrapper names only those it has rejected: a
// pod is in kube-scheduler's unschedulable pool with the wrapper among
// its rejectors only after a cycle in which the wrapper's PreFilter or
// Filter rejected it, and the queue asks a plugin's hint only about the
// parked pods the plugin rejected. The wrapper marks the pod in that
// cycle, before the pod can be parked; a mark lasts while the pod is
// pending. So the pods still waiting in activeQ for their first attempt
// (a burst of replicas whose affinity every one of them satisfies) are
// not named on every placement.
//
// # When the queue does not narrow
//
// For a declined event the queue calls the wrapper's QueueingHintFn for
// every unschedulable pod the wrapper rejected, and the in-tree hints
// compile the pod's terms on each call: InterPodAffinity's parses every
// selector of the pod (about 5 µs and 40 allocations per pod). Each
// narrowable registration's hint is therefore gated: the gate asks the
// tracker once per event for its candidates, the same answer a pre-hint
// would give, and answers QueueSkip for any other pod without calling the
// in-tree hint, which would answer QueueSkip too; the in-tree hint decides
// for the candidates. It keeps the answer for the event's objects while
// the tracker is unchanged (Tracker.Generation), so that the queue's walk
// over its pods costs one lookup per pod; the answer is computed on the
// second call in a row for an event, since the queue also asks about one
// pod at a time (the events a pod's cycle overlapped, when the cycle ends),
// where the in-tree hint costs less. What is left is the queue's own
// walk: at 100,000 pods an assigned-pod deletion costs about 0.47 s instead
// of 1.03 s (BenchmarkQueueEvent, event=delete).
//
// A pre-hint also answers "all pods" for objects of unexpected types, and
// the PodTopologySpread wrapper never narrows when its plugin arguments
// list default constraints with whenUnsatisfiable: DoNotSchedule (those
// are derived from services and controllers, which the index does not
// model).
//
// # Scheduler semantics
//
// The index is fed each pod as kube-scheduler's hints see it, which differs
// from affinityq's own semantics in two places, each of which would
// otherwise make the index narrower than the in-tree hints:
//
//   - a namespaceSelector that matches a namespace without labels (only
//     NotIn and DoesNotExist requirements) is replaced by {}: the in-tree
//     hints evaluate namespace selectors against no labels (upstream issue
//     141953), so such a term reaches every namespace there;
//   - matchLabelKeys of spread constraints are dropped when the
//     MatchLabelKeysInPodTopologySpread feature is off.
//
// The same applies to the required anti-affinity terms of the assigned pod
// of an event. An assigned pod deleted with a required anti-affinity term
// that does not compile makes the InterPodAffinity pre-hint answer "all
// pods": the in-tree hint returns an error, which kube-scheduler treats as
// Queue, for every pod.
//
// # Consistency
//
// The queue's pods come from the scheduler's own pod-informer handler; the
// index's from another handler of the same informer, which may run behind or
// ahead of it. Three mechanisms keep the pre-hint a superset anyway:
//
//   - A custom indexer on the pod informer, called synchronously whenever
//     the informer's store changes (before any handler hears of it), marks
//     the pending pod dirty; the tracker's handler indexes the store's
//     current version of the pod and clears the mark. Dirty pods are always
//     returned, so a pod the index has not caught up with is never missed.
//   - When the index replaces a pod with a version whose labels differ, the
//     pod is marked relabelled and always returned until the queue is seen
//     holding a version with the indexed labels: PreFilter and the
//     target-pod QueueingHintFns, which the queue runs for a rejected pod
//     whose labels changed, report the version they are given.
//   - Pods are removed from the index only when the store no longer holds
//     them pending.
//
// # Scheduling cycle
//
// In every cycle the in-tree InterPodAffinity and PodTopologySpread visit
// every placed pod in PreFilter and PreScore. The wrappers instead ask a
// placed.Index (package placed: counts per shape, kept as pods come and
// go) and decide Filter, Score and NormalizeScore from its answers with the
// in-tree rules; PreFilterExtensions' AddPod and RemovePod (nominated pods,
// preemption) change the cycle's copy of the counts through
// placed.Index.AffinityChangeTo and SpreadChange. TestInterPodAffinityCycles
// and TestPodTopologySpreadCycles run each in-tree plugin and its wrapper
// in the same cycles over random worlds and compare every status and
// score. (After several AddPod and RemovePod calls on one state, the
// in-tree PodTopologySpread's smallest domain can depend on its map order
// when domains tie; the wrapper keeps its two smallest domains by the same
// rule.)
//
// The index is kept equal to the cycle's snapshot, never fed from
// informers: assumed pods are in the snapshot before any informer reports
// them. The first PreFilter or PreScore of a cycle that reads the index
// walks the snapshot's node list and diffs into the index every NodeInfo
// whose pointer or generation differs from the last sync's (one
// comparison per node otherwise), reading of its pods only those whose
// PodInfo is not the last diff's (one comparison per pod otherwise), and
// marks the cycle's state so that the
// cycle's later extension points, of both wrappers, do not walk it again.
// A pod without required terms reads no placed pod in InterPodAffinity's
// PreFilter while the snapshot lists no node with required anti-affinity
// pods, nor one without preferred terms in its PreScore while it lists no
// node with affinity pods: the wrapper skips there, as the in-tree plugin
// does, without walking. InterPodAffinity's PreScore keeps the topology
// score only at the pairs of the nodes it is given (those that passed
// Filter, which Score then reads): the in-tree plugin sums every domain,
// but a node reads only its own pairs. One index serves every profile over
// the same snapshot.
//
// PodTopologySpread's default constraints are answered too: for a pod
// without constraints of its own, the index is asked about the defaults of
// the extension point's action with the selector the in-tree plugin
// derives (helper.DefaultSelector over the same listers, when PreFilter and
// PreScore run), a shape per distinct constraint, selector and namespace
// that the replicas of a workload share. A pod group's cycle is answered
// as any other: the group's members assumed into the snapshot are in the
// index once the next sync diffs them in (see cycle.View). The feature
// gates are read as the in-tree plugin reads them; only
// InterPodAffinityHostnameFastPath (alpha, off by default) leaves
// InterPodAffinity's cycle to the in-tree plugin. Namespace selectors
// resolve as kube-scheduler resolves them: an incoming pod's selector,
// other than {}, reaches only namespaces that exist (placed.Index).
//
// The in-tree instance answers instead when the snapshot cannot be listed
// or synced, counted by Plugins.CycleStats and
// affinityq_cycle_fallbacks_total{reason="sync"}. A nil cycle state, which
// the framework never passes, gets an Error status (Skip from PreFilter and
// Success from Filter for a pod whose resize is deferred, as in-tree).
//
// # Cost and concurrency
//
// A pre-hint is one index lookup (see package index: proportional to the
// pods the event relates to, not to the pool) plus one entry per foreign,
// dirty or relabelled pod, and allocates its result. The tracker's handler
// costs one lister lookup and one index insertion or removal per pod
// notification; the dirty-marking indexer one map write under a mutex.
// Everything is safe for concurrent use; the pre-hints are called by the
// queue under its lock.
//
// # Metrics
//
// New registers the wrappers' series in legacyregistry, which
// kube-scheduler's /metrics serves (kube/README.md lists them): pre-hint
// calls by plugin, event and answer, the pods the narrowed answers named
// against the pending pods indexed, the gates' answers, the index
// lookup's latency, the two indexes' sizes, the cycles answered and the
// fallbacks. WithSelfCheck checks one in N of the pending index's answers
// (a narrowed pre-hint's, or a gate's) against every indexed pending pod
// evaluated without the index (Pending.Affected), counting the pods the
// lookup missed; it is how a cluster learns of an index bug without
// waiting for the periodic flush to hide it.
package affinityq
