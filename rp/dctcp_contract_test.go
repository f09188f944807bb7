package rp

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
)

// dctcpRegs returns d's registers.
func dctcpRegs(d *DCTCP) []cc.Register { return d.AppendRegisters(nil) }

// dctcpWideCfg is a configuration whose window allows ACKs of several
// DCTCPMaxSegment: 300 KB at start, up to 1 MB, sequence numbers starting
// just below the 32-bit wrap.
func dctcpWideCfg() DCTCPConfig {
	c := dctcpCfg()
	c.InitialCwnd, c.MaxCwnd = 300_000, 1_000_000
	c.InitialSeq = math.MaxUint32 - 5000
	return c
}

// The contract methods (Sent, Feedback, Timer) and the fast paths they run
// on 32-bit sequence numbers (send, ackSplit) give the same results,
// registers and Limits included, on the same random events, the contract
// given the flow's 64-bit byte offsets from 0: new segments and
// retransmissions, ACKs and NAKs of up to 200 KB (split into pieces), ECN
// echoes, duplicate and old ACKs, and bad input (times going backwards,
// ACKs past snd_nxt, negative sizes).
func TestDCTCPContractMatchesTyped(t *testing.T) {
	for seed, ss := range []bool{false, true} {
		rng := rand.New(rand.NewPCG(7, uint64(seed)))
		cfg := dctcpWideCfg()
		cfg.SlowStart = ss
		typed, err := NewDCTCP(cfg)
		require.NoError(t, err)
		contract, err := NewDCTCP(cfg)
		require.NoError(t, err)
		isn := cfg.InitialSeq
		act := cc.NewActions(2)
		var una, nxt uint64 // the flow's byte offsets, as the harness counts them
		now := units.Time(0)
		var ok, splits int
		var rt, rc []cc.Register
		const events = 20000
		for i := range events {
			now += units.Time(rng.IntN(1000)) - 50
			act.Reset()
			var e1, e2 error
			switch k := rng.IntN(20); {
			case k < 14: // a send: new data, or a retransmission
				seq := nxt
				if rng.IntN(8) == 0 {
					seq = una + uint64(rng.IntN(int(nxt-una)+1))
				}
				n := units.Bytes(rng.IntN(1500))
				if rng.IntN(50) == 0 {
					n = []units.Bytes{-1, DCTCPMaxSegment + 1, DCTCPMaxSegment}[rng.IntN(3)]
				}
				if nxt-una > 400_000 {
					continue
				}
				e1 = typed.send(now, isn+uint32(seq), n)
				e2 = contract.Sent(now, &cc.Packet{Seq: seq, Payload: n, Size: n + 82}, act)
				if e1 == nil && seq+uint64(max(n, 0)) > nxt {
					nxt = seq + uint64(n)
				}
			case k < 19: // an ACK or NAK
				seq := una + uint64(rng.IntN(int(nxt-una)+1))
				if rng.IntN(4) != 0 { // mostly small steps
					seq = min(una+uint64(rng.IntN(3000)), nxt)
				}
				acked := units.Bytes(seq - una)
				switch rng.IntN(40) {
				case 0: // past snd_nxt
					seq = nxt + 1 + uint64(rng.IntN(1000))
				case 1: // negative
					acked = -1
				case 2: // an old ACK
					seq = una - uint64(min(una, 500))
					acked = 0
				}
				kind := cc.FeedbackAck
				if rng.IntN(10) == 0 {
					kind = cc.FeedbackNak
				}
				ece := rng.IntN(40) == 0
				e1 = typed.ackSplit(now, isn+uint32(seq), acked, ece)
				e2 = contract.Feedback(now, &cc.Feedback{Kind: kind, Seq: seq, Acked: acked, ECE: ece}, act)
				if e1 == nil {
					una = max(una, seq)
					if acked > DCTCPMaxSegment {
						splits++
					}
				}
			default:
				e1 = typed.Timer(now, nil)
				e2 = contract.Timer(now, act)
			}
			require.Equal(t, e1 == nil, e2 == nil, "event %d: %v / %v", i, e1, e2)
			if e1 != nil {
				require.True(t, cc.Typed(e1) && cc.Typed(e2), "%v / %v", e1, e2)
				require.Equal(t, errors.Is(e1, cc.ErrTimeOrder), errors.Is(e2, cc.ErrTimeOrder), "%v / %v", e1, e2)
				require.Equal(t, errors.Is(e1, cc.ErrEvent), errors.Is(e2, cc.ErrEvent), "%v / %v", e1, e2)
			}
			if e1 == nil {
				ok++
			}
			require.Zero(t, act.Len(), "DCTCP appends no action")
			rt, rc = typed.AppendRegisters(rt[:0]), contract.AppendRegisters(rc[:0])
			if !slices.Equal(rt, rc) || typed.State() != contract.State() {
				require.Equal(t, rt, rc, "event %d", i)
				require.Equal(t, typed.State(), contract.State(), "event %d", i)
			}
			if contract.Limits() != (cc.Limits{Window: typed.Window()}) || contract.NextDeadline() != units.MaxTime {
				t.Fatalf("event %d: limits %v, deadline %v", i, contract.Limits(), contract.NextDeadline())
			}
			for _, r := range rc {
				if !r.Fits() {
					t.Fatalf("event %d: %v does not fit", i, r)
				}
			}
		}
		s := typed.State()
		t.Logf("slow start %v: %d of %d events accepted, %d split ACKs, %d windows, %d cuts, cwnd %d", ss, ok, events, splits, s.Windows, s.Cuts, s.Cwnd)
		require.Greater(t, ok, events*3/4, "most events are accepted")
		require.NotZero(t, s.Cuts, "the run cut the window")
		require.NotZero(t, splits, "the run split ACKs")
		require.NotZero(t, s.Windows)
	}
}

