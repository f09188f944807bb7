package plot

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/hwcc/hwcc/harness"
	"github.com/hwcc/hwcc/units"
)

// MaxLines is the most lines a chart built by QueueChart or ThroughputChart
// shows; more would make the legend and the colours unreadable.
const MaxLines = 12

// Width and Height are the size of the SVG drawing: 20 cm × 12 cm.
const (
	Width  = 20 * vg.Centimeter
	Height = 12 * vg.Centimeter
)

// msAxisFrom is the last sample time from which the time axis is in
// milliseconds rather than microseconds (10 ms: below it µs numbers stay
// short).
const msAxisFrom = 10 * units.Millisecond

// legendRowShare is the fraction of the data height added above the data
// per legend entry, so that the legend does not cover the lines.
const legendRowShare = 0.06

// Line is one named series of points.
type Line struct {
	// Label is the line's legend entry; a line with no label has none.
	Label string
	// X and Y are the points' coordinates in the units of the chart's axis
	// labels: of equal length, every value finite.
	X, Y []float64
}

// Chart is a line chart: a title, axis labels with their units, and lines.
// The y axis starts at 0 or below (queues and throughputs are never
// negative, so a flat line does not look like a swing), and room is left
// above the data for the legend, at the top right.
type Chart struct {
	Title string
	// XLabel and YLabel name the axes with their units ("time (µs)",
	// "queue (KB)").
	XLabel, YLabel string
	// Lines are drawn in order, each in its own colour (gonum's plotutil
	// palette, dashed once the colours are used up).
	Lines []Line
}

// WriteSVG renders c as an SVG document of Width × Height to w. A chart
// with no lines (or lines with no points) renders as empty axes. It returns
// an error for a line whose X and Y differ in length or hold NaN or an
// infinity, and any error of w.
func (c *Chart) WriteSVG(w io.Writer) error { return c.write(w, "svg") }

