package main

import (
	"fmt"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/affinityq/affinityq/fuzz"
	"github.com/affinityq/affinityq/placed"
)

// The cycle half: the questions kube-scheduler's InterPodAffinity and
// PodTopologySpread ask about one incoming pod in every scheduling cycle,
// answered by a placed.Index and by fuzz.Cycle, the naive scan of every
// placed pod, and checked equal.

// cycleConfig sizes the cluster of the cycle half.
type cycleConfig struct {
	Nodes    int    // nodes, in three zones
	Placed   int    // placed pods, of cycleApps deployments in cycleNamespaces namespaces
	Incoming int    // incoming pods asked about, each through both
	Seed     uint64 // varies which deployments the incoming pods name
}

const (
	cycleApps       = 500
	cycleNamespaces = 10
	cycleZones      = 3
	// cycleIncomingApps is how many deployments the incoming pods are
	// replicas of: a deployment's first replica builds the index's shapes
	// for its questions (an answer's max), the others share them (its p50).
	cycleIncomingApps = 4
	// cycleScored is how many nodes PreScore is given: the nodes that passed
	// Filter, of which kube-scheduler keeps about 10 % at 5,000 nodes.
	cycleScored = 500
)

// cycleQuestion is one row of the cycle half's table.
type cycleQuestion struct {
	Question   string          `json:"question"`
	Nodes      int             `json:"nodes"`
	Placed     int             `json:"placed"`
	Compared   int             `json:"compared"`
	P50        time.Duration   `json:"p50_ns"`
	Max        time.Duration   `json:"max_ns"`
	NaiveP50   time.Duration   `json:"naive_p50_ns"`
	NaiveMax   time.Duration   `json:"naive_max_ns"`
	Speedup    float64         `json:"speedup"`
	Mismatches []string        `json:"mismatches,omitempty"`
	index      []time.Duration // per compared pod
	naive      []time.Duration
}

// cycleNode returns node i: hostname and zone labels, as the scheduler's
// topology keys read them.
func cycleNode(i int) *v1.Node {
	name := fmt.Sprintf("node-%d", i)
	return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
		v1.LabelHostname:     name,
		v1.LabelTopologyZone: fmt.Sprintf("zone-%d", i%cycleZones),
	}}}
}

func appSelector(app int) *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchLabels: map[string]string{"app": fmt.Sprintf("app-%d", app)}}
}

// cyclePlaced returns placed pod i, of deployment i % cycleApps, on node
// i % nodes. One in 20 carries required hostname anti-affinity against its
// own deployment, another one in 20 preferred zone affinity to the next
// deployment, so that the incoming pods' answers read placed pods' terms
// too.
func cyclePlaced(i, nodes int) *v1.Pod {
	app := i % cycleApps
	p := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: fmt.Sprintf("ns-%d", app%cycleNamespaces), Name: fmt.Sprintf("placed-%d", i),
			UID: types.UID(fmt.Sprintf("placed-%d", i)), Labels: map[string]string{"app": fmt.Sprintf("app-%d", app)},
		},
		Spec: v1.PodSpec{NodeName: fmt.Sprintf("node-%d", i%nodes)},
	}
	switch i % 20 {
	case 0:
		p.Spec.Affinity = &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{LabelSelector: appSelector(app), TopologyKey: v1.LabelHostname}},
		}}
	case 10:
		p.Spec.Affinity = &v1.Affinity{PodAffinity: &v1.PodAffinity{
			PreferredDuringSchedulingIgnoredDuringExecution: []v1.WeightedPodAffinityTerm{{Weight: 20, PodAffinityTerm: v1.PodAffinityTerm{
				LabelSelector: appSelector((app + 1) % cycleApps), TopologyKey: v1.LabelTopologyZone,
			}}},
		}}
	}
	return p
}

