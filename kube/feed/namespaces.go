package feed

import (
	"maps"

	v1 "k8s.io/api/core/v1"
	corelisters "k8s.io/client-go/listers/core/v1"

	"github.com/affinityq/affinityq/index"
)

func (h *handlers) namespaceAdded(obj any) {
	ns := object[v1.Namespace](obj)
	if ns == nil {
		h.errorf("namespace add of a %s, not a *v1.Namespace", describe[v1.Namespace](obj))
		return
	}
	h.sink.NamespaceUpdated(nil, ns)
}

// namespaceUpdated passes on the updates that change a namespace's labels,
// the only field the index reads.
func (h *handlers) namespaceUpdated(oldObj, newObj any) {
	oldNS := object[v1.Namespace](oldObj)
	newNS := object[v1.Namespace](newObj)
	if oldNS == nil || newNS == nil {
		h.errorf("namespace update of a %s to a %s, not *v1.Namespace", describe[v1.Namespace](oldObj), describe[v1.Namespace](newObj))
		return
	}
	if maps.Equal(oldNS.Labels, newNS.Labels) {
		return
	}
	h.sink.NamespaceUpdated(oldNS, newNS)
}

func (h *handlers) namespaceDeleted(obj any) {
	o, _ := unwrap(obj)
	ns := object[v1.Namespace](o)
	if ns == nil {
		h.errorf("namespace delete of a %s, not a *v1.Namespace", describe[v1.Namespace](o))
		return
	}
	h.sink.NamespaceUpdated(ns, nil)
}

// NamespaceLabels returns the function index.WithNamespaceLabels and
// queue.WithNamespaceLabels take, reading the labels from a namespace
// lister (factory.Core().V1().Namespaces().Lister()). An informer updates
// its lister before it notifies any handler, so a lookup made for an event
// already sees that event's namespace labels. The returned map belongs to
// the informer's cache and must not be modified.
func NamespaceLabels(lister corelisters.NamespaceLister) index.NamespaceLabels {
	return func(name string) (map[string]string, bool) {
		if lister == nil {
			return nil, false
		}
		ns, err := lister.Get(name)
		if err != nil {
			return nil, false
		}
		return ns.Labels, true
	}
}
