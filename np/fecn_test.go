package np_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/np"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// fecnUs is a microsecond.
const fecnUs = units.Microsecond

// fecnNote is a notification message.
var fecnNote = cc.Feedback{Kind: wire.FeedbackBECN, Flow: 1}

// fecnTo is the action a notification of flow f is.
func fecnTo(f cc.FlowID) cc.Action {
	return cc.Action{Kind: cc.ActionFeedback, To: cc.ToSource, Prio: cc.ControlPrio, Feedback: wire.BECNNotification(f)}
}

// fecnPkt is a full data packet of flow f.
func fecnPkt(f cc.FlowID) *cc.Packet { return &cc.Packet{Flow: f, Payload: 1000, Size: 1082} }

// fecnNewNP builds a notification point of cfg.
func fecnNewNP(t testing.TB, cfg np.FECNConfig) *np.FECN {
	t.Helper()
	n, err := np.NewFECN(cfg)
	require.NoError(t, err)
	return n
}

// An unmarked packet sends nothing; marked packets send one notification
// per MinInterval (the first at once; marks inside the interval are
// dropped, not deferred); MinInterval 0 answers every mark.
func TestFECNPacing(t *testing.T) {
	n := fecnNewNP(t, np.FECNSurvey())
	act := cc.NewActions(1)
	p := fecnPkt(9)
	require.NoError(t, n.Receive(0, p, act))
	require.Zero(t, act.Len())
	p.CE = true
	var at []units.Time
	// A mark every 7 µs for 500 µs: notifications at the first mark at or
	// after each previous notification + 50 µs: 0, 56, 112, ... (7·8 = 56).
	for now := units.Time(0); now <= 500*fecnUs; now += 7 * fecnUs {
		act.Reset()
		require.NoError(t, n.Receive(now, p, act))
		if act.Len() == 1 {
			require.Equal(t, fecnTo(9), act.At(0))
			at = append(at, now)
		}
	}
	want := []units.Time{0, 56 * fecnUs, 112 * fecnUs, 168 * fecnUs, 224 * fecnUs, 280 * fecnUs, 336 * fecnUs, 392 * fecnUs, 448 * fecnUs}
	require.Equal(t, want, at)
	s := n.State()
	require.Equal(t, uint64(len(want)), s.Notifications)
	require.Equal(t, s.Marked-s.Notifications, s.Suppressed)
	require.Equal(t, s.Packets, s.Marked+1)
	require.Equal(t, units.MaxTime, n.NextDeadline(), "nothing is deferred")

	ib := fecnNewNP(t, np.FECNInfiniBand())
	for i := range 50 {
		act.Reset()
		require.NoError(t, ib.Receive(units.Time(i), p, act))
		require.Equal(t, 1, act.Len(), "InfiniBand answers every FECN-marked packet")
	}
}

// A notification that does not fit is refused; Receive, which can
// decide, refuses a nil act whether or not this packet is marked (cc rule
// 3), while a packet that decides nothing needs no room; bad input and
// time going back are refused; each refusal changes nothing. Every message
// from the source is of a kind the NP does not use: counted in
// unused_feedback (cc rule 8), nothing else but the time changes.
func TestFECNRefusals(t *testing.T) {
	n := fecnNewNP(t, np.FECNSurvey())
	marked := &cc.Packet{Flow: 1, CE: true}
	full := cc.NewActions(1)
	full.MarkCE()
	require.ErrorIs(t, n.Receive(5, marked, full), cc.ErrActionsFull)
	for _, p := range []*cc.Packet{marked, {Flow: 1}} {
		err := n.Receive(5, p, nil)
		var ee *cc.EventError
		require.ErrorAs(t, err, &ee)
		require.ErrorIs(t, err, cc.ErrNoActions)
		require.Equal(t, "np.FECN", ee.Part)
		require.Equal(t, "Receive", ee.Event)
	}
	require.Equal(t, np.FECNState{}, n.State(), "a refused event changes nothing")
	require.Zero(t, n.Last())
	require.NoError(t, n.Receive(5, &cc.Packet{Flow: 1}, cc.NewActions(0)), "unmarked: nothing to append")
	require.NoError(t, n.Receive(6, marked, cc.NewActions(1)))
	require.NoError(t, n.Receive(7, marked, cc.NewActions(0)), "suppressed: nothing to append")
	before := n.AppendRegisters(nil)
	for _, err := range []error{
		n.Receive(8, nil, nil), n.Receive(8, &cc.Packet{Size: -1}, nil), n.Receive(8, &cc.Packet{Payload: -1}, nil),
		n.Feedback(8, nil, nil),
	} {
		require.ErrorIs(t, err, cc.ErrEvent)
	}
	for _, err := range []error{n.Receive(6, marked, nil), n.Feedback(6, &cc.Feedback{}, nil), n.Timer(6, nil)} {
		require.ErrorIs(t, err, cc.ErrTimeOrder)
	}
	require.Equal(t, before, n.AppendRegisters(nil))
	require.NoError(t, n.Feedback(9, &cc.Feedback{Kind: wire.FeedbackBECN}, nil))
	require.NoError(t, n.Feedback(9, &cc.Feedback{Kind: cc.FeedbackCreditRequest}, nil))
	require.NoError(t, n.Timer(10, nil))
	after := n.AppendRegisters(nil)
	last := len(after) - 1
	require.Equal(t, before[1:last], after[1:last], "Feedback and Timer change nothing but the time and unused_feedback")
	require.Equal(t, cc.Reg(cc.UnusedRegister, 64, 2), after[last])
	require.Equal(t, uint64(2), n.State().Unused.N())
	require.Equal(t, units.Time(10), n.Last())

	_, err := np.NewFECN(np.FECNConfig{MinInterval: 2 * units.Second})
	var ce *cc.ConfigError
	require.ErrorAs(t, err, &ce)
	require.Equal(t, "MinInterval", ce.Field)
}
