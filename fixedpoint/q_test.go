package fixedpoint

import (
	"errors"
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/require"
)

// qFormat describes one Q type for the table-driven tests, through the
// type's own exported API.
type qFormat struct {
	name      string
	frac      uint
	maxRaw    uint64
	fromFloat func(float64) (uint64, error)
	fromRatio func(num, den uint64, mode Rounding) (uint64, error)
	mulU64    func(raw, x uint64, mode Rounding) uint64 // MulU64Round
	mulFloor  func(raw, x uint64) uint64                // MulU64
	mul       func(a, b uint64) uint64                  // Mul
	str       func(raw uint64) string
	float     func(raw uint64) float64
}

var qFormats = []qFormat{
	{
		name: "UQ0_10", frac: 10, maxRaw: 1023,
		fromFloat: func(f float64) (uint64, error) { v, err := UQ0_10FromFloat(f); return uint64(v), err },
		fromRatio: func(n, d uint64, m Rounding) (uint64, error) {
			v, err := UQ0_10FromRatio(n, d, m)
			return uint64(v), err
		},
		mulU64:   func(raw, x uint64, m Rounding) uint64 { return UQ0_10(raw).MulU64Round(x, m) },
		mulFloor: func(raw, x uint64) uint64 { return UQ0_10(raw).MulU64(x) },
		mul:      func(a, b uint64) uint64 { return uint64(UQ0_10(a).Mul(UQ0_10(b))) },
		str:      func(raw uint64) string { return UQ0_10(raw).String() },
		float:    func(raw uint64) float64 { return UQ0_10(raw).Float() },
	},
	{
		name: "UQ1_10", frac: 10, maxRaw: 2047,
		fromFloat: func(f float64) (uint64, error) { v, err := UQ1_10FromFloat(f); return uint64(v), err },
		fromRatio: func(n, d uint64, m Rounding) (uint64, error) {
			v, err := UQ1_10FromRatio(n, d, m)
			return uint64(v), err
		},
		mulU64:   func(raw, x uint64, m Rounding) uint64 { return UQ1_10(raw).MulU64Round(x, m) },
		mulFloor: func(raw, x uint64) uint64 { return UQ1_10(raw).MulU64(x) },
		mul:      func(a, b uint64) uint64 { return uint64(UQ1_10(a).Mul(UQ1_10(b))) },
		str:      func(raw uint64) string { return UQ1_10(raw).String() },
		float:    func(raw uint64) float64 { return UQ1_10(raw).Float() },
	},
	{
		name: "UQ32_32", frac: 32, maxRaw: math.MaxUint64,
		fromFloat: func(f float64) (uint64, error) { v, err := UQ32_32FromFloat(f); return uint64(v), err },
		fromRatio: func(n, d uint64, m Rounding) (uint64, error) {
			v, err := UQ32_32FromRatio(n, d, m)
			return uint64(v), err
		},
		mulU64:   func(raw, x uint64, m Rounding) uint64 { return UQ32_32(raw).MulU64Round(x, m) },
		mulFloor: func(raw, x uint64) uint64 { return UQ32_32(raw).MulU64(x) },
		mul:      func(a, b uint64) uint64 { return uint64(UQ32_32(a).Mul(UQ32_32(b))) },
		str:      func(raw uint64) string { return UQ32_32(raw).String() },
		float:    func(raw uint64) float64 { return UQ32_32(raw).Float() },
	},
}

// oracleMulU64 is x·raw/2^frac rounded by mode, saturated at MaxUint64.
func oracleMulU64(raw, x uint64, frac uint, mode Rounding) uint64 {
	p := new(big.Int).Mul(bu(raw), bu(x))
	return satU64(roundDiv(p, pow2(frac), mode))
}

