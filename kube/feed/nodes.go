package feed

import (
	"maps"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
)

func (h *handlers) nodeAdded(obj any) {
	node := object[v1.Node](obj)
	if node == nil {
		h.errorf("node add of a %s, not a *v1.Node", describe[v1.Node](obj))
		return
	}
	h.sink.NodeAdded(node)
}

// nodeUpdated passes on the updates that change a node's labels or taints,
// the only fields the index's node rules read.
func (h *handlers) nodeUpdated(oldObj, newObj any) {
	oldNode := object[v1.Node](oldObj)
	newNode := object[v1.Node](newObj)
	if oldNode == nil || newNode == nil {
		h.errorf("node update of a %s to a %s, not *v1.Node", describe[v1.Node](oldObj), describe[v1.Node](newObj))
		return
	}
	if sameVersion(oldNode.ResourceVersion, newNode.ResourceVersion) {
		return
	}
	if maps.Equal(oldNode.Labels, newNode.Labels) && equality.Semantic.DeepEqual(oldNode.Spec.Taints, newNode.Spec.Taints) {
		return
	}
	h.sink.NodeUpdated(oldNode, newNode)
}

func (h *handlers) nodeDeleted(obj any) {
	o, _ := unwrap(obj)
	node := object[v1.Node](o)
	if node == nil {
		h.errorf("node delete of a %s, not a *v1.Node", describe[v1.Node](o))
		return
	}
	h.sink.NodeDeleted(node)
}
