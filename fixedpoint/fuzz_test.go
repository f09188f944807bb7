package fixedpoint

import (
	"errors"
	"math"
	"math/big"
	"testing"

	"github.com/hwcc/hwcc/units"
)

// FuzzQMul, like every fuzz target in this file, is differential: each
// fast operation against its math/big oracle (oracle_test.go and the
// per-file oracles), in the style of holiman/uint256's fuzz tests; a table
// (qFormats) pairs every Q type's operations with one oracle.
func FuzzQMul(f *testing.F) {
	f.Add(uint64(1023), uint64(40_000), uint8(0))                   // DCQCN α·rate, floor
	f.Add(uint64(512), uint64(3), uint8(1))                         // tie 1.5 → 2 (half up)
	f.Add(uint64(math.MaxUint64), uint64(math.MaxUint64), uint8(2)) // saturation, ceil
	f.Add(uint64(4080218931), uint64(162_500), uint8(1))            // HPCC η·B·T
	f.Add(uint64(0), uint64(math.MaxUint64), uint8(0))              // zero gain
	f.Fuzz(func(t *testing.T, raw, x uint64, m uint8) {
		mode := Rounding(m % 3)
		for _, q := range qFormats {
			r := raw & q.maxRaw
			want := oracleMulU64(r, x, q.frac, mode)
			if got := q.mulU64(r, x, mode); got != want {
				t.Fatalf("%s(%d).MulU64Round(%d, %v) = %d, want %d", q.name, r, x, mode, got, want)
			}
			if got, want := q.mulFloor(r, x), oracleMulU64(r, x, q.frac, Floor); got != want {
				t.Fatalf("%s(%d).MulU64(%d) = %d, want %d", q.name, r, x, got, want)
			}
			b := x & q.maxRaw
			if got, want := q.mul(r, b), min(oracleMulU64(r, b, q.frac, Floor), q.maxRaw); got != want {
				t.Fatalf("%s(%d).Mul(%d) = %d, want %d", q.name, r, b, got, want)
			}
			if got, want := q.str(r), oracleString(r, q.frac); got != want {
				t.Fatalf("%s(%d).String() = %q, want %q", q.name, r, got, want)
			}
		}
	})
}

func FuzzQFromFloat(f *testing.F) {
	f.Add(0.95)              // HPCC η
	f.Add(1.0 / 256)         // DCQCN g
	f.Add(0.5 / 1024)        // tie at half a Q10 step
	f.Add(1023.5 / 1024)     // rounds to 1024: out of UQ0_10
	f.Add(-0.0)              // negative zero is zero
	f.Add(math.Ldexp(1, 32)) // just past UQ32_32
	f.Add(math.NaN())        // rejected
	f.Fuzz(func(t *testing.T, x float64) {
		for _, q := range qFormats {
			got, err := q.fromFloat(x)
			want, ok := oracleFromFloat(x, q.frac, q.maxRaw, Nearest)
			if ok != (err == nil) || (ok && got != want) {
				t.Fatalf("%sFromFloat(%v) = %d, %v; want %d, ok=%v", q.name, x, got, err, want, ok)
			}
		}
	})
}

func FuzzQFromRatio(f *testing.F) {
	f.Add(uint64(3), uint64(10), uint8(2))             // RoCC 0.3, ceil
	f.Add(uint64(1), uint64(0), uint8(0))              // zero denominator
	f.Add(uint64(math.MaxUint64), uint64(1), uint8(0)) // too large
	f.Add(uint64(12_000), uint64(10_000), uint8(1))    // U = 1.2
	f.Add(uint64(1), uint64(2048), uint8(1))           // tie at half a Q10 step
	f.Fuzz(func(t *testing.T, num, den uint64, m uint8) {
		mode := Rounding(m % 3)
		for _, q := range qFormats {
			got, err := q.fromRatio(num, den, mode)
			if den == 0 {
				if err == nil {
					t.Fatalf("%sFromRatio(%d, 0) did not fail", q.name, num)
				}
				continue
			}
			want := roundDiv(new(big.Int).Lsh(bu(num), q.frac), bu(den), mode)
			ok := want.Cmp(bu(q.maxRaw)) <= 0
			if ok != (err == nil) || (ok && got != want.Uint64()) {
				t.Fatalf("%sFromRatio(%d, %d, %v) = %d, %v; want %v", q.name, num, den, mode, got, err, want)
			}
		}
	})
}

