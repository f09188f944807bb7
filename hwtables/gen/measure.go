package gen

import "github.com/hwcc/hwcc/hwtables"

// ErrorStats is the measured relative error of a table's reciprocals over
// every n in [1, hwtables.MaxN].
type ErrorStats struct {
	MaxOver   float64 // largest r·n − 1 (0 if r never overestimates)
	MaxOverN  uint64  // the smallest n where MaxOver occurs
	MaxUnder  float64 // largest 1 − r·n (0 if r never underestimates)
	MaxUnderN uint64  // the smallest n where MaxUnder occurs
}

// Worst returns max(MaxOver, MaxUnder), the worst |r·n − 1|.
func (s ErrorStats) Worst() float64 { return max(s.MaxOver, s.MaxUnder) }

// Measure looks up every n in [1, hwtables.MaxN] through t.Lookup and
// returns the worst relative errors of the reciprocal, r·n − 1 with r =
// mant/2^shift: the figures the exporters report next to t.Bound(). It
// takes 2^22 lookups and does not allocate.
//
// The errors are exact: r·n − 1 = (mant·n − 2^shift) / 2^shift, whose
// numerator is an integer below 2^53 (mant < 2^31, n ≤ 2^22) and whose
// denominator is a power of two, so the float64 quotient is exact and the
// comparisons between n are exact too.
func Measure(t *hwtables.Table) ErrorStats {
	var s ErrorStats
	for n := uint64(1); n <= hwtables.MaxN; n++ {
		m, sh := t.Lookup(n)
		num := int64(m*n) - int64(1)<<sh
		switch {
		case num > 0:
			if v := float64(num) / float64(int64(1)<<sh); v > s.MaxOver {
				s.MaxOver, s.MaxOverN = v, n
			}
		case num < 0:
			if v := float64(-num) / float64(int64(1)<<sh); v > s.MaxUnder {
				s.MaxUnder, s.MaxUnderN = v, n
			}
		}
	}
	return s
}
