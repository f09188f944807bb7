package fixedpoint

import (
	"fmt"
	"math"
)

// Quantizer converts a value in a base unit (bytes, bit/s, ns) to a count of
// units of Δ held in a register of a given width, and back: RoCC's queue in
// units of ΔQ = 600 B and rate in units of ΔF = 10 Mb/s, HPCC's qLen in
// units of 80 B.
//
// Quantize rounds v/Δ by the quantizer's Rounding and saturates at the
// register's maximum 2^width − 1. Dequantize returns q·Δ, which is exact: the
// constructor checks that (2^width − 1)·Δ fits in a uint64. For values that
// do not saturate, the round trip error e = Dequantize(Quantize(v)) − v is
// in (−Δ, 0] for Floor, [0, Δ) for Ceil and (−Δ/2, Δ/2] for Nearest (a tie
// rounds up, so it gives e = +Δ/2): |e| ≤ Δ/2.
//
// Layout: Δ (uint64), width and mode (one byte each). The zero Quantizer is
// not usable (Δ = 0); build one with NewQuantizer. Methods never allocate.
type Quantizer struct {
	delta uint64
	max   uint64 // 2^width − 1
	width uint8
	mode  Rounding
}

// NewQuantizer returns a quantizer with unit delta (≥ 1, in the caller's base
// unit), a register of width bits (1 to 64) and the given rounding. It
// returns an error if delta is 0, width is out of range, mode is invalid, or
// (2^width − 1)·delta does not fit in a uint64.
func NewQuantizer(delta uint64, width uint, mode Rounding) (Quantizer, error) {
	if delta == 0 {
		return Quantizer{}, fmt.Errorf("fixedpoint: quantizer delta is 0, want ≥ 1")
	}
	if width < 1 || width > MaxWidth {
		return Quantizer{}, fmt.Errorf("fixedpoint: quantizer width %d is outside [1, %d]", width, MaxWidth)
	}
	if !mode.Valid() {
		return Quantizer{}, fmt.Errorf("fixedpoint: quantizer rounding %v is not one of floor, nearest, ceil", mode)
	}
	m := mask(width)
	if m > math.MaxUint64/delta {
		return Quantizer{}, fmt.Errorf("fixedpoint: quantizer of %d bits with delta %d: (2^%d − 1)·%d overflows 64 bits; use a width of at most %d bits",
			width, delta, width, delta, maxWidthFor(delta))
	}
	return Quantizer{delta: delta, max: m, width: uint8(width), mode: mode}, nil
}

// maxWidthFor returns the widest register whose full range times delta fits
// in a uint64.
func maxWidthFor(delta uint64) uint {
	w := uint(MaxWidth)
	for w > 1 && mask(w) > math.MaxUint64/delta {
		w--
	}
	return w
}

// Delta returns Δ, the size of one unit in the base unit.
func (q Quantizer) Delta() uint64 { return q.delta }

// Width returns the width in bits of the quantised register.
func (q Quantizer) Width() uint { return uint(q.width) }

// Mode returns the rounding of Quantize.
func (q Quantizer) Mode() Rounding { return q.mode }

// Max returns the largest quantised value, 2^width − 1.
func (q Quantizer) Max() uint64 { return q.max }

// Quantize returns v/Δ rounded by the quantizer's mode (Floor: down; Ceil:
// up; Nearest: to the nearest unit, a tie, v an odd multiple of Δ/2, going
// up), saturated at Max.
func (q Quantizer) Quantize(v uint64) uint64 {
	n, _ := q.QuantizeSat(v)
	return n
}

// QuantizeSat is Quantize that also reports whether the result saturated,
// that is whether the rounded v/Δ exceeded Max.
func (q Quantizer) QuantizeSat(v uint64) (n uint64, saturated bool) {
	// Δ is a configuration constant; hardware divides by it with a constant
	// divider (or a shift when Δ is a power of two). The model divides.
	n = v / q.delta
	if q.mode != Floor { // the remainder only where the rounding needs it
		n = q.round(v, n)
	}
	if n > q.max {
		return q.max, true
	}
	return n, false
}

// Dequantize returns q·Δ, the value of n units, exactly. An n above Max (not
// produced by Quantize) is treated as Max, the saturating policy of the
// quantised register.
func (q Quantizer) Dequantize(n uint64) uint64 {
	// n·Δ, at most (2^width − 1)·Δ, which NewQuantizer checked fits.
	return min(n, q.max) * q.delta
}

// round applies Ceil or Nearest to the quotient n = ⌊v/Δ⌋, apart from
// QuantizeSat so that the Floor path stays short.
func (q Quantizer) round(v, n uint64) uint64 {
	r := v - n*q.delta
	switch q.mode {
	case Ceil:
		if r != 0 {
			n++ // cannot overflow: v/Δ < 2^64 − 1 when Δ ≥ 2, and r = 0 when Δ = 1
		}
	case Nearest:
		// r/Δ ≥ 1/2 ⇔ r ≥ Δ − r; the tie r = Δ/2 rounds up.
		if r >= q.delta-r {
			n++
		}
	}
	return n
}
