package requeue

import (
	"errors"
	"fmt"
	"maps"
	"sync"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/affinityq/affinityq/index"
	"github.com/affinityq/affinityq/kube/feed"
)

// Tracker keeps an index of the pending pods of the scheduler names the
// wrappers serve, following the pod informer's store (not the notifications
// its handler receives, which may lag the store), and the sets of pods a
// pre-hint must always return.
//
// Invariants, for every pod P the store holds pending (no spec.nodeName,
// not terminated), once the Tracker's handler has processed every
// notification the informer sent: P's scheduler name is served and the
// index holds P's store version (schedulerView of it, tagged with the store
// object), or it is not served and foreign holds P. Until then, P is in
// dirty. relabelled holds the indexed pods whose labels changed since the
// queue was last seen holding the indexed labels.
type Tracker struct {
	// Set by New, then read-only.
	ix                   *index.Index[*v1.Pod]
	lookup               func([]index.Hit[*v1.Pod], *index.Event, func(index.RuleSet, index.RuleSet) bool) []index.Hit[*v1.Pod] // ix.LookupWhere; tests replace it while no pre-hint runs
	lister               corelisters.PodLister
	reg                  cache.ResourceEventHandlerRegistration // the pod handler's registration
	spreadMatchLabelKeys bool
	logger               klog.Logger

	// mu serialises syncs and MarkRejected and protects served, foreign
	// and relabelled. Lock order: mu, then the pod informer's store
	// (through lister), then the index's locks, then marksMu or
	// rejectedMu.
	mu         sync.Mutex
	served     map[string]bool
	foreign    map[types.UID]foreignPod
	relabelled map[types.UID]types.NamespacedName

	// marksMu protects dirty. markDirty takes it inside the pod informer's
	// store lock; no other lock is taken while holding it.
	marksMu sync.Mutex
	dirty   map[types.UID]dirtyMark

	// rejectedMu protects rejected: the rules of the wrappers that have
	// rejected each pending pod in a scheduling cycle (MarkRejected). It is
	// taken inside mu or alone (Candidates); no other lock is taken while
	// holding it.
	rejectedMu sync.RWMutex
	rejected   map[types.UID]index.RuleSet

	statsAt atomic.Int64 // when recordStats last ran, in Unix nanoseconds

	// gen counts the changes that can change what Candidates returns: of
	// the store's pending pods (markDirty), of the index, of relabelled and
	// rejected, and of namespaces, whose labels namespaceSelector terms
	// read at lookup.
	gen atomic.Uint64
}

// foreignPod is a pending pod of a scheduler name no wrapper serves, or one
// the index refused.
type foreignPod struct {
	scheduler string
	name      types.NamespacedName
	pod       *v1.Pod // the store's object
}

// dirtyMark is a pending pod whose store version the index may not hold.
type dirtyMark struct {
	name types.NamespacedName
	pod  *v1.Pod // the store's object that caused the mark
}

// New returns a tracker fed by factory's pod informer. It must be
// called before the informer starts.
func New(factory informers.SharedInformerFactory, spreadMatchLabelKeys bool, logger klog.Logger) (*Tracker, error) {
	podInformer := factory.Core().V1().Pods()
	namespaces := factory.Core().V1().Namespaces().Lister()
	ix := index.New[*v1.Pod](index.WithNamespaceLabels(feed.NamespaceLabels(namespaces)))
	t := &Tracker{
		ix:                   ix,
		lookup:               ix.LookupWhere,
		lister:               podInformer.Lister(),
		spreadMatchLabelKeys: spreadMatchLabelKeys,
		logger:               logger,
		served:               map[string]bool{},
		foreign:              map[types.UID]foreignPod{},
		relabelled:           map[types.UID]types.NamespacedName{},
		dirty:                map[types.UID]dirtyMark{},
		rejected:             map[types.UID]index.RuleSet{},
	}
	inf := podInformer.Informer()
	// The indexer is the only hook the informer calls synchronously with a
	// change of its store, before any handler hears of it: it is how the
	// tracker knows which pods it may not have caught up with.
	if err := inf.AddIndexers(cache.Indexers{fmt.Sprintf("affinityq-requeue-%p", t): t.markDirty}); err != nil {
		return nil, fmt.Errorf("requeue: adding the pod indexer: %w", err)
	}
	reg, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: t.onPod,
		UpdateFunc: func(oldObj, newObj any) {
			t.onPod(newObj)
			if o, n := podOf(oldObj), podOf(newObj); o != nil && n != nil && o.UID != n.UID {
				t.onPod(oldObj)
			}
		},
		DeleteFunc: func(obj any) {
			if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			t.onPod(obj)
		},
	})
	if err != nil {
		return nil, fmt.Errorf("requeue: adding the pod handler: %w", err)
	}
	t.reg = reg
	bump := func(any) { t.gen.Add(1) }
	if _, err := factory.Core().V1().Namespaces().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    bump,
		UpdateFunc: func(_, obj any) { bump(obj) },
		DeleteFunc: bump,
	}); err != nil {
		return nil, fmt.Errorf("requeue: adding the namespace handler: %w", err)
	}
	return t, nil
}

