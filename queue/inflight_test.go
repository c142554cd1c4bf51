package queue_test

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/affinityq/affinityq/index"
	"github.com/affinityq/affinityq/queue"
)

// step is one action of an in-flight scenario.
type step struct {
	add   string   // Add this pod (from the scenario's pods)
	pop   string   // Pop; the pod popped must be this one
	fail  string   // AddUnschedulable of this popped pod...
	with  []string // ...rejected by these plugins
	done  string   // Done
	del   string   // Delete
	event string   // fire this event (see inFlightEvents)
}

// inFlightEvents are the events of the scenarios: db relabels a scheduled
// pod so that it matches app=db (the affinity of every scenario pod);
// unrelated changes a node's label no term looks at; all is MoveAll.
func inFlightEvents(q *queue.Queue, name string) {
	switch name {
	case "db":
		old := makePod("db-0", onNode("n1"), withLabels("app", "cache"))
		q.AssignedPodUpdated(old, relabel(old, "app", "db"))
	case "unrelated":
		n := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1", Labels: map[string]string{"disk": "hdd"}}}
		m := n.DeepCopy()
		m.Labels["disk"] = "ssd"
		q.NodeUpdated(n, m)
	case "all":
		q.MoveAll("")
	default:
		panic("unknown event " + name)
	}
}

// TestInFlight re-creates kube-scheduler's Test_InFlightPods for the index's
// events: which events a failed pod's replay sees, and that the log is
// pruned as attempts end.
func TestInFlight(t *testing.T) {
	ipa := []string{queue.InterPodAffinity}
	tests := []struct {
		name       string
		policy     queue.Policy
		steps      []step
		want       map[string]string
		wantLogged int
	}{
		{
			name:  "event before Pop is ignored",
			steps: []step{{add: "p1"}, {event: "db"}, {pop: "p1"}, {fail: "p1", with: ipa}},
			want:  map[string]string{"p1": "Unschedulable"},
		},
		{
			name:  "event during the attempt requeues the failed pod",
			steps: []step{{add: "p1"}, {pop: "p1"}, {event: "db"}, {fail: "p1", with: ipa}},
			want:  map[string]string{"p1": "Active"},
		},
		{
			name:   "event during the attempt, Transition: to backoffQ",
			policy: queue.Transition,
			steps:  []step{{add: "p1"}, {pop: "p1"}, {event: "db"}, {fail: "p1", with: ipa}},
			want:   map[string]string{"p1": "Backoff"},
		},
		{
			name:   "event during the attempt, Transition, other plugin: parked",
			policy: queue.Transition,
			steps:  []step{{add: "p1"}, {pop: "p1"}, {event: "db"}, {fail: "p1", with: []string{"NodeResourcesFit"}}},
			want:   map[string]string{"p1": "Unschedulable"},
		},
		{
			name:  "unrelated event during the attempt: parked",
			steps: []step{{add: "p1"}, {pop: "p1"}, {event: "unrelated"}, {fail: "p1", with: ipa}},
			want:  map[string]string{"p1": "Unschedulable"},
		},
		{
			name:  "MoveAll during the attempt requeues",
			steps: []step{{add: "p1"}, {pop: "p1"}, {event: "all"}, {fail: "p1", with: []string{"NodeResourcesFit"}}},
			want:  map[string]string{"p1": "Active"},
		},
		{
			name:  "failure before the event: the lookup moves it",
			steps: []step{{add: "p1"}, {pop: "p1"}, {fail: "p1", with: ipa}, {event: "db"}},
			want:  map[string]string{"p1": "Active"},
		},
		{
			name:  "no plugin: backoffQ",
			steps: []step{{add: "p1"}, {pop: "p1"}, {event: "unrelated"}, {fail: "p1"}},
			want:  map[string]string{"p1": "Backoff"},
		},
		{
			name: "event while another pod was in flight applies to a later-popped pod",
			steps: []step{
				{add: "p1"}, {add: "p2"}, {pop: "p1"}, {pop: "p2"}, {event: "db"},
				{done: "p1"}, // the oldest attempt ends first: the log must keep the event for p2
				{fail: "p2", with: ipa},
			},
			want: map[string]string{"p1": "-", "p2": "Active"},
		},
		{
			name: "event before the second Pop applies to the first pod only",
			steps: []step{
				{add: "p1"}, {add: "p2"}, {pop: "p1"}, {event: "db"}, {pop: "p2"},
				{fail: "p2", with: ipa}, {fail: "p1", with: ipa},
			},
			want: map[string]string{"p1": "Active", "p2": "Unschedulable"},
		},
		{
			name: "intermediate pod",
			steps: []step{
				{add: "p1"}, {add: "p2"}, {add: "p3"}, {pop: "p1"}, {event: "unrelated"}, {pop: "p2"},
				{event: "unrelated"}, {pop: "p3"}, {event: "db"}, {fail: "p2", with: ipa}, {event: "unrelated"},
			},
			want:       map[string]string{"p1": "InFlight", "p2": "Active", "p3": "InFlight"},
			wantLogged: 4,
		},
		{
			name: "log pruned as the oldest attempts end",
			steps: []step{
				{add: "p1"}, {add: "p2"}, {pop: "p1"}, {event: "unrelated"}, {pop: "p2"}, {event: "unrelated"},
				{fail: "p1", with: ipa},
			},
			want:       map[string]string{"p1": "Unschedulable", "p2": "InFlight"},
			wantLogged: 1,
		},
		{
			name: "log emptied when no attempt is left",
			steps: []step{
				{add: "p1"}, {add: "p2"}, {pop: "p1"}, {pop: "p2"}, {event: "unrelated"}, {del: "p2"}, {event: "db"}, {done: "p1"},
			},
			want: map[string]string{"p1": "-", "p2": "-"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q, c := newQueue(t, queue.WithPolicy(tc.policy))
			popped := map[string]*queue.PodInfo{}
			for i, s := range tc.steps {
				c.Step(time.Millisecond) // distinct timestamps: p1 pops first
				switch {
				case s.add != "":
					mustAdd(t, q, makePod(s.add, withAffinity("app", "db")))
				case s.pop != "":
					popped[s.pop] = mustPop(t, q, s.pop)
				case s.fail != "":
					if err := q.AddUnschedulable(popped[s.fail], s.with...); err != nil {
						t.Fatalf("step %d: %v", i, err)
					}
				case s.done != "":
					q.Done(types.UID(s.done))
				case s.del != "":
					q.Delete(makePod(s.del))
				case s.event != "":
					inFlightEvents(q, s.event)
				}
				if err := q.Validate(); err != nil {
					t.Fatalf("step %d: %v", i, err)
				}
			}
			checkLocations(t, q, tc.want)
			if got := q.Stats().LoggedEvents; got != tc.wantLogged {
				t.Errorf("LoggedEvents = %d, want %d", got, tc.wantLogged)
			}
		})
	}
}

