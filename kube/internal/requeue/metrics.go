package requeue

import (
	"sync"
	"time"

	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"

	"github.com/affinityq/affinityq/index"
)

// The pending-pod index's series in kube-scheduler's registry
// (legacyregistry, which its /metrics serves).
var (
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

// RegisterMetrics registers the series in legacyregistry, once per process.
func RegisterMetrics() {
	registerOnce.Do(func() {
		legacyregistry.MustRegister(indexLookupDuration, indexPendingPods, indexGroups, indexPostings, indexBytes, selfChecksTotal, selfCheckDivergencesTotal)
	})
}

// statsEvery bounds how often the tracker refreshes the index's gauges.
const statsEvery = time.Second

// recordIndexStats sets the pending-pod index's gauges.
func recordIndexStats(st index.Stats) {
	indexPendingPods.Set(float64(st.Pods))
	indexGroups.Set(float64(st.Groups))
	indexPostings.Set(float64(st.TermPostings + st.LabelPostings))
	indexBytes.Set(float64(st.PostingBytes))
}
