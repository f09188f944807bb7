package hwtables

import (
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"
)

// roccPaperShift is AUTO_TUNE exactly as Algorithm 1 lines 15–21 write it,
// with the real-valued test F < Fmax/level done in exact rational
// arithmetic (math/big), independent of the table's ceil trick.
func roccPaperShift(f, fmax uint64) uint {
	level := uint64(2)
	var lhs, rhs big.Rat
	for {
		lhs.SetUint64(f)
		rhs.SetFrac(new(big.Int).SetUint64(fmax), new(big.Int).SetUint64(level))
		if !(lhs.Cmp(&rhs) < 0 && level < 64) {
			break
		}
		level *= 2
	}
	ratio := level / 2
	s := uint(0)
	for ratio > 1 {
		ratio >>= 1
		s++
	}
	return s
}

// roccLoopShift is the same loop with the comparison F·level < Fmax in
// integers (exact for the small values the exhaustive test uses).
func roccLoopShift(f, fmax uint64) uint {
	level := uint64(2)
	for f*level < fmax && level < 64 {
		level *= 2
	}
	s := uint(0)
	for r := level / 2; r > 1; r >>= 1 {
		s++
	}
	return s
}

func TestRoCCAutoTuneMatchesPaperLoopExhaustive(t *testing.T) {
	// The presets' F registers: Fmax = 1000, 4000 and 10 000 ΔF with 8
	// fraction bits, plus small and odd values where the ceil matters.
	// 4000<<8 + 10000<<8 + 1000<<8 ≈ 3.8M lookups.
	for _, fmax := range []uint64{1, 2, 3, 31, 33, 63, 64, 65, 1000, 4001, 1000 << 8, 4000 << 8, 10000 << 8} {
		tab, err := NewRoCCAutoTune(fmax)
		require.NoError(t, err)
		for f := uint64(0); f <= fmax+2; f++ {
			if got, want := tab.Shift(f), roccLoopShift(f, fmax); got != want {
				require.Equal(t, want, got, "fmax=%d f=%d", fmax, f)
			}
		}
	}
}

func TestRoCCAutoTuneMatchesExactRational(t *testing.T) {
	// Around every bound of a few Fmax values, compare with math/big: the
	// independent oracle for the real-valued comparison of the paper.
	for _, fmax := range []uint64{4000, 4000 << 8, 10000 << 8, 12345, RoCCAutoTuneMaxFmax} {
		tab, err := NewRoCCAutoTune(fmax)
		require.NoError(t, err)
		for j := uint(1); j <= 5; j++ {
			edge := fmax >> j
			for d := uint64(0); d < 4; d++ {
				for _, f := range []uint64{edge + d, edge - d} {
					require.Equal(t, roccPaperShift(f, fmax), tab.Shift(f), "fmax=%d f=%d", fmax, f)
				}
			}
		}
	}
}

func TestRoCCAutoTunePaperRegions(t *testing.T) {
	// Paper 40 Gb/s setting, F in whole ΔF (section VI): Fmax = 4000, so the
	// regions start at 2000, 1000, 500, 250, 125 (Fmax/2 … Fmax/32 exactly).
	tab, err := NewRoCCAutoTune(4000)
	require.NoError(t, err)
	require.Equal(t, [5]uint64{125, 250, 500, 1000, 2000}, tab.Bounds())
	cases := []struct {
		f    uint64
		want uint
	}{
		{4000, 0}, {2000, 0}, // F ≥ Fmax/2: level stays 2, ratio 1
		{1999, 1}, {1000, 1}, // Fmax/4 ≤ F < Fmax/2: ratio 2
		{999, 2}, {500, 2},
		{499, 3}, {250, 3},
		{249, 4}, {125, 4},
		{124, 5}, {10, 5}, {0, 5}, // below Fmax/32 the loop stops at level 64: ratio 32
	}
	for _, c := range cases {
		require.Equal(t, c.want, tab.Shift(c.f), "F=%d", c.f)
	}
	// Fmax = 4001: Fmax/2 = 2000.5, so F = 2000 is below it (shift 1) and
	// the stored bound is 2001.
	tab, err = NewRoCCAutoTune(4001)
	require.NoError(t, err)
	require.Equal(t, uint(1), tab.Shift(2000))
	require.Equal(t, uint(0), tab.Shift(2001))
}

func TestRoCCAutoTuneRejects(t *testing.T) {
	for _, fmax := range []uint64{0, RoCCAutoTuneMaxFmax + 1, ^uint64(0)} {
		_, err := NewRoCCAutoTune(fmax)
		var re *RangeError
		require.ErrorAs(t, err, &re)
		require.ErrorIs(t, err, ErrRange)
		require.Equal(t, RangeError{"RoCCAutoTune Fmax", fmax, 1, RoCCAutoTuneMaxFmax}, *re)
		require.Contains(t, err.Error(), "RoCCAutoTune Fmax = ")
		require.Contains(t, err.Error(), "out of range [1, 281474976710655]")
	}
}

func TestRoCCAutoTuneNoAllocs(t *testing.T) {
	tab, err := NewRoCCAutoTune(4000 << 8)
	require.NoError(t, err)
	f := uint64(0)
	allocs := testing.AllocsPerRun(1000, func() { f += uint64(tab.Shift(f)) + 1 })
	require.Zero(t, allocs)
}

// FuzzRoCCAutoTune checks the table against the integer form of the paper's
// loop for arbitrary (Fmax, F), and that the shift is monotone: a smaller F
// never gets a smaller shift (larger gains).
func FuzzRoCCAutoTune(f *testing.F) {
	f.Add(uint64(4000), uint64(2000))             // on the top bound of the 40 Gb/s table
	f.Add(uint64(4000), uint64(124))              // just under Fmax/32
	f.Add(uint64(4001), uint64(2000))             // odd Fmax: the bound is rounded up
	f.Add(uint64(10000<<8), uint64(312<<8))       // 100 Gb/s, 8 fraction bits
	f.Add(uint64(1), uint64(0))                   // smallest table
	f.Add(uint64(RoCCAutoTuneMaxFmax), uint64(1)) // widest table
	f.Fuzz(func(t *testing.T, fmax, fv uint64) {
		tab, err := NewRoCCAutoTune(fmax)
		if fmax == 0 || fmax > RoCCAutoTuneMaxFmax {
			if err == nil {
				t.Fatalf("fmax=%d accepted", fmax)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if fv > fmax+1 {
			fv %= fmax + 2
		}
		// f·level < fmax with level ≤ 64 fits: f ≤ 2^48, level ≤ 2^6.
		if got, want := tab.Shift(fv), roccLoopShift(fv, fmax); got != want {
			t.Fatalf("fmax=%d f=%d: shift %d, loop %d", fmax, fv, got, want)
		}
		if fv > 0 && tab.Shift(fv-1) < tab.Shift(fv) {
			t.Fatalf("fmax=%d: shift(%d)=%d < shift(%d)=%d", fmax, fv-1, tab.Shift(fv-1), fv, tab.Shift(fv))
		}
	})
}
