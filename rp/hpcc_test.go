package rp

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/fixedpoint"
	inttel "github.com/hwcc/hwcc/int"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/window"
)

// Speed codes of inttel.DefaultSpeedCodes used below.
const (
	hpccCode25G  = 1
	hpccCode100G = 4
	hpccCode400G = 6
)

// hpccHdr builds a header from raw hop records (speed code, TS in ns,
// txBytes in 128 B units, qLen in 80 B units).
func hpccHdr(pathID uint16, hops ...inttel.Hop) *inttel.Header {
	h := &inttel.Header{NHop: uint8(len(hops)), PathID: pathID}
	copy(h.Hops[:], hops)
	return h
}

func hpccHop(code uint8, ts, tx uint32, q uint16) inttel.Hop {
	return inttel.Hop{Speed: code, TS: ts & inttel.MaxTS, TxBytes: tx & inttel.MaxTxBytes, QLen: q}
}

func newTestHPCC(t *testing.T, mod func(*HPCCConfig)) *HPCC {
	t.Helper()
	c := HPCCPaperSim(100 * units.Gbps)
	if mod != nil {
		mod(&c)
	}
	h, err := NewHPCC(c)
	require.NoError(t, err)
	return h
}

func uFloat(q fixedpoint.UQ32_32) float64 { return float64(q) / (1 << 32) }

func TestHPCCPresets(t *testing.T) {
	sim := HPCCPaperSim(100 * units.Gbps)
	require.Equal(t, 13*units.Microsecond, sim.Window.T)
	require.Equal(t, units.Bytes(162500), sim.Window.Init) // 100 Gb/s × 13 µs / 8
	require.Equal(t, units.Bytes(162500), sim.Window.Max)
	require.Equal(t, units.Bytes(1625), sim.Window.Min) // 1 Gb/s × 13 µs / 8
	require.Equal(t, units.Bytes(80), sim.Window.AI)    // section 5.1
	require.Equal(t, window.Eta95, sim.Window.Eta)
	require.Equal(t, 5, sim.Window.MaxStage)
	require.True(t, sim.FastReact)
	require.False(t, sim.MultiRate)

	tb := HPCCTestbed(25 * units.Gbps)
	require.Equal(t, 9*units.Microsecond, tb.Window.T)
	require.Equal(t, units.Bytes(28125), tb.Window.Init) // 25 Gb/s × 9 µs / 8
	require.Equal(t, units.Bytes(1125), tb.Window.Min)
	// W_AI = ⌊28125·(1 − 0.95)/100⌋ = ⌊14.06⌋ (section 3.3 rule, N = 100).
	require.Equal(t, units.Bytes(14), tb.Window.AI)

	for _, c := range []HPCCConfig{sim, tb} {
		h, err := NewHPCC(c)
		require.NoError(t, err)
		// W_init = B_NIC·T: the flow starts at line rate.
		require.Equal(t, units.Rate(float64(c.Window.Init)*8/c.Window.T.Seconds()), h.Rate())
		require.NotNil(t, h.Config().Codec)
	}
}

func TestHPCCConfigErrors(t *testing.T) {
	c := HPCCPaperSim(100 * units.Gbps)
	c.Window.Eta = 0
	_, err := NewHPCC(c)
	require.ErrorIs(t, err, cc.ErrConfig)
	var ce *cc.ConfigError
	require.ErrorAs(t, err, &ce)
	require.Equal(t, "Window.Eta", ce.Field)
	require.Equal(t, "rp.HPCC", ce.Part)

	// A speed code so slow that B·T is below one byte cannot normalise
	// the qlen term.
	cfg := inttel.DefaultConfig()
	cfg.Speeds = append(cfg.Speeds, inttel.SpeedCode{Code: 9, Rate: 100 * units.Kbps})
	codec, err := inttel.NewCodec(cfg)
	require.NoError(t, err)
	c = HPCCPaperSim(100 * units.Gbps)
	c.Codec = codec
	_, err = NewHPCC(c)
	require.ErrorAs(t, err, &ce)
	require.Equal(t, "Codec", ce.Field)
	require.ErrorContains(t, err, "speed code 9")
	// A NIC too fast for the 32-bit window.
	_, err = NewHPCC(HPCCPaperSim(10 * units.Tbps * 1000))
	require.ErrorAs(t, err, &ce)
	require.Equal(t, "Window.Init", ce.Field)
	// An InitialU beyond the three choices.
	c = HPCCPaperSim(100 * units.Gbps)
	c.InitialU = HPCCInitialUEta + 1
	_, err = NewHPCC(c)
	require.ErrorAs(t, err, &ce)
	require.Equal(t, "InitialU", ce.Field)
}

