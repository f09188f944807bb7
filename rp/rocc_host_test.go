package rp

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/pi"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// roccSwitch plays the switch for the host's tests: Algorithm 1 (pi.Step)
// on a queue sample per update, and the reports a CP of switch sw, port
// port writes after each (wire.RoCCFeedback of type 2: the update counter,
// Qcur in ΔQ units and, in approach 2, F before the update in whole ΔF).
type roccSwitch struct {
	p     *pi.Params
	regs  pi.Regs
	prevF uint32
	qcur  uint32
	seq   uint8
	sw    uint32
	port  uint16
}

func newRoCCSwitch(p *pi.Params, sw uint32, port uint16) *roccSwitch {
	r := p.InitialRegs()
	return &roccSwitch{p: p, regs: r, prevF: r.F, sw: sw, port: port}
}

// update runs Algorithm 1 on the queue qlen.
func (s *roccSwitch) update(qlen units.Bytes) {
	s.qcur, _ = s.p.QueueUnits(qlen)
	s.prevF = s.regs.F
	s.regs, _ = pi.Step(s.p, s.regs, s.qcur)
	s.seq++
}

// report is the report of the latest update for flow, with F before it
// (withF) or without.
func (s *roccSwitch) report(flow uint32, withF bool) wire.RoCCFeedback {
	m := wire.RoCCFeedback{Type: wire.RoCCReportFeedback, Seq: s.seq, Port: s.port, Switch: s.sw, QDepth: uint16(s.qcur), Flow: flow}
	if withF {
		m.Rate = uint16(s.p.RateUnits(s.prevF))
	}
	return m
}

// roccMessage is the contract's message carrying m.
func roccMessage(m wire.RoCCFeedback) cc.Feedback {
	f := cc.Feedback{Kind: cc.FeedbackRate, Flow: cc.FlowID(m.Flow), From: m.CP()}
	m.Put(&f.Data)
	return f
}

// TestRoCCHostFollowsTheSwitch: a host given every report of a switch's
// updates, F kept on the host, holds the switch's registers bit for bit
// (fraction bits included) and tells the flow's RP the switch's F in whole
// ΔF; a second report of the same update (another flow's) does not update
// again; a host that loses reports counts the gaps. For hwcc's arithmetic
// and the authors' OMNeT++ options, on a queue that ramps past Qmax and
// back (every branch of Algorithm 1).
func TestRoCCHostFollowsTheSwitch(t *testing.T) {
	omnet := pi.RoCC40G()
	omnet.InitialF, omnet.Rounding, omnet.RateFracBits = pi.InitialZero, pi.RoundFloor, 0
	for _, cfg := range []pi.Config{pi.RoCC40G(), omnet} {
		p, err := pi.NewParams(cfg)
		require.NoError(t, err)
		sw := newRoCCSwitch(p, 7, 2)
		h, err := NewRoCCHost(p)
		require.NoError(t, err)
		lossy, err := NewRoCCHost(p) // loses every 7th report
		require.NoError(t, err)
		out := cc.NewActions(1)
		for i := range 500 {
			now := units.Time(i) * 40 * units.Microsecond
			sw.update(units.Bytes((i * 7919) % 420_000))
			for _, flow := range []uint32{1, 2} { // the same update for two flows
				f := roccMessage(sw.report(flow, false))
				out.Reset()
				require.NoError(t, h.Feedback(now, &f, out), "update %d", i)
				require.Equal(t, sw.regs, h.Regs(), "update %d", i)
				require.Equal(t, units.MaxTime, h.NextDeadline(), "no timer: nothing to catch up (rule 4)")
				require.Equal(t, 1, out.Len())
				a := out.At(0)
				m, err := wire.DecodeRoCCFeedback(a.Feedback.Data[:])
				require.NoError(t, err)
				require.Equal(t, uint16(p.RateUnits(sw.regs.F)), m.Rate, "update %d", i)
			}
			if i%7 != 6 {
				f := roccMessage(sw.report(1, true))
				out.Reset()
				require.NoError(t, lossy.Feedback(now, &f, out))
			}
		}
		require.Zero(t, h.Gaps())
		require.NotZero(t, lossy.Gaps())
	}
}

