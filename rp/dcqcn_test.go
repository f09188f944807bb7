package rp

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/fixedpoint"
	"github.com/hwcc/hwcc/units"
)

const dcqcnUs = units.Microsecond

// ---- presets ----

// The ConnectX preset is [ConnectX]'s parameter table (docs/derivations.md
// lists it), field by field (expected values typed from the table, not from
// the code).
func TestDCQCNConnectXPreset(t *testing.T) {
	c := DCQCNConnectX(100 * units.Gbps)
	require.NoError(t, c.Validate())
	require.Equal(t, fixedpoint.UQ0_10(1019), c.DceTCPG)           // dce_tcp_g
	require.Equal(t, 1*dcqcnUs, c.DceTCPRtt)                       // dce_tcp_rtt
	require.Equal(t, fixedpoint.UQ0_10(1023), c.InitialAlphaValue) // initial_alpha_value
	require.Equal(t, units.Rate(0), c.RateToSetOnFirstCNP)         // rate_to_set_on_first_cnp
	require.Equal(t, uint8(11), c.RpgGd)                           // rpg_gd
	require.Equal(t, uint8(50), c.RpgMinDecFac)                    // rpg_min_dec_fac
	require.Equal(t, 1*units.Mbps, c.RpgMinRate)                   // rpg_min_rate
	require.Equal(t, units.Rate(0), c.RpgMaxRate)                  // rpg_max_rate
	require.Equal(t, 100*units.Gbps, c.MaxRate())                  // 0 = port speed
	require.Equal(t, 4*dcqcnUs, c.RateReduceMonitorPeriod)         // rate_reduce_monitor_period
	require.Equal(t, 300*dcqcnUs, c.RpgTimeReset)                  // rpg_time_reset
	require.Equal(t, units.Bytes(32767*64), c.RpgByteReset)        // rpg_byte_reset (64 B units)
	require.Equal(t, uint8(1), c.RpgThreshold)                     // rpg_threshold
	require.Equal(t, 5*units.Mbps, c.RpgAIRate)                    // rpg_ai_rate
	require.Equal(t, 50*units.Mbps, c.RpgHAIRate)                  // rpg_hai_rate
	require.False(t, c.ClampTgtRate)                               // clamp_tgt_rate
	require.True(t, c.ClampTgtRateAfterTimeInc)                    // clamp_tgt_rate_after_time_inc
	require.Equal(t, units.Mbps, c.RateUnit)                       // ConnectX works in Mb/s
	require.Equal(t, uint8(20), c.AlphaFracBits)                   // not documented by the vendor: the library's default width
	require.Error(t, DCQCNConnectX(100*units.Gbps+1).Validate(), "not a whole number of Mb/s")
}

// The paper preset: g = 1/256, K = 55 µs, decrease 50 µs, timer 55 µs,
// F = 5, byte counter 10 MB, R_AI/R_HAI = 5/50 Mb/s scaled by link/25G.
// The HPCC preset: the ns-3 run script's values (α 1 µs, decrease 4 µs,
// timer 300 µs, F = 1, min rate 1000 Mb/s, no byte counter).
func TestDCQCNPaperAndHPCCPresets(t *testing.T) {
	for _, link := range []units.Rate{units.Gbps, 10 * units.Gbps, 25 * units.Gbps, 40 * units.Gbps, 100 * units.Gbps, 400 * units.Gbps} {
		p := DCQCNPaper(link)
		require.NoError(t, p.Validate(), "paper %v", link)
		require.Equal(t, fixedpoint.UQ0_10(1024-4), p.DceTCPG, "g = 1/256 → retention 1020/1024")
		require.Equal(t, 55*dcqcnUs, p.DceTCPRtt)
		require.Equal(t, 50*dcqcnUs, p.RateReduceMonitorPeriod)
		require.Equal(t, 55*dcqcnUs, p.RpgTimeReset)
		require.Equal(t, units.Bytes(10_000_000), p.RpgByteReset)
		require.Equal(t, uint8(5), p.RpgThreshold)
		// 5 Mb/s·link/25G: 1G → 0.2 Mb/s, 100G → 20 Mb/s (exact in Kb/s).
		require.InDelta(t, 5e6*float64(link)/25e9, float64(p.RpgAIRate), 0, "R_AI at %v", link)
		require.InDelta(t, 50e6*float64(link)/25e9, float64(p.RpgHAIRate), 0, "R_HAI at %v", link)
		require.True(t, p.ClampTgtRate, "paper: RT ← RC on every CNP")
		require.Equal(t, uint8(20), p.AlphaFracBits, "the paper's α is real: the default wide register")

		h := DCQCNHPCCSim(link)
		if link < 1000*units.Mbps {
			continue
		}
		require.NoError(t, h.Validate(), "hpcc %v", link)
		require.Equal(t, 1*dcqcnUs, h.DceTCPRtt)
		require.Equal(t, 4*dcqcnUs, h.RateReduceMonitorPeriod)
		require.Equal(t, 300*dcqcnUs, h.RpgTimeReset)
		require.Equal(t, units.Bytes(0), h.RpgByteReset)
		require.Equal(t, uint8(1), h.RpgThreshold)
		require.Equal(t, 1000*units.Mbps, h.RpgMinRate)
		require.False(t, h.ClampTgtRate)
		require.Equal(t, uint8(20), h.AlphaFracBits, "the simulator's α is a double: the default wide register")
	}
}

// ---- worked examples (expected values by hand / closed form) ----

// ConnectX at 100 Gb/s, the first CNP then timer-only recovery. Expected
// values from the real-valued formulas with the documented rounding:
//
//	CNP:    RC = ⌈100000·(1 − 1023/2048)⌉ = ⌈50048.83⌉ = 50049 (the cut
//	        floors), RT stays 100000 (no increase yet: no clamp)
//	300 µs: fast recovery (stage 0 < F = 1): RC = ⌈(50049 + 100000)/2⌉ = 75025
//	600 µs: additive (stage 1 ≥ F): RT = min(100005, 100000); RC = ⌈(75025 + 100000)/2⌉ = 87513
//
// and since RT = 100000 from then on, the gap 100000 − 87513 = 12487 halves
// (rounding down) at every expiry: ⌊log2 12487⌋ + 1 = 14 more expiries, so the
// rate is back at 100 Gb/s at (2 + 14)·300 µs = 4.8 ms and not before.
func TestDCQCNConnectXWorked(t *testing.T) {
	d, err := NewDCQCN(DCQCNConnectX(100 * units.Gbps))
	require.NoError(t, err)
	require.Equal(t, 100*units.Gbps, d.Rate())
	require.Equal(t, units.MaxTime, d.NextDeadline())

	require.NoError(t, d.onCNP(0))
	require.Equal(t, uint32(math.Ceil(100000*(1-1023.0/2048))), d.State().RC)
	require.Equal(t, uint32(100000), d.State().RT)
	require.Equal(t, fixedpoint.UQ0_10(1023), d.Alpha())
	require.Equal(t, 1*dcqcnUs, d.NextDeadline(), "α timer")

	require.NoError(t, d.onTimer(300*dcqcnUs))
	require.Equal(t, uint32(math.Ceil((50049+100000)/2.0)), d.State().RC)
	require.NoError(t, d.onTimer(600*dcqcnUs))
	require.Equal(t, uint32(math.Ceil((75025+100000)/2.0)), d.State().RC)

	gap := 100000 - 87513
	done := units.Time(2+bits.Len(uint(gap))) * 300 * dcqcnUs
	require.Equal(t, 4800*dcqcnUs, done)
	require.NoError(t, d.onTimer(done-1))
	require.Less(t, d.State().RC, uint32(100000))
	require.NoError(t, d.onTimer(done))
	require.Equal(t, 100*units.Gbps, d.Rate())
	require.Equal(t, units.MaxTime, d.State().NextIncrease, "the increase timer idles at the maximum")
}

