package feed_test

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"

	"github.com/affinityq/affinityq/kube/feed"
	"github.com/affinityq/affinityq/queue"
)

// A queue fed by a client-go informer factory.
func ExampleRegister() {
	pending := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web", UID: "uid-web"},
		Spec:       v1.PodSpec{SchedulerName: v1.DefaultSchedulerName},
	}
	client := fake.NewClientset(pending) // a real one comes from kubernetes.NewForConfig
	factory := informers.NewSharedInformerFactory(client, 0)
	lister := factory.Core().V1().Namespaces().Lister()
	q := queue.New(queue.WithNamespaceLabels(feed.NamespaceLabels(lister)))
	defer q.Close()
	reg, err := feed.Register(factory, q, feed.WithSchedulerNames(v1.DefaultSchedulerName))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	factory.Start(ctx.Done())
	defer func() {
		cancel()
		factory.Shutdown() // waits for the informers, which stop with ctx
	}()
	cache.WaitForCacheSync(ctx.Done(), reg.HasSynced)

	loc, ok := q.Location(pending.UID)
	fmt.Println(loc, ok)
	// Output: Active true
}
