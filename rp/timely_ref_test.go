package rp_test

import (
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/rp"
	"github.com/hwcc/hwcc/units"
)

// timelyModel is Algorithm 1 of the TIMELY paper (section 4.3) in float64,
// written from the paper and not from the integer code: the independent
// reference the integer RP is compared with. It takes the same RTT
// samples in ns. Its rates are in kb/s with the configuration's rates,
// thresholds and minRTT as the registers hold them (whole kb/s and ns:
// the register units, not an approximation being tested), and α and β
// exact (their Q0.16 rounding is part of what the bounds cover).
type timelyModel struct {
	line, floor, delta         float64 // kb/s
	tlow, thigh, minRTT        float64 // ns
	alpha, beta                float64
	haiAt, n                   int
	rate, prev, diff, gradient float64
	started                    bool
	incs                       int
}

type timelyBranch int

const (
	timelyLow timelyBranch = iota
	timelyHigh
	timelyGradInc
	timelyGradDec
)

func newTIMELYModel(c rp.TIMELYConfig) *timelyModel {
	return &timelyModel{
		line:   float64(c.LineRate / rp.TIMELYRateUnit),
		floor:  float64(c.MinRate / rp.TIMELYRateUnit),
		delta:  float64(c.Delta / rp.TIMELYRateUnit),
		tlow:   float64(c.Tlow / units.Nanosecond),
		thigh:  float64(c.Thigh / units.Nanosecond),
		minRTT: float64(c.MinRTT / units.Nanosecond),
		alpha:  c.Alpha,
		beta:   c.Beta,
		haiAt:  c.HAIThreshold,
		n:      c.HAIFactor,
		rate:   float64(c.InitialRate / rp.TIMELYRateUnit),
	}
}

// step runs Algorithm 1 on rtt (ns) and returns the branch it took.
func (m *timelyModel) step(rtt float64) timelyBranch {
	if !m.started {
		m.prev, m.started = rtt, true
	}
	newDiff := rtt - m.prev
	m.prev = rtt
	m.diff = (1-m.alpha)*m.diff + m.alpha*newDiff
	m.gradient = m.diff / m.minRTT
	var b timelyBranch
	switch {
	case rtt < m.tlow:
		m.rate += m.delta
		m.incs++
		b = timelyLow
	case rtt > m.thigh:
		m.rate *= 1 - m.beta*(1-m.thigh/rtt)
		m.incs = 0
		b = timelyHigh
	case m.gradient <= 0:
		m.incs++
		if m.incs >= m.haiAt {
			m.rate += float64(m.n) * m.delta
		} else {
			m.rate += m.delta
		}
		b = timelyGradInc
	default:
		m.rate *= 1 - m.beta*m.gradient
		m.incs = 0
		b = timelyGradDec
	}
	m.rate = math.Max(math.Min(m.rate, m.line), m.floor)
	return b
}

// timelyBranchOf is the branch the integer RP took, read from its registers
// after the sample.
func timelyBranchOf(c rp.TIMELYConfig, rtt uint32, s rp.TIMELYState) timelyBranch {
	switch {
	case rtt < uint32(c.Tlow/units.Nanosecond):
		return timelyLow
	case rtt > uint32(c.Thigh/units.Nanosecond):
		return timelyHigh
	case s.RTTDiff <= 0:
		return timelyGradInc
	}
	return timelyGradDec
}

