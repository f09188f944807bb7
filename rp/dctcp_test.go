package rp

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/fixedpoint"
	"github.com/hwcc/hwcc/units"
)

// dctcpCfg is a small configuration for hand-worked tests: MSS 1000 B,
// 10 000 B initial window, g = 1/16, α starting at 1.0.
func dctcpCfg() DCTCPConfig {
	c := DCTCPDefault(1000)
	c.MaxCwnd = 1 << 20
	return c
}

// A hand-worked run. Expected values from the real-valued formulas:
//
//	ACK 1000 (first window ends at once, nothing marked): α = 1024·15/16 = 960
//	ACKs to 10000 (window [1000, 10000) unmarked): α = 960·15/16 = 900;
//	        10 000 bytes acknowledged at cwnd 10 000: cwnd = 11 000
//	ACK 11000 with ECE (window ended at 10000 = snd_nxt then, so it ends
//	        again, F = 1): α = 900 − ⌊900/16⌋ + ⌊1000·64/1000⌋ = 844 + 64 = 908;
//	        cut: cwnd = 11000 − ⌊11000·908/2048⌋ = 11000 − 4876 = 6124
//	more ECE ACKs before snd_nxt of the cut (21000): no further cut, no growth
//	ACK 21000 with ECE: the reduction has ended, so a second cut.
func TestDCTCPWorked(t *testing.T) {
	d, err := NewDCTCP(dctcpCfg())
	require.NoError(t, err)
	require.NoError(t, d.send(0, 0, 10000))
	require.Equal(t, units.Bytes(10000), d.Inflight())
	for seq := uint32(1000); seq <= 10000; seq += 1000 {
		require.NoError(t, d.ack(1, seq, 1000, false))
		if seq == 1000 {
			require.Equal(t, fixedpoint.UQ1_10(1024*15/16), d.Alpha())
		}
	}
	require.Equal(t, fixedpoint.UQ1_10(960*15/16), d.Alpha())
	require.Equal(t, units.Bytes(11000), d.Window())

	require.NoError(t, d.send(2, 10000, 11000))
	require.NoError(t, d.ack(3, 11000, 1000, true))
	require.Equal(t, fixedpoint.UQ1_10(900-900/16+64), d.Alpha())
	wantCwnd := 11000 - int(math.Floor(11000*908.0/2048))
	require.Equal(t, units.Bytes(wantCwnd), d.Window())
	require.Equal(t, uint64(1), d.State().Cuts)

	for seq := uint32(12000); seq <= 20000; seq += 1000 {
		require.NoError(t, d.ack(4, seq, 1000, true))
	}
	require.Equal(t, uint64(1), d.State().Cuts, "one cut per window of data")
	require.Equal(t, units.Bytes(wantCwnd), d.Window(), "no growth during the reduction")
	require.NoError(t, d.ack(5, 21000, 1000, true))
	require.Equal(t, uint64(2), d.State().Cuts)
}

// The cut never goes below 2 segments, and cwnd never above MaxCwnd.
func TestDCTCPBounds(t *testing.T) {
	c := dctcpCfg()
	c.InitialCwnd = 2500
	c.MaxCwnd = 3000
	d, err := NewDCTCP(c)
	require.NoError(t, err)
	seq := uint32(0)
	for i := range 40 {
		require.NoError(t, d.send(units.Time(i), seq, 1000))
		seq += 1000
		require.NoError(t, d.ack(units.Time(i), seq, 1000, i%3 == 0))
		require.GreaterOrEqual(t, d.Window(), units.Bytes(2000))
		require.LessOrEqual(t, d.Window(), units.Bytes(3000))
	}
}

