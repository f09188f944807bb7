package cc_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
)

func TestActions(t *testing.T) {
	a := cc.NewActions(2)
	require.Equal(t, 2, a.Cap())
	require.NoError(t, a.Reserve("p", "e", 2))
	require.True(t, a.MarkCE())
	require.True(t, a.Send(cc.ToDestination, 5, cc.Feedback{Kind: cc.FeedbackCNP, Flow: 9}))
	require.False(t, a.MarkCE(), "full")
	require.Equal(t, 2, a.Len())
	require.Equal(t, 0, a.Free())
	require.True(t, a.Has(cc.ActionFeedback))
	require.Equal(t, 1, a.Count(cc.ActionMarkCE))
	require.Equal(t, cc.Action{Kind: cc.ActionFeedback, To: cc.ToDestination, Prio: 5, Feedback: cc.Feedback{Kind: cc.FeedbackCNP, Flow: 9}}, a.At(1))
	err := a.Reserve("rp.X", "Timer", 3)
	var full *cc.ActionsFullError
	require.ErrorAs(t, err, &full)
	require.ErrorIs(t, err, cc.ErrActionsFull)
	require.Equal(t, cc.ActionsFullError{Part: "rp.X", Event: "Timer", Need: 3, Free: 0}, *full)
	require.EqualError(t, err, "rp.X Timer: needs 3 actions, 0 free")
	a.Truncate(1)
	require.Equal(t, []cc.Action{{Kind: cc.ActionMarkCE}}, a.All())
	a.Truncate(5) // out of range: ignored
	require.Equal(t, 1, a.Len())
	a.Reset()
	require.Zero(t, a.Len())
	require.Equal(t, 2, a.Cap())

	var zero cc.Actions
	require.NoError(t, zero.Reserve("p", "e", 0))
	require.Error(t, zero.Reserve("p", "e", 1))
	buf := make([]cc.Action, 7, 9)
	on := cc.ActionsOn(buf)
	require.Equal(t, 0, on.Len())
	require.Equal(t, 9, on.Cap())
	require.Zero(t, testing.AllocsPerRun(100, func() {
		on.Reset()
		on.MarkCE()
		on.Send(cc.ToSource, cc.ControlPrio, cc.Feedback{})
	}))
}

func TestErrorsMatchSentinels(t *testing.T) {
	cause := errors.New("short")
	cases := []struct {
		err      error
		sentinel error
		text     string
	}{
		{&cc.TimeOrderError{Part: "cp.RoCC", Event: "Timer", Now: 5 * units.Microsecond, Last: 7 * units.Microsecond}, cc.ErrTimeOrder,
			"cp.RoCC Timer: time 5us is before the last event's 7us"},
		{&cc.ConfigError{Part: "rocc cp", Field: "t", Value: "0", Range: "a time in 1us..10ms"}, cc.ErrConfig, "rocc cp: t = 0: want a time in 1us..10ms"},
		{&cc.DecodeError{What: "RoCC feedback", Offset: 3, Reason: "version 2, want 1"}, cc.ErrDecode, "RoCC feedback: byte 3: version 2, want 1"},
		{&cc.EventError{Part: "rp.RoCC", Event: "Feedback", Reason: "bad payload", Err: cause}, cc.ErrEvent, "rp.RoCC Feedback: bad payload: short"},
		{&cc.ActionsFullError{Part: "a", Event: "b", Need: 1}, cc.ErrActionsFull, "a b: needs 1 actions, 0 free"},
	}
	all := []error{cc.ErrTimeOrder, cc.ErrConfig, cc.ErrDecode, cc.ErrEvent, cc.ErrActionsFull}
	for _, c := range cases {
		require.EqualError(t, c.err, c.text)
		for _, s := range all {
			require.Equal(t, s == c.sentinel, errors.Is(c.err, s), "%v is %v", c.err, s)
		}
		require.True(t, cc.Typed(c.err))
		require.True(t, cc.Typed(fmt.Errorf("wrapped: %w", c.err)))
	}
	require.ErrorIs(t, &cc.EventError{Err: &cc.DecodeError{}}, cc.ErrDecode, "an event error wraps its decode cause")
	require.ErrorIs(t, &cc.ConfigError{Err: cause}, cause)
	require.False(t, cc.Typed(cause))
	require.False(t, cc.Typed(nil))
}

