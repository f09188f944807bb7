package fixedpoint

import (
	"fmt"
	"math"
	"math/bits"
	"strconv"
)

// UQ0_10 is an unsigned fixed-point number with no integer bits and 10
// fraction bits: the value of raw integer r is r/1024.
//
// Layout: the low 10 bits of a uint16 (the hardware register is 10 bits
// wide); the valid raw range is [0, 1023], values [0, 0.9990234375].
// Resolution 2^-10 ≈ 0.000977. 1.0 is not representable; use UQ1_10 where it
// must be. Worked value: DCQCN's initial α = 1023 is 1023/1024 = 0.9990234375;
// g = 1/256 is raw 4.
//
// For an average α ← (1 − g)·α + g, multiply by (1 − g) and add g rather
// than subtract floor(α·g): the first stays ≤ 1023, the second can reach
// 1024 (see the dcqcnAlpha example).
//
// The zero value is 0.
type UQ0_10 uint16

// UQ1_10 is an unsigned fixed-point number with one integer bit and 10
// fraction bits: the value of raw integer r is r/1024.
//
// Layout: the low 11 bits of a uint16; the valid raw range is [0, 2047],
// values [0, 1.9990234375]. Resolution 2^-10. UQ1_10One (raw 1024) is 1.0,
// the cap of DCTCP's α. Worked value: RoCC's β̄ = 1.5 is raw 1536.
//
// The zero value is 0.
type UQ1_10 uint16

// UQ32_32 is an unsigned fixed-point number with 32 integer bits and 32
// fraction bits: the value of raw integer r is r/2^32.
//
// Layout: a uint64, integer part in the high 32 bits, fraction in the low 32.
// Range [0, 2^32 − 2^-32], resolution 2^-32 ≈ 2.3e-10. Worked value: HPCC's
// η = 0.95 is raw 4080218931 (0.95·2^32 = 4080218931.2, rounded to nearest);
// a normalised utilisation U = 20.5 is raw 0x00000014_80000000.
//
// The zero value is 0.
type UQ32_32 uint64

// Format constants: fraction bits, the raw value of 1.0, and the largest raw
// value of each Q type.
const (
	UQ0_10Frac        = 10                    // fraction bits of UQ0_10
	UQ0_10Max  UQ0_10 = 1<<UQ0_10Frac - 1     // 1023 = 0.9990234375
	UQ1_10Frac        = 10                    // fraction bits of UQ1_10
	UQ1_10One  UQ1_10 = 1 << UQ1_10Frac       // 1024 = 1.0
	UQ1_10Max  UQ1_10 = 1<<(UQ1_10Frac+1) - 1 // 2047 = 1.9990234375

	UQ32_32Frac         = 32               // fraction bits of UQ32_32
	UQ32_32One  UQ32_32 = 1 << UQ32_32Frac // 1.0
	UQ32_32Max  UQ32_32 = math.MaxUint64   // 2^32 − 2^-32
)

// UQ0_10FromFloat converts a configuration value to UQ0_10, rounding
// f·1024 to the nearest integer (ties up: 0.00048828125 = 0.5/1024 → raw 1).
// It returns an error if f is NaN, negative, or rounds above 1023
// (f ≥ 1023.5/1024).
func UQ0_10FromFloat(f float64) (UQ0_10, error) {
	r, err := fromFloat(f, UQ0_10Frac, uint64(UQ0_10Max), Nearest, "UQ0_10")
	return UQ0_10(r), err
}

// UQ0_10FromRatio returns num/den in UQ0_10, rounding num·1024/den exactly by
// mode. It returns an error if den is 0 or the rounded result exceeds 1023.
func UQ0_10FromRatio(num, den uint64, mode Rounding) (UQ0_10, error) {
	r, err := fromRatio(num, den, UQ0_10Frac, uint64(UQ0_10Max), mode, "UQ0_10")
	return UQ0_10(r), err
}

// Float returns a's value as a float64 (exact), for reports.
func (a UQ0_10) Float() float64 { return float64(a) / (1 << UQ0_10Frac) }

