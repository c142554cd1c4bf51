// Package bench generates the workloads of DESIGN.md ("Workloads"), shaped
// after kube-scheduler's scheduler_perf configurations: a pool of pending
// pods, the cluster around them (namespaces, nodes, scheduled pods) and a
// stream of cluster events. The generators are deterministic functions of a
// Config (its Seed included) and keep no state, so the benchmarks, the
// command line and the fuzz seeds all replay the same workloads.
//
// It is not a benchmark harness: cmd/affinityq and the _test.go benchmarks
// drive the index, the queue and the naive reference with what it generates.
package bench

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/affinityq/affinityq/index"
)

// Config sizes a workload. Zero fields take the defaults of DefaultConfig.
type Config struct {
	Pods       int    // pending pods
	Events     int    // events in the stream
	Namespaces int    // namespaces the pods spread over
	Nodes      int    // nodes of the cluster
	Seed       uint64 // the same Config always yields the same workload
}

// DefaultConfig is the configuration the command line starts from.
func DefaultConfig() Config {
	return Config{Pods: 100000, Events: 1000, Namespaces: 50, Nodes: 1000, Seed: 1}
}

// MaxPods bounds Config.Pods.
const MaxPods = 10_000_000

func (c Config) withDefaults() (Config, error) {
	d := DefaultConfig()
	if c.Pods == 0 {
		c.Pods = d.Pods
	}
	if c.Events == 0 {
		c.Events = d.Events
	}
	if c.Namespaces == 0 {
		c.Namespaces = d.Namespaces
	}
	if c.Nodes == 0 {
		c.Nodes = d.Nodes
	}
	if c.Pods < 0 || c.Pods > MaxPods || c.Events < 0 || c.Namespaces < 0 || c.Nodes < 0 {
		return c, fmt.Errorf("bench: invalid config %+v: sizes must be positive and pods at most %d", c, MaxPods)
	}
	return c, nil
}

// Workload is a generated scenario: the cluster as it stands, the pending
// pods, and the events to replay, in order.
type Workload struct {
	Name       string
	Config     Config
	Namespaces []*v1.Namespace
	Nodes      []*v1.Node
	Assigned   []*v1.Pod // scheduled pods present before the first event
	Pending    []*v1.Pod
	Events     []index.Event
}

// Generator builds a workload from a Config.
type Generator func(Config) (*Workload, error)

// Names lists the workloads Lookup knows, in a fixed order.
func Names() []string {
	return []string{"unique-partner", "anti-unblock", "deployments", "spread", "node-churn"}
}

// Lookup returns the generator of a workload by name.
func Lookup(name string) (Generator, bool) {
	switch name {
	case "unique-partner":
		return UniquePartner, true
	case "anti-unblock":
		return AntiUnblock, true
	case "deployments":
		return Deployments, true
	case "spread":
		return Spread, true
	case "node-churn":
		return NodeChurn, true
	}
	return nil, false
}

// builder holds what every generator needs: the Config, a seeded source of
// randomness, and the cluster under construction.
type builder struct {
	cfg Config
	rnd *rand.Rand
	w   *Workload
	seq int
}

func newBuilder(name string, cfg Config) (*builder, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	b := &builder{cfg: cfg, rnd: rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15)), w: &Workload{Name: name, Config: cfg}}
	for i := range cfg.Namespaces {
		b.w.Namespaces = append(b.w.Namespaces, &v1.Namespace{ObjectMeta: metav1.ObjectMeta{
			Name:   nsName(i),
			Labels: map[string]string{"team": "team-" + strconv.Itoa(i%5), "kubernetes.io/metadata.name": nsName(i)},
		}})
	}
	for i := range cfg.Nodes {
		b.w.Nodes = append(b.w.Nodes, b.node(i))
	}
	return b, nil
}

func nsName(i int) string { return "ns-" + strconv.Itoa(i) }

func (b *builder) node(i int) *v1.Node {
	return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-" + strconv.Itoa(i), Labels: map[string]string{
		"kubernetes.io/hostname":        "node-" + strconv.Itoa(i),
		"topology.kubernetes.io/zone":   "zone-" + strconv.Itoa(i%8),
		"topology.kubernetes.io/region": "region-" + strconv.Itoa(i%2),
	}}}
}

// pod returns a pod with a fresh name and UID.
func (b *builder) pod(prefix, ns string, labels map[string]string) *v1.Pod {
	b.seq++
	name := prefix + "-" + strconv.Itoa(b.seq)
	return &v1.Pod{ObjectMeta: metav1.ObjectMeta{
		Name: name, Namespace: ns, UID: types.UID(b.w.Name + "/" + name), Labels: labels,
	}}
}

