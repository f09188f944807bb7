package rp

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
)

// rpNoTimerCatchUp checks cc's rule 4 (late timers) on a reaction point
// without a timer: NextDeadline is units.MaxTime after every event, so no
// deadline is ever late, and Timer calls at any time between the events
// change nothing but the time. Two parts from newPart take the same n
// events (event i at now, applied by ev); one is also given 0..2 Timer
// calls before each, at times between the events. After every event they
// returned the same error or none, decided the same (nothing, for these
// parts, which send no message) and hold the same registers. It returns
// the part given the Timer calls.
func rpNoTimerCatchUp(t *testing.T, newPart func() cc.ReactionPoint, n int,
	ev func(p cc.ReactionPoint, i int, now units.Time, act *cc.Actions) error) cc.ReactionPoint {
	t.Helper()
	ticked, plain := newPart(), newPart()
	rng := rand.New(rand.NewPCG(4, uint64(n)))
	a, b := cc.NewActions(4), cc.NewActions(4)
	now := units.Microsecond
	accepted := 0
	for i := range n {
		for range rng.IntN(3) {
			now += units.Time(rng.Int64N(int64(units.Microsecond)))
			a.Reset()
			require.NoError(t, ticked.Timer(now, a))
			require.Zero(t, a.Len(), "a Timer of a part without a timer decided")
		}
		now += units.Time(rng.Int64N(int64(units.Microsecond)))
		a.Reset()
		b.Reset()
		ea, eb := ev(ticked, i, now, a), ev(plain, i, now, b)
		require.Equal(t, eb, ea, "event %d", i)
		if ea == nil {
			accepted++
		}
		require.Equal(t, b.All(), a.All(), "event %d", i)
		require.Equal(t, plain.AppendRegisters(nil), ticked.AppendRegisters(nil), "event %d", i)
		require.Equal(t, plain.Limits(), ticked.Limits(), "event %d", i)
		require.Equal(t, units.MaxTime, ticked.NextDeadline(), "event %d", i)
		require.Equal(t, units.MaxTime, plain.NextDeadline(), "event %d", i)
	}
	require.Greater(t, accepted, n/2, "most events are taken")
	return ticked
}

func newTestFixed(t testing.TB, rate units.Rate) *Fixed {
	t.Helper()
	f, err := NewFixed(FixedConfig{Rate: rate})
	require.NoError(t, err)
	return f
}

// TestFixedConfig: the rate's range is 0..FixedMaxRate; Limits is the
// rate and no window, the register rate the same number of bit/s.
func TestFixedConfig(t *testing.T) {
	for _, r := range []units.Rate{-1, FixedMaxRate + 1} {
		_, err := NewFixed(FixedConfig{Rate: r})
		var ce *cc.ConfigError
		require.ErrorAs(t, err, &ce, "%v", r)
		require.Equal(t, "Rate", ce.Field)
		require.Equal(t, "0.."+FixedMaxRate.String(), ce.Range)
	}
	for _, r := range []units.Rate{0, 25 * units.Gbps, FixedMaxRate} {
		f := newTestFixed(t, r)
		require.Equal(t, cc.Limits{Rate: r}, f.Limits())
		require.Equal(t, []cc.Register{cc.TimeReg("now", 0), cc.Reg("rate", 64, uint64(r)), cc.Reg(cc.UnusedRegister, 64, 0)},
			f.AppendRegisters(nil))
	}
}

// TestFixedUnusedFeedback (cc rule 8): Fixed uses no message, so every
// kind, ACKs and CNPs included, is taken, decides nothing, changes neither
// the limits nor any register but the time and unused_feedback, which
// counts it. A nil message is refused and changes nothing.
func TestFixedUnusedFeedback(t *testing.T) {
	f := newTestFixed(t, 10*units.Gbps)
	act := cc.NewActions(4)
	kinds := []cc.FeedbackKind{cc.FeedbackNone, cc.FeedbackAck, cc.FeedbackNak, cc.FeedbackCNP, cc.FeedbackRate,
		cc.FeedbackCredit, cc.FeedbackCreditRequest, cc.FeedbackCreditStop, cc.FeedbackUser, 255}
	for i, k := range kinds {
		now := units.Time(i+1) * units.Microsecond
		require.NoError(t, f.Feedback(now, &cc.Feedback{Kind: k, Seq: 1000, Acked: 1000, ECE: true}, act), "%v", k)
		require.Zero(t, act.Len())
		require.Equal(t, cc.Limits{Rate: 10 * units.Gbps}, f.Limits())
		require.Equal(t, []cc.Register{cc.TimeReg("now", now), cc.Reg("rate", 64, uint64(10*units.Gbps)),
			cc.Reg(cc.UnusedRegister, 64, uint64(i+1))}, f.AppendRegisters(nil), "%v", k)
	}
	before := f.AppendRegisters(nil)
	err := f.Feedback(units.Millisecond, nil, act)
	require.ErrorIs(t, err, cc.ErrEvent)
	require.ErrorContains(t, err, "rp.Fixed Feedback: nil feedback")
	require.Equal(t, before, f.AppendRegisters(nil))
}

