package fixedpoint

import (
	"math"
	"math/big"
	"testing"

	"github.com/leanovate/gopter"
)

// propSeed is the fixed gopter seed; change it locally to explore.
const propSeed = 20240611

// props returns gopter properties with the fixed seed. The oracles below
// (and the per-file ones) are independent: every expected value in these
// tests is recomputed with math/big (exact) or, where noted, float64
// arithmetic that is exact for the operands involved. None of them call the
// code under test.
func props(t *testing.T, minSuccessful int) *gopter.Properties {
	t.Helper()
	p := gopter.DefaultTestParametersWithSeed(propSeed)
	p.MinSuccessfulTests = minSuccessful
	return gopter.NewProperties(p)
}

var (
	bigMaxU64 = new(big.Int).SetUint64(math.MaxUint64)
	bigMinI64 = big.NewInt(math.MinInt64)
	bigMaxI64 = big.NewInt(math.MaxInt64)
)

func bu(x uint64) *big.Int { return new(big.Int).SetUint64(x) }

func pow2(e uint) *big.Int { return new(big.Int).Lsh(big.NewInt(1), e) }

// roundDiv returns num/den (den > 0) rounded by mode, with Nearest meaning
// floor(num/den + 1/2) (half up, which is away from zero for num ≥ 0).
func roundDiv(num, den *big.Int, mode Rounding) *big.Int {
	switch mode {
	case Floor:
		// big.Int.Div is Euclidean: for den > 0 it is the floor.
		return new(big.Int).Div(num, den)
	case Ceil:
		n := new(big.Int).Add(num, den)
		n.Sub(n, big.NewInt(1))
		return n.Div(n, den)
	default:
		n := new(big.Int).Lsh(num, 1)
		n.Add(n, den)
		return n.Div(n, new(big.Int).Lsh(den, 1))
	}
}

// satU64 clamps a non-negative big.Int to [0, MaxUint64].
func satU64(v *big.Int) uint64 {
	if v.Cmp(bigMaxU64) > 0 {
		return math.MaxUint64
	}
	return v.Uint64()
}

// satI64 clamps v to the int64 range.
func satI64(v *big.Int) int64 {
	if v.Cmp(bigMaxI64) > 0 {
		return math.MaxInt64
	}
	if v.Cmp(bigMinI64) < 0 {
		return math.MinInt64
	}
	return v.Int64()
}

// ratOfTerms returns Σ ±2^Exp exactly.
func ratOfTerms(ts []Term) *big.Rat {
	sum := new(big.Rat)
	for _, t := range ts {
		var p *big.Rat
		if t.Exp >= 0 {
			p = new(big.Rat).SetInt(pow2(uint(t.Exp)))
		} else {
			p = new(big.Rat).SetFrac(big.NewInt(1), pow2(uint(-t.Exp)))
		}
		if t.Neg {
			sum.Sub(sum, p)
		} else {
			sum.Add(sum, p)
		}
	}
	return sum
}

// floorRat returns floor(r).
func floorRat(r *big.Rat) *big.Int {
	return new(big.Int).Div(r.Num(), r.Denom()) // Denom > 0: Euclidean = floor
}
