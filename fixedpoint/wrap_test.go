package fixedpoint

import (
	"math"
	"math/big"
	"testing"

	"github.com/hwcc/hwcc/units"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/require"
)

func TestWrapDeltaExhaustiveSmall(t *testing.T) {
	// Every pair of readings of counters up to 8 bits: the delta is the
	// forward distance, computed here by stepping the counter one unit at a
	// time (an oracle that never subtracts).
	for w := uint(1); w <= 8; w++ {
		n := uint64(1) << w
		for older := range n {
			reading := older
			for k := range n {
				require.Equal(t, k, WrapDelta(older, reading, w), "w=%d older=%d k=%d", w, older, k)
				reading++
				if reading == n {
					reading = 0
				}
			}
		}
	}
}

func TestWrapDeltaProperty(t *testing.T) {
	p := props(t, 5000)
	p.Property("readings k apart give k for every k < 2^N, across the wrap", prop.ForAll(
		func(w uint, start, k uint64) bool {
			k &= mask(w)
			// The counter's true position (unbounded, exact) is start and
			// start+k; a reading is the position mod 2^N, plus garbage in the
			// bits above N, which WrapDelta ignores.
			pos0 := bu(start)
			pos1 := new(big.Int).Add(pos0, bu(k))
			m := pow2(w)
			r0 := new(big.Int).Mod(pos0, m).Uint64()
			r1 := new(big.Int).Mod(pos1, m).Uint64()
			if w < 64 {
				r0 |= start &^ mask(w)
				r1 |= ^mask(w) // garbage above the counter
			}
			return WrapDelta(r0, r1, w) == k
		},
		gen.UIntRange(1, 64).WithLabel("width"),
		gen.UInt64().WithLabel("start"),
		gen.OneGenOf(gen.UInt64(), gen.UInt64Range(0, 4)).WithLabel("k"),
	))
	p.TestingRun(t)
	// Width 0 and widths above 64.
	require.Equal(t, uint64(0), WrapDelta(5, 9, 0))
	require.Equal(t, uint64(math.MaxUint64), WrapDelta(1, 0, 64))
	require.Equal(t, uint64(math.MaxUint64), WrapDelta(1, 0, 200))
	// The HPCC worked value: 20-bit txBytes from 0xFFFF0 to 0x00010.
	require.Equal(t, uint64(0x20), WrapDelta(0xFFFF0, 0x00010, 20))
}

// oracleWrapTime is floor(2^w·unit·8·10^12/rate) saturated at MaxTime.
func oracleWrapTime(w uint, unit units.Bytes, rate units.Rate) units.Time {
	if unit <= 0 {
		return 0
	}
	if rate <= 0 {
		return units.MaxTime
	}
	num := new(big.Int).Mul(pow2(w), big.NewInt(int64(unit)))
	num.Mul(num, big.NewInt(8e12))
	q := num.Div(num, big.NewInt(int64(rate)))
	if q.Cmp(bigMaxI64) > 0 {
		return units.MaxTime
	}
	return units.Time(q.Int64())
}

func TestWrapTime(t *testing.T) {
	// HPCC txBytes: 20 bits of 128 B. 2^20·128 B = 134217728 B =
	// 1073741824 bit; at 400e9 bit/s that is 2.68435456e-3 s exactly
	// (closed form, as an exact constant expression in picoseconds).
	require.Equal(t, units.Time(1073741824*1e12/400e9), WrapTime(20, 128, 400*units.Gbps))
	require.Equal(t, "2.68435456ms", WrapTime(20, 128, 400*units.Gbps).String())
	// Same counter at 100 Gb/s: four times longer.
	require.Equal(t, 4*WrapTime(20, 128, 400*units.Gbps), WrapTime(20, 128, 100*units.Gbps))
	// A rate that does not divide: 1 byte·2^1 at 3 bit/s = 16/3 s, floor.
	require.Equal(t, units.Time(16_000_000_000_000/3), WrapTime(1, 1, 3))
	// Edges.
	require.Equal(t, units.Time(0), WrapTime(20, 0, units.Gbps))
	require.Equal(t, units.Time(0), WrapTime(20, -5, units.Gbps))
	require.Equal(t, units.MaxTime, WrapTime(20, 128, 0))
	require.Equal(t, units.MaxTime, WrapTime(20, 128, -1))
	require.Equal(t, units.MaxTime, WrapTime(64, 1, units.Tbps))
	require.Equal(t, units.MaxTime, WrapTime(1000, units.MaxBytes, 1))
	require.Equal(t, units.Time(8), WrapTime(0, 1, units.Tbps)) // one byte at 1 Tb/s

	p := props(t, 5000)
	p.Property("WrapTime equals big.Int floor, saturated", prop.ForAll(
		func(w uint, unit, rate int64) bool {
			return WrapTime(w, units.Bytes(unit), units.Rate(rate)) ==
				oracleWrapTime(w, units.Bytes(unit), units.Rate(rate))
		},
		gen.UIntRange(0, 130).WithLabel("width"),
		gen.OneGenOf(gen.Int64Range(-2, 1<<12), gen.Int64Range(0, math.MaxInt64)).WithLabel("unit"),
		gen.OneGenOf(gen.Int64Range(-2, 1e13), gen.Int64Range(0, math.MaxInt64)).WithLabel("rate"),
	))
	// The documented safe interval: sampling every
	// WrapTime − SerializationTime(unit) never lets the readings of a counter
	// of whole units drift 2^N units apart, whatever the phase.
	p.Property("interval ≤ WrapTime − SerializationTime(unit) is unambiguous", prop.ForAll(
		func(w uint, unit int64, rateMbps int64, phase uint64) bool {
			u := units.Bytes(unit)
			r := units.Rate(rateMbps) * units.Mbps
			interval := WrapTime(w, u, r) - units.SerializationTime(u, r)
			if interval <= 0 {
				return true // no safe interval: the counter is too small for the rate
			}
			moved := uint64(units.BytesIn(r, interval))
			b0 := phase % uint64(unit) // any starting byte offset within a unit
			b1 := b0 + moved
			units0, units1 := b0/uint64(unit), b1/uint64(unit)
			return units1-units0 < 1<<w && WrapDelta(units0, units1, w) == units1-units0
		},
		gen.UIntRange(1, 24).WithLabel("width"),
		gen.Int64Range(1, 4096).WithLabel("unit"),
		gen.Int64Range(1, 800_000).WithLabel("rate Mb/s"),
		gen.UInt64().WithLabel("phase"),
	))
	p.TestingRun(t)
}
