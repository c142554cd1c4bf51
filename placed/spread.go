package placed

import (
	"errors"
	"fmt"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	v1helper "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/affinityq/affinityq/matcher"
)

// SpreadCounts is PodTopologySpread's PreFilter count for one DoNotSchedule
// constraint of an incoming pod (filtering.go, calPreFilterState): the pods
// of the incoming pod's namespace, not terminating, that match the
// constraint's selector (its matchLabelKeys merged), per domain of its
// topology key, over the nodes that carry every constraint's key and pass
// the constraint's node inclusion policies. Every such node's domain is
// present, with 0 when no pod matches there.
type SpreadCounts struct {
	TopologyKey string
	Counts      map[string]int
}

// PodTopologySpread returns the counts of PodTopologySpread's PreFilter for
// pod's DoNotSchedule constraints, in spec order; none for a pod without
// them. A constraint whose selector does not compile is an error, as
// PreFilter fails it. Default (cluster-level) constraints are the
// caller's: the index reads the pod's own.
//
// The counts of each constraint are kept per node; the answer visits the
// nodes, as the inclusion policies are judged per node, and not the pods.
func (x *Index) PodTopologySpread(pod *v1.Pod) ([]SpreadCounts, error) {
	if pod == nil {
		return nil, errors.New("placed: nil pod")
	}
	terms, _ := matcher.CompileRequired(pod)
	if err := terms.SpreadErr(); err != nil {
		return nil, fmt.Errorf("placed: pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	if len(terms.Spread) == 0 {
		return nil, nil
	}
	var specs []v1.TopologySpreadConstraint
	for _, c := range pod.Spec.TopologySpreadConstraints {
		if c.WhenUnsatisfiable == v1.DoNotSchedule {
			specs = append(specs, c)
		}
	}
	required := nodeaffinity.GetRequiredNodeAffinity(pod)
	x.mu.Lock()
	defer x.mu.Unlock()
	x.clock++
	shapes := make([]*shape, len(specs))
	out := make([]SpreadCounts, len(specs))
	for i := range specs {
		shapes[i] = x.spreadShape(pod, terms.Spread[i:i+1], specs[i])
		out[i] = SpreadCounts{TopologyKey: specs[i].TopologyKey, Counts: map[string]int{}}
	}
	for name, rec := range x.nodes {
		if !rec.known || !carriesKeys(rec.labels, specs) {
			continue
		}
		for i := range specs {
			if !included(&specs[i], pod, rec.obj, required) {
				continue
			}
			out[i].Counts[rec.labels[specs[i].TopologyKey]] += int(shapes[i].nodeCounts[name])
		}
	}
	x.evict()
	return out, nil
}

// spreadShape returns the shape of one DoNotSchedule constraint of pod,
// compiled as terms (its spec src), building it if new.
func (x *Index) spreadShape(pod *v1.Pod, terms []matcher.Term, src v1.TopologySpreadConstraint) *shape {
	key := shapeKey(incomingSpread, 0, terms)
	s, ok := x.incomingShapes[key]
	if !ok {
		s = &shape{kind: incomingSpread, key: key, terms: terms, counts: Counts{}, nodeCounts: map[string]int64{}}
		insert(x.incomingIx, s, x.shapePodWith(pod, nil, nil, []v1.TopologySpreadConstraint{src}))
		x.build(s)
		x.incomingShapes[key] = s
	}
	s.used = x.clock
	return s
}

// carriesKeys reports whether a node of labels carries the topology key of
// every constraint (nodeLabelsMatchSpreadConstraints).
func carriesKeys(labels map[string]string, specs []v1.TopologySpreadConstraint) bool {
	for i := range specs {
		if _, ok := labels[specs[i].TopologyKey]; !ok {
			return false
		}
	}
	return true
}

// included reports whether node passes a constraint's node inclusion
// policies for pod: its required node affinity and node selector
// (nodeAffinityPolicy, Honor by default) and its tolerations of the node's
// NoSchedule and NoExecute taints (nodeTaintsPolicy, Ignore by default).
func included(c *v1.TopologySpreadConstraint, pod *v1.Pod, node *v1.Node, required nodeaffinity.RequiredNodeAffinity) bool {
	if c.NodeAffinityPolicy == nil || *c.NodeAffinityPolicy == v1.NodeInclusionPolicyHonor {
		if match, _ := required.Match(node); !match {
			return false
		}
	}
	if c.NodeTaintsPolicy != nil && *c.NodeTaintsPolicy == v1.NodeInclusionPolicyHonor {
		doNotSchedule := func(t *v1.Taint) bool {
			return t.Effect == v1.TaintEffectNoSchedule || t.Effect == v1.TaintEffectNoExecute
		}
		if _, untolerated := v1helper.FindMatchingUntoleratedTaint(logr.Discard(), node.Spec.Taints, pod.Spec.Tolerations, doNotSchedule, false); untolerated {
			return false
		}
	}
	return true
}
