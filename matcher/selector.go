package matcher

import (
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
)

// Operator is the operator of a compiled requirement. matchLabels entries
// compile to In with one value, as apimachinery's Equals behaves like In.
type Operator uint8

// The four operators a metav1.LabelSelector can express.
const (
	In Operator = iota + 1
	NotIn
	Exists
	DoesNotExist
)

// String returns the operator as apimachinery spells it.
func (op Operator) String() string {
	switch op {
	case In:
		return "In"
	case NotIn:
		return "NotIn"
	case Exists:
		return "Exists"
	case DoesNotExist:
		return "DoesNotExist"
	}
	return fmt.Sprintf("Operator(%d)", uint8(op))
}

// Positive reports whether the operator needs the key to be present (In,
// Exists): the requirements an index can post a selector under.
func (op Operator) Positive() bool { return op == In || op == Exists }

// Requirement is one compiled requirement of a Selector.
type Requirement struct {
	key    string
	op     Operator
	values []string // sorted, without duplicates; empty for Exists/DoesNotExist
}

// Key returns the label key the requirement tests.
func (r Requirement) Key() string { return r.key }

// Operator returns the requirement's operator.
func (r Requirement) Operator() Operator { return r.op }

// Values returns the sorted, de-duplicated values of an In or NotIn
// requirement. The slice is shared: do not modify it.
func (r Requirement) Values() []string { return r.values }

// binarySearchAbove is the number of values above which hasValue uses a binary
// search instead of a linear scan.
const binarySearchAbove = 8

func (r *Requirement) hasValue(v string) bool {
	if len(r.values) == 1 {
		return r.values[0] == v
	}
	if len(r.values) > binarySearchAbove {
		_, ok := slices.BinarySearch(r.values, v)
		return ok
	}
	for _, x := range r.values {
		if x == v {
			return true
		}
	}
	return false
}

// Matches reports whether labels satisfy the requirement.
func (r *Requirement) Matches(labels map[string]string) bool {
	v, ok := labels[r.key]
	switch r.op {
	case In:
		return ok && r.hasValue(v)
	case NotIn:
		return !ok || !r.hasValue(v)
	case Exists:
		return ok
	case DoesNotExist:
		return !ok
	}
	return false
}

func (r Requirement) String() string {
	switch r.op {
	case Exists:
		return r.key
	case DoesNotExist:
		return "!" + r.key
	case In:
		return r.key + " in (" + strings.Join(r.values, ",") + ")"
	case NotIn:
		return r.key + " notin (" + strings.Join(r.values, ",") + ")"
	}
	return r.key + " " + r.op.String()
}

// Selector is a compiled label selector. The zero value matches nothing, like
// a nil *metav1.LabelSelector.
//
// Invariants: reqs is nil for the selector that matches nothing, empty but
// not nil (everythingReqs) for the one that matches everything, and
// otherwise holds the positive requirements (In, Exists) first, then the
// negative ones, each group sorted by key, operator and values. A Selector
// is one slice header: a compiled pod keeps several.
type Selector struct {
	reqs []Requirement
}

// everythingReqs marks the selector that matches everything.
var everythingReqs = make([]Requirement, 0)

// Everything returns the selector that matches every label set, as the empty
// selector {} does.
func Everything() Selector { return Selector{reqs: everythingReqs} }

// Nothing returns the selector that matches no label set, as a nil selector
// does. It is the zero Selector.
func Nothing() Selector { return Selector{} }

// CompileSelector compiles ls with exactly metav1.LabelSelectorAsSelector's
// semantics and validation: nil matches nothing, {} matches everything, and
// the same inputs are rejected (unknown operator, In/NotIn without values,
// Exists/DoesNotExist with values, invalid key or value). Errors are prefixed
// "matcher: " and wrap apimachinery's.
func CompileSelector(ls *metav1.LabelSelector) (Selector, error) {
	return termSelector(&podCompiler{}, ls, nil)
}

// termSelector compiles ls ANDed with a requirement `key In (the pod's own
// value)` per key of match that the pod's labels carry, as PodTopologySpread
// merges a spread constraint's matchLabelKeys (the only caller that passes
// keys). The requirements and their values come from c's arenas. A nil ls
// stays Nothing, though its keys are still validated; {} without keys is
// Everything.
func termSelector(c *podCompiler, ls *metav1.LabelSelector, match []string) (Selector, error) {
	var n int
	if ls != nil {
		n = len(ls.MatchLabels) + len(ls.MatchExpressions)
	}
	reqs := c.requirements(n + len(match))
	if ls != nil {
		for k, v := range ls.MatchLabels {
			r, err := newRequirement(c, k, selection.Equals, []string{v})
			if err != nil {
				return Nothing(), err
			}
			reqs = append(reqs, r)
		}
		for _, e := range ls.MatchExpressions {
			var op selection.Operator
			switch e.Operator {
			case metav1.LabelSelectorOpIn:
				op = selection.In
			case metav1.LabelSelectorOpNotIn:
				op = selection.NotIn
			case metav1.LabelSelectorOpExists:
				op = selection.Exists
			case metav1.LabelSelectorOpDoesNotExist:
				op = selection.DoesNotExist
			default:
				return Nothing(), fmt.Errorf("matcher: %q is not a valid label selector operator", e.Operator)
			}
			r, err := newRequirement(c, e.Key, op, e.Values)
			if err != nil {
				return Nothing(), err
			}
			reqs = append(reqs, r)
		}
	}
	for _, key := range match {
		if v, ok := c.pod.Labels[key]; ok {
			r, err := newRequirement(c, key, selection.In, []string{v})
			if err != nil {
				return Nothing(), fmt.Errorf("matchLabelKeys: %w", err)
			}
			reqs = append(reqs, r)
		}
	}
	if ls == nil {
		return Nothing(), nil
	}
	return newSelector(reqs), nil
}

