package index_test

import (
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	"github.com/affinityq/affinityq/fuzz"
	"github.com/affinityq/affinityq/index"
)

// BenchmarkAssignedPodUpdatedNaive runs the naive reference of package fuzz
// on BenchmarkAssignedPodUpdated's pool and event, in the same run:
// impl=reference is a scan with apimachinery's selectors compiled at Add,
// impl=recompile compiles every pending pod's terms on every event, as
// kube-scheduler v1.37.2's queueing hints do. (It lives in the external test
// package because fuzz imports index.)
func BenchmarkAssignedPodUpdatedNaive(b *testing.B) {
	for _, n := range index.BenchSizes() {
		ref := fuzz.NewReference(nil)
		for _, p := range index.BenchPool(n, 10) {
			ref.Add(p)
		}
		qo, qn := index.BenchEvent(n / 10 / 2)
		prefix := fmt.Sprintf("pods=%d/affected=10", n)
		for _, recompile := range []bool{false, true} {
			impl := map[bool]string{false: "reference", true: "recompile"}[recompile]
			b.Run(prefix+"/impl="+impl, func(b *testing.B) {
				ref.SetRecompile(recompile)
				defer ref.SetRecompile(false)
				b.ReportAllocs()
				var got map[types.UID]fuzz.Effect
				for b.Loop() {
					got = ref.AssignedPodUpdated(qo, qn)
				}
				b.ReportMetric(float64(len(got)), "affected/op")
			})
		}
	}
}
