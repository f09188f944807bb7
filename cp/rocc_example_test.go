package cp_test

import (
	"fmt"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cp"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// ExampleRoCC runs the paper's 40 Gb/s congestion point (ΔQ = 600 B,
// Qref/Qmid/Qmax = 250/500/600 ΔQ, Fmax = 4000 ΔF, ᾱ/β̄ = 0.3/1.5, T =
// 40 µs, first update at Start = 10 µs) on a queue that jumps to 300 KB,
// stays there, then falls to Qref; flow 42 has packets in it throughout.
// Each update samples the queue the latest Enqueue reported. By hand: the
// jump of 500 ΔQ ≥ Qmid halves F (line 5) to 2000; at F ≥ Fmax/2 line 8
// takes 0.3·250 = 75; below Fmax/2 the gains halve, 37.5 per period; the
// fall of 250 ΔQ at Qref gives back 1.5·250/2 = 187.5. The CNP carries F in
// whole ΔF.
func ExampleRoCC() {
	cfg := cp.RoCC40G()
	cfg.Switch, cfg.Port = 0x0a000001, 3 // 10.0.0.1, port 3
	cfg.Start = 10 * units.Microsecond
	c, err := cp.NewRoCC(cfg)
	if err != nil {
		panic(err)
	}
	act := cc.NewActions(8)
	pkt := cc.Packet{Flow: 42, Size: 1500}
	for _, q := range []units.Bytes{300 * units.KB, 300 * units.KB, 300 * units.KB, 300 * units.KB, 150 * units.KB} {
		now := c.NextDeadline()
		// A packet of flow 42 joins the queue 1 µs before the update; the
		// queue is then q.
		act.Reset()
		if err := c.Enqueue(now-units.Microsecond, &pkt, cc.Queue{Len: q}, act); err != nil {
			panic(err)
		}
		if err := c.Timer(now, act); err != nil {
			panic(err)
		}
		st := c.State()
		fmt.Println(now, st.Branch, c.Rate(), act.Len(), "message")
	}
	m := c.CNP(42)
	fmt.Println(m)
	fmt.Printf("% x\n", m.Append(nil))
	// Output:
	// 10us md-half 20Gbps 1 message
	// 50us pi 19.25Gbps 1 message
	// 90us pi 18.87Gbps 1 message
	// 130us pi 18.5Gbps 1 message
	// 170us pi 20.37Gbps 1 message
	// rocc rate cp=167772161:3 seq=5 F=2037 Q=250 flow=42
	// 11 05 00 03 0a 00 00 01 07 f5 00 fa 00 00 00 2a
}

// ExampleRoCC_Timer drives the CP through the cc contract: Enqueue records
// the packet's flow and the queue, Timer runs Algorithm 1 on that queue
// (300 KB = 500 ΔQ: line 5 halves F from 4000 to 2000 ΔF) at its first
// deadline, Start = 40 µs, and appends the CNP for every flow in the table.
func ExampleRoCC_Timer() {
	cfg := cp.RoCC40G()
	cfg.Start = 40 * units.Microsecond
	c, _ := cp.NewRoCC(cfg)
	act := cc.NewActions(8)
	for _, flow := range []cc.FlowID{7, 9} {
		p := cc.Packet{Flow: flow, Size: 1500}
		_ = c.Enqueue(0, &p, cc.Queue{Len: 300 * units.KB}, act) // before the deadline: no update, no action
	}
	if err := c.Timer(c.NextDeadline(), act); err != nil {
		panic(err)
	}
	for _, a := range act.All() {
		m, _ := wire.DecodeRoCCFeedback(a.Feedback.Data[:])
		fmt.Println(a.Kind, "to", a.To, "flow", a.Feedback.Flow, "prio", a.Prio, m)
	}
	// Unordered output:
	// feedback to source flow 7 prio 7 rocc rate cp=0:0 seq=1 F=2000 Q=500 flow=7
	// feedback to source flow 9 prio 7 rocc rate cp=0:0 seq=1 F=2000 Q=500 flow=9
}
