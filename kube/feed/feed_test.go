package feed_test

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"

	"github.com/affinityq/affinityq/kube/feed"
)

func TestRegisterFeedsEveryInformer(t *testing.T) {
	ns1 := namespace("ns1", map[string]string{"team": "a"})
	n1 := node("n1", map[string]string{"zone": "z1"})
	p1 := pod("ns1", "p1", "", map[string]string{"app": "web"})
	other := withScheduler(pod("ns1", "other", "", nil), "other-scheduler")
	a1 := pod("ns1", "a1", "n1", map[string]string{"app": "db"})
	done := pod("ns1", "done", "n1", nil)
	done.Status.Phase = v1.PodSucceeded
	c := newCluster(ns1, n1, p1, other, a1, done)
	factory := informers.NewSharedInformerFactory(c, 0)
	r := newRecorder()
	reg, err := feed.Register(factory, r)
	if err != nil {
		t.Fatalf("Register: %v", err)
	}
	start(t, factory, reg.HasSynced)
	r.expect(t, true, "Add ns1/p1", "AssignedPodAdded ns1/a1", "NodeAdded n1", "NamespaceUpdated nil -> ns1")
	r.expectNone(t)

	ctx := context.Background()
	pods, nodes, namespaces := c.CoreV1().Pods("ns1"), c.CoreV1().Nodes(), c.CoreV1().Namespaces()
	must := func(_ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}

	t.Log("a pending pod is relabelled, then bound")
	p1l := p1.DeepCopy()
	p1l.Labels["version"] = "2"
	must(pods.Update(ctx, p1l, metav1.UpdateOptions{}))
	r.expect(t, false, "Update ns1/p1")
	bound := p1l.DeepCopy()
	bound.Spec.NodeName = "n1"
	must(pods.Update(ctx, bound, metav1.UpdateOptions{}))
	r.expect(t, false, "Delete ns1/p1", "AssignedPodAdded ns1/p1")

	t.Log("an assigned pod's status changes (dropped), then its labels")
	a1s := a1.DeepCopy()
	a1s.Status.Phase = v1.PodRunning
	must(pods.Update(ctx, a1s, metav1.UpdateOptions{}))
	a1l := a1s.DeepCopy()
	a1l.Labels = map[string]string{"app": "db", "tier": "backend"}
	must(pods.Update(ctx, a1l, metav1.UpdateOptions{}))
	r.expect(t, false, "AssignedPodUpdated ns1/a1")

	t.Log("a pending pod of another scheduler changes (ignored)")
	otherl := other.DeepCopy()
	otherl.Labels = map[string]string{"app": "x"}
	must(pods.Update(ctx, otherl, metav1.UpdateOptions{}))

	t.Log("a pending pod with a nominated node loses it, then is deleted")
	p2 := pod("ns1", "p2", "", nil)
	p2.Status.NominatedNodeName = "n1"
	must(pods.Create(ctx, p2, metav1.CreateOptions{}))
	r.expect(t, false, "Add ns1/p2")
	p2n := p2.DeepCopy()
	p2n.Status.NominatedNodeName = ""
	must(pods.Update(ctx, p2n, metav1.UpdateOptions{}))
	r.expect(t, false, "Update ns1/p2", "AssignedPodDeleted ns1/p2")
	must(nil, pods.Delete(ctx, "p2", metav1.DeleteOptions{}))
	r.expect(t, false, "Delete ns1/p2")

	t.Log("an assigned pod terminates, another is deleted")
	a1d := a1l.DeepCopy()
	a1d.Status.Phase = v1.PodFailed
	must(pods.Update(ctx, a1d, metav1.UpdateOptions{}))
	r.expect(t, false, "AssignedPodDeleted ns1/a1")
	must(nil, pods.Delete(ctx, "a1", metav1.DeleteOptions{})) // already gone: nothing
	must(nil, pods.Delete(ctx, "p1", metav1.DeleteOptions{}))
	r.expect(t, false, "AssignedPodDeleted ns1/p1")
	r.expectNone(t)

	t.Log("a node's status changes (dropped), then its labels and taints; it is deleted")
	n1s := n1.DeepCopy()
	n1s.Status.Phase = v1.NodeRunning
	must(nodes.Update(ctx, n1s, metav1.UpdateOptions{}))
	n1l := n1s.DeepCopy()
	n1l.Labels["zone"] = "z2"
	must(nodes.Update(ctx, n1l, metav1.UpdateOptions{}))
	r.expect(t, false, "NodeUpdated n1")
	n1t := n1l.DeepCopy()
	n1t.Spec.Taints = []v1.Taint{{Key: "k", Effect: v1.TaintEffectNoSchedule}}
	must(nodes.Update(ctx, n1t, metav1.UpdateOptions{}))
	r.expect(t, false, "NodeUpdated n1")
	must(nil, nodes.Delete(ctx, "n1", metav1.DeleteOptions{}))
	r.expect(t, false, "NodeDeleted n1")

	t.Log("a namespace's annotations change (dropped), then its labels; it is deleted")
	ns1a := ns1.DeepCopy()
	ns1a.Annotations = map[string]string{"a": "b"}
	must(namespaces.Update(ctx, ns1a, metav1.UpdateOptions{}))
	ns1l := ns1a.DeepCopy()
	ns1l.Labels["team"] = "b"
	must(namespaces.Update(ctx, ns1l, metav1.UpdateOptions{}))
	r.expect(t, false, "NamespaceUpdated ns1 -> ns1")
	must(nil, namespaces.Delete(ctx, "ns1", metav1.DeleteOptions{}))
	r.expect(t, false, "NamespaceUpdated ns1 -> nil")
	r.expectNone(t)
}

func TestRegisterTombstone(t *testing.T) {
	p := pod("ns1", "p", "", nil)
	a := pod("ns1", "a", "n1", map[string]string{"app": "db"})
	c := newCluster(p, a)
	factory := informers.NewSharedInformerFactory(c, 0)
	r := newRecorder()
	reg, err := feed.Register(factory, r)
	if err != nil {
		t.Fatalf("Register: %v", err)
	}
	start(t, factory, reg.HasSynced)
	r.expect(t, true, "Add ns1/p", "AssignedPodAdded ns1/a")

	// Both pods are deleted while the watch misses it; the informer learns
	// of it when it lists again, and delivers tombstones.
	c.removeSilently(t, p)
	c.removeSilently(t, a)
	c.expireWatches()
	r.expect(t, true, "Delete ns1/p", "AssignedPodDeleted ns1/p", "AssignedPodDeleted ns1/a")
	r.expectNone(t)
}

func TestRegisterErrors(t *testing.T) {
	factory := informers.NewSharedInformerFactory(newCluster(), 0)
	if _, err := feed.Register(nil, newRecorder()); err == nil {
		t.Error("Register(nil factory) = nil error, want one")
	}
	if _, err := feed.Register(factory, nil); err == nil {
		t.Error("Register(nil sink) = nil error, want one")
	}
	reg, err := feed.Register(factory, newRecorder())
	if err != nil {
		t.Fatalf("Register: %v", err)
	}
	if err := reg.Remove(); err != nil {
		t.Errorf("Remove = %v", err)
	}
	if err := reg.Remove(); err != nil {
		t.Errorf("second Remove = %v", err)
	}
}
