package rp_test

import (
	"fmt"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/rp"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// An NSCC sender on the consortium model's reference network (100 Gb/s,
// 12 µs): its window starts at 1.5 BDP. Sent writes the send time into the
// packet's header; the receiver echoes the header in its ACK, which gives
// the RTT sample: 10 µs, below the 12 µs assumed, lowers the base RTT and
// the window's ceiling to 1.5·10 µs·12.5 B/ns. A NACK of a trimmed packet
// then cuts the window by its payload.
func ExampleNSCC() {
	n, err := rp.NewNSCC(rp.NSCCDefault(100*units.Gbps, 12*units.Microsecond, 4096))
	if err != nil {
		panic(err)
	}
	fmt.Println("cwnd:", n.Window(), "window the NIC reads:", n.Limits().Window)
	p := &cc.Packet{Seq: 0, Payload: 4096, Size: 4178}
	_ = n.Sent(0, p, nil)
	ack := &cc.Feedback{Kind: cc.FeedbackAck, Acked: 4096, Data: p.Hdr}
	_ = n.Feedback(10*units.Microsecond, ack, nil)
	fmt.Println("base RTT:", n.State().BaseRTT, "ns, cwnd:", n.Window())
	_ = n.Sent(11*units.Microsecond, p, nil) // resent: a retransmission
	nack := &cc.Feedback{Kind: cc.FeedbackNak, Data: p.Hdr}
	wire.MarkUECTrimmed(&nack.Data, true)
	_ = n.Feedback(22*units.Microsecond, nack, nil) // its RTT, 11 µs, is above the base
	fmt.Println("after the NACK, cwnd:", n.Window())
	// Output:
	// cwnd: 225KB window the NIC reads: 220.905KB
	// base RTT: 10000 ns, cwnd: 187.5KB
	// after the NACK, cwnd: 183.404KB
}
