package queue

import (
	"fmt"
	"slices"

	"github.com/affinityq/affinityq/index"
)

// Policy decides which pods an event moves out of the unschedulable pool and
// where they go. DESIGN.md ("Which pending pods an event affects") defines
// both; the index answers both, and only this final filter differs.
type Policy uint8

const (
	// Relation, the default, moves every pod the event relates to
	// (index.Hit.Relation is not empty), whatever plugins rejected it,
	// straight to activeQ, resetting its attempt counter unless
	// WithResetOnMove(false) is given.
	Relation Policy = iota
	// Transition follows kube-scheduler v1.37's queueing hints: a pod moves
	// only when index.Hit.Transition contains a plugin that rejected it
	// (InterPodAffinity or PodTopologySpread; rejections by other plugins are
	// left to MoveAll and the flush). It goes to backoffQ while still backing
	// off, else to activeQ, with its counters kept.
	Transition
)

func (p Policy) String() string {
	switch p {
	case Relation:
		return "Relation"
	case Transition:
		return "Transition"
	}
	return fmt.Sprintf("Policy(%d)", uint8(p))
}

// Names of the kube-scheduler plugins whose rules the index answers for, as
// a scheduler passes them to AddUnschedulable.
const (
	InterPodAffinity  = "InterPodAffinity"
	PodTopologySpread = "PodTopologySpread"
)

// rejectedSet returns the rule sets of the plugins named, and the names
// sorted, deduplicated and without empty strings (nil when none is left).
func rejectedSet(names []string) (index.RuleSet, []string) {
	var rs index.RuleSet
	var out []string
	for _, n := range names {
		switch n {
		case "":
			continue
		case InterPodAffinity:
			rs |= index.InterPodAffinity
		case PodTopologySpread:
			rs |= index.PodTopologySpread
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		return 0, nil
	}
	slices.Sort(out)
	return rs, slices.Compact(out)
}

// applies reports whether an event that affects a pod under the rule sets
// relation and transition moves it, the pod having been rejected by the
// plugins of rejected.
func (p Policy) applies(relation, transition, rejected index.RuleSet) bool {
	if p == Relation {
		return relation != 0
	}
	return transition&rejected != 0
}
