package affinityq

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/component-helpers/resource"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	"github.com/affinityq/affinityq/index"
	"github.com/affinityq/affinityq/kube/internal/requeue"
)

// isWrapper reports whether a profile's plugin is one of the wrappers.
func isWrapper(ext fwk.EnqueueExtensions) bool {
	_, ok := ext.(*plugin)
	return ok
}

// maxKeptHits bounds the lookup buffers kept between events.
const maxKeptHits = 1 << 12

// inTree is what the wrappers delegate to: the extension points both
// InterPodAffinity and PodTopologySpread implement.
type inTree interface {
	fwk.PreFilterPlugin
	fwk.FilterPlugin
	fwk.PreScorePlugin
	fwk.ScorePlugin
	fwk.EnqueueExtensions
	fwk.SignPlugin
}

// plugin wraps an in-tree plugin: it answers the scheduling cycle from the
// placed index (answers) where it can and delegates the rest, and adds a
// PreQueueingHintFn to the narrowable events it registers.
type plugin struct {
	name      string
	rules     index.RuleSet // the index's rule set of the wrapped plugin
	inner     inTree
	shared    *Plugins
	tracker   *requeue.Tracker
	handle    fwk.Handle
	canNarrow bool
	// answers answers the scheduling cycle's extension points from the
	// placed index; nil delegates them.
	answers cycleAnswers
	// resizeDeferred is the in-tree plugin's
	// InPlacePodVerticalScalingSchedulerPreemption gate: a pod whose resize
	// is deferred skips PreFilter and passes Filter, without a cycle state.
	resizeDeferred bool

	hits sync.Pool // *[]index.Hit[*v1.Pod] lookup buffers

	// marked is the last pod object whose rejection the tracker recorded
	// (markRejected): a cycle's Filter calls reject a pod on many nodes,
	// in parallel, and one mark is enough.
	marked atomic.Pointer[v1.Pod]
}

var (
	_ fwk.PreFilterPlugin   = (*plugin)(nil)
	_ fwk.FilterPlugin      = (*plugin)(nil)
	_ fwk.PreScorePlugin    = (*plugin)(nil)
	_ fwk.ScorePlugin       = (*plugin)(nil)
	_ fwk.EnqueueExtensions = (*plugin)(nil)
	_ fwk.SignPlugin        = (*plugin)(nil)
)

// Name returns the wrapper's name (InterPodAffinityName or
// PodTopologySpreadName).
func (pl *plugin) Name() string { return pl.name }

// PreFilter records the version of pod the queue holds, then answers from
// the placed index (see Scheduling cycle in the package documentation) or
// delegates.
func (pl *plugin) PreFilter(ctx context.Context, state fwk.CycleState, pod *v1.Pod, nodes []fwk.NodeInfo) (*fwk.PreFilterResult, *fwk.Status) {
	res, status := pl.preFilter(ctx, state, pod, nodes)
	pl.markRejected(pod, status)
	return res, status
}

// markRejected records in the tracker that the wrapper rejected pod, if
// status is a rejection: kube-scheduler then counts the wrapper among the
// pod's rejectors, and only such pods may need its hints (see
// Tracker.MarkRejected). It runs before the cycle ends, so before the pod
// can be in the unschedulable pool.
func (pl *plugin) markRejected(pod *v1.Pod, status *fwk.Status) {
	if !status.IsRejected() || pod == nil || pl.marked.Load() == pod {
		return
	}
	if pl.tracker.MarkRejected(pod, pl.rules) {
		pl.marked.Store(pod)
	}
}

func (pl *plugin) preFilter(ctx context.Context, state fwk.CycleState, pod *v1.Pod, nodes []fwk.NodeInfo) (*fwk.PreFilterResult, *fwk.Status) {
	pl.tracker.Confirm(pod)
	if noState(state) {
		if pl.deferred(pod) {
			return nil, fwk.NewStatus(fwk.Skip)
		}
		return nil, pl.noStateStatus("PreFilter")
	}
	if c := pl.answers; c != nil {
		res, status, err := c.PreFilter(state, pod)
		if err == nil {
			pl.shared.stats.answered(pl.name)
			return res, status
		}
		pl.fellBack(ctx, err, "Answering from the in-tree plugin")
	}
	return pl.inner.PreFilter(ctx, state, pod, nodes)
}

