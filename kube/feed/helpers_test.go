package feed_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/affinityq/affinityq/kube/feed"
	"k8s.io/client-go/tools/cache"
)

// recorder is a Sink that reports every call on a channel, as a line such
// as "Add ns/p" or "NamespaceUpdated nil -> ns", after passing it on to
// next, if any.
type recorder struct {
	next  feed.Sink
	calls chan string
}

func newRecorder() *recorder { return &recorder{calls: make(chan string, 1024)} }

func podRef(p *v1.Pod) string {
	if p == nil {
		return "nil"
	}
	return p.Namespace + "/" + p.Name
}

func nsRef(n *v1.Namespace) string {
	if n == nil {
		return "nil"
	}
	return n.Name
}

func (r *recorder) Add(p *v1.Pod) error {
	var err error
	if r.next != nil {
		err = r.next.Add(p)
	}
	r.calls <- "Add " + podRef(p)
	return err
}

func (r *recorder) Update(o, n *v1.Pod) error {
	var err error
	if r.next != nil {
		err = r.next.Update(o, n)
	}
	r.calls <- "Update " + podRef(n)
	return err
}

func (r *recorder) Delete(p *v1.Pod) {
	if r.next != nil {
		r.next.Delete(p)
	}
	r.calls <- "Delete " + podRef(p)
}

func (r *recorder) AssignedPodAdded(p *v1.Pod) {
	if r.next != nil {
		r.next.AssignedPodAdded(p)
	}
	r.calls <- "AssignedPodAdded " + podRef(p)
}

func (r *recorder) AssignedPodUpdated(o, n *v1.Pod) {
	if r.next != nil {
		r.next.AssignedPodUpdated(o, n)
	}
	r.calls <- "AssignedPodUpdated " + podRef(n)
}

func (r *recorder) AssignedPodDeleted(p *v1.Pod) {
	if r.next != nil {
		r.next.AssignedPodDeleted(p)
	}
	r.calls <- "AssignedPodDeleted " + podRef(p)
}

func (r *recorder) NodeAdded(n *v1.Node) {
	if r.next != nil {
		r.next.NodeAdded(n)
	}
	r.calls <- "NodeAdded " + n.Name
}

func (r *recorder) NodeUpdated(o, n *v1.Node) {
	if r.next != nil {
		r.next.NodeUpdated(o, n)
	}
	r.calls <- "NodeUpdated " + n.Name
}

func (r *recorder) NodeDeleted(n *v1.Node) {
	if r.next != nil {
		r.next.NodeDeleted(n)
	}
	r.calls <- "NodeDeleted " + n.Name
}

func (r *recorder) NamespaceUpdated(o, n *v1.Namespace) {
	if r.next != nil {
		r.next.NamespaceUpdated(o, n)
	}
	r.calls <- "NamespaceUpdated " + nsRef(o) + " -> " + nsRef(n)
}

// deliveryTimeout bounds the wait for an informer to deliver a change; it
// is a failure deadline, not a sleep.
const deliveryTimeout = 10 * time.Second

// expect reads len(want) calls and compares them with want, in order, or
// as sets when unordered (calls from several informers interleave).
func (r *recorder) expect(t *testing.T, unordered bool, want ...string) {
	t.Helper()
	got := make([]string, 0, len(want))
	deadline := time.After(deliveryTimeout)
	for len(got) < len(want) {
		select {
		case c := <-r.calls:
			got = append(got, c)
		case <-deadline:
			t.Fatalf("after %v got calls %q, want %q", deliveryTimeout, got, want)
		}
	}
	if unordered {
		want = slices.Sorted(slices.Values(want))
		slices.Sort(got)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("sink calls (-want +got):\n%s", diff)
	}
}

