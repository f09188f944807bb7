package plot

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/harness"
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
