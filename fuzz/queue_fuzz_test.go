package fuzz

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/affinityq/affinityq/index"
	"github.com/affinityq/affinityq/internal/hintcases"
	"github.com/affinityq/affinityq/queue"
)

// queueModel is a naive scheduling queue: a map of pods with their place,
// whose unschedulable pool is a Reference. It decides every move from the
// Reference's effects, and it wakes pods in flight eagerly, by evaluating
// each event against them when it happens (the queue logs events and
// replays them when an attempt fails): two ways to the same answer.
type queueModel struct {
	policy               queue.Policy
	reset                bool
	initial, max         time.Duration
	unschedulableTimeout time.Duration
	clock                *testingclock.FakeClock
	lookup               func(ns string) (map[string]string, bool)

	pods    map[types.UID]*modelPod
	pool    *Reference                   // the pool's pods
	parks   uint64                       // pods parked so far
	orphans map[types.UID]*queue.PodInfo // deleted while in flight
}

type modelPod struct {
	pod       *v1.Pod
	loc       queue.Location
	attempts  int
	timestamp time.Time
	rejected  RuleSet
	names     []string // the plugins named by the last failure
	parked    time.Time
	parkSeq   uint64 // orders the pool's pods by when they were parked
	// In flight: the PodInfo Pop returned, the newest object from Update,
	// and what the events since the Pop did to the pod (rule-set unions
	// per policy, and whether a MoveAll ran).
	pi              *queue.PodInfo
	updated         *v1.Pod
	wokeRel, wokeTr RuleSet
	wokeAll         bool
}

func (m *queueModel) backoff(p *modelPod) time.Duration {
	if p.attempts <= 0 || m.initial <= 0 || m.max <= 0 {
		return 0
	}
	d := m.initial
	for range p.attempts - 1 {
		d *= 2
		if d >= m.max {
			return m.max
		}
	}
	return min(d, m.max)
}

// toBackoffOrActive places p, in no place, by its backoff.
func (m *queueModel) toBackoffOrActive(p *modelPod) {
	if p.timestamp.Add(m.backoff(p)).After(m.clock.Now()) {
		p.loc = queue.Backoff
	} else {
		p.loc = queue.Active
	}
}

// move places p, in no place, where the policy sends a moved pod.
func (m *queueModel) move(p *modelPod) {
	if m.policy == queue.Relation {
		if m.reset {
			p.attempts = 0
		}
		p.loc = queue.Active
		return
	}
	m.toBackoffOrActive(p)
}

func (m *queueModel) applies(e Effect, rejected RuleSet) bool {
	if m.policy == queue.Relation {
		return e.Relation != 0
	}
	return e.Transition&rejected != 0
}

// event applies an event: pool pods the policy selects move; pods in flight
// record the effect. eval answers the event for a Reference.
func (m *queueModel) event(eval func(r *Reference) map[types.UID]Effect) {
	for uid, e := range eval(m.pool) {
		p := m.pods[uid]
		if p == nil || p.loc != queue.Unschedulable {
			panic(fmt.Sprintf("model: reference pod %s not in the pool", uid))
		}
		if m.applies(e, p.rejected) {
			m.pool.Remove(uid)
			m.move(p)
		}
	}
	for uid, p := range m.pods {
		if p.loc != queue.InFlight {
			continue
		}
		r := NewReference(m.lookup)
		r.Add(p.pod)
		e := eval(r)[uid]
		p.wokeRel |= e.Relation
		p.wokeTr |= e.Transition
	}
}

func (m *queueModel) moveAll() {
	for uid, p := range m.pods {
		switch p.loc {
		case queue.Unschedulable:
			m.pool.Remove(uid)
			m.move(p)
		case queue.InFlight:
			p.wokeAll = true
		}
	}
}

func podChanged(a, b *v1.Pod) bool {
	return !equality.Semantic.DeepEqual(a.Labels, b.Labels) || !equality.Semantic.DeepEqual(a.Spec, b.Spec)
}

func pluginRules(names []string) RuleSet {
	var rs RuleSet
	for _, n := range names {
		switch n {
		case queue.InterPodAffinity:
			rs |= InterPodAffinity
		case queue.PodTopologySpread:
			rs |= PodTopologySpread
		}
	}
	return rs
}

