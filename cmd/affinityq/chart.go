package main

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"math"
	"os"
	"strconv"
	"time"

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
	c := logLogChart{
		title:  fmt.Sprintf("Per-event latency, %s workload, %s policy (median)", o.workloads[0], o.policies[0]),
		xLabel: "pending pods in the unschedulable pool",
		yLabel: "µs per event",
		series: []chartSeries{{name: "affinityq queue (index)"}, {name: "naive scan (reference)"}},
	}
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
		c.series[0].points = append(c.series[0].points, chartPoint{float64(n), micros(res.P50)})
		c.series[1].points = append(c.series[1].points, chartPoint{float64(n), micros(res.NaiveP50)})
	}
	f, err := os.Create(o.svg)
	if err != nil {
		return err
	}
	if err := c.writeSVG(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// micros returns d in microseconds, at least a tenth for the log scale.
func micros(d time.Duration) float64 {
	return max(float64(d)/float64(time.Microsecond), 0.1)
}

// logLogChart is a line chart with logarithmic axes, drawn as SVG by
// writeSVG. Its points must be positive.
type logLogChart struct {
	title, xLabel, yLabel string
	series                []chartSeries
}

type chartSeries struct {
	name   string
	points []chartPoint
}

type chartPoint struct{ x, y float64 }

// The chart's geometry in SVG user units (points): the canvas, and the
// plot area inside its margins.
const (
	chartWidth, chartHeight = 504, 324
	plotLeft, plotRight     = 64, 488
	plotTop, plotBottom     = 36, 280
)

// chartColors are the series' colours, in order (repeated past the last).
var chartColors = []string{"#1f77b4", "#d62728", "#2ca02c", "#9467bd"}

// decades returns the powers of ten that bracket the positive values vs:
// the axis runs from the first to the last.
func decades(vs []float64) []float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range vs {
		lo, hi = min(lo, math.Log10(v)), max(hi, math.Log10(v))
	}
	first, last := math.Floor(lo), math.Ceil(hi)
	if last == first {
		last++
	}
	var ds []float64
	for e := first; e <= last; e++ {
		ds = append(ds, math.Pow(10, e))
	}
	return ds
}

// writeSVG draws the chart: title, decade grid and tick labels on both
// axes, one polyline with point markers per series, and a legend in the
// top left corner.
func (c *logLogChart) writeSVG(w io.Writer) error {
	var xs, ys []float64
	for _, s := range c.series {
		for _, p := range s.points {
			if !(p.x > 0 && p.y > 0) || math.IsInf(p.x, 0) || math.IsInf(p.y, 0) {
				return fmt.Errorf("chart: point (%v, %v) of %q is not positive and finite", p.x, p.y, s.name)
			}
			xs, ys = append(xs, p.x), append(ys, p.y)
		}
	}
	if len(xs) == 0 {
		return fmt.Errorf("chart: no points")
	}
	xd, yd := decades(xs), decades(ys)
	scale := func(v, lo, hi, from, to float64) float64 {
		return from + (to-from)*(math.Log10(v)-math.Log10(lo))/(math.Log10(hi)-math.Log10(lo))
	}
	px := func(x float64) float64 { return scale(x, xd[0], xd[len(xd)-1], plotLeft, plotRight) }
	py := func(y float64) float64 { return scale(y, yd[0], yd[len(yd)-1], plotBottom, plotTop) }
	num := func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }
	label := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

	b := bufio.NewWriter(w)
	fmt.Fprintf(b, `<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="%dpt" height="%dpt" viewBox="0 0 %d %d" font-family="sans-serif" font-size="10">
<rect width="100%%" height="100%%" fill="#ffffff"/>
<text x="%d" y="20" text-anchor="middle" font-size="12">%s</text>
`, chartWidth, chartHeight, chartWidth, chartHeight, (plotLeft+plotRight)/2, html.EscapeString(c.title))
	for _, x := range xd {
		fmt.Fprintf(b, `<line x1="%s" y1="%d" x2="%s" y2="%d" stroke="#dddddd"/>
<text x="%s" y="%d" text-anchor="middle">%s</text>
`, num(px(x)), plotTop, num(px(x)), plotBottom, num(px(x)), plotBottom+14, label(x))
	}
	for _, y := range yd {
		fmt.Fprintf(b, `<line x1="%d" y1="%s" x2="%d" y2="%s" stroke="#dddddd"/>
<text x="%d" y="%s" text-anchor="end" dominant-baseline="middle">%s</text>
`, plotLeft, num(py(y)), plotRight, num(py(y)), plotLeft-6, num(py(y)), label(y))
	}
	fmt.Fprintf(b, `<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#000000"/>
<text x="%d" y="%d" text-anchor="middle" font-size="12">%s</text>
<text transform="translate(16 %d) rotate(-90)" text-anchor="middle" font-size="12">%s</text>
`, plotLeft, plotTop, plotRight-plotLeft, plotBottom-plotTop,
		(plotLeft+plotRight)/2, chartHeight-12, html.EscapeString(c.xLabel),
		(plotTop+plotBottom)/2, html.EscapeString(c.yLabel))
	for i, s := range c.series {
		color := chartColors[i%len(chartColors)]
		fmt.Fprintf(b, `<polyline fill="none" stroke="%s" stroke-width="1.5" points="`, color)
		for j, p := range s.points {
			if j > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprintf(b, "%s,%s", num(px(p.x)), num(py(p.y)))
		}
		b.WriteString("\"/>\n")
		for _, p := range s.points {
			fmt.Fprintf(b, `<circle cx="%s" cy="%s" r="3" fill="%s"/>`+"\n", num(px(p.x)), num(py(p.y)), color)
		}
		ly := plotTop + 14 + 14*i
		fmt.Fprintf(b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="1.5"/>
<text x="%d" y="%d" dominant-baseline="middle">%s</text>
`, plotLeft+10, ly, plotLeft+30, ly, color, plotLeft+36, ly, html.EscapeString(s.name))
	}
	b.WriteString("</svg>\n")
	return b.Flush()
}
