package fixedpoint

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/require"
)

// exactError returns c − Σterms computed with big.Rat, rounded once to
// float64 (exact whenever the true error is a float64).
func exactError(c float64, ts []Term) (float64, *big.Rat) {
	e := new(big.Rat).SetFloat64(c)
	e.Sub(e, ratOfTerms(ts))
	f, _ := e.Float64()
	return f, e
}

func TestCSDRoCCGains(t *testing.T) {
	// RoCC's gains (section VI): 1.5 = 2 − 2^-1 and 2.25 = 2 + 2^-2 are
	// exact with two terms (closed form); 0.3 and 0.45 are not dyadic, so
	// every expansion leaves an error, bounded by the grid: with 16 terms
	// and fracBits = 16 the error is at most half a grid step, 2^-17.
	for _, c := range []struct {
		gain  float64
		terms int
		want  string
		exact bool
	}{
		{1.5, 2, "2^1 - 2^-1", true},
		{2.25, 2, "2^1 + 2^-2", true},
		{0.3, 16, "", false},
		{0.45, 16, "", false},
	} {
		x, err := NewCSD(c.gain, 4, 16)
		require.NoError(t, err)
		if c.exact {
			require.Equal(t, c.want, x.String())
			require.Equal(t, 0.0, x.Error())
			require.Equal(t, c.gain, x.Value())
			require.Equal(t, c.terms, x.Len())
			continue
		}
		full, err := NewCSD(c.gain, MaxCSDTerms, 16)
		require.NoError(t, err)
		require.LessOrEqual(t, math.Abs(full.Error()), math.Ldexp(1, -17))
		// More terms never do worse.
		require.LessOrEqual(t, math.Abs(full.Error()), math.Abs(x.Error()))
	}
	// 0.3 with four terms, derived by hand taking each time the power of two
	// nearest the residual: 0.3 − 2^-2 = 0.05; 0.05 − 2^-4 = −0.0125;
	// −0.0125 + 2^-6 = 0.003125; 0.003125 − 2^-8 = −0.00078125. So
	// 2^-2 + 2^-4 - 2^-6 + 2^-8 = 0.30078125.
	x, err := NewCSD(0.3, 4, 16)
	require.NoError(t, err)
	require.Equal(t, "2^-2 + 2^-4 - 2^-6 + 2^-8", x.String())
	require.Equal(t, 0.30078125, x.Value())
	f, _ := exactError(0.3, x.Terms())
	require.Equal(t, f, x.Error())
	require.Equal(t, 0.3, x.Constant())
}

func TestCSDValidation(t *testing.T) {
	for _, c := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), 1 << 32, -(1 << 32)} {
		_, err := NewCSD(c, 4, 16)
		require.ErrorContains(t, err, "constant", "%v", c)
	}
	_, err := NewCSD(0.3, 0, 16)
	require.ErrorContains(t, err, "maxTerms 0")
	_, err = NewCSD(0.3, MaxCSDTerms+1, 16)
	require.ErrorContains(t, err, "maxTerms 17")
	_, err = NewCSD(0.3, 4, MaxCSDFracBits+1)
	require.ErrorContains(t, err, "fracBits 63")
	// Largest constant accepted.
	x, err := NewCSD(math.Nextafter(1<<32, 0), 1, 0)
	require.NoError(t, err)
	require.Equal(t, "2^32", x.String())

	// The zero CSD and c = 0 realise 0.
	var z CSD
	require.Equal(t, int64(0), z.Mul(math.MinInt64))
	require.Equal(t, int64(0), z.MulFloor(math.MaxInt64))
	require.Equal(t, "0", z.String())
	zero, err := NewCSD(0, 4, 8)
	require.NoError(t, err)
	require.Equal(t, 0, zero.Len())
	// A constant below half the finest step rounds to no terms at all.
	tiny, err := NewCSD(0.001, 4, 8)
	require.NoError(t, err)
	require.Equal(t, 0, tiny.Len())
	require.Equal(t, 0.001, tiny.Error())
}

// bruteBest returns the smallest |c − v| over every v = Σ d_e·2^e with
// digits d_e ∈ {−1, 0, 1}, e in [−fracBits, maxExp], and at most k nonzero
// digits: an exhaustive oracle, feasible for small grids.
func bruteBest(c float64, k int, fracBits, maxExp int) *big.Rat {
	cr := new(big.Rat).SetFloat64(c)
	n := fracBits + maxExp + 1
	var best *big.Rat
	digits := make([]int, n)
	var rec func(i, used int, v *big.Rat)
	rec = func(i, used int, v *big.Rat) {
		if i == n {
			e := new(big.Rat).Sub(cr, v)
			e.Abs(e)
			if best == nil || e.Cmp(best) < 0 {
				best = e
			}
			return
		}
		rec(i+1, used, v)
		if used == k {
			return
		}
		p := ratOfTerms([]Term{{Exp: int8(i - fracBits)}})
		for _, d := range []int{1, -1} {
			digits[i] = d
			nv := new(big.Rat)
			if d > 0 {
				nv.Add(v, p)
			} else {
				nv.Sub(v, p)
			}
			rec(i+1, used+1, nv)
		}
		digits[i] = 0
	}
	rec(0, 0, new(big.Rat))
	return best
}

