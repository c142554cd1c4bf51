package matcher

import (
	"testing"
	"unsafe"
)

// TestSizes pins the sizes the package documentation states (doc.go's cost
// model): a change that grows them must update the documentation too.
func TestSizes(t *testing.T) {
	for _, tc := range []struct {
		name       string
		got, bytes uintptr
	}{
		{"Term", unsafe.Sizeof(Term{}), 80},
		{"Requirement", unsafe.Sizeof(Requirement{}), 48},
		{"a value (string)", unsafe.Sizeof(""), 16},
	} {
		if tc.got != tc.bytes {
			t.Errorf("unsafe.Sizeof(%s) = %d, want %d", tc.name, tc.got, tc.bytes)
		}
	}
}
