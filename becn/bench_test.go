package becn_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/becn"
	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
)

// TestNoAllocs: no event of any part allocates, on the paths that decide
// something and those that do not, nor does AppendRegisters with room.
func TestNoAllocs(t *testing.T) {
	const line = 100 * units.Gbps
	act := cc.NewActions(4)
	now := units.Time(0)
	p := pkt(1)
	for _, m := range []becn.Mode{becn.ModeBECN, becn.ModeFECN} {
		c := newCP(t, becn.SurveyCP(m, line))
		over, under := cc.Queue{Len: c.Config().Threshold + 1}, cc.Queue{Len: 1}
		n := testing.AllocsPerRun(1000, func() {
			now += 10 * us
			p.Flow++
			act.Reset()
			if c.Enqueue(now, p, over, act) != nil || c.Enqueue(now, p, over, act) != nil ||
				c.Enqueue(now, p, under, act) != nil || c.Dequeue(now, p, under, act) != nil || c.Timer(now, act) != nil {
				panic("refused")
			}
		})
		require.Zero(t, n, "CP %v", m)
	}
	np := newNP(t, becn.SurveyNP())
	p.CE = true
	n := testing.AllocsPerRun(1000, func() {
		now += 10 * us
		act.Reset()
		if np.Receive(now, p, act) != nil || np.Feedback(now, &note, act) != nil || np.Timer(now, act) != nil {
			panic("refused")
		}
	})
	require.Zero(t, n, "NP")
	rp := newRP(t, becn.SurveyRP(line))
	f := note
	ack := cc.Feedback{Kind: cc.FeedbackAck}
	i := 0
	n = testing.AllocsPerRun(1000, func() {
		i++
		now += 10 * us // rows of eight, which pause, then a quiet stretch
		if i%8 == 0 {
			now += 200 * us
		}
		if rp.Timer(now, act) != nil || rp.Sent(now, p, act) != nil || rp.Feedback(now, &f, act) != nil ||
			rp.Feedback(now, &ack, act) != nil {
			panic("refused")
		}
		_ = rp.Limits()
	})
	require.Zero(t, n, "RP")
	require.NotZero(t, rp.State().Pauses, "the loop paused")
	dst := make([]cc.Register, 0, 16)
	n = testing.AllocsPerRun(100, func() {
		dst = rp.AppendRegisters(dst[:0])
		dst = np.AppendRegisters(dst[:0])
	})
	require.Zero(t, n, "AppendRegisters")
}

// BenchmarkCPEnqueue: one Enqueue of a congested packet per iteration,
// flows rotating over 64, one notification (BECN) or mark (FECN) per
// packet in 8 on average.
func BenchmarkCPEnqueue(b *testing.B) {
	for _, m := range []becn.Mode{becn.ModeBECN, becn.ModeFECN} {
		b.Run(m.String(), func(b *testing.B) {
			cfg := becn.SurveyCP(m, 100*units.Gbps)
			cfg.MinInterval = 64 * 8 * units.Nanosecond
			c := newCP(b, cfg)
			act := cc.NewActions(1)
			p := pkt(0)
			q := cc.Queue{Len: cfg.Threshold + 1}
			now := units.Time(0)
			b.ReportAllocs()
			for b.Loop() {
				now += units.Nanosecond
				p.Flow = (p.Flow + 1) & 63
				act.Reset()
				_ = c.Enqueue(now, p, q, act)
			}
		})
	}
}

// BenchmarkNPReceive: one marked packet per iteration, a notification per
// 50 (1 µs apart, MinInterval 50 µs).
func BenchmarkNPReceive(b *testing.B) {
	n := newNP(b, becn.SurveyNP())
	act := cc.NewActions(1)
	p := pkt(1)
	p.CE = true
	now := units.Time(0)
	b.ReportAllocs()
	for b.Loop() {
		now += us
		act.Reset()
		_ = n.Receive(now, p, act)
	}
}

// BenchmarkRPFeedback: one notification per iteration, 20 µs apart (rows
// that pause), with the timer run at every deadline passed.
func BenchmarkRPFeedback(b *testing.B) {
	r := newRP(b, becn.SurveyRP(100*units.Gbps))
	f := note
	now := units.Time(0)
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		i++
		now += 20 * us
		if i%16 == 0 {
			now += 10 * tq // a quiet stretch: recovery
		}
		for d := r.NextDeadline(); d <= now; d = r.NextDeadline() {
			_ = r.Timer(d, nil)
		}
		_ = r.Feedback(now, &f, nil)
	}
}

// BenchmarkRPSent: Sent and Limits, the per-packet path of the source.
func BenchmarkRPSent(b *testing.B) {
	r := newRP(b, becn.SurveyRP(100*units.Gbps))
	p := pkt(1)
	now := units.Time(0)
	b.ReportAllocs()
	for b.Loop() {
		now += 80 * units.Nanosecond
		_ = r.Sent(now, p, nil)
		_ = r.Limits()
	}
}
