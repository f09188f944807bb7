package plot

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/harness"
	"github.com/hwcc/hwcc/units"
)

func TestChartsOfARun(t *testing.T) {
	sc, err := harness.Builtin("line-rate-2to1")
	require.NoError(t, err)
	require.NoError(t, sc.SetAll([]string{"senders=3", "duration=200us"}))
	res, err := harness.Run(sc, harness.Options{})
	require.NoError(t, err)

	q := QueueChart(&res.Series)
	// Only the port toward the receiver holds data: three senders into one
	// 100 Gb/s port; the ports toward the senders carry only ACKs.
	require.NotEmpty(t, q.Lines)
	require.Contains(t, q.Lines[0].Label, "s0:0")
	th := ThroughputChart(&res.Series)
	require.Len(t, th.Lines, 3, "one line per flow")
	for _, c := range []*Chart{q, th} {
		var buf bytes.Buffer
		require.NoError(t, c.WriteSVG(&buf))
		require.True(t, strings.HasPrefix(buf.String(), "<?xml"), buf.String()[:20])
		require.Contains(t, buf.String(), "</svg>")
	}
}

func TestChartRejectsBadLines(t *testing.T) {
	var buf bytes.Buffer
	c := &Chart{Lines: []Line{{Label: "short", X: []float64{1, 2}, Y: []float64{1}}}}
	require.Error(t, c.WriteSVG(&buf))
	c = &Chart{Lines: []Line{{Label: "nan", X: []float64{1}, Y: []float64{math.NaN()}}}}
	require.Error(t, c.WriteSVG(&buf))
	// No lines: empty axes, not an error.
	require.NoError(t, (&Chart{Title: "empty"}).WriteSVG(&buf))
}

// series builds a Series of n samples every 10 µs with nq queues, queue i
// holding (i+1)·1000 bytes at every sample but the first (0), and nf flows,
// flow i at i Gb/s.
func series(n, nq, nf int) *harness.Series {
	s := &harness.Series{Interval: 10 * units.Microsecond}
	for i := 1; i <= n; i++ {
		s.Times = append(s.Times, units.Time(i)*s.Interval)
	}
	for q := 0; q < nq; q++ {
		b := make([]units.Bytes, n)
		for i := 1; i < n; i++ {
			b[i] = units.Bytes((q + 1) * 1000)
		}
		s.Queues = append(s.Queues, harness.QueueSeries{Node: "s0", Port: q, Link: fmt.Sprintf("s0->h%d", q), Bytes: b})
	}
	for f := 0; f < nf; f++ {
		bps := make([]float64, n)
		for i := range bps {
			bps[i] = float64(f) * 1e9
		}
		s.Flows = append(s.Flows, harness.FlowSeries{ID: harness.FlowID(f), Src: fmt.Sprintf("h%d", f+1), Dst: "h0", Bps: bps})
	}
	return s
}

// TestQueueChartKeepsTheLongest: of 20 non-empty queues the chart keeps the
// MaxLines with the largest samples (queues 8..19 by construction), in
// series order, converts bytes to KB, and says what it left out.
func TestQueueChartKeepsTheLongest(t *testing.T) {
	s := series(5, 20, 0)
	s.Queues = append(s.Queues, harness.QueueSeries{Node: "s1", Port: 0, Link: "s1->s0", Bytes: make([]units.Bytes, 5)})
	c := QueueChart(s)
	require.Len(t, c.Lines, MaxLines)
	for i, l := range c.Lines {
		q := 20 - MaxLines + i
		require.Equal(t, fmt.Sprintf("s0:%d (s0->h%d)", q, q), l.Label)
		require.Equal(t, []float64{10, 20, 30, 40, 50}, l.X, "µs")
		require.Equal(t, float64(q+1), l.Y[1], "(q+1)·1000 B = q+1 KB")
	}
	require.Contains(t, c.Title, fmt.Sprintf("the %d longest of 20 non-empty", MaxLines))
	require.Equal(t, "time (µs)", c.XLabel)

	// An all-empty run: no lines, and the title says why.
	c = QueueChart(series(5, 0, 0))
	require.Empty(t, c.Lines)
	require.Contains(t, c.Title, "all empty")
}

func TestThroughputChartKeepsTheFirst(t *testing.T) {
	c := ThroughputChart(series(3, 0, MaxLines+3))
	require.Len(t, c.Lines, MaxLines)
	for i, l := range c.Lines {
		require.Equal(t, fmt.Sprintf("flow %d h%d->h0", i, i+1), l.Label)
		require.Equal(t, float64(i), l.Y[0], "i·1e9 bit/s = i Gb/s")
	}
	require.Contains(t, c.Title, fmt.Sprintf("the first %d of %d flows", MaxLines, MaxLines+3))
}

// TestTimeAxisInMilliseconds: a run that reaches 10 ms is plotted in ms.
func TestTimeAxisInMilliseconds(t *testing.T) {
	s := &harness.Series{Times: []units.Time{5 * units.Millisecond, 10 * units.Millisecond}}
	x, label := timeAxis(s)
	require.Equal(t, "time (ms)", label)
	require.Equal(t, []float64{5, 10}, x)
}

// TestWriteSVGDeterministic: the same chart renders to the same bytes, so
// plots can be compared across runs.
func TestWriteSVGDeterministic(t *testing.T) {
	c := QueueChart(series(50, 3, 0))
	var a, b bytes.Buffer
	require.NoError(t, c.WriteSVG(&a))
	require.NoError(t, c.WriteSVG(&b))
	require.Equal(t, a.Bytes(), b.Bytes())
}

// TestWriteSVGEdgeCases: one point, constant lines, huge values and an
// unlabelled line all render; an infinity is an error naming the line.
func TestWriteSVGEdgeCases(t *testing.T) {
	for _, c := range []*Chart{
		{Lines: []Line{{Label: "one", X: []float64{1}, Y: []float64{1}}}},
		{Lines: []Line{{Label: "flat", X: []float64{1, 2, 3}, Y: []float64{0, 0, 0}}}},
		{Lines: []Line{{Label: "huge", X: []float64{0, 1e300}, Y: []float64{-1e300, 1e300}}}},
		{Lines: []Line{{X: []float64{1, 2}, Y: []float64{3, 4}}}},
		{Lines: []Line{{Label: "empty"}}},
	} {
		require.NoError(t, c.WriteSVG(io.Discard), c.Lines[0].Label)
	}
	err := (&Chart{Lines: []Line{{Label: "inf", X: []float64{1}, Y: []float64{math.Inf(1)}}}}).WriteSVG(io.Discard)
	require.ErrorContains(t, err, `"inf"`)
	// A span beyond float64 (which would hang gonum's tick marker) is an
	// error, on either axis.
	wide := []float64{-math.MaxFloat64, math.MaxFloat64}
	require.ErrorContains(t, (&Chart{Lines: []Line{{X: wide, Y: []float64{0, 1}}}}).WriteSVG(io.Discard), "x values")
	require.ErrorContains(t, (&Chart{Lines: []Line{{X: []float64{0, 1}, Y: wide}}}).WriteSVG(io.Discard), "y values")
}
