package rp_test

import (
	"fmt"

	"github.com/hwcc/hwcc/cc"
	inttel "github.com/hwcc/hwcc/int"
	"github.com/hwcc/hwcc/rp"
	"github.com/hwcc/hwcc/units"
)

// An HPCC sender with the paper's simulation parameters (100 Gb/s NIC,
// T = 13 µs) on a one-switch path. The first ACK seeds the hop record; the
// second reports the port busy at line rate for 13 µs with a queue of about
// one BDP in both samples, so U ≈ 2: the window roughly halves
// (W = W_init·η/U + W_AI, line 13) and the pacing rate follows (R = W/T).
//
// In real numbers the fields give U = 2031·80/162500 + 1269·128/162500 =
// 1.9995 and W = 77290 B; the NIC's reciprocal table (ε = 2^-7) reads U
// 0.28 % high and the window 0.13 % low, within its stated bound.
func ExampleHPCC() {
	h, err := rp.NewHPCC(rp.HPCCPaperSim(100 * units.Gbps))
	if err != nil {
		panic(err)
	}
	codec := h.Config().Codec // the INT header's wire format
	port := inttel.Port{SwitchID: 0x2a, Rate: 100 * units.Gbps, QLen: 162500}

	// Each data packet's telemetry stack: the empty header the sender
	// attaches, and the switch port's record pushed onto it.
	var first, second cc.Telemetry
	codec.Put(&first, &inttel.Header{})
	codec.Push(10*units.Microsecond, &first, port)
	ack := cc.Feedback{Kind: cc.FeedbackAck, Seq: 1000, SndNxt: 163500, Tel: &first}
	if err := h.Feedback(12*units.Microsecond, &ack, nil); err != nil {
		panic(err)
	}
	fmt.Println("after 1st ACK:", h.Window(), h.Rate())

	port.TxBytes = 162500 // 13 µs at 100 Gb/s
	codec.Put(&second, &inttel.Header{})
	codec.Push(23*units.Microsecond, &second, port)
	ack = cc.Feedback{Kind: cc.FeedbackAck, Seq: 163501, SndNxt: 170000, Tel: &second}
	if err := h.Feedback(25*units.Microsecond, &ack, nil); err != nil {
		panic(err)
	}
	s := h.State()
	fmt.Printf("U = %.4f\n", s.U.Float())
	fmt.Println("after 2nd ACK:", h.Window(), h.Rate(), "commits:", s.Window.Commits)
	fmt.Println("may send with 80 KB in flight:", h.CanSend(80*units.KB))
	// Output:
	// after 1st ACK: 162.5KB 100Gbps
	// U = 2.0051
	// after 2nd ACK: 77.192KB 47.50276923Gbps commits: 1
	// may send with 80 KB in flight: false
}

// The sender as a simulator drives any reaction point: Sent for each
// packet, Feedback for every message of the flow, Limits for the pacing
// rate and the window. A message of a kind HPCC does not use (a CNP) is
// taken and counted in register unused_feedback; an ACK without the
// telemetry stack HPCC measures from is refused, changing nothing.
func ExampleHPCC_Feedback() {
	h, err := rp.NewHPCC(rp.HPCCPaperSim(100 * units.Gbps))
	if err != nil {
		panic(err)
	}
	codec := h.Config().Codec
	port := inttel.Port{SwitchID: 0x2a, Rate: 100 * units.Gbps, QLen: 162500}
	var act cc.Actions // HPCC's sender decides nothing but its limits

	var first, second cc.Telemetry
	codec.Put(&first, &inttel.Header{})
	codec.Push(10*units.Microsecond, &first, port)
	port.TxBytes = 162500
	codec.Put(&second, &inttel.Header{})
	codec.Push(23*units.Microsecond, &second, port)

	_ = h.Sent(0, &cc.Packet{Seq: 0, Payload: 1000, Size: 1082}, &act)
	ack := cc.Feedback{Kind: cc.FeedbackAck, Seq: 1000, SndNxt: 163500, Tel: &first}
	if err := h.Feedback(12*units.Microsecond, &ack, &act); err != nil {
		panic(err)
	}
	ack = cc.Feedback{Kind: cc.FeedbackAck, Seq: 163501, SndNxt: 170000, Tel: &second}
	if err := h.Feedback(25*units.Microsecond, &ack, &act); err != nil {
		panic(err)
	}
	lim := h.Limits()
	fmt.Printf("rate %v window %v credited %v\n", lim.Rate, lim.Window, lim.Credited)
	cnp := cc.Feedback{Kind: cc.FeedbackCNP}
	fmt.Println(h.Feedback(26*units.Microsecond, &cnp, &act), "unused:", h.State().Unused)
	ack.Tel = nil
	fmt.Println(h.Feedback(27*units.Microsecond, &ack, &act))
	// Output:
	// rate 47.50276923Gbps window 77.192KB credited false
	// <nil> unused: 1
	// rp.HPCC Feedback: the ack carries no telemetry
}
