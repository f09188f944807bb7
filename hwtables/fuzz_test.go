package hwtables

import (
	"errors"
	"math"
	"testing"
)

// FuzzDiv compares Div with the exact quotient (math/big) for arbitrary a
// and n on both default tables: inside [1, MaxN] the result must be within
// the analytic bound and equal DivFast; outside it must be a *RangeError.
func FuzzDiv(f *testing.F) {
	f.Add(uint64(1000000), uint64(3), false)          // the example
	f.Add(uint64(math.MaxUint64), uint64(1), false)   // largest a, exact 1/1
	f.Add(uint64(math.MaxUint64), uint64(MaxN), true) // largest a and n
	f.Add(uint64(1<<40), uint64(3634567), false)      // worst overestimate of the interval table
	f.Add(uint64(1<<40), uint64(1), true)             // worst underestimate of the compact table
	f.Add(uint64(7), uint64(0), false)                // zero divisor
	f.Add(uint64(7), uint64(MaxN+1), true)            // just above the domain
	f.Fuzz(func(t *testing.T, a, n uint64, compact bool) {
		tb := DefaultReciprocal()
		if compact {
			tb = DefaultCompact()
		}
		q, err := tb.Div(a, n)
		if n == 0 || n > MaxN {
			var re *RangeError
			if !errors.As(err, &re) || re.Value != n {
				t.Fatalf("Div(%d, %d): err %v, want a RangeError", a, n, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("Div(%d, %d): %v", a, n, err)
		}
		if q != tb.DivFast(a, n) {
			t.Fatalf("Div(%d, %d) = %d, DivFast = %d", a, n, q, tb.DivFast(a, n))
		}
		if !withinBound(tb, a, n, q) {
			t.Fatalf("%v: Div(%d, %d) = %d outside the bound of %d/%d", tb.Kind(), a, n, q, a, n)
		}
	})
}