// When the log overflows, the pods in flight are requeued when they fail,
// as if every event applied; pods popped after replay the log again.
func TestInFlightLogOverflow(t *testing.T) {
	q, _ := newQueue(t)
	q.SetMaxLog(2)
	mustAdd(t, q, makePod("p1", withAffinity("app", "db")), makePod("p2", withAffinity("app", "db")))
	pi1 := mustPop(t, q, "p1")
	for range 3 {
		inFlightEvents(q, "unrelated")
	}
	pi2 := mustPop(t, q, "p2")
	inFlightEvents(q, "unrelated")
	for _, pi := range []*queue.PodInfo{pi1, pi2} {
		if err := q.AddUnschedulable(pi, queue.InterPodAffinity); err != nil {
			t.Fatal(err)
		}
	}
	checkLocations(t, q, map[string]string{"p1": "Active", "p2": "Unschedulable"})
	if got := q.Stats().Moves["InFlightOverflow"]; got != 1 {
		t.Errorf("Moves[InFlightOverflow] = %d, want 1", got)
	}
}

// A replayed event sees the namespace labels it was fed with, not those of
// the time of the failure: a NamespaceUpdated logged after it stands in for
// the labels before.
func TestInFlightReplayNamespaceLabels(t *testing.T) {
	p := makePod("p")
	ensureAffinity(p)
	p.Spec.Affinity.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution = []v1.PodAffinityTerm{{
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}},
		// Scoped to p's own namespace; the namespace selector scopes the
		// db pod's anti-affinity below instead.
		TopologyKey: "zone",
	}}
	p.Labels = map[string]string{"app": "web"}
	// A db pod whose anti-affinity keeps web pods of team=a namespaces away.
	db := makePod("db", inNamespace("ns2"), onNode("n1"), withLabels("app", "db2"))
	ensureAffinity(db)
	db.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution = []v1.PodAffinityTerm{{
		LabelSelector:     &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
		NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"team": "a"}},
		TopologyKey:       "host",
	}}
	ns := func(labels map[string]string) *v1.Namespace {
		return &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns1", Labels: labels}}
	}
	for _, policy := range []queue.Policy{queue.Relation, queue.Transition} {
		t.Run(policy.String(), func(t *testing.T) {
			q, _ := newQueue(t, queue.WithPolicy(policy))
			q.NamespaceUpdated(ns(nil), ns(map[string]string{"team": "a"}))
			mustAdd(t, q, p)
			pi := mustPop(t, q, "p")
			q.AssignedPodDeleted(db) // p was blocked by db: this unblocks it
			q.NamespaceUpdated(ns(map[string]string{"team": "a"}), ns(map[string]string{"team": "b"}))
			if err := q.AddUnschedulable(pi, queue.InterPodAffinity); err != nil {
				t.Fatal(err)
			}
			checkLocations(t, q, map[string]string{"p": map[queue.Policy]string{queue.Relation: "Active", queue.Transition: "Backoff"}[policy]})
		})
	}
}

