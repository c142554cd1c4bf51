package feed_test

import (
	"context"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"

	"github.com/affinityq/affinityq/index"
	"github.com/affinityq/affinityq/kube/feed"
)

// selectingNamespaces makes p's affinity term reach the namespaces
// labelled team=a instead of its own.
func selectingNamespaces(p *v1.Pod) *v1.Pod {
	p.Spec.Affinity.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0].NamespaceSelector =
		&metav1.LabelSelector{MatchLabels: map[string]string{"team": "a"}}
	return p
}

func TestIndexSink(t *testing.T) {
	web := affinityTo(pod("ns1", "web", "", nil), "db")
	far := selectingNamespaces(affinityTo(pod("ns1", "far", "", nil), "db"))
	c := newCluster(namespace("ns1", nil), namespace("ns2", map[string]string{"team": "a"}), web, far)
	factory := informers.NewSharedInformerFactory(c, 0)
	ix := index.New[any](index.WithNamespaceLabels(feed.NamespaceLabels(factory.Core().V1().Namespaces().Lister())))
	type event struct {
		kind index.EventKind
		hits []string
	}
	events := make(chan event, 16)
	sink := feed.NewIndexSink(ix, func(ev *index.Event, hits []index.Hit[any]) {
		var names []string
		for _, h := range hits {
			names = append(names, h.Pod.Name)
		}
		slices.Sort(names)
		events <- event{ev.Kind, names}
	})
	r := newRecorder()
	r.next = sink
	reg, err := feed.Register(factory, r)
	if err != nil {
		t.Fatalf("Register: %v", err)
	}
	start(t, factory, reg.HasSynced)
	r.expect(t, true, "Add ns1/web", "Add ns1/far", "NamespaceUpdated nil -> ns1", "NamespaceUpdated nil -> ns2")
	for range 2 {
		<-events // the two namespace additions
	}
	if n := ix.Len(); n != 2 {
		t.Fatalf("index holds %d pods, want 2", n)
	}

	ctx := context.Background()
	for _, tc := range []struct {
		ns   string
		want []string
	}{
		{"ns1", []string{"web"}}, // far's term does not reach its own namespace
		{"ns2", []string{"far"}}, // through ns2's labels, read from the lister
	} {
		db := pod(tc.ns, "db", "n1", map[string]string{"app": "db"})
		if _, err := c.CoreV1().Pods(tc.ns).Create(ctx, db, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		r.expect(t, false, "AssignedPodAdded "+tc.ns+"/db")
		got := <-events
		if diff := cmp.Diff(event{index.AssignedPodAdd, tc.want}, got, cmp.AllowUnexported(event{})); diff != "" {
			t.Errorf("db added in %s: event (-want +got):\n%s", tc.ns, diff)
		}
	}

	if err := c.CoreV1().Pods("ns1").Delete(ctx, "web", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	r.expect(t, false, "Delete ns1/web")
	if n := ix.Len(); n != 1 {
		t.Errorf("index holds %d pods after a delete, want 1", n)
	}
	if err := ix.Validate(); err != nil {
		t.Error(err)
	}
}

func TestIndexSinkBadInput(t *testing.T) {
	ix := index.New[any]()
	s := feed.NewIndexSink(ix, nil)
	if err := s.Add(nil); err == nil {
		t.Error("Add(nil) = nil error, want one")
	}
	if err := s.Add(&v1.Pod{}); err == nil {
		t.Error("Add(pod without UID) = nil error, want one")
	}
	if err := s.Update(nil, nil); err == nil {
		t.Error("Update(nil, nil) = nil error, want one")
	}
	old, renamed := pod("ns", "a", "", nil), pod("ns", "a", "", nil)
	renamed.UID = "other"
	if err := s.Add(old); err != nil {
		t.Fatal(err)
	}
	if err := s.Update(old, renamed); err != nil {
		t.Fatal(err)
	}
	if _, ok := ix.Get(old.UID); ok {
		t.Error("the old UID is still indexed after an update that changed it")
	}
	s.Delete(nil)
	s.Delete(renamed)
	s.AssignedPodAdded(nil)
	s.AssignedPodUpdated(nil, nil)
	s.AssignedPodDeleted(nil)
	s.NodeAdded(nil)
	s.NodeUpdated(nil, nil)
	s.NodeDeleted(nil)
	s.NamespaceUpdated(nil, nil)
	if n := ix.Len(); n != 0 {
		t.Errorf("index holds %d pods, want 0", n)
	}
}

func TestNamespaceLabels(t *testing.T) {
	factory := informers.NewSharedInformerFactory(newCluster(namespace("ns1", map[string]string{"team": "a"})), 0)
	lister := factory.Core().V1().Namespaces().Lister()
	start(t, factory, factory.Core().V1().Namespaces().Informer().HasSynced)
	labels := feed.NamespaceLabels(lister)
	if got, ok := labels("ns1"); !ok || got["team"] != "a" {
		t.Errorf(`labels("ns1") = %v, %v, want map[team:a], true`, got, ok)
	}
	if got, ok := labels("missing"); ok || got != nil {
		t.Errorf(`labels("missing") = %v, %v, want nil, false`, got, ok)
	}
	if got, ok := feed.NamespaceLabels(nil)("ns1"); ok || got != nil {
		t.Errorf(`NamespaceLabels(nil)("ns1") = %v, %v, want nil, false`, got, ok)
	}
}
