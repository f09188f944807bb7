package fixedpoint

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"strconv"
)

// Limits of NewCSD.
const (
	// MaxCSDTerms is the largest number of terms an expansion may have.
	MaxCSDTerms = 16
	// MaxCSDFracBits is the finest right shift an expansion may use: 2^-62.
	MaxCSDFracBits = 62
	// MaxCSDExp is the largest left shift: terms are at most 2^32, and the
	// constant must satisfy |c| < 2^32.
	MaxCSDExp = 32
)

// Term is one term of a shift-add expansion: +2^Exp, or −2^Exp if Neg.
// Exp < 0 is an arithmetic right shift by −Exp, Exp ≥ 0 a left shift by Exp.
type Term struct {
	Exp int8
	Neg bool
}

// String returns "2^-3" or "-2^-3".
func (t Term) String() string {
	s := "2^" + strconv.Itoa(int(t.Exp))
	if t.Neg {
		return "-" + s
	}
	return s
}

// CSD is multiplication by a real constant c as a sum of at most MaxCSDTerms
// signed powers of two, in canonical signed digit form (non-adjacent form:
// exponents strictly decreasing, no two consecutive), so that x·c becomes a
// few shifts and adds.
//
// NewCSD picks the terms so that the realised value v = Σ ±2^Exp is as close
// to c as it finds with the allowed terms and shifts, and keeps c − v exactly
// (Error). Mul applies the terms as a hardware datapath does, one shift per
// term; MulFloor returns floor(x·v) exactly.
//
// Layout: the terms in a fixed array (no pointers), the constant, the error
// and precomputed integer forms; a CSD is an immutable value, safe to copy
// and to share, and its methods never allocate except Terms and String.
//
// The zero CSD has no terms and realises 0: Mul returns 0.
type CSD struct {
	terms [MaxCSDTerms]Term
	n     uint8
	shift uint8 // −(smallest Exp) if negative, else 0
	c     float64
	err   float64 // c − v, exact
	// v = intPart + fracPart/2^shift, both exact integers.
	intPart  int64  // Σ ±2^Exp over Exp ≥ 0, |intPart| < 2^33
	fracPart int64  // Σ ±2^(Exp+shift) over Exp < 0, |fracPart| < 2^shift ≤ 2^62
	safeAbs  uint64 // |x| up to which Mul's partial sums fit in int64
}

// NewCSD returns the expansion of c with at most maxTerms terms (1 to
// MaxCSDTerms) whose exponents lie in [−fracBits, MaxCSDExp]; fracBits (0 to
// MaxCSDFracBits) is the finest right shift allowed. c must be finite with
// |c| < 2^32.
//
// The search: starting from the residual r = c, each term is one of the two
// powers of two that bracket |r| (2^k ≤ |r| < 2^(k+1)), with the sign of r,
// and every sequence of such choices up to maxTerms is tried; the result is
// the closest value found, ties broken by fewer terms and then by the order
// of the search (smaller power first), so the result is deterministic. Every
// residual in this search is exact in float64 (each subtraction is of a
// power of two within a factor of two of the residual, Sterbenz's lemma),
// so Error is exact. The chosen value is finally rewritten in non-adjacent
// form, which never needs more terms. The search contains the greedy
// expansion and, when maxTerms allows, reaches c rounded to the nearest
// multiple of 2^-fracBits, the best any expansion can do. It is not proven
// optimal for fewer terms, but on every small grid the tests check
// exhaustively no expansion of at most maxTerms terms comes closer.
//
// Cost: up to 2^maxTerms search steps, each a few float64 operations; call
// it at configuration time.
func NewCSD(c float64, maxTerms int, fracBits uint) (CSD, error) {
	if math.IsNaN(c) || math.IsInf(c, 0) || math.Abs(c) >= 1<<MaxCSDExp {
		return CSD{}, fmt.Errorf("fixedpoint: CSD constant %v is outside (−2^%d, 2^%d)", c, MaxCSDExp, MaxCSDExp)
	}
	if maxTerms < 1 || maxTerms > MaxCSDTerms {
		return CSD{}, fmt.Errorf("fixedpoint: CSD maxTerms %d is outside [1, %d]", maxTerms, MaxCSDTerms)
	}
	if fracBits > MaxCSDFracBits {
		return CSD{}, fmt.Errorf("fixedpoint: CSD fracBits %d is outside [0, %d]", fracBits, MaxCSDFracBits)
	}
	s := csdSearch{minExp: -int(fracBits), maxTerms: maxTerms, bestAbs: math.Inf(1)}
	s.walk(c, 0)

	out := CSD{c: c, err: s.bestR}
	out.setNAF(s.best[:s.bestN], fracBits)
	return out, nil
}

