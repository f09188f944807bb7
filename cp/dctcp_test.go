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
	act := cc.NewActions(1)
	for i, tc := range []struct {
		q    units.Bytes
		want bool
	}{{0, false}, {29999, false}, {30000, false}, {30001, true}, {1 << 40, true}} {
		act.Reset()
		require.NoError(t, c.Enqueue(units.Time(i), &cc.Packet{Size: 1082}, cc.Queue{Len: tc.q}, act))
		require.Equal(t, tc.want, act.Has(cc.ActionMarkCE), "q=%d", tc.q)
		require.Equal(t, act.Len(), act.Count(cc.ActionMarkCE), "q=%d: nothing but the mark", tc.q)
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
	act := cc.NewActions(1)
	p := &cc.Packet{Size: 1082}
	require.NoError(t, c.Enqueue(5, p, cc.Queue{Len: 20}, act))
	act.Reset()
	before := c.State()
	err = c.Enqueue(4, p, cc.Queue{Len: 20}, act)
	var te *cc.TimeOrderError
	require.ErrorAs(t, err, &te)
	require.Equal(t, units.Time(4), te.Now)
	require.Equal(t, units.Time(5), te.Last)
	err = c.Enqueue(6, p, cc.Queue{Len: -1}, act)
	require.ErrorIs(t, err, cc.ErrEvent)
	require.ErrorContains(t, err, "queue length")
	require.ErrorIs(t, c.Dequeue(6, p, cc.Queue{Len: -1}, act), cc.ErrEvent)
	// Every event of a queue has a frame: a nil packet is refused.
	err = c.Enqueue(6, nil, cc.Queue{Len: 20}, act)
	require.ErrorIs(t, err, cc.ErrEvent)
	require.ErrorContains(t, err, "nil packet")
	require.ErrorIs(t, c.Dequeue(6, nil, cc.Queue{}, act), cc.ErrEvent)
	require.Equal(t, before, c.State())
	require.Zero(t, act.Len())
}

// The marking point: under DCTCPMarkEnqueue only Enqueue judges, under
// DCTCPMarkDequeue only Dequeue; the other event records its time.
func TestDCTCPMarkAt(t *testing.T) {
	for _, at := range []DCTCPMarkAt{DCTCPMarkEnqueue, DCTCPMarkDequeue} {
		c, err := NewDCTCP(DCTCPConfig{K: 100, MarkAt: at})
		require.NoError(t, err)
		enq, deq := cc.NewActions(1), cc.NewActions(1)
		require.NoError(t, c.Enqueue(1, &cc.Packet{}, cc.Queue{Len: 200}, enq))
		require.NoError(t, c.Dequeue(2, &cc.Packet{}, cc.Queue{Len: 200}, deq))
		require.Equal(t, at == DCTCPMarkEnqueue, enq.Has(cc.ActionMarkCE), "%v", at)
		require.Equal(t, at == DCTCPMarkDequeue, deq.Has(cc.ActionMarkCE), "%v", at)
		s := c.State()
		require.Equal(t, uint64(1), s.Packets, "%v: one packet judged", at)
		require.Equal(t, uint64(1), s.Marked, "%v", at)
		require.Equal(t, units.Time(2), s.Time.Last())
	}
}