// fail ends p's attempt as AddUnschedulable does.
func (m *queueModel) fail(p *modelPod, names []string) {
	changed := false
	if p.updated != nil {
		changed = podChanged(p.pod, p.updated)
		p.pod, p.updated = p.updated, nil
	}
	p.pi = nil
	p.timestamp = m.clock.Now()
	p.rejected, p.names = pluginRules(names), names
	named := slices.ContainsFunc(names, func(n string) bool { return n != "" })
	woken := p.wokeAll || m.applies(Effect{Relation: p.wokeRel, Transition: p.wokeTr}, p.rejected)
	switch {
	case !named:
		m.toBackoffOrActive(p)
	case changed || woken:
		m.move(p)
	default:
		p.loc = queue.Unschedulable
		p.parked = m.clock.Now()
		m.parks++
		p.parkSeq = m.parks
		m.pool.Add(p.pod)
	}
}

// queueWorld drives a queue and its model through the same operations.
type queueWorld struct {
	t        testing.TB
	q        *queue.Queue
	m        *queueModel
	clock    *testingclock.FakeClock
	nsLabels map[string]map[string]string
	assigned []*v1.Pod
	nodes    []*v1.Node
	log      []string // the operations, for failure messages
	steps    int
	uids     []types.UID        // every UID queued so far, and the generator's
	keys     map[*v1.Pod]string // specKey of the pods seen, computed once
	seq      int                // for replica UIDs
}

// maxQueued bounds the pods in a queue world: the generator's 12 UIDs and
// replicas.
const maxQueued = 16

var queuePlugins = []string{queue.InterPodAffinity, queue.PodTopologySpread, "NodeResourcesFit", ""}

func newQueueWorld(t testing.TB, cfg byte) *queueWorld {
	w := &queueWorld{t: t, clock: testingclock.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)), nsLabels: map[string]map[string]string{}, keys: map[*v1.Pod]string{}}
	for i := range 12 {
		w.uids = append(w.uids, types.UID(fmt.Sprintf("p%d", i)))
	}
	lookup := func(ns string) (map[string]string, bool) {
		l, ok := w.nsLabels[ns]
		return l, ok
	}
	policy := []queue.Policy{queue.Relation, queue.Transition}[cfg&1]
	reset := cfg&2 == 0
	initial, max := []time.Duration{time.Second, 0}[cfg>>2&1], []time.Duration{10 * time.Second, 3 * time.Second}[cfg>>3&1]
	opts := []queue.Option{
		queue.WithClock(w.clock), queue.WithPolicy(policy), queue.WithResetOnMove(reset),
		queue.WithBackoff(initial, max), queue.WithUnschedulableTimeout(time.Minute),
	}
	if cfg&16 != 0 {
		opts = append(opts, queue.WithNamespaceLabels(lookup)) // else the queue learns them from NamespaceUpdated
	}
	w.q = queue.New(opts...)
	w.m = &queueModel{
		policy: policy, reset: reset, initial: initial, max: max, unschedulableTimeout: time.Minute,
		clock: w.clock, lookup: lookup,
		pods: map[types.UID]*modelPod{}, pool: NewReference(lookup), orphans: map[types.UID]*queue.PodInfo{},
	}
	return w
}

func (w *queueWorld) fatalf(format string, args ...any) {
	w.t.Helper()
	w.t.Fatalf("%s\noperations:\n  %s", fmt.Sprintf(format, args...), strings.Join(w.log, "\n  "))
}

// inFlight returns the model's pods in flight, sorted by UID.
func (w *queueWorld) inFlight() []*modelPod {
	var out []*modelPod
	for _, p := range w.m.pods {
		if p.loc == queue.InFlight {
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].pod.UID < out[j].pod.UID })
	return out
}

func priorityOf(p *v1.Pod) int32 {
	if p.Spec.Priority != nil {
		return *p.Spec.Priority
	}
	return 0
}