func TestMonotonic(t *testing.T) {
	var m cc.Monotonic
	require.NoError(t, m.Check("p", "e", 0))
	err := m.Check("p", "e", -1)
	var te *cc.TimeOrderError
	require.ErrorAs(t, err, &te)
	require.Equal(t, cc.TimeOrderError{Part: "p", Event: "e", Now: -1, Last: 0}, *te)
	require.NoError(t, m.Accept("p", "e", 10))
	require.NoError(t, m.Accept("p", "e", 10), "equal times are in order")
	require.ErrorIs(t, m.Accept("p", "e", 9), cc.ErrTimeOrder)
	require.Equal(t, units.Time(10), m.Last())
	m.Advance(5) // earlier: ignored
	require.Equal(t, units.Time(10), m.Last())
	require.Equal(t, cc.Register{Name: "now", Width: 64, Signed: true, Value: 10}, m.Register())
}

func TestRegisters(t *testing.T) {
	r := cc.SignedReg("q", 12, -3)
	require.Equal(t, uint64(0xFFD), r.Value, "two's complement in 12 bits")
	require.Equal(t, int64(-3), r.Int())
	require.True(t, r.Fits())
	require.Equal(t, "q[12]=-3", r.String())
	require.False(t, cc.Reg("x", 8, 0x1234).Fits(), "not cut: a value beyond the width is reported")
	require.True(t, cc.Reg("x", 8, 0xFF).Fits())
	require.False(t, cc.SignedReg("s", 4, 8).Fits(), "8 is beyond a 4-bit signed register")
	require.False(t, cc.SignedReg("s", 4, -9).Fits())
	require.True(t, cc.SignedReg("s", 4, -8).Fits())
	require.Equal(t, int64(-8), cc.SignedReg("s", 4, -8).Int())
	require.False(t, cc.Register{Name: "x", Width: 4, Value: 16}.Fits())
	require.False(t, cc.Register{Name: "x", Width: 0}.Fits())
	require.Equal(t, cc.Register{Name: "b", Width: 1, Value: 1}, cc.BoolReg("b", true))
	require.Equal(t, int64(-5), cc.TimeReg("t", -5).Int())
	require.Equal(t, "r[64]=40000000000", cc.RateReg("r", 40*units.Gbps).String())
	require.Equal(t, uint64(1)<<63, cc.Reg("w", 64, 1<<63).Value)
}

func TestRoleAndKindNames(t *testing.T) {
	require.Equal(t, "reaction point", cc.RoleRP.String())
	require.Equal(t, "NP", cc.RoleNP.Short())
	require.Equal(t, "unknown role", cc.Role(9).String())
	require.Equal(t, "cnp", cc.FeedbackCNP.String())
	require.Equal(t, "kind 200", cc.FeedbackKind(200).String())
	require.Equal(t, "mark-ce", cc.ActionMarkCE.String())
	require.Equal(t, "destination", cc.ToDestination.String())
	p := &demoPart{}
	require.True(t, cc.RoleNP.Plays(p))
	require.False(t, cc.RoleCP.Plays(p))
}

func TestNilActions(t *testing.T) {
	var a *cc.Actions
	require.Zero(t, a.Len())
	require.Zero(t, a.Cap())
	require.Zero(t, a.Free())
	require.Nil(t, a.All())
	require.False(t, a.MarkCE())
	require.False(t, a.Has(cc.ActionMarkCE))
	require.NoError(t, a.Reserve("p", "e", 0))
	require.ErrorIs(t, a.Reserve("p", "e", 1), cc.ErrActionsFull)
	a.Reset()
	a.Truncate(0)
}

func TestMonotonicInOrder(t *testing.T) {
	var m cc.Monotonic
	require.True(t, m.InOrder(0))
	require.False(t, m.InOrder(-1))
	m.Advance(7)
	require.True(t, m.InOrder(7))
	require.False(t, m.InOrder(6))
	require.Zero(t, testing.AllocsPerRun(100, func() { _ = m.Check("p", "e", 8) }), "the in-order path allocates nothing")
}
