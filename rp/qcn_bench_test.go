package rp

import (
	"testing"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
)

// BenchmarkQCNSent: one 1500-byte frame per iteration into an active
// limiter's byte counter (an increase every 50–100 frames); a CNM every
// 512 frames keeps it active (it would recover to the line rate and stop
// counting within about 1500).
func BenchmarkQCNSent(b *testing.B) {
	r, _ := NewQCN(QCNStandard(100 * units.Gbps))
	p := &cc.Packet{Size: 1500}
	f := qcnCNMFeedback(20)
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

// BenchmarkQCNFeedback: one CNM per iteration (decode and decrease).
func BenchmarkQCNFeedback(b *testing.B) {
	r, _ := NewQCN(QCNStandard(100 * units.Gbps))
	f := qcnCNMFeedback(5)
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		i++
		_ = r.Feedback(units.Time(i), f, nil)
	}
}

// BenchmarkQCNTimer: one timer expiry per iteration, at the deadline; a CNM
// re-activates the limiter when it has recovered.
func BenchmarkQCNTimer(b *testing.B) {
	r, _ := NewQCN(QCNStandard(100 * units.Gbps))
	f := qcnCNMFeedback(63)
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