func podOf(obj any) *v1.Pod {
	p, _ := obj.(*v1.Pod)
	return p
}

// pending reports whether pod waits for a node: not bound, not terminated.
func pending(pod *v1.Pod) bool {
	return pod.Spec.NodeName == "" && pod.Status.Phase != v1.PodSucceeded && pod.Status.Phase != v1.PodFailed
}

func nameOf(pod *v1.Pod) types.NamespacedName {
	return types.NamespacedName{Namespace: pod.Namespace, Name: pod.Name}
}

// markDirty is the pod informer's index function: called with the store's
// lock held for every object the store gains or loses, old versions
// included, it marks pending pods dirty. It indexes nothing.
func (t *Tracker) markDirty(obj any) ([]string, error) {
	pod := podOf(obj)
	if pod == nil || !pending(pod) {
		return nil, nil
	}
	t.marksMu.Lock()
	t.dirty[pod.UID] = dirtyMark{name: nameOf(pod), pod: pod}
	t.marksMu.Unlock()
	t.gen.Add(1)
	return nil, nil
}

// onPod brings the tracker in line with the store for the pod of a
// notification.
func (t *Tracker) onPod(obj any) {
	pod := podOf(obj)
	if pod == nil {
		t.logger.Error(errors.New("requeue: pod informer delivered a non-pod"), "Notification ignored", "type", fmt.Sprintf("%T", obj))
		return
	}
	t.sync(pod.Namespace, pod.Name, pod.UID)
}

// sync brings the tracker in line with the store for the pod of uid, known
// under namespace/name.
func (t *Tracker) sync(namespace, name string, uid types.UID) {
	t.mu.Lock()
	defer t.mu.Unlock()
	cur, err := t.lister.Pods(namespace).Get(name)
	if err != nil {
		cur = nil
	}
	if cur == nil || cur.UID != uid {
		t.removeLocked(uid)
	}
	if cur != nil {
		t.applyLocked(cur)
	}
}

// applyLocked makes the tracker hold the store's object pod. t.mu is held.
func (t *Tracker) applyLocked(pod *v1.Pod) {
	t.gen.Add(1)
	uid := pod.UID
	if !pending(pod) {
		t.removeLocked(uid)
		return
	}
	if !t.served[pod.Spec.SchedulerName] {
		t.ix.Remove(uid)
		delete(t.relabelled, uid)
		t.foreign[uid] = foreignPod{scheduler: pod.Spec.SchedulerName, name: nameOf(pod), pod: pod}
		t.clearDirty(uid, pod)
		return
	}
	if old, ok := t.ix.Get(uid); ok {
		if old.Tag() == pod {
			t.clearDirty(uid, pod)
			return
		}
		if !maps.Equal(old.Pod().Labels, pod.Labels) {
			t.relabelled[uid] = nameOf(pod)
		}
	}
	p, err := index.Compile[*v1.Pod](schedulerView(pod, t.spreadMatchLabelKeys))
	if err != nil {
		// Absurd input (see index.Compile): always returned instead.
		t.logger.Error(err, "Pending pod not indexed; every pre-hint returns it", "pod", klog.KObj(pod))
		t.ix.Remove(uid)
		t.foreign[uid] = foreignPod{scheduler: pod.Spec.SchedulerName, name: nameOf(pod), pod: pod}
	} else {
		delete(t.foreign, uid)
		t.ix.InsertWithTag(p, pod)
	}
	t.clearDirty(uid, pod)
}

// removeLocked forgets the pod of uid. t.mu is held.
func (t *Tracker) removeLocked(uid types.UID) {
	t.gen.Add(1)
	t.ix.Remove(uid)
	delete(t.foreign, uid)
	delete(t.relabelled, uid)
	t.marksMu.Lock()
	delete(t.dirty, uid)
	t.marksMu.Unlock()
	t.rejectedMu.Lock()
	delete(t.rejected, uid)
	t.rejectedMu.Unlock()
}

