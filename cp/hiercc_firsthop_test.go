package cp

import (
	"math"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

const hierccLine25 = 25 * units.Gbps

// refUpdate is equation (1) in float64, written from the paper: rates in
// kb/s, bytes A and C over a window of w ps, Q bytes, R(t−1) prev.
func hierccRefUpdate(cfg HierCCFirstHopConfig, prev, a, c, q, w float64) (r, drain, rArr float64) {
	line := float64(cfg.LineRate / wire.HierCCRateUnit)
	minR := float64(cfg.MinRate / wire.HierCCRateUnit)
	q0 := float64(cfg.Q0)
	rArr = a * 8e9 / w // R_arrive, kb/s
	rCr := c * 8e9 / w // R_credit, kb/s
	switch cfg.FirstCase {
	case HierCCBelowQ0:
		if q < q0 {
			return line, 0, rArr
		}
	case HierCCEmpty:
		if q == 0 {
			return line, 0, rArr
		}
	}
	if a == 0 {
		return prev, 0, rArr
	}
	// β·(Q − q0)/RTT_hop in kb/s.
	drain = cfg.Beta * (q - q0) * 8e9 / float64(cfg.RTTHop)
	target := rCr - drain
	if target <= 0 {
		return minR, drain, rArr
	}
	r = prev * target / rArr
	return math.Min(math.Max(r, minR), line), drain, rArr
}

func hierccWideFirstHop(w units.Time) HierCCFirstHopConfig {
	cfg := HierCCPaperFirstHop(hierccLine25)
	cfg.Period = w
	cfg.VHigh = math.MaxUint32 // no stop: the equation alone
	cfg.VLow = math.MaxUint32 - 1
	return cfg
}

// oneUpdate runs one update of a fresh controller from R(t−1) = prev.
func hierccOneUpdate(t *testing.T, cfg HierCCFirstHopConfig, prev uint32, a, c, q units.Bytes) hierccFirstHopState {
	t.Helper()
	f, err := newHierCCFirstHop(cfg)
	require.NoError(t, err)
	f.st.Rate = prev
	if a > 0 {
		_, err = f.Arrive(0, a, q)
		require.NoError(t, err)
	}
	if c > 0 {
		require.NoError(t, f.Credit(0, c))
	}
	up, err := f.Timer(f.NextDeadline(), q)
	require.NoError(t, err)
	require.True(t, up)
	return f.State()
}

// TestHierCCFirstHopVsReference: over random inputs (rates from 1 Mb/s to the
// 25 Gb/s line, queues from 0 to 2 MB, windows of 1 to 100 µs, the three
// readings of the first case) one integer update is within the bound of
// FirstHop's doc comment of the float model fed the same inputs:
//
//	1 + (R(t−1)·(2 + 1.6e-5·|drain|) + R(t))/R_arrive  kb/s
//
// (each of R_arrive, R_credit, the drain and the quotient truncates by
// under 1 kb/s; β's Q0.16 rounding is 1.53e-5 of the drain). The test
// also reports the largest relative error seen.
func TestHierCCFirstHopVsReference(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	var worst float64
	for i := range 20000 {
		w := units.Time(1+rng.Intn(100)) * units.Microsecond
		cfg := hierccWideFirstHop(w)
		cfg.FirstCase = HierCCFirstCase(i % 3)                                         // below-q0, empty, never
		rate := func() float64 { return 1e3 * math.Exp(rng.Float64()*math.Log(25e3)) } // kb/s, 1 Mb/s..25 Gb/s
		prev := max(uint32(rate()), uint32(cfg.MinRate/wire.HierCCRateUnit))           // R(t−1) is never below MinRate
		bytesAt := func(kbps float64) units.Bytes { return units.Bytes(kbps * float64(w) / 8e9) }
		a := bytesAt(rate() * float64(1+rng.Intn(16)))
		c := bytesAt(rate())
		q := units.Bytes(rng.Intn(2_000_000))
		if rng.Intn(4) == 0 {
			q = HierCCPaperQ0 + units.Bytes(rng.Intn(5000)) // near the target
		}
		st := hierccOneUpdate(t, cfg, prev, a, c, q)
		want, drain, rArr := hierccRefUpdate(cfg, float64(prev), float64(a), float64(c), float64(q), float64(w))
		got := float64(st.Rate)
		bound := 1.0
		if rArr > 0 {
			bound += (float64(prev)*(2+1.6e-5*math.Abs(drain)) + want) / rArr
		}
		require.LessOrEqual(t, math.Abs(got-want), bound, "case %d: prev %d a %d c %d q %d w %v", i, prev, a, c, q, w)
		require.GreaterOrEqual(t, st.Rate, uint32(cfg.MinRate/wire.HierCCRateUnit))
		require.LessOrEqual(t, st.Rate, uint32(cfg.LineRate/wire.HierCCRateUnit))
		if rArr >= 1e3 && want > 0 {
			worst = math.Max(worst, math.Abs(got-want)/want)
		}
	}
	t.Logf("largest relative error of one update (R_arrive ≥ 1 Mb/s): %.3g", worst)
	// R_arrive ≥ 1000 kb/s truncated by < 1 kb/s is < 1e-3 of it; with
	// R_credit's truncation, under 2e-3 (measured: 1.2e-3).
	require.Less(t, worst, 2e-3)
}

// TestHierCCFirstHopClosedForm: in steady state (Q = q0, N flows each at R(t−1)
// so that R_arrive = N·R(t−1)) equation (1) gives R_credit/N, whatever
// R(t−1) was: the paper's R(t) = R_credit(t)/N(t). N(t) reads N in
// UQ16.16.
func TestHierCCFirstHopClosedForm(t *testing.T) {
	cfg := hierccWideFirstHop(0)
	T := 10 * units.Microsecond
	for _, n := range []int{1, 2, 3, 7, 16, 100} {
		for _, prev := range []uint32{200_000, 1_000_000, 3_000_000} { // kb/s
			credit := units.Rate(20) * units.Gbps
			a := units.BytesIn(units.Rate(n)*units.Rate(prev)*wire.HierCCRateUnit, T)
			c := units.BytesIn(credit, T)
			st := hierccOneUpdate(t, cfg, prev, a, c, HierCCPaperQ0)
			want := float64(credit/wire.HierCCRateUnit) / float64(n)
			want = math.Min(math.Max(want, float64(cfg.MinRate/wire.HierCCRateUnit)), 25e6)
			// The bytes are whole: ≤ 1 B of 10 µs is 800 kb/s of R_arrive,
			// a relative 800/(N·prev) ≤ 0.4 %; the rest truncates by kb/s.
			require.InEpsilon(t, want, float64(st.Rate), 0.005, "N=%d prev=%d", n, prev)
			require.InEpsilon(t, float64(n), float64(st.N)/(1<<HierCCNFrac), 0.005, "N(t)")
		}
	}
}

// TestHierCCFirstHopCases: the first case, R_arrive = 0, a target ≤ 0, the
// clamp to the line rate.
func TestHierCCFirstHopCases(t *testing.T) {
	cfg := hierccWideFirstHop(0)
	line := uint32(25_000_000)
	// Below q0: line rate, whatever came before.
	st := hierccOneUpdate(t, cfg, 1000, 5000, 100, HierCCPaperQ0-1)
	require.Equal(t, line, st.Rate)
	// Empty reading: between 0 and q0 the equation runs (a negative drain
	// raises the rate); at 0 it is line rate.
	e := cfg
	e.FirstCase = HierCCEmpty
	st = hierccOneUpdate(t, e, 1_000_000, 12_500, 12_500, HierCCPaperQ0/2)
	// R_arrive = R_credit = 10 Gb/s; drain = −0.2·10 KB/2 µs = −8 Gb/s:
	// R = 1 Gb/s·18/10 = 1.8 Gb/s; β's Q0.16 rounding takes 1.53e-5 of
	// the 8 Gb/s drain (122 kb/s), 12.2 kb/s of R.
	require.InDelta(t, 1_800_000, float64(st.Rate), 15)
	st = hierccOneUpdate(t, e, 1000, 5000, 100, 0)
	require.Equal(t, line, st.Rate)
	// Never: even an empty VOQ runs the equation: R_arrive = 4 Gb/s (5000 B
	// in 10 µs), R_credit = 80 Mb/s, drain −0.2·20 KB/2 µs = −16 Gb/s:
	// R = 1 Gb/s·(0.08 + 16)/4 = 4.02 Gb/s (the drain's Q0.16 rounding
	// takes 245 kb/s of the 16 Gb/s, 61 kb/s of R; truncations 2 kb/s).
	nv := cfg
	nv.FirstCase = HierCCNever
	st = hierccOneUpdate(t, nv, 1_000_000, 5000, 100, 0)
	require.InDelta(t, 4_020_000, float64(st.Rate), 64)
	// No arrivals: R keeps its value.
	st = hierccOneUpdate(t, cfg, 1234, 0, 5000, HierCCPaperQ0+5000)
	require.Equal(t, uint32(1234), st.Rate)
	require.Zero(t, st.N)
	// Drain above the credit rate: the floor MinRate = line/256.
	st = hierccOneUpdate(t, cfg, 1_000_000, 5000, 100, 1_000_000)
	require.Equal(t, uint32(25_000_000/256), st.Rate)
	// A quotient above line rate: clamped.
	st = hierccOneUpdate(t, cfg, 20_000_000, 100, 30_000, HierCCPaperQ0)
	require.Equal(t, line, st.Rate)
	// β in Q0.16 and the period RTT_hop/β.
	f, err := newHierCCFirstHop(HierCCPaperFirstHop(hierccLine25))
	require.NoError(t, err)
	require.Equal(t, uint32(13107), f.BetaQ16())
	require.Equal(t, 10*units.Microsecond, f.Period())
	require.InDelta(t, 0.2, float64(HierCCPaperBetaQ16)/65536, 3.1e-6)
}

// TestHierCCFirstHopStopResume: stop above V_high (advertised 0), R frozen
// through updates while stopped, resume below V_low with the frozen rate.
func TestHierCCFirstHopStopResume(t *testing.T) {
	f, err := newHierCCFirstHop(HierCCPaperFirstHop(hierccLine25))
	require.NoError(t, err)
	f.st.Rate = 3_000_000
	stopped, err := f.Arrive(1, 1000, HierCCPaperVHigh) // at V_high: not above
	require.NoError(t, err)
	require.False(t, stopped)
	stopped, err = f.Arrive(2, 1000, HierCCPaperVHigh+1)
	require.NoError(t, err)
	require.True(t, stopped)
	require.Zero(t, f.Rate())
	require.True(t, f.Stopped())
	stopped, _ = f.Arrive(3, 1000, HierCCPaperVHigh+2)
	require.False(t, stopped, "already stopped")
	// An update while stopped keeps R.
	_, err = f.Timer(f.NextDeadline(), HierCCPaperVHigh)
	require.NoError(t, err)
	require.Equal(t, uint32(3_000_000), f.State().Rate)
	resumed, err := f.Depart(20*units.Microsecond, HierCCPaperVLow) // not below
	require.NoError(t, err)
	require.False(t, resumed)
	resumed, err = f.Depart(21*units.Microsecond, HierCCPaperVLow-1)
	require.NoError(t, err)
	require.True(t, resumed)
	require.Equal(t, 3*units.Gbps, f.Rate())
	require.Equal(t, uint64(1), f.State().Stops)
}

// TestHierCCFirstHopUpdateWhileStopped: with UpdateWhileStopped the update
// runs while the VOQ is stopped (nothing advertised), and the resume
// sends its result, not the rate before the stop.
func TestHierCCFirstHopUpdateWhileStopped(t *testing.T) {
	cfg := HierCCPaperFirstHop(hierccLine25)
	cfg.UpdateWhileStopped = true
	f, err := newHierCCFirstHop(cfg)
	require.NoError(t, err)
	f.st.Rate = 3_000_000
	stopped, err := f.Arrive(1, 100_000, HierCCPaperVHigh+1)
	require.NoError(t, err)
	require.True(t, stopped)
	require.NoError(t, f.Credit(2, 25_000))
	// Over the 10 µs window: R_arrive = 80 Gb/s, R_credit = 20 Gb/s, the
	// drain of Q − q0 = 50 KB + 1 B is 0.2·50001/2 µs = 40.0008 Gb/s >
	// R_credit: R = MinRate = line/256.
	_, err = f.Timer(f.NextDeadline(), HierCCPaperVHigh+1)
	require.NoError(t, err)
	require.Zero(t, f.Rate(), "nothing advertised while stopped")
	require.Equal(t, uint32(25_000_000/256), f.State().Rate)
	resumed, err := f.Depart(11*units.Microsecond, HierCCPaperVLow-1)
	require.NoError(t, err)
	require.True(t, resumed)
	require.Equal(t, units.Rate(25_000_000/256)*wire.HierCCRateUnit, f.Rate(), "the resume sends the latest R")
}

// TestHierCCFirstHopTimerGrid: early timers change nothing but the time; a
// late one runs every update it missed, each at its own deadline on the
// grid (three, at T, 2T and 3T, for a timer at 3T + 5), so that the
// window it leaves open starts at 3T.
func TestHierCCFirstHopTimerGrid(t *testing.T) {
	f, err := newHierCCFirstHop(HierCCPaperFirstHop(hierccLine25))
	require.NoError(t, err)
	T := f.Period()
	up, err := f.Timer(T-1, 0)
	require.NoError(t, err)
	require.False(t, up)
	require.Equal(t, T, f.NextDeadline())
	up, err = f.Timer(3*T+5, 0)
	require.NoError(t, err)
	require.True(t, up)
	require.Equal(t, 4*T, f.NextDeadline())
	require.Equal(t, 3*T, f.State().WindowStart)
	require.Equal(t, uint64(3), f.State().Updates)
	// Time going back, and bad values, are refused and change nothing.
	before := f.AppendRegisters(nil)
	_, err = f.Timer(T, 0)
	require.ErrorIs(t, err, cc.ErrTimeOrder)
	_, err = f.Arrive(4*T, 0, 0)
	require.ErrorIs(t, err, cc.ErrEvent)
	_, err = f.Arrive(4*T, 1, -1)
	require.ErrorIs(t, err, cc.ErrEvent)
	require.ErrorIs(t, f.Credit(4*T, 0), cc.ErrEvent)
	_, err = f.Depart(4*T, 1<<32)
	require.ErrorIs(t, err, cc.ErrEvent)
	require.Equal(t, before, f.AppendRegisters(nil))
}

// TestHierCCFirstHopRateInRange: a property over random event sequences (any
// arrivals, credits, queue lengths and timer times): the advertised rate
// is always in [0, line rate], and R(t) in [MinRate, line rate].
func TestHierCCFirstHopRateInRange(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	cfg := HierCCPaperFirstHop(hierccLine25)
	for range 200 {
		f, err := newHierCCFirstHop(cfg)
		require.NoError(t, err)
		now := units.Time(0)
		q := units.Bytes(0)
		for range 300 {
			now += units.Time(rng.Intn(20_000_000))
			switch rng.Intn(4) {
			case 0:
				n := units.Bytes(1 + rng.Intn(9000))
				q += n
				_, err = f.Arrive(now, n, q)
			case 1:
				err = f.Credit(now, units.Bytes(1+rng.Intn(100_000)))
			case 2:
				q = max(q-units.Bytes(rng.Intn(20_000)), 0)
				_, err = f.Depart(now, q)
			default:
				_, err = f.Timer(now, q)
			}
			require.NoError(t, err)
			require.GreaterOrEqual(t, f.Rate(), units.Rate(0))
			require.LessOrEqual(t, f.Rate(), hierccLine25)
			st := f.State()
			require.GreaterOrEqual(t, st.Rate, uint32(cfg.MinRate/wire.HierCCRateUnit))
			require.LessOrEqual(t, st.Rate, uint32(25_000_000))
		}
	}
}

// TestHierCCFirstHopConfig: each field out of range is a *cc.ConfigError naming
// it.
func TestHierCCFirstHopConfig(t *testing.T) {
	base := HierCCPaperFirstHop(hierccLine25)
	require.NoError(t, base.Validate())
	for field, mutate := range map[string]func(c *HierCCFirstHopConfig){
		"LineRate":  func(c *HierCCFirstHopConfig) { c.LineRate = 1500 },
		"MinRate":   func(c *HierCCFirstHopConfig) { c.MinRate = 0 },
		"Beta":      func(c *HierCCFirstHopConfig) { c.Beta = 1 },
		"RTTHop":    func(c *HierCCFirstHopConfig) { c.RTTHop = 0 },
		"Period":    func(c *HierCCFirstHopConfig) { c.Period = -1 },
		"VHigh":     func(c *HierCCFirstHopConfig) { c.VHigh = 0 },
		"VLow":      func(c *HierCCFirstHopConfig) { c.VLow = c.VHigh },
		"Q0":        func(c *HierCCFirstHopConfig) { c.Q0 = c.VLow },
		"FirstCase": func(c *HierCCFirstHopConfig) { c.FirstCase = 9 },
	} {
		c := base
		mutate(&c)
		_, err := newHierCCFirstHop(c)
		var ce *cc.ConfigError
		require.ErrorAs(t, err, &ce, field)
		require.Equal(t, field, ce.Field)
	}
}

// TestHierCCFirstHopLateClosedForm: k missed updates run in closed form
// (expire) leave exactly the registers of k updates run one by one at
// their deadlines, over random windows, queue lengths, stops and first
// cases, for k up to 40.
func TestHierCCFirstHopLateClosedForm(t *testing.T) {
	rng := rand.New(rand.NewSource(8))
	for _, fc := range []HierCCFirstCase{HierCCBelowQ0, HierCCEmpty, HierCCNever} {
		for _, upd := range []bool{false, true} {
			cfg := HierCCPaperFirstHop(hierccLine25)
			cfg.FirstCase, cfg.UpdateWhileStopped = fc, upd
			for range 50 {
				a, err := newHierCCFirstHop(cfg)
				require.NoError(t, err)
				b, err := newHierCCFirstHop(cfg)
				require.NoError(t, err)
				T := a.Period()
				q := units.Bytes(rng.Intn(90_000))
				n, c := units.Bytes(1+rng.Intn(9000)), units.Bytes(1+rng.Intn(9000))
				for _, f := range []*hierccFirstHop{a, b} {
					_, err = f.Arrive(T/3, n, q) // may stop above V_high
					require.NoError(t, err)
					require.NoError(t, f.Credit(T/2, c))
				}
				k := 1 + rng.Intn(40)
				for i := 1; i <= k; i++ {
					up, err := a.Timer(units.Time(i)*T, q)
					require.NoError(t, err)
					require.True(t, up)
				}
				up, err := b.Timer(units.Time(k)*T+T/7, q)
				require.NoError(t, err)
				require.True(t, up)
				// b's clock is later (T/7 after the last deadline): compare the rest.
				require.Equal(t, a.State(), b.State(), "first case %v, update while stopped %v, %d updates", fc, upd, k)
			}
		}
	}
}
