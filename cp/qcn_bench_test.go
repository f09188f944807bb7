package cp

import (
	"testing"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
)

// BenchmarkQCNEnqueue: one arriving 1500-byte frame per iteration into a
// queue that cycles 0..200 KB (samples every 12–100 frames, CNMs when the
// queue is above Qeq or growing).
func BenchmarkQCNEnqueue(b *testing.B) {
	c, _ := NewQCN(QCNStandard())
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

// BenchmarkQCNEnqueueSample: every arrival is a sample (a table of 1-byte
// intervals) with jitter, and most send a CNM: the sampling path's cost.
func BenchmarkQCNEnqueueSample(b *testing.B) {
	cfg := QCNStandard()
	cfg.SampleTable = [8]units.Bytes{1, 1, 1, 1, 1, 1, 1, 1}
	cfg.JitterPercent, cfg.Seed = 10, 1
	c, _ := NewQCN(cfg)
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

// BenchmarkAFQCNEnqueue: BenchmarkQCNEnqueue through AF-QCN, frames of the
// eight classes in turn.
func BenchmarkAFQCNEnqueue(b *testing.B) {
	a, _ := NewAFQCN(AFQCNPaper(10 * units.Gbps))
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

// BenchmarkAFQCNTimer: one period's end per iteration (eight EWMAs, eight
// divisions), after one frame per class.
func BenchmarkAFQCNTimer(b *testing.B) {
	a, _ := NewAFQCN(AFQCNPaper(10 * units.Gbps))
	p := &cc.Packet{Size: 1500}
	act := cc.NewActions(1)
	b.ReportAllocs()
	for b.Loop() {
		now := a.NextDeadline()
		for c := range uint8(AFQCNClasses) {
			p.Prio, p.Size = c, units.Bytes(1000+int(c)*300)
			act.Reset()
			_ = a.Enqueue(now-1, p, cc.Queue{}, act)
		}
		_ = a.Timer(now, nil)
	}
}

func BenchmarkAFQCNAppendRegisters(b *testing.B) {
	a, _ := NewAFQCN(AFQCNPaper(10 * units.Gbps))
	dst := make([]cc.Register, 0, 64)
	b.ReportAllocs()
	for b.Loop() {
		dst = a.AppendRegisters(dst[:0])
	}
}
