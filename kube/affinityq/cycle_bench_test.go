package affinityq_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/interpodaffinity"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/podtopologyspread"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"k8s.io/kubernetes/pkg/scheduler/metrics"

	"github.com/affinityq/affinityq/kube/affinityq"
)

// The full-cycle benchmark's cluster: 5,000 nodes over 3 zones, each its
// own hostname and labelled as a cloud provider labels its nodes (a dozen
// labels: Filter's check of the placed pods' anti-affinity reads them in
// the in-tree plugin), and placed pods shaped after upstream
// scheduler_perf's affinity workloads: every pod carries color=blue, one
// in ten an app of 100 and a required anti-affinity to its app on
// hostname.
const cycleBenchNodes = 5000

func cycleBenchCluster(n int) ([]*v1.Node, []*v1.Pod) {
	nodes := make([]*v1.Node, cycleBenchNodes)
	for i := range nodes {
		name := "node-" + strconv.Itoa(i)
		zone := "zone-" + strconv.Itoa(i%3)
		nodes[i] = &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
			v1.LabelHostname:                name,
			v1.LabelTopologyZone:            zone,
			v1.LabelFailureDomainBetaZone:   zone,
			v1.LabelTopologyRegion:          "region-0",
			v1.LabelFailureDomainBetaRegion: "region-0",
			v1.LabelInstanceTypeStable:      "m7.xlarge",
			v1.LabelInstanceType:            "m7.xlarge",
			v1.LabelArchStable:              "amd64",
			v1.LabelOSStable:                "linux",
			"beta.kubernetes.io/arch":       "amd64",
			"beta.kubernetes.io/os":         "linux",
			"node.kubernetes.io/pool":       "pool-" + strconv.Itoa(i%4),
		}}}
	}
	pods := make([]*v1.Pod, n)
	for i := range pods {
		p := &v1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "p" + strconv.Itoa(i), Namespace: "default", UID: types.UID("uid-" + strconv.Itoa(i)),
				Labels: map[string]string{"color": "blue"}},
			Spec: v1.PodSpec{NodeName: "node-" + strconv.Itoa(i%cycleBenchNodes)},
		}
		if i%10 == 0 {
			app := "app-" + strconv.Itoa(i/10%100)
			p.Labels["app"] = app
			p.Spec.Affinity = &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
				TopologyKey: v1.LabelHostname, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}},
			}}}}
		}
		pods[i] = p
	}
	return nodes, pods
}

// cycleBenchPods are the incoming pods: required pod affinity to
// color=blue on zone (upstream's SchedulingPodAffinity), required
// anti-affinity to its own app on hostname among the placed pods that
// carry the same term (SchedulingPodAntiAffinity, where Filter reads both
// the pod's and the placed pods' anti-affinity counts), preferred
// anti-affinity to color=blue on hostname (SchedulingPreferredPodAntiAffinity),
// a zone spread of color=blue (TopologySpreading, DoNotSchedule), and that
// spread with a hostname one (ScheduleAnyway), whose Score counts each
// scored node's own pods (PlacedPods' spread pods).
func cycleBenchPods() map[string]*v1.Pod {
	sel := func() *metav1.LabelSelector {
		return &metav1.LabelSelector{MatchLabels: map[string]string{"color": "blue"}}
	}
	return map[string]*v1.Pod{
		"affinity": {ObjectMeta: metav1.ObjectMeta{Name: "in", Namespace: "default", UID: "in", Labels: map[string]string{"color": "blue"}},
			Spec: v1.PodSpec{Affinity: &v1.Affinity{PodAffinity: &v1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
				TopologyKey: v1.LabelTopologyZone, LabelSelector: sel(),
			}}}}}},
		"anti-affinity": {ObjectMeta: metav1.ObjectMeta{Name: "in", Namespace: "default", UID: "in", Labels: map[string]string{"color": "blue", "app": "app-0"}},
			Spec: v1.PodSpec{Affinity: &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
				TopologyKey: v1.LabelHostname, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "app-0"}},
			}}}}}},
		"preferred": {ObjectMeta: metav1.ObjectMeta{Name: "in", Namespace: "default", UID: "in", Labels: map[string]string{"color": "blue"}},
			Spec: v1.PodSpec{Affinity: &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []v1.WeightedPodAffinityTerm{{
				Weight: 1, PodAffinityTerm: v1.PodAffinityTerm{TopologyKey: v1.LabelHostname, LabelSelector: sel()},
			}}}}}},
		"spread": {ObjectMeta: metav1.ObjectMeta{Name: "in", Namespace: "default", UID: "in", Labels: map[string]string{"color": "blue"}},
			Spec: v1.PodSpec{TopologySpreadConstraints: []v1.TopologySpreadConstraint{{
				MaxSkew: 1, TopologyKey: v1.LabelTopologyZone, WhenUnsatisfiable: v1.DoNotSchedule, LabelSelector: sel(),
			}}}},
		"spread-hostname": {ObjectMeta: metav1.ObjectMeta{Name: "in", Namespace: "default", UID: "in", Labels: map[string]string{"color": "blue"}},
			Spec: v1.PodSpec{TopologySpreadConstraints: []v1.TopologySpreadConstraint{{
				MaxSkew: 1, TopologyKey: v1.LabelTopologyZone, WhenUnsatisfiable: v1.DoNotSchedule, LabelSelector: sel(),
			}, {
				MaxSkew: 1, TopologyKey: v1.LabelHostname, WhenUnsatisfiable: v1.ScheduleAnyway, LabelSelector: sel(),
			}}}},
	}
}

