package queue_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/affinityq/affinityq/index"
	"github.com/affinityq/affinityq/queue"
)

func TestPopOrder(t *testing.T) {
	tests := []struct {
		name string
		opts []queue.Option
		pods []*v1.Pod // added one second apart
		want []string
	}{
		{
			name: "priority then age",
			pods: []*v1.Pod{
				makePod("low-old"), makePod("mid", withPriority(5)), makePod("high", withPriority(10)),
				makePod("low-new"), makePod("negative", withPriority(-1)),
			},
			want: []string{"high", "mid", "low-old", "low-new", "negative"},
		},
		{
			name: "nil priority is 0",
			pods: []*v1.Pod{makePod("zero", withPriority(0)), makePod("nil")},
			want: []string{"zero", "nil"},
		},
		{
			name: "WithLess reverses",
			opts: []queue.Option{queue.WithLess(func(a, b *queue.PodInfo) bool { return b.Timestamp.Before(a.Timestamp) })},
			pods: []*v1.Pod{makePod("a"), makePod("b"), makePod("c")},
			want: []string{"c", "b", "a"},
		},
		{
			name: "ties pop in arrival order",
			opts: []queue.Option{queue.WithLess(func(a, b *queue.PodInfo) bool { return false })},
			pods: []*v1.Pod{makePod("a"), makePod("b"), makePod("c")},
			want: []string{"a", "b", "c"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q, c := newQueue(t, tc.opts...)
			for _, p := range tc.pods {
				mustAdd(t, q, p)
				c.Step(time.Second)
			}
			var got []string
			for range tc.pods {
				got = append(got, mustPop(t, q, tc.want[len(got)]).Pod.Name)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("pop order (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPopMarksInFlight(t *testing.T) {
	q, c := newQueue(t)
	mustAdd(t, q, makePod("p"))
	c.Step(time.Second)
	pi := mustPop(t, q, "p")
	want := queue.PodInfo{Pod: pi.Pod, Attempts: 1, Timestamp: epoch, InitialAttemptTimestamp: epoch.Add(time.Second)}
	if diff := cmp.Diff(want, *pi); diff != "" {
		t.Errorf("popped PodInfo (-want +got):\n%s", diff)
	}
	checkLocations(t, q, map[string]string{"p": "InFlight"})
	if err := q.AddUnschedulable(pi); err != nil {
		t.Fatal(err)
	}
	c.Step(time.Minute)
	q.FlushBackoffCompleted()
	pi = mustPop(t, q, "p")
	if pi.Attempts != 2 || !pi.InitialAttemptTimestamp.Equal(epoch.Add(time.Second)) {
		t.Errorf("second Pop: Attempts %d, InitialAttemptTimestamp %v; want 2, %v", pi.Attempts, pi.InitialAttemptTimestamp, epoch.Add(time.Second))
	}
	q.Done("p")
	checkLocations(t, q, map[string]string{"p": "-"})
}

func TestPopBlocks(t *testing.T) {
	t.Run("until Add", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			q := queue.New()
			defer q.Close()
			got := make(chan string)
			go func() {
				pi, err := q.Pop(context.Background())
				if err != nil {
					got <- err.Error()
					return
				}
				got <- pi.Pod.Name
			}()
			synctest.Wait()
			select {
			case name := <-got:
				t.Fatalf("Pop returned %s from an empty queue", name)
			default:
			}
			mustAdd(t, q, makePod("p"))
			if name := <-got; name != "p" {
				t.Errorf("Pop = %s, want p", name)
			}
		})
	})
	t.Run("until ctx ends", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			q := queue.New()
			defer q.Close()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if _, err := q.Pop(ctx); !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("Pop = %v, want %v", err, context.DeadlineExceeded)
			}
		})
	})
	t.Run("until Close", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			q := queue.New()
			errc := make(chan error)
			go func() {
				_, err := q.Pop(context.Background())
				errc <- err
			}()
			synctest.Wait()
			q.Close()
			if err := <-errc; !errors.Is(err, queue.ErrClosed) {
				t.Errorf("Pop = %v, want ErrClosed", err)
			}
		})
	})
}

