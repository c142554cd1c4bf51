package affinityq

import (
	"context"

	v1 "k8s.io/api/core/v1"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/affinityq/affinityq/index"

	"github.com/affinityq/affinityq/kube/internal/requeue"
)

// TrackerState reports, for tests, what the tracker of pending pods holds
// (the zero State before a wrapper is built).
func (p *Plugins) TrackerState() requeue.State {
	p.mu.Lock()
	t := p.tracker
	p.mu.Unlock()
	if t == nil {
		return requeue.State{}
	}
	return t.State()
}

// ValidateTracker checks the tracker's invariants; see Tracker.Validate.
func (p *Plugins) ValidateTracker() error {
	p.mu.Lock()
	t := p.tracker
	p.mu.Unlock()
	if t == nil {
		return nil
	}
	return t.Validate()
}

// ViewWalks returns, for tests, how many node lists the plug-ins' views
// have walked to sync their indexes.
func (p *Plugins) ViewWalks() uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	var n uint64
	for _, v := range p.views {
		n += v.Walks()
	}
	return n
}

// ViewNamespaceChanges returns, for tests, how many namespace events the
// plug-ins' views have heard.
func (p *Plugins) ViewNamespaceChanges() uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	var n uint64
	for _, v := range p.views {
		n += v.NamespaceChanges()
	}
	return n
}

// UngatedEventsToRegister returns, for tests, ext's registrations: a
// wrapper's with the in-tree QueueingHintFns in place of the gated ones
// (see hintGate), any other plugin's as it registers them.
func UngatedEventsToRegister(ctx context.Context, ext fwk.EnqueueExtensions) ([]fwk.ClusterEventWithHint, error) {
	if pl, ok := ext.(*plugin); ok {
		return pl.eventsToRegister(ctx, false)
	}
	return ext.EventsToRegister(ctx)
}

// MarkRejected records, for tests, that the wrapper named plugin rejected
// pod in a scheduling cycle, as its PreFilter or Filter does, and reports
// whether the tracker marked it; other names are ignored (true).
func (p *Plugins) MarkRejected(pod *v1.Pod, plugin string) bool {
	p.mu.Lock()
	t := p.tracker
	p.mu.Unlock()
	switch {
	case t == nil:
		return false
	case plugin == InterPodAffinityName:
		return t.MarkRejected(pod, index.InterPodAffinity)
	case plugin == PodTopologySpreadName:
		return t.MarkRejected(pod, index.PodTopologySpread)
	}
	return true
}
