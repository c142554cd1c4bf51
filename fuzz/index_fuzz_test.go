package fuzz

import (
	"fmt"
	"maps"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/affinityq/affinityq/index"
)

// world is what FuzzIndex drives: the index under test and the reference,
// fed the same pending pods, namespaces, nodes and assigned pods.
type world struct {
	t        *testing.T
	ix       *index.Index
	ref      *Reference
	nsLabels map[string]map[string]string
	assigned []*v1.Pod
	nodes    []*v1.Node
	hits     []index.Hit
}

func newWorld(t *testing.T, shards, threshold int) *world {
	w := &world{t: t, nsLabels: map[string]map[string]string{}}
	lookup := func(ns string) (map[string]string, bool) {
		l, ok := w.nsLabels[ns]
		return l, ok
	}
	w.ix = index.New(index.WithShards(shards), index.WithPostingThreshold(threshold), index.WithNamespaceLabels(lookup))
	w.ref = NewReference(lookup)
	return w
}

func toEffects(hits []index.Hit) map[types.UID]Effect {
	m := map[types.UID]Effect{}
	for _, h := range hits {
		if _, dup := m[h.Pod.UID]; dup {
			m["DUPLICATE "+h.Pod.UID] = Effect{}
		}
		m[h.Pod.UID] = Effect{Relation: RuleSet(h.Relation), Transition: RuleSet(h.Transition)}
	}
	return m
}

// check compares one event's answers and the index's invariants.
func (w *world) check(what string, ev *index.Event, want map[types.UID]Effect) {
	w.t.Helper()
	w.hits = w.ix.Lookup(w.hits[:0], ev)
	got := toEffects(w.hits)
	if diff := cmp.Diff(want, got); diff != "" {
		w.t.Fatalf("%s: hits differ from the reference (-reference +index):\n%s\nevent: %s\npods that differ:\n%s", what, diff, describe(ev), w.dump(want, got))
	}
	for uid, e := range want {
		if e.Transition&^e.Relation != 0 {
			w.t.Fatalf("%s: pod %s: Transition %v not within Relation %v", what, uid, e.Transition, e.Relation)
		}
	}
}

func (w *world) validate(what string) {
	w.t.Helper()
	if err := w.ix.Validate(); err != nil {
		w.t.Fatalf("after %s: Validate: %v", what, err)
	}
	if w.ix.Len() != w.ref.Len() {
		w.t.Fatalf("after %s: Len = %d, reference has %d", what, w.ix.Len(), w.ref.Len())
	}
}

// dump describes the pending pods on which want and got disagree.
func (w *world) dump(want, got map[types.UID]Effect) string {
	s := ""
	for _, p := range w.ref.Pods() {
		if want[p.UID] == got[p.UID] {
			continue
		}
		s += fmt.Sprintf("  %s ns=%s labels=%v\n    affinity=%s\n    spread=%s\n", p.UID, p.Namespace, p.Labels, p.Spec.Affinity.String(), fmt.Sprint(p.Spec.TopologySpreadConstraints))
	}
	s += fmt.Sprintf("  namespace labels: %v\n", w.nsLabels)
	return s
}

func describe(ev *index.Event) string {
	s := ev.Kind.String()
	for _, p := range []*v1.Pod{ev.OldPod, ev.NewPod} {
		if p != nil {
			s += fmt.Sprintf(" pod{ns=%s labels=%v node=%q nominated=%q affinity=%s}", p.Namespace, p.Labels, p.Spec.NodeName, p.Status.NominatedNodeName, p.Spec.Affinity.String())
		}
	}
	for _, n := range []*v1.Node{ev.OldNode, ev.NewNode} {
		if n != nil {
			s += fmt.Sprintf(" node{labels=%v taints=%v}", n.Labels, n.Spec.Taints)
		}
	}
	for _, n := range []*v1.Namespace{ev.OldNamespace, ev.NewNamespace} {
		if n != nil {
			s += fmt.Sprintf(" namespace{%s labels=%v}", n.Name, n.Labels)
		}
	}
	return s
}

