package pi

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/fixedpoint"
	"github.com/hwcc/hwcc/hwtables"
	"github.com/hwcc/hwcc/units"
)

func roccPresets() map[string]Config {
	return map[string]Config{
		"40G": RoCC40G(), "100G": RoCC100G(), "DPDK10G": RoCCDPDK10G(), "Tofino40G": RoCCTofino40G(),
	}
}

// TestPresetsQuantised checks every preset against the paper's numbers
// ([RoCC] §VI) converted by hand: thresholds ⌊bytes/ΔQ⌋
// with KB = 1000 B, Fmin/Fmax in ΔF, the gains' CSD values.
func TestPresetsQuantised(t *testing.T) {
	cases := []struct {
		name             string
		cfg              Config
		qref, qmid, qmax uint32 // ΔQ units
		fmin, fmax       uint32 // ΔF units
		alpha, beta      float64
	}{
		// 150/300/360 KB over 600 B: 250/500/600; Fmin 10, Fmax 4000.
		{"40G", RoCC40G(), 250, 500, 600, 10, 4000, 0.3, 1.5},
		// 300/600/660 KB over 600 B: 500/1000/1100; Fmax 10 000.
		{"100G", RoCC100G(), 500, 1000, 1100, 10, 10000, 0.45, 2.25},
		// 75/150/210 KB over 600 B: 125/250/350; 10 Gb/s is 1000 ΔF.
		{"DPDK10G", RoCCDPDK10G(), 125, 250, 350, 10, 1000, 0.3, 1.5},
		// Over Tofino's 80 B: 937.5 → 937, 1875, 2625.
		{"Tofino40G", RoCCTofino40G(), 937, 1875, 2625, 10, 4000, 0.3, 1.5},
	}
	for _, c := range cases {
		p, err := NewParams(c.cfg)
		require.NoError(t, err, c.name)
		qref, qmid, qmax, qtop := p.Thresholds()
		require.Equal(t, [3]uint32{c.qref, c.qmid, c.qmax}, [3]uint32{qref, qmid, qmax}, c.name)
		require.Equal(t, uint32(65535), qtop, "%s: 16-bit qdepth (Listing 1)", c.name)
		fmin, fmax := p.FBounds()
		require.Equal(t, c.fmin<<8, fmin, c.name)
		require.Equal(t, c.fmax<<8, fmax, c.name)
		a, b := p.Gains()
		// The CSD with 8 terms down to 2^−16 realises 0.3 and 0.45 within
		// 2^−17 (their binary expansions repeat); 1.5 and 2.25 exactly.
		require.InDelta(t, c.alpha, a.Value(), math.Ldexp(1, -17), c.name)
		require.InDelta(t, c.beta, b.Value(), math.Ldexp(1, -17), c.name)
		require.Equal(t, c.alpha-a.Value(), a.Error(), c.name)
	}
	require.Equal(t, 80*units.Byte, RoCCTofino40G().DeltaQ, "[RoCC] §VI-C: Tofino's ΔQ is 80 B")
}

