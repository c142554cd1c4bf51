package fuzz

import (
	"fmt"
	"maps"
	"slices"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Groups of replicas, as the fuzz worlds see them: pods with the same
// namespace, labels, affinity and topology-spread constraints. These are
// the fields the index groups pods by (its source), so the groups are the
// index's too, except that the index ignores preferred terms and gives a
// pod with failed terms, or one whose source hash another group holds, a
// group of its own. A group's founder is its member added first. The
// worlds pick the targets of their group operations (remove the founder,
// revive a dropped group, relabel a replica) from these groups.

// member is a pod of a world with its spec key (specKey), computed once
// when the pod enters the world.
type member struct {
	pod *v1.Pod
	key string
}

// specKey returns a string equal for two pods exactly when their
// namespace, labels, affinity and spread constraints are equal: the
// generated String methods and fmt print maps sorted by key.
func specKey(p *v1.Pod) string {
	return fmt.Sprintf("%s|%v|%s|%v", p.Namespace, p.Labels, p.Spec.Affinity.String(), p.Spec.TopologySpreadConstraints)
}

func newMember(p *v1.Pod) member { return member{pod: p, key: specKey(p)} }

// groupsOf returns the members grouped by spec key, the groups whose size
// ok accepts: each group in the members' order (its founder first), the
// groups in their founders' order.
func groupsOf(ms []member, ok func(n int) bool) [][]*v1.Pod {
	var groups [][]*v1.Pod
	at := map[string]int{}
	for _, m := range ms {
		i, seen := at[m.key]
		if !seen {
			i = len(groups)
			at[m.key] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], m.pod)
	}
	return slices.DeleteFunc(groups, func(g []*v1.Pod) bool { return !ok(len(g)) })
}

// replicaOf returns a replica of p: a deep copy with the given UID, used as
// its name too.
func replicaOf(p *v1.Pod, uid types.UID) *v1.Pod {
	r := p.DeepCopy()
	r.UID, r.Name = uid, string(uid)
	return r
}

// relabelOut returns a copy of p whose labels differ from p's: one label
// set to a generated value, or removed when it had that value already.
func (g *gen) relabelOut(p *v1.Pod) *v1.Pod {
	n := p.DeepCopy()
	labels := maps.Clone(p.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	k, v := pick(g, genKeys), pick(g, genValues)
	if old, ok := labels[k]; ok && old == v {
		delete(labels, k)
	} else {
		labels[k] = v
	}
	n.Labels = labels
	return n
}

// collider returns a replica of p, under uid, whose source differs from
// p's only in a value of a selector's matchLabels, which the index's
// source hash leaves out: the two hash alike, so that the index's exact
// comparison must tell their groups apart. It returns false when no
// required term or spread constraint of p has matchLabels.
func (g *gen) collider(p *v1.Pod, uid types.UID) (*v1.Pod, bool) {
	c := replicaOf(p, uid)
	var sels []*metav1.LabelSelector
	terms := func(ts []v1.PodAffinityTerm) {
		for i := range ts {
			sels = append(sels, ts[i].LabelSelector, ts[i].NamespaceSelector)
		}
	}
	if a := c.Spec.Affinity; a != nil {
		if a.PodAffinity != nil {
			terms(a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution)
		}
		if a.PodAntiAffinity != nil {
			terms(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution)
		}
	}
	for i := range c.Spec.TopologySpreadConstraints {
		sels = append(sels, c.Spec.TopologySpreadConstraints[i].LabelSelector)
	}
	sels = slices.DeleteFunc(sels, func(s *metav1.LabelSelector) bool { return s == nil || len(s.MatchLabels) == 0 })
	if len(sels) == 0 {
		return nil, false
	}
	ml := pick(g, sels).MatchLabels
	k := slices.Min(slices.Collect(maps.Keys(ml)))
	i := slices.Index(genValues, ml[k])
	ml[k] = genValues[(i+1+g.intn(len(genValues)-1))%len(genValues)]
	return c, true
}
