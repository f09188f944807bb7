package rp

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	inttel "github.com/hwcc/hwcc/int"
	"github.com/hwcc/hwcc/units"
)

// hpccWire writes any header whose fields fit their wire widths, as a
// path of switches would leave it: every 4-bit speed code assigned (the
// default table's eight, and 1..8 Gb/s for codes 8..15) and up to 15 hops,
// so that a header HPCC's Codec refuses (nHop 6, speed code 12) still has
// its wire form.
var hpccWire = func() *inttel.Codec {
	cfg := inttel.DefaultConfig()
	cfg.MaxHops = inttel.HopsLimit
	for code := len(cfg.Speeds); code <= inttel.MaxSpeed; code++ {
		cfg.Speeds = append(cfg.Speeds, inttel.SpeedCode{Code: uint8(code), Rate: units.Rate(code-7) * units.Gbps})
	}
	c, err := inttel.NewCodec(cfg)
	if err != nil {
		panic(err)
	}
	return c
}()

// hpccTelOf returns the telemetry stack that carries h (inttel's Put), or
// false when a field of h is wider than its field on the wire (a TS above
// 24 bits, a speed code above 15), which no stack can carry.
func hpccTelOf(h *inttel.Header) (*cc.Telemetry, bool) {
	var tel cc.Telemetry
	if hpccWire.Put(&tel, h) != nil {
		return nil, false
	}
	return &tel, true
}

// hpccTel is hpccTelOf of a header that fits the wire.
func hpccTel(t testing.TB, h *inttel.Header) *cc.Telemetry {
	t.Helper()
	tel, ok := hpccTelOf(h)
	require.True(t, ok, "%+v does not fit the wire", h)
	return tel
}

// hpccContractConfigs are the configurations the contract tests run: the
// presets and every option.
func hpccContractConfigs() map[string]HPCCConfig {
	out := map[string]HPCCConfig{}
	for _, name := range []string{"papersim", "testbed", "multirate", "perrtt", "native", "u1", "ueta"} {
		c := HPCCPaperSim(100 * units.Gbps)
		switch name {
		case "testbed":
			c = HPCCTestbed(25 * units.Gbps)
		case "multirate":
			c.MultiRate = true
		case "perrtt":
			c.FastReact = false
		case "native":
			c.Window.NativeDivision = true
		case "u1":
			c.InitialU = HPCCInitialUOne
		case "ueta":
			c.InitialU, c.MultiRate = HPCCInitialUEta, true
		}
		out[name] = c
	}
	return out
}

