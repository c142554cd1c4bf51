package main

import (
	"bytes"
	"encoding/xml"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestDecades(t *testing.T) {
	for _, tc := range []struct {
		vs   []float64
		want []float64
	}{
		{[]float64{1000, 100000}, []float64{1000, 10000, 100000}},
		{[]float64{1500, 99000}, []float64{1000, 10000, 100000}},
		{[]float64{2.5, 0.3}, []float64{0.1, 1, 10}},
		{[]float64{100}, []float64{100, 1000}},
	} {
		if got := decades(tc.vs); !slices.Equal(got, tc.want) {
			t.Errorf("decades(%v) = %v, want %v", tc.vs, got, tc.want)
		}
	}
}

// svgDoc is the part of writeSVG's output the test reads back.
type svgDoc struct {
	XMLName   xml.Name `xml:"svg"`
	Polylines []struct {
		Points string `xml:"points,attr"`
	} `xml:"polyline"`
	Texts []string `xml:"text"`
}

// TestChartSVG reads the chart back as XML: one polyline per series with a
// vertex per point, placed by the log scale (a tenfold step is the same
// distance wherever it is, and a larger value is further right or higher),
// and every label escaped.
func TestChartSVG(t *testing.T) {
	c := logLogChart{
		title:  "latency <median> & more",
		xLabel: "pods",
		yLabel: "µs",
		series: []chartSeries{
			{name: "queue", points: []chartPoint{{1000, 2}, {10000, 2.2}, {100000, 2.5}}},
			{name: "naive", points: []chartPoint{{1000, 1000}, {10000, 10000}, {100000, 100000}}},
		},
	}
	var buf bytes.Buffer
	if err := c.writeSVG(&buf); err != nil {
		t.Fatal(err)
	}
	var doc svgDoc
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("not XML: %v\n%s", err, buf.String())
	}
	if len(doc.Polylines) != 2 {
		t.Fatalf("%d polylines, want 2", len(doc.Polylines))
	}
	vertices := func(s string) [][2]float64 {
		var vs [][2]float64
		for _, p := range strings.Fields(s) {
			x, y, _ := strings.Cut(p, ",")
			fx, err1 := strconv.ParseFloat(x, 64)
			fy, err2 := strconv.ParseFloat(y, 64)
			if err1 != nil || err2 != nil {
				t.Fatalf("bad vertex %q", p)
			}
			vs = append(vs, [2]float64{fx, fy})
		}
		return vs
	}
	q, n := vertices(doc.Polylines[0].Points), vertices(doc.Polylines[1].Points)
	if len(q) != 3 || len(n) != 3 {
		t.Fatalf("vertices %v and %v, want 3 each", q, n)
	}
	for i := range 3 {
		if q[i][0] != n[i][0] {
			t.Errorf("point %d: the same x drawn at %v and %v", i, q[i][0], n[i][0])
		}
	}
	dx1, dx2 := n[1][0]-n[0][0], n[2][0]-n[1][0]
	dy1, dy2 := n[0][1]-n[1][1], n[1][1]-n[2][1]
	if dx1 <= 0 || dy1 <= 0 || abs(dx1-dx2) > 0.02 || abs(dy1-dy2) > 0.02 {
		t.Errorf("tenfold steps not equal and positive on a log scale: dx %v %v, dy %v %v", dx1, dx2, dy1, dy2)
	}
	if !(q[0][1] > n[0][1]) {
		t.Errorf("the smaller series is drawn above the larger: %v vs %v", q[0][1], n[0][1])
	}
	if !slices.Contains(doc.Texts, "latency <median> & more") || !slices.Contains(doc.Texts, "naive") ||
		!slices.Contains(doc.Texts, "100000") {
		t.Errorf("texts %q lack the title, a legend entry or an x tick", doc.Texts)
	}
}

func TestChartSVGRejectsBadPoints(t *testing.T) {
	for _, p := range []chartPoint{{0, 1}, {1, -1}} {
		c := logLogChart{series: []chartSeries{{name: "s", points: []chartPoint{{1, 1}, p}}}}
		if err := c.writeSVG(&bytes.Buffer{}); err == nil || !strings.HasPrefix(err.Error(), "chart: ") {
			t.Errorf("point %v: error %v, want a chart: error", p, err)
		}
	}
	if err := (&logLogChart{}).writeSVG(&bytes.Buffer{}); err == nil {
		t.Error("no points: no error")
	}
}

func abs(v float64) float64 { return max(v, -v) }
