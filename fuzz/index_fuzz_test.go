package fuzz

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/affinityq/affinityq/index"
	"github.com/affinityq/affinityq/internal/hintcases"
)

// world is what FuzzIndex drives: the index under test and the reference,
// fed the same pending pods, namespaces, nodes and assigned pods.
type world struct {
	t   testing.TB
	ix  *index.Index[any]
	ref *Reference
	// other is a second index, for copy-on-share: a pod is compiled in it,
	// beside a peer of the same source, and the Pending, whose rules are
	// other's, is inserted into ix.
	other    *index.Index[any]
	peers    []types.UID // the pods indexed in other, oldest first
	nsLabels map[string]map[string]string
	// live are the pods indexed in ix, the objects given to it, in the
	// order they were last indexed; byUID finds them; tags holds the tag
	// each one's hits carry (absent: none).
	live  []member
	byUID map[types.UID]*v1.Pod
	tags  map[types.UID]any
	left  []departure // replicas relabelled out of their group, still indexed as relabelled
	// held are Pendings compiled by ix and not inserted yet: their rules
	// may be a group that loses its last member, or gains others, before
	// they are.
	held     []*index.Pending[any]
	assigned []*v1.Pod
	nodes    []*v1.Node
	hits     []index.Hit[any]
	seq      int // for replica UIDs and tags
}

// departure is a replica relabelled out of its group: the object indexed
// now, and the one it had in the group.
type departure struct{ now, was *v1.Pod }

// maxLive bounds the pods indexed in a world: the generator's 12 UIDs and
// replicas.
const maxLive = 16

// maxPeers bounds the pods indexed in a world's other index, maxHeld the
// Pendings it holds.
const maxPeers, maxHeld = 4, 4

func newWorld(t testing.TB, shards, threshold int) *world {
	w := &world{t: t, nsLabels: map[string]map[string]string{}, byUID: map[types.UID]*v1.Pod{}, tags: map[types.UID]any{}}
	lookup := func(ns string) (map[string]string, bool) {
		l, ok := w.nsLabels[ns]
		return l, ok
	}
	w.ix = index.New[any](index.WithShards(shards), index.WithPostingThreshold(threshold), index.WithNamespaceLabels(lookup))
	w.other = index.New[any](index.WithShards(1+shards%3), index.WithPostingThreshold(threshold), index.WithNamespaceLabels(lookup))
	w.ref = NewReference(lookup)
	return w
}

