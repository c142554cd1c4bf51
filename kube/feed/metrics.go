package feed

import (
	"sync"

	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"

	"github.com/affinityq/affinityq/index"
	"github.com/affinityq/affinityq/queue"
)

// The queue's series, registered once per process in legacyregistry (the
// registry kube-scheduler's and most components' /metrics serve).
var (
	queueLookupsTotal = metrics.NewCounterVec(&metrics.CounterOpts{
		Name:           "affinityq_queue_lookups_total",
		Help:           "Index lookups of an affinityq queue: assigned-pod, node and namespace events while its unschedulable pool is not empty, by event.",
		StabilityLevel: metrics.ALPHA,
	}, []string{"event"})
	queueLookupHitsTotal = metrics.NewCounterVec(&metrics.CounterOpts{
		Name:           "affinityq_queue_lookup_hits_total",
		Help:           "Unschedulable pods an affinityq queue's index lookups returned, by event.",
		StabilityLevel: metrics.ALPHA,
	}, []string{"event"})
	queueLookupMovedTotal = metrics.NewCounterVec(&metrics.CounterOpts{
		Name:           "affinityq_queue_lookup_moved_total",
		Help:           "Of the pods an affinityq queue's lookups returned, those its policy moved out of the unschedulable pool, by event.",
		StabilityLevel: metrics.ALPHA,
	}, []string{"event"})
	queueMovesTotal = metrics.NewCounterVec(&metrics.CounterOpts{
		Name: "affinityq_queue_moves_total",
		Help: "Pods that left an affinityq queue's unschedulable pool, or that a failed attempt requeued instead of parking, " +
			"by reason (an event kind, PodUpdate, UnschedulableTimeout, InFlightOverflow or MoveAll's reason) and destination (Active, Backoff).",
		StabilityLevel: metrics.ALPHA,
	}, []string{"reason", "to"})

	queueMetricsOnce sync.Once
)

// QueueMetrics returns a queue.Metrics (for queue.WithMetrics) that
// exports a queue's counts as the series affinityq_queue_lookups_total,
// affinityq_queue_lookup_hits_total and affinityq_queue_lookup_moved_total
// (by event) and affinityq_queue_moves_total (by reason and destination),
// registering them in legacyregistry on first use. Every queue given it
// adds to the same series. MoveAll's reasons become label values: keep
// them a small fixed set.
func QueueMetrics() queue.Metrics {
	queueMetricsOnce.Do(func() {
		legacyregistry.MustRegister(queueLookupsTotal, queueLookupHitsTotal, queueLookupMovedTotal, queueMovesTotal)
	})
	return queueMetrics{}
}

// queueMetrics is QueueMetrics' queue.Metrics: a counter increment per
// call, quick enough for the queue's lock.
type queueMetrics struct{}

func (queueMetrics) Lookup(kind index.EventKind, hits, moved int) {
	event := kind.String()
	queueLookupsTotal.WithLabelValues(event).Inc()
	queueLookupHitsTotal.WithLabelValues(event).Add(float64(hits))
	queueLookupMovedTotal.WithLabelValues(event).Add(float64(moved))
}

func (queueMetrics) Moved(reason string, to queue.Location) {
	queueMovesTotal.WithLabelValues(reason, to.String()).Inc()
}
