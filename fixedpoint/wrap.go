package fixedpoint

import (
	"math/bits"

	"github.com/hwcc/hwcc/units"
)

// WrapDelta returns how far an N-bit free-running counter advanced from the
// reading older to the reading newer: (newer − older) mod 2^width.
//
// Only the low width bits of each reading matter; higher bits are ignored.
// The result is the true advance if and only if the counter advanced by less
// than 2^width between the readings (see WrapTime). A width of 64 or more is
// a 64-bit counter; a width of 0 is a counter with one state and gives 0.
//
// Worked value: an HPCC txBytes field (20 bits) read as 0xFFFF0 and then
// 0x00010 advanced by 0x20 = 32 units of 128 B.
func WrapDelta(older, newer uint64, width uint) uint64 { return WrapSub(newer, older, width) }

// picosPerByteSecond is 8 bits per byte times 10^12 ps per second: a byte
// count times this, divided by a rate in bit/s, is a time in picoseconds.
const picosPerByteSecond = 8 * uint64(units.Second)

// WrapTime returns how long a counter of width bits that counts in units of
// unit bytes takes to wrap once at rate: the time to send 2^width·unit bytes,
// floor(2^width · unit · 8 · 10^12 / rate) picoseconds, computed exactly.
//
// Rounding: down, so that the exact wrap time is never shorter than the
// result. Because the counter counts whole units, two readings can already
// be 2^width units apart after (2^width − 1)·unit + 1 bytes; the sampling
// interval that is guaranteed unambiguous is therefore
//
//	interval ≤ WrapTime(width, unit, rate) − units.SerializationTime(unit, rate)
//
// (WrapTime rounds down and SerializationTime up, so the bound is safe).
//
// Edge cases, none of which panic: unit ≤ 0 gives 0; rate ≤ 0 gives
// units.MaxTime (a counter that never moves never wraps); a result beyond
// units.MaxTime saturates at units.MaxTime. Any width is accepted (width 0
// is a counter with one state, which "wraps" every unit).
//
// Worked value: HPCC's txBytes (20 bits of 128 B) at 400 Gb/s wraps after
// 2^20·128·8 bit / 400 Gb/s = 2.68435456 ms.
func WrapTime(width uint, unit units.Bytes, rate units.Rate) units.Time {
	if unit <= 0 {
		return 0
	}
	if rate <= 0 {
		return units.MaxTime
	}
	// P = unit·8·10^12 < 2^63·2^43 fits in 128 bits.
	hi, lo := bits.Mul64(uint64(unit), picosPerByteSecond)
	// Shift P left by width. If that would pass 2^128 the quotient is at
	// least 2^128/2^63 and saturates anyway.
	pbits := uint(bits.Len64(lo))
	if hi != 0 {
		pbits = 64 + uint(bits.Len64(hi))
	}
	if pbits+width > 128 {
		return units.MaxTime
	}
	switch {
	case width >= 64:
		hi, lo = lo<<(width-64), 0
	case width > 0:
		hi, lo = hi<<width|lo>>(64-width), lo<<width
	}
	r := uint64(rate)
	if hi >= r { // quotient ≥ 2^64
		return units.MaxTime
	}
	q, _ := bits.Div64(hi, lo, r) // floor
	if q > uint64(units.MaxTime) {
		return units.MaxTime
	}
	return units.Time(q)
}
