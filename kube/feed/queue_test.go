package feed_test

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"

	"github.com/affinityq/affinityq/kube/feed"
	"github.com/affinityq/affinityq/queue"
)

// affinityTo makes p require a pod labelled app=app in its zone.
func affinityTo(p *v1.Pod, app string) *v1.Pod {
	p.Spec.Affinity = &v1.Affinity{PodAffinity: &v1.PodAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}},
			TopologyKey:   "zone",
		}},
	}}
	return p
}

func TestRegisterQueue(t *testing.T) {
	web := affinityTo(pod("ns1", "web", "", map[string]string{"app": "web"}), "db")
	c := newCluster(namespace("ns1", nil), node("n1", map[string]string{"zone": "z1"}), web)
	factory := informers.NewSharedInformerFactory(c, 0)
	q := queue.New()
	defer q.Close()
	r := newRecorder()
	r.next = q
	reg, err := feed.Register(factory, r)
	if err != nil {
		t.Fatalf("Register: %v", err)
	}
	start(t, factory, reg.HasSynced)
	r.expect(t, true, "Add ns1/web", "NodeAdded n1", "NamespaceUpdated nil -> ns1")
	at := func(want queue.Location) {
		t.Helper()
		if got, ok := q.Location(web.UID); !ok || got != want {
			t.Fatalf("Location(web) = %v, %v, want %v, true", got, ok, want)
		}
	}
	at(queue.Active)

	ctx := context.Background()
	pi, err := q.Pop(ctx)
	if err != nil {
		t.Fatalf("Pop: %v", err)
	}
	if err := q.AddUnschedulable(pi, queue.InterPodAffinity); err != nil {
		t.Fatalf("AddUnschedulable: %v", err)
	}
	at(queue.Unschedulable)

	// The pod web needs arrives: web goes back to activeQ.
	db := pod("ns1", "db", "n1", map[string]string{"app": "db"})
	if _, err := c.CoreV1().Pods("ns1").Create(ctx, db, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	r.expect(t, false, "AssignedPodAdded ns1/db")
	at(queue.Active)

	// web is scheduled and bound: it leaves the queue.
	if _, err := q.Pop(ctx); err != nil {
		t.Fatalf("Pop: %v", err)
	}
	bound := web.DeepCopy()
	bound.Spec.NodeName = "n1"
	if _, err := c.CoreV1().Pods("ns1").Update(ctx, bound, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	r.expect(t, false, "Delete ns1/web", "AssignedPodAdded ns1/web")
	q.Done(web.UID)
	if loc, ok := q.Location(web.UID); ok {
		t.Errorf("Location(web) = %v after binding, want absent", loc)
	}
	if err := q.Validate(); err != nil {
		t.Error(err)
	}
}