// TestCSDMatchesExhaustiveSearch compares NewCSD's error with the best
// possible on small grids (constants in (−8, 8), shifts down to 2^-5,
// terms up to 2^4, 1 to 4 terms). A wider run (600 constants, 1 to 5 terms,
// fracBits 2, 3, 5, 6) also passed; it takes a minute, too long for CI.
func TestCSDMatchesExhaustiveSearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(propSeed, 1))
	cases := []float64{0.3, 0.45, 1.5, 2.25, 0.95, 1.0 / 3, -0.3, 7.9, 0.0155}
	for range 40 {
		cases = append(cases, (rng.Float64()*2-1)*8)
	}
	for _, c := range cases {
		for k := 1; k <= 4; k++ {
			for _, fb := range []uint{3, 5} {
				x, err := NewCSD(c, k, fb)
				require.NoError(t, err)
				_, got := exactError(c, x.Terms())
				got.Abs(got)
				want := bruteBest(c, k, int(fb), 4)
				require.Zero(t, got.Cmp(want), "c=%v k=%d fracBits=%d: got %v (%v), best %v",
					c, k, fb, got.FloatString(8), x, want.FloatString(8))
			}
		}
	}
}

func TestCSDProperties(t *testing.T) {
	p := props(t, 1500)
	cGen := gen.OneGenOf(
		gen.Float64Range(-4, 4),
		gen.Float64Range(-(1<<32)+1, (1<<32)-1),
		gen.Float64Range(-1e-6, 1e-6),
	).WithLabel("c")
	p.Property("Error equals c − Σterms exactly; terms are a valid NAF within limits", prop.ForAll(
		func(c float64, k int, fb uint) bool {
			x, err := NewCSD(c, k, fb)
			if err != nil {
				return false
			}
			ts := x.Terms()
			if len(ts) > k || len(ts) != x.Len() {
				return false
			}
			for i, tm := range ts {
				if int(tm.Exp) < -int(fb) || tm.Exp > MaxCSDExp {
					return false
				}
				// Non-adjacent form: exponents decrease by at least 2.
				if i > 0 && int(ts[i-1].Exp)-int(tm.Exp) < 2 {
					return false
				}
			}
			f, e := exactError(c, ts)
			// The search keeps the residual exactly, so the exact error
			// must itself be a float64 and equal Error().
			back := new(big.Rat).SetFloat64(f)
			vf, _ := new(big.Rat).Sub(new(big.Rat).SetFloat64(c), e).Float64()
			return back.Cmp(e) == 0 && f == x.Error() && vf == x.Value()
		},
		cGen, gen.IntRange(1, 8).WithLabel("maxTerms"), gen.UIntRange(0, MaxCSDFracBits).WithLabel("fracBits"),
	))
	p.Property("with enough terms the error is c's distance to the 2^-fracBits grid", prop.ForAll(
		func(c float64, fb uint) bool {
			x, err := NewCSD(c, MaxCSDTerms, fb)
			if err != nil {
				return false
			}
			// NAF weight of N = round(c·2^fb) is at most ⌈(bits(N)+1)/2⌉;
			// keep N ≤ 2^28 so 16 terms always suffice.
			cr := new(big.Rat).SetFloat64(c)
			scaled := new(big.Rat).Mul(cr, new(big.Rat).SetInt(pow2(fb)))
			lo := floorRat(scaled)
			hi := new(big.Int).Add(lo, big.NewInt(1))
			dist := func(n *big.Int) *big.Rat {
				d := new(big.Rat).Sub(scaled, new(big.Rat).SetInt(n))
				return d.Abs(d)
			}
			best := dist(lo)
			if dh := dist(hi); dh.Cmp(best) < 0 {
				best = dh
			}
			best.Quo(best, new(big.Rat).SetInt(pow2(fb)))
			_, e := exactError(c, x.Terms())
			return e.Abs(e).Cmp(best) == 0
		},
		gen.Float64Range(-8, 8).WithLabel("c"), gen.UIntRange(0, 24).WithLabel("fracBits"),
	))
	p.TestingRun(t)
}

// oracleCSDMul is Σ ±floor(x·2^Exp) over the terms, in big.Int, saturated.
func oracleCSDMul(ts []Term, x int64) int64 {
	sum := new(big.Int)
	for _, tm := range ts {
		var v *big.Int
		if tm.Exp >= 0 {
			v = new(big.Int).Lsh(big.NewInt(x), uint(tm.Exp))
		} else {
			v = new(big.Int).Div(big.NewInt(x), pow2(uint(-tm.Exp))) // Euclidean = floor
		}
		if tm.Neg {
			sum.Sub(sum, v)
		} else {
			sum.Add(sum, v)
		}
	}
	return satI64(sum)
}