// scheduled returns a pod bound to a random node.
func (b *builder) scheduled(prefix, ns string, labels map[string]string) *v1.Pod {
	p := b.pod(prefix, ns, labels)
	p.Spec.NodeName = "node-" + strconv.Itoa(b.rnd.IntN(b.cfg.Nodes))
	return p
}

const (
	zoneKey     = "topology.kubernetes.io/zone"
	regionKey   = "topology.kubernetes.io/region"
	hostnameKey = "kubernetes.io/hostname"
)

func matchLabels(kv ...string) *metav1.LabelSelector {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return &metav1.LabelSelector{MatchLabels: m}
}

func affinity(pod *v1.Pod, t v1.PodAffinityTerm) {
	if pod.Spec.Affinity == nil {
		pod.Spec.Affinity = &v1.Affinity{}
	}
	if pod.Spec.Affinity.PodAffinity == nil {
		pod.Spec.Affinity.PodAffinity = &v1.PodAffinity{}
	}
	a := pod.Spec.Affinity.PodAffinity
	a.RequiredDuringSchedulingIgnoredDuringExecution = append(a.RequiredDuringSchedulingIgnoredDuringExecution, t)
}

func antiAffinity(pod *v1.Pod, t v1.PodAffinityTerm) {
	if pod.Spec.Affinity == nil {
		pod.Spec.Affinity = &v1.Affinity{}
	}
	if pod.Spec.Affinity.PodAntiAffinity == nil {
		pod.Spec.Affinity.PodAntiAffinity = &v1.PodAntiAffinity{}
	}
	a := pod.Spec.Affinity.PodAntiAffinity
	a.RequiredDuringSchedulingIgnoredDuringExecution = append(a.RequiredDuringSchedulingIgnoredDuringExecution, t)
}

func spread(pod *v1.Pod, topologyKey string, sel *metav1.LabelSelector, matchLabelKeys ...string) {
	pod.Spec.TopologySpreadConstraints = append(pod.Spec.TopologySpreadConstraints, v1.TopologySpreadConstraint{
		MaxSkew: 1, TopologyKey: topologyKey, WhenUnsatisfiable: v1.DoNotSchedule,
		LabelSelector: sel, MatchLabelKeys: matchLabelKeys,
	})
}

// UniquePartner: pod i waits (required affinity on zone) for a pod labelled
// color=yellow-i; each event adds the one scheduled pod that unblocks exactly
// one of them, in random order (scheduler_perf's EventHandlingPodAdd).
func UniquePartner(cfg Config) (*Workload, error) {
	b, err := newBuilder("unique-partner", cfg)
	if err != nil {
		return nil, err
	}
	for i := range b.cfg.Pods {
		p := b.pod("waiter", nsName(i%b.cfg.Namespaces), map[string]string{"app": "waiter"})
		affinity(p, v1.PodAffinityTerm{LabelSelector: matchLabels("color", "yellow-"+strconv.Itoa(i)), TopologyKey: zoneKey})
		b.w.Pending = append(b.w.Pending, p)
	}
	order := b.rnd.Perm(b.cfg.Pods)
	for k := range min(b.cfg.Events, b.cfg.Pods) {
		i := order[k]
		q := b.scheduled("partner", nsName(i%b.cfg.Namespaces), map[string]string{"color": "yellow-" + strconv.Itoa(i)})
		b.w.Events = append(b.w.Events, index.Event{Kind: index.AssignedPodAdd, NewPod: q})
	}
	return b.w, nil
}

// AntiUnblock: pod i keeps away (required anti-affinity on hostname) from
// pods labelled color=green-i; scheduled blocker i carries that label, and
// each event removes it from one blocker, so only the old labels relate the
// event to its pod (scheduler_perf's EventHandlingPodUpdate).
func AntiUnblock(cfg Config) (*Workload, error) {
	b, err := newBuilder("anti-unblock", cfg)
	if err != nil {
		return nil, err
	}
	blockers := make([]*v1.Pod, b.cfg.Pods)
	for i := range b.cfg.Pods {
		ns := nsName(i % b.cfg.Namespaces)
		p := b.pod("shy", ns, map[string]string{"app": "shy"})
		antiAffinity(p, v1.PodAffinityTerm{LabelSelector: matchLabels("color", "green-"+strconv.Itoa(i)), TopologyKey: hostnameKey})
		b.w.Pending = append(b.w.Pending, p)
		blockers[i] = b.scheduled("blocker", ns, map[string]string{"app": "blocker", "color": "green-" + strconv.Itoa(i)})
	}
	b.w.Assigned = blockers
	order := b.rnd.Perm(b.cfg.Pods)
	for k := range min(b.cfg.Events, b.cfg.Pods) {
		old := blockers[order[k]]
		updated := old.DeepCopy()
		delete(updated.Labels, "color")
		b.w.Events = append(b.w.Events, index.Event{Kind: index.AssignedPodUpdate, OldPod: old, NewPod: updated})
	}
	return b.w, nil
}