// step applies one generated operation to the queue and the model.
func (w *queueWorld) step(g *gen) {
	m := w.m
	switch op := g.intn(23); op {
	case 0, 1, 2: // add
		p := g.pendingPod()
		if g.chance(30) {
			prio := int32(g.intn(3))
			p.Spec.Priority = &prio
		}
		w.add(p)
	case 3, 4: // pop
		w.pop()
	case 5, 6: // fail
		fl := w.inFlight()
		if len(fl) == 0 {
			return
		}
		p := pick(g, fl)
		w.fail(p, w.plugins(g))
	case 7: // done
		fl := w.inFlight()
		if len(fl) == 0 {
			return
		}
		p := pick(g, fl)
		w.log = append(w.log, "done "+string(p.pod.UID))
		w.q.Done(p.pod.UID)
		delete(m.pods, p.pod.UID)
	case 8: // update
		n := g.pendingPod()
		p, ok := m.pods[n.UID]
		if ok {
			n.Namespace = p.pod.Namespace
			if p.updated != nil {
				n.Namespace = p.updated.Namespace
			}
			if g.chance(30) { // a status-only update
				n = p.pod.DeepCopy()
				if p.updated != nil {
					n = p.updated.DeepCopy()
				}
				n.Status.Message = fmt.Sprint("update ", len(w.log))
			}
		}
		w.update(n)
	case 9: // delete
		w.delete(g, types.UID(fmt.Sprintf("p%d", g.intn(12))))
	case 10: // assigned pod added
		q := g.assignedPod()
		w.assigned = append(w.assigned, q)
		w.log = append(w.log, "assigned pod added "+q.Name)
		w.q.AssignedPodAdded(q)
		m.event(func(r *Reference) map[types.UID]Effect { return r.AssignedPodAdded(q) })
	case 11: // assigned pod updated
		if len(w.assigned) == 0 {
			return
		}
		i := g.intn(len(w.assigned))
		old := w.assigned[i]
		n := g.relabel(old)
		w.assigned[i] = n
		w.log = append(w.log, "assigned pod updated "+n.Name)
		w.q.AssignedPodUpdated(old, n)
		m.event(func(r *Reference) map[types.UID]Effect { return r.AssignedPodUpdated(old, n) })
	case 12: // assigned pod deleted
		if len(w.assigned) == 0 {
			return
		}
		i := g.intn(len(w.assigned))
		q := w.assigned[i]
		w.assigned = slices.Delete(w.assigned, i, i+1)
		w.log = append(w.log, "assigned pod deleted "+q.Name)
		w.q.AssignedPodDeleted(q)
		m.event(func(r *Reference) map[types.UID]Effect { return r.AssignedPodDeleted(q) })
	case 13: // node added, updated or deleted
		switch {
		case len(w.nodes) == 0 || g.chance(40):
			n := g.node()
			w.nodes = append(w.nodes, n)
			w.log = append(w.log, "node added")
			w.q.NodeAdded(n)
			m.event(func(r *Reference) map[types.UID]Effect { return r.NodeAdded(n) })
		case g.chance(70):
			i := g.intn(len(w.nodes))
			old := w.nodes[i]
			n := g.nodeUpdate(old)
			w.nodes[i] = n
			w.log = append(w.log, "node updated")
			w.q.NodeUpdated(old, n)
			m.event(func(r *Reference) map[types.UID]Effect { return r.NodeUpdated(old, n) })
		default:
			i := g.intn(len(w.nodes))
			n := w.nodes[i]
			w.nodes = slices.Delete(w.nodes, i, i+1)
			w.log = append(w.log, "node deleted")
			w.q.NodeDeleted(n)
			m.event(func(r *Reference) map[types.UID]Effect { return r.NodeDeleted(n) })
		}
	case 14: // namespace updated
		name := pick(g, genNamespaces)
		oldNS := &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: maps.Clone(w.nsLabels[name])}}
		newNS := &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: g.namespaceLabels()}}
		w.nsLabels[name] = newNS.Labels
		w.log = append(w.log, fmt.Sprintf("namespace %s labels %v", name, newNS.Labels))
		w.q.NamespaceUpdated(oldNS, newNS)
		m.event(func(r *Reference) map[types.UID]Effect { return r.NamespaceUpdated(oldNS, newNS) })
	case 15: // MoveAll
		w.log = append(w.log, "move all")
		w.q.MoveAll("fuzz")
		m.moveAll()
	case 16, 17: // time passes, a flush runs
		d := pick(g, []time.Duration{0, 500 * time.Millisecond, time.Second, 2 * time.Second, 5 * time.Second, 11 * time.Second, time.Minute, time.Minute + time.Second})
		w.clock.Step(d)
		now := w.clock.Now()
		if op == 16 {
			w.log = append(w.log, fmt.Sprintf("step %v, flush backoff", d))
			w.q.FlushBackoffCompleted()
			for _, p := range m.pods {
				if p.loc == queue.Backoff && !p.timestamp.Add(m.backoff(p)).After(now) {
					p.loc = queue.Active
				}
			}
		} else {
			w.log = append(w.log, fmt.Sprintf("step %v, flush leftover", d))
			w.q.FlushUnschedulableLeftover()
			for uid, p := range m.pods {
				if p.loc == queue.Unschedulable && now.Sub(p.parked) > m.unschedulableTimeout {
					m.pool.Remove(uid)
					m.move(p)
				}
			}
		}
	case 18, 19: // a replica of a parked or pending pod joins and is parked as its source was
		if len(m.pods) >= maxQueued {
			return
		}
		var sources []*modelPod
		for _, p := range w.sorted() {
			if p.loc != queue.InFlight {
				sources = append(sources, p)
			}
		}
		if len(sources) == 0 {
			return
		}
		src := pick(g, sources)
		r := replicaOf(src.pod, w.newUID())
		w.add(r)
		names := src.names
		if src.loc != queue.Unschedulable || g.chance(20) {
			names = w.plugins(g)
		}
		if g.chance(80) {
			w.park(r.UID, names)
		}
	case 20: // a group's founder leaves the pool while replicas remain
		groups := w.parkedGroups(func(n int) bool { return n >= 2 })
		if len(groups) == 0 {
			return
		}
		w.delete(g, pick(g, groups)[0].UID)
	case 21: // a group's last parked member leaves and is parked again
		groups := w.parkedGroups(func(n int) bool { return n == 1 })
		if len(groups) == 0 {
			return
		}
		p := pick(g, groups)[0]
		names := m.pods[p.UID].names
		if g.chance(50) {
			// Deleted and added again: a new entry, compiled afresh.
			w.delete(g, p.UID)
			w.add(p)
		} else {
			// Moved out (its index entry goes stale until Pop drops it): the
			// entry keeps its Pending, whose rules are the dropped group's
			// when it is parked again.
			w.log = append(w.log, "move all")
			w.q.MoveAll("fuzz")
			m.moveAll()
		}
		w.park(p.UID, names)
	case 22: // a parked replica's labels change: it leaves its group
		var replicas []*v1.Pod
		for _, grp := range w.parkedGroups(func(n int) bool { return n >= 2 }) {
			replicas = append(replicas, grp...)
		}
		if len(replicas) == 0 {
			return
		}
		w.update(g.relabelOut(pick(g, replicas)))
	}
	w.compare()
}

