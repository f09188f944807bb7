package fixedpoint

import (
	"math"
	"math/bits"
	"unsafe"

	"golang.org/x/exp/constraints"
)

// MaxOf returns the largest value of T: 2^(n−1) − 1 for a signed n-bit T,
// 2^n − 1 for an unsigned one.
func MaxOf[T constraints.Integer]() T {
	var z T
	if ^z < 0 { // signed: ^0 is −1
		return ^(T(1) << (bitsOf[T]() - 1))
	}
	return ^z
}

// MinOf returns the smallest value of T: −2^(n−1) for a signed n-bit T, 0
// for an unsigned one.
func MinOf[T constraints.Integer]() T {
	var z T
	if ^z < 0 {
		return T(1) << (bitsOf[T]() - 1)
	}
	return 0
}

// bitsOf is T's width in bits.
func bitsOf[T constraints.Integer]() uint {
	var z T
	return uint(unsafe.Sizeof(z)) * 8
}

// SatAddNonNeg returns a + b saturated at MaxOf[T], for a, b ≥ 0: SatAdd's
// result on that domain, where a sum can only overflow upwards, without
// SatAdd's sign cases (one compare: a hot path's deadline plus a period).
// Outside that domain (a or b negative) the result is unspecified. Worked
// value: SatAddNonNeg(units.MaxTime−5, 10) = units.MaxTime.
func SatAddNonNeg[T constraints.Integer](a, b T) T {
	if s := a + b; s >= a {
		return s
	}
	return MaxOf[T]()
}

// SatAdd returns a + b, saturated at MinOf[T] and MaxOf[T] instead of
// wrapping. Worked value: SatAdd(units.MaxTime−5, 10) = units.MaxTime.
func SatAdd[T constraints.Integer](a, b T) T {
	s := a + b // wraps; checked below
	var z T
	if ^z < 0 {
		// Signed overflow: a and b have one sign and the sum the other,
		// which sets the sign bit of both a^s and b^s.
		if (a^s)&(b^s) < 0 {
			m := T(1) << (unsafe.Sizeof(z)*8 - 1) // MinOf[T]
			if a >= 0 {
				return ^m
			}
			return m
		}
		return s
	}
	if s < a {
		return ^z
	}
	return s
}

// SatSub returns a − b, saturated at MinOf[T] and MaxOf[T] (an unsigned
// difference below zero gives 0).
func SatSub[T constraints.Integer](a, b T) T {
	s := a - b
	var z T
	if ^z < 0 {
		// Signed overflow: a and b have different signs and the
		// difference has b's, which sets the sign bit of both a^b and a^s.
		if (a^b)&(a^s) < 0 {
			m := T(1) << (unsafe.Sizeof(z)*8 - 1)
			if a >= 0 {
				return ^m
			}
			return m
		}
		return s
	}
	if b > a {
		return 0
	}
	return s
}

// SatMul returns a·b saturated at MinOf[T] and MaxOf[T].
func SatMul[T constraints.Integer](a, b T) T {
	if a == 0 || b == 0 {
		return 0
	}
	p := a * b
	var z T
	if ^z < 0 {
		neg := (a < 0) != (b < 0)
		m1 := ^z // −1
		// −1 · MinOf overflows, and p/b == a misses it when b = −1.
		if (a == m1 && b == MinOf[T]()) || (b == m1 && a == MinOf[T]()) || p/b != a {
			if neg {
				return MinOf[T]()
			}
			return MaxOf[T]()
		}
		return p
	}
	if p/b != a {
		return MaxOf[T]()
	}
	return p
}

// Clamp returns v limited to [lo, hi] (lo when v < lo, hi when v > hi). If
// lo > hi the result is hi.
func Clamp[T constraints.Integer](v, lo, hi T) T {
	if v < lo {
		v = lo
	}
	if v > hi {
		v = hi
	}
	return v
}

// SatConv returns v converted to To, saturated at MinOf[To] and MaxOf[To]
// instead of truncated: the narrowing a register write does when its value
// may not fit. Worked values: SatConv[uint32](uint64(1<<40)) = 2^32 − 1,
// SatConv[uint16](int64(−5)) = 0, SatConv[int8](300) = 127.
func SatConv[To, From constraints.Integer](v From) To {
	var zf From
	if ^zf < 0 && v < 0 { // a negative signed source
		var zt To
		if ^zt >= 0 { // unsigned destination
			return 0
		}
		if int64(v) < int64(MinOf[To]()) {
			return MinOf[To]()
		}
		return To(v)
	}
	if uint64(v) > uint64(MaxOf[To]()) {
		return MaxOf[To]()
	}
	return To(v)
}

// MulDivSat returns ⌊a·b/c⌋ with the product held in 128 bits, saturated
// at 2^64 − 1 when the quotient does not fit (and when c = 0, a divisor a
// caller must refuse before; the result is then the register's ceiling,
// never a panic). Worked value: MulDivSat(2^40, 2^40, 2^30) = 2^50.
func MulDivSat(a, b, c uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	if hi >= c { // the quotient needs more than 64 bits (or c = 0)
		return math.MaxUint64
	}
	q, _ := bits.Div64(hi, lo, c)
	return q
}

// WrapAdd returns (a + b) mod 2^width, the next reading of a width-bit
// free-running counter at a that advances by b. Only the low width bits of
// the operands matter; width ≥ the type's size wraps at the type's size.
// Worked value: a 20-bit txBytes counter at 0xFFFF0 advanced by 0x20 reads
// 0x00010.
func WrapAdd[T constraints.Unsigned](a, b T, width uint) T {
	return (a + b) & T(mask(width))
}

// WrapSub returns (a − b) mod 2^width: how far a width-bit counter advanced
// from the reading b to the reading a (WrapDelta for any unsigned type).
func WrapSub[T constraints.Unsigned](a, b T, width uint) T {
	// Subtraction modulo the type's size then masking is subtraction
	// modulo 2^width, because 2^width divides it.
	return (a - b) & T(mask(width))
}

// WrapBefore reports whether reading a of a width-bit sequence counter comes
// before reading b in serial-number order (RFC 1982): b is less than half
// the counter's period ahead of a. It is the comparison TCP uses on its
// 32-bit sequence numbers.
func WrapBefore[T constraints.Unsigned](a, b T, width uint) bool {
	d := WrapSub(b, a, width)
	return d != 0 && uint64(d) < uint64(1)<<(min(width, bitsOf[T]())-1)
}