// TestRoCCHostContract: the host's Feedback is onReport plus the rate
// message (same registers as a host driven by onReport), refuses what it
// cannot take with the contract's errors, changing nothing (nil actions
// included, rule 3), and counts the messages it does not use (the
// transport's, another scheme's, a rate message) in unused_feedback
// (rule 8).
func TestRoCCHostContract(t *testing.T) {
	p, err := pi.NewParams(pi.RoCC40G())
	require.NoError(t, err)
	sw := newRoCCSwitch(p, 7, 2)
	typed, err := NewRoCCHost(p)
	require.NoError(t, err)
	con, err := NewRoCCHost(p)
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(uint64(roccSeed(t)), 12))
	out := cc.NewActions(1)
	now := units.Time(0)
	for i := range 300 {
		now += 40 * units.Microsecond
		sw.update(units.Bytes(rng.IntN(420_000)))
		if rng.IntN(8) == 0 {
			continue // a lost report: both hosts see a gap
		}
		flow := uint32(rng.IntN(3))
		rep := sw.report(flow, rng.IntN(2) == 0)
		rate, err := typed.onReport(now, rep)
		require.NoError(t, err)
		f := roccMessage(rep)
		out.Reset()
		require.NoError(t, con.Feedback(now, &f, out), "report %d", i)
		require.Equal(t, typed.AppendRegisters(nil), con.AppendRegisters(nil), "report %d", i)
		require.Equal(t, 1, out.Len())
		a := out.At(0)
		require.Equal(t, cc.ActionFeedback, a.Kind)
		require.Equal(t, cc.ToSource, a.To)
		require.Equal(t, cc.ControlPrio, a.Prio)
		require.Equal(t, cc.FeedbackRate, a.Feedback.Kind)
		require.Equal(t, f.Flow, a.Feedback.Flow)
		require.Equal(t, rep.CP(), a.Feedback.From)
		m, err := wire.DecodeRoCCFeedback(a.Feedback.Data[:])
		require.NoError(t, err)
		want := rep
		want.Type, want.Rate = wire.RoCCRateFeedback, uint16(rate)
		require.Equal(t, want, m, "report %d", i)
	}
	require.NotZero(t, con.Gaps())

	// Refusals: each a typed error, and nothing changes.
	good := roccMessage(sw.report(5, false))
	before := con.AppendRegisters(nil)
	// Kinds the host computation does not use, and a rate message, change
	// nothing but the time and the count (the contract's open set of
	// kinds).
	rate := sw.report(5, false)
	rate.Type, rate.Rate = wire.RoCCRateFeedback, 100
	rateMsg := roccMessage(rate)
	for _, f := range []cc.Feedback{{Kind: cc.FeedbackCNP, Flow: 5}, {Kind: cc.FeedbackAck, Flow: 5}, {Kind: cc.FeedbackUser, Flow: 5}, {Kind: 200, Flow: 5}, rateMsg} {
		probe, err := NewRoCCHostConfig(pi.RoCC40G())
		require.NoError(t, err)
		regs := probe.AppendRegisters(nil)
		out.Reset()
		require.NoError(t, probe.Feedback(now, &f, out), "%v", f.Kind)
		require.Zero(t, out.Len())
		after := probe.AppendRegisters(nil)
		require.Equal(t, regs[1:len(regs)-1], after[1:len(after)-1], "%v", f.Kind)
		require.Equal(t, cc.Reg(cc.UnusedRegister, 64, 1), after[len(after)-1], "%v", f.Kind)
		require.ErrorIs(t, probe.Feedback(now-1, &f, out), cc.ErrTimeOrder, "time recorded")
	}
	var de *cc.DecodeError
	for _, tc := range []struct {
		name string
		f    *cc.Feedback
		act  *cc.Actions
		want error
	}{
		{"nil", nil, out, cc.ErrEvent},
		{"malformed", &cc.Feedback{Kind: cc.FeedbackRate}, out, cc.ErrDecode},
		{"another flow", func() *cc.Feedback { f := good; f.Flow = 6; return &f }(), out, cc.ErrEvent},
		{"another CP", func() *cc.Feedback {
			m := sw.report(5, false)
			m.Port++
			f := roccMessage(m)
			return &f
		}(), out, cc.ErrEvent},
		{"no room", &good, cc.NewActions(0), cc.ErrActionsFull},
		{"nil actions", &good, nil, cc.ErrNoActions},
		{"nil actions, a message it does not use", &cc.Feedback{Kind: cc.FeedbackAck}, nil, cc.ErrNoActions},
	} {
		out.Reset()
		err := con.Feedback(now, tc.f, tc.act)
		require.ErrorIs(t, err, tc.want, tc.name)
		require.True(t, cc.Typed(err), tc.name)
		require.Equal(t, before, con.AppendRegisters(nil), tc.name)
		require.Zero(t, out.Len(), tc.name)
		if tc.name == "malformed" {
			require.ErrorIs(t, err, cc.ErrEvent, "a decode error inside an event error")
			require.ErrorAs(t, err, &de)
			require.Equal(t, 0, de.Offset, "version 0 at byte 0")
		}
	}
	err = con.Feedback(now-1, &good, out)
	require.ErrorIs(t, err, cc.ErrTimeOrder)
	require.Equal(t, before, con.AppendRegisters(nil))
	require.ErrorIs(t, con.Sent(now-1, nil, nil), cc.ErrTimeOrder)
	require.ErrorIs(t, con.Timer(now-1, nil), cc.ErrTimeOrder)

	// Sent and Timer only record now; they never decide and take nil.
	require.NoError(t, con.Sent(now+2, &cc.Packet{}, nil))
	require.NoError(t, con.Timer(now+3, nil))
	after := con.AppendRegisters(nil)
	require.Equal(t, cc.TimeReg("now", now+3), after[0])
	require.Equal(t, before[1:], after[1:])
	require.Equal(t, cc.Limits{}, con.Limits())
	require.Equal(t, units.MaxTime, con.NextDeadline())
	_, err = NewRoCCHost(nil)
	require.ErrorIs(t, err, cc.ErrConfig)
	bad := pi.RoCC40G()
	bad.DeltaQ = 0
	_, err = NewRoCCHostConfig(bad)
	var ce *cc.ConfigError
	require.ErrorAs(t, err, &ce)
	require.Equal(t, cc.ConfigError{Part: "rp.RoCCHost", Field: "DeltaQ", Value: "0B", Range: "≥ 1B"}, *ce)
}

