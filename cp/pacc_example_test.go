package cp_test

import (
	"fmt"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cp"
	"github.com/hwcc/hwcc/units"
)

// PACC's switch at 40 Gb/s (QRef = 160 KB, an update every 80 µs): a queue
// held at 320 KB, QRef above the reference, raises the CNP probability by
// 1/256 per update once it has stopped growing (the first update also
// counts its growth from the empty queue, Beta·320 KB; 1/256 is 0.00391,
// a little less after the rounding toward −∞), and the packets that arrive
// draw CNPs for their sources, at most one per flow per 4 µs: 4 flows
// send 500 packets each within 2 µs, each packet drawn at p ≈ 0.05 (a flow
// misses every draw with probability 0.95^500 < 10^−10), so each flow gets
// one CNP; the same again 6 µs after the first burst began, when every
// flow's 4 µs have passed, gives each one more.
func ExamplePACC() {
	cfg := cp.PACCPaper(40 * units.Gbps)
	c, err := cp.NewPACC(cfg)
	if err != nil {
		panic(err)
	}
	act := cc.NewActions(1)
	q := cc.Queue{Len: 2 * cfg.QRef}
	_ = c.Dequeue(0, &cc.Packet{Size: 1000}, q, act)
	for k := 1; k <= 3; k++ {
		_ = c.Timer(units.Time(k)*cfg.Period, act)
		fmt.Printf("after update %d: p = %.5f\n", k, float64(c.P())/(1<<32))
	}
	burst := func(at units.Time) (cnps int) {
		for i := range 2000 {
			act.Reset()
			// 2000 packets of 4 flows, 1 ns apart: 2 µs.
			_ = c.Enqueue(at+units.Time(i)*units.Nanosecond, &cc.Packet{Flow: cc.FlowID(i % 4), Size: 1000}, q, act)
			cnps += act.Len()
		}
		return cnps
	}
	start := 3 * cfg.Period
	fmt.Println("CNPs in the first burst:", burst(start))
	fmt.Println("CNPs in the second, 6 µs later:", burst(start+6*units.Microsecond))
	// Output:
	// after update 1: p = 0.04297
	// after update 2: p = 0.04687
	// after update 3: p = 0.05078
	// CNPs in the first burst: 4
	// CNPs in the second, 6 µs later: 4
}
