package fuzz

import (
	"fmt"
	"sync"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/affinityq/affinityq/index"
)

// TestIndexConcurrent has writers add, replace and remove pending pods (each
// writer owns its UIDs) while readers look up events, under -race. When all
// have stopped, the index must answer exactly like a reference built from
// the final set of pods, and Validate must pass.
func TestIndexConcurrent(t *testing.T) {
	const writers, readers, opsPerWriter = 4, 3, 400
	ix := index.New[any](index.WithShards(3), index.WithPostingThreshold(2))
	final := make([]map[types.UID]*v1.Pod, writers)

	var wg sync.WaitGroup
	stop := make(chan struct{})
	for r := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g := &gen{data: seedBytes(1000+r, 1<<16)}
			var hits []index.Hit[any]
			for {
				select {
				case <-stop:
					return
				default:
				}
				q := g.assignedPod()
				hits = ix.AssignedPodUpdated(hits[:0], q, g.relabel(q))
				hits = ix.NodeAdded(hits, g.node())
				_ = ix.Len()
			}
		}()
	}
	var writersWG sync.WaitGroup
	for w := range writers {
		writersWG.Add(1)
		go func() {
			defer writersWG.Done()
			g := &gen{data: seedBytes(w, 1<<16)}
			mine := map[types.UID]*v1.Pod{}
			for range opsPerWriter {
				p := g.pendingPod()
				p.UID = types.UID(fmt.Sprintf("w%d-%s", w, p.UID))
				if g.chance(30) {
					ix.Remove(p.UID)
					delete(mine, p.UID)
					continue
				}
				if err := ix.Add(p); err != nil {
					t.Errorf("Add: %v", err)
					return
				}
				mine[p.UID] = p
			}
			final[w] = mine
		}()
	}
	writersWG.Wait()
	close(stop)
	wg.Wait()

	if err := ix.Validate(); err != nil {
		t.Fatalf("Validate after concurrent use: %v", err)
	}
	ref := NewReference(nil)
	for _, m := range final {
		for _, p := range m {
			ref.Add(p)
		}
	}
	if ix.Len() != ref.Len() {
		t.Fatalf("Len = %d, want %d", ix.Len(), ref.Len())
	}
	w := &world{t: t, ix: ix, ref: ref, nsLabels: map[string]map[string]string{}, byUID: map[types.UID]*v1.Pod{}}
	for _, m := range final {
		for uid, p := range m {
			w.byUID[uid] = p
		}
	}
	g := &gen{data: seedBytes(99, 1<<14)}
	for range 300 {
		q := g.assignedPod()
		w.check("assigned pod added", &index.Event{Kind: index.AssignedPodAdd, NewPod: q}, ref.AssignedPodAdded(q))
		n := g.relabel(q)
		w.check("assigned pod updated", &index.Event{Kind: index.AssignedPodUpdate, OldPod: q, NewPod: n}, ref.AssignedPodUpdated(q, n))
		nd := g.node()
		w.check("node added", &index.Event{Kind: index.NodeAdd, NewNode: nd}, ref.NodeAdded(nd))
	}
}

// seedBytes returns n deterministic pseudo-random bytes (xorshift).
func seedBytes(seed, n int) []byte {
	data := make([]byte, n)
	x := uint32(seed)*2654435761 + 1
	for i := range data {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		data[i] = byte(x)
	}
	return data
}
