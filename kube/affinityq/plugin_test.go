package affinityq_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/interpodaffinity"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/podtopologyspread"

	"github.com/affinityq/affinityq/kube/affinityq"
)

// inTreeTwin builds the in-tree plugin a wrapper wraps, with the default
// arguments, over the same handle.
func inTreeTwin(t *testing.T, name string, h fwk.Handle) fwk.Plugin {
	t.Helper()
	ctx := klog.NewContext(context.Background(), klog.Logger(logr.Discard()))
	fts := feature.NewSchedulerFeaturesFromGates(utilfeature.DefaultFeatureGate)
	var p fwk.Plugin
	var err error
	switch name {
	case affinityq.InterPodAffinityName:
		p, err = interpodaffinity.New(ctx, &config.InterPodAffinityArgs{HardPodAffinityWeight: 1}, h, fts)
	case affinityq.PodTopologySpreadName:
		p, err = podtopologyspread.New(ctx, &config.PodTopologySpreadArgs{DefaultingType: config.SystemDefaulting}, h, fts)
	}
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// wrapperOf returns the enqueue extension of plugin name in fw.
func wrapperOf(t testing.TB, fw framework.Framework, name string) fwk.EnqueueExtensions {
	t.Helper()
	for _, ext := range fw.EnqueueExtensions() {
		if ext.Name() == name {
			return ext
		}
	}
	t.Fatalf("profile %s has no plugin %s", fw.ProfileName(), name)
	return nil
}

func registrations(t testing.TB, ext fwk.EnqueueExtensions) []fwk.ClusterEventWithHint {
	t.Helper()
	events, err := ext.EventsToRegister(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return events
}

// preHinted returns the labels of the registrations that carry a
// PreQueueingHintFn, sorted.
func preHinted(events []fwk.ClusterEventWithHint) []string {
	var out []string
	for _, e := range events {
		if e.PreQueueingHintFn != nil {
			out = append(out, e.Event.Label())
		}
	}
	slices.Sort(out)
	return out
}

func TestEventsToRegister(t *testing.T) {
	for _, tc := range []struct {
		name   string
		config string
		want   map[string][]string // pre-hinted registrations per wrapper
	}{
		{
			// The default plugins register node additions and updates and
			// assigned-pod deletions without a pre-hint (NodeResourcesFit,
			// NodePorts, DefaultPreemption...): those stay unnarrowed.
			name:   "README configuration",
			config: readmeConfig(t),
			want: map[string][]string{
				affinityq.InterPodAffinityName:  {"AssignedPodAdd", "AssignedPodUpdatePodLabel"},
				affinityq.PodTopologySpreadName: {"AssignedPodAdd", "AssignedPodUpdatePodLabel", "NodeDelete"},
			},
		},
		{
			name:   "wrappers only",
			config: wrappersOnly,
			want: map[string][]string{
				affinityq.InterPodAffinityName:  {"AssignedPodAdd", "AssignedPodDelete", "AssignedPodUpdatePodLabel", "NodeAdd", "NodeUpdateNodeLabel"},
				affinityq.PodTopologySpreadName: {"AssignedPodAdd", "AssignedPodDelete", "AssignedPodUpdatePodLabel", "NodeAdd", "NodeDelete", "NodeUpdateNodeLabel", "NodeUpdateNodeTaint"},
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newScheduler(t, tc.config)
			fw := s.frameworks[v1.DefaultSchedulerName]
			for name, want := range tc.want {
				events := registrations(t, wrapperOf(t, fw, name))
				if diff := cmp.Diff(want, preHinted(events)); diff != "" {
					t.Errorf("%s: pre-hinted events (-want +got):\n%s", name, diff)
				}
				// The wrapper registers what the in-tree plugin does: every
				// incoming event matches one registration of each or of none.
				twin := registrations(t, inTreeTwin(t, name, fw).(fwk.EnqueueExtensions))
				actions := []fwk.ActionType{fwk.Update, fwk.All}
				for a := fwk.ActionType(1); a < fwk.All; a <<= 1 {
					actions = append(actions, a)
				}
				for _, r := range []fwk.EventResource{fwk.AssignedPod, fwk.UnscheduledPod, fwk.TargetPod, fwk.Node, fwk.ResourceClaim} {
					for _, a := range actions {
						in := fwk.ClusterEvent{Resource: r, ActionType: a}
						matches := func(es []fwk.ClusterEventWithHint) bool {
							return slices.ContainsFunc(es, func(e fwk.ClusterEventWithHint) bool { return framework.MatchClusterEvents(e.Event, in) })
						}
						if matches(events) != matches(twin) {
							t.Errorf("%s: incoming %s matches the wrapper: %v, the in-tree plugin: %v", name, in.Label(), matches(events), matches(twin))
						}
					}
				}
			}
		})
	}
}

// cluster is a small cluster for comparing the wrappers with the in-tree
// plugins: three nodes over two zones, assigned pods with labels, affinity
// and anti-affinity, and pending pods with every kind of term.
func cluster() (nodes []*v1.Node, assigned, pending []*v1.Pod) {
	for i, zone := range []string{"z1", "z1", "z2"} {
		name := "node-" + string(rune('a'+i))
		nodes = append(nodes, &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{v1.LabelHostname: name, v1.LabelTopologyZone: zone}}})
	}
	pod := func(name, node string, labels map[string]string) *v1.Pod {
		return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID(name), Labels: labels}, Spec: v1.PodSpec{NodeName: node, SchedulerName: v1.DefaultSchedulerName}}
	}
	term := func(app, key string) v1.PodAffinityTerm {
		return v1.PodAffinityTerm{LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}, TopologyKey: key}
	}
	db := pod("db", "node-a", map[string]string{"app": "db"})
	guard := pod("guard", "node-c", map[string]string{"app": "guard"})
	guard.Spec.Affinity = &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{term("web", v1.LabelHostname)}}}
	web1 := pod("web-1", "node-b", map[string]string{"app": "web"})
	assigned = []*v1.Pod{db, guard, web1}

	withDB := pod("with-db", "", map[string]string{"app": "web"})
	withDB.Spec.Affinity = &v1.Affinity{
		PodAffinity:     &v1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{term("db", v1.LabelTopologyZone)}},
		PodAntiAffinity: &v1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{term("web", v1.LabelHostname)}},
		NodeAffinity:    nil,
	}
	withDB.Spec.Affinity.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution = []v1.WeightedPodAffinityTerm{{Weight: 5, PodAffinityTerm: term("web", v1.LabelTopologyZone)}}
	spread := pod("spread", "", map[string]string{"app": "web"})
	spread.Spec.TopologySpreadConstraints = []v1.TopologySpreadConstraint{
		{MaxSkew: 1, TopologyKey: v1.LabelTopologyZone, WhenUnsatisfiable: v1.DoNotSchedule, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
		{MaxSkew: 1, TopologyKey: v1.LabelHostname, WhenUnsatisfiable: v1.ScheduleAnyway, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
	}
	plain := pod("plain", "", map[string]string{"app": "web"})
	pending = []*v1.Pod{withDB, spread, plain}
	return nodes, assigned, pending
}

// TestDelegation runs every extension point of each wrapper and of its
// in-tree twin on the same cluster and compares the results.
func TestDelegation(t *testing.T) {
	nodes, assigned, pending := cluster()
	snapshot := internalcache.NewSnapshot(assigned, nodes)
	s := newSchedulerWithSnapshot(t, wrappersOnly, snapshot)
	fw := s.frameworks[v1.DefaultSchedulerName]
	infos, err := snapshot.NodeInfos().List()
	if err != nil {
		t.Fatal(err)
	}
	ctx := klog.NewContext(context.Background(), klog.Logger(logr.Discard()))
	statusOpt := cmp.Comparer(func(a, b *fwk.Status) bool {
		if a == nil || b == nil {
			return a.Code() == b.Code() // a nil Status is a success
		}
		return a.Code() == b.Code() && slices.Equal(a.Reasons(), b.Reasons())
	})
	rejections := 0 // Filter rejections seen: the comparison is not vacuous
	for _, name := range []string{affinityq.InterPodAffinityName, affinityq.PodTopologySpreadName} {
		wrapper := wrapperOf(t, fw, name).(interface {
			fwk.PreFilterPlugin
			fwk.FilterPlugin
			fwk.PreScorePlugin
			fwk.ScorePlugin
			fwk.SignPlugin
		})
		twin := inTreeTwin(t, name, fw).(interface {
			fwk.PreFilterPlugin
			fwk.FilterPlugin
			fwk.PreScorePlugin
			fwk.ScorePlugin
			fwk.SignPlugin
		})
		if got := wrapper.Name(); got != name {
			t.Errorf("Name() = %q, want %q", got, name)
		}
		for _, pod := range pending {
			ws, ts := framework.NewCycleState(), framework.NewCycleState()
			check := func(what string, got, want any) {
				t.Helper()
				if diff := cmp.Diff(want, got, statusOpt); diff != "" {
					t.Errorf("%s, pod %s: %s (-in-tree +wrapper):\n%s", name, pod.Name, what, diff)
				}
			}
			wr, wst := wrapper.PreFilter(ctx, ws, pod, infos)
			tr, tst := twin.PreFilter(ctx, ts, pod, infos)
			check("PreFilter result", wr, tr)
			check("PreFilter status", wst, tst)
			if wst.IsSkip() {
				continue
			}
			for _, ni := range infos {
				st := wrapper.Filter(ctx, ws, pod, ni)
				check("Filter on "+ni.Node().Name, st, twin.Filter(ctx, ts, pod, ni))
				if !st.IsSuccess() {
					rejections++
				}
			}
			ext, text := wrapper.PreFilterExtensions(), twin.PreFilterExtensions()
			if (ext == nil) != (text == nil) {
				t.Fatalf("%s: PreFilterExtensions nil: %v, in-tree: %v", name, ext == nil, text == nil)
			}
			if ext != nil {
				pi, err := framework.NewPodInfo(assigned[2])
				if err != nil {
					t.Fatal(err)
				}
				ni := infos[0].Snapshot()
				check("RemovePod", ext.RemovePod(ctx, ws, pod, pi, ni), text.RemovePod(ctx, ts, pod, pi, ni))
				check("Filter after RemovePod", wrapper.Filter(ctx, ws, pod, infos[1]), twin.Filter(ctx, ts, pod, infos[1]))
				check("AddPod", ext.AddPod(ctx, ws, pod, pi, ni), text.AddPod(ctx, ts, pod, pi, ni))
			}
			check("PreScore", wrapper.PreScore(ctx, ws, pod, infos), twin.PreScore(ctx, ts, pod, infos))
			var wscores, tscores fwk.NodeScoreList
			for _, ni := range infos {
				w, wst := wrapper.Score(ctx, ws, pod, ni)
				tv, tst := twin.Score(ctx, ts, pod, ni)
				check("Score status on "+ni.Node().Name, wst, tst)
				wscores = append(wscores, fwk.NodeScore{Name: ni.Node().Name, Score: w})
				tscores = append(tscores, fwk.NodeScore{Name: ni.Node().Name, Score: tv})
			}
			check("Score", wscores, tscores)
			if se, tse := wrapper.ScoreExtensions(), twin.ScoreExtensions(); se != nil && tse != nil {
				check("NormalizeScore status", se.NormalizeScore(ctx, ws, pod, wscores), tse.NormalizeScore(ctx, ts, pod, tscores))
				check("NormalizeScore", wscores, tscores)
			} else if (se == nil) != (tse == nil) {
				t.Errorf("%s: ScoreExtensions nil: %v, in-tree: %v", name, se == nil, tse == nil)
			}
			wf, wsig := wrapper.SignPod(ctx, pod)
			tf, tsig := twin.SignPod(ctx, pod)
			check("SignPod fragments", wf, tf)
			check("SignPod status", wsig, tsig)
		}
	}
	if rejections == 0 {
		t.Error("no Filter rejected any pod: the cluster does not exercise the plugins")
	}
}

// preHintOf returns the PreQueueingHintFn name registers for ev.
func preHintOf(t testing.TB, fw framework.Framework, name string, ev fwk.ClusterEvent) fwk.PreQueueingHintFn {
	t.Helper()
	for _, e := range registrations(t, wrapperOf(t, fw, name)) {
		if e.Event == ev && e.PreQueueingHintFn != nil {
			return e.PreQueueingHintFn
		}
	}
	t.Fatalf("%s registers no pre-hint for %s", name, ev.Label())
	return nil
}

func TestPreQueueingHintAllPods(t *testing.T) {
	web := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web", UID: "web"}, Spec: v1.PodSpec{SchedulerName: v1.DefaultSchedulerName,
		Affinity: &v1.Affinity{PodAffinity: &v1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}, TopologyKey: "zone",
		}}}}}}
	s := newScheduler(t, wrappersOnly, web)
	s.start(t)
	fw := s.frameworks[v1.DefaultSchedulerName]
	logger := klog.Logger(logr.Discard())
	add := preHintOf(t, fw, affinityq.InterPodAffinityName, framework.EventAssignedPodAdd)
	del := preHintOf(t, fw, affinityq.InterPodAffinityName, framework.EventAssignedPodDelete)
	assigned := func(labels map[string]string) *v1.Pod {
		return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "q", UID: "q", Labels: labels}, Spec: v1.PodSpec{NodeName: "n"}}
	}
	// A pending pod the wrapper has not rejected cannot be parked with it
	// among its rejectors: the pre-hint does not name it.
	got, err := add(logger, nil, assigned(map[string]string{"app": "db"}))
	if err != nil || got.AllPods || len(got.Pods) != 0 {
		t.Errorf("partner added, web never rejected: %+v, %v; want no pod named", got, err)
	}
	s.reject(t, web, affinityq.InterPodAffinityName)
	badAnti := assigned(nil)
	badAnti.Spec.Affinity = &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
		LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "k", Operator: metav1.LabelSelectorOpIn}}},
	}}}}
	for _, tc := range []struct {
		name     string
		fn       fwk.PreQueueingHintFn
		old, new any
		want     fwk.PreQueueingHintResult
	}{
		{"partner added", add, nil, assigned(map[string]string{"app": "db"}), fwk.PreQueueingHintResult{Pods: []types.NamespacedName{{Namespace: "ns", Name: "web"}}}},
		{"unrelated pod added", add, nil, assigned(map[string]string{"app": "x"}), fwk.PreQueueingHintResult{Pods: []types.NamespacedName{}}},
		{"not a pod", add, nil, &v1.Node{}, fwk.PreQueueingHintResult{AllPods: true}},
		{"nil pod", add, nil, (*v1.Pod)(nil), fwk.PreQueueingHintResult{AllPods: true}},
		{"no object", del, nil, nil, fwk.PreQueueingHintResult{AllPods: true}},
		{"deleted pod with an invalid anti-affinity term", del, badAnti, nil, fwk.PreQueueingHintResult{AllPods: true}},
	} {
		got, err := tc.fn(logger, tc.old, tc.new)
		if err != nil {
			t.Errorf("%s: error %v", tc.name, err)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s: result (-want +got):\n%s", tc.name, diff)
		}
	}
}