// Slow start (when on) adds every acknowledged byte up to ssthresh; a cut
// sets ssthresh to the new window and growth is then additive. By hand:
//
//	ACK 10000 (10 000 B): cwnd 10000 → 20000; α = 1024 − 64 = 960 (window ends, F = 0)
//	ACK 11000 with ECE: window [10000, 11000) ends with F = 1: α = 960 − 60 + 64 = 964;
//	        cut: cwnd = ssthresh = 20000 − ⌊20000·964/2048⌋ = 20000 − 9414 = 10586
//	ACK 30000 (19 000 B): the reduction ends; cwnd = ssthresh, so congestion
//	        avoidance: 19 000 ≥ 10 586 acknowledged → +1 MSS = 11586.
func TestDCTCPSlowStart(t *testing.T) {
	c := dctcpCfg()
	c.SlowStart = true
	d, err := NewDCTCP(c)
	require.NoError(t, err)
	require.NoError(t, d.send(0, 0, 10000))
	require.NoError(t, d.ack(1, 10000, 10000, false))
	require.Equal(t, units.Bytes(20000), d.Window())
	require.Equal(t, fixedpoint.UQ1_10(960), d.Alpha())
	require.NoError(t, d.send(2, 10000, 20000))
	require.NoError(t, d.ack(3, 11000, 1000, true))
	require.Equal(t, fixedpoint.UQ1_10(964), d.Alpha())
	w := uint32(20000 - math.Floor(20000*964.0/2048))
	require.Equal(t, w, d.State().Cwnd)
	require.Equal(t, w, d.State().Ssthresh)
	require.NoError(t, d.ack(4, 30000, 19000, false))
	require.Equal(t, w+1000, d.State().Cwnd)
	require.False(t, d.State().InCWR)
}

// Growth only while cwnd-limited (Linux tcp_is_cwnd_limited): a
// window-limited sender, driven as the harness NIC drives it (send while
// inflight < cwnd, one MSS per segment; every segment acknowledged one by
// one a round trip later), grows by one MSS per cwnd bytes acknowledged,
// i.e. per round trip, as congestion avoidance always did: from 10 000 B
// after n rounds of a full window, 10 000 + n·1000 B (each round sends the
// window as it stands at the round's start and acknowledges it; the +MSS
// lands on the round's last ACK, when CwndCnt reaches cwnd).
func TestDCTCPWindowLimitedGrows(t *testing.T) {
	for _, ss := range []bool{false, true} {
		c := dctcpCfg()
		c.SlowStart = ss
		c.InitialCwnd = 10000
		d, err := NewDCTCP(c)
		require.NoError(t, err)
		if ss {
			// Leave slow start at once: ssthresh = cwnd, as after a cut.
			d.s.Ssthresh = d.s.Cwnd
		}
		seq := uint32(0)
		now := units.Time(0)
		for round := 1; round <= 20; round++ {
			start := seq
			for d.Inflight() < d.Window() {
				require.NoError(t, d.send(now, seq, 1000))
				seq += 1000
			}
			require.True(t, d.State().CwndLimited, "round %d: the window is full", round)
			now += units.Microsecond
			for a := start + 1000; a != seq+1000; a += 1000 {
				require.NoError(t, d.ack(now, a, 1000, false))
			}
			require.Equal(t, units.Bytes(10000+1000*round), d.Window(), "slow start %v, round %d", ss, round)
		}
	}
}

// A paced sender whose flight never comes within one MSS of cwnd keeps its
// window (the dctcp-incast long flow's case: paced at the bottleneck's rate,
// inflight ≈ one BDP ≪ cwnd). Two segments in flight against 10: in
// congestion avoidance nothing grows, however many ACKs; in slow start
// (Linux: cwnd < 2·max_packets_out) nothing either, since 10 000 ≥ 2·2000.
// With six segments in flight, slow start grows cwnd while cwnd < 2·6000,
// one byte per byte acknowledged: 10 000 → 11 000 → 12 000, then stops.
func TestDCTCPPacedNoGrowth(t *testing.T) {
	run := func(ss bool, perRound int) *DCTCP {
		c := dctcpCfg()
		c.SlowStart = ss
		d, err := NewDCTCP(c)
		require.NoError(t, err)
		seq, now := uint32(0), units.Time(0)
		for round := 0; round < 100; round++ {
			for k := 0; k < perRound; k++ {
				require.NoError(t, d.send(now, seq+uint32(k)*1000, 1000))
			}
			require.False(t, d.State().CwndLimited)
			now += units.Microsecond
			for k := 1; k <= perRound; k++ {
				require.NoError(t, d.ack(now, seq+uint32(k)*1000, 1000, false))
			}
			seq += uint32(perRound) * 1000
		}
		return d
	}
	for _, ss := range []bool{false, true} {
		d := run(ss, 2)
		require.Equal(t, units.Bytes(10000), d.Window(), "slow start %v", ss)
		require.Zero(t, d.State().CwndCnt, "unused ACKs count toward nothing")
	}
	require.Equal(t, units.Bytes(10000), run(false, 6).Window())
	require.Equal(t, units.Bytes(12000), run(true, 6).Window())
}

