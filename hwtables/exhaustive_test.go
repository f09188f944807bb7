package hwtables

import (
	"math"
	"math/big"
	"math/bits"
	"testing"

	"github.com/stretchr/testify/require"
)

// less128 reports a·b < c·d for 64-bit factors, exactly.
func less128(a, b, c, d uint64) bool {
	h1, l1 := bits.Mul64(a, b)
	h2, l2 := bits.Mul64(c, d)
	return h1 < h2 || (h1 == h2 && l1 < l2)
}

// relErr is (mant·n − 2^sh)/2^sh as a float64; exact because the numerator
// is an integer below 2^53 and the denominator a power of two.
func relErr(m, n uint64, sh uint) float64 {
	return float64(int64(m*n)-int64(1)<<sh) / float64(int64(1)<<sh)
}

// checkIntervalExhaustive looks up every n in [1, MaxN] and checks, with its
// own walk of the paper's rule and exact integer arithmetic:
//   - the entry used for n is the paper's: the last n_k ≤ n stored by
//     "store n when 1/n_k − 1/n ≥ ε/n_k", which for ε = 2^-e is the integer
//     test 2^e·(n − n_k) ≥ n;
//   - its reciprocal is 1/n_k normalised and rounded down: 2^(sh−F−1) < n_k
//     ≤ 2^(sh−F) and mant = ⌊2^sh / n_k⌋;
//   - the binary search takes at most ⌈log2 entries⌉ steps;
//   - −2^-F < r·n − 1 < 1/(2^e − 1), the bound of NewReciprocal;
//   - the entry count matches the walk.
func checkIntervalExhaustive(t *testing.T, tb *Table, e, f uint) {
	t.Helper()
	maxSteps := int(math.Ceil(math.Log2(float64(tb.Entries()))))
	epsDen := uint64(1)<<e - 1 // ε/(1−ε) = 1/(2^e − 1)
	cur, entries := uint64(1), 1
	var want errStats
	for n := uint64(1); n <= MaxN; n++ {
		if (n-cur)<<e >= n {
			cur, entries = n, entries+1
		}
		m, sh := tb.Lookup(n)
		if _, steps := tb.search(n); steps > maxSteps {
			t.Fatalf("n = %d: %d search steps, want ≤ %d", n, steps, maxSteps)
		}
		s := sh - f
		if !(cur <= 1<<s && (s == 0 || cur > 1<<(s-1))) || m != (uint64(1)<<sh)/cur {
			t.Fatalf("n = %d: got mant %d shift %d, want ⌊2^sh/%d⌋ normalised", n, m, sh, cur)
		}
		p, one := m*n, uint64(1)<<sh
		if p >= one {
			// (p − one)/one < 1/(2^e − 1)  ⇔  (p − one)·(2^e − 1) < one.
			if !less128(p-one, epsDen, one, 1) {
				t.Fatalf("n = %d: r·n − 1 = %g not below 1/(2^%d − 1)", n, relErr(m, n, sh), e)
			}
		} else if !less128(one-p, uint64(1)<<f, one, 1) {
			// (one − p)/one < 2^-F  ⇔  (one − p)·2^F < one.
			t.Fatalf("n = %d: 1 − r·n = %g not below 2^-%d", n, -relErr(m, n, sh), f)
		}
		if v := relErr(m, n, sh); v > want.MaxOver {
			want.MaxOver, want.MaxOverN = v, n
		} else if -v > want.MaxUnder {
			want.MaxUnder, want.MaxUnderN = -v, n
		}
	}
	require.Equal(t, entries, tb.Entries(), "entries: the paper's rule walked over every n")
	// The bound is tight: take an interval with n_k ≥ 2^21; its last divisor
	// n_{k+1} − 1 ≥ n_k/(1−ε) − 1 and r ≥ (1 − 2^-F)/n_k, so the worst
	// overestimate is at least (1 − 2^-F)(1/(1−ε) − 2^-21) − 1.
	eps := math.Ldexp(1, -int(e))
	floor := (1-math.Ldexp(1, -int(f)))*(1/(1-eps)-math.Ldexp(1, -21)) - 1
	require.Greater(t, want.MaxOver, floor, "the interval bound is approached")
}

func TestReciprocalExhaustiveDefault(t *testing.T) {
	checkIntervalExhaustive(t, DefaultReciprocal(), DefaultEpsLog2, DefaultEpsLog2+reciprocalGuardBits)
}

// TestReciprocalExhaustiveRange covers ε = 2^-4 and 2^-12, the coarse and
// fine ends of the range HPCC's table is useful over, and a mantissa narrower than ε (F < e), where
// quantisation rather than the interval rule dominates below.
func TestReciprocalExhaustiveRange(t *testing.T) {
	for _, c := range []struct{ e, f uint }{{4, 7}, {12, 15}, {9, 5}} {
		tb, err := NewReciprocal(ReciprocalConfig{EpsLog2: c.e, MantBits: c.f})
		require.NoError(t, err)
		checkIntervalExhaustive(t, tb, c.e, c.f)
	}
}

