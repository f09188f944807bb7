package fixedpoint

import (
	"math"
	"math/big"
	"testing"

	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/require"
)

func TestNewQuantizerValidation(t *testing.T) {
	_, err := NewQuantizer(0, 16, Floor)
	require.ErrorContains(t, err, "delta is 0")
	_, err = NewQuantizer(600, 0, Floor)
	require.ErrorContains(t, err, "[1, 64]")
	_, err = NewQuantizer(600, 65, Floor)
	require.ErrorContains(t, err, "[1, 64]")
	_, err = NewQuantizer(600, 16, Rounding(3))
	require.ErrorContains(t, err, "Rounding(3)")
	// (2^64 − 1)·2 overflows; the error suggests the widest width that fits.
	_, err = NewQuantizer(2, 64, Floor)
	require.ErrorContains(t, err, "at most 63 bits")
	// ΔF = 10 Mb/s: (2^40 − 1)·10^7 ≈ 1.1e19 fits below 2^64 ≈ 1.8e19,
	// (2^41 − 1)·10^7 ≈ 2.2e19 does not: the limit is 40 bits.
	_, err = NewQuantizer(10_000_000, 41, Floor)
	require.ErrorContains(t, err, "at most 40 bits")
	_, err = NewQuantizer(10_000_000, 40, Floor)
	require.NoError(t, err)
	q, err := NewQuantizer(1, 64, Ceil)
	require.NoError(t, err)
	require.Equal(t, uint64(math.MaxUint64), q.Quantize(math.MaxUint64))
	require.Equal(t, uint64(math.MaxUint64), q.Dequantize(math.MaxUint64))
}

func TestQuantizerRoCC(t *testing.T) {
	// RoCC (section VI): ΔQ = 600 B. Qref = 150 KB = 150000 B is exactly 250
	// units; Qmax = 360 KB is 600 units. A 16-bit register.
	q, err := NewQuantizer(600, 16, Nearest)
	require.NoError(t, err)
	require.Equal(t, uint64(600), q.Delta())
	require.Equal(t, uint(16), q.Width())
	require.Equal(t, Nearest, q.Mode())
	require.Equal(t, uint64(65535), q.Max())
	require.Equal(t, uint64(250), q.Quantize(150_000))
	require.Equal(t, uint64(600), q.Quantize(360_000))
	// Ties go up: 900 B is 1.5 units → 2; 899 B → 1.
	require.Equal(t, uint64(2), q.Quantize(900))
	require.Equal(t, uint64(1), q.Quantize(899))
	// Saturation: 65535.5 units = 39321300 B is a tie, rounds up to 65536
	// and saturates; one byte less rounds to 65535 and fits.
	n, sat := q.QuantizeSat(39_321_299)
	require.Equal(t, uint64(65535), n)
	require.False(t, sat)
	n, sat = q.QuantizeSat(39_321_300)
	require.Equal(t, uint64(65535), n)
	require.True(t, sat)
	require.Equal(t, uint64(150_000), q.Dequantize(250))
	// Dequantize treats n above Max as Max.
	require.Equal(t, uint64(65535*600), q.Dequantize(1<<40))

	// ΔF = 10 Mb/s: 40 Gb/s = 4000 units (the paper's Fmax for 40 Gb/s).
	f, err := NewQuantizer(10_000_000, 16, Floor)
	require.NoError(t, err)
	require.Equal(t, uint64(4000), f.Quantize(40_000_000_000))
	// HPCC qLen: 80-byte units in 16 bits; floor, as a switch truncates.
	h, err := NewQuantizer(80, 16, Floor)
	require.NoError(t, err)
	require.Equal(t, uint64(18), h.Quantize(1500)) // 1500/80 = 18.75
	c, err := NewQuantizer(80, 16, Ceil)
	require.NoError(t, err)
	require.Equal(t, uint64(19), c.Quantize(1500))
	require.Equal(t, uint64(19), c.Quantize(1520)) // exact: 19 units
}

func TestQuantizerProperties(t *testing.T) {
	p := props(t, 5000)
	deltaGen := gen.OneGenOf(gen.UInt64Range(1, 1024), gen.UInt64Range(1, 1<<40)).WithLabel("delta")
	valueGen := gen.OneGenOf(gen.UInt64(), gen.UInt64Range(0, 1<<24)).WithLabel("v")
	p.Property("Quantize equals big.Int rounding, saturated at 2^width−1", prop.ForAll(
		func(delta uint64, width uint, m uint8, v uint64) bool {
			mode := Rounding(m)
			width = min(width, maxWidthFor(delta))
			q, err := NewQuantizer(delta, width, mode)
			if err != nil {
				return false
			}
			exact := roundDiv(bu(v), bu(delta), mode)
			maxN := new(big.Int).Sub(pow2(width), big.NewInt(1))
			n, sat := q.QuantizeSat(v)
			if exact.Cmp(maxN) > 0 {
				return sat && n == maxN.Uint64() && q.Quantize(v) == n
			}
			return !sat && n == exact.Uint64() && q.Quantize(v) == n
		},
		deltaGen, gen.UIntRange(1, 64).WithLabel("width"), gen.UInt8Range(0, 2).WithLabel("mode"), valueGen,
	))
	p.Property("round trip error: nearest |e| ≤ Δ/2, floor e ∈ (−Δ, 0], ceil e ∈ [0, Δ)", prop.ForAll(
		func(delta uint64, width uint, m uint8, v uint64) bool {
			mode := Rounding(m)
			width = min(width, maxWidthFor(delta))
			q, err := NewQuantizer(delta, width, mode)
			if err != nil {
				return false
			}
			n, sat := q.QuantizeSat(v)
			if sat {
				return true
			}
			// e = Dequantize(n) − v, exact.
			e := new(big.Int).Sub(bu(q.Dequantize(n)), bu(v))
			d := bu(delta)
			switch mode {
			case Floor:
				return e.Sign() <= 0 && new(big.Int).Neg(e).Cmp(d) < 0
			case Ceil:
				return e.Sign() >= 0 && e.Cmp(d) < 0
			}
			// 2|e| ≤ Δ, and a tie goes up: 2e = −Δ never happens.
			twoE := new(big.Int).Lsh(e, 1)
			return new(big.Int).Abs(twoE).Cmp(d) <= 0 && twoE.Cmp(new(big.Int).Neg(d)) != 0
		},
		deltaGen, gen.UIntRange(1, 64).WithLabel("width"), gen.UInt8Range(0, 2).WithLabel("mode"), valueGen,
	))
	p.Property("Dequantize is n·Δ for n ≤ Max and Max·Δ above", prop.ForAll(
		func(delta uint64, width uint, n uint64) bool {
			width = min(width, maxWidthFor(delta))
			q, err := NewQuantizer(delta, width, Floor)
			if err != nil {
				return false
			}
			want := new(big.Int).Mul(bu(min(n, mask(width))), bu(delta))
			return want.IsUint64() && q.Dequantize(n) == want.Uint64()
		},
		deltaGen, gen.UIntRange(1, 64).WithLabel("width"), gen.UInt64().WithLabel("n"),
	))
	p.TestingRun(t)
}