// An ACK split into pieces is the pieces given one by one to ack, as the
// harness adapter gave them before the split moved here: 150 KB = 64 KiB +
// 64 KiB + 18 928 B, at cumulative sequences 65 536, 131 072, 150 000.
func TestDCTCPAckSplitIsPieces(t *testing.T) {
	cfg := dctcpCfg()
	cfg.InitialCwnd = 300_000
	whole, err := NewDCTCP(cfg)
	require.NoError(t, err)
	pieces, err := NewDCTCP(cfg)
	require.NoError(t, err)
	for _, d := range []*DCTCP{whole, pieces} {
		require.NoError(t, d.send(0, 0, 60_000))
		require.NoError(t, d.send(0, 60_000, 60_000))
		require.NoError(t, d.send(0, 120_000, 60_000))
	}
	require.NoError(t, whole.ackSplit(1, 150_000, 150_000, true))
	require.NoError(t, pieces.ack(1, 65_536, DCTCPMaxSegment, true))
	require.NoError(t, pieces.ack(1, 131_072, DCTCPMaxSegment, true))
	require.NoError(t, pieces.ack(1, 150_000, 18_928, true))
	require.Equal(t, pieces.State(), whole.State())
	require.Equal(t, uint64(3), whole.State().Acks)
	require.Equal(t, uint64(1), whole.State().Cuts, "one cut for the ACK's ECN echo")
}

