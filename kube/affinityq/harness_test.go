package affinityq_test

import (
	"context"
	"sort"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/validation"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/affinityq/affinityq/kube/affinityq"
)

// scheduler is what kube-scheduler builds from a configuration, up to its
// queue: the frameworks of its profiles over a fake clientset's informers,
// with the in-tree plugins and the wrappers of one affinityq.Plugins.
type scheduler struct {
	snapshot   *internalcache.Snapshot
	client     *fake.Clientset
	factory    informers.SharedInformerFactory
	plugins    *affinityq.Plugins
	frameworks map[string]framework.Framework
	// hints are the profiles' queueing hint maps; ungatedHints the same
	// with the in-tree QueueingHintFns in place of the wrappers' gated ones.
	hints, ungatedHints queue.QueueingHintMapPerProfile
}

// newScheduler builds the profiles of the KubeSchedulerConfiguration
// cfgYAML (kubescheduler.config.k8s.io/v1, decoded and defaulted as
// kube-scheduler does) over a fake clientset holding objs and an empty
// snapshot. Call start once the queues that need the factory exist.
func newScheduler(t testing.TB, cfgYAML string, objs ...runtime.Object) *scheduler {
	return newSchedulerWithSnapshot(t, cfgYAML, internalcache.NewEmptySnapshot(), objs...)
}

// newSchedulerWithSnapshot is newScheduler over the given snapshot of the
// cluster's nodes and assigned pods.
func newSchedulerWithSnapshot(t testing.TB, cfgYAML string, snapshot *internalcache.Snapshot, objs ...runtime.Object) *scheduler {
	t.Helper()
	return buildScheduler(t, cfgYAML, snapshot, nil, objs...)
}

// buildScheduler is newSchedulerWithSnapshot with the wrappers' Plugins
// built with opts.
func buildScheduler(t testing.TB, cfgYAML string, snapshot *internalcache.Snapshot, opts []affinityq.Option, objs ...runtime.Object) *scheduler {
	t.Helper()
	metrics.Register() // once per process; the frameworks and queues record into them
	obj, _, err := scheme.Codecs.UniversalDecoder().Decode([]byte(cfgYAML), nil, nil)
	if err != nil {
		t.Fatalf("decoding the configuration: %v", err)
	}
	cfg, ok := obj.(*config.KubeSchedulerConfiguration)
	if !ok {
		t.Fatalf("decoded a %T, want a KubeSchedulerConfiguration", obj)
	}
	if err := validation.ValidateKubeSchedulerConfiguration(cfg); err != nil {
		t.Fatalf("invalid configuration: %v", err)
	}
	s := &scheduler{
		snapshot:   snapshot,
		client:     fake.NewClientset(objs...),
		plugins:    affinityq.New(opts...),
		frameworks: map[string]framework.Framework{},
	}
	s.factory = informers.NewSharedInformerFactory(s.client, 0)
	registry := plugins.NewInTreeRegistry()
	if err := s.plugins.Register(registry); err != nil {
		t.Fatal(err)
	}
	ctx := klog.NewContext(context.Background(), klog.Logger(logr.Discard()))
	for i := range cfg.Profiles {
		p := &cfg.Profiles[i]
		fw, err := frameworkruntime.NewFramework(ctx, registry, p,
			frameworkruntime.WithClientSet(s.client),
			frameworkruntime.WithInformerFactory(s.factory),
			frameworkruntime.WithSnapshotSharedLister(snapshot),
			frameworkruntime.WithMutableSnapshotLister(snapshot),
			frameworkruntime.WithParallelism(1),
		)
		if err != nil {
			t.Fatalf("building profile %s: %v", p.SchedulerName, err)
		}
		s.frameworks[p.SchedulerName] = fw
	}
	// As kube-scheduler's buildQueueingHintMap, once every profile exists.
	gated := func(ctx context.Context, ext fwk.EnqueueExtensions) ([]fwk.ClusterEventWithHint, error) {
		return ext.EventsToRegister(ctx)
	}
	s.hints = s.hintMaps(ctx, t, gated)
	s.ungatedHints = s.hintMaps(ctx, t, affinityq.UngatedEventsToRegister)
	return s
}