// The byte form of Linux's "packets in flight ≥ cwnd": blocked when less
// than one MSS of room is left. cwnd = 10 500 (not a whole number of
// segments): 10 000 B in flight leaves 500 B, blocked; 9 500 B leaves
// 1000 B, room for a segment, not blocked. The ACK of the whole flight then
// counts toward growth (CwndCnt, or +MSS once a cwnd's worth is in) only in
// the blocked case.
func TestDCTCPCwndLimitedThreshold(t *testing.T) {
	for _, tc := range []struct {
		inflight uint32
		limited  bool
	}{{10000, true}, {9500, false}, {9501, true}, {10500, true}, {11000, true}} {
		c := dctcpCfg()
		c.InitialCwnd = 10500
		d, err := NewDCTCP(c)
		require.NoError(t, err)
		require.NoError(t, d.send(0, 0, units.Bytes(tc.inflight)))
		require.Equal(t, tc.limited, d.State().CwndLimited, "%d in flight", tc.inflight)
		require.Equal(t, tc.inflight, d.State().MaxInflight)
		require.NoError(t, d.ack(1, tc.inflight, units.Bytes(tc.inflight), false))
		s := d.State()
		switch {
		case !tc.limited:
			require.Equal(t, uint32(10500), s.Cwnd, "%d in flight", tc.inflight)
			require.Zero(t, s.CwndCnt)
		case tc.inflight >= 10500: // a cwnd's worth acknowledged: +MSS
			require.Equal(t, uint32(11500), s.Cwnd, "%d in flight", tc.inflight)
			require.Equal(t, uint64(tc.inflight-10500), s.CwndCnt)
		default:
			require.Equal(t, uint32(10500), s.Cwnd, "%d in flight", tc.inflight)
			require.Equal(t, uint64(tc.inflight), s.CwndCnt, "counted toward the next +MSS")
		}
	}
}

// The flag lasts one window: a sender blocked in one window and paced in
// the next stops growing once the blocked window is acknowledged and it
// sends again (Linux resets is_cwnd_limited at the first transmit after
// snd_una passes cwnd_usage_seq). Window 1: 10 segments against cwnd
// 10 000, blocked; their ACKs grow cwnd to 11 000. Window 2: 2 segments
// (paced): the first send after the ACKs clears the flag, so the next
// 100 rounds of two segments grow nothing.
func TestDCTCPCwndLimitedClearsPerWindow(t *testing.T) {
	d, err := NewDCTCP(dctcpCfg())
	require.NoError(t, err)
	require.NoError(t, d.send(0, 0, 10000))
	require.True(t, d.State().CwndLimited)
	require.Equal(t, uint32(10000), d.State().CwndUsageSeq)
	for a := uint32(1000); a <= 10000; a += 1000 {
		require.NoError(t, d.ack(1, a, 1000, false))
	}
	require.Equal(t, units.Bytes(11000), d.Window())
	require.True(t, d.State().CwndLimited, "no send yet: the flag stands")
	seq := uint32(10000)
	for round := 0; round < 100; round++ {
		require.NoError(t, d.send(units.Time(2+round), seq, 2000))
		require.False(t, d.State().CwndLimited, "round %d", round)
		seq += 2000
		require.NoError(t, d.ack(units.Time(2+round), seq, 2000, false))
	}
	require.Equal(t, units.Bytes(11000), d.Window())
}