func TestClosedQueue(t *testing.T) {
	q, _ := newQueue(t)
	mustAdd(t, q, makePod("p"))
	q.Close()
	q.Close() // idempotent
	if _, err := q.Pop(context.Background()); !errors.Is(err, queue.ErrClosed) {
		t.Errorf("Pop after Close = %v, want ErrClosed", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := q.Pop(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Pop with ended ctx = %v, want context.Canceled", err)
	}
	checkLocations(t, q, map[string]string{"p": "Active"}) // still there
}

func TestBadInput(t *testing.T) {
	noUID := makePod("no-uid")
	noUID.UID = ""
	absurd := makePod("absurd")
	for i := range 5000 {
		withAffinity("k", fmt.Sprint(i))(absurd)
	}
	tests := []struct {
		name    string
		op      func(q *queue.Queue, inFlight *queue.PodInfo) error
		wantErr error
	}{
		{"add nil", func(q *queue.Queue, _ *queue.PodInfo) error { return q.Add(nil) }, queue.ErrInvalidPod},
		{"add without UID", func(q *queue.Queue, _ *queue.PodInfo) error { return q.Add(noUID) }, queue.ErrInvalidPod},
		{"add absurd", func(q *queue.Queue, _ *queue.PodInfo) error { return q.Add(absurd) }, queue.ErrInvalidPod},
		{"add duplicate of active", func(q *queue.Queue, _ *queue.PodInfo) error { return q.Add(makePod("active")) }, queue.ErrAlreadyQueued},
		{"add duplicate of in flight", func(q *queue.Queue, _ *queue.PodInfo) error { return q.Add(makePod("flying")) }, queue.ErrAlreadyQueued},
		{"update unknown", func(q *queue.Queue, _ *queue.PodInfo) error { return q.Update(nil, makePod("ghost")) }, queue.ErrUnknownPod},
		{"update to nil", func(q *queue.Queue, _ *queue.PodInfo) error { return q.Update(makePod("active"), nil) }, queue.ErrInvalidPod},
		{"update changing UID", func(q *queue.Queue, _ *queue.PodInfo) error {
			n := makePod("active")
			n.UID = "other"
			return q.Update(makePod("active"), n)
		}, queue.ErrInvalidPod},
		{"update to absurd", func(q *queue.Queue, _ *queue.PodInfo) error {
			a := absurd.DeepCopy()
			a.Name, a.UID = "active", "active"
			return q.Update(nil, a)
		}, queue.ErrInvalidPod},
		{"add unschedulable nil", func(q *queue.Queue, _ *queue.PodInfo) error { return q.AddUnschedulable(nil, queue.InterPodAffinity) }, queue.ErrInvalidPod},
		{"add unschedulable nil pod", func(q *queue.Queue, _ *queue.PodInfo) error { return q.AddUnschedulable(&queue.PodInfo{}) }, queue.ErrInvalidPod},
		{"add unschedulable of active", func(q *queue.Queue, _ *queue.PodInfo) error {
			return q.AddUnschedulable(&queue.PodInfo{Pod: makePod("active")}, queue.InterPodAffinity)
		}, queue.ErrNotInFlight},
		{"add unschedulable of unknown", func(q *queue.Queue, _ *queue.PodInfo) error {
			return q.AddUnschedulable(&queue.PodInfo{Pod: makePod("ghost")}, queue.InterPodAffinity)
		}, queue.ErrNotInFlight},
		{"add unschedulable twice", func(q *queue.Queue, pi *queue.PodInfo) error {
			if err := q.AddUnschedulable(pi, queue.InterPodAffinity); err != nil {
				return fmt.Errorf("first call: %w", err)
			}
			return q.AddUnschedulable(pi, queue.InterPodAffinity)
		}, queue.ErrNotInFlight},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q, _ := newQueue(t)
			mustAdd(t, q, makePod("flying", withPriority(1)), makePod("active"))
			pi := mustPop(t, q, "flying")
			before := locations(q, "flying", "active")
			err := tc.op(q, pi)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("error = %v, want %v", err, tc.wantErr)
			}
			if !strings.HasPrefix(err.Error(), "queue: ") {
				t.Errorf("error %q lacks the package prefix", err)
			}
			if tc.name == "add unschedulable twice" {
				before["flying"] = "Unschedulable"
			}
			checkLocations(t, q, before)
		})
	}
	t.Run("absurd wraps the index's error", func(t *testing.T) {
		q, _ := newQueue(t)
		err := q.Add(absurd)
		wrapped, ok := err.(interface{ Unwrap() []error })
		if !ok || len(wrapped.Unwrap()) != 2 || !strings.Contains(err.Error(), "index: ") {
			t.Errorf("Add(absurd) = %v, want ErrInvalidPod and the index's error wrapped", err)
		}
	})
	t.Run("ignored", func(t *testing.T) {
		q, _ := newQueue(t)
		q.Delete(nil)
		q.Delete(makePod("ghost"))
		q.Done("ghost")
		q.AssignedPodAdded(nil)
		q.AssignedPodUpdated(nil, makePod("x"))
		q.AssignedPodDeleted(nil)
		q.NodeAdded(nil)
		q.NodeUpdated(nil, nil)
		q.NodeDeleted(nil)
		q.NamespaceUpdated(nil, nil)
		q.MoveAll("")
		if err := q.Validate(); err != nil {
			t.Error(err)
		}
	})
}

