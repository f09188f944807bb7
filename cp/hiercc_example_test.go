package cp_test

import (
	"fmt"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cp"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/voq"
	"github.com/hwcc/hwcc/wire"
)

// Two ToRs through the contract: server 10 behind ToR 1 sends a packet to
// server 20 behind ToR 2. ToR 1 opens the VOQ toward 20 (granting its
// C0 to the caller's VOQ) and answers the marked packet with the line
// rate; the packet leaves with ToR 1's header (F_ij = 1, S_ij = 1082 B);
// ToR 2's server port learns S_ij from it and, one Δ = 1 KB per tick
// (320 ns at 25 Gb/s) while C_ij < S_ij, credits the VOQ back: C_ij starts
// at S_ij − min(S_ij, C0) = 0 and needs two credits to pass 1082. ToR 1
// grants each to the caller's VOQ at the uplink the VOQ leaves by.
func ExampleHierCC() {
	line := 25 * units.Gbps
	tor := func(id uint16, h0, h1 voq.Key) *cp.HierCC {
		ports := []cp.HierCCPort{{Edge: true, Host: h0}, {Edge: true, Host: h1}, {}} // two servers, an uplink
		t, err := cp.NewHierCC(cp.HierCCPaper(id, ports, 64, 8, line, cp.HierCCDefaultMTU))
		if err != nil {
			panic(err)
		}
		return t
	}
	a, b := tor(1, 10, 11), tor(2, 20, 21)
	act := cc.NewActions(8)
	var credits []cc.Feedback
	show := func(who string) {
		for _, x := range act.All() {
			switch {
			case x.Kind == cc.ActionCredit:
				fmt.Printf("%s: credit %v to the VOQ toward %d at port %d\n", who, x.Bytes, x.Node, x.Port)
			case x.Feedback.Kind == wire.FeedbackHierCCRate:
				r, _ := wire.DecodeHierCCRatePacket(x.Feedback.Data[:])
				fmt.Printf("%s: rate packet to flow %d: %v\n", who, r.Flow, units.Rate(r.Rate)*wire.HierCCRateUnit)
			case x.Feedback.Kind == wire.FeedbackHierCCCredit:
				c, _ := wire.DecodeHierCCCreditPacket(x.Feedback.Data[:])
				fmt.Printf("%s: credit packet to ToR %d: %d B, C_ij %d B\n", who, x.Switch, c.Amount, c.Total)
				credits = append(credits, x.Feedback)
			}
		}
		act.Reset()
	}
	p := cc.Packet{Flow: 7, Src: 10, Dst: 20, Payload: 1000, Size: 1082,
		Hdr: wire.HierCCHostHeader(wire.HierCCFlagMark | wire.HierCCFlagFirst)}
	_ = a.Enqueue(units.Microsecond, 2, &p, cc.Queue{}, act)
	show("ToR 1 enqueue")
	_ = a.Dequeue(2*units.Microsecond, 2, &p, cc.Queue{}, act)
	h, _ := wire.DecodeHierCCHeader(p.Hdr[:])
	fmt.Printf("header: ToR %d, host %d, F_ij %d, S_ij %d B\n", h.ToR, h.Dst, h.Flows, h.Sent)
	_ = b.Enqueue(3*units.Microsecond, 0, &p, cc.Queue{}, act) // the port wakes: a credit at once
	show("ToR 2 enqueue")
	_ = b.Timer(b.NextDeadline(), act) // the next tick, 320 ns later
	show("ToR 2 timer")
	for i, c := range credits {
		_ = a.Message(5*units.Microsecond+units.Time(i), 2, &c, act)
		show("ToR 1 message")
	}
	// Output:
	// ToR 1 enqueue: credit 10KB to the VOQ toward 20 at port 2
	// ToR 1 enqueue: rate packet to flow 7: 25Gbps
	// header: ToR 1, host 20, F_ij 1, S_ij 1082 B
	// ToR 2 enqueue: credit packet to ToR 1: 1000 B, C_ij 1000 B
	// ToR 2 timer: credit packet to ToR 1: 1000 B, C_ij 2000 B
	// ToR 1 message: credit 1KB to the VOQ toward 20 at port 2
	// ToR 1 message: credit 1KB to the VOQ toward 20 at port 2
}