// compactOracle returns R_i = round(2^(F+1)/c_i), c_i = 1 + (2i+1)/2^(k+1),
// computed with math/big rationals, independently of compactWords.
func compactOracle(k, f uint) []uint64 {
	out := make([]uint64, 1<<k)
	for i := range out {
		c := new(big.Rat).SetFrac64(int64(2*i+1), 1<<(k+1))
		c.Add(c, big.NewRat(1, 1))
		v := new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), f+1))
		v.Quo(v, c)
		v.Add(v, big.NewRat(1, 2)) // round half up; no ties occur
		q := new(big.Int).Quo(v.Num(), v.Denom())
		out[i] = q.Uint64()
	}
	return out
}

// checkCompactExhaustive looks up every n in [1, MaxN] and checks the entry
// address (the k bits after the leading one), the entry value against the
// math/big oracle, the bound |r·n − 1| ≤ (H + Q + 1)/(H·Q) with H = 2^(k+1)+1
// and Q = 2^(F+1) (which is (1 + 1/H)(1 + 1/Q) − 1, NewCompact's bound), the
// lower limit h − 2^-(F+2) of the worst error (at n = 1 the whole interval
// error shows).
func checkCompactExhaustive(t *testing.T, tb *Table, k, f uint) {
	t.Helper()
	oracle := compactOracle(k, f)
	hh, qq := uint64(1)<<(k+1)+1, uint64(1)<<(f+1)
	var want errStats
	for n := uint64(1); n <= MaxN; n++ {
		l := uint(bits.Len64(n))
		// the k bits after the leading one, by exact integer scaling of x = n/2^(l−1)
		i := (n<<k)>>(l-1) - 1<<k
		m, sh := tb.Lookup(n)
		if m != oracle[i] || sh != l+f {
			t.Fatalf("n = %d: got mant %d shift %d, want %d, %d", n, m, sh, oracle[i], l+f)
		}
		p, one := m*n, uint64(1)<<sh
		diff := max(p, one) - min(p, one)
		if less128(one, hh+qq+1, diff, hh*qq) {
			t.Fatalf("n = %d: |r·n − 1| = %g above the bound", n, relErr(m, n, sh))
		}
		if v := relErr(m, n, sh); v > want.MaxOver {
			want.MaxOver, want.MaxOverN = v, n
		} else if -v > want.MaxUnder {
			want.MaxUnder, want.MaxUnderN = -v, n
		}
	}
	h := 1 / float64(hh)
	require.GreaterOrEqual(t, want.Worst(), h-math.Ldexp(1, -int(f)-2), "the interval bound is approached")
}

func TestCompactExhaustiveDefault(t *testing.T) {
	checkCompactExhaustive(t, DefaultCompact(), DefaultIndexBits, DefaultIndexBits+compactGuardBits)
}

func TestCompactExhaustiveRange(t *testing.T) {
	for _, c := range []struct{ k, f uint }{{1, 1}, {4, 8}, {12, 12}, {16, 30}} {
		tb, err := NewCompact(CompactConfig{IndexBits: c.k, MantBits: c.f})
		require.NoError(t, err)
		checkCompactExhaustive(t, tb, c.k, c.f)
	}
}

// errStats is the worst relative error an exhaustive walk finds; hwtables/gen's
// Measure computes the same figures for the exporters and is tested there.
type errStats struct {
	MaxOver   float64 // largest r·n − 1
	MaxOverN  uint64  // the smallest n where MaxOver occurs
	MaxUnder  float64 // largest 1 − r·n
	MaxUnderN uint64  // the smallest n where MaxUnder occurs
}

// Worst returns max(MaxOver, MaxUnder).
func (s errStats) Worst() float64 { return max(s.MaxOver, s.MaxUnder) }

// TestIndexMatchesSearch: the constant-time index picks the binary
// search's entry for every n in [1, MaxN], for the default table and for
// every ε = 2^-e the package allows (each e is 4M lookups). A bucket holds
// the entry of its least divisor (buildIndex; TestLookupMatchesReference
// compares the reciprocals it stores), so the bucket find returns for n, or
// the next one when n is past the bucket's last, must be a bucket whose
// least divisor (clamped to [1, MaxN]) the search puts in n's interval; and
// every bucket's next must be the next bucket's mult, the reciprocal recip
// reads in that case.
func TestIndexMatchesSearch(t *testing.T) {
	tables := []*Table{DefaultReciprocal()}
	if !testing.Short() {
		for e := uint(MinEpsLog2); e <= MaxEpsLog2; e++ {
			tb, err := NewReciprocal(ReciprocalConfig{EpsLog2: e})
			if err != nil {
				t.Fatal(err)
			}
			tables = append(tables, tb)
		}
	}
	for _, tb := range tables {
		entry := make([]int, len(tb.rec)) // the searched entry of each bucket's least divisor
		for b := range entry {
			entry[b], _ = tb.search(min(max(bucketLow(uint(b), uint(tb.m)), 1), MaxN))
		}
		for b := range len(tb.rec) - 1 {
			if tb.rec[b].next != tb.rec[b+1].mult {
				t.Fatalf("e = %d, bucket %d: next %#x, the next bucket's mult %#x", tb.EpsLog2(), b, tb.rec[b].next, tb.rec[b+1].mult)
			}
		}
		for n := uint64(1); n <= MaxN; n++ {
			k, _ := tb.search(n)
			b := tb.find(n)
			if n > tb.rec[b].last {
				b++
			}
			if got := entry[b]; got != k {
				t.Fatalf("e = %d, n = %d: index %d, search %d", tb.EpsLog2(), n, got, k)
			}
		}
	}
}