// TestLookupWindow forces the interleaving the single lock must exclude: a
// pod fails while an event is between its index lookup (which cannot see
// the pod, in flight) and its logging. The failure blocks until the event
// has finished, then replays it, and the pod is requeued, never stranded.
func TestLookupWindow(t *testing.T) {
	for _, policy := range []queue.Policy{queue.Relation, queue.Transition} {
		t.Run(policy.String(), func(t *testing.T) {
			q, _ := newQueue(t, queue.WithPolicy(policy))
			mustAdd(t, q, makePod("parked", withAffinity("app", "none")), makePod("p", withAffinity("app", "db")))
			popAndFail(t, q, "parked", queue.InterPodAffinity) // so that events do look up
			pi := mustPop(t, q, "p")
			failed := make(chan error, 1)
			var inWindow bool
			q.SetAfterLookup(func() {
				if inWindow {
					return
				}
				inWindow = true
				go func() { failed <- q.AddUnschedulable(pi, queue.InterPodAffinity) }()
				for range 100 {
					runtime.Gosched()
				}
				select {
				case err := <-failed:
					t.Errorf("AddUnschedulable ran inside an event (err %v)", err)
				default:
				}
			})
			inFlightEvents(q, "db")
			if err := <-failed; err != nil {
				t.Fatal(err)
			}
			want := map[queue.Policy]string{queue.Relation: "Active", queue.Transition: "Backoff"}[policy]
			checkLocations(t, q, map[string]string{"p": want, "parked": "Unschedulable"})
		})
	}
}

// TestStress has goroutines pop, fail, succeed, re-add, update, delete and
// fire events concurrently, under -race. At quiescence every pod must be in
// exactly one place, and no pod may sit in the pool if an event that applies
// to it under the policy happened after it was parked there (the order comes
// from a trace the queue writes under its lock).
func TestStress(t *testing.T) {
	for _, policy := range []queue.Policy{queue.Relation, queue.Transition} {
		t.Run(policy.String(), func(t *testing.T) { stress(t, policy) })
	}
}

