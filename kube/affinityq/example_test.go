package affinityq_test

import (
	"fmt"

	"k8s.io/kubernetes/pkg/scheduler/framework/plugins"

	"github.com/affinityq/affinityq/kube/affinityq"
)

// Registering the wrappers beside the in-tree plugins, as a scheduler built
// on kube-scheduler's framework does (kube/cmd/kube-scheduler passes the
// same factories to app.WithPlugin). A profile then enables them in place
// of InterPodAffinity and PodTopologySpread.
func ExamplePlugins_Register() {
	registry := plugins.NewInTreeRegistry()
	if err := affinityq.New().Register(registry); err != nil {
		fmt.Println(err)
		return
	}
	for _, name := range []string{"InterPodAffinity", affinityq.InterPodAffinityName, "PodTopologySpread", affinityq.PodTopologySpreadName} {
		_, ok := registry[name]
		fmt.Println(name, ok)
	}
	// Output:
	// InterPodAffinity true
	// AffinityqInterPodAffinity true
	// PodTopologySpread true
	// AffinityqPodTopologySpread true
}