// TestRoCCHostRegisters: the host's registers, their order and widths: F
// is RateBits + RateFracBits = 24 bits with the presets, Qold 16, the CP
// 48 (switch and port).
func TestRoCCHostRegisters(t *testing.T) {
	h, err := NewRoCCHostConfig(pi.RoCC40G())
	require.NoError(t, err)
	var names []string
	widths := map[string]uint8{}
	for _, r := range h.AppendRegisters(nil) {
		require.True(t, r.Fits(), "%v", r)
		names = append(names, r.Name)
		widths[r.Name] = r.Width
	}
	require.Equal(t, []string{"now", "f", "qold", "cp", "seq", "primed", "gaps", cc.UnusedRegister}, names)
	require.Equal(t, map[string]uint8{"now": 64, "f": 24, "qold": 16, "cp": 48, "seq": 8, "primed": 1, "gaps": 64, cc.UnusedRegister: 64}, widths)
}

// TestRoCCHostNoAllocs: no contract event of the host allocates on
// success, nor AppendRegisters with room.
func TestRoCCHostNoAllocs(t *testing.T) {
	p, err := pi.NewParams(pi.RoCC40G())
	require.NoError(t, err)
	sw := newRoCCSwitch(p, 1, 1)
	h, err := NewRoCCHost(p)
	require.NoError(t, err)
	out := cc.NewActions(1)
	regs := make([]cc.Register, 0, 16)
	var pkt cc.Packet
	now := units.Time(0)
	allocs := testing.AllocsPerRun(500, func() {
		now += 40 * units.Microsecond
		sw.update(units.Bytes(now / units.Microsecond % 400 * 1000))
		f := roccMessage(sw.report(3, now%3 == 0))
		out.Reset()
		if err := h.Feedback(now, &f, out); err != nil {
			t.Fatal(err)
		}
		if err := h.Sent(now, &pkt, nil); err != nil {
			t.Fatal(err)
		}
		if err := h.Timer(now, nil); err != nil {
			t.Fatal(err)
		}
		regs = h.AppendRegisters(regs[:0])
	})
	require.Zero(t, allocs)
}

