package affinityq_test

import (
	"fmt"
	"testing"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/component-base/metrics/legacyregistry"
	"k8s.io/klog/v2"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	"github.com/affinityq/affinityq/kube/affinityq"
)

// series returns every sample of legacyregistry by name and labels
// ("name,label=value,..." in the registry's label order): a counter's or
// gauge's value, a histogram's sample count.
func series(t *testing.T) map[string]float64 {
	t.Helper()
	families, err := legacyregistry.DefaultGatherer.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			name := f.GetName()
			for _, l := range m.GetLabel() {
				name += "," + l.GetName() + "=" + l.GetValue()
			}
			got[name] = m.GetCounter().GetValue() + m.GetGauge().GetValue() + float64(m.GetHistogram().GetSampleCount())
		}
	}
	return got
}

// TestPreHintMetrics drives the affinity wrapper's pre-hint for assigned
// pods added, with a self-check of every narrowed answer, and reads the
// series: calls by answer, pods named against pods pending, lookups timed,
// the index's gauges, and the self-check, which counts nothing while the
// index is right and a divergence once its lookups drop their hits.
func TestPreHintMetrics(t *testing.T) {
	web := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web", UID: "web"}, Spec: v1.PodSpec{SchedulerName: v1.DefaultSchedulerName,
		Affinity: &v1.Affinity{PodAffinity: &v1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}, TopologyKey: "zone",
		}}}}}}
	s := buildScheduler(t, wrappersOnly, internalcache.NewEmptySnapshot(), []affinityq.Option{affinityq.WithSelfCheck(1)}, web)
	s.start(t)
	s.reject(t, web, affinityq.InterPodAffinityName)
	add := preHintOf(t, s.frameworks[v1.DefaultSchedulerName], affinityq.InterPodAffinityName, framework.EventAssignedPodAdd)
	logger := klog.Logger(logr.Discard())
	partner := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "db", UID: "db", Labels: map[string]string{"app": "db"}}, Spec: v1.PodSpec{NodeName: "n"}}

	const (
		calls   = "affinityq_prehint_calls_total,answer=%s,event=AssignedPodAdd,plugin=" + affinityq.InterPodAffinityName
		named   = "affinityq_prehint_pods_named_total,event=AssignedPodAdd,plugin=" + affinityq.InterPodAffinityName
		pending = "affinityq_prehint_pending_pods_total,event=AssignedPodAdd,plugin=" + affinityq.InterPodAffinityName
		lookups = "affinityq_index_lookup_duration_seconds,event=AssignedPodAdd"
		checks  = "affinityq_index_selfchecks_total"
		diverge = "affinityq_index_selfcheck_divergences_total"
	)
	narrowed, all := fmt.Sprintf(calls, "narrowed"), fmt.Sprintf(calls, "all")
	before := series(t)
	grew := func(what string, want map[string]float64) {
		t.Helper()
		now := series(t)
		for name, d := range want {
			if got := now[name] - before[name]; got != d {
				t.Errorf("%s: %s grew by %v, want %v", what, name, got, d)
			}
		}
		before = now
	}

	if _, err := add(logger, nil, partner); err != nil {
		t.Fatal(err)
	}
	grew("the partner added", map[string]float64{narrowed: 1, all: 0, named: 1, pending: 1, lookups: 1, checks: 1, diverge: 0})
	if got := before["affinityq_index_pending_pods"]; got != 1 {
		t.Errorf("affinityq_index_pending_pods = %v, want 1", got)
	}
	for _, name := range []string{"affinityq_index_groups", "affinityq_index_postings", "affinityq_index_posting_bytes"} {
		if before[name] == 0 {
			t.Errorf("%s is 0 with a pod indexed", name)
		}
	}

	if _, err := add(logger, nil, &v1.Node{}); err != nil {
		t.Fatal(err)
	}
	grew("not a pod", map[string]float64{narrowed: 0, all: 1, named: 0, lookups: 0, checks: 0})

}
