// Package podtest builds the small, explicit pods and nodes that the tests
// of index and the hint-case table (internal/hintcases) are written with.
// It is test support, not API.
package podtest

import (
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Sel returns a selector of match expressions.
func Sel(expr ...metav1.LabelSelectorRequirement) *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchExpressions: expr}
}

// Exists returns the requirement that key exists.
func Exists(key string) metav1.LabelSelectorRequirement {
	return metav1.LabelSelectorRequirement{Key: key, Operator: metav1.LabelSelectorOpExists}
}

// In returns the requirement that key has one of values.
func In(key string, values ...string) metav1.LabelSelectorRequirement {
	return metav1.LabelSelectorRequirement{Key: key, Operator: metav1.LabelSelectorOpIn, Values: values}
}

// Term returns an affinity term on topologyKey.
func Term(topologyKey string, s *metav1.LabelSelector) v1.PodAffinityTerm {
	return v1.PodAffinityTerm{LabelSelector: s, TopologyKey: topologyKey}
}

// Opt sets a field of a pod Pod builds.
type Opt func(*v1.Pod)

// WithLabels, OnNode and InNamespace set a pod's labels, node and namespace.
func WithLabels(l map[string]string) Opt { return func(p *v1.Pod) { p.Labels = l } }
func OnNode(n string) Opt                { return func(p *v1.Pod) { p.Spec.NodeName = n } }
func InNamespace(ns string) Opt          { return func(p *v1.Pod) { p.Namespace = ns } }

// WithAffinity sets a pod's required affinity terms.
func WithAffinity(terms ...v1.PodAffinityTerm) Opt {
	return func(p *v1.Pod) {
		if p.Spec.Affinity == nil {
			p.Spec.Affinity = &v1.Affinity{}
		}
		p.Spec.Affinity.PodAffinity = &v1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: terms}
	}
}

// WithAnti sets a pod's required anti-affinity terms.
func WithAnti(terms ...v1.PodAffinityTerm) Opt {
	return func(p *v1.Pod) {
		if p.Spec.Affinity == nil {
			p.Spec.Affinity = &v1.Affinity{}
		}
		p.Spec.Affinity.PodAntiAffinity = &v1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: terms}
	}
}

// WithSpread adds a DoNotSchedule spread constraint.
func WithSpread(topologyKey string, s *metav1.LabelSelector) Opt {
	return func(p *v1.Pod) {
		p.Spec.TopologySpreadConstraints = append(p.Spec.TopologySpreadConstraints, v1.TopologySpreadConstraint{
			MaxSkew: 1, TopologyKey: topologyKey, WhenUnsatisfiable: v1.DoNotSchedule, LabelSelector: s,
		})
	}
}

// Pod returns a pod named name in namespace "default" with UID "uid-"+name.
func Pod(name string, opts ...Opt) *v1.Pod {
	p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-" + name)}}
	for _, o := range opts {
		o(p)
	}
	return p
}

// Node returns node n1 with labels.
func Node(labels map[string]string) *v1.Node {
	return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1", Labels: labels}}
}