// sorted returns the model's pods sorted by UID.
func (w *queueWorld) sorted() []*modelPod {
	out := slices.Collect(maps.Values(w.m.pods))
	sort.Slice(out, func(i, j int) bool { return out[i].pod.UID < out[j].pod.UID })
	return out
}

// parkedGroups returns the groups (groupsOf) of the pool's pods, each in
// the order its members were parked, whose size ok accepts.
func (w *queueWorld) parkedGroups(ok func(n int) bool) [][]*v1.Pod {
	var parked []*modelPod
	for _, p := range w.m.pods {
		if p.loc == queue.Unschedulable {
			parked = append(parked, p)
		}
	}
	sort.Slice(parked, func(i, j int) bool { return parked[i].parkSeq < parked[j].parkSeq })
	ms := make([]member, len(parked))
	for i, p := range parked {
		key, seen := w.keys[p.pod]
		if !seen {
			key = specKey(p.pod)
			w.keys[p.pod] = key
		}
		ms[i] = member{pod: p.pod, key: key}
	}
	return groupsOf(ms, ok)
}

func (w *queueWorld) newUID() types.UID {
	w.seq++
	return types.UID(fmt.Sprintf("r%d", w.seq))
}

// park pops pods until the one with uid comes out, and fails each with
// names: the way a pod reaches the pool. It stops when activeQ runs out
// first, and after as many pops as there are pods (a pod failed without a
// named plugin may come back to activeQ ahead of uid).
func (w *queueWorld) park(uid types.UID, names []string) {
	w.t.Helper()
	for range len(w.m.pods) {
		p := w.pop()
		if p == nil {
			return
		}
		w.fail(p, names)
		if p.pod.UID == uid {
			return
		}
	}
}

