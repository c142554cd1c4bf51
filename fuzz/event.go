package fuzz

import (
	"k8s.io/apimachinery/pkg/types"

	"github.com/affinityq/affinityq/index"
)

// Event dispatches an index.Event to the matching method, so that a stream
// of events can be replayed through the reference and through the index or
// the queue alike. It only reads the event's fields: the answers come from
// the apimachinery-only code of reference.go. An unknown kind affects no
// one.
func (r *Reference) Event(ev *index.Event) map[types.UID]Effect {
	switch ev.Kind {
	case index.AssignedPodAdd:
		return r.AssignedPodAdded(ev.NewPod)
	case index.AssignedPodUpdate:
		return r.AssignedPodUpdated(ev.OldPod, ev.NewPod)
	case index.AssignedPodDelete:
		return r.AssignedPodDeleted(ev.OldPod)
	case index.NodeAdd:
		return r.NodeAdded(ev.NewNode)
	case index.NodeUpdate:
		return r.NodeUpdated(ev.OldNode, ev.NewNode)
	case index.NodeDelete:
		return r.NodeDeleted(ev.OldNode)
	case index.NamespaceUpdate:
		return r.NamespaceUpdated(ev.OldNamespace, ev.NewNamespace)
	}
	return map[types.UID]Effect{}
}