// String returns a's exact decimal value: UQ0_10(4) is "0.00390625".
func (a UQ0_10) String() string { return formatQ(uint64(a), UQ0_10Frac) }

// MulU64 returns floor(x·a/1024), exact for every x (128-bit product). The
// result never exceeds x for a valid a, so it cannot overflow.
func (a UQ0_10) MulU64(x uint64) uint64 {
	// x·a/2^10, floor.
	q, _ := mulRaw(x, uint64(a), UQ0_10Frac, Floor)
	return q
}

// MulU64Round returns x·a/1024 rounded by mode (Nearest: ties up),
// computed exactly. It cannot overflow for a valid a.
func (a UQ0_10) MulU64Round(x uint64, mode Rounding) uint64 {
	q, _ := mulRaw(x, uint64(a), UQ0_10Frac, mode)
	return q
}

// Mul returns a·b rounded down to UQ0_10: floor(a·b/1024) in raw units.
// The product of two valid values is below 1 and always fits.
func (a UQ0_10) Mul(b UQ0_10) UQ0_10 {
	q, _ := mulRaw(uint64(b), uint64(a), UQ0_10Frac, Floor)
	return UQ0_10(satTo(q, uint64(UQ0_10Max)))
}

// UQ1_10 returns a in UQ1_10 (same raw value, exact).
func (a UQ0_10) UQ1_10() UQ1_10 { return UQ1_10(a) }

// UQ32_32 returns a in UQ32_32 (raw shifted left by 22, exact).
func (a UQ0_10) UQ32_32() UQ32_32 { return UQ32_32(a) << (UQ32_32Frac - UQ0_10Frac) }

// UQ1_10FromFloat converts a configuration value to UQ1_10, rounding f·1024
// to the nearest integer (ties up). It returns an error if f is NaN,
// negative, or rounds above 2047 (f ≥ 2047.5/1024).
func UQ1_10FromFloat(f float64) (UQ1_10, error) {
	r, err := fromFloat(f, UQ1_10Frac, uint64(UQ1_10Max), Nearest, "UQ1_10")
	return UQ1_10(r), err
}

// UQ1_10FromRatio returns num/den in UQ1_10, rounding num·1024/den exactly by
// mode. It returns an error if den is 0 or the rounded result exceeds 2047.
func UQ1_10FromRatio(num, den uint64, mode Rounding) (UQ1_10, error) {
	r, err := fromRatio(num, den, UQ1_10Frac, uint64(UQ1_10Max), mode, "UQ1_10")
	return UQ1_10(r), err
}

// Float returns a's value as a float64 (exact), for reports.
func (a UQ1_10) Float() float64 { return float64(a) / (1 << UQ1_10Frac) }

// String returns a's exact decimal value: UQ1_10(1536) is "1.5".
func (a UQ1_10) String() string { return formatQ(uint64(a), UQ1_10Frac) }

// MulU64 returns floor(x·a/1024), computed exactly. The result can exceed x
// (a ≥ 1.0); beyond 2^64 − 1 it saturates at math.MaxUint64.
func (a UQ1_10) MulU64(x uint64) uint64 {
	// x·a/2^10, floor.
	q, _ := mulRaw(x, uint64(a), UQ1_10Frac, Floor)
	return q
}

// MulU64Round returns x·a/1024 rounded by mode (Nearest: ties up), computed
// exactly; beyond 2^64 − 1 it saturates at math.MaxUint64.
func (a UQ1_10) MulU64Round(x uint64, mode Rounding) uint64 {
	q, _ := mulRaw(x, uint64(a), UQ1_10Frac, mode)
	return q
}

// Mul returns a·b rounded down to UQ1_10, floor(a·b/1024) in raw units,
// saturating at UQ1_10Max (the product of two values can reach almost 4).
func (a UQ1_10) Mul(b UQ1_10) UQ1_10 {
	q, _ := mulRaw(uint64(b), uint64(a), UQ1_10Frac, Floor)
	return UQ1_10(satTo(q, uint64(UQ1_10Max)))
}

