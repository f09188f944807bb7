package fixedpoint

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/units"
)

// clampBig is the oracle: the exact result clamped to [lo, hi].
func clampBig(x *big.Int, lo, hi int64) int64 {
	if x.Cmp(big.NewInt(lo)) < 0 {
		return lo
	}
	if x.Cmp(big.NewInt(hi)) > 0 {
		return hi
	}
	return x.Int64()
}

// TestSatExhaustive8 checks SatAdd, SatSub and SatMul on every pair of int8
// and of uint8 against exact integer arithmetic clamped to the type.
func TestSatExhaustive8(t *testing.T) {
	for a := -128; a <= 127; a++ {
		for b := -128; b <= 127; b++ {
			cl := func(v int) int8 { return int8(max(-128, min(127, v))) }
			require.Equal(t, cl(a+b), SatAdd(int8(a), int8(b)), "int8 %d+%d", a, b)
			require.Equal(t, cl(a-b), SatSub(int8(a), int8(b)), "int8 %d-%d", a, b)
			require.Equal(t, cl(a*b), SatMul(int8(a), int8(b)), "int8 %d*%d", a, b)
		}
	}
	for a := 0; a <= 255; a++ {
		for b := 0; b <= 255; b++ {
			cl := func(v int) uint8 { return uint8(max(0, min(255, v))) }
			require.Equal(t, cl(a+b), SatAdd(uint8(a), uint8(b)), "uint8 %d+%d", a, b)
			require.Equal(t, cl(a-b), SatSub(uint8(a), uint8(b)), "uint8 %d-%d", a, b)
			require.Equal(t, cl(a*b), SatMul(uint8(a), uint8(b)), "uint8 %d*%d", a, b)
		}
	}
}

