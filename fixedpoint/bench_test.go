package fixedpoint

import (
	"testing"

	"github.com/hwcc/hwcc/units"
	"github.com/stretchr/testify/require"
)

// Sinks keep the compiler from removing the benchmarked calls.
var (
	sinkU   uint64
	sinkI   int64
	sinkT   units.Time
	sinkB   bool
	sinkErr error
)

// perCallOps lists every per-call operation once, for the benchmarks and
// for TestNoAllocs. Each closure takes a varying input.
func perCallOps(tb testing.TB) []struct {
	name string
	fn   func(i uint64)
} {
	reg, err := NewRegister(20, Wrap)
	require.NoError(tb, err)
	sat, err := NewRegister(20, Saturate)
	require.NoError(tb, err)
	rej, err := NewRegister(8, Reject)
	require.NoError(tb, err)
	sreg, err := NewSignedRegister(16, Saturate)
	require.NoError(tb, err)
	srej, err := NewSignedRegister(16, Reject)
	require.NoError(tb, err)
	qz, err := NewQuantizer(600, 16, Nearest)
	require.NoError(tb, err)
	csd, err := NewCSD(0.3, 4, 16)
	require.NoError(tb, err)
	var buf [MaxCSDTerms]Term
	return []struct {
		name string
		fn   func(i uint64)
	}{
		{"UQ0_10.MulU64", func(i uint64) { sinkU = UQ0_10(i & 1023).MulU64(i) }},
		{"UQ0_10.MulU64Round", func(i uint64) { sinkU = UQ0_10(i&1023).MulU64Round(i, Nearest) }},
		{"UQ0_10.Mul", func(i uint64) { sinkU = uint64(UQ0_10(i & 1023).Mul(UQ0_10(i >> 3 & 1023))) }},
		{"UQ1_10.MulU64", func(i uint64) { sinkU = UQ1_10(i & 2047).MulU64(i) }},
		{"UQ1_10.MulU64Round", func(i uint64) { sinkU = UQ1_10(i&2047).MulU64Round(i, Ceil) }},
		{"UQ1_10.Mul", func(i uint64) { sinkU = uint64(UQ1_10(i & 2047).Mul(UQ1_10(i >> 3 & 2047))) }},
		{"UQ1_10.UQ0_10", func(i uint64) { v, err := UQ1_10(i & 2047).UQ0_10(Reject); sinkU, sinkErr = uint64(v), err }},
		{"UQ32_32.MulU64", func(i uint64) { sinkU = UQ32_32(i * 0x9E3779B97F4A7C15).MulU64(i) }},
		{"UQ32_32.MulU64Round", func(i uint64) { sinkU = UQ32_32(i*0x9E3779B97F4A7C15).MulU64Round(i, Nearest) }},
		{"UQ32_32.Mul", func(i uint64) { sinkU = uint64(UQ32_32(i).Mul(UQ32_32(i >> 7))) }},
		{"Register.Set/wrap", func(i uint64) { sinkU, sinkErr = reg.Set(i) }},
		{"Register.Add/wrap", func(i uint64) { sinkU, sinkErr = reg.Add(int64(i & 0xFFFF)) }},
		{"Register.Add/saturate", func(i uint64) { sinkU, sinkErr = sat.Add(int64(i&0xFFFF) - 0x8000) }},
		{"Register.Add/reject", func(i uint64) { sinkU, sinkErr = rej.Add(int64(i & 0x1FF)) }}, // rejects often
		{"SignedRegister.Set", func(i uint64) { sinkI, sinkErr = sreg.Set(int64(i)) }},
		{"SignedRegister.Add", func(i uint64) { sinkI, sinkErr = sreg.Add(int64(i&0xFFFF) - 0x8000) }},
		{"SignedRegister.Add/reject", func(i uint64) { sinkI, sinkErr = srej.Add(int64(i&0x1FFFF) - 0x10000) }},
		{"WrapDelta", func(i uint64) { sinkU = WrapDelta(i, i*3, 20) }},
		{"WrapTime", func(i uint64) { sinkT = WrapTime(uint(i&31), units.Bytes(i&1023+1), units.Rate(i|1)) }},
		{"Quantizer.Quantize", func(i uint64) { sinkU = qz.Quantize(i) }},
		{"Quantizer.QuantizeSat", func(i uint64) { sinkU, sinkB = qz.QuantizeSat(i) }},
		{"Quantizer.Dequantize", func(i uint64) { sinkU = qz.Dequantize(i) }},
		{"CSD.Mul", func(i uint64) { sinkI = csd.Mul(int64(i) >> 20) }},
		{"CSD.Mul/wide", func(i uint64) { sinkI = csd.Mul(int64(i) | 1<<62) }}, // 128-bit path
		{"CSD.MulFloor", func(i uint64) { sinkI = csd.MulFloor(int64(i)) }},
		{"CSD.AppendTerms", func(i uint64) { sinkI = int64(len(csd.AppendTerms(buf[:0]))) }},
	}
}

// TestNoAllocs asserts that every per-call operation, including the Reject
// paths that return an error, allocates nothing.
func TestNoAllocs(t *testing.T) {
	for _, op := range perCallOps(t) {
		i := uint64(0x12345)
		allocs := testing.AllocsPerRun(200, func() {
			i = i*6364136223846793005 + 1442695040888963407
			op.fn(i)
		})
		require.Zero(t, allocs, op.name)
	}
}

func BenchmarkOps(b *testing.B) {
	for _, op := range perCallOps(b) {
		b.Run(op.name, func(b *testing.B) {
			b.ReportAllocs()
			i := uint64(0x12345)
			for b.Loop() {
				i = i*6364136223846793005 + 1442695040888963407
				op.fn(i)
			}
		})
	}
}

// BenchmarkNewCSD measures the configuration-time search at its largest.
func BenchmarkNewCSD(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		c, err := NewCSD(0.3, MaxCSDTerms, MaxCSDFracBits)
		if err != nil {
			b.Fatal(err)
		}
		sinkI = int64(c.Len())
	}
}
