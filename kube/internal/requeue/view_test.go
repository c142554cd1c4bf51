package requeue

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestSchedulerView(t *testing.T) {
	app := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "a"}}
	notTeamA := &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "team", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"a"}}}}
	teamA := &metav1.LabelSelector{MatchLabels: map[string]string{"team": "a"}}
	bogus := &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "team", Operator: "Bogus"}}}
	withTerms := func(aff, anti []v1.PodAffinityTerm, spread ...v1.TopologySpreadConstraint) *v1.Pod {
		p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", Labels: map[string]string{"version": "1"}}}
		p.Spec.Affinity = &v1.Affinity{}
		if aff != nil {
			p.Spec.Affinity.PodAffinity = &v1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: aff}
		}
		if anti != nil {
			p.Spec.Affinity.PodAntiAffinity = &v1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: anti}
		}
		p.Spec.TopologySpreadConstraints = spread
		return p
	}
	term := func(ns *metav1.LabelSelector, mlk, mmlk []string) v1.PodAffinityTerm {
		return v1.PodAffinityTerm{LabelSelector: app, TopologyKey: "zone", NamespaceSelector: ns, MatchLabelKeys: mlk, MismatchLabelKeys: mmlk}
	}
	spread := func(when v1.UnsatisfiableConstraintAction, mlk []string) v1.TopologySpreadConstraint {
		return v1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: when, LabelSelector: app, MatchLabelKeys: mlk}
	}
	keys := []string{"version"}
	for _, tc := range []struct {
		name          string
		in, want      *v1.Pod
		spreadMLK     bool
		wantUnchanged bool
	}{
		{
			name:          "nothing to rewrite",
			in:            withTerms([]v1.PodAffinityTerm{term(nil, nil, nil), term(teamA, nil, nil), term(&metav1.LabelSelector{}, nil, nil), term(bogus, nil, nil)}, nil, spread(v1.DoNotSchedule, keys)),
			spreadMLK:     true,
			wantUnchanged: true,
		},
		{
			// Package matcher reads an affinity term's labelSelector alone,
			// as kube-scheduler does.
			name:          "affinity matchLabelKeys and mismatchLabelKeys left as they are",
			in:            withTerms([]v1.PodAffinityTerm{term(nil, keys, nil)}, []v1.PodAffinityTerm{term(teamA, nil, keys), term(nil, nil, nil)}),
			spreadMLK:     true,
			wantUnchanged: true,
		},
		{
			name: "namespace selectors matching no labels widened",
			in:   withTerms([]v1.PodAffinityTerm{term(notTeamA, nil, nil), term(teamA, nil, nil)}, []v1.PodAffinityTerm{term(notTeamA, nil, nil)}),
			want: withTerms([]v1.PodAffinityTerm{term(&metav1.LabelSelector{}, nil, nil), term(teamA, nil, nil)}, []v1.PodAffinityTerm{term(&metav1.LabelSelector{}, nil, nil)}),
		},
		{
			name:      "spread matchLabelKeys dropped when the feature is off",
			in:        withTerms(nil, nil, spread(v1.DoNotSchedule, keys), spread(v1.ScheduleAnyway, keys)),
			want:      withTerms(nil, nil, spread(v1.DoNotSchedule, nil), spread(v1.ScheduleAnyway, keys)),
			spreadMLK: false,
		},
		{
			name:          "spread matchLabelKeys kept when the feature is on",
			in:            withTerms(nil, nil, spread(v1.DoNotSchedule, keys)),
			spreadMLK:     true,
			wantUnchanged: true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := tc.in.DeepCopy()
			got := schedulerView(tc.in, tc.spreadMLK)
			if diff := cmp.Diff(before, tc.in); diff != "" {
				t.Fatalf("schedulerView modified its input (-before +after):\n%s", diff)
			}
			if tc.wantUnchanged {
				if got != tc.in {
					t.Errorf("schedulerView returned a copy, want the pod itself: %s", cmp.Diff(tc.in, got))
				}
				return
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("schedulerView (-want +got):\n%s", diff)
			}
		})
	}
	if schedulerView(nil, false) != nil {
		t.Error("schedulerView(nil) != nil")
	}
}

func TestAssignedView(t *testing.T) {
	notEnv := &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "env", Operator: metav1.LabelSelectorOpDoesNotExist}}}
	q := &v1.Pod{Spec: v1.PodSpec{Affinity: &v1.Affinity{
		PodAffinity: &v1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{TopologyKey: "zone", NamespaceSelector: notEnv}}},
		PodAntiAffinity: &v1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{
			{TopologyKey: "zone", NamespaceSelector: notEnv, MatchLabelKeys: []string{"a"}},
		}},
	}}}
	before := q.DeepCopy()
	got := assignedView(q)
	if diff := cmp.Diff(before, q); diff != "" {
		t.Fatalf("assignedView modified its input:\n%s", diff)
	}
	want := before.DeepCopy()
	want.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0] = v1.PodAffinityTerm{TopologyKey: "zone", NamespaceSelector: &metav1.LabelSelector{}, MatchLabelKeys: []string{"a"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("assignedView (-want +got):\n%s", diff)
	}
	for _, p := range []*v1.Pod{nil, {}, before.DeepCopy()} {
		if p != nil && p.Spec.Affinity != nil {
			p.Spec.Affinity.PodAntiAffinity = nil
		}
		if got := assignedView(p); got != p {
			t.Errorf("assignedView(%v) made a copy of a pod without anti-affinity", p)
		}
	}
}

func TestAntiAffinityCompiles(t *testing.T) {
	anti := func(sel, ns *metav1.LabelSelector) *v1.Pod {
		return &v1.Pod{Spec: v1.PodSpec{Affinity: &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{LabelSelector: sel, NamespaceSelector: ns}},
		}}}}
	}
	bad := &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "k", Operator: metav1.LabelSelectorOpIn}}}
	ok := &metav1.LabelSelector{MatchLabels: map[string]string{"k": "v"}}
	for _, tc := range []struct {
		pod  *v1.Pod
		want bool
	}{
		{nil, true},
		{&v1.Pod{}, true},
		{anti(ok, nil), true},
		{anti(nil, ok), true},
		{anti(bad, nil), false},
		{anti(ok, bad), false},
	} {
		if got := AntiAffinityCompiles(tc.pod); got != tc.want {
			t.Errorf("antiAffinityCompiles(%v) = %v, want %v", tc.pod, got, tc.want)
		}
	}
}
