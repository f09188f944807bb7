package cp

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
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
	// [HPCC] §5.1: K = 30 KB·Bw/10 Gb/s, KB = 1000 B.
	require.Equal(t, units.Bytes(30000), DCTCPHPCCSim(10*units.Gbps).K)
	require.Equal(t, units.Bytes(300000), DCTCPHPCCSim(100*units.Gbps).K)
	require.Equal(t, units.Bytes(75000), DCTCPHPCCSim(25*units.Gbps).K)
	require.Error(t, DCTCPHPCCSim(1<<62).Validate(), "an absurd link fails instead of wrapping")
}

func TestDCTCPBadInput(t *testing.T) {
	for _, cfg := range []DCTCPConfig{{K: -1}, {K: DCTCPMaxThreshold + 1}, {K: 10, MarkAt: DCTCPMarkDequeue + 1}} {
		_, err := NewDCTCP(cfg)
		var ce *cc.ConfigError
		require.ErrorAs(t, err, &ce)
		if cfg.K == 10 {
			require.Equal(t, "MarkAt", ce.Field)
		} else {
			require.Equal(t, "K", ce.Field)
		}
	}
	c, err := NewDCTCP(DCTCPConfig{K: 10})
	require.NoError(t, err)
	_, err = c.OnEnqueue(5, 20)
	require.NoError(t, err)
	before := c.State()
	_, err = c.OnEnqueue(4, 20)
	var te *cc.TimeOrderError
	require.ErrorAs(t, err, &te)
	require.Equal(t, units.Time(4), te.Now)
	require.Equal(t, units.Time(5), te.Last)
	_, err = c.OnEnqueue(6, -1)
	require.ErrorIs(t, err, cc.ErrEvent)
	require.ErrorContains(t, err, "queue length")
	_, err = c.OnDequeue(6, -1)
	require.ErrorIs(t, err, cc.ErrEvent)
	require.Equal(t, before, c.State())
}

// The marking point: under DCTCPMarkEnqueue only OnEnqueue judges, under
// DCTCPMarkDequeue only OnDequeue; the other event records its time.
func TestDCTCPMarkAt(t *testing.T) {
	for _, at := range []DCTCPMarkAt{DCTCPMarkEnqueue, DCTCPMarkDequeue} {
		c, err := NewDCTCP(DCTCPConfig{K: 100, MarkAt: at})
		require.NoError(t, err)
		enq, err := c.OnEnqueue(1, 200)
		require.NoError(t, err)
		deq, err := c.OnDequeue(2, 200)
		require.NoError(t, err)
		require.Equal(t, at == DCTCPMarkEnqueue, enq, "%v", at)
		require.Equal(t, at == DCTCPMarkDequeue, deq, "%v", at)
		s := c.State()
		require.Equal(t, uint64(1), s.Packets, "%v: one packet judged", at)
		require.Equal(t, uint64(1), s.Marked, "%v", at)
		require.Equal(t, units.Time(2), s.Time.Last())
	}
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

// BenchmarkDCTCPOnDequeue: the typed dequeue under DCTCPMarkDequeue.
func BenchmarkDCTCPOnDequeue(b *testing.B) {
	cfg := DCTCPHPCCSim(100 * units.Gbps)
	cfg.MarkAt = DCTCPMarkDequeue
	c, _ := NewDCTCP(cfg)
	now := units.Time(0)
	b.ReportAllocs()
	for b.Loop() {
		now++
		_, _ = c.OnDequeue(now, 400*units.KB)
	}
}