// TestConfigRejects: every field out of range is refused with a
// *cc.ConfigError naming it (its Go name), the allowed range, and Part
// pi.Params.
func TestConfigRejects(t *testing.T) {
	bad := []struct {
		mut   func(*Config)
		field string
		want  string // in the error's range or cause
	}{
		{func(c *Config) { c.DeltaQ = 0 }, "DeltaQ", "DeltaQ = 0B: want ≥ 1B"},
		{func(c *Config) { c.DeltaF = 0 }, "DeltaF", "≥ 1bps"},
		{func(c *Config) { c.QueueBits = 17 }, "QueueBits", "QueueBits = 17: want 2..16"},
		{func(c *Config) { c.RateBits = 1 }, "RateBits", "2..16"},
		{func(c *Config) { c.QueueBits = 1 }, "QueueBits", "2..16"},
		{func(c *Config) { c.RateFracBits = 17 }, "RateFracBits", "0..16"},
		{func(c *Config) { c.GainFracBits = 7 }, "GainFracBits", "GainFracBits = 7: want RateFracBits (8)..24"},
		{func(c *Config) { c.GainTerms = 0 }, "GainTerms", "1..16"},
		{func(c *Config) { c.AlphaBar = 0 }, "AlphaBar", "AlphaBar = 0: want (0, 256)"},
		{func(c *Config) { c.BetaBar = math.NaN() }, "BetaBar", "(0, 256)"},
		{func(c *Config) { c.AlphaBar = 1e-9 }, "AlphaBar", "round to 0"},
		{func(c *Config) { c.BetaBar = 1e-9 }, "BetaBar", "round to 0"},
		{func(c *Config) { c.InitialF = 3 }, "InitialF", "fmax, fmin or zero"},
		{func(c *Config) { c.Rounding = 2 }, "Rounding", "nearest or floor"},
		{func(c *Config) { c.FMin = 5 * units.Mbps }, "FMin", "FMin = 5Mbps"},
		{func(c *Config) { c.FMax = c.FMin }, "FMax", "(FMin (100Mbps)"},
		{func(c *Config) { c.FMax = 700 * units.Gbps }, "FMax", "65535·DeltaF"},
		{func(c *Config) { c.QMax = 40 * units.MB }, "QMax", "16-bit queue register"},
		{func(c *Config) { c.QMid = c.QMax }, "QRef/QMid/QMax", "Qref < Qmid < Qmax"},
		{func(c *Config) { c.QRef = -1 }, "QRef", "≥ 0B"},
		{func(c *Config) { c.IdleGain = true; c.QRef = 4 * units.KB }, "QRef", "≥ 8·DeltaQ with IdleGain"},
	}
	for i, b := range bad {
		c := RoCC40G()
		b.mut(&c)
		_, err := NewParams(c)
		var ce *cc.ConfigError
		require.ErrorAs(t, err, &ce, "case %d", i)
		require.ErrorIs(t, err, cc.ErrConfig, "case %d", i)
		require.Equal(t, b.field, ce.Field, "case %d: %v", i, err)
		require.Equal(t, "pi.Params", ce.Part, "case %d", i)
		require.ErrorContains(t, err, b.want, "case %d", i)
	}
	c := RoCC40G()
	c.QRef = 100 // 100 B is 0 ΔQ: still Qref < Qmid < Qmax
	_, err := NewParams(c)
	require.NoError(t, err)
}

// TestLine8RaisesFWhileAboveQref answers the question whether F can
// rise while the queue is above Qref: yes, when the queue falls. 40 Gb/s
// preset, F = 2000 ΔF (top region, α = 0.3, β = 1.5), Qold = 400 ΔQ,
// Qcur = 300 ΔQ (Qref = 250): line 8 gives
// F − 0.3·(300 − 250) − 1.5·(300 − 400) = 2000 − 15 + 150 = 2135 ΔF.
// Neither decrease applies (300 < Qmax = 600; the queue shrank). The
// property that holds is the one the tests check: F does not rise while
// Qcur ≥ Qref and Qcur ≥ Qold (a queue held constant above Qref included).
func TestLine8RaisesFWhileAboveQref(t *testing.T) {
	p, err := NewParams(RoCC40G())
	require.NoError(t, err)
	next, br := Step(p, Regs{F: 2000 << 8, QOld: 400}, 300)
	require.Equal(t, PI, br)
	// CSD(0.3) is 0.3 + 3.05e-6 (Error −3.05e-6): 0.3·50 moves by 1.5e-4 ΔF,
	// below half a register unit (1/512 ΔF), so the result is exact.
	require.Equal(t, uint32(2135<<8), next.F)
}