func TestHPCCInputErrorsLeaveStateUnchanged(t *testing.T) {
	h := newTestHPCC(t, nil)
	require.NoError(t, h.ack(10*units.Microsecond, 1000, 5000, hpccHdr(7, hpccHop(hpccCode100G, 100, 10, 0))))
	before := h.State()
	ok := hpccHop(hpccCode100G, 1124, 110, 0)
	cases := []struct {
		name   string
		now    units.Time
		ack    uint64
		nxt    uint64
		hdr    *inttel.Header
		target error
		text   string
	}{
		{"nil header", 11 * units.Microsecond, 2000, 6000, nil, ErrHPCCHeader, "nil"},
		{"too many hops", 11 * units.Microsecond, 2000, 6000, &inttel.Header{NHop: 6}, ErrHPCCHeader, "NHop = 6"},
		{"pathID wider than 12 bits", 11 * units.Microsecond, 2000, 6000, hpccHdr(0x1000, ok), ErrHPCCHeader, "PathID"},
		{"unknown speed code", 11 * units.Microsecond, 2000, 6000, hpccHdr(7, inttel.Hop{Speed: 12}), ErrHPCCHeader, "speed code B = 12"},
		{"TS wider than 24 bits", 11 * units.Microsecond, 2000, 6000, hpccHdr(7, inttel.Hop{Speed: hpccCode100G, TS: 1 << 24}), ErrHPCCHeader, "TS"},
		{"txBytes wider than 20 bits", 11 * units.Microsecond, 2000, 6000, hpccHdr(7, inttel.Hop{Speed: hpccCode100G, TxBytes: 1 << 20}), ErrHPCCHeader, "TxBytes"},
		{"time going backwards", 9 * units.Microsecond, 2000, 6000, hpccHdr(7, ok), cc.ErrTimeOrder, "time 9us is before the last event's 10us"},
		{"ACK below the previous", 11 * units.Microsecond, 999, 6000, hpccHdr(7, ok), cc.ErrEvent, "reordered"},
		{"ACK beyond snd_nxt", 11 * units.Microsecond, 7000, 6000, hpccHdr(7, ok), cc.ErrEvent, "beyond sndNxt"},
	}
	for _, tc := range cases {
		err := h.ack(tc.now, tc.ack, tc.nxt, tc.hdr)
		require.True(t, cc.Typed(err), tc.name)
		require.ErrorIs(t, err, tc.target, tc.name)
		require.ErrorContains(t, err, tc.text, tc.name)
		require.Equal(t, before, h.State(), tc.name)
	}
}

func TestHPCCFirstAckSeeds(t *testing.T) {
	h := newTestHPCC(t, nil)
	hdr := hpccHdr(0x123, hpccHop(hpccCode100G, 5000, 77, 3), hpccHop(hpccCode400G, 5100, 900, 0))
	require.NoError(t, h.ack(20*units.Microsecond, 1000, 163500, hdr))
	s := h.State()
	require.True(t, s.Started)
	require.Equal(t, uint8(2), s.NHop)
	require.Equal(t, uint16(0x123), s.PathID)
	require.Equal(t, hdr.Hops[0], s.Hops[0].Record)
	require.Equal(t, hdr.Hops[1], s.Hops[1].Record)
	require.Equal(t, 20*units.Microsecond, s.Hops[1].StoredAt)
	// No delta yet: W untouched, the first commit waits for snd_nxt.
	require.Equal(t, units.Bytes(162500), s.Window.W)
	require.Equal(t, uint64(163500), s.Window.LastUpdateSeq)
	require.Zero(t, s.U)
}