// α with the vendor's g = 1019 in the default 20-bit register (S = 2^10
// LSBs per Q10 unit). Expected values from the real-valued recurrence,
// equation (6), in float64: a period with a CNP gives α ← (1019/1024)·α +
// 5/1024, one without α ← (1019/1024)·α. Bound (dcqcnRef's derivation): each
// floor loses less than one LSB, 1/S Q10 units, and what earlier floors lost
// shrinks by 1019/1024 per period, so the register stays below the real
// value by less than (1/S)·1024/5 = 0.2 Q10 units and never above it (floors
// only lower). The Q10 view (Alpha) floors once more: less than 1.2 below.
// Each period without a CNP lowers the register strictly, to exactly 0; then
// the α timer idles.
func TestDCQCNAlphaUpdate(t *testing.T) {
	cfg := DCQCNConnectX(25 * units.Gbps)
	require.Equal(t, uint8(20), cfg.AlphaFracBits)
	const s = 1 << 10 // 2^(20 − 10)
	const eA = 1024.0 / 5 / s
	d, err := NewDCQCN(cfg)
	require.NoError(t, err)
	require.NoError(t, d.onCNP(0))
	require.Equal(t, uint32(1023*s), d.AlphaRaw(), "initial_alpha_value·S, exactly")
	real := 1023.0
	check := func(what string) {
		t.Helper()
		raw := float64(d.AlphaRaw()) / s
		require.LessOrEqual(t, raw, real+1e-9, "%s: floors never round up", what)
		require.Greater(t, raw, real-eA, "%s: within the floor bound", what)
		require.LessOrEqual(t, float64(d.Alpha()), real+1e-9, what)
		require.Greater(t, float64(d.Alpha()), real-eA-1, what)
		require.LessOrEqual(t, d.Alpha(), fixedpoint.UQ0_10Max, what)
	}
	for k := 1; k <= 10; k++ {
		// A CNP in every α period (rate_reduce_monitor_period keeps the
		// decreases apart; α is what is checked here).
		now := units.Time(k)*dcqcnUs - dcqcnUs/2
		require.NoError(t, d.onCNP(now))
		require.NoError(t, d.onTimer(units.Time(k)*dcqcnUs))
		real = real*1019/1024 + 5
		check(fmt.Sprintf("CNP tick %d", k))
		require.Equal(t, fixedpoint.UQ0_10(1023), d.Alpha(), "tick %d: the Q10 view stays at its top", k)
	}
	last := d.AlphaRaw()
	n := 0
	for d.AlphaRaw() != 0 {
		n++
		require.Less(t, n, 3000, "α does not reach 0")
		require.NoError(t, d.onTimer(units.Time(10+n)*dcqcnUs))
		real = real * 1019 / 1024
		check(fmt.Sprintf("decay tick %d", n))
		require.Less(t, d.AlphaRaw(), last, "strictly decreasing until 0")
		last = d.AlphaRaw()
	}
	// From just below 2^20 the decay takes 1863 periods at most (the type's
	// doc; TestDCQCNAlphaDecayBound); the real value is then below the 0.2
	// bound: 1023·(1019/1024)^n < 0.2 needs n > 1700.
	require.Greater(t, n, 1700)
	require.LessOrEqual(t, n, 1863)
	require.Equal(t, units.MaxTime, d.State().NextAlpha, "idle at 0")
	// A CNP wakes it on its grid (anchor 0, period 1 µs): the next tick is at
	// the next whole µs.
	require.NoError(t, d.onCNP(5000*dcqcnUs+300))
	require.Equal(t, 5001*dcqcnUs, d.State().NextAlpha)
	require.NoError(t, d.onTimer(5001*dcqcnUs))
	require.Equal(t, uint32((1024-1019)*s), d.AlphaRaw(), "0·g/1024 + (1024 − g)·S")
	require.Equal(t, fixedpoint.UQ0_10(1024-1019), d.Alpha())
}

// AlphaFracBits = 10 is a pure Q10 register and keeps the truncation the
// wider register removes (pinned here so that both behaviours are). By
// hand: with g = 1019 the exact decrement α·5/1024 is below one LSB for
// α < 205, so ⌊1019·α/1024⌋ = α − 1 there: α falls a whole 1/1024 per
// period. The expected values come from the Q10 recurrence run with Go's
// integer division (α ← α·1019/1024, truncating): after one CNP at 0 (α =
// 1023) and 50, 100, 300, 600 µs without, 782, 590, 166 and 0, where
// equation (6) gives 800.9, 627.0, 235.6 and 54.3 and the 20-bit register
// 800, 627, 235 and 54 (Q10 view).
func TestDCQCNAlphaQ10Register(t *testing.T) {
	for _, f := range []uint8{10, 20} {
		cfg := DCQCNConnectX(25 * units.Gbps)
		cfg.AlphaFracBits = f
		d, err := NewDCQCN(cfg)
		require.NoError(t, err)
		require.NoError(t, d.onCNP(0))
		q10, wide := uint64(1023), uint64(1023)<<(f-10)
		prev := d.Alpha()
		for n := 1; n <= 600; n++ {
			require.NoError(t, d.onTimer(units.Time(n)*dcqcnUs))
			q10, wide = q10*1019/1024, wide*1019/1024
			if f == 10 {
				require.Equal(t, fixedpoint.UQ0_10(q10), d.Alpha(), "f = 10, tick %d", n)
				require.Equal(t, uint32(q10), d.AlphaRaw(), "f = 10: the register is the Q10 view")
				if prev > 0 && prev < 205 {
					require.Equal(t, prev-1, d.Alpha(), "f = 10, tick %d: one whole LSB per period", n)
				}
			} else {
				require.Equal(t, uint32(wide), d.AlphaRaw(), "f = 20, tick %d", n)
			}
			prev = d.Alpha()
			switch n {
			case 50, 100, 300, 600:
				eq6 := 1023 * math.Pow(1019.0/1024, float64(n))
				t.Logf("f = %d, %d µs: α = %d (Q10), equation (6) %.1f", f, n, d.Alpha(), eq6)
				if f == 20 {
					require.InDelta(t, eq6-0.6, float64(d.Alpha()), 0.6+1e-9, "f = 20 within (eq6 − 1.2, eq6]")
				}
			}
		}
		if f == 10 {
			require.Zero(t, d.Alpha(), "the Q10 register is empty after 600 µs")
			require.Equal(t, units.MaxTime, d.State().NextAlpha)
		}
	}
}