// Property, over random sends and ACKs of at most one MSS each, where no
// send leaves less than one MSS of room (the sender is never blocked by
// cwnd), ECN echoes included: without slow start cwnd never grows above its
// start; with slow start it stays below 2·M + 2·MSS, M the most bytes ever
// in flight after a send (growth needs cwnd < 2·MaxInflight ≤ 2·M, and one
// ACK of at most one MSS adds at most one MSS in slow start plus one MSS of
// congestion avoidance), or at its start.
func TestDCTCPNoGrowthUnlessLimitedProperty(t *testing.T) {
	params := gopter.DefaultTestParametersWithSeed(17)
	params.MinSuccessfulTests = 300
	props := gopter.NewProperties(params)
	props.Property("cwnd bounded by the flight it was used for", prop.ForAll(
		func(ss bool, mss uint64, words []uint64) (string, error) {
			c := dctcpCfg()
			c.SlowStart = ss
			c.MSS = units.Bytes(mss)
			c.InitialCwnd = max(10*c.MSS, 2*c.MSS)
			d, err := NewDCTCP(c)
			if err != nil {
				return err.Error(), nil
			}
			m := uint64(0)
			for i, w := range words {
				s := d.State()
				now := units.Time(i)
				inflight := uint64(s.SndNxt - s.SndUna)
				if w%2 == 0 {
					room := uint64(s.Cwnd) - min(inflight, uint64(s.Cwnd))
					if room < 2*mss {
						continue // a send would leave less than one MSS
					}
					n := 1 + (w>>1)%min(mss, room-mss)
					if err := d.send(now, s.SndNxt, units.Bytes(n)); err != nil {
						return err.Error(), nil
					}
					m = max(m, inflight+n)
					if d.State().CwndLimited {
						return "flagged without being blocked", nil
					}
					continue
				}
				adv := uint64(0)
				if inflight > 0 {
					adv = 1 + (w>>2)%min(inflight, mss)
				}
				if err := d.ack(now, s.SndUna+uint32(adv), units.Bytes(adv), (w>>1)&1 == 1); err != nil {
					return err.Error(), nil
				}
				cw := uint64(d.State().Cwnd)
				if !ss && cw > uint64(c.InitialCwnd) {
					return "grew without slow start", nil
				}
				if ss && cw > uint64(c.InitialCwnd) && cw >= 2*m+2*mss {
					return "grew past 2·flight + 2·MSS", nil
				}
			}
			return "", nil
		},
		gen.Bool().WithLabel("slow start"),
		gen.UInt64Range(1, 1500).WithLabel("MSS"),
		gen.SliceOfN(300, gen.UInt64Range(0, math.MaxUint64)).WithLabel("events"),
	))
	props.TestingRun(t)
}

// Sequence numbers wrap: a flow starting just below 2^32 works across it.
func TestDCTCPSequenceWrap(t *testing.T) {
	c := dctcpCfg()
	c.InitialSeq = math.MaxUint32 - 2500
	d, err := NewDCTCP(c)
	require.NoError(t, err)
	seq := c.InitialSeq
	for i := range 10 {
		require.NoError(t, d.send(units.Time(i), seq, 1000))
		seq += 1000
		require.NoError(t, d.ack(units.Time(i), seq, 1000, false))
	}
	require.Equal(t, seq, d.State().SndUna)
	require.Zero(t, d.Inflight())
}

