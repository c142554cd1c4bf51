package queue_test

import (
	"testing"

	"github.com/affinityq/affinityq/queue"
)

// An assigned-pod event adds no allocation to the index lookup's (none for
// a pod without anti-affinity), whether it moves pods or not, with pods in
// flight (the event is logged) or not.
func TestEventAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops a share of its items under the race detector; make unit runs this test without it")
	}
	q, _ := newQueue(t, queue.WithPolicy(queue.Transition))
	for _, n := range []string{"a", "b", "c"} {
		mustAdd(t, q, makePod(n, withAffinity("app", "db"), withSpread("app", "db")))
		popAndFail(t, q, n, queue.InterPodAffinity)
	}
	mustAdd(t, q, makePod("flying"))
	pi := mustPop(t, q, "flying")
	old := makePod("db", onNode("n1"), withLabels("app", "db", "tier", "one"))
	relabelled := relabel(old, "app", "db", "tier", "two") // relates to a, b, c; Transition moves none
	for range 100 {                                        // grow the event log to its working size
		q.AssignedPodUpdated(old, relabelled)
	}
	if got := testing.AllocsPerRun(100, func() { q.AssignedPodUpdated(old, relabelled) }); got != 0 {
		t.Errorf("AssignedPodUpdated with a pod in flight allocates %v times per event, want 0", got)
	}
	if err := q.AddUnschedulable(pi); err != nil {
		t.Fatal(err)
	}
	if got := testing.AllocsPerRun(100, func() { q.AssignedPodUpdated(old, relabelled) }); got != 0 {
		t.Errorf("AssignedPodUpdated allocates %v times per event, want 0", got)
	}
	checkLocations(t, q, map[string]string{"a": "Unschedulable", "b": "Unschedulable", "c": "Unschedulable", "flying": "Backoff"})
}
