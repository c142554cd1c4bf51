package requeue

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
)

// Validate checks the tracker's invariants against the pod informer's
// store (see tracker): every pending pod of the store is indexed (served
// scheduler, its store object as the tag) or foreign (other scheduler),
// unless dirty; nothing else is indexed, foreign, relabelled or marked
// rejected. It is meant
// for tests, with the informer quiet.
func (t *Tracker) Validate() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	// The store's lock before marksMu: markDirty takes them in that order.
	pods, err := t.lister.List(labels.Everything())
	if err != nil {
		return fmt.Errorf("requeue: listing pods: %w", err)
	}
	t.marksMu.Lock()
	dirtyUIDs := make(map[types.UID]bool, len(t.dirty))
	for uid := range t.dirty {
		dirtyUIDs[uid] = true
	}
	t.marksMu.Unlock()
	var errs []error
	indexed := 0
	pendingUIDs := map[types.UID]bool{}
	for _, pod := range pods {
		if pending(pod) {
			pendingUIDs[pod.UID] = true
		}
		dirty := dirtyUIDs[pod.UID]
		p, inIndex := t.ix.Get(pod.UID)
		f, inForeign := t.foreign[pod.UID]
		_, relabelled := t.relabelled[pod.UID]
		if inIndex {
			indexed++
		}
		switch {
		case !pending(pod):
			if inIndex || inForeign || relabelled {
				errs = append(errs, fmt.Errorf("requeue: %s/%s is not pending but indexed %v, foreign %v, relabelled %v", pod.Namespace, pod.Name, inIndex, inForeign, relabelled))
			}
		case dirty:
		case inForeign:
			if inIndex {
				errs = append(errs, fmt.Errorf("requeue: %s/%s is both indexed and foreign", pod.Namespace, pod.Name))
			}
			if f.pod != pod {
				errs = append(errs, fmt.Errorf("requeue: foreign %s/%s is not the store's version", pod.Namespace, pod.Name))
			}
		case !t.served[pod.Spec.SchedulerName]:
			errs = append(errs, fmt.Errorf("requeue: %s/%s of scheduler %q is not foreign", pod.Namespace, pod.Name, pod.Spec.SchedulerName))
		case !inIndex:
			errs = append(errs, fmt.Errorf("requeue: pending %s/%s is not indexed", pod.Namespace, pod.Name))
		case p.Tag() != pod:
			errs = append(errs, fmt.Errorf("requeue: %s/%s is indexed in another version than the store's", pod.Namespace, pod.Name))
		}
	}
	if n := t.ix.Len(); n != indexed {
		errs = append(errs, fmt.Errorf("requeue: the index holds %d pods, %d of them in the store", n, indexed))
	}
	for uid := range t.relabelled {
		if _, ok := t.ix.Get(uid); !ok {
			errs = append(errs, fmt.Errorf("requeue: relabelled pod %s is not indexed", uid))
		}
	}
	t.rejectedMu.RLock()
	for uid := range t.rejected {
		if !pendingUIDs[uid] {
			errs = append(errs, fmt.Errorf("requeue: rejected pod %s is not a pending pod of the store", uid))
		}
	}
	t.rejectedMu.RUnlock()
	if err := t.ix.Validate(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
