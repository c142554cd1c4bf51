package matcher

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func podWith(ns string, lbls map[string]string, aff *v1.Affinity, spread ...v1.TopologySpreadConstraint) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: ns, UID: "uid-p", Labels: lbls},
		Spec:       v1.PodSpec{Affinity: aff, TopologySpreadConstraints: spread},
	}
}

func requiredAffinity(terms ...v1.PodAffinityTerm) *v1.Affinity {
	return &v1.Affinity{PodAffinity: &v1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: terms}}
}

func requiredAnti(terms ...v1.PodAffinityTerm) *v1.Affinity {
	return &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: terms}}
}

func TestTermNamespaceScope(t *testing.T) {
	nsLabels := map[string]map[string]string{
		"own":   {"team": "a"},
		"other": {"team": "b"},
		"third": {"team": "a"},
		"bare":  nil,
	}
	tests := []struct {
		name       string
		namespaces []string
		nsSelector string // parseSelector form; "nil" for none
		want       []string
	}{
		{name: "no namespaces and nil selector is own namespace", nsSelector: "nil", want: []string{"own"}},
		{name: "empty selector is every namespace", nsSelector: "", want: []string{"bare", "other", "own", "third"}},
		{name: "list only", namespaces: []string{"other", "third"}, nsSelector: "nil", want: []string{"other", "third"}},
		{name: "selector only", nsSelector: "team|=|a", want: []string{"own", "third"}},
		{name: "list union selector", namespaces: []string{"other"}, nsSelector: "team|=|a", want: []string{"other", "own", "third"}},
		{name: "NotIn selector matches unlabelled namespace", nsSelector: "team|NotIn|a", want: []string{"bare", "other"}},
		{name: "list does not include own namespace", namespaces: []string{"third"}, nsSelector: "nil", want: []string{"third"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pod := podWith("own", nil, requiredAffinity(v1.PodAffinityTerm{
				LabelSelector:     &metav1.LabelSelector{},
				Namespaces:        tc.namespaces,
				NamespaceSelector: parseSelector(tc.nsSelector),
				TopologyKey:       "zone",
			}))
			terms, err := CompileTerms(pod)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, ns := range []string{"bare", "other", "own", "third"} {
				if terms.Affinity[0].Matches(ns, map[string]string{"x": "y"}, nsLabels[ns]) {
					got = append(got, ns)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("namespaces in scope (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTermIgnoresLabelKeys checks that an affinity or anti-affinity term,
// required or preferred, matches with its labelSelector as stored, whatever
// its matchLabelKeys and mismatchLabelKeys and the pod's own labels say:
// kube-scheduler v1.37.2 reads the stored selector (GetAffinityTerms), into
// which the API server merged the keys when the pod was created. A pod
// relabelled since (version 1 here, where the keys would have read the
// version it was created with) is matched as upstream matches it.
func TestTermIgnoresLabelKeys(t *testing.T) {
	own := map[string]string{"app": "web", "version": "1", "tenant": "t1"}
	tests := []struct {
		name       string
		selector   *metav1.LabelSelector
		matchKeys  []string
		mismatch   []string
		candidates map[string]bool // labels text → want match
	}{
		{
			name:      "matchLabelKeys adds no In of own value",
			selector:  parseSelector("app|In|a"),
			matchKeys: []string{"version"},
			candidates: map[string]bool{
				"app=a;version=1": true,
				"app=a;version=2": true,
				"app=a":           true,
				"app=b;version=1": false,
			},
		},
		{
			name:     "mismatchLabelKeys adds no NotIn of own value",
			selector: parseSelector("app|In|a"),
			mismatch: []string{"tenant"},
			candidates: map[string]bool{
				"app=a;tenant=t1": true,
				"app=a;tenant=t2": true,
				"app=a":           true,
			},
		},
		{
			name:      "empty selector stays Everything",
			selector:  parseSelector(""),
			matchKeys: []string{"tenant"},
			mismatch:  []string{"version"},
			candidates: map[string]bool{
				"tenant=t2;version=1": true,
				"other=x":             true,
			},
		},
		{
			name:      "nil selector stays Nothing",
			selector:  nil,
			matchKeys: []string{"app"},
			mismatch:  []string{"tenant"},
			candidates: map[string]bool{
				"app=web":           false,
				"app=web;tenant=t2": false,
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			term := v1.PodAffinityTerm{
				LabelSelector:     tc.selector,
				MatchLabelKeys:    tc.matchKeys,
				MismatchLabelKeys: tc.mismatch,
				TopologyKey:       "zone",
			}
			weighted := []v1.WeightedPodAffinityTerm{{Weight: 1, PodAffinityTerm: term}}
			pod := podWith("ns", own, &v1.Affinity{
				PodAffinity: &v1.PodAffinity{
					RequiredDuringSchedulingIgnoredDuringExecution:  []v1.PodAffinityTerm{term},
					PreferredDuringSchedulingIgnoredDuringExecution: weighted,
				},
				PodAntiAffinity: &v1.PodAntiAffinity{
					RequiredDuringSchedulingIgnoredDuringExecution:  []v1.PodAffinityTerm{term},
					PreferredDuringSchedulingIgnoredDuringExecution: weighted,
				},
			})
			terms, err := CompileTerms(pod)
			if err != nil {
				t.Fatal(err)
			}
			compiled := map[string]*Term{
				"required affinity":       &terms.Affinity[0],
				"required anti-affinity":  &terms.AntiAffinity[0],
				"preferred affinity":      &terms.PreferredAffinity[0],
				"preferred anti-affinity": &terms.PreferredAntiAffinity[0],
			}
			if anti := CompileRequiredAntiAffinity(pod); len(anti) == 1 {
				compiled["assigned pod's anti-affinity"] = &anti[0]
			} else {
				t.Fatalf("CompileRequiredAntiAffinity = %v, want one term", anti)
			}
			for kind, term := range compiled {
				for set, want := range tc.candidates {
					if got := term.Matches("ns", parseLabels(set), nil); got != want {
						t.Errorf("%s %v: Matches(%q) = %v, want %v", kind, term.Selector, set, got, want)
					}
				}
			}
		})
	}
}

// TestSpreadMergesLabelKeysBesideAffinity compiles one pod whose required
// anti-affinity term and spread constraint have the same selector and the
// same matchLabelKeys: the spread constraint merges the pod's own value
// (PodTopologySpread's filterTopologySpreadConstraints does), the
// anti-affinity term does not.
func TestSpreadMergesLabelKeysBesideAffinity(t *testing.T) {
	pod := podWith("ns", map[string]string{"app": "a", "version": "1"},
		requiredAnti(v1.PodAffinityTerm{LabelSelector: parseSelector("app|In|a"), TopologyKey: "zone", MatchLabelKeys: []string{"version"}}),
		v1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: v1.DoNotSchedule,
			LabelSelector: parseSelector("app|In|a"), MatchLabelKeys: []string{"version"}})
	terms, err := CompileTerms(pod)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		term *Term
		want string
	}{
		{"anti-affinity", &terms.AntiAffinity[0], "app in (a)"},
		{"spread", &terms.Spread[0], "app in (a),version in (1)"},
	} {
		if got := tc.term.Selector.String(); got != tc.want {
			t.Errorf("%s selector = %q, want %q", tc.name, got, tc.want)
		}
	}
	placed := map[string]string{"app": "a", "version": "2"}
	if !terms.AntiAffinity[0].Matches("ns", placed, nil) {
		t.Errorf("anti-affinity does not match app=a,version=2; want it to (the stored selector)")
	}
	if terms.Spread[0].Matches("ns", placed, nil) {
		t.Errorf("spread matches app=a,version=2; want it not to (version 1 merged)")
	}
}

func TestTermErrors(t *testing.T) {
	bad := &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Bogus"}}}
	good := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	tests := []struct {
		name            string
		pod             *v1.Pod
		wantAffinityErr bool
		wantSpreadErr   bool
		wantErrText     string
	}{
		{
			name:            "invalid affinity selector",
			pod:             podWith("ns", nil, requiredAffinity(v1.PodAffinityTerm{LabelSelector: bad, TopologyKey: "zone"})),
			wantAffinityErr: true,
			wantErrText:     `not a valid label selector operator`,
		},
		{
			name:            "invalid anti-affinity namespaceSelector",
			pod:             podWith("ns", nil, requiredAnti(v1.PodAffinityTerm{LabelSelector: good, NamespaceSelector: bad, TopologyKey: "zone"})),
			wantAffinityErr: true,
			wantErrText:     "namespaceSelector",
		},
		{
			// The keys are not read, so the value they would merge is never
			// validated: kube-scheduler keeps the term.
			name: "affinity matchLabelKeys naming an invalid value of the pod's own labels",
			pod: podWith("ns", map[string]string{"app": "not valid!"}, requiredAffinity(v1.PodAffinityTerm{
				LabelSelector: good, MatchLabelKeys: []string{"app"}, MismatchLabelKeys: []string{"app"}, TopologyKey: "zone",
			})),
		},
		{
			name: "invalid spread matchLabelKeys value from the pod's own labels",
			pod: podWith("ns", map[string]string{"app": "not valid!"}, nil, v1.TopologySpreadConstraint{
				MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: v1.DoNotSchedule, LabelSelector: good, MatchLabelKeys: []string{"app"},
			}),
			wantSpreadErr: true,
			wantErrText:   "matchLabelKeys",
		},
		{
			name: "invalid spread selector",
			pod: podWith("ns", nil, nil, v1.TopologySpreadConstraint{
				MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: v1.DoNotSchedule, LabelSelector: bad,
			}),
			wantSpreadErr: true,
			wantErrText:   "spread constraint",
		},
		{
			name: "invalid ScheduleAnyway spread is not compiled",
			pod: podWith("ns", nil, nil, v1.TopologySpreadConstraint{
				MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: v1.ScheduleAnyway, LabelSelector: bad,
			}),
		},
		{
			name: "invalid preferred term is an error but not a required one",
			pod: podWith("ns", nil, &v1.Affinity{PodAffinity: &v1.PodAffinity{
				PreferredDuringSchedulingIgnoredDuringExecution: []v1.WeightedPodAffinityTerm{{
					Weight: 5, PodAffinityTerm: v1.PodAffinityTerm{LabelSelector: bad, TopologyKey: "zone"},
				}},
			}}),
			wantErrText: "Affinity term",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			terms, err := CompileTerms(tc.pod)
			if (err != nil) != (tc.wantErrText != "") {
				t.Fatalf("CompileTerms error = %v, want one containing %q", err, tc.wantErrText)
			}
			if err != nil {
				if !strings.HasPrefix(err.Error(), "matcher: ") || !strings.Contains(err.Error(), tc.wantErrText) {
					t.Errorf("CompileTerms error = %q, want prefix \"matcher: \" and %q", err, tc.wantErrText)
				}
			}
			if got := terms.AffinityErr() != nil; got != tc.wantAffinityErr {
				t.Errorf("AffinityErr() = %v, want error: %v", terms.AffinityErr(), tc.wantAffinityErr)
			}
			if got := terms.SpreadErr() != nil; got != tc.wantSpreadErr {
				t.Errorf("SpreadErr() = %v, want error: %v", terms.SpreadErr(), tc.wantSpreadErr)
			}
			if terms.Len() == 0 && tc.wantErrText != "" {
				t.Errorf("the failed term was dropped; it must be kept and marked")
			}
			for _, group := range [][]Term{terms.Affinity, terms.AntiAffinity, terms.PreferredAffinity, terms.Spread} {
				for _, term := range group {
					if term.Err() != nil && term.Matches("ns", map[string]string{"app": "web"}, nil) {
						t.Errorf("a failed term matches; want it to match nothing")
					}
				}
			}
		})
	}
	if _, err := CompileTerms(nil); err == nil || !strings.HasPrefix(err.Error(), "matcher: ") {
		t.Errorf("CompileTerms(nil) error = %v, want a matcher: error", err)
	}
}

func TestCompileTermsKinds(t *testing.T) {
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}
	pod := podWith("ns", map[string]string{"app": "web"}, &v1.Affinity{
		PodAffinity: &v1.PodAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{LabelSelector: sel, TopologyKey: "zone"}},
			PreferredDuringSchedulingIgnoredDuringExecution: []v1.WeightedPodAffinityTerm{
				{Weight: 7, PodAffinityTerm: v1.PodAffinityTerm{LabelSelector: sel, TopologyKey: "region"}},
			},
		},
		PodAntiAffinity: &v1.PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{LabelSelector: sel, TopologyKey: "hostname"}},
			PreferredDuringSchedulingIgnoredDuringExecution: []v1.WeightedPodAffinityTerm{
				{Weight: 3, PodAffinityTerm: v1.PodAffinityTerm{LabelSelector: sel, TopologyKey: "rack"}},
			},
		},
	},
		v1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: v1.DoNotSchedule, LabelSelector: sel},
		v1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: "hostname", WhenUnsatisfiable: v1.ScheduleAnyway, LabelSelector: sel},
	)
	terms, err := CompileTerms(pod)
	if err != nil {
		t.Fatal(err)
	}
	type summary struct {
		Kind     Kind
		Required bool
		Weight   int32
		Topology string
	}
	var got []summary
	for _, group := range [][]Term{terms.Affinity, terms.PreferredAffinity, terms.AntiAffinity, terms.PreferredAntiAffinity, terms.Spread} {
		for _, term := range group {
			got = append(got, summary{term.Kind, term.Required, term.Weight, term.TopologyKey})
		}
	}
	want := []summary{
		{Affinity, true, 0, "zone"},
		{Affinity, false, 7, "region"},
		{AntiAffinity, true, 0, "hostname"},
		{AntiAffinity, false, 3, "rack"},
		{Spread, true, 0, "zone"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("compiled terms (-want +got):\n%s", diff)
	}
	if got := terms.Len(); got != 5 {
		t.Errorf("Len() = %d, want 5", got)
	}
}