func FuzzRegister(f *testing.F) {
	f.Add(uint8(20), uint8(0), uint64(0xFFFF0), int64(0x20), uint64(1<<21)) // txBytes wraps
	f.Add(uint8(8), uint8(1), uint64(250), int64(10), uint64(300))          // saturate
	f.Add(uint8(8), uint8(2), uint64(250), int64(10), uint64(255))          // reject
	f.Add(uint8(64), uint8(0), uint64(0), int64(math.MinInt64), uint64(1))  // borrow at 64 bits
	f.Add(uint8(1), uint8(2), uint64(1), int64(-2), uint64(2))              // 1-bit register
	f.Fuzz(func(t *testing.T, w, pol uint8, start uint64, delta int64, v uint64) {
		width, policy := uint(w%64)+1, Overflow(pol%3)
		r, err := NewRegister(width, policy)
		if err != nil {
			t.Fatal(err)
		}
		start &= mask(width)
		if _, err := r.Set(start); err != nil {
			t.Fatal(err)
		}
		want, ok := modelUnsigned(new(big.Int).Add(bu(start), big.NewInt(delta)), width, policy)
		got, err := r.Add(delta)
		if !ok {
			want = start
		}
		if ok != (err == nil) || got != want || r.Value() != want || (!ok && !errors.Is(err, ErrOverflow)) {
			t.Fatalf("%d-bit %v register %d + %d = %d, %v; want %d, ok=%v", width, policy, start, delta, got, err, want, ok)
		}
		before := r.Value()
		want, ok = modelUnsigned(bu(v), width, policy)
		got, err = r.Set(v)
		if !ok {
			want = before
		}
		if ok != (err == nil) || got != want || r.Value() != want {
			t.Fatalf("%d-bit %v register Set(%d) = %d, %v; want %d, ok=%v", width, policy, v, got, err, want, ok)
		}
	})
}

func FuzzSignedRegister(f *testing.F) {
	f.Add(uint8(16), uint8(1), int64(10), int64(-40_000))                  // saturate low
	f.Add(uint8(8), uint8(0), int64(127), int64(1))                        // wrap to −128
	f.Add(uint8(64), uint8(2), int64(math.MaxInt64), int64(1))             // reject past int64
	f.Add(uint8(64), uint8(1), int64(math.MinInt64), int64(math.MinInt64)) // saturate past int64
	f.Add(uint8(1), uint8(0), int64(-1), int64(1))                         // 1-bit: −1 + 1 = 0
	f.Fuzz(func(t *testing.T, w, pol uint8, start, delta int64) {
		width, policy := uint(w%64)+1, Overflow(pol%3)
		r, err := NewSignedRegister(width, policy)
		if err != nil {
			t.Fatal(err)
		}
		s, _ := modelSigned(big.NewInt(start), width, Wrap)
		if _, err := r.Set(s); err != nil {
			t.Fatal(err)
		}
		want, ok := modelSigned(new(big.Int).Add(big.NewInt(s), big.NewInt(delta)), width, policy)
		got, err := r.Add(delta)
		if !ok {
			want = s
		}
		if ok != (err == nil) || got != want || r.Value() != want {
			t.Fatalf("%d-bit %v signed register %d + %d = %d, %v; want %d, ok=%v", width, policy, s, delta, got, err, want, ok)
		}
		before := r.Value()
		want, ok = modelSigned(big.NewInt(start), width, policy)
		got, err = r.Set(start)
		if !ok {
			want = before
		}
		if ok != (err == nil) || got != want || r.Value() != want {
			t.Fatalf("%d-bit %v signed register Set(%d) = %d, %v; want %d, ok=%v", width, policy, start, got, err, want, ok)
		}
	})
}

func FuzzWrap(f *testing.F) {
	f.Add(uint64(0xFFFF0), uint64(0x20), uint8(20), int64(128), int64(400e9)) // HPCC txBytes at 400 Gb/s
	f.Add(uint64(math.MaxUint64), uint64(1), uint8(64), int64(1), int64(1))   // 64-bit wrap, huge time
	f.Add(uint64(5), uint64(0), uint8(1), int64(0), int64(-1))                // zero unit, negative rate
	f.Add(uint64(1<<23), uint64(1<<23), uint8(24), int64(1), int64(8e9))      // 24-bit ns timestamp
	f.Fuzz(func(t *testing.T, older, k uint64, w uint8, unit, rate int64) {
		width := uint(w%64) + 1
		k &= mask(width)
		newer := older + k // the counter advanced k units (mod 2^64, so mod 2^width too)
		if got := WrapDelta(older, newer, width); got != k {
			t.Fatalf("WrapDelta(%d, %d, %d) = %d, want %d", older, newer, width, got, k)
		}
		ww := uint(w % 130)
		if got, want := WrapTime(ww, units.Bytes(unit), units.Rate(rate)), oracleWrapTime(ww, units.Bytes(unit), units.Rate(rate)); got != want {
			t.Fatalf("WrapTime(%d, %d, %d) = %d, want %d", ww, unit, rate, got, want)
		}
	})
}