// TestHPCCContractMatchesTyped: Feedback, which reads each ACK's header
// from its telemetry stack, makes the same decisions as the typed fast
// path it runs (ack, given the decoded header) on the same seeded random
// event streams (the trace generator's ACKs, with sends between them,
// some ACKs turned into NAKs, some without telemetry, some beyond snd_nxt,
// some out of order), registers included after every event. Some ACKs
// carry a stack that is not one header (a record cut short, a byte over),
// which has no typed form: Feedback must refuse it, changing nothing.
func TestHPCCContractMatchesTyped(t *testing.T) {
	codec, err := inttel.NewCodec(inttel.DefaultConfig())
	require.NoError(t, err)
	for name, cfg := range hpccContractConfigs() {
		t.Run(name, func(t *testing.T) {
			cfg.Codec = codec
			a, err := NewHPCC(cfg) // contract
			require.NoError(t, err)
			b, err := NewHPCC(cfg) // typed fast path (Sent through the contract)
			require.NoError(t, err)
			rng := rand.New(rand.NewPCG(7, uint64(len(name))))
			gen := newHPCCTraceGen(uint64(len(name)), codec)
			var act cc.Actions // capacity 0: HPCC's RP emits nothing
			errs := 0
			for i := range 3000 {
				ev := gen.next()
				if rng.IntN(3) == 0 {
					at := ev.now - units.Time(rng.Int64N(int64(units.Microsecond)))
					if rng.IntN(50) == 0 {
						at = ev.now - 100*units.Millisecond // out of order
					}
					ea := a.Sent(at, &cc.Packet{Size: 1000}, &act)
					eb := b.Sent(at, &cc.Packet{Size: 1000}, nil)
					require.Equal(t, eb == nil, ea == nil, "event %d: Sent %v, %v", i, ea, eb)
				}
				f := cc.Feedback{Kind: cc.FeedbackAck, Seq: ev.ackSeq, SndNxt: ev.sndNxt, Tel: hpccTel(t, &ev.hdr)}
				hdr := &ev.hdr
				switch x := rng.IntN(40); {
				case x == 0:
					f.Kind = cc.FeedbackNak
				case x == 1:
					f.Tel, hdr = nil, nil
				case x == 2:
					f.SndNxt = f.Seq - 1 // ACK beyond snd_nxt
					ev.sndNxt = f.SndNxt
				case x == 3:
					ev.now -= 50 * units.Millisecond // before the last event
				case x == 4:
					f.Tel.Len += uint8(2*rng.IntN(2) - 1) // a byte short or over
					hdr = nil
				}
				if hdr == nil && f.Tel != nil {
					before := a.AppendRegisters(nil)
					require.ErrorIs(t, a.Feedback(ev.now, &f, &act), ErrHPCCHeader, "event %d", i)
					require.Equal(t, before, a.AppendRegisters(nil), "event %d", i)
					errs++
					continue
				}
				ea := a.Feedback(ev.now, &f, &act)
				eb := b.ack(ev.now, ev.ackSeq, ev.sndNxt, hdr)
				require.Equal(t, eb == nil, ea == nil, "event %d: Feedback %v, ack %v", i, ea, eb)
				if ea != nil {
					errs++
					require.True(t, cc.Typed(ea), "%v", ea)
				}
				require.Equal(t, b.AppendRegisters(nil), a.AppendRegisters(nil), "event %d", i)
				require.Equal(t, cc.Limits{Rate: b.Rate(), Window: b.Window()}, a.Limits())
				require.Zero(t, act.Len())
			}
			require.Positive(t, errs)
			require.Greater(t, a.State().Acks, uint64(2000))
		})
	}
}

// TestHPCCTimeOrder: every event method refuses a time before the latest
// accepted one with a *cc.TimeOrderError carrying both times, and changes
// no register; a negative time is refused from the start.
func TestHPCCTimeOrder(t *testing.T) {
	h := newTestHPCC(t, nil)
	var act cc.Actions
	require.NoError(t, h.ack(10*units.Microsecond, 1000, 5000, hpccHdr(7, hpccHop(hpccCode100G, 100, 10, 0))))
	before := h.AppendRegisters(nil)
	hdr := hpccHdr(7, hpccHop(hpccCode100G, 1100, 20, 0))
	f := cc.Feedback{Kind: cc.FeedbackAck, Seq: 2000, SndNxt: 6000, Tel: hpccTel(t, hdr)}
	at := 9 * units.Microsecond
	for name, ev := range map[string]func() error{
		"Feedback": func() error { return h.Feedback(at, &f, &act) },
		"Sent":     func() error { return h.Sent(at, &cc.Packet{}, &act) },
		"Timer":    func() error { return h.Timer(at, &act) },
		"ack":      func() error { return h.ack(at, f.Seq, f.SndNxt, hdr) },
	} {
		err := ev()
		require.ErrorIs(t, err, cc.ErrTimeOrder, name)
		var te *cc.TimeOrderError
		require.ErrorAs(t, err, &te)
		event := name
		if name == "ack" { // the fast path of Feedback, named after it
			event = "Feedback"
		}
		require.Equal(t, cc.TimeOrderError{Part: "rp.HPCC", Event: event, Now: at, Last: 10 * units.Microsecond}, *te)
		require.Equal(t, before, h.AppendRegisters(nil), name)
	}
	// Equal times are in order.
	require.NoError(t, h.Sent(10*units.Microsecond, &cc.Packet{}, nil))
	// A new part refuses a negative time.
	h = newTestHPCC(t, nil)
	require.ErrorIs(t, h.Sent(-1, &cc.Packet{}, nil), cc.ErrTimeOrder)
	require.ErrorIs(t, h.Feedback(-1, &f, nil), cc.ErrTimeOrder)
}

