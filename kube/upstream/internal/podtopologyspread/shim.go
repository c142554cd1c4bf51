//go:build affinityq_upstream

// Package podtopologyspread is kube-scheduler v1.37.2's PodTopologySpread
// package as package upstream assembles it when its test runs (an overlay,
// with the affinityq_upstream tag): upstream's files, with New renamed
// newInTree and the cycle's extension points renamed inTree…, and this
// file, whose New and extension points go through package affinityq's wrapper. The
// directory holds only this file; without the overlay it builds nothing.
package podtopologyspread

import (
	"context"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"

	"github.com/affinityq/affinityq/kube/upstream/internal/shim"
)

// affinityqCell is the type of the field the overlay adds to
// PodTopologySpread: its wrappers.
type affinityqCell = shim.Cell

// New builds upstream's plugin (its checks and errors) carrying the
// wrapper built with the same arguments.
func New(ctx context.Context, args runtime.Object, h fwk.Handle, fts feature.Features) (fwk.Plugin, error) {
	p, err := newInTree(ctx, args, h, fts)
	if err != nil {
		return nil, err
	}
	pl := p.(*PodTopologySpread)
	if err := pl.affinityq.Init(ctx, shim.PodTopologySpread, args, h, fts); err != nil {
		return nil, err
	}
	return pl, nil
}

// wrapper returns the wrapper of the features the plugin's fields say
// (tests set them after New) for pod's cycle.
func (pl *PodTopologySpread) wrapper(ctx context.Context, pod *v1.Pod) *shim.Wrapper {
	fts := pl.affinityq.Features()
	fts.EnableNodeInclusionPolicyInPodTopologySpread = pl.enableNodeInclusionPolicyInPodTopologySpread
	fts.EnableMatchLabelKeysInPodTopologySpread = pl.enableMatchLabelKeysInPodTopologySpread
	fts.EnableTaintTolerationComparisonOperators = pl.enableTaintTolerationComparisonOperators
	fts.EnableInPlacePodVerticalScalingSchedulerPreemption = pl.enableInPlacePodVerticalScalingSchedulerPreemption
	return pl.affinityq.Wrapper(ctx, shim.PodTopologySpread, fts, func() runtime.Object {
		args := &config.PodTopologySpreadArgs{DefaultingType: config.ListDefaulting, DefaultConstraints: pl.defaultConstraints}
		if pl.systemDefaulted {
			args = &config.PodTopologySpreadArgs{DefaultingType: config.SystemDefaulting}
		}
		return args
	})
}

func (pl *PodTopologySpread) PreFilter(ctx context.Context, state fwk.CycleState, pod *v1.Pod, nodes []fwk.NodeInfo) (*fwk.PreFilterResult, *fwk.Status) {
	return pl.wrapper(ctx, pod).PreFilter(ctx, state, pod, nodes)
}

func (pl *PodTopologySpread) PreFilterExtensions() fwk.PreFilterExtensions { return pl }

func (pl *PodTopologySpread) AddPod(ctx context.Context, state fwk.CycleState, pod *v1.Pod, p fwk.PodInfo, ni fwk.NodeInfo) *fwk.Status {
	return pl.wrapper(ctx, pod).AddPod(ctx, state, pod, p, ni)
}

func (pl *PodTopologySpread) RemovePod(ctx context.Context, state fwk.CycleState, pod *v1.Pod, p fwk.PodInfo, ni fwk.NodeInfo) *fwk.Status {
	return pl.wrapper(ctx, pod).RemovePod(ctx, state, pod, p, ni)
}

func (pl *PodTopologySpread) Filter(ctx context.Context, state fwk.CycleState, pod *v1.Pod, ni fwk.NodeInfo) *fwk.Status {
	return pl.wrapper(ctx, pod).Filter(ctx, state, pod, ni)
}

func (pl *PodTopologySpread) PreScore(ctx context.Context, state fwk.CycleState, pod *v1.Pod, nodes []fwk.NodeInfo) *fwk.Status {
	return pl.wrapper(ctx, pod).PreScore(ctx, state, pod, nodes)
}

func (pl *PodTopologySpread) Score(ctx context.Context, state fwk.CycleState, pod *v1.Pod, ni fwk.NodeInfo) (int64, *fwk.Status) {
	return pl.wrapper(ctx, pod).Score(ctx, state, pod, ni)
}

func (pl *PodTopologySpread) ScoreExtensions() fwk.ScoreExtensions { return pl }

func (pl *PodTopologySpread) NormalizeScore(ctx context.Context, state fwk.CycleState, pod *v1.Pod, scores fwk.NodeScoreList) *fwk.Status {
	return pl.wrapper(ctx, pod).NormalizeScore(ctx, state, pod, scores)
}

func (pl *PodTopologySpread) SignPod(ctx context.Context, pod *v1.Pod) ([]fwk.SignFragment, *fwk.Status) {
	return pl.wrapper(ctx, pod).SignPod(ctx, pod)
}

func (pl *PodTopologySpread) EventsToRegister(ctx context.Context) ([]fwk.ClusterEventWithHint, error) {
	return pl.wrapper(ctx, nil).EventsToRegister(ctx)
}