// The fix of the split ACK's atomicity. The harness adapter used to pass
// the pieces one by one and apply those that passed: an ACK whose first
// pieces end 2^31 or more behind snd_nxt (wrap-aware, "after" it) had them
// refused and the rest applied, 32 768 pieces of old data that grew cwnd
// to 1 GiB (found by this test against the old adapter:
//
//	expected: rp.DCTCPState{Cwnd:0x2710, ... Acks:0x0, Windows:0x0, ...}
//	actual  : rp.DCTCPState{Cwnd:0x40000000, ... Acks:0x8000, Windows:0x2, ...}
//
// ). Now every piece is checked first: the first intermediate piece ends
// (snd_nxt − seq) + acked − DCTCPMaxSegment behind snd_nxt, the farthest,
// and that must be below 2^31; otherwise the ACK is refused whole.
func TestDCTCPAckSplitAtomic(t *testing.T) {
	for _, c := range []struct {
		acked units.Bytes
		ok    bool
	}{
		{1<<31 + 3*DCTCPMaxSegment, false},
		{1<<31 + DCTCPMaxSegment, false}, // first piece exactly 2^31 behind: Linux's before() says after
		{1<<31 - 1 + DCTCPMaxSegment, true},
	} {
		d, err := NewDCTCP(dctcpCfg())
		require.NoError(t, err)
		require.NoError(t, d.send(0, 0, 10000))
		before := d.State()
		regs := dctcpRegs(d)
		for _, ev := range []func() error{
			func() error { return d.ackSplit(units.Microsecond, 10000, c.acked, false) },
			func() error {
				return d.Feedback(units.Microsecond, &cc.Feedback{Kind: cc.FeedbackAck, Seq: 10000, Acked: c.acked}, nil)
			},
		} {
			err := ev()
			if c.ok {
				require.NoError(t, err, "acked %v", c.acked)
				require.Equal(t, uint32(10000), d.State().SndUna)
				break
			}
			require.ErrorIs(t, err, cc.ErrEvent, "acked %v", c.acked)
			require.Equal(t, before, d.State(), "acked %v: a refused ACK changes nothing", c.acked)
			require.Equal(t, regs, dctcpRegs(d))
		}
	}
}

// A NAK is taken as the cumulative ACK it carries; a kind DCTCP does not
// use changes nothing but the time and unused_feedback, which counts it
// (cc rule 8; the contract's open set of kinds); a nil message or packet
// is refused and changes nothing.
func TestDCTCPFeedbackKinds(t *testing.T) {
	ack, err := NewDCTCP(dctcpCfg())
	require.NoError(t, err)
	nak, err := NewDCTCP(dctcpCfg())
	require.NoError(t, err)
	for _, d := range []*DCTCP{ack, nak} {
		require.NoError(t, d.Sent(0, &cc.Packet{Seq: 0, Payload: 5000}, nil))
	}
	require.NoError(t, ack.Feedback(1, &cc.Feedback{Kind: cc.FeedbackAck, Seq: 2000, Acked: 2000, ECE: true}, nil))
	require.NoError(t, nak.Feedback(1, &cc.Feedback{Kind: cc.FeedbackNak, Seq: 2000, Acked: 2000, ECE: true}, nil))
	require.Equal(t, ack.State(), nak.State())
	require.Equal(t, uint32(2000), nak.State().SndUna)

	before := ack.State()
	regs := dctcpRegs(ack)
	last := len(regs) - 1 // unused_feedback, the last register
	require.Equal(t, cc.Reg(cc.UnusedRegister, 64, 0), regs[last])
	for i, f := range []*cc.Feedback{{}, {Kind: cc.FeedbackCNP}, {Kind: cc.FeedbackRate, Seq: 3000, Acked: 1000}, {Kind: cc.FeedbackUser}} {
		act := cc.NewActions(1)
		require.NoError(t, ack.Feedback(2, f, act), "%v", f)
		require.Zero(t, act.Len())
		after := ack.State()
		require.Equal(t, units.Time(2), after.Time.Last(), "the time is recorded")
		require.Equal(t, uint64(i+1), after.Unused.N(), "counted: %v", f)
		after.Time, after.Unused = before.Time, before.Unused
		require.Equal(t, before, after, "nothing else changes: %v", f)
		got := dctcpRegs(ack)
		require.Equal(t, regs[1:last], got[1:last])
		require.Equal(t, cc.Reg(cc.UnusedRegister, 64, uint64(i+1)), got[last])
		require.ErrorIs(t, ack.Feedback(0, f, nil), cc.ErrTimeOrder, "time is checked first")
	}
	before = ack.State()
	require.ErrorIs(t, ack.Feedback(3, nil, nil), cc.ErrEvent)
	require.ErrorIs(t, ack.Sent(3, nil, nil), cc.ErrEvent)
	require.ErrorIs(t, ack.Sent(0, nil, nil), cc.ErrTimeOrder)
	require.Equal(t, before, ack.State())
}

