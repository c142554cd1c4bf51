package index

import (
	"testing"
	"unsafe"
)

// TestSizes pins the sizes the package documentation and comments state
// (doc.go's cost model, table.go): a change that grows them must update the
// documentation too.
func TestSizes(t *testing.T) {
	var table hashTable
	for _, tc := range []struct {
		name       string
		got, bytes uintptr
	}{
		{"a hashTable slot (its key and its ref)", unsafe.Sizeof(table.keys[0]) + unsafe.Sizeof(table.refs[0]), 12},
		{"Pending with a pointer tag", unsafe.Sizeof(Pending[*int]{}), 32},
		{"rules", unsafe.Sizeof(rules{}), 48},
		{"group with a pointer tag (its first Pending included)", unsafe.Sizeof(group[*int]{}), 72},
	} {
		if tc.got != tc.bytes {
			t.Errorf("unsafe.Sizeof(%s) = %d, want %d", tc.name, tc.got, tc.bytes)
		}
	}
}
