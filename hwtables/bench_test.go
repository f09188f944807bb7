package hwtables

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

// benchLen is the number of precomputed operands; a power of two so the
// index wraps with a mask.
const benchLen = 1 << 12

// benchOperands returns seeded dividends (up to 2^48, a byte counter times a
// rate's scale) and divisors spread over [1, MaxN − 1], so that the compiler
// cannot fold the division and the lookups vary as they would. (MaxN − 1,
// so that the latency benchmarks may add one and stay in the domain.)
func benchOperands() (as, ns []uint64) {
	r := rand.New(rand.NewPCG(1, 2))
	as, ns = make([]uint64, benchLen), make([]uint64, benchLen)
	for i := range as {
		as[i] = r.Uint64N(1 << 48)
		ns[i] = 1 + r.Uint64N(MaxN-1)
	}
	return as, ns
}

var benchSink uint64

// benchTable is a table the division benchmarks time, with its name.
type benchTable struct {
	name string
	t    *Table
}

// benchTables returns the default interval and compact tables.
func benchTables() []benchTable {
	return []benchTable{{"interval-eps2^-7", DefaultReciprocal()}, {"compact-k6", DefaultCompact()}}
}

// BenchmarkDiv compares the table divisions with the native 64-bit divide
// on the same operands, every one called directly (as firmware code would:
// no method value, no interface), its result summed and stored so that
// nothing is optimised away. The iterations are independent, so this is
// throughput: what a simulator that divides for many flows pays per
// division, with the CPU overlapping consecutive ones. BenchmarkDivLatency
// chains them instead.
//
//	go test ./hwtables -run '^$' -bench 'Div|Lookup' -benchmem -count 6
func BenchmarkDiv(b *testing.B) {
	as, ns := benchOperands()
	for _, tb := range benchTables() {
		t := tb.t
		b.Run(tb.name+"/DivFast", func(b *testing.B) {
			b.ReportAllocs()
			var s uint64
			for i := 0; b.Loop(); i++ {
				s += t.DivFast(as[i&(benchLen-1)], ns[i&(benchLen-1)])
			}
			benchSink = s
		})
		b.Run(tb.name+"/Div", func(b *testing.B) {
			b.ReportAllocs()
			var s uint64
			for i := 0; b.Loop(); i++ {
				q, err := t.Div(as[i&(benchLen-1)], ns[i&(benchLen-1)])
				if err != nil {
					b.Fatal(err)
				}
				s += q
			}
			benchSink = s
		})
	}
	b.Run("native/direct", func(b *testing.B) {
		b.ReportAllocs()
		var s uint64
		for i := 0; b.Loop(); i++ {
			s += as[i&(benchLen-1)] / ns[i&(benchLen-1)]
		}
		benchSink = s
	})
}

// BenchmarkDivLatency is BenchmarkDiv with each division waiting for the
// previous one: the divisor is ns[i] + (q & 1), q the previous quotient, as
// in a state machine whose next divisor comes from its last result. It
// measures latency, the chain of the lookup's loads and the multiply (or
// the divider's latency) plus one add.
func BenchmarkDivLatency(b *testing.B) {
	as, ns := benchOperands()
	for _, tb := range benchTables() {
		t := tb.t
		b.Run(tb.name+"/DivFast", func(b *testing.B) {
			b.ReportAllocs()
			var q uint64
			for i := 0; b.Loop(); i++ {
				q = t.DivFast(as[i&(benchLen-1)], ns[i&(benchLen-1)]+q&1)
			}
			benchSink = q
		})
	}
	b.Run("native/direct", func(b *testing.B) {
		b.ReportAllocs()
		var q uint64
		for i := 0; b.Loop(); i++ {
			q = as[i&(benchLen-1)] / (ns[i&(benchLen-1)] + q&1)
		}
		benchSink = q
	})
}

// BenchmarkLookup times the reciprocal lookup alone (throughput).
func BenchmarkLookup(b *testing.B) {
	_, ns := benchOperands()
	for _, tb := range []*Table{DefaultReciprocal(), DefaultCompact()} {
		b.Run(tb.Kind().String(), func(b *testing.B) {
			b.ReportAllocs()
			var s uint64
			for i := 0; b.Loop(); i++ {
				m, sh := tb.Lookup(ns[i&(benchLen-1)])
				s += m + uint64(sh)
			}
			benchSink = s
		})
	}
}

// BenchmarkSearchRing: why the binary search's cost varies by CPU (4×
// between two machines): the hardware's binary
// search (SearchSteps data-dependent branches per lookup) against the
// constant-time index, on the benchmarks' 4096-divisor ring and on a ring
// of 2^20. A branch predictor that can learn the small ring's 45 056
// outcomes makes the search look several times cheaper than it is on
// divisors it has not seen; the index (recip, as Lookup reads it) has no
// branch to learn, so its cost does not depend on the ring (beyond the
// larger ring's cache misses).
func BenchmarkSearchRing(b *testing.B) {
	t := DefaultReciprocal()
	for _, bits := range []int{12, 20} {
		r := rand.New(rand.NewPCG(3, 4))
		ns := make([]uint64, 1<<bits)
		for i := range ns {
			ns[i] = 1 + r.Uint64N(MaxN)
		}
		mask := len(ns) - 1
		b.Run("search/ring2^"+strconv.Itoa(bits), func(b *testing.B) {
			var s uint64
			for i := 0; b.Loop(); i++ {
				k, _ := t.search(ns[i&mask])
				s += uint64(k)
			}
			benchSink = s
		})
		b.Run("index/ring2^"+strconv.Itoa(bits), func(b *testing.B) {
			var s uint64
			for i := 0; b.Loop(); i++ {
				s += t.recip(ns[i&mask])
			}
			benchSink = s
		})
	}
}
