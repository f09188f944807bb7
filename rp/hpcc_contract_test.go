package rp

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	inttel "github.com/hwcc/hwcc/int"
	"github.com/hwcc/hwcc/units"
)

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

// TestHPCCContractMatchesTyped: the contract methods and the typed ones
// make the same decisions on the same seeded random event streams (the
// trace generator's ACKs, with sends between them, some ACKs turned into
// NAKs, some without INT, some malformed, some out of order), registers
// included after every event.
func TestHPCCContractMatchesTyped(t *testing.T) {
	codec, err := inttel.NewCodec(inttel.DefaultConfig())
	require.NoError(t, err)
	for name, cfg := range hpccContractConfigs() {
		t.Run(name, func(t *testing.T) {
			cfg.Codec = codec
			a, err := NewHPCC(cfg) // contract
			require.NoError(t, err)
			b, err := NewHPCC(cfg) // typed
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
					eb := b.OnSend(at)
					require.Equal(t, eb == nil, ea == nil, "event %d: Sent %v, OnSend %v", i, ea, eb)
				}
				f := cc.Feedback{Kind: cc.FeedbackAck, Seq: ev.ackSeq, SndNxt: ev.sndNxt, INT: &ev.hdr}
				hdr := &ev.hdr
				switch x := rng.IntN(40); {
				case x == 0:
					f.Kind = cc.FeedbackNak
				case x == 1:
					f.INT, hdr = nil, nil
				case x == 2:
					f.SndNxt = f.Seq - 1 // ACK beyond snd_nxt
					ev.sndNxt = f.SndNxt
				case x == 3:
					ev.now -= 50 * units.Millisecond // before the last event
				}
				ea := a.Feedback(ev.now, &f, &act)
				eb := b.OnAck(ev.now, ev.ackSeq, ev.sndNxt, hdr)
				require.Equal(t, eb == nil, ea == nil, "event %d: Feedback %v, OnAck %v", i, ea, eb)
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
	require.NoError(t, h.OnAck(10*units.Microsecond, 1000, 5000, hpccHdr(7, hpccHop(hpccCode100G, 100, 10, 0))))
	before := h.AppendRegisters(nil)
	f := cc.Feedback{Kind: cc.FeedbackAck, Seq: 2000, SndNxt: 6000, INT: hpccHdr(7, hpccHop(hpccCode100G, 1100, 20, 0))}
	at := 9 * units.Microsecond
	for name, ev := range map[string]func() error{
		"Feedback": func() error { return h.Feedback(at, &f, &act) },
		"Sent":     func() error { return h.Sent(at, &cc.Packet{}, &act) },
		"Timer":    func() error { return h.Timer(at, &act) },
		"OnAck":    func() error { return h.OnAck(at, f.Seq, f.SndNxt, f.INT) },
		"OnSend":   func() error { return h.OnSend(at) },
	} {
		err := ev()
		require.ErrorIs(t, err, cc.ErrTimeOrder, name)
		var te *cc.TimeOrderError
		require.ErrorAs(t, err, &te)
		require.Equal(t, cc.TimeOrderError{Part: "rp.HPCC", Event: name, Now: at, Last: 10 * units.Microsecond}, *te)
		require.Equal(t, before, h.AppendRegisters(nil), name)
	}
	// Equal times are in order.
	require.NoError(t, h.Sent(10*units.Microsecond, nil, nil))
	// A new part refuses a negative time.
	h = newTestHPCC(t, nil)
	require.ErrorIs(t, h.Sent(-1, nil, nil), cc.ErrTimeOrder)
	require.ErrorIs(t, h.Feedback(-1, &f, nil), cc.ErrTimeOrder)
}

// TestHPCCFeedbackKinds: what the contract does with each kind of
// feedback. ACK and NAK with INT run OnAck; without INT (and a nil
// feedback) they are *cc.EventError that change nothing; every other kind
// changes nothing but the time; nil actions are fine (nothing is emitted).
func TestHPCCFeedbackKinds(t *testing.T) {
	// A 400 KB queue on both records: U > 2, so W drops below W_init.
	first := hpccHdr(7, hpccHop(hpccCode100G, 0, 0, 5000))
	next := hpccHdr(7, hpccHop(hpccCode100G, 13000, 1000, 5000))
	for _, kind := range []cc.FeedbackKind{cc.FeedbackAck, cc.FeedbackNak} {
		h := newTestHPCC(t, nil)
		ref := newTestHPCC(t, nil)
		require.NoError(t, h.Feedback(1*units.Microsecond, &cc.Feedback{Kind: kind, Seq: 1, SndNxt: 100, INT: first}, nil))
		require.NoError(t, h.Feedback(14*units.Microsecond, &cc.Feedback{Kind: kind, Seq: 2, SndNxt: 100, INT: next}, nil))
		require.NoError(t, ref.OnAck(1*units.Microsecond, 1, 100, first))
		require.NoError(t, ref.OnAck(14*units.Microsecond, 2, 100, next))
		require.Equal(t, ref.State(), h.State(), kind.String())
		require.Less(t, h.Window(), h.Config().Window.Init, "the queue cut the window")
	}
	h := newTestHPCC(t, nil)
	require.NoError(t, h.OnAck(1*units.Microsecond, 1, 100, first))
	before := h.AppendRegisters(nil)
	for _, f := range []*cc.Feedback{
		nil,
		{Kind: cc.FeedbackAck, Seq: 2, SndNxt: 100},
		{Kind: cc.FeedbackNak, Seq: 2, SndNxt: 100},
	} {
		err := h.Feedback(14*units.Microsecond, f, nil)
		require.ErrorIs(t, err, cc.ErrEvent, "%+v", f)
		var ee *cc.EventError
		require.ErrorAs(t, err, &ee)
		require.Equal(t, "rp.HPCC", ee.Part)
		require.Equal(t, "Feedback", ee.Event)
		require.Equal(t, before, h.AppendRegisters(nil), "%+v", f)
	}
	at := 14 * units.Microsecond
	for _, f := range []*cc.Feedback{
		{Kind: cc.FeedbackNone, Seq: 2, SndNxt: 100, INT: next},
		{Kind: cc.FeedbackCNP, INT: next},
		{Kind: cc.FeedbackRate, INT: next},
		{Kind: cc.FeedbackUser + 3, Seq: 1 << 40, INT: next},
	} {
		at += units.Microsecond
		require.NoError(t, h.Feedback(at, f, nil), "%+v", f)
		after := h.AppendRegisters(nil)
		require.Equal(t, cc.TimeReg("now", at), after[0])
		require.Equal(t, before[1:], after[1:], "%+v", f)
	}
}

// TestHPCCNoTimer: NextDeadline is units.MaxTime, and Timer only records
// the time.
func TestHPCCNoTimer(t *testing.T) {
	h := newTestHPCC(t, nil)
	require.NoError(t, h.OnAck(1*units.Microsecond, 1, 100, hpccHdr(7, hpccHop(hpccCode100G, 0, 0, 0))))
	before := h.AppendRegisters(nil)
	require.Equal(t, units.MaxTime, h.NextDeadline())
	require.NoError(t, h.Timer(5*units.Microsecond, nil))
	after := h.AppendRegisters(nil)
	require.Equal(t, cc.TimeReg("now", 5*units.Microsecond), after[0])
	require.Equal(t, before[1:], after[1:])
	require.Equal(t, units.MaxTime, h.NextDeadline())
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
		_ = h.OnAck(ev.now, ev.ackSeq, ev.sndNxt, &ev.hdr)
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
			// the window's 6 + 2·5; 6 per hop record; 7 counters.
			require.Len(t, regs, 7+6+2*5+6*5+7)
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
	}
}

// TestHPCCContractNoAllocs: no contract event allocates on success, nor
// Limits, nor AppendRegisters into a slice with room.
func TestHPCCContractNoAllocs(t *testing.T) {
	evs := hpccBenchTrace(t)
	h := newTestHPCC(t, nil)
	var act cc.Actions
	buf := make([]cc.Register, 0, 128)
	i := 0
	allocs := testing.AllocsPerRun(1000, func() {
		ev := hpccBenchFeedback(evs, i)
		if err := h.Sent(ev.now, nil, &act); err != nil {
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

// hpccBenchFeedback returns ACK i (any i ≥ 0) of the endless replay of evs
// (see hpccBenchAck) as a cc.Feedback.
func hpccBenchFeedback(evs []hpccEvent, i int) hpccBenchEvent {
	pass, k := i/hpccBenchRing, i%hpccBenchRing
	ev := &evs[k]
	shift := uint64(pass) * hpccBenchRing * 1000
	return hpccBenchEvent{
		now: ev.now + units.Time(pass)*hpccBenchRing*hpccBenchGap,
		f:   cc.Feedback{Kind: cc.FeedbackAck, Seq: ev.ackSeq + shift, SndNxt: ev.sndNxt + shift, INT: &ev.hdr},
	}
}

// BenchmarkHPCCFeedback is BenchmarkHPCCOnAck through the contract.
func BenchmarkHPCCFeedback(b *testing.B) {
	evs := hpccBenchTrace(b)
	h, err := NewHPCC(HPCCPaperSim(100 * units.Gbps))
	require.NoError(b, err)
	var act cc.Actions
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		ev := hpccBenchFeedback(evs, i)
		if err := h.Feedback(ev.now, &ev.f, &act); err != nil {
			b.Fatal(err)
		}
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
