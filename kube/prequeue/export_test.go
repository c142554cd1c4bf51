package prequeue

import (
	v1 "k8s.io/api/core/v1"

	"github.com/affinityq/affinityq/index"
)

// TrackerState reports, for tests, whether the tracker's handler has synced
// and how many pods it holds in the index, as foreign, dirty and
// relabelled.
func (p *Plugins) TrackerState() (synced bool, indexed, foreign, dirty, relabelled int) {
	p.mu.Lock()
	t := p.tracker
	p.mu.Unlock()
	if t == nil {
		return false, 0, 0, 0, 0
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.marksMu.Lock()
	dirty = len(t.dirty)
	t.marksMu.Unlock()
	return t.reg.HasSynced(), t.ix.Len(), len(t.foreign), dirty, len(t.relabelled)
}

// ValidateTracker checks the tracker's invariants; see tracker.validate.
func (p *Plugins) ValidateTracker() error {
	p.mu.Lock()
	t := p.tracker
	p.mu.Unlock()
	if t == nil {
		return nil
	}
	return t.validate()
}

// ViewWalks returns, for tests, how many node lists the plug-ins' views
// have walked to sync their indexes.
func (p *Plugins) ViewWalks() uint64 {
	return p.sumViews(func(v *snapshotView) uint64 { return v.walks })
}

// ViewNamespaceChanges returns, for tests, how many namespace events the
// plug-ins' views have heard.
func (p *Plugins) ViewNamespaceChanges() uint64 {
	return p.sumViews(func(v *snapshotView) uint64 { return v.nsChanges })
}

// sumViews sums a counter of the views, each read under its lock.
func (p *Plugins) sumViews(counter func(*snapshotView) uint64) uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	var n uint64
	for _, v := range p.views {
		v.mu.Lock()
		n += counter(v)
		v.mu.Unlock()
	}
	return n
}

// DropLookupHits makes the tracker's index lookups return nothing, for
// tests of what notices a wrong index.
func (p *Plugins) DropLookupHits() {
	p.mu.Lock()
	t := p.tracker
	p.mu.Unlock()
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lookup = func(dst []index.Hit[*v1.Pod], _ *index.Event) []index.Hit[*v1.Pod] { return dst[:0] }
}
