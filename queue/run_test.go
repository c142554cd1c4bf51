package queue_test

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	testingclock "k8s.io/utils/clock/testing"

	"github.com/affinityq/affinityq/queue"
)

func TestBackoffDuration(t *testing.T) {
	tests := []struct {
		attempts     int
		initial, max time.Duration
		want         time.Duration
	}{
		{0, time.Second, 10 * time.Second, 0},
		{1, time.Second, 10 * time.Second, time.Second},
		{2, time.Second, 10 * time.Second, 2 * time.Second},
		{4, time.Second, 10 * time.Second, 8 * time.Second},
		{5, time.Second, 10 * time.Second, 10 * time.Second},
		{1 << 30, time.Second, 10 * time.Second, 10 * time.Second},
		{3, 0, 10 * time.Second, 0},
		{3, time.Second, 0, 0},
		{100, time.Duration(1) << 62, time.Duration(1<<63 - 1), time.Duration(1<<63 - 1)},
	}
	for _, tc := range tests {
		if got := queue.BackoffDuration(tc.attempts, tc.initial, tc.max); got != tc.want {
			t.Errorf("backoffDuration(%d, %v, %v) = %v, want %v", tc.attempts, tc.initial, tc.max, got, tc.want)
		}
	}
}

// TestBackoffFlow re-creates kube-scheduler's TestBackOffFlow: each failure
// doubles the backoff, 1, 2, 4, 8 s, capped at 10 s, measured from the
// failure; an early flush leaves the pod in backoffQ, one at expiry moves
// it. The pod reaches backoffQ by MoveAll under Transition, as upstream, and
// directly by failing with an error (no plugin) under both policies.
func TestBackoffFlow(t *testing.T) {
	want := []time.Duration{1, 2, 4, 8, 10, 10, 10}
	for _, path := range []string{"Transition/MoveAll", "Transition/error", "Relation/error"} {
		t.Run(path, func(t *testing.T) {
			policy := queue.Relation
			if path[:len("Transition")] == "Transition" {
				policy = queue.Transition
			}
			q, c := newQueue(t, queue.WithPolicy(policy))
			mustAdd(t, q, makePod("p"))
			for i, w := range want {
				w *= time.Second
				pi := mustPop(t, q, "p")
				if pi.Attempts != i+1 {
					t.Fatalf("step %d: Attempts = %d, want %d", i, pi.Attempts, i+1)
				}
				failedAt := c.Now()
				if path == "Transition/MoveAll" {
					if err := q.AddUnschedulable(pi, "unsched-plugin"); err != nil {
						t.Fatal(err)
					}
					q.MoveAll("")
				} else if err := q.AddUnschedulable(pi); err != nil {
					t.Fatal(err)
				}
				exp, ok := q.BackoffExpiry("p")
				if !ok {
					t.Fatalf("step %d: not in backoffQ", i)
				}
				if got := exp.Sub(failedAt); got != w {
					t.Errorf("step %d: backoff %v, want %v", i, got, w)
				}
				c.Step(w - time.Millisecond)
				q.FlushBackoffCompleted()
				checkLocations(t, q, map[string]string{"p": "Backoff"})
				c.Step(time.Millisecond)
				q.FlushBackoffCompleted()
				checkLocations(t, q, map[string]string{"p": "Active"})
			}
		})
	}
}

// TestFlushLeftover re-creates kube-scheduler's
// TestHighPriorityFlushUnschedulableEntitiesLeftover and checks the age
// order among equal priorities: leftovers come back higher priority first,
// then older first, and only those past the timeout.
func TestFlushLeftover(t *testing.T) {
	for _, policy := range []queue.Policy{queue.Relation, queue.Transition} {
		t.Run(policy.String(), func(t *testing.T) {
			q, c := newQueue(t, queue.WithPolicy(policy))
			mustAdd(t, q, makePod("high", withPriority(100)), makePod("mid-old", withPriority(50)), makePod("mid-new", withPriority(50)))
			var popped []*queue.PodInfo
			for _, n := range []string{"high", "mid-old", "mid-new"} {
				popped = append(popped, mustPop(t, q, n))
			}
			for _, i := range []int{1, 2, 0} { // mid-old fails first, high last
				if err := q.AddUnschedulable(popped[i], "fakePlugin"); err != nil {
					t.Fatal(err)
				}
				c.Step(time.Second)
			}
			c.Step(time.Minute)
			mustAdd(t, q, makePod("young", withPriority(200)))
			popAndFail(t, q, "young", "fakePlugin")
			c.Step(queue.DefaultUnschedulableTimeout - time.Minute)
			q.FlushUnschedulableLeftover()
			checkLocations(t, q, map[string]string{"high": "Active", "mid-old": "Active", "mid-new": "Active", "young": "Unschedulable"})
			for _, n := range []string{"high", "mid-old", "mid-new"} {
				mustPop(t, q, n)
			}
			if got := q.Stats().Moves["UnschedulableTimeout"]; got != 3 {
				t.Errorf("Moves[UnschedulableTimeout] = %d, want 3", got)
			}
		})
	}
}