// CNPs 20 µs apart (the period of α's timer is 1 µs; the first CNP anchors
// the ticks on whole µs, so each CNP's flag is consumed by the tick 1 µs
// later and 19 quiet ticks follow). The real-valued recurrence (equation
// (6), r = g/1024) maps α seen after a CNP tick to r·(r^19·α) + (1 − r),
// whose fixed point is α* = (1 − r)/(1 − r^20) = 0.0524 (53.6 Q10 units at
// g = 1019), and α·r^19 just before the next CNP. The 20-bit register stays within 0.2 Q10
// units below it (the bound of TestDCQCNAlphaUpdate); the Q10 register
// gains 5 on the CNP tick and loses a whole unit on each of the 19 quiet
// ones (α < 205), so it sits at 5 after the CNP tick and at 0 when the next
// CNP arrives: DCQCN's cut, RC·α/2, is then nothing.
func TestDCQCNAlphaSparseCNPs(t *testing.T) {
	r := 1019.0 / 1024
	fixed := 1024 * (1 - r) / (1 - math.Pow(r, 20))
	for _, f := range []uint8{10, 20} {
		cfg := DCQCNConnectX(25 * units.Gbps)
		cfg.AlphaFracBits = f
		d, err := NewDCQCN(cfg)
		require.NoError(t, err)
		var afterTick, atCNP fixedpoint.UQ0_10
		var raw float64
		for k := 0; k < 200; k++ { // 4 ms: (1019/1024)^4000 of the start is left
			at := units.Time(20*k) * dcqcnUs
			require.NoError(t, d.onTimer(at))
			atCNP = d.Alpha()
			require.NoError(t, d.onCNP(at)) // after the tick at `at` (same-time order)
			require.NoError(t, d.onTimer(at+dcqcnUs))
			afterTick = d.Alpha()
			raw = math.Ldexp(float64(d.AlphaRaw()), 10-int(f))
		}
		t.Logf("f = %d: α after the CNP tick %d (raw %.3f), at the next CNP %d (Q10); real-valued %.2f", f, afterTick, raw, atCNP, fixed)
		if f == 10 {
			require.Equal(t, fixedpoint.UQ0_10(5), afterTick)
			require.Zero(t, atCNP)
		} else {
			require.LessOrEqual(t, raw, fixed+1e-6)
			require.Greater(t, raw, fixed-0.2)
			require.InDelta(t, fixed*math.Pow(r, 19), float64(atCNP), 1.2, "before the next CNP")
		}
	}
}

// The decay bound of the type's doc: from any α, at most
// ⌈(1024/d)·ln(2^f·d/1024)⌉ + ⌊1024/d⌋ periods without a CNP take α to 0
// (d = 1024 − g): α ≤ α₀·(1 − d/1024)^n ≤ 2^f·e^(−n·d/1024) falls to
// 1024/d within the first term, and from there each period removes at least
// one LSB. Checked exhaustively from the largest α (2^f − 1) for every g and
// every width; and the doc's exact counts, which the test also derives by
// running the recurrence on its own.
func TestDCQCNAlphaDecayBound(t *testing.T) {
	periods := func(a, g uint64) (n uint64) {
		for ; a != 0; n++ {
			a = a * g / 1024
		}
		return n
	}
	for f := uint8(DCQCNAlphaFracBitsMin); f <= DCQCNAlphaFracBitsMax; f++ {
		worst := uint64(0)
		for g := uint64(0); g < 1024; g++ {
			cfg := DCQCNConnectX(25 * units.Gbps)
			cfg.AlphaFracBits, cfg.DceTCPG = f, fixedpoint.UQ0_10(g)
			d, err := NewDCQCN(cfg)
			require.NoError(t, err)
			d.s.AlphaRaw = uint32(dcqcnAlphaMax(d))
			bound := dcqcnAlphaDecayBound(f, fixedpoint.UQ0_10(g))
			n := periods(dcqcnAlphaMax(d), g)
			require.LessOrEqual(t, n, bound, "f = %d, g = %d", f, g)
			if n > 1 {
				require.False(t, d.alphaTicks(n-1), "f = %d, g = %d: not yet 0 after %d", f, g, n-1)
			}
			require.True(t, d.alphaTicks(1), "f = %d, g = %d: 0 after %d", f, g, n)
			worst = max(worst, n)
		}
		switch f {
		case 10:
			require.Equal(t, uint64(1023), worst)
		case 20:
			require.Equal(t, uint64(7686), worst)
		case 24:
			require.Equal(t, uint64(10523), worst)
		}
	}
	require.Equal(t, uint64(1863), periods(1<<20-1, 1019))
	require.Equal(t, uint64(1862), periods(1023<<10, 1019))
	require.Equal(t, uint64(466), periods(1023, 1019))
}

// dcqcnAlphaDecayBound is the type doc's bound on the periods without a
// CNP that take any α of an f-bit register to 0 at retention g.
func dcqcnAlphaDecayBound(f uint8, g fixedpoint.UQ0_10) uint64 {
	d := float64(1024 - int(g))
	first := math.Ceil(1024 / d * math.Log(math.Ldexp(d, int(f)-10)))
	return uint64(max(first, 0)) + uint64(1024/(1024-int(g)))
}

// rate_reduce_monitor_period: a CNP 1 µs after a decrease waits for the 4 µs
// mark; more CNPs meanwhile add nothing; a CNP 4 µs or more after the last
// decrease acts at once.
func TestDCQCNMonitorPeriod(t *testing.T) {
	d, err := NewDCQCN(DCQCNConnectX(100 * units.Gbps))
	require.NoError(t, err)
	require.NoError(t, d.onCNP(0)) // first: decrease at 0
	require.Equal(t, uint64(1), d.State().Decreases)
	require.NoError(t, d.onCNP(1*dcqcnUs))
	require.NoError(t, d.onCNP(2*dcqcnUs))
	s := d.State()
	require.Equal(t, uint64(1), s.Decreases)
	require.True(t, s.DecreasePending)
	require.Equal(t, 4*dcqcnUs, s.NextDecrease)
	require.NoError(t, d.onTimer(4*dcqcnUs-1))
	require.Equal(t, uint64(1), d.State().Decreases)
	require.NoError(t, d.onTimer(4*dcqcnUs))
	s = d.State()
	require.Equal(t, uint64(2), s.Decreases)
	require.Equal(t, 4*dcqcnUs, s.LastDecrease)
	// The second cut uses α as the ticks at 1..4 µs left it (they run before
	// the decrease at 4 µs): RC = PrevRC − ⌊PrevRC·α/2048⌋ with α =
	// AlphaRaw/2^10 in Q10 units (the 20-bit register), i.e.
	// ⌊PrevRC·AlphaRaw/2^21⌋.
	prev := uint64(s.PrevRC)
	require.Equal(t, uint32(prev-prev*uint64(s.AlphaRaw)/(1<<21)), s.RC)
	require.NoError(t, d.onCNP(8*dcqcnUs))
	require.Equal(t, uint64(3), d.State().Decreases, "4 µs after the last decrease: at once")
	require.Equal(t, 8*dcqcnUs, d.State().LastDecrease)
}