// TestFixedSentAndTimeOrder: Sent and Timer record the time and nothing
// else; a nil packet is refused (every send has a frame), and so is a
// time before the latest accepted one, with both times; neither changes
// anything.
func TestFixedSentAndTimeOrder(t *testing.T) {
	f := newTestFixed(t, 0)
	require.NoError(t, f.Sent(5, &cc.Packet{Seq: 0, Payload: 1000, Size: 1082}, nil))
	require.NoError(t, f.Timer(7, nil))
	require.Equal(t, []cc.Register{cc.TimeReg("now", 7), cc.Reg("rate", 64, 0), cc.Reg(cc.UnusedRegister, 64, 0)}, f.AppendRegisters(nil))
	before := f.AppendRegisters(nil)
	err := f.Sent(8, nil, nil)
	require.ErrorIs(t, err, cc.ErrEvent)
	require.ErrorContains(t, err, "rp.Fixed Sent: nil packet")
	for name, ev := range map[string]func() error{
		"Sent":     func() error { return f.Sent(6, &cc.Packet{}, nil) },
		"Feedback": func() error { return f.Feedback(6, &cc.Feedback{Kind: cc.FeedbackAck}, nil) },
		"Timer":    func() error { return f.Timer(6, nil) },
	} {
		var te *cc.TimeOrderError
		require.ErrorAs(t, ev(), &te, name)
		require.Equal(t, cc.TimeOrderError{Part: "rp.Fixed", Event: name, Now: 6, Last: 7}, *te)
	}
	require.Equal(t, before, f.AppendRegisters(nil))
}

// TestFixedNoTimerToCatchUp (cc rule 4) over sends, ACKs and CNPs; and
// (rule 3) every event takes a nil *cc.Actions, since none decides.
func TestFixedNoTimerToCatchUp(t *testing.T) {
	p := rpNoTimerCatchUp(t, func() cc.ReactionPoint { return newTestFixed(t, 40*units.Gbps) }, 300,
		func(p cc.ReactionPoint, i int, now units.Time, act *cc.Actions) error {
			if i%4 == 3 {
				act = nil
			}
			switch i % 3 {
			case 0:
				return p.Sent(now, &cc.Packet{Seq: uint64(i) * 1000, Payload: 1000, Size: 1082}, act)
			case 1:
				return p.Feedback(now, &cc.Feedback{Kind: cc.FeedbackAck, Seq: uint64(i) * 1000, Acked: 1000}, act)
			}
			return p.Feedback(now, &cc.Feedback{Kind: cc.FeedbackCNP}, act)
		})
	require.Equal(t, cc.Reg(cc.UnusedRegister, 64, 200), p.AppendRegisters(nil)[2], "every message counted")
}

// TestFixedNoAllocs: no event allocates, nor a snapshot into a slice with
// room.
func TestFixedNoAllocs(t *testing.T) {
	f := newTestFixed(t, 10*units.Gbps)
	p, fb := &cc.Packet{Payload: 1000}, &cc.Feedback{Kind: cc.FeedbackAck}
	buf := make([]cc.Register, 0, 4)
	now := units.Time(0)
	require.Zero(t, testing.AllocsPerRun(1000, func() {
		now++
		if f.Sent(now, p, nil) != nil || f.Feedback(now, fb, nil) != nil || f.Timer(now, nil) != nil {
			panic("refused")
		}
		buf = f.AppendRegisters(buf[:0])
	}))
}
