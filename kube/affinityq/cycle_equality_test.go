package affinityq_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/interpodaffinity"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/podtopologyspread"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
	"k8s.io/utils/ptr"

	"github.com/affinityq/affinityq/kube/affinityq"
)

// cyclePlugins is what a cycle equality test compares: an in-tree plugin
// and its wrapper, built over one framework handle, one snapshot and one
// scheduler cache.
type cyclePlugins interface {
	fwk.PreFilterPlugin
	fwk.FilterPlugin
	fwk.PreScorePlugin
	fwk.ScorePlugin
}

type cycleWorld struct {
	g        *gen
	cache    internalcache.Cache
	snapshot *internalcache.Snapshot
	assumed  map[types.UID]bool
	logger   klog.Logger
	// The API objects both plug-ins read through the informers: the
	// namespaces and the objects whose selectors give PodTopologySpread's
	// default selector, created, changed and deleted through the client.
	client  *fake.Clientset
	factory informers.SharedInformerFactory
	plugins *affinityq.Plugins  // whose views hear the namespace events; set by the test
	objects map[string][]string // the selecting objects' namespace/name, by kind
	events  uint64              // namespace events the views should have heard
}

// newCycleWorld returns a scheduler cache and snapshot over gen's model,
// and a framework handle over them with informers of genNamespaces.
func newCycleWorld(t *testing.T, seed uint64) (*cycleWorld, fwk.Handle, informers.SharedInformerFactory) {
	t.Helper()
	metrics.Register()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	w := &cycleWorld{g: newGen(seed), cache: internalcache.New(ctx, nil, false, false), snapshot: internalcache.NewEmptySnapshot(),
		assumed: map[types.UID]bool{}, logger: klog.FromContext(ctx), objects: map[string][]string{}}
	// A service selecting some pods, from which PodTopologySpread derives
	// default constraints for pods without their own.
	objs := []runtime.Object{&v1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns0"}, Spec: v1.ServiceSpec{Selector: map[string]string{"app": "web"}}}}
	for _, ns := range genNamespaces {
		objs = append(objs, ns)
	}
	w.client = fake.NewClientset(objs...)
	w.factory = informers.NewSharedInformerFactory(w.client, 0)
	// The listers the default selector reads, started with the factory.
	w.factory.Core().V1().Services().Informer()
	w.factory.Core().V1().ReplicationControllers().Informer()
	w.factory.Apps().V1().ReplicaSets().Informer()
	w.factory.Apps().V1().StatefulSets().Informer()
	h, err := frameworkruntime.NewFramework(ctx, nil, nil,
		frameworkruntime.WithSnapshotSharedLister(w.snapshot),
		frameworkruntime.WithInformerFactory(w.factory),
		frameworkruntime.WithParallelism(1))
	if err != nil {
		t.Fatal(err)
	}
	return w, h, w.factory
}

// apiStep, now and then, creates, changes or deletes through the client an
// object that selects pods (a service, replication controller, replica
// set or stateful set), or deletes or recreates a namespace (its pods stay,
// as when a namespace's deletion reaches the scheduler before its pods'),
// and waits until the informers' listers, and for a namespace the views,
// have it.
func (w *cycleWorld) apiStep(t *testing.T) {
	t.Helper()
	g := w.g
	switch {
	case g.pick(0.25):
		w.selectingObject(t)
	case g.pick(0.04):
		w.namespaceStep(t)
	}
}

func (w *cycleWorld) selectingObject(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	g := w.g
	kind := g.oneOf([]string{"service", "rc", "rs", "ss"})
	keys := w.objects[kind]
	var ns, name string
	del := len(keys) > 0 && g.pick(0.3)
	if len(keys) > 0 && g.pick(0.6) {
		i := g.r.IntN(len(keys))
		ns, name, _ = strings.Cut(keys[i], "/")
		if del {
			w.objects[kind] = slices.Delete(keys, i, i+1)
		}
	} else {
		del = false
		ns, name = g.namespace(), g.name(kind)
		w.objects[kind] = append(keys, ns+"/"+name)
	}
	set := map[string]string{"app": g.oneOf(genApps)}
	if g.pick(0.3) {
		set["tier"] = g.oneOf([]string{"front", "back"})
	}
	ls := &metav1.LabelSelector{MatchLabels: set}
	if g.pick(0.4) {
		ls.MatchExpressions = []metav1.LabelSelectorRequirement{g.requirement()}
	}
	meta := metav1.ObjectMeta{Namespace: ns, Name: name, ResourceVersion: fmt.Sprint(g.r.Int64())}
	var err error
	var present func() bool
	switch kind {
	case "service":
		obj := &v1.Service{ObjectMeta: meta, Spec: v1.ServiceSpec{Selector: set}}
		err = apply(ctx, w.client.CoreV1().Services(ns), obj, del)
		lister := w.factory.Core().V1().Services().Lister().Services(ns)
		present = func() bool { o, err := lister.Get(name); return seen(o, err, obj, del) }
	case "rc":
		obj := &v1.ReplicationController{ObjectMeta: meta, Spec: v1.ReplicationControllerSpec{Selector: set}}
		err = apply(ctx, w.client.CoreV1().ReplicationControllers(ns), obj, del)
		lister := w.factory.Core().V1().ReplicationControllers().Lister().ReplicationControllers(ns)
		present = func() bool { o, err := lister.Get(name); return seen(o, err, obj, del) }
	case "rs":
		obj := &appsv1.ReplicaSet{ObjectMeta: meta, Spec: appsv1.ReplicaSetSpec{Selector: ls}}
		err = apply(ctx, w.client.AppsV1().ReplicaSets(ns), obj, del)
		lister := w.factory.Apps().V1().ReplicaSets().Lister().ReplicaSets(ns)
		present = func() bool { o, err := lister.Get(name); return seen(o, err, obj, del) }
	case "ss":
		obj := &appsv1.StatefulSet{ObjectMeta: meta, Spec: appsv1.StatefulSetSpec{Selector: ls}}
		err = apply(ctx, w.client.AppsV1().StatefulSets(ns), obj, del)
		lister := w.factory.Apps().V1().StatefulSets().Lister().StatefulSets(ns)
		present = func() bool { o, err := lister.Get(name); return seen(o, err, obj, del) }
	}
	if err != nil {
		t.Fatalf("%s %s/%s: %v", kind, ns, name, err)
	}
	waitFor(t, fmt.Sprintf("the %s lister to see %s/%s (deleted %v)", kind, ns, name, del), present)
}

// client is what apply needs of a typed client.
type client[T runtime.Object] interface {
	Create(context.Context, T, metav1.CreateOptions) (T, error)
	Update(context.Context, T, metav1.UpdateOptions) (T, error)
	Delete(context.Context, string, metav1.DeleteOptions) error
}

// apply deletes obj, or creates it, or updates it where it exists.
func apply[T interface {
	runtime.Object
	metav1.Object
}](ctx context.Context, c client[T], obj T, del bool) error {
	if del {
		return c.Delete(ctx, obj.GetName(), metav1.DeleteOptions{})
	}
	_, err := c.Update(ctx, obj, metav1.UpdateOptions{})
	if apierrors.IsNotFound(err) {
		_, err = c.Create(ctx, obj, metav1.CreateOptions{})
	}
	return err
}

// seen reports whether a lister's answer (o, err) shows obj, or, when del,
// its deletion.
func seen[T metav1.Object](o T, err error, obj T, del bool) bool {
	if del {
		return apierrors.IsNotFound(err)
	}
	return err == nil && o.GetResourceVersion() == obj.GetResourceVersion()
}

func waitFor(t *testing.T, what string, done func() bool) {
	t.Helper()
	for start := time.Now(); !done(); time.Sleep(100 * time.Microsecond) {
		if time.Since(start) > 10*time.Second {
			t.Fatalf("waited 10 s for %s", what)
		}
	}
}

// namespaceStep deletes one of genNamespaces or creates it again, and
// waits until the lister and the views have heard it.
func (w *cycleWorld) namespaceStep(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	ns := genNamespaces[w.g.r.IntN(len(genNamespaces))]
	lister := w.factory.Core().V1().Namespaces().Lister()
	_, err := lister.Get(ns.Name)
	exists := err == nil
	if exists {
		err = w.client.CoreV1().Namespaces().Delete(ctx, ns.Name, metav1.DeleteOptions{})
	} else {
		_, err = w.client.CoreV1().Namespaces().Create(ctx, ns.DeepCopy(), metav1.CreateOptions{})
	}
	if err != nil {
		t.Fatal(err)
	}
	w.events++
	waitFor(t, fmt.Sprintf("namespace %s (existed %v) to change", ns.Name, exists), func() bool {
		_, err := lister.Get(ns.Name)
		return (err == nil) != exists && (w.plugins == nil || w.plugins.ViewNamespaceChanges() >= w.events)
	})
}

// step applies one of gen's events to the cache: assigned pods added
// (some assumed, some terminating, some with required affinity and
// preferred terms), relabelled (assumed ones confirmed first) and deleted
// (assumed ones forgotten), and nodes added, relabelled and deleted.
func (w *cycleWorld) step(t *testing.T) {
	t.Helper()
	ev := w.g.next()
	var err error
	switch ev.what {
	case "assigned pod added":
		p := ev.new.(*v1.Pod)
		w.decorate(p)
		if w.g.pick(0.2) {
			err = w.cache.AssumePod(w.logger, p)
			w.assumed[p.UID] = true
		} else {
			err = w.cache.AddPod(w.logger, p)
		}
	case "assigned pod relabelled":
		old, p := ev.old.(*v1.Pod), ev.new.(*v1.Pod)
		if w.assumed[p.UID] {
			delete(w.assumed, p.UID)
			if err = w.cache.AddPod(w.logger, old); err != nil {
				break
			}
		}
		err = w.cache.UpdatePod(w.logger, old, p)
	case "assigned pod deleted":
		p := ev.old.(*v1.Pod)
		if w.assumed[p.UID] {
			delete(w.assumed, p.UID)
			err = w.cache.ForgetPod(w.logger, p)
		} else {
			err = w.cache.RemovePod(w.logger, p)
		}
	case "node added":
		w.cache.AddNode(w.logger, ev.new.(*v1.Node))
	case "node updated":
		w.cache.UpdateNode(w.logger, ev.old.(*v1.Node), ev.new.(*v1.Node))
	case "node deleted":
		err = w.cache.RemoveNode(w.logger, ev.old.(*v1.Node))
	}
	if err != nil {
		t.Fatalf("%s: %v", ev.what, err)
	}
}

// decorate gives a placed pod what gen's assigned pods lack: now and then
// required affinity, preferred terms of both kinds, and a deletion
// timestamp.
func (w *cycleWorld) decorate(p *v1.Pod) {
	g := w.g
	if g.pick(0.3) {
		if p.Spec.Affinity == nil {
			p.Spec.Affinity = &v1.Affinity{}
		}
		if g.pick(0.4) {
			p.Spec.Affinity.PodAffinity = &v1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: g.terms(1)}
		}
		addPreferred(g, p.Spec.Affinity)
	}
	if g.pick(0.05) {
		p.DeletionTimestamp = &metav1.Time{}
	}
}

