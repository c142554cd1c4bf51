package queue_test

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/affinityq/affinityq/queue"
)

// parked is an unschedulable pod of an event test: the pod and the plugins
// that rejected it.
type parked struct {
	pod     *v1.Pod
	plugins []string
}

// park adds, pops and fails every pod, then steps the clock past the
// longest backoff, so that a Transition move lands in activeQ unless the
// test steps less.
func park(t *testing.T, q *queue.Queue, pods []parked) {
	t.Helper()
	for _, p := range pods {
		mustAdd(t, q, p.pod)
		popAndFail(t, q, p.pod.Name, p.plugins...)
	}
}

func TestEvents(t *testing.T) {
	ipa := []string{queue.InterPodAffinity}
	securityscan := makePod("label-pod", onNode("node1"), withLabels("service", "securityscan"))
	pool := []parked{
		// kube-scheduler's TestPriorityQueue_AssignedPodAdded/Updated pods.
		{makePod("affinity", withAffinity("service", "securityscan")), ipa},
		{makePod("affinity-ns2", inNamespace("ns2"), withAffinity("service", "securityscan")), ipa},
		{makePod("plain"), []string{"NodeResourcesFit"}},
		{makePod("affinity-fit", withAffinity("service", "securityscan")), []string{"NodeResourcesFit"}},
		{makePod("spread", withSpread("app", "web")), []string{queue.PodTopologySpread}},
		{makePod("spread-ipa", withSpread("app", "web")), ipa},
	}
	names := []string{"affinity", "affinity-ns2", "plain", "affinity-fit", "spread", "spread-ipa"}
	allParked := func() map[string]string {
		m := map[string]string{}
		for _, n := range names {
			m[n] = "Unschedulable"
		}
		return m
	}
	with := func(kv ...string) map[string]string {
		m := allParked()
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	zoneNode := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n2", Labels: map[string]string{"zone": "b"}}}
	tests := []struct {
		name   string
		policy queue.Policy
		event  func(q *queue.Queue)
		want   map[string]string
	}{
		{
			name:  "assigned pod added moves the affinity pods of its namespace",
			event: func(q *queue.Queue) { q.AssignedPodAdded(securityscan) },
			want:  with("affinity", "Active", "affinity-fit", "Active"),
		},
		{
			name:   "assigned pod added, Transition: only pods rejected by the plugin",
			policy: queue.Transition,
			event:  func(q *queue.Queue) { q.AssignedPodAdded(securityscan) },
			want:   with("affinity", "Active"),
		},
		{
			name: "assigned pod updated to match",
			event: func(q *queue.Queue) {
				q.AssignedPodUpdated(relabel(securityscan, "service", "other"), securityscan)
			},
			want: with("affinity", "Active", "affinity-fit", "Active"),
		},
		{
			name:   "assigned pod updated to match, Transition",
			policy: queue.Transition,
			event: func(q *queue.Queue) {
				q.AssignedPodUpdated(relabel(securityscan, "service", "other"), securityscan)
			},
			want: with("affinity", "Active"),
		},
		{
			name: "unscheduled pod affects no one",
			event: func(q *queue.Queue) {
				q.AssignedPodAdded(makePod("nowhere", withLabels("service", "securityscan", "app", "web")))
			},
			want: allParked(),
		},
		{
			name:  "spread pod moved",
			event: func(q *queue.Queue) { q.AssignedPodAdded(makePod("web", onNode("node1"), withLabels("app", "web"))) },
			want:  with("spread", "Active", "spread-ipa", "Active"),
		},
		{
			name:   "spread pod moved, Transition",
			policy: queue.Transition,
			event:  func(q *queue.Queue) { q.AssignedPodAdded(makePod("web", onNode("node1"), withLabels("app", "web"))) },
			want:   with("spread", "Active"),
		},
		{
			name: "other namespace moves no spread pod",
			event: func(q *queue.Queue) {
				q.AssignedPodAdded(makePod("web", inNamespace("ns2"), onNode("node1"), withLabels("app", "web")))
			},
			want: allParked(),
		},
		{
			name:  "node with the topology key added",
			event: func(q *queue.Queue) { q.NodeAdded(zoneNode) },
			want:  with("affinity", "Active", "affinity-ns2", "Active", "affinity-fit", "Active", "spread", "Active", "spread-ipa", "Active"),
		},
		{
			name:   "node with the topology key added, Transition",
			policy: queue.Transition,
			event:  func(q *queue.Queue) { q.NodeAdded(zoneNode) },
			want:   with("affinity", "Active", "affinity-ns2", "Active", "spread", "Active"),
		},
		{
			name:   "MoveAll",
			policy: queue.Transition,
			event:  func(q *queue.Queue) { q.MoveAll("NodeResourcesFit") },
			want:   with("affinity", "Active", "affinity-ns2", "Active", "plain", "Active", "affinity-fit", "Active", "spread", "Active", "spread-ipa", "Active"),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q, c := newQueue(t, queue.WithPolicy(tc.policy))
			park(t, q, pool)
			c.Step(time.Minute)
			checkLocations(t, q, allParked())
			tc.event(q)
			checkLocations(t, q, tc.want)
		})
	}
}

