package credit

import (
	"testing"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
)

// BenchmarkExpressPassReceiverTimer: one credit departure per call (an
// Algorithm 1 update every few calls).
func BenchmarkExpressPassReceiverTimer(b *testing.B) {
	r := xpRecv(b, nil)
	act := cc.NewActions(1)
	_ = r.Feedback(0, &cc.Feedback{Kind: cc.FeedbackCreditRequest}, act)
	p := cc.Packet{Size: 1082}
	b.ReportAllocs()
	for b.Loop() {
		act.Reset()
		d := r.NextDeadline()
		_ = r.Timer(d, act)
		PutExpressPassEcho(&p.Hdr, act.At(0).Feedback.Seq)
		_ = r.Receive(d, &p, nil) // keeps Algorithm 1 running
	}
}

// BenchmarkExpressPassReceiverReceive: one echo per call, every fifth
// credit lost.
func BenchmarkExpressPassReceiverReceive(b *testing.B) {
	r := xpRecv(b, nil)
	_ = r.Feedback(0, &cc.Feedback{Kind: cc.FeedbackCreditRequest}, cc.NewActions(1))
	p := cc.Packet{Size: 1082}
	seq := uint64(0)
	now := units.Time(0)
	b.ReportAllocs()
	for b.Loop() {
		seq = epSeqNext(seq, r.seqMax)
		if seq%5 == 0 {
			seq = epSeqNext(seq, r.seqMax)
		}
		PutExpressPassEcho(&p.Hdr, seq)
		now += units.Nanosecond
		_ = r.Receive(now, &p, nil)
	}
}

// BenchmarkExpressPassSenderCredit: a credit in, a frame out, per call.
func BenchmarkExpressPassSenderCredit(b *testing.B) {
	x := xpSend(b, nil)
	act := cc.NewActions(2)
	_ = x.Timer(0, act)
	fb := cc.Feedback{Kind: cc.FeedbackCredit}
	p := cc.Packet{Payload: 1000, Size: 1082}
	now := units.Time(0)
	b.ReportAllocs()
	for b.Loop() {
		now += units.Nanosecond
		fb.Seq = fb.Seq%1000 + 1
		act.Reset()
		_ = x.Feedback(now, &fb, act)
		_ = x.Sent(now, &p, act)
	}
}

// BenchmarkExpressPassSenderLimits reads the limits, as a NIC does after
// every event.
func BenchmarkExpressPassSenderLimits(b *testing.B) {
	x := xpSend(b, nil)
	var l cc.Limits
	b.ReportAllocs()
	for b.Loop() {
		l = x.Limits()
	}
	_ = l
}
