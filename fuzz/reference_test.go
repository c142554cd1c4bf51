package fuzz

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Effects used in the tables.
var (
	none    = map[types.UID]Effect{}
	ipaBoth = Effect{Relation: InterPodAffinity, Transition: InterPodAffinity}
	ipaRel  = Effect{Relation: InterPodAffinity}
	ptsBoth = Effect{Relation: PodTopologySpread, Transition: PodTopologySpread}
	ptsRel  = Effect{Relation: PodTopologySpread}
	allBoth = Effect{Relation: InterPodAffinity | PodTopologySpread, Transition: InterPodAffinity | PodTopologySpread}
)

// eventOp names a Reference lookup.
type eventOp int

const (
	opPodAdded eventOp = iota
	opPodUpdated
	opPodDeleted
	opNodeAdded
	opNodeUpdated
	opNodeDeleted
	opNamespaceUpdated
)

// event is one cluster event; only the fields of its op are read.
type event struct {
	op               eventOp
	oldPod, newPod   *v1.Pod
	oldNode, newNode *v1.Node
	oldNS, newNS     *v1.Namespace
}

func addPod(q *v1.Pod) event         { return event{op: opPodAdded, newPod: q} }
func updatePod(o, n *v1.Pod) event   { return event{op: opPodUpdated, oldPod: o, newPod: n} }
func deletePod(q *v1.Pod) event      { return event{op: opPodDeleted, oldPod: q} }
func addNode(n *v1.Node) event       { return event{op: opNodeAdded, newNode: n} }
func updateNode(o, n *v1.Node) event { return event{op: opNodeUpdated, oldNode: o, newNode: n} }
func deleteNode(n *v1.Node) event    { return event{op: opNodeDeleted, oldNode: n} }
func updateNamespace(o, n *v1.Namespace) event {
	return event{op: opNamespaceUpdated, oldNS: o, newNS: n}
}

// apply asks r which pending pods e affects.
func (e event) apply(r *Reference) map[types.UID]Effect {
	switch e.op {
	case opPodAdded:
		return r.AssignedPodAdded(e.newPod)
	case opPodUpdated:
		return r.AssignedPodUpdated(e.oldPod, e.newPod)
	case opPodDeleted:
		return r.AssignedPodDeleted(e.oldPod)
	case opNodeAdded:
		return r.NodeAdded(e.newNode)
	case opNodeUpdated:
		return r.NodeUpdated(e.oldNode, e.newNode)
	case opNodeDeleted:
		return r.NodeDeleted(e.oldNode)
	case opNamespaceUpdated:
		return r.NamespaceUpdated(e.oldNS, e.newNS)
	}
	panic("fuzz test: unknown event op")
}

// referenceCase is one row of the table: pending pods, the labels of the known
// namespaces, an event and the pending pods it must affect.
type referenceCase struct {
	name       string
	namespaces map[string]map[string]string
	pending    []*v1.Pod
	event      event
	want       map[types.UID]Effect
}

// newReferenceFor builds a Reference holding tc's pending pods.
func newReferenceFor(tc referenceCase) *Reference {
	r := NewReference(func(ns string) (map[string]string, bool) {
		l, ok := tc.namespaces[ns]
		return l, ok
	})
	for _, p := range tc.pending {
		r.Add(p)
	}
	return r
}

// Builders. Pods live in namespace "ns1" unless inNamespace says otherwise.

func lbl(kv ...string) map[string]string {
	m := make(map[string]string, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

func pod(uid string, labels map[string]string, opts ...func(*v1.Pod)) *v1.Pod {
	p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: uid, Namespace: "ns1", UID: types.UID(uid), Labels: labels}}
	for _, o := range opts {
		o(p)
	}
	return p
}

func inNamespace(ns string) func(*v1.Pod) { return func(p *v1.Pod) { p.Namespace = ns } }
func onNode(n string) func(*v1.Pod)       { return func(p *v1.Pod) { p.Spec.NodeName = n } }
func nominatedTo(n string) func(*v1.Pod)  { return func(p *v1.Pod) { p.Status.NominatedNodeName = n } }

func affinity(terms ...v1.PodAffinityTerm) func(*v1.Pod) {
	return func(p *v1.Pod) {
		if p.Spec.Affinity == nil {
			p.Spec.Affinity = &v1.Affinity{}
		}
		p.Spec.Affinity.PodAffinity = &v1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: terms}
	}
}

func antiAffinity(terms ...v1.PodAffinityTerm) func(*v1.Pod) {
	return func(p *v1.Pod) {
		if p.Spec.Affinity == nil {
			p.Spec.Affinity = &v1.Affinity{}
		}
		p.Spec.Affinity.PodAntiAffinity = &v1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: terms}
	}
}

func preferredAffinity(terms ...v1.PodAffinityTerm) func(*v1.Pod) {
	return func(p *v1.Pod) {
		if p.Spec.Affinity == nil {
			p.Spec.Affinity = &v1.Affinity{}
		}
		var w []v1.WeightedPodAffinityTerm
		for _, t := range terms {
			w = append(w, v1.WeightedPodAffinityTerm{Weight: 1, PodAffinityTerm: t})
		}
		p.Spec.Affinity.PodAffinity = &v1.PodAffinity{PreferredDuringSchedulingIgnoredDuringExecution: w}
	}
}

func spread(cs ...v1.TopologySpreadConstraint) func(*v1.Pod) {
	return func(p *v1.Pod) { p.Spec.TopologySpreadConstraints = cs }
}

