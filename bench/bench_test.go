package bench_test

import (
	"fmt"
	"os"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/affinityq/affinityq/bench"
	"github.com/affinityq/affinityq/fuzz"
	"github.com/affinityq/affinityq/index"
)

// sizes returns the pool sizes: 1,000 with -short (what `make test` runs),
// 1,000 to 100,000 otherwise, plus 1,000,000 with AFFINITYQ_BENCH_1M=1.
func sizes() []int {
	if testing.Short() {
		return []int{1000}
	}
	s := []int{1000, 10000, 100000}
	if os.Getenv("AFFINITYQ_BENCH_1M") == "1" {
		s = append(s, 1000000)
	}
	return s
}

// pool is a workload loaded into an index and, optionally, the reference.
type pool struct {
	w   *bench.Workload
	ix  *index.Index[any]
	ref *fuzz.Reference
}

func load(b *testing.B, name string, pods int, withReference bool) *pool {
	b.Helper()
	gen, _ := bench.Lookup(name)
	w, err := gen(bench.Config{Pods: pods, Events: 500, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	labels := map[string]map[string]string{}
	for _, ns := range w.Namespaces {
		labels[ns.Name] = ns.Labels
	}
	lookup := func(ns string) (map[string]string, bool) { l, ok := labels[ns]; return l, ok }
	p := &pool{w: w, ix: index.New[any](index.WithNamespaceLabels(lookup))}
	for _, pod := range w.Pending {
		if err := p.ix.Add(pod); err != nil {
			b.Fatal(err)
		}
	}
	if withReference {
		p.ref = fuzz.NewReference(lookup)
		for _, pod := range w.Pending {
			p.ref.Add(pod)
		}
	}
	return p
}

// BenchmarkWorkload replays each workload's event stream (cycling through
// it; the pool is not changed) through the index and through the naive
// reference, in the same run: ns/op is per event, affected/op the pods an
// event affects under Relation.
func BenchmarkWorkload(b *testing.B) {
	for _, name := range bench.Names() {
		for _, n := range sizes() {
			p := load(b, name, n, true)
			prefix := fmt.Sprintf("workload=%s/pods=%d", name, n)
			b.Run(prefix+"/impl=index", func(b *testing.B) {
				b.ReportAllocs()
				hits := make([]index.Hit[any], 0, 1024)
				affected, i := 0, 0
				for b.Loop() {
					hits = p.ix.Lookup(hits[:0], &p.w.Events[i%len(p.w.Events)])
					affected += len(hits)
					i++
				}
				b.ReportMetric(float64(affected)/float64(i), "affected/op")
			})
			b.Run(prefix+"/impl=reference", func(b *testing.B) {
				b.ReportAllocs()
				affected, i := 0, 0
				for b.Loop() {
					affected += len(p.ref.Event(&p.w.Events[i%len(p.w.Events)]))
					i++
				}
				b.ReportMetric(float64(affected)/float64(i), "affected/op")
			})
			runtime.KeepAlive(p)
		}
	}
}

// BenchmarkWorkloadParallel runs the deployments stream's lookups from
// GOMAXPROCS goroutines (run with -cpu 1,2,4… to see throughput scale).
func BenchmarkWorkloadParallel(b *testing.B) {
	n := sizes()[len(sizes())-1]
	p := load(b, "deployments", n, false)
	b.Run(fmt.Sprintf("workload=deployments/pods=%d/impl=index", n), func(b *testing.B) {
		b.ReportAllocs()
		var next atomic.Int64
		b.RunParallel(func(pb *testing.PB) {
			hits := make([]index.Hit[any], 0, 1024)
			for pb.Next() {
				i := int(next.Add(1))
				hits = p.ix.Lookup(hits[:0], &p.w.Events[i%len(p.w.Events)])
			}
		})
	})
}

// BenchmarkMemory reports the index's heap per indexed term and per pod for
// every workload.
func BenchmarkMemory(b *testing.B) {
	for _, name := range bench.Names() {
		for _, n := range sizes() {
			gen, _ := bench.Lookup(name)
			w, err := gen(bench.Config{Pods: n, Events: 1, Seed: 1})
			if err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("workload=%s/pods=%d", name, n), func(b *testing.B) {
				var perTerm, perPod float64
				for b.Loop() {
					var before, after runtime.MemStats
					runtime.GC()
					runtime.GC()
					runtime.ReadMemStats(&before)
					ix := index.New[any]()
					for _, pod := range w.Pending {
						if err := ix.Add(pod); err != nil {
							b.Fatal(err)
						}
					}
					runtime.GC()
					runtime.GC()
					runtime.ReadMemStats(&after)
					bytes := float64(after.HeapAlloc) - float64(before.HeapAlloc)
					perTerm, perPod = bytes/float64(ix.Stats().Terms), bytes/float64(ix.Len())
					runtime.KeepAlive(ix)
				}
				b.ReportMetric(perTerm, "bytes/term")
				b.ReportMetric(perPod, "bytes/pod")
			})
		}
	}
}