// cycleIncoming returns incoming pod i of deployment app: a replica with
// required zone affinity to one deployment and required hostname
// anti-affinity to its own, preferred hostname affinity and zone
// anti-affinity to two others, and zone (DoNotSchedule) and hostname
// (ScheduleAnyway) spread over its own.
func cycleIncoming(i, app int) *v1.Pod {
	ns := fmt.Sprintf("ns-%d", app%cycleNamespaces)
	other := func(d int) *metav1.LabelSelector { return appSelector((app + d) % cycleApps) }
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: ns, Name: fmt.Sprintf("incoming-%d", i), UID: types.UID(fmt.Sprintf("incoming-%d", i)),
			Labels: map[string]string{"app": fmt.Sprintf("app-%d", app)},
		},
		Spec: v1.PodSpec{
			Affinity: &v1.Affinity{
				PodAffinity: &v1.PodAffinity{
					RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
						LabelSelector: other(cycleNamespaces), TopologyKey: v1.LabelTopologyZone, // same namespace
					}},
					PreferredDuringSchedulingIgnoredDuringExecution: []v1.WeightedPodAffinityTerm{{Weight: 10, PodAffinityTerm: v1.PodAffinityTerm{
						LabelSelector: other(2 * cycleNamespaces), TopologyKey: v1.LabelHostname,
					}}},
				},
				PodAntiAffinity: &v1.PodAntiAffinity{
					RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{LabelSelector: appSelector(app), TopologyKey: v1.LabelHostname}},
					PreferredDuringSchedulingIgnoredDuringExecution: []v1.WeightedPodAffinityTerm{{Weight: 5, PodAffinityTerm: v1.PodAffinityTerm{
						LabelSelector: other(3 * cycleNamespaces), TopologyKey: v1.LabelTopologyZone,
					}}},
				},
			},
			TopologySpreadConstraints: []v1.TopologySpreadConstraint{
				{MaxSkew: 1, TopologyKey: v1.LabelTopologyZone, WhenUnsatisfiable: v1.DoNotSchedule, LabelSelector: appSelector(app)},
				{MaxSkew: 3, TopologyKey: v1.LabelHostname, WhenUnsatisfiable: v1.ScheduleAnyway, LabelSelector: appSelector(app)},
			},
		},
	}
}

