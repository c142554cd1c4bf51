package placed

import (
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strconv"
	"testing"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	v1helper "k8s.io/component-helpers/scheduling/corev1"

	"github.com/affinityq/affinityq/matcher"
)

// The benchmark cluster: 5,000 nodes over 3 zones, each its own hostname
// and in one of two pools, and placed pods shaped after upstream scheduler_perf's affinity
// workloads, where nearly every placed pod matches the incoming pod: every
// pod carries color=blue, one in ten also an app of 100 and a required
// anti-affinity to its app on hostname (a Deployment that spreads by host).
const benchNodes = 5000

func benchSizes() []int {
	if testing.Short() {
		return []int{5000}
	}
	return []int{5000, 50000, 150000}
}

func benchNode(i int) *v1.Node {
	return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-" + strconv.Itoa(i), Labels: map[string]string{
		"topology.kubernetes.io/zone": "zone-" + strconv.Itoa(i%3),
		"kubernetes.io/hostname":      "node-" + strconv.Itoa(i),
		"pool":                        "pool-" + strconv.Itoa(i%2),
	}}}
}

func benchPod(i int) *v1.Pod {
	p := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p" + strconv.Itoa(i), Namespace: "default", UID: types.UID("uid-" + strconv.Itoa(i)),
			Labels: map[string]string{"color": "blue"}},
		Spec: v1.PodSpec{NodeName: "node-" + strconv.Itoa(i%benchNodes)},
	}
	if i%10 == 0 {
		app := "app-" + strconv.Itoa(i/10%100)
		p.Labels["app"] = app
		p.Spec.Affinity = &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
			TopologyKey: "kubernetes.io/hostname", LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}},
		}}}}
	}
	return p
}

// benchIncoming is a pod of app-7 with required affinity to color=blue on
// zone (every placed pod matches) and the app's anti-affinity on hostname.
func benchIncoming() *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "in", Namespace: "default", UID: "in", Labels: map[string]string{"color": "blue", "app": "app-7"}},
		Spec: v1.PodSpec{Affinity: &v1.Affinity{
			PodAffinity: &v1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
				TopologyKey: "topology.kubernetes.io/zone", LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"color": "blue"}},
			}}},
			PodAntiAffinity: &v1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
				TopologyKey: "kubernetes.io/hostname", LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "app-7"}},
			}}},
		}},
	}
}

// benchCluster returns an index of the benchmark nodes and n placed pods
// made by pod, with the pods and nodes.
func benchCluster(b *testing.B, n int, pod func(int) *v1.Pod) (*Index, []*v1.Pod, map[string]*v1.Node) {
	x := New()
	nodes := map[string]*v1.Node{}
	for i := range benchNodes {
		nd := benchNode(i)
		nodes[nd.Name] = nd
		if err := x.SetNode(nd); err != nil {
			b.Fatal(err)
		}
	}
	pods := make([]*v1.Pod, n)
	for i := range pods {
		pods[i] = pod(i)
		if err := x.AddPod(pods[i]); err != nil {
			b.Fatal(err)
		}
	}
	return x, pods, nodes
}

// BenchmarkInterPodAffinity answers InterPodAffinity's PreFilter counts for
// one incoming pod whose shapes are kept (impl=index) against the scan of
// every placed pod (impl=scan), in the same run.
func BenchmarkInterPodAffinity(b *testing.B) {
	for _, n := range benchSizes() {
		benchPreFilter(b, n, benchPod, benchIncoming())
	}
}

// benchPreFilter times InterPodAffinity's PreFilter counts for in, among n
// placed pods made by pod, from the index (its shapes built first) and by
// the scan, as placed=n/impl=index and placed=n/impl=scan.
func benchPreFilter(b *testing.B, n int, pod func(int) *v1.Pod, in *v1.Pod) {
	x, pods, nodes := benchCluster(b, n, pod)
	compiled := scanPods(pods)
	if _, err := x.InterPodAffinity(in); err != nil { // build the shapes
		b.Fatal(err)
	}
	for _, impl := range []string{"index", "scan"} {
		b.Run(fmt.Sprintf("placed=%d/impl=%s", n, impl), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if impl == "index" {
					if _, err := x.InterPodAffinity(in); err != nil {
						b.Fatal(err)
					}
				} else {
					scan(compiled, nodes, nil, in)
				}
			}
		})
	}
}

