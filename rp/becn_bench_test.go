package rp_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/rp"
	"github.com/hwcc/hwcc/units"
)

// TestBECNNoAllocs: no event of the reaction point allocates, on the paths that decide
// something and those that do not, nor does AppendRegisters with room.
func TestBECNNoAllocs(t *testing.T) {
	const line = 100 * units.Gbps
	act := cc.NewActions(4)
	now := units.Time(0)
	p := becnPkt(1)
	r := becnNewRP(t, rp.BECNSurvey(line))
	f := becnNote
	ack := cc.Feedback{Kind: cc.FeedbackAck}
	i := 0
	n := testing.AllocsPerRun(1000, func() {
		i++
		now += 10 * becnUs // rows of eight, which pause, then a quiet stretch
		if i%8 == 0 {
			now += 200 * becnUs
		}
		if r.Timer(now, act) != nil || r.Sent(now, p, act) != nil || r.Feedback(now, &f, act) != nil ||
			r.Feedback(now, &ack, act) != nil {
			panic("refused")
		}
		_ = r.Limits()
	})
	require.Zero(t, n, "RP")
	require.NotZero(t, r.State().Pauses, "the loop paused")
	dst := make([]cc.Register, 0, 16)
	n = testing.AllocsPerRun(100, func() {
		dst = r.AppendRegisters(dst[:0])
	})
	require.Zero(t, n, "AppendRegisters")
}

// BenchmarkBECNFeedback: one notification per iteration, 20 µs apart (rows
// that pause), with the timer run at every deadline passed.
func BenchmarkBECNFeedback(b *testing.B) {
	r := becnNewRP(b, rp.BECNSurvey(100*units.Gbps))
	f := becnNote
	now := units.Time(0)
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		i++
		now += 20 * becnUs
		if i%16 == 0 {
			now += 10 * becnTq // a quiet stretch: recovery
		}
		for d := r.NextDeadline(); d <= now; d = r.NextDeadline() {
			_ = r.Timer(d, nil)
		}
		_ = r.Feedback(now, &f, nil)
	}
}

// BenchmarkBECNSent: Sent and Limits, the per-packet path of the source.
func BenchmarkBECNSent(b *testing.B) {
	r := becnNewRP(b, rp.BECNSurvey(100*units.Gbps))
	p := becnPkt(1)
	now := units.Time(0)
	b.ReportAllocs()
	for b.Loop() {
		now += 80 * units.Nanosecond
		_ = r.Sent(now, p, nil)
		_ = r.Limits()
	}
}