// runCycle builds the cluster in a placed.Index and in fuzz.Cycle, asks
// both the four questions about every incoming pod, and returns a row per
// question; a row's Mismatches list the pods whose answers differ.
func runCycle(cfg cycleConfig, rep *reporter) ([]*cycleQuestion, error) {
	x := placed.New()
	ref := &fuzz.Cycle{NamespaceLabels: map[string]map[string]string{}}
	for ns := range cycleNamespaces {
		ref.NamespaceLabels[fmt.Sprintf("ns-%d", ns)] = map[string]string{}
	}
	ph := rep.phase(cfg.Nodes+cfg.Placed, "cycle: cluster")
	for i := range cfg.Nodes {
		n := cycleNode(i)
		if err := x.SetNode(n); err != nil {
			return nil, err
		}
		ref.Nodes = append(ref.Nodes, n)
		ph.add(1)
	}
	for i := range cfg.Placed {
		p := cyclePlaced(i, cfg.Nodes)
		if err := x.AddPod(p); err != nil {
			return nil, err
		}
		ref.Pods = append(ref.Pods, p)
		ph.add(1)
	}
	ph.done()

	scored := make([]*v1.Node, 0, cycleScored)
	var scoredNames []string
	for i := 0; i < cfg.Nodes && len(scored) < cycleScored; i += max(cfg.Nodes/cycleScored, 1) {
		scored = append(scored, ref.Nodes[i])
		scoredNames = append(scoredNames, ref.Nodes[i].Name)
	}
	args := placed.ScoreArgs{HardPodAffinityWeight: 1}
	refArgs := fuzz.AffinityScoreArgs{HardPodAffinityWeight: 1}
	questions := []struct {
		name  string
		index func(*v1.Pod) (string, error)
		naive func(*v1.Pod) (string, error)
	}{
		{"InterPodAffinity PreFilter", func(in *v1.Pod) (string, error) {
			c, err := x.InterPodAffinity(in)
			return affinityCounts(c.ExistingAntiAffinity, c.Affinity, c.AntiAffinity), err
		}, func(in *v1.Pod) (string, error) {
			c, err := ref.AffinityPreFilter(in)
			return refAffinityCounts(c.ExistingAntiAffinity, c.Affinity, c.AntiAffinity), err
		}},
		{"InterPodAffinity PreScore", func(in *v1.Pod) (string, error) {
			s, skip, err := x.InterPodAffinityScoresFor(in, args, scored)
			return fmt.Sprint(skip, map[string]map[string]int64(s)), err
		}, func(in *v1.Pod) (string, error) {
			s, ok, err := ref.AffinityPreScore(in, refArgs)
			return fmt.Sprint(!ok, scoresAt(s, scored)), err
		}},
		{"PodTopologySpread PreFilter", func(in *v1.Pod) (string, error) {
			cs, err := x.PodTopologySpread(in)
			var out []string
			for _, c := range cs {
				out = append(out, fmt.Sprint(c.TopologyKey, c.Counts))
			}
			return fmt.Sprint(out), err
		}, func(in *v1.Pod) (string, error) {
			cs, err := ref.SpreadPreFilter(in)
			var out []string
			for _, c := range cs {
				out = append(out, fmt.Sprint(c.TopologyKey, c.Counts))
			}
			return fmt.Sprint(out), err
		}},
		{"PodTopologySpread PreScore", func(in *v1.Pod) (string, error) {
			s, skip, err := x.PodTopologySpreadScores(in, scoredNames, true)
			var out []string
			for _, c := range s.Constraints {
				out = append(out, fmt.Sprint(c.TopologyKey, c.Counts, c.NodeCounts, c.NormalizingWeight))
			}
			return fmt.Sprint(skip, s.IgnoredNodes, out), err
		}, func(in *v1.Pod) (string, error) {
			s, ok, err := ref.SpreadPreScore(in, scoredNames)
			var out []string
			for _, c := range s.Constraints {
				out = append(out, fmt.Sprint(c.TopologyKey, c.Counts, c.NodeCounts, c.NormalizingWeight))
			}
			return fmt.Sprint(!ok, s.IgnoredNodes, out), err
		}},
	}
	rows := make([]*cycleQuestion, len(questions))
	for i, q := range questions {
		rows[i] = &cycleQuestion{Question: q.name, Nodes: cfg.Nodes, Placed: cfg.Placed, Compared: cfg.Incoming}
	}
	ph = rep.phase(cfg.Incoming, "cycle: questions")
	for i := range cfg.Incoming {
		in := cycleIncoming(i, int((uint64(i%cycleIncomingApps)*97+cfg.Seed*7919)%cycleApps))
		for j, q := range questions {
			start := time.Now()
			got, err := q.index(in)
			rows[j].index = append(rows[j].index, time.Since(start))
			if err != nil {
				return nil, fmt.Errorf("%s of %s: %w", q.name, in.Name, err)
			}
			start = time.Now()
			want, err := q.naive(in)
			rows[j].naive = append(rows[j].naive, time.Since(start))
			if err != nil {
				return nil, fmt.Errorf("%s of %s, naive: %w", q.name, in.Name, err)
			}
			if got != want && len(rows[j].Mismatches) < 5 {
				rows[j].Mismatches = append(rows[j].Mismatches, fmt.Sprintf("%s: index %.200s, naive %.200s", in.Name, got, want))
			}
		}
		ph.add(1)
	}
	ph.done()
	for _, r := range rows {
		r.P50, r.Max = percentile(r.index, 50), percentile(r.index, 100)
		r.NaiveP50, r.NaiveMax = percentile(r.naive, 50), percentile(r.naive, 100)
		r.Speedup = float64(r.NaiveP50) / float64(max(r.P50, 1))
	}
	return rows, nil
}

// affinityCounts prints the three count maps of InterPodAffinity's
// PreFilter in a form both sides share: sorted "key=value:count" lists.
func affinityCounts(maps ...placed.Counts) string {
	var out []string
	for _, m := range maps {
		var l []string
		for p, n := range m {
			l = append(l, fmt.Sprintf("%s=%s:%d", p.Key, p.Value, n))
		}
		slices.Sort(l)
		out = append(out, fmt.Sprint(l))
	}
	return fmt.Sprint(out)
}

func refAffinityCounts(ms ...fuzz.TopologyCounts) string {
	conv := make([]placed.Counts, len(ms))
	for i, m := range ms {
		conv[i] = placed.Counts{}
		for p, n := range m {
			conv[i][placed.Pair{Key: p.Key, Value: p.Value}] = n
		}
	}
	return affinityCounts(conv...)
}

// scoresAt keeps of the reference's topology score the pairs the scored
// nodes carry: what InterPodAffinityScoresFor returns, and all Score reads.
func scoresAt(s map[string]map[string]int64, nodes []*v1.Node) map[string]map[string]int64 {
	out := map[string]map[string]int64{}
	for _, n := range nodes {
		for k, v := range n.Labels {
			if score, ok := s[k][v]; ok {
				if out[k] == nil {
					out[k] = map[string]int64{}
				}
				out[k][v] = score
			}
		}
	}
	return out
}