// antiPod is a pod of upstream scheduler_perf's SchedulingPodAntiAffinity:
// color=green with a required anti-affinity to color=green on hostname, on
// node i of the benchmark cluster.
func antiPod(i int) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p" + strconv.Itoa(i), Namespace: "default", UID: types.UID("uid-" + strconv.Itoa(i)),
			Labels: map[string]string{"color": "green"}},
		Spec: v1.PodSpec{NodeName: "node-" + strconv.Itoa(i%benchNodes), Affinity: &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
				TopologyKey: "kubernetes.io/hostname", LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"color": "green"}},
			}}}}},
	}
}

// BenchmarkInterPodAntiAffinity answers InterPodAffinity's PreFilter counts
// in upstream's SchedulingPodAntiAffinity/5000Nodes_2000Pods, where the
// placed pods grow from 1,000 to 3,000, one per node, each carrying the
// incoming pod's term: both the placed pods' anti-affinity and the
// incoming pod's hold one pair per occupied node, which the answer hands
// to the caller.
func BenchmarkInterPodAntiAffinity(b *testing.B) {
	for _, n := range []int{1000, 3000} {
		in := antiPod(n)
		in.Spec.NodeName = ""
		benchPreFilter(b, n, antiPod, in)
	}
}

// BenchmarkUniqueTerms answers InterPodAffinity's PreFilter counts for a
// stream of incoming pods whose anti-affinity terms are each their own
// (PodUpdate/10000Pods of kube/perf: pod i keeps away from color=green-i)
// with the bound of kept shapes reached (shapes=DefaultMaxShapes), so
// that every question builds a shape and drops the least recently asked,
// against a bound that is never reached (shapes=unbounded).
func BenchmarkUniqueTerms(b *testing.B) {
	in := func(i int) *v1.Pod {
		return &v1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "in", Namespace: "default", UID: "in", Labels: map[string]string{"color": "blue"}},
			Spec: v1.PodSpec{Affinity: &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
				TopologyKey: "kubernetes.io/hostname", LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"color": "green-" + strconv.Itoa(i)}},
			}}}}},
		}
	}
	for _, bound := range []string{"default", "unbounded"} {
		b.Run("shapes="+bound, func(b *testing.B) {
			x, _, _ := benchCluster(b, 5000, benchPod)
			if bound == "unbounded" {
				x.opts.maxShapes = 1 << 30
			}
			i := 0
			for ; i < DefaultMaxShapes; i++ { // fill the kept shapes
				if _, err := x.InterPodAffinity(in(i)); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := x.InterPodAffinity(in(i)); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// BenchmarkAddRemove places and removes one pod of the benchmark cluster
// with the incoming pod's shapes kept: the pod matches the affinity shape
// and, with anti-affinity of its own, the placed shape of its term.
func BenchmarkAddRemove(b *testing.B) {
	for _, n := range benchSizes() {
		x, _, _ := benchCluster(b, n, benchPod)
		if _, err := x.InterPodAffinity(benchIncoming()); err != nil {
			b.Fatal(err)
		}
		for _, kind := range []string{"plain", "anti"} {
			p := benchPod(n + 1)
			if kind == "anti" {
				p = benchPod(n * 10)
			}
			b.Run(fmt.Sprintf("placed=%d/pod=%s", n, kind), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if err := x.AddPod(p); err != nil {
						b.Fatal(err)
					}
					x.RemovePod(p.UID)
				}
			})
		}
	}
}

// BenchmarkMemory reports the heap an Index holds per placed pod of the
// benchmark cluster (its pods built before the count starts, so only the
// index's own memory counts), and per incoming shape: the heap 1,000
// questions of distinct required anti-affinity terms (one shape each, over
// the cluster's apps) add.
func BenchmarkMemory(b *testing.B) {
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	for _, n := range benchSizes() {
		b.Run(fmt.Sprintf("placed=%d", n), func(b *testing.B) {
			for b.Loop() {
				nodes := make([]*v1.Node, benchNodes)
				for i := range nodes {
					nodes[i] = benchNode(i)
				}
				pods := make([]*v1.Pod, n)
				for i := range pods {
					pods[i] = benchPod(i)
				}
				const questions = 1000
				in := make([]*v1.Pod, questions)
				for i := range in {
					in[i] = benchIncoming()
					in[i].Spec.Affinity.PodAffinity = nil
					anti := &in[i].Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0]
					anti.LabelSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "app-" + strconv.Itoa(i%100), "q": strconv.Itoa(i)}}
				}
				before := heap()
				x := New(WithMaxShapes(questions))
				for _, nd := range nodes {
					if err := x.SetNode(nd); err != nil {
						b.Fatal(err)
					}
				}
				for _, p := range pods {
					if err := x.AddPod(p); err != nil {
						b.Fatal(err)
					}
				}
				placed := heap()
				for _, p := range in {
					if _, err := x.InterPodAffinity(p); err != nil {
						b.Fatal(err)
					}
				}
				asked := heap()
				b.ReportMetric(float64(placed-before)/float64(n), "B/pod")
				b.ReportMetric(float64(asked-placed)/questions, "B/shape")
				runtime.KeepAlive(x)
				runtime.KeepAlive(nodes)
				runtime.KeepAlive(pods)
				runtime.KeepAlive(in)
			}
		})
	}
}