// timelyTracker runs the integer RP and the float model on the same samples and
// checks, sample by sample, that they stay within a bound derived from the
// integer path's roundings (RP's doc, "Integer form"):
//
//	EWMA: the integer rtt_diff is the exact update with αQ/2^16 for α,
//	floored. With a = αQ/2^16 and D the bound on |diff_f − diff_i| before
//	the sample, the exact update of each differs by (1−α)(diff_f − diff_i)
//	+ (α − a)(new_rtt_diff − diff_i), and the floor adds [0, 1):
//	    D' = (1−α)·D + |α − a|·|new_rtt_diff − diff_i| + 1.
//	Gradient: g_i = floor(diff_i·ρ/2^24)/2^16 with ρ = round(2^40/minRTT):
//	    |g_f − g_i| ≤ D'/minRTT + |diff_i|·|1/minRTT − ρ/2^40| + 2^−16.
//	Thigh factor: f_i = floor((rtt − Thigh)·2^16/rtt)/2^16: |f_f − f_i| < 2^−16.
//	Decrease: R_i' = R_i − floor(R_i·m/2^16), m = floor(βQ·f_i·2^16/2^16),
//	so with x_f = β·f_f and x_i = m/2^16,
//	    |x_f − x_i| ≤ |β − βQ/2^16|·f_f + (βQ/2^16)·|f_f − f_i| + 2^−16,
//	    R_i' − R_f' = (R_i − R_f)(1 − x_f) + R_i(x_f − x_i) + [0, 1):
//	    B' = B·|1 − x_f| + R_i·|x_f − x_i| + 1.
//	Increase: both add the same whole kb/s: B' = B.
//	The clamp to [MinRate, LineRate] is 1-Lipschitz and keeps B.
//
// The branches agree while they read the same sign of rtt_diff (the RTT
// thresholds compare the same integer ns); the signs can differ only when
// |diff_f| ≤ D'. Such a sample resynchronises the model to the registers
// (rate, rtt_diff, the increase count) and the bounds restart at 0; the
// tracker counts them.
type timelyTracker struct {
	t       testing.TB
	cfg     rp.TIMELYConfig
	rp      *rp.TIMELY
	m       *timelyModel
	B, D    float64
	resyncs int
	// divergedAt is the model's rtt_diff at the latest divergence.
	divergedAt float64
	steps      int
	worst      float64 // the largest |R_i − R_f|/B seen (≤ 1)
	now        units.Time
	rho        float64
	betaQ      float64
	alphaQ     float64
}

func newTIMELYTracker(t testing.TB, c rp.TIMELYConfig) *timelyTracker {
	part, err := rp.NewTIMELY(c)
	require.NoError(t, err)
	return &timelyTracker{t: t, cfg: c, rp: part, m: newTIMELYModel(c),
		rho: float64(part.Rho()), betaQ: float64(part.BetaQ()) / rp.TIMELYQOne, alphaQ: float64(part.AlphaQ()) / rp.TIMELYQOne}
}

// step feeds rtt (ns) to both and checks the bounds; it returns false
// (after reporting) on a violation.
func (tr *timelyTracker) step(rtt uint32) bool {
	tr.steps++
	before := tr.rp.State()
	Ri := float64(before.Rate)
	tr.now += units.Microsecond
	if err := tr.rp.OnRTT(tr.now, units.Time(rtt)*units.Nanosecond); err != nil {
		tr.t.Errorf("OnRTT: %v", err)
		return false
	}
	s := tr.rp.State()
	// The EWMA bound, from the integer's own operands.
	prevI := float64(before.PrevRTT)
	if !before.Started {
		prevI = float64(rtt)
	}
	nd := float64(rtt) - prevI
	tr.D = (1-tr.m.alpha)*tr.D + math.Abs(tr.m.alpha-tr.alphaQ)*math.Abs(nd-float64(before.RTTDiff)) + 1
	bm := tr.m.step(float64(rtt))
	bi := timelyBranchOf(tr.cfg, rtt, s)
	if d := math.Abs(tr.m.diff - float64(s.RTTDiff)); d > tr.D+1e-9*math.Abs(tr.m.diff) {
		tr.t.Errorf("step %d: rtt_diff %d, model %.4f: |Δ| %.4f above the bound %.4f", tr.steps, s.RTTDiff, tr.m.diff, d, tr.D)
		return false
	}
	if bm != bi {
		if (bm == timelyGradInc || bm == timelyGradDec) && (bi == timelyGradInc || bi == timelyGradDec) && math.Abs(tr.m.diff) <= tr.D {
			tr.resync(s)
			return true
		}
		tr.t.Errorf("step %d (rtt %d ns): branch %d, model %d (diff %d / %.4f)", tr.steps, rtt, bi, bm, s.RTTDiff, tr.m.diff)
		return false
	}
	switch bm {
	case timelyHigh, timelyGradDec:
		var f, ef float64
		if bm == timelyHigh {
			f, ef = 1-tr.m.thigh/float64(rtt), math.Ldexp(1, -16)
		} else {
			f = tr.m.gradient
			ef = tr.D/tr.m.minRTT + math.Abs(float64(s.RTTDiff))*math.Abs(1/tr.m.minRTT-tr.rho/math.Ldexp(1, 40)) + math.Ldexp(1, -16)
		}
		if f >= 1<<15 { // the gradient register saturates; β·f ≥ 32: both cut to 0, then MinRate
			tr.B = 0
			if float64(s.Rate) != tr.m.rate {
				tr.t.Errorf("step %d: β·f = %g: rate %d, model %g", tr.steps, tr.m.beta*f, s.Rate, tr.m.rate)
				return false
			}
			break
		}
		xf := tr.m.beta * f
		dx := math.Abs(tr.m.beta-tr.betaQ)*f + tr.betaQ*ef + math.Ldexp(1, -16)
		tr.B = tr.B*math.Abs(1-xf) + Ri*dx + 1
	}
	diff := math.Abs(float64(s.Rate) - tr.m.rate)
	// 1e-12·R: float64's own rounding in the model.
	if diff > tr.B+1e-12*tr.m.rate {
		tr.t.Errorf("step %d (rtt %d ns, branch %d): rate %d kb/s, model %.3f: |Δ| %.3f above the bound %.3f",
			tr.steps, rtt, bi, s.Rate, tr.m.rate, diff, tr.B)
		return false
	}
	if tr.B > 0 {
		tr.worst = math.Max(tr.worst, diff/tr.B)
	}
	if s.Increases != uint8(min(tr.m.incs, 255)) {
		tr.t.Errorf("step %d: increases %d, model %d", tr.steps, s.Increases, tr.m.incs)
		return false
	}
	return true
}

