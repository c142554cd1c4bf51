package cycle

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unsafe"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/metrics"

	"github.com/affinityq/affinityq/placed"
)

// TestSnapshotView drives kube-scheduler's own cache through random node
// and pod changes (assumed pods, confirmed and forgotten, included),
// updates a snapshot from it as each cycle does, syncs the view, and
// checks that the view's index answers as an index built from scratch
// from the same snapshot, and that unchanged NodeInfos are not re-read.
func TestSnapshotView(t *testing.T) {
	metrics.Register() // the cache records into them
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logger := klog.FromContext(ctx)
	steps := 400
	if testing.Short() {
		steps = 150
	}
	for seed := range 4 {
		r := rand.New(rand.NewPCG(uint64(seed), 11))
		c := internalcache.New(ctx, nil, false, false)
		snap := internalcache.NewEmptySnapshot()
		view := NewView(func() *placed.Index { return placed.New() })
		nodes := map[string]*v1.Node{}
		pods := map[types.UID]*v1.Pod{}
		assumed := map[types.UID]bool{}
		seq := 0
		var prev, prevCopy *topology
		for step := range steps {
			for range 1 + r.IntN(3) {
				seq++
				switch op := r.IntN(10); {
				case op < 2: // a node added or relabelled
					name := fmt.Sprintf("node-%d", r.IntN(6))
					n := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
						"zone": fmt.Sprintf("z%d", r.IntN(3)), "kubernetes.io/hostname": name,
						"build": fmt.Sprintf("b%d", r.IntN(1<<20))}}}
					if r.IntN(4) == 0 {
						delete(n.Labels, "zone")
					}
					if old, ok := nodes[name]; ok {
						c.UpdateNode(logger, old, n)
					} else {
						c.AddNode(logger, n)
					}
					nodes[name] = n
				case op < 3 && len(nodes) > 0: // a node removed
					n := pickValue(r, nodes)
					if err := c.RemoveNode(logger, n); err != nil {
						t.Fatal(err)
					}
					delete(nodes, n.Name)
				case op < 7: // a pod added, or assumed
					p := snapPod(r, seq)
					if r.IntN(3) == 0 {
						if err := c.AssumePod(logger, p); err != nil {
							t.Fatal(err)
						}
						assumed[p.UID] = true
					} else if err := c.AddPod(logger, p); err != nil {
						t.Fatal(err)
					}
					pods[p.UID] = p
				case op < 8 && len(pods) > 0: // a pod relabelled, or an assumed one confirmed
					old := pickValue(r, pods)
					p := old.DeepCopy()
					p.Labels = map[string]string{"app": fmt.Sprintf("a%d", r.IntN(3))}
					var err error
					if assumed[old.UID] {
						err = c.AddPod(logger, p)
						delete(assumed, old.UID)
					} else {
						err = c.UpdatePod(logger, old, p)
					}
					if err != nil {
						t.Fatal(err)
					}
					pods[p.UID] = p
				case len(pods) > 0: // a pod removed, or an assumed one forgotten (and assumed on another node: a failed binding retried)
					p := pickValue(r, pods)
					var err error
					if assumed[p.UID] {
						err = c.ForgetPod(logger, p)
						delete(assumed, p.UID)
						if err == nil && r.IntN(2) == 0 {
							moved := p.DeepCopy()
							moved.Spec.NodeName = fmt.Sprintf("node-%d", r.IntN(7))
							if err := c.AssumePod(logger, moved); err != nil {
								t.Fatal(err)
							}
							assumed[p.UID], pods[p.UID] = true, moved
							break
						}
					} else {
						err = c.RemovePod(logger, p)
					}
					if err != nil {
						t.Fatal(err)
					}
					delete(pods, p.UID)
				}
			}
			if r.IntN(25) == 0 { // a snapshot built afresh: new NodeInfos for the same nodes
				snap = internalcache.NewEmptySnapshot()
			}
			if err := c.UpdateSnapshot(logger, snap); err != nil {
				t.Fatal(err)
			}
			list, err := snap.NodeInfos().List()
			if err != nil {
				t.Fatal(err)
			}
			if err := view.sync(list); err != nil {
				t.Fatalf("seed %d step %d: %v", seed, step, err)
			}
			at := fmt.Sprintf("seed %d step %d", seed, step)
			checkView(t, at, view, list, r)
			// The keys are asked for over the steps, so that columns are
			// added to a topology with nodes.
			keys := topologyKeys[:min(len(topologyKeys), 1+step/20)]
			view.mu.Lock()
			topo := view.topologyFor(keys...)
			view.mu.Unlock()
			checkTopology(t, at, topo, keys, list)
			checkScored(t, at, view, list, topologyKeys, r)
			if prev != nil && !reflect.DeepEqual(prev, prevCopy) {
				t.Fatalf("%s: a published topology changed", at)
			}
			prev, prevCopy = topo, cloneTopology(topo)
			reads := view.reads
			if err := view.sync(list); err != nil {
				t.Fatal(err)
			}
			if view.reads != reads {
				t.Fatalf("seed %d step %d: a second sync of the same snapshot read %d NodeInfos", seed, step, view.reads-reads)
			}
		}
	}
}