// TestStepHand checks each branch of Algorithm 1 on values worked by
// hand for the 40 Gb/s preset (Fmax = 4000, Fmax/8 = 500, Fmin = 10,
// Qref/Qmid/Qmax = 250/500/600 ΔQ).
func TestStepHand(t *testing.T) {
	p, err := NewParams(RoCC40G())
	require.NoError(t, err)
	const u = 1 << 8 // one ΔF in register units
	cases := []struct {
		name  string
		f     uint32
		qold  uint32
		qcur  uint32
		wantF uint32
		br    Branch
	}{
		{"line 2–3: Qcur ≥ Qmax, F > Fmax/8", 3000 * u, 590, 600, 10 * u, MDMin},
		{"line 2 needs F > Fmax/8: F = 500 takes line 8", 500 * u, 600, 600, 0, PI},
		{"line 4–5: growth ≥ Qmid halves", 3001 * u, 0, 500, 3001 * u / 2, MDHalf},
		// An odd register value: ⌊(3001·256 + 1)/2⌋ = 384128, rounded down.
		{"line 5 rounds down", 3001*u + 1, 0, 500, 384128, MDHalf},
		{"line 4: growth 499 < Qmid", 3000 * u, 0, 499, 0, PI},
		// Line 8 at F = 3000 (shift 0): 3000 − 0.3·(260−250) − 1.5·(260−255)
		// = 3000 − 3 − 7.5 = 2989.5.
		{"line 8, region 0", 3000 * u, 255, 260, 2989*u + u/2, PI},
		// F = 1000 is in [Fmax/4, Fmax/2): ratio 2. 1000 − (0.3·(−50) +
		// 1.5·(−10))/2 = 1000 + 15 = 1015.
		{"line 8, region 1", 1000 * u, 210, 200, 1015 * u, PI},
		// F = 100 < Fmax/32 = 125: ratio 32. 100 − (0.3·(−250))/32 =
		// 102.34375 = 102 + 88/256 (0.34375·256 = 88; the CSD error
		// 3.05e-6·250/32 = 2.4e-5 ΔF is below half a unit).
		{"line 8, region 5", 100 * u, 0, 0, 102*u + 88, PI},
		{"lines 9–10: clamp at Fmax", 3999 * u, 100, 100, 4000 * u, PI},
		{"lines 11–12: clamp at Fmin", 11 * u, 590, 599, 10 * u, PI},
		{"MD at F/2 then clamp at Fmin: F ≤ Fmax/8 skips MD", 400 * u, 0, 599, 0, PI},
	}
	for _, c := range cases {
		next, br := Step(p, Regs{F: c.f, QOld: c.qold}, c.qcur)
		require.Equal(t, c.br, br, c.name)
		require.Equal(t, c.qcur, next.QOld, c.name)
		if c.wantF != 0 {
			require.Equal(t, c.wantF, next.F, "%s: got %v ΔF", c.name, float64(next.F)/u)
		}
	}
	// A sample above the register saturates to 65535 ≥ Qmax.
	next, br := Step(p, Regs{F: 4000 * u}, 1<<20)
	require.Equal(t, MDMin, br)
	require.Equal(t, uint32(65535), next.QOld)
}

