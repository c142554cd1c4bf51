package index_test

import (
	"testing"

	"github.com/affinityq/affinityq/index"
	"github.com/affinityq/affinityq/internal/hintcases"
)

// TestHintCases checks the index and Pending.Affected on every hint case:
// the case's pod, indexed beside a bystander that no case's event affects,
// must be the only hit, with the case's rule sets for each policy.
func TestHintCases(t *testing.T) {
	for _, tc := range hintcases.Cases() {
		t.Run(tc.Name, func(t *testing.T) {
			ix := index.New[any]()
			if err := ix.Add(tc.Pending); err != nil {
				t.Fatal(err)
			}
			// A pod related to nothing in any case (its topology key "rack" appears
			// on no node) must never show up.
			if err := ix.Add(hintcases.Bystander()); err != nil {
				t.Fatal(err)
			}
			var rel, tr index.RuleSet
			for _, h := range ix.Lookup(nil, &tc.Event) {
				if h.Pod.UID != tc.Pending.UID {
					t.Errorf("unexpected hit %s", h.Pod.Name)
					continue
				}
				rel, tr = h.Relation, h.Transition
			}
			if rel != tc.Relation || tr != tc.Transition {
				t.Errorf("Relation, Transition = %v, %v; want %v, %v", rel, tr, tc.Relation, tc.Transition)
			}
			// The exact per-pod check agrees with the index.
			p, err := index.Compile[any](tc.Pending)
			if err != nil {
				t.Fatal(err)
			}
			if r, x := p.Affected(&tc.Event, nil); r != tc.Relation || x != tc.Transition {
				t.Errorf("Affected = %v, %v; want %v, %v", r, x, tc.Relation, tc.Transition)
			}
		})
	}
}
