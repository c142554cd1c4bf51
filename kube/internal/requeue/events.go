package requeue

import (
	"context"
	"errors"
	"fmt"

	v1 "k8s.io/api/core/v1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	"github.com/affinityq/affinityq/index"
)

// narrowAction is an action whose events the index answers, and the index
// event it is.
type narrowAction struct {
	action fwk.ActionType
	kind   index.EventKind
}

// narrowActions returns the narrowable actions of resource r.
func narrowActions(r fwk.EventResource) []narrowAction {
	switch r {
	case fwk.AssignedPod:
		return []narrowAction{
			{fwk.Add, index.AssignedPodAdd},
			{fwk.UpdatePodLabel, index.AssignedPodUpdate},
			{fwk.Delete, index.AssignedPodDelete},
		}
	case fwk.Node:
		return []narrowAction{
			{fwk.Add, index.NodeAdd},
			{fwk.UpdateNodeLabel, index.NodeUpdate},
			{fwk.UpdateNodeTaint, index.NodeUpdate},
			{fwk.Delete, index.NodeDelete},
		}
	}
	return nil
}

// NarrowableEvents returns every single narrowable event.
func NarrowableEvents() []fwk.ClusterEvent {
	var out []fwk.ClusterEvent
	for _, r := range []fwk.EventResource{fwk.AssignedPod, fwk.Node} {
		for _, a := range narrowActions(r) {
			out = append(out, fwk.ClusterEvent{Resource: r, ActionType: a.action})
		}
	}
	return out
}

// IndexKind returns the index event of a single narrowable event.
func IndexKind(ev fwk.ClusterEvent) (index.EventKind, bool) {
	for _, a := range narrowActions(ev.Resource) {
		if a.action == ev.ActionType {
			return a.kind, true
		}
	}
	return 0, false
}

// Split splits ev into one event per narrowable action it has, followed by
// one event with the rest of its actions, if any. An incoming event matches
// ev (framework.MatchClusterEvents) exactly when it matches one of the
// parts, for every event kube-scheduler sends (one action, or the general
// Update, or the wildcard): a registration that the general Update matches
// is not split, since no part would match it.
func Split(ev fwk.ClusterEvent) []fwk.ClusterEvent {
	var parts []fwk.ClusterEvent
	rest := ev.ActionType
	if !framework.MatchClusterEvents(ev, fwk.ClusterEvent{Resource: ev.Resource, ActionType: fwk.Update}) {
		for _, a := range narrowActions(ev.Resource) {
			if rest&a.action != 0 {
				parts = append(parts, fwk.ClusterEvent{Resource: ev.Resource, ActionType: a.action, CustomLabel: ev.CustomLabel})
				rest &^= a.action
			}
		}
	}
	if rest != 0 || len(parts) == 0 {
		parts = append(parts, fwk.ClusterEvent{Resource: ev.Resource, ActionType: rest, CustomLabel: ev.CustomLabel})
	}
	return parts
}

// enqueueExtensionsLister is the part of kube-scheduler's framework (not of
// fwk.Handle) that lists a profile's enqueue extensions.
type enqueueExtensionsLister interface {
	EnqueueExtensions() []fwk.EnqueueExtensions
}

// Unhinted returns the events that the profile of h registers, through
// plugins other than those wrapper reports, without a PreQueueingHintFn:
// events a wrapper must not narrow. It fails when h cannot list its
// plugins.
func Unhinted(ctx context.Context, h fwk.Handle, wrapper func(fwk.EnqueueExtensions) bool) ([]fwk.ClusterEvent, error) {
	l, ok := h.(enqueueExtensionsLister)
	if !ok {
		return nil, fmt.Errorf("requeue: the framework handle (%T) does not list its plugins' events", h)
	}
	var out []fwk.ClusterEvent
	for _, ext := range l.EnqueueExtensions() {
		if wrapper(ext) {
			continue
		}
		events, err := ext.EventsToRegister(ctx)
		if err != nil {
			return nil, fmt.Errorf("requeue: events of plugin %s: %w", ext.Name(), err)
		}
		for _, e := range events {
			if e.PreQueueingHintFn != nil {
				continue
			}
			if e.Event.Resource == fwk.Pod {
				out = append(out, framework.UnrollPodEvent(e.Event)...)
			} else {
				out = append(out, e.Event)
			}
		}
	}
	return out, nil
}

// MatchesAny reports whether an incoming event ev matches any registration.
func MatchesAny(registered []fwk.ClusterEvent, ev fwk.ClusterEvent) bool {
	for _, r := range registered {
		if framework.MatchClusterEvents(r, ev) {
			return true
		}
	}
	return false
}

// errUnexpected says a pre-hint was given objects it cannot read.
var errUnexpected = errors.New("requeue: unexpected objects")

// IndexEvent converts a narrowable event and its objects into an index
// event, the assigned pods in their scheduler view.
func IndexEvent(kind index.EventKind, oldObj, newObj any) (*index.Event, error) {
	ev := &index.Event{Kind: kind}
	switch kind {
	case index.AssignedPodAdd, index.AssignedPodUpdate, index.AssignedPodDelete:
		oldPod, oldOK := oldObj.(*v1.Pod)
		newPod, newOK := newObj.(*v1.Pod)
		needOld, needNew := kind != index.AssignedPodAdd, kind != index.AssignedPodDelete
		if (needOld && (!oldOK || oldPod == nil)) || (needNew && (!newOK || newPod == nil)) {
			return nil, fmt.Errorf("%w: %s of a %T to a %T", errUnexpected, kind, oldObj, newObj)
		}
		if needOld {
			ev.OldPod = assignedView(oldPod)
		}
		if needNew {
			ev.NewPod = assignedView(newPod)
		}
	default:
		oldNode, oldOK := oldObj.(*v1.Node)
		newNode, newOK := newObj.(*v1.Node)
		needOld, needNew := kind != index.NodeAdd, kind != index.NodeDelete
		if (needOld && (!oldOK || oldNode == nil)) || (needNew && (!newOK || newNode == nil)) {
			return nil, fmt.Errorf("%w: %s of a %T to a %T", errUnexpected, kind, oldObj, newObj)
		}
		if needOld {
			ev.OldNode = oldNode
		}
		if needNew {
			ev.NewNode = newNode
		}
	}
	return ev, nil
}