// A pod whose terms do not compile is queued, parked like any other, and
// moved by every event in its namespace: the index keeps it always checked.
func TestUncompilableTermsStillQueued(t *testing.T) {
	for _, policy := range []queue.Policy{queue.Relation, queue.Transition} {
		t.Run(policy.String(), func(t *testing.T) {
			q, c := newQueue(t, queue.WithPolicy(policy))
			bad := makePod("bad")
			ensureAffinity(bad)
			bad.Spec.Affinity.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution = []v1.PodAffinityTerm{{
				LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Bogus"}}},
				TopologyKey:   "zone",
			}}
			mustAdd(t, q, bad)
			popAndFail(t, q, "bad", queue.InterPodAffinity)
			checkLocations(t, q, map[string]string{"bad": "Unschedulable"})
			c.Step(time.Minute) // past any backoff
			q.AssignedPodAdded(makePod("anything", onNode("n1"), withLabels("x", "y")))
			checkLocations(t, q, map[string]string{"bad": "Active"})
		})
	}
}

func TestUpdate(t *testing.T) {
	tests := []struct {
		name   string
		policy queue.Policy
		// setup brings pod "p" (affinity to app=db) to where it is updated.
		setup  func(t *testing.T, q *queue.Queue) *queue.PodInfo
		update func(p *v1.Pod) *v1.Pod
		after  func(t *testing.T, q *queue.Queue, pi *queue.PodInfo)
		want   string
	}{
		{
			name:   "active: in place",
			setup:  func(t *testing.T, q *queue.Queue) *queue.PodInfo { return nil },
			update: func(p *v1.Pod) *v1.Pod { return relabel(p, "v", "2") },
			want:   "Active",
		},
		{
			name: "active: priority change reorders",
			setup: func(t *testing.T, q *queue.Queue) *queue.PodInfo {
				mustAdd(t, q, makePod("other", withPriority(5)))
				return nil
			},
			update: func(p *v1.Pod) *v1.Pod { n := p.DeepCopy(); withPriority(10)(n); return n },
			after: func(t *testing.T, q *queue.Queue, _ *queue.PodInfo) {
				if pi := mustPop(t, q, "p"); pi.Pod.Spec.Priority == nil || *pi.Pod.Spec.Priority != 10 {
					t.Errorf("popped the old object")
				}
			},
			want: "InFlight",
		},
		{
			name: "backoff: in place",
			setup: func(t *testing.T, q *queue.Queue) *queue.PodInfo {
				popAndFail(t, q, "p")
				return nil
			},
			update: func(p *v1.Pod) *v1.Pod { return relabel(p, "v", "2") },
			want:   "Backoff",
		},
		{
			name: "pool: labels changed moves it",
			setup: func(t *testing.T, q *queue.Queue) *queue.PodInfo {
				popAndFail(t, q, "p", queue.InterPodAffinity)
				return nil
			},
			update: func(p *v1.Pod) *v1.Pod { return relabel(p, "v", "2") },
			want:   "Active",
		},
		{
			name:   "pool: spec changed moves it, to backoff under Transition",
			policy: queue.Transition,
			setup: func(t *testing.T, q *queue.Queue) *queue.PodInfo {
				popAndFail(t, q, "p", queue.InterPodAffinity)
				return nil
			},
			update: func(p *v1.Pod) *v1.Pod { n := p.DeepCopy(); withAffinity("app", "cache")(n); return n },
			want:   "Backoff",
		},
		{
			name: "pool: status only stays, re-indexed",
			setup: func(t *testing.T, q *queue.Queue) *queue.PodInfo {
				popAndFail(t, q, "p", queue.InterPodAffinity)
				return nil
			},
			update: func(p *v1.Pod) *v1.Pod { n := p.DeepCopy(); n.Status.Message = "still waiting"; return n },
			after: func(t *testing.T, q *queue.Queue, _ *queue.PodInfo) {
				if pd, _ := q.Pending("p"); pd.Pod().Status.Message != "still waiting" {
					t.Errorf("index holds the old object")
				}
				if err := q.Validate(); err != nil {
					t.Error(err)
				}
				q.AssignedPodAdded(makePod("db", onNode("n1"), withLabels("app", "db")))
			},
			want: "Active",
		},
		{
			name:   "in flight: labels changed requeues on failure",
			setup:  func(t *testing.T, q *queue.Queue) *queue.PodInfo { return mustPop(t, q, "p") },
			update: func(p *v1.Pod) *v1.Pod { return relabel(p, "v", "2") },
			after: func(t *testing.T, q *queue.Queue, pi *queue.PodInfo) {
				if pi.Pod.Labels["v"] == "2" {
					t.Errorf("the PodInfo in flight was modified")
				}
				if err := q.AddUnschedulable(pi, queue.InterPodAffinity); err != nil {
					t.Fatal(err)
				}
				if pi.Pod.Labels["v"] != "2" {
					t.Errorf("the newest object was not applied when the attempt ended")
				}
			},
			want: "Active",
		},
		{
			name:   "in flight: status only parks the newest object",
			setup:  func(t *testing.T, q *queue.Queue) *queue.PodInfo { return mustPop(t, q, "p") },
			update: func(p *v1.Pod) *v1.Pod { n := p.DeepCopy(); n.Status.Message = "m"; return n },
			after: func(t *testing.T, q *queue.Queue, pi *queue.PodInfo) {
				if err := q.AddUnschedulable(pi, queue.InterPodAffinity); err != nil {
					t.Fatal(err)
				}
				if pd, _ := q.Pending("p"); pd.Pod().Status.Message != "m" {
					t.Errorf("parked the old object")
				}
			},
			want: "Unschedulable",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q, _ := newQueue(t, queue.WithPolicy(tc.policy))
			p := makePod("p", withAffinity("app", "db"))
			mustAdd(t, q, p)
			pi := tc.setup(t, q)
			if err := q.Update(p, tc.update(p)); err != nil {
				t.Fatalf("Update: %v", err)
			}
			if tc.after != nil {
				tc.after(t, q, pi)
			}
			checkLocations(t, q, map[string]string{"p": tc.want})
		})
	}
}

