package affinityq

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/runtime"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/interpodaffinity"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/podtopologyspread"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"

	"github.com/affinityq/affinityq/index"
	"github.com/affinityq/affinityq/kube/internal/cycle"
	"github.com/affinityq/affinityq/kube/internal/requeue"
)

// The names under which the wrappers register; a profile enables them in
// place of InterPodAffinity and PodTopologySpread.
const (
	InterPodAffinityName  = "AffinityqInterPodAffinity"
	PodTopologySpreadName = "AffinityqPodTopologySpread"
)

// Plugins is what the wrapper plugins of one scheduler process share: the
// tracker of pending pods, created with the first plugin from the
// framework handle's informer factory, and the events some profile declined
// to narrow. Its factories may be called for several profiles; all must
// share one informer factory, as kube-scheduler's do. It is safe for
// concurrent use.
type Plugins struct {
	opts options

	stats  *cycleStats
	events atomic.Uint64 // the pending index's answers (pre-hints', gates'), for WithSelfCheck

	mu       sync.Mutex // protects the fields below
	factory  informers.SharedInformerFactory
	tracker  *requeue.Tracker
	declined map[fwk.ClusterEvent]bool // events a profile does not narrow
	views    map[fwk.SharedLister]*cycle.View
}

// Option configures New.
type Option func(*options)

type options struct {
	features       *feature.Features
	selfCheckEvery uint64
}

// WithSelfCheck makes one in every `every` answers of the pending index (a
// narrowed pre-hint's, or a gate's for an event the queue did not narrow;
// 0, the default: none) also evaluate the event against every indexed pending pod
// without the index, counting in affinityq_index_selfcheck_divergences_total
// (and logging) any pod the index's lookup missed. A check costs a list of
// the pod informer's store and an evaluation per pending pod, under the
// tracker's lock, inside a pre-hint or hint that kube-scheduler's queue
// calls under its own: about 250 ms at 100,000 pending pods (BenchmarkSelfCheck), so
// keep N large in production.
func WithSelfCheck(every int) Option {
	return func(o *options) { o.selfCheckEvery = uint64(max(every, 0)) }
}

// WithFeatures sets the scheduler features the in-tree plugins are built
// with (default: read from the process's feature gates each time a plugin
// is built, as kube-scheduler's in-tree registry does).
func WithFeatures(f feature.Features) Option {
	return func(o *options) { o.features = &f }
}

// New returns an empty Plugins.
func New(opts ...Option) *Plugins {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	registerMetrics()
	return &Plugins{opts: o, stats: newCycleStats(), declined: map[fwk.ClusterEvent]bool{}, views: map[fwk.SharedLister]*cycle.View{}}
}

// Register registers both wrappers in r under InterPodAffinityName and
// PodTopologySpreadName.
func (p *Plugins) Register(r frameworkruntime.Registry) error {
	return errors.Join(
		r.Register(InterPodAffinityName, p.NewInterPodAffinity),
		r.Register(PodTopologySpreadName, p.NewPodTopologySpread),
	)
}

// NewInterPodAffinity is the frameworkruntime.PluginFactory of the
// InterPodAffinity wrapper. args are the in-tree plugin's
// (InterPodAffinityArgs).
func (p *Plugins) NewInterPodAffinity(ctx context.Context, args runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
	a, err := interPodAffinityArgs(args)
	if err != nil {
		return nil, err
	}
	pl, err := p.newPlugin(ctx, InterPodAffinityName, index.InterPodAffinity, h, true,
		func(fts feature.Features) (fwk.Plugin, error) { return interpodaffinity.New(ctx, a, h, fts) })
	if err != nil {
		return nil, err
	}
	fts := p.features()
	if fts.EnableInterPodAffinityHostnameFastPath {
		klog.FromContext(ctx).Info("InterPodAffinityHostnameFastPath is on: the in-tree plugin answers the scheduling cycle", "plugin", InterPodAffinityName)
		return pl, nil
	}
	view, err := p.viewFor(h)
	if err != nil {
		return nil, fmt.Errorf("affinityq: %s: %w", InterPodAffinityName, err)
	}
	pl.(*plugin).answers = cycle.NewInterPodAffinity(view, h, a, fts)
	return pl, nil
}

