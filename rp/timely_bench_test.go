package rp_test

import (
	"testing"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/rp"
	"github.com/hwcc/hwcc/units"
)

// BenchmarkTIMELYAck: per iteration one Sent of a 1000-byte packet and the ACK
// that completes its segment (segments of 1000 B: every ACK is an RTT
// sample and a run of Algorithm 1), with RTTs moving through every region.
func BenchmarkTIMELYAck(b *testing.B) {
	c := rp.TIMELYScaled(100 * units.Gbps)
	c.SegmentBytes = 1000
	r, _ := rp.NewTIMELY(c)
	act := cc.NewActions(1)
	p := &cc.Packet{Payload: 1000, Size: 1082}
	f := &cc.Feedback{Kind: cc.FeedbackAck}
	now, seq := units.Time(0), uint64(0)
	b.ReportAllocs()
	for b.Loop() {
		p.Seq = seq
		_ = r.Sent(now, p, act)
		seq += 1000
		f.Seq = seq
		now += units.Time(seq%97) * 7 * units.Microsecond
		_ = r.Feedback(now, f, act)
	}
}

// BenchmarkTIMELYAckPaper: the paper's 16 KiB segments: 16 Sent and 16 ACKs per
// iteration, one of which completes the segment.
func BenchmarkTIMELYAckPaper(b *testing.B) {
	r, _ := rp.NewTIMELY(rp.TIMELYPaper(10 * units.Gbps))
	act := cc.NewActions(1)
	p := &cc.Packet{Payload: 1024, Size: 1106}
	f := &cc.Feedback{Kind: cc.FeedbackAck}
	now, seq := units.Time(0), uint64(0)
	b.ReportAllocs()
	for b.Loop() {
		for range 16 {
			p.Seq = seq
			_ = r.Sent(now, p, act)
			seq += 1024
			now += units.Microsecond
		}
		for i := range 16 {
			f.Seq = seq - 15*1024 + uint64(i)*1024
			now += units.Time(seq%53) * units.Microsecond
			_ = r.Feedback(now, f, act)
		}
	}
}

// BenchmarkTIMELYOnRTT: Algorithm 1 alone, per sample.
func BenchmarkTIMELYOnRTT(b *testing.B) {
	r, _ := rp.NewTIMELY(rp.TIMELYPaper(10 * units.Gbps))
	now := units.Time(0)
	b.ReportAllocs()
	for b.Loop() {
		now += units.Microsecond
		_ = r.OnRTT(now, units.Time(now%(700*units.Microsecond)))
	}
}

// BenchmarkTIMELYSent: Sent of 1000-byte packets (one segment opened per 16).
func BenchmarkTIMELYSent(b *testing.B) {
	r, _ := rp.NewTIMELY(rp.TIMELYPaper(10 * units.Gbps))
	p := &cc.Packet{Payload: 1000}
	f := &cc.Feedback{Kind: cc.FeedbackAck}
	seq := uint64(0)
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		i++
		p.Seq = seq
		_ = r.Sent(units.Time(i), p, nil)
		seq += 1000
		if i%1024 == 0 { // keep the ring from filling
			f.Seq = seq
			_ = r.Feedback(units.Time(i), f, nil)
		}
	}
}

func BenchmarkTIMELYAppendRegisters(b *testing.B) {
	r, _ := rp.NewTIMELY(rp.TIMELYPaper(10 * units.Gbps))
	dst := make([]cc.Register, 0, 32)
	b.ReportAllocs()
	for b.Loop() {
		dst = r.AppendRegisters(dst[:0])
	}
}
