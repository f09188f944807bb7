package cp_test

import (
	"fmt"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cp"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// ExampleBFC: a 40 Gb/s switch with a 3 µs hop round trip (µ·HRTT =
// 15 KB) takes two flows from queue 5 of switch 7 into port 1. Each gets a
// physical queue of its own; with two active queues the threshold is
// 7.5 KB, and the 7th frame of flow 1 (7574 B) pauses switch 7's queue 5.
// One departure takes its queue back to the threshold, and the resume
// goes.
func ExampleBFC() {
	cfg := cp.BFCPaper(2, 40*units.Gbps, 3*units.Microsecond)
	sw, _ := cp.NewBFC(cfg)
	act := cc.NewActions(8)
	pkt := func(flow cc.FlowID) *cc.Packet {
		p := &cc.Packet{Flow: flow, Size: 1082, Prio: 3}
		_ = wire.BFCTag{Switch: 7, Port: 3, Queue: 5}.Put(&p.Hdr)
		return p
	}
	show := func(what string) {
		for _, a := range act.All() {
			switch a.Kind {
			case cc.ActionAssignQueue:
				fmt.Printf("%s: queue %d\n", what, a.Queue)
			case cc.ActionFeedback:
				m, _ := wire.DecodeBFCPause(&a.Feedback.Data)
				fmt.Printf("%s: to switch %d: port %d queue %d, lease %v\n", what, a.Switch, m.Port, m.Queue, m.Lease)
			}
		}
	}
	arrive := func(flow cc.FlowID, n int) {
		for i := range n {
			act.Reset()
			p := pkt(flow)
			_ = sw.Arrive(0, 0, p, act)
			_ = sw.Enqueue(0, 1, p, cc.Queue{}, act)
			if i == 0 || i == n-1 {
				show(fmt.Sprintf("flow %d frame %d", flow, i+1))
			}
		}
	}
	arrive(2, 1)
	arrive(1, 7)
	for i := range 7 {
		act.Reset()
		_ = sw.Dequeue(units.Time(i+1)*units.Microsecond, 1, pkt(1), cc.Queue{}, act)
		show(fmt.Sprintf("departure %d", i+1))
	}
	// Output:
	// flow 2 frame 1: queue 0
	// flow 1 frame 1: queue 1
	// flow 1 frame 7: queue 1
	// flow 1 frame 7: to switch 7: port 3 queue 5, lease 192us
	// departure 1: to switch 7: port 3 queue 5, lease 0s
}