// cycleAnswers computes a plugin's scheduling-cycle extension points from
// the placed index. preFilter and preScore return an error where the
// index cannot answer; the wrapper then asks the in-tree plugin, whose
// state the later extension points of the cycle find instead of the keys'.
type cycleAnswers interface {
	Keys() (preFilter, preScore fwk.StateKey)
	PreFilter(state fwk.CycleState, pod *v1.Pod) (*fwk.PreFilterResult, *fwk.Status, error)
	Update(state fwk.CycleState, pod *v1.Pod, p fwk.PodInfo, ni fwk.NodeInfo, d int) *fwk.Status
	Filter(d fwk.StateData, pod *v1.Pod, ni fwk.NodeInfo) *fwk.Status
	PreScore(state fwk.CycleState, pod *v1.Pod, filtered []fwk.NodeInfo) (*fwk.Status, error)
	Score(d fwk.StateData, ni fwk.NodeInfo) (int64, *fwk.Status)
	Normalize(state fwk.CycleState, scores fwk.NodeScoreList) *fwk.Status
}

// noState reports whether state is nil, a nil interface or a nil
// *framework.CycleState: the framework always passes one, but callers of
// a plugin's methods (kube-scheduler's own unit tests among them) may not.
func noState(state fwk.CycleState) bool {
	if state == nil {
		return true
	}
	cs, ok := state.(*framework.CycleState)
	return ok && cs == nil
}

// deferred reports whether the in-tree plugin skips pod before it reads
// the cycle state: its resize is deferred and the gate is on.
func (pl *plugin) deferred(pod *v1.Pod) bool {
	return pl.resizeDeferred && resource.IsPodResizeDeferred(pod)
}

// noStateStatus is the Error an extension point given no cycle state
// returns.
func (pl *plugin) noStateStatus(point string) *fwk.Status {
	return fwk.AsStatus(fmt.Errorf("affinityq: %s %s: nil cycle state", pl.name, point))
}

// ours returns the state this cycle's PreFilter (preScore false) or
// PreScore wrote when it answered from the index.
func (pl *plugin) ours(state fwk.CycleState, preScore bool) (fwk.StateData, bool) {
	if pl.answers == nil {
		return nil, false
	}
	key, scoreKey := pl.answers.Keys()
	if preScore {
		key = scoreKey
	}
	d, err := state.Read(key)
	return d, err == nil
}

// fellBack counts and logs a cycle the in-tree plugin answers because the
// index could not: the snapshot could not be listed or synced.
func (pl *plugin) fellBack(ctx context.Context, err error, msg string) {
	pl.shared.stats.fellBack(pl.name, fallbackSync)
	klog.FromContext(ctx).Error(err, msg, "plugin", pl.name)
}

// PreFilterExtensions are the wrapper's when it answers from the index,
// else the in-tree plugin's.
func (pl *plugin) PreFilterExtensions() fwk.PreFilterExtensions {
	if pl.answers != nil {
		return pl
	}
	return pl.inner.PreFilterExtensions()
}

// AddPod adds a pod to the cycle's counts (a nominated pod, or preemption
// putting a victim back).
func (pl *plugin) AddPod(ctx context.Context, state fwk.CycleState, pod *v1.Pod, p fwk.PodInfo, ni fwk.NodeInfo) *fwk.Status {
	if noState(state) {
		return pl.noStateStatus("AddPod")
	}
	if _, ok := pl.ours(state, false); ok {
		return pl.answers.Update(state, pod, p, ni, 1)
	}
	return pl.inner.PreFilterExtensions().AddPod(ctx, state, pod, p, ni)
}

// RemovePod removes a pod from the cycle's counts (preemption's victims).
func (pl *plugin) RemovePod(ctx context.Context, state fwk.CycleState, pod *v1.Pod, p fwk.PodInfo, ni fwk.NodeInfo) *fwk.Status {
	if noState(state) {
		return pl.noStateStatus("RemovePod")
	}
	if _, ok := pl.ours(state, false); ok {
		return pl.answers.Update(state, pod, p, ni, -1)
	}
	return pl.inner.PreFilterExtensions().RemovePod(ctx, state, pod, p, ni)
}

