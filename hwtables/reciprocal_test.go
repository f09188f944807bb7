package hwtables

import (
	"errors"
	"math"
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestConfigValidation(t *testing.T) {
	for _, c := range []struct {
		name string
		err  func() error
		want string
	}{
		{"eps too large", func() error { _, err := NewReciprocal(ReciprocalConfig{EpsLog2: 17}); return err },
			"ReciprocalConfig.EpsLog2 = 17 out of range [1, 16]"},
		{"mant too wide", func() error {
			_, err := NewReciprocal(ReciprocalConfig{EpsLog2: 7, MantBits: 31})
			return err
		}, "ReciprocalConfig.MantBits = 31 out of range [1, 30]"},
		{"index too wide", func() error { _, err := NewCompact(CompactConfig{IndexBits: 17}); return err },
			"CompactConfig.IndexBits = 17 out of range [1, 16]"},
		{"mant below k", func() error { _, err := NewCompact(CompactConfig{IndexBits: 8, MantBits: 7}); return err },
			"CompactConfig.MantBits = 7 out of range [8, 30]"},
		{"mant too wide compact", func() error { _, err := NewCompact(CompactConfig{MantBits: 31}); return err },
			"CompactConfig.MantBits = 31 out of range [6, 30]"},
	} {
		err := c.err()
		require.Error(t, err, c.name)
		require.ErrorIs(t, err, ErrRange, c.name)
		require.Contains(t, err.Error(), c.want, c.name)
	}
}

// TestPaperRuleByHand checks the first stored n at ε = 1/4 against values
// worked by hand from the paper's rule 1/n_k − 1/n_{k+1} ≥ ε/n_k, that is
// n_{k+1} ≥ 4n_k/3: 1, 2, 3, 4 (every n below 2^e = 4 is more than ε
// apart), then ⌈16/3⌉ = 6, ⌈8⌉ = 8, ⌈32/3⌉ = 11, ⌈44/3⌉ = 15, ⌈20⌉ = 20,
// ⌈80/3⌉ = 27, ⌈36⌉ = 36, ⌈48⌉ = 48, ⌈64⌉ = 64, ⌈256/3⌉ = 86.
func TestPaperRuleByHand(t *testing.T) {
	tb, err := NewReciprocal(ReciprocalConfig{EpsLog2: 2, MantBits: 8})
	require.NoError(t, err)
	want := []uint64{1, 2, 3, 4, 6, 8, 11, 15, 20, 27, 36, 48, 64, 86}
	for i, n := range want {
		require.Equal(t, n-1, tb.Word(i)>>8, "entry %d", i)
	}
	// 1/3 with F = 8: s = bitlen(2) = 2, 2^10/3 = 341.33, rounded down 341,
	// stored without its leading one 2^8: 85.
	require.Equal(t, uint64(85), tb.Word(2)&0xff)
	// 1/6: s = 3, 2^11/6 = 341.33 → 341 → 85; 1/8: s = 3, 2^11/8 = 256 → 0.
	require.Equal(t, uint64(85), tb.Word(4)&0xff)
	require.Equal(t, uint64(0), tb.Word(5)&0xff)
}

func TestDefaultsEqualConstructors(t *testing.T) {
	rec, err := NewReciprocal(ReciprocalConfig{})
	require.NoError(t, err)
	require.Equal(t, rec, DefaultReciprocal(), "tables_gen.go holds NewReciprocal's default table")
	cmp, err := NewCompact(CompactConfig{})
	require.NoError(t, err)
	require.Equal(t, cmp, DefaultCompact(), "tables_gen.go holds NewCompact's default table")

	d := DefaultReciprocal()
	require.Equal(t, KindReciprocal, d.Kind())
	require.Equal(t, "reciprocal", d.Kind().String())
	require.Equal(t, 7, d.EpsLog2())
	require.Equal(t, 1.0/128, d.Eps())
	require.Equal(t, 0, d.IndexBits())
	require.Equal(t, 10, d.MantBits())
	require.Equal(t, 32, d.WordBits(), "22-bit key + 10-bit fraction")
	c := DefaultCompact()
	require.Equal(t, "reciprocal-compact", c.Kind().String())
	require.Equal(t, 6, c.IndexBits())
	require.Equal(t, 0, c.EpsLog2())
	require.Equal(t, 0.0, c.Eps())
	require.Equal(t, 64, c.Entries())
	require.Equal(t, 80, c.Bytes(), "64 entries × 10 bits = 640 bits")
	require.Equal(t, 0, c.SearchSteps())
}

// TestTableSize checks the paper's claim: at ε = 2^-7 the table over
// 1 ≤ n ≤ 2^22 fits in about 10 KB.
func TestTableSize(t *testing.T) {
	d := DefaultReciprocal()
	require.LessOrEqual(t, d.Bytes(), 10*1000, "HPCC section 4.3: about 10 KB")
	require.Equal(t, (d.Entries()*32+7)/8, d.Bytes(), "32-bit words")
}

// TestEntriesClosedForm bounds the entry count analytically for every ε.
// Every n < 2^e is stored (2^e − 1 entries). From n = 2^e on, n_{k+1} ≥
// n_k/(1−ε), so reaching MaxN takes at most ln(MaxN/2^e)/(−ln(1−ε)) + 1
// more; and n_{k+1} < n_k/(1−ε) + 1, so m_k = n_k + c with c = (1−ε)/ε
// grows at most by 1/(1−ε) per entry and at least ln((MaxN + c)/(2^e + c))
// /(−ln(1−ε)) − 1 more are needed.
func TestEntriesClosedForm(t *testing.T) {
	for e := uint(MinEpsLog2); e <= MaxEpsLog2; e++ {
		tb, err := NewReciprocal(ReciprocalConfig{EpsLog2: e})
		require.NoError(t, err)
		eps := math.Ldexp(1, -int(e))
		step := -math.Log1p(-eps)
		c := (1 - eps) / eps
		small := math.Ldexp(1, int(e)) - 1
		hi := small + math.Log(MaxN/math.Ldexp(1, int(e)))/step + 1
		lo := small + math.Log((MaxN+c)/(math.Ldexp(1, int(e))+c))/step - 1
		n := float64(tb.Entries())
		require.LessOrEqual(t, n, hi, "e=%d", e)
		require.GreaterOrEqual(t, n, lo, "e=%d", e)
		require.Equal(t, int(math.Ceil(math.Log2(n))), tb.SearchSteps(), "e=%d: ⌈log2 entries⌉ steps", e)
		// F ≥ e: the reciprocals strictly decrease along the table, so the
		// words ascend in key and a lookup's result is monotone in n.
		for i := 1; i < tb.Entries(); i++ {
			m0, s0 := entryRecip(tb, i-1)
			m1, s1 := entryRecip(tb, i)
			// m1/2^s1 < m0/2^s0 ⇔ m1 < m0·2^(s1−s0); s1 ≥ s0 as keys ascend.
			if s1 < s0 || m1 >= m0<<(s1-s0) {
				t.Fatalf("e=%d: entry %d (%d/2^%d) not below entry %d (%d/2^%d)", e, i, m1, s1, i-1, m0, s0)
			}
		}
	}
}

// entryRecip decodes entry i of an interval table into mant/2^shift.
func entryRecip(tb *Table, i int) (uint64, uint) {
	n := tb.Word(i)>>uint(tb.MantBits()) + 1
	return tb.Lookup(n)
}

func bigU(v uint64) *big.Int      { return new(big.Int).SetUint64(v) }
func bigPow2(s uint) *big.Int     { return new(big.Int).Lsh(big.NewInt(1), s) }
func bigQuo(a, n uint64) *big.Rat { return new(big.Rat).SetFrac(bigU(a), bigU(n)) }

func TestDivRange(t *testing.T) {
	for _, tb := range []*Table{DefaultReciprocal(), DefaultCompact()} {
		for _, n := range []uint64{0, MaxN + 1, math.MaxUint64} {
			_, err := tb.Div(1000, n)
			require.ErrorIs(t, err, ErrRange, "n=%d", n)
			var re *RangeError
			require.True(t, errors.As(err, &re))
			require.Equal(t, RangeError{"divisor n", n, 1, MaxN}, *re)
		}
		// The fast form clamps: n = 0 reads n = 1's entry, n > MaxN MaxN's.
		require.Equal(t, tb.DivFast(12345, 1), tb.DivFast(12345, 0), tb.Kind())
		require.Equal(t, tb.DivFast(1<<40, MaxN), tb.DivFast(1<<40, MaxN+1), tb.Kind())
		require.Equal(t, tb.DivFast(1<<40, MaxN), tb.DivFast(1<<40, math.MaxUint64), tb.Kind())
		q, err := tb.Div(1<<40, MaxN)
		require.NoError(t, err)
		require.Equal(t, tb.DivFast(1<<40, MaxN), q)
	}
	// The interval table holds 1/1 exactly (M = 2^F, shift F), so a/1 = a
	// for every a, including the largest: the 128-bit product cannot overflow.
	d := DefaultReciprocal()
	require.Equal(t, uint64(math.MaxUint64), d.DivFast(math.MaxUint64, 1))
	require.Equal(t, uint64(math.MaxUint64), d.DivFast(math.MaxUint64, 0), "n = 0 divides by 1")
}

// TestDivWithinBound checks Div against the exact quotient (math/big) for
// hand-picked a and n, including the extremes of both and the n where the
// measured errors peak.
func TestDivWithinBound(t *testing.T) {
	as := []uint64{0, 1, 2, 3, 1000000, 1 << 32, 1<<53 + 1, math.MaxUint64 / 3, math.MaxUint64}
	ns := []uint64{1, 2, 3, 127, 128, 129, 1000, 4095, 4096, 4097, 248553, 3634567, MaxN - 1, MaxN}
	for _, tb := range []*Table{DefaultReciprocal(), DefaultCompact()} {
		for _, a := range as {
			for _, n := range ns {
				q, err := tb.Div(a, n)
				require.NoError(t, err)
				requireWithinBound(t, tb, a, n, q)
			}
		}
	}
}

// requireWithinBound checks (a/n)(1 − Under) − 1 < q ≤ (a/n)(1 + Over) with
// the bound as the exact rational NewReciprocal and NewCompact derive
// (written here from e, k and F, not read from Bound()).
func requireWithinBound(t testing.TB, tb *Table, a, n, q uint64) {
	t.Helper()
	over, under := exactBound(tb)
	exact := bigQuo(a, n)
	hi := new(big.Rat).Mul(exact, new(big.Rat).Add(big.NewRat(1, 1), over))
	lo := new(big.Rat).Mul(exact, new(big.Rat).Sub(big.NewRat(1, 1), under))
	lo.Sub(lo, big.NewRat(1, 1))
	got := new(big.Rat).SetInt(bigU(q))
	require.LessOrEqual(t, got.Cmp(hi), 0, "%v a=%d n=%d q=%d above a/n·(1+%v)", tb.Kind(), a, n, q, over)
	require.Greater(t, got.Cmp(lo), 0, "%v a=%d n=%d q=%d below a/n·(1−%v) − 1", tb.Kind(), a, n, q, under)
}

// exactBound is the analytic bound as exact rationals: 1/(2^e − 1) and 2^-F
// for an interval table; (H + Q + 1)/(H·Q), H = 2^(k+1) + 1, Q = 2^(F+1) on
// both sides for a compact table.
func exactBound(tb *Table) (over, under *big.Rat) {
	f := uint(tb.MantBits())
	if tb.Kind() == KindCompact {
		h := int64(1)<<(tb.IndexBits()+1) + 1
		q := int64(1) << (f + 1)
		b := big.NewRat(h+q+1, h*q)
		return b, b
	}
	return big.NewRat(1, int64(1)<<tb.EpsLog2()-1), new(big.Rat).SetFrac(big.NewInt(1), bigPow2(f))
}

func TestBoundFloats(t *testing.T) {
	for _, tb := range propTables(t) {
		over, under := exactBound(tb)
		o, _ := over.Float64()
		u, _ := under.Float64()
		// Both are the float64 nearest the same rational (big.Rat.Float64
		// rounds correctly; Bound() does one correctly rounded division of
		// exact integers), so they are equal.
		require.Equal(t, Bound{Over: o, Under: u}, tb.Bound())
	}
}

func TestWordOutOfRange(t *testing.T) {
	d := DefaultReciprocal()
	require.Equal(t, uint64(0), d.Word(-1))
	require.Equal(t, uint64(0), d.Word(d.Entries()), "the sentinel padding is not a word")
	require.NotEqual(t, uint64(0), d.Word(d.Entries()-1))
}

func TestNoAllocs(t *testing.T) {
	for _, tb := range []*Table{DefaultReciprocal(), DefaultCompact()} {
		var sink uint64
		n := uint64(1)
		allocs := testing.AllocsPerRun(1000, func() {
			n = (n*7+3)&(MaxN-1) + 1
			q, _ := tb.Div(1<<40, n)
			m, sh := tb.Lookup(n)
			sink += q + tb.DivFast(1<<40, n) + m + uint64(sh)
		})
		require.Equal(t, 0.0, allocs, tb.Kind())
		_ = sink
	}
}