func term(topologyKey string, sel *metav1.LabelSelector) v1.PodAffinityTerm {
	return v1.PodAffinityTerm{TopologyKey: topologyKey, LabelSelector: sel}
}

// doNotSchedule returns a DoNotSchedule spread constraint.
func doNotSchedule(topologyKey string, sel *metav1.LabelSelector) v1.TopologySpreadConstraint {
	return v1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: topologyKey, WhenUnsatisfiable: v1.DoNotSchedule, LabelSelector: sel}
}

func selector(reqs ...metav1.LabelSelectorRequirement) *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchExpressions: reqs}
}

func exists(key string) metav1.LabelSelectorRequirement {
	return metav1.LabelSelectorRequirement{Key: key, Operator: metav1.LabelSelectorOpExists}
}

func in(key string, values ...string) metav1.LabelSelectorRequirement {
	return metav1.LabelSelectorRequirement{Key: key, Operator: metav1.LabelSelectorOpIn, Values: values}
}

func node(name string, labels map[string]string, taints ...v1.Taint) *v1.Node {
	return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}, Spec: v1.NodeSpec{Taints: taints}}
}

func namespace(name string, labels map[string]string) *v1.Namespace {
	return &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
}

const (
	zone     = "topology.kubernetes.io/zone"
	hostname = "kubernetes.io/hostname"
)

// Pending pods shared by several rows.
var (
	// wantsWeb needs a pod labelled app=web in its zone.
	wantsWeb = pod("wants-web", lbl("app", "client"), affinity(term(zone, selector(in("app", "web")))))
	// wantsDB needs a pod labelled app=db in its zone.
	wantsDB = pod("wants-db", nil, affinity(term(zone, selector(in("app", "db")))))
	// hatesScan must not share a host with service in (securityscan, value2).
	hatesScan = pod("hates-scan", nil, antiAffinity(term(hostname, selector(in("service", "securityscan", "value2")))))
	// spreadsFoo spreads over zones the pods that carry label foo.
	spreadsFoo = pod("spreads-foo", nil, spread(doNotSchedule(zone, selector(exists("foo")))))
	// badAffinity has an In requirement without values.
	badAffinity = pod("bad-affinity", nil, affinity(term(zone, selector(metav1.LabelSelectorRequirement{Key: "app", Operator: metav1.LabelSelectorOpIn}))))
	// badSpread has an unknown operator in a DoNotSchedule constraint.
	badSpread = pod("bad-spread", nil, spread(doNotSchedule(zone, selector(metav1.LabelSelectorRequirement{Key: "app", Operator: "Near"}))))
)