// Under Transition a moved pod goes to backoffQ while it is still backing
// off and keeps its counters; under Relation it goes straight to activeQ
// with its counter reset (unless WithResetOnMove(false)).
func TestMoveDestination(t *testing.T) {
	tests := []struct {
		name         string
		opts         []queue.Option
		step         time.Duration
		want         string
		wantAttempts int
	}{
		{name: "Relation resets", want: "Active", wantAttempts: 1},
		{name: "Relation keeps", opts: []queue.Option{queue.WithResetOnMove(false)}, want: "Active", wantAttempts: 4},
		{name: "Transition backing off", opts: []queue.Option{queue.WithPolicy(queue.Transition)}, want: "Backoff", wantAttempts: 4},
		{name: "Transition backed off", opts: []queue.Option{queue.WithPolicy(queue.Transition)}, step: 4 * time.Second, want: "Active", wantAttempts: 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q, c := newQueue(t, tc.opts...)
			mustAdd(t, q, makePod("p", withAffinity("app", "db")))
			popAndFail(t, q, "p") // an error: backoffQ
			c.Step(time.Minute)
			q.FlushBackoffCompleted()
			popAndFail(t, q, "p", queue.InterPodAffinity) // attempt 2: parked
			q.MoveAll("")
			c.Step(time.Minute)
			q.FlushBackoffCompleted()
			popAndFail(t, q, "p", queue.InterPodAffinity) // attempt 3
			c.Step(tc.step)
			q.AssignedPodAdded(makePod("db", onNode("n1"), withLabels("app", "db")))
			checkLocations(t, q, map[string]string{"p": tc.want})
			c.Step(time.Minute)
			q.FlushBackoffCompleted()
			if pi := mustPop(t, q, "p"); pi.Attempts != tc.wantAttempts {
				t.Errorf("Attempts at the next Pop = %d, want %d", pi.Attempts, tc.wantAttempts)
			}
		})
	}
}

func TestNamespaceSelector(t *testing.T) {
	teamA := &metav1.LabelSelector{MatchLabels: map[string]string{"team": "a"}}
	p := makePod("p")
	ensureAffinity(p)
	p.Spec.Affinity.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution = []v1.PodAffinityTerm{{
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}, NamespaceSelector: teamA, TopologyKey: "zone",
	}}
	ns := func(labels map[string]string) *v1.Namespace {
		return &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns2", Labels: labels}}
	}
	db := makePod("db", inNamespace("ns2"), onNode("n1"), withLabels("app", "db"))
	tests := []struct {
		name   string
		lookup func(string) (map[string]string, bool) // nil: learnt from events
		events func(q *queue.Queue)
		want   string
	}{
		{
			name:   "namespace gains the label",
			events: func(q *queue.Queue) { q.NamespaceUpdated(ns(nil), ns(map[string]string{"team": "a"})) },
			want:   "Active",
		},
		{
			name:   "db pod in an unlabelled namespace",
			events: func(q *queue.Queue) { q.AssignedPodAdded(db) },
			want:   "Unschedulable",
		},
		{
			name: "db pod in a namespace whose labels were learnt",
			events: func(q *queue.Queue) {
				q.NamespaceUpdated(ns(nil), ns(map[string]string{"team": "b"}))
				q.AssignedPodAdded(db)
			},
			want: "Unschedulable",
		},
		{
			name:   "db pod in a namespace the embedder labels",
			lookup: func(string) (map[string]string, bool) { return map[string]string{"team": "a"}, true },
			events: func(q *queue.Queue) { q.AssignedPodAdded(db) },
			want:   "Active",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var opts []queue.Option
			if tc.lookup != nil {
				opts = append(opts, queue.WithNamespaceLabels(tc.lookup))
			}
			q, _ := newQueue(t, opts...)
			mustAdd(t, q, p)
			popAndFail(t, q, "p", queue.InterPodAffinity)
			tc.events(q)
			checkLocations(t, q, map[string]string{"p": tc.want})
		})
	}
	t.Run("learnt labels match later events", func(t *testing.T) {
		q, _ := newQueue(t)
		q.NamespaceUpdated(ns(nil), ns(map[string]string{"team": "a"}))
		mustAdd(t, q, p)
		popAndFail(t, q, "p", queue.InterPodAffinity)
		q.AssignedPodAdded(db)
		checkLocations(t, q, map[string]string{"p": "Active"})
	})
}

