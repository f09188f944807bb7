package rp

import (
	"testing"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cc/cctest"
	"github.com/hwcc/hwcc/units"
	"github.com/stretchr/testify/require"
)

// qcnMessages are the CNMs the RP's sequences receive besides the
// generator's ACKs, NAKs and CNPs (kinds it does not use): weak to strong
// feedback and a zero one, all well formed (TestQCNFeedbackKinds refuses
// a malformed one).
func qcnMessages() []cc.Feedback {
	var msgs []cc.Feedback
	for _, q := range []uint8{0, 1, 8, 32, 63} {
		msgs = append(msgs, *qcnCNMFeedback(q))
	}
	return msgs
}

func TestQCNConformance(t *testing.T) {
	fast := QCNStandard(100 * units.Gbps)
	fast.Period, fast.ByteLimit = 50*units.Microsecond, 20000 // recovery within the sequences
	for _, cfg := range []QCNConfig{QCNStandard(100 * units.Gbps), QCNPaper(10 * units.Gbps), fast} {
		o := cctest.Options{MaxRate: cfg.LineRate, Gen: cctest.GenOptions{Messages: qcnMessages()}}
		err := cctest.TestRP(func() (cc.ReactionPoint, error) { return NewQCN(cfg) }, o)
		require.NoError(t, err)
	}
}

// No successful event allocates, nor AppendRegisters with room.
func TestQCNNoAllocs(t *testing.T) {
	r, _ := NewQCN(QCNStandard(10 * units.Gbps))
	act := cc.NewActions(4)
	p := &cc.Packet{Flow: 3, Size: 1500, Prio: 2}
	f := qcnCNMFeedback(40)
	ack := &cc.Feedback{Kind: cc.FeedbackAck}
	now := units.Time(0)
	require.Zero(t, testing.AllocsPerRun(5000, func() {
		now += units.Microsecond
		act.Reset()
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
	require.NotZero(t, r.State().Decreases)
	dst := make([]cc.Register, 0, 64)
	require.Zero(t, testing.AllocsPerRun(1000, func() { dst = r.AppendRegisters(dst[:0]) }))
}