// expectNone checks that no call is pending. Callers first make a change
// that is delivered after the one that must have been dropped, on the same
// informer, and expect it: informers deliver in order.
func (r *recorder) expectNone(t *testing.T) {
	t.Helper()
	select {
	case c := <-r.calls:
		t.Fatalf("unexpected sink call %q", c)
	default:
	}
}

// cluster is a fake clientset whose watches the test can expire, so that
// the informers list again and deliver what they missed as tombstones.
type cluster struct {
	*fake.Clientset
	mu       sync.Mutex
	proxies  []*watch.RaceFreeFakeWatcher
	silenced map[string]bool // "ns/name" of pods whose deletion the watches do not report
}

func newCluster(objs ...runtime.Object) *cluster {
	c := &cluster{Clientset: fake.NewClientset(objs...), silenced: map[string]bool{}}
	c.PrependWatchReactor("*", func(a clienttesting.Action) (bool, watch.Interface, error) {
		var opts metav1.ListOptions
		if w, ok := a.(clienttesting.WatchActionImpl); ok {
			opts = w.ListOptions
		}
		real, err := c.Tracker().Watch(a.GetResource(), a.GetNamespace(), opts)
		if err != nil {
			return false, nil, err
		}
		proxy := watch.NewRaceFreeFake()
		go c.forward(real, proxy)
		c.mu.Lock()
		c.proxies = append(c.proxies, proxy)
		c.mu.Unlock()
		return true, proxy, nil
	})
	return c
}

// forward passes the events of a tracker's watch on to proxy, but not the
// deletions of silenced pods.
func (c *cluster) forward(real watch.Interface, proxy *watch.RaceFreeFakeWatcher) {
	defer real.Stop()
	for ev := range real.ResultChan() {
		if proxy.IsStopped() {
			return
		}
		if p, ok := ev.Object.(*v1.Pod); ok && ev.Type == watch.Deleted {
			c.mu.Lock()
			silenced := c.silenced[podRef(p)]
			c.mu.Unlock()
			if silenced {
				continue
			}
		}
		proxy.Action(ev.Type, ev.Object)
	}
}

// expireWatches ends every open watch with "resource version too old", which
// makes the reflectors list again.
func (c *cluster) expireWatches() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range c.proxies {
		if !p.IsStopped() {
			p.Error(&apierrors.NewResourceExpired("test: watch expired").ErrStatus)
		}
	}
	c.proxies = nil
}

// removeSilently deletes a pod from the fake API server without telling the
// open watches, as when a watch misses a delete.
func (c *cluster) removeSilently(t *testing.T, p *v1.Pod) {
	t.Helper()
	c.mu.Lock()
	c.silenced[podRef(p)] = true
	c.mu.Unlock()
	gvr := v1.SchemeGroupVersion.WithResource("pods")
	if err := c.Tracker().Delete(gvr, p.Namespace, p.Name); err != nil {
		t.Fatalf("deleting %s: %v", podRef(p), err)
	}
}

// start starts factory and waits until synced reports true.
func start(t *testing.T, factory informers.SharedInformerFactory, synced func() bool) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() {
		cancel()
		factory.Shutdown()
	})
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	wait, cancelWait := context.WithTimeout(ctx, deliveryTimeout)
	defer cancelWait()
	if !cache.WaitForCacheSync(wait.Done(), synced) {
		t.Fatal("handlers did not sync")
	}
}

func namespace(name string, labels map[string]string) *v1.Namespace {
	return &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
}

func node(name string, labels map[string]string) *v1.Node {
	return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
}

// pod returns a pod of default-scheduler; nodeName "" leaves it pending.
func pod(ns, name, nodeName string, labels map[string]string) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID(fmt.Sprintf("uid-%s-%s", ns, name)), Labels: labels},
		Spec:       v1.PodSpec{SchedulerName: v1.DefaultSchedulerName, NodeName: nodeName},
	}
}

func withScheduler(p *v1.Pod, name string) *v1.Pod {
	p.Spec.SchedulerName = name
	return p
}