// TestCompileRequired checks that CompileRequired compiles the required
// terms exactly as CompileTerms does and no preferred ones, and that terms
// whose requirements and values share the pod's arenas keep their own: a
// term's sorted, de-duplicated values must not leak into the next term's.
func TestCompileRequired(t *testing.T) {
	in := func(key string, vals ...string) *metav1.LabelSelector {
		return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: key, Operator: metav1.LabelSelectorOpIn, Values: vals}}}
	}
	pod := podWith("ns", map[string]string{"app": "web", "v": "2"}, &v1.Affinity{
		PodAffinity: &v1.PodAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{
				{LabelSelector: in("app", "z", "a", "z", "m"), TopologyKey: "zone", MatchLabelKeys: []string{"v"}},
				{LabelSelector: in("tier", "b"), TopologyKey: "zone", Namespaces: []string{"y", "x", "y"}},
			},
			PreferredDuringSchedulingIgnoredDuringExecution: []v1.WeightedPodAffinityTerm{
				{Weight: 7, PodAffinityTerm: v1.PodAffinityTerm{LabelSelector: in("app", "db"), TopologyKey: "region"}},
			},
		},
		PodAntiAffinity: &v1.PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{LabelSelector: in("app", "web"), TopologyKey: "hostname", MismatchLabelKeys: []string{"v"}}},
		},
	}, v1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: v1.DoNotSchedule, LabelSelector: in("app", "web"), MatchLabelKeys: []string{"v"}})
	full, err := CompileTerms(pod)
	if err != nil {
		t.Fatal(err)
	}
	req, err := CompileRequired(pod)
	if err != nil {
		t.Fatal(err)
	}
	if req.PreferredAffinity != nil || req.PreferredAntiAffinity != nil {
		t.Errorf("CompileRequired kept preferred terms")
	}
	if len(req.Required()) != 4 || len(full.Required()) != 4 {
		t.Fatalf("required terms: %d and %d, want 4", len(req.Required()), len(full.Required()))
	}
	for i := range req.Required() {
		if a, b := &req.Required()[i], &full.Required()[i]; !a.Equal(b) {
			t.Errorf("term %d: CompileRequired %v, CompileTerms %v", i, a.Selector, b.Selector)
		}
	}
	// The affinity terms' matchLabelKeys and mismatchLabelKeys are not
	// merged; the spread constraint's matchLabelKeys is.
	want := []string{"app in (a,m,z)", "tier in (b)", "app in (web)", "app in (web),v in (2)"}
	for i, w := range want {
		if got := req.Required()[i].Selector.String(); got != w {
			t.Errorf("term %d selector %q, want %q", i, got, w)
		}
	}
	if got := req.Affinity[1].Scope.Names(); !slices.Equal(got, []string{"x", "y"}) {
		t.Errorf("namespaces %v, want [x y]", got)
	}
	if got := req.Spread[0].Scope.Names(); !slices.Equal(got, []string{"ns"}) {
		t.Errorf("spread scope %v, want [ns]", got)
	}
	if _, err := CompileRequired(nil); err == nil {
		t.Errorf("CompileRequired(nil) returned no error")
	}
}

