package main

import (
	"fmt"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/affinityq/affinityq/bench"
)

// chartEvents and chartNaiveEvents bound each point of the chart: the naive
// reference scans the whole pool per event.
const (
	chartEvents      = 200
	chartNaiveEvents = 10
)

// writeChart replays the first workload under the first policy at every
// pool size of -svg-sizes and plots the median per-event latency of the
// queue (over chartEvents events) and of the naive reference (over
// chartNaiveEvents) against the pool size, log-log.
func writeChart(o *benchOptions, rep *reporter) error {
	gen, _ := bench.Lookup(o.workloads[0])
	queuePts := make(plotter.XYs, 0, len(o.svgSizes))
	naivePts := make(plotter.XYs, 0, len(o.svgSizes))
	for _, n := range o.svgSizes {
		cfg := o.cfg
		cfg.Pods, cfg.Events = n, min(o.cfg.Events, chartEvents)
		w, err := gen(cfg)
		if err != nil {
			return err
		}
		res, err := replay(w, o.policies[0], chartNaiveEvents, rep)
		if err != nil {
			return err
		}
		if len(res.Mismatches) > 0 {
			return fmt.Errorf("pods=%d: the queue and the reference moved different pods: %v", n, res.Mismatches)
		}
		queuePts = append(queuePts, plotter.XY{X: float64(n), Y: micros(res.P50)})
		naivePts = append(naivePts, plotter.XY{X: float64(n), Y: micros(res.NaiveP50)})
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("Per-event latency, %s workload, %s policy (median)", o.workloads[0], o.policies[0])
	p.X.Label.Text = "pending pods in the unschedulable pool"
	p.Y.Label.Text = "µs per event"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.XOffs, p.Legend.YOffs = vg.Points(12), -vg.Points(12)
	p.Add(plotter.NewGrid())
	if err := plotutil.AddLinePoints(p, "affinityq queue (index)", queuePts, "naive scan (reference)", naivePts); err != nil {
		return err
	}
	return p.Save(7*vg.Inch, 4.5*vg.Inch, o.svg)
}

// micros returns d in microseconds, at least a tenth for the log scale.
func micros(d time.Duration) float64 {
	return max(float64(d)/float64(time.Microsecond), 0.1)
}
