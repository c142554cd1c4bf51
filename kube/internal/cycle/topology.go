package cycle

import (
	"maps"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
)

// topology is the view's copy of its nodes' values of the topology keys
// Filter reads, keyed by the snapshot's node objects: Filter finds a
// node's value in one table of the view's own, a few hundred kilobytes
// that the cycle's Filter calls keep in the cache, instead of in the
// node's label map, which is cold by the time the last Filter plugin
// reads it. A topology is never changed once published (the view replaces
// it), so a cycle state holds the one of its PreFilter and Filter reads it
// without a lock, in parallel.
//
// slot maps the node object of each NodeInfo of the view's last sync to
// its node's slot; cols[i][slot] is that node's value of keys[i]. A node's
// values are those of its object, so a NodeInfo the snapshot does not list
// (a copy made for nominated pods or for preemption's dry run) finds its
// node's slot by the object it shares; a node object the view has not
// synced has none, and Filter reads its labels.
//
// ids[i] numbers the values of keys[i] that the view's nodes carry (and
// may hold values no node carries any longer, up to a bound), so that a
// count per topology pair of keys[i] is a slice indexed by the value's id
// (tally) and a node's count is found without hashing its value.
type topology struct {
	slot map[*v1.Node]int32
	keys []string
	cols [][]nodeValue
	ids  []map[string]int32
}

// nodeValue is a node's value of a key, ok when the node has the key, and
// the value's id in its column.
type nodeValue struct {
	value string
	id    int32
	ok    bool
}

// maxTopologyKeys bounds the keys a topology holds; Filter reads a key
// past them from the node's labels. Clusters use a handful (hostname,
// zone, region, a rack or two).
const maxTopologyKeys = 16

// col returns the column of key, or -1 when t holds none.
func (t *topology) col(key string) int {
	return slices.Index(t.keys, key)
}

// slotOf returns the slot of node, or -1 when it has none.
func (t *topology) slotOf(node *v1.Node) int32 {
	if slot, ok := t.slot[node]; ok {
		return slot
	}
	return -1
}

// value returns the value of key, whose column is col, on node, whose
// slot is slot (slotOf): from t when both are set, else from node's
// labels.
func (t *topology) value(slot int32, node *v1.Node, col int, key string) (string, bool) {
	if slot >= 0 && col >= 0 {
		nv := t.cols[col][slot]
		return nv.value, nv.ok
	}
	v, ok := node.Labels[key]
	return v, ok
}

// valueID returns the id of value in column col, and whether it has one.
func (t *topology) valueID(col int, value string) (int32, bool) {
	if col < 0 {
		return 0, false
	}
	id, ok := t.ids[col][value]
	return id, ok
}

// valueOf reads node's value of key into the view's own memory, next to
// the other values the same rebuild copies, numbering it in ids (which the
// caller owns) if it is new there.
func valueOf(node *v1.Node, key string, ids map[string]int32) nodeValue {
	v, ok := node.Labels[key]
	if !ok {
		return nodeValue{}
	}
	id, known := ids[v]
	if !known {
		v = strings.Clone(v)
		id = int32(len(ids))
		ids[v] = id
	}
	return nodeValue{value: v, id: id, ok: true}
}

// slotted reports whether n's slot in the published topology holds what
// n holds now: its node's object and values.
func (n *viewNode) slotted() bool {
	return n.topoNode == n.node
}

// newSlot returns a slot for a node new to the view.
func (v *View) newSlot() int32 {
	if k := len(v.freeSlots); k > 0 {
		s := v.freeSlots[k-1]
		v.freeSlots = v.freeSlots[:k-1]
		return s
	}
	v.slots++
	v.seen = append(v.seen, 0)
	return v.slots - 1
}

// republish replaces the topology with one where the nodes of changed
// hold their node objects and values and the slots of gone, nodes the view
// removed, hold none. The rest is copied: a sync that changes no node
// object (a pod placed or removed) republishes nothing. A column whose ids
// number more than twice the slots, values of nodes long gone among them,
// is numbered afresh from its nodes.
func (v *View) republish(changed, gone []*viewNode) {
	if len(changed) == 0 && len(gone) == 0 {
		return
	}
	old := v.topo
	t := &topology{slot: maps.Clone(old.slot), keys: old.keys, cols: make([][]nodeValue, len(old.cols)), ids: make([]map[string]int32, len(old.ids))}
	for i := range t.cols {
		t.cols[i] = make([]nodeValue, v.slots)
		copy(t.cols[i], old.cols[i])
	}
	for _, n := range gone {
		if n.topoNode != nil {
			delete(t.slot, n.topoNode)
		}
		for i := range t.cols {
			t.cols[i][n.slot] = nodeValue{}
		}
		v.freeSlots = append(v.freeSlots, n.slot)
	}
	for i, key := range t.keys {
		if len(changed) == 0 || len(old.ids[i]) <= 2*int(v.slots)+64 {
			t.ids[i] = maps.Clone(old.ids[i])
			for _, n := range changed {
				t.cols[i][n.slot] = valueOf(n.node, key, t.ids[i])
			}
			continue
		}
		// Every node the view holds is changed or slotted, so its object
		// is the one to read.
		t.ids[i] = map[string]int32{}
		for _, n := range v.nodes {
			t.cols[i][n.slot] = valueOf(n.node, key, t.ids[i])
		}
	}
	for _, n := range changed {
		if n.topoNode != nil && n.topoNode != n.node {
			delete(t.slot, n.topoNode)
		}
		t.slot[n.node] = n.slot
		n.topoNode = n.node
	}
	v.topo = t
}

// topologyFor returns the topology with columns for keys, adding those it
// lacks (up to maxTopologyKeys) from the nodes of the last sync. v.mu must
// be held: ask's question holds it.
func (v *View) topologyFor(keys ...string) *topology {
	old := v.topo
	var t *topology
	for _, key := range keys {
		if slices.Contains(old.keys, key) || t != nil && slices.Contains(t.keys, key) {
			continue
		}
		if t == nil {
			t = &topology{slot: old.slot, keys: slices.Clip(old.keys), cols: slices.Clip(old.cols), ids: slices.Clip(old.ids)}
		}
		if len(t.keys) == maxTopologyKeys {
			break
		}
		col, ids := make([]nodeValue, v.slots), map[string]int32{}
		for _, n := range v.nodes {
			if n.topoNode != nil {
				col[n.slot] = valueOf(n.topoNode, key, ids)
			}
		}
		t.keys = append(t.keys, key)
		t.cols = append(t.cols, col)
		t.ids = append(t.ids, ids)
	}
	if t == nil {
		return old
	}
	v.topo = t
	return t
}