// pop pops the best pod of activeQ, checked against the model's
// candidates, and returns the model's record of it; nil when activeQ is
// empty.
func (w *queueWorld) pop() *modelPod {
	w.t.Helper()
	m := w.m
	var best []types.UID
	var bp *modelPod
	for uid, p := range m.pods {
		if p.loc != queue.Active {
			continue
		}
		switch {
		case bp == nil, priorityOf(p.pod) > priorityOf(bp.pod),
			priorityOf(p.pod) == priorityOf(bp.pod) && p.timestamp.Before(bp.timestamp):
			bp, best = p, []types.UID{uid}
		case priorityOf(p.pod) == priorityOf(bp.pod) && p.timestamp.Equal(bp.timestamp):
			best = append(best, uid)
		}
	}
	if bp == nil {
		return nil
	}
	pi, err := w.q.Pop(context.Background())
	if err != nil {
		w.fatalf("Pop = %v", err)
	}
	w.log = append(w.log, "pop "+string(pi.Pod.UID))
	if !slices.Contains(best, pi.Pod.UID) {
		w.fatalf("Pop = %s, want one of %v", pi.Pod.UID, best)
	}
	p := m.pods[pi.Pod.UID]
	p.attempts++
	if pi.Attempts != p.attempts || pi.Pod != p.pod {
		w.fatalf("Pop: %s with Attempts %d (model %d), same object %v", pi.Pod.UID, pi.Attempts, p.attempts, pi.Pod == p.pod)
	}
	p.loc, p.pi, p.wokeRel, p.wokeTr, p.wokeAll = queue.InFlight, pi, 0, 0, false
	return p
}

// plugins returns a generated list of rejecting plugin names.
func (w *queueWorld) plugins(g *gen) []string {
	var names []string
	for range g.intn(3) {
		names = append(names, pick(g, queuePlugins))
	}
	return names
}

// fail ends p's attempt, in flight, with AddUnschedulable(names...).
func (w *queueWorld) fail(p *modelPod, names []string) {
	w.t.Helper()
	w.log = append(w.log, fmt.Sprintf("fail %s %q", p.pod.UID, names))
	if err := w.q.AddUnschedulable(p.pi, names...); err != nil {
		w.fatalf("AddUnschedulable(%s) = %v", p.pod.UID, err)
	}
	w.m.fail(p, names)
}

// add queues p with Add, in the queue and the model.
func (w *queueWorld) add(p *v1.Pod) {
	w.t.Helper()
	m := w.m
	w.log = append(w.log, "add "+string(p.UID))
	err := w.q.Add(p)
	if _, exists := m.pods[p.UID]; exists {
		if !errors.Is(err, queue.ErrAlreadyQueued) {
			w.fatalf("Add(%s) of a queued pod = %v, want ErrAlreadyQueued", p.UID, err)
		}
		return
	}
	if err != nil {
		w.fatalf("Add(%s) = %v", p.UID, err)
	}
	m.pods[p.UID] = &modelPod{pod: p, loc: queue.Active, timestamp: w.clock.Now()}
	if !slices.Contains(w.uids, p.UID) {
		w.uids = append(w.uids, p.UID)
	}
}

// update applies Update(nil, n) to the queue and the model.
func (w *queueWorld) update(n *v1.Pod) {
	w.t.Helper()
	m := w.m
	p, ok := m.pods[n.UID]
	w.log = append(w.log, "update "+string(n.UID))
	err := w.q.Update(nil, n)
	if !ok {
		if !errors.Is(err, queue.ErrUnknownPod) {
			w.fatalf("Update(%s) of an unknown pod = %v, want ErrUnknownPod", n.UID, err)
		}
		return
	}
	if err != nil {
		w.fatalf("Update(%s) = %v", n.UID, err)
	}
	switch p.loc {
	case queue.Active, queue.Backoff:
		p.pod = n
	case queue.Unschedulable:
		changed := podChanged(p.pod, n)
		p.pod = n
		if changed {
			m.pool.Remove(n.UID)
			m.move(p)
		} else {
			m.pool.Add(n)
		}
	case queue.InFlight:
		p.updated = n
	}
}