// topologyKeys are the keys TestSnapshotView asks the view's topology for:
// three its nodes have (zone not always; build with a value seldom seen
// twice, so that the column's ids outgrow its nodes and are numbered
// afresh) and one they never do.
var topologyKeys = []string{"zone", "kubernetes.io/hostname", "build", "rack"}

// checkTopology checks that topo gives every NodeInfo of list a slot of
// its own holding its node's value of each of keys, and no other NodeInfo
// one.
func checkTopology(t *testing.T, at string, topo *topology, keys []string, list []fwk.NodeInfo) {
	t.Helper()
	slots := map[int32]string{}
	for _, ni := range list {
		node := ni.Node()
		if node == nil {
			continue
		}
		slot := topo.slotOf(node)
		if slot < 0 {
			t.Fatalf("%s: node %s has no slot", at, node.Name)
		}
		if other, ok := slots[slot]; ok {
			t.Fatalf("%s: nodes %s and %s share slot %d", at, other, node.Name, slot)
		}
		slots[slot] = node.Name
		for _, key := range keys {
			col := topo.col(key)
			if col < 0 {
				t.Fatalf("%s: no column for %q", at, key)
			}
			want, wantOK := node.Labels[key]
			nv := topo.cols[col][slot]
			if nv.ok != wantOK {
				t.Fatalf("%s: node %s has %q: %v, its labels say %v", at, node.Name, key, nv.ok, wantOK)
			}
			// By the label's own memory and by a copy of it.
			for _, v := range []string{want, strings.Clone(want)} {
				if id, ok := topo.valueID(col, v); wantOK && (!ok || id != nv.id) {
					t.Fatalf("%s: node %s's %q=%q has id %d, its column numbers it %d (%v)", at, node.Name, key, want, nv.id, id, ok)
				}
			}
		}
	}
	for col, ids := range topo.ids {
		seen := map[int32]string{}
		for v, id := range ids.byValue {
			if other, dup := seen[id]; dup {
				t.Fatalf("%s: %q values %q and %q share id %d", at, topo.keys[col], other, v, id)
			}
			seen[id] = v
			if int(id) >= len(ids.names) || ids.names[id] != v {
				t.Fatalf("%s: %q value %q has id %d, which names %q of %d", at, topo.keys[col], v, id, ids.names, len(ids.names))
			}
		}
		if len(ids.names) != len(ids.byValue) {
			t.Fatalf("%s: %q names %d values, numbers %d", at, topo.keys[col], len(ids.names), len(ids.byValue))
		}
		for d, id := range ids.byData {
			if v := unsafe.String(d.p, d.n); ids.byValue[v] != id {
				t.Fatalf("%s: %q value %q has id %d by its memory, %d by its value", at, topo.keys[col], v, id, ids.byValue[v])
			}
		}
	}
	if len(topo.slot) != len(slots) {
		t.Fatalf("%s: %d NodeInfos have slots, the snapshot lists %d nodes", at, len(topo.slot), len(slots))
	}
}