// TestSatAddNonNeg checks SatAddNonNeg against SatAdd (itself checked
// against exact arithmetic above) on every pair of non-negative int8 and
// uint8, and against math/big on random non-negative int64 operands and
// the edges.
func TestSatAddNonNeg(t *testing.T) {
	for a := 0; a <= 127; a++ {
		for b := 0; b <= 127; b++ {
			require.Equal(t, int8(min(127, a+b)), SatAddNonNeg(int8(a), int8(b)), "int8 %d+%d", a, b)
		}
	}
	for a := 0; a <= 255; a++ {
		for b := 0; b <= 255; b++ {
			require.Equal(t, uint8(min(255, a+b)), SatAddNonNeg(uint8(a), uint8(b)), "uint8 %d+%d", a, b)
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	vals := []int64{0, 1, 2, math.MaxInt64, math.MaxInt64 - 1, 1 << 62}
	for range 2000 {
		vals = append(vals, int64(rng.Uint64()>>1), int64(rng.Uint64()>>(1+rng.IntN(63))))
	}
	for i, a := range vals {
		b := vals[(i*7919+13)%len(vals)]
		want := clampBig(new(big.Int).Add(big.NewInt(a), big.NewInt(b)), 0, math.MaxInt64)
		require.Equal(t, units.Time(want), SatAddNonNeg(units.Time(a), units.Time(b)), "%d+%d", a, b)
	}
}

// TestShrSat128 checks ShrSat128 against math/big (the 128-bit value
// shifted, clamped to 2^64 − 1) on random and edge operands for every s in
// [0, 63].
func TestShrSat128(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	max64 := new(big.Int).SetUint64(math.MaxUint64)
	for s := uint(0); s < 64; s++ {
		ops := [][2]uint64{{0, 0}, {0, math.MaxUint64}, {1<<s - 1, math.MaxUint64}, {1 << s, 0}, {math.MaxUint64, math.MaxUint64}}
		for range 500 {
			ops = append(ops, [2]uint64{rng.Uint64() >> rng.UintN(64), rng.Uint64()})
		}
		for _, op := range ops {
			x := new(big.Int).Lsh(new(big.Int).SetUint64(op[0]), 64)
			x.Or(x, new(big.Int).SetUint64(op[1]))
			x.Rsh(x, s)
			if x.Cmp(max64) > 0 {
				x.Set(max64)
			}
			require.Equal(t, x.Uint64(), ShrSat128(op[0], op[1], s), "(%#x, %#x) >> %d", op[0], op[1], s)
		}
	}
}

// TestSat64 checks the 64-bit forms against math/big on random operands and
// the edges, through the named type units.Time as the algorithms use it.
func TestSat64(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	edges := []int64{0, 1, -1, 2, math.MaxInt64, math.MinInt64, math.MaxInt64 - 1, math.MinInt64 + 1, 1 << 32, -1 << 32}
	vals := append([]int64{}, edges...)
	for range 2000 {
		vals = append(vals, int64(rng.Uint64()), int64(rng.Uint64()>>rng.IntN(64)))
	}
	for i, a := range vals {
		b := vals[(i*7919+13)%len(vals)]
		A, B := big.NewInt(a), big.NewInt(b)
		require.Equal(t, units.Time(clampBig(new(big.Int).Add(A, B), math.MinInt64, math.MaxInt64)), SatAdd(units.Time(a), units.Time(b)), "%d+%d", a, b)
		require.Equal(t, units.Time(clampBig(new(big.Int).Sub(A, B), math.MinInt64, math.MaxInt64)), SatSub(units.Time(a), units.Time(b)), "%d-%d", a, b)
		require.Equal(t, clampBig(new(big.Int).Mul(A, B), math.MinInt64, math.MaxInt64), SatMul(a, b), "%d*%d", a, b)
		ua, ub := uint64(a), uint64(b)
		UA, UB := new(big.Int).SetUint64(ua), new(big.Int).SetUint64(ub)
		maxU := new(big.Int).SetUint64(math.MaxUint64)
		sum := new(big.Int).Add(UA, UB)
		if sum.Cmp(maxU) > 0 {
			sum = maxU
		}
		require.Equal(t, sum.Uint64(), SatAdd(ua, ub))
		prod := new(big.Int).Mul(UA, UB)
		if prod.Cmp(maxU) > 0 {
			prod = maxU
		}
		require.Equal(t, prod.Uint64(), SatMul(ua, ub))
		want := uint64(0)
		if ua > ub {
			want = ua - ub
		}
		require.Equal(t, want, SatSub(ua, ub))
	}
}

func TestMinMaxOf(t *testing.T) {
	require.Equal(t, int8(127), MaxOf[int8]())
	require.Equal(t, int8(-128), MinOf[int8]())
	require.Equal(t, uint16(65535), MaxOf[uint16]())
	require.Equal(t, uint16(0), MinOf[uint16]())
	require.Equal(t, units.MaxTime, MaxOf[units.Time]())
	require.Equal(t, int64(math.MinInt64), MinOf[int64]())
	require.Equal(t, uint64(math.MaxUint64), MaxOf[uint64]())
}

func TestClamp(t *testing.T) {
	require.Equal(t, 5, Clamp(3, 5, 9))
	require.Equal(t, 9, Clamp(12, 5, 9))
	require.Equal(t, 7, Clamp(7, 5, 9))
	require.Equal(t, 4, Clamp(7, 5, 4), "lo > hi gives hi")
}

// TestWrap checks the wrapping helpers against arithmetic modulo 2^width
// done in a wider type.
func TestWrap(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 5000 {
		w := uint(rng.IntN(32) + 1)
		a, b := rng.Uint32(), rng.Uint32()
		m := uint64(1)<<w - 1
		require.Equal(t, uint32((uint64(a)+uint64(b))&m), WrapAdd(a, b, w))
		require.Equal(t, uint32((uint64(a)+(1<<33)-uint64(b))&m), WrapSub(a, b, w))
		// Serial order: a before b iff 0 < (b − a) mod 2^w < 2^(w−1).
		d := (uint64(b) + (1 << 33) - uint64(a)) & m
		require.Equal(t, d != 0 && d < 1<<(w-1), WrapBefore(a, b, w), "w=%d a=%#x b=%#x", w, a, b)
	}
	require.Equal(t, uint32(0x10), WrapAdd(uint32(0xFFFF0), 0x20, 20), "the doc's worked value")
	require.Equal(t, uint64(5), WrapAdd(uint64(math.MaxUint64), 6, 64))
	require.True(t, WrapBefore(uint32(math.MaxUint32), 3, 32), "TCP sequence wrap")
	require.False(t, WrapBefore(uint32(3), math.MaxUint32, 32))
}

// TestSatNoAllocs: the helpers are per-event arithmetic.
func TestSatNoAllocs(t *testing.T) {
	var sink units.Time
	n := testing.AllocsPerRun(100, func() {
		sink = SatAdd(sink, units.MaxTime)
		sink = SatSub(sink, 3)
	})
	require.Zero(t, n)
}

// TestSatConv checks every int8 and uint8 source into every 8-bit
// destination, and 64-bit edges into 32-bit ones, against the exact value
// clamped to the destination's range.
func TestSatConv(t *testing.T) {
	cl := func(v, lo, hi int) int { return max(lo, min(hi, v)) }
	for v := -128; v <= 127; v++ {
		require.Equal(t, int8(v), SatConv[int8](int8(v)))
		require.Equal(t, uint8(cl(v, 0, 255)), SatConv[uint8](int8(v)), "%d", v)
	}
	for v := 0; v <= 255; v++ {
		require.Equal(t, int8(cl(v, -128, 127)), SatConv[int8](uint8(v)), "%d", v)
		require.Equal(t, uint8(v), SatConv[uint8](uint8(v)))
	}
	edges := []int64{0, 1, -1, math.MaxInt32, math.MaxInt32 + 1, math.MinInt32, math.MinInt32 - 1, math.MaxUint32, math.MaxUint32 + 1, math.MaxInt64, math.MinInt64}
	for _, v := range edges {
		b := big.NewInt(v)
		require.Equal(t, int32(clampBig(b, math.MinInt32, math.MaxInt32)), SatConv[int32](v), "%d", v)
		require.Equal(t, uint32(clampBig(b, 0, math.MaxUint32)), SatConv[uint32](v), "%d", v)
		require.Equal(t, uint64(max(v, 0)), SatConv[uint64](v), "%d", v)
	}
	require.Equal(t, int64(math.MaxInt64), SatConv[int64](uint64(math.MaxUint64)))
	require.Equal(t, uint32(math.MaxUint32), SatConv[uint32](uint64(1<<40)))
	require.Equal(t, units.Time(5), SatConv[units.Time](uint32(5)))
}

// TestMulDivSat checks ⌊a·b/c⌋ against math/big on random and edge
// operands, saturated at 2^64 − 1.
func TestMulDivSat(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	maxU := new(big.Int).SetUint64(math.MaxUint64)
	vals := []uint64{0, 1, 2, 3, 1 << 32, math.MaxUint32, math.MaxUint64, math.MaxUint64 - 1}
	for range 3000 {
		vals = append(vals, rng.Uint64()>>rng.IntN(64))
	}
	for i, a := range vals {
		b := vals[(i*7919+13)%len(vals)]
		c := vals[(i*104729+7)%len(vals)]
		if c == 0 {
			require.Equal(t, uint64(math.MaxUint64), MulDivSat(a, b, c))
			continue
		}
		q := new(big.Int).Mul(new(big.Int).SetUint64(a), new(big.Int).SetUint64(b))
		q.Quo(q, new(big.Int).SetUint64(c))
		if q.Cmp(maxU) > 0 {
			q = maxU
		}
		require.Equal(t, q.Uint64(), MulDivSat(a, b, c), "%d·%d/%d", a, b, c)
	}
	require.Equal(t, uint64(1<<50), MulDivSat(1<<40, 1<<40, 1<<30))
}