// TestHardDefaultConstraints: PodTopologySpread default constraints with
// DoNotSchedule apply to pods the index cannot see through: the spread
// wrapper narrows nothing, and the events it shares with the affinity
// wrapper are not narrowed either.
func TestHardDefaultConstraints(t *testing.T) {
	cfg := wrappersOnly + `  pluginConfig:
  - name: AffinityqPodTopologySpread
    args:
      defaultingType: List
      defaultConstraints:
      - maxSkew: 1
        topologyKey: topology.kubernetes.io/zone
        whenUnsatisfiable: DoNotSchedule
`
	s := newScheduler(t, cfg)
	fw := s.frameworks[v1.DefaultSchedulerName]
	if got := preHinted(registrations(t, wrapperOf(t, fw, affinityq.PodTopologySpreadName))); len(got) != 0 {
		t.Errorf("the spread wrapper pre-hints %v, want none", got)
	}
	add := preHintOf(t, fw, affinityq.InterPodAffinityName, framework.EventAssignedPodAdd)
	got, err := add(klog.Logger(logr.Discard()), nil, &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "q", Namespace: "ns"}, Spec: v1.PodSpec{NodeName: "n"}})
	if err != nil || !got.AllPods {
		t.Errorf("affinity pre-hint for a shared event = %+v, %v, want all pods", got, err)
	}
}