// spreadPod is an incoming pod of upstream's topology_spreading workloads:
// color=blue, spreading color=blue over zones with action (maxSkew 1 for
// DoNotSchedule, 5 for ScheduleAnyway, as upstream's templates).
func spreadPod(action v1.UnsatisfiableConstraintAction) *v1.Pod {
	skew := int32(1)
	if action == v1.ScheduleAnyway {
		skew = 5
	}
	return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "in", Namespace: "default", UID: "in", Labels: map[string]string{"color": "blue"}},
		Spec: v1.PodSpec{TopologySpreadConstraints: []v1.TopologySpreadConstraint{{
			MaxSkew: skew, TopologyKey: "topology.kubernetes.io/zone", WhenUnsatisfiable: action,
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"color": "blue"}},
		}}}}
}

// spreadScan counts, per domain of the incoming pod's first constraint,
// the pods matching it on the nodes that carry its key and match the
// pod's node selector, visiting every node's pods as calPreFilterState and
// initPreScoreState do.
func spreadScan(in *v1.Pod, nodes map[string]*v1.Node, byNode map[string][]*v1.Pod) map[string]int {
	as := *in // compiled as DoNotSchedule, which package matcher compiles
	as.Spec.TopologySpreadConstraints = constraints(in, in.Spec.TopologySpreadConstraints[0].WhenUnsatisfiable)
	terms, _ := matcher.CompileRequired(&as)
	sel, key := terms.Spread[0].Selector, in.Spec.TopologySpreadConstraints[0].TopologyKey
	counts := map[string]int{}
	for name, node := range nodes {
		v, ok := node.Labels[key]
		if !ok {
			continue
		}
		if !labels.SelectorFromSet(in.Spec.NodeSelector).Matches(labels.Set(node.Labels)) {
			continue
		}
		if c := in.Spec.TopologySpreadConstraints[0]; c.NodeTaintsPolicy != nil && *c.NodeTaintsPolicy == v1.NodeInclusionPolicyHonor {
			doNotSchedule := func(t *v1.Taint) bool {
				return t.Effect == v1.TaintEffectNoSchedule || t.Effect == v1.TaintEffectNoExecute
			}
			if _, untolerated := v1helper.FindMatchingUntoleratedTaint(logr.Discard(), node.Spec.Taints, in.Spec.Tolerations, doNotSchedule, false); untolerated {
				continue
			}
		}
		c := 0
		for _, p := range byNode[name] {
			if p.DeletionTimestamp == nil && p.Namespace == in.Namespace && sel.Matches(p.Labels) {
				c++
			}
		}
		counts[v] += c
	}
	return counts
}