func TestSpreadTerm(t *testing.T) {
	tests := []struct {
		name      string
		selector  *metav1.LabelSelector
		matchKeys []string
		ns        string
		labels    string
		want      bool
	}{
		{name: "empty selector matches every pod of the namespace", selector: parseSelector(""), ns: "ns", labels: "x=y", want: true},
		{name: "other namespace never matches", selector: parseSelector(""), ns: "other", labels: "x=y", want: false},
		{name: "nil selector matches nothing", selector: nil, ns: "ns", labels: "app=web", want: false},
		{name: "nil selector stays nil with matchLabelKeys", selector: nil, matchKeys: []string{"app"}, ns: "ns", labels: "app=web", want: false},
		{name: "matchLabelKeys narrows", selector: parseSelector("foo|Exists"), matchKeys: []string{"app"}, ns: "ns", labels: "foo=1;app=db", want: false},
		{name: "matchLabelKeys own value", selector: parseSelector("foo|Exists"), matchKeys: []string{"app"}, ns: "ns", labels: "foo=1;app=web", want: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pod := podWith("ns", map[string]string{"app": "web"}, nil, v1.TopologySpreadConstraint{
				MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: v1.DoNotSchedule,
				LabelSelector: tc.selector, MatchLabelKeys: tc.matchKeys,
			})
			terms, err := CompileTerms(pod)
			if err != nil {
				t.Fatal(err)
			}
			if got := terms.Spread[0].Matches(tc.ns, parseLabels(tc.labels), nil); got != tc.want {
				t.Errorf("spread Matches(%s, %q) = %v, want %v", tc.ns, tc.labels, got, tc.want)
			}
		})
	}
}

