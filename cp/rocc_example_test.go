package cp_test

import (
	"fmt"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cp"
	"github.com/hwcc/hwcc/units"
)

// ExampleRoCC runs the paper's 40 Gb/s congestion point (ΔQ = 600 B,
// Qref/Qmid/Qmax = 250/500/600 ΔQ, Fmax = 4000 ΔF, ᾱ/β̄ = 0.3/1.5) on a queue
// that jumps to 300 KB, stays there, then falls to Qref. By hand: the jump
// of 500 ΔQ ≥ Qmid halves F (line 5) to 2000; at F ≥ Fmax/2 line 8 takes
// 0.3·250 = 75; below Fmax/2 the gains halve, 37.5 per period; the fall of
// 250 ΔQ at Qref gives back 1.5·250/2 = 187.5. F is printed in whole ΔF.
func ExampleRoCC() {
	cfg := cp.RoCC40G()
	cfg.Switch, cfg.Port = 0x0a000001, 3 // 10.0.0.1, port 3
	c, err := cp.NewRoCC(cfg)
	if err != nil {
		panic(err)
	}
	_ = c.OnEnqueue(0, 42, 1500) // flow 42 has a packet in the queue
	for _, q := range []units.Bytes{300 * units.KB, 300 * units.KB, 300 * units.KB, 300 * units.KB, 150 * units.KB} {
		now := c.NextDeadline()
		d, _ := c.OnTimer(now, q)
		fmt.Println(now, d.Branch, d.F, d.Rate, d.Send)
	}
	c.ForEachFlow(func(flow uint32) {
		fb := c.Feedback(flow)
		fmt.Println(fb)
		fmt.Printf("% x\n", fb.Append(nil))
	})
	// Output:
	// 0s md-half 2000 20Gbps true
	// 40us pi 1925 19.25Gbps true
	// 80us pi 1887 18.87Gbps true
	// 120us pi 1850 18.5Gbps true
	// 160us pi 2037 20.37Gbps true
	// rocc rate cp=167772161:3 seq=5 F=2037 Q=250 flow=42
	// 11 05 00 03 0a 00 00 01 07 f5 00 fa 00 00 00 2a
}

// ExampleRoCCConfig_idleGain shows what IdleGain changes: the climb of F
// from Fmin while the queue stays empty, the situation after line 3 has
// reset F. Algorithm 1 as printed adds α·Qref = (0.3/32)·250 = 2.34 ΔF per
// update in the bottom AUTO_TUNE region (F < Fmax/32 = 125); with IdleGain
// the empty queue takes the top region's gain, 0.3·250 = 75 ΔF per update.
// F is printed in whole ΔF, as the CNP carries it.
func ExampleRoCCConfig_idleGain() {
	for _, idle := range []bool{false, true} {
		cfg := cp.RoCC40G()
		cfg.IdleGain = idle
		p, err := cp.NewRoCCParams(cfg)
		if err != nil {
			panic(err)
		}
		fmin, _ := p.FBounds()
		r := cp.RoCCRegs{F: fmin} // F = Fmin = 10 ΔF, Qold = 0
		fmt.Printf("IdleGain=%-5v F:", idle)
		for range 5 {
			var br cp.RoCCBranch
			r, br = cp.RoCCStep(p, r, 0) // an empty queue
			fmt.Printf(" %d (%v)", p.RateUnits(r.F), br)
		}
		fmt.Println()
	}
	// Output:
	// IdleGain=false F: 12 (pi) 14 (pi) 17 (pi) 19 (pi) 21 (pi)
	// IdleGain=true  F: 85 (pi-idle) 160 (pi-idle) 235 (pi-idle) 310 (pi-idle) 385 (pi-idle)
}

// ExampleRoCCHost computes the rate on the host from the switch's reports
// (section III-F): Qcur and the counter, as the paper's P4 CNP carries them.
func ExampleRoCCHost() {
	c, _ := cp.NewRoCC(cp.RoCC40G())
	h, _ := cp.NewRoCCHost(c.Params()) // the registry: same parameters
	for _, q := range []units.Bytes{300 * units.KB, 300 * units.KB, 150 * units.KB} {
		d, _ := c.OnTimer(c.NextDeadline(), q)
		wire := c.Report(7, false).Append(nil) // what the switch sends
		fb, _ := cp.DecodeRoCCFeedback(wire)
		rate, _ := h.OnReport(c.NextDeadline(), fb)
		fmt.Println(d.F, rate)
	}
	// Output:
	// 2000 2000
	// 1925 1925
	// 2112 2112
}

// ExampleRoCC_Timer drives the CP through the cc contract: Enqueue records
// the packet's flow and the queue, Timer runs Algorithm 1 on that queue
// (300 KB = 500 ΔQ: line 5 halves F from 4000 to 2000 ΔF) and appends the
// CNP for every flow in the table.
func ExampleRoCC_Timer() {
	c, _ := cp.NewRoCC(cp.RoCC40G())
	for _, flow := range []cc.FlowID{7, 9} {
		p := cc.Packet{Flow: flow, Size: 1500}
		_ = c.Enqueue(0, &p, cc.Queue{Len: 300 * units.KB}, nil) // nil: Enqueue appends nothing
	}
	act := cc.NewActions(8)
	if err := c.Timer(c.NextDeadline(), act); err != nil {
		panic(err)
	}
	for _, a := range act.All() {
		m, _ := cp.DecodeRoCCFeedback(a.Feedback.Data[:])
		fmt.Println(a.Kind, "to", a.To, "flow", a.Feedback.Flow, "prio", a.Prio, m)
	}
	// Unordered output:
	// feedback to source flow 7 prio 7 rocc rate cp=0:0 seq=1 F=2000 Q=500 flow=7
	// feedback to source flow 9 prio 7 rocc rate cp=0:0 seq=1 F=2000 Q=500 flow=9
}
