package mercury_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/mercury"
	"github.com/hwcc/hwcc/rp"
	"github.com/hwcc/hwcc/units"
)

func cnp(flow cc.FlowID, w mercury.Window, win uint32) *cc.Feedback {
	f := &cc.Feedback{Kind: cc.FeedbackCNP, Flow: flow}
	w.Put(&f.Data, win)
	return f
}

// TestSenderWindow: the window starts at C·baseRTT; a CNP's window
// becomes cwnd (capped at C·baseRTT) and cuts DCQCN's rate as a plain CNP
// would; a CNP with window 0 is a plain CNP; ResetAfter without a CNP
// restores C·baseRTT (Algorithm 2, lines 15–20).
func TestSenderWindow(t *testing.T) {
	cfg := mercury.PaperSender(line40, rtt16)
	s, err := mercury.NewSender(cfg)
	require.NoError(t, err)
	bdp := units.BytesIn(line40, rtt16)
	require.Equal(t, cc.Limits{Rate: line40, Window: bdp}, s.Limits())

	// A plain DCQCN run alongside, for the rate.
	d, err := rp.NewDCQCN(cfg.DCQCN)
	require.NoError(t, err)

	require.NoError(t, s.Feedback(10*us, cnp(1, cfg.Window, 12_000), nil))
	require.NoError(t, d.Feedback(10*us, &cc.Feedback{Kind: cc.FeedbackCNP}, nil))
	require.Equal(t, units.Bytes(12_000), s.Limits().Window)
	require.Equal(t, d.Limits().Rate, s.Limits().Rate, "DCQCN's cut, unchanged")
	require.Less(t, s.Limits().Rate, line40)

	require.NoError(t, s.Feedback(20*us, cnp(1, cfg.Window, 1<<31), nil))
	require.Equal(t, bdp, s.Limits().Window, "capped at C·baseRTT")
	require.NoError(t, s.Feedback(30*us, cnp(1, cfg.Window, 0), nil))
	require.Equal(t, bdp, s.Limits().Window, "a CNP without a window changes none")
	require.Equal(t, uint64(2), s.State().Windows)

	require.NoError(t, s.Feedback(40*us, cnp(1, cfg.Window, 5000), nil))
	require.LessOrEqual(t, s.NextDeadline(), 140*us, "the reset 100 µs after the last windowed CNP (or DCQCN's timer, earlier)")
	require.NoError(t, s.Timer(139*us, nil))
	require.Equal(t, units.Bytes(5000), s.Limits().Window)
	require.NoError(t, s.Timer(140*us, nil))
	require.Equal(t, bdp, s.Limits().Window, "reset")
	require.Equal(t, uint64(1), s.State().Resets)

	// Other kinds go to DCQCN and change no window; time going back is refused.
	require.NoError(t, s.Feedback(150*us, &cc.Feedback{Kind: cc.FeedbackAck}, nil))
	require.ErrorIs(t, s.Feedback(100*us, cnp(1, cfg.Window, 1), nil), cc.ErrTimeOrder)
	require.Equal(t, bdp, s.Limits().Window)
}

// TestSenderConfig: out-of-range settings are refused.
func TestSenderConfig(t *testing.T) {
	for _, c := range []func(*mercury.SenderConfig){
		func(c *mercury.SenderConfig) { c.InitWindow = 0 },
		func(c *mercury.SenderConfig) { c.ResetAfter = 0 },
		func(c *mercury.SenderConfig) { c.Window.Order = 2 },
		func(c *mercury.SenderConfig) { c.DCQCN.RateUnit = 0 },
	} {
		cfg := mercury.PaperSender(line40, rtt16)
		c(&cfg)
		_, err := mercury.NewSender(cfg)
		require.ErrorIs(t, err, cc.ErrConfig)
	}
}