// TestHPCCFeedbackKinds: what the contract does with each kind of
// feedback. ACK and NAK with telemetry run NewAck (ack) on the header it
// holds; without telemetry, with a stack that is not one header (and a
// nil feedback) they are *cc.EventError that change nothing; every other
// kind changes nothing but the time and unused_feedback, which counts it
// (cc rule 8); nil actions are fine (nothing is emitted).
func TestHPCCFeedbackKinds(t *testing.T) {
	// A 400 KB queue on both records: U > 2, so W drops below W_init.
	first := hpccHdr(7, hpccHop(hpccCode100G, 0, 0, 5000))
	next := hpccHdr(7, hpccHop(hpccCode100G, 13000, 1000, 5000))
	firstTel, nextTel := hpccTel(t, first), hpccTel(t, next)
	for _, kind := range []cc.FeedbackKind{cc.FeedbackAck, cc.FeedbackNak} {
		h := newTestHPCC(t, nil)
		ref := newTestHPCC(t, nil)
		require.NoError(t, h.Feedback(1*units.Microsecond, &cc.Feedback{Kind: kind, Seq: 1, SndNxt: 100, Tel: firstTel}, nil))
		require.NoError(t, h.Feedback(14*units.Microsecond, &cc.Feedback{Kind: kind, Seq: 2, SndNxt: 100, Tel: nextTel}, nil))
		require.NoError(t, ref.ack(1*units.Microsecond, 1, 100, first))
		require.NoError(t, ref.ack(14*units.Microsecond, 2, 100, next))
		require.Equal(t, ref.State(), h.State(), kind.String())
		require.Less(t, h.Window(), h.Config().Window.Init, "the queue cut the window")
	}
	h := newTestHPCC(t, nil)
	require.NoError(t, h.ack(1*units.Microsecond, 1, 100, first))
	before := h.AppendRegisters(nil)
	short, over, above := *nextTel, *nextTel, *nextTel
	short.Len--
	over.Len++
	above.Len = cc.TelemetryCap + 1
	for _, tc := range []struct {
		f    *cc.Feedback
		err  error  // the Err of the *cc.EventError
		says string // what the message names
	}{
		{nil, nil, "nil feedback"},
		{&cc.Feedback{Kind: cc.FeedbackAck, Seq: 2, SndNxt: 100}, nil, "the ack carries no telemetry"},
		{&cc.Feedback{Kind: cc.FeedbackNak, Seq: 2, SndNxt: 100}, nil, "the nak carries no telemetry"},
		{&cc.Feedback{Kind: cc.FeedbackAck, Seq: 2, SndNxt: 100, Tel: &short}, ErrHPCCHeader, "byte 9: 9 bytes, need 10 for nHop = 1"},
		{&cc.Feedback{Kind: cc.FeedbackAck, Seq: 2, SndNxt: 100, Tel: &over}, ErrHPCCHeader, "byte 10: 11 bytes, nHop = 1 announces 10"},
		{&cc.Feedback{Kind: cc.FeedbackNak, Seq: 2, SndNxt: 100, Tel: &above}, ErrHPCCHeader, "stack length 129 is above 128"},
		{&cc.Feedback{Kind: cc.FeedbackAck, Seq: 2, SndNxt: 100, Tel: &cc.Telemetry{}}, ErrHPCCHeader, "byte 0: 0 bytes, need 2"},
	} {
		err := h.Feedback(14*units.Microsecond, tc.f, nil)
		require.ErrorIs(t, err, cc.ErrEvent, "%+v", tc.f)
		var ee *cc.EventError
		require.ErrorAs(t, err, &ee)
		require.Equal(t, "rp.HPCC", ee.Part)
		require.Equal(t, "Feedback", ee.Event)
		require.Equal(t, tc.err, ee.Err, "%v", err)
		require.ErrorContains(t, err, tc.says)
		require.Equal(t, before, h.AppendRegisters(nil), "%+v", tc.f)
	}
	at := 14 * units.Microsecond
	last := len(before) - 1 // unused_feedback, the last register
	require.Equal(t, cc.Reg(cc.UnusedRegister, 64, 0), before[last])
	for i, f := range []*cc.Feedback{
		{Kind: cc.FeedbackNone, Seq: 2, SndNxt: 100, Tel: nextTel},
		{Kind: cc.FeedbackCNP, Tel: nextTel},
		{Kind: cc.FeedbackRate, Tel: nextTel},
		{Kind: cc.FeedbackCredit},
		{Kind: cc.FeedbackUser + 3, Seq: 1 << 40, Tel: nextTel},
		{Kind: cc.FeedbackCNP, Tel: &above}, // not read
	} {
		at += units.Microsecond
		require.NoError(t, h.Feedback(at, f, nil), "%+v", f)
		after := h.AppendRegisters(nil)
		require.Equal(t, cc.TimeReg("now", at), after[0])
		require.Equal(t, before[1:last], after[1:last], "%+v", f)
		require.Equal(t, cc.Reg(cc.UnusedRegister, 64, uint64(i+1)), after[last], "%+v", f)
		require.Equal(t, uint64(i+1), h.State().Unused)
	}
}

