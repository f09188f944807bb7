package window

import (
	"math"
	"math/big"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/fixedpoint"
	"github.com/hwcc/hwcc/hwtables"
	"github.com/hwcc/hwcc/units"
)

// refLaw is the real-valued window law of Algorithm 1 (function ComputeWind,
// lines 11–20) in float64: the oracle the integer Law is compared with. It
// shares nothing with the code under test but the paper's pseudocode and
// the documented choices (clamp to [min, max] before the commit; U = 0 reads
// as an infinite MI factor, so W = max).
type refLaw struct {
	eta      float64 // η
	ai       float64 // W_AI, bytes
	min, max float64 // W_min, W_max, bytes
	maxStage int
}

// refReference is the oracle's Wc and incStage.
type refReference struct {
	wc    float64
	stage int
}

func newRefLaw(c Config) refLaw {
	max := c.Max
	if max == 0 {
		max = c.Init
	}
	return refLaw{
		eta:      qFloat(c.Eta),
		ai:       float64(c.AI),
		min:      float64(c.Min),
		max:      float64(max),
		maxStage: c.MaxStage,
	}
}

// compute is ComputeWind(U, updateWc) in real numbers. mi reports which
// branch ran (true: line 13).
func (l refLaw) compute(r *refReference, u float64, commit bool) (w float64, mi bool) {
	if u >= l.eta || r.stage >= l.maxStage { // 12
		if u == 0 {
			w = l.max
		} else {
			w = r.wc/(u/l.eta) + l.ai // 13
		}
		w = l.clamp(w)
		if commit { // 14
			r.stage, r.wc = 0, w // 15
		}
		return w, true
	}
	w = l.clamp(r.wc + l.ai) // 17
	if commit {              // 18
		r.stage++ // 19
		r.wc = w
	}
	return w, false
}

func (l refLaw) clamp(w float64) float64 { return math.Min(math.Max(w, l.min), l.max) }

// qFloat is the exact value of a UQ32_32 (every raw value below 2^53 is
// exact in float64; above it the rounding is 2^-53 relative).
func qFloat(q fixedpoint.UQ32_32) float64 { return float64(q) / (1 << 32) }

// divBound returns the relative error bounds (over, under) of d's quotient
// as stated on Divider: (1 + Over)/(1 − 2^-22) − 1 and
// 1 − (1 − Under)/(1 + 2^-22); zero for the native divide.
func divBound(d Divider) (over, under float64) {
	if d.Native() {
		return 0, 0
	}
	b := d.Table().Bound()
	norm := math.Ldexp(1, -22)
	return (1+b.Over)/(1-norm) - 1, 1 - (1-b.Under)/(1+norm)
}

// exactQuo returns (hi·2^64 + lo)/n as a big.Float with 256-bit precision
// (exact enough to compare with any uint64 quotient bound).
func exactQuo(hi, lo, n uint64) *big.Float {
	a := new(big.Int).Lsh(new(big.Int).SetUint64(hi), 64)
	a.Or(a, new(big.Int).SetUint64(lo))
	fa := new(big.Float).SetPrec(256).SetInt(a)
	return fa.Quo(fa, new(big.Float).SetPrec(256).SetUint64(n))
}

// withinDivBound reports whether q satisfies the Divider's bound for the
// exact quotient x: x·(1 − under) − 2 < q ≤ x·(1 + over), with the native
// divide's floor as the special case over = under = 0 (x − 1 < q ≤ x).
func withinDivBound(q uint64, x *big.Float, over, under float64) bool {
	fq := new(big.Float).SetPrec(256).SetUint64(q)
	hiB := new(big.Float).SetPrec(256).Mul(x, big.NewFloat(1+over).SetPrec(256))
	loB := new(big.Float).SetPrec(256).Mul(x, big.NewFloat(1-under).SetPrec(256))
	loB.Sub(loB, big.NewFloat(2))
	return fq.Cmp(hiB) <= 0 && fq.Cmp(loB) > 0
}

// refQuo and refQuo128 are Divider.Quo and Quo128 as they were written
// before the branch-free normalisation, kept as the oracle of the fast
// forms (TestDividerMatchesReference).
func refQuo(d Divider, a, n uint64) uint64 {
	if n == 0 {
		return math.MaxUint64
	}
	if d.native {
		return a / n
	}
	s := refNormShift(n)
	if s == 0 {
		return d.table.DivFast(a, n)
	}
	return d.table.DivFast(a, refRoundShift(n, s)) >> s
}

func refQuo128(d Divider, hi, lo, n uint64) uint64 {
	if n == 0 || hi >= n {
		return math.MaxUint64
	}
	if d.native {
		q, _ := bits.Div64(hi, lo, n)
		return q
	}
	s := refNormShift(n)
	if s > 0 {
		lo = hi<<(64-s) | lo>>s
		hi >>= s
		n = refRoundShift(n, s)
	}
	if hi != 0 {
		return math.MaxUint64
	}
	return d.table.DivFast(lo, n)
}

// refRoundShift is the rounding of normDivisor as it was written before,
// for s ≥ 1 only.
func refRoundShift(n uint64, s uint) uint64 {
	return n>>s + n>>(s-1)&1
}

func refNormShift(n uint64) uint {
	l := uint(bits.Len64(n))
	if l <= divisorBits {
		return 0
	}
	return l - divisorBits
}