func podsByNode(pods []*v1.Pod) map[string][]*v1.Pod {
	byNode := map[string][]*v1.Pod{}
	for _, p := range pods {
		byNode[p.Spec.NodeName] = append(byNode[p.Spec.NodeName], p)
	}
	return byNode
}

// BenchmarkPodTopologySpread answers PodTopologySpread's PreFilter counts
// for an incoming pod that spreads color=blue (every placed pod) over
// zones, from the kept counts (impl=index) against a scan of every node's
// pods (impl=scan), in the same run. policy=default reads the kept
// per-domain counts; policy=nodeSelector gives the pod a node selector
// (half the nodes), which the default node affinity policy honours, so
// that the index visits every node's kept count. policy=taints spreads
// over hostname honouring taints, with one node in five tainted, as
// upstream's SchedulingWithNodeInclusionPolicy: 5,000 domains, 1,000 of
// them left out.
func BenchmarkPodTopologySpread(b *testing.B) {
	honor := v1.NodeInclusionPolicyHonor
	for _, n := range benchSizes() {
		x, pods, nodes := benchCluster(b, n, benchPod)
		byNode := podsByNode(pods)
		for _, policy := range []string{"default", "nodeSelector", "taints"} {
			in := spreadPod(v1.DoNotSchedule)
			switch policy {
			case "nodeSelector":
				in.Spec.NodeSelector = map[string]string{"pool": "pool-0"}
			case "taints":
				c := &in.Spec.TopologySpreadConstraints[0]
				c.TopologyKey, c.NodeTaintsPolicy = "kubernetes.io/hostname", &honor
				for i := 0; i < benchNodes; i += 5 {
					nd := benchNode(i)
					nd.Spec.Taints = []v1.Taint{{Key: "foo", Effect: v1.TaintEffectNoSchedule}}
					nodes[nd.Name] = nd
					if err := x.SetNode(nd); err != nil {
						b.Fatal(err)
					}
				}
			}
			if _, err := x.PodTopologySpread(in); err != nil { // build the shape
				b.Fatal(err)
			}
			for _, impl := range []string{"index", "scan"} {
				b.Run(fmt.Sprintf("placed=%d/policy=%s/impl=%s", n, policy, impl), func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						if impl == "scan" {
							spreadScan(in, nodes, byNode)
						} else if _, err := x.PodTopologySpread(in); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}

// BenchmarkPodTopologySpreadScores answers PodTopologySpread's PreScore
// state for upstream's PreferredTopologySpreading pod (ScheduleAnyway over
// zones, color=blue) with every node filtered, from the kept counts
// (impl=index) against the scan of every node's pods (impl=scan). Both
// visit the filtered nodes, as PreScore must.
func BenchmarkPodTopologySpreadScores(b *testing.B) {
	in := spreadPod(v1.ScheduleAnyway)
	for _, n := range benchSizes() {
		x, pods, nodes := benchCluster(b, n, benchPod)
		byNode := podsByNode(pods)
		filtered := slices.Collect(maps.Keys(nodes))
		if _, _, err := x.PodTopologySpreadScores(in, filtered, true); err != nil { // build the shape
			b.Fatal(err)
		}
		for _, impl := range []string{"index", "scan"} {
			b.Run(fmt.Sprintf("placed=%d/impl=%s", n, impl), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if impl == "index" {
						if _, _, err := x.PodTopologySpreadScores(in, filtered, true); err != nil {
							b.Fatal(err)
						}
						continue
					}
					for _, name := range filtered { // the domains of the filtered nodes
						_ = nodes[name].Labels["topology.kubernetes.io/zone"]
					}
					spreadScan(in, nodes, byNode)
				}
			})
		}
	}
}

// preferredPod is a pod of upstream's SchedulingPreferredPodAffinity
// workload: color=red, with a preferred affinity (weight 1) to color=red
// on hostname in two namespaces; the placed pods are such pods too.
func preferredPod(i int) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p" + strconv.Itoa(i), Namespace: "sched-0", UID: types.UID("uid-" + strconv.Itoa(i)),
			Labels: map[string]string{"color": "red"}},
		Spec: v1.PodSpec{NodeName: "node-" + strconv.Itoa(i%benchNodes), Affinity: &v1.Affinity{PodAffinity: &v1.PodAffinity{
			PreferredDuringSchedulingIgnoredDuringExecution: []v1.WeightedPodAffinityTerm{{Weight: 1, PodAffinityTerm: v1.PodAffinityTerm{
				TopologyKey: "kubernetes.io/hostname", Namespaces: []string{"sched-1", "sched-0"},
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"color": "red"}},
			}}},
		}}},
	}
}