var assignedPodCases = []referenceCase{
	{
		name:    "added scheduled pod matching an affinity term",
		pending: []*v1.Pod{wantsWeb, wantsDB},
		event:   addPod(pod("q", lbl("app", "web"), onNode("n1"))),
		want:    map[types.UID]Effect{"wants-web": ipaBoth},
	},
	{
		name:    "added unscheduled pod affects no one, not even pods with errors",
		pending: []*v1.Pod{wantsWeb, badAffinity, badSpread, spreadsFoo},
		event:   addPod(pod("q", lbl("app", "web", "foo", "x"))),
		want:    none,
	},
	{
		name:    "added nominated-only pod counts as scheduled",
		pending: []*v1.Pod{wantsWeb},
		event:   addPod(pod("q", lbl("app", "web"), nominatedTo("n1"))),
		want:    map[types.UID]Effect{"wants-web": ipaBoth},
	},
	{
		name:    "added nil pod affects no one",
		pending: []*v1.Pod{wantsWeb, badAffinity},
		event:   addPod(nil),
		want:    none,
	},
	{
		name:    "update from not matching to matching",
		pending: []*v1.Pod{wantsWeb, wantsDB},
		event:   updatePod(pod("q", lbl("app", "api"), onNode("n1")), pod("q", lbl("app", "web"), onNode("n1"))),
		want:    map[types.UID]Effect{"wants-web": ipaBoth},
	},
	{
		name:    "update matching before and after",
		pending: []*v1.Pod{wantsWeb},
		event:   updatePod(pod("q", lbl("app", "web"), onNode("n1")), pod("q", lbl("app", "web", "v", "2"), onNode("n1"))),
		want:    map[types.UID]Effect{"wants-web": ipaRel},
	},
	{
		name:    "update from matching to not matching",
		pending: []*v1.Pod{wantsWeb},
		event:   updatePod(pod("q", lbl("app", "web"), onNode("n1")), pod("q", lbl("app", "api"), onNode("n1"))),
		want:    map[types.UID]Effect{"wants-web": ipaRel},
	},
	{
		name:    "update with an unscheduled old version affects no one",
		pending: []*v1.Pod{wantsWeb, badAffinity},
		event:   updatePod(pod("q", lbl("app", "api")), pod("q", lbl("app", "web"), onNode("n1"))),
		want:    none,
	},
	{
		name:    "update with an unscheduled new version affects no one",
		pending: []*v1.Pod{wantsWeb, badAffinity},
		event:   updatePod(pod("q", lbl("app", "api"), onNode("n1")), pod("q", lbl("app", "web"))),
		want:    none,
	},
	{
		name: "two Exists terms, added pod with both keys set to the empty value",
		pending: []*v1.Pod{pod("p", nil, affinity(
			term(zone, selector(exists("aaa"))),
			term(zone, selector(exists("bbb"))),
		))},
		event: addPod(pod("q", lbl("aaa", "", "bbb", ""), onNode("n1"))),
		want:  map[types.UID]Effect{"p": ipaBoth},
	},
	{
		name: "two Exists terms, added pod matching only one",
		pending: []*v1.Pod{pod("p", nil, affinity(
			term(zone, selector(exists("aaa"))),
			term(zone, selector(exists("bbb"))),
		))},
		event: addPod(pod("q", lbl("aaa", ""), onNode("n1"))),
		want:  map[types.UID]Effect{"p": ipaRel},
	},
	{
		name:    "anti-affinity: label moved out of the set",
		pending: []*v1.Pod{hatesScan},
		event:   updatePod(pod("q", lbl("service", "securityscan"), onNode("n1")), pod("q", lbl("service", "value3"), onNode("n1"))),
		want:    map[types.UID]Effect{"hates-scan": ipaBoth},
	},
	{
		name:    "anti-affinity: label moved into the set",
		pending: []*v1.Pod{hatesScan},
		event:   updatePod(pod("q", lbl("service", "value3"), onNode("n1")), pod("q", lbl("service", "securityscan"), onNode("n1"))),
		want:    map[types.UID]Effect{"hates-scan": ipaRel},
	},
	{
		name:    "anti-affinity: label moved within the set",
		pending: []*v1.Pod{hatesScan},
		event:   updatePod(pod("q", lbl("service", "securityscan"), onNode("n1")), pod("q", lbl("service", "value2"), onNode("n1"))),
		want:    map[types.UID]Effect{"hates-scan": ipaRel},
	},
	{
		name:    "added pod matching an anti-affinity term",
		pending: []*v1.Pod{hatesScan},
		event:   addPod(pod("q", lbl("service", "value2"), onNode("n1"))),
		want:    map[types.UID]Effect{"hates-scan": ipaRel},
	},
	{
		name:    "deleted pod matching an anti-affinity term",
		pending: []*v1.Pod{hatesScan, wantsDB},
		event:   deletePod(pod("q", lbl("service", "securityscan"), onNode("n1"))),
		want:    map[types.UID]Effect{"hates-scan": ipaBoth},
	},
	{
		name:    "symmetry: deleted pod whose anti-affinity matches the pending pod",
		pending: []*v1.Pod{pod("p", lbl("app", "web")), pod("other", lbl("app", "db"))},
		event:   deletePod(pod("q", nil, onNode("n1"), antiAffinity(term(hostname, selector(in("app", "web")))))),
		want:    map[types.UID]Effect{"p": ipaBoth},
	},
	{
		name:    "symmetry: added pod whose anti-affinity matches the pending pod",
		pending: []*v1.Pod{pod("p", lbl("app", "web"))},
		event:   addPod(pod("q", nil, onNode("n1"), antiAffinity(term(hostname, selector(in("app", "web")))))),
		want:    map[types.UID]Effect{"p": ipaRel},
	},
	{
		name:    "symmetry: updated pod whose anti-affinity matches the pending pod",
		pending: []*v1.Pod{pod("p", lbl("app", "web"))},
		event: updatePod(
			pod("q", nil, onNode("n1"), antiAffinity(term(hostname, selector(in("app", "web"))))),
			pod("q", lbl("x", "y"), onNode("n1"), antiAffinity(term(hostname, selector(in("app", "web"))))),
		),
		want: map[types.UID]Effect{"p": ipaRel},
	},
	{
		name:    "symmetry: the deleted pod's anti-affinity is scoped to its own namespace",
		pending: []*v1.Pod{pod("p", lbl("app", "web"))},
		event:   deletePod(pod("q", nil, inNamespace("ns2"), onNode("n1"), antiAffinity(term(hostname, selector(in("app", "web")))))),
		want:    none,
	},
	{
		// kube-scheduler reads the stored labelSelector; the API server
		// merged the keys into it when the pod was created.
		name:    "symmetry: the deleted pod's anti-affinity does not merge its mismatchLabelKeys",
		pending: []*v1.Pod{pod("same", lbl("app", "web", "tenant", "t1")), pod("diff", lbl("app", "web", "tenant", "t2"))},
		event: deletePod(pod("q", lbl("tenant", "t1"), onNode("n1"), antiAffinity(v1.PodAffinityTerm{
			TopologyKey: hostname, LabelSelector: selector(in("app", "web")), MismatchLabelKeys: []string{"tenant"},
		}))),
		want: map[types.UID]Effect{"same": ipaBoth, "diff": ipaBoth},
	},
	{
		name:    "symmetry: a deleted pod whose anti-affinity fails to compile contributes nothing",
		pending: []*v1.Pod{pod("p", lbl("app", "web"))},
		event: deletePod(pod("q", nil, onNode("n1"), antiAffinity(
			term(hostname, selector(in("app", "web"))),
			term(hostname, selector(metav1.LabelSelectorRequirement{Key: "app", Operator: metav1.LabelSelectorOpExists, Values: []string{"x"}})),
		))),
		want: none,
	},
	{
		name:    "delete fix 141354: deleted pod matched affinity the pending pod matches itself",
		pending: []*v1.Pod{pod("p", lbl("app", "web"), affinity(term(zone, selector(in("app", "web")))))},
		event:   deletePod(pod("q", lbl("app", "web"), onNode("n1"))),
		want:    map[types.UID]Effect{"p": ipaBoth},
	},
	{
		name:    "deleted pod matched affinity the pending pod does not match itself",
		pending: []*v1.Pod{wantsWeb},
		event:   deletePod(pod("q", lbl("app", "web"), onNode("n1"))),
		want:    map[types.UID]Effect{"wants-web": ipaRel},
	},
	{
		name:    "spread: added pod matching a constraint",
		pending: []*v1.Pod{spreadsFoo, wantsWeb},
		event:   addPod(pod("q", lbl("foo", "foo1"), onNode("n1"))),
		want:    map[types.UID]Effect{"spreads-foo": ptsBoth},
	},
	{
		name:    "spread: deleted pod matching a constraint",
		pending: []*v1.Pod{spreadsFoo},
		event:   deletePod(pod("q", lbl("foo", "foo1"), onNode("n1"))),
		want:    map[types.UID]Effect{"spreads-foo": ptsBoth},
	},
	{
		name:    "spread: Exists(foo), foo=foo1 to foo=foo2",
		pending: []*v1.Pod{spreadsFoo},
		event:   updatePod(pod("q", lbl("foo", "foo1"), onNode("n1")), pod("q", lbl("foo", "foo2"), onNode("n1"))),
		want:    map[types.UID]Effect{"spreads-foo": ptsRel},
	},
	{
		name:    "spread: label foo added",
		pending: []*v1.Pod{spreadsFoo},
		event:   updatePod(pod("q", lbl("bar", "1"), onNode("n1")), pod("q", lbl("bar", "1", "foo", "foo2"), onNode("n1"))),
		want:    map[types.UID]Effect{"spreads-foo": ptsBoth},
	},
	{
		name:    "nil and empty labels are equal: an update that changes neither labels nor node affects no one",
		pending: []*v1.Pod{pod("p", nil, spread(doNotSchedule(zone, &metav1.LabelSelector{})))},
		event:   updatePod(pod("q", nil, onNode("n1")), pod("q", map[string]string{}, onNode("n1"))),
		want:    none,
	},
	{
		name:    "spread: a nil selector matches nothing",
		pending: []*v1.Pod{pod("p", nil, spread(doNotSchedule(zone, nil)))},
		event:   addPod(pod("q", lbl("foo", "x"), onNode("n1"))),
		want:    none,
	},
	{
		name:    "spread: ScheduleAnyway constraints are ignored",
		pending: []*v1.Pod{pod("p", nil, spread(v1.TopologySpreadConstraint{TopologyKey: zone, WhenUnsatisfiable: v1.ScheduleAnyway, LabelSelector: &metav1.LabelSelector{}}))},
		event:   addPod(pod("q", lbl("foo", "x"), onNode("n1"))),
		want:    none,
	},
	{
		name: "spread: matchLabelKeys adds the pending pod's value",
		pending: []*v1.Pod{
			pod("v1", lbl("app", "web", "hash", "v1"), spread(v1.TopologySpreadConstraint{TopologyKey: zone, WhenUnsatisfiable: v1.DoNotSchedule, LabelSelector: selector(in("app", "web")), MatchLabelKeys: []string{"hash"}})),
			pod("v2", lbl("app", "web", "hash", "v2"), spread(v1.TopologySpreadConstraint{TopologyKey: zone, WhenUnsatisfiable: v1.DoNotSchedule, LabelSelector: selector(in("app", "web")), MatchLabelKeys: []string{"hash"}})),
			pod("nohash", lbl("app", "web"), spread(v1.TopologySpreadConstraint{TopologyKey: zone, WhenUnsatisfiable: v1.DoNotSchedule, LabelSelector: selector(in("app", "web")), MatchLabelKeys: []string{"hash"}})),
		},
		event: addPod(pod("q", lbl("app", "web", "hash", "v1"), onNode("n1"))),
		want:  map[types.UID]Effect{"v1": ptsBoth, "nohash": ptsBoth},
	},
	{
		name:    "affinity and spread together",
		pending: []*v1.Pod{pod("p", nil, affinity(term(zone, selector(exists("foo")))), spread(doNotSchedule(zone, selector(exists("foo")))))},
		event:   addPod(pod("q", lbl("foo", "x"), onNode("n1"))),
		want:    map[types.UID]Effect{"p": allBoth},
	},
	{
		name:    "pod in another namespace affects no one",
		pending: []*v1.Pod{wantsWeb, spreadsFoo, hatesScan},
		event:   addPod(pod("q", lbl("app", "web", "foo", "x", "service", "value2"), inNamespace("ns2"), onNode("n1"))),
		want:    none,
	},
	{
		name:    "spread: update moving the pod to another namespace",
		pending: []*v1.Pod{spreadsFoo},
		event:   updatePod(pod("q", lbl("foo", "x"), onNode("n1")), pod("q", lbl("foo", "x"), inNamespace("ns2"), onNode("n1"))),
		want:    none,
	},
	{
		name:       "namespaceSelector uses the real namespace labels (fix 141953)",
		namespaces: map[string]map[string]string{"ns2": lbl("team", "a"), "ns3": lbl("team", "b")},
		pending: []*v1.Pod{pod("p", nil, affinity(v1.PodAffinityTerm{
			TopologyKey: zone, LabelSelector: selector(in("app", "web")), NamespaceSelector: selector(in("team", "a")),
		}))},
		event: addPod(pod("q", lbl("app", "web"), inNamespace("ns2"), onNode("n1"))),
		want:  map[types.UID]Effect{"p": ipaBoth},
	},
	{
		name:       "namespaceSelector not matching the namespace labels",
		namespaces: map[string]map[string]string{"ns2": lbl("team", "a"), "ns3": lbl("team", "b")},
		pending: []*v1.Pod{pod("p", nil, affinity(v1.PodAffinityTerm{
			TopologyKey: zone, LabelSelector: selector(in("app", "web")), NamespaceSelector: selector(in("team", "a")),
		}))},
		event: addPod(pod("q", lbl("app", "web"), inNamespace("ns3"), onNode("n1"))),
		want:  none,
	},
	{
		name: "namespaceSelector {} matches a namespace with unknown labels",
		pending: []*v1.Pod{pod("p", nil, affinity(v1.PodAffinityTerm{
			TopologyKey: zone, LabelSelector: selector(in("app", "web")), NamespaceSelector: &metav1.LabelSelector{},
		}))},
		event: addPod(pod("q", lbl("app", "web"), inNamespace("unknown"), onNode("n1"))),
		want:  map[types.UID]Effect{"p": ipaBoth},
	},
	{
		name: "namespaces list replaces the pod's own namespace",
		pending: []*v1.Pod{
			pod("listed", nil, affinity(v1.PodAffinityTerm{TopologyKey: zone, LabelSelector: selector(in("app", "web")), Namespaces: []string{"ns2"}})),
			pod("own", nil, affinity(term(zone, selector(in("app", "web"))))),
		},
		event: addPod(pod("q", lbl("app", "web"), inNamespace("ns2"), onNode("n1"))),
		want:  map[types.UID]Effect{"listed": ipaBoth},
	},
	{
		// The stored labelSelector alone: the API server merged the keys
		// into it at creation, and kube-scheduler does not merge them again.
		name: "matchLabelKeys is not merged: every value of the pending pod's key matches",
		pending: []*v1.Pod{
			pod("same", lbl("hash", "v1"), affinity(v1.PodAffinityTerm{TopologyKey: zone, LabelSelector: selector(exists("app")), MatchLabelKeys: []string{"hash"}})),
			pod("other", lbl("hash", "v2"), affinity(v1.PodAffinityTerm{TopologyKey: zone, LabelSelector: selector(exists("app")), MatchLabelKeys: []string{"hash"}})),
			pod("lacks", nil, affinity(v1.PodAffinityTerm{TopologyKey: zone, LabelSelector: selector(exists("app")), MatchLabelKeys: []string{"hash"}})),
			pod("nil-selector", lbl("hash", "v1"), affinity(v1.PodAffinityTerm{TopologyKey: zone, MatchLabelKeys: []string{"hash"}})),
		},
		event: addPod(pod("q", lbl("app", "web", "hash", "v1"), onNode("n1"))),
		want:  map[types.UID]Effect{"same": ipaBoth, "other": ipaBoth, "lacks": ipaBoth},
	},
	{
		name: "mismatchLabelKeys is not merged: the equal value matches too",
		pending: []*v1.Pod{
			pod("same", lbl("tenant", "t1"), antiAffinity(v1.PodAffinityTerm{TopologyKey: zone, LabelSelector: selector(exists("app")), MismatchLabelKeys: []string{"tenant"}})),
			pod("other", lbl("tenant", "t2"), antiAffinity(v1.PodAffinityTerm{TopologyKey: zone, LabelSelector: selector(exists("app")), MismatchLabelKeys: []string{"tenant"}})),
			pod("lacks", nil, antiAffinity(v1.PodAffinityTerm{TopologyKey: zone, LabelSelector: selector(exists("app")), MismatchLabelKeys: []string{"tenant"}})),
		},
		event: deletePod(pod("q", lbl("app", "web", "tenant", "t1"), onNode("n1"))),
		want:  map[types.UID]Effect{"same": ipaBoth, "other": ipaBoth, "lacks": ipaBoth},
	},
	{
		// The pending pod was created at version 1 and relabelled since, or
		// built by hand: its stored selector is app In [a] alone, which the
		// deleted pod at version 2 matches.
		name: "matchLabelKeys is not merged: a deleted pod of another version unblocks the anti-affinity",
		pending: []*v1.Pod{pod("p", lbl("app", "a", "version", "1"), antiAffinity(v1.PodAffinityTerm{
			TopologyKey: zone, LabelSelector: selector(in("app", "a")), MatchLabelKeys: []string{"version"},
		}))},
		event: deletePod(pod("q", lbl("app", "a", "version", "2"), onNode("n1"))),
		want:  map[types.UID]Effect{"p": ipaBoth},
	},
	{
		name:    "preferred terms are ignored",
		pending: []*v1.Pod{pod("p", nil, preferredAffinity(term(zone, selector(in("app", "web")))))},
		event:   addPod(pod("q", lbl("app", "web"), onNode("n1"))),
		want:    none,
	},
	{
		name:    "invalid affinity selector: affected by any scheduled pod, in any namespace",
		pending: []*v1.Pod{badAffinity, wantsWeb},
		event:   addPod(pod("q", nil, inNamespace("ns2"), onNode("n1"))),
		want:    map[types.UID]Effect{"bad-affinity": ipaBoth},
	},
	{
		// The keys are not read, so the value they name is never validated.
		name:    "matchLabelKeys naming an invalid value of the pod's labels: no affinity error",
		pending: []*v1.Pod{pod("p", lbl("hash", "not a valid value!"), affinity(v1.PodAffinityTerm{TopologyKey: zone, LabelSelector: selector(exists("app")), MatchLabelKeys: []string{"hash"}}))},
		event:   deletePod(pod("q", nil, onNode("n1"))),
		want:    none,
	},
	{
		name: "invalid namespaceSelector: affected as an affinity error",
		pending: []*v1.Pod{pod("p", nil, antiAffinity(v1.PodAffinityTerm{
			TopologyKey: zone, LabelSelector: selector(exists("app")), NamespaceSelector: selector(metav1.LabelSelectorRequirement{Key: "bad key!", Operator: metav1.LabelSelectorOpExists}),
		}))},
		event: updatePod(pod("q", nil, onNode("n1")), pod("q", lbl("a", "b"), onNode("n1"))),
		want:  map[types.UID]Effect{"p": ipaBoth},
	},
	{
		name:    "invalid spread selector: affected by scheduled pods of its namespace",
		pending: []*v1.Pod{badSpread, spreadsFoo},
		event:   addPod(pod("q", nil, onNode("n1"))),
		want:    map[types.UID]Effect{"bad-spread": ptsBoth},
	},
	{
		name:    "invalid spread selector: not affected by pods of another namespace",
		pending: []*v1.Pod{badSpread},
		event:   addPod(pod("q", nil, inNamespace("ns2"), onNode("n1"))),
		want:    none,
	},
	{
		name:    "invalid ScheduleAnyway constraint is ignored",
		pending: []*v1.Pod{pod("p", nil, spread(v1.TopologySpreadConstraint{TopologyKey: zone, WhenUnsatisfiable: v1.ScheduleAnyway, LabelSelector: selector(metav1.LabelSelectorRequirement{Key: "a", Operator: "Near"})}))},
		event:   addPod(pod("q", nil, onNode("n1"))),
		want:    none,
	},
}