func TestDCTCPValidateAndBadInput(t *testing.T) {
	for name, mod := range map[string]func(*DCTCPConfig){
		"MSS ":         func(c *DCTCPConfig) { c.MSS = DCTCPMaxSegment + 1 },
		"MSS":          func(c *DCTCPConfig) { c.MSS = 0 },
		"MaxCwnd":      func(c *DCTCPConfig) { c.MaxCwnd = DCTCPMaxCwnd + 1 },
		"InitialCwnd":  func(c *DCTCPConfig) { c.InitialCwnd = 1999 },
		"ShiftG":       func(c *DCTCPConfig) { c.ShiftG = 11 },
		"InitialAlpha": func(c *DCTCPConfig) { c.InitialAlpha = 1025 },
	} {
		c := dctcpCfg()
		mod(&c)
		_, err := NewDCTCP(c)
		var ce *cc.ConfigError
		require.ErrorAs(t, err, &ce)
		require.Equal(t, strings.TrimSpace(name), ce.Field)
	}
	require.NoError(t, DCTCPHPCCSim(100*units.Gbps, 13*units.Microsecond).Validate())
	// 100 Gb/s · 13 µs = 162 500 B.
	require.Equal(t, units.Bytes(162500), DCTCPHPCCSim(100*units.Gbps, 13*units.Microsecond).InitialCwnd)

	d, err := NewDCTCP(dctcpCfg())
	require.NoError(t, err)
	require.NoError(t, d.send(10, 0, 5000))
	before := d.State()
	for _, c := range []struct {
		err  error
		want string
	}{
		{d.ack(11, 6000, 1000, false), "not sent"},
		{d.ack(11, 1000, -1, false), "acked"},
		{d.ack(11, 1000, DCTCPMaxSegment+1, false), "is outside 0..65.536KB"},
		{d.ackSplit(11, 1000, -1, false), "acked"},
		{d.send(11, 5000, DCTCPMaxSegment+1), "payload"},
		{d.send(11, 5000, -1), "payload"},
		{d.send(11, 1<<31+100, 10), "past snd_una"},
	} {
		require.ErrorIs(t, c.err, cc.ErrEvent)
		require.ErrorContains(t, c.err, c.want)
	}
	for _, err := range []error{d.ack(9, 1000, 1000, false), d.ackSplit(9, 1000, 1000, false), d.send(9, 5000, 10)} {
		var te *cc.TimeOrderError
		require.ErrorAs(t, err, &te)
		require.Equal(t, units.Time(9), te.Now)
		require.Equal(t, units.Time(10), te.Last)
	}
	require.Equal(t, before, d.State())
}

// The α recurrence against the float model α ← (1 − g)α + g·F, window by
// window, for random window sizes and marked fractions. Bound (Q10 units): a
// window computes α − ⌊α/2^g⌋ + ⌊m·2^(10−g)/D⌋ against (1 − 2^−g)α +
// 2^(10−g)·F; each floor is off by less than 1, and min_not_zero (α < 2^g
// drops to 0) by less than (1 − 2^−g)(2^g − 1) + 1 ≤ 2^g, so
// e' = (1 − 2^−g)·e + 2^g; the cap at 1024 is 1-Lipschitz.
//
// Driving it: each round's data is in flight; the next round's data is sent,
// then the round is acknowledged in an unmarked ACK and a final ECN-echo ACK
// for its marked bytes. The final ACK reaches NextSeq, so every window is
// exactly one round.
func TestDCTCPAlphaMatchesFloatModel(t *testing.T) {
	params := gopter.DefaultTestParametersWithSeed(11)
	params.MinSuccessfulTests = 300
	props := gopter.NewProperties(params)
	props.Property("α within the derived bound", prop.ForAll(
		func(g uint8, a0 uint16, rounds []uint64) (string, error) {
			c := dctcpCfg()
			c.ShiftG, c.InitialAlpha = g, fixedpoint.UQ1_10(a0)
			d, err := NewDCTCP(c)
			if err != nil {
				return err.Error(), nil
			}
			gf, step := math.Ldexp(1, -int(g)), math.Ldexp(1, int(g))
			af, e := float64(a0), 0.0
			update := func(f float64) {
				af = math.Min((1-gf)*af+gf*1024*f, 1024)
				e = (1-gf)*e + step
			}
			size := func(w uint64) uint32 { return uint32(1 + w%64000) }
			// Prime: the first ACK ends the initial window (F = 0).
			seq := uint32(0)
			if err := d.send(0, 0, 1000); err != nil {
				return err.Error(), nil
			}
			seq = 1000
			if err := d.send(0, seq, units.Bytes(size(rounds[0]))); err != nil {
				return err.Error(), nil
			}
			if err := d.ack(0, 1000, 1000, false); err != nil {
				return err.Error(), nil
			}
			update(0)
			for i, w := range rounds {
				n := size(w)
				marked := uint32((w >> 20) % uint64(n+1))
				next := seq + n
				if i+1 < len(rounds) {
					if err := d.send(units.Time(i), next, units.Bytes(size(rounds[i+1]))); err != nil {
						return err.Error(), nil
					}
				}
				if n > marked {
					if err := d.ack(units.Time(i), seq+n-marked, units.Bytes(n-marked), false); err != nil {
						return err.Error(), nil
					}
				}
				if marked > 0 {
					if err := d.ack(units.Time(i), next, units.Bytes(marked), true); err != nil {
						return err.Error(), nil
					}
				}
				seq = next
				update(float64(marked) / float64(n))
				if math.Abs(float64(d.Alpha())-af) > e+1e-9 {
					return "α outside bound", nil
				}
			}
			if w := d.State().Windows; w != uint64(len(rounds)+1) {
				return "window count", nil
			}
			return "", nil
		},
		gen.UInt8Range(0, 10).WithLabel("shift g"),
		gen.UInt16Range(0, 1024).WithLabel("initial α"),
		gen.SliceOfN(40, gen.UInt64Range(0, math.MaxUint64)).WithLabel("rounds"),
	))
	props.TestingRun(t)
}

