package plot

import (
	"io"
	"testing"
)

// FuzzWriteSVG: a chart of any two lines of two points renders or returns
// an error; it never panics or hangs (gonum's tick marker loops forever on
// an axis span that overflows, which WriteSVG refuses).
func FuzzWriteSVG(f *testing.F) {
	f.Add(0.0, 1.0, 0.0, 1.0, 0.5, 2.0)          // an ordinary chart
	f.Add(1.0, 1.0, 3.0, 3.0, 1.0, 3.0)          // one x value, one y value: zero spans
	f.Add(-1e308, 1e308, 0.0, 1.0, 0.0, 0.0)     // an x span beyond float64
	f.Add(0.0, 1e-310, 5e-324, 1e-320, 0.0, 0.0) // subnormal values
	f.Fuzz(func(t *testing.T, x0, x1, y0, y1, y2, y3 float64) {
		c := &Chart{Title: "fuzz", Lines: []Line{
			{Label: "a", X: []float64{x0, x1}, Y: []float64{y0, y1}},
			{Label: "b", X: []float64{x1, x0}, Y: []float64{y2, y3}},
		}}
		_ = c.WriteSVG(io.Discard)
	})
}
