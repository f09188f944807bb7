package gen

import (
	"testing"

	"github.com/hwcc/hwcc/hwtables"
)

var benchSink uint64

// BenchmarkMeasure times the exhaustive error measurement the exporters run:
//
//	go test ./hwtables/gen -run '^$' -bench BenchmarkMeasure -benchmem
func BenchmarkMeasure(b *testing.B) {
	for _, tb := range []*hwtables.Table{hwtables.DefaultReciprocal(), hwtables.DefaultCompact()} {
		b.Run(tb.Kind().String(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				benchSink += Measure(tb).MaxOverN
			}
		})
	}
}