// TestDCTCPNoTimerToCatchUp (cc rule 4): the sender has no timer, so no
// deadline is ever late: Timer calls between sends, ACKs (one in three
// echoing ECN) and CNPs change nothing but the time (rpNoTimerCatchUp).
// And (rule 3) no event decides, so every event takes a nil *cc.Actions.
func TestDCTCPNoTimerToCatchUp(t *testing.T) {
	const n = 900
	p := rpNoTimerCatchUp(t, func() cc.ReactionPoint {
		d, err := NewDCTCP(dctcpCfg())
		require.NoError(t, err)
		return d
	}, n, func(p cc.ReactionPoint, i int, now units.Time, act *cc.Actions) error {
		if i%2 == 1 {
			act = nil
		}
		k := uint64(i / 3)
		switch i % 3 {
		case 0:
			return p.Sent(now, &cc.Packet{Seq: k * 1000, Payload: 1000, Size: 1082}, act)
		case 1:
			return p.Feedback(now, &cc.Feedback{Kind: cc.FeedbackAck, Seq: (k + 1) * 1000, Acked: 1000, ECE: k%3 == 0}, act)
		}
		return p.Feedback(now, &cc.Feedback{Kind: cc.FeedbackCNP}, act)
	})
	s := p.(*DCTCP).State()
	require.Equal(t, uint64(n/3), s.Acks)
	require.Positive(t, s.Cuts, "the ECN echoes cut the window")
	require.Equal(t, uint64(n/3), s.Unused.N(), "every CNP counted")
}

// TestDCTCPAccessorsMatchRegisters: Window, Alpha, Inflight and State
// report the registers in the units of the snapshot (cwnd in bytes, α raw
// Q10, the sequence numbers' difference modulo 2^32), after every event of
// a run with ECN echoes across the sequence wrap.
func TestDCTCPAccessorsMatchRegisters(t *testing.T) {
	d, err := NewDCTCP(dctcpWideCfg())
	require.NoError(t, err)
	for i := range 600 {
		k := uint64(i / 2)
		now := units.Time(i) * units.Microsecond
		if i%2 == 0 {
			require.NoError(t, d.Sent(now, &cc.Packet{Seq: k * 1500, Payload: 1500}, nil))
		} else {
			require.NoError(t, d.Feedback(now, &cc.Feedback{Kind: cc.FeedbackAck, Seq: (k + 1) * 1500, Acked: 1500, ECE: k%5 == 0}, nil))
		}
		reg := map[string]uint64{}
		for _, r := range dctcpRegs(d) {
			reg[r.Name] = r.Value
		}
		s := d.State()
		require.Equal(t, reg["cwnd"], uint64(d.Window()))
		require.Equal(t, reg["alpha"], uint64(d.Alpha()))
		require.Equal(t, (reg["snd_nxt"]-reg["snd_una"])%(1<<32), uint64(d.Inflight()))
		require.Equal(t, reg["cwnd"], uint64(s.Cwnd))
		require.Equal(t, reg["snd_una"], uint64(s.SndUna))
		require.Equal(t, reg[cc.UnusedRegister], s.Unused.N())
	}
	require.Positive(t, d.State().Cuts)
	require.Less(t, d.State().SndUna, d.Config().InitialSeq, "the sequence numbers wrapped")
}