// BenchmarkInterPodAffinityScores answers InterPodAffinity's PreScore
// topology score for a pod of upstream's SchedulingPreferredPodAffinity
// among placed pods of that workload: the incoming pod's preferred term
// over every placed pod, and every placed pod's preferred term over the
// incoming pod, each at every node's hostname. The answer has a pair per
// node, so both implementations pay per node; the scan also pays per pod.
// impl=index-scored is InterPodAffinityScoresFor given the 500 nodes that
// kube-scheduler scores out of 5,000 (percentageOfNodesToScore's default
// there is 10 %): it pays per scored node.
func BenchmarkInterPodAffinityScores(b *testing.B) {
	in := preferredPod(-1)
	in.UID, in.Spec.NodeName = "in", ""
	args := ScoreArgs{HardPodAffinityWeight: 1}
	for _, n := range benchSizes() {
		x, pods, nodes := benchCluster(b, n, preferredPod)
		compiled := scanPods(pods)
		if _, _, err := x.InterPodAffinityScores(in, args); err != nil { // build the shapes
			b.Fatal(err)
		}
		var scored []*v1.Node
		for i := 0; i < benchNodes; i += 10 {
			scored = append(scored, nodes["node-"+strconv.Itoa(i)])
		}
		for _, impl := range []string{"index", "index-scored", "scan"} {
			b.Run(fmt.Sprintf("placed=%d/impl=%s", n, impl), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					var err error
					switch impl {
					case "scan":
						scanScores(compiled, nodes, nil, in, args)
					case "index":
						_, _, err = x.InterPodAffinityScores(in, args)
					default:
						_, _, err = x.InterPodAffinityScoresFor(in, args, scored)
					}
					if err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// deploymentPod is replica i of the deployments-like mix: apps of ten
// replicas (app-<i/10>) in 20 namespaces, each replica on its own node,
// with a tier label many apps share, a required anti-affinity to its app
// on hostname and a DoNotSchedule zone spread of its app.
func deploymentPod(i int) *v1.Pod {
	app := "app-" + strconv.Itoa(i/10)
	sel := func() *metav1.LabelSelector { return &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}} }
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "d" + strconv.Itoa(i), Namespace: "ns-" + strconv.Itoa(i/10%20), UID: types.UID("uid-" + strconv.Itoa(i)),
			Labels: map[string]string{"app": app, "tier": "tier-" + strconv.Itoa(i/10%3)}},
		Spec: v1.PodSpec{
			NodeName: "node-" + strconv.Itoa(i%benchNodes),
			Affinity: &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
				TopologyKey: "kubernetes.io/hostname", LabelSelector: sel(),
			}}}},
			TopologySpreadConstraints: []v1.TopologySpreadConstraint{{
				MaxSkew: 1, TopologyKey: "topology.kubernetes.io/zone", WhenUnsatisfiable: v1.DoNotSchedule, LabelSelector: sel(),
			}},
		},
	}
}

