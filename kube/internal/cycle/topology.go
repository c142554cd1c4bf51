package cycle

import (
	"maps"
	"slices"
	"unsafe"

	v1 "k8s.io/api/core/v1"
)

// topology is the view's table of its nodes' values of the topology keys
// Filter, and InterPodAffinity's PreScore and Score, read, keyed by the
// snapshot's node objects: they find a node's value, as an id, in one
// table of the view's own, a few tens of kilobytes that the cycle's calls
// keep in the cache, instead of in the node's label map, which is cold by
// the time the last Filter plugin reads it, and again when PreScore reads
// the scored nodes' values. A topology is never changed once published (the view replaces
// it), so a cycle state holds the one of its PreFilter and Filter reads it
// without a lock, in parallel.
//
// slot maps the node object of each NodeInfo of the view's last sync to
// its node's slot; cols[i][slot] is the id of that node's value of
// keys[i]. A node's
// values are those of its object, so a NodeInfo the snapshot does not list
// (a copy made for nominated pods or for preemption's dry run) finds its
// node's slot by the object it shares; a node object the view has not
// synced has none, and Filter reads its labels.
//
// ids[i] numbers the values of keys[i] that the view's nodes carry (and
// may hold values no node carries any longer, up to a bound), so that a
// count per topology pair of keys[i] is indexed by the value's id (tally)
// and a node's count is found without hashing its value.
type topology struct {
	slot map[*v1.Node]int32
	keys []string
	cols [][]nodeValue
	ids  []*valueIDs
}

// nodeValue is whether a node has a key, and the id of its value in the
// key's column.
type nodeValue struct {
	id int32
	ok bool
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

// valueID returns the id of value in column col, and whether it has one.
func (t *topology) valueID(col int, value string) (int32, bool) {
	if col < 0 {
		return 0, false
	}
	return t.ids[col].id(value)
}

// valueOf returns node's value of key, numbering it in ids (which the
// caller owns) if it is new there.
func valueOf(node *v1.Node, key string, ids *valueIDs) nodeValue {
	v, ok := node.Labels[key]
	if !ok {
		return nodeValue{}
	}
	return nodeValue{id: ids.number(v), ok: true}
}

// valueIDs numbers the values of one topology column. byValue holds every
// value; byData holds the values by the memory of the node objects' labels
// they were read from (the string's data pointer and length), which is
// where the pairs of the placed index's counts point too, as it reads the
// same node objects: a count's value is found by two words, without
// hashing its bytes, which are cold in the cache when a cycle tallies
// thousands of pairs. A string is never changed, so the same data and
// length are the same value.
type valueIDs struct {
	byValue map[string]int32
	byData  map[stringData]int32
	names   []string // the values by id
}

type stringData struct {
	p *byte
	n int
}

func dataOf(v string) stringData { return stringData{unsafe.StringData(v), len(v)} }

func newValueIDs() *valueIDs {
	return &valueIDs{byValue: map[string]int32{}, byData: map[stringData]int32{}}
}

// clone returns a copy to number more values in; names is shared up to
// m's length, which m never grows once published.
func (m *valueIDs) clone() *valueIDs {
	return &valueIDs{byValue: maps.Clone(m.byValue), byData: maps.Clone(m.byData), names: slices.Clip(m.names)}
}

// len returns how many values m numbers.
func (m *valueIDs) len() int { return len(m.byValue) }

// id returns the id of v, and whether it has one.
func (m *valueIDs) id(v string) (int32, bool) {
	if len(v) > 0 {
		if id, ok := m.byData[dataOf(v)]; ok {
			return id, true
		}
	}
	id, ok := m.byValue[v]
	return id, ok
}

// number returns the id of v, numbering v if new.
func (m *valueIDs) number(v string) int32 {
	id, ok := m.byValue[v]
	if !ok {
		id = int32(len(m.byValue))
		m.byValue[v] = id
		m.names = append(m.names, v)
	}
	if len(v) > 0 {
		m.byData[dataOf(v)] = id
	}
	return id
}

// stale reports whether m holds so many values or memories more than a
// column of slots nodes can carry that it is to be numbered afresh.
func (m *valueIDs) stale(slots int) bool {
	return max(len(m.byValue), len(m.byData)) > 2*slots+64
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
// have grown stale, values and memories of nodes long gone among them, is
// numbered afresh from its nodes.
func (v *View) republish(changed, gone []*viewNode) {
	if len(changed) == 0 && len(gone) == 0 {
		return
	}
	old := v.topo
	t := &topology{slot: maps.Clone(old.slot), keys: old.keys, cols: make([][]nodeValue, len(old.cols)), ids: make([]*valueIDs, len(old.ids))}
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
		if len(changed) == 0 || !old.ids[i].stale(int(v.slots)) {
			t.ids[i] = old.ids[i].clone()
			for _, n := range changed {
				t.cols[i][n.slot] = valueOf(n.node, key, t.ids[i])
			}
			continue
		}
		// Every node the view holds is changed or slotted, so its object
		// is the one to read.
		t.ids[i] = newValueIDs()
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
		col, ids := make([]nodeValue, v.slots), newValueIDs()
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

// scoredValues returns the distinct values of a key that nodes, those
// PreScore scores, carry, as placed.Index.InterPodAffinityScoresAt asks
// for them: by each node's slot in the view's topology, grown for the key,
// rather than from the node's label map, cold by the time PreScore runs.
// A node without a slot (not of the last sync), or a key past
// maxTopologyKeys, is read from its labels. v.mu must be held while the
// returned function is called: ask's question holds it.
func (v *View) scoredValues(nodes []*v1.Node) func(key string) []string {
	return func(key string) []string {
		t := v.topologyFor(key)
		col := t.col(key)
		var seen []uint64 // by value id, when the key has a column
		if col >= 0 {
			seen = make([]uint64, (t.ids[col].len()+63)/64)
		}
		var seenLabel map[string]struct{} // values without an id
		var list []string
		for _, n := range nodes {
			var id int32
			var ok bool
			if slot := t.slotOf(n); slot >= 0 && col >= 0 {
				nv := t.cols[col][slot]
				id, ok = nv.id, nv.ok
				if !ok {
					continue
				}
			} else {
				value, has := n.Labels[key]
				if !has {
					continue
				}
				if id, ok = t.valueID(col, value); !ok {
					if _, dup := seenLabel[value]; !dup {
						if seenLabel == nil {
							seenLabel = map[string]struct{}{}
						}
						seenLabel[value] = struct{}{}
						list = append(list, value)
					}
					continue
				}
			}
			if w, bit := id/64, uint64(1)<<(id%64); seen[w]&bit == 0 {
				seen[w] |= bit
				list = append(list, t.ids[col].names[id])
			}
		}
		return list
	}
}