// α decays to exactly 0 after enough unmarked windows. Bound: with v = α −
// (2^g − 1), an unmarked window gives v' ≤ (1 − 2^−g)·v (from α − ⌊α/2^g⌋ ≤
// (1 − 2^−g)α + (1 − 2^−g)), so after n windows v < 1, i.e. α < 2^g, once
// (1 − 2^−g)^n·1024 < 1; the next window drops it to 0 (min_not_zero). So
// n = ⌈ln 1024 / −ln(1 − 2^−g)⌉ + 1 windows suffice (for g = 0 one does).
func TestDCTCPAlphaDecaysToZero(t *testing.T) {
	for g := uint8(0); g <= DCTCPMaxShiftG; g++ {
		c := dctcpCfg()
		c.ShiftG = g
		d, err := NewDCTCP(c)
		require.NoError(t, err)
		n := 1
		if g > 0 {
			n = int(math.Ceil(math.Log(1024)/-math.Log(1-math.Ldexp(1, -int(g))))) + 1
		}
		seq := uint32(0)
		prev := d.Alpha()
		for i := 0; i < n; i++ {
			require.NoError(t, d.send(units.Time(i), seq, 1000))
			seq += 1000
			require.NoError(t, d.ack(units.Time(i), seq, 1000, false))
			require.True(t, d.Alpha() < prev || d.Alpha() == 0, "g=%d strictly decreasing", g)
			prev = d.Alpha()
		}
		require.Zero(t, d.Alpha(), "g=%d after %d windows", g, n)
	}
}

// Invariants over random send/ACK sequences (including ECN echoes, old and
// duplicate ACKs): 2·MSS ≤ cwnd ≤ MaxCwnd, α ≤ 1024, and at most one cut per
// window of data: a cut happens only at an ACK at or past the snd_nxt
// recorded at the previous cut.
func TestDCTCPInvariantsProperty(t *testing.T) {
	params := gopter.DefaultTestParametersWithSeed(5)
	params.MinSuccessfulTests = 300
	props := gopter.NewProperties(params)
	props.Property("cwnd bounds, α bounds, one cut per window", prop.ForAll(
		func(g uint8, ss bool, words []uint64) (string, error) {
			c := dctcpCfg()
			c.ShiftG, c.SlowStart = g, ss
			c.MaxCwnd = 200000
			d, err := NewDCTCP(c)
			if err != nil {
				return err.Error(), nil
			}
			var cutEnd uint32
			cut := false
			for i, w := range words {
				s := d.State()
				now := units.Time(i)
				if w%2 == 0 {
					n := units.Bytes(w>>1) % (DCTCPMaxSegment + 1)
					if err := d.send(now, s.SndNxt, n); err != nil {
						return err.Error(), nil
					}
					continue
				}
				inflight := uint64(s.SndNxt - s.SndUna)
				adv := uint32(0)
				if inflight > 0 {
					adv = uint32((w >> 2) % (min(inflight, uint64(DCTCPMaxSegment)) + 1))
				}
				seq := s.SndUna + adv
				if (w>>40)%8 == 0 { // an old ACK
					seq = s.SndUna - uint32((w>>44)%100)
					adv = 0
				}
				ece := (w>>1)&1 == 1
				if err := d.ack(now, seq, units.Bytes(adv), ece); err != nil {
					return err.Error(), nil
				}
				after := d.State()
				if after.Cuts != s.Cuts {
					if cut && !dctcpReached(after.SndUna, cutEnd) {
						return "second cut inside a window", nil
					}
					cut, cutEnd = true, after.CWREnd
				}
				if after.Cwnd < 2000 || after.Cwnd > 200000 || after.Alpha > 1024 {
					return "bounds", nil
				}
			}
			return "", nil
		},
		gen.UInt8Range(0, 10).WithLabel("shift g"),
		gen.Bool().WithLabel("slow start"),
		gen.SliceOfN(200, gen.UInt64Range(0, math.MaxUint64)).WithLabel("events"),
	))
	props.TestingRun(t)
}