// TestIdleGainHand checks IdleGain on values worked by hand for the
// 40 Gb/s preset: Qref = 250 ΔQ, so the idle threshold is ⌊250/8⌋ = 31 ΔQ;
// an idle update takes ᾱ = 0.3 and β̄ = 1.5 whatever F is. CSD(0.3) is
// 0.3 + 0.2/65536; its error times the queue errors here (at most 250) is
// below 7.7e-4 ΔF, a fifth of a register unit (1/256 ΔF), so every result is
// exact in register units.
func TestIdleGainHand(t *testing.T) {
	cfg := RoCC40G()
	cfg.IdleGain = true
	p, err := NewParams(cfg)
	require.NoError(t, err)
	require.Equal(t, uint32(31), p.IdleThreshold())
	printed, err := NewParams(RoCC40G())
	require.NoError(t, err)
	require.Zero(t, printed.IdleThreshold(), "off: no threshold")
	const u = 1 << 8 // one ΔF in register units
	cases := []struct {
		name       string
		f          uint32
		qold, qcur uint32
		wantF      uint32
		br         Branch
	}{
		// An empty queue at F = 100 (region 5): 100 − 0.3·(0 − 250) = 175,
		// where Algorithm 1 as printed gives 102.34 (TestStepHand).
		{"empty queue, bottom region", 100 * u, 0, 0, 175 * u, PIIdle},
		// ⌊(30 + 31)/2⌋ = 30 < 31: idle. 100 + 0.3·220 − 1.5·(30 − 31) =
		// 100 + 66 + 1.5 = 167.5.
		{"mean 30 < 31: idle", 100 * u, 31, 30, 167*u + u/2, PIIdle},
		// ⌊(30 + 32)/2⌋ = 31, not < 31: AUTO_TUNE's ratio 32.
		// 100 − (0.3·(−220) + 1.5·(−2))/32 = 100 + 69/32 = 102.15625,
		// 0.15625·256 = 40.
		{"mean 31: not idle", 100 * u, 32, 30, 102*u + 40, PI},
		// Qcur = 31, not < 31: ratio 32. 100 − (0.3·(−219) + 1.5·31)/32 =
		// 100 + 19.2/32 = 100.6, 0.6·256 = 153.6, rounded to 154.
		{"Qcur 31: not idle", 100 * u, 0, 31, 100*u + 154, PI},
		// At F ≥ Fmax/2 the gains are ᾱ, β̄ either way: 3000 + 75; only the
		// branch tells the rule applied.
		{"top region: same F", 3000 * u, 0, 0, 3075 * u, PIIdle},
		// 3990 + 75 = 4065, clamped to Fmax by lines 9–10.
		{"clamp at Fmax", 3990 * u, 0, 0, 4000 * u, PIIdle},
	}
	for _, c := range cases {
		next, br := Step(p, Regs{F: c.f, QOld: c.qold}, c.qcur)
		require.Equal(t, c.br, br, c.name)
		require.Equal(t, c.wantF, next.F, "%s: got %v ΔF", c.name, float64(next.F)/u)
		require.Equal(t, c.qcur, next.QOld, c.name)
		// Without the option the same update is never idle.
		_, br = Step(printed, Regs{F: c.f, QOld: c.qold}, c.qcur)
		require.Equal(t, PI, br, c.name)
	}

	// Qref below 8 ΔQ: ⌊Qref/8⌋ would be 0 and no queue could ever be
	// idle; New refuses the option rather than ignore it. Qref = 4 KB is
	// 6 ΔQ (Qmid and Qmax shrunk to keep Qref < Qmid < Qmax).
	small := RoCC40G()
	small.IdleGain = true
	small.QRef, small.QMid, small.QMax = 4*units.KB, 8*units.KB, 9*units.KB
	_, err = NewParams(small)
	require.ErrorContains(t, err, "QRef = 4KB (6 ΔQ): want ≥ 8·DeltaQ with IdleGain")
	small.QRef = 4800 * units.Byte // exactly 8 ΔQ: threshold 1
	_, err = NewParams(small)
	require.NoError(t, err)
	small.IdleGain = false
	small.QRef = 4 * units.KB
	_, err = NewParams(small)
	require.NoError(t, err, "without the option a small Qref is fine")

	// Idle takes any uint32 pair: a Qold beyond the 16-bit register does
	// not wrap the sum (5 + (2^32 − 1) would wrap to 4 in 32 bits).
	require.False(t, p.Idle(5, math.MaxUint32))
	require.True(t, p.Idle(5, 56), "⌊61/2⌋ = 30 < 31")
	require.False(t, p.Idle(5, 57), "⌊62/2⌋ = 31")
	require.Equal(t, "pi-idle", PIIdle.String())
}

