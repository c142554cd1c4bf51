// Package matcher compiles Kubernetes label selectors, pod (anti-)affinity terms
// and topology-spread constraints into immutable matchers whose answers are
// identical to apimachinery's (metav1.LabelSelectorAsSelector followed by
// labels.Selector.Matches) and to kube-scheduler v1.37.2's AffinityTerm.Matches.
//
// It knows nothing of indexes or queues: package index builds its posting lists
// from what a compiled Selector exposes (its positive requirements), and package
// queue decides what to do with the answers.
//
// # Semantics
//
// A nil selector matches nothing, an empty one ({}) matches everything;
// matchLabels and matchExpressions are ANDed. In needs the key present with a
// listed value, NotIn holds when the key is absent or its value is not listed,
// Exists and DoesNotExist test presence. The empty string is a valid value.
// CompileSelector rejects exactly the inputs apimachinery rejects (it validates
// every requirement with labels.NewRequirement), and its errors read
// "matcher: …" and wrap apimachinery's.
//
// A pending pod's terms (CompileTerms) carry their kind, weight, topology key,
// namespace scope and selector. An affinity or anti-affinity term's selector
// is its labelSelector as stored: kube-scheduler v1.37.2 never reads a term's
// matchLabelKeys / mismatchLabelKeys, which the API server merged into the
// labelSelector when the pod was created, so a pod relabelled since keeps the
// selector it was created with. A spread constraint's selector has its
// matchLabelKeys merged from the pod's own labels, as PodTopologySpread
// merges them. A term that fails to compile is kept, marked with its error
// and matching nothing, so that callers can keep its pod in a list they
// always check instead of dropping it.
//
// # Cost model
//
// Compilation allocates (it is done once per pod): a pod's terms share one
// array, their requirements one and their values one, so CompileTerms costs
// four allocations whatever the number of terms, and CompileRequired, which
// returns its Terms by value, three. A compiled term is 80 bytes, plus 48
// per requirement and 16 per value; a scope of one namespace (the pod's own,
// nearly every term's) and a term that compiled take nothing more. A term's
// list of several namespaces or namespace selector, and its error, take one
// allocation each. Selector.Matches and
// Term.Matches do not allocate: one map lookup per requirement, then a scan of
// the requirement's sorted values (binary search above a handful of values).
//
// # Concurrency
//
// Compiled values are immutable and safe for concurrent use. Slices returned by
// accessors (Selector.Requirements, Requirement.Values, Scope.Names) are shared
// with the compiled value and must not be modified.
package matcher