func toEffects(hits []index.Hit[any]) map[types.UID]Effect {
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
	for _, h := range w.hits {
		if p := w.byUID[h.Pod.UID]; h.Pod != p || h.Tag != w.tags[h.Pod.UID] {
			w.t.Fatalf("%s: hit %s has pod %p, tag %v; the pod indexed is %p, tag %v", what, h.Pod.UID, h.Pod, h.Tag, p, w.tags[h.Pod.UID])
		}
	}
	for uid, e := range want {
		if e.Transition&^e.Relation != 0 {
			w.t.Fatalf("%s: pod %s: Transition %v not within Relation %v", what, uid, e.Transition, e.Relation)
		}
	}
	// LookupWhere returns the hits its filter keeps, whole: here those with
	// a Transition rule, or a Relation rule of one plugin (picked by the
	// number of hits, so that both are).
	only := []index.RuleSet{index.InterPodAffinity, index.PodTopologySpread}[len(w.hits)%2]
	keep := func(relation, transition index.RuleSet) bool { return transition != 0 || relation&only != 0 }
	w.hits = w.ix.LookupWhere(w.hits[:0], ev, keep)
	kept := map[types.UID]Effect{}
	for uid, e := range want {
		if keep(index.RuleSet(e.Relation), index.RuleSet(e.Transition)) {
			kept[uid] = e
		}
	}
	if diff := cmp.Diff(kept, toEffects(w.hits)); diff != "" {
		w.t.Fatalf("%s: LookupWhere's hits differ from the reference's kept ones (-reference +index):\n%s\nevent: %s", what, diff, describe(ev))
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
	switch op := g.intn(21); op {
	case 0, 1, 2:
		w.index(g, g.pendingPod())
	case 3:
		w.remove(types.UID(fmt.Sprintf("p%d", g.intn(12))))
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
	case 12, 13: // a replica joins: an indexed pod's spec under a new UID
		if len(w.live) == 0 || len(w.live) >= maxLive {
			return
		}
		src := w.live[g.intn(len(w.live))].pod
		w.index(g, replicaOf(src, w.newUID()))
	case 14: // a group's founder leaves while replicas remain
		groups := w.groups(func(n int) bool { return n >= 2 })
		if len(groups) == 0 {
			return
		}
		grp := pick(g, groups)
		w.remove(grp[0].UID)
		if g.chance(50) && len(w.live) < maxLive {
			// The next replica finds the group through its new representative.
			w.index(g, replicaOf(grp[1], w.newUID()))
		}
	case 15: // a group's last member leaves and comes back
		groups := w.groups(func(n int) bool { return n == 1 })
		if len(groups) == 0 {
			return
		}
		w.revive(g, pick(g, groups)[0])
	case 16: // a replica's labels change: it leaves its group
		var replicas []*v1.Pod
		for _, grp := range w.groups(func(n int) bool { return n >= 2 }) {
			replicas = append(replicas, grp...)
		}
		if len(replicas) == 0 {
			return
		}
		p := pick(g, replicas)
		n := g.relabelOut(p)
		w.index(g, n)
		w.left = append(w.left, departure{now: n, was: p})
	case 17: // a replica that left its group gets the group's labels back
		if len(w.left) == 0 {
			return
		}
		d := pick(g, w.left)
		n := d.now.DeepCopy()
		n.Labels = maps.Clone(d.was.Labels)
		w.index(g, n)
	case 18: // a pod whose source hashes like an indexed pod's but differs
		if len(w.live) == 0 || len(w.live) >= maxLive {
			return
		}
		if c, ok := g.collider(w.live[g.intn(len(w.live))].pod, w.newUID()); ok {
			w.index(g, c)
		}
	case 19: // compile a replica or a new pod now, insert it later (as a queue does)
		if len(w.held) >= maxHeld {
			return
		}
		var p *v1.Pod
		if len(w.live) > 0 && g.chance(70) {
			p = replicaOf(w.live[g.intn(len(w.live))].pod, w.newUID())
		} else {
			p = g.pendingPod()
		}
		w.held = append(w.held, w.compile(w.ix, p))
	case 20:
		if len(w.held) == 0 || len(w.live) >= maxLive {
			return
		}
		i := g.intn(len(w.held))
		pe := w.held[i]
		w.held = slices.Delete(w.held, i, i+1)
		var tag any
		if g.chance(50) {
			tag = w.newTag()
		}
		w.inserted(pe.Pod(), w.ix.InsertWithTag(pe, tag), tag)
	}
}

// groups returns the groups of the indexed pods (groupsOf) whose size ok
// accepts.
func (w *world) groups(ok func(n int) bool) [][]*v1.Pod {
	return groupsOf(w.live, ok)
}

func (w *world) newUID() types.UID {
	w.seq++
	return types.UID(fmt.Sprintf("r%d", w.seq))
}

func (w *world) newTag() any {
	w.seq++
	return fmt.Sprintf("tag%d", w.seq)
}

// index indexes p in ix and the reference, replacing the pod of the same
// UID, by one of the ways an embedder can: Add; ix.Compile (which gives a
// pod the rules of an indexed pod of the same source) then Insert,
// possibly of a tagged copy, or InsertWithTag; the package's Compile then
// Insert; or copy-on-share (share).
func (w *world) index(g *gen, p *v1.Pod) {
	w.t.Helper()
	var kept *index.Pending[any]
	var tag any
	switch g.intn(6) {
	case 0, 1:
		if err := w.ix.Add(p); err != nil {
			w.t.Fatalf("Add(%s): %v", p.UID, err)
		}
	case 2:
		pe := w.compile(w.ix, p)
		if g.chance(50) {
			tag = w.newTag()
			pe = pe.WithTag(tag)
		}
		kept = w.ix.Insert(pe)
	case 3:
		tag = w.newTag()
		kept = w.ix.InsertWithTag(w.compile(w.ix, p), tag)
	case 4:
		pe, err := index.Compile[any](p)
		if err != nil {
			w.t.Fatalf("Compile(%s): %v", p.UID, err)
		}
		kept = w.ix.Insert(pe)
	default:
		kept = w.share(g, p)
	}
	w.inserted(p, kept, tag)
}

func (w *world) compile(ix *index.Index[any], p *v1.Pod) *index.Pending[any] {
	w.t.Helper()
	pe, err := ix.Compile(p)
	if err != nil {
		w.t.Fatalf("Index.Compile(%s): %v", p.UID, err)
	}
	if pe.Pod() != p || pe.Tag() != nil {
		w.t.Fatalf("Index.Compile(%s) = pod %p, tag %v; want %p, no tag", p.UID, pe.Pod(), pe.Tag(), p)
	}
	return pe
}

// share compiles p in other, where a peer (a replica of p) is indexed, so
// that the Pending carries the rules of other's group, and inserts it into
// ix. Other's group is dropped before the insert, or after it, or kept
// and joined by p as well, so that it grows after ix took its rules.
func (w *world) share(g *gen, p *v1.Pod) *index.Pending[any] {
	w.t.Helper()
	peer := replicaOf(p, "peer-"+p.UID)
	if err := w.other.Add(peer); err != nil {
		w.t.Fatalf("other.Add(%s): %v", peer.UID, err)
	}
	w.peerIndexed(peer.UID)
	pe := w.compile(w.other, p)
	var kept *index.Pending[any]
	switch g.intn(3) {
	case 0:
		w.dropPeer(peer.UID)
		kept = w.ix.Insert(pe)
	case 1:
		kept = w.ix.Insert(pe)
		w.dropPeer(peer.UID)
	default:
		kept = w.ix.Insert(pe)
		w.other.Insert(pe)
		w.peerIndexed(p.UID)
	}
	for len(w.peers) > maxPeers {
		w.dropPeer(w.peers[0])
	}
	if err := w.other.Validate(); err != nil {
		w.t.Fatalf("after sharing %s: other index: Validate: %v", p.UID, err)
	}
	return kept
}

func (w *world) peerIndexed(uid types.UID) {
	if !slices.Contains(w.peers, uid) {
		w.peers = append(w.peers, uid)
	}
}

func (w *world) dropPeer(uid types.UID) {
	w.other.Remove(uid)
	w.peers = slices.DeleteFunc(w.peers, func(u types.UID) bool { return u == uid })
}

// inserted checks what ix keeps for p, just indexed with tag (kept is what
// Insert returned, nil after Add), adds p to the reference, and validates.
func (w *world) inserted(p *v1.Pod, kept *index.Pending[any], tag any) {
	w.t.Helper()
	got, ok := w.ix.Get(p.UID)
	if !ok || got.Pod() != p || got.Tag() != tag || (kept != nil && got != kept) {
		w.t.Fatalf("after indexing %s (tag %v): Get = %v, pod %p, tag %v; want pod %p, the Pending Insert returned", p.UID, tag, ok, got.Pod(), got.Tag(), p)
	}
	w.ref.Add(p)
	w.track(p, tag)
	w.validate("index " + string(p.UID))
}

// add indexes p with Add in ix and the reference, without validating.
func (w *world) add(p *v1.Pod) {
	w.t.Helper()
	if err := w.ix.Add(p); err != nil {
		w.t.Fatalf("Add(%s): %v", p.UID, err)
	}
	w.ref.Add(p)
	w.track(p, nil)
}

// track records p, indexed with tag, in place of the pod of its UID.
func (w *world) track(p *v1.Pod, tag any) {
	w.untrack(p.UID)
	w.live = append(w.live, newMember(p))
	w.byUID[p.UID] = p
	if tag != nil {
		w.tags[p.UID] = tag
	}
}

func (w *world) untrack(uid types.UID) {
	if _, ok := w.byUID[uid]; !ok {
		return
	}
	w.live = slices.DeleteFunc(w.live, func(m member) bool { return m.pod.UID == uid })
	w.left = slices.DeleteFunc(w.left, func(d departure) bool { return d.now.UID == uid })
	delete(w.byUID, uid)
	delete(w.tags, uid)
}

func (w *world) remove(uid types.UID) {
	w.t.Helper()
	if got, want := w.ix.Remove(uid), w.ref.Remove(uid); got != want {
		w.t.Fatalf("Remove(%s) = %v, reference %v", uid, got, want)
	}
	w.untrack(uid)
	w.validate("remove " + string(uid))
}

// revive removes p, the last member of its group, so that the group is
// dropped, and indexes it again: the Pending ix kept for it (whose rules
// are the dropped group's), a Pending compiled before the removal (that
// had the group's rules, then live), a fresh one, or, under a new UID, a
// replica compiled before the removal. Between the two, an assigned-pod
// event may check that the dropped group answers for no one.
func (w *world) revive(g *gen, p *v1.Pod) {
	w.t.Helper()
	uid := p.UID
	switch g.intn(4) {
	case 0:
		kept, _ := w.ix.Get(uid)
		tag := w.tags[uid]
		w.remove(uid)
		w.probe(g)
		w.inserted(p, w.ix.Insert(kept), tag)
	case 1:
		pe := w.compile(w.ix, p)
		w.remove(uid)
		w.probe(g)
		w.inserted(p, w.ix.Insert(pe), nil)
	case 2:
		w.remove(uid)
		w.probe(g)
		w.index(g, p)
	default:
		r := replicaOf(p, w.newUID())
		pe := w.compile(w.ix, r)
		w.remove(uid)
		w.probe(g)
		w.inserted(r, w.ix.Insert(pe), nil)
	}
}

// probe checks, half of the time, the addition of a generated assigned pod
// that is not kept.
func (w *world) probe(g *gen) {
	w.t.Helper()
	if !g.chance(50) {
		return
	}
	q := g.assignedPod()
	w.check("probe "+q.Name, &index.Event{Kind: index.AssignedPodAdd, NewPod: q}, w.ref.AssignedPodAdded(q))
}

// seed indexes the pending pod of hint case c, through one of the ways
// of index, and checks c's event: the reference must answer as the case
// says (the world holds no other pod yet) and the index as the reference.
// The event's objects stay in the world for the steps that follow.
func (w *world) seed(g *gen, c hintcases.Case) {
	w.t.Helper()
	w.index(g, c.Pending)
	ev := &c.Event
	if ev.Kind == index.NamespaceUpdate && ev.NewNamespace != nil {
		w.nsLabels[ev.NewNamespace.Name] = ev.NewNamespace.Labels
	}
	want := w.ref.Event(ev)
	if e, n := want[c.Pending.UID], len(want); e != (Effect{Relation: RuleSet(c.Relation), Transition: RuleSet(c.Transition)}) || n > 1 {
		w.t.Fatalf("hint case %q: the reference answers %v, want %s: Relation %v, Transition %v", c.Name, want, c.Pending.UID, c.Relation, c.Transition)
	}
	w.check("hint case "+c.Name, ev, want)
	switch ev.Kind {
	case index.AssignedPodAdd, index.AssignedPodUpdate:
		w.assigned = append(w.assigned, ev.NewPod)
	case index.NodeAdd, index.NodeUpdate:
		w.nodes = append(w.nodes, ev.NewNode)
	}
}

// seedCase returns the hint case a fuzz seed selects: case seed-1, modulo
// one more than the number of cases; false for none.
func seedCase(seed uint16) (hintcases.Case, bool) {
	cases := hintcases.Cases()
	i := int(seed) % (len(cases) + 1)
	if i == 0 {
		return hintcases.Case{}, false
	}
	return cases[i-1], true
}

// runIndex is FuzzIndex's body: the first byte of data picks the shard
// count and posting threshold; then the hint case seed selects, if any, is
// indexed and its event checked; then data drives steps until it runs out.
func runIndex(t testing.TB, seed uint16, data []byte) {
	t.Helper()
	g := &gen{data: data}
	cfg := g.byte()
	w := newWorld(t, 1+int(cfg%4), []int{0, 1, 2, 64}[int(cfg/4)%4])
	if c, ok := seedCase(seed); ok {
		w.seed(g, c)
	}
	for !g.done() {
		w.step(g)
	}
}

// indexByteSeeds are FuzzIndex's seed inputs besides the hint cases.
var indexByteSeeds = [][]byte{
	nil,
	[]byte("\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b"),
	[]byte("\x03" + "\x00\x10\x20\x30\x40\x50\x60\x70\x80\x90\xa0\xb0\xc0\xd0\xe0\xf0" + "\x04\x04\x05\x07\x08\x09\x0a\x0b"),
	[]byte("\x01\x00\x00\x05\x01\x02\x03\x04\x05\x06\x07\x08\x09\x00\x00\x00\x04\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c"),
	// p0, with affinity to its own labels, then replicas of it by every
	// way of indexing, its founder removed (a replica joining after),
	// a replica relabelled out, an assigned pod, the replica relabelled
	// back, a replica compiled and inserted later, and a node.
	[]byte("\x05" +
		"\x00\x00\x01\x01\x00\x00\x50\x01\x02\x00\x00\x00\x00\x63\x00\x05\x63\x63\x00\x63\x00\x00" +
		"\x0c\x00\x02\x00" + "\x0c\x00\x03" + "\x0d\x00\x04" + "\x0c\x00\x05\x02" +
		"\x0e\x00\x00\x01" + "\x10\x01\x01\x01\x00" + "\x04\x01\x01\x00\x00\x05\x63" +
		"\x11\x00\x02\x63" + "\x05\x00\x02\x63" + "\x13\x00\x00" + "\x07\x00" + "\x14\x00\x00" +
		"\x08\x00\x00\x00\x01\x63\x63"),
}

// FuzzIndex drives the index and the naive reference through the same
// random sequence of pending-pod adds, replacements and removes, replicas
// and their groups' lifecycle, and assigned-pod, node and namespace events;
// after every event their answers must be equal as sets, per rule set and
// policy, every hit must carry the indexed object and its tag, and after
// every mutation Validate must pass. The first byte picks the shard count
// and posting threshold, so the slice and bitmap representations and
// several shards are all exercised. The seed selects a hint case
// (internal/hintcases) to start from: its pod indexed, its event checked.
func FuzzIndex(f *testing.F) {
	for _, data := range indexByteSeeds {
		f.Add(uint16(0), data)
	}
	for i := range hintcases.Cases() {
		f.Add(uint16(i+1), indexByteSeeds[i%len(indexByteSeeds)])
	}
	f.Fuzz(func(t *testing.T, seed uint16, data []byte) {
		runIndex(t, seed, bounded(data))
	})
}

// TestIndexAgainstReferenceLong runs long deterministic sequences, each
// from a hint case or none, so that plain `go test` exercises the
// differential check too, not only the seeds.
func TestIndexAgainstReferenceLong(t *testing.T) {
	for seed := range 48 {
		data := seedBytes(seed, 3000)
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			runIndex(t, uint16(seed), data)
		})
	}
}

// TestIndexSeeds runs FuzzIndex's seeds, so that they are checked without
// -fuzz too, hint cases with every byte seed.
func TestIndexSeeds(t *testing.T) {
	for seed := range len(hintcases.Cases()) + 1 {
		for i, data := range indexByteSeeds {
			t.Run(fmt.Sprintf("case=%d/data=%d", seed, i), func(t *testing.T) {
				runIndex(t, uint16(seed), data)
			})
		}
	}
}
