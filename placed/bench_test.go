package placed

import (
	"fmt"
	"runtime"
	"strconv"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/affinityq/affinityq/matcher"
)

// The benchmark cluster: 5,000 nodes over 3 zones, each its own hostname,
// and placed pods shaped after upstream scheduler_perf's affinity
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

func benchCluster(b *testing.B, n int) (*Index, []*v1.Pod, map[string]*v1.Node) {
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
		pods[i] = benchPod(i)
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
		x, pods, nodes := benchCluster(b, n)
		compiled := scanPods(pods)
		in := benchIncoming()
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
}

// BenchmarkAddRemove places and removes one pod of the benchmark cluster
// with the incoming pod's shapes kept: the pod matches the affinity shape
// and, with anti-affinity of its own, the placed shape of its term.
func BenchmarkAddRemove(b *testing.B) {
	for _, n := range benchSizes() {
		x, _, _ := benchCluster(b, n)
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

// BenchmarkPodTopologySpread answers PodTopologySpread's PreFilter counts
// for an incoming pod that spreads over zones the pods every placed pod
// is (color=blue), from the kept per-node counts (impl=index) against a
// scan of every node's pods (impl=scan), as calPreFilterState visits
// them, in the same run.
func BenchmarkPodTopologySpread(b *testing.B) {
	in := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "in", Namespace: "default", UID: "in", Labels: map[string]string{"color": "blue"}},
		Spec: v1.PodSpec{TopologySpreadConstraints: []v1.TopologySpreadConstraint{{
			MaxSkew: 1, TopologyKey: "topology.kubernetes.io/zone", WhenUnsatisfiable: v1.DoNotSchedule,
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"color": "blue"}},
		}}}}
	for _, n := range benchSizes() {
		x, pods, nodes := benchCluster(b, n)
		if _, err := x.PodTopologySpread(in); err != nil { // build the shape
			b.Fatal(err)
		}
		byNode := map[string][]*v1.Pod{}
		for _, p := range pods {
			byNode[p.Spec.NodeName] = append(byNode[p.Spec.NodeName], p)
		}
		terms, _ := matcher.CompileRequired(in)
		sel := terms.Spread[0].Selector
		for _, impl := range []string{"index", "scan"} {
			b.Run(fmt.Sprintf("placed=%d/impl=%s", n, impl), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if impl == "index" {
						if _, err := x.PodTopologySpread(in); err != nil {
							b.Fatal(err)
						}
						continue
					}
					counts := map[string]int{}
					for name, node := range nodes {
						zone, ok := node.Labels["topology.kubernetes.io/zone"]
						if !ok {
							continue
						}
						c := 0
						for _, p := range byNode[name] {
							if p.DeletionTimestamp == nil && p.Namespace == in.Namespace && sel.Matches(p.Labels) {
								c++
							}
						}
						counts[zone] += c
					}
				}
			})
		}
	}
}

// BenchmarkShapeBuild measures the first question of a shape: each
// iteration asks about a required anti-affinity term no question asked
// before (color=blue and a value no pod has NotIn, which every placed pod
// matches), so the shape is built from the postings over all the placed
// pods; the bound on kept shapes drops the old ones.
func BenchmarkShapeBuild(b *testing.B) {
	for _, n := range benchSizes() {
		x, _, _ := benchCluster(b, n)
		x.opts.maxShapes = 4
		b.Run(fmt.Sprintf("placed=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				i++
				in := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "in", Namespace: "default", UID: "in"},
					Spec: v1.PodSpec{Affinity: &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
						TopologyKey: "topology.kubernetes.io/zone",
						LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"color": "blue"}, MatchExpressions: []metav1.LabelSelectorRequirement{
							{Key: "q", Operator: metav1.LabelSelectorOpNotIn, Values: []string{strconv.Itoa(i)}},
						}},
					}}}}},
				}
				if _, err := x.InterPodAffinity(in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
