package rp_test

import (
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cc/cctest"
	"github.com/hwcc/hwcc/rp"
	"github.com/hwcc/hwcc/units"
)

// The contract's conformance suite, on the paper's configuration at the
// generator's 100 Gb/s and on one that samples every 1000-byte packet from
// its first byte (so that most ACKs run Algorithm 1).
func TestTIMELYConformance(t *testing.T) {
	perPacket := rp.TIMELYScaled(100 * units.Gbps)
	perPacket.SegmentBytes, perPacket.Sample = 1000, rp.TIMELYSampleFirst
	for name, c := range map[string]rp.TIMELYConfig{"paper": rp.TIMELYPaper(100 * units.Gbps), "per-packet": perPacket} {
		err := cctest.TestRP(func() (cc.ReactionPoint, error) { return rp.NewTIMELY(c) }, cctest.Options{MaxRate: c.LineRate})
		require.NoError(t, err, name)
		st, err := cctest.TestStats(func() (cc.Part, error) { return rp.NewTIMELY(c) }, cctest.Options{MaxRate: c.LineRate})
		require.NoError(t, err, name)
		require.Greater(t, st.Accepted, st.Calls*9/10, "%s: the well-formed sequences are taken (%+v)", name, st)
	}
	// The suite's sequences do run Algorithm 1: the generator's ACKs
	// complete segments.
	rng := rand.New(rand.NewSource(1))
	r, err := rp.NewTIMELY(perPacket)
	require.NoError(t, err)
	require.NoError(t, cctest.Drive(r, cctest.Events(rng, cc.RoleRP, cctest.GenOptions{}), cc.NewActions(4), nil))
	require.Greater(t, r.State().Samples, uint64(20))
}

// Sent, Feedback (an ACK completing a segment, so a sample and Algorithm
// 1), Timer and AppendRegisters allocate nothing.
func TestTIMELYNoAllocs(t *testing.T) {
	c := rp.TIMELYScaled(100 * units.Gbps)
	c.SegmentBytes = 1000
	r, err := rp.NewTIMELY(c)
	require.NoError(t, err)
	act := cc.NewActions(1)
	p := &cc.Packet{Payload: 1000, Size: 1082}
	f := &cc.Feedback{Kind: cc.FeedbackAck}
	now, seq := units.Time(0), uint64(0)
	require.Zero(t, testing.AllocsPerRun(2000, func() {
		now += units.Microsecond
		p.Seq = seq
		if err := r.Sent(now, p, act); err != nil {
			panic(err)
		}
		seq += 1000
		f.Seq = seq
		if err := r.Feedback(now+units.Time(seq%7)*10*units.Microsecond, f, act); err != nil {
			panic(err)
		}
		now += 70 * units.Microsecond
		if err := r.Timer(now, act); err != nil {
			panic(err)
		}
	}))
	require.GreaterOrEqual(t, r.State().Samples, uint64(2000), "every ACK completes its segment: a sample each")
	dst := make([]cc.Register, 0, 32)
	require.Zero(t, testing.AllocsPerRun(1000, func() { dst = r.AppendRegisters(dst[:0]) }))
}
