package hwtables

import (
	"math/rand/v2"
	"testing"
)

// benchLen is the number of precomputed operands; a power of two so the
// index wraps with a mask.
const benchLen = 1 << 12

// benchOperands returns seeded dividends (up to 2^48, a byte counter times a
// rate's scale) and divisors spread over [1, MaxN], so that the compiler
// cannot fold the division and the search paths vary as they would.
func benchOperands() (as, ns []uint64) {
	r := rand.New(rand.NewPCG(1, 2))
	as, ns = make([]uint64, benchLen), make([]uint64, benchLen)
	for i := range as {
		as[i] = r.Uint64N(1 << 48)
		ns[i] = 1 + r.Uint64N(MaxN)
	}
	return as, ns
}

var benchSink uint64

// BenchmarkDiv compares the table divisions with the native 64-bit divide
// on the same operands:
//
//	go test ./hwtables -run '^$' -bench BenchmarkDiv -benchmem
func BenchmarkDiv(b *testing.B) {
	as, ns := benchOperands()
	for _, c := range []struct {
		name string
		div  func(a, n uint64) uint64
	}{
		{"interval-eps2^-7/DivFast", DefaultReciprocal().DivFast},
		{"interval-eps2^-7/Div", func(a, n uint64) uint64 { q, _ := DefaultReciprocal().Div(a, n); return q }},
		{"compact-k6/DivFast", DefaultCompact().DivFast},
		{"compact-k6/Div", func(a, n uint64) uint64 { q, _ := DefaultCompact().Div(a, n); return q }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			var s uint64
			for i := 0; b.Loop(); i++ {
				s += c.div(as[i&(benchLen-1)], ns[i&(benchLen-1)])
			}
			benchSink = s
		})
	}
	// The method values above cost an indirect call; these loops call the
	// methods directly, as firmware code would, and do the same for a / n.
	rec, cmp := DefaultReciprocal(), DefaultCompact()
	b.Run("interval-eps2^-7/direct", func(b *testing.B) {
		b.ReportAllocs()
		var s uint64
		for i := 0; b.Loop(); i++ {
			s += rec.DivFast(as[i&(benchLen-1)], ns[i&(benchLen-1)])
		}
		benchSink = s
	})
	b.Run("compact-k6/direct", func(b *testing.B) {
		b.ReportAllocs()
		var s uint64
		for i := 0; b.Loop(); i++ {
			s += cmp.DivFast(as[i&(benchLen-1)], ns[i&(benchLen-1)])
		}
		benchSink = s
	})
	b.Run("native/direct", func(b *testing.B) {
		b.ReportAllocs()
		var s uint64
		for i := 0; b.Loop(); i++ {
			s += as[i&(benchLen-1)] / ns[i&(benchLen-1)]
		}
		benchSink = s
	})
}

// BenchmarkLookup times the reciprocal lookup alone.
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