// cycleBenchScored is how many feasible nodes kube-scheduler scores among
// 5,000: percentageOfNodesToScore's default there is 10 %.
const cycleBenchScored = 500

// cycle runs one scheduling cycle's extension points of pl for pod:
// PreFilter, Filter on every node, PreScore over the first
// cycleBenchScored nodes that passed, Score on each and NormalizeScore.
func cycle(b *testing.B, pl cyclePlugins, pod *v1.Pod, nodes []fwk.NodeInfo) {
	ctx := context.Background()
	state := framework.NewCycleState()
	_, st := pl.PreFilter(ctx, state, pod, nodes)
	if !st.IsSuccess() && !st.IsSkip() {
		b.Fatal(st)
	}
	feasible := nodes
	if st.IsSuccess() {
		feasible = feasible[:0:0]
		for _, ni := range nodes {
			if pl.Filter(ctx, state, pod, ni).IsSuccess() {
				feasible = append(feasible, ni)
			}
		}
	}
	feasible = feasible[:min(len(feasible), cycleBenchScored)]
	if st := pl.PreScore(ctx, state, pod, feasible); !st.IsSuccess() {
		if !st.IsSkip() {
			b.Fatal(st)
		}
		return
	}
	scores := make(fwk.NodeScoreList, len(feasible))
	for i, ni := range feasible {
		s, st := pl.Score(ctx, state, pod, ni)
		if !st.IsSuccess() {
			b.Fatal(st)
		}
		scores[i] = fwk.NodeScore{Name: ni.Node().Name, Score: s}
	}
	if ext := pl.ScoreExtensions(); ext != nil {
		if st := ext.NormalizeScore(ctx, state, pod, scores); !st.IsSuccess() {
			b.Fatal(st)
		}
	}
}

// BenchmarkCycle runs one full scheduling cycle of InterPodAffinity
// (pod=affinity, pod=anti-affinity, pod=preferred) and PodTopologySpread
// (pod=spread, pod=spread-hostname) for one incoming pod, in-tree against
// the affinityq wrapper, at 5,000 nodes with 5,000 / 50,000 / 150,000
// placed pods, in the same run. The wrapper's index is
// synced with the snapshot before timing, as after its first cycle.
func BenchmarkCycle(b *testing.B) {
	metrics.Register()
	sizes := []int{5000, 50000, 150000}
	if testing.Short() {
		sizes = []int{5000}
	}
	fts := feature.NewSchedulerFeaturesFromGates(utilfeature.DefaultFeatureGate)
	for _, n := range sizes {
		nodes, pods := cycleBenchCluster(n)
		snapshot := internalcache.NewSnapshot(pods, nodes)
		infos, err := snapshot.NodeInfos().List()
		if err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		factory := informers.NewSharedInformerFactory(fake.NewClientset([]runtime.Object{&v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "default"}}}...), 0)
		h, err := frameworkruntime.NewFramework(ctx, nil, nil, frameworkruntime.WithSnapshotSharedLister(snapshot), frameworkruntime.WithInformerFactory(factory))
		if err != nil {
			b.Fatal(err)
		}
		plugins := affinityq.New(affinityq.WithFeatures(fts))
		build := map[string]func(impl string) (fwk.Plugin, error){
			"affinity": func(impl string) (fwk.Plugin, error) {
				if impl == "intree" {
					return interpodaffinity.New(ctx, &config.InterPodAffinityArgs{HardPodAffinityWeight: 1}, h, fts)
				}
				return plugins.NewInterPodAffinity(ctx, &config.InterPodAffinityArgs{HardPodAffinityWeight: 1}, h)
			},
			"spread": func(impl string) (fwk.Plugin, error) {
				args := &config.PodTopologySpreadArgs{DefaultingType: config.SystemDefaulting}
				if impl == "intree" {
					return podtopologyspread.New(ctx, args, h, fts)
				}
				return plugins.NewPodTopologySpread(ctx, args, h)
			},
		}
		built := map[string]cyclePlugins{}
		for _, kind := range []string{"affinity", "spread"} {
			for _, impl := range []string{"intree", "affinityq"} {
				pl, err := build[kind](impl)
				if err != nil {
					b.Fatal(err)
				}
				built[kind+"/"+impl] = pl.(cyclePlugins)
			}
		}
		factory.Start(ctx.Done())
		factory.WaitForCacheSync(ctx.Done())
		in := cycleBenchPods()
		pluginOf := map[string]string{"affinity": "affinity", "anti-affinity": "affinity", "preferred": "affinity", "spread": "spread", "spread-hostname": "spread"}
		for _, kind := range []string{"affinity", "anti-affinity", "preferred", "spread", "spread-hostname"} {
			cycle(b, built[pluginOf[kind]+"/affinityq"], in[kind], infos) // sync the index, build the shapes
			for _, impl := range []string{"intree", "affinityq"} {
				b.Run(fmt.Sprintf("placed=%d/pod=%s/impl=%s", n, kind, impl), func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						cycle(b, built[pluginOf[kind]+"/"+impl], in[kind], infos)
					}
				})
			}
		}
		cancel()
		factory.Shutdown()
	}
}