// The byte counter: every rpg_byte_reset bytes sent is one increase event;
// the stage rules pick the phase (F = 1): byte stage 0 → fast recovery, then
// additive while min(timer, byte) ≤ F, hyper once both stages exceed F.
func TestDCQCNByteCounterPhases(t *testing.T) {
	cfg := DCQCNConnectX(100 * units.Gbps)
	cfg.RpgByteReset = 64 * 1000 // 64 000 B
	cfg.RpgAIRate = 5 * units.Mbps
	cfg.RpgHAIRate = 50 * units.Mbps
	d, err := NewDCQCN(cfg)
	require.NoError(t, err)
	require.NoError(t, d.onSend(0, 60000))
	require.Zero(t, d.State().ByteCount, "nothing counted before the first CNP")
	require.NoError(t, d.onCNP(1))
	// Clamp RT so that increases are visible: a second decrease after a
	// byte expiry clamps RT ← RC.
	rc0 := d.State().RC
	require.NoError(t, d.onSend(2, 64000)) // byte stage 0, timer 0: fast recovery
	s := d.State()
	require.Equal(t, uint32(100000), s.RT)
	require.Equal(t, (rc0+100000+1)/2, s.RC)
	require.Equal(t, uint32(1), s.ByteStage)
	require.NoError(t, d.onCNP(10*dcqcnUs)) // decrease with clamp (byte stage > 0)
	s = d.State()
	require.Equal(t, s.PrevRC, s.RT, "RT ← RC after a byte-counter expiry")
	rt := s.RT
	// Two byte expiries: stage 0 → fast recovery, stage 1 → additive
	// (max(0, 1) ≥ 1).
	require.NoError(t, d.onSend(11*dcqcnUs, 64000))
	require.Equal(t, rt, d.State().RT)
	require.NoError(t, d.onSend(12*dcqcnUs, 64000))
	require.Equal(t, rt+5, d.State().RT, "additive: +5 Mb/s")
	// Let the timer expire twice (300, 600 µs after the decrease at 10 µs):
	// timer stages 0 and 1, both additive (min(t, b) ≤ 1).
	require.NoError(t, d.onTimer(610*dcqcnUs))
	require.Equal(t, rt+15, d.State().RT)
	require.Equal(t, uint32(2), d.State().TimerStage)
	// Now timer stage 2 > 1 and byte stage 2 > 1: hyper.
	require.NoError(t, d.onSend(611*dcqcnUs, 64000))
	require.Equal(t, rt+15+50, d.State().RT, "hyper: +50 Mb/s")
	require.Zero(t, d.State().ByteCount, "each expiry empties the counter")
}

// clamp_tgt_rate and clamp_tgt_rate_after_time_inc, each alone.
func TestDCQCNClampFlags(t *testing.T) {
	run := func(clamp, afterTime bool) (rtBefore, rcBefore, rtAfter uint32) {
		cfg := DCQCNConnectX(100 * units.Gbps)
		cfg.ClampTgtRate, cfg.ClampTgtRateAfterTimeInc = clamp, afterTime
		d, err := NewDCQCN(cfg)
		require.NoError(t, err)
		require.NoError(t, d.onCNP(0))
		require.NoError(t, d.onTimer(300*dcqcnUs)) // one timer increase
		s := d.State()
		require.NoError(t, d.onCNP(301*dcqcnUs))
		return s.RT, s.RC, d.State().RT
	}
	rt, _, after := run(false, false)
	require.Equal(t, rt, after, "no flag: RT kept")
	_, rc, after := run(false, true)
	require.Equal(t, rc, after, "after a timer increase: RT ← RC")
	_, rc, after = run(true, false)
	require.Equal(t, rc, after, "clamp_tgt_rate: RT ← RC")
	// clamp_tgt_rate also clamps on the very first decrease.
	cfg := DCQCNConnectX(100 * units.Gbps)
	cfg.ClampTgtRate = true
	d, err := NewDCQCN(cfg)
	require.NoError(t, err)
	require.NoError(t, d.onCNP(0))
	require.Equal(t, uint32(100000), d.State().RT)
}

// rpg_min_dec_fac binds when rpg_gd makes the α cut larger: with rpg_gd = 9
// the cut RC·1023/512 would exceed RC, and min_dec_fac = 50 leaves
// ⌈RC·50/100⌉; rate_to_set_on_first_cnp sets the rate outright; the rate never
// goes below rpg_min_rate.
func TestDCQCNDecreaseBounds(t *testing.T) {
	cfg := DCQCNConnectX(100 * units.Gbps)
	cfg.RpgGd = 9
	d, err := NewDCQCN(cfg)
	require.NoError(t, err)
	require.NoError(t, d.onCNP(0))
	require.Equal(t, uint32(50000), d.State().RC)

	cfg.RateToSetOnFirstCNP = 30 * units.Gbps
	d, err = NewDCQCN(cfg)
	require.NoError(t, err)
	require.NoError(t, d.onCNP(0))
	require.Equal(t, uint32(30000), d.State().RC)
	require.Equal(t, uint32(30000), d.State().RT)
	require.Zero(t, d.State().Decreases)

	cfg = DCQCNConnectX(100 * units.Gbps)
	cfg.RpgMinDecFac = 0
	cfg.RpgGd = 8
	cfg.RpgMinRate = 7 * units.Gbps
	d, err = NewDCQCN(cfg)
	require.NoError(t, err)
	for i := range 5 {
		require.NoError(t, d.onCNP(units.Time(i)*5*dcqcnUs))
		require.GreaterOrEqual(t, d.Rate(), 7*units.Gbps)
	}
	require.Equal(t, 7*units.Gbps, d.Rate())
}

// ---- validation and bad input ----