// viewFor returns the view of h's snapshot, making it: one per snapshot,
// which kube-scheduler's profiles share.
func (p *Plugins) viewFor(h fwk.Handle) (*cycle.View, error) {
	lister := h.SnapshotSharedLister()
	if lister == nil {
		return nil, errors.New("nil snapshot lister")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if v := p.views[lister]; v != nil {
		return v, nil
	}
	v, err := cycle.ViewOf(h, p.features().EnableTaintTolerationComparisonOperators)
	if err != nil {
		return nil, err
	}
	p.views[lister] = v
	return v, nil
}

// NewPodTopologySpread is the frameworkruntime.PluginFactory of the
// PodTopologySpread wrapper. args are the in-tree plugin's
// (PodTopologySpreadArgs).
func (p *Plugins) NewPodTopologySpread(ctx context.Context, args runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
	a, err := podTopologySpreadArgs(args)
	if err != nil {
		return nil, err
	}
	if hardDefaultConstraints(a) {
		klog.FromContext(ctx).Info("The PodTopologySpread default constraints include DoNotSchedule ones, which the index does not model: its events are not narrowed", "plugin", PodTopologySpreadName)
	}
	pl, err := p.newPlugin(ctx, PodTopologySpreadName, index.PodTopologySpread, h, !hardDefaultConstraints(a),
		func(fts feature.Features) (fwk.Plugin, error) { return podtopologyspread.New(ctx, a, h, fts) })
	if err != nil {
		return nil, err
	}
	fts := p.features()
	view, err := p.viewFor(h)
	if err != nil {
		return nil, fmt.Errorf("affinityq: %s: %w", PodTopologySpreadName, err)
	}
	pl.(*plugin).answers = cycle.NewPodTopologySpread(view, h, a, fts)
	return pl, nil
}

func (p *Plugins) newPlugin(ctx context.Context, name string, rules index.RuleSet, h fwk.Handle, canNarrow bool, build func(feature.Features) (fwk.Plugin, error)) (fwk.Plugin, error) {
	if h == nil {
		return nil, fmt.Errorf("affinityq: %s: nil framework handle", name)
	}
	fts := p.features()
	inner, err := build(fts)
	if err != nil {
		return nil, fmt.Errorf("affinityq: %s: %w", name, err)
	}
	in, ok := inner.(inTree)
	if !ok {
		return nil, fmt.Errorf("affinityq: %s: the in-tree plugin (%T) lacks an extension point the wrapper delegates", name, inner)
	}
	t, err := p.trackerFor(ctx, h, fts)
	if err != nil {
		return nil, fmt.Errorf("affinityq: %s: %w", name, err)
	}
	t.Serve(h.ProfileName())
	return &plugin{name: name, rules: rules, inner: in, shared: p, tracker: t, handle: h, canNarrow: canNarrow,
		resizeDeferred: fts.EnableInPlacePodVerticalScalingSchedulerPreemption}, nil
}

// selfCheckDue counts an answer of the pending index (a pre-hint's, or a
// gate's for an event the queue did not narrow) and reports whether
// WithSelfCheck asks for a check of it.
func (p *Plugins) selfCheckDue() bool {
	every := p.opts.selfCheckEvery
	return every > 0 && p.events.Add(1)%every == 0
}

func (p *Plugins) features() feature.Features {
	if p.opts.features != nil {
		return *p.opts.features
	}
	return feature.NewSchedulerFeaturesFromGates(utilfeature.DefaultFeatureGate)
}

// trackerFor returns the tracker, creating it from h's informer factory.
func (p *Plugins) trackerFor(ctx context.Context, h fwk.Handle, fts feature.Features) (*requeue.Tracker, error) {
	factory := h.SharedInformerFactory()
	if factory == nil {
		return nil, errors.New("nil informer factory")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tracker != nil {
		if p.factory != factory {
			return nil, errors.New("the profiles of one Plugins value must share one informer factory")
		}
		return p.tracker, nil
	}
	t, err := requeue.New(factory, fts.EnableMatchLabelKeysInPodTopologySpread, klog.FromContext(ctx).WithName("affinityq-requeue"))
	if err != nil {
		return nil, err
	}
	p.factory, p.tracker = factory, t
	return t, nil
}

// decline records that some profile does not narrow ev.
func (p *Plugins) decline(ev fwk.ClusterEvent) {
	p.mu.Lock()
	p.declined[ev] = true
	p.mu.Unlock()
}

func (p *Plugins) isDeclined(ev fwk.ClusterEvent) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.declined[ev]
}
