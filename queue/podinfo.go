package queue

import (
	"time"

	v1 "k8s.io/api/core/v1"
)

// PodInfo is a pending pod with its scheduling history. Pop hands the
// queue's own PodInfo to the scheduler; the scheduler may read it until it
// gives the attempt back with Done or AddUnschedulable, and must not modify
// it (the queue records the newest object an Update brings while the pod is
// in flight and applies it when the attempt ends).
type PodInfo struct {
	// Pod is the pod object, never modified by the queue.
	Pod *v1.Pod
	// Attempts counts the Pops of the pod. The Relation policy resets it to
	// 0 when it moves the pod out of the unschedulable pool (see
	// WithResetOnMove). Backoff grows with it.
	Attempts int
	// Timestamp is when the pod was added or, after a failed attempt, when
	// AddUnschedulable took it back: activeQ orders pods of equal priority
	// by it, so a pod that failed again queues behind its peers, and its
	// backoff is measured from it.
	Timestamp time.Time
	// InitialAttemptTimestamp is the time of the pod's first Pop; zero
	// before.
	InitialAttemptTimestamp time.Time
	// UnschedulablePlugins are the plugins that rejected the last failed
	// attempt, sorted; nil when it failed with an error (no plugin) or has
	// not failed yet. Kept through the next Pop, for logging.
	UnschedulablePlugins []string
}

// priority returns pod.Spec.Priority, 0 when unset.
func priority(p *PodInfo) int32 {
	if p.Pod.Spec.Priority != nil {
		return *p.Pod.Spec.Priority
	}
	return 0
}
