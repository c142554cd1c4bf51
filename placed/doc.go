// Package placed indexes the pods already placed on nodes and answers, for
// an incoming pod, the counts kube-scheduler v1.37.2's InterPodAffinity
// and PodTopologySpread compute in PreFilter and PreScore by scanning
// every placed pod: InterPodAffinity's in time that follows
// the incoming pod's terms and the topology domains with a count,
// PodTopologySpread's in time that follows the domains of its key (and
// the tainted nodes, for a constraint that honours taints), or the nodes
// where the pod's node affinity is judged per node, neither in time that
// follows the placed pods.
//
// # Answers
//
// Index.InterPodAffinity returns the three maps of InterPodAffinity's
// PreFilter state (pkg/scheduler/framework/plugins/interpodaffinity/
// filtering.go, with the alpha gate InterPodAffinityHostnameFastPath off,
// its default), each from a topology pair (a node label key and its value)
// to a count:
//
//   - ExistingAntiAffinity: each required anti-affinity term of a placed
//     pod that the incoming pod matches (its namespace scope read with the
//     incoming pod's namespace labels) adds 1 at the term's topology key
//     and the value of that key on the placed pod's node;
//   - Affinity: a placed pod that matches every required affinity term of
//     the incoming pod adds 1 at each term's pair;
//   - AntiAffinity: each required anti-affinity term of the incoming pod
//     adds 1 at its pair for each placed pod it matches.
//
// A pair is counted only when the node carries the key; pods on nodes the
// index does not know count nowhere, as in a snapshot without the node.
// Terminating pods count, as InterPodAffinity counts them. As in
// kube-scheduler's PodInfo, a placed pod's list of terms with a term that
// does not compile counts as no terms, and an incoming pod with such a
// term is an error.
//
// Index.InterPodAffinityScores returns PreScore's topology score
// (scoring.go): the incoming pod's preferred terms over the placed pods,
// and the placed pods' required affinity (hardPodAffinityWeight) and
// preferred terms over the incoming pod, with its Skip.
// Index.InterPodAffinityScoresFor keeps that score only at the pairs of
// the nodes PreScore is given, the only ones Score reads, in time that
// follows those nodes rather than every domain with a count;
// Index.InterPodAffinityScoresAt takes those nodes as their values of each
// key, for a caller that keeps them apart from the nodes' label maps.
//
// Index.PodTopologySpread returns PreFilter's count per domain for each
// DoNotSchedule constraint (filtering.go, calPreFilterState): the pods of
// the incoming pod's namespace, not terminating, matching the constraint's
// selector with its matchLabelKeys merged (a {} selector counts none), on
// the nodes that carry every constraint's key and pass its node inclusion
// policies, every such node's domain present.
//
// Index.PodTopologySpreadScores returns PreScore's state for the
// ScheduleAnyway constraints over the nodes that passed Filter
// (scoring.go, initPreScoreState): the ignored nodes, the counts per
// domain of the filtered nodes and the normalizing weights, and for a
// hostname constraint each filtered node's own matching pods, which the
// in-tree Score counts by reading the node's pods.
//
// Index.InterPodAffinityTo hands InterPodAffinity's counts pair by pair to
// Tallies of the caller's, under the index's lock, for a caller that keeps
// them in a form of its own (kube-scheduler's plug-ins keep them by
// topology value, for Filter) and would otherwise copy the maps only to
// convert them.
//
// Index.AffinityChange and Index.SpreadChange are the per-cycle overlay:
// the change one pod placed or removed for a cycle only (a nominated pod,
// preemption's AddPod and RemovePod) makes to a copy of the counts, as the
// plug-ins' PreFilterExtensions make it, leaving the index as it is;
// Index.AffinityChangeTo makes AffinityChange's to Tallies.
//
// Namespace selectors read the labels WithNamespaceLabels gives, as
// kube-scheduler resolves them. An incoming pod's term, whose namespace
// selector (other than {}) kube-scheduler replaces by the namespaces that
// exist and it selects, matches a placed pod whose namespace does not
// exist (deleted before its pods, or not yet seen) only by naming the
// namespace or with {}. A placed pod's term reads the incoming pod's
// namespace labels, none when it does not exist, as kube-scheduler's
// GetNamespaceLabelsSnapshot. NamespaceChanged must be called when a
// namespace is created, relabelled or deleted.
//
// # Structure
//
// Every count is kept per shape, a distinct question: a term of placed
// pods (with its namespace scope, by its use: required anti-affinity,
// required affinity, preferred affinity or anti-affinity with its weight),
// the required affinity terms of an incoming pod taken together, one of
// its other terms, or one of its spread constraints. The replicas of a
// workload carry the same terms and ask the same questions, so they share
// shapes. A shape holds its count per topology pair (a spread shape also
// per node), kept exact as pods are placed, removed or relabelled and
// nodes relabelled.
//
// Which shapes a pod's change touches is the question package index
// answers: each shape is indexed there as one pod whose terms are the
// shape's (Index.Matching). The placed pods' shapes are asked about the
// incoming pod; the incoming pods' shapes are asked about
// every pod placed or removed. A shape of an incoming pod is built on its
// first question from label postings over the placed pods (roaring bitmaps
// of placed-pod ids by namespace, label key and value), and dropped, least
// recently asked first, to make room for a new one once WithMaxShapes are
// held (never one the current question asked: a question with more shapes
// than the bound keeps them until a later one makes room); a shape of
// placed pods lives while a placed pod carries its term. Placed pods whose
// namespace and pod affinity spec are the same share one list of their
// terms' shapes, found by the spec's protobuf bytes, so that placing a
// replica compiles nothing.
//
// # Concurrency
//
// One mutex guards an Index: a question may build or drop shapes, and
// kube-scheduler asks them from its one scheduling goroutine.
package placed
