package bench

import (
	"reflect"
	"testing"

	"github.com/affinityq/affinityq/index"
)

func small(seed uint64) Config {
	return Config{Pods: 400, Events: 150, Namespaces: 7, Nodes: 30, Seed: seed}
}

func TestGeneratorsAreDeterministic(t *testing.T) {
	for _, name := range Names() {
		gen, ok := Lookup(name)
		if !ok {
			t.Fatalf("Lookup(%q) failed", name)
		}
		a, err := gen(small(3))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := gen(small(3))
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: two runs with the same config differ", name)
		}
		c, _ := gen(small(4))
		if reflect.DeepEqual(a.Events, c.Events) && len(a.Events) > 1 {
			t.Errorf("%s: a different seed gives the same events", name)
		}
		if len(a.Pending) != 400 || len(a.Events) == 0 {
			t.Errorf("%s: %d pending pods and %d events, want 400 and some", name, len(a.Pending), len(a.Events))
		}
		if a.Name != name {
			t.Errorf("workload name %q, want %q", a.Name, name)
		}
	}
	if _, ok := Lookup("nope"); ok {
		t.Errorf("Lookup of an unknown workload succeeded")
	}
}

func TestConfigValidation(t *testing.T) {
	for _, cfg := range []Config{{Pods: -1}, {Pods: MaxPods + 1}, {Events: -3}} {
		if _, err := Deployments(cfg); err == nil {
			t.Errorf("Deployments(%+v) accepted an invalid config", cfg)
		}
	}
}

// TestOnePodPerEvent checks the two scheduler_perf-shaped workloads do what
// they say: every event unblocks exactly its one pod.
func TestOnePodPerEvent(t *testing.T) {
	for _, tc := range []struct {
		gen    Generator
		policy func(index.Hit[any]) bool
	}{
		{UniquePartner, func(h index.Hit[any]) bool { return h.Transition != 0 }},
		{AntiUnblock, func(h index.Hit[any]) bool { return h.Transition != 0 }},
	} {
		w, err := tc.gen(small(1))
		if err != nil {
			t.Fatal(err)
		}
		ix := index.New[any]()
		for _, p := range w.Pending {
			if err := ix.Add(p); err != nil {
				t.Fatal(err)
			}
		}
		for i := range w.Events {
			n := 0
			for _, h := range ix.Lookup(nil, &w.Events[i]) {
				if tc.policy(h) {
					n++
				}
			}
			if n != 1 {
				t.Fatalf("%s event %d affects %d pods, want 1", w.Name, i, n)
			}
		}
	}
}

// TestInitialStateIsKept: generating events must not rewrite the initial
// cluster the replay starts from.
func TestInitialStateIsKept(t *testing.T) {
	for _, gen := range []Generator{Deployments, NodeChurn} {
		w, err := gen(Config{Pods: 400, Events: 2000, Namespaces: 5, Nodes: 20, Seed: 9})
		if err != nil {
			t.Fatal(err)
		}
		fresh, _ := newBuilder(w.Name, w.Config)
		if !reflect.DeepEqual(w.Namespaces, fresh.w.Namespaces) {
			t.Errorf("%s: initial namespaces were modified by the events", w.Name)
		}
		if !reflect.DeepEqual(w.Nodes, fresh.w.Nodes) {
			t.Errorf("%s: initial nodes were modified by the events", w.Name)
		}
	}
}