// write renders c in format, one of gonum's (svg, png, pdf, ...).
func (c *Chart) write(w io.Writer, format string) error {
	p := gplot.New()
	p.Title.Text = c.Title
	p.X.Label.Text = c.XLabel
	p.Y.Label.Text = c.YLabel
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	legend := 0 // entries in the legend
	for i, l := range c.Lines {
		if len(l.X) != len(l.Y) {
			return fmt.Errorf("plot: line %q: %d x values but %d y values", l.Label, len(l.X), len(l.Y))
		}
		if len(l.X) == 0 {
			continue
		}
		xys := make(plotter.XYs, len(l.X))
		for j := range l.X {
			if !finite(l.X[j]) || !finite(l.Y[j]) {
				return fmt.Errorf("plot: line %q: point %d (%v, %v) is not finite", l.Label, j, l.X[j], l.Y[j])
			}
			xys[j].X, xys[j].Y = l.X[j], l.Y[j]
		}
		line, err := plotter.NewLine(xys)
		if err != nil {
			return fmt.Errorf("plot: line %q: %w", l.Label, err)
		}
		line.Color = plotutil.Color(i)
		line.Dashes = plotutil.Dashes(i / len(plotutil.DefaultColors))
		line.Width = vg.Points(1)
		p.Add(line)
		if l.Label != "" {
			p.Legend.Add(l.Label, line)
			legend++
		}
	}
	// Queue lengths and throughputs are never negative: start the y axis at
	// zero so that a flat line does not look like a swing.
	// With no points the ranges are still ±Inf: draw 0..1.
	for _, a := range []*gplot.Axis{&p.X, &p.Y} {
		if math.IsInf(a.Min, 0) || math.IsInf(a.Max, 0) {
			a.Min, a.Max = 0, 1
		}
	}
	p.Y.Min = min(p.Y.Min, 0)
	// gonum's tick marker loops forever on a span that overflows float64.
	for _, a := range []struct {
		name string
		ax   *gplot.Axis
	}{{"x", &p.X}, {"y", &p.Y}} {
		if span := a.ax.Max - a.ax.Min; !finite(span * (1 + legendRowShare*float64(legend))) {
			return fmt.Errorf("plot: %s values from %g to %g span more than a float64 holds", a.name, a.ax.Min, a.ax.Max)
		}
	}
	if legend > 0 {
		// Room above the data for the legend, which sits at the top right:
		// legendRowShare of the height per entry.
		p.Y.Max += (p.Y.Max - p.Y.Min) * legendRowShare * float64(legend)
	}
	wt, err := p.WriterTo(Width, Height, format)
	if err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	if _, err := wt.WriteTo(w); err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	return nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// timeAxis returns the sample times of s in the axis unit (µs, or ms when
// the run reaches msAxisFrom) and the axis label.
func timeAxis(s *harness.Series) ([]float64, string) {
	scale, label := float64(units.Microsecond), "time (µs)"
	if n := len(s.Times); n > 0 && s.Times[n-1] >= msAxisFrom {
		scale, label = float64(units.Millisecond), "time (ms)"
	}
	x := make([]float64, len(s.Times))
	for i, t := range s.Times {
		x[i] = float64(t) / scale
	}
	return x, label
}

// QueueChart is the queue length (KB, 1 KB = 1000 B) of the switch egress
// ports over time, in µs, or in ms when the run reaches 10 ms. Ports whose
// queue stays empty are left out; of the others, the MaxLines with the
// longest queue (largest sample) are shown, in the series' order, each
// labelled node:port (link), and the title says how many were left out.
func QueueChart(s *harness.Series) *Chart {
	x, xl := timeAxis(s)
	type cand struct {
		i   int
		max units.Bytes
	}
	var busy []cand
	for i, q := range s.Queues {
		if m := slices.Max(append([]units.Bytes{0}, q.Bytes...)); m > 0 {
			busy = append(busy, cand{i, m})
		}
	}
	title := "Queue length of switch egress ports"
	if len(busy) > MaxLines {
		// The busiest first (ties: series order), then back to series order.
		slices.SortStableFunc(busy, func(a, b cand) int { return cmp.Compare(b.max, a.max) })
		busy = busy[:MaxLines]
		slices.SortFunc(busy, func(a, b cand) int { return cmp.Compare(a.i, b.i) })
		title += fmt.Sprintf(" (the %d longest of %d non-empty)", MaxLines, countNonEmpty(s))
	}
	if len(busy) == 0 {
		title += " (all empty)"
	}
	c := &Chart{Title: title, XLabel: xl, YLabel: "queue (KB)"}
	for _, b := range busy {
		q := &s.Queues[b.i]
		y := make([]float64, len(q.Bytes))
		for j, v := range q.Bytes {
			y[j] = float64(v) / float64(units.KB)
		}
		c.Lines = append(c.Lines, Line{Label: fmt.Sprintf("%s:%d (%s)", q.Node, q.Port, q.Link), X: x, Y: y})
	}
	return c
}

func countNonEmpty(s *harness.Series) int {
	n := 0
	for _, q := range s.Queues {
		if slices.ContainsFunc(q.Bytes, func(v units.Bytes) bool { return v > 0 }) {
			n++
		}
	}
	return n
}

// ThroughputChart is each flow's throughput (Gb/s of wire bits, as
// harness.FlowSeries) over time, on the time axis of QueueChart; each point
// is the interval that ends at its time. The first MaxLines flows are shown,
// each labelled "flow ID src->dst", and the title says how many there were.
func ThroughputChart(s *harness.Series) *Chart {
	x, xl := timeAxis(s)
	title := "Throughput per flow"
	flows := s.Flows
	if len(flows) > MaxLines {
		title += fmt.Sprintf(" (the first %d of %d flows)", MaxLines, len(flows))
		flows = flows[:MaxLines]
	}
	c := &Chart{Title: title, XLabel: xl, YLabel: "throughput (Gb/s)"}
	for _, f := range flows {
		y := make([]float64, len(f.Bps))
		for j, v := range f.Bps {
			y[j] = v / float64(units.Gbps)
		}
		c.Lines = append(c.Lines, Line{Label: fmt.Sprintf("flow %d %s->%s", f.ID, f.Src, f.Dst), X: x, Y: y})
	}
	return c
}