// TestIdleGainSign checks the sign condition of the package doc's "The
// idle-queue gain": with v_β < 7·v_α an idle update never lowers F, with
// v_β > 7·v_α it can. 40 Gb/s preset (Qref = 250 ΔQ, idle threshold 31),
// ᾱ = 0.2; the worst idle queue for the sign is Qcur = 30, Qold = 0 (the
// largest growth), where line 8's increment is 0.2·220 − β̄·30:
//
//	β̄ = 1.38 (6.9ᾱ): 44 − 41.4 = +2.6 ΔF
//	β̄ = 1.5  (7.5ᾱ): 44 − 45   = −1 ΔF, where the printed algorithm
//	                 (ratio 32 at F = 100) gives −1/32 ΔF
//
// (1.5 is exact in CSD; 0.2 and 1.38 at 16 fraction bits are 0.2 − 3.05e-6
// and 1.38 + 4.88e-6, which move +2.6 to +2.59918 ΔF: 665.39 register
// units, rounded to 665 = 102·256 + 153). Every idle (Qcur, Qold) is tried
// for the first.
func TestIdleGainSign(t *testing.T) {
	const u = 1 << 8
	cfg := RoCC40G()
	cfg.IdleGain = true
	cfg.AlphaBar, cfg.BetaBar = 0.2, 1.38
	p, err := NewParams(cfg)
	require.NoError(t, err)
	const qidle uint32 = 250 / 8 // ⌊Qref/8⌋ = 31 ΔQ, by hand
	require.Equal(t, qidle, p.IdleThreshold())
	idle := 0
	for qcur := range qidle {
		for qold := range 2*qidle + 2 {
			next, br := Step(p, Regs{F: 100 * u, QOld: qold}, qcur)
			if br != PIIdle {
				continue
			}
			idle++
			require.Greater(t, next.F, uint32(100*u), "Qcur %d Qold %d", qcur, qold)
		}
	}
	// Qcur < 31 and ⌊(Qcur + Qold)/2⌋ < 31: 31·62 pairs minus those whose
	// mean reaches 31; at least the 31·31 with Qold < 31.
	require.GreaterOrEqual(t, idle, 31*31)
	next, br := Step(p, Regs{F: 100 * u}, 30)
	require.Equal(t, PIIdle, br)
	require.Equal(t, uint32(102*u+153), next.F, "+2.59918 ΔF = 665.39 units, rounded to 665")

	cfg.BetaBar = 1.5
	p, err = NewParams(cfg)
	require.NoError(t, err)
	next, br = Step(p, Regs{F: 100 * u}, 30)
	require.Equal(t, PIIdle, br)
	require.Equal(t, uint32(99*u), next.F, "−1 ΔF")
	cfg.IdleGain = false
	p, err = NewParams(cfg)
	require.NoError(t, err)
	next, _ = Step(p, Regs{F: 100 * u}, 30)
	require.Equal(t, uint32(100*u-8), next.F, "printed: −1/32 ΔF = −8 register units")

	// With RateFracBits = 0 a small idle increment rounds to nothing: ᾱ =
	// 0.01, β̄ = 0.05, Qref = 8 ΔQ (threshold 1): at Qcur = Qold = 0 the
	// increment is 0.01·8 = 0.08 ΔF, rounded to 0. F stays, the branch
	// still says the rule applied.
	tiny := RoCC40G()
	tiny.IdleGain = true
	tiny.RateFracBits = 0
	tiny.AlphaBar, tiny.BetaBar = 0.01, 0.05
	tiny.QRef, tiny.QMid, tiny.QMax = 4800*units.Byte, 9*units.KB, 12*units.KB
	p, err = NewParams(tiny)
	require.NoError(t, err)
	next, br = Step(p, Regs{F: 100}, 0)
	require.Equal(t, PIIdle, br)
	require.Equal(t, uint32(100), next.F)
}

// TestStepErrorBound checks the exported bound against its formula
// from the file comment, with the CSD errors read from fixedpoint: for the
// 40 Gb/s preset (k = 8; ᾱ = 0.3 has error −0.2/65536, β̄ = 1.5 is exact),
// e1 = 1000, e2 = 7, s = 0: 2^−9 + 1000·0.2/65536 = 0.00195 + 0.00305.
func TestStepErrorBound(t *testing.T) {
	p, err := NewParams(RoCC40G())
	require.NoError(t, err)
	require.InDelta(t, 1.0/512+1000*0.2/65536, p.StepErrorBound(1000, 7, 0), 1e-12)
	require.InDelta(t, 1.0/512+1000*0.2/65536/32, p.StepErrorBound(-1000, -7, 5), 1e-12)
	require.Less(t, p.StepErrorBound(1000, 1000, 0), 0.01, "the doc's number: below 0.01 ΔF for errors up to 1000 ΔQ")
}

