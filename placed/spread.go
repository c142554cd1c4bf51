package placed

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	v1helper "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/affinityq/affinityq/matcher"
)

// SpreadCounts is PodTopologySpread's PreFilter count for one DoNotSchedule
// constraint of an incoming pod (filtering.go, calPreFilterState): the pods
// of the incoming pod's namespace, not terminating, that match the
// constraint's selector (its matchLabelKeys merged), per domain of its
// topology key, over the nodes that carry every constraint's key and pass
// the constraint's node inclusion policies. Every such node's domain is
// present, with 0 when no pod matches there.
type SpreadCounts struct {
	TopologyKey string
	Counts      map[string]int
}

// PodTopologySpread returns the counts of PodTopologySpread's PreFilter for
// pod's DoNotSchedule constraints, in spec order; none for a pod without
// them. A constraint whose selector does not compile is an error, as
// PreFilter fails it. Default (cluster-level) constraints are the
// caller's: the index reads the pod's own.
//
// The counts of each constraint are kept per node and per domain of its
// key. When the constraints share their key and the pod's node selector
// and required node affinity do not enter (the pod has none, or the
// constraints ignore them), the answer reads the domains and then visits
// the tainted nodes alone, for the constraints that honour taints;
// otherwise it visits every node, as the node affinity policy is judged
// per node. Neither visits the pods.
func (x *Index) PodTopologySpread(pod *v1.Pod) ([]SpreadCounts, error) {
	if pod == nil {
		return nil, errors.New("placed: nil pod")
	}
	terms, _ := matcher.CompileRequired(pod)
	if err := terms.SpreadErr(); err != nil {
		return nil, fmt.Errorf("placed: pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	if len(terms.Spread) == 0 {
		return nil, nil
	}
	specs := constraints(pod, v1.DoNotSchedule)
	required := nodeaffinity.GetRequiredNodeAffinity(pod)
	x.mu.Lock()
	defer x.mu.Unlock()
	x.clock++
	shapes := make([]*shape, len(specs))
	out := make([]SpreadCounts, len(specs))
	for i := range specs {
		shapes[i] = x.incomingShape(pod, incomingSpread, terms.Spread[i:i+1], nil, nil, specs[i:i+1])
		// At most a domain per value of the key among the known nodes.
		out[i] = SpreadCounts{TopologyKey: specs[i].TopologyKey, Counts: make(map[string]int, len(x.domains[specs[i].TopologyKey]))}
	}
	if sharedKey(specs) && !nodeRulesApply(pod, specs) {
		// The domains are those of every known node carrying the key, and
		// the shapes keep their counts per domain of it; a constraint that
		// honours taints then leaves out the tainted nodes whose taints
		// the pod does not tolerate, which the index lists apart.
		key := specs[0].TopologyKey
		domains := x.domains[key]
		for v := range domains {
			for i := range specs {
				out[i].Counts[v] = int(shapes[i].counts[Pair{key, v}])
			}
		}
		x.leaveOutUntolerated(out, shapes, specs, pod, domains)
		return out, nil
	}
	for name, rec := range x.nodes {
		if !rec.known || !carriesKeys(rec.labels, specs) {
			continue
		}
		for i := range specs {
			if !x.included(&specs[i], pod, rec.obj, required) {
				continue
			}
			out[i].Counts[rec.labels[specs[i].TopologyKey]] += int(shapes[i].nodeCounts[name])
		}
	}
	return out, nil
}

// everyNodeEligible reports whether every node that carries the
// constraints' keys passes their inclusion policies, and they have one
// key: then the constraints' domains are the values of their key, the
// common case.
func everyNodeEligible(pod *v1.Pod, specs []v1.TopologySpreadConstraint) bool {
	return sharedKey(specs) && policiesPassEveryNode(pod, specs)
}

// sharedKey reports whether the constraints have one topology key.
func sharedKey(specs []v1.TopologySpreadConstraint) bool {
	for i := range specs {
		if specs[i].TopologyKey != specs[0].TopologyKey {
			return false
		}
	}
	return true
}

// policiesPassEveryNode reports whether every node passes the constraints'
// inclusion policies: the pod's node rules do not apply (nodeRulesApply)
// and no constraint honours taints.
func policiesPassEveryNode(pod *v1.Pod, specs []v1.TopologySpreadConstraint) bool {
	if nodeRulesApply(pod, specs) {
		return false
	}
	for i := range specs {
		if honoursTaints(&specs[i]) {
			return false
		}
	}
	return true
}

// nodeRulesApply reports whether the pod's node selector or required node
// affinity can leave a node out of a constraint: the pod has one and a
// constraint honours it (nodeAffinityPolicy, Honor by default).
func nodeRulesApply(pod *v1.Pod, specs []v1.TopologySpreadConstraint) bool {
	a := pod.Spec.Affinity
	if len(pod.Spec.NodeSelector) == 0 && (a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil) {
		return false
	}
	for i := range specs {
		if c := &specs[i]; c.NodeAffinityPolicy == nil || *c.NodeAffinityPolicy == v1.NodeInclusionPolicyHonor {
			return true
		}
	}
	return false
}

// honoursTaints reports whether a constraint leaves out the nodes whose
// taints the pod does not tolerate (nodeTaintsPolicy, Ignore by default).
func honoursTaints(c *v1.TopologySpreadConstraint) bool {
	return c.NodeTaintsPolicy != nil && *c.NodeTaintsPolicy == v1.NodeInclusionPolicyHonor
}

// leaveOutUntolerated takes out of the counts of each constraint that
// honours taints (out, over every node carrying the constraints' one key,
// whose nodes per domain are domains) the tainted nodes that carry the key
// and whose taints pod does not tolerate: their pods from their domain's
// count, and the domain itself once none of its nodes is left. Only the
// tainted nodes are visited, however many nodes carry the key.
func (x *Index) leaveOutUntolerated(out []SpreadCounts, shapes []*shape, specs []v1.TopologySpreadConstraint, pod *v1.Pod, domains map[string]int) {
	if !slices.ContainsFunc(specs, func(c v1.TopologySpreadConstraint) bool { return honoursTaints(&c) }) {
		return
	}
	m := x.leftOutBy(pod.Spec.Tolerations, specs[0].TopologyKey, domains)
	for i := range specs {
		if !honoursTaints(&specs[i]) {
			continue
		}
		for _, l := range m.left {
			if n := shapes[i].nodeCounts[l.name]; n != 0 {
				out[i].Counts[l.value] -= int(n)
			}
		}
		for _, v := range m.emptied {
			delete(out[i].Counts, v)
		}
	}
}

// constraints returns pod's spread constraints whose action is action, in
// spec order, as DoNotSchedule constraints (package matcher compiles
// those; the action does not change which pods a constraint counts).
func constraints(pod *v1.Pod, action v1.UnsatisfiableConstraintAction) []v1.TopologySpreadConstraint {
	var specs []v1.TopologySpreadConstraint
	for _, c := range pod.Spec.TopologySpreadConstraints {
		if c.WhenUnsatisfiable == action {
			c.WhenUnsatisfiable = v1.DoNotSchedule
			specs = append(specs, c)
		}
	}
	return specs
}

// carriesKeys reports whether a node of labels carries the topology key of
// every constraint (nodeLabelsMatchSpreadConstraints).
func carriesKeys(labels map[string]string, specs []v1.TopologySpreadConstraint) bool {
	for i := range specs {
		if _, ok := labels[specs[i].TopologyKey]; !ok {
			return false
		}
	}
	return true
}

// included reports whether node passes a constraint's node inclusion
// policies for pod: its required node affinity and node selector
// (nodeAffinityPolicy, Honor by default) and its tolerations of the node's
// NoSchedule and NoExecute taints (nodeTaintsPolicy, Ignore by default),
// with Gt and Lt tolerations under WithTaintComparisonOperators.
func (x *Index) included(c *v1.TopologySpreadConstraint, pod *v1.Pod, node *v1.Node, required nodeaffinity.RequiredNodeAffinity) bool {
	if c.NodeAffinityPolicy == nil || *c.NodeAffinityPolicy == v1.NodeInclusionPolicyHonor {
		if match, _ := required.Match(node); !match {
			return false
		}
	}
	return !honoursTaints(c) || !x.untolerated(pod.Spec.Tolerations, node)
}

// leftOut is which tainted nodes a set of tolerations leaves out of the
// domains of a topology key: those carrying the key with a taint the
// tolerations do not tolerate (their names and values), and the domains
// all of whose nodes they are. It holds until a node's labels or taints
// change (nodesGen); the replicas of a workload share their tolerations,
// so that their questions visit no node object.
type leftOut struct {
	gen         uint64
	key         string
	tolerations []v1.Toleration
	left        []leftNode
	emptied     []string
}

type leftNode struct{ name, value string }

// leftOutBy returns the tainted nodes that tolerations leave out of the
// domains of key, whose nodes per value are domains: the memo when it is
// of the same tolerations and key and no node has changed since, else
// afresh from the tainted nodes.
func (x *Index) leftOutBy(tolerations []v1.Toleration, key string, domains map[string]int) *leftOut {
	if m := x.leftMemo; m != nil && m.gen == x.nodesGen && m.key == key && equality.Semantic.DeepEqual(m.tolerations, tolerations) {
		return m
	}
	m := &leftOut{gen: x.nodesGen, key: key, tolerations: slices.Clone(tolerations)}
	var gone map[string]int
	for _, rec := range x.tainted {
		v, ok := rec.labels[key]
		if !ok || !x.untolerated(tolerations, rec.obj) {
			continue
		}
		m.left = append(m.left, leftNode{rec.name, v})
		if n := domains[v]; n == 1 { // the hostname key's every domain
			m.emptied = append(m.emptied, v)
		} else {
			if gone == nil {
				gone = map[string]int{}
			}
			if gone[v]++; gone[v] == n {
				m.emptied = append(m.emptied, v)
			}
		}
	}
	x.leftMemo = m
	return m
}

// untolerated reports whether node has a NoSchedule or NoExecute taint
// that tolerations do not tolerate, with Gt and Lt tolerations under
// WithTaintComparisonOperators: FindMatchingUntoleratedTaint's answer,
// without the filtered copy of the taints it makes.
func (x *Index) untolerated(tolerations []v1.Toleration, node *v1.Node) bool {
	for i := range node.Spec.Taints {
		t := &node.Spec.Taints[i]
		if (t.Effect == v1.TaintEffectNoSchedule || t.Effect == v1.TaintEffectNoExecute) &&
			!v1helper.TolerationsTolerateTaint(logr.Discard(), tolerations, t, x.opts.taintComparison) {
			return true
		}
	}
	return false
}

// SpreadScore is PodTopologySpread's PreScore state for one ScheduleAnyway
// constraint (scoring.go, initPreScoreState): the matching pods per domain
// of the filtered nodes that are not ignored, counted over every node of
// the domain that carries every constraint's key and passes the
// constraint's inclusion policies; empty for the hostname key, whose
// domain is the node itself. NormalizingWeight is log(domains + 2), the
// domains for the hostname key being the filtered nodes not ignored.
//
// NodeCounts, for the hostname key only (nil for any other), holds what
// Score counts for that key on each filtered node not ignored: the node's
// own matching pods, whatever its inclusion policies; a node absent holds
// none. In-tree Score reads every pod of each scored node for it; from
// the index it costs a lookup per node, however many pods the node holds.
type SpreadScore struct {
	TopologyKey       string
	Counts            map[string]int64
	NodeCounts        map[string]int64
	NormalizingWeight float64
}

// SpreadScores is PodTopologySpread's PreScore state: a SpreadScore per
// ScheduleAnyway constraint in spec order, and the filtered nodes ignored
// for lacking a constraint's key, sorted.
type SpreadScores struct {
	Constraints  []SpreadScore
	IgnoredNodes []string
}

// PodTopologySpreadScores returns PodTopologySpread's PreScore state for
// pod over the filtered nodes (the names of the nodes that passed Filter;
// those the index does not know are left out). skip is PreScore's Skip:
// no node is known (then the constraints are not read), or the pod has no
// ScheduleAnyway constraint. A constraint whose selector does not compile
// is an error.
//
// requireAllTopologies is the in-tree plugin's: true but for the system
// default constraints. When false no node is ignored, and a node lacking a
// constraint's key is in the domain "" of that key (with the nodes whose
// value is ""), which holds a count when a filtered node lacks the key.
func (x *Index) PodTopologySpreadScores(pod *v1.Pod, filtered []string, requireAllTopologies bool) (scores SpreadScores, skip bool, err error) {
	if pod == nil {
		return SpreadScores{}, false, errors.New("placed: nil pod")
	}
	specs := constraints(pod, v1.ScheduleAnyway)
	x.mu.Lock()
	defer x.mu.Unlock()
	known := false
	for _, rec := range x.nodes {
		if rec.known {
			known = true
			break
		}
	}
	if !known { // PreScore skips before it reads the constraints
		return SpreadScores{}, true, nil
	}
	as := *pod // the pod as its ScheduleAnyway constraints' shapes read it
	as.Spec.TopologySpreadConstraints = specs
	terms, _ := matcher.CompileRequired(&as)
	if err := terms.SpreadErr(); err != nil {
		return SpreadScores{}, false, fmt.Errorf("placed: pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	if len(specs) == 0 {
		return SpreadScores{}, true, nil
	}
	x.clock++
	shapes := make([]*shape, len(specs))
	scores.Constraints = make([]SpreadScore, len(specs))
	for i := range specs {
		shapes[i] = x.incomingShape(&as, incomingSpread, terms.Spread[i:i+1], nil, nil, specs[i:i+1])
		scores.Constraints[i] = SpreadScore{TopologyKey: specs[i].TopologyKey, Counts: map[string]int64{}}
		if specs[i].TopologyKey == v1.LabelHostname {
			scores.Constraints[i].NodeCounts = map[string]int64{}
		}
	}
	kept := 0
	for _, name := range filtered {
		rec, ok := x.nodes[name]
		if !ok || !rec.known {
			continue
		}
		if requireAllTopologies && !carriesKeys(rec.labels, specs) {
			scores.IgnoredNodes = append(scores.IgnoredNodes, name)
			continue
		}
		kept++
		for i := range specs {
			if specs[i].TopologyKey != v1.LabelHostname {
				scores.Constraints[i].Counts[rec.labels[specs[i].TopologyKey]] += 0
			} else if n := shapes[i].nodeCounts[name]; n != 0 {
				scores.Constraints[i].NodeCounts[name] = n
			}
		}
	}
	slices.Sort(scores.IgnoredNodes)
	scores.IgnoredNodes = slices.Compact(scores.IgnoredNodes)
	for i := range specs {
		domains := len(scores.Constraints[i].Counts)
		if specs[i].TopologyKey == v1.LabelHostname {
			domains = kept
		}
		scores.Constraints[i].NormalizingWeight = math.Log(float64(domains + 2))
	}
	if !requireAllTopologies && policiesPassEveryNode(pod, specs) || everyNodeEligible(pod, specs) {
		// Every node of a domain counts, and the shapes keep their counts
		// per domain of the constraint's key: each constraint counts the
		// nodes carrying its key when no node need carry the others', or
		// when they share it.
		for i := range specs {
			key := specs[i].TopologyKey
			counts := scores.Constraints[i].Counts
			for v := range counts {
				counts[v] = shapes[i].counts[Pair{key, v}]
			}
			if _, ok := counts[""]; ok && !requireAllTopologies {
				for name, rec := range x.nodes {
					if _, has := rec.labels[key]; rec.known && !has {
						counts[""] += shapes[i].nodeCounts[name]
					}
				}
			}
		}
		return scores, false, nil
	}
	required := nodeaffinity.GetRequiredNodeAffinity(pod)
	for name, rec := range x.nodes {
		if !rec.known || requireAllTopologies && !carriesKeys(rec.labels, specs) {
			continue
		}
		for i := range specs {
			counts := scores.Constraints[i].Counts
			v := rec.labels[specs[i].TopologyKey]
			if _, ok := counts[v]; ok && x.included(&specs[i], pod, rec.obj, required) {
				counts[v] += shapes[i].nodeCounts[name]
			}
		}
	}
	return scores, false, nil
}

// SpreadChange applies to counts, PodTopologySpread's PreFilter counts for
// the incoming pod in (a copy the cycle owns), the change that pod on node
// makes when it is added (d = 1) or removed (d = -1) for one cycle, as
// PreFilterExtensions' AddPod and RemovePod apply it (updateWithPod): none
// unless pod is in in's namespace and node carries every constraint's key;
// then, for each constraint whose selector matches pod's labels (a {}
// selector does here, and terminating pods are not left out, as upstream)
// and whose inclusion policies node passes, d at the node's domain.
func (x *Index) SpreadChange(counts []SpreadCounts, in, pod *v1.Pod, node *v1.Node, d int) error {
	if in == nil || pod == nil {
		return errors.New("placed: nil pod")
	}
	terms, _ := matcher.CompileRequired(in)
	if err := terms.SpreadErr(); err != nil {
		return fmt.Errorf("placed: pod %s/%s: %w", in.Namespace, in.Name, err)
	}
	if len(terms.Spread) != len(counts) {
		return fmt.Errorf("placed: %d spread counts for pod %s/%s's %d DoNotSchedule constraints", len(counts), in.Namespace, in.Name, len(terms.Spread))
	}
	if pod.Namespace != in.Namespace || node == nil {
		return nil
	}
	specs := constraints(in, v1.DoNotSchedule)
	if !carriesKeys(node.Labels, specs) {
		return nil
	}
	required := nodeaffinity.GetRequiredNodeAffinity(in)
	for i := range specs {
		if terms.Spread[i].Selector.Matches(pod.Labels) && x.included(&specs[i], in, node, required) {
			counts[i].Counts[node.Labels[specs[i].TopologyKey]] += d
		}
	}
	return nil
}
