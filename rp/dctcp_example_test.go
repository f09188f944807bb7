package rp_test

import (
	"fmt"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/rp"
	"github.com/hwcc/hwcc/units"
)

// A DCTCP sender with Linux's gain (g = 1/16) and a 10-segment window sends
// one window, gets it back unmarked (cwnd grows by one MSS; α decays from 1.0
// to 15/16 and 225/256), then sees an ECN echo: α rises by F·g and the window
// is cut once by α/2.
func ExampleDCTCP() {
	d, err := rp.NewDCTCP(rp.DCTCPDefault(1000))
	if err != nil {
		panic(err)
	}
	_ = d.Sent(0, &cc.Packet{Seq: 0, Payload: 10000}, nil)
	for seq := uint64(1000); seq <= 10000; seq += 1000 {
		_ = d.Feedback(units.Microsecond, &cc.Feedback{Kind: cc.FeedbackAck, Seq: seq, Acked: 1000}, nil)
	}
	fmt.Println("cwnd:", d.Window(), "α:", d.Alpha())
	_ = d.Sent(2*units.Microsecond, &cc.Packet{Seq: 10000, Payload: 11000}, nil)
	_ = d.Feedback(3*units.Microsecond, &cc.Feedback{Kind: cc.FeedbackAck, Seq: 11000, Acked: 1000, ECE: true}, nil)
	fmt.Println("cwnd:", d.Window(), "α:", d.Alpha())
	// Output:
	// cwnd: 11KB α: 0.87890625
	// cwnd: 6.124KB α: 0.88671875
}

// The DCTCP sender through the contract: Sent and Feedback take the flow's
// byte offsets from 0 (cc.Packet.Seq, cc.Feedback.Seq) and Limits carries
// the window. One window of ten segments comes back unmarked (cwnd grows by
// one MSS), then an ECN-echo ACK cuts it by α/2.
func ExampleDCTCP_Feedback() {
	d, err := rp.NewDCTCP(rp.DCTCPDefault(1000))
	if err != nil {
		panic(err)
	}
	act := cc.NewActions(1) // DCTCP appends no action
	_ = d.Sent(0, &cc.Packet{Seq: 0, Payload: 10000}, act)
	for seq := uint64(1000); seq <= 10000; seq += 1000 {
		_ = d.Feedback(units.Microsecond, &cc.Feedback{Kind: cc.FeedbackAck, Seq: seq, Acked: 1000}, act)
	}
	fmt.Println("window:", d.Limits().Window)
	_ = d.Sent(2*units.Microsecond, &cc.Packet{Seq: 10000, Payload: 11000}, act)
	_ = d.Feedback(3*units.Microsecond, &cc.Feedback{Kind: cc.FeedbackAck, Seq: 11000, Acked: 1000, ECE: true}, act)
	fmt.Println("window:", d.Limits().Window, "deadline:", d.NextDeadline() == units.MaxTime)
	// Output:
	// window: 11KB
	// window: 6.124KB deadline: true
}