// deployment is one workload of the deployments generator.
type deployment struct {
	app, hash, tier, ns string
	dependsOn           int  // index of the deployment it needs in its zone, -1 if none
	spreads             bool // zone spread constraint with matchLabelKeys
	teamCache           bool // affinity to the shared cache in namespaces selected by label
	notInOnly           bool // an anti-affinity term with only a NotIn requirement
	running             []*v1.Pod
}

// deployments builds d deployments, their running replicas, and the
// pending replicas, Zipf-distributed over the deployments.
func (b *builder) deployments(pods int) []*deployment {
	tiers := [...]string{"web", "api", "worker", "db"}
	d := max(1, pods/20)
	deps := make([]*deployment, d)
	for k := range deps {
		deps[k] = &deployment{
			app: "app-" + strconv.Itoa(k), hash: "h" + strconv.Itoa(k*7919%100003), tier: tiers[k%len(tiers)],
			ns: nsName(k % b.cfg.Namespaces), dependsOn: -1,
			spreads: b.rnd.IntN(10) < 3, teamCache: b.rnd.IntN(100) < 5, notInOnly: b.rnd.IntN(100) < 2,
		}
		// Half depend on an earlier deployment of their namespace.
		if peers := k / b.cfg.Namespaces; peers > 0 && b.rnd.IntN(2) == 0 {
			deps[k].dependsOn = k - b.cfg.Namespaces*(1+b.rnd.IntN(peers))
		}
		for range 3 {
			q := b.scheduled(deps[k].app, deps[k].ns, deps[k].labels("v1"))
			deps[k].running = append(deps[k].running, q)
			b.w.Assigned = append(b.w.Assigned, q)
		}
	}
	zipf := rand.NewZipf(b.rnd, 1.1, 4, uint64(d-1))
	for range pods {
		dep := deps[zipf.Uint64()]
		p := b.pod(dep.app, dep.ns, dep.labels("v1"))
		// Replicas keep away from each other per host.
		antiAffinity(p, v1.PodAffinityTerm{LabelSelector: matchLabels("app", dep.app), TopologyKey: hostnameKey})
		if dep.dependsOn >= 0 {
			other := deps[dep.dependsOn]
			affinity(p, v1.PodAffinityTerm{LabelSelector: matchLabels("app", other.app), TopologyKey: zoneKey})
		}
		if dep.teamCache {
			affinity(p, v1.PodAffinityTerm{
				LabelSelector:     matchLabels("app", "shared-cache"),
				NamespaceSelector: matchLabels("team", "team-0"),
				TopologyKey:       regionKey,
			})
		}
		if dep.notInOnly {
			antiAffinity(p, v1.PodAffinityTerm{LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: "tier", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"web", "api", "worker", "db"}},
			}}, TopologyKey: hostnameKey})
		}
		if dep.spreads {
			spread(p, zoneKey, matchLabels("app", dep.app), "pod-template-hash")
		}
		b.w.Pending = append(b.w.Pending, p)
	}
	return deps
}

func (d *deployment) labels(version string) map[string]string {
	return map[string]string{"app": d.app, "pod-template-hash": d.hash, "tier": d.tier, "version": version}
}

// Deployments: replicas of Zipf-popular deployments over 50 namespaces with
// 1–3 terms each over hostname, zone and region (anti-affinity to their own
// app, affinity to a dependency, a zone spread constraint with
// matchLabelKeys), a few namespaceSelector terms and NotIn-only terms. The
// events roll, scale and delete running replicas of popular deployments and
// relabel a namespace now and then.
func Deployments(cfg Config) (*Workload, error) {
	b, err := newBuilder("deployments", cfg)
	if err != nil {
		return nil, err
	}
	deps := b.deployments(b.cfg.Pods)
	zipf := rand.NewZipf(b.rnd, 1.1, 4, uint64(len(deps)-1))
	namespaces := slices.Clone(b.w.Namespaces) // current versions; w.Namespaces stays the initial state
	for range b.cfg.Events {
		dep := deps[zipf.Uint64()]
		switch r := b.rnd.IntN(100); {
		case r < 60 && len(dep.running) > 0: // rolling relabel
			i := b.rnd.IntN(len(dep.running))
			old := dep.running[i]
			updated := old.DeepCopy()
			updated.Labels["version"] = "v" + strconv.Itoa(2+b.rnd.IntN(3))
			dep.running[i] = updated
			b.w.Events = append(b.w.Events, index.Event{Kind: index.AssignedPodUpdate, OldPod: old, NewPod: updated})
		case r < 80: // scale up
			q := b.scheduled(dep.app, dep.ns, dep.labels("v1"))
			dep.running = append(dep.running, q)
			b.w.Events = append(b.w.Events, index.Event{Kind: index.AssignedPodAdd, NewPod: q})
		case r < 98 && len(dep.running) > 0: // delete
			i := b.rnd.IntN(len(dep.running))
			q := dep.running[i]
			dep.running = slices.Delete(dep.running, i, i+1)
			b.w.Events = append(b.w.Events, index.Event{Kind: index.AssignedPodDelete, OldPod: q})
		default: // a namespace moves team
			i := b.rnd.IntN(len(namespaces))
			updated := namespaces[i].DeepCopy()
			updated.Labels["team"] = "team-" + strconv.Itoa(b.rnd.IntN(5))
			b.w.Events = append(b.w.Events, index.Event{Kind: index.NamespaceUpdate, OldNamespace: namespaces[i], NewNamespace: updated})
			namespaces[i] = updated
		}
	}
	return b.w, nil
}