// Time going backwards is refused by every event method with both times,
// and changes nothing; equal times are in order; negative times are
// refused from the start.
func TestDCTCPContractTimeOrder(t *testing.T) {
	d, err := NewDCTCP(dctcpCfg())
	require.NoError(t, err)
	require.NoError(t, d.Sent(100, &cc.Packet{Payload: 5000}, nil))
	before := dctcpRegs(d)
	act := cc.NewActions(1)
	events := []struct {
		name string
		ev   func(units.Time) error
	}{
		{"send", func(now units.Time) error { return d.send(now, 5000, 1000) }},
		{"ack", func(now units.Time) error { return d.ack(now, 1000, 1000, false) }},
		{"ackSplit", func(now units.Time) error { return d.ackSplit(now, 2000, 1000, false) }},
		{"Sent", func(now units.Time) error { return d.Sent(now, &cc.Packet{Seq: 6000, Payload: 1000}, act) }},
		{"Feedback", func(now units.Time) error {
			return d.Feedback(now, &cc.Feedback{Kind: cc.FeedbackAck, Seq: 3000, Acked: 1000}, act)
		}},
		{"Timer", func(now units.Time) error { return d.Timer(now, act) }},
	}
	for _, e := range events {
		err := e.ev(99)
		var te *cc.TimeOrderError
		require.ErrorAs(t, err, &te, e.name)
		require.ErrorIs(t, err, cc.ErrTimeOrder)
		require.Equal(t, "rp.DCTCP", te.Part)
		// The fast paths name the contract event that runs them.
		event := map[string]string{"send": "Sent", "ack": "Feedback", "ackSplit": "Feedback"}[e.name]
		if event == "" {
			event = e.name
		}
		require.Equal(t, event, te.Event)
		require.Equal(t, units.Time(99), te.Now)
		require.Equal(t, units.Time(100), te.Last)
		require.Equal(t, before, dctcpRegs(d), e.name)
	}
	for _, e := range events {
		require.NoError(t, e.ev(100), "%s: equal times are in order", e.name)
	}
	fresh, err := NewDCTCP(dctcpCfg())
	require.NoError(t, err)
	require.ErrorIs(t, fresh.Timer(-1, nil), cc.ErrTimeOrder)
	require.ErrorIs(t, fresh.Sent(-1, &cc.Packet{}, nil), cc.ErrTimeOrder)
}

// DCTCP emits nothing, so a nil or full Actions is no obstacle and is left
// as it was.
func TestDCTCPContractActionsUntouched(t *testing.T) {
	d, err := NewDCTCP(dctcpCfg())
	require.NoError(t, err)
	full := cc.NewActions(1)
	full.MarkCE()
	for i, act := range []*cc.Actions{nil, full, cc.NewActions(0)} {
		now := units.Time(i)
		require.NoError(t, d.Sent(now, &cc.Packet{Seq: uint64(i) * 1000, Payload: 1000}, act))
		require.NoError(t, d.Feedback(now, &cc.Feedback{Kind: cc.FeedbackAck, Seq: uint64(i+1) * 1000, Acked: 1000, ECE: true}, act))
		require.NoError(t, d.Timer(now, act))
	}
	require.Equal(t, 1, full.Len())
	require.Equal(t, uint64(3), d.State().Acks)
}

// No input panics: extreme and garbage values of every field.
func TestDCTCPContractNoPanic(t *testing.T) {
	d, err := NewDCTCP(dctcpWideCfg())
	require.NoError(t, err)
	act := cc.NewActions(1)
	for i, p := range []cc.Packet{{}, {Seq: math.MaxUint64, Payload: units.MaxBytes}, {Payload: -1 << 62, Size: -1}} {
		_ = d.Sent(units.Time(i), &p, act)
	}
	for i, f := range []cc.Feedback{
		{Kind: cc.FeedbackAck, Seq: math.MaxUint64, Acked: units.MaxBytes, ECE: true},
		{Kind: cc.FeedbackNak, Acked: -1 << 62},
		{Kind: cc.FeedbackAck, Acked: 1 << 40},
		{Kind: 255},
	} {
		_ = d.Feedback(units.Time(10+i), &f, nil)
	}
	require.NoError(t, d.Timer(units.MaxTime, nil))
	for _, r := range dctcpRegs(d) {
		require.True(t, r.Fits(), "%v", r)
	}
}