// cloneTopology returns a deep copy of t, to check that t is not changed.
func cloneTopology(t *topology) *topology {
	c := &topology{slot: maps.Clone(t.slot), keys: slices.Clone(t.keys)}
	for _, col := range t.cols {
		c.cols = append(c.cols, slices.Clone(col))
	}
	for _, ids := range t.ids {
		c.ids = append(c.ids, ids.clone())
	}
	return c
}

// TestSyncMark checks that a cycle syncs the view once: a second sync
// with the cycle's state walks no list, one with another cycle's state
// does, after which the first cycle's mark no longer holds, and neither
// does it for another list.
func TestSyncMark(t *testing.T) {
	metrics.Register()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logger := klog.FromContext(ctx)
	c := internalcache.New(ctx, nil, false, false)
	for i := range 3 {
		c.AddNode(logger, &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("node-%d", i)}})
	}
	snap := internalcache.NewEmptySnapshot()
	if err := c.UpdateSnapshot(logger, snap); err != nil {
		t.Fatal(err)
	}
	list, err := snap.NodeInfos().List()
	if err != nil {
		t.Fatal(err)
	}
	view := NewView(func() *placed.Index { return placed.New() })
	sync := func(state fwk.CycleState, list []fwk.NodeInfo, walks uint64, what string) {
		t.Helper()
		if _, err := view.ask(state, list, func(*placed.Index) {}); err != nil {
			t.Fatal(err)
		}
		if view.walks != walks {
			t.Fatalf("%s: %d walks, want %d", what, view.walks, walks)
		}
	}
	first, second := framework.NewCycleState(), framework.NewCycleState()
	sync(first, list, 1, "a cycle's first sync")
	sync(first, list, 1, "the same cycle's second sync")
	sync(second, list, 2, "another cycle's sync")
	sync(first, list, 3, "the first cycle after another synced")
	sync(first, list, 3, "the first cycle again")
	sync(first, list[:2], 4, "the first cycle with a shorter list")
	if got := view.x.Len(); got != 0 {
		t.Fatalf("index holds %d pods", got)
	}
}

func pickValue[K cmp.Ordered, V any](r *rand.Rand, m map[K]V) V {
	keys := slices.Sorted(maps.Keys(m)) // a seed decides the choice
	return m[keys[r.IntN(len(keys))]]
}

func snapPod(r *rand.Rand, seq int) *v1.Pod {
	p := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("p%d", seq), Namespace: "ns", UID: types.UID(fmt.Sprintf("uid-%d", seq)),
			Labels: map[string]string{"app": fmt.Sprintf("a%d", r.IntN(3))}},
		Spec: v1.PodSpec{NodeName: fmt.Sprintf("node-%d", r.IntN(7))},
	}
	if r.IntN(3) == 0 {
		p.Spec.Affinity = &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
			TopologyKey: "zone", LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": fmt.Sprintf("a%d", r.IntN(3))}},
		}}}}
	}
	return p
}

// checkView compares the view's answers with an index built from list.
func checkView(t *testing.T, at string, view *View, list []fwk.NodeInfo, r *rand.Rand) {
	t.Helper()
	if err := view.x.Validate(); err != nil {
		t.Fatalf("%s: %v", at, err)
	}
	fresh := placed.New()
	pods := 0
	for _, ni := range list {
		if err := fresh.SetNode(ni.Node()); err != nil {
			t.Fatal(err)
		}
		for _, pi := range ni.GetPods() {
			if err := fresh.AddPod(pi.GetPod()); err != nil {
				t.Fatal(err)
			}
			pods++
		}
	}
	if got := view.x.Len(); got != pods {
		t.Fatalf("%s: view holds %d pods, the snapshot %d", at, got, pods)
	}
	for i := range 3 {
		app := fmt.Sprintf("a%d", (i+r.IntN(3))%3)
		in := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "in", Namespace: "ns", UID: "in", Labels: map[string]string{"app": app}},
			Spec: v1.PodSpec{
				Affinity: &v1.Affinity{PodAffinity: &v1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
					TopologyKey: "zone", LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}},
				}}}},
				TopologySpreadConstraints: []v1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: v1.DoNotSchedule,
					LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}}},
			}}
		got, err1 := view.x.InterPodAffinity(in)
		want, err2 := fresh.InterPodAffinity(in)
		if err1 != nil || err2 != nil || !maps.Equal(got.Affinity, want.Affinity) || !maps.Equal(got.ExistingAntiAffinity, want.ExistingAntiAffinity) {
			t.Fatalf("%s: view answers %+v (%v), a fresh index %+v (%v)", at, got, err1, want, err2)
		}
		gs, err1 := view.x.PodTopologySpread(in)
		ws, err2 := fresh.PodTopologySpread(in)
		if err1 != nil || err2 != nil || !reflect.DeepEqual(gs, ws) {
			t.Fatalf("%s: view spreads %+v (%v), a fresh index %+v (%v)", at, gs, err1, ws, err2)
		}
	}
}