func TestAllAffinityMatchAndAnyMatch(t *testing.T) {
	exists := func(k string) v1.PodAffinityTerm {
		return v1.PodAffinityTerm{LabelSelector: parseSelector(k + "|Exists"), TopologyKey: "zone"}
	}
	terms, err := CompileTerms(podWith("ns", nil, requiredAffinity(exists("aaa"), exists("bbb"))))
	if err != nil {
		t.Fatal(err)
	}
	if !terms.AllAffinityMatch("ns", map[string]string{"aaa": "", "bbb": ""}, nil) {
		t.Errorf("AllAffinityMatch(aaa=\"\", bbb=\"\") = false, want true")
	}
	if terms.AllAffinityMatch("ns", map[string]string{"aaa": ""}, nil) {
		t.Errorf("AllAffinityMatch(aaa=\"\") = true, want false")
	}
	if !AnyMatch(terms.Affinity, "ns", map[string]string{"bbb": "1"}, nil) {
		t.Errorf("AnyMatch(bbb=1) = false, want true")
	}
	none, _ := CompileTerms(podWith("ns", nil, nil))
	if none.AllAffinityMatch("ns", map[string]string{"aaa": ""}, nil) {
		t.Errorf("AllAffinityMatch with no terms = true, want false (kube-scheduler's podMatchesAllAffinityTerms)")
	}
}

