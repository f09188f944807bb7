package algos_test

import (
	"fmt"

	"github.com/hwcc/hwcc/harness"
	_ "github.com/hwcc/hwcc/harness/algos"
)

// HPCC's 16-to-1 incast of section 5.4, cut to 4 senders, with the
// paper's simulation W_AI of 80 B instead of the N = 100 rule (26 B here);
// the same calls as `hwcc sim -scenario hpcc-incast -set senders=4 -set
// param.wai=80`. The four initial windows (B·T ≈ 52 KB each, 212 KB on
// the wire) build a queue of at most three of them; HPCC drains it without
// PFC. The 4 MB of payload is 4.37 MB on the wire (1092 B per 1000 B with
// one INT hop), 349 µs at 100 Gb/s and 368 µs at HPCC's η = 95 %; the last
// flow completes at 391 µs.
func Example_hpccIncast() {
	sc, err := harness.Builtin("hpcc-incast")
	if err != nil {
		panic(err)
	}
	if err := sc.SetAll([]string{"senders=4", "param.wai=80"}); err != nil {
		panic(err)
	}
	res, err := harness.Run(sc, harness.Options{})
	if err != nil {
		panic(err)
	}
	var last int64
	for _, f := range res.Report.Flows {
		last = max(last, *f.FCTNs)
	}
	for _, p := range res.Ports {
		if p.Link == "s0->h0" {
			fmt.Printf("queue peak %v, PFC pauses %d, drops %d\n", p.MaxBytes, res.Report.PFC.Pauses, res.Report.Drops)
		}
	}
	fmt.Printf("%d flows done; last at %.0f us\n", res.Counters.FlowsFinished, float64(last)/1e3)
	// Output:
	// queue peak 178.86KB, PFC pauses 0, drops 0
	// 4 flows done; last at 391 us
}
