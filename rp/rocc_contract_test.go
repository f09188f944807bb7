package rp

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// roccRegsBut returns p's registers without the one named skip.
func roccRegsBut(p cc.Part, skip string) []cc.Register {
	var out []cc.Register
	for _, r := range p.AppendRegisters(nil) {
		if r.Name != skip {
			out = append(out, r)
		}
	}
	return out
}

// roccCNP returns the contract's message carrying a rate CNP for flow.
func roccCNP(flow uint32, rate uint16, sw uint32, port uint16) cc.Feedback {
	m := wire.RoCCFeedback{Type: wire.RoCCRateFeedback, Rate: rate, Switch: sw, Port: port, Flow: flow}
	f := cc.Feedback{Kind: cc.FeedbackRate, Flow: cc.FlowID(flow), From: m.CP()}
	m.Put(&f.Data)
	return f
}

// TestRoCCRPContractMatchesTyped drives two RPs with the same seeded random
// CNPs and timer calls, one through onFeedback and onTimer, one through
// Feedback (the encoded CNP), Timer and Sent: the same errors and the same
// registers after every event; Sent, which the typed path has no call
// for, runs the expiries due as the typed path's timer does.
func TestRoCCRPContractMatchesTyped(t *testing.T) {
	rng := rand.New(rand.NewPCG(uint64(roccSeed(t)), 21))
	cfg := RoCC40G()
	typed, err := NewRoCC(cfg)
	require.NoError(t, err)
	con, err := NewRoCC(cfg)
	require.NoError(t, err)
	now := units.Time(0)
	for i := range 5000 {
		now += units.Time(rng.IntN(int(40 * units.Microsecond)))
		var errT, errC error
		switch k := rng.IntN(10); {
		case k < 5:
			rate := uint16(1 + rng.IntN(6000))
			sw, port := uint32(rng.IntN(3)), uint16(rng.IntN(2))
			f := roccCNP(7, rate, sw, port)
			_, errT = typed.onFeedback(now, uint32(rate), f.From)
			errC = con.Feedback(now, &f, nil)
		case k < 8:
			_, errT = typed.onTimer(now)
			errC = con.Timer(now, nil)
		default:
			errC = con.Sent(now, &cc.Packet{Flow: 7, Size: 1000}, nil)
			_, errT = typed.onTimer(now)
		}
		require.NoError(t, errT, "event %d", i)
		require.NoError(t, errC, "event %d", i)
		require.Equal(t, typed.AppendRegisters(nil), con.AppendRegisters(nil), "event %d", i)
		require.Equal(t, cc.Limits{Rate: typed.Rate()}, con.Limits(), "event %d", i)
	}
	require.NotZero(t, typed.State().Doublings)
	require.NotZero(t, typed.State().Rejected)
}