func TestDelete(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, q *queue.Queue) *queue.PodInfo
		// after runs once the pod is deleted (the in-flight attempt ending).
		after func(t *testing.T, q *queue.Queue, pi *queue.PodInfo)
	}{
		{name: "active", setup: func(*testing.T, *queue.Queue) *queue.PodInfo { return nil }},
		{name: "backoff", setup: func(t *testing.T, q *queue.Queue) *queue.PodInfo { popAndFail(t, q, "p"); return nil }},
		{name: "pool", setup: func(t *testing.T, q *queue.Queue) *queue.PodInfo {
			popAndFail(t, q, "p", queue.InterPodAffinity)
			return nil
		}},
		{
			name:  "in flight, then it fails",
			setup: func(t *testing.T, q *queue.Queue) *queue.PodInfo { return mustPop(t, q, "p") },
			after: func(t *testing.T, q *queue.Queue, pi *queue.PodInfo) {
				if err := q.AddUnschedulable(pi, queue.InterPodAffinity); err != nil {
					t.Errorf("AddUnschedulable after Delete = %v, want a no-op", err)
				}
			},
		},
		{
			name:  "in flight, then it fails with an error",
			setup: func(t *testing.T, q *queue.Queue) *queue.PodInfo { return mustPop(t, q, "p") },
			after: func(t *testing.T, q *queue.Queue, pi *queue.PodInfo) {
				if err := q.AddUnschedulable(pi); err != nil {
					t.Errorf("AddUnschedulable after Delete = %v, want a no-op", err)
				}
			},
		},
		{
			name:  "in flight, then it succeeds",
			setup: func(t *testing.T, q *queue.Queue) *queue.PodInfo { return mustPop(t, q, "p") },
			after: func(t *testing.T, q *queue.Queue, pi *queue.PodInfo) { q.Done("p") },
		},
		{
			name:  "in flight, re-added and popped, then the old attempt fails",
			setup: func(t *testing.T, q *queue.Queue) *queue.PodInfo { return mustPop(t, q, "p") },
			after: func(t *testing.T, q *queue.Queue, old *queue.PodInfo) {
				mustAdd(t, q, makePod("p"))
				cur := mustPop(t, q, "p")
				if err := q.AddUnschedulable(old, queue.InterPodAffinity); err != nil {
					t.Errorf("AddUnschedulable of the deleted attempt = %v, want a no-op", err)
				}
				checkLocations(t, q, map[string]string{"p": "InFlight"})
				q.Done(cur.Pod.UID)
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q, _ := newQueue(t)
			p := makePod("p", withAffinity("app", "db"))
			mustAdd(t, q, p)
			pi := tc.setup(t, q)
			q.Delete(p)
			checkLocations(t, q, map[string]string{"p": "-"})
			if tc.after != nil {
				tc.after(t, q, pi)
			}
			q.AssignedPodAdded(makePod("db", onNode("n1"), withLabels("app", "db")))
			q.MoveAll("")
			checkLocations(t, q, map[string]string{"p": "-"})
			if st := q.Stats(); st.Active+st.Backoff+st.Unschedulable+st.InFlight != 0 || st.LoggedEvents != 0 {
				t.Errorf("Stats after Delete = %+v, want an empty queue", st)
			}
		})
	}
}

