package cycle

import (
	"maps"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	fwk "k8s.io/kube-scheduler/framework"
)

// topology is the view's copy of its nodes' values of the topology keys
// Filter reads, keyed by the snapshot's NodeInfo: Filter finds a node's
// value in one table of the view's own, a few hundred kilobytes that the
// cycle's Filter calls keep in the cache, instead of in the node's label
// map, which is cold by the time the last Filter plugin reads it. A
// topology is never changed once published (the view replaces it), so a
// cycle state holds the one of its PreFilter and Filter reads it without
// a lock, in parallel.
//
// slot maps each NodeInfo of the view's last sync to its node's slot;
// cols[i][slot] is that node's value of keys[i]. A NodeInfo the view has
// not synced (a copy made for nominated pods or for preemption's dry run)
// has no slot, and Filter reads its node's labels.
type topology struct {
	slot map[fwk.NodeInfo]int32
	keys []string
	cols [][]nodeValue
}

// nodeValue is a node's value of a key, ok when the node has the key.
type nodeValue struct {
	value string
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

// slotOf returns ni's slot, or -1 when ni has none.
func (t *topology) slotOf(ni fwk.NodeInfo) int32 {
	if slot, ok := t.slot[ni]; ok {
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

// valueOf reads node's value of key into the view's own memory, next to
// the other values the same rebuild copies.
func valueOf(node *v1.Node, key string) nodeValue {
	v, ok := node.Labels[key]
	return nodeValue{value: strings.Clone(v), ok: ok}
}

// slotted reports whether n's slot in the published topology holds what
// n holds now: its NodeInfo and its node's values.
func (n *viewNode) slotted() bool {
	return n.topoInfo == n.info && n.topoNode == n.node
}

// newSlot returns a slot for a node new to the view.
func (v *View) newSlot() int32 {
	if k := len(v.freeSlots); k > 0 {
		s := v.freeSlots[k-1]
		v.freeSlots = v.freeSlots[:k-1]
		return s
	}
	v.slots++
	return v.slots - 1
}

// republish replaces the topology with one where the nodes of changed
// hold their NodeInfos and values and the slots of gone, nodes the view
// removed, hold none. The rest is copied: a sync that changes no node's
// NodeInfo or node object (a pod placed or removed) republishes nothing.
func (v *View) republish(changed, gone []*viewNode) {
	if len(changed) == 0 && len(gone) == 0 {
		return
	}
	old := v.topo
	t := &topology{slot: maps.Clone(old.slot), keys: old.keys, cols: make([][]nodeValue, len(old.cols))}
	for i := range t.cols {
		t.cols[i] = make([]nodeValue, v.slots)
		copy(t.cols[i], old.cols[i])
	}
	for _, n := range gone {
		if n.topoInfo != nil {
			delete(t.slot, n.topoInfo)
		}
		for i := range t.cols {
			t.cols[i][n.slot] = nodeValue{}
		}
		v.freeSlots = append(v.freeSlots, n.slot)
	}
	for _, n := range changed {
		if n.topoInfo != nil && n.topoInfo != n.info {
			delete(t.slot, n.topoInfo)
		}
		t.slot[n.info] = n.slot
		for i, key := range t.keys {
			t.cols[i][n.slot] = valueOf(n.node, key)
		}
		n.topoInfo, n.topoNode = n.info, n.node
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
			t = &topology{slot: old.slot, keys: slices.Clip(old.keys), cols: slices.Clip(old.cols)}
		}
		if len(t.keys) == maxTopologyKeys {
			break
		}
		col := make([]nodeValue, v.slots)
		for _, n := range v.nodes {
			if n.topoNode != nil {
				col[n.slot] = valueOf(n.topoNode, key)
			}
		}
		t.keys = append(t.keys, key)
		t.cols = append(t.cols, col)
	}
	if t == nil {
		return old
	}
	v.topo = t
	return t
}
