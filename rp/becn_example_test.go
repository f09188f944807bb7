package rp_test

import (
	"fmt"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cp"
	"github.com/hwcc/hwcc/rp"
	"github.com/hwcc/hwcc/units"
)

// ExampleBECN: BECN on a 40 Gb/s port (threshold 160 KB). A flow's packets
// find the queue above the threshold for 200 µs; the switch notifies the
// source every 50 µs; the source halves per notification and pauses at
// the fifth in a row. The queue drains, and the source steps back up once
// per 55 µs quiet period.
func ExampleBECN() {
	const line = 40 * units.Gbps
	sw, _ := cp.NewBECN(cp.BECNSurvey(cp.BECNModeBECN, line))
	src, _ := rp.NewBECN(rp.BECNSurvey(line))
	act := cc.NewActions(1)
	q := cc.Queue{Len: 200_000}
	for now := units.Time(0); now <= 200*units.Microsecond; now += units.Microsecond {
		act.Reset()
		_ = sw.Enqueue(now, &cc.Packet{Flow: 1, Payload: 1000, Size: 1082}, q, act)
		if act.Len() == 1 {
			fb := act.At(0).Feedback
			_ = src.Feedback(now, &fb, nil)
			l := src.Limits()
			fmt.Printf("%v: notified, rate %v, paused %v\n", now, l.Rate, l.Credited)
		}
	}
	for src.NextDeadline() != units.MaxTime {
		d := src.NextDeadline()
		_ = src.Timer(d, nil)
		fmt.Printf("%v: quiet, rate %v, paused %v\n", d, src.Limits().Rate, src.Paused())
	}
	// Output:
	// 0s: notified, rate 20Gbps, paused false
	// 50us: notified, rate 10Gbps, paused false
	// 100us: notified, rate 5Gbps, paused false
	// 150us: notified, rate 2.5Gbps, paused false
	// 200us: notified, rate 1.25Gbps, paused true
	// 255us: quiet, rate 2.5Gbps, paused false
	// 310us: quiet, rate 5Gbps, paused false
	// 365us: quiet, rate 10Gbps, paused false
	// 420us: quiet, rate 20Gbps, paused false
	// 475us: quiet, rate 40Gbps, paused false
}
