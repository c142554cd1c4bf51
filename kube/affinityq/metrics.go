package affinityq

import (
	"sync"

	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"

	"github.com/affinityq/affinityq/kube/internal/cycle"
	"github.com/affinityq/affinityq/kube/internal/requeue"
)

// The wrappers' own series in kube-scheduler's registry (legacyregistry,
// which its /metrics serves), registered once per process by New with
// those of the pending-pod index (package requeue) and of the placed index
// (package cycle).
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
	hintGateTotal = metrics.NewCounterVec(&metrics.CounterOpts{
		Name: "affinityq_hint_gate_total",
		Help: "QueueingHint calls a wrapper's gate answered, by plugin, event and answer: skipped (QueueSkip, the pod not among the pending index's candidates) " +
			"or asked (the in-tree hint decided).",
		StabilityLevel: metrics.ALPHA,
	}, []string{"plugin", "event", "answer"})

	registerOnce sync.Once
)

func registerMetrics() {
	registerOnce.Do(func() {
		legacyregistry.MustRegister(cycleAnswersTotal, cycleFallbacksTotal,
			prehintCallsTotal, prehintPodsNamedTotal, prehintPendingPodsTotal, hintGateTotal)
		requeue.RegisterMetrics()
		cycle.RegisterMetrics()
	})
}
