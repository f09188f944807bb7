package gen

import (
	"math/big"
	"math/bits"
	"testing"

	"github.com/hwcc/hwcc/hwtables"
	"github.com/stretchr/testify/require"
)

// ratio is r·n − 1 = num / 2^sh for one n, kept as integers.
type ratio struct {
	num int64 // m·n − 2^sh, |num| < 2^53
	sh  uint
	n   uint64
}

// greaterMag reports |a| > |b| exactly: |a.num|·2^b.sh > |b.num|·2^a.sh,
// compared in 128 bits.
func greaterMag(a, b ratio) bool {
	abs := func(v int64) uint64 { return uint64(max(v, -v)) }
	h1, l1 := bits.Mul64(abs(a.num), uint64(1)<<b.sh)
	h2, l2 := bits.Mul64(abs(b.num), uint64(1)<<a.sh)
	return h1 > h2 || (h1 == h2 && l1 > l2)
}

func (r ratio) float() float64 {
	f, _ := new(big.Rat).SetFrac(big.NewInt(r.num), new(big.Int).Lsh(big.NewInt(1), r.sh)).Float64()
	return max(f, -f)
}

// TestMeasureExhaustive walks every n in [1, MaxN] and keeps the worst
// over- and underestimate by exact integer comparison of the fractions
// (m·n − 2^sh)/2^sh, without Measure's float64 division, then checks that
// Measure finds the same n (the smallest where each maximum occurs) and the
// same values (the exact fractions rounded by math/big).
func TestMeasureExhaustive(t *testing.T) {
	tiny, err := hwtables.NewCompact(hwtables.CompactConfig{IndexBits: 1, MantBits: 4})
	require.NoError(t, err)
	coarse, err := hwtables.NewReciprocal(hwtables.ReciprocalConfig{EpsLog2: 4, MantBits: 3})
	require.NoError(t, err)
	for _, tb := range []*hwtables.Table{hwtables.DefaultReciprocal(), hwtables.DefaultCompact(), tiny, coarse} {
		var over, under ratio
		for n := uint64(1); n <= hwtables.MaxN; n++ {
			m, sh := tb.Lookup(n)
			r := ratio{int64(m*n) - int64(1)<<sh, sh, n}
			switch {
			case r.num > 0 && (over.n == 0 || greaterMag(r, over)):
				over = r
			case r.num < 0 && (under.n == 0 || greaterMag(r, under)):
				under = r
			}
		}
		var want ErrorStats
		if over.n != 0 {
			want.MaxOver, want.MaxOverN = over.float(), over.n
		}
		if under.n != 0 {
			want.MaxUnder, want.MaxUnderN = under.float(), under.n
		}
		got := Measure(tb)
		require.Equal(t, want, got, "%v", tb.Kind())
		// The measured worst stays within the analytic bound.
		b := tb.Bound()
		require.LessOrEqual(t, got.MaxOver, b.Over)
		require.LessOrEqual(t, got.MaxUnder, b.Under)
	}
	// The figures NewReciprocal's doc comment quotes for the default table.
	m := Measure(hwtables.DefaultReciprocal())
	require.Equal(t, uint64(3634567), m.MaxOverN)
	require.Equal(t, uint64(248553), m.MaxUnderN)
	require.InDelta(t, 0.00787, m.MaxOver, 0.000005)
	require.InDelta(t, 0.00092, m.MaxUnder, 0.000005)
}

func TestMeasureNoAllocs(t *testing.T) {
	tb := hwtables.DefaultCompact()
	require.Zero(t, testing.AllocsPerRun(2, func() { _ = Measure(tb) }))
}
