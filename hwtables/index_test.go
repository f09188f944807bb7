package hwtables

import (
	"math"
	"math/bits"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// refLookup is the paper-faithful lookup, kept as the oracle of the
// constant-time index: the binary search over the packed words and the
// word's decoding for an interval table (what hardware does), the direct
// address of the bits after n's leading one for a compact table.
func refLookup(t *Table, n uint64) (mant uint64, shift uint) {
	n = min(max(n, 1), MaxN)
	if t.kind == KindCompact {
		return t.lookupCompact(n)
	}
	k, _ := t.search(n)
	return t.entry(k)
}

// refDivFast is ⌊a·mant / 2^shift⌋ with refLookup's reciprocal.
func refDivFast(t *Table, a, n uint64) uint64 {
	m, sh := refLookup(t, n)
	hi, lo := bits.Mul64(a, m)
	return hi<<(64-sh) | lo>>sh
}

// indexTables returns the default tables and, unless -short, an interval
// table for every e and a compact table for every k the package allows.
func indexTables(t *testing.T) []*Table {
	tables := []*Table{DefaultReciprocal(), DefaultCompact()}
	if testing.Short() {
		return tables
	}
	for e := uint(MinEpsLog2); e <= MaxEpsLog2; e++ {
		tb, err := NewReciprocal(ReciprocalConfig{EpsLog2: e})
		require.NoError(t, err)
		tables = append(tables, tb)
	}
	for k := uint(MinIndexBits); k <= MaxIndexBits; k++ {
		tb, err := NewCompact(CompactConfig{IndexBits: k})
		require.NoError(t, err)
		tables = append(tables, tb)
	}
	// The widest mantissas, where mult = M·2^(63 − shift) uses every bit.
	for _, c := range []ReciprocalConfig{{EpsLog2: 1, MantBits: MaxMantBits}, {EpsLog2: 16, MantBits: MaxMantBits}} {
		tb, err := NewReciprocal(c)
		require.NoError(t, err)
		tables = append(tables, tb)
	}
	tb, err := NewCompact(CompactConfig{IndexBits: MaxIndexBits, MantBits: MaxMantBits})
	require.NoError(t, err)
	return append(tables, tb)
}

// TestLookupMatchesReference: Lookup and DivFast, read from the
// constant-time index, give the paper-faithful table's reciprocal and
// quotient for every n in [1, MaxN], for every table indexTables lists. The
// dividends are 2^64 − 1 (the widest product) and a value that varies with
// n.
func TestLookupMatchesReference(t *testing.T) {
	for _, tb := range indexTables(t) {
		for n := uint64(1); n <= MaxN; n++ {
			m, sh := tb.Lookup(n)
			wm, wsh := refLookup(tb, n)
			if m != wm || sh != wsh {
				t.Fatalf("%v e/k = %d F = %d, n = %d: Lookup = (%d, %d), reference (%d, %d)",
					tb.Kind(), tb.param, tb.mantBits, n, m, sh, wm, wsh)
			}
			a := n*0x9E3779B97F4A7C15 ^ n<<40
			for _, a := range []uint64{math.MaxUint64, a} {
				if got, want := tb.DivFast(a, n), refDivFast(tb, a, n); got != want {
					t.Fatalf("%v e/k = %d F = %d: DivFast(%d, %d) = %d, reference %d",
						tb.Kind(), tb.param, tb.mantBits, a, n, got, want)
				}
			}
		}
	}
}

// TestLookupClamps: the fast forms read the entry of 1 for n = 0 and the
// entry of MaxN above MaxN, up to 2^64 − 1.
func TestLookupClamps(t *testing.T) {
	for _, tb := range []*Table{DefaultReciprocal(), DefaultCompact()} {
		m1, s1 := tb.Lookup(1)
		m0, s0 := tb.Lookup(0)
		require.Equal(t, [2]uint64{m1, uint64(s1)}, [2]uint64{m0, uint64(s0)})
		mx, sx := tb.Lookup(MaxN)
		for _, n := range []uint64{MaxN + 1, 1 << 23, 1<<40 + 12345, math.MaxUint64} {
			m, s := tb.Lookup(n)
			require.Equal(t, [2]uint64{mx, uint64(sx)}, [2]uint64{m, uint64(s)}, "n = %d", n)
			require.Equal(t, tb.DivFast(math.MaxUint64, MaxN), tb.DivFast(math.MaxUint64, n), "n = %d", n)
		}
		require.Equal(t, tb.DivFast(math.MaxUint64, 1), tb.DivFast(math.MaxUint64, 0))
	}
}

// TestDivNoAllocs: the lookups and divisions do not allocate (Div's error
// path aside).
func TestDivNoAllocs(t *testing.T) {
	for _, tb := range []*Table{DefaultReciprocal(), DefaultCompact()} {
		n := uint64(1)
		allocs := testing.AllocsPerRun(1000, func() {
			m, sh := tb.Lookup(n)
			q, err := tb.Div(m<<20, n)
			if err != nil {
				t.Fatal(err)
			}
			benchSink += q + tb.DivFast(q, n+uint64(sh))
			n = (n*7+1)&(MaxN-1) + 1
		})
		require.Zero(t, allocs)
	}
}

// TestInlining: DivFast and Lookup stay within the compiler's inlining
// budget, so that a caller's division is a few instructions and no call
// (as net/netip checks its own). It needs the go command and skips
// without it.
func TestInlining(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the package")
	}
	gocmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command:", err)
	}
	out, err := exec.Command(gocmd, "build", "-gcflags=-m", ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	got := map[string]bool{}
	re := regexp.MustCompile(`can inline \(\*Table\)\.(\w+)`)
	for _, line := range strings.Split(string(out), "\n") {
		if m := re.FindStringSubmatch(line); m != nil {
			got[m[1]] = true
		}
	}
	for _, f := range []string{"DivFast", "Lookup", "find", "recip"} {
		require.True(t, got[f], "(*Table).%s is no longer inlinable", f)
	}
}
