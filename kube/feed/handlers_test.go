package feed

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"

	"github.com/affinityq/affinityq/queue"
)

// calls is a Sink that records its calls; addErr and updateErr are returned
// by the next Add and Update.
type calls struct {
	got               []string
	addErr, updateErr error
}

func ref(p *v1.Pod) string {
	if p == nil {
		return "nil"
	}
	return p.Name
}

func (c *calls) Add(p *v1.Pod) error {
	c.got = append(c.got, "Add "+ref(p))
	err := c.addErr
	c.addErr = nil
	return err
}

func (c *calls) Update(o, n *v1.Pod) error {
	c.got = append(c.got, "Update "+ref(o)+" "+ref(n))
	err := c.updateErr
	c.updateErr = nil
	return err
}
func (c *calls) Delete(p *v1.Pod)                { c.got = append(c.got, "Delete "+ref(p)) }
func (c *calls) AssignedPodAdded(p *v1.Pod)      { c.got = append(c.got, "AssignedPodAdded "+ref(p)) }
func (c *calls) AssignedPodUpdated(o, n *v1.Pod) { c.got = append(c.got, "AssignedPodUpdated "+ref(n)) }
func (c *calls) AssignedPodDeleted(p *v1.Pod)    { c.got = append(c.got, "AssignedPodDeleted "+ref(p)) }
func (c *calls) NodeAdded(n *v1.Node)            { c.got = append(c.got, "NodeAdded "+n.Name) }
func (c *calls) NodeUpdated(o, n *v1.Node)       { c.got = append(c.got, "NodeUpdated "+n.Name) }
func (c *calls) NodeDeleted(n *v1.Node)          { c.got = append(c.got, "NodeDeleted "+n.Name) }
func (c *calls) NamespaceUpdated(o, n *v1.Namespace) {
	name := func(ns *v1.Namespace) string {
		if ns == nil {
			return "nil"
		}
		return ns.Name
	}
	c.got = append(c.got, "NamespaceUpdated "+name(o)+" "+name(n))
}

// p builds a pod named name, version rv, of scheduler sched, bound to
// nodeName unless empty; mods adjust it.
func p(name, rv, sched, nodeName string, mods ...func(*v1.Pod)) *v1.Pod {
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("uid-" + name), ResourceVersion: rv, Labels: map[string]string{"app": "a"}},
		Spec:       v1.PodSpec{SchedulerName: sched, NodeName: nodeName},
	}
	for _, m := range mods {
		m(pod)
	}
	return pod
}

func relabel(pod *v1.Pod)   { pod.Labels = map[string]string{"app": "b"} }
func terminate(pod *v1.Pod) { pod.Status.Phase = v1.PodSucceeded }
func nominate(node string) func(*v1.Pod) {
	return func(pod *v1.Pod) { pod.Status.NominatedNodeName = node }
}
func uid(u string) func(*v1.Pod) { return func(pod *v1.Pod) { pod.UID = types.UID(u) } }
func annotate(pod *v1.Pod)       { pod.Annotations = map[string]string{"x": "y"} }
func newHandlers(s Sink) (*handlers, *[]error) {
	var errs []error
	return &handlers{sink: s, names: map[string]bool{"mine": true}, onError: func(err error) { errs = append(errs, err) }}, &errs
}

func TestPodUpdated(t *testing.T) {
	const mine, theirs = "mine", "theirs"
	for _, tc := range []struct {
		name     string
		old, new *v1.Pod
		want     []string
	}{
		{"pending changed", p("a", "1", mine, ""), p("a", "2", mine, "", relabel), []string{"Update a a"}},
		{"resync", p("a", "1", mine, ""), p("a", "1", mine, "", relabel), nil},
		{"no resource versions", p("a", "", mine, ""), p("a", "", mine, ""), []string{"Update a a"}},
		{"bound", p("a", "1", mine, ""), p("a", "2", mine, "n1"), []string{"Delete a", "AssignedPodAdded a"}},
		{"bound, was nominated", p("a", "1", mine, "", nominate("n2")), p("a", "2", mine, "n1", nominate("n2")), []string{"Delete a", "AssignedPodAdded a"}},
		{"nomination changed", p("a", "1", mine, "", nominate("n1")), p("a", "2", mine, "", nominate("n2")), []string{"Update a a", "AssignedPodDeleted a"}},
		{"nomination added", p("a", "1", mine, ""), p("a", "2", mine, "", nominate("n2")), []string{"Update a a"}},
		{"assigned relabelled", p("a", "1", theirs, "n1"), p("a", "2", theirs, "n1", relabel), []string{"AssignedPodUpdated a"}},
		{"assigned annotated", p("a", "1", theirs, "n1"), p("a", "2", theirs, "n1", annotate), nil},
		{"assigned terminated", p("a", "1", theirs, "n1"), p("a", "2", theirs, "n1", terminate), []string{"AssignedPodDeleted a"}},
		{"pending terminated", p("a", "1", mine, ""), p("a", "2", mine, "", terminate), []string{"Delete a"}},
		{"terminated changes", p("a", "1", mine, "n1", terminate), p("a", "2", mine, "n1", terminate, relabel), nil},
		{"other scheduler's pending", p("a", "1", theirs, ""), p("a", "2", theirs, "", relabel), nil},
		{"other scheduler's bound", p("a", "1", theirs, ""), p("a", "2", theirs, "n1"), []string{"AssignedPodAdded a"}},
		{"recreated", p("a", "1", mine, "n1"), p("a", "2", mine, "", uid("new")), []string{"AssignedPodDeleted a", "Add a"}},
		{"recreated, same version", p("a", "1", mine, ""), p("a", "1", mine, "", uid("new")), []string{"Delete a", "Add a"}},
		{"scheduler changed", p("a", "1", theirs, ""), p("a", "2", mine, ""), []string{"Add a"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &calls{}
			h, errs := newHandlers(c)
			h.podUpdated(tc.old, tc.new)
			if diff := cmp.Diff(tc.want, c.got); diff != "" {
				t.Errorf("podUpdated calls (-want +got):\n%s", diff)
			}
			if len(*errs) > 0 {
				t.Errorf("errors: %v", *errs)
			}
		})
	}
}

