package index

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	v1 "k8s.io/api/core/v1"

	"github.com/affinityq/affinityq/matcher"
)

// Pending is a pending pod compiled for the index: its required affinity and
// anti-affinity terms and its DoNotSchedule spread constraints. Preferred
// terms are not kept: they never make a pod unschedulable.
//
// A Pending is immutable once compiled and may be shared between goroutines;
// a queue can keep one for a pod in flight and replay events against it with
// Affected.
type Pending struct {
	pod *v1.Pod
	*rules
	tag any // the embedder's, returned in every Hit of the pod (WithTag)

	// at is the pod's position in rules.members while indexed; only the
	// Pendings the index keeps have it, under the owning shard's lock.
	at uint32
}

// rules is what an event's effect on a pending pod depends on: its compiled
// terms, its namespace and its labels. Replicas of one workload have equal
// rules. A shard indexes groups, not pods: each group is one rules value
// with the pods that have it (members), and every posting names groups. The
// replicas of a workload, found by their source (source.go), are thus one
// group: the index's memory and the cost of adding a replica do not grow
// with its terms, and a lookup evaluates an event once per group.
//
// The compiled fields (terms, counts, flags, from, src) are immutable once
// the rules are published. The group fields (id and rep, which share a word
// with the counts to keep the struct small, owner, members) belong to the
// shard that indexes the rules (owner, set once when the group is created,
// before the rules are published) and are protected by its lock.
type rules struct {
	terms       []matcher.Term // required affinity, then required anti-affinity, then spread
	nAff, nAnti uint16
	flags       pendingFlags
	reachesOut  bool   // a term reaches beyond ns (a listed namespace or a selector), or a term failed
	id          uint32 // the group's slot in owner.groups while it has members (a group field, below)
	rep         uint32 // 1 + the position in members of the representative, by whose source owner.sources holds the group (source.go); 0 if none (a group field)
	// from is the pod the rules were compiled from, whose namespace and
	// labels they are (ns, labels). It is kept, not copied: a pod costs the
	// rules one pointer, not a string and a map, and a group's members
	// have the same namespace and labels. The rules keep that pod alive as
	// long as they live, after it leaves the index too.
	from *v1.Pod
	// src is the hash of the source (source.go) of the pods these rules
	// were compiled for, 0 when not known (failed rules, or rules not yet
	// grouped); it is set before the rules are published.
	src uint64

	owner   *shard     // the shard whose group these rules are; nil for freshly compiled rules
	members []*Pending // the indexed pods of the group; none once it is dropped
}

type pendingFlags uint8

const (
	affinityErr pendingFlags = 1 << iota // a required (anti-)affinity term failed to compile
	spreadErr                            // a spread constraint failed to compile
)

// maxTerms bounds the terms of one pod; the API server allows far fewer.
const maxTerms = 1 << 12

// Compile compiles pod for the index. It fails only for a nil pod, a pod
// without UID, or absurdly many terms. Terms that do not compile are not an
// error here: the pod is kept and always checked, as kube-scheduler requeues
// it on every event; Err reports them.
func Compile(pod *v1.Pod) (*Pending, error) {
	if err := checkPod(pod); err != nil {
		return nil, err
	}
	return compile(pod)
}

// compile is Compile for a checked pod.
func compile(pod *v1.Pod) (*Pending, error) {
	t, _ := matcher.CompileRequired(pod) // errors are in the terms, and Err recompiles them
	n := len(t.Affinity) + len(t.AntiAffinity) + len(t.Spread)
	if n > maxTerms {
		return nil, fmt.Errorf("index: pod %s/%s has %d terms, more than %d", pod.Namespace, pod.Name, n, maxTerms)
	}
	// A compiled pod and its rules are allocated together: for a pod that
	// founds a group (a unique pod, a workload's first replica) they live
	// as long as each other.
	both := &struct {
		p Pending
		r rules
	}{}
	p, r := &both.p, &both.r
	*r = rules{nAff: uint16(len(t.Affinity)), nAnti: uint16(len(t.AntiAffinity)), from: pod}
	r.terms = t.Required()
	if t.AffinityErr() != nil {
		r.flags |= affinityErr
	}
	if t.SpreadErr() != nil {
		r.flags |= spreadErr
	}
	r.reachesOut = r.flags != 0 || reachesOut(r.terms, pod.Namespace)
	p.pod, p.rules = pod, r
	return p, nil
}

// checkPod rejects what no index can hold.
func checkPod(pod *v1.Pod) error {
	if pod == nil {
		return errors.New("index: nil pod")
	}
	if pod.UID == "" {
		return fmt.Errorf("index: pod %s/%s has no UID", pod.Namespace, pod.Name)
	}
	return nil
}

// WithTag returns a copy of p that carries tag: every Hit of the indexed
// copy returns it in Hit.Tag, so an embedder (the queue) finds its own
// record of a hit pod without a lookup by UID.
func (p *Pending) WithTag(tag any) *Pending {
	c := *p
	c.tag = tag
	return &c
}

// Tag returns the tag given by WithTag, nil if none.
func (p *Pending) Tag() any { return p.tag }

// Pod returns the pod the Pending was compiled from.
func (p *Pending) Pod() *v1.Pod { return p.pod }

// Err returns the compile errors of the pod's required terms and spread
// constraints, nil when all compiled. A pod with errors is still indexed: it
// is affected by every event its failed rule set listens to. The errors are
// compiled again on each call (they are a diagnosis, and a Pending does not
// carry them).
func (p *Pending) Err() error {
	if p.flags == 0 {
		return nil
	}
	_, err := matcher.CompileRequired(p.pod)
	return fmt.Errorf("index: pod %s/%s kept and always checked: %w", p.pod.Namespace, p.pod.Name, err)
}

// representative returns the member by whose source the group is found,
// nil if none.
func (r *rules) representative() *Pending {
	if r.rep == 0 {
		return nil
	}
	return r.members[r.rep-1]
}

// ns and labels are the namespace and labels of the pods with these rules.
func (r *rules) ns() string                { return r.from.Namespace }
func (r *rules) labels() map[string]string { return r.from.Labels }

func (r *rules) affinity() []matcher.Term { return r.terms[:r.nAff] }
func (r *rules) anti() []matcher.Term     { return r.terms[r.nAff : r.nAff+r.nAnti] }
func (r *rules) spread() []matcher.Term   { return r.terms[r.nAff+r.nAnti:] }

// shareable reports whether r may be shared: rules with failed terms are
// kept per pod (their errors name the pod).
func (r *rules) shareable() bool { return r.flags == 0 }

// equal reports whether r and o have the same terms, namespace and labels,
// and so the same effect for every event.
func (r *rules) equal(o *rules) bool {
	return r.ns() == o.ns() && r.nAff == o.nAff && r.nAnti == o.nAnti &&
		r.flags == o.flags && maps.Equal(r.labels(), o.labels()) &&
		slices.EqualFunc(r.terms, o.terms, func(a, b matcher.Term) bool { return a.Equal(&b) })
}