func TestStatsAndMetrics(t *testing.T) {
	m := &recordingMetrics{}
	q, _ := newQueue(t, queue.WithMetrics(m))
	mustAdd(t, q, makePod("a", withAffinity("app", "db")), makePod("b", withAffinity("app", "db")), makePod("c", withAffinity("app", "web")))
	for _, n := range []string{"a", "b", "c"} {
		popAndFail(t, q, n, queue.InterPodAffinity)
	}
	q.AssignedPodAdded(makePod("db", onNode("n1"), withLabels("app", "db")))
	q.MoveAll("NodeResourcesFit")
	got := q.Stats()
	want := queue.Stats{
		Active:  3,
		Moves:   map[string]uint64{"AssignedPodAdd": 2, "NodeResourcesFit": 1},
		Lookups: 1,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Stats (-want +got):\n%s", diff)
	}
	wantCalls := []string{
		"moved AssignedPodAdd Active", "moved AssignedPodAdd Active", "lookup AssignedPodAdd hits=2 moved=2",
		"moved NodeResourcesFit Active",
	}
	if diff := cmp.Diff(wantCalls, m.calls); diff != "" {
		t.Errorf("Metrics calls (-want +got):\n%s", diff)
	}
}

// TestMetricsOfHugeEvents checks that an event with more hits than the
// queue keeps a buffer for reports them all.
func TestMetricsOfHugeEvents(t *testing.T) {
	m := &recordingMetrics{}
	q, _ := newQueue(t, queue.WithMetrics(m))
	const n = 5000 // more than the 4,096 hits whose buffer the queue keeps
	for i := range n {
		name := fmt.Sprintf("p%d", i)
		mustAdd(t, q, makePod(name, withAffinity("app", "db")))
		popAndFail(t, q, name, queue.InterPodAffinity)
	}
	m.calls = nil
	q.AssignedPodAdded(makePod("db", onNode("n1"), withLabels("app", "db")))
	want := fmt.Sprintf("lookup AssignedPodAdd hits=%d moved=%d", n, n)
	if got := m.calls[len(m.calls)-1]; got != want {
		t.Errorf("last Metrics call = %q, want %q", got, want)
	}
}

type recordingMetrics struct{ calls []string }

func (m *recordingMetrics) Lookup(kind index.EventKind, hits, moved int) {
	m.calls = append(m.calls, fmt.Sprintf("lookup %s hits=%d moved=%d", kind, hits, moved))
}

func (m *recordingMetrics) Moved(reason string, to queue.Location) {
	m.calls = append(m.calls, fmt.Sprintf("moved %s %s", reason, to))
}