// TestRoCCRPContractRefusals: every event refuses what it cannot take with
// one of the contract's errors and changes nothing; the messages Algorithm
// 2 does not use (the transport's, a report) are taken and counted in
// unused_feedback (rule 8), changing no other register but now.
func TestRoCCRPContractRefusals(t *testing.T) {
	r, err := NewRoCC(RoCC40G())
	require.NoError(t, err)
	good := roccCNP(7, 1000, 1, 1)
	require.NoError(t, r.Feedback(100, &good, nil))
	before := r.AppendRegisters(nil)
	report := good
	wire.RoCCFeedback{Type: wire.RoCCReportFeedback, Flow: 7}.Put(&report.Data)
	zeroRate := good
	zeroRate.Data[8], zeroRate.Data[9] = 0, 0
	other := good
	other.Flow = 8
	var de *cc.DecodeError
	for _, tc := range []struct {
		name   string
		f      *cc.Feedback
		want   error
		offset int
	}{
		{"nil", nil, cc.ErrEvent, -1},
		{"malformed: version 0", &cc.Feedback{Kind: cc.FeedbackRate, Flow: 7}, cc.ErrDecode, 0},
		{"malformed: rate 0", &zeroRate, cc.ErrDecode, 8},
		{"another flow's", &other, cc.ErrEvent, -1},
	} {
		err := r.Feedback(200, tc.f, nil)
		require.ErrorIs(t, err, tc.want, tc.name)
		require.ErrorIs(t, err, cc.ErrEvent, "%s: the event refuses it", tc.name)
		require.True(t, cc.Typed(err), tc.name)
		if tc.offset >= 0 {
			require.ErrorAs(t, err, &de, tc.name)
			require.Equal(t, tc.offset, de.Offset, tc.name)
		}
		require.Equal(t, before, r.AppendRegisters(nil), tc.name)
	}
	// Time order from every event method, both times named.
	for _, call := range []struct {
		event string
		run   func() error
	}{
		{"Feedback", func() error { return r.Feedback(99, &good, nil) }},
		{"Sent", func() error { return r.Sent(99, &cc.Packet{}, nil) }},
		{"Timer", func() error { return r.Timer(99, nil) }},
	} {
		err := call.run()
		var te *cc.TimeOrderError
		require.ErrorAs(t, err, &te, call.event)
		require.Equal(t, cc.TimeOrderError{Part: "rp.RoCC", Event: call.event, Now: 99, Last: 100}, *te)
		require.Equal(t, before, r.AppendRegisters(nil), call.event)
	}
	fresh, err := NewRoCC(RoCC40G())
	require.NoError(t, err)
	require.ErrorIs(t, fresh.Sent(-1, nil, nil), cc.ErrTimeOrder, "before time 0")
	// ACK, NAK, a report and a kind of nobody's are counted (nil actions
	// are fine: RoCC appends none).
	require.NoError(t, r.Feedback(300, &cc.Feedback{Kind: cc.FeedbackAck}, nil))
	require.NoError(t, r.Feedback(300, &cc.Feedback{Kind: cc.FeedbackNak}, cc.NewActions(0)))
	require.NoError(t, r.Feedback(300, &report, nil))
	require.NoError(t, r.Feedback(301, &cc.Feedback{Kind: 255, Flow: 9}, nil))
	after := r.AppendRegisters(nil)
	require.Equal(t, cc.TimeReg("now", 301), after[0])
	require.Equal(t, before[1:len(before)-1], after[1:len(after)-1])
	require.Equal(t, cc.Reg(cc.UnusedRegister, 64, 4), after[len(after)-1])
	require.Equal(t, uint64(4), r.State().Unused)
}

// TestRoCCRPContractDeadlines: Timer before the deadline only records now;
// at or after it every expiry runs and the deadline moves past now; Sent
// runs them too (rule 4 of package cc).
func TestRoCCRPContractDeadlines(t *testing.T) {
	r, err := NewRoCC(RoCC40G())
	require.NoError(t, err)
	us := units.Microsecond
	require.Equal(t, units.MaxTime, r.NextDeadline())
	f := roccCNP(7, 1000, 1, 1)
	require.NoError(t, r.Feedback(0, &f, nil))
	require.Equal(t, 55*us, r.NextDeadline())
	before := roccRegsBut(r, "now")
	require.NoError(t, r.Timer(54*us, nil))
	require.Equal(t, before, roccRegsBut(r, "now"))
	// Expiries at 55, 110, 165 µs: 1000 → 2000 → 4000 → 8000 ΔF; at 220 µs
	// Rcur = 8000 > Rmax = 4000 would remove the limiter, but 220 > 200.
	require.NoError(t, r.Sent(200*us, &cc.Packet{}, nil))
	require.Equal(t, 220*us, r.NextDeadline())
	require.Equal(t, uint64(3), r.State().Doublings)
	require.NoError(t, r.Timer(200*us, nil))
	require.Equal(t, 220*us, r.NextDeadline())
	require.Equal(t, uint32(8000), r.RCur())
	require.Equal(t, cc.Limits{Rate: 40 * units.Gbps}, r.Limits(), "min(Rcur, Rmax)")
}

// TestRoCCRPContractNoAllocs: no contract event allocates on success, nor
// AppendRegisters with room.
func TestRoCCRPContractNoAllocs(t *testing.T) {
	r, err := NewRoCC(RoCC40G())
	require.NoError(t, err)
	regs := make([]cc.Register, 0, 16)
	f := roccCNP(7, 1000, 1, 1)
	now := units.Time(0)
	allocs := testing.AllocsPerRun(1000, func() {
		now += 30 * units.Microsecond
		f.Data[9] = byte(now / units.Microsecond)
		if err := r.Sent(now, &cc.Packet{}, nil); err != nil {
			t.Fatal(err)
		}
		if err := r.Feedback(now, &f, nil); err != nil {
			t.Fatal(err)
		}
		if err := r.Timer(now+units.Microsecond, nil); err != nil {
			t.Fatal(err)
		}
		now += units.Microsecond
		_ = r.Limits()
		regs = r.AppendRegisters(regs[:0])
	})
	require.Zero(t, allocs)
}