func TestDCTCPContractNoAllocs(t *testing.T) {
	d, err := NewDCTCP(DCTCPHPCCSim(100*units.Gbps, 13*units.Microsecond))
	require.NoError(t, err)
	act := cc.NewActions(1)
	var seq uint64
	now := units.Time(0)
	p := &cc.Packet{Payload: 1000}
	f := &cc.Feedback{Kind: cc.FeedbackAck, Acked: 1000}
	require.Zero(t, testing.AllocsPerRun(2000, func() {
		now++
		p.Seq = seq
		if err := d.Sent(now, p, act); err != nil {
			panic(err)
		}
		seq += 1000
		f.Seq, f.ECE = seq, now%7 == 0
		if err := d.Feedback(now, f, act); err != nil {
			panic(err)
		}
		if err := d.Timer(now, act); err != nil {
			panic(err)
		}
	}), "Sent, Feedback, Timer")
	require.Zero(t, testing.AllocsPerRun(100, func() { // a split ACK
		now++
		for range 100 {
			p.Seq = seq
			_ = d.Sent(now, p, act)
			seq += 1000
		}
		f.Seq, f.Acked = seq, 100_000
		if err := d.Feedback(now, f, act); err != nil {
			panic(err)
		}
	}), "split Feedback")
	dst := make([]cc.Register, 0, 32)
	require.Zero(t, testing.AllocsPerRun(1000, func() { dst = d.AppendRegisters(dst[:0]) }))
	require.Len(t, dst, 19)
}

// BenchmarkDCTCPFeedback is BenchmarkDCTCPOnAck through the contract: per
// iteration one Sent of a 1000-byte segment and one Feedback ACK of it, one
// in seven echoing ECN.
func BenchmarkDCTCPFeedback(b *testing.B) {
	d, _ := NewDCTCP(DCTCPHPCCSim(100*units.Gbps, 13*units.Microsecond))
	act := cc.NewActions(1)
	p := &cc.Packet{Payload: 1000}
	f := &cc.Feedback{Kind: cc.FeedbackAck, Acked: 1000}
	var seq uint64
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		i++
		p.Seq = seq
		_ = d.Sent(units.Time(i), p, act)
		seq += 1000
		f.Seq, f.ECE = seq, i%7 == 0
		_ = d.Feedback(units.Time(i), f, act)
	}
}

// BenchmarkDCTCPSent: Sent of 1000-byte segments; every 1024th iteration
// one Feedback acknowledges them all (1 MB, split into 16 pieces), so
// inflight stays bounded.
func BenchmarkDCTCPSent(b *testing.B) {
	d, _ := NewDCTCP(DCTCPHPCCSim(100*units.Gbps, 13*units.Microsecond))
	act := cc.NewActions(1)
	p := &cc.Packet{Payload: 1000}
	f := &cc.Feedback{Kind: cc.FeedbackAck}
	var seq, una uint64
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		i++
		p.Seq = seq
		_ = d.Sent(units.Time(i), p, act)
		seq += 1000
		if i%1024 == 0 {
			f.Seq, f.Acked = seq, units.Bytes(seq-una)
			_ = d.Feedback(units.Time(i), f, act)
			una = seq
		}
	}
}

// BenchmarkDCTCPOnAckSplit: 100 segments sent, then one ACK of all 100 KB
// (two pieces), per iteration, on the fast paths of Sent and Feedback
// (send, ackSplit).
func BenchmarkDCTCPOnAckSplit(b *testing.B) {
	d, _ := NewDCTCP(DCTCPHPCCSim(100*units.Gbps, 13*units.Microsecond))
	seq, i := uint32(0), 0
	b.ReportAllocs()
	for b.Loop() {
		i++
		for range 100 {
			_ = d.send(units.Time(i), seq, 1000)
			seq += 1000
		}
		_ = d.ackSplit(units.Time(i), seq, 100_000, i%7 == 0)
	}
}

func BenchmarkDCTCPTimer(b *testing.B) {
	d, _ := NewDCTCP(dctcpCfg())
	now := units.Time(0)
	b.ReportAllocs()
	for b.Loop() {
		now++
		_ = d.Timer(now, nil)
	}
}

func BenchmarkDCTCPAppendRegisters(b *testing.B) {
	d, _ := NewDCTCP(dctcpCfg())
	dst := make([]cc.Register, 0, 32)
	b.ReportAllocs()
	for b.Loop() {
		dst = d.AppendRegisters(dst[:0])
	}
}
