package queue_test

import (
	"context"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/affinityq/affinityq/queue"
)

// cluster is the example's whole cluster state: the assigned pods. A real
// scheduler keeps it in its cache, fed by the same informer events that it
// forwards to the queue.
type cluster struct {
	assigned map[string]*v1.Pod
}

// schedule is the example's fake scheduling cycle: it only evaluates the
// required pod affinity and anti-affinity of the pod against the assigned
// pods (every node is in one zone), and binds it when they hold.
func (c *cluster) schedule(p *v1.Pod) (rejectedBy []string) {
	if a := p.Spec.Affinity; a != nil {
		if pa := a.PodAffinity; pa != nil {
			for _, t := range pa.RequiredDuringSchedulingIgnoredDuringExecution {
				if !c.anyMatches(t.LabelSelector.MatchLabels) {
					return []string{queue.InterPodAffinity}
				}
			}
		}
		if anti := a.PodAntiAffinity; anti != nil {
			for _, t := range anti.RequiredDuringSchedulingIgnoredDuringExecution {
				if c.anyMatches(t.LabelSelector.MatchLabels) {
					return []string{queue.InterPodAffinity}
				}
			}
		}
	}
	bound := p.DeepCopy()
	bound.Spec.NodeName = "node-1"
	c.assigned[p.Name] = bound
	return nil
}

func (c *cluster) anyMatches(want map[string]string) bool {
	for _, q := range c.assigned {
		ok := true
		for k, v := range want {
			if q.Labels[k] != v {
				ok = false
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// schedulingLoop pops every pod that is ready and runs a scheduling cycle
// for it: the loop of a scheduler's main goroutine, stopping when activeQ
// is empty so that the example stays deterministic.
func schedulingLoop(q *queue.Queue, c *cluster) {
	for q.Stats().Active > 0 {
		pi, err := q.Pop(context.Background())
		if err != nil {
			fmt.Println("pop:", err)
			return
		}
		if rejectedBy := c.schedule(pi.Pod); rejectedBy != nil {
			fmt.Printf("  %s: unschedulable, rejected by %v\n", pi.Pod.Name, rejectedBy)
			if err := q.AddUnschedulable(pi, rejectedBy...); err != nil {
				fmt.Println("add unschedulable:", err)
			}
			continue
		}
		fmt.Printf("  %s: scheduled\n", pi.Pod.Name)
		q.Done(pi.Pod.UID)
		// The scheduler's informer then reports the pod as assigned.
		q.AssignedPodAdded(c.assigned[pi.Pod.Name])
	}
}

func pendingPod(name string, labels map[string]string, affinity *v1.Affinity) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop", UID: types.UID(name), Labels: labels},
		Spec:       v1.PodSpec{Affinity: affinity},
	}
}

func requiredTerm(key, value string) []v1.PodAffinityTerm {
	return []v1.PodAffinityTerm{{
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{key: value}},
		TopologyKey:   "topology.kubernetes.io/zone",
	}}
}

// Example_schedulingLoop wires the queue to a fake scheduling loop and a
// stream of cluster events: a database replica waits for its primary's
// label, a web replica for a batch job to leave, and each moves to activeQ
// the moment the event that unblocks it arrives, while unrelated events
// move nothing.
func Example_schedulingLoop() {
	clk := testingclock.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	q := queue.New(queue.WithClock(clk))
	defer q.Close()
	c := &cluster{assigned: map[string]*v1.Pod{}}

	// Already running: the database primary, not yet labelled as such, and
	// a batch job.
	for _, p := range []*v1.Pod{
		pendingPod("db-0", map[string]string{"app": "db"}, nil),
		pendingPod("batch-0", map[string]string{"app": "batch"}, nil),
	} {
		p.Spec.NodeName = "node-1"
		c.assigned[p.Name] = p
	}
	// Pending pods.
	for _, p := range []*v1.Pod{
		pendingPod("db-1", map[string]string{"app": "db"}, &v1.Affinity{
			PodAffinity: &v1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: requiredTerm("role", "primary")},
		}),
		pendingPod("web-1", map[string]string{"app": "web"}, &v1.Affinity{
			PodAntiAffinity: &v1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: requiredTerm("app", "batch")},
		}),
		pendingPod("cache-1", map[string]string{"app": "cache"}, nil),
	} {
		if err := q.Add(p); err != nil {
			fmt.Println(err)
		}
		clk.Step(time.Second)
	}

	fmt.Println("first round:")
	schedulingLoop(q, c)
	where := func(names ...string) {
		for _, n := range names {
			loc, _ := q.Location(types.UID(n))
			fmt.Printf("  %s is %v\n", n, loc)
		}
	}
	where("db-1", "web-1")

	fmt.Println("event: the cache pod's tier label changes")
	cache := c.assigned["cache-1"]
	newCache := cache.DeepCopy()
	newCache.Labels["tier"] = "hot"
	c.assigned["cache-1"] = newCache
	q.AssignedPodUpdated(cache, newCache)
	where("db-1", "web-1")

	fmt.Println("event: db-0 is labelled role=primary")
	primary := c.assigned["db-0"]
	newPrimary := primary.DeepCopy()
	newPrimary.Labels["role"] = "primary"
	c.assigned["db-0"] = newPrimary
	q.AssignedPodUpdated(primary, newPrimary)
	where("db-1", "web-1")
	schedulingLoop(q, c)

	fmt.Println("event: batch-0 finishes")
	batch := c.assigned["batch-0"]
	delete(c.assigned, "batch-0")
	q.AssignedPodDeleted(batch)
	where("web-1")
	schedulingLoop(q, c)

	st := q.Stats()
	fmt.Printf("left: %d pods; moves: %v\n", q.Len(), st.Moves)
	// Output:
	// first round:
	//   db-1: unschedulable, rejected by [InterPodAffinity]
	//   web-1: unschedulable, rejected by [InterPodAffinity]
	//   cache-1: scheduled
	//   db-1 is Unschedulable
	//   web-1 is Unschedulable
	// event: the cache pod's tier label changes
	//   db-1 is Unschedulable
	//   web-1 is Unschedulable
	// event: db-0 is labelled role=primary
	//   db-1 is Active
	//   web-1 is Unschedulable
	//   db-1: scheduled
	// event: batch-0 finishes
	//   web-1 is Active
	//   web-1: scheduled
	// left: 0 pods; moves: map[AssignedPodDelete:1 AssignedPodUpdate:1]
}