// delete applies Delete to the pod with uid in the queue and the model;
// an attempt of it in flight is finished now, or never.
func (w *queueWorld) delete(g *gen, uid types.UID) {
	w.t.Helper()
	m := w.m
	w.log = append(w.log, "delete "+string(uid))
	w.q.Delete(&v1.Pod{ObjectMeta: metav1.ObjectMeta{UID: uid}})
	if p, ok := m.pods[uid]; ok {
		if p.loc == queue.Unschedulable {
			m.pool.Remove(uid)
		}
		if p.loc == queue.InFlight {
			m.orphans[uid] = p.pi
			// The scheduler finishes the deleted attempt later, or now.
			if g.chance(50) {
				if err := w.q.AddUnschedulable(p.pi, queue.InterPodAffinity); err != nil {
					w.fatalf("AddUnschedulable of a deleted attempt = %v, want a no-op", err)
				}
			}
		}
		delete(m.pods, uid)
	}
}

// compare checks that every pod is where the model has it, and every
// eighth step the queue's invariants (Validate rebuilds the index: it would
// dominate the run).
func (w *queueWorld) compare() {
	w.t.Helper()
	w.steps++
	for _, uid := range w.uids {
		got, gotOK := w.q.Location(uid)
		var want queue.Location
		p, wantOK := w.m.pods[uid]
		if wantOK {
			want = p.loc
		}
		if got != want || gotOK != wantOK {
			w.fatalf("Location(%s) = %v, %v; model %v, %v", uid, got, gotOK, want, wantOK)
		}
	}
	st := w.q.Stats()
	if n := st.Active + st.Backoff + st.Unschedulable + st.InFlight; n != len(w.m.pods) || st.Unschedulable != w.m.pool.Len() {
		w.fatalf("Stats %+v, model has %d pods, %d in the pool", st, len(w.m.pods), w.m.pool.Len())
	}
	if w.steps%8 == 0 {
		w.validate()
	}
}

func (w *queueWorld) validate() {
	w.t.Helper()
	if err := w.q.Validate(); err != nil {
		w.fatalf("Validate: %v", err)
	}
}

// seed queues the pending pod of hint case c, pops it and fails it by
// both plugins, so that it is parked, and applies c's event: the pod must
// leave the pool exactly when the case says the policy moves it (the world
// holds no other pod yet). The event's objects stay in the world for the
// steps that follow.
func (w *queueWorld) seed(c hintcases.Case) {
	w.t.Helper()
	w.add(c.Pending)
	p := w.pop()
	if p == nil || p.pod != c.Pending {
		w.fatalf("hint case %q: Pop did not return the case's pod", c.Name)
	}
	w.fail(p, []string{queue.InterPodAffinity, queue.PodTopologySpread})
	w.event("hint case "+c.Name, &c.Event)
	w.compare()
	moved := c.Relation != 0
	if w.m.policy == queue.Transition {
		moved = c.Transition != 0
	}
	if loc, _ := w.q.Location(c.Pending.UID); (loc != queue.Unschedulable) != moved {
		w.fatalf("hint case %q: the pod is in %v after the event, want moved %v (Relation %v, Transition %v)", c.Name, loc, moved, c.Relation, c.Transition)
	}
}