// BenchmarkSyncBusyNode syncs the view after one pod is added to a node
// that holds placed=N pods (PodAdd's anchor node: every unblocker lands
// there), the cycle's cost of reading the changed node.
func BenchmarkSyncBusyNode(b *testing.B) {
	metrics.Register()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logger := klog.FromContext(ctx)
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("placed=%d", n), func(b *testing.B) {
			c := internalcache.New(ctx, nil, false, false)
			for i := range 2 {
				name := fmt.Sprintf("node-%d", i)
				c.AddNode(logger, &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"kubernetes.io/hostname": name}}})
			}
			pod := func(i int) *v1.Pod { return benchPod(i, "node-0") }
			for i := range n {
				if err := c.AddPod(logger, pod(i)); err != nil {
					b.Fatal(err)
				}
			}
			benchSync(b, logger, c, func(k int) *v1.Pod { return pod(n + k) })
		})
	}
}

// BenchmarkSyncOneNodeChanged syncs the view of a cluster of nodes=N
// nodes, one placed pod on each, after one more pod is bound to one of
// them: what every scheduling cycle of a large cluster pays to find the
// node the previous cycle's pod changed.
func BenchmarkSyncOneNodeChanged(b *testing.B) {
	metrics.Register()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logger := klog.FromContext(ctx)
	for _, nodes := range []int{500, 5000} {
		b.Run(fmt.Sprintf("nodes=%d", nodes), func(b *testing.B) {
			c := internalcache.New(ctx, nil, false, false)
			pod := func(i int) *v1.Pod { return benchPod(i, fmt.Sprintf("node-%d", i%nodes)) }
			for i := range nodes {
				name := fmt.Sprintf("node-%d", i)
				c.AddNode(logger, &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"kubernetes.io/hostname": name, "zone": fmt.Sprintf("zone-%d", i%3)}}})
				if err := c.AddPod(logger, pod(i)); err != nil {
					b.Fatal(err)
				}
			}
			benchSync(b, logger, c, func(k int) *v1.Pod { return pod((nodes + k) * 7919) })
		})
	}
}

// benchPod returns the placed pod numbered i, bound to node.
func benchPod(i int, node string) *v1.Pod {
	return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("p%d", i), Namespace: "ns", UID: types.UID(fmt.Sprintf("uid-%d", i)),
		Labels: map[string]string{"color": "green"}}, Spec: v1.PodSpec{NodeName: node}}
}

// benchSync times a view's sync with c's snapshot after each pod that
// more returns (the k-th pod added, from 0) is added to c; the cache's
// own update and snapshot are not timed.
func benchSync(b *testing.B, logger klog.Logger, c internalcache.Cache, more func(k int) *v1.Pod) {
	b.Helper()
	snap := internalcache.NewEmptySnapshot()
	view := NewView(func() *placed.Index { return placed.New() })
	k := 0
	step := func() {
		if err := c.AddPod(logger, more(k)); err != nil {
			b.Fatal(err)
		}
		k++
		if err := c.UpdateSnapshot(logger, snap); err != nil {
			b.Fatal(err)
		}
	}
	step()
	list, err := snap.NodeInfos().List()
	if err != nil {
		b.Fatal(err)
	}
	if err := view.sync(list); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		step()
		b.StartTimer()
		if err := view.sync(list); err != nil {
			b.Fatal(err)
		}
	}
}