func TestDCQCNValidate(t *testing.T) {
	base := DCQCNConnectX(100 * units.Gbps)
	for name, tc := range map[string]struct {
		mod  func(*DCQCNConfig)
		want string
	}{
		"unit 0":         {func(c *DCQCNConfig) { c.RateUnit = 0 }, "RateUnit"},
		"port 0":         {func(c *DCQCNConfig) { c.PortRate = 0 }, "PortRate"},
		"port too fast":  {func(c *DCQCNConfig) { c.RateUnit = 1 }, "PortRate"},
		"max > port":     {func(c *DCQCNConfig) { c.RpgMaxRate = 101 * units.Gbps }, "RpgMaxRate"},
		"min 0":          {func(c *DCQCNConfig) { c.RpgMinRate = 0 }, "RpgMinRate"},
		"min > max":      {func(c *DCQCNConfig) { c.RpgMinRate = 200 * units.Gbps }, "RpgMinRate"},
		"first < min":    {func(c *DCQCNConfig) { c.RpgMinRate = 2 * units.Gbps; c.RateToSetOnFirstCNP = units.Gbps }, "RateToSetOnFirstCNP"},
		"ai fraction":    {func(c *DCQCNConfig) { c.RpgAIRate = 5500 * units.Kbps }, "RpgAIRate"},
		"hai 0":          {func(c *DCQCNConfig) { c.RpgHAIRate = 0 }, "RpgHAIRate"},
		"g 1024":         {func(c *DCQCNConfig) { c.DceTCPG = 1024 }, "DceTCPG"},
		"alpha 1024":     {func(c *DCQCNConfig) { c.InitialAlphaValue = 1024 }, "InitialAlphaValue"},
		"gd 32":          {func(c *DCQCNConfig) { c.RpgGd = 32 }, "RpgGd"},
		"frac bits 9":    {func(c *DCQCNConfig) { c.AlphaFracBits = 9 }, "AlphaFracBits"},
		"frac bits 25":   {func(c *DCQCNConfig) { c.AlphaFracBits = 25 }, "AlphaFracBits"},
		"frac bits 0":    {func(c *DCQCNConfig) { c.AlphaFracBits = 0 }, "AlphaFracBits"},
		"min_dec 101":    {func(c *DCQCNConfig) { c.RpgMinDecFac = 101 }, "RpgMinDecFac"},
		"rtt 0":          {func(c *DCQCNConfig) { c.DceTCPRtt = 0 }, "DceTCPRtt"},
		"monitor -1":     {func(c *DCQCNConfig) { c.RateReduceMonitorPeriod = -1 }, "RateReduceMonitorPeriod"},
		"reduce mode 2":  {func(c *DCQCNConfig) { c.RateReduceMode = 2 }, "RateReduceMode"},
		"reset 0":        {func(c *DCQCNConfig) { c.RpgTimeReset = 0 }, "RpgTimeReset"},
		"reset 2s":       {func(c *DCQCNConfig) { c.RpgTimeReset = 2 * units.Second }, "RpgTimeReset"},
		"bytes not 64s":  {func(c *DCQCNConfig) { c.RpgByteReset = 100 }, "RpgByteReset"},
		"bytes negative": {func(c *DCQCNConfig) { c.RpgByteReset = -64 }, "RpgByteReset"},
	} {
		cfg := base
		tc.mod(&cfg)
		_, err := NewDCQCN(cfg)
		var ce *cc.ConfigError
		require.ErrorAs(t, err, &ce, name)
		require.Equal(t, tc.want, ce.Field, name)
	}
	cfg := base
	cfg.RateReduceMonitorPeriod = 0
	cfg.RpgByteReset = 0
	cfg.DceTCPG = 0
	require.NoError(t, cfg.Validate(), "0 is allowed for these")
}

func TestDCQCNBadInput(t *testing.T) {
	d, err := NewDCQCN(DCQCNConnectX(100 * units.Gbps))
	require.NoError(t, err)
	require.NoError(t, d.onCNP(10*dcqcnUs))
	require.NoError(t, d.onSend(11*dcqcnUs, 1500))
	before := d.State()
	err = d.onCNP(9 * dcqcnUs)
	var to *cc.TimeOrderError
	require.ErrorAs(t, err, &to)
	require.Equal(t, cc.TimeOrderError{Part: "rp.DCQCN", Event: "Feedback", Now: 9 * dcqcnUs, Last: 11 * dcqcnUs}, *to)
	require.ErrorIs(t, d.onTimer(9*dcqcnUs), cc.ErrTimeOrder)
	require.ErrorIs(t, d.onSend(9*dcqcnUs, 1), cc.ErrTimeOrder)
	require.ErrorIs(t, d.onSend(-1, 1), cc.ErrTimeOrder)
	require.ErrorIs(t, d.onSend(12*dcqcnUs, -1), cc.ErrEvent)
	require.ErrorIs(t, d.onSend(12*dcqcnUs, DCQCNMaxSendBytes+1), cc.ErrEvent)
	require.ErrorContains(t, d.onSend(12*dcqcnUs, -1), "byte count")
	require.Equal(t, before, d.State())
}

// ---- random event sequences ----

// dcqcnEv is one event of a generated sequence.
type dcqcnEv struct {
	op byte // 'c' CNP, 's' send, 't' timer
	at units.Time
	n  units.Bytes
}

// dcqcnDecode turns generated words into events with gaps up to maxGap
// (one in four gaps up to maxGap/64, to make CNP bursts).
func dcqcnDecode(words []uint64, start, maxGap units.Time) []dcqcnEv {
	evs := make([]dcqcnEv, 0, len(words))
	now := start
	for _, w := range words {
		g := maxGap
		if w>>62 == 0 {
			g = maxGap/64 + 1
		}
		now += units.Time(w>>3) % (g + 1)
		e := dcqcnEv{at: now}
		switch w % 8 {
		case 0, 1, 2:
			e.op = 'c'
		case 3, 4, 5:
			e.op = 's'
			e.n = units.Bytes(w>>40) % (DCQCNMaxSendBytes + 1)
		default:
			e.op = 't'
		}
		evs = append(evs, e)
	}
	return evs
}

func dcqcnApply(d *DCQCN, e dcqcnEv) error {
	switch e.op {
	case 'c':
		return d.onCNP(e.at)
	case 's':
		return d.onSend(e.at, e.n)
	}
	return d.onTimer(e.at)
}

// dcqcnGenConfig builds a valid configuration from generated numbers: one of
// the three presets on one of several links, with α's gain, rpg_gd,
// rpg_min_dec_fac, rpg_threshold, the byte counter, the clamp flags (bits 0
// and 1 of flags), α's register width (flags >> 2 % 16: 0..14 → 10..24, 15
// keeps the preset's 20) and the decrease schedule (bit 6 swaps spacing and
// grid) varied.
func dcqcnGenConfig(kind, link, g, gd, mdf, th, br, flags uint64) DCQCNConfig {
	links := []units.Rate{10 * units.Gbps, 25 * units.Gbps, 40 * units.Gbps, 100 * units.Gbps, 400 * units.Gbps}
	l := links[link%uint64(len(links))]
	var c DCQCNConfig
	switch kind % 3 {
	case 0:
		c = DCQCNConnectX(l)
	case 1:
		c = DCQCNPaper(l)
	default:
		c = DCQCNHPCCSim(l)
	}
	if g%4 != 0 { // keep the preset's g one time in four
		c.DceTCPG = fixedpoint.UQ0_10(g % 1024)
	}
	c.RpgGd = uint8(8 + gd%5) // 8..12: at 8..10 the min_dec_fac bound can bind
	c.RpgMinDecFac = uint8(mdf % 101)
	c.RpgThreshold = uint8(th % 6)
	switch br % 3 {
	case 1:
		c.RpgByteReset = 0
	case 2:
		c.RpgByteReset = units.Bytes(1+br%512) * DCQCNByteResetUnit
	}
	c.ClampTgtRate = flags&1 != 0
	c.ClampTgtRateAfterTimeInc = flags&2 != 0
	if w := flags >> 2 % 16; w < 15 {
		c.AlphaFracBits = DCQCNAlphaFracBitsMin + uint8(w)
	}
	if flags>>6&1 != 0 { // the other decrease schedule than the preset's
		c.RateReduceMode ^= DCQCNReduceGrid
	}
	return c
}