// TestHPCCNoTimer: NextDeadline is units.MaxTime, and Timer only records
// the time.
func TestHPCCNoTimer(t *testing.T) {
	h := newTestHPCC(t, nil)
	require.NoError(t, h.ack(1*units.Microsecond, 1, 100, hpccHdr(7, hpccHop(hpccCode100G, 0, 0, 0))))
	before := h.AppendRegisters(nil)
	require.Equal(t, units.MaxTime, h.NextDeadline())
	require.NoError(t, h.Timer(5*units.Microsecond, nil))
	after := h.AppendRegisters(nil)
	require.Equal(t, cc.TimeReg("now", 5*units.Microsecond), after[0])
	require.Equal(t, before[1:], after[1:])
	require.Equal(t, units.MaxTime, h.NextDeadline())
}

// TestHPCCNoTimerToCatchUp (cc rule 4): the sender has no timer, so no
// deadline is ever late: Timer calls between sends, ACKs carrying
// telemetry and CNPs change nothing but the time (rpNoTimerCatchUp). And
// (rule 3) no event decides, so every event takes a nil *cc.Actions.
func TestHPCCNoTimerToCatchUp(t *testing.T) {
	codec, err := inttel.NewCodec(inttel.DefaultConfig())
	require.NoError(t, err)
	gen := newHPCCTraceGen(9, codec)
	const n = 600
	acks, tels := make([]hpccEvent, n), make([]cc.Telemetry, n)
	for i := range acks {
		acks[i] = gen.next()
		tels[i] = *hpccTel(t, &acks[i].hdr)
	}
	p := rpNoTimerCatchUp(t, func() cc.ReactionPoint { return newTestHPCC(t, func(c *HPCCConfig) { c.Codec = codec }) }, n,
		func(p cc.ReactionPoint, i int, now units.Time, act *cc.Actions) error {
			if i%2 == 1 {
				act = nil
			}
			ev := &acks[i]
			switch i % 5 {
			case 0:
				return p.Sent(now, &cc.Packet{Seq: ev.ackSeq, Payload: 1000, Size: 1082}, act)
			case 4:
				return p.Feedback(now, &cc.Feedback{Kind: cc.FeedbackCNP}, act)
			}
			tel := tels[i] // Feedback reads the stack and leaves it as it is
			return p.Feedback(now, &cc.Feedback{Kind: cc.FeedbackAck, Seq: ev.ackSeq, SndNxt: ev.sndNxt, Tel: &tel}, act)
		})
	s := p.(*HPCC).State()
	require.Greater(t, s.Acks, uint64(n/2))
	require.Positive(t, s.Window.Commits, "the ACKs moved the window")
	require.Equal(t, uint64(n/5), s.Unused, "every CNP counted")
}

