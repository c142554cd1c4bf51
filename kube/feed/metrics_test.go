package feed_test

import (
	"context"
	"testing"

	"k8s.io/component-base/metrics/legacyregistry"
	"k8s.io/component-base/metrics/testutil"

	"github.com/affinityq/affinityq/kube/feed"
	"github.com/affinityq/affinityq/queue"
)

// TestQueueMetrics drives a queue with QueueMetrics through one wake-up:
// a pod waiting for its affinity partner, the partner placed. The series
// are process-wide, so the test reads them before and after.
func TestQueueMetrics(t *testing.T) {
	q := queue.New(queue.WithMetrics(feed.QueueMetrics()))
	defer q.Close()
	series := []struct {
		name   string
		labels map[string]string
	}{
		{"affinityq_queue_lookups_total", map[string]string{"event": "AssignedPodAdd"}},
		{"affinityq_queue_lookup_hits_total", map[string]string{"event": "AssignedPodAdd"}},
		{"affinityq_queue_lookup_moved_total", map[string]string{"event": "AssignedPodAdd"}},
		{"affinityq_queue_moves_total", map[string]string{"reason": "AssignedPodAdd", "to": "Active"}},
	}
	read := func() []float64 {
		t.Helper()
		var vs []float64
		for _, s := range series {
			vs = append(vs, counterValue(t, s.name, s.labels))
		}
		return vs
	}
	before := read()

	web := affinityTo(pod("ns1", "web", "", map[string]string{"app": "web"}), "db")
	if err := q.Add(web); err != nil {
		t.Fatal(err)
	}
	pi, err := q.Pop(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := q.AddUnschedulable(pi, queue.InterPodAffinity); err != nil {
		t.Fatal(err)
	}
	q.AssignedPodAdded(pod("ns1", "db", "n1", map[string]string{"app": "db"}))
	if loc, _ := q.Location(web.UID); loc != queue.Active {
		t.Fatalf("web is in %v after its partner came, want Active", loc)
	}
	after := read()
	for i, s := range series {
		if got := after[i] - before[i]; got != 1 {
			t.Errorf("%s%v grew by %v, want 1", s.name, s.labels, got)
		}
	}
}

// counterValue returns the value of the counter name with labels in
// legacyregistry, 0 if it has none yet.
func counterValue(t *testing.T, name string, labels map[string]string) float64 {
	t.Helper()
	families, err := legacyregistry.DefaultGatherer.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			if testutil.LabelsMatch(m, labels) {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}