// Filter decides from the cycle's counts, or delegates. Without a cycle
// state it answers as the in-tree plugin does before reading one: Success
// for a pod whose resize is deferred, else an Error.
func (pl *plugin) Filter(ctx context.Context, state fwk.CycleState, pod *v1.Pod, nodeInfo fwk.NodeInfo) *fwk.Status {
	status := pl.filter(ctx, state, pod, nodeInfo)
	pl.markRejected(pod, status)
	return status
}

func (pl *plugin) filter(ctx context.Context, state fwk.CycleState, pod *v1.Pod, nodeInfo fwk.NodeInfo) *fwk.Status {
	if noState(state) {
		if pl.deferred(pod) {
			return nil
		}
		return pl.noStateStatus("Filter")
	}
	if d, ok := pl.ours(state, false); ok {
		return pl.answers.Filter(d, pod, nodeInfo)
	}
	return pl.inner.Filter(ctx, state, pod, nodeInfo)
}

// PreScore answers from the placed index, or delegates.
func (pl *plugin) PreScore(ctx context.Context, state fwk.CycleState, pod *v1.Pod, nodes []fwk.NodeInfo) *fwk.Status {
	if noState(state) {
		return pl.noStateStatus("PreScore")
	}
	if c := pl.answers; c != nil {
		status, err := c.PreScore(state, pod, nodes)
		if err == nil {
			return status
		}
		pl.fellBack(ctx, err, "Scoring with the in-tree plugin")
	}
	return pl.inner.PreScore(ctx, state, pod, nodes)
}

// Score reads the cycle's topology score, or delegates.
func (pl *plugin) Score(ctx context.Context, state fwk.CycleState, pod *v1.Pod, nodeInfo fwk.NodeInfo) (int64, *fwk.Status) {
	if noState(state) {
		return 0, pl.noStateStatus("Score")
	}
	if d, ok := pl.ours(state, true); ok {
		return pl.answers.Score(d, nodeInfo)
	}
	return pl.inner.Score(ctx, state, pod, nodeInfo)
}

// ScoreExtensions are the wrapper's when it scores from the index, else
// the in-tree plugin's.
func (pl *plugin) ScoreExtensions() fwk.ScoreExtensions {
	if pl.answers != nil {
		return pl
	}
	return pl.inner.ScoreExtensions()
}

// NormalizeScore normalises the cycle's scores, or delegates.
func (pl *plugin) NormalizeScore(ctx context.Context, state fwk.CycleState, pod *v1.Pod, scores fwk.NodeScoreList) *fwk.Status {
	if noState(state) {
		return pl.noStateStatus("NormalizeScore")
	}
	if _, ok := pl.ours(state, true); ok {
		return pl.answers.Normalize(state, scores)
	}
	return pl.inner.ScoreExtensions().NormalizeScore(ctx, state, pod, scores)
}

// SignPod delegates.
func (pl *plugin) SignPod(ctx context.Context, pod *v1.Pod) ([]fwk.SignFragment, *fwk.Status) {
	return pl.inner.SignPod(ctx, pod)
}

// EventsToRegister registers the in-tree plugin's events with its
// QueueingHintFns, the narrowable ones split by action, their hints behind a
// gate (hintGate) and given a PreQueueingHintFn when no other plugin of the
// profile registers them without one (see the package documentation), the
// target-pod ones with a hint that first records the pod's version.
func (pl *plugin) EventsToRegister(ctx context.Context) ([]fwk.ClusterEventWithHint, error) {
	return pl.eventsToRegister(ctx, true)
}

// eventsToRegister is EventsToRegister, the narrowable hints left ungated
// unless gate.
func (pl *plugin) eventsToRegister(ctx context.Context, gate bool) ([]fwk.ClusterEventWithHint, error) {
	events, err := pl.inner.EventsToRegister(ctx)
	if err != nil {
		return nil, err
	}
	logger := klog.FromContext(ctx)
	blocking, listErr := requeue.Unhinted(ctx, pl.handle, isWrapper)
	if listErr != nil {
		logger.Error(listErr, "No event is narrowed", "plugin", pl.name)
	}
	var out []fwk.ClusterEventWithHint
	for _, e := range events {
		for _, part := range requeue.Split(e.Event) {
			c := fwk.ClusterEventWithHint{Event: part, QueueingHintFn: e.QueueingHintFn, PreQueueingHintFn: e.PreQueueingHintFn}
			if part.Resource == fwk.TargetPod && c.QueueingHintFn != nil {
				c.QueueingHintFn = pl.confirming(c.QueueingHintFn)
			}
			if kind, ok := requeue.IndexKind(part); ok && pl.canNarrow {
				g := newHintGate(pl, part, kind)
				if gate && c.QueueingHintFn != nil {
					c.QueueingHintFn = g.hint(c.QueueingHintFn)
				}
				if c.PreQueueingHintFn == nil && listErr == nil && !requeue.MatchesAny(blocking, part) {
					c.PreQueueingHintFn = pl.preQueueingHint(part, kind, g)
				}
			}
			if c.PreQueueingHintFn == nil {
				// Whatever narrowable event this registration matches, no
				// pre-hint may narrow: this plugin's pods would be missed.
				for _, ev := range requeue.NarrowableEvents() {
					if framework.MatchClusterEvents(part, ev) {
						pl.shared.decline(ev)
						logger.V(2).Info("Event not narrowed", "plugin", pl.name, "event", ev.Label())
					}
				}
			}
			out = append(out, c)
		}
	}
	return out, nil
}