func TestTermMatchesDoesNotAllocate(t *testing.T) {
	pod := podWith("ns", map[string]string{"app": "web"}, requiredAffinity(v1.PodAffinityTerm{
		LabelSelector:     parseSelector("app|In|web,db;tier|NotIn|x"),
		NamespaceSelector: parseSelector("team|=|a"),
		Namespaces:        []string{"ns", "other"},
		TopologyKey:       "zone",
	}))
	terms, err := CompileTerms(pod)
	if err != nil {
		t.Fatal(err)
	}
	set, nsl := map[string]string{"app": "db"}, map[string]string{"team": "a"}
	if allocs := testing.AllocsPerRun(100, func() { terms.Affinity[0].Matches("third", set, nsl) }); allocs != 0 {
		t.Errorf("Term.Matches allocates %v times per run, want 0", allocs)
	}
}

func TestCompileRequiredAntiAffinity(t *testing.T) {
	if got := CompileRequiredAntiAffinity(podWith("ns", nil, nil)); got != nil {
		t.Errorf("no anti-affinity: got %v, want nil", got)
	}
	bad := v1.PodAffinityTerm{LabelSelector: parseSelector("a|Bogus"), TopologyKey: "zone"}
	good := v1.PodAffinityTerm{LabelSelector: parseSelector("app|=|web"), TopologyKey: "zone"}
	if got := CompileRequiredAntiAffinity(podWith("ns", nil, requiredAnti(bad, good))); got != nil {
		t.Errorf("one invalid term: got %v, want nil (kube-scheduler keeps none)", got)
	}
	got := CompileRequiredAntiAffinity(podWith("ns", nil, requiredAnti(good)))
	if len(got) != 1 || !got[0].Matches("ns", map[string]string{"app": "web"}, nil) {
		t.Errorf("CompileRequiredAntiAffinity = %v, want the valid term", got)
	}
}

