package hwtables

// RoCCAutoTuneRegions is the number of AUTO_TUNE regions (ratio 1, 2, 4, 8,
// 16, 32): the loop's level runs from 2 to 64.
const RoCCAutoTuneRegions = 6

// RoCCAutoTuneMaxShift is the largest gain shift, log2(64/2) = 5: the gains
// of the lowest region are ᾱ/32 and β̄/32.
const RoCCAutoTuneMaxShift = RoCCAutoTuneRegions - 1

// RoCCAutoTuneBounds is the number of region edges in the table, one fewer
// than the regions: ⌈Fmax/32⌉, ⌈Fmax/16⌉, ⌈Fmax/8⌉, ⌈Fmax/4⌉, ⌈Fmax/2⌉.
const RoCCAutoTuneBounds = RoCCAutoTuneRegions - 1

// RoCCAutoTuneMaxFmax is the largest Fmax NewRoCCAutoTune accepts, 2^48 − 1:
// a 48-bit F register is far wider than any RoCC deployment needs (the
// paper's 100 Gb/s Fmax is 10 000 ΔF, 14 bits) and keeps ⌈Fmax/2^j⌉ free of
// overflow.
const RoCCAutoTuneMaxFmax = 1<<48 - 1

// RoCCAutoTune is RoCC's AUTO_TUNE region table for one Fmax ([RoCC]
// Algorithm 1 lines 15–21, §III-B "Proportional integral" and §V-C
// "Discrete α and β values"):
// five region bounds in ascending order and a binary-search lookup from the
// fair rate F to the gain shift s = log2(ratio).
//
// AUTO_TUNE in the paper is a loop over the current fair rate F:
//
//	level ← 2
//	while F < Fmax/level AND level < 64 do level ← level × 2
//	ratio ← level ÷ 2;  α ← ᾱ ÷ ratio;  β ← β̄ ÷ ratio
//
// so ratio is 2^s with s in [0, 5]: six regions of [Fmin, Fmax], each one
// halving the gains of the region above it. Section V-C says the discrete
// adjustment "can be easily implemented using a binary search-based lookup
// mechanism"; this type is that lookup. The table has five bounds, the
// region edges Fmax/2, Fmax/4, …, Fmax/32, and a lookup is three
// comparisons.
//
// Exactness: the paper's test F < Fmax/level is between real numbers. The
// table stores the bound b_j = ⌈Fmax / 2^j⌉ (j = 1..5) and tests F < b_j.
// For an integer F, F < x ⟺ F < ⌈x⌉, so the table reproduces the loop
// exactly for every integer F and every integer Fmax, with no truncation
// error; the tests check this exhaustively over the presets' F registers.
// F and Fmax are in the F register's own unit (ΔF·2^−k when the register
// has k fraction bits): scaling both sides by 2^k keeps the comparison
// exact.
//
// Memory layout: five uint64 bounds and Fmax, 48 bytes; a hardware table
// needs five words of the F register's width (hwtables/gen exports them).
// The zero value maps every F to shift 0 (ratio 1), which is no table at
// all; build one with NewRoCCAutoTune.
type RoCCAutoTune struct {
	// bound[i] = ⌈Fmax / 2^(5−i)⌉, ascending: bound[0] = ⌈Fmax/32⌉, …,
	// bound[4] = ⌈Fmax/2⌉.
	bound [RoCCAutoTuneBounds]uint64
	fmax  uint64
}

// NewRoCCAutoTune builds the region table for Fmax (in the F register's
// unit). For an Fmax outside [1, RoCCAutoTuneMaxFmax] it returns a
// *RangeError naming "RoCCAutoTune Fmax", the value and the range.
func NewRoCCAutoTune(fmax uint64) (RoCCAutoTune, error) {
	if fmax == 0 || fmax > RoCCAutoTuneMaxFmax {
		return RoCCAutoTune{}, &RangeError{"RoCCAutoTune Fmax", fmax, 1, RoCCAutoTuneMaxFmax}
	}
	var t RoCCAutoTune
	t.fmax = fmax
	for i := range t.bound {
		// b = ⌈Fmax / 2^j⌉ with j = 5 − i, computed as (Fmax + 2^j − 1) >> j;
		// no overflow since Fmax < 2^48.
		j := uint(RoCCAutoTuneBounds - i)
		t.bound[i] = (fmax + (1<<j - 1)) >> j
	}
	return t, nil
}

// Fmax returns the Fmax the table was built for.
func (t *RoCCAutoTune) Fmax() uint64 { return t.fmax }

// Bounds returns the five region edges ⌈Fmax/32⌉, ⌈Fmax/16⌉, ⌈Fmax/8⌉,
// ⌈Fmax/4⌉, ⌈Fmax/2⌉ in ascending order: the words a hardware table holds.
// Region s (gain shift s) is the F with bound[4−s] > F ≥ bound[5−s]; shift
// 0 is F ≥ ⌈Fmax/2⌉ and shift 5 is F < ⌈Fmax/32⌉.
func (t *RoCCAutoTune) Bounds() [RoCCAutoTuneBounds]uint64 { return t.bound }

// Shift returns the gain shift s = log2(ratio) in [0, 5] of AUTO_TUNE for
// the fair rate f: α = ᾱ >> s and β = β̄ >> s (Algorithm 1, lines 15–21).
//
// s is the number of bounds strictly above f, which is the number of times
// the paper's loop doubles level (the bounds fall as level grows, so the
// loop stops at the first bound f reaches). It is counted as five
// comparators side by side, as RTL would: five compares and no
// data-dependent branch (a binary search takes three branches, which
// mispredict as F moves between regions). Each comparator is the borrow
// of f − bound: with f clamped to RoCCAutoTuneMaxFmax (2^48 − 1, above
// every bound), both are below 2^63, so the 64-bit difference wraps to 2^63 or
// more, setting bit 63, exactly when f < bound. No allocation. s never
// decreases as f decreases: lower rates get smaller gains.
func (t *RoCCAutoTune) Shift(f uint64) uint {
	x, b := min(f, RoCCAutoTuneMaxFmax), &t.bound
	return uint((x-b[0])>>63 + (x-b[1])>>63 + (x-b[2])>>63 + (x-b[3])>>63 + (x-b[4])>>63)
}