// Pending pods for node events.
var (
	zoneAffinity  = pod("zone-affinity", nil, affinity(term(zone, selector(exists("app")))))
	hostAnti      = pod("host-anti", nil, antiAffinity(term(hostname, selector(exists("app")))))
	spreadTwoKeys = pod("spread-two-keys", nil, spread(doNotSchedule(zone, selector(exists("app"))), doNotSchedule(hostname, selector(exists("app")))))
	spreadZone    = pod("spread-zone", nil, spread(doNotSchedule(zone, selector(exists("app")))))
)

var noSchedule = v1.Taint{Key: "dedicated", Value: "gpu", Effect: v1.TaintEffectNoSchedule}

var nodeCases = []referenceCase{
	{
		name:    "added node with the affinity topology key",
		pending: []*v1.Pod{zoneAffinity},
		event:   addNode(node("n1", lbl(zone, "z1"))),
		want:    map[types.UID]Effect{"zone-affinity": ipaBoth},
	},
	{
		name:    "added node without the affinity topology key",
		pending: []*v1.Pod{zoneAffinity},
		event:   addNode(node("n1", lbl(hostname, "n1"))),
		want:    none,
	},
	{
		name:    "added node always affects a pod with an anti-affinity term",
		pending: []*v1.Pod{zoneAffinity, hostAnti},
		event:   addNode(node("n1", lbl("other", "x"))),
		want:    map[types.UID]Effect{"host-anti": ipaBoth},
	},
	{
		name:    "updated node gains the affinity topology key",
		pending: []*v1.Pod{zoneAffinity},
		event:   updateNode(node("n1", nil), node("n1", lbl(zone, "z1"))),
		want:    map[types.UID]Effect{"zone-affinity": ipaBoth},
	},
	{
		name:    "updated node changes the affinity topology value",
		pending: []*v1.Pod{zoneAffinity},
		event:   updateNode(node("n1", lbl(zone, "z1")), node("n1", lbl(zone, "z2"))),
		want:    map[types.UID]Effect{"zone-affinity": ipaBoth},
	},
	{
		name:    "updated node loses the affinity topology key",
		pending: []*v1.Pod{zoneAffinity},
		event:   updateNode(node("n1", lbl(zone, "z1")), node("n1", nil)),
		want:    none,
	},
	{
		name:    "updated node loses the anti-affinity topology key",
		pending: []*v1.Pod{hostAnti},
		event:   updateNode(node("n1", lbl(hostname, "n1")), node("n1", nil)),
		want:    map[types.UID]Effect{"host-anti": ipaBoth},
	},
	{
		name:    "updated node gains the anti-affinity topology key",
		pending: []*v1.Pod{hostAnti},
		event:   updateNode(node("n1", nil), node("n1", lbl(hostname, "n1"))),
		want:    none,
	},
	{
		name:    "updated node changes the anti-affinity topology value",
		pending: []*v1.Pod{hostAnti},
		event:   updateNode(node("n1", lbl(hostname, "n1")), node("n1", lbl(hostname, "n2"))),
		want:    map[types.UID]Effect{"host-anti": ipaBoth},
	},
	{
		name:    "updated node with unrelated label change",
		pending: []*v1.Pod{zoneAffinity, hostAnti, spreadZone},
		event:   updateNode(node("n1", lbl(zone, "z1", hostname, "n1")), node("n1", lbl(zone, "z1", hostname, "n1", "x", "y"))),
		want:    none,
	},
	{
		name:    "deleted node affects no pod with valid affinity terms",
		pending: []*v1.Pod{zoneAffinity, hostAnti},
		event:   deleteNode(node("n1", lbl(zone, "z1", hostname, "n1"))),
		want:    none,
	},
	{
		name:    "deleted node affects pods with errors",
		pending: []*v1.Pod{badAffinity, badSpread},
		event:   deleteNode(node("n1", nil)),
		want:    map[types.UID]Effect{"bad-affinity": ipaBoth, "bad-spread": ptsBoth},
	},
	{
		name:    "spread: added node carrying every topology key fits",
		pending: []*v1.Pod{spreadTwoKeys, spreadZone},
		event:   addNode(node("n1", lbl(zone, "z1", hostname, "n1"))),
		want:    map[types.UID]Effect{"spread-two-keys": ptsBoth, "spread-zone": ptsBoth},
	},
	{
		name:    "spread: added node lacking one topology key does not fit",
		pending: []*v1.Pod{spreadTwoKeys, spreadZone},
		event:   addNode(node("n1", lbl(zone, "z1"))),
		want:    map[types.UID]Effect{"spread-zone": ptsBoth},
	},
	{
		name:    "spread: updated node starts to fit",
		pending: []*v1.Pod{spreadTwoKeys},
		event:   updateNode(node("n1", lbl(zone, "z1")), node("n1", lbl(zone, "z1", hostname, "n1"))),
		want:    map[types.UID]Effect{"spread-two-keys": ptsBoth},
	},
	{
		name:    "spread: updated node stops fitting",
		pending: []*v1.Pod{spreadTwoKeys},
		event:   updateNode(node("n1", lbl(zone, "z1", hostname, "n1")), node("n1", lbl(hostname, "n1"))),
		want:    map[types.UID]Effect{"spread-two-keys": ptsBoth},
	},
	{
		name:    "spread: fitting node changes a topology value",
		pending: []*v1.Pod{spreadZone},
		event:   updateNode(node("n1", lbl(zone, "z1")), node("n1", lbl(zone, "z2"))),
		want:    map[types.UID]Effect{"spread-zone": ptsBoth},
	},
	{
		name:    "spread: fitting node changes its taints",
		pending: []*v1.Pod{spreadZone, zoneAffinity},
		event:   updateNode(node("n1", lbl(zone, "z1")), node("n1", lbl(zone, "z1"), noSchedule)),
		want:    map[types.UID]Effect{"spread-zone": ptsBoth},
	},
	{
		name:    "spread: node that does not fit changes its taints",
		pending: []*v1.Pod{spreadTwoKeys},
		event:   updateNode(node("n1", lbl(zone, "z1"), noSchedule), node("n1", lbl(zone, "z1"))),
		want:    none,
	},
	{
		name:    "spread: deleted node that fitted",
		pending: []*v1.Pod{spreadTwoKeys, spreadZone},
		event:   deleteNode(node("n1", lbl(zone, "z1"))),
		want:    map[types.UID]Effect{"spread-zone": ptsBoth},
	},
	{
		name:    "spread: a pod without DoNotSchedule constraints is never affected",
		pending: []*v1.Pod{pod("p", nil, spread(v1.TopologySpreadConstraint{TopologyKey: zone, WhenUnsatisfiable: v1.ScheduleAnyway, LabelSelector: &metav1.LabelSelector{}}))},
		event:   addNode(node("n1", lbl(zone, "z1"))),
		want:    none,
	},
	{
		name:    "affinity and spread on one node event",
		pending: []*v1.Pod{pod("p", nil, affinity(term(zone, selector(exists("app")))), spread(doNotSchedule(zone, selector(exists("app")))))},
		event:   addNode(node("n1", lbl(zone, "z1"))),
		want:    map[types.UID]Effect{"p": allBoth},
	},
}