// csdSearch is the state of NewCSD's depth-first search.
type csdSearch struct {
	minExp   int
	maxTerms int
	cur      [MaxCSDTerms]Term
	best     [MaxCSDTerms]Term
	bestN    int
	bestAbs  float64 // |bestR|
	bestR    float64 // c − value of best, exact
}

// walk records the expansion cur[:n] (residual r) and extends it.
func (s *csdSearch) walk(r float64, n int) {
	a := math.Abs(r)
	if a < s.bestAbs || (a == s.bestAbs && n < s.bestN) {
		s.bestAbs, s.bestR, s.bestN = a, r, n
		copy(s.best[:], s.cur[:n])
	}
	if r == 0 || n == s.maxTerms {
		return
	}
	_, e := math.Frexp(a) // a = f·2^e, f in [0.5, 1): 2^(e−1) ≤ a < 2^e
	k := e - 1
	for _, exp := range [2]int{k, k + 1} {
		if exp < s.minExp || exp > MaxCSDExp {
			continue
		}
		p := math.Ldexp(1, exp)
		if exp == k+1 && a == math.Ldexp(1, k) {
			continue // a is a power of two: the first branch hit it exactly
		}
		s.cur[n] = Term{Exp: int8(exp), Neg: r < 0}
		if r < 0 {
			s.walk(r+p, n+1) // exact (Sterbenz)
		} else {
			s.walk(r-p, n+1)
		}
	}
}

// setNAF stores the non-adjacent form of Σ terms and the integer forms used
// by Mul and MulFloor.
func (c *CSD) setNAF(terms []Term, fracBits uint) {
	// m = Σ ±2^(Exp+fracBits), an integer below 2^95.
	m := new(big.Int)
	for _, t := range terms {
		p := new(big.Int).Lsh(big.NewInt(1), uint(int(t.Exp)+int(fracBits)))
		if t.Neg {
			m.Sub(m, p)
		} else {
			m.Add(m, p)
		}
	}
	neg := m.Sign() < 0
	m.Abs(m)
	// NAF digits, least significant first: at an odd m, the digit is
	// 2 − (m mod 4) ∈ {+1, −1}, which makes m − digit divisible by 4.
	var digits []Term
	for exp := -int(fracBits); m.Sign() != 0; exp++ {
		if m.Bit(0) == 1 {
			d := Term{Exp: int8(exp), Neg: m.Bit(1) == 1}
			if d.Neg {
				m.Add(m, big.NewInt(1))
			} else {
				m.Sub(m, big.NewInt(1))
			}
			d.Neg = d.Neg != neg
			digits = append(digits, d)
		}
		m.Rsh(m, 1)
	}
	c.n = uint8(len(digits))
	for i, d := range digits {
		c.terms[len(digits)-1-i] = d // most significant first
	}
	if c.n > 0 && c.terms[c.n-1].Exp < 0 {
		c.shift = uint8(-c.terms[c.n-1].Exp)
	}
	sumAbs := uint64(0) // Σ 2^Exp over Exp ≥ 0, plus 1 per right shift
	for _, t := range c.terms[:c.n] {
		if t.Exp >= 0 {
			v := int64(1) << t.Exp
			if t.Neg {
				v = -v
			}
			c.intPart += v
			sumAbs += uint64(1) << t.Exp
		} else {
			v := int64(1) << (int(t.Exp) + int(c.shift))
			if t.Neg {
				v = -v
			}
			c.fracPart += v
			sumAbs++
		}
	}
	// Every partial sum of Mul is at most |x|·sumAbs + n in magnitude
	// (a right-shifted term is at most |x|·2^Exp + 1 ≤ |x| + 1).
	c.safeAbs = math.MaxUint64
	if sumAbs > 0 {
		c.safeAbs = (math.MaxInt64 - MaxCSDTerms) / sumAbs
	}
}

// Constant returns c, the constant NewCSD was asked for.
func (c CSD) Constant() float64 { return c.c }

// Value returns the value realised, Σ ±2^Exp, as a float64: c − Error()
// rounded once to nearest (exact whenever the terms span at most 53
// binades, which covers every expansion with fracBits ≤ 20).
func (c CSD) Value() float64 { return c.c - c.err }

// Error returns c − Value exactly (see NewCSD for why it is exact).
func (c CSD) Error() float64 { return c.err }

// Len returns the number of terms.
func (c CSD) Len() int { return int(c.n) }

// AppendTerms appends the terms, most significant first, to dst and returns
// the extended slice. With cap(dst) ≥ Len() (a [MaxCSDTerms]Term array is
// always enough) it does not allocate; use it to export the shifts to
// hardware.
func (c CSD) AppendTerms(dst []Term) []Term { return append(dst, c.terms[:c.n]...) }

