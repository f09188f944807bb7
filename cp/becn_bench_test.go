package cp_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cp"
	"github.com/hwcc/hwcc/units"
)

// TestBECNNoAllocs: no event of the congestion point allocates, on the paths that decide
// something and those that do not, nor does AppendRegisters with room.
func TestBECNNoAllocs(t *testing.T) {
	const line = 100 * units.Gbps
	act := cc.NewActions(4)
	now := units.Time(0)
	p := becnPkt(1)
	for _, m := range []cp.BECNMode{cp.BECNModeBECN, cp.BECNModeFECN} {
		c := becnNewCP(t, cp.BECNSurvey(m, line))
		over, under := cc.Queue{Len: c.Config().Threshold + 1}, cc.Queue{Len: 1}
		n := testing.AllocsPerRun(1000, func() {
			now += 10 * becnUs
			p.Flow++
			act.Reset()
			if c.Enqueue(now, p, over, act) != nil || c.Enqueue(now, p, over, act) != nil ||
				c.Enqueue(now, p, under, act) != nil || c.Dequeue(now, p, under, act) != nil || c.Timer(now, act) != nil {
				panic("refused")
			}
		})
		require.Zero(t, n, "CP %v", m)
		dst := make([]cc.Register, 0, 16)
		require.Zero(t, testing.AllocsPerRun(100, func() { dst = c.AppendRegisters(dst[:0]) }), "AppendRegisters")
	}
}

// BenchmarkBECNEnqueue: one Enqueue of a congested packet per iteration,
// flows rotating over 64, one notification (BECN) or mark (FECN) per
// packet in 8 on average.
func BenchmarkBECNEnqueue(b *testing.B) {
	for _, m := range []cp.BECNMode{cp.BECNModeBECN, cp.BECNModeFECN} {
		b.Run(m.String(), func(b *testing.B) {
			cfg := cp.BECNSurvey(m, 100*units.Gbps)
			cfg.MinInterval = 64 * 8 * units.Nanosecond
			c := becnNewCP(b, cfg)
			act := cc.NewActions(1)
			p := becnPkt(0)
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