func TestPodAddedDeleted(t *testing.T) {
	const mine, theirs = "mine", "theirs"
	tomb := func(pod *v1.Pod) any { return cache.DeletedFinalStateUnknown{Key: "ns/" + pod.Name, Obj: pod} }
	for _, tc := range []struct {
		name    string
		add     bool
		obj     any
		want    []string
		wantErr string
	}{
		{name: "pending", add: true, obj: p("a", "1", mine, ""), want: []string{"Add a"}},
		{name: "assigned", add: true, obj: p("a", "1", theirs, "n1"), want: []string{"AssignedPodAdded a"}},
		{name: "other scheduler's pending", add: true, obj: p("a", "1", theirs, "")},
		{name: "terminated", add: true, obj: p("a", "1", mine, "n1", terminate)},
		{name: "not a pod", add: true, obj: &v1.Node{}, wantErr: "pod add of a *v1.Node"},
		{name: "nil", add: true, obj: nil, wantErr: "pod add of a <nil>"},
		{name: "typed nil", add: true, obj: (*v1.Pod)(nil), wantErr: "pod add of a nil *v1.Pod"},
		{name: "tombstone of a typed nil", obj: cache.DeletedFinalStateUnknown{Obj: (*v1.Pod)(nil)}, wantErr: "pod delete of a nil *v1.Pod"},
		{name: "delete pending", obj: p("a", "1", mine, ""), want: []string{"Delete a"}},
		{name: "delete nominated", obj: p("a", "1", mine, "", nominate("n1")), want: []string{"Delete a", "AssignedPodDeleted a"}},
		{name: "delete assigned", obj: p("a", "1", mine, "n1"), want: []string{"AssignedPodDeleted a"}},
		{name: "delete terminated", obj: p("a", "1", mine, "n1", terminate)},
		{name: "tombstone of pending", obj: tomb(p("a", "1", mine, "")), want: []string{"Delete a", "AssignedPodDeleted a"}},
		{name: "tombstone of other scheduler's pending", obj: tomb(p("a", "1", theirs, "")), want: []string{"AssignedPodDeleted a"}},
		{name: "tombstone of assigned", obj: tomb(p("a", "1", theirs, "n1")), want: []string{"AssignedPodDeleted a"}},
		{name: "tombstone of terminated", obj: tomb(p("a", "1", mine, "", terminate))},
		{name: "tombstone of a node", obj: cache.DeletedFinalStateUnknown{Obj: &v1.Node{}}, wantErr: "pod delete of a *v1.Node"},
		{name: "empty tombstone", obj: cache.DeletedFinalStateUnknown{}, wantErr: "pod delete of a <nil>"},
		{name: "delete of a string", obj: "x", wantErr: "pod delete of a string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &calls{}
			h, errs := newHandlers(c)
			if tc.add {
				h.podAdded(tc.obj)
			} else {
				h.podDeleted(tc.obj)
			}
			if diff := cmp.Diff(tc.want, c.got); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
			switch {
			case tc.wantErr == "" && len(*errs) > 0:
				t.Errorf("errors: %v", *errs)
			case tc.wantErr != "" && (len(*errs) != 1 || !strings.Contains((*errs)[0].Error(), tc.wantErr) || !strings.HasPrefix((*errs)[0].Error(), "feed: ")):
				t.Errorf("errors = %v, want one starting with \"feed: \" containing %q", *errs, tc.wantErr)
			}
		})
	}
}