// The two scenarios of the original design, end to end, under both
// policies.
func TestScenarios(t *testing.T) {
	for _, policy := range []queue.Policy{queue.Relation, queue.Transition} {
		t.Run("database replica waits for its primary/"+policy.String(), func(t *testing.T) {
			q, c := newQueue(t, queue.WithPolicy(policy))
			// The primary runs, but its role label is not set yet.
			primary := makePod("db-0", onNode("node-a"), withLabels("app", "db"))
			replica := makePod("db-1", withLabels("app", "db"), withAffinity("role", "primary"))
			mustAdd(t, q, replica)
			popAndFail(t, q, "db-1", queue.InterPodAffinity)
			c.Step(2 * time.Second) // the first backoff has passed
			// Unrelated churn moves nothing.
			q.AssignedPodAdded(makePod("web-0", onNode("node-a"), withLabels("app", "web")))
			q.NodeUpdated(
				&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-a", Labels: map[string]string{"zone": "a"}}},
				&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-a", Labels: map[string]string{"zone": "a", "disk": "ssd"}}},
			)
			checkLocations(t, q, map[string]string{"db-1": "Unschedulable"})
			// The operator labels the primary: the replica is ready at once.
			q.AssignedPodUpdated(primary, relabel(primary, "app", "db", "role", "primary"))
			checkLocations(t, q, map[string]string{"db-1": "Active"})
			mustPop(t, q, "db-1")
			q.Done("db-1")
		})
		for _, move := range []string{"deleted", "relabelled"} {
			t.Run("web replica blocked until the blocker is "+move+"/"+policy.String(), func(t *testing.T) {
				q, c := newQueue(t, queue.WithPolicy(policy))
				blocker := makePod("batch-0", onNode("node-a"), withLabels("app", "batch"))
				web := makePod("web-1", withLabels("app", "web"), withAntiAffinity("app", "batch"))
				mustAdd(t, q, web)
				popAndFail(t, q, "web-1", queue.InterPodAffinity)
				c.Step(2 * time.Second)
				q.AssignedPodAdded(makePod("batch-1", inNamespace("ns2"), onNode("node-b"), withLabels("app", "batch")))
				checkLocations(t, q, map[string]string{"web-1": "Unschedulable"})
				if move == "deleted" {
					q.AssignedPodDeleted(blocker)
				} else {
					q.AssignedPodUpdated(blocker, relabel(blocker, "app", "batch-done"))
				}
				checkLocations(t, q, map[string]string{"web-1": "Active"})
			})
		}
		t.Run("pod blocked by the blocker's own anti-affinity/"+policy.String(), func(t *testing.T) {
			q, c := newQueue(t, queue.WithPolicy(policy))
			blocker := makePod("loner", onNode("node-a"), withLabels("app", "loner"), withAntiAffinity("app", "web"))
			web := makePod("web-1", withLabels("app", "web"))
			mustAdd(t, q, web)
			popAndFail(t, q, "web-1", queue.InterPodAffinity)
			c.Step(2 * time.Second)
			q.AssignedPodDeleted(blocker)
			checkLocations(t, q, map[string]string{"web-1": "Active"})
		})
	}
}
