package perf

import (
	"context"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	fwk "k8s.io/kube-scheduler/framework"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"

	"github.com/affinityq/affinityq/kube/affinityq"
)

// Names of the affinityq plug-ins, as scheduler-affinityq.yaml enables them.
const (
	interPodAffinityName  = affinityq.InterPodAffinityName
	podTopologySpreadName = affinityq.PodTopologySpreadName
)

// outOfTreeRegistry returns the plug-ins the harness adds to kube-scheduler's
// in-tree registry: the affinityq wrappers, as kube/cmd/kube-scheduler
// registers them. Both profiles get the same registry; the default profile
// simply does not enable these names.
//
// The harness builds a new scheduler, with a new informer factory, for
// every workload, from this one registry; the two wrappers of one scheduler
// must share one affinityq.Plugins, which binds to that scheduler's informer
// factory. So the factories hand each scheduler a Plugins of its own, made
// when its first wrapper is built, and drop the previous scheduler's (the
// harness runs workloads one at a time), so that its index and informer
// caches do not stay on the heap of the workloads that follow.
func outOfTreeRegistry() frameworkruntime.Registry {
	var s perScheduler
	return frameworkruntime.Registry{
		affinityq.InterPodAffinityName: func(ctx context.Context, args runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
			return s.pluginsFor(h).NewInterPodAffinity(ctx, args, h)
		},
		affinityq.PodTopologySpreadName: func(ctx context.Context, args runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
			return s.pluginsFor(h).NewPodTopologySpread(ctx, args, h)
		},
	}
}

// perScheduler holds the affinityq.Plugins of the scheduler being built or
// run: the one whose informer factory it was last asked about.
type perScheduler struct {
	mu      sync.Mutex // protects the fields below
	factory informers.SharedInformerFactory
	plugins *affinityq.Plugins
}

// pluginsFor returns the Plugins of h's scheduler, identified by its
// informer factory, replacing those of any earlier scheduler.
func (s *perScheduler) pluginsFor(h fwk.Handle) *affinityq.Plugins {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f := h.SharedInformerFactory(); s.plugins == nil || f != s.factory {
		s.factory, s.plugins = f, affinityq.New()
	}
	return s.plugins
}