func TestRoundShift(t *testing.T) {
	// Nearest, ties away from zero, odd: checked against math.Round, which
	// rounds half away from zero, over a grid of values and shifts.
	for sh := uint(0); sh < 12; sh++ {
		for n := int64(-5000); n <= 5000; n++ {
			want := int64(math.Round(float64(n) / math.Ldexp(1, int(sh))))
			require.Equal(t, want, roundShift(n, sh), "n=%d sh=%d", n, sh)
		}
	}
}

// TestOMNeTOptions checks the options that select the authors' OMNeT++
// arithmetic on values worked by hand (40 Gb/s preset, RateFracBits = 0,
// so F is in whole ΔF; ᾱ = 0.3 + 3.05e-6, β̄ = 1.5 exactly):
//
//	F = 3000, Qold = 251, Qcur = 252: decrement 0.3·2 + 1.5·1 = 2.1;
//	  nearest 3000 − 2 = 2998, floor ⌊2997.9⌋ = 2997.
//	F = 3000, Qold = 250, Qcur = 248: decrement −0.6 − 3 = −3.6;
//	  nearest 3000 + 4 = 3004, floor ⌊3003.6⌋ = 3003.
//	F = 0 (InitialF zero), empty queue: region 5 (ratio 32), increment
//	  0.3·250/32 = 2.34; floor 2, nearest 2, both clamped to Fmin = 10.
func TestOMNeTOptions(t *testing.T) {
	cfg := RoCC40G()
	cfg.RateFracBits = 0
	near, err := NewParams(cfg)
	require.NoError(t, err)
	cfg.Rounding = RoundFloor
	floor, err := NewParams(cfg)
	require.NoError(t, err)
	for _, c := range []struct {
		f, qold, qcur      uint32
		wantNear, wantFlor uint32
	}{
		{3000, 251, 252, 2998, 2997},
		{3000, 250, 248, 3004, 3003},
		{0, 0, 0, 10, 10},
	} {
		got, br := Step(near, Regs{F: c.f, QOld: c.qold}, c.qcur)
		require.Equal(t, PI, br)
		require.Equal(t, c.wantNear, got.F, "nearest %+v", c)
		got, _ = Step(floor, Regs{F: c.f, QOld: c.qold}, c.qcur)
		require.Equal(t, c.wantFlor, got.F, "floor %+v", c)
	}
	// The initial F of each choice, and the first update from 0.
	for _, c := range []struct {
		v    InitialF
		want uint32 // ΔF
	}{{InitialFMax, 4000}, {InitialFMin, 10}, {InitialZero, 0}} {
		cfg := RoCC40G()
		cfg.InitialF = c.v
		p, err := NewParams(cfg)
		require.NoError(t, err)
		r := p.InitialRegs()
		require.Equal(t, Regs{F: c.want << 8}, r, "%v", c.v)
		r, _ = Step(p, r, 0)
		require.GreaterOrEqual(t, r.F, uint32(10<<8), "%v: the first update clamps into [Fmin, Fmax]", c.v)
	}
	require.Equal(t, "fmax fmin zero nearest floor",
		InitialFMax.String()+" "+InitialFMin.String()+" "+InitialZero.String()+" "+
			RoundNearest.String()+" "+RoundFloor.String())
}

// BenchmarkStep is Algorithm 1 alone, the pure function.
func BenchmarkStep(b *testing.B) {
	p, err := NewParams(RoCC40G())
	if err != nil {
		b.Fatal(err)
	}
	r := p.InitialRegs()
	// Queue samples generated before the loop, as the CP benchmarks do:
	// (i·13) mod 700 ΔQ units.
	var qs [1024]uint32
	for i := range qs {
		qs[i] = uint32((i * 13) % 700)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		r, _ = Step(p, r, qs[i&1023])
	}
}