// TestDividerMatchesReference: Quo and Quo128 equal their reference forms
// on seeded draws over every divisor width, around the normalisation's
// edges (2^22 ± 1, rounding ties) and at 0.
func TestDividerMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 2))
	ds := []Divider{NewDivider(nil, false), NewDivider(hwtables.DefaultCompact(), false), NewDivider(nil, true)}
	ns := []uint64{0, 1, 2, 3, 1<<22 - 1, 1 << 22, 1<<22 + 1, 1<<23 - 1, 1 << 23, 1<<23 + 1, 3 << 22, 1<<63 - 1, 1 << 63, math.MaxUint64}
	for range 200000 {
		n := rng.Uint64() >> rng.UintN(64)
		ns = append(ns, n, n|1<<22>>rng.UintN(3))
	}
	for _, d := range ds {
		for i, n := range ns {
			a := rng.Uint64() >> rng.UintN(64)
			hi := rng.Uint64() >> rng.UintN(65)
			if i&3 == 0 && n > 0 {
				hi %= n // mostly quotients that fit
			}
			if got, want := d.Quo(a, n), refQuo(d, a, n); got != want {
				t.Fatalf("native=%v Quo(%d, %d) = %d, reference %d", d.native, a, n, got, want)
			}
			if got, want := d.Quo128(hi, a, n), refQuo128(d, hi, a, n); got != want {
				t.Fatalf("native=%v Quo128(%d, %d, %d) = %d, reference %d", d.native, hi, a, n, got, want)
			}
		}
	}
}

// TestRateMatchesMulU64: Law.Rate, which spells the UQ32_32 product out,
// equals rateMul.MulU64 (saturated at the largest units.Rate) for W over
// every width, at several T.
func TestRateMatchesMulU64(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 27))
	for _, T := range []units.Time{MinT, 9 * units.Microsecond, 13 * units.Microsecond, MaxT} {
		c := paperSim()
		c.T = T
		l, err := NewLaw(c)
		require.NoError(t, err)
		ws := []units.Bytes{math.MinInt64, -1, 0, 1, 2, MaxWindow, math.MaxInt64}
		for range 100000 {
			ws = append(ws, units.Bytes(rng.Uint64()>>rng.UintN(64)>>1))
		}
		for _, w := range ws {
			want := units.Rate(0)
			if w > 0 {
				want = units.Rate(min(l.rateMul.MulU64(uint64(w)), math.MaxInt64))
			}
			require.Equal(t, want, l.Rate(w), "T = %v, W = %d", T, w)
		}
	}
}

// TestUpdateMatchesComputeWind: Window.Update, which writes ComputeWind, the
// divider's Quo and Rate out in one function and skips ComputeWind's guard
// of a hand-filled Wc, leaves every register where ComputeWind on the
// window's reference, the commit's bookkeeping and Rate leave them, over
// random U (zero, tiny, around η, huge), commits and sequences, with the
// default and compact tables and the native divide, at several maxStage,
// W_AI and W_max.
func TestUpdateMatchesComputeWind(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 99))
	for _, mod := range []func(*Config){
		func(*Config) {},
		func(c *Config) { c.Table = hwtables.DefaultCompact() },
		func(c *Config) { c.NativeDivision = true },
		func(c *Config) { c.MaxStage = 0 },
		func(c *Config) { c.MaxStage = MaxStageLimit; c.AI = 0 },
		func(c *Config) { c.Max = MaxWindow; c.AI = 1 << 20 },
		func(c *Config) { c.Min, c.Init, c.Max, c.AI = 1, 1, 1, 1 },
	} {
		c := paperSim()
		mod(&c)
		w, err := New(c)
		require.NoError(t, err)
		l := w.Law()
		for range 20000 {
			u := randomU(rng)
			commit := rng.IntN(3) == 0
			seq := rng.Uint64()
			// The reference: ComputeWind on a copy of the reference, then
			// lines 24 and 27 as Update documents them.
			ref, want := w.State(), w.State()
			r := Reference{Wc: ref.Wc, IncStage: ref.IncStage}
			want.W = l.ComputeWind(&r, u, commit)
			want.Wc, want.IncStage = r.Wc, r.IncStage
			if commit {
				want.LastUpdateSeq = seq
				want.Commits++
			}
			want.Rate = l.Rate(want.W)
			require.Equal(t, want.W, w.Update(u, commit, seq), "config %+v, state %+v, U %v", c, ref, u)
			require.Equal(t, want, w.State(), "config %+v, state %+v, U %v", c, ref, u)
		}
	}
}

// TestQuoLanesMatchesQuo128: the lanes form equals Quo128 on each lane, in
// every mode, including the saturating cases, touches no lane at or beyond
// k (k clamped to [0, MaxLanes]: k < 0 divides none, k > MaxLanes all),
// and allocates nothing.
func TestQuoLanesMatchesQuo128(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 160))
	for _, d := range []Divider{NewDivider(nil, false), NewDivider(hwtables.DefaultCompact(), false), NewDivider(nil, true)} {
		for range 20000 {
			var l Lanes
			for i := range MaxLanes {
				l.N[i] = rng.Uint64() >> rng.UintN(64)
				l.Lo[i] = rng.Uint64()
				l.Hi[i] = rng.Uint64() >> rng.UintN(65)
				if rng.IntN(4) != 0 && l.N[i] > 0 {
					l.Hi[i] %= l.N[i]
				}
				l.Q[i] = 12345
			}
			l.N[0] = uint64(rng.IntN(2)) << 22 // 0 or 2^22
			k := rng.IntN(MaxLanes+7) - 3      // -3 .. MaxLanes+3
			want := l
			for i := range min(max(k, 0), MaxLanes) {
				want.Q[i] = refQuo128(d, l.Hi[i], l.Lo[i], l.N[i])
			}
			d.QuoLanes(&l, k)
			require.Equal(t, want, l, "native=%v k=%d", d.native, k)
		}
	}
	var l Lanes
	require.Zero(t, testing.AllocsPerRun(100, func() { NewDivider(nil, false).QuoLanes(&l, 5) }))
}
