package cycle

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/affinityq/affinityq/placed"
)

// View keeps a placed.Index equal to the scheduler's snapshot of
// nodes and the pods on them, assumed pods included, which no informer
// reports before they are bound. Each cycle's PreFilter (and PreScore)
// syncs it with the snapshot's node list: a NodeInfo whose position,
// pointer and generation are those of the last sync is unchanged (the
// snapshot keeps one NodeInfo per node and bumps its generation on every
// change but a pod group's assumed members, around whose cycles the pod
// lists are compared too, see walk and viewNode.current); any other has
// its node and pods diffed into the index. A node the list no longer
// holds is removed with its pods.
//
// Within one scheduling cycle the snapshot does not change (kube-scheduler
// updates it before PreFilter), so the first sync of a cycle marks the
// cycle's state (syncedKey) and the cycle's later PreFilter and PreScore
// calls, of both wrappers, find the index already equal to the snapshot
// unless another sync came between. A pod group's cycle is the exception:
// the group's members are assumed into the snapshot one after another, so
// its syncs always walk the node list.
//
// mu serialises syncs and the questions asked after them (ask): it is
// taken before the index's own lock, held only within the view's methods,
// and the only code they call under it is the index's and ask's
// question. A sync that fails (the index refused a pod) resets the view,
// so that the next sync rebuilds the index from the snapshot. mu also guards
// which topology (the nodes' values of the keys Filter reads) is the
// view's; a published topology is never changed, so Filter reads the one
// its cycle state holds without a lock.
type View struct {
	newIndex func() *placed.Index

	mu        sync.Mutex
	x         *placed.Index
	nodes     map[string]*viewNode
	podAt     map[types.UID]*viewNode // the node each pod of the index is on
	order     []listedNode            // the node list of the last sync, in order
	epoch     uint64                  // syncs; a node listed by the last has seen[slot] == epoch
	seen      []uint64                // by slot: the epoch of the last sync that listed the node
	strict    bool                    // the last sync was a pod group cycle's: the next compares pod lists
	reads     uint64                  // NodeInfos diffed into the index
	walks     uint64                  // node lists walked: syncs not answered by a cycle's mark
	nsChanges uint64                  // namespace events heard
	stats     time.Time               // when the gauges were last set

	topo      *topology   // the nodes' values of the keys Filter reads, as of the last sync
	slots     int32       // topology slots handed out
	freeSlots []int32     // slots of removed nodes, handed out again first
	changed   []*viewNode // the walk's nodes whose slot no longer holds their node object or values
}

// listedNode is an entry of the node list as of the last sync: the
// NodeInfo, its generation then, and its node's record and slot (nil and
// 0 for a NodeInfo without a node). A sync reads these in list order, so
// that an unchanged node costs one read of its NodeInfo's generation and
// none of the record.
type listedNode struct {
	info fwk.NodeInfo
	gen  int64
	node *viewNode
	slot int32
}

type viewNode struct {
	name  string
	info  fwk.NodeInfo
	gen   int64
	node  *v1.Node
	pods  map[types.UID]*v1.Pod
	infos []fwk.PodInfo // the NodeInfo's pods as of the last diff, in its order
	// slot is the node's slot in the view's topology, which holds
	// topoNode's values (slotted).
	slot     int32
	topoNode *v1.Node
}

// current reports whether n holds what ni does: the same NodeInfo at the
// same generation, with the pod list of the last diff. The list is
// compared by its length and last PodInfo because a pod group's cycle
// assumes its members into the snapshot, appending them to their nodes'
// lists, and forgets them in reverse, without changing the generation
// (Snapshot.AssumePod, ForgetPod); any other change bumps it.
func (n *viewNode) current(ni fwk.NodeInfo) bool {
	if n.info != ni || n.gen != ni.GetGeneration() {
		return false
	}
	pods := ni.GetPods()
	k := len(pods)
	return k == len(n.infos) && (k == 0 || pods[k-1] == n.infos[k-1])
}

func NewView(newIndex func() *placed.Index) *View {
	v := &View{newIndex: newIndex}
	v.reset()
	return v
}

// ViewOf returns a new view of h's snapshot. Its index reads namespace
// labels from h's informers and hears of their changes;
// taintComparisonOperators is the TaintTolerationComparisonOperators gate
// (placed.WithTaintComparisonOperators).
func ViewOf(h fwk.Handle, taintComparisonOperators bool) (*View, error) {
	nsInformer := h.SharedInformerFactory().Core().V1().Namespaces()
	nsLister := nsInformer.Lister()
	labels := func(name string) (map[string]string, bool) {
		ns, err := nsLister.Get(name)
		if err != nil {
			return nil, false
		}
		return ns.Labels, true
	}
	v := NewView(func() *placed.Index {
		return placed.New(placed.WithNamespaceLabels(labels), placed.WithTaintComparisonOperators(taintComparisonOperators))
	})
	changed := func(obj any) {
		if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = tomb.Obj
		}
		if ns, ok := obj.(*v1.Namespace); ok {
			v.NamespaceChanged(ns.Name)
		}
	}
	if _, err := nsInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    changed,
		UpdateFunc: func(_, obj any) { changed(obj) },
		DeleteFunc: changed,
	}); err != nil {
		return nil, fmt.Errorf("cycle: adding the namespace handler: %w", err)
	}
	return v, nil
}