// MarkRejected records that the wrappers of rules rejected pod in a
// scheduling cycle (their PreFilter or a Filter answered Unschedulable,
// UnschedulableAndUnresolvable or Pending, the codes kube-scheduler counts
// among a pod's rejectors), before kube-scheduler can have put it in its
// unschedulable pool with them among its rejectors. Candidates names, for
// rules, only
// the indexed pods so marked: a pending pod no wrapper of rules has
// rejected is in activeQ or backoffQ, or parked by other plugins, and the
// queue asks a plugin's hint only about the parked pods it rejected. The
// mark lasts while the pod is pending; a pod the store does not hold
// pending (deleted or bound while its cycle ran) is not marked. It reports
// whether the pod is marked.
func (t *Tracker) MarkRejected(pod *v1.Pod, rules index.RuleSet) bool {
	if pod == nil || rules == 0 {
		return false
	}
	t.rejectedMu.RLock()
	has := t.rejected[pod.UID]
	t.rejectedMu.RUnlock()
	if has&rules == rules {
		return true
	}
	// Under mu, so that a sync that forgets the pod comes wholly before or
	// after.
	t.mu.Lock()
	defer t.mu.Unlock()
	cur, err := t.lister.Pods(pod.Namespace).Get(pod.Name)
	if err != nil || cur.UID != pod.UID || !pending(cur) {
		return false
	}
	t.rejectedMu.Lock()
	t.rejected[pod.UID] |= rules
	t.rejectedMu.Unlock()
	t.gen.Add(1)
	return true
}

// clearDirty removes the dirty mark of uid if the store's object pod caused
// it: a later change of the store leaves its own mark in place.
func (t *Tracker) clearDirty(uid types.UID, pod *v1.Pod) {
	t.marksMu.Lock()
	if d, ok := t.dirty[uid]; ok && d.pod == pod {
		delete(t.dirty, uid)
	}
	t.marksMu.Unlock()
}

// Serve makes the pending pods of scheduler name indexed from now on,
// including those already held as foreign.
func (t *Tracker) Serve(name string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.served[name] {
		return
	}
	t.served[name] = true
	for _, f := range t.foreign {
		if f.scheduler == name {
			t.applyLocked(f.pod)
		}
	}
}

// Confirm records that the queue holds pod, the version a wrapper was given
// in PreFilter or a target-pod hint: the pod is relabelled unless its labels
// are the indexed ones. An unindexed pod is dirty or gone.
func (t *Tracker) Confirm(pod *v1.Pod) {
	if pod == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	p, ok := t.ix.Get(pod.UID)
	if !ok {
		return
	}
	_, was := t.relabelled[pod.UID]
	if maps.Equal(p.Pod().Labels, pod.Labels) {
		delete(t.relabelled, pod.UID)
	} else {
		t.relabelled[pod.UID] = nameOf(pod)
	}
	if _, is := t.relabelled[pod.UID]; is != was {
		t.gen.Add(1)
	}
}

// Generation returns a count that changes whenever what Candidates returns
// for some event may change. An answer of Candidates read while
// Generation held one value (read before the call) is the answer for as
// long as it holds it.
func (t *Tracker) Generation() uint64 { return t.gen.Load() }

// Candidates returns the pending pods an event may affect under rules:
// the index's hits whose rules for the event (narrowingRules) intersect
// rules, of the pods a wrapper of rules rejected (MarkRejected), and every
// foreign, dirty or relabelled pod. Names may repeat.
func (t *Tracker) Candidates(ev *index.Event, rules index.RuleSet, buf []index.Hit[*v1.Pod]) ([]types.NamespacedName, []index.Hit[*v1.Pod]) {
	start := time.Now()
	buf = t.lookup(buf[:0], ev, narrowsTo(ev.Kind, rules))
	indexLookupDuration.WithLabelValues(ev.Kind.String()).Observe(time.Since(start).Seconds())
	buf = t.keepRejected(buf, rules)
	t.mu.Lock()
	n := len(t.foreign) + len(t.relabelled)
	t.marksMu.Lock()
	n += len(t.dirty)
	t.marksMu.Unlock()
	out := make([]types.NamespacedName, 0, len(buf)+n)
	for i := range buf {
		out = append(out, nameOf(buf[i].Pod))
	}
	for _, f := range t.foreign {
		out = append(out, f.name)
	}
	for _, name := range t.relabelled {
		out = append(out, name)
	}
	t.mu.Unlock()
	t.marksMu.Lock()
	for _, d := range t.dirty {
		out = append(out, d.name)
	}
	t.marksMu.Unlock()
	clear(buf)
	return out, buf[:0]
}

