package index

import (
	"errors"
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"

	"github.com/affinityq/affinityq/matcher"
)

// Pending is a pending pod compiled for the index: its required affinity and
// anti-affinity terms and its DoNotSchedule spread constraints. Preferred
// terms are not kept: they never make a pod unschedulable.
//
// A Pending's pod and rules are immutable once compiled, and a Pending may
// be shared between goroutines (the index writes only the position fields
// of the Pendings it keeps, under its lock); a queue can keep one for a pod in flight and
// replay events against it with Affected.
type Pending[T any] struct {
	pod   *v1.Pod
	rules *rules
	tag   T // the embedder's, returned in every Hit of the pod (WithTag)

	// gid and at are the pod's group in its shard and its position in the
	// group's members while indexed, under the shard's lock; only the
	// Pendings the index keeps have them. A Pending from Index.Compile
	// carries the id of the group whose rules it was given, as a hint.
	gid, at uint32
}

// rules is what a pending pod's terms compile to, the same for every pod of
// a source (source.go): the replicas of a workload share one rules value,
// which their group (group.go) and the Pendings of its members point to.
// rules are immutable once compiled: every field is set by compile before
// the value is published, and never written again.
type rules struct {
	shape
	terms []matcher.Term // required affinity, then required anti-affinity, then spread
	src   uint64         // the hash of the source (source.go) of the pods the rules are for; 0 for rules that failed, which are not shared
}

// shape is what an evaluation reads of rules besides their terms; a group
// keeps a copy next to its first member, so that a lookup decides a
// candidate whose terms the postings decide without reading its rules.
type shape struct {
	nAff, nAnti, n uint16 // affinity terms, anti-affinity terms, all terms
	decided        uint16 // bit i: the postings decide term i (group.go)
	flags          pendingFlags
	reachesOut     bool // a term reaches beyond the pod's namespace (a listed namespace or a selector), or a term failed
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
func Compile[T any](pod *v1.Pod) (*Pending[T], error) {
	if err := checkPod(pod); err != nil {
		return nil, err
	}
	r, err := compile(pod, sourceHash(pod, strHash(pod.Namespace)))
	if err != nil {
		return nil, err
	}
	return &Pending[T]{pod: pod, rules: r}, nil
}

// compile compiles the rules of a checked pod whose source hash is src.
func compile(pod *v1.Pod, src uint64) (*rules, error) {
	t, _ := matcher.CompileRequired(pod) // errors are in the terms, and Err recompiles them
	n := len(t.Affinity) + len(t.AntiAffinity) + len(t.Spread)
	if n > maxTerms {
		return nil, fmt.Errorf("index: pod %s/%s has %d terms, more than %d", pod.Namespace, pod.Name, n, maxTerms)
	}
	r := &rules{terms: t.Required()}
	r.nAff, r.nAnti, r.n = uint16(len(t.Affinity)), uint16(len(t.AntiAffinity)), uint16(len(r.terms))
	if t.AffinityErr() != nil {
		r.flags |= affinityErr
	}
	if t.SpreadErr() != nil {
		r.flags |= spreadErr
	}
	r.reachesOut = r.flags != 0 || reachesOut(r.terms, pod.Namespace)
	if r.shareable() {
		r.src = src
	}
	for i := range min(len(r.terms), maxDecided) {
		if decides(&r.terms[i]) {
			r.decided |= 1 << i
		}
	}
	return r, nil
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
func (p *Pending[T]) WithTag(tag T) *Pending[T] {
	c := *p
	c.tag = tag
	return &c
}

// Tag returns the tag given by WithTag or InsertWithTag, the zero T if none.
func (p *Pending[T]) Tag() T { return p.tag }

// Pod returns the pod the Pending was compiled from.
func (p *Pending[T]) Pod() *v1.Pod { return p.pod }

// Err returns the compile errors of the pod's required terms and spread
// constraints, nil when all compiled. A pod with errors is still indexed: it
// is affected by every event its failed rule set listens to. The errors are
// compiled again on each call (they are a diagnosis, and a Pending does not
// carry them).
func (p *Pending[T]) Err() error {
	if p.rules.flags == 0 {
		return nil
	}
	_, err := matcher.CompileRequired(p.pod)
	return fmt.Errorf("index: pod %s/%s kept and always checked: %w", p.pod.Namespace, p.pod.Name, err)
}

func (r *rules) affinity() []matcher.Term { return r.terms[:r.nAff] }
func (r *rules) anti() []matcher.Term     { return r.terms[r.nAff : r.nAff+r.nAnti] }
func (r *rules) spread() []matcher.Term   { return r.terms[r.nAff+r.nAnti:] }

// decides reports whether the postings decide term i (group.go).
func (r *rules) decides(i int) bool { return i < maxDecided && r.decided>>i&1 != 0 }

// shareable reports whether r may be shared: rules with failed terms are
// kept per pod (their errors name the pod).
func (r *rules) shareable() bool { return r.flags == 0 }

// equal reports whether r and o have the same compiled fields, and so the
// same effect for every event on pods of one namespace and labels.
func (r *rules) equal(o *rules) bool {
	return r.nAff == o.nAff && r.nAnti == o.nAnti && r.decided == o.decided && r.flags == o.flags &&
		r.reachesOut == o.reachesOut && r.src == o.src &&
		slices.EqualFunc(r.terms, o.terms, func(a, b matcher.Term) bool { return a.Equal(&b) })
}
