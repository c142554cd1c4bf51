package matcher

import (
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Scope is the set of namespaces a term applies to: a list of names, a
// namespace selector, or both (their union). The zero Scope contains no
// namespace.
//
// For an affinity term with no namespaces and a nil namespaceSelector the
// scope is the pod's own namespace; namespaceSelector {} means every
// namespace. A topology-spread constraint's scope is its pod's namespace.
type Scope struct {
	names    []string  // sorted, without duplicates
	selector *Selector // nil when the term had no namespaceSelector (rare: kept out of line)
}

func compileScope(c *podCompiler, names []string, nsSelector *metav1.LabelSelector) (Scope, error) {
	if len(names) == 0 && nsSelector == nil {
		return c.ownScope(), nil
	}
	sel, err := termSelector(c, nsSelector, nil, nil)
	if err != nil {
		return Scope{}, err
	}
	sorted := c.values(names)
	slices.Sort(sorted)
	sc := Scope{names: slices.Compact(sorted)}
	if !sel.Nothing() {
		sc.selector = &sel
	}
	return sc, nil
}

// Contains reports whether namespace ns, whose labels are nsLabels (nil when
// unknown), is in the scope. It does not allocate.
func (s Scope) Contains(ns string, nsLabels map[string]string) bool {
	for _, n := range s.names {
		if n == ns {
			return true
		}
	}
	return s.selector != nil && s.selector.Matches(nsLabels)
}

// Names returns the namespaces listed by name, sorted. The slice is shared:
// do not modify it.
func (s Scope) Names() []string { return s.names }

// Selector returns the namespace selector: Nothing when the term had none,
// Everything for {}.
func (s Scope) Selector() Selector {
	if s.selector == nil {
		return Nothing()
	}
	return *s.selector
}

// All reports whether the scope holds every namespace (namespaceSelector {}).
func (s Scope) All() bool { return s.selector != nil && s.selector.Everything() }

// ByLabels reports whether membership depends on namespace labels: the scope
// has a namespace selector that is neither nil nor {}.
func (s Scope) ByLabels() bool { return s.selector != nil && !s.selector.Everything() }

// Equal reports whether s and o are the same scope.
func (s Scope) Equal(o Scope) bool {
	return slices.Equal(s.names, o.names) && s.Selector().Equal(o.Selector())
}
