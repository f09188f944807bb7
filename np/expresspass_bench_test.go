package np

import (
	"testing"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// BenchmarkExpressPassReceiverTimer: one credit departure per call (an
// Algorithm 1 update every few calls).
func BenchmarkExpressPassReceiverTimer(b *testing.B) {
	r := expressPassReceiver(b, nil)
	act := cc.NewActions(1)
	_ = r.Feedback(0, &cc.Feedback{Kind: cc.FeedbackCreditRequest}, act)
	p := cc.Packet{Size: 1082}
	b.ReportAllocs()
	for b.Loop() {
		act.Reset()
		d := r.NextDeadline()
		_ = r.Timer(d, act)
		wire.PutExpressPassEcho(&p.Hdr, act.At(0).Feedback.Seq)
		_ = r.Receive(d, &p, act) // keeps Algorithm 1 running
	}
}

// BenchmarkExpressPassReceiverReceive: one echo per call, every fifth
// credit lost.
func BenchmarkExpressPassReceiverReceive(b *testing.B) {
	r := expressPassReceiver(b, nil)
	act := cc.NewActions(1)
	_ = r.Feedback(0, &cc.Feedback{Kind: cc.FeedbackCreditRequest}, act)
	p := cc.Packet{Size: 1082}
	seq := uint64(0)
	now := units.Time(0)
	b.ReportAllocs()
	for b.Loop() {
		seq = expressPassSeqNext(seq, r.seqMax)
		if seq%5 == 0 {
			seq = expressPassSeqNext(seq, r.seqMax)
		}
		wire.PutExpressPassEcho(&p.Hdr, seq)
		now += units.Nanosecond
		act.Reset()
		_ = r.Receive(now, &p, act)
	}
}