// TestHPCCRegisters: the snapshot has fixed names in a fixed order, every
// value fits its width, and it agrees with State.
func TestHPCCRegisters(t *testing.T) {
	codec, err := inttel.NewCodec(inttel.DefaultConfig())
	require.NoError(t, err)
	h := newTestHPCC(t, func(c *HPCCConfig) { c.MultiRate = true; c.Codec = codec })
	gen := newHPCCTraceGen(3, codec)
	var names []string
	for i := range 500 {
		ev := gen.next()
		_ = h.ack(ev.now, ev.ackSeq, ev.sndNxt, &ev.hdr)
		regs := h.AppendRegisters(nil)
		seen := map[string]bool{}
		for _, r := range regs {
			require.True(t, r.Fits(), "%v", r)
			require.False(t, seen[r.Name], "register %s twice", r.Name)
			seen[r.Name] = true
		}
		if i == 0 {
			for _, r := range regs {
				names = append(names, r.Name)
			}
			// now, u, started, n_hop, path_id, bottleneck, last_ack_seq;
			// the window's 6 + 2·5; 6 per hop record; 7 counters and
			// unused_feedback.
			require.Len(t, regs, 7+6+2*5+6*5+7+1)
		}
		got := make([]string, len(regs))
		for k, r := range regs {
			got[k] = r.Name
		}
		require.Equal(t, names, got)
		s := h.State()
		byName := map[string]uint64{}
		for _, r := range regs {
			byName[r.Name] = r.Value
		}
		require.Equal(t, uint64(s.U), byName["u"])
		require.Equal(t, uint64(s.Window.W), byName["w"])
		require.Equal(t, uint64(s.LastNow), byName["now"])
		require.Equal(t, uint64(s.Hops[2].Record.TS), byName["hop2.ts"])
		require.Equal(t, uint64(s.Hops[4].U), byName["hop4.u"])
		require.Equal(t, s.Acks, byName["acks"])
		require.Equal(t, s.Unused, byName[cc.UnusedRegister])
		// The accessors read the registers in the snapshot's units: W in
		// bytes, R in bit/s, U raw UQ32_32.
		require.Equal(t, uint64(h.Window()), byName["w"])
		require.Equal(t, uint64(h.Rate()), byName["rate"])
		require.Equal(t, uint64(h.U()), byName["u"])
	}
}

// TestHPCCContractNoAllocs: no contract event allocates on success, nor
// Limits, nor AppendRegisters into a slice with room.
func TestHPCCContractNoAllocs(t *testing.T) {
	evs := hpccBenchTrace(t)
	tels := hpccBenchTels(t, evs)
	h := newTestHPCC(t, nil)
	var act cc.Actions
	buf := make([]cc.Register, 0, 128)
	i := 0
	allocs := testing.AllocsPerRun(1000, func() {
		ev := hpccBenchFeedback(evs, tels, i)
		if err := h.Sent(ev.now, &cc.Packet{Size: 1000}, &act); err != nil {
			t.Fatal(err)
		}
		if err := h.Feedback(ev.now, &ev.f, &act); err != nil {
			t.Fatal(err)
		}
		if err := h.Timer(ev.now, nil); err != nil {
			t.Fatal(err)
		}
		_ = h.Limits()
		buf = h.AppendRegisters(buf[:0])
		i++
	})
	require.Zero(t, allocs)
}

// hpccBenchEvent is ACK i of the benchmark ring as contract feedback.
type hpccBenchEvent struct {
	now units.Time
	f   cc.Feedback
}