// teamA has an affinity term whose namespaceSelector is team=a.
var teamA = pod("team-a", nil, affinity(v1.PodAffinityTerm{
	TopologyKey: zone, LabelSelector: selector(exists("app")), NamespaceSelector: selector(in("team", "a")),
}))

var namespaceCases = []referenceCase{
	{
		name:    "label change flips a namespaceSelector",
		pending: []*v1.Pod{teamA, zoneAffinity},
		event:   updateNamespace(namespace("ns2", lbl("team", "b")), namespace("ns2", lbl("team", "a"))),
		want:    map[types.UID]Effect{"team-a": ipaBoth},
	},
	{
		name:    "label change flips an anti-affinity namespaceSelector back",
		pending: []*v1.Pod{pod("p", nil, antiAffinity(v1.PodAffinityTerm{TopologyKey: zone, LabelSelector: selector(exists("app")), NamespaceSelector: selector(in("team", "a"))}))},
		event:   updateNamespace(namespace("ns2", lbl("team", "a")), namespace("ns2", lbl("team", "b"))),
		want:    map[types.UID]Effect{"p": ipaBoth},
	},
	{
		name:    "label change that does not flip the selector",
		pending: []*v1.Pod{teamA},
		event:   updateNamespace(namespace("ns2", lbl("team", "a")), namespace("ns2", lbl("team", "a", "x", "y"))),
		want:    none,
	},
	{
		name:    "created namespace (nil old) counts as having no labels",
		pending: []*v1.Pod{teamA},
		event:   updateNamespace(nil, namespace("ns2", lbl("team", "a"))),
		want:    map[types.UID]Effect{"team-a": ipaBoth},
	},
	{
		name:    "namespaceSelector {} never flips",
		pending: []*v1.Pod{pod("p", nil, affinity(v1.PodAffinityTerm{TopologyKey: zone, LabelSelector: selector(exists("app")), NamespaceSelector: &metav1.LabelSelector{}}))},
		event:   updateNamespace(namespace("ns2", nil), namespace("ns2", lbl("team", "a"))),
		want:    none,
	},
	{
		name:    "pods with affinity errors are affected, spread errors are not",
		pending: []*v1.Pod{badAffinity, badSpread},
		event:   updateNamespace(namespace("ns2", nil), namespace("ns2", nil)),
		want:    map[types.UID]Effect{"bad-affinity": ipaBoth},
	},
}