// TestHPCCClosedFormSingleHop checks lines 4–9 against the paper's formula
// on a 100 Gb/s hop, with the native divide so that the expectation is the
// real value within a few 2^-32.
func TestHPCCClosedFormSingleHop(t *testing.T) {
	h := newTestHPCC(t, func(c *HPCCConfig) { c.Window.NativeDivision = true })
	// Seed at TS = 1000 ns, txBytes 500 units, qLen 40 units (3200 B).
	require.NoError(t, h.ack(5*units.Microsecond, 1000, 200000, hpccHdr(1, hpccHop(hpccCode100G, 1000, 500, 40))))
	// Δts = 1024 ns and Δtx = 100 units = 12800 B: exactly line rate at
	// 100 Gb/s (12800·8/1.024 µs = 100 Gb/s). qLen now 100 units; the
	// filter takes min(100, 40) = 40 units = 3200 B.
	require.NoError(t, h.ack(6*units.Microsecond, 2000, 201000, hpccHdr(1, hpccHop(hpccCode100G, 2024, 600, 100))))
	bt := 100e9 / 8 * 13e-6 // B·T = 162500 B
	u := 3200/bt + 1.0      // line 5
	w := 1024.0 / 13000     // τ/T, line 9 (τ < T)
	wantU := w * u          // from U = 0
	require.InDelta(t, wantU, uFloat(h.U()), 4*math.Ldexp(1, -32))
	// U < η and incStage 0 < 5: AI, W = Wc + 80 clamped at W_max = W_init.
	// The ACK did not commit (2000 ≤ lastUpdateSeq = 200000).
	s := h.State()
	require.Equal(t, units.Bytes(162500), s.Window.W)
	require.Zero(t, s.Window.IncStage)
	require.Zero(t, s.Window.Commits)
	require.Equal(t, uint8(0), s.Bottleneck)

	// A queue of 5 BDPs appears at the hop; τ = T so U = u. The min filter
	// of line 5 still reads the previous sample's 100 units (8000 B), so
	// this ACK sees U < η: AI, clamped at W_max, committed (incStage 1).
	q := uint16(5 * 162500 / 80) // 10156 units = 812480 B
	require.NoError(t, h.ack(20*units.Microsecond, 200001, 400000, hpccHdr(1, hpccHop(hpccCode100G, 2024+13000, 600+1000, q))))
	u = 8000/bt + 1000*128*8/(100e9*13e-6) // qlen term + txRate term (Δtx = 128000 B over 13 µs)
	require.InDelta(t, u, uFloat(h.U()), 4*math.Ldexp(1, -32))
	s = h.State()
	require.Equal(t, units.Bytes(162500), s.Window.W)
	require.Equal(t, uint8(1), s.Window.IncStage)
	require.Equal(t, uint64(400000), s.Window.LastUpdateSeq)
	// The queue persists: min(q, q) = 812480 B, U = u > η: MI, committed.
	require.NoError(t, h.ack(34*units.Microsecond, 400001, 600000, hpccHdr(1, hpccHop(hpccCode100G, 2024+26000, 600+2000, q))))
	u = float64(q)*80/bt + 1000*128*8/(100e9*13e-6)
	require.InDelta(t, u, uFloat(h.U()), 4*math.Ldexp(1, -32))
	s = h.State()
	wantW := 162500*uFloat(window.Eta95)/u + 80 // line 13 from Wc = 162500
	require.InDelta(t, wantW, float64(s.Window.W), 1)
	require.Equal(t, s.Window.W, s.Window.Wc)
	require.Zero(t, s.Window.IncStage)
	require.Equal(t, uint64(600000), s.Window.LastUpdateSeq)
	require.Equal(t, uint64(2), s.Window.Commits)
}

// TestHPCCWraps: deltas across the 24-bit TS and the 20-bit txBytes wrap
// are read modulo the field, exactly.
func TestHPCCWraps(t *testing.T) {
	h := newTestHPCC(t, func(c *HPCCConfig) { c.Window.NativeDivision = true })
	// TS 30 ns before its wrap, txBytes 8 units before its wrap.
	require.NoError(t, h.ack(1*units.Microsecond, 1, 100, hpccHdr(1, hpccHop(hpccCode100G, inttel.MaxTS-29, inttel.MaxTxBytes-7, 0))))
	// 13 µs later both have wrapped: Δts = 13000 ns, Δtx = 100 units.
	require.NoError(t, h.ack(14*units.Microsecond, 2, 100, hpccHdr(1, hpccHop(hpccCode100G, 13000-30, 100-8, 0))))
	// u = 12800 B·8 / (100 Gb/s·13 µs) = 0.0787692..., τ = T so U = u.
	require.InDelta(t, 12800*8/(100e9*13e-6), uFloat(h.U()), 2*math.Ldexp(1, -32))
	s := h.State()
	require.Zero(t, s.Reseeds+s.Stale+s.ZeroIntervals)
}

