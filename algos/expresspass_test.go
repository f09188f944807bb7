package algos

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/np"
	"github.com/hwcc/hwcc/rp"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

func expressPassSpecs(t *testing.T) (*cc.Spec[np.ExpressPassConfig], *cc.Spec[rp.ExpressPassConfig]) {
	a, err := cc.Lookup("expresspass")
	require.NoError(t, err)
	nps, err := a.Part("np")
	require.NoError(t, err)
	rps, err := a.Part("rp")
	require.NoError(t, err)
	require.Equal(t, cc.RoleNP, nps.Role)
	require.Equal(t, cc.RoleRP, rps.Role)
	return nps.Config.(*cc.Spec[np.ExpressPassConfig]), rps.Config.(*cc.Spec[rp.ExpressPassConfig])
}

// The defaults are the paper's presets, and every listed default given
// back as a setting rebuilds them.
func TestExpressPassRegistryDefaults(t *testing.T) {
	ns, rs := expressPassSpecs(t)
	settings := func(d cc.Description) []cc.Setting {
		var st []cc.Setting
		for _, p := range d.Params {
			require.NotEmpty(t, p.Default, p.Name)
			require.NotEmpty(t, p.Source, p.Name)
			st = append(st, cc.Setting{Name: p.Name, Value: p.Default})
		}
		return st
	}
	n, err := ns.Config("np", settings(ns.Describe()))
	require.NoError(t, err)
	require.Equal(t, np.ExpressPassPaper(100*units.Gbps), n)
	r, err := rs.Config("rp", settings(rs.Describe()))
	require.NoError(t, err)
	require.Equal(t, rp.ExpressPassPaper(), r)

	p, err := cc.NewNP("expresspass", "np", "link=25Gbps, update_period=20us, target_loss=0.1")
	require.NoError(t, err)
	c := p.(*np.ExpressPass).Config()
	require.Equal(t, 25*units.Gbps, c.Link)
	require.Equal(t, 20*units.Microsecond, c.UpdatePeriod)
	require.Equal(t, 0.1, c.TargetLoss)
	q, err := cc.NewRP("expresspass", "rp", "frame_bytes=1082B, depth=4, size=1MB")
	require.NoError(t, err)
	require.Equal(t, cc.Limits{Credited: true}, q.Limits())
	require.Equal(t, units.Bytes(1_000_000), q.(*rp.ExpressPass).Config().Size)
}

// Where the parts run sets what the paper ties to it: the update period
// is the flow's base RTT, each flow's jitter seed differs, the sender
// learns the flow's size, number and a stop timeout of 2 base RTTs; an
// explicit setting wins.
func TestExpressPassRegistryEnv(t *testing.T) {
	ns, rs := expressPassSpecs(t)
	env := &cc.Env{Rate: 25 * units.Gbps, BaseRTT: 12 * units.Microsecond, Size: 75_000, Index: 8}
	n, err := ns.ConfigIn("np", env, nil)
	require.NoError(t, err)
	require.Equal(t, 25*units.Gbps, n.Link)
	require.Equal(t, 12*units.Microsecond, n.UpdatePeriod)
	require.Equal(t, expressPassSeed(8), n.Seed)
	require.NotEqual(t, expressPassSeed(8), expressPassSeed(9))
	n, err = ns.ConfigIn("np", env, []cc.Setting{{Name: "update_period", Value: "5us"}, {Name: "seed", Value: "3"}})
	require.NoError(t, err)
	require.Equal(t, 5*units.Microsecond, n.UpdatePeriod)
	require.Equal(t, uint32(3), n.Seed)
	r, err := rs.ConfigIn("rp", env, nil)
	require.NoError(t, err)
	require.Equal(t, units.Bytes(75_000), r.Size)
	require.Equal(t, cc.FlowID(7), r.Flow)
	require.Equal(t, 24*units.Microsecond, r.StopTimeout)
	for i := 1; i < 1<<16; i++ {
		require.NotZero(t, expressPassSeed(i))
	}
}

// Out-of-range values are refused naming the parameter (by the
// description) or the field (by New).
func TestExpressPassRegistryRefuses(t *testing.T) {
	for _, c := range []struct{ part, settings, field string }{
		{"np", "alpha=0", "alpha"},
		{"np", "w_max=1", "w_max"},
		{"np", "jitter_min=0.1", "jitter_min"},
		{"np", "seed=0", "seed"},
		{"np", "seq_bits=7", "seq_bits"},
		{"np", "update_period=0s", "update_period"},
		{"np", "w_min=0.6", "WMin"},
		{"np", "credit_bytes=2000B", "CreditBytes"},
		{"rp", "depth=17", "depth"},
		{"rp", "frame_bytes=63B", "frame_bytes"},
		{"rp", "size=-1B", "size"},
	} {
		_, err := cc.New("expresspass", c.part, c.settings)
		var ce *cc.ConfigError
		require.ErrorAs(t, err, &ce, c.settings)
		require.Equal(t, c.field, ce.Field, "%s: %v", c.settings, err)
	}
}

// Built through the registry, the parts exchange a request, credits and
// echoes: the receiver's credits are what the sender takes.
func TestExpressPassRegistryExchange(t *testing.T) {
	np, err := cc.NewNP("expresspass", "np", "")
	require.NoError(t, err)
	rp, err := cc.NewRP("expresspass", "rp", "size=10KB")
	require.NoError(t, err)
	act := cc.NewActions(2)
	require.NoError(t, rp.Timer(0, act))
	req := act.At(0).Feedback
	act.Reset()
	require.NoError(t, np.Feedback(0, &req, act))
	stopped := false
	for sent := uint64(0); !stopped; {
		now := np.NextDeadline()
		if act.Len() == 0 {
			require.NoError(t, np.Timer(now, act))
		} else {
			now = 0
		}
		c := act.At(0).Feedback
		act.Reset()
		require.NoError(t, rp.Feedback(now, &c, act))
		require.Equal(t, units.Bytes(1538), rp.Limits().Credit)
		p := cc.Packet{Seq: sent, Payload: 1000, Size: 1082}
		require.NoError(t, rp.Sent(now, &p, act))
		echo, err := wire.ExpressPassEcho(&p.Hdr)
		require.NoError(t, err)
		require.Equal(t, c.Seq, echo)
		nact := cc.NewActions(1) // the receiver decides nothing here: no credit is due
		require.NoError(t, np.Receive(now, &p, nact))
		require.Zero(t, nact.Len())
		sent += 1000
		if act.Len() > 0 {
			stop := act.At(0).Feedback
			require.Equal(t, cc.FeedbackCreditStop, stop.Kind)
			require.NoError(t, np.Feedback(now, &stop, nact))
			require.Zero(t, nact.Len())
			stopped = true
			require.Equal(t, uint64(10_000), sent)
		}
		act.Reset()
	}
	require.Equal(t, units.MaxTime, np.NextDeadline())
}
