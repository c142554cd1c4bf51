package fuzz

import (
	"math/rand/v2"
	"testing"
	"time"
)

// maxInput bounds the bytes of one FuzzIndex or FuzzQueue input that drive
// steps; the rest is ignored. The fuzzing engine minimizes every input
// that finds new coverage by re-running it with bytes and ranges removed
// (O(n²) runs for n bytes, then up to 32 per byte to make it printable),
// for up to -fuzzminimizetime (60 s by default); a worker that minimizes
// reports no executions, so with -parallel=1 the whole run stalls. A step
// costs about a Validate and a reference scan, so minimizing costs about
// n³. With up to 200 steps (about 3 KiB) an input of a few hundred bytes
// used up the 60 s; with 128 bytes (15 to 30 steps; a scripted seed runs a
// replica lifecycle in 77) an input runs in about a millisecond and is
// minimized in seconds. The long deterministic tests run longer sequences.
const maxInput = 128

// bounded returns the part of a fuzz input that drives steps.
func bounded(data []byte) []byte { return data[:min(len(data), maxInput)] }

// BenchmarkFuzzInput runs the bodies of FuzzIndex and FuzzQueue on random
// inputs of up to 4 KiB, bounded as the fuzz targets bound them, with a
// random seed (hint case), and reports the slowest input besides the mean
// (ns/op): the engine gives up on an input that runs for 10 s, and the
// cost of one input is the unit of the cost of minimizing it (maxInput).
func BenchmarkFuzzInput(b *testing.B) {
	for _, bc := range []struct {
		name string
		run  func(t testing.TB, seed uint16, data []byte)
	}{
		{"FuzzIndex", runIndex},
		{"FuzzQueue", runQueue},
	} {
		b.Run("target="+bc.name, func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, 2))
			var slowest time.Duration
			for b.Loop() {
				data := make([]byte, r.IntN(4<<10))
				for i := range data {
					data[i] = byte(r.Uint32())
				}
				seed := uint16(r.Uint32())
				start := time.Now()
				bc.run(b, seed, bounded(data))
				slowest = max(slowest, time.Since(start))
			}
			b.ReportMetric(float64(slowest.Microseconds())/1000, "max-ms/input")
		})
	}
}
