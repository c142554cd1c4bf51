package cycle

import (
	"maps"
	"slices"

	v1 "k8s.io/api/core/v1"

	"github.com/affinityq/affinityq/placed"
)

// tally is one of InterPodAffinity's PreFilter counts (a count per
// topology pair) in the form Filter reads it: for a key with a column in
// the cycle's topology, by the value's id (column), so that a node's count
// is found without hashing its value; a pair outside the topology (a key
// without a column, a value no synced node carries) is in rest. Every
// pair is in exactly one of the two, decided by the topology the tally was
// filled against, which the cycle's state keeps.
//
// A tally is filled under the view's lock (placed.Index.InterPodAffinityTo)
// and then only read, by Filter calls in parallel, except on a cycle
// state's clone, which the overlay (AffinityChangeTo) changes alone.
type tally struct {
	// topo is the topology the pairs are placed against. Adding a pair of
	// a key without a column asks grow for one: the view's topologyFor
	// while the tally is filled, nil after.
	topo *topology
	grow func(key string) *topology

	cols    []column // by topology column; shorter where no pair was added
	rest    placed.Counts
	nonzero int      // pairs whose count is not 0
	keys    []string // the keys of the pairs ever added, in order
}

// column holds a tally's counts at the values of one topology column, by
// value id: in a map while they are few against the column's values (a
// term of a few replicas on hostname among thousands of nodes), in a
// slice over every id once they are not (a term of every pod), so that a
// cycle's tallies cost what their pairs do.
type column struct {
	sparse map[int32]int64
	dense  []int64
}

// denseShare is the share of a column's values a column's counts reach
// before they move to a slice: from len(ids)/denseShare pairs on, the
// slice is the smaller.
const denseShare = 8

// get returns the count at id.
func (c *column) get(id int32) int64 {
	if c.dense != nil {
		if int(id) < len(c.dense) {
			return c.dense[id]
		}
		return 0
	}
	return c.sparse[id]
}

// add adds n at id in a column of values values, and returns the count
// before and after.
func (c *column) add(id int32, n int64, values int) (was, is int64) {
	if c.dense == nil && len(c.sparse) >= max(values/denseShare, 1) {
		c.dense = make([]int64, values)
		for i, k := range c.sparse {
			c.dense[i] = k
		}
		c.sparse = nil
	}
	if c.dense != nil {
		if int(id) >= len(c.dense) { // an id past the column's (a clone's overlay never adds one)
			c.dense = append(c.dense, make([]int64, int(id)+1-len(c.dense))...)
		}
		was = c.dense[id]
		c.dense[id] += n
		return was, c.dense[id]
	}
	if c.sparse == nil {
		c.sparse = map[int32]int64{}
	}
	was = c.sparse[id]
	if is = was + n; is != 0 {
		c.sparse[id] = is
	} else {
		delete(c.sparse, id)
	}
	return was, is
}

func (c column) clone() column {
	return column{sparse: maps.Clone(c.sparse), dense: slices.Clone(c.dense)}
}

func newTally(topo *topology, grow func(string) *topology) *tally {
	return &tally{topo: topo, grow: grow}
}

// filled ends the filling: the tally is read against topo, the view's
// topology after every tally of the cycle was filled, which holds the
// columns of the one it was filled against, numbered alike.
func (t *tally) filled(topo *topology) {
	t.topo, t.grow = topo, nil
}

// Add adds n at (key, value) (placed.Tally).
func (t *tally) Add(key, value string, n int64) {
	if !slices.Contains(t.keys, key) {
		t.keys = append(t.keys, key)
	}
	col := t.topo.col(key)
	if col < 0 && t.grow != nil {
		t.topo = t.grow(key)
		col = t.topo.col(key)
	}
	id, ok := t.topo.valueID(col, value)
	if !ok {
		if t.rest == nil {
			t.rest = placed.Counts{}
		}
		was := t.rest[placed.Pair{Key: key, Value: value}]
		t.rest.Add(key, value, n)
		t.count(was, was+n)
		return
	}
	if col >= len(t.cols) {
		t.cols = append(t.cols, make([]column, col+1-len(t.cols))...)
	}
	t.count(t.cols[col].add(id, n, t.topo.ids[col].len()))
}

// count keeps nonzero as a pair's count goes from was to is.
func (t *tally) count(was, is int64) {
	switch {
	case was == 0 && is != 0:
		t.nonzero++
	case was != 0 && is == 0:
		t.nonzero--
	}
}

// empty reports whether no pair has a count.
func (t *tally) empty() bool { return t.nonzero == 0 }

// at returns the count at the pair of key, whose column in the tally's
// topology is col, on node, whose slot there is slot (topology.slotOf),
// and false when the node does not carry key.
func (t *tally) at(slot int32, node *v1.Node, col int, key string) (int64, bool) {
	if slot >= 0 && col >= 0 {
		nv := t.topo.cols[col][slot]
		if !nv.ok {
			return 0, false
		}
		return t.get(col, nv.id), true
	}
	v, ok := node.Labels[key]
	if !ok {
		return 0, false
	}
	if id, ok := t.topo.valueID(col, v); ok {
		return t.get(col, id), true
	}
	return t.rest[placed.Pair{Key: key, Value: v}], true
}

func (t *tally) get(col int, id int32) int64 {
	if col < len(t.cols) {
		return t.cols[col].get(id)
	}
	return 0
}

// clone returns a copy that the overlay may change.
func (t *tally) clone() *tally {
	c := &tally{topo: t.topo, nonzero: t.nonzero, keys: slices.Clip(t.keys), cols: make([]column, len(t.cols))}
	for i := range t.cols {
		c.cols[i] = t.cols[i].clone()
	}
	if len(t.rest) > 0 {
		c.rest = maps.Clone(t.rest)
	}
	return c
}
