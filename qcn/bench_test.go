package qcn

import (
	"testing"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
)

// BenchmarkCPEnqueue: one arriving 1500-byte frame per iteration into a
// queue that cycles 0..200 KB (samples every 12–100 frames, CNMs when the
// queue is above Qeq or growing).
func BenchmarkCPEnqueue(b *testing.B) {
	c, _ := NewCP(StandardCP())
	act := cc.NewActions(1)
	p := &cc.Packet{Flow: 1, Size: 1500, Prio: 3}
	q := units.Bytes(0)
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		i++
		q = (q + 1500) % (200 * units.KB)
		act.Reset()
		_ = c.Enqueue(units.Time(i), p, cc.Queue{Len: q}, act)
	}
}

// BenchmarkCPEnqueueSample: every arrival is a sample (a table of 1-byte
// intervals) with jitter, and most send a CNM: the sampling path's cost.
func BenchmarkCPEnqueueSample(b *testing.B) {
	cfg := StandardCP()
	cfg.SampleTable = [8]units.Bytes{1, 1, 1, 1, 1, 1, 1, 1}
	cfg.JitterPercent, cfg.Seed = 10, 1
	c, _ := NewCP(cfg)
	act := cc.NewActions(1)
	p := &cc.Packet{Flow: 1, Size: 1500, Prio: 3}
	q := units.Bytes(0)
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		i++
		q = (q + 1500) % (200 * units.KB)
		act.Reset()
		_ = c.Enqueue(units.Time(i), p, cc.Queue{Len: q}, act)
	}
}

// BenchmarkAFCPEnqueue: BenchmarkCPEnqueue through AF-QCN, frames of the
// eight classes in turn.
func BenchmarkAFCPEnqueue(b *testing.B) {
	a, _ := NewAFCP(PaperAFCP(10 * units.Gbps))
	act := cc.NewActions(1)
	p := &cc.Packet{Flow: 1, Size: 1500}
	q := units.Bytes(0)
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		i++
		q = (q + 1500) % (200 * units.KB)
		p.Prio = uint8(i & 7)
		act.Reset()
		_ = a.Enqueue(units.Time(i), p, cc.Queue{Len: q}, act)
	}
}

// BenchmarkAFCPTimer: one period's end per iteration (eight EWMAs, eight
// divisions), after one frame per class.
func BenchmarkAFCPTimer(b *testing.B) {
	a, _ := NewAFCP(PaperAFCP(10 * units.Gbps))
	p := &cc.Packet{Size: 1500}
	b.ReportAllocs()
	for b.Loop() {
		now := a.NextDeadline()
		for c := range uint8(Classes) {
			p.Prio, p.Size = c, units.Bytes(1000+int(c)*300)
			_ = a.Enqueue(now-1, p, cc.Queue{}, nil)
		}
		_ = a.Timer(now, nil)
	}
}

// BenchmarkRPSent: one 1500-byte frame per iteration into an active
// limiter's byte counter (an increase every 50–100 frames); a CNM every
// 512 frames keeps it active (it would recover to the line rate and stop
// counting within about 1500).
func BenchmarkRPSent(b *testing.B) {
	r, _ := NewRP(StandardRP(100 * units.Gbps))
	p := &cc.Packet{Size: 1500}
	f := cnmFeedback(20)
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		i++
		if i%512 == 1 {
			_ = r.Feedback(units.Time(i), f, nil)
		}
		_ = r.Sent(units.Time(i), p, nil)
	}
}

// BenchmarkRPFeedback: one CNM per iteration (decode and decrease).
func BenchmarkRPFeedback(b *testing.B) {
	r, _ := NewRP(StandardRP(100 * units.Gbps))
	f := cnmFeedback(5)
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		i++
		_ = r.Feedback(units.Time(i), f, nil)
	}
}

// BenchmarkRPTimer: one timer expiry per iteration, at the deadline; a CNM
// re-activates the limiter when it has recovered.
func BenchmarkRPTimer(b *testing.B) {
	r, _ := NewRP(StandardRP(100 * units.Gbps))
	f := cnmFeedback(63)
	now := units.Time(0)
	b.ReportAllocs()
	for b.Loop() {
		if d := r.NextDeadline(); d == units.MaxTime {
			_ = r.Feedback(now, f, nil)
		} else {
			now = d
		}
		_ = r.Timer(now, nil)
	}
}

func BenchmarkDecodeCNM(b *testing.B) {
	buf := CNM{QntzFb: 40, CPID: 7, QOffset: 3, QDelta: -4, Prio: 5}.Append(nil)
	b.ReportAllocs()
	for b.Loop() {
		_, _ = DecodeCNM(buf)
	}
}

func BenchmarkEncodeCNM(b *testing.B) {
	m := CNM{QntzFb: 40, CPID: 7, QOffset: 3, QDelta: -4, Prio: 5}
	var out [CNMLen]byte
	b.ReportAllocs()
	for b.Loop() {
		m.Put(&out)
	}
}

func BenchmarkAppendRegisters(b *testing.B) {
	a, _ := NewAFCP(PaperAFCP(10 * units.Gbps))
	dst := make([]cc.Register, 0, 64)
	b.ReportAllocs()
	for b.Loop() {
		dst = a.AppendRegisters(dst[:0])
	}
}