func TestReference(t *testing.T) {
	for _, group := range []struct {
		name  string
		cases []referenceCase
	}{
		{"assigned-pod", assignedPodCases},
		{"node", nodeCases},
		{"namespace", namespaceCases},
	} {
		t.Run(group.name, func(t *testing.T) {
			for _, tc := range group.cases {
				t.Run(tc.name, func(t *testing.T) {
					got := tc.event.apply(newReferenceFor(tc))
					if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
						t.Errorf("affected pods mismatch (-want +got):\n%s", diff)
					}
				})
			}
		})
	}
}

// TestReferenceRelationContainsTransition checks, on every table row, that
// Relation is a superset of Transition and that no zero Effect is returned.
func TestReferenceRelationContainsTransition(t *testing.T) {
	for _, tc := range slices.Concat(assignedPodCases, nodeCases, namespaceCases) {
		t.Run(tc.name, func(t *testing.T) {
			for uid, e := range tc.event.apply(newReferenceFor(tc)) {
				if e.Transition&^e.Relation != 0 {
					t.Errorf("%s: Transition %b not within Relation %b", uid, e.Transition, e.Relation)
				}
				if e == (Effect{}) {
					t.Errorf("%s: zero Effect returned", uid)
				}
			}
		})
	}
}

// TestReferenceNamespaceLookup checks that namespace labels are read at event
// time, that an unknown namespace has no labels, and that a nil lookup
// function is allowed.
func TestReferenceNamespaceLookup(t *testing.T) {
	labels := map[string]map[string]string{}
	r := NewReference(func(ns string) (map[string]string, bool) {
		l, ok := labels[ns]
		return l, ok
	})
	r.Add(teamA)
	q := pod("q", lbl("app", "web"), inNamespace("ns2"), onNode("n1"))

	if got := r.AssignedPodAdded(q); len(got) != 0 {
		t.Errorf("AssignedPodAdded(q) with ns2 unknown = %v, want none", got)
	}
	labels["ns2"] = lbl("team", "a")
	if got, want := r.AssignedPodAdded(q), map[types.UID]Effect{"team-a": ipaBoth}; !cmp.Equal(got, want) {
		t.Errorf("AssignedPodAdded(q) with ns2 team=a = %v, want %v", got, want)
	}

	nilLookup := NewReference(nil)
	nilLookup.Add(teamA)
	if got := nilLookup.AssignedPodAdded(q); len(got) != 0 {
		t.Errorf("AssignedPodAdded(q) with a nil lookup = %v, want none", got)
	}
}

