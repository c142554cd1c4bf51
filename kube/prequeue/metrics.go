package prequeue

import (
	"sync"
	"time"

	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"

	"github.com/affinityq/affinityq/index"
	"github.com/affinityq/affinityq/placed"
)

// The wrappers' series in kube-scheduler's registry (legacyregistry, which
// its /metrics serves), registered once per process by New.
var (
	cycleAnswersTotal = metrics.NewCounterVec(&metrics.CounterOpts{
		Name:           "affinityq_cycle_answers_total",
		Help:           "Scheduling cycles whose PreFilter a wrapper answered from the placed index, by plugin.",
		StabilityLevel: metrics.ALPHA,
	}, []string{"plugin"})
	cycleFallbacksTotal = metrics.NewCounterVec(&metrics.CounterOpts{
		Name:           "affinityq_cycle_fallbacks_total",
		Help:           "Extension points a wrapper left to the in-tree plugin, by plugin and reason (sync: the snapshot could not be listed or synced).",
		StabilityLevel: metrics.ALPHA,
	}, []string{"plugin", "reason"})
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

	prehintCallsTotal = metrics.NewCounterVec(&metrics.CounterOpts{
		Name:           "affinityq_prehint_calls_total",
		Help:           "PreQueueingHint calls, by plugin, event and answer: narrowed (a list of pods) or all (every pod, the event not narrowed).",
		StabilityLevel: metrics.ALPHA,
	}, []string{"plugin", "event", "answer"})
	prehintPodsNamedTotal = metrics.NewCounterVec(&metrics.CounterOpts{
		Name:           "affinityq_prehint_pods_named_total",
		Help:           "Pods the narrowed PreQueueingHint answers named, by plugin and event (a pod may be named twice).",
		StabilityLevel: metrics.ALPHA,
	}, []string{"plugin", "event"})
	prehintPendingPodsTotal = metrics.NewCounterVec(&metrics.CounterOpts{
		Name: "affinityq_prehint_pending_pods_total",
		Help: "The indexed pending pods at each narrowed PreQueueingHint answer, summed, by plugin and event: " +
			"affinityq_prehint_pods_named_total over this is the fraction of the pending pods an event is narrowed to.",
		StabilityLevel: metrics.ALPHA,
	}, []string{"plugin", "event"})
	indexLookupDuration = metrics.NewHistogramVec(&metrics.HistogramOpts{
		Name:           "affinityq_index_lookup_duration_seconds",
		Help:           "Time a PreQueueingHint spent looking up the pending-pod index, by event.",
		Buckets:        metrics.ExponentialBuckets(1e-6, 4, 10), // 1 µs to 0.26 s
		StabilityLevel: metrics.ALPHA,
	}, []string{"event"})
	indexPendingPods = metrics.NewGauge(&metrics.GaugeOpts{
		Name:           "affinityq_index_pending_pods",
		Help:           "Pending pods in the pre-hints' index (updated at most once a second, on a pre-hint call).",
		StabilityLevel: metrics.ALPHA,
	})
	indexGroups = metrics.NewGauge(&metrics.GaugeOpts{
		Name:           "affinityq_index_groups",
		Help:           "Distinct compiled rules in the pre-hints' index: the replicas of a workload share one.",
		StabilityLevel: metrics.ALPHA,
	})
	indexPostings = metrics.NewGauge(&metrics.GaugeOpts{
		Name:           "affinityq_index_postings",
		Help:           "Posting lists of the pre-hints' index (its term and label postings).",
		StabilityLevel: metrics.ALPHA,
	})
	indexBytes = metrics.NewGauge(&metrics.GaugeOpts{
		Name:           "affinityq_index_posting_bytes",
		Help:           "Estimated heap the pre-hints' index's posting tables and lists hold.",
		StabilityLevel: metrics.ALPHA,
	})
	selfChecksTotal = metrics.NewCounter(&metrics.CounterOpts{
		Name:           "affinityq_index_selfchecks_total",
		Help:           "Narrowed events whose answer was checked against every indexed pod evaluated without the index (WithSelfCheck).",
		StabilityLevel: metrics.ALPHA,
	})
	selfCheckDivergencesTotal = metrics.NewCounter(&metrics.CounterOpts{
		Name:           "affinityq_index_selfcheck_divergences_total",
		Help:           "Pods a self-check found affected by an event that the index's lookup missed; anything but 0 is a bug, logged with the pod and the event.",
		StabilityLevel: metrics.ALPHA,
	})

	registerOnce sync.Once
)

func registerMetrics() {
	registerOnce.Do(func() {
		legacyregistry.MustRegister(cycleAnswersTotal, cycleFallbacksTotal, placedPods, placedShapes, placedShapeBytes,
			prehintCallsTotal, prehintPodsNamedTotal, prehintPendingPodsTotal, indexLookupDuration,
			indexPendingPods, indexGroups, indexPostings, indexBytes, selfChecksTotal, selfCheckDivergencesTotal)
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

// recordIndexStats sets the pending-pod index's gauges.
func recordIndexStats(st index.Stats) {
	indexPendingPods.Set(float64(st.Pods))
	indexGroups.Set(float64(st.Groups))
	indexPostings.Set(float64(st.TermPostings + st.LabelPostings))
	indexBytes.Set(float64(st.PostingBytes))
}