func TestHPCCZeroIntervalKeepsOlderRecord(t *testing.T) {
	h := newTestHPCC(t, func(c *HPCCConfig) { c.Window.NativeDivision = true })
	first := hpccHop(hpccCode100G, 1000, 10, 0)
	require.NoError(t, h.ack(1*units.Microsecond, 1, 100, hpccHdr(1, first)))
	// Same TS (two packets within one ns): no rate, the older record stays.
	require.NoError(t, h.ack(2*units.Microsecond, 2, 100, hpccHdr(1, hpccHop(hpccCode100G, 1000, 11, 0))))
	s := h.State()
	require.Equal(t, uint64(1), s.ZeroIntervals)
	require.Equal(t, uint64(1), s.NoSample)
	require.Equal(t, first, s.Hops[0].Record)
	require.Zero(t, s.U)
	// The next delta spans both: Δts = 13000 ns from the first record.
	require.NoError(t, h.ack(14*units.Microsecond, 3, 100, hpccHdr(1, hpccHop(hpccCode100G, 14000, 110, 0))))
	require.InDelta(t, 12800*8/(100e9*13e-6), uFloat(h.U()), 2*math.Ldexp(1, -32))
}

func TestHPCCStaleRecordSkipped(t *testing.T) {
	h := newTestHPCC(t, nil)
	rec := hpccHop(hpccCode100G, 5000, 300, 0)
	require.NoError(t, h.ack(1*units.Microsecond, 1, 100, hpccHdr(1, rec)))
	// A record older than the stored one (TS 4000 < 5000): read modulo
	// 2^24 it is 16.77 ms ahead, half a period or more, so it is stale.
	require.NoError(t, h.ack(2*units.Microsecond, 2, 100, hpccHdr(1, hpccHop(hpccCode100G, 4000, 290, 5))))
	s := h.State()
	require.Equal(t, uint64(1), s.Stale)
	require.Equal(t, rec, s.Hops[0].Record)
	require.Zero(t, s.U)
	// txBytes going backwards with TS forward is stale too.
	require.NoError(t, h.ack(3*units.Microsecond, 3, 100, hpccHdr(1, hpccHop(hpccCode100G, 6000, 299, 5))))
	require.Equal(t, uint64(2), h.State().Stale)
}

func TestHPCCHorizonReseeds(t *testing.T) {
	// At 100 Gb/s txBytes wraps every 2^27 B·8/100 Gb/s = 10.74 ms, so the
	// horizon is 5.37 ms; at 25 Gb/s the TS wrap (16.78 ms) comes first and
	// the horizon is 8.39 ms. A 6 ms gap re-seeds the 100 Gb/s hop and
	// measures the 25 Gb/s one.
	h := newTestHPCC(t, func(c *HPCCConfig) { c.Window.NativeDivision = true })
	require.NoError(t, h.ack(1*units.Microsecond, 1, 100, hpccHdr(1,
		hpccHop(hpccCode100G, 0, 0, 0), hpccHop(hpccCode25G, 0, 0, 0))))
	gap := 6 * units.Millisecond
	tsNs := uint32(gap / units.Nanosecond)
	// The 25 Gb/s port sent 25 Gb/s × 6 ms × 0.5 = 9.375 MB = 73242 units.
	require.NoError(t, h.ack(1*units.Microsecond+gap, 2, 100, hpccHdr(1,
		hpccHop(hpccCode100G, tsNs, 12345, 0), hpccHop(hpccCode25G, tsNs, 73242, 0))))
	s := h.State()
	require.Equal(t, uint64(1), s.Reseeds)
	require.Equal(t, uint8(1), s.Bottleneck)
	require.Equal(t, hpccHop(hpccCode100G, tsNs, 12345, 0), s.Hops[0].Record)
	// τ = 6 ms ≥ T: U = u = 73242·128·8/(25 Gb/s·6 ms).
	require.InDelta(t, 73242*128*8/(25e9*6e-3), uFloat(h.U()), 2*math.Ldexp(1, -32))
}

func TestHPCCPathChange(t *testing.T) {
	h := newTestHPCC(t, nil)
	require.NoError(t, h.ack(1*units.Microsecond, 1, 100, hpccHdr(1, hpccHop(hpccCode100G, 0, 0, 0))))
	require.NoError(t, h.ack(14*units.Microsecond, 2, 100, hpccHdr(1, hpccHop(hpccCode100G, 13000, 1000, 5000))))
	s := h.State()
	u, w := s.U, s.Window.W
	require.NotZero(t, u)
	// New pathID: the records are replaced, nothing is measured, U and W
	// are kept.
	nh := hpccHop(hpccCode400G, 99, 99, 99)
	require.NoError(t, h.ack(15*units.Microsecond, 3, 100, hpccHdr(2, nh)))
	s = h.State()
	require.Equal(t, uint64(1), s.PathChanges)
	require.Equal(t, nh, s.Hops[0].Record)
	require.Equal(t, u, s.U)
	require.Equal(t, w, s.Window.W)
	// Same pathID, one more hop: also a new path.
	require.NoError(t, h.ack(16*units.Microsecond, 4, 100, hpccHdr(2, nh, nh)))
	require.Equal(t, uint64(2), h.State().PathChanges)
	require.Equal(t, uint8(2), h.State().NHop)
}