// opaqueHandle hides the framework behind fwk.Handle alone: the wrappers
// cannot list the profile's other plugins.
type opaqueHandle struct{ fwk.Handle }

func TestFactories(t *testing.T) {
	s := newScheduler(t, wrappersOnly)
	fw := s.frameworks[v1.DefaultSchedulerName]
	ctx := klog.NewContext(context.Background(), klog.Logger(logr.Discard()))

	pl, err := s.plugins.NewInterPodAffinity(ctx, nil, opaqueHandle{fw})
	if err != nil {
		t.Fatal(err)
	}
	if got := preHinted(registrations(t, pl.(fwk.EnqueueExtensions))); len(got) != 0 {
		t.Errorf("behind an opaque handle the wrapper pre-hints %v, want none", got)
	}

	for _, tc := range []struct {
		name    string
		build   func() (fwk.Plugin, error)
		wantErr string
	}{
		{"nil handle", func() (fwk.Plugin, error) { return s.plugins.NewPodTopologySpread(ctx, nil, nil) }, "affinityq: AffinityqPodTopologySpread: nil framework handle"},
		{"wrong args", func() (fwk.Plugin, error) {
			return s.plugins.NewInterPodAffinity(ctx, &config.PodTopologySpreadArgs{}, fw)
		}, "affinityq: AffinityqInterPodAffinity: args of type"},
		{"invalid args", func() (fwk.Plugin, error) {
			return s.plugins.NewInterPodAffinity(ctx, &config.InterPodAffinityArgs{HardPodAffinityWeight: -1}, fw)
		}, "affinityq: AffinityqInterPodAffinity:"},
		{"another informer factory", func() (fwk.Plugin, error) {
			other := newScheduler(t, wrappersOnly)
			return s.plugins.NewInterPodAffinity(ctx, nil, other.frameworks[v1.DefaultSchedulerName])
		}, "must share one informer factory"},
	} {
		_, err := tc.build()
		if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.wantErr)
		}
	}
}