// BenchmarkDeployments answers, in the deployments-like mix, the PreFilter
// questions of a new replica of app-7 (q=affinity: InterPodAffinity, its
// app's placed anti-affinity and its own; q=spread: PodTopologySpread)
// from the kept shapes (impl=index) against the scans (impl=scan), and
// places and removes one more replica of app-7 (q=addremove), which
// counts in three shapes: its app's placed anti-affinity term and the
// incoming replica's anti-affinity and spread.
func BenchmarkDeployments(b *testing.B) {
	in := deploymentPod(70)
	in.UID, in.Spec.NodeName = "in", ""
	extra := deploymentPod(70)
	extra.UID, extra.Spec.NodeName = "extra", "node-4999"
	for _, n := range benchSizes() {
		x, pods, nodes := benchCluster(b, n, deploymentPod)
		compiled, byNode := scanPods(pods), podsByNode(pods)
		if _, err := x.InterPodAffinity(in); err != nil {
			b.Fatal(err)
		}
		if _, err := x.PodTopologySpread(in); err != nil {
			b.Fatal(err)
		}
		for _, q := range []string{"affinity", "spread", "addremove"} {
			for _, impl := range []string{"index", "scan"} {
				if q == "addremove" && impl == "scan" {
					continue
				}
				b.Run(fmt.Sprintf("placed=%d/q=%s/impl=%s", n, q, impl), func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						var err error
						switch {
						case q == "addremove":
							err = x.AddPod(extra)
							x.RemovePod(extra.UID)
						case impl == "scan" && q == "affinity":
							scan(compiled, nodes, nil, in)
						case impl == "scan":
							spreadScan(in, nodes, byNode)
						case q == "affinity":
							_, err = x.InterPodAffinity(in)
						default:
							_, err = x.PodTopologySpread(in)
						}
						if err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}

// BenchmarkAddRemoveShapes places and removes a pod of the benchmark
// cluster (color=blue) that counts in k incoming shapes (distinct
// anti-affinity questions every placed pod matches): shapes=0 is the
// fixed cost of a placement, and the slope over k the cost per shape.
func BenchmarkAddRemoveShapes(b *testing.B) {
	sizes := benchSizes()
	n := sizes[len(sizes)-1]
	for _, k := range []int{0, 1, 4, 16} {
		x, _, _ := benchCluster(b, n, benchPod)
		for i := range k {
			if _, err := x.InterPodAffinity(notInQuestion(i)); err != nil {
				b.Fatal(err)
			}
		}
		p := benchPod(n + 1)
		b.Run(fmt.Sprintf("placed=%d/shapes=%d", n, k), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := x.AddPod(p); err != nil {
					b.Fatal(err)
				}
				x.RemovePod(p.UID)
			}
		})
	}
}

// notInQuestion is an incoming pod with one required anti-affinity term on
// zone that every placed pod matches (color=blue, and q NotIn a value no
// pod has): a shape of its own for each i.
func notInQuestion(i int) *v1.Pod {
	return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "in", Namespace: "default", UID: "in"},
		Spec: v1.PodSpec{Affinity: &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
			TopologyKey: "topology.kubernetes.io/zone",
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"color": "blue"}, MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: "q", Operator: metav1.LabelSelectorOpNotIn, Values: []string{strconv.Itoa(i)}},
			}},
		}}}}},
	}
}

// BenchmarkShapeBuild measures the first question of a shape: each
// iteration asks about a required anti-affinity term no question asked
// before (color=blue and a value no pod has NotIn, which every placed pod
// matches), so the shape is built from the postings over all the placed
// pods; the bound on kept shapes drops the old ones.
func BenchmarkShapeBuild(b *testing.B) {
	for _, n := range benchSizes() {
		x, _, _ := benchCluster(b, n, benchPod)
		x.opts.maxShapes = 4
		b.Run(fmt.Sprintf("placed=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				i++
				in := notInQuestion(i)
				if _, err := x.InterPodAffinity(in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
