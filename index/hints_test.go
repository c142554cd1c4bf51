package index

import (
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Builders for the package's internal tests: small, explicit pods and nodes.
// (The hint-case table, which index_test's TestHintCases and the fuzz seeds
// share, is in internal/hintcases, with builders of its own: an internal
// test of index cannot import a package that imports index.)

func sel(expr ...metav1.LabelSelectorRequirement) *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchExpressions: expr}
}

func exists(key string) metav1.LabelSelectorRequirement {
	return metav1.LabelSelectorRequirement{Key: key, Operator: metav1.LabelSelectorOpExists}
}

func in(key string, values ...string) metav1.LabelSelectorRequirement {
	return metav1.LabelSelectorRequirement{Key: key, Operator: metav1.LabelSelectorOpIn, Values: values}
}

func term(topologyKey string, s *metav1.LabelSelector) v1.PodAffinityTerm {
	return v1.PodAffinityTerm{LabelSelector: s, TopologyKey: topologyKey}
}

type podOpt func(*v1.Pod)

func withLabels(l map[string]string) podOpt { return func(p *v1.Pod) { p.Labels = l } }
func onNode(n string) podOpt                { return func(p *v1.Pod) { p.Spec.NodeName = n } }
func inNamespace(ns string) podOpt          { return func(p *v1.Pod) { p.Namespace = ns } }

func withAffinity(terms ...v1.PodAffinityTerm) podOpt {
	return func(p *v1.Pod) {
		if p.Spec.Affinity == nil {
			p.Spec.Affinity = &v1.Affinity{}
		}
		p.Spec.Affinity.PodAffinity = &v1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: terms}
	}
}

func withAnti(terms ...v1.PodAffinityTerm) podOpt {
	return func(p *v1.Pod) {
		if p.Spec.Affinity == nil {
			p.Spec.Affinity = &v1.Affinity{}
		}
		p.Spec.Affinity.PodAntiAffinity = &v1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: terms}
	}
}

func withSpread(topologyKey string, s *metav1.LabelSelector) podOpt {
	return func(p *v1.Pod) {
		p.Spec.TopologySpreadConstraints = append(p.Spec.TopologySpreadConstraints, v1.TopologySpreadConstraint{
			MaxSkew: 1, TopologyKey: topologyKey, WhenUnsatisfiable: v1.DoNotSchedule, LabelSelector: s,
		})
	}
}

func pod(name string, opts ...podOpt) *v1.Pod {
	p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-" + name)}}
	for _, o := range opts {
		o(p)
	}
	return p
}

func node(labels map[string]string) *v1.Node {
	return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1", Labels: labels}}
}