// oracleCSDMulFloor is floor(x·Σterms) in big.Rat, saturated.
func oracleCSDMulFloor(ts []Term, x int64) int64 {
	p := new(big.Rat).Mul(new(big.Rat).SetInt64(x), ratOfTerms(ts))
	return satI64(floorRat(p))
}

func TestCSDMul(t *testing.T) {
	// Worked values with 0.3 ≈ 2^-2 + 2^-4 - 2^-6 + 2^-8 = 0.30078125:
	// Mul(1000) = 250 + 62 - 15 + 3 = 300 (each shift floors);
	// Mul(-1000) = -250 - 63 + 16 - 4 = -301; MulFloor(±1000) =
	// floor(±300.78125) = 300, -301.
	x, err := NewCSD(0.3, 4, 16)
	require.NoError(t, err)
	require.Equal(t, int64(300), x.Mul(1000))
	require.Equal(t, int64(-301), x.Mul(-1000))
	require.Equal(t, int64(300), x.MulFloor(1000))
	require.Equal(t, int64(-301), x.MulFloor(-1000))
	// Saturation: 2.25·MaxInt64 does not fit.
	y, err := NewCSD(2.25, 4, 16)
	require.NoError(t, err)
	require.Equal(t, int64(math.MaxInt64), y.Mul(math.MaxInt64))
	require.Equal(t, int64(math.MinInt64), y.Mul(math.MinInt64))
	require.Equal(t, int64(math.MaxInt64), y.MulFloor(math.MaxInt64))

	p := props(t, 3000)
	xGen := gen.OneGenOf(gen.Int64(), gen.Int64Range(-1<<20, 1<<20),
		gen.Int64Range(math.MaxInt64-1<<10, math.MaxInt64), gen.Int64Range(math.MinInt64, math.MinInt64+1<<10)).WithLabel("x")
	cGen := gen.OneGenOf(gen.Float64Range(-4, 4), gen.Float64Range(-(1<<32)+1, (1<<32)-1)).WithLabel("c")
	p.Property("Mul and MulFloor equal their big.Int oracles", prop.ForAll(
		func(c float64, k int, fb uint, x int64) bool {
			cs, err := NewCSD(c, k, fb)
			if err != nil {
				return false
			}
			ts := cs.Terms()
			return cs.Mul(x) == oracleCSDMul(ts, x) && cs.MulFloor(x) == oracleCSDMulFloor(ts, x)
		},
		cGen, gen.IntRange(1, 8).WithLabel("maxTerms"), gen.UIntRange(0, MaxCSDFracBits).WithLabel("fracBits"), xGen,
	))
	p.Property("|Mul(x) − x·c| < |x|·|Error| + n (≤ |x|·|Error| if n = 0); |MulFloor(x) − x·c| < |x|·|Error| + 1", prop.ForAll(
		func(c float64, k int, fb uint, x int64) bool {
			cs, err := NewCSD(c, k, fb)
			if err != nil {
				return false
			}
			right := 0
			for _, tm := range cs.Terms() {
				if tm.Exp < 0 {
					right++
				}
			}
			xr := new(big.Rat).SetInt64(x)
			xc := new(big.Rat).Mul(xr, new(big.Rat).SetFloat64(c))
			errTerm := new(big.Rat).Mul(new(big.Rat).Abs(xr), new(big.Rat).Abs(new(big.Rat).SetFloat64(cs.Error())))
			dev := func(v int64) *big.Rat {
				d := new(big.Rat).Sub(new(big.Rat).SetInt64(v), xc)
				return d.Abs(d)
			}
			b1 := new(big.Rat).Add(errTerm, new(big.Rat).SetInt64(int64(right)))
			b2 := new(big.Rat).Add(errTerm, big.NewRat(1, 1))
			okMul := dev(cs.Mul(x)).Cmp(b1) < 0
			if right == 0 { // no rounding at all: only the constant's error
				okMul = dev(cs.Mul(x)).Cmp(errTerm) <= 0
			}
			return okMul && dev(cs.MulFloor(x)).Cmp(b2) < 0
		},
		gen.Float64Range(-4, 4).WithLabel("c"), gen.IntRange(1, 8).WithLabel("maxTerms"),
		gen.UIntRange(0, MaxCSDFracBits).WithLabel("fracBits"), gen.Int64Range(-1<<40, 1<<40).WithLabel("x"),
	))
	p.TestingRun(t)
}

func TestCSDAppendTerms(t *testing.T) {
	x, err := NewCSD(0.45, 4, 16)
	require.NoError(t, err)
	var buf [MaxCSDTerms]Term
	ts := x.AppendTerms(buf[:0])
	require.Equal(t, x.Terms(), ts)
	require.Equal(t, "2^-1 - 2^-4 + 2^-6 - 2^-8", x.String())
	require.Equal(t, "-2^-4", ts[1].String())
}