// UQ0_10 narrows a to UQ0_10 under policy: a value of 1024 or more wraps to
// its low 10 bits, saturates at 1023, or is rejected with an error matching
// ErrOverflow (the result is then 0).
func (a UQ1_10) UQ0_10(policy Overflow) (UQ0_10, error) {
	v, err := fit(uint64(a), UQ0_10Frac, policy)
	return UQ0_10(v), err
}

// UQ32_32 returns a in UQ32_32 (raw shifted left by 22, exact).
func (a UQ1_10) UQ32_32() UQ32_32 { return UQ32_32(a) << (UQ32_32Frac - UQ1_10Frac) }

// UQ32_32FromFloat converts a configuration value to UQ32_32, rounding
// f·2^32 to the nearest integer (ties up). It returns an error if f is NaN,
// negative, or rounds above UQ32_32Max (f ≥ 2^32 − 2^-33).
func UQ32_32FromFloat(f float64) (UQ32_32, error) {
	r, err := fromFloat(f, UQ32_32Frac, uint64(UQ32_32Max), Nearest, "UQ32_32")
	return UQ32_32(r), err
}

// UQ32_32FromRatio returns num/den in UQ32_32, rounding num·2^32/den exactly
// by mode. It returns an error if den is 0 or the result does not fit
// (num/den ≥ 2^32). It divides; it is meant for configuration and reports,
// not for a per-packet path (see hwtables for reciprocals).
func UQ32_32FromRatio(num, den uint64, mode Rounding) (UQ32_32, error) {
	r, err := fromRatio(num, den, UQ32_32Frac, uint64(UQ32_32Max), mode, "UQ32_32")
	return UQ32_32(r), err
}

// Float returns a's value as a float64, rounded to nearest (exact when the
// raw value has at most 53 significant bits), for reports.
func (a UQ32_32) Float() float64 { return float64(a) / (1 << UQ32_32Frac) }

// String returns a's exact decimal value: UQ32_32One/4 is "0.25".
func (a UQ32_32) String() string { return formatQ(uint64(a), UQ32_32Frac) }

// MulU64 returns floor(x·a/2^32), computed exactly with a 128-bit product,
// saturating at math.MaxUint64.
func (a UQ32_32) MulU64(x uint64) uint64 {
	// x·a/2^32, floor.
	q, _ := mulRaw(x, uint64(a), UQ32_32Frac, Floor)
	return q
}

// MulU64Round returns x·a/2^32 rounded by mode (Nearest: ties up), computed
// exactly, saturating at math.MaxUint64.
func (a UQ32_32) MulU64Round(x uint64, mode Rounding) uint64 {
	q, _ := mulRaw(x, uint64(a), UQ32_32Frac, mode)
	return q
}

// Mul returns a·b rounded down to UQ32_32, floor(a·b/2^32) in raw units,
// saturating at UQ32_32Max.
func (a UQ32_32) Mul(b UQ32_32) UQ32_32 {
	q, _ := mulRaw(uint64(b), uint64(a), UQ32_32Frac, Floor)
	return UQ32_32(q)
}

// ShrSat128 returns ⌊(hi·2^64 + lo) / 2^s⌋ for s in [0, 63], saturated at
// math.MaxUint64 when it needs more than 64 bits (hi ≥ 2^s): a 128-bit
// product brought back to a 64-bit register, as a fixed-point multiply's
// output stage does. s is taken mod 64 (so that a constant s compiles to
// plain shifts). Worked value: ShrSat128(1, 0, 32) = 2^32,
// ShrSat128(2^32, 0, 32) = math.MaxUint64.
func ShrSat128(hi, lo uint64, s uint) uint64 {
	s &= 63
	if hi>>s != 0 {
		return math.MaxUint64
	}
	return hi<<((64-s)&63) | lo>>s
}

