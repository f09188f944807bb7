package rp_test

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/rp"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

const (
	mercuryLine = 40 * units.Gbps
	mercuryRTT  = 16 * units.Microsecond
	mercuryUS   = units.Microsecond
)

func mercuryCNP(flow cc.FlowID, w wire.MercuryWindow, win uint32) *cc.Feedback {
	f := &cc.Feedback{Kind: cc.FeedbackCNP, Flow: flow}
	w.Put(&f.Data, win)
	return f
}

// TestMercuryWindow: the window starts at C·baseRTT; a CNP's window
// becomes cwnd (capped at C·baseRTT) and cuts DCQCN's rate as a plain CNP
// would; a CNP with window 0 is a plain CNP; ResetAfter without a CNP
// restores C·baseRTT (Algorithm 2, lines 15–20).
func TestMercuryWindow(t *testing.T) {
	cfg := rp.MercuryPaper(mercuryLine, mercuryRTT)
	s, err := rp.NewMercury(cfg)
	require.NoError(t, err)
	bdp := units.BytesIn(mercuryLine, mercuryRTT)
	require.Equal(t, cc.Limits{Rate: mercuryLine, Window: bdp}, s.Limits())

	// A plain DCQCN run alongside, for the rate.
	d, err := rp.NewDCQCN(cfg.DCQCN)
	require.NoError(t, err)

	require.NoError(t, s.Feedback(10*mercuryUS, mercuryCNP(1, cfg.Window, 12_000), nil))
	require.NoError(t, d.Feedback(10*mercuryUS, &cc.Feedback{Kind: cc.FeedbackCNP}, nil))
	require.Equal(t, units.Bytes(12_000), s.Limits().Window)
	require.Equal(t, d.Limits().Rate, s.Limits().Rate, "DCQCN's cut, unchanged")
	require.Less(t, s.Limits().Rate, mercuryLine)

	require.NoError(t, s.Feedback(20*mercuryUS, mercuryCNP(1, cfg.Window, 1<<31), nil))
	require.Equal(t, bdp, s.Limits().Window, "capped at C·baseRTT")
	require.NoError(t, s.Feedback(30*mercuryUS, mercuryCNP(1, cfg.Window, 0), nil))
	require.Equal(t, bdp, s.Limits().Window, "a CNP without a window changes none")
	require.Equal(t, uint64(2), s.State().Windows)

	require.NoError(t, s.Feedback(40*mercuryUS, mercuryCNP(1, cfg.Window, 5000), nil))
	require.LessOrEqual(t, s.NextDeadline(), 140*mercuryUS, "the reset 100 µs after the last windowed CNP (or DCQCN's timer, earlier)")
	require.NoError(t, s.Timer(139*mercuryUS, nil))
	require.Equal(t, units.Bytes(5000), s.Limits().Window)
	require.NoError(t, s.Timer(140*mercuryUS, nil))
	require.Equal(t, bdp, s.Limits().Window, "reset")
	require.Equal(t, uint64(1), s.State().Resets)

	// Other kinds go to DCQCN and change no window; time going back is refused.
	require.NoError(t, s.Feedback(150*mercuryUS, &cc.Feedback{Kind: cc.FeedbackAck}, nil))
	require.ErrorIs(t, s.Feedback(100*mercuryUS, mercuryCNP(1, cfg.Window, 1), nil), cc.ErrTimeOrder)
	require.Equal(t, bdp, s.Limits().Window)
}

// TestMercuryConfig: out-of-range settings are refused.
func TestMercuryConfig(t *testing.T) {
	for _, c := range []func(*rp.MercuryConfig){
		func(c *rp.MercuryConfig) { c.InitWindow = 0 },
		func(c *rp.MercuryConfig) { c.ResetAfter = 0 },
		func(c *rp.MercuryConfig) { c.Window.Order = 2 },
		func(c *rp.MercuryConfig) { c.DCQCN.RateUnit = 0 },
	} {
		cfg := rp.MercuryPaper(mercuryLine, mercuryRTT)
		c(&cfg)
		_, err := rp.NewMercury(cfg)
		require.ErrorIs(t, err, cc.ErrConfig)
	}
}

// TestMercuryNoAllocs: the sender's events allocate nothing.
func TestMercuryNoAllocs(t *testing.T) {
	now := units.Time(0)
	snd, err := rp.NewMercury(rp.MercuryPaper(mercuryLine, mercuryRTT))
	require.NoError(t, err)
	f := mercuryCNP(1, wire.MercuryWindow{}, 10_000)
	p := cc.Packet{Payload: 1000}
	n := testing.AllocsPerRun(1000, func() {
		now += units.Microsecond
		_ = snd.Sent(now, &p, nil)
		_ = snd.Feedback(now, f, nil)
		_ = snd.Timer(now, nil)
	})
	require.Zero(t, n, "Sender")
}

// BenchmarkMercury: a packet sent and a CNP taken.
func BenchmarkMercury(b *testing.B) {
	snd, err := rp.NewMercury(rp.MercuryPaper(mercuryLine, mercuryRTT))
	require.NoError(b, err)
	f := mercuryCNP(1, wire.MercuryWindow{}, 10_000)
	p := cc.Packet{Payload: 1000}
	now := units.Time(0)
	b.ReportAllocs()
	for range b.N {
		now += units.Microsecond
		_ = snd.Sent(now, &p, nil)
		_ = snd.Feedback(now, f, nil)
	}
}

