package fixedpoint

import (
	"fmt"
	"math/bits"
)

// MaxWidth is the widest register: 64 bits.
const MaxWidth = 64

// Register is an unsigned register of 1 to 64 bits with an overflow policy.
// It holds a value in [0, 2^width − 1] and applies its policy to every
// result outside that range (see Overflow).
//
// Layout: the value, and one byte each for the width and the policy; a
// Register is a small value type, safe to copy. Methods that change it take a
// pointer and never allocate, including on the Reject path.
//
// The zero Register is a 64-bit wrapping register holding 0.
type Register struct {
	value  uint64
	gap    uint8 // 64 − width, so that the zero value is 64 bits wide
	policy Overflow
}

// NewRegister returns a register of width bits (1 to 64) holding 0 with the
// given overflow policy.
func NewRegister(width uint, policy Overflow) (Register, error) {
	if width < 1 || width > MaxWidth {
		return Register{}, fmt.Errorf("fixedpoint: register width %d is outside [1, %d]", width, MaxWidth)
	}
	if !policy.Valid() {
		return Register{}, fmt.Errorf("fixedpoint: register overflow policy %v is not one of wrap, saturate, reject", policy)
	}
	return Register{gap: uint8(MaxWidth - width), policy: policy}, nil
}

// Width returns the register's width in bits.
func (r Register) Width() uint { return MaxWidth - uint(r.gap) }

// Policy returns the register's overflow policy.
func (r Register) Policy() Overflow { return r.policy }

// Max returns the largest value the register holds, 2^width − 1.
func (r Register) Max() uint64 { return mask(r.Width()) }

// Value returns the value held.
func (r Register) Value() uint64 { return r.value }

// Set stores v under the register's policy and returns the value now held.
// If v > Max: Wrap stores v mod 2^width, Saturate stores Max, Reject leaves
// the register unchanged and returns its current value and an error
// matching ErrOverflow.
func (r *Register) Set(v uint64) (uint64, error) {
	nv, err := fit(v, r.Width(), r.policy)
	if err != nil {
		return r.value, err
	}
	r.value = nv
	return nv, nil
}

// Add adds delta (which may be negative) under the register's policy and
// returns the value now held. The exact sum value+delta is computed without
// overflow; if it is outside [0, Max]: Wrap stores it modulo 2^width (so a
// wrapping register counts like a hardware counter, and subtracting below 0
// borrows), Saturate stores 0 or Max, Reject leaves the register unchanged
// and returns its current value and an error matching ErrOverflow.
func (r *Register) Add(delta int64) (uint64, error) {
	w := r.Width()
	v := r.value
	var sum uint64
	under, over := false, false
	if delta >= 0 {
		var carry uint64
		sum, carry = bits.Add64(v, uint64(delta), 0)
		over = carry != 0 || sum > mask(w)
	} else {
		d := uint64(-(delta + 1)) + 1 // |delta|, safe for math.MinInt64
		under = d > v
		sum = v - d
	}
	if under || over {
		switch r.policy {
		case Wrap:
			// (value + delta) mod 2^width: the low bits of the two's-complement sum.
			sum &= mask(w)
		case Saturate:
			if under {
				sum = 0
			} else {
				sum = mask(w)
			}
		default:
			return r.value, overflowErr(w, false)
		}
	}
	r.value = sum
	return sum, nil
}

// fit applies policy to v for an unsigned register of width bits (1..64).
// On Reject it returns 0 and the preallocated OverflowError.
func fit(v uint64, width uint, policy Overflow) (uint64, error) {
	m := mask(width)
	if v <= m {
		return v, nil
	}
	switch policy {
	case Wrap:
		return v & m, nil
	case Saturate:
		return m, nil
	}
	return 0, overflowErr(width, false)
}

// SignedRegister is a two's-complement register of 1 to 64 bits with an
// overflow policy. It holds a value in [−2^(width−1), 2^(width−1) − 1].
//
// Layout and zero value as for Register: the zero SignedRegister is a 64-bit
// wrapping register holding 0. Methods never allocate.
type SignedRegister struct {
	value  int64
	gap    uint8 // 64 − width
	policy Overflow
}

// NewSignedRegister returns a signed register of width bits (1 to 64)
// holding 0 with the given overflow policy.
func NewSignedRegister(width uint, policy Overflow) (SignedRegister, error) {
	if width < 1 || width > MaxWidth {
		return SignedRegister{}, fmt.Errorf("fixedpoint: signed register width %d is outside [1, %d]", width, MaxWidth)
	}
	if !policy.Valid() {
		return SignedRegister{}, fmt.Errorf("fixedpoint: signed register overflow policy %v is not one of wrap, saturate, reject", policy)
	}
	return SignedRegister{gap: uint8(MaxWidth - width), policy: policy}, nil
}

// Width returns the register's width in bits.
func (r SignedRegister) Width() uint { return MaxWidth - uint(r.gap) }

// Policy returns the register's overflow policy.
func (r SignedRegister) Policy() Overflow { return r.policy }

// Min returns the smallest value the register holds, −2^(width−1).
func (r SignedRegister) Min() int64 { return minSigned(r.Width()) }

// Max returns the largest value the register holds, 2^(width−1) − 1.
func (r SignedRegister) Max() int64 { return maxSigned(r.Width()) }

// Value returns the value held.
func (r SignedRegister) Value() int64 { return r.value }

// Set stores v under the register's policy and returns the value now held.
// If v is outside [Min, Max]: Wrap keeps the low width bits of v and
// sign-extends them, Saturate stores Min or Max, Reject leaves the register
// unchanged and returns its current value and an error matching ErrOverflow.
func (r *SignedRegister) Set(v int64) (int64, error) {
	return r.store(v)
}

// Add adds delta under the register's policy and returns the value now held.
// The exact sum is used to decide overflow, even where it leaves the int64
// range; Wrap stores the sum modulo 2^width in two's complement, Saturate
// stores Min or Max, Reject leaves the register unchanged and returns its
// current value and an error matching ErrOverflow.
func (r *SignedRegister) Add(delta int64) (int64, error) {
	// The wrapped int64 sum has the right low 64 bits, which is all Wrap
	// needs. It overflowed int64 iff both operands have the same sign and
	// the sum's sign differs; the exact sum then has delta's sign.
	sum := int64(uint64(r.value) + uint64(delta))
	overflow64 := (r.value >= 0) == (delta >= 0) && (sum >= 0) != (delta >= 0)
	if overflow64 && r.policy != Wrap {
		if r.policy == Saturate {
			if delta < 0 {
				r.value = r.Min()
			} else {
				r.value = r.Max()
			}
			return r.value, nil
		}
		return r.value, overflowErr(r.Width(), true)
	}
	return r.store(sum)
}

// store applies the register's policy to the exact value v.
func (r *SignedRegister) store(v int64) (int64, error) {
	w := r.Width()
	lo, hi := minSigned(w), maxSigned(w)
	if v >= lo && v <= hi {
		r.value = v
		return v, nil
	}
	switch r.policy {
	case Wrap:
		// Keep the low w bits and sign-extend: shift them to the top and back.
		sh := MaxWidth - w
		r.value = v << sh >> sh
	case Saturate:
		if v < 0 {
			r.value = lo
		} else {
			r.value = hi
		}
	default:
		return r.value, overflowErr(w, true)
	}
	return r.value, nil
}