// addPreferred adds up to two preferred affinity and anti-affinity terms
// of random weights.
func addPreferred(g *gen, a *v1.Affinity) {
	weighted := func() []v1.WeightedPodAffinityTerm {
		var out []v1.WeightedPodAffinityTerm
		for _, t := range g.terms(2) {
			out = append(out, v1.WeightedPodAffinityTerm{Weight: int32(1 + g.r.IntN(100)), PodAffinityTerm: t})
		}
		return out
	}
	if pref := weighted(); len(pref) > 0 {
		if a.PodAffinity == nil {
			a.PodAffinity = &v1.PodAffinity{}
		}
		a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution = pref
	}
	if pref := weighted(); len(pref) > 0 {
		if a.PodAntiAffinity == nil {
			a.PodAntiAffinity = &v1.PodAntiAffinity{}
		}
		a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution = pref
	}
}

// incoming returns a pod to schedule: gen's pending pods with preferred
// terms added, spread constraints with every minDomains and inclusion
// policy, now and then a node selector or toleration, and now and then of a
// pod group.
func (w *cycleWorld) incoming() *v1.Pod {
	g := w.g
	p := g.pendingPod(v1.DefaultSchedulerName)
	policies := []*v1.NodeInclusionPolicy{nil, ptr.To(v1.NodeInclusionPolicyHonor), ptr.To(v1.NodeInclusionPolicyIgnore)}
	for i := range p.Spec.TopologySpreadConstraints {
		c := &p.Spec.TopologySpreadConstraints[i]
		if g.pick(0.3) && c.WhenUnsatisfiable == v1.DoNotSchedule {
			c.MinDomains = ptr.To(int32(1 + g.r.IntN(4)))
		}
		c.NodeAffinityPolicy = policies[g.r.IntN(3)]
		c.NodeTaintsPolicy = policies[g.r.IntN(3)]
		c.MaxSkew = int32(1 + g.r.IntN(2))
	}
	if g.pick(0.2) {
		p.Spec.NodeSelector = map[string]string{v1.LabelTopologyZone: g.oneOf([]string{"z1", "z2"})}
	}
	switch {
	case g.pick(0.3):
		p.Spec.Tolerations = []v1.Toleration{{Key: "dedicated", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule}}
	case g.pick(0.2): // tolerates the nodes' dedicated=5 only with TaintTolerationComparisonOperators
		p.Spec.Tolerations = []v1.Toleration{{Key: "dedicated", Operator: v1.TolerationOpLt, Value: "9", Effect: v1.TaintEffectNoSchedule}}
	}
	if g.pick(0.03) {
		p.Status.Conditions = []v1.PodCondition{{Type: v1.PodResizePending, Status: v1.ConditionTrue, Reason: v1.PodReasonDeferred}}
	}
	if w.g.pick(0.5) {
		if p.Spec.Affinity == nil {
			p.Spec.Affinity = &v1.Affinity{}
		}
		addPreferred(w.g, p.Spec.Affinity)
	}
	if w.g.pick(0.1) {
		group := w.g.name("group")
		p.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: &group}
	}
	return p
}

