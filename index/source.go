package index

import (
	"maps"
	"slices"

	"github.com/cespare/xxhash/v2"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A pod's rules are a function of its source: its namespace, its labels,
// its required pod-affinity and anti-affinity terms and its topology-spread
// constraints, exactly the fields Compile reads for them. Replicas of a
// workload have equal sources, so a shard remembers, per group, the source
// of one member (the group's representative) under the source's hash, and a
// pod whose source equals it takes the group's compiled rules instead of
// compiling its own: adding a replica then costs one hash and one
// comparison of its spec, not a compilation. The source is also how a
// shard groups pods: two pods are in one group when they have the same
// source (pods whose specs differ, however little, have groups of their
// own, even when their rules compile equal).
//
// The comparison is exact, so a hash collision only costs a compilation.
// Only groups whose rules compiled are remembered (failed rules name their
// pod in their errors). When a representative leaves, another member takes
// its place.

// Compile is the package function Compile, except that a pod with the same
// source as a pod indexed in ix (see above) gets that pod's compiled rules
// without compiling. Pass the result to Insert.
func (ix *Index[T]) Compile(pod *v1.Pod) (*Pending[T], error) {
	var p Pending[T]
	if err := ix.compile(&p, pod); err != nil {
		return nil, err
	}
	return &p, nil
}

// compile is Compile into p.
func (ix *Index[T]) compile(p *Pending[T], pod *v1.Pod) error {
	if err := checkPod(pod); err != nil {
		return err
	}
	nsHash := xxhash.Sum64String(pod.Namespace)
	src := sourceHash(pod, nsHash)
	// The pod's group is in its namespace's shard, or in shard 0 if its
	// rules reach into other namespaces (placement), which only compiling
	// would tell.
	home := ix.homeOf(nsHash)
	g := ix.shards[home].source(pod, src)
	if g == nil && home != 0 && ix.shards[0].foreign.Load() > 0 {
		g = ix.shards[0].source(pod, src)
	}
	if g != nil {
		// g may lose its last member before the insert; its rules stay valid
		// for pod, and the shard indexes them again (groupFor).
		*p = Pending[T]{pod: pod, rules: g.rules(), gid: g.id()}
		return nil
	}
	r, err := compile(pod, src)
	if err != nil {
		return err
	}
	*p = Pending[T]{pod: pod, rules: r}
	return nil
}

// source returns the group remembered under src if its representative has
// the same source as pod, nil otherwise.
func (s *shard[T]) source(pod *v1.Pod, src uint64) *group[T] {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if g := s.bySource(src); g != nil && sameSource(pod, g.representative().pod) {
		return g
	}
	return nil
}

// bySource returns the group remembered under src, nil if none. s.mu must
// be held.
func (s *shard[T]) bySource(src uint64) *group[T] {
	if r, ok := s.sources.get(src); ok {
		return s.groups[r-1]
	}
	return nil
}

// remember makes g's member at position at the representative of g's
// source, unless g has one or another group holds that source's hash (a
// hash collision): a group left without a representative is listed in
// unrepresented, by its rules, so that the pods given them still find it.
func (s *shard[T]) remember(g *group[T], at uint32) {
	if g.rep != 0 || !g.rules().shareable() {
		return
	}
	if _, taken := s.sources.get(g.rules().src); taken {
		s.unrepresented[g.rules()] = g
		return
	}
	s.sources.put(g.rules().src, g.id()+1)
	g.rep = at + 1
	s.unlist(g)
}

// forget drops g's representative, which is leaving g or g the shard.
func (s *shard[T]) forget(g *group[T]) {
	if g.rep == 0 {
		return
	}
	s.sources.delete(g.rules().src)
	g.rep = 0
}

// unlist takes g off unrepresented.
func (s *shard[T]) unlist(g *group[T]) {
	if len(s.unrepresented) > 0 && s.unrepresented[g.rules()] == g {
		delete(s.unrepresented, g.rules())
	}
}

// sourceHash hashes most of what sameSource compares, given the xxhash of
// the pod's namespace (which also picks its shard). It leaves out the contents of selectors'
// matchLabels (their size counts): iterating a map costs more than the rest
// of the hash, and the pod's own labels already tell workloads apart (a
// ReplicaSet's pods carry its pod-template-hash). Pods that differ only
// there share a hash; the exact comparison tells them apart.
func sourceHash(pod *v1.Pod, nsHash uint64) uint64 {
	h := mix(nsHash, mapHash(pod.Labels))
	aff, anti := requiredTerms(pod)
	h = hashTerms(h, aff)
	h = hashTerms(h, anti)
	spread := pod.Spec.TopologySpreadConstraints
	h = mix(h, uint64(len(spread)))
	for i := range spread {
		c := &spread[i]
		h = mix(h, xxhash.Sum64String(string(c.WhenUnsatisfiable)))
		h = mix(h, xxhash.Sum64String(c.TopologyKey))
		h = hashSelector(h, c.LabelSelector)
		h = hashStrings(h, c.MatchLabelKeys)
	}
	return h
}

// hashTerms, hashSelector and hashStrings mix into h the hash of affinity
// terms, of a selector (leaving out the contents of its matchLabels, see
// sourceHash) and of a list of strings: the parts of sourceHash that the
// hash of an assigned pod's anti-affinity (assigned.go) shares.
func hashTerms(h uint64, ts []v1.PodAffinityTerm) uint64 {
	h = mix(h, uint64(len(ts)))
	for i := range ts {
		t := &ts[i]
		h = mix(h, xxhash.Sum64String(t.TopologyKey))
		h = hashSelector(h, t.LabelSelector)
		h = hashStrings(h, t.Namespaces)
		h = hashSelector(h, t.NamespaceSelector)
	}
	return h
}

func hashSelector(h uint64, ls *metav1.LabelSelector) uint64 {
	if ls == nil {
		return mix(h, 1)
	}
	h = mix(h, uint64(len(ls.MatchLabels)))
	h = mix(h, uint64(len(ls.MatchExpressions)))
	for i := range ls.MatchExpressions {
		e := &ls.MatchExpressions[i]
		h = mix(h, xxhash.Sum64String(e.Key))
		h = mix(h, xxhash.Sum64String(string(e.Operator)))
		h = hashStrings(h, e.Values)
	}
	return h
}

func hashStrings(h uint64, ss []string) uint64 {
	h = mix(h, uint64(len(ss)))
	for _, s := range ss {
		h = mix(h, xxhash.Sum64String(s))
	}
	return h
}

// mapHash hashes a label map, order-free, as map iteration order is random.
func mapHash(m map[string]string) uint64 {
	var h uint64
	for k, v := range m {
		h += mix(xxhash.Sum64String(k), xxhash.Sum64String(v))
	}
	return mix(h, uint64(len(m)))
}

// sameSource reports whether a and b compile to equal rules because every
// field Compile reads for them is equal. It is stricter than equal rules
// (the order of a selector's expressions counts, say), never looser.
func sameSource(a, b *v1.Pod) bool {
	if a.Namespace != b.Namespace || !maps.Equal(a.Labels, b.Labels) {
		return false
	}
	aAff, aAnti := requiredTerms(a)
	bAff, bAnti := requiredTerms(b)
	return slices.EqualFunc(aAff, bAff, sameTerm) && slices.EqualFunc(aAnti, bAnti, sameTerm) &&
		slices.EqualFunc(a.Spec.TopologySpreadConstraints, b.Spec.TopologySpreadConstraints, sameSpread)
}

func requiredTerms(pod *v1.Pod) (aff, anti []v1.PodAffinityTerm) {
	if a := pod.Spec.Affinity; a != nil {
		if a.PodAffinity != nil {
			aff = a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution
		}
		if a.PodAntiAffinity != nil {
			anti = a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution
		}
	}
	return aff, anti
}

// sameTerm compares the fields of an affinity term that matcher compiles: a
// term's matchLabelKeys and mismatchLabelKeys are not among them (as in
// kube-scheduler v1.37.2, the selector is the stored labelSelector alone),
// so terms differing only there compile equal and share.
func sameTerm(a, b v1.PodAffinityTerm) bool {
	return a.TopologyKey == b.TopologyKey && sameSelector(a.LabelSelector, b.LabelSelector) &&
		slices.Equal(a.Namespaces, b.Namespaces) && sameSelector(a.NamespaceSelector, b.NamespaceSelector)
}

func sameSpread(a, b v1.TopologySpreadConstraint) bool {
	return a.WhenUnsatisfiable == b.WhenUnsatisfiable && a.TopologyKey == b.TopologyKey &&
		sameSelector(a.LabelSelector, b.LabelSelector) && slices.Equal(a.MatchLabelKeys, b.MatchLabelKeys)
}

func sameSelector(a, b *metav1.LabelSelector) bool {
	if a == nil || b == nil {
		return a == b
	}
	return maps.Equal(a.MatchLabels, b.MatchLabels) &&
		slices.EqualFunc(a.MatchExpressions, b.MatchExpressions, func(x, y metav1.LabelSelectorRequirement) bool {
			return x.Key == y.Key && x.Operator == y.Operator && slices.Equal(x.Values, y.Values)
		})
}