// dcqcnCfgGens are the generators of dcqcnGenConfig's arguments.
func dcqcnCfgGens() []gopter.Gen {
	return []gopter.Gen{
		gen.UInt64Range(0, 2).WithLabel("preset"),
		gen.UInt64Range(0, 4).WithLabel("link"),
		gen.UInt64Range(0, 4095).WithLabel("g"),
		gen.UInt64Range(0, 4).WithLabel("gd"),
		gen.UInt64Range(0, 100).WithLabel("min_dec_fac"),
		gen.UInt64Range(0, 5).WithLabel("threshold"),
		gen.UInt64Range(0, 1<<20).WithLabel("byte_reset"),
		gen.UInt64Range(0, 127).WithLabel("clamp flags, α width, decrease schedule"),
	}
}

// dcqcnInvariants checks the register invariants.
func dcqcnInvariants(d *DCQCN) bool {
	s := d.State()
	return s.RC >= d.minR && s.RC <= s.RT && s.RT <= d.maxR &&
		uint64(s.AlphaRaw) < uint64(1)<<d.cfg.AlphaFracBits && d.Alpha() <= fixedpoint.UQ0_10Max &&
		(d.byteReset == 0 || s.ByteCount < d.byteReset)
}

// Invariants over random configurations and event sequences:
//   - RC in [rpg_min_rate, max], RC ≤ RT ≤ max, the α register in
//     [0, 2^AlphaFracBits − 1] and its Q10 view in [0, 1023];
//   - one decrease never cuts more than rpg_min_dec_fac allows:
//     RC·100 ≥ PrevRC·min_dec_fac after each decrease, and, independently of
//     PrevRC, RC after the event ≥ RC before it times min_dec_fac/100 when the
//     event did one decrease (increases before it only raise RC);
//   - after the CNPs stop, the rate is back at the maximum by
//     t_last + rate_reduce_monitor_period + K·rpg_time_reset, where
//     K = F + ⌈(max − min)/S⌉ + bitlen(max − min), S = min(R_AI, R_HAI):
//     the last decrease happens at most one monitor period after the last
//     CNP; after it, at most F expiries are fast recovery; every later
//     expiry adds at least S to RT until RT = max (at most ⌈(max − min)/S⌉
//     of them); then RC's gap to RT, at most max − min, halves (rounding
//     down) at every expiry. Byte-counter expiries are extra increases and
//     only shorten this;
//   - α (the register, so its Q10 view too) reaches exactly 0 and its
//     timer idles by t_last + (1 + B)·dce_tcp_rtt: the tick consuming the
//     last CNP, then at most B = dcqcnAlphaDecayBound(f, g) decays (the
//     type doc's bound; 1024 for the Q10 register, whose every decay lowers
//     α by at least 1); and then nothing is scheduled at all.
func TestDCQCNInvariantsProperty(t *testing.T) {
	params := gopter.DefaultTestParametersWithSeed(42)
	params.MinSuccessfulTests = 200
	props := gopter.NewProperties(params)
	gens := append(dcqcnCfgGens(), gen.SliceOfN(60, gen.UInt64Range(0, math.MaxUint64)).WithLabel("events"))
	props.Property("invariants, decrease bound, recovery, α decay", prop.ForAll(
		func(kind, link, g, gd, mdf, th, br, flags uint64, words []uint64) (string, error) {
			cfg := dcqcnGenConfig(kind, link, g, gd, mdf, th, br, flags)
			d, err := NewDCQCN(cfg)
			if err != nil {
				return "config: " + err.Error(), nil
			}
			f := uint64(cfg.RpgMinDecFac)
			lastCNP := units.Time(-1)
			for _, e := range dcqcnDecode(words, 0, 3*cfg.RpgTimeReset) {
				before := d.State()
				if err := dcqcnApply(d, e); err != nil {
					return "event: " + err.Error(), nil
				}
				if e.op == 'c' {
					lastCNP = e.at
				}
				if !dcqcnInvariants(d) {
					return "invariants", nil
				}
				s := d.State()
				if s.Decreases != before.Decreases && uint64(s.RC)*100 < uint64(s.PrevRC)*f {
					return "min_dec_fac (PrevRC)", nil
				}
				if s.Decreases == before.Decreases+1 && uint64(s.RC)*100 < uint64(before.RC)*f {
					return "min_dec_fac (before)", nil
				}
			}
			if lastCNP < 0 {
				return "", nil
			}
			span := uint64(d.maxR - d.minR)
			stepMin := uint64(min(d.ai, d.hai))
			k := uint64(cfg.RpgThreshold) + (span+stepMin-1)/stepMin + uint64(bits.Len64(span))
			bound := lastCNP + cfg.RateReduceMonitorPeriod + units.Time(k)*cfg.RpgTimeReset
			bound = max(bound, d.Last())
			if err := d.onTimer(bound); err != nil {
				return err.Error(), nil
			}
			if s := d.State(); s.RC != d.maxR || s.RT != d.maxR {
				return "not recovered by the bound", nil
			}
			decays := dcqcnAlphaDecayBound(cfg.AlphaFracBits, cfg.DceTCPG)
			alphaBy := max(lastCNP+units.Time(1+decays)*cfg.DceTCPRtt, bound)
			if err := d.onTimer(alphaBy); err != nil {
				return err.Error(), nil
			}
			if d.AlphaRaw() != 0 || d.Alpha() != 0 || d.NextDeadline() != units.MaxTime {
				return "α not idle at 0", nil
			}
			return "", nil
		}, gens...))
	props.TestingRun(t)
}

// The integer machine against the float64 model (dcqcnRef), over random
// configurations (α's register 10 to 24 bits wide) and CNP/send/timer
// sequences: after every event, with α in Q10 units (AlphaRaw/2^(f−10)),
// 0 ≤ 1024·α_model − α ≤ eA (floors only lower α), the Q10 view Alpha
// within one more unit below, and |RC − RC_model| ≤ eR, |RT − RT_model| ≤
// eT, the bounds dcqcnRef derives. Slack 1e-6·max for the model's own
// float64 rounding (values below 2^32, a few thousand operations of relative
// error 2^-53 each), 1e-9 on α.
func TestDCQCNMatchesFloatModel(t *testing.T) {
	params := gopter.DefaultTestParametersWithSeed(7)
	params.MinSuccessfulTests = 200
	props := gopter.NewProperties(params)
	gens := append(dcqcnCfgGens(), gen.SliceOfN(50, gen.UInt64Range(0, math.MaxUint64)).WithLabel("events"))
	worst := 0.0
	// Largest α error in Q10 units with the Q10 and the 20-bit register, and
	// largest error / bound.
	var worstA [3]float64
	props.Property("integer within the derived bound of the float model", prop.ForAll(
		func(kind, link, g, gd, mdf, th, br, flags uint64, words []uint64) (string, error) {
			cfg := dcqcnGenConfig(kind, link, g, gd, mdf, th, br, flags)
			d, err := NewDCQCN(cfg)
			if err != nil {
				return err.Error(), nil
			}
			m := newDCQCNRef(cfg)
			slack := 1e-6 * m.maxR
			for i, e := range dcqcnDecode(words, 0, 3*cfg.RpgTimeReset) {
				if err := dcqcnApply(d, e); err != nil {
					return err.Error(), nil
				}
				switch e.op {
				case 'c':
					m.cnp(e.at)
				case 's':
					m.send(e.at, e.n)
				default:
					m.advance(e.at)
				}
				s := d.State()
				if m.active {
					a := math.Ldexp(float64(s.AlphaRaw), 10-int(cfg.AlphaFracBits))
					if diff := 1024*m.alpha - a; diff > m.eA+1e-9 || diff < -1e-9 {
						return fmt.Sprintf("α outside bound at event %d", i), nil
					}
					if diff := 1024*m.alpha - float64(d.Alpha()); diff >= m.eA+1+1e-9 || diff < -1e-9 {
						return fmt.Sprintf("Q10 view of α outside bound at event %d", i), nil
					}
					switch cfg.AlphaFracBits {
					case DCQCNAlphaFracBitsMin:
						worstA[0] = max(worstA[0], 1024*m.alpha-a)
					case DCQCNAlphaFracBitsDefault:
						worstA[1] = max(worstA[1], 1024*m.alpha-a)
					}
					if m.eA > 0 {
						worstA[2] = max(worstA[2], (1024*m.alpha-a)/m.eA)
					}
				}
				if dr := math.Abs(float64(s.RC) - m.rc); dr > m.eR+slack {
					return "RC outside bound", nil
				} else if m.eR > 0 {
					worst = max(worst, dr/m.eR)
				}
				if math.Abs(float64(s.RT)-m.rt) > m.eT+slack {
					return "RT outside bound", nil
				}
			}
			return "", nil
		}, gens...))
	props.TestingRun(t)
	t.Logf("largest observed |RC − model| / bound: %.3f", worst)
	t.Logf("largest observed α error (Q10 units): %.4f with Q10, %.4f with 20 bits; largest error/bound %.3f", worstA[0], worstA[1], worstA[2])
}