// member returns another member of a group pod's group.
func (w *cycleWorld) member(p *v1.Pod) *v1.Pod {
	m := p.DeepCopy()
	m.Name = w.g.name("member")
	m.UID = types.UID("uid-" + m.Name)
	return m
}

func statusString(s *fwk.Status) string {
	if s.IsSuccess() {
		return "Success"
	}
	return fmt.Sprintf("%v %q", s.Code(), s.Reasons())
}

// runCycles runs n scheduling cycles over a random world with both
// plugins and fails at the first difference (compareCycle). A pod of a
// pod group is scheduled as kube-scheduler schedules a group: each member
// in a cycle marked as a pod group's, with the members before it assumed
// into the snapshot (Snapshot.AssumePod, which keeps the NodeInfo
// generations) and forgotten in reverse once the group is done; a member's
// cycle state is now and then a clone of the previous member's.
func runCycles(t *testing.T, seed uint64, n, extensions int, inTree, ours cyclePlugins, w *cycleWorld) {
	t.Helper()
	for cycle := range n {
		for range 1 + w.g.r.IntN(3) {
			w.step(t)
		}
		w.apiStep(t)
		if err := w.cache.UpdateSnapshot(w.logger, w.snapshot); err != nil {
			t.Fatal(err)
		}
		nodes, err := w.snapshot.NodeInfos().List()
		if err != nil {
			t.Fatal(err)
		}
		pod := w.incoming()
		if pod.Spec.SchedulingGroup == nil {
			at := func(what string) string {
				return fmt.Sprintf("seed %d cycle %d, pod %s/%s, %s", seed, cycle, pod.Namespace, pod.Name, what)
			}
			compareCycle(t, at, extensions, inTree, ours, w, framework.NewCycleState(), framework.NewCycleState(), pod, nodes)
			continue
		}
		var assumed []*v1.Pod
		var sa, sb fwk.CycleState
		for i := range 1 + w.g.r.IntN(4) {
			member := pod
			if i > 0 {
				member = w.member(pod)
			}
			if i > 0 && w.g.pick(0.5) {
				sa, sb = sa.Clone(), sb.Clone()
			} else {
				sa, sb = framework.NewCycleState(), framework.NewCycleState()
				sa.(*framework.CycleState).SetPodGroupSchedulingCycle(framework.NewCycleState())
				sb.(*framework.CycleState).SetPodGroupSchedulingCycle(framework.NewCycleState())
			}
			at := func(what string) string {
				return fmt.Sprintf("seed %d cycle %d, group member %d %s/%s (%d assumed), %s", seed, cycle, i, member.Namespace, member.Name, len(assumed), what)
			}
			compareCycle(t, at, extensions, inTree, ours, w, sa, sb, member, nodes)
			if len(nodes) == 0 {
				break
			}
			placed := member.DeepCopy()
			placed.Spec.NodeName = nodes[w.g.r.IntN(len(nodes))].Node().Name
			pi, err := framework.NewPodInfo(placed)
			if err != nil {
				break // its terms do not parse: the group goes no further
			}
			if err := w.snapshot.AssumePod(pi); err != nil {
				t.Fatal(err)
			}
			assumed = append(assumed, placed)
		}
		for _, p := range slices.Backward(assumed) {
			if err := w.snapshot.ForgetPod(w.logger, p); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// compareCycle runs one scheduling cycle of pod with both plugins, sa the
// in-tree plugin's state and sb the wrapper's, and fails at the first
// difference: PreFilter's result and status, Filter's status on every node
// (also after a random sequence of preemption's RemovePod and AddPod and
// nominated pods' AddPod on a clone of the state), PreScore's status,
// Score on every node and the normalised scores.
func compareCycle(t *testing.T, at func(string) string, extensions int, inTree, ours cyclePlugins, w *cycleWorld, sa, sb fwk.CycleState, pod *v1.Pod, nodes []fwk.NodeInfo) {
	t.Helper()
	ctx := context.Background()
	ra, pa := inTree.PreFilter(ctx, sa, pod, nodes)
	rb, pb := ours.PreFilter(ctx, sb, pod, nodes)
	if statusString(pa) != statusString(pb) || fmt.Sprint(ra) != fmt.Sprint(rb) {
		t.Fatalf("%s: PreFilter %v %s, in-tree %v %s", at("PreFilter"), rb, statusString(pb), ra, statusString(pa))
	}
	if pa.IsSuccess() {
		compareFilters(t, at, inTree, ours, sa, sb, pod, nodes)
		// Preemption and nominated pods: a clone changed by AddPod and
		// RemovePod, the base left as it was.
		ca, cb := sa.Clone(), sb.Clone()
		for i := range w.g.r.IntN(extensions + 1) {
			if len(nodes) == 0 {
				break
			}
			ni := nodes[w.g.r.IntN(len(nodes))]
			var pi fwk.PodInfo
			add := w.g.pick(0.5) || len(ni.GetPods()) == 0
			if add {
				p := w.g.assignedPod()
				p.Spec.NodeName = ni.Node().Name
				w.decorate(p)
				var err error
				if pi, err = framework.NewPodInfo(p); err != nil {
					continue
				}
			} else {
				pi = ni.GetPods()[w.g.r.IntN(len(ni.GetPods()))]
			}
			var xa, xb *fwk.Status
			if add {
				xa = inTree.PreFilterExtensions().AddPod(ctx, ca, pod, pi, ni)
				xb = ours.PreFilterExtensions().AddPod(ctx, cb, pod, pi, ni)
			} else {
				xa = inTree.PreFilterExtensions().RemovePod(ctx, ca, pod, pi, ni)
				xb = ours.PreFilterExtensions().RemovePod(ctx, cb, pod, pi, ni)
			}
			if statusString(xa) != statusString(xb) {
				t.Fatalf("%s: %s, in-tree %s", at(fmt.Sprintf("extension %d (add %v)", i, add)), statusString(xb), statusString(xa))
			}
			compareFilters(t, func(s string) string { return at(fmt.Sprintf("after extension %d (add %v), %s", i, add, s)) }, inTree, ours, ca, cb, pod, nodes)
		}
		compareFilters(t, func(s string) string { return at("base after extensions, " + s) }, inTree, ours, sa, sb, pod, nodes)
	}
	// PreScore and Score are given the nodes that passed Filter: some
	// of them, which may lack the pairs that counted.
	var scored []fwk.NodeInfo
	for _, ni := range nodes {
		if w.g.pick(0.6) {
			scored = append(scored, ni)
		}
	}
	qa, qb := inTree.PreScore(ctx, sa, pod, scored), ours.PreScore(ctx, sb, pod, scored)
	if statusString(qa) != statusString(qb) {
		t.Fatalf("%s: PreScore %s, in-tree %s", at("PreScore"), statusString(qb), statusString(qa))
	}
	if !qa.IsSuccess() {
		return
	}
	var la, lb fwk.NodeScoreList
	for _, ni := range scored {
		a, xa := inTree.Score(ctx, sa, pod, ni)
		b, xb := ours.Score(ctx, sb, pod, ni)
		if a != b || statusString(xa) != statusString(xb) {
			t.Fatalf("%s: Score %d %s, in-tree %d %s", at("Score on "+ni.Node().Name), b, statusString(xb), a, statusString(xa))
		}
		la = append(la, fwk.NodeScore{Name: ni.Node().Name, Score: a})
		lb = append(lb, fwk.NodeScore{Name: ni.Node().Name, Score: b})
	}
	xa := inTree.ScoreExtensions().NormalizeScore(ctx, sa, pod, la)
	xb := ours.ScoreExtensions().NormalizeScore(ctx, sb, pod, lb)
	if statusString(xa) != statusString(xb) || !slices.Equal(la, lb) {
		t.Fatalf("%s: normalised %v %s, in-tree %v %s", at("NormalizeScore"), lb, statusString(xb), la, statusString(xa))
	}
}

func compareFilters(t *testing.T, at func(string) string, inTree, ours cyclePlugins, sa, sb fwk.CycleState, pod *v1.Pod, nodes []fwk.NodeInfo) {
	t.Helper()
	ctx := context.Background()
	for _, ni := range nodes {
		a, b := inTree.Filter(ctx, sa, pod, ni), ours.Filter(ctx, sb, pod, ni)
		if statusString(a) != statusString(b) {
			t.Fatalf("%s: Filter %s, in-tree %s", at("Filter on "+ni.Node().Name), statusString(b), statusString(a))
		}
	}
}

// startWorld starts the informers and waits until the views have heard
// the namespaces the client starts with.
func startWorld(t *testing.T, ctx context.Context, w *cycleWorld, plugins *affinityq.Plugins) {
	t.Helper()
	w.factory.Start(ctx.Done())
	w.factory.WaitForCacheSync(ctx.Done())
	w.plugins, w.events = plugins, uint64(len(genNamespaces))
	waitFor(t, "the views to hear the namespaces", func() bool { return plugins.ViewNamespaceChanges() >= w.events })
}

// TestInterPodAffinityCycles runs the in-tree InterPodAffinity and its
// wrapper side by side in the same scheduling cycles over random worlds
// and compares every answer (runCycles), under both values of
// InPlacePodVerticalScalingSchedulerPreemption, and once with
// InterPodAffinityHostnameFastPath on (the in-tree plugin answers).
func TestInterPodAffinityCycles(t *testing.T) {
	seeds, cycles := 10, 1000
	if testing.Short() {
		seeds, cycles = 4, 250
	}
	for seed := range uint64(seeds) {
		fts := feature.NewSchedulerFeaturesFromGates(utilfeature.DefaultFeatureGate)
		fts.EnableInPlacePodVerticalScalingSchedulerPreemption = seed%2 == 1
		fts.EnableInterPodAffinityHostnameFastPath = seed == 9
		args := &config.InterPodAffinityArgs{HardPodAffinityWeight: int32(seed % 3), IgnorePreferredTermsOfExistingPods: seed%4 == 3}
		w, h, factory := newCycleWorld(t, seed)
		ctx, cancel := context.WithCancel(context.Background())
		inTree, err := interpodaffinity.New(ctx, args, h, fts)
		if err != nil {
			t.Fatal(err)
		}
		plugins := affinityq.New(affinityq.WithFeatures(fts))
		ours, err := plugins.NewInterPodAffinity(ctx, args, h)
		if err != nil {
			t.Fatal(err)
		}
		if !fts.EnableInterPodAffinityHostnameFastPath {
			startWorld(t, ctx, w, plugins)
		} else {
			factory.Start(ctx.Done())
			factory.WaitForCacheSync(ctx.Done())
		}
		runCycles(t, seed, cycles, 3, inTree.(cyclePlugins), ours.(cyclePlugins), w)
		answered, fallbacks := plugins.CycleStats()
		if len(fallbacks) > 0 || answered[affinityq.InterPodAffinityName] == 0 && !fts.EnableInterPodAffinityHostnameFastPath {
			t.Errorf("seed %d: %d PreFilters answered from the index; fallbacks %v", seed, answered[affinityq.InterPodAffinityName], fallbacks)
		}
		cancel()
		factory.Shutdown()
	}
}

// spreadDefaults are the PodTopologySpread arguments the cycle test runs
// under: the system defaults, soft and hard list defaults, and a list of
// both with matchLabelKeys and inclusion policies.
var spreadDefaults = []*config.PodTopologySpreadArgs{
	{DefaultingType: config.SystemDefaulting},
	{DefaultingType: config.ListDefaulting, DefaultConstraints: []v1.TopologySpreadConstraint{
		{MaxSkew: 2, TopologyKey: v1.LabelTopologyZone, WhenUnsatisfiable: v1.ScheduleAnyway}}},
	{DefaultingType: config.ListDefaulting, DefaultConstraints: []v1.TopologySpreadConstraint{
		{MaxSkew: 1, TopologyKey: v1.LabelTopologyZone, WhenUnsatisfiable: v1.DoNotSchedule}}},
	{DefaultingType: config.ListDefaulting, DefaultConstraints: []v1.TopologySpreadConstraint{
		{MaxSkew: 1, TopologyKey: v1.LabelHostname, WhenUnsatisfiable: v1.DoNotSchedule, MatchLabelKeys: []string{"version"},
			NodeTaintsPolicy: ptr.To(v1.NodeInclusionPolicyHonor)},
		{MaxSkew: 2, TopologyKey: v1.LabelTopologyZone, WhenUnsatisfiable: v1.DoNotSchedule, MinDomains: ptr.To(int32(2)),
			NodeAffinityPolicy: ptr.To(v1.NodeInclusionPolicyIgnore)},
		{MaxSkew: 1, TopologyKey: v1.LabelTopologyRegion, WhenUnsatisfiable: v1.ScheduleAnyway}}},
}

// TestPodTopologySpreadCycles runs the in-tree PodTopologySpread and its
// wrapper side by side in the same scheduling cycles over random worlds
// and compares every answer (runCycles), under every spreadDefaults and
// every combination of the gates the plug-in reads:
// MatchLabelKeysInPodTopologySpread, NodeInclusionPolicyInPodTopologySpread,
// TaintTolerationComparisonOperators, and
// InPlacePodVerticalScalingSchedulerPreemption. A clone of the PreFilter
// state gets one AddPod or RemovePod: after several, the in-tree plugin's
// smallest domain depends on its map order when domains tie, so that no
// implementation can match it.
func TestPodTopologySpreadCycles(t *testing.T) {
	seeds, cycles := 64, 500
	if testing.Short() {
		seeds, cycles = 64, 40
	}
	for seed := range uint64(seeds) {
		fts := feature.NewSchedulerFeaturesFromGates(utilfeature.DefaultFeatureGate)
		combo := seed / uint64(len(spreadDefaults))
		fts.EnableMatchLabelKeysInPodTopologySpread = combo&1 == 0
		fts.EnableNodeInclusionPolicyInPodTopologySpread = combo&2 == 0
		fts.EnableTaintTolerationComparisonOperators = combo&4 != 0
		fts.EnableInPlacePodVerticalScalingSchedulerPreemption = combo&8 != 0
		args := spreadDefaults[seed%uint64(len(spreadDefaults))]
		w, h, factory := newCycleWorld(t, 100+seed)
		ctx, cancel := context.WithCancel(context.Background())
		inTree, err := podtopologyspread.New(ctx, args, h, fts)
		if err != nil {
			t.Fatal(err)
		}
		plugins := affinityq.New(affinityq.WithFeatures(fts))
		ours, err := plugins.NewPodTopologySpread(ctx, args, h)
		if err != nil {
			t.Fatal(err)
		}
		startWorld(t, ctx, w, plugins)
		runCycles(t, seed, cycles, 1, inTree.(cyclePlugins), ours.(cyclePlugins), w)
		answered, fallbacks := plugins.CycleStats()
		if len(fallbacks) > 0 || answered[affinityq.PodTopologySpreadName] == 0 {
			t.Errorf("seed %d: %d PreFilters answered from the index; fallbacks %v", seed, answered[affinityq.PodTopologySpreadName], fallbacks)
		}
		cancel()
		factory.Shutdown()
	}
}

// TestCycleMetrics checks that the wrappers' series are in kube-scheduler's
// registry with what a few cycles recorded.
func TestCycleMetrics(t *testing.T) {
	fts := feature.NewSchedulerFeaturesFromGates(utilfeature.DefaultFeatureGate)
	w, h, factory := newCycleWorld(t, 7)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	inTree, err := interpodaffinity.New(ctx, &config.InterPodAffinityArgs{}, h, fts)
	if err != nil {
		t.Fatal(err)
	}
	ours, err := affinityq.New(affinityq.WithFeatures(fts)).NewInterPodAffinity(ctx, &config.InterPodAffinityArgs{}, h)
	if err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	runCycles(t, 7, 50, 1, inTree.(cyclePlugins), ours.(cyclePlugins), w)
	got := series(t)
	if got["affinityq_cycle_answers_total,plugin="+affinityq.InterPodAffinityName] == 0 {
		t.Errorf("affinityq_cycle_answers_total for %s missing or 0", affinityq.InterPodAffinityName)
	}
	for _, name := range []string{"affinityq_placed_pods", "affinityq_placed_shapes,kind=placed", "affinityq_placed_shapes,kind=incoming", "affinityq_placed_shape_bytes"} {
		if _, ok := got[name]; !ok {
			t.Errorf("series %s missing", name)
		}
	}
}

// TestSyncOnlyWhenPlacedPodsCount checks when the wrappers sync their
// index, answering as the in-tree plugins do: not at all for a pod without
// terms while no placed pod has affinity (the snapshot says so), once per
// cycle for a pod that has terms (the spread wrapper's PreFilter and both
// PreScores reuse the affinity wrapper's sync), and again for a pod
// without terms once a placed pod has required anti-affinity.
func TestSyncOnlyWhenPlacedPodsCount(t *testing.T) {
	metrics.Register()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logger := klog.FromContext(ctx)
	c := internalcache.New(ctx, nil, false, false)
	snapshot := internalcache.NewEmptySnapshot()
	for i := range 4 {
		name := fmt.Sprintf("node-%d", i)
		c.AddNode(logger, &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
			v1.LabelHostname: name, v1.LabelTopologyZone: fmt.Sprintf("z%d", i%2)}}})
	}
	placedPod := func(i int, a *v1.Affinity) *v1.Pod {
		return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("p%d", i), Namespace: "ns0", UID: types.UID(fmt.Sprintf("uid-%d", i)),
			Labels: map[string]string{"app": "web"}}, Spec: v1.PodSpec{NodeName: fmt.Sprintf("node-%d", i%4), Affinity: a}}
	}
	for i := range 6 {
		if err := c.AddPod(logger, placedPod(i, nil)); err != nil {
			t.Fatal(err)
		}
	}
	factory := informers.NewSharedInformerFactory(fake.NewClientset(&v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns0"}}), 0)
	h, err := frameworkruntime.NewFramework(ctx, nil, nil, frameworkruntime.WithSnapshotSharedLister(snapshot),
		frameworkruntime.WithInformerFactory(factory), frameworkruntime.WithParallelism(1))
	if err != nil {
		t.Fatal(err)
	}
	fts := feature.NewSchedulerFeaturesFromGates(utilfeature.DefaultFeatureGate)
	plugins := affinityq.New(affinityq.WithFeatures(fts))
	affinityArgs := &config.InterPodAffinityArgs{HardPodAffinityWeight: 1}
	spreadArgs := &config.PodTopologySpreadArgs{DefaultingType: config.SystemDefaulting}
	var inTree, ours [2]cyclePlugins
	for i, build := range []func() (fwk.Plugin, error){
		func() (fwk.Plugin, error) { return interpodaffinity.New(ctx, affinityArgs, h, fts) },
		func() (fwk.Plugin, error) { return podtopologyspread.New(ctx, spreadArgs, h, fts) },
		func() (fwk.Plugin, error) { return plugins.NewInterPodAffinity(ctx, affinityArgs, h) },
		func() (fwk.Plugin, error) { return plugins.NewPodTopologySpread(ctx, spreadArgs, h) },
	} {
		pl, err := build()
		if err != nil {
			t.Fatal(err)
		}
		if i < 2 {
			inTree[i] = pl.(cyclePlugins)
		} else {
			ours[i-2] = pl.(cyclePlugins)
		}
	}
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	web := func() *metav1.LabelSelector {
		return &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	}
	plain := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "plain", Namespace: "ns0", UID: "plain", Labels: map[string]string{"app": "web"}}}
	withTerms := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "terms", Namespace: "ns0", UID: "terms", Labels: map[string]string{"app": "web"}},
		Spec: v1.PodSpec{
			Affinity: &v1.Affinity{PodAffinity: &v1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
				TopologyKey: v1.LabelTopologyZone, LabelSelector: web()}}}},
			TopologySpreadConstraints: []v1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: v1.LabelHostname,
				WhenUnsatisfiable: v1.ScheduleAnyway, LabelSelector: web()}},
		}}
	// cycle runs PreFilter and PreScore of both plugins in one cycle state
	// per implementation, comparing the statuses, and checks the walks.
	cycle := func(pod *v1.Pod, walks uint64, what string) {
		t.Helper()
		if err := c.UpdateSnapshot(logger, snapshot); err != nil {
			t.Fatal(err)
		}
		nodes, err := snapshot.NodeInfos().List()
		if err != nil {
			t.Fatal(err)
		}
		sa, sb := framework.NewCycleState(), framework.NewCycleState()
		for i := range inTree {
			_, pa := inTree[i].PreFilter(ctx, sa, pod, nodes)
			_, pb := ours[i].PreFilter(ctx, sb, pod, nodes)
			if statusString(pa) != statusString(pb) {
				t.Fatalf("%s: plugin %d: PreFilter %s, in-tree %s", what, i, statusString(pb), statusString(pa))
			}
		}
		for i := range inTree {
			qa, qb := inTree[i].PreScore(ctx, sa, pod, nodes), ours[i].PreScore(ctx, sb, pod, nodes)
			if statusString(qa) != statusString(qb) {
				t.Fatalf("%s: plugin %d: PreScore %s, in-tree %s", what, i, statusString(qb), statusString(qa))
			}
		}
		if got := plugins.ViewWalks(); got != walks {
			t.Fatalf("%s: %d walks of the node list, want %d", what, got, walks)
		}
	}
	cycle(plain, 0, "a pod without terms, no placed pod with affinity")
	cycle(withTerms, 1, "a pod with terms")
	cycle(withTerms, 2, "a pod with terms, the next cycle")
	cycle(plain, 2, "a pod without terms again")
	anti := &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
		TopologyKey: v1.LabelHostname, LabelSelector: web()}}}}
	if err := c.AddPod(logger, placedPod(6, anti)); err != nil {
		t.Fatal(err)
	}
	cycle(plain, 3, "a pod without terms, a placed pod with required anti-affinity")
}