// hintMaps returns the queueing hint map of every profile, the
// registrations read by events.
func (s *scheduler) hintMaps(ctx context.Context, t testing.TB, events func(context.Context, fwk.EnqueueExtensions) ([]fwk.ClusterEventWithHint, error)) queue.QueueingHintMapPerProfile {
	t.Helper()
	out := queue.QueueingHintMapPerProfile{}
	for name, fw := range s.frameworks {
		m := queue.QueueingHintMap{}
		for _, ext := range fw.EnqueueExtensions() {
			events, err := events(ctx, ext)
			if err != nil {
				t.Fatalf("events of %s: %v", ext.Name(), err)
			}
			for _, e := range events {
				fn := e.QueueingHintFn
				if fn == nil {
					fn = func(klog.Logger, *v1.Pod, any, any) (fwk.QueueingHint, error) { return fwk.Queue, nil }
				}
				h := &queue.QueueingHintFunction{PluginName: ext.Name(), QueueingHintFn: fn, PreQueueingHintFn: e.PreQueueingHintFn}
				evs := []fwk.ClusterEvent{e.Event}
				if e.Event.Resource == fwk.Pod {
					evs = framework.UnrollPodEvent(e.Event)
				}
				for _, ev := range evs {
					m[ev] = append(m[ev], h)
				}
			}
		}
		out[name] = m
	}
	return out
}

// start starts the informers and waits until the tracker has caught up
// with them.
// reject marks pod rejected by the wrapper named plugin, as its PreFilter
// or Filter does in a cycle that rejects it (other names: nothing).
func (s *scheduler) reject(t testing.TB, pod *v1.Pod, plugin string) {
	t.Helper()
	if !s.plugins.MarkRejected(pod, plugin) {
		t.Fatalf("%s/%s not marked rejected by %s: not a pending pod of the store", pod.Namespace, pod.Name, plugin)
	}
}

func (s *scheduler) start(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() {
		cancel()
		s.factory.Shutdown()
	})
	s.factory.Start(ctx.Done())
	s.factory.WaitForCacheSync(ctx.Done())
	wait, cancelWait := context.WithTimeout(ctx, time.Minute)
	defer cancelWait()
	if !cache.WaitForCacheSync(wait.Done(), func() bool {
		st := s.plugins.TrackerState()
		return st.Synced && st.Dirty == 0
	}) {
		t.Fatal("the tracker did not catch up with the informer")
	}
}

// hintCounter counts the QueueingHintFn calls and the pods the
// PreQueueingHintFns return, over all the maps it instruments.
type hintCounter struct {
	hints, narrowed, returned, allPods atomic.Int64
}

// instrument returns a copy of m whose functions count into c; without
// pre-hints unless keepPre.
func (c *hintCounter) instrument(m queue.QueueingHintMapPerProfile, keepPre bool) queue.QueueingHintMapPerProfile {
	out := queue.QueueingHintMapPerProfile{}
	for profile, hm := range m {
		nm := queue.QueueingHintMap{}
		for ev, fns := range hm {
			for _, f := range fns {
				g := *f
				hint := f.QueueingHintFn
				g.QueueingHintFn = func(l klog.Logger, p *v1.Pod, o, n any) (fwk.QueueingHint, error) {
					c.hints.Add(1)
					return hint(l, p, o, n)
				}
				g.PreQueueingHintFn = nil
				if pre := f.PreQueueingHintFn; pre != nil && keepPre {
					g.PreQueueingHintFn = func(l klog.Logger, o, n any) (fwk.PreQueueingHintResult, error) {
						r, err := pre(l, o, n)
						if r.AllPods {
							c.allPods.Add(1)
						} else {
							c.narrowed.Add(1)
							c.returned.Add(int64(len(r.Pods)))
						}
						return r, err
					}
				}
				nm[ev] = append(nm[ev], &g)
			}
		}
		out[profile] = nm
	}
	return out
}

// newQueue returns kube-scheduler's PriorityQueue over the scheduler's
// informers with the hint map m, on a fake clock.
func (s *scheduler) newQueue(ctx context.Context, m queue.QueueingHintMapPerProfile, clock *testingclock.FakeClock) *queue.PriorityQueue {
	less := func(a, b fwk.QueuedEntityInfo) bool { return false }
	for _, fw := range s.frameworks {
		less = fw.QueueSortFunc()
		break
	}
	return queue.NewPriorityQueue(less, s.factory,
		queue.WithQueueingHintMapPerProfile(m),
		queue.WithClock(clock),
		queue.WithMetricsRecorder(metrics.NewMetricsAsyncRecorder(10, time.Second, ctx.Done())),
		queue.WithPodLister(s.factory.Core().V1().Pods().Lister()),
	)
}

// unschedulable returns the names of the queue's unschedulable pods, sorted.
func unschedulable(q *queue.PriorityQueue) []string {
	pods := q.UnschedulablePods()
	names := make([]string, len(pods))
	for i, p := range pods {
		names[i] = p.Namespace + "/" + p.Name
	}
	sort.Strings(names)
	return names
}

// moved returns the names in before that are not in after (both sorted).
func moved(before, after []string) []string {
	var out []string
	j := 0
	for _, n := range before {
		for j < len(after) && after[j] < n {
			j++
		}
		if j < len(after) && after[j] == n {
			continue
		}
		out = append(out, n)
	}
	return out
}