// TestGainsAsIntegers: line 8's two integer multiplies equal the CSD
// shift-add sums the hardware computes, for the presets and random gains,
// over random errors e1, e2 in the range the 16-bit queue register gives
// (|e| < 2^17).
func TestGainsAsIntegers(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 0))
	cfgs := []Config{RoCC40G(), RoCC100G()}
	for range 50 {
		c := RoCC40G()
		c.AlphaBar = 0.001 + rng.Float64()*2
		c.BetaBar = 0.001 + rng.Float64()*20
		cfgs = append(cfgs, c)
	}
	for _, c := range cfgs {
		p, err := NewParams(c)
		require.NoError(t, err)
		for range 2000 {
			e1 := rng.Int64N(1<<18) - 1<<17
			e2 := rng.Int64N(1<<18) - 1<<17
			want := p.alpha.Mul(e1<<p.g) + p.beta.Mul(e2<<p.g)
			require.Equal(t, want, p.alphaG*e1+p.betaG*e2, "α %v β %v e1 %d e2 %d", c.AlphaBar, c.BetaBar, e1, e2)
		}
	}
}

// TestQueueUnitsDivider: QueueUnits (a compare, then a multiply by
// ⌈2^64/ΔQ⌉, or for ΔQ = 1 a shift by 0 and for a huge ΔQ a division)
// returns what the queue quantiser's QuantizeSat returns, for ΔQ of every
// kind (1, powers of
// two, the presets' 64 and 80 B, odd and prime values, values around 2^k,
// ΔQ so large that the multiply would not be exact) and every register
// width, at the edges of each unit, of saturation and of int64, and at
// seeded random lengths.
func TestQueueUnitsDivider(t *testing.T) {
	deltas := []uint64{1, 2, 3, 5, 7, 63, 64, 65, 80, 100, 1000, 1500, 4095, 4096, 4097,
		1<<20 - 1, 1<<20 + 1, 999_983, 1<<24 + 3, 1<<30 + 7, 1<<40 + 9, 1 << 44}
	rng := rand.New(rand.NewPCG(18, 3))
	for range 40 {
		deltas = append(deltas, rng.Uint64N(1<<uint(1+rng.IntN(47)))+1)
	}
	kinds := map[string]int{}
	for _, d := range deltas {
		for w := uint(MinQueueBits); w <= MaxQueueBits; w++ {
			q, err := fixedpoint.NewQuantizer(d, w, fixedpoint.Floor)
			if err != nil {
				continue // (2^w − 1)·ΔQ does not fit: NewParams refuses it too
			}
			p := &Params{queue: q, qtop: uint32(q.Max())}
			p.initQueueDivider(d)
			switch {
			case p.qrecip != 0:
				kinds["multiply"]++
			case p.qpow2:
				kinds["shift"]++
			default:
				kinds["divide"]++
			}
			top := (uint64(p.qtop) + 1) * d // may wrap for huge ΔQ; only used below 2^63
			lens := []uint64{0, 1, d - 1, d, d + 1, 2*d - 1, 2 * d, math.MaxInt64, math.MaxInt64 - 1}
			if hi, _ := bits.Mul64(uint64(p.qtop)+1, d); hi == 0 && top <= math.MaxInt64 {
				lens = append(lens, top-1, top, top+1, top-d, top-d-1)
			}
			for range 200 {
				lens = append(lens, rng.Uint64N(min(4*uint64(p.qtop+1)*d, math.MaxInt64)))
				k := rng.Uint64N(uint64(p.qtop) + 2)
				if hi, lo := bits.Mul64(k, d); hi == 0 && lo < math.MaxInt64 {
					lens = append(lens, lo, lo+d-1, max(lo, 1)-1)
				}
			}
			for _, v := range lens {
				if v > math.MaxInt64 {
					continue
				}
				want, wantSat := q.QuantizeSat(v)
				got, gotSat := p.QueueUnits(units.Bytes(v))
				require.Equal(t, want, uint64(got), "ΔQ %d, %d bits, qlen %d", d, w, v)
				require.Equal(t, wantSat, gotSat, "ΔQ %d, %d bits, qlen %d", d, w, v)
			}
			got, sat := p.QueueUnits(-5)
			require.Zero(t, got)
			require.False(t, sat)
		}
	}
	// Every path ran.
	require.NotZero(t, kinds["shift"])
	require.NotZero(t, kinds["multiply"])
	require.NotZero(t, kinds["divide"])
}

