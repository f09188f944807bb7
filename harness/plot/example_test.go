package plot_test

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/hwcc/hwcc/harness"
	"github.com/hwcc/hwcc/harness/plot"
)

// Plot a run's per-flow throughput: ThroughputChart turns the Series into
// a Chart, WriteSVG renders it.
func ExampleThroughputChart() {
	sc, _ := harness.Builtin("line-rate-2to1")
	_ = sc.SetAll([]string{"duration=100us", "measure_from=0s"})
	res, err := harness.Run(sc, harness.Options{})
	if err != nil {
		panic(err)
	}
	c := plot.ThroughputChart(&res.Series)
	for _, l := range c.Lines {
		fmt.Printf("%s: %d points\n", l.Label, len(l.X))
	}
	var svg bytes.Buffer
	if err := c.WriteSVG(&svg); err != nil {
		panic(err)
	}
	fmt.Println(strings.SplitN(svg.String(), "\n", 2)[0])
	// Output:
	// flow 0 h1->h0: 10 points
	// flow 1 h2->h0: 10 points
	// <?xml version="1.0"?>
}

// A Chart can also be built by hand.
func ExampleChart_WriteSVG() {
	c := &plot.Chart{
		Title: "two lines", XLabel: "time (µs)", YLabel: "queue (KB)",
		Lines: []plot.Line{
			{Label: "a", X: []float64{0, 1, 2}, Y: []float64{0, 5, 3}},
			{Label: "b", X: []float64{0, 1, 2}, Y: []float64{1, 1, 1}},
		},
	}
	var svg bytes.Buffer
	err := c.WriteSVG(&svg)
	fmt.Println(err, strings.Contains(svg.String(), "</svg>"))
	// Output: <nil> true
}
