package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
)

// deployDir holds the manifests under test, relative to this package.
const deployDir = "../../deploy"

// Deadlines and the polling interval. bindTimeout bounds how long a pod
// that an event should requeue may take to bind: a wake-up check, not a
// speed assertion. kube-scheduler flushes the unschedulable pool every 5
// minutes (podMaxInUnschedulablePodsDuration), so a pod that binds well
// within that was requeued by the event, not by the flush.
const (
	startTimeout  = time.Minute
	rejectTimeout = time.Minute
	bindTimeout   = time.Minute
	stopTimeout   = 30 * time.Second
	pollInterval  = 200 * time.Millisecond
)

// A size is how many nodes and pods a run creates.
type size struct {
	nodesPerZone int
	// waiters have pod affinity to a partner that comes later.
	waiters int
	// avoiders have zone anti-affinity against a blocker in every zone.
	avoiders int
	// spread have a DoNotSchedule spread constraint over the zones.
	spread int
}

// testSize returns the run's size: small under -short (CI).
func testSize() size {
	if testing.Short() {
		return size{nodesPerZone: 2, waiters: 3, avoiders: 3, spread: 6}
	}
	return size{nodesPerZone: 4, waiters: 20, avoiders: 20, spread: 30}
}

// TestKubeScheduler runs the kube-scheduler binary as deploy/ runs it,
// against a real API server, and checks that it schedules pods with
// inter-pod affinity, anti-affinity and spread constraints where their
// rules allow, waking the pods that events make schedulable. The package
// documentation lists what it shows.
func TestKubeScheduler(t *testing.T) {
	bin := schedulerBinary(t)
	d := readDeployment(t, deployDir)
	c := startCluster(t)
	c.apply(t, d.manifests)
	c.apply(t, d.manifests) // an operator's re-apply: the same objects, no conflicts
	s := startScheduler(t, c, d, bin)
	s.checkHealth(t)
	s.waitLeader(t, c)

	e := &env{
		client:        c.client,
		sched:         s,
		schedulerName: d.schedulerName,
		ns:            "e2e",
		zones:         []string{"zone-a", "zone-b", "zone-c"},
		size:          testSize(),
	}
	c.createNamespace(t, e.ns)
	e.zoneOf = c.createNodes(t, e.zones, e.size.nodesPerZone)

	t.Run("PodAffinityPartner", func(t *testing.T) { testPodAffinityPartner(t, e) })
	t.Run("AntiAffinityUnblocked", func(t *testing.T) { testAntiAffinityUnblocked(t, e) })
	t.Run("TopologySpread", func(t *testing.T) { testTopologySpread(t, e) })

	s.checkHealth(t)
	s.checkMetrics(t, c, e.ns)
	s.stop(t, c)
}

// An env is what the scenarios run in: the cluster's client, the running
// scheduler, and a namespace and nodes of their own.
type env struct {
	client        kubernetes.Interface
	sched         *scheduler
	schedulerName string // the profile's, which the pods name
	ns            string
	zones         []string
	zoneOf        map[string]string // node name → zone
	size          size
}

// newPod returns a pod of e's namespace for the scheduler under test, with
// labels. It requests a little CPU and memory, so that resource fitting
// runs on real numbers.
func (e *env) newPod(name string, labels map[string]string) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: e.ns, Labels: labels},
		Spec: v1.PodSpec{
			SchedulerName: e.schedulerName,
			Containers: []v1.Container{{
				Name:  "pause",
				Image: "registry.k8s.io/pause:3.10",
				Resources: v1.ResourceRequirements{Requests: v1.ResourceList{
					v1.ResourceCPU:    resource.MustParse("10m"),
					v1.ResourceMemory: resource.MustParse("16Mi"),
				}},
			}},
		},
	}
}

// create creates pods.
func (e *env) create(t *testing.T, pods ...*v1.Pod) {
	t.Helper()
	for _, p := range pods {
		if _, err := e.client.CoreV1().Pods(e.ns).Create(t.Context(), p, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create pod %s: %v", p.Name, err)
		}
	}
}

// waitPods polls the pods of e's namespace that selector selects until
// there are want of them and done holds for each, and returns them. It
// fails the test, describing the pods done does not hold for, at timeout
// or as soon as the scheduler exits.
func (e *env) waitPods(t *testing.T, selector string, want int, timeout time.Duration, what string, done func(*v1.Pod) bool) []v1.Pod {
	t.Helper()
	var pods []v1.Pod
	err := wait.PollUntilContextTimeout(t.Context(), pollInterval, timeout, true, func(ctx context.Context) (bool, error) {
		if err := e.sched.exitErr(); err != nil {
			return false, err
		}
		list, err := e.client.CoreV1().Pods(e.ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
		if err != nil {
			return false, err
		}
		pods = list.Items
		if len(pods) != want {
			return false, nil
		}
		for i := range pods {
			if !done(&pods[i]) {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		var not []string
		for i := range pods {
			if !done(&pods[i]) {
				not = append(not, describe(&pods[i]))
			}
		}
		t.Fatalf("pods %s: %d, want %d, all %s: %v; not %s:\n%s", selector, len(pods), want, what, err, what, strings.Join(not, "\n"))
	}
	return pods
}

// bound reports whether p is bound to a node.
func bound(p *v1.Pod) bool { return p.Spec.NodeName != "" }

// unschedulable reports whether kube-scheduler has tried p and found no
// node for it.
func unschedulable(p *v1.Pod) bool {
	c := scheduledCondition(p)
	return p.Spec.NodeName == "" && c != nil && c.Status == v1.ConditionFalse && c.Reason == v1.PodReasonUnschedulable
}

func scheduledCondition(p *v1.Pod) *v1.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == v1.PodScheduled {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

// describe says where p is and, if it is not bound, what kube-scheduler
// said about it.
func describe(p *v1.Pod) string {
	if bound(p) {
		return fmt.Sprintf("%s: on %s", p.Name, p.Spec.NodeName)
	}
	if c := scheduledCondition(p); c != nil {
		return fmt.Sprintf("%s: pending, PodScheduled=%s %s: %s", p.Name, c.Status, c.Reason, c.Message)
	}
	return fmt.Sprintf("%s: pending, not tried yet", p.Name)
}