// Walks returns how many node lists the view has walked: syncs not
// answered by a cycle's mark.
func (v *View) Walks() uint64 {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.walks
}

// NamespaceChanges returns how many namespace events the view has heard.
func (v *View) NamespaceChanges() uint64 {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.nsChanges
}

func (v *View) reset() {
	v.x = v.newIndex()
	v.nodes = map[string]*viewNode{}
	v.podAt = map[types.UID]*viewNode{}
	clear(v.order)
	v.order, v.seen = v.order[:0], v.seen[:0]
	t := &topology{slot: map[*v1.Node]int32{}}
	if v.topo != nil { // the keys asked for before are asked for again
		t.keys = v.topo.keys
		t.cols = make([][]nodeValue, len(t.keys))
		t.ids = make([]*valueIDs, len(t.keys))
		for i := range t.ids {
			t.ids[i] = newValueIDs()
		}
	}
	v.topo, v.slots, v.freeSlots = t, 0, nil
	v.clearChanged()
}

// clearChanged empties the walk's list of changed nodes, letting go of them.
func (v *View) clearChanged() {
	clear(v.changed)
	v.changed = v.changed[:0]
}

// syncedKey is the cycle state's mark of the view's sync in that cycle.
const syncedKey fwk.StateKey = "affinityq.io/synced"

// syncMark records that view was synced with list at epoch.
type syncMark struct {
	view  *View
	epoch uint64
	list  []fwk.NodeInfo
}

// Clone returns the mark itself: it is never changed.
func (m *syncMark) Clone() fwk.StateData { return m }

// current reports whether the view still holds what the mark's sync
// brought it to, list being the node list of the same cycle: no sync came
// between, and the list is the one synced (a placement narrows it).
func (m *syncMark) current(v *View, list []fwk.NodeInfo) bool {
	return m.view == v && m.epoch == v.epoch && len(m.list) == len(list) && (len(list) == 0 || &m.list[0] == &list[0])
}

// sync brings the index to the snapshot's node list, outside a pod group
// cycle.
func (v *View) sync(list []fwk.NodeInfo) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.walk(list, false)
}

// walk is sync with v.mu held; group says whether the cycle is a pod
// group's.
//
// A NodeInfo at the position, pointer and generation of the last sync is
// unchanged, except around a pod group cycle, whose members the snapshot
// assumes and forgets without changing generations: a walk within one,
// and the walk after one, compare the pod lists as well (viewNode.current).
func (v *View) walk(list []fwk.NodeInfo, group bool) error {
	v.epoch++
	v.walks++
	strict := v.strict || group
	v.strict = group
	same := len(list) == len(v.order)
	listed := 0 // the nodes of v.nodes this walk marks seen
	for i, ni := range list {
		if i < len(v.order) {
			if o := v.order[i]; o.node != nil && o.info == ni && o.gen == ni.GetGeneration() && (!strict || o.node.current(ni)) {
				listed += v.see(o.slot)
				continue
			}
		}
		same = false
		rec := listedNode{info: ni, gen: ni.GetGeneration()}
		if node := ni.Node(); node != nil { // the snapshot lists nodes with their objects
			n := v.nodes[node.Name]
			if n == nil {
				n = &viewNode{name: node.Name, pods: map[types.UID]*v1.Pod{}, slot: v.newSlot()}
				v.nodes[node.Name] = n
			}
			if !n.current(ni) {
				if err := v.apply(n, ni); err != nil {
					v.reset()
					return err
				}
			}
			if !n.slotted() {
				v.changed = append(v.changed, n)
			}
			listed += v.see(n.slot)
			rec.node, rec.slot = n, n.slot
		}
		if i < len(v.order) {
			v.order[i] = rec
		} else {
			v.order = append(v.order, rec)
		}
	}
	v.order = v.order[:len(list)]
	if now := time.Now(); now.Sub(v.stats) >= statsEvery {
		v.stats = now
		recordStats(v.x.Stats())
	}
	if same {
		return nil
	}
	var errs []error
	var gone []*viewNode
	for name, n := range v.nodes {
		if listed == len(v.nodes) { // the nodes left are the walk's: none of the rest is gone
			break
		}
		if v.seen[n.slot] == v.epoch {
			continue
		}
		gone = append(gone, n)
		for uid := range n.pods {
			if v.podAt[uid] == n {
				v.x.RemovePod(uid)
				delete(v.podAt, uid)
			}
		}
		if n.node != nil {
			errs = append(errs, v.x.RemoveNode(name))
		}
		delete(v.nodes, name)
	}
	if err := errors.Join(errs...); err != nil {
		v.reset()
		return err
	}
	v.republish(v.changed, gone)
	v.clearChanged()
	return nil
}