// oracleFromFloat is round(f·2^frac) by mode with f taken exactly, and
// whether it is in [0, maxRaw].
func oracleFromFloat(f float64, frac uint, maxRaw uint64, mode Rounding) (uint64, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
		return 0, false
	}
	r := new(big.Rat).SetFloat64(f)
	r.Mul(r, new(big.Rat).SetInt(pow2(frac)))
	v := roundDiv(r.Num(), r.Denom(), mode)
	if v.Cmp(bu(maxRaw)) > 0 {
		return 0, false
	}
	return v.Uint64(), true
}

// oracleString is raw/2^frac in decimal via big.Rat.FloatString, trailing
// zeros removed.
func oracleString(raw uint64, frac uint) string {
	s := new(big.Rat).SetFrac(bu(raw), pow2(frac)).FloatString(int(frac))
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

func TestQWorkedValues(t *testing.T) {
	// DCQCN: initial_alpha_value = 1023 ([ConnectX]) is 1023/1024.
	require.Equal(t, 1023.0/1024, UQ0_10(1023).Float())
	require.Equal(t, "0.9990234375", UQ0_10Max.String())
	// g = 1/256 = 4/1024 exactly.
	g, err := UQ0_10FromFloat(1.0 / 256)
	require.NoError(t, err)
	require.Equal(t, UQ0_10(4), g)
	// RoCC β̄ = 1.5 = 1536/1024; DCTCP's cap 1.0 = 1024.
	b, err := UQ1_10FromFloat(1.5)
	require.NoError(t, err)
	require.Equal(t, UQ1_10(1536), b)
	require.Equal(t, "1.5", b.String())
	one, err := UQ1_10FromFloat(1)
	require.NoError(t, err)
	require.Equal(t, UQ1_10One, one)
	// HPCC η = 0.95: 0.95·2^32 = 4080218931.2 (float64 0.95 is slightly
	// below 0.95, which does not change the rounding), nearest is 4080218931.
	eta, err := UQ32_32FromFloat(0.95)
	require.NoError(t, err)
	require.Equal(t, UQ32_32(4080218931), eta)
	// U = 20.5 = 20·2^32 + 2^31.
	u, err := UQ32_32FromFloat(20.5)
	require.NoError(t, err)
	require.Equal(t, UQ32_32(20<<32|1<<31), u)
	require.Equal(t, "20.5", u.String())
	// Widening keeps the value: 1023/1024 = (1023·2^22)/2^32.
	require.Equal(t, UQ32_32(1023)<<22, UQ0_10Max.UQ32_32())
	require.Equal(t, UQ32_32One, UQ1_10One.UQ32_32())
	require.Equal(t, UQ1_10(1023), UQ0_10Max.UQ1_10())
}

func TestQFromFloatTiesAndRange(t *testing.T) {
	for _, f := range qFormats {
		t.Run(f.name, func(t *testing.T) {
			ulp := math.Ldexp(1, -int(f.frac))
			// Ties round up: 0.5 ulp → 1, 1.5 ulp → 2, 2.5 ulp → 3.
			for _, c := range []struct {
				in   float64
				want uint64
			}{{0.5 * ulp, 1}, {1.5 * ulp, 2}, {2.5 * ulp, 3}, {0.49 * ulp, 0}, {0, 0}} {
				got, err := f.fromFloat(c.in)
				require.NoError(t, err)
				require.Equal(t, c.want, got, "%v ulp", c.in/ulp)
			}
			for _, bad := range []float64{-ulp, math.NaN(), math.Inf(1), math.Inf(-1), 1e30} {
				_, err := f.fromFloat(bad)
				require.Error(t, err, "%v", bad)
				require.Contains(t, err.Error(), f.name)
			}
			// The largest value that rounds to maxRaw is accepted, the
			// first that rounds past it is not (for UQ32_32 the limit
			// 2^32 − 2^-33 is not a float64; 2^32 is the first above).
			if f.maxRaw < 1<<53 {
				top := float64(f.maxRaw) * ulp
				got, err := f.fromFloat(top + 0.49*ulp)
				require.NoError(t, err)
				require.Equal(t, f.maxRaw, got)
				_, err = f.fromFloat(top + 0.5*ulp)
				require.Error(t, err)
			} else {
				_, err := f.fromFloat(math.Ldexp(1, 32))
				require.Error(t, err)
				got, err := f.fromFloat(math.Nextafter(math.Ldexp(1, 32), 0))
				require.NoError(t, err)
				v, ok := oracleFromFloat(math.Nextafter(math.Ldexp(1, 32), 0), 32, f.maxRaw, Nearest)
				require.True(t, ok)
				require.Equal(t, v, got)
			}
		})
	}
}

func TestQFromRatio(t *testing.T) {
	// DCTCP-style config g = 1/16 and RoCC's 3/10.
	g, err := UQ0_10FromRatio(1, 16, Floor)
	require.NoError(t, err)
	require.Equal(t, UQ0_10(64), g)
	// 0.3·1024 = 307.2: floor 307, nearest 307, ceil 308.
	for mode, want := range map[Rounding]UQ0_10{Floor: 307, Nearest: 307, Ceil: 308} {
		got, err := UQ0_10FromRatio(3, 10, mode)
		require.NoError(t, err)
		require.Equal(t, want, got, mode.String())
	}
	_, err = UQ0_10FromRatio(1, 0, Floor)
	require.ErrorContains(t, err, "zero denominator")
	_, err = UQ0_10FromRatio(1, 1, Floor) // 1.0 is not a UQ0_10
	require.Error(t, err)
	_, err = UQ32_32FromRatio(math.MaxUint64, 1, Floor)
	require.Error(t, err)
	_, err = UQ0_10FromRatio(1, 3, Rounding(9))
	require.Error(t, err)

	p := props(t, 2000)
	for _, f := range qFormats {
		p.Property(f.name+" FromRatio equals big.Rat rounding", prop.ForAll(
			func(num, den uint64, m uint8) bool {
				mode := Rounding(m)
				got, err := f.fromRatio(num, den, mode)
				want := roundDiv(new(big.Int).Lsh(bu(num), f.frac), bu(den), mode)
				if want.Cmp(bu(f.maxRaw)) > 0 {
					return err != nil
				}
				return err == nil && got == want.Uint64()
			},
			gen.UInt64Range(0, 1<<40).WithLabel("num"),
			gen.UInt64Range(1, 1<<40).WithLabel("den"),
			gen.UInt8Range(0, 2).WithLabel("mode"),
		))
	}
	p.TestingRun(t)
}

func TestQFromFloatProperty(t *testing.T) {
	p := props(t, 2000)
	for _, f := range qFormats {
		p.Property(f.name+" FromFloat equals big.Rat nearest-half-up", prop.ForAll(
			func(x float64) bool {
				got, err := f.fromFloat(x)
				want, ok := oracleFromFloat(x, f.frac, f.maxRaw, Nearest)
				if !ok {
					return err != nil
				}
				return err == nil && got == want
			},
			gen.Float64Range(-0.1, 1.1*float64(f.maxRaw)/math.Ldexp(1, int(f.frac))).WithLabel("f"),
		))
	}
	p.TestingRun(t)
}

func TestQMulU64(t *testing.T) {
	// Worked values: 1000·(512/1024) = 500; 1000·(307/1024) = 299.8046875:
	// floor 299, nearest 300, ceil 300.
	require.Equal(t, uint64(500), UQ0_10(512).MulU64(1000))
	require.Equal(t, uint64(299), UQ0_10(307).MulU64(1000))
	require.Equal(t, uint64(300), UQ0_10(307).MulU64Round(1000, Nearest))
	require.Equal(t, uint64(300), UQ0_10(307).MulU64Round(1000, Ceil))
	// Tie: 3·(512/1024) = 1.5 → nearest 2 (half up).
	require.Equal(t, uint64(2), UQ0_10(512).MulU64Round(3, Nearest))
	// No overflow at the top of the range for UQ0_10: the result is ≤ x.
	require.Equal(t, uint64(math.MaxUint64)-uint64(math.MaxUint64)/1024-1, UQ0_10Max.MulU64(math.MaxUint64))
	// UQ1_10 and UQ32_32 saturate.
	require.Equal(t, uint64(math.MaxUint64), UQ1_10Max.MulU64(math.MaxUint64))
	require.Equal(t, uint64(math.MaxUint64), UQ32_32(2<<32).MulU64(1<<63))

	p := props(t, 3000)
	for _, f := range qFormats {
		p.Property(f.name+" MulU64Round equals big.Int", prop.ForAll(
			func(raw, x uint64, m uint8) bool {
				raw &= f.maxRaw
				mode := Rounding(m)
				want := oracleMulU64(raw, x, f.frac, mode)
				return f.mulU64(raw, x, mode) == want &&
					(mode != Floor || f.mulFloor(raw, x) == want)
			},
			gen.UInt64().WithLabel("raw"),
			gen.UInt64().WithLabel("x"),
			gen.UInt8Range(0, 2).WithLabel("mode"),
		))
		p.Property(f.name+" Mul equals big.Int floor, saturated", prop.ForAll(
			func(a, b uint64) bool {
				a &= f.maxRaw
				b &= f.maxRaw
				want := min(oracleMulU64(a, b, f.frac, Floor), f.maxRaw)
				return f.mul(a, b) == want
			},
			gen.UInt64().WithLabel("a"),
			gen.UInt64().WithLabel("b"),
		))
	}
	p.TestingRun(t)
}

// TestUQ10MulExhaustive checks Mul over every pair of valid UQ0_10 and
// UQ1_10 values against float64, which is exact here: a·b < 2^22 and the
// division by 1024 only moves the exponent.
func TestUQ10MulExhaustive(t *testing.T) {
	for a := range uint64(2048) {
		for b := range uint64(2048) {
			want := math.Floor(float64(a) * float64(b) / 1024)
			want1 := min(want, 2047)
			if got := UQ1_10(a).Mul(UQ1_10(b)); float64(got) != want1 {
				t.Fatalf("UQ1_10(%d).Mul(%d) = %d, want %v", a, b, got, want1)
			}
			if a < 1024 && b < 1024 {
				if got := UQ0_10(a).Mul(UQ0_10(b)); float64(got) != want {
					t.Fatalf("UQ0_10(%d).Mul(%d) = %d, want %v", a, b, got, want)
				}
			}
		}
	}
}

func TestQString(t *testing.T) {
	p := props(t, 2000)
	for _, f := range qFormats {
		p.Property(f.name+" String is the exact decimal", prop.ForAll(
			func(raw uint64) bool {
				raw &= f.maxRaw
				return f.str(raw) == oracleString(raw, f.frac)
			},
			gen.UInt64().WithLabel("raw"),
		))
		p.Property(f.name+" Float is raw/2^frac rounded to nearest", prop.ForAll(
			func(raw uint64) bool {
				raw &= f.maxRaw
				want, _ := new(big.Rat).SetFrac(bu(raw), pow2(f.frac)).Float64()
				return f.float(raw) == want
			},
			gen.UInt64().WithLabel("raw"),
		))
	}
	p.TestingRun(t)
	require.Equal(t, "0", UQ32_32(0).String())
	require.Equal(t, "0.00000000023283064365386962890625", UQ32_32(1).String()) // 2^-32
}

func TestUQ1_10Narrow(t *testing.T) {
	for raw := range uint64(2048) {
		a := UQ1_10(raw)
		w, err := a.UQ0_10(Wrap)
		require.NoError(t, err)
		require.Equal(t, UQ0_10(raw%1024), w)
		s, err := a.UQ0_10(Saturate)
		require.NoError(t, err)
		require.Equal(t, UQ0_10(min(raw, 1023)), s)
		r, err := a.UQ0_10(Reject)
		if raw < 1024 {
			require.NoError(t, err)
			require.Equal(t, UQ0_10(raw), r)
		} else {
			require.True(t, errors.Is(err, ErrOverflow))
			require.Equal(t, UQ0_10(0), r)
		}
	}
}