// Terms returns a new slice of the terms, most significant first.
func (c CSD) Terms() []Term { return c.AppendTerms(nil) }

// String returns the expansion, most significant term first, such as
// "2^-2 + 2^-4 - 2^-8 - 2^-10"; "0" for no terms.
func (c CSD) String() string {
	if c.n == 0 {
		return "0"
	}
	s := c.terms[0].String()
	for _, t := range c.terms[1:c.n] {
		if t.Neg {
			s += " - " + Term{Exp: t.Exp}.String()
		} else {
			s += " + " + t.String()
		}
	}
	return s
}

// Mul returns Σ ±(x shifted by Exp) over the terms: x << Exp for Exp ≥ 0
// and the arithmetic right shift x >> −Exp, which is floor(x·2^Exp), for
// Exp < 0. The sum is exact (128-bit when needed) and saturates at
// math.MinInt64 or math.MaxInt64.
//
// Error: each right shift drops a fraction in [0, 1) of a unit, so
// x·Value() − Mul(x) is a sum of one fraction in [0, 1) per right-shift term
// added and one in (−1, 0] per right-shift term subtracted. With n the
// number of terms with Exp < 0,
//
//	|Mul(x) − x·c| < |x|·|Error()| + n   (≤ |x|·|Error()| when n = 0).
func (c CSD) Mul(x int64) int64 {
	ax := uint64(x)
	if x < 0 {
		ax = -ax
	}
	if ax <= c.safeAbs {
		// Fast path: no partial sum can leave int64.
		var acc int64
		for _, t := range c.terms[:c.n] {
			var v int64
			if t.Exp >= 0 {
				v = x << uint8(t.Exp)
			} else {
				v = x >> uint8(-t.Exp) // floor
			}
			if t.Neg {
				acc -= v
			} else {
				acc += v
			}
		}
		return acc
	}
	var acc i128
	for _, t := range c.terms[:c.n] {
		var v i128
		if t.Exp >= 0 {
			v = shl128(x, uint(t.Exp))
		} else {
			v = from64(x >> uint8(-t.Exp)) // floor
		}
		if t.Neg {
			acc = acc.sub(v)
		} else {
			acc = acc.add(v)
		}
	}
	return acc.sat()
}

// MulFloor returns floor(x·Value()) exactly, saturating at math.MinInt64 or
// math.MaxInt64: one rounding instead of one per term, so
// 0 ≤ x·Value() − MulFloor(x) < 1 and |MulFloor(x) − x·c| < |x|·|Error()| + 1.
// In hardware it is the same adds done on x scaled left by the finest shift,
// with a single right shift at the end.
func (c CSD) MulFloor(x int64) int64 {
	// x·v = x·intPart + x·fracPart/2^shift; the first is an integer, so
	// floor(x·v) = x·intPart + floor(x·fracPart/2^shift).
	return mul128(x, c.intPart).add(mul128(x, c.fracPart).sar(uint(c.shift))).sat()
}

// i128 is a two's-complement 128-bit integer hi·2^64 + lo.
type i128 struct {
	hi int64
	lo uint64
}

func from64(x int64) i128 { return i128{hi: x >> 63, lo: uint64(x)} }

// shl128 returns x·2^n for n in [0, 63].
func shl128(x int64, n uint) i128 {
	return i128{hi: x >> (64 - n), lo: uint64(x) << n} // x >> 64 is x's sign
}

func (a i128) add(b i128) i128 {
	lo, carry := bits.Add64(a.lo, b.lo, 0)
	return i128{hi: a.hi + b.hi + int64(carry), lo: lo}
}

func (a i128) sub(b i128) i128 {
	lo, borrow := bits.Sub64(a.lo, b.lo, 0)
	return i128{hi: a.hi - b.hi - int64(borrow), lo: lo}
}

// sar returns floor(a/2^n) for n in [0, 63].
func (a i128) sar(n uint) i128 {
	return i128{hi: a.hi >> n, lo: a.lo>>n | uint64(a.hi)<<(64-n)}
}

// mul128 returns the exact product a·b.
func mul128(a, b int64) i128 {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	// Unsigned product of the two's-complement patterns, corrected: each
	// negative operand contributes an extra 2^64 times the other operand.
	h := int64(hi)
	if a < 0 {
		h -= b
	}
	if b < 0 {
		h -= a
	}
	return i128{hi: h, lo: lo}
}

// sat returns a clamped to the int64 range.
func (a i128) sat() int64 {
	if a.hi == int64(a.lo)>>63 {
		return int64(a.lo)
	}
	if a.hi < 0 {
		return math.MinInt64
	}
	return math.MaxInt64
}
