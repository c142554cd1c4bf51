package shim

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/affinityq/affinityq/kube/affinityq"
)

// Wrapper is one wrapper plugin, with the Plugins value it was built from.
// Its PreFilter and PreScore log who answered (see AnsweredIndex); its other
// methods are the wrapper's.
type Wrapper struct {
	fwk.Plugin
	plugins *affinityq.Plugins
	lister  fwk.SharedLister // the handle's snapshot
}

// Who answered a PreFilter or PreScore, as Wrapper logs it (the "by" value
// after Marker).
const (
	// AnsweredIndex: the wrapper answered from the placed index.
	AnsweredIndex = "index"
	// AnsweredGates: the wrapper was built to hand every cycle to the
	// in-tree plugin (a feature gate it does not model).
	AnsweredGates = "in-tree:gates"
	// AnsweredFallback, followed by the reason CycleStats counts: the
	// index could not answer this cycle.
	AnsweredFallback = "in-tree:"
	// AnsweredUnknown: none of the above could be told apart (a PreFilter
	// that neither answered from the index nor fell back).
	AnsweredUnknown = "unknown"
)

// PreFilter is the wrapper's, logged.
func (w *Wrapper) PreFilter(ctx context.Context, state fwk.CycleState, pod *v1.Pod, nodes []fwk.NodeInfo) (*fwk.PreFilterResult, *fwk.Status) {
	w.giveUIDs(pod, nodes...)
	answered, fallbacks := w.plugins.CycleStats()
	res, status := w.Plugin.(fwk.PreFilterPlugin).PreFilter(ctx, state, pod, nodes)
	w.log(ctx, "PreFilter", answered, fallbacks, status)
	return res, status
}

// PreScore is the wrapper's, logged.
func (w *Wrapper) PreScore(ctx context.Context, state fwk.CycleState, pod *v1.Pod, nodes []fwk.NodeInfo) *fwk.Status {
	w.giveUIDs(pod, nodes...)
	answered, fallbacks := w.plugins.CycleStats()
	status := w.Plugin.(fwk.PreScorePlugin).PreScore(ctx, state, pod, nodes)
	w.log(ctx, "PreScore", answered, fallbacks, status)
	return status
}

// Filter is the wrapper's.
func (w *Wrapper) Filter(ctx context.Context, state fwk.CycleState, pod *v1.Pod, ni fwk.NodeInfo) *fwk.Status {
	w.giveUIDs(pod, ni)
	return w.Plugin.(fwk.FilterPlugin).Filter(ctx, state, pod, ni)
}

// AddPod is the wrapper's PreFilterExtensions'.
func (w *Wrapper) AddPod(ctx context.Context, state fwk.CycleState, pod *v1.Pod, p fwk.PodInfo, ni fwk.NodeInfo) *fwk.Status {
	w.giveUIDs(pod, ni)
	w.giveUID(p.GetPod())
	return w.Plugin.(fwk.PreFilterPlugin).PreFilterExtensions().AddPod(ctx, state, pod, p, ni)
}

// RemovePod is the wrapper's PreFilterExtensions'.
func (w *Wrapper) RemovePod(ctx context.Context, state fwk.CycleState, pod *v1.Pod, p fwk.PodInfo, ni fwk.NodeInfo) *fwk.Status {
	w.giveUIDs(pod, ni)
	w.giveUID(p.GetPod())
	return w.Plugin.(fwk.PreFilterPlugin).PreFilterExtensions().RemovePod(ctx, state, pod, p, ni)
}

// Score is the wrapper's.
func (w *Wrapper) Score(ctx context.Context, state fwk.CycleState, pod *v1.Pod, ni fwk.NodeInfo) (int64, *fwk.Status) {
	w.giveUIDs(pod, ni)
	return w.Plugin.(fwk.ScorePlugin).Score(ctx, state, pod, ni)
}

// NormalizeScore is the wrapper's ScoreExtensions'.
func (w *Wrapper) NormalizeScore(ctx context.Context, state fwk.CycleState, pod *v1.Pod, scores fwk.NodeScoreList) *fwk.Status {
	return w.Plugin.(fwk.ScorePlugin).ScoreExtensions().NormalizeScore(ctx, state, pod, scores)
}

// SignPod is the wrapper's.
func (w *Wrapper) SignPod(ctx context.Context, pod *v1.Pod) ([]fwk.SignFragment, *fwk.Status) {
	return w.Plugin.(fwk.SignPlugin).SignPod(ctx, pod)
}

// EventsToRegister is the wrapper's.
func (w *Wrapper) EventsToRegister(ctx context.Context) ([]fwk.ClusterEventWithHint, error) {
	return w.Plugin.(fwk.EnqueueExtensions).EventsToRegister(ctx)
}

// log logs, after Marker, who answered the extension point: the counts
// are CycleStats' before the call.
func (w *Wrapper) log(ctx context.Context, point string, answered map[string]uint64, fallbacks map[[2]string]uint64, status *fwk.Status) {
	by := AnsweredUnknown
	nowAnswered, nowFallbacks := w.plugins.CycleStats()
	for k, n := range nowFallbacks {
		if n > fallbacks[k] {
			by = AnsweredFallback + k[1]
		}
	}
	switch {
	case by != AnsweredUnknown:
	case any(w.Plugin.(fwk.ScorePlugin).ScoreExtensions()) != any(w.Plugin):
		// The wrapper's extensions are its own only when it answers
		// cycles from the index.
		by = AnsweredGates
	case point == "PreScore":
		by = AnsweredIndex
	default:
		for k, n := range nowAnswered {
			if n > answered[k] {
				by = AnsweredIndex
			}
		}
	}
	klog.FromContext(ctx).Info(Marker, "point", point, "by", by, "code", status.Code().String())
}

// giveUIDs gives, under -affinityq.cluster, a UID to pod, to the pods of
// nodes and to those of the snapshot's nodes, where they have none.
func (w *Wrapper) giveUIDs(pod *v1.Pod, nodes ...fwk.NodeInfo) {
	if !Cluster() {
		return
	}
	w.giveUID(pod)
	if w.lister != nil {
		if all, err := w.lister.NodeInfos().List(); err == nil {
			nodes = append(nodes, all...)
		}
	}
	for _, ni := range nodes {
		if ni == nil {
			continue
		}
		for _, p := range ni.GetPods() {
			w.giveUID(p.GetPod())
		}
	}
}

func (w *Wrapper) giveUID(pod *v1.Pod) {
	if Cluster() && pod != nil && pod.UID == "" {
		pod.UID = types.UID(fmt.Sprintf("affinityq-upstream-%p", pod))
	}
}