func (tr *timelyTracker) resync(s rp.TIMELYState) {
	tr.resyncs++
	tr.divergedAt = tr.m.diff
	tr.m.rate, tr.m.diff, tr.m.incs = float64(s.Rate), float64(s.RTTDiff), int(s.Increases)
	tr.B, tr.D = 0, 0
}

// timelyRTTWalk is a random RTT trajectory (ns) that visits every region: a
// random walk with steps up to ±step, jumps now and then, clamped to
// [lo, hi].
func timelyRTTWalk(r *rand.Rand, n int, lo, hi, step int64) []uint32 {
	out := make([]uint32, n)
	x := lo + r.Int64N(hi-lo)
	for i := range out {
		switch r.IntN(40) {
		case 0:
			x = lo + r.Int64N(hi-lo) // a jump
		case 1, 2, 3: // a plateau: the same sample again
		default:
			x += r.Int64N(2*step+1) - step
		}
		x = max(min(x, hi), lo)
		out[i] = uint32(x)
	}
	return out
}

// timelyTrackConfigs are the configurations the tracking tests run: the paper's
// (α = 0.875 exact in Q0.16, β = 0.8 not), and ones with an inexact α, a
// large minRTT (ρ far from a power of two), β small, HAI after 2 with N =
// 9, and rates near the register's top.
func timelyTrackConfigs() map[string]rp.TIMELYConfig {
	odd := rp.TIMELYScaled(100 * units.Gbps)
	odd.Alpha, odd.Beta, odd.MinRTT = 0.3, 0.37, 317*units.Microsecond
	odd.HAIThreshold, odd.HAIFactor = 2, 9
	small := rp.TIMELYPaper(10 * units.Gbps)
	small.Alpha, small.Beta, small.MinRTT, small.Tlow = 0.02, 1.0/1024, 3*units.Microsecond, 0
	big := rp.TIMELYScaled(4 * units.Tbps)
	big.InitialRate = big.LineRate / 3
	low := rp.TIMELYPaper(10 * units.Gbps)
	low.InitialRate = 100 * units.Mbps
	return map[string]rp.TIMELYConfig{"paper-10G": rp.TIMELYPaper(10 * units.Gbps), "paper-10G-low": low, "odd-100G": odd, "small-gains": small, "4T": big}
}