// see marks the node of slot seen by the current walk and returns 1, or 0
// if the walk has marked it already.
func (v *View) see(slot int32) int {
	if v.seen[slot] == v.epoch {
		return 0
	}
	v.seen[slot] = v.epoch
	return 1
}

// ask syncs the index with list, the node list of the cycle whose state
// is state, unless the cycle's mark says it is, and asks question of it
// under v.mu, which it releases before returning. It returns the index,
// which the cycle's state may keep for what reads no shared part of it
// (placed.Index.AffinityChange, SpreadChange); question is not called when
// the sync fails.
func (v *View) ask(state fwk.CycleState, list []fwk.NodeInfo, question func(*placed.Index)) (*placed.Index, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	// A pod group's cycle changes the snapshot between its members' cycles,
	// whose states may be clones of one: it always walks.
	m, err := readState[*syncMark](state, syncedKey)
	group := state.IsPodGroupSchedulingCycle()
	if err != nil || !m.current(v, list) || group {
		if err := v.walk(list, group); err != nil {
			return nil, err
		}
		state.Write(syncedKey, &syncMark{view: v, epoch: v.epoch, list: list})
	}
	question(v.x)
	return v.x, nil
}

// NamespaceChanged tells the index that a namespace's labels may have
// changed.
func (v *View) NamespaceChanged(ns string) {
	v.mu.Lock()
	v.x.NamespaceChanged(ns)
	v.nsChanges++
	v.mu.Unlock()
}

// apply diffs a changed NodeInfo into the index. The scheduler's cache
// gives every pod it adds or updates a new PodInfo, appended to the
// node's list, and removes one by moving the last into its slot; it never
// changes a PodInfo in place. So a pod changed only where the list differs
// from the last diff's, PodInfo by PodInfo, and the rest is not read: one
// pointer comparison per pod, however many pods the node holds.
func (v *View) apply(n *viewNode, ni fwk.NodeInfo) error {
	if node := ni.Node(); node != n.node {
		if err := v.x.SetNode(node); err != nil {
			return err
		}
		n.node = node
	}
	v.reads++
	cur := ni.GetPods()
	var gone, came []fwk.PodInfo
	for i := range max(len(cur), len(n.infos)) {
		var was, is fwk.PodInfo
		if i < len(n.infos) {
			was = n.infos[i]
		}
		if i < len(cur) {
			is = cur[i]
		}
		if was == is {
			continue
		}
		if was != nil {
			gone = append(gone, was)
		}
		if is != nil {
			came = append(came, is)
		}
	}
	if len(gone) > 0 && len(came) > 0 { // a PodInfo in both only moved
		inGone := make(map[fwk.PodInfo]bool, len(gone))
		for _, pi := range gone {
			inGone[pi] = true
		}
		inCame := make(map[fwk.PodInfo]bool, len(came))
		for _, pi := range came {
			inCame[pi] = true
		}
		gone = slices.DeleteFunc(gone, func(pi fwk.PodInfo) bool { return inCame[pi] })
		came = slices.DeleteFunc(came, func(pi fwk.PodInfo) bool { return inGone[pi] })
	}
	here := make(map[types.UID]bool, len(came))
	for _, pi := range came {
		p := pi.GetPod()
		if p.Spec.NodeName != n.name {
			return fmt.Errorf("cycle: pod %s/%s is on node %q but names %q", p.Namespace, p.Name, n.name, p.Spec.NodeName)
		}
		here[p.UID] = true
		old, had := n.pods[p.UID]
		at := v.podAt[p.UID]
		var err error
		switch {
		case had && old == p:
		case had || at != nil: // a new version, or a pod that moved here
			if at != nil && at != n {
				delete(at.pods, p.UID)
			}
			err = v.x.UpdatePod(p)
		default:
			err = v.x.AddPod(p)
		}
		if err != nil {
			return err
		}
		n.pods[p.UID] = p
		v.podAt[p.UID] = n
	}
	for _, pi := range gone {
		uid := pi.GetPod().UID
		if here[uid] {
			continue // updated: its new version came
		}
		delete(n.pods, uid)
		if v.podAt[uid] == n {
			v.x.RemovePod(uid)
			delete(v.podAt, uid)
		}
	}
	n.infos = append(n.infos[:0], cur...)
	n.info, n.gen = ni, ni.GetGeneration()
	return nil
}