// checkScored checks what PreScore reads through the view against the
// nodes' labels: scoredValues for some of list's nodes, and copies of
// some (new node objects, without a slot, one with a value no synced node
// carries), each distinct value once, for each of keys; and Score's sum
// over a random score at those keys.
func checkScored(t *testing.T, at string, view *View, list []fwk.NodeInfo, keys []string, r *rand.Rand) {
	t.Helper()
	var nodes []*v1.Node
	for _, ni := range list {
		n := ni.Node()
		if n == nil || r.IntN(3) == 0 {
			continue
		}
		if r.IntN(4) == 0 {
			n = n.DeepCopy()
			if r.IntN(2) == 0 {
				n.Labels["zone"] = "z-unsynced"
			}
		}
		nodes = append(nodes, n)
	}
	view.mu.Lock()
	defer view.mu.Unlock()
	values := view.scoredValues(nodes)
	for _, key := range keys {
		want := map[string]bool{}
		for _, n := range nodes {
			if v, ok := n.Labels[key]; ok {
				want[v] = true
			}
		}
		got := values(key)
		if len(got) != len(want) {
			t.Fatalf("%s: scoredValues(%q) = %q, the nodes' labels hold %v", at, key, got, want)
		}
		for _, v := range got {
			if !want[v] {
				t.Fatalf("%s: scoredValues(%q) = %q, the nodes' labels hold %v", at, key, got, want)
			}
			delete(want, v) // a value given twice fails the next round
		}
	}
	s := &scoreState{scores: placed.Scores{}, topo: view.topo}
	for _, key := range keys {
		for _, n := range nodes {
			if v, ok := n.Labels[key]; ok && r.IntN(2) == 0 {
				if s.scores[key] == nil {
					s.scores[key] = map[string]int64{}
				}
				s.scores[key][v] = int64(r.IntN(21) - 10)
			}
		}
	}
	s.byID()
	c := &InterPodAffinity{}
	for _, n := range nodes {
		var want int64
		for key, values := range s.scores {
			if v, ok := n.Labels[key]; ok {
				want += values[v]
			}
		}
		ni := framework.NewNodeInfo()
		ni.SetNode(n)
		if got, st := c.Score(s, ni); !st.IsSuccess() || got != want {
			t.Fatalf("%s: Score(%s) = %d, %v, its labels sum to %d", at, n.Name, got, st, want)
		}
	}
}

// TestScoredPastTopologyBound checks PreScore's reads for a key past the
// topology's bound, which gets no column: its values come from the
// nodes' labels.
func TestScoredPastTopologyBound(t *testing.T) {
	var nodes []*v1.Node
	for i := range 8 {
		nodes = append(nodes, &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("node-%d", i), Labels: map[string]string{
			"zone": fmt.Sprintf("z%d", i%3), "kubernetes.io/hostname": fmt.Sprintf("node-%d", i), "past": fmt.Sprintf("p%d", i%2)}}})
	}
	snap := internalcache.NewSnapshot(nil, nodes)
	list, err := snap.NodeInfos().List()
	if err != nil {
		t.Fatal(err)
	}
	view := NewView(func() *placed.Index { return placed.New() })
	if err := view.sync(list); err != nil {
		t.Fatal(err)
	}
	view.mu.Lock()
	view.topologyFor("zone", "kubernetes.io/hostname")
	for i := 0; len(view.topo.keys) < maxTopologyKeys; i++ {
		view.topologyFor(fmt.Sprintf("filler-%d", i))
	}
	view.mu.Unlock()
	for seed := range 10 {
		checkScored(t, fmt.Sprintf("seed %d", seed), view, list, []string{"zone", "kubernetes.io/hostname", "past"}, rand.New(rand.NewPCG(uint64(seed), 5)))
		if view.topo.col("past") >= 0 || view.topo.col("zone") < 0 {
			t.Fatalf("columns %q: past the bound, or without zone", view.topo.keys)
		}
	}
}