// BenchmarkRoCCRPContractFeedback is BenchmarkRoCCRPOnFeedback through the
// contract: the CNP is decoded from its 16 bytes first.
func BenchmarkRoCCRPContractFeedback(b *testing.B) {
	r, err := NewRoCC(RoCC40G())
	if err != nil {
		b.Fatal(err)
	}
	fs := make([]cc.Feedback, 256*4)
	for i := range fs {
		fs[i] = roccCNP(7, uint16(1000+i&255), 0, uint16(i&3))
	}
	b.ReportAllocs()
	now := units.Time(0)
	for i := 0; b.Loop(); i++ {
		now += units.Microsecond
		if err := r.Feedback(now, &fs[i&1023], nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRoCCRPContractTimer is the recovery timer through the contract.
func BenchmarkRoCCRPContractTimer(b *testing.B) {
	r, err := NewRoCC(RoCC40G())
	if err != nil {
		b.Fatal(err)
	}
	f := roccCNP(7, 10, 1, 1)
	b.ReportAllocs()
	now := units.Time(0)
	for i := 0; b.Loop(); i++ {
		now += 20 * units.Microsecond
		if i%16 == 0 {
			_ = r.Feedback(now, &f, nil)
		}
		if err := r.Timer(now, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRoCCRPContractSent is Sent, which only records now.
func BenchmarkRoCCRPContractSent(b *testing.B) {
	r, err := NewRoCC(RoCC40G())
	if err != nil {
		b.Fatal(err)
	}
	var p cc.Packet
	b.ReportAllocs()
	now := units.Time(0)
	for b.Loop() {
		now++
		if err := r.Sent(now, &p, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRoCCRPContractAppendRegisters appends the RP's 9 registers.
func BenchmarkRoCCRPContractAppendRegisters(b *testing.B) {
	r, err := NewRoCC(RoCC40G())
	if err != nil {
		b.Fatal(err)
	}
	regs := make([]cc.Register, 0, 16)
	b.ReportAllocs()
	for b.Loop() {
		regs = r.AppendRegisters(regs[:0])
	}
}

// TestRoCCRPLateTimers (rule 4 of package cc): an RP whose recovery timer
// is left to its next event holds, after every event, the registers of
// one whose Timer is called at every deadline: every expiry runs, each at
// its own deadline, before a CNP (so that line 4 compares with Rcur as it
// stands then), a sent packet, a message Algorithm 2 does not use, or
// Timer. Seeded random events with gaps up to 20 recovery periods.
func TestRoCCRPLateTimers(t *testing.T) {
	rng := rand.New(rand.NewPCG(uint64(roccSeed(t)), 5))
	cfg := RoCC40G()
	onTime, err := NewRoCC(cfg)
	require.NoError(t, err)
	late, err := NewRoCC(cfg)
	require.NoError(t, err)
	report := roccCNP(7, 0, 1, 1)
	wire.RoCCFeedback{Type: wire.RoCCReportFeedback, Flow: 7, QDepth: 9}.Put(&report.Data)
	now := units.Time(0)
	for i := range 5000 {
		if rng.IntN(8) == 0 {
			now += units.Time(rng.Int64N(int64(20 * cfg.RecoveryPeriod)))
		} else {
			now += units.Time(rng.IntN(int(30 * units.Microsecond)))
		}
		for d := onTime.NextDeadline(); d <= now; d = onTime.NextDeadline() {
			require.NoError(t, onTime.Timer(d, nil))
		}
		var run func(r *RoCC) error
		switch k := rng.IntN(10); {
		case k < 4:
			f := roccCNP(7, uint16(1+rng.IntN(5000)), uint32(rng.IntN(3)), 0)
			run = func(r *RoCC) error { return r.Feedback(now, &f, nil) }
		case k < 6:
			run = func(r *RoCC) error { return r.Sent(now, &cc.Packet{Flow: 7, Size: 1000}, nil) }
		case k < 7:
			run = func(r *RoCC) error { return r.Feedback(now, &cc.Feedback{Kind: cc.FeedbackAck, Flow: 7}, nil) }
		case k < 8:
			run = func(r *RoCC) error { return r.Feedback(now, &report, nil) }
		default:
			run = func(r *RoCC) error { return r.Timer(now, nil) }
		}
		require.NoError(t, run(onTime), "event %d", i)
		require.NoError(t, run(late), "event %d", i)
		require.Equal(t, onTime.AppendRegisters(nil), late.AppendRegisters(nil), "event %d", i)
		require.Greater(t, late.NextDeadline(), now, "event %d: nothing left overdue", i)
	}
	st := late.State()
	require.NotZero(t, st.Doublings)
	require.NotZero(t, st.Removals)
	require.NotZero(t, st.Unused)
}
