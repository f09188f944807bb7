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
// draw CNPs for their sources, at most one per flow per 80 µs: 4 flows, 4
// CNPs in half a period.
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
	cnps := 0
	now := 3 * cfg.Period
	for i := range 2000 {
		act.Reset()
		// 2000 packets of 4 flows over 40 µs, half a period.
		_ = c.Enqueue(now+units.Time(i)*20*units.Nanosecond, &cc.Packet{Flow: cc.FlowID(i % 4), Size: 1000}, q, act)
		cnps += act.Len()
	}
	fmt.Println("CNPs:", cnps)
	// Output:
	// after update 1: p = 0.04297
	// after update 2: p = 0.04687
	// after update 3: p = 0.05078
	// CNPs: 4
}