func stress(t *testing.T, policy queue.Policy) {
	const pods, schedulers, eventers, rounds = 60, 4, 2, 1000
	q, _ := newQueue(t, queue.WithPolicy(policy), queue.WithBackoff(0, 0))
	type traced struct {
		what string
		ev   *index.Event
		uid  types.UID
	}
	var trace []traced // appended under the queue's lock
	q.SetTrace(func(what string, ev *index.Event, uid types.UID) { trace = append(trace, traced{what, ev, uid}) })

	groups := []string{"a", "b", "c"}
	podFor := func(i, version int) *v1.Pod {
		g := groups[i%len(groups)]
		opts := []podOption{withLabels("app", "pending-"+g, "v", fmt.Sprint(version))}
		switch i % 3 {
		case 0:
			opts = append(opts, withAffinity("app", "db-"+g))
		case 1:
			opts = append(opts, withAntiAffinity("app", "db-"+g))
		default:
			opts = append(opts, withSpread("app", "db-"+g))
		}
		if i%4 == 0 {
			opts = append(opts, inNamespace("ns2"))
		}
		return makePod(fmt.Sprint("p", i), opts...)
	}
	for i := range pods {
		mustAdd(t, q, podFor(i, 0))
	}

	ctx := context.Background()
	var wg sync.WaitGroup
	var schedulersWG sync.WaitGroup
	plugins := [][]string{
		{queue.InterPodAffinity}, {queue.PodTopologySpread}, {"NodeResourcesFit"},
		{queue.InterPodAffinity, "NodeResourcesFit"}, nil,
	}
	for s := range schedulers {
		schedulersWG.Add(1)
		go func() {
			defer schedulersWG.Done()
			for r := 0; r < rounds; r++ {
				pi, err := q.Pop(ctx)
				if err != nil {
					t.Errorf("Pop: %v", err)
					return
				}
				for range r % 4 { // the attempt takes a while: events arrive meanwhile
					runtime.Gosched()
				}
				switch (r + s) % 7 {
				case 0:
					q.Done(pi.Pod.UID)
					_ = q.Add(pi.Pod) // re-added as a new pending pod; may race with a Delete
				case 1:
					q.Delete(pi.Pod)
					_ = q.AddUnschedulable(pi, queue.InterPodAffinity) // a no-op
					_ = q.Add(pi.Pod)
				default:
					if err := q.AddUnschedulable(pi, plugins[(r*7+s)%len(plugins)]...); err != nil {
						t.Errorf("AddUnschedulable: %v", err)
						return
					}
				}
			}
		}()
	}
	stop := make(chan struct{})
	for e := range eventers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := 0; ; r++ {
				select {
				case <-stop:
					return
				default:
				}
				g := groups[(r+e)%len(groups)]
				ns := []string{"ns1", "ns2"}[r%2]
				db := makePod(fmt.Sprint("db-", e), inNamespace(ns), onNode("n1"), withLabels("app", "db-"+g))
				switch r % 5 {
				case 0:
					q.AssignedPodAdded(db)
				case 1:
					q.AssignedPodDeleted(db)
				case 2:
					q.AssignedPodUpdated(relabel(db, "app", "cache"), db)
				case 3:
					q.AssignedPodUpdated(db, relabel(db, "app", "db-"+g, "tier", "x"))
				case 4:
					if r%7 == 4 {
						_ = q.Update(nil, podFor((r*13)%pods, r))
					}
				}
				if r%40 == 39 {
					// The wildcard keeps the schedulers fed with pods that
					// no event of the index unblocks.
					q.MoveAll("")
				}
				if r%8 == 0 {
					runtime.Gosched()
				}
			}
		}()
	}
	schedulersWG.Wait() // the eventers keep moving pods until every scheduler is done
	close(stop)
	wg.Wait()

	if err := q.Validate(); err != nil {
		t.Fatalf("Validate after the stress run: %v", err)
	}
	st := q.Stats()
	if st.InFlight != 0 || st.LoggedEvents != 0 {
		t.Fatalf("after quiescence: %d in flight, %d logged events", st.InFlight, st.LoggedEvents)
	}
	if total := st.Active + st.Backoff + st.Unschedulable; total != q.Len() {
		t.Fatalf("Stats count %d pods, Len %d", total, q.Len())
	}
	// No pod stranded: nothing that applies to a pool pod may have happened
	// since its last Pop (had it, the lookup or the replay would have moved
	// the pod, and it would have been popped again).
	lastPop := map[types.UID]int{}
	for i, tr := range trace {
		if tr.what == "pop" {
			lastPop[tr.uid] = i
		}
	}
	stranded := 0
	for i := range pods {
		uid := types.UID(fmt.Sprint("p", i))
		if loc, ok := q.Location(uid); !ok || loc != queue.Unschedulable {
			continue
		}
		pd, _ := q.Pending(uid)
		rejected := q.Rejected(uid)
		for _, tr := range trace[lastPop[uid]+1:] {
			if tr.what == "moveAll" {
				t.Errorf("pod %s stranded in the pool: a MoveAll happened after its last Pop", uid)
				stranded++
				break
			}
			if tr.what != "event" {
				continue
			}
			rel, transition := pd.Affected(tr.ev, nil)
			if (policy == queue.Relation && rel != 0) || (policy == queue.Transition && transition&rejected != 0) {
				t.Errorf("pod %s stranded in the pool: %v after its last Pop affects it (relation %v, transition %v, rejected %v)",
					uid, tr.ev.Kind, rel, transition, rejected)
				stranded++
				break
			}
		}
		if stranded > 5 {
			t.Fatal("too many stranded pods")
		}
	}
	t.Logf("%d trace entries, stats %+v", len(trace), st)
}
