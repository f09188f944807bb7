package np_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/np"
	"github.com/hwcc/hwcc/units"
)

// TestFECNNoAllocs: no event of the notification point allocates, on the
// paths that decide something and those that do not, nor does
// AppendRegisters with room.
func TestFECNNoAllocs(t *testing.T) {
	act := cc.NewActions(4)
	now := units.Time(0)
	p := fecnPkt(1)
	r := fecnNewNP(t, np.FECNSurvey())
	p.CE = true
	n := testing.AllocsPerRun(1000, func() {
		now += 10 * fecnUs
		act.Reset()
		if r.Receive(now, p, act) != nil || r.Feedback(now, &fecnNote, act) != nil || r.Timer(now, act) != nil {
			panic("refused")
		}
	})
	require.Zero(t, n, "NP")
	dst := make([]cc.Register, 0, 16)
	n = testing.AllocsPerRun(100, func() { dst = r.AppendRegisters(dst[:0]) })
	require.Zero(t, n, "AppendRegisters")
}

// BenchmarkFECNReceive: one marked packet per iteration, a notification
// per 50 (1 µs apart, MinInterval 50 µs).
func BenchmarkFECNReceive(b *testing.B) {
	n := fecnNewNP(b, np.FECNSurvey())
	act := cc.NewActions(1)
	p := fecnPkt(1)
	p.CE = true
	now := units.Time(0)
	b.ReportAllocs()
	for b.Loop() {
		now += fecnUs
		act.Reset()
		_ = n.Receive(now, p, act)
	}
}