func FuzzQuantizer(f *testing.F) {
	f.Add(uint64(600), uint8(16), uint8(1), uint64(150_000), uint64(250))       // RoCC ΔQ
	f.Add(uint64(10_000_000), uint8(40), uint8(0), uint64(40e9), uint64(1<<41)) // RoCC ΔF, n above Max
	f.Add(uint64(80), uint8(16), uint8(2), uint64(1500), uint64(19))            // HPCC qLen, ceil
	f.Add(uint64(1), uint8(64), uint8(2), uint64(math.MaxUint64), uint64(0))    // identity
	f.Add(uint64(600), uint8(16), uint8(1), uint64(39_321_300), uint64(65535))  // tie that saturates
	f.Fuzz(func(t *testing.T, delta uint64, w, m uint8, v, n uint64) {
		width, mode := uint(w%64)+1, Rounding(m%3)
		q, err := NewQuantizer(delta, width, mode)
		fits := delta != 0 && new(big.Int).Mul(bu(mask(width)), bu(delta)).IsUint64()
		if fits != (err == nil) {
			t.Fatalf("NewQuantizer(%d, %d, %v): err = %v, want fits=%v", delta, width, mode, err, fits)
		}
		if !fits {
			return
		}
		exact := roundDiv(bu(v), bu(delta), mode)
		sat := exact.Cmp(bu(mask(width))) > 0
		want := mask(width)
		if !sat {
			want = exact.Uint64()
		}
		if got, gs := q.QuantizeSat(v); got != want || gs != sat || q.Quantize(v) != want {
			t.Fatalf("Quantize(%d) Δ=%d w=%d %v = %d, %v; want %d, %v", v, delta, width, mode, got, gs, want, sat)
		}
		if got, want := q.Dequantize(n), new(big.Int).Mul(bu(min(n, mask(width))), bu(delta)); got != want.Uint64() {
			t.Fatalf("Dequantize(%d) Δ=%d w=%d = %d, want %v", n, delta, width, got, want)
		}
	})
}

func FuzzCSD(f *testing.F) {
	f.Add(0.3, uint8(4), uint8(16), int64(1000))            // RoCC ᾱ at 40 Gb/s
	f.Add(2.25, uint8(2), uint8(16), int64(-1000))          // RoCC β̄ at 100 Gb/s, exact
	f.Add(-0.45, uint8(8), uint8(62), int64(math.MinInt64)) // finest shift, saturation
	f.Add(4294967295.5, uint8(3), uint8(0), int64(1<<40))   // near the largest constant
	f.Add(1e-300, uint8(4), uint8(10), int64(7))            // below the grid: no terms
	f.Add(math.Inf(1), uint8(4), uint8(10), int64(7))       // rejected
	f.Fuzz(func(t *testing.T, c float64, mt, fb uint8, x int64) {
		maxTerms, fracBits := int(mt%MaxCSDTerms)+1, uint(fb%(MaxCSDFracBits+1))
		cs, err := NewCSD(c, maxTerms, fracBits)
		valid := !math.IsNaN(c) && !math.IsInf(c, 0) && math.Abs(c) < 1<<32
		if valid != (err == nil) {
			t.Fatalf("NewCSD(%v): err = %v, want valid=%v", c, err, valid)
		}
		if !valid {
			return
		}
		ts := cs.Terms()
		if len(ts) > maxTerms {
			t.Fatalf("NewCSD(%v, %d): %d terms", c, maxTerms, len(ts))
		}
		for i, tm := range ts {
			if int(tm.Exp) < -int(fracBits) || tm.Exp > MaxCSDExp || (i > 0 && int(ts[i-1].Exp)-int(tm.Exp) < 2) {
				t.Fatalf("NewCSD(%v, %d, %d) = %v: not a NAF within limits", c, maxTerms, fracBits, cs)
			}
		}
		ef, e := exactError(c, ts)
		if new(big.Rat).SetFloat64(ef).Cmp(e) != 0 || ef != cs.Error() {
			t.Fatalf("NewCSD(%v) = %v: Error() = %v, exact %v", c, cs, cs.Error(), e.FloatString(40))
		}
		if got, want := cs.Mul(x), oracleCSDMul(ts, x); got != want {
			t.Fatalf("(%v).Mul(%d) = %d, want %d", cs, x, got, want)
		}
		if got, want := cs.MulFloor(x), oracleCSDMulFloor(ts, x); got != want {
			t.Fatalf("(%v).MulFloor(%d) = %d, want %d", cs, x, got, want)
		}
	})
}