// BenchmarkCycleWithoutTerms runs one scheduling cycle of InterPodAffinity
// and PodTopologySpread for a pod without inter-pod terms or spread
// constraints among 5,000 nodes and 5,000 placed pods without them either,
// in-tree against the affinityq wrappers: upstream's
// SchedulingNodeAffinity, the ceiling of the affinity workloads, where
// both in-tree plugins skip without reading a node.
func BenchmarkCycleWithoutTerms(b *testing.B) {
	metrics.Register()
	fts := feature.NewSchedulerFeaturesFromGates(utilfeature.DefaultFeatureGate)
	nodes, pods := cycleBenchCluster(cycleBenchNodes)
	for _, p := range pods {
		p.Spec.Affinity = nil
	}
	snapshot := internalcache.NewSnapshot(pods, nodes)
	infos, err := snapshot.NodeInfos().List()
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	factory := informers.NewSharedInformerFactory(fake.NewClientset(&v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "default"}}), 0)
	defer func() {
		cancel() // the informers stop, which Shutdown waits for
		factory.Shutdown()
	}()
	h, err := frameworkruntime.NewFramework(ctx, nil, nil, frameworkruntime.WithSnapshotSharedLister(snapshot), frameworkruntime.WithInformerFactory(factory))
	if err != nil {
		b.Fatal(err)
	}
	plugins := affinityq.New(affinityq.WithFeatures(fts))
	affinityArgs := &config.InterPodAffinityArgs{HardPodAffinityWeight: 1}
	spreadArgs := &config.PodTopologySpreadArgs{DefaultingType: config.SystemDefaulting}
	build := map[string][]func() (fwk.Plugin, error){
		"intree": {
			func() (fwk.Plugin, error) { return interpodaffinity.New(ctx, affinityArgs, h, fts) },
			func() (fwk.Plugin, error) { return podtopologyspread.New(ctx, spreadArgs, h, fts) },
		},
		"affinityq": {
			func() (fwk.Plugin, error) { return plugins.NewInterPodAffinity(ctx, affinityArgs, h) },
			func() (fwk.Plugin, error) { return plugins.NewPodTopologySpread(ctx, spreadArgs, h) },
		},
	}
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "in", Namespace: "default", UID: "in", Labels: map[string]string{"color": "blue"}}}
	built := map[string][]cyclePlugins{}
	for impl, fns := range build {
		for _, fn := range fns {
			pl, err := fn()
			if err != nil {
				b.Fatal(err)
			}
			built[impl] = append(built[impl], pl.(cyclePlugins))
		}
	}
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	for _, impl := range []string{"intree", "affinityq"} {
		b.Run("impl="+impl, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, pl := range built[impl] {
					cycle(b, pl, pod, infos)
				}
			}
		})
	}
}