func TestHPCCSpeedChangeReseedsHop(t *testing.T) {
	h := newTestHPCC(t, nil)
	require.NoError(t, h.ack(1*units.Microsecond, 1, 100, hpccHdr(1, hpccHop(hpccCode100G, 0, 0, 0), hpccHop(hpccCode100G, 0, 0, 0))))
	require.NoError(t, h.ack(14*units.Microsecond, 2, 100, hpccHdr(1, hpccHop(hpccCode400G, 13000, 100, 0), hpccHop(hpccCode100G, 13000, 100, 0))))
	s := h.State()
	require.Equal(t, uint64(1), s.Reseeds)
	require.Equal(t, uint8(1), s.Bottleneck) // only hop 1 was measured
	require.Equal(t, uint8(hpccCode400G), s.Hops[0].Record.Speed)
}

func TestHPCCTieKeepsFirstHop(t *testing.T) {
	// Line 6 is a strict "u' > u": of two equally loaded hops the first
	// sets u and τ.
	h := newTestHPCC(t, nil)
	require.NoError(t, h.ack(1*units.Microsecond, 1, 100, hpccHdr(1, hpccHop(hpccCode100G, 0, 0, 9), hpccHop(hpccCode100G, 0, 0, 9))))
	require.NoError(t, h.ack(8*units.Microsecond, 2, 100, hpccHdr(1, hpccHop(hpccCode100G, 7000, 50, 9), hpccHop(hpccCode100G, 7000, 50, 9))))
	require.Equal(t, uint8(0), h.State().Bottleneck)
	// A strictly larger later hop wins.
	require.NoError(t, h.ack(9*units.Microsecond, 3, 100, hpccHdr(1, hpccHop(hpccCode100G, 8000, 51, 9), hpccHop(hpccCode100G, 8000, 60, 9))))
	require.Equal(t, uint8(1), h.State().Bottleneck)
}

func TestHPCCFastReactOff(t *testing.T) {
	// Without fast react an ACK that cannot commit is ignored entirely:
	// no U update, no record update (the per-RTT strategy, Figure 13).
	h := newTestHPCC(t, func(c *HPCCConfig) { c.FastReact = false })
	require.NoError(t, h.ack(1*units.Microsecond, 1000, 100000, hpccHdr(1, hpccHop(hpccCode100G, 0, 0, 60000))))
	before := h.State()
	require.NoError(t, h.ack(14*units.Microsecond, 2000, 101000, hpccHdr(1, hpccHop(hpccCode100G, 13000, 1000, 60000))))
	s := h.State()
	require.Equal(t, uint64(1), s.Ignored)
	require.Equal(t, before.Hops, s.Hops)
	require.Equal(t, before.U, s.U)
	require.Equal(t, before.Window, s.Window)
	// The ACK past lastUpdateSeq = 100000 measures and commits: a queue
	// of 60000·80 B ≈ 30 BDPs drives an MI decrease.
	require.NoError(t, h.ack(27*units.Microsecond, 100001, 200000, hpccHdr(1, hpccHop(hpccCode100G, 26000, 2000, 60000))))
	s = h.State()
	require.Equal(t, uint64(1), s.Window.Commits)
	require.Less(t, s.Window.W, units.Bytes(162500/20))
	// With fast react on, the same ACK stream reacts on the second ACK.
	h2 := newTestHPCC(t, nil)
	require.NoError(t, h2.ack(1*units.Microsecond, 1000, 100000, hpccHdr(1, hpccHop(hpccCode100G, 0, 0, 60000))))
	require.NoError(t, h2.ack(14*units.Microsecond, 2000, 101000, hpccHdr(1, hpccHop(hpccCode100G, 13000, 1000, 60000))))
	require.Less(t, h2.Window(), units.Bytes(162500/20))
	require.Equal(t, units.Bytes(162500), h2.State().Window.Wc) // not committed
}