// FuzzDCTCPEvents drives the sender with arbitrary sends and ACKs (split
// ones included) at arbitrary times and sequence numbers, backwards and out
// of window included: no panic; bad input is an error that changes nothing;
// the bounds hold after every event.
func FuzzDCTCPEvents(f *testing.F) {
	f.Add(uint8(4), []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xe8, 0x03, 1, 1, 0, 0, 0, 0xe8, 0x03, 0, 0, 0xe8, 0x03}) // send 1000, ECE ACK
	f.Add(uint8(0), []byte{1, 5, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0, 0, 0})                                        // ACK beyond snd_nxt
	f.Add(uint8(10), []byte{0, 0xff, 0, 0, 0x80, 0, 0, 0, 0, 0xff, 0xff, 0xff})                                    // send past the window
	f.Add(uint8(3), []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0xf0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})             // backwards time
	f.Fuzz(func(t *testing.T, g uint8, ops []byte) {
		c := dctcpCfg()
		c.ShiftG = g % (DCTCPMaxShiftG + 1)
		c.SlowStart = g&0x80 != 0
		d, err := NewDCTCP(c)
		require.NoError(t, err)
		now := units.Time(0)
		for steps := 0; len(ops) >= 12 && steps < 256; steps++ {
			op := ops[0]
			dt := units.Time(int8(ops[1]))
			seq := binary.LittleEndian.Uint32(ops[2:6])
			n := units.Bytes(int32(binary.LittleEndian.Uint32(ops[6:10])) >> 12)
			ops = ops[12:]
			before := d.State()
			at := now + dt
			s := before
			if op&2 == 0 {
				seq += s.SndNxt // mostly near the window
			}
			switch {
			case op&1 == 0:
				err = d.send(at, seq, n)
			case op&8 != 0: // any size, split into pieces
				err = d.ackSplit(at, seq, n, op&4 != 0)
			default:
				err = d.ack(at, seq, n, op&4 != 0)
			}
			if err != nil {
				require.Equal(t, before, d.State(), "an error changes nothing")
				continue
			}
			now = at
			a := d.State()
			require.GreaterOrEqual(t, a.Cwnd, uint32(2*c.MSS))
			require.LessOrEqual(t, a.Cwnd, uint32(c.MaxCwnd))
			require.LessOrEqual(t, a.Alpha, fixedpoint.UQ1_10One)
			require.Less(t, a.SndNxt-a.SndUna, uint32(1<<31))
		}
	})
}

func TestDCTCPNoAllocs(t *testing.T) {
	d, err := NewDCTCP(DCTCPHPCCSim(100*units.Gbps, 13*units.Microsecond))
	require.NoError(t, err)
	seq, i := uint32(0), 0
	require.Zero(t, testing.AllocsPerRun(2000, func() {
		i++
		_ = d.send(units.Time(i), seq, 1000)
		seq += 1000
		_ = d.ack(units.Time(i), seq, 1000, i%7 == 0)
	}))
}

// BenchmarkDCTCPOnAck: one ACK per 1000-byte segment, one in seven echoing
// ECN, on the fast paths of Sent and Feedback (send, ack) with 32-bit
// sequence numbers.
func BenchmarkDCTCPOnAck(b *testing.B) {
	d, _ := NewDCTCP(DCTCPHPCCSim(100*units.Gbps, 13*units.Microsecond))
	seq, i := uint32(0), 0
	b.ReportAllocs()
	for b.Loop() {
		i++
		_ = d.send(units.Time(i), seq, 1000)
		seq += 1000
		_ = d.ack(units.Time(i), seq, 1000, i%7 == 0)
	}
}
