package window

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/fixedpoint"
)

// TestAppendRegisters: the snapshot lists W, Wc, incStage, lastUpdateSeq,
// R, the commit count and the first hops' references, each value fitting
// its width and equal to State's; it allocates nothing when dst has room.
func TestAppendRegisters(t *testing.T) {
	w, err := New(paperSim())
	require.NoError(t, err)
	w.Update(fixedpoint.UQ32_32One*2, true, 777)
	w.UpdateHops([]fixedpoint.UQ32_32{fixedpoint.UQ32_32One / 2, fixedpoint.UQ32_32One * 3}, 3, true, 999)
	regs := w.AppendRegisters(nil, 5)
	require.Len(t, regs, 6+2*5)
	s := w.State()
	want := map[string]uint64{
		"w": uint64(s.W), "wc": uint64(s.Wc), "inc_stage": uint64(s.IncStage), "last_update_seq": s.LastUpdateSeq,
		"rate": uint64(s.Rate), "commits": s.Commits,
		"hop0.wc": uint64(s.Hops[0].Wc), "hop0.inc_stage": uint64(s.Hops[0].IncStage),
		"hop1.wc": uint64(s.Hops[1].Wc), "hop4.inc_stage": uint64(s.Hops[4].IncStage),
	}
	for _, r := range regs {
		require.True(t, r.Fits(), "%v", r)
		if v, ok := want[r.Name]; ok {
			require.Equal(t, v, r.Value, r.Name)
			delete(want, r.Name)
		}
	}
	require.Empty(t, want, "registers missing")
	require.Len(t, w.AppendRegisters(nil, 99), 6+2*MaxHops)
	require.Len(t, w.AppendRegisters(nil, -1), 6)

	buf := make([]cc.Register, 0, 64)
	allocs := testing.AllocsPerRun(100, func() { buf = w.AppendRegisters(buf[:0], MaxHops) })
	require.Zero(t, allocs)
}
