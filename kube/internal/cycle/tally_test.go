package cycle

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/affinityq/affinityq/placed"
)

// TestTally adds random counts to a tally and to a map alike and checks
// that the tally reads what the map holds at every node's pair, through
// the topology (a synced node, a key with a column) and around it (a node
// without a slot, a key without a column, a value without an id, a key
// whose column is added while the tally is filled), that empty follows
// the map, and that a clone changed by the overlay leaves its original as
// it was.
func TestTally(t *testing.T) {
	keys := []string{"zone", "host", "rack", "row"} // row: never given a column
	const synced = 30
	nodes := make([]*v1.Node, 40)
	for i := range nodes {
		labels := map[string]string{"host": fmt.Sprintf("n%d", i), "rack": fmt.Sprintf("r%d", i%3), "row": fmt.Sprintf("w%d", i%2)}
		if i%4 != 3 {
			labels["zone"] = fmt.Sprintf("z%d", i%2)
		}
		nodes[i] = &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("n%d", i), Labels: labels}}
	}
	// The topology holds nodes 0..29 and columns for zone and host; rack's
	// column is added on its first count. Nodes 30..39 are not synced:
	// their hosts have no id. A column's counts stay in its map up to 3 of
	// host's 30 values, then move to its slice.
	base := &topology{slot: map[*v1.Node]int32{}}
	for _, key := range keys[:2] {
		col, ids := make([]nodeValue, synced), newValueIDs()
		for i, n := range nodes[:synced] {
			col[i] = valueOf(n, key, ids)
		}
		base.keys, base.cols, base.ids = append(base.keys, key), append(base.cols, col), append(base.ids, ids)
	}
	for i, n := range nodes[:synced] {
		base.slot[n] = int32(i)
	}
	rackCol, rackIDs := make([]nodeValue, synced), newValueIDs()
	for i, n := range nodes[:synced] {
		rackCol[i] = valueOf(n, "rack", rackIDs)
	}
	withRack := &topology{slot: base.slot, keys: append(base.keys[:2:2], "rack"), cols: append(base.cols[:2:2], rackCol), ids: append(base.ids[:2:2], rackIDs)}
	// cur is the view's topology, as topologyFor keeps it: rack's column
	// is added when first asked for; row never gets one.
	var cur *topology
	grow := func(key string) *topology {
		if key == "rack" {
			cur = withRack
		}
		return cur
	}
	check := func(at string, tl *tally, want placed.Counts) {
		t.Helper()
		if tl.empty() != (len(want) == 0) {
			t.Fatalf("%s: empty() = %v with %d pairs", at, tl.empty(), len(want))
		}
		for _, n := range nodes {
			for _, key := range keys {
				v, carries := n.Labels[key]
				got, ok := tl.at(tl.topo.slotOf(n), n, tl.topo.col(key), key)
				if ok != carries || got != want[placed.Pair{Key: key, Value: v}] {
					t.Fatalf("%s: at(%s, %s) = %d, %v, want %d, %v", at, n.Name, key, got, ok, want[placed.Pair{Key: key, Value: v}], carries)
				}
			}
		}
	}
	for seed := range 20 {
		r := rand.New(rand.NewPCG(uint64(seed), 3))
		cur = base
		tl, want := newTally(base, grow), placed.Counts{}
		add := func(tl *tally, want placed.Counts) {
			n, key := nodes[r.IntN(len(nodes))], keys[r.IntN(len(keys))]
			if v, ok := n.Labels[key]; ok {
				d := int64(r.IntN(5) - 2)
				if d == 0 {
					d = 1
				}
				tl.Add(key, v, d)
				want.Add(key, v, d)
			}
		}
		for range r.IntN(60) {
			add(tl, want)
		}
		tl.filled(grow("rack"))
		at := fmt.Sprintf("seed %d", seed)
		check(at, tl, want)
		c, cwant := tl.clone(), maps.Clone(want)
		for range r.IntN(10) {
			add(c, cwant)
		}
		check(at+", clone", c, cwant)
		check(at+", after the clone changed", tl, want)
	}
}
