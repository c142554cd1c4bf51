package fuzz

import (
	"fmt"
	"testing"

	"github.com/affinityq/affinityq/bench"
	"github.com/affinityq/affinityq/index"
)

// TestWorkloadsAgainstReference replays every bench workload, at a small
// size and several seeds, through the index and the reference, comparing
// every event's answers.
func TestWorkloadsAgainstReference(t *testing.T) {
	for _, name := range bench.Names() {
		gen, _ := bench.Lookup(name)
		for seed := range uint64(3) {
			t.Run(fmt.Sprintf("workload=%s/seed=%d", name, seed), func(t *testing.T) {
				w, err := gen(bench.Config{Pods: 600, Events: 300, Namespaces: 6, Nodes: 40, Seed: seed})
				if err != nil {
					t.Fatal(err)
				}
				replay(t, w, 1+int(seed)*3)
			})
		}
	}
}

// replay feeds w to a fresh index (with the given shard count) and to the
// reference, checking each event.
func replay(t *testing.T, w *bench.Workload, shards int) {
	t.Helper()
	wd := newWorld(t, shards, index.DefaultPostingThreshold)
	for _, ns := range w.Namespaces {
		wd.nsLabels[ns.Name] = ns.Labels
	}
	for _, p := range w.Pending {
		wd.add(p)
	}
	wd.validate("building the pool")
	for i := range w.Events {
		ev := &w.Events[i]
		if ev.Kind == index.NamespaceUpdate {
			wd.nsLabels[ev.NewNamespace.Name] = ev.NewNamespace.Labels
		}
		want := wd.ref.Event(ev)
		wd.check(fmt.Sprintf("%s event %d (%s)", w.Name, i, ev.Kind), ev, want)
	}
}
