package qcn

import (
	"testing"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cc/cctest"
	"github.com/hwcc/hwcc/units"
	"github.com/stretchr/testify/require"
)

// The conformance suite on the congestion points: the standard CP, a CP
// with a small Qeq and jitter (so that the generated queues, up to 2.5 MB,
// cross Qeq often and CNMs are frequent), and AF-QCN with unequal weights.
func TestConformanceCP(t *testing.T) {
	jitter := StandardCP()
	jitter.Qeq, jitter.JitterPercent, jitter.Seed, jitter.CPID = 20000, 15, 7, 0xabc
	jitter.SampleTable = [8]units.Bytes{8000, 6000, 4000, 3000, 2500, 2000, 1500, 1000}
	for _, cfg := range []CPConfig{StandardCP(), PaperCP(100 * units.Gbps), jitter} {
		st, err := cctest.TestStats(func() (cc.Part, error) { return NewCP(cfg) }, cctest.Options{})
		require.NoError(t, err)
		t.Logf("Qeq %v: %d calls, %d accepted, %d CNMs", cfg.Qeq, st.Calls, st.Accepted, st.Actions[cc.ActionFeedback])
		require.NotZero(t, st.Actions[cc.ActionFeedback], "the sequences make CNMs")
	}
}

func TestConformanceAFCP(t *testing.T) {
	cfg := PaperAFCP(100 * units.Gbps)
	cfg.CP.Qeq = 20000
	cfg.CP.SampleTable = [8]units.Bytes{8000, 6000, 4000, 3000, 2500, 2000, 1500, 1000}
	cfg.Weights = [Classes]uint16{1, 2, 3, 4, 5, 6, 7, 8}
	cfg.Ts = 10 * units.Microsecond
	for _, by := range []ClassKey{ClassByPrio, ClassByFlow} {
		cfg.ClassBy = by
		st, err := cctest.TestStats(func() (cc.Part, error) { return NewAFCP(cfg) }, cctest.Options{})
		require.NoError(t, err)
		t.Logf("by %v: %d calls, %d accepted, %d CNMs", by, st.Calls, st.Accepted, st.Actions[cc.ActionFeedback])
		require.NotZero(t, st.Actions[cc.ActionFeedback])
	}
	require.NoError(t, cctest.TestCP(func() (cc.CongestionPoint, error) { return NewAFCP(PaperAFCP(10 * units.Gbps)) }, cctest.Options{}))
}

// rpMessages are the CNMs the RP's sequences receive besides the
// generator's ACKs, NAKs and CNPs: weak to strong feedback, a zero one,
// and a malformed one (version 1), which the RP must refuse without
// changing anything.
func rpMessages() []cc.Feedback {
	var msgs []cc.Feedback
	for _, q := range []uint8{0, 1, 8, 32, 63} {
		msgs = append(msgs, *cnmFeedback(q))
	}
	bad := *cnmFeedback(10)
	bad.Data[0] = 0x10
	return append(msgs, bad)
}

func TestConformanceRP(t *testing.T) {
	fast := StandardRP(100 * units.Gbps)
	fast.Period, fast.ByteLimit = 50*units.Microsecond, 20000 // recovery within the sequences
	for _, cfg := range []RPConfig{StandardRP(100 * units.Gbps), PaperRP(10 * units.Gbps), fast} {
		o := cctest.Options{MaxRate: cfg.LineRate, Gen: cctest.GenOptions{Messages: rpMessages()}}
		err := cctest.TestRP(func() (cc.ReactionPoint, error) { return NewRP(cfg) }, o)
		require.NoError(t, err)
	}
}

// No successful event allocates, nor AppendRegisters with room.
func TestNoAllocs(t *testing.T) {
	c, _ := NewCP(StandardCP())
	jc := StandardCP()
	jc.JitterPercent, jc.Seed = 20, 3
	j, _ := NewCP(jc)
	af, _ := NewAFCP(PaperAFCP(10 * units.Gbps))
	r, _ := NewRP(StandardRP(10 * units.Gbps))
	act := cc.NewActions(4)
	p := &cc.Packet{Flow: 3, Size: 1500, Prio: 2}
	f := cnmFeedback(40)
	ack := &cc.Feedback{Kind: cc.FeedbackAck}
	now := units.Time(0)
	q := units.Bytes(0)
	require.Zero(t, testing.AllocsPerRun(5000, func() {
		now += units.Microsecond
		q = (q + 7919) % (200 * units.KB)
		act.Reset()
		for _, cp := range []cc.CongestionPoint{c, j, af} {
			if err := cp.Enqueue(now, p, cc.Queue{Len: q}, act); err != nil {
				panic(err)
			}
			if err := cp.Dequeue(now, p, cc.Queue{Len: q}, act); err != nil {
				panic(err)
			}
			if err := cp.Timer(now, act); err != nil {
				panic(err)
			}
		}
		if err := r.Sent(now, p, act); err != nil {
			panic(err)
		}
		if now%(50*units.Microsecond) == 0 {
			if err := r.Feedback(now, f, act); err != nil {
				panic(err)
			}
		}
		if err := r.Feedback(now, ack, act); err != nil {
			panic(err)
		}
		if err := r.Timer(now, act); err != nil {
			panic(err)
		}
	}))
	require.NotZero(t, c.State().CNMs+af.State().CP.CNMs)
	require.NotZero(t, r.State().Decreases)
	require.NotZero(t, af.State().Ticks)
	dst := make([]cc.Register, 0, 64)
	for _, part := range []cc.Part{c, af, r} {
		require.Zero(t, testing.AllocsPerRun(1000, func() { dst = part.AppendRegisters(dst[:0]) }))
	}
}