// TestNilCycleState calls the extension points as kube-scheduler's own unit
// tests may, with a nil cycle state (a nil interface and a nil
// *framework.CycleState) or an empty one: where the in-tree plugin answers
// without reading the state (a pod whose resize is deferred), the wrapper
// answers the same; elsewhere a nil state is an Error, never a panic, and
// an empty one gets the in-tree plugin's answer.
func TestNilCycleState(t *testing.T) {
	deferred := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "deferred", Namespace: "ns0", UID: "deferred"},
		Status: v1.PodStatus{Conditions: []v1.PodCondition{{Type: v1.PodResizePending, Status: v1.ConditionTrue, Reason: v1.PodReasonDeferred}}}}
	plain := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "plain", Namespace: "ns0", UID: "plain"}}
	ni := framework.NewNodeInfo()
	ni.SetNode(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n", Labels: map[string]string{v1.LabelHostname: "n"}}})
	ctx := context.Background()
	for _, resize := range []bool{false, true} {
		fts := feature.NewSchedulerFeaturesFromGates(utilfeature.DefaultFeatureGate)
		fts.EnableInPlacePodVerticalScalingSchedulerPreemption = resize
		_, h, _ := newCycleWorld(t, 1)
		plugins := affinityq.New(affinityq.WithFeatures(fts))
		affinity, err := plugins.NewInterPodAffinity(ctx, &config.InterPodAffinityArgs{}, h)
		if err != nil {
			t.Fatal(err)
		}
		spread, err := plugins.NewPodTopologySpread(ctx, &config.PodTopologySpreadArgs{DefaultingType: config.SystemDefaulting}, h)
		if err != nil {
			t.Fatal(err)
		}
		affinityIn, err := interpodaffinity.New(ctx, &config.InterPodAffinityArgs{}, h, fts)
		if err != nil {
			t.Fatal(err)
		}
		spreadIn, err := podtopologyspread.New(ctx, &config.PodTopologySpreadArgs{DefaultingType: config.SystemDefaulting}, h, fts)
		if err != nil {
			t.Fatal(err)
		}
		for i, pl := range []cyclePlugins{affinity.(cyclePlugins), spread.(cyclePlugins)} {
			inTree := []cyclePlugins{affinityIn.(cyclePlugins), spreadIn.(cyclePlugins)}[i]
			at := fmt.Sprintf("%s, resize gate %v", pl.Name(), resize)
			for _, state := range []fwk.CycleState{nil, (*framework.CycleState)(nil)} {
				if got := pl.Filter(ctx, state, deferred, ni); resize != got.IsSuccess() || !resize && got.Code() != fwk.Error {
					t.Errorf("%s: Filter(%T nil state, deferred pod) = %s", at, state, statusString(got))
				}
				if got := pl.Filter(ctx, state, plain, ni); got.Code() != fwk.Error {
					t.Errorf("%s: Filter(%T nil state) = %s, want Error", at, state, statusString(got))
				}
				if _, got := pl.PreFilter(ctx, state, deferred, nil); resize != got.IsSkip() {
					t.Errorf("%s: PreFilter(%T nil state, deferred pod) = %s", at, state, statusString(got))
				}
				if got := pl.PreScore(ctx, state, plain, []fwk.NodeInfo{ni}); got.Code() != fwk.Error {
					t.Errorf("%s: PreScore(%T nil state) = %s, want Error", at, state, statusString(got))
				}
				if _, got := pl.Score(ctx, state, plain, ni); got.Code() != fwk.Error {
					t.Errorf("%s: Score(%T nil state) = %s, want Error", at, state, statusString(got))
				}
				if got := pl.ScoreExtensions().NormalizeScore(ctx, state, plain, fwk.NodeScoreList{{Name: "n"}}); got.Code() != fwk.Error {
					t.Errorf("%s: NormalizeScore(%T nil state) = %s, want Error", at, state, statusString(got))
				}
				pi, _ := framework.NewPodInfo(plain)
				if got := pl.PreFilterExtensions().AddPod(ctx, state, plain, pi, ni); got.Code() != fwk.Error {
					t.Errorf("%s: AddPod(%T nil state) = %s, want Error", at, state, statusString(got))
				}
			}
			if resize {
				if a, b := inTree.Filter(ctx, nil, deferred, ni), pl.Filter(ctx, nil, deferred, ni); statusString(a) != statusString(b) {
					t.Errorf("%s: Filter(nil state, deferred pod) = %s, in-tree %s", at, statusString(b), statusString(a))
				}
			}
			empty := framework.NewCycleState()
			if a, b := inTree.Filter(ctx, empty, plain, ni), pl.Filter(ctx, empty, plain, ni); statusString(a) != statusString(b) {
				t.Errorf("%s: Filter(empty state) = %s, in-tree %s", at, statusString(b), statusString(a))
			}
			_, a := inTree.Score(ctx, empty, plain, ni)
			if _, b := pl.Score(ctx, empty, plain, ni); statusString(a) != statusString(b) {
				t.Errorf("%s: Score(empty state) = %s, in-tree %s", at, statusString(b), statusString(a))
			}
		}
	}
}
