package feed

import (
	"errors"
	"fmt"
	"sync"

	v1 "k8s.io/api/core/v1"

	"github.com/affinityq/affinityq/index"
	"github.com/affinityq/affinityq/queue"
)

// Sink receives what the informers deliver. *queue.Queue implements it;
// IndexSink adapts an *index.Index[T]. Its methods are called from several
// goroutines at once.
type Sink interface {
	// Add, Update and Delete concern pending pods of the served schedulers.
	Add(pod *v1.Pod) error
	Update(oldPod, newPod *v1.Pod) error
	Delete(pod *v1.Pod)

	AssignedPodAdded(pod *v1.Pod)
	AssignedPodUpdated(oldPod, newPod *v1.Pod)
	AssignedPodDeleted(pod *v1.Pod)

	NodeAdded(node *v1.Node)
	NodeUpdated(oldNode, newNode *v1.Node)
	NodeDeleted(node *v1.Node)

	// NamespaceUpdated is called with oldNS nil for an added namespace and
	// newNS nil for a deleted one.
	NamespaceUpdated(oldNS, newNS *v1.Namespace)
}

// IndexSink is a Sink that keeps an index.Index's pending pods current and
// hands the hits of every event to a callback. It is safe for concurrent
// use; callbacks are serialised.
type IndexSink[T any] struct {
	ix     *index.Index[T]
	onHits func(ev *index.Event, hits []index.Hit[T])

	mu  sync.Mutex     // serialises callbacks; protects buf
	buf []index.Hit[T] // lookup buffer, reused
}

// NewIndexSink returns a Sink that adds the served pending pods to ix and
// removes them when they are bound or deleted. For every assigned-pod, node
// and namespace event it looks the event up in ix and calls onHits with the
// hits (possibly none); onHits may be nil when only the index's contents
// matter. The hits slice is reused after onHits returns. The namespace
// labels the index needs come from the function given to
// index.WithNamespaceLabels (see NamespaceLabels), not from this sink.
func NewIndexSink[T any](ix *index.Index[T], onHits func(ev *index.Event, hits []index.Hit[T])) *IndexSink[T] {
	if ix == nil {
		panic("feed: NewIndexSink with a nil index")
	}
	return &IndexSink[T]{ix: ix, onHits: onHits}
}

// Add indexes pod; it fails for a nil pod, a pod without UID or absurd
// input (see index.Compile).
func (s *IndexSink[T]) Add(pod *v1.Pod) error {
	if err := s.ix.Add(pod); err != nil {
		return fmt.Errorf("feed: %w", err)
	}
	return nil
}

// Update replaces oldPod's entry with newPod's.
func (s *IndexSink[T]) Update(oldPod, newPod *v1.Pod) error {
	if newPod == nil {
		return errors.New("feed: update to a nil pod")
	}
	if oldPod != nil && oldPod.UID != newPod.UID {
		s.ix.Remove(oldPod.UID)
	}
	return s.Add(newPod)
}

// Delete removes pod's entry; a nil or unknown pod is ignored.
func (s *IndexSink[T]) Delete(pod *v1.Pod) {
	if pod != nil {
		s.ix.Remove(pod.UID)
	}
}

// AssignedPodAdded looks the event up.
func (s *IndexSink[T]) AssignedPodAdded(pod *v1.Pod) {
	s.lookup(&index.Event{Kind: index.AssignedPodAdd, NewPod: pod})
}

// AssignedPodUpdated looks the event up.
func (s *IndexSink[T]) AssignedPodUpdated(oldPod, newPod *v1.Pod) {
	s.lookup(&index.Event{Kind: index.AssignedPodUpdate, OldPod: oldPod, NewPod: newPod})
}

// AssignedPodDeleted looks the event up.
func (s *IndexSink[T]) AssignedPodDeleted(pod *v1.Pod) {
	s.lookup(&index.Event{Kind: index.AssignedPodDelete, OldPod: pod})
}

// NodeAdded looks the event up.
func (s *IndexSink[T]) NodeAdded(node *v1.Node) {
	s.lookup(&index.Event{Kind: index.NodeAdd, NewNode: node})
}

// NodeUpdated looks the event up.
func (s *IndexSink[T]) NodeUpdated(oldNode, newNode *v1.Node) {
	s.lookup(&index.Event{Kind: index.NodeUpdate, OldNode: oldNode, NewNode: newNode})
}

// NodeDeleted looks the event up.
func (s *IndexSink[T]) NodeDeleted(node *v1.Node) {
	s.lookup(&index.Event{Kind: index.NodeDelete, OldNode: node})
}

// NamespaceUpdated looks the event up.
func (s *IndexSink[T]) NamespaceUpdated(oldNS, newNS *v1.Namespace) {
	s.lookup(&index.Event{Kind: index.NamespaceUpdate, OldNamespace: oldNS, NewNamespace: newNS})
}

// maxKeptHits bounds the lookup buffer kept between events.
const maxKeptHits = 1 << 12

func (s *IndexSink[T]) lookup(ev *index.Event) {
	if s.onHits == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	hits := s.ix.Lookup(s.buf[:0], ev)
	s.onHits(ev, hits)
	clear(hits)
	if cap(hits) > maxKeptHits {
		hits = nil
	}
	s.buf = hits[:0]
}

var (
	_ Sink = (*queue.Queue)(nil)
	_ Sink = (*IndexSink[struct{}])(nil)
)