// TestRejectionMarks: the affinity wrapper's Filter rejecting a pod is what
// makes its pre-hint name the pod (Tracker.MarkRejected); before, the pod
// cannot be parked with the wrapper among its rejectors and is not named.
func TestRejectionMarks(t *testing.T) {
	web := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web", UID: "web"}, Spec: v1.PodSpec{SchedulerName: v1.DefaultSchedulerName,
		Affinity: &v1.Affinity{PodAffinity: &v1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}, TopologyKey: "zone",
		}}}}}}
	node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n", Labels: map[string]string{"zone": "a", v1.LabelHostname: "n"}}}
	s := newSchedulerWithSnapshot(t, wrappersOnly, internalcache.NewSnapshot(nil, []*v1.Node{node}), web)
	s.start(t)
	fw := s.frameworks[v1.DefaultSchedulerName]
	add := preHintOf(t, fw, affinityq.InterPodAffinityName, framework.EventAssignedPodAdd)
	db := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "db", UID: "db", Labels: map[string]string{"app": "db"}}, Spec: v1.PodSpec{NodeName: "n"}}
	logger := klog.Logger(logr.Discard())
	named := func(what string, want ...types.NamespacedName) {
		t.Helper()
		got, err := add(logger, nil, db)
		if err != nil || got.AllPods {
			t.Fatalf("%s: %+v, %v", what, got, err)
		}
		if diff := cmp.Diff(want, got.Pods, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s: pods named (-want +got):\n%s", what, diff)
		}
	}
	named("web never attempted")

	pl, ok := wrapperOf(t, fw, affinityq.InterPodAffinityName).(fwk.FilterPlugin)
	if !ok {
		t.Fatal("the affinity wrapper is not a Filter plugin")
	}
	pre := pl.(fwk.PreFilterPlugin)
	ctx := context.Background()
	infos, err := fw.SnapshotSharedLister().NodeInfos().List()
	if err != nil || len(infos) != 1 {
		t.Fatalf("node infos %v, %v", infos, err)
	}
	state := framework.NewCycleState()
	if _, st := pre.PreFilter(ctx, state, web, infos); !st.IsSuccess() {
		t.Fatalf("PreFilter: %v", st)
	}
	named("web through PreFilter, not yet rejected")
	if st := pl.Filter(ctx, state, web, infos[0]); !st.IsRejected() {
		t.Fatalf("Filter: %v, want a rejection (no db pod in zone a)", st)
	}
	named("web rejected by Filter", types.NamespacedName{Namespace: "ns", Name: "web"})
}