// Catching up is exact: a machine that is only called at event times ends
// every event in the same state, register for register, as one whose onTimer
// runs at every deadline in between. Configurations with short timers and
// small steps make long runs of increase expiries (the fast path) common.
func TestDCQCNCatchUpMatchesStepping(t *testing.T) {
	params := gopter.DefaultTestParametersWithSeed(99)
	params.MinSuccessfulTests = 150
	props := gopter.NewProperties(params)
	props.Property("late onTimer ≡ onTimer at every deadline", prop.ForAll(
		func(reset, rttDiv, steps, br, th, grid uint64, words []uint64) (string, error) {
			cfg := DCQCNConnectX(10 * units.Gbps)
			cfg.RateReduceMode = DCQCNRateReduceMode(grid)
			cfg.RpgTimeReset = units.Time(2+reset) * dcqcnUs
			cfg.DceTCPRtt = max(cfg.RpgTimeReset/units.Time(1+rttDiv), dcqcnUs)
			cfg.RpgAIRate = units.Rate(1+10000/(1+steps)) * units.Mbps
			cfg.RpgHAIRate = 2 * cfg.RpgAIRate
			cfg.RpgThreshold = uint8(th)
			cfg.RpgByteReset = units.Bytes(br) * 1024 * DCQCNByteResetUnit
			late, err := NewDCQCN(cfg)
			if err != nil {
				return err.Error(), nil
			}
			step, _ := NewDCQCN(cfg)
			for _, e := range dcqcnDecode(words, 0, 200*cfg.RpgTimeReset) {
				for dl := step.NextDeadline(); dl < e.at; dl = step.NextDeadline() {
					if err := step.onTimer(dl); err != nil {
						return err.Error(), nil
					}
				}
				if err := dcqcnApply(step, e); err != nil {
					return err.Error(), nil
				}
				if err := dcqcnApply(late, e); err != nil {
					return err.Error(), nil
				}
				if step.State() != late.State() {
					return "states differ", nil
				}
			}
			return "", nil
		},
		gen.UInt64Range(0, 58).WithLabel("rpg_time_reset µs − 2"),
		gen.UInt64Range(0, 3).WithLabel("α period divisor − 1"),
		gen.UInt64Range(0, 2000).WithLabel("AI divisor"),
		gen.UInt64Range(0, 3).WithLabel("byte reset (64 KiB units)"),
		gen.UInt64Range(0, 5).WithLabel("threshold"),
		gen.UInt64Range(0, 1).WithLabel("decrease schedule"),
		gen.SliceOfN(30, gen.UInt64Range(0, math.MaxUint64)).WithLabel("events"),
	))
	props.TestingRun(t)
}

// The fast path of timerIncreases against one expiry at a time, for long
// climbs (up to 10^6 expiries) from assorted states.
func TestDCQCNTimerIncreasesFastPath(t *testing.T) {
	for _, tc := range []struct {
		rc, rt, ai, hai uint32
		t, b            uint32
		th              uint8
		byteReset       units.Bytes
		k               uint64
	}{
		{rc: 1, rt: 1, ai: 1, hai: 3, th: 1, k: 1000000},
		{rc: 1000, rt: 90000, ai: 7, hai: 50, th: 5, k: 50000},
		{rc: 4000, rt: 4001, ai: 1, hai: 1, th: 0, k: 200000},
		{rc: 5, rt: 10, ai: 3, hai: 9, t: 3, b: 9, th: 2, byteReset: 64, k: 100000},
		{rc: 5, rt: 10, ai: 3, hai: 9, t: 3, b: 1, th: 2, byteReset: 64, k: 100000},
		{rc: 99990, rt: 100000, ai: 5, hai: 50, th: 1, k: 100},
	} {
		cfg := DCQCNConnectX(100 * units.Gbps)
		cfg.RpgAIRate = units.Rate(tc.ai) * units.Mbps
		cfg.RpgHAIRate = units.Rate(tc.hai) * units.Mbps
		cfg.RpgThreshold = tc.th
		cfg.RpgByteReset = tc.byteReset
		a, err := NewDCQCN(cfg)
		require.NoError(t, err)
		a.s.RC, a.s.RT, a.s.TimerStage, a.s.ByteStage = tc.rc, tc.rt, tc.t, tc.b
		b := *a
		idleA := a.timerIncreases(tc.k)
		idleB := false
		for i := uint64(0); i < tc.k && !idleB; i++ {
			idleB = b.timerIncreases(1)
		}
		require.Equal(t, idleB, idleA, "%+v", tc)
		require.Equal(t, b.s, a.s, "%+v", tc)
	}
}

