package rp_test

import (
	"fmt"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/rp"
	"github.com/hwcc/hwcc/units"
)

// ExampleTIMELY: a flow with the paper's 10 Gb/s constants, started at 5 Gb/s,
// sends one 16 KiB segment as 16 packets of 1 KiB back to back at line
// rate; the ACK that completes it comes 40 µs after the first packet left.
// The sample leaves out the segment's serialisation (16 384 B at 10 Gb/s
// = 13.1072 µs): 26.8928 µs exactly, 26 893 ns in the register (the
// serialisation is 16384·52429 >> 16 = 13 107 ns, 0.8 ns per byte held as
// 52429/65536), below Tlow: R grows by δ.
func ExampleTIMELY() {
	c := rp.TIMELYPaper(10 * units.Gbps)
	c.InitialRate = 5 * units.Gbps
	r, _ := rp.NewTIMELY(c)
	for i := range 16 {
		t := units.Time(i) * 819200 * units.Picosecond // 1024 B at 10 Gb/s
		_ = r.Sent(t, &cc.Packet{Seq: uint64(i) * 1024, Payload: 1024}, nil)
	}
	_ = r.Feedback(40*units.Microsecond, &cc.Feedback{Kind: cc.FeedbackAck, Seq: 16384}, nil)
	fmt.Printf("rtt %d ns, rate %v\n", r.State().PrevRTT, r.Limits().Rate)
	// Output:
	// rtt 26893 ns, rate 5.01Gbps
}

// ExampleTIMELY_Feedback: Algorithm 1 on a sequence of RTT samples, one
// per ACK: segments of one byte, each acknowledged rtt after it was sent,
// and no serialisation subtracted, so that each sample is rtt. The RTT
// rising 1 µs per sample is a gradient of about 1/20 (minRTT 20 µs): R
// falls by β·gradient ≈ 4 % a sample; when the RTT stops rising rtt_diff
// decays (the EWMA's α = 7/8) to 0 and R grows by δ, by 5δ (HAI) from the
// fifth increase in a row; a sample above Thigh cuts R by β(1 − Thigh/rtt).
//
// The output by hand, from Algorithm 1 in TIMELY's integer form (αQ = 57344 =
// 7/8, βQ = round(0.8·2^16) = 52429, ρ = round(2^40/20000) = 54975581;
// rates in kb/s):
//
//	51 µs  the first sample, new_rtt_diff 0: gradient region, ≤ 0: +δ,
//	       5 000 000 + 10 000 = 5 010 000.
//	52 µs  rtt_diff = 0 + ⌊1000·7/8⌋ = 875; g = ⌊875·ρ/2^24⌋ = 2867
//	       (0.04375 exactly); m = ⌊52429·2867/2^16⌋ = 2293;
//	       R = 5 010 000 − ⌊5 010 000·2293/2^16⌋ = 5 010 000 − 175 291 =
//	       4 834 709 (the float model: 5.01·(1 − 0.8·0.04375) = 4.83465 Gb/s).
//	53 µs  rtt_diff = 875 + ⌊125·7/8⌋ = 984; g = 3224, m = 2579;
//	       R = 4 834 709 − 190 257 = 4 644 452.
//	53 µs  new_rtt_diff 0: rtt_diff = x + ⌊−7x/8⌋, 984 → 123 → 15 → 1 → 0,
//	       three more small cuts (g = 403, 49, 3), then increases: +δ for
//	       the 1st to 4th, +5δ = 50 000 for the 5th and 6th.
//	600 µs rtt_diff = ⌊547 000·7/8⌋ = 478 625 (gradient 23.93125); above
//	       Thigh: f = ⌊100 000·2^16/600 000⌋ = 10922, m = ⌊52429·10922/2^16⌋
//	       = 8737, R = 4 758 743 − ⌊4 758 743·8737/2^16⌋ = 4 124 327 (the
//	       float model: 4.758743·(1 − 0.8/6) = 4.124244 Gb/s).
func ExampleTIMELY_Feedback() {
	c := rp.TIMELYPaper(10 * units.Gbps)
	c.InitialRate = 5 * units.Gbps
	c.SegmentBytes, c.SubtractSerialization = 1, false
	r, _ := rp.NewTIMELY(c)
	for i, us := range []int{51, 52, 53, 53, 53, 53, 53, 53, 53, 53, 53, 53, 600} {
		sent := units.Time(i) * units.Millisecond
		_ = r.Sent(sent, &cc.Packet{Seq: uint64(i), Payload: 1}, nil)
		ack := &cc.Feedback{Kind: cc.FeedbackAck, Seq: uint64(i) + 1}
		_ = r.Feedback(sent+units.Time(us)*units.Microsecond, ack, nil)
		s := r.State()
		fmt.Printf("rtt %3d µs: rtt_diff %4d ns, gradient %.4f, increases %d, rate %v\n",
			us, s.RTTDiff, float64(s.Gradient)/rp.TIMELYQOne, s.Increases, r.Rate())
	}
	// Output:
	// rtt  51 µs: rtt_diff    0 ns, gradient 0.0000, increases 1, rate 5.01Gbps
	// rtt  52 µs: rtt_diff  875 ns, gradient 0.0437, increases 0, rate 4.834709Gbps
	// rtt  53 µs: rtt_diff  984 ns, gradient 0.0492, increases 0, rate 4.644452Gbps
	// rtt  53 µs: rtt_diff  123 ns, gradient 0.0061, increases 0, rate 4.621633Gbps
	// rtt  53 µs: rtt_diff   15 ns, gradient 0.0007, increases 0, rate 4.618883Gbps
	// rtt  53 µs: rtt_diff    1 ns, gradient 0.0000, increases 0, rate 4.618743Gbps
	// rtt  53 µs: rtt_diff    0 ns, gradient 0.0000, increases 1, rate 4.628743Gbps
	// rtt  53 µs: rtt_diff    0 ns, gradient 0.0000, increases 2, rate 4.638743Gbps
	// rtt  53 µs: rtt_diff    0 ns, gradient 0.0000, increases 3, rate 4.648743Gbps
	// rtt  53 µs: rtt_diff    0 ns, gradient 0.0000, increases 4, rate 4.658743Gbps
	// rtt  53 µs: rtt_diff    0 ns, gradient 0.0000, increases 5, rate 4.708743Gbps
	// rtt  53 µs: rtt_diff    0 ns, gradient 0.0000, increases 6, rate 4.758743Gbps
	// rtt 600 µs: rtt_diff 478625 ns, gradient 23.9312, increases 0, rate 4.124327Gbps
}
