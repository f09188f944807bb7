package rp_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/rp"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

func bfcPause(t *testing.T, m wire.BFCPause) *cc.Feedback {
	t.Helper()
	f, err := m.Feedback(3)
	require.NoError(t, err)
	return &f
}

// TestBFCSenderPause: the window is line·baseRTT (100 Gb/s × 12 µs =
// 150 KB); a pause gates the flow (Credited with no credit) until its
// lease ends, at NextDeadline, or a resume; a pause until resumed has no
// deadline; a pause while paused moves the end.
func TestBFCSenderPause(t *testing.T) {
	r, err := rp.NewBFC(rp.BFCPaper(100*units.Gbps, 12*units.Microsecond))
	require.NoError(t, err)
	require.Equal(t, cc.Limits{Window: 150 * units.KB}, r.Limits())
	us := units.Microsecond
	require.NoError(t, r.Feedback(10*us, bfcPause(t, wire.BFCPause{Port: wire.BFCHostPort, Lease: 20 * us}), nil))
	require.Equal(t, cc.Limits{Window: 150 * units.KB, Credited: true}, r.Limits())
	require.Equal(t, 30*us, r.NextDeadline())
	require.NoError(t, r.Feedback(20*us, bfcPause(t, wire.BFCPause{Port: wire.BFCHostPort, Lease: 20 * us}), nil))
	require.Equal(t, 40*us, r.NextDeadline())
	require.NoError(t, r.Timer(39*us, nil))
	paused, _ := r.Paused()
	require.True(t, paused)
	require.NoError(t, r.Timer(40*us, nil))
	paused, _ = r.Paused()
	require.False(t, paused)
	require.Equal(t, units.MaxTime, r.NextDeadline())
	// Until resumed; a late Sent does not end it.
	require.NoError(t, r.Feedback(50*us, bfcPause(t, wire.BFCPause{Port: wire.BFCHostPort, Forever: true}), nil))
	require.Equal(t, units.MaxTime, r.NextDeadline())
	require.NoError(t, r.Sent(units.Second, &cc.Packet{Size: 1082, Payload: 1000}, nil))
	require.True(t, r.Limits().Credited)
	require.NoError(t, r.Feedback(units.Second, bfcPause(t, wire.BFCPause{Port: wire.BFCHostPort}), nil))
	require.False(t, r.Limits().Credited)
	regs := r.AppendRegisters(nil)
	want := map[string]uint64{"pauses": 2, "resumes": 1, "expiries": 1}
	for _, reg := range regs {
		if v, ok := want[reg.Name]; ok {
			require.Equal(t, v, reg.Value, reg.Name)
		}
	}
}

// TestBFCSenderRefuses: a pause of a switch's queue, a malformed pause and
// a nil message are refused, changing nothing; another kind is counted.
func TestBFCSenderRefuses(t *testing.T) {
	r, err := rp.NewBFC(rp.BFCConfig{})
	require.NoError(t, err)
	before := r.AppendRegisters(nil)
	require.ErrorIs(t, r.Feedback(1, bfcPause(t, wire.BFCPause{Port: 2, Lease: units.Microsecond}), nil), cc.ErrEvent)
	bad := cc.Feedback{Kind: wire.FeedbackBFCPause}
	require.ErrorIs(t, r.Feedback(1, &bad, nil), cc.ErrDecode)
	require.Error(t, r.Feedback(1, nil, nil))
	require.Equal(t, before, r.AppendRegisters(nil))
	require.NoError(t, r.Feedback(1, &cc.Feedback{Kind: cc.FeedbackAck}, nil))
	require.Equal(t, cc.Limits{}, r.Limits(), "no window: BFCConfig{}")
	_, err = rp.NewBFC(rp.BFCConfig{Window: -1})
	require.ErrorIs(t, err, cc.ErrConfig)
}
