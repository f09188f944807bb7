package fixedpoint

import (
	"errors"
	"strconv"
)

// Rounding says how a result that falls between two representable values is
// rounded. The zero value is Floor, the truncation a hardware shifter does.
type Rounding uint8

const (
	// Floor rounds toward −∞ (for unsigned values: truncation).
	Floor Rounding = iota
	// Nearest rounds to the nearest representable value; a tie (exactly
	// half-way) rounds away from zero. Every result this package rounds with
	// Nearest is non-negative, so the tie rule is also "half up":
	// 2.5 → 3, 3.5 → 4.
	Nearest
	// Ceil rounds toward +∞.
	Ceil
)

// Valid reports whether r is one of Floor, Nearest, Ceil.
func (r Rounding) Valid() bool { return r <= Ceil }

// String returns "floor", "nearest" or "ceil", or "Rounding(n)" for an
// invalid value.
func (r Rounding) String() string {
	switch r {
	case Floor:
		return "floor"
	case Nearest:
		return "nearest"
	case Ceil:
		return "ceil"
	}
	return "Rounding(" + strconv.Itoa(int(r)) + ")"
}

// Overflow is what a width-limited register does with a result outside its
// range. The zero value is Wrap, what a hardware adder does on its own.
type Overflow uint8

const (
	// Wrap keeps the low bits: the result modulo 2^width (for signed
	// registers, then reinterpreted in two's complement). For counters.
	Wrap Overflow = iota
	// Saturate clamps to the nearest end of the range. For gauges.
	Saturate
	// Reject leaves the register unchanged and returns an error that
	// matches ErrOverflow. For configuration and values that must fit.
	Reject
)

// Valid reports whether o is one of Wrap, Saturate, Reject.
func (o Overflow) Valid() bool { return o <= Reject }

// String returns "wrap", "saturate" or "reject", or "Overflow(n)" for an
// invalid value.
func (o Overflow) String() string {
	switch o {
	case Wrap:
		return "wrap"
	case Saturate:
		return "saturate"
	case Reject:
		return "reject"
	}
	return "Overflow(" + strconv.Itoa(int(o)) + ")"
}

// ErrOverflow is matched (with errors.Is) by every error a Reject policy
// returns.
var ErrOverflow = errors.New("fixedpoint: value out of range")

// OverflowError is the error a register with the Reject policy returns. It
// names the register's width and range. The package returns pointers to
// preallocated values, so rejecting does not allocate.
type OverflowError struct {
	width  uint8
	signed bool
}

// Width returns the width in bits of the register that rejected the value.
func (e *OverflowError) Width() uint { return uint(e.width) }

// Signed reports whether the register is signed (two's complement).
func (e *OverflowError) Signed() bool { return e.signed }

// Error reports the width and the allowed range, e.g. "fixedpoint: value out
// of range of a 20-bit unsigned register [0, 1048575]".
func (e *OverflowError) Error() string {
	w := uint(e.width)
	var lo, hi string
	if e.signed {
		lo = strconv.FormatInt(minSigned(w), 10)
		hi = strconv.FormatInt(maxSigned(w), 10)
	} else {
		lo, hi = "0", strconv.FormatUint(mask(w), 10)
	}
	kind := "unsigned"
	if e.signed {
		kind = "signed"
	}
	return "fixedpoint: value out of range of a " + strconv.FormatUint(uint64(w), 10) +
		"-bit " + kind + " register [" + lo + ", " + hi + "]"
}

// Is makes errors.Is(err, ErrOverflow) true.
func (e *OverflowError) Is(target error) bool { return target == ErrOverflow }

// overflowErrs holds one preallocated error per width and signedness;
// index [signed][width].
var overflowErrs [2][65]OverflowError

func init() {
	for w := range overflowErrs[0] {
		overflowErrs[0][w] = OverflowError{width: uint8(w)}
		overflowErrs[1][w] = OverflowError{width: uint8(w), signed: true}
	}
}

func overflowErr(width uint, signed bool) error {
	s := 0
	if signed {
		s = 1
	}
	return &overflowErrs[s][width]
}

// mask returns 2^width − 1 for width in [0, 64] (all ones from 64 up).
func mask(width uint) uint64 {
	if width >= 64 {
		return ^uint64(0)
	}
	return uint64(1)<<width - 1
}

// maxSigned returns 2^(width−1) − 1 for width in [1, 64].
func maxSigned(width uint) int64 { return int64(mask(width - 1)) }

// minSigned returns −2^(width−1) for width in [1, 64].
func minSigned(width uint) int64 { return -maxSigned(width) - 1 }