// step applies one generated operation.
func (w *world) step(g *gen) {
	switch op := g.intn(12); op {
	case 0, 1, 2:
		p := g.pendingPod()
		if err := w.ix.Add(p); err != nil {
			w.t.Fatalf("Add(%s): %v", p.UID, err)
		}
		w.ref.Add(p)
		w.validate("add " + string(p.UID))
	case 3:
		uid := types.UID(fmt.Sprintf("p%d", g.intn(12)))
		if got, want := w.ix.Remove(uid), w.ref.Remove(uid); got != want {
			w.t.Fatalf("Remove(%s) = %v, reference %v", uid, got, want)
		}
		w.validate("remove " + string(uid))
	case 4:
		q := g.assignedPod()
		w.assigned = append(w.assigned, q)
		w.check("assigned pod added "+q.Name, &index.Event{Kind: index.AssignedPodAdd, NewPod: q}, w.ref.AssignedPodAdded(q))
	case 5, 6:
		if len(w.assigned) == 0 {
			return
		}
		i := g.intn(len(w.assigned))
		old := w.assigned[i]
		n := g.relabel(old)
		if g.chance(10) {
			n.Spec.NodeName, n.Status.NominatedNodeName = "", ""
		}
		w.assigned[i] = n
		w.check("assigned pod updated "+n.Name, &index.Event{Kind: index.AssignedPodUpdate, OldPod: old, NewPod: n}, w.ref.AssignedPodUpdated(old, n))
	case 7:
		if len(w.assigned) == 0 {
			return
		}
		i := g.intn(len(w.assigned))
		q := w.assigned[i]
		w.assigned = append(w.assigned[:i], w.assigned[i+1:]...)
		w.check("assigned pod deleted "+q.Name, &index.Event{Kind: index.AssignedPodDelete, OldPod: q}, w.ref.AssignedPodDeleted(q))
	case 8:
		n := g.node()
		w.nodes = append(w.nodes, n)
		w.check("node added", &index.Event{Kind: index.NodeAdd, NewNode: n}, w.ref.NodeAdded(n))
	case 9:
		if len(w.nodes) == 0 {
			return
		}
		i := g.intn(len(w.nodes))
		old := w.nodes[i]
		n := g.nodeUpdate(old)
		w.nodes[i] = n
		w.check("node updated", &index.Event{Kind: index.NodeUpdate, OldNode: old, NewNode: n}, w.ref.NodeUpdated(old, n))
	case 10:
		if len(w.nodes) == 0 {
			return
		}
		i := g.intn(len(w.nodes))
		n := w.nodes[i]
		w.nodes = append(w.nodes[:i], w.nodes[i+1:]...)
		w.check("node deleted", &index.Event{Kind: index.NodeDelete, OldNode: n}, w.ref.NodeDeleted(n))
	case 11:
		name := pick(g, genNamespaces)
		oldLabels := w.nsLabels[name]
		newLabels := g.namespaceLabels()
		w.nsLabels[name] = newLabels
		oldNS := &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: maps.Clone(oldLabels)}}
		newNS := &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: newLabels}}
		w.check("namespace updated "+name, &index.Event{Kind: index.NamespaceUpdate, OldNamespace: oldNS, NewNamespace: newNS}, w.ref.NamespaceUpdated(oldNS, newNS))
	}
}

// FuzzIndex drives the index and the naive reference through the same
// random sequence of pending-pod adds, replacements and removes, assigned-pod,
// node and namespace events; after every event their answers must be equal
// as sets, per rule set and policy, and after every mutation Validate must
// pass. The first byte picks the shard count and posting threshold, so the
// slice and bitmap representations and several shards are all exercised.
func FuzzIndex(f *testing.F) {
	for _, seed := range [][]byte{
		nil,
		[]byte("\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b"),
		[]byte("\x03" + "\x00\x10\x20\x30\x40\x50\x60\x70\x80\x90\xa0\xb0\xc0\xd0\xe0\xf0" + "\x04\x04\x05\x07\x08\x09\x0a\x0b"),
		[]byte("\x01\x00\x00\x05\x01\x02\x03\x04\x05\x06\x07\x08\x09\x00\x00\x00\x04\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c"),
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		g := &gen{data: data}
		cfg := g.byte()
		w := newWorld(t, 1+int(cfg%4), []int{0, 1, 2, 64}[int(cfg/4)%4])
		for steps := 0; !g.done() && steps < 200; steps++ {
			w.step(g)
		}
	})
}

// TestIndexAgainstReferenceLong runs long deterministic sequences so that
// plain `go test` exercises the differential check too, not only the seeds.
func TestIndexAgainstReferenceLong(t *testing.T) {
	for seed := range 40 {
		data := seedBytes(seed, 3000)
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			g := &gen{data: data}
			cfg := g.byte()
			w := newWorld(t, 1+int(cfg%4), []int{0, 1, 2, 64}[int(cfg/4)%4])
			for !g.done() {
				w.step(g)
			}
		})
	}
}