// BenchmarkRoCCHostFeedback is the host's contract Feedback: decode a
// report, run Algorithm 1, encode and append the rate message. The
// reports, a switch's consecutive updates over a queue that moves through
// every branch, are encoded before the loop.
func BenchmarkRoCCHostFeedback(b *testing.B) {
	p, err := pi.NewParams(pi.RoCC40G())
	if err != nil {
		b.Fatal(err)
	}
	sw := newRoCCSwitch(p, 1, 1)
	// 1024 updates: the counter wraps every 256, so the sequence repeats
	// with consecutive counters.
	var fs [1024]cc.Feedback
	for i := range fs {
		sw.update(units.Bytes((i * 7919) % 420_000))
		fs[i] = roccMessage(sw.report(1, false))
	}
	h, err := NewRoCCHost(p)
	if err != nil {
		b.Fatal(err)
	}
	out := cc.NewActions(1)
	b.ReportAllocs()
	now := units.Time(0)
	for i := 0; b.Loop(); i++ {
		now += 40 * units.Microsecond
		out.Reset()
		if err := h.Feedback(now, &fs[i&1023], out); err != nil {
			b.Fatal(err)
		}
	}
}

// ExampleRoCCHost computes the fair rate on the host from a switch's
// reports ([RoCC] §III-F): Qcur and the update counter, as the paper's P4
// CNP carries them (Listing 1), with the parameters of the switch's 40 Gb/s
// setting (Qref/Qmid/Qmax = 250/500/600 ΔQ, Fmax = 4000 ΔF). By hand: a
// queue of 500 ΔQ grown by Qmid from 0 halves F to 2000 (line 5); held
// there, line 8 at F = Fmax/2 (ratio 1) takes 0.3·250 = 75; the fall to
// Qref at F < Fmax/2 (ratio 2) gives back 1.5·250/2 = 187.5, printed in
// whole ΔF. Each report in gives the rate message out for the flow's RP.
func ExampleRoCCHost() {
	h, _ := NewRoCCHostConfig(pi.RoCC40G())
	out := cc.NewActions(1)
	for i, q := range []uint16{500, 500, 250} { // Qcur in ΔQ units
		report := wire.RoCCFeedback{Type: wire.RoCCReportFeedback, Seq: uint8(i + 1), Switch: 10, Port: 3, QDepth: q, Flow: 7}
		f := cc.Feedback{Kind: cc.FeedbackRate, Flow: 7, From: report.CP()}
		report.Put(&f.Data)
		out.Reset()
		if err := h.Feedback(units.Time(i)*40*units.Microsecond, &f, out); err != nil {
			panic(err)
		}
		a := out.At(0)
		m, _ := wire.DecodeRoCCFeedback(a.Feedback.Data[:])
		fmt.Println(m)
	}
	// Output:
	// rocc rate cp=10:3 seq=1 F=2000 Q=500 flow=7
	// rocc rate cp=10:3 seq=2 F=1925 Q=500 flow=7
	// rocc rate cp=10:3 seq=3 F=2112 Q=250 flow=7
}