func TestReferencePods(t *testing.T) {
	r := NewReference(nil)
	if got := r.Len(); got != 0 {
		t.Errorf("Len() of a new Reference = %d, want 0", got)
	}
	b := pod("b", lbl("v", "1"))
	r.Add(b)
	r.Add(pod("c", nil))
	r.Add(pod("a", nil))
	r.Add(pod("b", lbl("v", "2"))) // replaces
	r.Add(nil)                     // ignored
	b.Labels["v"] = "mutated"      // the Reference holds its own copy

	if got := r.Len(); got != 3 {
		t.Errorf("Len() = %d, want 3", got)
	}
	var uids []types.UID
	for _, p := range r.Pods() {
		uids = append(uids, p.UID)
	}
	if diff := cmp.Diff([]types.UID{"a", "b", "c"}, uids); diff != "" {
		t.Errorf("Pods() UIDs mismatch (-want +got):\n%s", diff)
	}
	if got := r.Pods()[1].Labels["v"]; got != "2" {
		t.Errorf("Pods()[1].Labels[v] = %q, want %q", got, "2")
	}
	r.Pods()[0].Labels = lbl("changed", "x")
	if got := r.Pods()[0].Labels; len(got) != 0 {
		t.Errorf("Pods()[0].Labels after modifying a returned pod = %v, want none", got)
	}

	if got := r.Remove("b"); !got {
		t.Errorf("Remove(b) = false, want true")
	}
	if got := r.Remove("b"); got {
		t.Errorf("Remove(b) again = true, want false")
	}
	if got := r.Len(); got != 2 {
		t.Errorf("Len() after Remove = %d, want 2", got)
	}
}