func TestTopologyKeys(t *testing.T) {
	terms := []Term{{TopologyKey: "zone"}, {TopologyKey: "host"}, {TopologyKey: "zone"}}
	got := TopologyKeys([]string{"keep"}, terms)
	if diff := cmp.Diff([]string{"keep", "host", "zone"}, got); diff != "" {
		t.Errorf("TopologyKeys (-want +got):\n%s", diff)
	}
}

func TestTermEqual(t *testing.T) {
	compile := func(p *v1.Pod) *Term {
		t.Helper()
		terms, _ := CompileTerms(p)
		return &terms.Affinity[0]
	}
	a := compile(podWith("ns", nil, requiredAffinity(v1.PodAffinityTerm{LabelSelector: parseSelector("b|In|y,x;a|=|1"), TopologyKey: "zone"})))
	b := compile(podWith("ns", nil, requiredAffinity(v1.PodAffinityTerm{LabelSelector: parseSelector("a|=|1;b|In|x,y,x"), TopologyKey: "zone"})))
	if !a.Equal(b) {
		t.Errorf("terms with the same requirements in another order are not Equal")
	}
	for name, other := range map[string]*Term{
		"topology key": compile(podWith("ns", nil, requiredAffinity(v1.PodAffinityTerm{LabelSelector: parseSelector("a|=|1;b|In|x,y"), TopologyKey: "host"}))),
		"values":       compile(podWith("ns", nil, requiredAffinity(v1.PodAffinityTerm{LabelSelector: parseSelector("a|=|1;b|In|x"), TopologyKey: "zone"}))),
		"namespace":    compile(podWith("other", nil, requiredAffinity(v1.PodAffinityTerm{LabelSelector: parseSelector("a|=|1;b|In|x,y"), TopologyKey: "zone"}))),
		"failed":       compile(podWith("ns", nil, requiredAffinity(v1.PodAffinityTerm{LabelSelector: parseSelector("a|Bogus"), TopologyKey: "zone"}))),
	} {
		if a.Equal(other) {
			t.Errorf("terms differing in %s are Equal", name)
		}
	}
	if !Everything().Equal(Everything()) || Everything().Equal(Nothing()) {
		t.Errorf("Everything/Nothing equality is wrong")
	}
}

