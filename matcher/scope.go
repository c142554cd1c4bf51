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
//
// Nearly every scope is one namespace, the pod's own: it is held in the
// Scope itself, and anything else out of line. Its methods take a pointer
// because Names returns a slice of that one namespace without allocating.
type Scope struct {
	one  [1]string  // the only namespace, when more is oneName
	more *scopeMore // nil: no namespace; oneName: one[0] alone; else the names and selector
}

// scopeMore is a scope other than one namespace.
type scopeMore struct {
	names    []string // sorted, without duplicates
	selector Selector // Nothing when the term had no namespaceSelector
}

// oneName marks a Scope of the one namespace in Scope.one.
var oneName = &scopeMore{}

// namespaceScope returns the scope of namespace ns alone.
func namespaceScope(ns string) Scope { return Scope{one: [1]string{ns}, more: oneName} }

func compileScope(c *podCompiler, names []string, nsSelector *metav1.LabelSelector) (Scope, error) {
	switch {
	case len(names) == 0 && nsSelector == nil:
		return namespaceScope(c.pod.Namespace), nil
	case len(names) == 1 && nsSelector == nil:
		return namespaceScope(names[0]), nil
	}
	sel, err := termSelector(c, nsSelector, nil)
	if err != nil {
		return Scope{}, err
	}
	sorted := c.values(names)
	slices.Sort(sorted)
	return Scope{more: &scopeMore{names: slices.Compact(sorted), selector: sel}}, nil
}

// Contains reports whether namespace ns, whose labels are nsLabels (nil when
// unknown), is in the scope. It does not allocate.
func (s *Scope) Contains(ns string, nsLabels map[string]string) bool {
	switch s.more {
	case nil:
		return false
	case oneName:
		return s.one[0] == ns
	}
	return slices.Contains(s.more.names, ns) || s.more.selector.Matches(nsLabels)
}

// Names returns the namespaces listed by name (or the pod's own), sorted.
// The slice is shared: do not modify it.
func (s *Scope) Names() []string {
	switch s.more {
	case nil:
		return nil
	case oneName:
		return s.one[:]
	}
	return s.more.names
}

// Selector returns the namespace selector: Nothing when the term had none,
// Everything for {}.
func (s *Scope) Selector() Selector {
	if s.more == nil {
		return Nothing()
	}
	return s.more.selector // oneName's is the zero Selector, Nothing
}

// All reports whether the scope holds every namespace (namespaceSelector {}).
func (s *Scope) All() bool { return s.more != nil && s.more.selector.Everything() }

// ByLabels reports whether membership depends on namespace labels: the scope
// has a namespace selector that is neither nil nor {}.
func (s *Scope) ByLabels() bool {
	return s.more != nil && !s.more.selector.Nothing() && !s.more.selector.Everything()
}

// Equal reports whether s and o are the same scope.
func (s *Scope) Equal(o *Scope) bool {
	return slices.Equal(s.Names(), o.Names()) && s.Selector().Equal(o.Selector())
}