// Spread: replicas of services with DoNotSchedule spread constraints on zone
// and hostname (matchLabelKeys pod-template-hash); the events add and delete
// scheduled replicas of the services.
func Spread(cfg Config) (*Workload, error) {
	b, err := newBuilder("spread", cfg)
	if err != nil {
		return nil, err
	}
	services := max(1, b.cfg.Pods/50)
	running := make([][]*v1.Pod, services)
	svcLabels := func(s int) map[string]string {
		return map[string]string{"app": "svc-" + strconv.Itoa(s), "pod-template-hash": "s" + strconv.Itoa(s)}
	}
	for i := range b.cfg.Pods {
		s := i % services
		p := b.pod("svc-"+strconv.Itoa(s), nsName(s%b.cfg.Namespaces), svcLabels(s))
		spread(p, zoneKey, matchLabels("app", "svc-"+strconv.Itoa(s)), "pod-template-hash")
		spread(p, hostnameKey, matchLabels("app", "svc-"+strconv.Itoa(s)), "pod-template-hash")
		b.w.Pending = append(b.w.Pending, p)
	}
	for range b.cfg.Events {
		s := b.rnd.IntN(services)
		if n := len(running[s]); n > 0 && b.rnd.IntN(2) == 0 {
			i := b.rnd.IntN(n)
			q := running[s][i]
			running[s] = slices.Delete(running[s], i, i+1)
			b.w.Events = append(b.w.Events, index.Event{Kind: index.AssignedPodDelete, OldPod: q})
			continue
		}
		q := b.scheduled("svc-"+strconv.Itoa(s), nsName(s%b.cfg.Namespaces), svcLabels(s))
		running[s] = append(running[s], q)
		b.w.Events = append(b.w.Events, index.Event{Kind: index.AssignedPodAdd, NewPod: q})
	}
	return b.w, nil
}

// NodeChurn: the deployments pool, and events that relabel nodes on their
// topology keys, taint and untaint them, and add and remove nodes.
func NodeChurn(cfg Config) (*Workload, error) {
	b, err := newBuilder("node-churn", cfg)
	if err != nil {
		return nil, err
	}
	b.deployments(b.cfg.Pods)
	nodes := slices.Clone(b.w.Nodes) // current versions; w.Nodes stays the initial state
	next := len(nodes)
	for range b.cfg.Events {
		switch r := b.rnd.IntN(100); {
		case r < 45 && len(nodes) > 0: // move to another zone
			i := b.rnd.IntN(len(nodes))
			updated := nodes[i].DeepCopy()
			updated.Labels[zoneKey] = "zone-" + strconv.Itoa(b.rnd.IntN(8))
			b.w.Events = append(b.w.Events, index.Event{Kind: index.NodeUpdate, OldNode: nodes[i], NewNode: updated})
			nodes[i] = updated
		case r < 75 && len(nodes) > 0: // taint or untaint
			i := b.rnd.IntN(len(nodes))
			updated := nodes[i].DeepCopy()
			if len(updated.Spec.Taints) == 0 {
				updated.Spec.Taints = []v1.Taint{{Key: "maintenance", Effect: v1.TaintEffectNoSchedule}}
			} else {
				updated.Spec.Taints = nil
			}
			b.w.Events = append(b.w.Events, index.Event{Kind: index.NodeUpdate, OldNode: nodes[i], NewNode: updated})
			nodes[i] = updated
		case r < 90:
			n := b.node(next)
			next++
			nodes = append(nodes, n)
			b.w.Events = append(b.w.Events, index.Event{Kind: index.NodeAdd, NewNode: n})
		case len(nodes) > 0:
			i := b.rnd.IntN(len(nodes))
			n := nodes[i]
			nodes = slices.Delete(nodes, i, i+1)
			b.w.Events = append(b.w.Events, index.Event{Kind: index.NodeDelete, OldNode: n})
		}
	}
	return b.w, nil
}