// BenchmarkCompileTerms compiles a pod with one required affinity and one
// required anti-affinity term (a matchLabels each), the shape of most
// pending pods with pod affinity; Add pays this once per pod.
func BenchmarkCompileTerms(b *testing.B) {
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web-1", Namespace: "shop", Labels: map[string]string{"app": "web", "pod-template-hash": "5d8f"}},
		Spec: v1.PodSpec{Affinity: &v1.Affinity{
			PodAffinity: &v1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}},
				TopologyKey:   "topology.kubernetes.io/zone",
			}}},
			PodAntiAffinity: &v1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
				TopologyKey:   "kubernetes.io/hostname",
			}}},
		}},
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := CompileTerms(pod); err != nil {
			b.Fatal(err)
		}
	}
}

// TestScopeForms checks the forms a Scope takes: the zero Scope contains
// no namespace; one namespace, the pod's own or a single listed one, is
// held in the Scope and listed without allocating; a list or a selector is
// kept out of line; scopes of the same namespaces are equal whatever their
// form.
func TestScopeForms(t *testing.T) {
	var zero Scope
	if zero.Contains("", nil) || zero.Names() != nil || !zero.Selector().Nothing() || zero.All() || zero.ByLabels() {
		t.Error("the zero Scope is not empty")
	}
	compile := func(names []string, nsSel *metav1.LabelSelector) *Scope {
		t.Helper()
		terms, err := CompileTerms(podWith("own", nil, requiredAffinity(v1.PodAffinityTerm{
			LabelSelector: &metav1.LabelSelector{}, Namespaces: names, NamespaceSelector: nsSel, TopologyKey: "zone",
		})))
		if err != nil {
			t.Fatal(err)
		}
		return &terms.Affinity[0].Scope
	}
	own, listed := compile(nil, nil), compile([]string{"own"}, nil)
	twice := compile([]string{"own", "own"}, nil)
	for name, sc := range map[string]*Scope{"own": own, "one listed": listed, "listed twice": twice} {
		if got := sc.Names(); !slices.Equal(got, []string{"own"}) {
			t.Errorf("%s: Names() = %v", name, got)
		}
		if !sc.Contains("own", nil) || sc.Contains("other", nil) || !sc.Selector().Nothing() {
			t.Errorf("%s: not the scope of namespace own alone", name)
		}
		if !sc.Equal(own) {
			t.Errorf("%s: not equal to the own-namespace scope", name)
		}
		if allocs := testing.AllocsPerRun(100, func() { _ = sc.Names() }); allocs != 0 {
			t.Errorf("%s: Names allocates %v times", name, allocs)
		}
	}
	if own.more != oneName || listed.more != oneName {
		t.Error("a one-namespace scope is kept out of line")
	}
	wide := compile([]string{"b", "a"}, parseSelector("team|=|x"))
	if got := wide.Names(); !slices.Equal(got, []string{"a", "b"}) || !wide.ByLabels() || wide.Equal(own) {
		t.Errorf("list and selector: Names() = %v, ByLabels %v", got, wide.ByLabels())
	}
}
