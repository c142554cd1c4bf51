package index

import (
	"fmt"
	"maps"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/affinityq/affinityq/matcher"
)

// RuleSet is a set of kube-scheduler plugins under whose rules a pending pod
// is affected by an event.
type RuleSet uint8

// The plugins whose rules the index answers for.
const (
	InterPodAffinity RuleSet = 1 << iota
	PodTopologySpread
)

// String lists the plugins of r, joined by "|"; "none" for the empty set.
func (r RuleSet) String() string {
	if r == 0 {
		return "none"
	}
	var parts []string
	if r&InterPodAffinity != 0 {
		parts = append(parts, "InterPodAffinity")
	}
	if r&PodTopologySpread != 0 {
		parts = append(parts, "PodTopologySpread")
	}
	if rest := r &^ (InterPodAffinity | PodTopologySpread); rest != 0 {
		parts = append(parts, fmt.Sprintf("RuleSet(%#x)", uint8(rest)))
	}
	return strings.Join(parts, "|")
}

// Hit is a pending pod an event affects, with the rule sets under which it
// is affected for each policy:
//
//   - Relation: a term of the pod relates to the event's object (its
//     selector matches the old or new version of an assigned pod, the
//     assigned pod's anti-affinity matches the pod, or the node and namespace
//     rules hold). The default policy; a superset of Transition.
//   - Transition: kube-scheduler v1.37.2's queueing hints, with upstream
//     issues 141354 and 141953 fixed. A scheduler that follows them retries
//     the pod when Transition intersects the plugins that rejected it.
type Hit[T any] struct {
	Pod        *v1.Pod
	Relation   RuleSet
	Transition RuleSet
	Tag        T // the indexed Pending's tag (Pending.WithTag, Index.InsertWithTag), the zero T if none
}

// EventKind names the cluster events the index answers for.
type EventKind uint8

// Event kinds.
const (
	AssignedPodAdd EventKind = iota + 1
	AssignedPodUpdate
	AssignedPodDelete
	NodeAdd
	NodeUpdate
	NodeDelete
	NamespaceUpdate
)

var eventKindNames = [...]string{
	AssignedPodAdd:    "AssignedPodAdd",
	AssignedPodUpdate: "AssignedPodUpdate",
	AssignedPodDelete: "AssignedPodDelete",
	NodeAdd:           "NodeAdd",
	NodeUpdate:        "NodeUpdate",
	NodeDelete:        "NodeDelete",
	NamespaceUpdate:   "NamespaceUpdate",
}

func (k EventKind) String() string {
	if int(k) < len(eventKindNames) && eventKindNames[k] != "" {
		return eventKindNames[k]
	}
	return fmt.Sprintf("EventKind(%d)", uint8(k))
}

// Event is a cluster event: an assigned (scheduled) pod, a node or a
// namespace, with its old version (update, delete) and new version (add,
// update). Only the fields of its kind are read.
type Event struct {
	Kind                       EventKind
	OldPod, NewPod             *v1.Pod
	OldNode, NewNode           *v1.Node
	OldNamespace, NewNamespace *v1.Namespace
}

// NamespaceLabels returns the labels of a namespace; ok is false when the
// namespace is unknown, which is treated as a namespace without labels (as
// kube-scheduler does when its lister misses).
type NamespaceLabels func(ns string) (labels map[string]string, ok bool)

// prepared is an event with everything computed once per lookup that every
// candidate's evaluation needs. It lives on the lookup's stack.
type prepared struct {
	kind EventKind
	none bool // the event affects no one (an unscheduled assigned pod)

	// Assigned-pod events: the versions present, their namespace and its
	// labels, and their required anti-affinity terms (for symmetry).
	qo, qn           *v1.Pod
	ns               string
	nsHash           uint64 // strHash(ns)
	nsLabels         map[string]string
	oldAnti, newAnti []matcher.Term
	labelsChanged    bool
	lookupNS         NamespaceLabels

	// Node events.
	oldNode, newNode map[string]string // labels
	taintsChanged    bool

	// Namespace events.
	oldNS, newNS map[string]string
}

func scheduled(p *v1.Pod) bool {
	return p.Spec.NodeName != "" || p.Status.NominatedNodeName != ""
}

// sameNode reports whether two versions of a pod are bound and nominated
// to the same nodes.
func sameNode(a, b *v1.Pod) bool {
	return a.Spec.NodeName == b.Spec.NodeName && a.Status.NominatedNodeName == b.Status.NominatedNodeName
}

// prepare fills e for ev, taking assigned pods' anti-affinity terms from
// anti (nil: compile them). It does not allocate unless an assigned pod has
// required anti-affinity terms anti does not hold.
func prepare(e *prepared, ev *Event, lookupNS NamespaceLabels, anti *antiCache) {
	*e = prepared{kind: ev.Kind, lookupNS: lookupNS}
	switch ev.Kind {
	case AssignedPodAdd, AssignedPodUpdate, AssignedPodDelete:
		switch ev.Kind {
		case AssignedPodAdd:
			e.qn = ev.NewPod
			e.none = e.qn == nil
		case AssignedPodDelete:
			e.qo = ev.OldPod
			e.none = e.qo == nil
		default:
			e.qo, e.qn = ev.OldPod, ev.NewPod
			e.none = e.qo == nil || e.qn == nil
		}
		if e.none || (e.qo != nil && !scheduled(e.qo)) || (e.qn != nil && !scheduled(e.qn)) {
			e.none = true
			return
		}
		if e.qo != nil && e.qn != nil {
			e.labelsChanged = !maps.Equal(e.qo.Labels, e.qn.Labels)
			if !e.labelsChanged && sameNode(e.qo, e.qn) {
				// A status-only update, the most frequent kind: nothing a
				// term or a count reads has changed.
				e.none = true
				return
			}
		}
		q := e.qn
		if q == nil {
			q = e.qo
		}
		e.ns = q.Namespace
		e.nsHash = strHash(e.ns)
		e.nsLabels = e.labelsOf(e.ns)
		e.oldAnti = anti.compile(e.qo)
		e.newAnti = anti.compile(e.qn)
	case NodeAdd, NodeUpdate, NodeDelete:
		if ev.Kind != NodeAdd {
			e.oldNode = nodeLabels(ev.OldNode)
		}
		if ev.Kind != NodeDelete {
			e.newNode = nodeLabels(ev.NewNode)
		}
		if ev.Kind == NodeUpdate {
			e.taintsChanged = !equality.Semantic.DeepEqual(nodeTaints(ev.OldNode), nodeTaints(ev.NewNode))
		}
	case NamespaceUpdate:
		if ev.OldNamespace != nil {
			e.oldNS = ev.OldNamespace.Labels
		}
		if ev.NewNamespace != nil {
			e.newNS = ev.NewNamespace.Labels
		}
	default:
		e.none = true
	}
}

// nodeLabels returns a node's labels; nil (no labels) for a nil node.
func nodeLabels(n *v1.Node) map[string]string {
	if n == nil {
		return nil
	}
	return n.Labels
}

func nodeTaints(n *v1.Node) []v1.Taint {
	if n == nil {
		return nil
	}
	return n.Spec.Taints
}

// labelsOf returns the labels of namespace ns, nil when unknown.
func (e *prepared) labelsOf(ns string) map[string]string {
	if ns == e.ns && e.nsLabels != nil {
		return e.nsLabels
	}
	if e.lookupNS == nil {
		return nil
	}
	l, _ := e.lookupNS(ns)
	return l
}
