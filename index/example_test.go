package index_test

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/affinityq/affinityq/index"
)

// A replica waits for a database primary in its zone. When a scheduled pod
// is relabelled role=primary, the index names the replica at once.
func Example() {
	ix := index.New[any]()
	replica := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "db-replica", Namespace: "shop", UID: "uid-replica"},
		Spec: v1.PodSpec{Affinity: &v1.Affinity{PodAffinity: &v1.PodAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"role": "primary"}},
				TopologyKey:   "topology.kubernetes.io/zone",
			}},
		}}},
	}
	if err := ix.Add(replica); err != nil {
		fmt.Println(err)
		return
	}

	before := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "db-0", Namespace: "shop", UID: "uid-db-0", Labels: map[string]string{"role": "candidate"}},
		Spec:       v1.PodSpec{NodeName: "node-a"},
	}
	after := before.DeepCopy()
	after.Labels["role"] = "primary"

	for _, h := range ix.AssignedPodUpdated(nil, before, after) {
		fmt.Printf("%s: relation=%v transition=%v\n", h.Pod.Name, h.Relation, h.Transition)
	}
	// Another update that keeps it primary relates to the replica but is
	// no transition kube-scheduler would act on.
	again := after.DeepCopy()
	again.Labels["version"] = "2"
	for _, h := range ix.AssignedPodUpdated(nil, after, again) {
		fmt.Printf("%s: relation=%v transition=%v\n", h.Pod.Name, h.Relation, h.Transition)
	}
	// Output:
	// db-replica: relation=InterPodAffinity transition=InterPodAffinity
	// db-replica: relation=InterPodAffinity transition=none
}

// A node gaining the topology key of a spread constraint affects the pods
// that spread over it.
func ExampleIndex_NodeUpdated() {
	ix := index.New[any]()
	web := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web-1", Namespace: "shop", UID: "uid-web-1", Labels: map[string]string{"app": "web"}},
		Spec: v1.PodSpec{TopologySpreadConstraints: []v1.TopologySpreadConstraint{{
			MaxSkew: 1, TopologyKey: "topology.kubernetes.io/zone", WhenUnsatisfiable: v1.DoNotSchedule,
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
		}}},
	}
	if err := ix.Add(web); err != nil {
		fmt.Println(err)
		return
	}
	oldNode := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}
	newNode := oldNode.DeepCopy()
	newNode.Labels = map[string]string{"topology.kubernetes.io/zone": "eu-1a"}
	for _, h := range ix.NodeUpdated(nil, oldNode, newNode) {
		fmt.Println(h.Pod.Name, h.Transition)
	}
	fmt.Println(ix.Len(), ix.Remove("uid-web-1"), ix.Len())
	// Output:
	// web-1 PodTopologySpread
	// 1 true 0
}
