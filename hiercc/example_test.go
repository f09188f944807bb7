package hiercc_test

import (
	"fmt"

	"github.com/hwcc/hwcc/hiercc"
	"github.com/hwcc/hwcc/units"
)

// A credit exchange between sender-side ToR 1 and the receiver-side ToR of
// host 7: the VOQ starts with C0 = 10 KB and sends ten 1 KB packets; the
// receiver learns S_ij from their headers and sends one 1 KB credit per
// 320 ns of its 25 Gb/s port, only while C_ij < S_ij: ten credits, which
// restore the VOQ's balance to C0.
func Example() {
	line := 25 * units.Gbps
	s, _ := hiercc.NewSenderToR(hiercc.PaperSender(1, 8, line, 1000))
	r, _ := hiercc.NewReceiverToR(hiercc.PaperReceiver(1, 4, line))
	_ = s.FlowStart(0, 7)

	var rates []hiercc.RatePacket
	var credits []hiercc.CreditPacket
	now := units.Time(0)
	for range 12 { // 12 KB offered
		_, rates, _ = s.Arrive(now, hiercc.Arrival{Flow: 42, Dst: 7, Size: 1000}, rates[:0])
	}
	for { // the uplink serves the VOQ while it has credit
		slot, ok := s.Next()
		if !ok {
			break
		}
		h, _, _ := s.Dequeue(now, slot, 1000, rates[:0])
		_, _ = r.Arrive(now+units.Microsecond, 0, h) // one hop later
	}
	st, _ := s.VOQs().State(0)
	fmt.Printf("sender: sent %d B, credit %v, %v queued\n", st.Sent, st.Credit, st.Queued)

	for r.NextDeadline() != units.MaxTime {
		credits, _ = r.Timer(r.NextDeadline(), credits[:0])
		for _, c := range credits {
			_ = s.Credit(r.NextDeadline(), c)
		}
	}
	e, _ := r.Entry(0, 1)
	st, _ = s.VOQs().State(0)
	fmt.Printf("receiver: S_ij %d B, C_ij %d B, %d credits\n", e.S, e.C, r.Credits())
	fmt.Printf("sender: credit %v, eligible %v\n", st.Credit, st.Active)
	// Output:
	// sender: sent 10000 B, credit 0B, 2KB queued
	// receiver: S_ij 10000 B, C_ij 10000 B, 10 credits
	// sender: credit 10KB, eligible true
}

// A host's header: the flags a Host writes into a data packet's Hdr for
// the sender-side ToR, version 0 so that it is never taken for a ToR's.
func ExampleHostHeader() {
	hdr := hiercc.HostHeader(hiercc.FlagMark | hiercc.FlagFirst)
	fmt.Printf("% x\n", hdr)
	f, err := hiercc.DecodeHostHeader(hdr[:])
	fmt.Println(f&hiercc.FlagMark != 0, f&hiercc.FlagFirst != 0, f&hiercc.FlagLast != 0, err)
	_, err = hiercc.DecodeHeader(hdr[:])
	fmt.Println(err)
	// Output:
	// 00 03 00 00 00 00 00 00 00 00 00 00 00 00 00 00
	// true true false <nil>
	// HierCC header: byte 0: version 0, want 1
}