// TestFailedAgainGoesBehind re-creates kube-scheduler's
// TestRecentlyTriedPodsGoBack and
// TestPodFailedSchedulingMultipleTimesDoesNotBlockNewerPod: a pod that
// failed queues behind pods of equal priority that were added before its
// failure.
func TestFailedAgainGoesBehind(t *testing.T) {
	t.Run("recently tried pods go back", func(t *testing.T) {
		q, c := newQueue(t)
		for i := range 5 {
			mustAdd(t, q, makePod(fmt.Sprint("p", i), withPriority(100)))
		}
		c.Step(time.Microsecond)
		popAndFail(t, q, "p0", "plugin")
		c.Step(queue.DefaultMaxBackoff)
		q.MoveAll("")
		for _, n := range []string{"p1", "p2", "p3", "p4", "p0"} {
			mustPop(t, q, n)
		}
	})
	t.Run("failing again does not block a newer pod", func(t *testing.T) {
		q, c := newQueue(t, queue.WithPolicy(queue.Transition))
		mustAdd(t, q, makePod("old", withPriority(100)))
		popAndFail(t, q, "old", "plugin")
		c.Step(queue.DefaultInitialBackoff + time.Second)
		q.MoveAll("")
		pi := mustPop(t, q, "old")
		c.Step(time.Second)
		mustAdd(t, q, makePod("newer", withPriority(100)))
		c.Step(time.Second)
		if err := q.AddUnschedulable(pi, "plugin"); err != nil {
			t.Fatal(err)
		}
		c.Step(queue.DefaultMaxBackoff)
		q.MoveAll("")
		mustPop(t, q, "newer")
		mustPop(t, q, "old")
	})
}

// TestHighPriorityBackoff re-creates kube-scheduler's test of that name:
// under Transition a high-priority pod that MoveAll takes out of the pool
// while it backs off does not block a lower-priority one. Under Relation it
// goes straight back to activeQ.
func TestHighPriorityBackoff(t *testing.T) {
	for _, tc := range []struct {
		policy queue.Policy
		next   string
	}{{queue.Transition, "mid"}, {queue.Relation, "high"}} {
		t.Run(tc.policy.String(), func(t *testing.T) {
			q, _ := newQueue(t, queue.WithPolicy(tc.policy))
			mustAdd(t, q, makePod("mid", withPriority(50)), makePod("high", withPriority(100)))
			popAndFail(t, q, "high", "fooPlugin")
			q.MoveAll("")
			mustPop(t, q, tc.next)
		})
	}
}

// TestRun drives Run with a fake clock inside a synctest bubble, so that
// "Run has handled the tick" is synctest.Wait, not a sleep.
func TestRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := testingclock.NewFakeClock(epoch)
		q := queue.New(queue.WithClock(c), queue.WithUnschedulableTimeout(time.Minute), queue.WithFlushInterval(10*time.Second))
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			q.Run(ctx)
			close(done)
		}()
		synctest.Wait()
		mustAdd(t, q, makePod("err"), makePod("stuck"))
		popAndFail(t, q, "err")
		popAndFail(t, q, "stuck", "plugin")
		step := func(d time.Duration) {
			c.Step(d)
			synctest.Wait()
		}
		step(time.Second)
		checkLocations(t, q, map[string]string{"err": "Active", "stuck": "Unschedulable"})
		for range 6 {
			step(10 * time.Second)
		}
		checkLocations(t, q, map[string]string{"err": "Active", "stuck": "Active"})
		cancel()
		<-done

		q2 := queue.New(queue.WithClock(c))
		done2 := make(chan struct{})
		go func() {
			q2.Run(context.Background())
			close(done2)
		}()
		synctest.Wait()
		q2.Close()
		<-done2 // Close ends Run
	})
}

func TestNewPanicsOnMisuse(t *testing.T) {
	for _, tc := range []struct {
		name string
		opt  queue.Option
	}{
		{"policy", queue.WithPolicy(queue.Policy(9))},
		{"flush interval", queue.WithFlushInterval(0)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if r := recover(); r == nil || fmt.Sprint(r)[:len("queue: ")] != "queue: " {
					t.Errorf("New = panic(%v), want a queue: panic", r)
				}
			}()
			queue.New(tc.opt)
		})
	}
}

func TestStrings(t *testing.T) {
	for _, tc := range []struct {
		got  fmt.Stringer
		want string
	}{
		{queue.Relation, "Relation"}, {queue.Transition, "Transition"}, {queue.Policy(7), "Policy(7)"},
		{queue.Active, "Active"}, {queue.Backoff, "Backoff"}, {queue.Unschedulable, "Unschedulable"},
		{queue.InFlight, "InFlight"}, {queue.Location(0), "Location(0)"},
	} {
		if got := tc.got.String(); got != tc.want {
			t.Errorf("String() = %q, want %q", got, tc.want)
		}
	}
}