// hpccBenchTels returns the telemetry stacks the ACKs of evs echo: each
// header's wire form.
func hpccBenchTels(tb testing.TB, evs []hpccEvent) []cc.Telemetry {
	tels := make([]cc.Telemetry, len(evs))
	for k := range evs {
		tels[k] = *hpccTel(tb, &evs[k].hdr)
	}
	return tels
}

// hpccBenchFeedback returns ACK i (any i ≥ 0) of the endless replay of evs
// (see hpccBenchAck) as a cc.Feedback echoing its stack in tels.
func hpccBenchFeedback(evs []hpccEvent, tels []cc.Telemetry, i int) hpccBenchEvent {
	pass, k := i/hpccBenchRing, i%hpccBenchRing
	ev := &evs[k]
	shift := uint64(pass) * hpccBenchRing * 1000
	return hpccBenchEvent{
		now: ev.now + units.Time(pass)*hpccBenchRing*hpccBenchGap,
		f:   cc.Feedback{Kind: cc.FeedbackAck, Seq: ev.ackSeq + shift, SndNxt: ev.sndNxt + shift, Tel: &tels[k]},
	}
}

// BenchmarkHPCCFeedback is BenchmarkHPCCOnAck through the contract: the
// same ACKs, as cc.Feedback with a telemetry stack, each header read from
// its wire bytes (inttel.ReadHeader) before the update.
func BenchmarkHPCCFeedback(b *testing.B) {
	evs := hpccBenchTrace(b)
	tels := hpccBenchTels(b, evs)
	for _, mode := range hpccBenchModes {
		b.Run(mode.name, func(b *testing.B) {
			h := newHPCCBench(b, mode.native)
			var act cc.Actions
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				ev := hpccBenchFeedback(evs, tels, i)
				if err := h.Feedback(ev.now, &ev.f, &act); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkHPCCFeedbackFlows is BenchmarkHPCCFeedback over many flows at
// once, each its own HPCC, fed ACK by ACK in turn, as a simulator or a NIC
// with thousands of queue pairs runs them. Beyond a few thousand flows
// their state does not stay in cache, so it times what an ACK costs in
// memory (the cache lines of its flow it reads and writes) besides its
// arithmetic. Every flow takes its first ACK (a seed) before the timing.
func BenchmarkHPCCFeedbackFlows(b *testing.B) {
	evs := hpccBenchTrace(b)
	tels := hpccBenchTels(b, evs)
	for _, n := range []int{4096, 65536} {
		b.Run("flows="+strconv.Itoa(n), func(b *testing.B) {
			hs := make([]*HPCC, n)
			var act cc.Actions
			for f := range hs {
				hs[f] = newHPCCBench(b, false)
				ev := hpccBenchFeedback(evs, tels, 0)
				require.NoError(b, hs[f].Feedback(ev.now, &ev.f, &act))
			}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				ev := hpccBenchFeedback(evs, tels, 1+i/n)
				if err := hs[i%n].Feedback(ev.now, &ev.f, &act); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkHPCCSent and BenchmarkHPCCTimer time the contract events that
// only record the time.
func BenchmarkHPCCSent(b *testing.B) {
	h, err := NewHPCC(HPCCPaperSim(100 * units.Gbps))
	require.NoError(b, err)
	var act cc.Actions
	p := cc.Packet{Size: 1000}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if err := h.Sent(units.Time(i), &p, &act); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkHPCCTimer(b *testing.B) {
	h, err := NewHPCC(HPCCPaperSim(100 * units.Gbps))
	require.NoError(b, err)
	var act cc.Actions
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if err := h.Timer(units.Time(i), &act); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHPCCAppendRegisters times a register snapshot into a slice
// with room.
func BenchmarkHPCCAppendRegisters(b *testing.B) {
	h, err := NewHPCC(HPCCPaperSim(100 * units.Gbps))
	require.NoError(b, err)
	buf := make([]cc.Register, 0, 128)
	b.ReportAllocs()
	for b.Loop() {
		buf = h.AppendRegisters(buf[:0])
	}
}
