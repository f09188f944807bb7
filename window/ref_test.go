package window

import (
	"math"
	"math/big"

	"github.com/hwcc/hwcc/fixedpoint"
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