func TestSinkErrors(t *testing.T) {
	const mine = "mine"
	t.Run("add of a queued pod becomes an update", func(t *testing.T) {
		c := &calls{addErr: fmt.Errorf("wrapped: %w", queue.ErrAlreadyQueued)}
		h, errs := newHandlers(c)
		h.podAdded(p("a", "1", mine, ""))
		if diff := cmp.Diff([]string{"Add a", "Update a a"}, c.got); diff != "" || len(*errs) > 0 {
			t.Errorf("calls (-want +got):\n%s\nerrors: %v", diff, *errs)
		}
	})
	t.Run("update of an unknown pod becomes an add", func(t *testing.T) {
		c := &calls{updateErr: fmt.Errorf("wrapped: %w", queue.ErrUnknownPod)}
		h, errs := newHandlers(c)
		h.podUpdated(p("a", "1", mine, ""), p("a", "2", mine, ""))
		if diff := cmp.Diff([]string{"Update a a", "Add a"}, c.got); diff != "" || len(*errs) > 0 {
			t.Errorf("calls (-want +got):\n%s\nerrors: %v", diff, *errs)
		}
	})
	t.Run("other errors are reported", func(t *testing.T) {
		bad := errors.New("bad pod")
		c := &calls{addErr: bad}
		h, errs := newHandlers(c)
		h.podAdded(p("a", "1", mine, ""))
		if len(*errs) != 1 || !errors.Is((*errs)[0], bad) {
			t.Errorf("errors = %v, want [%v]", *errs, bad)
		}
	})
}

func TestNodeAndNamespaceHandlers(t *testing.T) {
	n := func(rv string, labels map[string]string, taints ...v1.Taint) *v1.Node {
		return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n", ResourceVersion: rv, Labels: labels}, Spec: v1.NodeSpec{Taints: taints}}
	}
	ns := func(labels map[string]string) *v1.Namespace {
		return &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns", Labels: labels}}
	}
	taint := v1.Taint{Key: "k", Effect: v1.TaintEffectNoSchedule}
	z1, z2 := map[string]string{"zone": "1"}, map[string]string{"zone": "2"}
	for _, tc := range []struct {
		name    string
		call    func(h *handlers)
		want    []string
		wantErr string
	}{
		{"node added", func(h *handlers) { h.nodeAdded(n("1", z1)) }, []string{"NodeAdded n"}, ""},
		{"node relabelled", func(h *handlers) { h.nodeUpdated(n("1", z1), n("2", z2)) }, []string{"NodeUpdated n"}, ""},
		{"node tainted", func(h *handlers) { h.nodeUpdated(n("1", z1), n("2", z1, taint)) }, []string{"NodeUpdated n"}, ""},
		{"node heartbeat", func(h *handlers) { h.nodeUpdated(n("1", z1, taint), n("2", z1, taint)) }, nil, ""},
		{"node resync", func(h *handlers) { h.nodeUpdated(n("1", z1), n("1", z2)) }, nil, ""},
		{"node deleted", func(h *handlers) { h.nodeDeleted(n("1", z1)) }, []string{"NodeDeleted n"}, ""},
		{"node tombstone", func(h *handlers) { h.nodeDeleted(cache.DeletedFinalStateUnknown{Obj: n("1", z1)}) }, []string{"NodeDeleted n"}, ""},
		{"node add of a pod", func(h *handlers) { h.nodeAdded(&v1.Pod{}) }, nil, "node add of a *v1.Pod"},
		{"node update of nil", func(h *handlers) { h.nodeUpdated(nil, n("1", z1)) }, nil, "node update of a <nil>"},
		{"node update to a typed nil", func(h *handlers) { h.nodeUpdated(n("1", z1), (*v1.Node)(nil)) }, nil, "to a nil *v1.Node"},
		{"node delete of an empty tombstone", func(h *handlers) { h.nodeDeleted(cache.DeletedFinalStateUnknown{}) }, nil, "node delete of a <nil>"},
		{"namespace added", func(h *handlers) { h.namespaceAdded(ns(z1)) }, []string{"NamespaceUpdated nil ns"}, ""},
		{"namespace relabelled", func(h *handlers) { h.namespaceUpdated(ns(z1), ns(z2)) }, []string{"NamespaceUpdated ns ns"}, ""},
		{"namespace unchanged", func(h *handlers) { h.namespaceUpdated(ns(z1), ns(z1)) }, nil, ""},
		{"namespace deleted", func(h *handlers) { h.namespaceDeleted(cache.DeletedFinalStateUnknown{Obj: ns(z1)}) }, []string{"NamespaceUpdated ns nil"}, ""},
		{"namespace add of a node", func(h *handlers) { h.namespaceAdded(n("1", z1)) }, nil, "namespace add of a *v1.Node"},
		{"namespace update of nil", func(h *handlers) { h.namespaceUpdated(ns(z1), nil) }, nil, "namespace update of a *v1.Namespace to a <nil>"},
		{"namespace delete of an int", func(h *handlers) { h.namespaceDeleted(7) }, nil, "namespace delete of a int"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &calls{}
			h, errs := newHandlers(c)
			tc.call(h)
			if diff := cmp.Diff(tc.want, c.got); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
			switch {
			case tc.wantErr == "" && len(*errs) > 0:
				t.Errorf("errors: %v", *errs)
			case tc.wantErr != "" && (len(*errs) != 1 || !strings.Contains((*errs)[0].Error(), tc.wantErr)):
				t.Errorf("errors = %v, want one containing %q", *errs, tc.wantErr)
			}
		})
	}
}