// TestReferenceRemovedPodNotReported checks that a removed pod is no longer
// scanned.
func TestReferenceRemovedPodNotReported(t *testing.T) {
	r := NewReference(nil)
	r.Add(wantsWeb)
	r.Remove(wantsWeb.UID)
	if got := r.AssignedPodAdded(pod("q", lbl("app", "web"), onNode("n1"))); len(got) != 0 {
		t.Errorf("AssignedPodAdded after Remove = %v, want none", got)
	}
}

// TestReferenceNilArguments checks that nil events do not panic and follow
// the documented treatment.
func TestReferenceNilArguments(t *testing.T) {
	r := NewReference(nil)
	r.Add(hostAnti)
	r.Add(zoneAffinity)
	for _, tc := range []struct {
		name string
		got  map[types.UID]Effect
		want map[types.UID]Effect
	}{
		{"AssignedPodUpdated(nil, q)", r.AssignedPodUpdated(nil, pod("q", lbl("app", "x"), onNode("n1"))), none},
		{"AssignedPodDeleted(nil)", r.AssignedPodDeleted(nil), none},
		{"NodeAdded(nil)", r.NodeAdded(nil), map[types.UID]Effect{"host-anti": ipaBoth}},
		{"NodeUpdated(nil, nil)", r.NodeUpdated(nil, nil), none},
		{"NodeDeleted(nil)", r.NodeDeleted(nil), none},
		{"NamespaceUpdated(nil, nil)", r.NamespaceUpdated(nil, nil), none},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("%s mismatch (-want +got):\n%s", tc.name, diff)
			}
		})
	}
}