// FuzzMercuryCNPWindow: arbitrary bytes as a RoCEv2 CNP on the wire. What
// wire decodes re-encodes to the same bytes; its window (from the
// reserved bytes, at every offset and in both orders) is what
// MercuryWindow.Put wrote there; and the sender takes the CNP without
// panicking, with a window never above C·baseRTT (and never 0).
func FuzzMercuryCNPWindow(f *testing.F) {
	good := wire.CNP{DestQP: 0xD2, PKey: 0xFFFF}
	wire.MercuryWindow{}.Put(&good.Reserved, 20_000)
	b, _ := good.Encode()
	f.Add(b[:])
	f.Add(make([]byte, 32))
	f.Fuzz(func(t *testing.T, in []byte) {
		c, err := wire.DecodeCNP(in)
		if err != nil {
			if !cc.Typed(err) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		out, err := c.Encode()
		if err != nil || !bytes.Equal(out[:], in[:wire.CNPBytes]) {
			t.Fatalf("decoded CNP re-encodes to %x, not %x (%v)", out, in[:wire.CNPBytes], err)
		}
		for off := 0; off <= 12; off++ {
			for _, o := range []wire.MercuryByteOrder{wire.MercuryBigEndian, wire.MercuryLittleEndian} {
				w := wire.MercuryWindow{Offset: off, Order: o}
				var order binary.ByteOrder = binary.BigEndian
				if o == wire.MercuryLittleEndian {
					order = binary.LittleEndian
				}
				if got, want := w.Get(&c.Reserved), order.Uint32(c.Reserved[off:]); got != want {
					t.Fatalf("window at %d: %d, want %d", off, got, want)
				}
				cp := c.Reserved
				w.Put(&cp, w.Get(&c.Reserved))
				if cp != c.Reserved {
					t.Fatal("Put(Get) changed the bytes")
				}
			}
		}
		s, _ := rp.NewMercury(rp.MercuryPaper(40*units.Gbps, 16*units.Microsecond))
		fb := cc.Feedback{Kind: cc.FeedbackCNP, Data: c.Reserved}
		if err := s.Feedback(units.Microsecond, &fb, nil); err != nil {
			t.Fatal(err)
		}
		if w := s.Limits().Window; w < 1 || w > s.Config().InitWindow {
			t.Fatalf("window %v", w)
		}
	})
}

// TestMercuryRules: cc's rules 3, 4 and 8 at Mercury's sender. Rule 3: it
// never decides, so every event takes a nil *cc.Actions. Rule 4: a sender
// given only the events (DCQCN's timers and the window's reset left to
// pass, caught up by the next event) holds after each the registers of a
// twin whose Timer was called at every deadline. Rule 8: a message of a
// kind it does not use (anything but a CNP) is counted in unused_feedback
// and changes no other register but the time: no rate cut, no window.
func TestMercuryRules(t *testing.T) {
	cfg := rp.MercuryPaper(mercuryLine, mercuryRTT)
	x, err := rp.NewMercury(cfg)
	require.NoError(t, err)
	y, err := rp.NewMercury(cfg)
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(4, 4))
	now, ticks := units.Time(0), 0
	for e := range 3000 {
		now += units.Time(r.Int64N(int64(40 * mercuryUS)))
		for d := x.NextDeadline(); d <= now; d = x.NextDeadline() {
			require.NoError(t, x.Timer(d, nil))
			ticks++
		}
		var ev func(s *rp.Mercury) error
		switch k := r.IntN(10); {
		case k < 2:
			w := uint32(r.Int64N(int64(cfg.InitWindow)))
			ev = func(s *rp.Mercury) error { return s.Feedback(now, mercuryCNP(1, cfg.Window, w), nil) }
		case k < 9:
			ev = func(s *rp.Mercury) error { return s.Sent(now, &cc.Packet{Flow: 1, Payload: 1000}, nil) }
		default:
			ev = func(s *rp.Mercury) error { return s.Feedback(now, &cc.Feedback{Kind: cc.FeedbackAck, Flow: 1}, nil) }
		}
		require.NoError(t, ev(x))
		require.NoError(t, ev(y))
		require.Equal(t, x.AppendRegisters(nil), y.AppendRegisters(nil), "event %d", e)
		require.Equal(t, x.Limits(), y.Limits(), "event %d", e)
	}
	require.Positive(t, ticks)
	require.Positive(t, y.State().Resets, "the window's reset was caught up")

	unused := func(regs []cc.Register) (uint64, int) {
		for i, g := range regs {
			if g.Name == cc.UnusedRegister {
				return g.Value, i
			}
		}
		t.Fatal("no unused_feedback register")
		return 0, 0
	}
	require.NoError(t, y.Feedback(now, mercuryCNP(1, cfg.Window, 5000), nil))
	before := y.AppendRegisters(nil)
	n0, at := unused(before)
	for i, k := range []cc.FeedbackKind{cc.FeedbackAck, cc.FeedbackNak, cc.FeedbackRate, cc.FeedbackUser} {
		require.NoError(t, y.Feedback(now, &cc.Feedback{Kind: k, Flow: 1}, nil))
		after := y.AppendRegisters(nil)
		n, _ := unused(after)
		require.Equal(t, n0+uint64(i+1), n, k.String())
		after[at] = before[at]
		require.Equal(t, before, after, k.String())
	}
	require.Equal(t, units.Bytes(5000), y.Limits().Window)
}
