package algos_test

import (
	"fmt"

	"github.com/hwcc/hwcc/harness"
	_ "github.com/hwcc/hwcc/harness/algos"
)

// RoCC's max-min test of section VI-B: three senders offering 10, 3 and
// 1 Gb/s into one 10 Gb/s port; the same calls as `hwcc sim -scenario
// rocc-maxmin`. The switch's fair rate settles at 6 Gb/s (600 ΔF): the two
// small flows keep their offered rates and the large one gets the rest, with
// the queue held at Qref = 150 KB (the 40 Gb/s preset, scaled to the 10 Gb/s
// port). Throughputs are wire rates over the window [10 ms, 15 ms).
func Example_roccMaxMin() {
	sc, err := harness.Builtin("rocc-maxmin")
	if err != nil {
		panic(err)
	}
	res, err := harness.Run(sc, harness.Options{NoSeries: true})
	if err != nil {
		panic(err)
	}
	for _, f := range res.Flows {
		fmt.Printf("%s->%s %.2f Gb/s\n", f.Src, f.Dst, f.Throughput/1e9)
	}
	for _, p := range res.Ports {
		if p.Link == "s0->h0" {
			fmt.Printf("queue %.0f KB, utilisation %.3f, drops %d, PFC pauses %d\n",
				p.MeanBytes/1e3, p.Utilization, res.Report.Drops, res.Report.PFC.Pauses)
		}
	}
	// Output:
	// h1->h0 6.00 Gb/s
	// h2->h0 3.00 Gb/s
	// h3->h0 1.00 Gb/s
	// queue 150 KB, utilisation 1.000, drops 0, PFC pauses 0
}
