package feed

import (
	"errors"
	"maps"

	v1 "k8s.io/api/core/v1"

	"github.com/affinityq/affinityq/queue"
)

// podKind is what a pod is to the feed.
type podKind uint8

const (
	gone     podKind = iota // terminated: not there for scheduling
	other                   // pending, of a scheduler the feed does not serve
	pending                 // pending, served
	assigned                // bound to a node
)

func (h *handlers) kind(p *v1.Pod) podKind {
	switch {
	case p.Status.Phase == v1.PodSucceeded || p.Status.Phase == v1.PodFailed:
		return gone
	case p.Spec.NodeName != "":
		return assigned
	case h.names[p.Spec.SchedulerName]:
		return pending
	}
	return other
}

func (h *handlers) podAdded(obj any) {
	pod := object[v1.Pod](obj)
	if pod == nil {
		h.errorf("pod add of a %s, not a *v1.Pod", describe[v1.Pod](obj))
		return
	}
	h.appear(pod)
}

// appear handles a pod that was not there before.
func (h *handlers) appear(pod *v1.Pod) {
	switch h.kind(pod) {
	case assigned:
		h.sink.AssignedPodAdded(pod)
	case pending:
		h.add(pod)
	}
}

func (h *handlers) podUpdated(oldObj, newObj any) {
	oldPod := object[v1.Pod](oldObj)
	newPod := object[v1.Pod](newObj)
	if oldPod == nil || newPod == nil {
		h.errorf("pod update of a %s to a %s, not *v1.Pod", describe[v1.Pod](oldObj), describe[v1.Pod](newObj))
		return
	}
	if oldPod.UID != newPod.UID {
		// Deleted and recreated under the same name between two
		// notifications: the delete was missed.
		h.disappear(oldPod, false)
		h.appear(newPod)
		return
	}
	if sameVersion(oldPod.ResourceVersion, newPod.ResourceVersion) {
		return
	}
	oldKind, newKind := h.kind(oldPod), h.kind(newPod)
	switch {
	case oldKind == assigned && newKind == assigned:
		if !maps.Equal(oldPod.Labels, newPod.Labels) {
			h.sink.AssignedPodUpdated(oldPod, newPod)
		}
	case oldKind == pending && newKind == pending:
		h.update(oldPod, newPod)
		if n := oldPod.Status.NominatedNodeName; n != "" && n != newPod.Status.NominatedNodeName {
			h.sink.AssignedPodDeleted(oldPod) // it no longer holds its place on n
		}
	case oldKind == pending && newKind == assigned:
		// Bound: it leaves the pending pods without freeing a nominated
		// place (it now occupies a node instead).
		h.sink.Delete(oldPod)
		h.sink.AssignedPodAdded(newPod)
	default:
		// Any other change of kind (a terminated pod, a scheduler name
		// changed) is a disappearance followed by an appearance.
		h.disappear(oldPod, false)
		h.appear(newPod)
	}
}

func (h *handlers) podDeleted(obj any) {
	o, stale := unwrap(obj)
	pod := object[v1.Pod](o)
	if pod == nil {
		h.errorf("pod delete of a %s, not a *v1.Pod", describe[v1.Pod](o))
		return
	}
	h.disappear(pod, stale)
}

// disappear handles a pod that is no longer there. A stale object (from a
// tombstone) may have been bound since: it is removed from the pending pods
// of its scheduler and reported as an assigned pod deleted, which the index
// ignores for a pod that was not placed.
func (h *handlers) disappear(pod *v1.Pod, stale bool) {
	if stale && pod.Status.Phase != v1.PodSucceeded && pod.Status.Phase != v1.PodFailed {
		if pod.Spec.NodeName == "" && h.names[pod.Spec.SchedulerName] {
			h.sink.Delete(pod)
		}
		h.sink.AssignedPodDeleted(pod)
		return
	}
	switch h.kind(pod) {
	case assigned:
		h.sink.AssignedPodDeleted(pod)
	case pending:
		h.sink.Delete(pod)
		if pod.Status.NominatedNodeName != "" {
			h.sink.AssignedPodDeleted(pod) // its nominated place is free
		}
	}
}

// add passes a pending pod to the sink. A queue that already holds it (the
// handler was re-registered on a running informer) takes it as an update.
func (h *handlers) add(pod *v1.Pod) {
	err := h.sink.Add(pod)
	if errors.Is(err, queue.ErrAlreadyQueued) {
		err = h.sink.Update(pod, pod)
	}
	if err != nil {
		h.onError(err)
	}
}

// update passes a pending pod's update to the sink. A queue that does not
// hold the pod (its add failed, or it was dropped) takes it as an add.
func (h *handlers) update(oldPod, newPod *v1.Pod) {
	err := h.sink.Update(oldPod, newPod)
	if errors.Is(err, queue.ErrUnknownPod) {
		err = h.sink.Add(newPod)
	}
	if err != nil {
		h.onError(err)
	}
}
