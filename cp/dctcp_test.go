package cp

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/units"
)

// The marker marks exactly when q > K (DCTCP paper section 3.1: "greater
// than K").
func TestDCTCPThreshold(t *testing.T) {
	c, err := NewDCTCP(DCTCPConfig{K: 30000})
	require.NoError(t, err)
	for i, tc := range []struct {
		q    units.Bytes
		want bool
	}{{0, false}, {29999, false}, {30000, false}, {30001, true}, {1 << 40, true}} {
		got, err := c.OnEnqueue(units.Time(i), tc.q)
		require.NoError(t, err)
		require.Equal(t, tc.want, got, "q=%d", tc.q)
	}
	s := c.State()
	require.Equal(t, uint64(5), s.Packets)
	require.Equal(t, uint64(2), s.Marked)
}

func TestDCTCPHPCCSimPreset(t *testing.T) {
	// papers/hpcc.txt §5.1: K = 30 KB·Bw/10 Gb/s, KB = 1000 B.
	require.Equal(t, units.Bytes(30000), DCTCPHPCCSim(10*units.Gbps).K)
	require.Equal(t, units.Bytes(300000), DCTCPHPCCSim(100*units.Gbps).K)
	require.Equal(t, units.Bytes(75000), DCTCPHPCCSim(25*units.Gbps).K)
	require.Error(t, DCTCPHPCCSim(1<<62).Validate(), "an absurd link fails instead of wrapping")
}

func TestDCTCPBadInput(t *testing.T) {
	_, err := NewDCTCP(DCTCPConfig{K: -1})
	require.ErrorContains(t, err, "K =")
	_, err = NewDCTCP(DCTCPConfig{K: DCTCPMaxThreshold + 1})
	require.ErrorContains(t, err, "K =")
	c, err := NewDCTCP(DCTCPConfig{K: 10})
	require.NoError(t, err)
	_, err = c.OnEnqueue(5, 20)
	require.NoError(t, err)
	before := c.State()
	_, err = c.OnEnqueue(4, 20)
	require.ErrorContains(t, err, "before the previous call")
	_, err = c.OnEnqueue(6, -1)
	require.ErrorContains(t, err, "qlen")
	require.Equal(t, before, c.State())
}

func TestDCTCPOnEnqueueNoAllocs(t *testing.T) {
	c, err := NewDCTCP(DCTCPHPCCSim(100 * units.Gbps))
	require.NoError(t, err)
	now := units.Time(0)
	require.Zero(t, testing.AllocsPerRun(1000, func() {
		now++
		_, _ = c.OnEnqueue(now, 400*units.KB)
	}))
}

func BenchmarkDCTCPOnEnqueue(b *testing.B) {
	c, _ := NewDCTCP(DCTCPHPCCSim(100 * units.Gbps))
	now := units.Time(0)
	b.ReportAllocs()
	for b.Loop() {
		now++
		_, _ = c.OnEnqueue(now, 400*units.KB)
	}
}
