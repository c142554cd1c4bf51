//go:build affinityq_upstream

// Package interpodaffinity is kube-scheduler v1.37.2's InterPodAffinity
// package as package upstream assembles it when its test runs (an overlay,
// with the affinityq_upstream tag): upstream's files, with New renamed
// newInTree and the cycle's extension points renamed inTree…, and this
// file, whose New and extension points go through package affinityq's wrapper. The
// directory holds only this file; without the overlay it builds nothing.
package interpodaffinity

import (
	"context"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"

	"github.com/affinityq/affinityq/kube/upstream/internal/shim"
)

// affinityqCell is the type of the field the overlay adds to
// InterPodAffinity: its wrappers.
type affinityqCell = shim.Cell

// New builds upstream's plugin (its checks and errors) carrying the
// wrapper built with the same arguments.
func New(ctx context.Context, args runtime.Object, h fwk.Handle, fts feature.Features) (fwk.Plugin, error) {
	p, err := newInTree(ctx, args, h, fts)
	if err != nil {
		return nil, err
	}
	pl := p.(*InterPodAffinity)
	if err := pl.affinityq.Init(ctx, shim.InterPodAffinity, args, h, fts); err != nil {
		return nil, err
	}
	return pl, nil
}

// wrapper returns the wrapper of the features the plugin's fields say
// (tests set them after New).
func (pl *InterPodAffinity) wrapper(ctx context.Context) *shim.Wrapper {
	fts := pl.affinityq.Features()
	fts.EnableInPlacePodVerticalScalingSchedulerPreemption = pl.enableInPlacePodVerticalScalingSchedulerPreemption
	fts.EnableInterPodAffinityHostnameFastPath = pl.enableInterPodAffinityHostnameFastPath
	return pl.affinityq.Wrapper(ctx, shim.InterPodAffinity, fts, func() runtime.Object {
		args := pl.args
		return &args
	})
}

func (pl *InterPodAffinity) PreFilter(ctx context.Context, state fwk.CycleState, pod *v1.Pod, nodes []fwk.NodeInfo) (*fwk.PreFilterResult, *fwk.Status) {
	return pl.wrapper(ctx).PreFilter(ctx, state, pod, nodes)
}

func (pl *InterPodAffinity) PreFilterExtensions() fwk.PreFilterExtensions { return pl }

func (pl *InterPodAffinity) AddPod(ctx context.Context, state fwk.CycleState, pod *v1.Pod, p fwk.PodInfo, ni fwk.NodeInfo) *fwk.Status {
	return pl.wrapper(ctx).AddPod(ctx, state, pod, p, ni)
}

func (pl *InterPodAffinity) RemovePod(ctx context.Context, state fwk.CycleState, pod *v1.Pod, p fwk.PodInfo, ni fwk.NodeInfo) *fwk.Status {
	return pl.wrapper(ctx).RemovePod(ctx, state, pod, p, ni)
}

func (pl *InterPodAffinity) Filter(ctx context.Context, state fwk.CycleState, pod *v1.Pod, ni fwk.NodeInfo) *fwk.Status {
	return pl.wrapper(ctx).Filter(ctx, state, pod, ni)
}

func (pl *InterPodAffinity) PreScore(ctx context.Context, state fwk.CycleState, pod *v1.Pod, nodes []fwk.NodeInfo) *fwk.Status {
	return pl.wrapper(ctx).PreScore(ctx, state, pod, nodes)
}

func (pl *InterPodAffinity) Score(ctx context.Context, state fwk.CycleState, pod *v1.Pod, ni fwk.NodeInfo) (int64, *fwk.Status) {
	return pl.wrapper(ctx).Score(ctx, state, pod, ni)
}

func (pl *InterPodAffinity) ScoreExtensions() fwk.ScoreExtensions { return pl }

func (pl *InterPodAffinity) NormalizeScore(ctx context.Context, state fwk.CycleState, pod *v1.Pod, scores fwk.NodeScoreList) *fwk.Status {
	return pl.wrapper(ctx).NormalizeScore(ctx, state, pod, scores)
}

func (pl *InterPodAffinity) SignPod(ctx context.Context, pod *v1.Pod) ([]fwk.SignFragment, *fwk.Status) {
	return pl.wrapper(ctx).SignPod(ctx, pod)
}

func (pl *InterPodAffinity) EventsToRegister(ctx context.Context) ([]fwk.ClusterEventWithHint, error) {
	return pl.wrapper(ctx).EventsToRegister(ctx)
}
