// Package cycle is the scheduling-cycle half of affinityq's kube-scheduler
// plugins: it answers InterPodAffinity's and PodTopologySpread's PreFilter,
// PreFilterExtensions, Filter, PreScore, Score and NormalizeScore
// (InterPodAffinity, PodTopologySpread) from a placed index kept equal to
// the scheduler's snapshot (View), deciding as the in-tree plugins do.
// Package github.com/affinityq/affinityq/kube/affinityq calls it from the
// wrapper plugins and falls back to the in-tree plugin where it returns an
// error; requeueing is package requeue's.
//
// A View is synced with the cycle's node list at the first extension point
// that reads it (one pointer comparison per unchanged node, one per
// unchanged pod of a changed node) and answers the questions asked under
// its lock (View's documentation has the rules). The answers cost what
// package placed's do: proportional to the shapes the incoming pod's terms
// meet and to the domains, not to the placed pods. Everything is safe for
// concurrent use.
package cycle