// The integer path tracks the float model of Algorithm 1 on long random
// RTT trajectories, within the bound the tracker derives; the branches
// diverge (rtt_diff within rounding of 0) on few samples.
func TestTIMELYTracksFloatModel(t *testing.T) {
	for name, c := range timelyTrackConfigs() {
		t.Run(name, func(t *testing.T) {
			tr := newTIMELYTracker(t, c)
			r := rand.New(rand.NewPCG(11, 5))
			thigh := int64(c.Thigh / units.Nanosecond)
			for _, w := range []struct{ lo, hi, step int64 }{
				{0, 3 * thigh, 20_000},                           // everywhere
				{int64(c.Tlow / units.Nanosecond), thigh, 2_000}, // the gradient region
				{thigh / 2, 2 * thigh, 50_000},                   // around Thigh
				{0, math.MaxInt32, 1 << 28},                      // the register's whole range
			} {
				for _, rtt := range timelyRTTWalk(r, 5000, w.lo, w.hi, w.step) {
					if !tr.step(rtt) {
						t.FailNow()
					}
				}
			}
			t.Logf("%d samples, %d resyncs, worst |Δ|/bound %.3f, %d HAI steps", tr.steps, tr.resyncs, tr.worst, tr.rp.State().HAISteps)
			require.Less(t, tr.resyncs, tr.steps/50, "the branches diverge only with rtt_diff within rounding of 0")
		})
	}
}

// One step from arbitrary states: the integer and the model start from
// the same registers (rate, prev_rtt, rtt_diff, the increase count) and
// take one sample; the rate differs by at most the tracker's one-step
// bound (B = 0 before), the branch only when the model's rtt_diff is
// within the EWMA bound D of 0 (with α = 0.875, exact in Q0.16: in (0, 1)
// ns, which the integer's floor takes to 0).
func TestTIMELYOneStep(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	cfgs := timelyTrackConfigs()
	// In a fixed order: the configurations share r's draws, so that a
	// failure repeats.
	for _, name := range slices.Sorted(maps.Keys(cfgs)) {
		c := cfgs[name]
		part, err := rp.NewTIMELY(c)
		require.NoError(t, err)
		line, floor := uint32(c.LineRate/rp.TIMELYRateUnit), uint32(c.MinRate/rp.TIMELYRateUnit)
		for i := range 20000 {
			st := rp.TIMELYState{
				Rate:      floor + uint32(r.Int64N(int64(line-floor)+1)),
				PrevRTT:   uint32(r.Int64N(math.MaxInt32)),
				RTTDiff:   int32(r.Int64N(1<<21) - 1<<20),
				Increases: uint8(r.IntN(12)),
				Started:   true,
			}
			rtt := uint32(r.Int64N(3 * int64(c.Thigh/units.Nanosecond)))
			if i%3 == 0 { // near the previous sample: small gradients
				st.PrevRTT = rtt + uint32(r.IntN(64))
				st.RTTDiff = int32(r.IntN(129) - 64)
			}
			part.SetState(st)
			tr := newTIMELYTracker(t, c)
			tr.rp = part
			tr.m.rate, tr.m.prev, tr.m.diff, tr.m.incs, tr.m.started = float64(st.Rate), float64(st.PrevRTT), float64(st.RTTDiff), int(st.Increases), true
			tr.now = units.Time(i) * units.Millisecond
			require.True(t, tr.step(rtt), "%s: state %+v, rtt %d", name, st, rtt)
			if tr.resyncs > 0 && c.Alpha == rp.TIMELYPaperAlpha { // α exact: only the floor can move rtt_diff to ≤ 0
				require.True(t, tr.divergedAt > 0 && tr.divergedAt < 1, "%s: a branch divergence with model rtt_diff %g", name, tr.divergedAt)
			}
		}
	}
}

// Samples of exact powers and thresholds: at Tlow and at Thigh exactly
// the sample is in the gradient region (Algorithm 1 compares strictly).
func TestTIMELYThresholdsStrict(t *testing.T) {
	c := rp.TIMELYPaper(10 * units.Gbps)
	c.InitialRate = 5 * units.Gbps
	for _, x := range []units.Time{c.Tlow, c.Thigh} {
		r, err := rp.NewTIMELY(c)
		require.NoError(t, err)
		require.NoError(t, r.OnRTT(0, x))
		// First sample: rtt_diff 0, so the gradient region increases by δ.
		require.Equal(t, uint32(5_010_000), r.State().Rate, "%v", x)
		require.Equal(t, uint64(0), r.State().Decreases)
	}
}