func TestHPCCMultiRate(t *testing.T) {
	// Two hops: hop 0 idle, hop 1 with a 2-BDP queue. Multi-rate keeps one
	// reference per hop; W is hop 1's MI window, hop 0 takes an AI step.
	h := newTestHPCC(t, func(c *HPCCConfig) {
		c.MultiRate = true
		c.Window.NativeDivision = true
		c.Window.Max = 200000
	})
	require.NoError(t, h.ack(1*units.Microsecond, 1, 100, hpccHdr(1, hpccHop(hpccCode100G, 0, 0, 0), hpccHop(hpccCode100G, 0, 0, 4062))))
	require.NoError(t, h.ack(14*units.Microsecond, 200, 300, hpccHdr(1, hpccHop(hpccCode100G, 13000, 0, 0), hpccHop(hpccCode100G, 13000, 1269, 4062))))
	s := h.State()
	u1 := 4062*80/162500.0 + 1269*128*8/(100e9*13e-6)
	require.InDelta(t, u1, uFloat(s.Hops[1].U), 4*math.Ldexp(1, -32))
	require.Zero(t, s.Hops[0].U)
	want1 := 162500*uFloat(window.Eta95)/u1 + 80
	require.InDelta(t, want1, float64(s.Window.Hops[1].Wc), 1)
	require.Equal(t, units.Bytes(162500+80), s.Window.Hops[0].Wc) // AI
	require.Equal(t, uint8(1), s.Window.Hops[0].IncStage)
	require.Equal(t, s.Window.Hops[1].Wc, s.Window.W)
	// Path change restarts both references at the current W.
	require.NoError(t, h.ack(15*units.Microsecond, 201, 300, hpccHdr(9, hpccHop(hpccCode100G, 0, 0, 0))))
	s = h.State()
	require.Equal(t, window.Reference{Wc: s.Window.W}, s.Window.Hops[0])
	require.Zero(t, s.Hops[0].U)
}

// TestHPCCSingleBottleneckOneRTT is Appendix A.2 end to end: N flows share
// one 100 Gb/s link, each holding W = ΣW/N in flight (W = Wc = W_init
// here). Each flow's ACK carries the link's INT over one full T (τ = T, so
// U = u), with what a fluid model gives for ΣW > B·T bytes in flight:
// txRate = B and qlen = ΣW − B·T, so that U = ΣW/(B·T). One committed
// update per flow must bring ΣW' to η·B·T + N·W_AI, within the table's
// bound (+0.79 %/−0.10 %) applied to the U the INT fields encode (qLen
// floors to 80 B and txBytes to 128 B units), minus 2 B of truncation per
// flow.
func TestHPCCSingleBottleneckOneRTT(t *testing.T) {
	const bt = 162500.0  // 100 Gb/s × 13 µs
	const txUnits = 1269 // ⌊162500/128⌋: B·T bytes in 128 B units
	eta := uFloat(window.Eta95)
	for _, n := range []int{2, 16, 64} {
		for _, overload := range []float64{1.5, 4, 16} {
			sum := overload * bt
			share := units.Bytes(sum / float64(n))
			qUnits := uint16((sum - bt) / 80)
			h := newTestHPCC(t, func(c *HPCCConfig) {
				c.Window.Init = share
				c.Window.Max = max(share, 4*162500)
			})
			require.NoError(t, h.ack(1*units.Microsecond, 1, 10, hpccHdr(1, hpccHop(hpccCode100G, 0, 0, qUnits))))
			require.NoError(t, h.ack(14*units.Microsecond, 11, 20, hpccHdr(1, hpccHop(hpccCode100G, 13000, txUnits, qUnits))))
			require.Equal(t, uint64(1), h.State().Window.Commits)
			// Every flow sees the same INT and holds the same W, so all N
			// compute the same W'.
			proj := float64(n) * float64(h.Window()-80) / bt // ΣW'/(B·T) without the AI
			uINT := (float64(qUnits)*80 + txUnits*128) / bt  // the U the fields encode
			ideal := eta * float64(share) * float64(n) / bt / uINT
			rel := hpccDivRel(h.tab.law.Divider())
			require.GreaterOrEqual(t, proj, ideal*(1-rel)-2*float64(n)/bt, "n=%d overload=%v", n, overload)
			require.LessOrEqual(t, proj, ideal*(1+rel), "n=%d overload=%v", n, overload)
			// The headline: within 1 % of η (table 0.79 % + INT units).
			require.InDelta(t, eta, proj, 0.01*eta, "n=%d overload=%v", n, overload)
		}
	}
}