// roccPaperLoopShift is AUTO_TUNE as Algorithm 1 lines 15–21 write it:
// level doubles from 2 while F < Fmax/level (compared as F·level < Fmax,
// exact in integers for F, Fmax < 2^32) and level < 64; s = log2(level/2).
func roccPaperLoopShift(f, fmax uint64) uint {
	level := uint64(2)
	for f*level < fmax && level < 64 {
		level *= 2
	}
	return uint(bits.Len64(level/2) - 1)
}

// TestShiftIsPaperLoop: Params.Shift (five comparators in
// hwtables.RoCCAutoTune) is the paper's AUTO_TUNE loop for every F register
// value of every preset, with 8 and 0 fraction bits, up to 2·Fmax, and at
// the region bounds ± 1 of seeded random Fmax.
func TestShiftIsPaperLoop(t *testing.T) {
	n := 0
	for name, cfg := range roccPresets() {
		for _, k := range []uint{0, 8} {
			cfg.RateFracBits = k
			p, err := NewParams(cfg)
			require.NoError(t, err, name)
			_, fmax := p.FBounds()
			for f := range 2*fmax + 2 {
				if got, want := p.Shift(f), roccPaperLoopShift(uint64(f), uint64(fmax)); got != want {
					t.Fatalf("%s, k = %d, F = %d: Shift %d, the paper's loop %d", name, k, f, got, want)
				}
				n++
			}
		}
	}
	require.Greater(t, n, 4_000_000)
	rng := rand.New(rand.NewPCG(18, 5))
	for range 2000 {
		fmax := uint64(rng.Uint32N(math.MaxUint32) + 1)
		p := &Params{}
		var err error
		p.tune, err = hwtables.NewRoCCAutoTune(fmax)
		require.NoError(t, err)
		for _, b := range p.tune.Bounds() {
			for _, f := range []uint64{b - 1, b, b + 1} {
				if f <= math.MaxUint32 {
					require.Equal(t, roccPaperLoopShift(f, fmax), p.Shift(uint32(f)), "Fmax %d, F %d", fmax, f)
				}
			}
		}
	}
}

// TestRoundShiftBranchless: roundShift (the sign applied by masks)
// is the sign-branching form sign(n)·⌊(|n| + 2^(sh−1))/2^sh⌋ over its whole
// domain's edges (|n| < 2^62, sh < 62) and seeded random values.
func TestRoundShiftBranchless(t *testing.T) {
	ref := func(n int64, sh uint) int64 {
		if sh == 0 {
			return n
		}
		half := int64(1) << (sh - 1)
		if n < 0 {
			return -((-n + half) >> sh)
		}
		return (n + half) >> sh
	}
	rng := rand.New(rand.NewPCG(18, 62))
	for sh := uint(0); sh < 62; sh++ {
		edges := []int64{0, 1, -1, 1<<62 - 1, -(1<<62 - 1)}
		if sh > 0 {
			h := int64(1) << (sh - 1)
			edges = append(edges, h, -h, h-1, -(h - 1), h+1, -(h + 1), 3*h, -3*h)
		}
		for range 2000 {
			v := rng.Int64N(1 << 62)
			edges = append(edges, v, -v, v>>rng.IntN(62), -(v >> rng.IntN(62)))
		}
		for _, n := range edges {
			if got, want := roundShift(n, sh), ref(n, sh); got != want {
				t.Fatalf("n = %d, sh = %d: %d, want %d", n, sh, got, want)
			}
		}
	}
}