// FuzzDCQCNEvents drives the reaction point with arbitrary configurations
// (from a few fuzzed fields) and arbitrary interleavings of onCNP, onSend
// and onTimer at arbitrary times, backwards included: no panic; a backwards
// time or a bad byte count is an error that changes nothing; the invariants
// hold after every event; deadlines never lie in the past of the last event.
func FuzzDCQCNEvents(f *testing.F) {
	f.Add(uint64(0), []byte{0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0})                                                             // ConnectX, one CNP at 0
	f.Add(uint64(1), []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0x40, 0, 0, 0, 0, 0})                         // paper: CNP then a far timer
	f.Add(uint64(0x2_0003), []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff})                  // HPCC, CNP then send
	f.Add(uint64(4), []byte{0, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xf0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0}) // backwards
	f.Add(uint64(0xffff_ffff_ffff_ffff), []byte{0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0, 0})                 // end of time
	f.Fuzz(func(t *testing.T, knobs uint64, ops []byte) {
		cfg := dcqcnGenConfig(knobs, knobs>>2, knobs>>5, knobs>>17, knobs>>20, knobs>>27, knobs>>30, knobs>>50)
		if knobs>>52&1 == 1 {
			cfg.RateToSetOnFirstCNP = cfg.RpgMinRate
		}
		if knobs>>53&1 == 1 {
			cfg.RateReduceMonitorPeriod = 0
		}
		d, err := NewDCQCN(cfg)
		require.NoError(t, err)
		var last units.Time // time starts at 0: a negative one is refused
		for steps := 0; len(ops) >= 11 && steps < 256; steps++ {
			op := ops[0] % 3
			at := units.Time(binary.LittleEndian.Uint64(ops[1:9]))
			n := units.Bytes(int16(binary.LittleEndian.Uint16(ops[9:11])))
			ops = ops[11:]
			before := d.State()
			var err error
			switch op {
			case 0:
				err = d.onCNP(at)
			case 1:
				err = d.onSend(at, n)
			default:
				err = d.onTimer(at)
			}
			bad := at < last || (op == 1 && n < 0)
			if bad {
				require.Error(t, err)
				require.Equal(t, before, d.State())
				continue
			}
			require.NoError(t, err)
			last = at
			require.True(t, dcqcnInvariants(d), "%+v", d.State())
			if dl := d.NextDeadline(); dl <= last && dl != units.MaxTime {
				t.Fatalf("deadline %v not run at %v", dl, last)
			}
		}
	})
}

// ---- allocation and benchmarks ----

func TestDCQCNNoAllocs(t *testing.T) {
	d, err := NewDCQCN(DCQCNConnectX(100 * units.Gbps))
	require.NoError(t, err)
	now := units.Time(0)
	allocs := testing.AllocsPerRun(2000, func() {
		now += 3 * dcqcnUs
		_ = d.onCNP(now)
		_ = d.onSend(now+dcqcnUs, 4096)
		_ = d.onTimer(d.NextDeadline())
		now = d.Last()
	})
	require.Zero(t, allocs)
}

// BenchmarkDCQCNOnCNP: a CNP every 5 µs (a pacing NP at 4 µs), each running
// the α ticks due since the last one and a decrease.
func BenchmarkDCQCNOnCNP(b *testing.B) {
	d, _ := NewDCQCN(DCQCNConnectX(100 * units.Gbps))
	now := units.Time(0)
	b.ReportAllocs()
	for b.Loop() {
		now += 5 * dcqcnUs
		_ = d.onCNP(now)
	}
}

// BenchmarkDCQCNOnTimer: onTimer at each deadline, with a CNP every 400
// deadlines to keep the timers busy.
func BenchmarkDCQCNOnTimer(b *testing.B) {
	d, _ := NewDCQCN(DCQCNConnectX(100 * units.Gbps))
	_ = d.onCNP(0)
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		dl := d.NextDeadline()
		if dl == units.MaxTime || i%400 == 0 {
			_ = d.onCNP(d.Last() + dcqcnUs)
			dl = d.NextDeadline()
		}
		_ = d.onTimer(dl)
		i++
	}
}

// BenchmarkDCQCNOnSend: a 4 KiB packet every 400 ns (about 80 Gb/s) into the
// byte counter, with a CNP every 100 µs.
func BenchmarkDCQCNOnSend(b *testing.B) {
	d, _ := NewDCQCN(DCQCNConnectX(100 * units.Gbps))
	now := units.Time(0)
	_ = d.onCNP(now)
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		now += 400 * units.Nanosecond
		if i%250 == 0 {
			_ = d.onCNP(now)
		}
		_ = d.onSend(now, 4096)
		i++
	}
}

// Times span the whole non-negative int64 range (cc's time starts at 0):
// a flow whose first CNP is at 2^62 + 7 ps keeps its α grid across a
// catch-up of 2^62 ps, α still decays to 0, and a CNP a whole number of
// periods later wakes the timer on the grid; deadlines past the end of
// time saturate at units.MaxTime and never fire.
func TestDCQCNExtremeTimes(t *testing.T) {
	d, err := NewDCQCN(DCQCNConnectX(100 * units.Gbps))
	require.NoError(t, err)
	start := units.Time(1<<62) + 7
	require.NoError(t, d.onCNP(start))
	require.NoError(t, d.onTimer(units.MaxTime-1))
	require.Zero(t, d.Alpha())
	require.Equal(t, 100*units.Gbps, d.Rate())
	require.Equal(t, units.MaxTime, d.NextDeadline())

	d, err = NewDCQCN(DCQCNConnectX(100 * units.Gbps))
	require.NoError(t, err)
	require.NoError(t, d.onCNP(start))
	require.NoError(t, d.onTimer(start+units.Second/2))
	require.Zero(t, d.Alpha(), "idle after 0.5 s")
	// The grid is start + k·1 µs. A CNP at start + 10^12 − 2 ps: the next
	// grid point is start + 10^12 (10^12 ps is 10^6 whole µs), 2 ps later.
	at := start + 1_000_000_000_000 - 2
	require.NoError(t, d.onCNP(at))
	require.Equal(t, at+2, d.State().NextAlpha)
	require.NoError(t, d.onTimer(units.MaxTime))
	require.Zero(t, d.Alpha())
	require.Equal(t, units.MaxTime, d.NextDeadline())

	// A first CNP half a microsecond before the end of time: every timer
	// it starts would expire past units.MaxTime, so none is scheduled.
	d, err = NewDCQCN(DCQCNConnectX(100 * units.Gbps))
	require.NoError(t, err)
	require.NoError(t, d.onCNP(units.MaxTime-dcqcnUs/2))
	require.Equal(t, units.MaxTime, d.NextDeadline())
	require.NoError(t, d.onTimer(units.MaxTime))
	require.Less(t, d.Rate(), 100*units.Gbps)
}

// TestDCQCNScaleRate: the papers' R_AI/R_HAI scaling r·link/25 Gb/s, rounded
// down to 1 Kb/s and at least 1 Kb/s, by hand: 5 Mb/s at 100 Gb/s is 20 Mb/s,
// 40 Mb/s at 40 Gb/s 64 Mb/s, 5 Mb/s at 10 Gb/s 2 Mb/s; 1 b/s rounds up to the
// floor; a product whose quotient passes 2^64 saturates at the largest
// whole-Kb/s rate.
func TestDCQCNScaleRate(t *testing.T) {
	for _, c := range []struct{ r, link, want units.Rate }{
		{5 * units.Mbps, 100 * units.Gbps, 20 * units.Mbps},
		{40 * units.Mbps, 40 * units.Gbps, 64 * units.Mbps},
		{5 * units.Mbps, 10 * units.Gbps, 2 * units.Mbps},
		{1, 1, units.Kbps},
		{1, -5, units.Kbps},
		{math.MaxInt64, 400 * units.Gbps, math.MaxInt64 / units.Kbps * units.Kbps},
	} {
		require.Equal(t, c.want, dcqcnScaleRate(c.r, c.link), "%v at %v", c.r, c.link)
	}
}
