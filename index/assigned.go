package index

import (
	"slices"
	"sync/atomic"

	v1 "k8s.io/api/core/v1"

	"github.com/affinityq/affinityq/matcher"
)

// The required anti-affinity of assigned pods. An event on an assigned pod
// with required anti-affinity (every replica of a Deployment that keeps its
// pods on separate hosts) needs its terms compiled, for the symmetric rule,
// and the replicas of one workload have equal terms. An Index keeps the
// terms it compiled for recent assigned pods in a small direct-mapped cache,
// by the hash of what they are compiled from (the pod's namespace and its
// anti-affinity terms; not its labels, as matcher does not merge a term's
// matchLabelKeys or mismatchLabelKeys), so that a lookup compiles them only
// for a spec it has not seen lately. Each entry holds a copy of what it was
// compiled from, compared exactly, so a hash collision or a pod modified
// since costs a compilation, never wrong terms.
//
// Entries are immutable and published by atomic pointer: lookups read the
// cache without a lock, and the compiled terms are shared read-only.

// antiSlots is the size of the cache (a power of two).
const antiSlots = 256

type antiCache struct {
	slots [antiSlots]atomic.Pointer[antiEntry]
}

type antiEntry struct {
	hash  uint64
	ns    string
	anti  []v1.PodAffinityTerm
	terms []matcher.Term
}

// compile returns pod's compiled required anti-affinity terms, as
// matcher.CompileRequiredAntiAffinity, from the cache when it holds them.
// A nil cache compiles every time.
func (c *antiCache) compile(pod *v1.Pod) []matcher.Term {
	if pod == nil {
		return nil
	}
	_, anti := requiredTerms(pod)
	if len(anti) == 0 || c == nil {
		return matcher.CompileRequiredAntiAffinity(pod)
	}
	h := hashTerms(strHash(pod.Namespace), anti)
	slot := &c.slots[h%antiSlots]
	if e := slot.Load(); e != nil && e.hash == h && e.ns == pod.Namespace && slices.EqualFunc(e.anti, anti, sameTerm) {
		return e.terms
	}
	e := &antiEntry{hash: h, ns: pod.Namespace, terms: matcher.CompileRequiredAntiAffinity(pod)}
	e.anti = make([]v1.PodAffinityTerm, len(anti))
	for i := range anti {
		anti[i].DeepCopyInto(&e.anti[i])
	}
	slot.Store(e)
	return e.terms
}