// event applies ev to the queue, through the method of its kind, and to
// the model, and keeps its new objects in the world.
func (w *queueWorld) event(what string, ev *index.Event) {
	w.t.Helper()
	w.log = append(w.log, what)
	switch ev.Kind {
	case index.AssignedPodAdd:
		w.q.AssignedPodAdded(ev.NewPod)
		w.assigned = append(w.assigned, ev.NewPod)
	case index.AssignedPodUpdate:
		w.q.AssignedPodUpdated(ev.OldPod, ev.NewPod)
		w.assigned = append(w.assigned, ev.NewPod)
	case index.AssignedPodDelete:
		w.q.AssignedPodDeleted(ev.OldPod)
	case index.NodeAdd:
		w.q.NodeAdded(ev.NewNode)
		w.nodes = append(w.nodes, ev.NewNode)
	case index.NodeUpdate:
		w.q.NodeUpdated(ev.OldNode, ev.NewNode)
		w.nodes = append(w.nodes, ev.NewNode)
	case index.NodeDelete:
		w.q.NodeDeleted(ev.OldNode)
	case index.NamespaceUpdate:
		if ev.NewNamespace != nil {
			w.nsLabels[ev.NewNamespace.Name] = ev.NewNamespace.Labels
		}
		w.q.NamespaceUpdated(ev.OldNamespace, ev.NewNamespace)
	default:
		w.fatalf("%s: event kind %v", what, ev.Kind)
	}
	w.m.event(func(r *Reference) map[types.UID]Effect { return r.Event(ev) })
}

// runQueue is FuzzQueue's body: the first byte of data picks the policy,
// the reset-on-move flag, the backoff and where namespace labels come
// from; then the hint case seed selects (seedCase), if any, is parked and
// its event applied; then data drives steps until it runs out.
func runQueue(t testing.TB, seed uint16, data []byte) {
	t.Helper()
	g := &gen{data: data}
	w := newQueueWorld(t, g.byte())
	defer w.q.Close()
	if c, ok := seedCase(seed); ok {
		w.seed(c)
	}
	for !g.done() {
		w.step(g)
	}
	w.validate()
}

// FuzzQueue drives the queue and a naive model of it (its pool a Reference)
// through the same random operations: adds, pops, failures with random
// plugins, successes, updates, deletes, replicas parked beside their
// source and their groups' lifecycle, assigned-pod, node and namespace
// events, MoveAll, and clock steps with flushes. After every operation each
// pod must be in the same place in both, popped pods must be the best
// candidates with the model's attempt count, and Validate must pass. The
// first byte picks the policy, the reset-on-move flag, the backoff and
// where namespace labels come from. The seed selects a hint case
// (internal/hintcases) to start from: its pod parked, its event applied.
func FuzzQueue(f *testing.F) {
	seeds := queueSeeds()
	for _, data := range seeds {
		f.Add(uint16(0), data)
	}
	for i := range hintcases.Cases() {
		f.Add(uint16(i+1), seeds[i%len(seeds)])
	}
	f.Fuzz(func(t *testing.T, seed uint16, data []byte) {
		runQueue(t, seed, bounded(data))
	})
}

// queueSeeds are the fuzz seeds: every configuration byte with a sequence
// that adds, pops and fails pods around events, plus longer pseudo-random
// inputs.
func queueSeeds() [][]byte {
	// add p1 (ns, labels, affinity…) then pop, event, fail, flush: the
	// generator reads past what it needs, so plain byte runs also work.
	scripted := []byte{
		0, 1, 0, 0, 3, 10, 5, 0, 2, 0, 10, 3, 5, 11, 2, 3, 3, 12, 5, 1, 16, 5, 17, 6, 15, 7, 14, 1, 9, 3,
	}
	var seeds [][]byte
	for cfg := range 32 {
		seeds = append(seeds, append([]byte{byte(cfg)}, scripted...))
	}
	for seed := range 8 {
		seeds = append(seeds, seedBytes(500+seed, 1200))
	}
	return seeds
}

// TestQueueAgainstModel runs the seeds, with every hint case or none,
// and long deterministic sequences, so that plain `go test` checks the
// queue against the model too.
func TestQueueAgainstModel(t *testing.T) {
	for i, data := range queueSeeds() {
		t.Run(fmt.Sprintf("seed=%d", i), func(t *testing.T) {
			runQueue(t, 0, data)
		})
	}
	for c := range len(hintcases.Cases()) + 1 {
		for cfg := range 32 {
			t.Run(fmt.Sprintf("case=%d/cfg=%d", c, cfg), func(t *testing.T) {
				runQueue(t, uint16(c), queueSeeds()[cfg])
			})
		}
	}
	for seed := range 24 {
		t.Run(fmt.Sprintf("long=%d", seed), func(t *testing.T) {
			runQueue(t, uint16(seed), seedBytes(900+seed, 4000))
		})
	}
}
