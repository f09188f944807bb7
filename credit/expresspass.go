package credit

import (
	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
)

// ExpressPass (Cho, Jang, Han, "Credit-Scheduled Delay-Bounded Congestion
// Control for Datacenters", SIGCOMM 2017) in two parts: ExpressPassReceiver,
// the data receiver's notification point that paces credits and runs the
// paper's Algorithm 1 (credit feedback control), and ExpressPassSender, the
// data sender's reaction point that asks for credits, holds them and spends
// one per data frame.
//
// The exchange, as the parts see it through package cc:
//
//	sender Timer at 0        → FeedbackCreditRequest to the destination
//	receiver Feedback(req)   → first FeedbackCredit{Seq: s} to the source, then one per Timer
//	sender Feedback(credit)  → the credit joins a FIFO; Limits().Credit grows by FrameBytes
//	sender Sent(frame)       → spends the oldest credit; frame.Hdr echoes its seq
//	receiver Receive(frame)  → gaps in the echoes are credits the network dropped
//	sender Sent(last byte)   → FeedbackCreditStop to the destination
//
// Each request, credit and stop carries its wire image, an
// ExpressPassPacket, in Feedback.Data; the sender checks a credit's image
// when it has one.
//
// Constants and their sources (the paper's text was not in the reference
// corpora available when this was written; every value below is checked
// against the authors' ns-2 code, github.com/kaist-ina/ns2-xpass, whose
// xpass/xpass.cc implements Algorithm 1 and whose scripts set its
// parameters):
//
//   - credit frame 84 B on the wire (a minimum 64 B Ethernet frame with
//     preamble and inter-frame gap; ns-2 min_credit_size_ = max_credit_size_
//     = 84 in scripts/*.tcl) and largest data frame 1538 B on the wire
//     (max_ethernet_size_ = 1538), so the credit rate that fills a link is
//     link·84/(84+1538) (ns-2 creditBW = linkRate·avgCreditSize/
//     (avgCreditSize+maxEthernetSize)); [ExpressPass] §3.1;
//   - initial rate α·max_rate with α = 1/16 and w_init = 1/16 (ns-2
//     scripts/large-scale-fattree.tcl: alpha 0.0625, w_init 0.0625);
//   - w_max = 0.5 and w_min = 0.01 (xpass.cc: w_ capped at 0.5; min_w_ 0.01);
//   - target_loss = 0.125 (target_loss_scaling_ 0.125 in every script);
//   - credit inter-departure jitter uniform in [−0.1, +0.1] of the interval
//     (min_jitter_ −0.1, max_jitter_ 0.1; xpass.cc send_credit: delay·(1 +
//     jitter));
//   - credit sequence numbers skip 0 (xpass.cc construct_credit:
//     c_seqno_ = max(1, c_seqno_ + 1)), which frees echo 0 to mean "no
//     credit" (PutExpressPassEcho);
//   - credit request retransmitted every 100 µs until the first credit
//     arrives (retransmit_timeout_ 0.0001; xpass.cc handle_sender_retransmit);
//   - a floor of one credit per update period (xpass.cc
//     credit_feedback_control: min_rate = avg_credit_size / rtt_).
const (
	// ExpressPassCreditBytes is a credit frame's wire size: 84 B.
	ExpressPassCreditBytes units.Bytes = 84
	// ExpressPassFrameBytes is the largest data frame's wire size, 1538 B:
	// what one credit allows.
	ExpressPassFrameBytes units.Bytes = 1538
	// ExpressPassDefaultSeed seeds the receiver's jitter generator when
	// nothing better is known (any nonzero 32-bit value works).
	ExpressPassDefaultSeed uint32 = 0x2545F491
	// ExpressPassMaxDepth is the most credits a sender's FIFO holds.
	ExpressPassMaxDepth = 16
)

// epQBits is the fraction width of every ExpressPass gain and loss: Q16,
// 65536 = 1.0. The resolution 1.5e-5 is far below the paper's smallest
// constant (w_min = 0.01, held as 655/65536 = 0.009995).
const (
	epQBits        = 16
	epOne   uint64 = 1 << epQBits
)

// epSeqMax is the largest credit sequence number of a space of bits bits:
// 2^bits − 1. Sequence numbers run 1..epSeqMax and wrap from epSeqMax to 1,
// skipping 0 (see the package's constants).
func epSeqMax(bits uint8) uint64 { return 1<<bits - 1 }

// epSeqNext returns the sequence number after s (1 ≤ s ≤ max).
func epSeqNext(s, max uint64) uint64 {
	if s >= max {
		return 1
	}
	return s + 1
}

// epSeqDist returns how far s is ahead of e in the space 1..max (a ring of
// max values): (s − e) mod max, in 0..max−1.
func epSeqDist(e, s, max uint64) uint64 {
	if s >= e {
		return s - e
	}
	return s + max - e
}

// epXorshift advances Marsaglia's 32-bit xorshift generator (shifts 13, 17,
// 5: period 2^32 − 1 over the nonzero states; three shifts and three XORs
// in hardware) and returns the new state.
func epXorshift(x uint32) uint32 {
	x ^= x << 13
	x ^= x >> 17
	x ^= x << 5
	return x
}

// epQ16 converts a configuration gain f to Q16, rounding to nearest (ties
// away from zero). Configuration only: the state path never sees a float.
func epQ16(f float64) int64 {
	if f < 0 {
		return -int64(-f*float64(epOne) + 0.5)
	}
	return int64(f*float64(epOne) + 0.5)
}

// epEventError is a refused event (errors.Is(err, cc.ErrEvent)). Errors are
// built out of line so that the event paths hold no allocation site.
//
//go:noinline
func epEventError(part, event, reason string) error {
	return &cc.EventError{Part: part, Event: event, Reason: reason}
}

// epEventCause is epEventError with a cause (a *cc.DecodeError, say).
//
//go:noinline
func epEventCause(part, event, reason string, err error) error {
	return &cc.EventError{Part: part, Event: event, Reason: reason, Err: err}
}

// epFull is the *cc.ActionsFullError of an event that needs need actions.
//
//go:noinline
func epFull(part, event string, need int, act *cc.Actions) error {
	return &cc.ActionsFullError{Part: part, Event: event, Need: need, Free: act.Free()}
}