// BenchmarkCycleNSSelector runs one scheduling cycle of InterPodAffinity
// in the shape of upstream's
// SchedulingRequiredPodAntiAffinityWithNSSelector/5000Nodes_2000Pods
// late in its run, in-tree against the affinityq wrapper: 6,000 nodes,
// 100 namespaces labelled team=devops, and placed pods one to a node, each
// labelled color=green with a required anti-affinity to color=green on
// hostname over the namespaces team=devops selects; the incoming pod is
// another of them. Both the placed pods' shape and the incoming pod's
// count a pair on every occupied node, and Filter rejects every occupied
// node.
func BenchmarkCycleNSSelector(b *testing.B) {
	metrics.Register()
	const nodeCount, namespaces = 6000, 100
	sizes := []int{4000, 5900}
	if testing.Short() {
		sizes = sizes[:1]
	}
	fts := feature.NewSchedulerFeaturesFromGates(utilfeature.DefaultFeatureGate)
	term := func() *v1.Affinity {
		return &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
			TopologyKey:       v1.LabelHostname,
			LabelSelector:     &metav1.LabelSelector{MatchLabels: map[string]string{"color": "green"}},
			NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"team": "devops"}},
		}}}}
	}
	nodes := make([]*v1.Node, nodeCount)
	for i := range nodes {
		name := "node-" + strconv.Itoa(i)
		nodes[i] = &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
			v1.LabelHostname: name, v1.LabelTopologyZone: "zone-" + strconv.Itoa(i%3), v1.LabelTopologyRegion: "region-0",
		}}}
	}
	var objs []runtime.Object
	for i := range namespaces + 1 {
		objs = append(objs, &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns-" + strconv.Itoa(i), Labels: map[string]string{"team": "devops"}}})
	}
	for _, n := range sizes {
		pods := make([]*v1.Pod, n)
		for i := range pods {
			pods[i] = &v1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: "p" + strconv.Itoa(i), Namespace: "ns-" + strconv.Itoa(i%namespaces),
					UID: types.UID("uid-" + strconv.Itoa(i)), Labels: map[string]string{"color": "green"}},
				Spec: v1.PodSpec{NodeName: "node-" + strconv.Itoa(i), Affinity: term()},
			}
		}
		in := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "in", Namespace: "ns-" + strconv.Itoa(namespaces), UID: "in",
			Labels: map[string]string{"color": "green"}}, Spec: v1.PodSpec{Affinity: term()}}
		snapshot := internalcache.NewSnapshot(pods, nodes)
		infos, err := snapshot.NodeInfos().List()
		if err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		factory := informers.NewSharedInformerFactory(fake.NewClientset(objs...), 0)
		h, err := frameworkruntime.NewFramework(ctx, nil, nil, frameworkruntime.WithSnapshotSharedLister(snapshot), frameworkruntime.WithInformerFactory(factory))
		if err != nil {
			b.Fatal(err)
		}
		args := &config.InterPodAffinityArgs{HardPodAffinityWeight: 1}
		intree, err := interpodaffinity.New(ctx, args, h, fts)
		if err != nil {
			b.Fatal(err)
		}
		ours, err := affinityq.New(affinityq.WithFeatures(fts)).NewInterPodAffinity(ctx, args, h)
		if err != nil {
			b.Fatal(err)
		}
		factory.Start(ctx.Done())
		factory.WaitForCacheSync(ctx.Done())
		built := map[string]cyclePlugins{"intree": intree.(cyclePlugins), "affinityq": ours.(cyclePlugins)}
		cycle(b, built["affinityq"], in, infos) // sync the index, build the shapes
		for impl, pl := range built {
			if got := feasibleNodes(b, pl, in, infos); got != nodeCount-n {
				b.Fatalf("%s: %d feasible nodes, want %d", impl, got, nodeCount-n)
			}
		}
		for _, impl := range []string{"intree", "affinityq"} {
			b.Run(fmt.Sprintf("nodes=%d/placed=%d/impl=%s", nodeCount, n, impl), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					cycle(b, built[impl], in, infos)
				}
			})
		}
		cancel()
		factory.Shutdown()
	}
}

// feasibleNodes runs PreFilter and Filter of pl for pod and counts the
// nodes that pass.
func feasibleNodes(b *testing.B, pl cyclePlugins, pod *v1.Pod, nodes []fwk.NodeInfo) int {
	b.Helper()
	ctx := context.Background()
	state := framework.NewCycleState()
	if _, st := pl.PreFilter(ctx, state, pod, nodes); !st.IsSuccess() {
		b.Fatalf("PreFilter: %v", st)
	}
	n := 0
	for _, ni := range nodes {
		if pl.Filter(ctx, state, pod, ni).IsSuccess() {
			n++
		}
	}
	return n
}