// confirming returns fn preceded by recording the version of the pod the
// queue holds: the queue runs target-pod hints when a rejected pod's labels
// change.
func (pl *plugin) confirming(fn fwk.QueueingHintFn) fwk.QueueingHintFn {
	return func(logger klog.Logger, pod *v1.Pod, oldObj, newObj any) (fwk.QueueingHint, error) {
		pl.tracker.Confirm(pod)
		return fn(logger, pod, oldObj, newObj)
	}
}

// candidates returns the pending pods that the narrowable event ev (index
// kind kind), given its objects, may have made schedulable under pl.rules:
// the tracker's candidates, a superset of the pods whose in-tree
// QueueingHintFn returns Queue. all reports that it cannot tell (objects it
// cannot read, or an event the in-tree hint fails on for every pod), and
// then names is nil.
func (pl *plugin) candidates(logger klog.Logger, ev fwk.ClusterEvent, kind index.EventKind, oldObj, newObj any) (names []types.NamespacedName, all bool) {
	iev, err := requeue.IndexEvent(kind, oldObj, newObj)
	if err != nil {
		logger.V(4).Info("Event not narrowed", "plugin", pl.name, "event", ev.Label(), "reason", err)
		return nil, true
	}
	if pl.rules&index.InterPodAffinity != 0 && kind == index.AssignedPodDelete && !requeue.AntiAffinityCompiles(iev.OldPod) {
		// The in-tree hint fails, which counts as Queue, for every pod.
		return nil, true
	}
	buf, _ := pl.hits.Get().(*[]index.Hit[*v1.Pod])
	if buf == nil {
		buf = new([]index.Hit[*v1.Pod])
	}
	names, hits := pl.tracker.Candidates(iev, pl.rules, *buf)
	if cap(hits) <= maxKeptHits {
		*buf = hits
		pl.hits.Put(buf)
	}
	pl.tracker.RecordStats()
	if pl.shared.selfCheckDue() {
		pl.tracker.SelfCheck(iev, pl.rules)
	}
	return names, false
}

// preQueueingHint returns the PreQueueingHintFn of the narrowable event ev.
// Its answer also primes gate, the gate of the same registration's
// QueueingHintFn, which the queue then asks about the pods it names.
func (pl *plugin) preQueueingHint(ev fwk.ClusterEvent, kind index.EventKind, gate *hintGate) fwk.PreQueueingHintFn {
	event := kind.String()
	all := prehintCallsTotal.WithLabelValues(pl.name, event, "all")
	narrowed := prehintCallsTotal.WithLabelValues(pl.name, event, "narrowed")
	named := prehintPodsNamedTotal.WithLabelValues(pl.name, event)
	pending := prehintPendingPodsTotal.WithLabelValues(pl.name, event)
	return func(logger klog.Logger, oldObj, newObj any) (fwk.PreQueueingHintResult, error) {
		if pl.shared.isDeclined(ev) {
			all.Inc()
			return fwk.PreQueueingHintResult{AllPods: true}, nil
		}
		names, everyPod := gate.candidates(logger, oldObj, newObj)
		if everyPod {
			all.Inc()
			return fwk.PreQueueingHintResult{AllPods: true}, nil
		}
		narrowed.Inc()
		named.Add(float64(len(names)))
		pending.Add(float64(pl.tracker.Len()))
		return fwk.PreQueueingHintResult{Pods: names}, nil
	}
}
