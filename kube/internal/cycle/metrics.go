package cycle

import (
	"sync"
	"time"

	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"

	"github.com/affinityq/affinityq/placed"
)

// The placed index's series in kube-scheduler's registry (legacyregistry,
// which its /metrics serves).
var (
	placedPods = metrics.NewGauge(&metrics.GaugeOpts{
		Name:           "affinityq_placed_pods",
		Help:           "Pods in the placed index, as of the last scheduling cycle's snapshot (updated at most once a second).",
		StabilityLevel: metrics.ALPHA,
	})

	placedShapes = metrics.NewGaugeVec(&metrics.GaugeOpts{
		Name:           "affinityq_placed_shapes",
		Help:           "Shapes the placed index keeps, by kind: placed (placed pods' terms) and incoming (incoming pods' questions, bounded).",
		StabilityLevel: metrics.ALPHA,
	}, []string{"kind"})

	placedShapeBytes = metrics.NewGauge(&metrics.GaugeOpts{
		Name:           "affinityq_placed_shape_bytes",
		Help:           "Estimated memory the placed index's shapes hold.",
		StabilityLevel: metrics.ALPHA,
	})

	registerOnce sync.Once
)

// RegisterMetrics registers the series in legacyregistry, once per process.
func RegisterMetrics() {
	registerOnce.Do(func() {
		legacyregistry.MustRegister(placedPods, placedShapes, placedShapeBytes)
	})
}

// statsEvery bounds how often a view refreshes the index's gauges: Stats
// visits every shape.
const statsEvery = time.Second

// recordStats sets the index's gauges.
func recordStats(st placed.Stats) {
	placedPods.Set(float64(st.Pods))
	placedShapes.WithLabelValues("placed").Set(float64(st.PlacedShapes))
	placedShapes.WithLabelValues("incoming").Set(float64(st.IncomingShapes))
	placedShapeBytes.Set(float64(st.ShapeBytes))
}
