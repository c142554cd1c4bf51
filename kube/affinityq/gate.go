package affinityq

import (
	"sync"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/affinityq/affinityq/index"
)

// hintGate stands before the in-tree QueueingHintFn of one narrowable
// registration of a wrapper (one event kind). When the queue does not
// narrow an event (another plugin of the profile registers it without a
// PreQueueingHintFn, as kube-scheduler's default NodeResourcesFit does for
// assigned-pod deletions), it calls the hint for every pending pod the
// wrapper rejected, and the in-tree hints compile the pod's terms on every
// call (InterPodAffinity's parses each selector of the pod). The gate asks
// the tracker once per event which pending pods the event may affect and
// answers QueueSkip for the others without calling the in-tree hint: what
// the in-tree hint answers for them, since the tracker's candidates are a
// superset of the pods whose hint returns Queue (the property a narrowed
// pre-hint's answer rests on too). For the pods it names, and for every pod
// when the tracker cannot tell, the in-tree hint decides.
//
// The answer is kept for the event whose objects it was computed for while
// the tracker's Generation holds: the queue asks about an event's pods one
// after another (moveAllToActiveOrBackoffQueue). It also asks, when a pod's
// scheduling cycle ends, about each event the cycle overlapped, for that
// pod alone; a whole answer computed for one pod would cost more than the
// in-tree hint (a deleted spread blocker's candidates are its group). So a
// call for an event other than the kept one goes to the in-tree hint, and
// only a second call in a row for the same event computes the answer. A
// narrowed pre-hint's answer primes it.
type hintGate struct {
	pl   *plugin
	ev   fwk.ClusterEvent // the registration's event
	kind index.EventKind  // its index event

	// mu protects the kept answer. The queue holds its own lock around its
	// hint calls; the tracker's locks are taken under mu.
	mu             sync.Mutex
	valid          bool
	oldObj, newObj any    // the event's objects, compared by identity (sameObject)
	gen            uint64 // the tracker's Generation before the answer was read
	all            bool   // the tracker cannot narrow the event
	names          []types.NamespacedName
	set            map[types.NamespacedName]struct{} // names, unless all
	// The objects of the last call for an event without a kept answer.
	lastOld, lastNew any
}

func newHintGate(pl *plugin, ev fwk.ClusterEvent, kind index.EventKind) *hintGate {
	return &hintGate{pl: pl, ev: ev, kind: kind, set: map[types.NamespacedName]struct{}{}}
}

// sameObject reports whether a and b are the same object of an event: the
// same pointer to a pod or a node, or both nil. Other values are never the
// same (they may not be comparable), so an answer for them is not kept.
func sameObject(a, b any) bool {
	switch a := a.(type) {
	case nil:
		return b == nil
	case *v1.Pod:
		b, ok := b.(*v1.Pod)
		return ok && a == b
	case *v1.Node:
		b, ok := b.(*v1.Node)
		return ok && a == b
	}
	return false
}

// current reports whether the kept answer is the one for the event of
// oldObj and newObj. g.mu is held.
func (g *hintGate) current(oldObj, newObj any) bool {
	return g.valid && g.gen == g.pl.tracker.Generation() && sameObject(g.oldObj, oldObj) && sameObject(g.newObj, newObj)
}

// refresh makes the kept answer the one for the event of oldObj and newObj.
// g.mu is held.
func (g *hintGate) refresh(logger klog.Logger, oldObj, newObj any) {
	if g.current(oldObj, newObj) {
		return
	}
	gen := g.pl.tracker.Generation()
	names, all := g.pl.candidates(logger, g.ev, g.kind, oldObj, newObj)
	g.valid, g.gen, g.oldObj, g.newObj, g.all, g.names = true, gen, oldObj, newObj, all, names
	clear(g.set)
	for _, n := range names {
		g.set[n] = struct{}{}
	}
}

// candidates returns the tracker's answer for the event: the pods it may
// affect, or all.
func (g *hintGate) candidates(logger klog.Logger, oldObj, newObj any) ([]types.NamespacedName, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.refresh(logger, oldObj, newObj)
	return g.names, g.all
}

// mayAffect reports whether the event may have made pod schedulable: pod
// is among the tracker's candidates, or the tracker cannot tell, or the
// gate has no answer for the event yet (the first call for it).
func (g *hintGate) mayAffect(logger klog.Logger, pod *v1.Pod, oldObj, newObj any) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.current(oldObj, newObj) {
		if !sameObject(g.lastOld, oldObj) || !sameObject(g.lastNew, newObj) {
			g.lastOld, g.lastNew = oldObj, newObj
			return true
		}
		g.refresh(logger, oldObj, newObj)
	}
	if g.all {
		return true
	}
	_, ok := g.set[types.NamespacedName{Namespace: pod.Namespace, Name: pod.Name}]
	return ok
}

// hint returns fn, the in-tree QueueingHintFn, behind the gate.
func (g *hintGate) hint(fn fwk.QueueingHintFn) fwk.QueueingHintFn {
	event := g.kind.String()
	skipped := hintGateTotal.WithLabelValues(g.pl.name, event, "skipped")
	asked := hintGateTotal.WithLabelValues(g.pl.name, event, "asked")
	return func(logger klog.Logger, pod *v1.Pod, oldObj, newObj any) (fwk.QueueingHint, error) {
		if pod != nil && !g.mayAffect(logger, pod, oldObj, newObj) {
			skipped.Inc()
			return fwk.QueueSkip, nil
		}
		asked.Inc()
		return fn(logger, pod, oldObj, newObj)
	}
}