// newRequirement validates (key, op, values) with apimachinery's own
// labels.NewRequirement, so that exactly the same inputs are rejected, and
// returns the compiled form, its values copied into c's arena.
func newRequirement(c *podCompiler, key string, op selection.Operator, values []string) (Requirement, error) {
	if !fastValid(key, op, values) {
		// Cloned so that values does not escape: callers pass stack slices.
		vs := slices.Clone(values)
		if _, err := labels.NewRequirement(key, op, vs); err != nil {
			return Requirement{}, fmt.Errorf("matcher: invalid requirement %q %s %q: %w", key, op, slices.Clone(vs), err)
		}
	}
	r := Requirement{key: key}
	switch op {
	case selection.In, selection.Equals, selection.DoubleEquals:
		r.op = In
	case selection.NotIn, selection.NotEquals:
		r.op = NotIn
	case selection.Exists:
		r.op = Exists
	case selection.DoesNotExist:
		r.op = DoesNotExist
	default:
		return Requirement{}, fmt.Errorf("matcher: unsupported operator %q", op)
	}
	if r.op == In || r.op == NotIn {
		r.values = c.values(values)
		if len(r.values) > 1 {
			slices.Sort(r.values)
			r.values = slices.Compact(r.values)
		}
	}
	return r, nil
}

// fastValid reports, without allocating, whether labels.NewRequirement
// certainly accepts (key, op, values). When it says no, newRequirement asks
// labels.NewRequirement itself.
func fastValid(key string, op selection.Operator, values []string) bool {
	switch op {
	case selection.In, selection.NotIn:
		if len(values) == 0 {
			return false
		}
	case selection.Equals, selection.DoubleEquals, selection.NotEquals:
		if len(values) != 1 {
			return false
		}
	case selection.Exists, selection.DoesNotExist:
		if len(values) != 0 {
			return false
		}
	default:
		return false
	}
	if !validLabelKey(key) {
		return false
	}
	for _, v := range values {
		if !validLabelValue(v) {
			return false
		}
	}
	return true
}

// newSelector orders reqs (positive first) and builds the Selector. An empty
// reqs yields a selector that matches everything.
func newSelector(reqs []Requirement) Selector {
	if len(reqs) == 0 {
		return Everything()
	}
	if len(reqs) > 1 {
		slices.SortStableFunc(reqs, compareRequirements)
	}
	return Selector{reqs: reqs}
}

// compareRequirements orders positive requirements first, then by key,
// operator and values.
func compareRequirements(a, b Requirement) int {
	if pa, pb := a.op.Positive(), b.op.Positive(); pa != pb {
		if pa {
			return -1
		}
		return 1
	}
	if c := strings.Compare(a.key, b.key); c != 0 {
		return c
	}
	if a.op != b.op {
		return int(a.op) - int(b.op)
	}
	return slices.Compare(a.values, b.values)
}

// Matches reports whether labels satisfy every requirement of s. It does not
// allocate.
func (s Selector) Matches(labels map[string]string) bool {
	if len(s.reqs) == 0 {
		return s.reqs != nil
	}
	for i := range s.reqs {
		if !s.reqs[i].Matches(labels) {
			return false
		}
	}
	return true
}

// Everything reports whether s matches every label set (it was {}).
func (s Selector) Everything() bool { return s.reqs != nil && len(s.reqs) == 0 }

// Nothing reports whether s matches no label set (it was nil, or failed to
// compile).
func (s Selector) Nothing() bool { return s.reqs == nil }

// Requirements returns every requirement, positive ones first. The slice is
// shared: do not modify it.
func (s Selector) Requirements() []Requirement { return s.reqs }

// Positive returns the requirements that need their key present (In, Exists),
// sorted by key. A label set can only match s if it satisfies all of them, so
// an index may post s under any one of them. The slice is shared: do not
// modify it.
func (s Selector) Positive() []Requirement { return s.reqs[:s.npos()] }

// npos counts the positive requirements, which come first.
func (s Selector) npos() int {
	n := 0
	for n < len(s.reqs) && s.reqs[n].op.Positive() {
		n++
	}
	return n
}

// HasPositive reports whether s has at least one positive requirement. A
// selector without one (only NotIn/DoesNotExist, or {}) can match a label set
// that has none of the keys it mentions, so an index must always check it.
func (s Selector) HasPositive() bool { return len(s.reqs) > 0 && s.reqs[0].op.Positive() }

// String renders s in apimachinery's selector syntax; "<none>" for Nothing and
// "" for Everything, as labels.Nothing() and labels.Everything() print.
func (s Selector) String() string {
	if s.Nothing() {
		return "<none>"
	}
	parts := make([]string, len(s.reqs))
	for i, r := range s.reqs {
		parts[i] = r.String()
	}
	return strings.Join(parts, ",")
}

// Equal reports whether r and o are the same requirement.
func (r Requirement) Equal(o Requirement) bool {
	return r.key == o.key && r.op == o.op && slices.Equal(r.values, o.values)
}

// Equal reports whether s and o are the same compiled selector: the same
// requirements in the same canonical order, so equal selectors match the
// same label sets.
func (s Selector) Equal(o Selector) bool {
	return (s.reqs == nil) == (o.reqs == nil) && slices.EqualFunc(s.reqs, o.reqs, Requirement.Equal)
}
