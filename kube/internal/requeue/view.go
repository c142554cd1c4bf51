package requeue

import (
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/affinityq/affinityq/matcher"
)

// schedulerView returns pod as kube-scheduler's queueing hints read it (see
// "Scheduler semantics" in package affinityq's documentation): namespace selectors
// of the required (anti-)affinity terms that match a namespace without
// labels widened to {}, and, unless spreadMatchLabelKeys, matchLabelKeys
// dropped from the DoNotSchedule spread constraints. It returns pod itself when nothing
// changes, else a copy sharing what did not change; pod is not modified.
func schedulerView(pod *v1.Pod, spreadMatchLabelKeys bool) *v1.Pod {
	if pod == nil {
		return nil
	}
	var out *v1.Pod
	copyPod := func() *v1.Pod {
		if out == nil {
			c := *pod
			out = &c
		}
		return out
	}
	if a := pod.Spec.Affinity; a != nil {
		var aff, anti []v1.PodAffinityTerm
		if a.PodAffinity != nil {
			aff = viewTerms(a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution)
		}
		if a.PodAntiAffinity != nil {
			anti = viewTerms(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution)
		}
		if aff != nil || anti != nil {
			p := copyPod()
			na := *a
			if aff != nil {
				pa := *a.PodAffinity
				pa.RequiredDuringSchedulingIgnoredDuringExecution = aff
				na.PodAffinity = &pa
			}
			if anti != nil {
				pa := *a.PodAntiAffinity
				pa.RequiredDuringSchedulingIgnoredDuringExecution = anti
				na.PodAntiAffinity = &pa
			}
			p.Spec.Affinity = &na
		}
	}
	if !spreadMatchLabelKeys {
		var spread []v1.TopologySpreadConstraint
		for i, c := range pod.Spec.TopologySpreadConstraints {
			if c.WhenUnsatisfiable != v1.DoNotSchedule || len(c.MatchLabelKeys) == 0 {
				continue
			}
			if spread == nil {
				spread = append([]v1.TopologySpreadConstraint(nil), pod.Spec.TopologySpreadConstraints...)
			}
			spread[i].MatchLabelKeys = nil
		}
		if spread != nil {
			copyPod().Spec.TopologySpreadConstraints = spread
		}
	}
	if out == nil {
		return pod
	}
	return out
}

// assignedView returns the assigned pod of an event as kube-scheduler's
// InterPodAffinity hint reads its required anti-affinity terms (the only
// terms of an assigned pod the index reads).
func assignedView(pod *v1.Pod) *v1.Pod {
	if pod == nil || pod.Spec.Affinity == nil || pod.Spec.Affinity.PodAntiAffinity == nil {
		return pod
	}
	anti := viewTerms(pod.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution)
	if anti == nil {
		return pod
	}
	c := *pod
	a := *pod.Spec.Affinity
	pa := *a.PodAntiAffinity
	pa.RequiredDuringSchedulingIgnoredDuringExecution = anti
	a.PodAntiAffinity = &pa
	c.Spec.Affinity = &a
	return &c
}

// viewTerms returns a rewritten copy of terms, or nil when none needs
// rewriting.
func viewTerms(terms []v1.PodAffinityTerm) []v1.PodAffinityTerm {
	var out []v1.PodAffinityTerm
	for i := range terms {
		t := &terms[i]
		if !widensWithoutLabels(t.NamespaceSelector) {
			continue
		}
		if out == nil {
			out = append([]v1.PodAffinityTerm(nil), terms...)
		}
		out[i].NamespaceSelector = &metav1.LabelSelector{} // every namespace
	}
	return out
}

// widensWithoutLabels reports whether a namespace selector reaches more
// namespaces when evaluated against no labels, as kube-scheduler's hints do,
// than against the namespaces' real ones: it compiles, is not {} and
// matches an empty label set.
func widensWithoutLabels(sel *metav1.LabelSelector) bool {
	if sel == nil {
		return false
	}
	s, err := matcher.CompileSelector(sel)
	return err == nil && !s.Everything() && s.Matches(nil)
}

// AntiAffinityCompiles reports whether every required anti-affinity term of
// pod compiles as kube-scheduler compiles it (label and namespace selector).
func AntiAffinityCompiles(pod *v1.Pod) bool {
	if pod == nil || pod.Spec.Affinity == nil || pod.Spec.Affinity.PodAntiAffinity == nil {
		return true
	}
	for _, t := range pod.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
		if _, err := metav1.LabelSelectorAsSelector(t.LabelSelector); err != nil {
			return false
		}
		if _, err := metav1.LabelSelectorAsSelector(t.NamespaceSelector); err != nil {
			return false
		}
	}
	return true
}
