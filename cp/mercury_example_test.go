package cp_test

import (
	"fmt"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cp"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// ExampleMercury: a 40 Gb/s port of a switch with a 16 µs base RTT
// (C·baseRTT = 80 KB, threshold 40 KB) holds 30 frames of one flow; a
// second flow's frames push the queue past the threshold, and its CNP
// carries the window 80 KB × its share of the queue.
func ExampleMercury() {
	sw, _ := cp.NewMercury(cp.MercuryPaper(2, 40*units.Gbps, 16*units.Microsecond))
	act := cc.NewActions(4)
	queue := units.Bytes(0)
	send := func(flow cc.FlowID, src cc.NodeID, n int) {
		for range n {
			queue += 1082
			act.Reset()
			_ = sw.Enqueue(units.Microsecond, 0, &cc.Packet{Flow: flow, Src: src, Dst: 9, Size: 1082, Prio: 3},
				cc.Queue{Len: queue, Rate: 40 * units.Gbps}, act)
		}
	}
	send(1, 1, 30)
	send(2, 2, 7)
	fb := act.At(0).Feedback
	w := wire.MercuryWindow{}.Get(&fb.Data)
	fmt.Printf("CNP to flow %d: window %d B (80000 × 7/37 = %d)\n", fb.Flow, w, 80000*7/37)
	// Output:
	// CNP to flow 2: window 15141 B (80000 × 7/37 = 15135)
}
