package matcher

import (
	"errors"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// selectorCases is the one table behind TestCompileSelector, the seeds of
// FuzzSelector and BenchmarkSelectorMatches. sel and set use the text form
// parseSelector and parseLabels read.
var selectorCases = []struct {
	name    string
	sel     string // see parseSelector
	set     string // see parseLabels
	want    bool
	wantErr bool
}{
	{name: "nil matches nothing", sel: "nil", set: "app=web", want: false},
	{name: "nil matches nothing, no labels", sel: "nil", set: "", want: false},
	{name: "empty matches everything", sel: "", set: "app=web", want: true},
	{name: "empty matches no labels", sel: "", set: "", want: true},
	{name: "matchLabels equal", sel: "app|=|web", set: "app=web;tier=fe", want: true},
	{name: "matchLabels differ", sel: "app|=|web", set: "app=db", want: false},
	{name: "matchLabels absent", sel: "app|=|web", set: "tier=fe", want: false},
	{name: "matchLabels empty value", sel: "app|=|", set: "app=", want: true},
	{name: "matchLabels empty value vs absent", sel: "app|=|", set: "", want: false},
	{name: "In listed", sel: "color|In|red,green", set: "color=green", want: true},
	{name: "In not listed", sel: "color|In|red,green", set: "color=blue", want: false},
	{name: "In absent", sel: "color|In|red", set: "", want: false},
	{name: "In empty value", sel: "color|In|", set: "color=", want: true},
	{name: "In many values binary search", sel: "n|In|a,b,c,d,e,f,g,h,i,j,k,l", set: "n=k", want: true},
	{name: "In many values miss", sel: "n|In|a,b,c,d,e,f,g,h,i,j,k,l", set: "n=z", want: false},
	{name: "NotIn absent key is true", sel: "color|NotIn|red", set: "app=web", want: true},
	{name: "NotIn listed", sel: "color|NotIn|red", set: "color=red", want: false},
	{name: "NotIn not listed", sel: "color|NotIn|red", set: "color=blue", want: true},
	{name: "Exists", sel: "app|Exists", set: "app=", want: true},
	{name: "Exists absent", sel: "app|Exists", set: "tier=fe", want: false},
	{name: "DoesNotExist", sel: "app|DoesNotExist", set: "tier=fe", want: true},
	{name: "DoesNotExist present", sel: "app|DoesNotExist", set: "app=web", want: false},
	{name: "AND of all", sel: "app|=|web;tier|In|fe,be;env|NotIn|prod;zone|Exists;legacy|DoesNotExist", set: "app=web;tier=be;env=dev;zone=a", want: true},
	{name: "AND one fails", sel: "app|=|web;tier|In|fe,be;env|NotIn|prod", set: "app=web;tier=be;env=prod", want: false},
	{name: "same key twice contradictory", sel: "app|In|a;app|In|b", set: "app=a", want: false},
	{name: "prefixed key", sel: "example.com/app|=|web", set: "example.com/app=web", want: true},
	{name: "error unknown operator", sel: "app|Bogus|web", wantErr: true},
	{name: "error In without values", sel: "app|In", wantErr: true},
	{name: "error NotIn without values", sel: "app|NotIn", wantErr: true},
	{name: "error Exists with values", sel: "app|Exists|x", wantErr: true},
	{name: "error DoesNotExist with values", sel: "app|DoesNotExist|x", wantErr: true},
	{name: "error invalid key", sel: "bad key|Exists", wantErr: true},
	{name: "error empty key", sel: "|Exists", wantErr: true},
	{name: "error invalid prefix", sel: "-bad.com/app|Exists", wantErr: true},
	{name: "error invalid value", sel: "app|In|not valid!", wantErr: true},
	{name: "error invalid matchLabels value", sel: "app|=|-x-", wantErr: true},
	{name: "error long value", sel: "app|=|" + strings.Repeat("v", 64), wantErr: true},
}

// parseSelector reads the text form used by the tests and the fuzzer:
// "nil" is a nil selector, "" is {}, otherwise requirements separated by ';',
// each "key|op" or "key|op|v1,v2"; op "=" is a matchLabels entry (its value
// is the whole third field), any other op a matchExpression with that
// operator, valid or not. A missing third field means no values.
func parseSelector(s string) *metav1.LabelSelector {
	if s == "nil" {
		return nil
	}
	ls := &metav1.LabelSelector{}
	if s == "" {
		return ls
	}
	for _, part := range strings.Split(s, ";") {
		f := strings.SplitN(part, "|", 3)
		key, op := f[0], ""
		if len(f) > 1 {
			op = f[1]
		}
		if op == "=" {
			if ls.MatchLabels == nil {
				ls.MatchLabels = map[string]string{}
			}
			if len(f) > 2 {
				ls.MatchLabels[key] = f[2]
			} else {
				ls.MatchLabels[key] = ""
			}
			continue
		}
		e := metav1.LabelSelectorRequirement{Key: key, Operator: metav1.LabelSelectorOperator(op)}
		if len(f) > 2 {
			e.Values = strings.Split(f[2], ",")
		}
		ls.MatchExpressions = append(ls.MatchExpressions, e)
	}
	return ls
}

// parseLabels reads "k=v;k2=v2"; a part without '=' is a key with value "".
func parseLabels(s string) map[string]string {
	m := map[string]string{}
	if s == "" {
		return m
	}
	for _, part := range strings.Split(s, ";") {
		k, v, _ := strings.Cut(part, "=")
		m[k] = v
	}
	return m
}

func TestCompileSelector(t *testing.T) {
	for _, tc := range selectorCases {
		t.Run(tc.name, func(t *testing.T) {
			sel, err := CompileSelector(parseSelector(tc.sel))
			if tc.wantErr {
				if err == nil {
					t.Fatalf("CompileSelector(%q) = %v, want an error", tc.sel, sel)
				}
				if !strings.HasPrefix(err.Error(), "matcher: ") {
					t.Errorf("error %q lacks the \"matcher: \" prefix", err)
				}
				if tc.sel != "app|Bogus|web" && errors.Unwrap(err) == nil {
					t.Errorf("error %q does not wrap its cause", err)
				}
				if !sel.Nothing() {
					t.Errorf("failed selector = %v, want Nothing", sel)
				}
				return
			}
			if err != nil {
				t.Fatalf("CompileSelector(%q) error: %v", tc.sel, err)
			}
			if got := sel.Matches(parseLabels(tc.set)); got != tc.want {
				t.Errorf("CompileSelector(%q).Matches(%q) = %v, want %v", tc.sel, tc.set, got, tc.want)
			}
		})
	}
}

// TestSelectorAgreesWithApimachinery runs the whole table through
// apimachinery too, so the table's expectations are checked against the
// definition rather than only against our reading of it.
func TestSelectorAgreesWithApimachinery(t *testing.T) {
	for _, tc := range selectorCases {
		checkAgainstApimachinery(t, tc.sel, tc.set)
	}
}

func checkAgainstApimachinery(t *testing.T, selText, setText string) {
	t.Helper()
	ls := parseSelector(selText)
	want, wantErr := metav1.LabelSelectorAsSelector(ls)
	got, gotErr := CompileSelector(ls)
	if (gotErr != nil) != (wantErr != nil) {
		t.Fatalf("selector %q: error = %v, apimachinery error = %v", selText, gotErr, wantErr)
	}
	if gotErr != nil {
		return
	}
	set := parseLabels(setText)
	if g, w := got.Matches(set), want.Matches(labels.Set(set)); g != w {
		t.Fatalf("selector %q (compiled %q) on labels %q: Matches = %v, apimachinery = %v", selText, got, setText, g, w)
	}
}

func FuzzSelector(f *testing.F) {
	for _, tc := range selectorCases {
		f.Add(tc.sel, tc.set)
	}
	f.Fuzz(func(t *testing.T, sel, set string) {
		checkAgainstApimachinery(t, sel, set)
	})
}

func TestSelectorPositive(t *testing.T) {
	tests := []struct {
		sel          string
		wantPositive string // keys and operators of Positive(), in order
		hasPositive  bool
	}{
		{sel: "", wantPositive: "", hasPositive: false},
		{sel: "nil", wantPositive: "", hasPositive: false},
		{sel: "b|NotIn|x;a|DoesNotExist", wantPositive: "", hasPositive: false},
		{sel: "b|NotIn|x;z|Exists;a|=|1;m|In|2,1", wantPositive: "a In;m In;z Exists", hasPositive: true},
	}
	for _, tc := range tests {
		sel, err := CompileSelector(parseSelector(tc.sel))
		if err != nil {
			t.Fatal(err)
		}
		var parts []string
		for _, r := range sel.Positive() {
			parts = append(parts, r.Key()+" "+r.Operator().String())
		}
		if got := strings.Join(parts, ";"); got != tc.wantPositive {
			t.Errorf("CompileSelector(%q).Positive() = %q, want %q", tc.sel, got, tc.wantPositive)
		}
		if got := sel.HasPositive(); got != tc.hasPositive {
			t.Errorf("CompileSelector(%q).HasPositive() = %v, want %v", tc.sel, got, tc.hasPositive)
		}
	}
	sel, _ := CompileSelector(parseSelector("m|In|b,a,b"))
	if got := strings.Join(sel.Positive()[0].Values(), ","); got != "a,b" {
		t.Errorf("Values() = %q, want sorted and de-duplicated \"a,b\"", got)
	}
}

func TestSelectorAccessorsDoNotAllocate(t *testing.T) {
	sel, err := CompileSelector(parseSelector("b|NotIn|x;z|Exists;a|=|1"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	allocs := testing.AllocsPerRun(100, func() {
		for _, r := range sel.Positive() {
			n += len(r.Key()) + len(r.Values())
		}
		if sel.HasPositive() {
			n++
		}
	})
	if allocs != 0 {
		t.Errorf("reading positive requirements allocates %v times, want 0", allocs)
	}
}

func TestSelectorMatchesDoesNotAllocate(t *testing.T) {
	for _, tc := range selectorCases {
		if tc.wantErr {
			continue
		}
		sel, err := CompileSelector(parseSelector(tc.sel))
		if err != nil {
			t.Fatal(err)
		}
		set := parseLabels(tc.set)
		if allocs := testing.AllocsPerRun(100, func() { sel.Matches(set) }); allocs != 0 {
			t.Errorf("%s: Matches allocates %v times per run, want 0", tc.name, allocs)
		}
	}
}

func TestSelectorString(t *testing.T) {
	tests := map[string]string{
		"nil":                        "<none>",
		"":                           "",
		"b|NotIn|y,x;a|=|1;c|Exists": "a in (1),c,b notin (x,y)",
		"z|DoesNotExist":             "!z",
	}
	for in, want := range tests {
		sel, err := CompileSelector(parseSelector(in))
		if err != nil {
			t.Fatal(err)
		}
		if got := sel.String(); got != want {
			t.Errorf("CompileSelector(%q).String() = %q, want %q", in, got, want)
		}
	}
}

// BenchmarkSelectorMatches compares Matches with apimachinery's
// labels.Selector.Matches on the table's valid cases, in the same run:
// benchstat pivots on impl=.
func BenchmarkSelectorMatches(b *testing.B) {
	for _, tc := range selectorCases {
		if tc.wantErr {
			continue
		}
		ls := parseSelector(tc.sel)
		set := parseLabels(tc.set)
		ours, err := CompileSelector(ls)
		if err != nil {
			b.Fatal(err)
		}
		theirs, err := metav1.LabelSelectorAsSelector(ls)
		if err != nil {
			b.Fatal(err)
		}
		name := strings.ReplaceAll(tc.name, " ", "_")
		b.Run("case="+name+"/impl=matcher", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				ours.Matches(set)
			}
		})
		lset := labels.Set(set)
		b.Run("case="+name+"/impl=apimachinery", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				theirs.Matches(lset)
			}
		})
	}
}