// mulRaw returns x·raw/2^frac rounded by mode, for frac in [1, 63], and
// whether it fit in 64 bits; if not, it returns math.MaxUint64.
func mulRaw(x, raw uint64, frac uint, mode Rounding) (q uint64, ok bool) {
	hi, lo := bits.Mul64(x, raw)
	if hi>>frac != 0 {
		return math.MaxUint64, false
	}
	q = ShrSat128(hi, lo, frac)
	rem := lo & mask(frac)
	up := false
	switch mode {
	case Ceil:
		up = rem != 0
	case Nearest:
		// Tie (rem = 2^(frac−1)) rounds up.
		up = rem >= 1<<(frac-1)
	}
	if up {
		if q == math.MaxUint64 {
			return q, false
		}
		q++
	}
	return q, true
}

// satTo returns min(v, max).
func satTo(v, max uint64) uint64 {
	if v > max {
		return max
	}
	return v
}

// fromFloat returns round(f·2^frac) by mode and checks it is at most maxRaw.
func fromFloat(f float64, frac uint, maxRaw uint64, mode Rounding, name string) (uint64, error) {
	maxVal := float64(maxRaw) / float64(uint64(1)<<frac)
	if math.IsNaN(f) || f < 0 {
		return 0, fmt.Errorf("fixedpoint: %v is outside the range of %s [0, %v]", f, name, maxVal)
	}
	if !mode.Valid() {
		return 0, fmt.Errorf("fixedpoint: invalid rounding %v", mode)
	}
	// Scaling by a power of two is exact in float64 (no underflow: frac > 0).
	x := math.Ldexp(f, int(frac))
	if x >= 1<<64 {
		return 0, fmt.Errorf("fixedpoint: %v is outside the range of %s [0, %v]", f, name, maxVal)
	}
	t := math.Floor(x)
	r := uint64(t)
	fr := x - t // exact: t and x share the exponent range
	up := false
	switch mode {
	case Ceil:
		up = fr > 0
	case Nearest:
		up = fr >= 0.5 // tie rounds up (away from zero)
	}
	if up {
		if r == math.MaxUint64 {
			return 0, fmt.Errorf("fixedpoint: %v is outside the range of %s [0, %v]", f, name, maxVal)
		}
		r++
	}
	if r > maxRaw {
		return 0, fmt.Errorf("fixedpoint: %v rounds (%v) to raw %d, outside the range of %s [0, %v] (raw [0, %d])",
			f, mode, r, name, maxVal, maxRaw)
	}
	return r, nil
}

// fromRatio returns round(num·2^frac/den) by mode and checks it is at most
// maxRaw.
func fromRatio(num, den uint64, frac uint, maxRaw uint64, mode Rounding, name string) (uint64, error) {
	if den == 0 {
		return 0, fmt.Errorf("fixedpoint: %s ratio %d/0 has a zero denominator", name, num)
	}
	if !mode.Valid() {
		return 0, fmt.Errorf("fixedpoint: invalid rounding %v", mode)
	}
	errRange := func() error {
		return fmt.Errorf("fixedpoint: ratio %d/%d is outside the range of %s (raw [0, %d])", num, den, name, maxRaw)
	}
	// num·2^frac as a 128-bit number hi:lo.
	hi, lo := num>>(64-frac), num<<frac
	if hi >= den {
		return 0, errRange()
	}
	q, r := bits.Div64(hi, lo, den)
	up := false
	switch mode {
	case Ceil:
		up = r != 0
	case Nearest:
		up = r >= den-r // 2r ≥ den: tie rounds up
	}
	if up {
		if q == math.MaxUint64 {
			return 0, errRange()
		}
		q++
	}
	if q > maxRaw {
		return 0, errRange()
	}
	return q, nil
}

// formatQ writes raw/2^frac as an exact decimal. Each fraction digit is
// produced by multiplying the remainder (below 2^frac ≤ 2^32) by 10, which
// fits in 64 bits; the expansion ends after at most frac digits.
func formatQ(raw uint64, frac uint) string {
	buf := strconv.AppendUint(make([]byte, 0, 48), raw>>frac, 10)
	rem := raw & mask(frac)
	if rem != 0 {
		buf = append(buf, '.')
		for rem != 0 {
			rem *= 10
			buf = append(buf, byte('0'+rem>>frac))
			rem &= mask(frac)
		}
	}
	return string(buf)
}
