package affinityq

import "sync"

// Why a scheduling cycle's extension point was answered by the in-tree
// plugin instead of the placed index: the snapshot could not be listed or
// synced (the only reason).
const fallbackSync = "sync"

// cycleStats counts, per wrapper, the extension points (PreFilter) answered
// from the placed index and the fallbacks by reason.
type cycleStats struct {
	mu        sync.Mutex // protects the maps
	answers   map[string]uint64
	fallbacks map[[2]string]uint64 // by wrapper and reason
}

func newCycleStats() *cycleStats {
	return &cycleStats{answers: map[string]uint64{}, fallbacks: map[[2]string]uint64{}}
}

func (s *cycleStats) answered(plugin string) {
	cycleAnswersTotal.WithLabelValues(plugin).Inc()
	s.mu.Lock()
	s.answers[plugin]++
	s.mu.Unlock()
}

func (s *cycleStats) fellBack(plugin, reason string) {
	cycleFallbacksTotal.WithLabelValues(plugin, reason).Inc()
	s.mu.Lock()
	s.fallbacks[[2]string{plugin, reason}]++
	s.mu.Unlock()
}

// CycleStats reports, per wrapper, how many PreFilters the placed index
// answered, and how many extension points fell back to the in-tree plugin
// by wrapper and reason ("sync").
func (p *Plugins) CycleStats() (answered map[string]uint64, fallbacks map[[2]string]uint64) {
	s := p.stats
	s.mu.Lock()
	defer s.mu.Unlock()
	answered, fallbacks = map[string]uint64{}, map[[2]string]uint64{}
	for k, n := range s.answers {
		answered[k] = n
	}
	for k, n := range s.fallbacks {
		fallbacks[k] = n
	}
	return answered, fallbacks
}