// keepRejected keeps, of hits, the pods a wrapper of rules has rejected
// (MarkRejected), in place.
func (t *Tracker) keepRejected(hits []index.Hit[*v1.Pod], rules index.RuleSet) []index.Hit[*v1.Pod] {
	t.rejectedMu.RLock()
	defer t.rejectedMu.RUnlock()
	out := hits[:0]
	for _, h := range hits {
		if t.rejected[h.Pod.UID]&rules != 0 {
			out = append(out, h)
		}
	}
	clear(hits[len(out):])
	return out
}

// narrowingRules returns, of a pod's Relation and Transition rules for an
// event of kind k, the ones whose plugins may queue the pod in
// kube-scheduler: a superset of the plugins whose in-tree QueueingHintFn
// answers Queue.
//
// Transition is those hints written as index rules (DESIGN.md), with two
// differences: upstream's bugs fixed (which only queues more), and
// namespace selectors read against the namespace's labels where the
// in-tree hints read none (the tracker feeds the index the terms that
// match a namespace without labels as {}, so a term matches wherever the
// in-tree one does). For an added or deleted pod Transition's rules only
// assert that terms match, so matching more can only queue more, and it is
// the answer. For an update they also assert that a term no longer
// matches (the updated pod left an anti-affinity term, or did not match
// every affinity term before), which the namespace's labels can turn
// false where the in-tree hint finds true; Relation, the plugins with a
// term either version matches, is a superset of it there.
//
// Relation alone would name, for each pod added, every pending pod with an
// anti-affinity term the pod matches, which no in-tree hint queues: each
// replica placed would ask the queue about every pod that avoids it.
func narrowingRules(k index.EventKind, relation, transition index.RuleSet) index.RuleSet {
	if k == index.AssignedPodUpdate {
		return relation
	}
	return transition
}

// narrowsTo returns the filter of an index lookup for an event of kind k
// that keeps the pods whose narrowingRules intersect rules.
func narrowsTo(k index.EventKind, rules index.RuleSet) func(relation, transition index.RuleSet) bool {
	return func(relation, transition index.RuleSet) bool {
		return narrowingRules(k, relation, transition)&rules != 0
	}
}

// RecordStats refreshes the index's gauges, at most once per statsEvery.
func (t *Tracker) RecordStats() {
	now := time.Now().UnixNano()
	last := t.statsAt.Load()
	if now-last < int64(statsEvery) || !t.statsAt.CompareAndSwap(last, now) {
		return
	}
	recordIndexStats(t.ix.Stats())
}

// SelfCheck looks ev up in the index and evaluates it, without the index,
// against every indexed pod the pod informer's store holds, counting the
// pods affected under rules that the lookup missed: the index's answers
// are to be a superset of the exact ones. It holds t.mu, so that no sync
// changes the index in between, and costs a list of the store.
func (t *Tracker) SelfCheck(ev *index.Event, rules index.RuleSet) {
	t.mu.Lock()
	defer t.mu.Unlock()
	found := map[types.UID]bool{}
	for _, h := range t.lookup(nil, ev, narrowsTo(ev.Kind, rules)) {
		found[h.Pod.UID] = true
	}
	pods, err := t.lister.List(labels.Everything())
	if err != nil {
		t.logger.Error(err, "Self-check skipped: listing pods")
		return
	}
	selfChecksTotal.Inc()
	for _, pod := range pods {
		p, ok := t.ix.Get(pod.UID)
		if !ok || found[pod.UID] {
			continue
		}
		relation, transition := t.ix.Affected(p, ev, nil)
		if affected := narrowingRules(ev.Kind, relation, transition); affected&rules != 0 {
			selfCheckDivergencesTotal.Inc()
			t.logger.Error(nil, "Index lookup missed a pod the event affects", "pod", klog.KObj(pod), "event", ev.Kind.String(), "rules", affected&rules)
		}
	}
}

// Len returns the number of pending pods the index holds.
func (t *Tracker) Len() int { return t.ix.Len() }

// State is a summary of what a Tracker holds, for tests and debugging.
type State struct {
	Synced     bool // the pod handler has processed the informer's initial list
	Indexed    int  // pending pods in the index
	Foreign    int  // pending pods of scheduler names no wrapper serves, or refused by the index
	Dirty      int  // pods whose store version the index may not hold yet
	Relabelled int  // indexed pods whose labels the queue has not been seen holding
}

// State returns the tracker's summary.
func (t *Tracker) State() State {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.marksMu.Lock()
	dirty := len(t.dirty)
	t.marksMu.Unlock()
	return State{Synced: t.reg.HasSynced(), Indexed: t.ix.Len(), Foreign: len(t.foreign), Dirty: dirty, Relabelled: len(t.relabelled)}
}
