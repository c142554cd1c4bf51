package index

import (
	"math/bits"

	"github.com/cespare/xxhash/v2"
)

// Posting keys. A posting list is named by a namespace, a label key and a
// value: in the term postings, a namespace the term is scoped to ("" for a
// term whose scope has a namespace selector, checked when evaluating), the
// label key of the term's anchor requirement ("" — never a valid label key
// — for a term without a positive requirement) and the anchor's value for
// In, or no value for Exists; the label postings use the same keys for
// pending pods' own labels.
//
// The tables are keyed by the key's 64-bit hash rather than by the key: one
// short hash instead of three strings hashed per probe, and 8 bytes per
// entry instead of 56. Two keys with the same hash share one posting list,
// which only adds candidates (see decided terms in group.go for the one
// place where a posting is taken as proof). postHash is the only way a key
// is built: callers hash a namespace, a key or a value once (strHash) for
// all the postings that share it.

// strHash is the hash of one string of a posting key.
func strHash(s string) uint64 { return xxhash.Sum64String(s) }

// postHash is the key of the posting of the namespace, label key and value
// hashed ns, key and val; with exists, the posting of the key alone (val is
// ignored).
func postHash(ns, key, val uint64, exists bool) uint64 {
	h := mix(ns, key)
	if exists {
		return mix(h, 1)
	}
	return mix(h, val)
}

// emptyHash is strHash(""): the namespace of selector-scoped terms and the
// key and value of terms without a positive requirement.
var emptyHash = strHash("")

// mix combines two hashes, order-dependently.
func mix(a, b uint64) uint64 {
	return (bits.RotateLeft64(a, 31) ^ b) * 0x9e3779b97f4a7c15
}
