package window

import (
	"math"
	"testing"

	"github.com/hwcc/hwcc/fixedpoint"
	"github.com/hwcc/hwcc/units"
)

// FuzzDivider checks Quo and Quo128 against the exact quotient (math/big)
// and the bound stated on Divider, for the default table and the native
// divide.
func FuzzDivider(f *testing.F) {
	f.Add(uint64(0), uint64(1e9), uint64(3))                         // small divisor, no normalisation
	f.Add(uint64(0), uint64(1e9), uint64(1000003))                   // divisor between two stored entries
	f.Add(uint64(0), uint64(math.MaxUint64), uint64(math.MaxUint64)) // widest divisor: rounding must not overflow
	f.Add(uint64(7), uint64(0), uint64(1<<22+1))                     // 128-bit numerator, divisor just past 22 bits
	f.Add(uint64(1<<40), uint64(123), uint64(1<<41))                 // numerator still wide after the shift
	f.Add(uint64(5), uint64(5), uint64(0))                           // zero divisor saturates
	f.Fuzz(func(t *testing.T, hi, lo, n uint64) {
		for _, d := range []Divider{NewDivider(nil, false), NewDivider(nil, true)} {
			over, under := divBound(d)
			if n == 0 {
				if d.Quo(lo, n) != math.MaxUint64 || d.Quo128(hi, lo, n) != math.MaxUint64 {
					t.Fatalf("n = 0 must saturate")
				}
				continue
			}
			if q := d.Quo(lo, n); !withinDivBound(q, exactQuo(0, lo, n), over, under) {
				t.Fatalf("Quo(%d, %d) = %d outside the bound (native=%v)", lo, n, q, d.Native())
			}
			q := d.Quo128(hi, lo, n)
			if hi >= n {
				if q != math.MaxUint64 {
					t.Fatalf("Quo128(%d, %d, %d) = %d, want saturation", hi, lo, n, q)
				}
				continue
			}
			x := exactQuo(hi, lo, n)
			if q == math.MaxUint64 && !d.Native() {
				if f, _ := x.Float64(); f < math.Ldexp(1, 42) {
					t.Fatalf("Quo128(%d, %d, %d) saturated below 2^42", hi, lo, n)
				}
				continue
			}
			if !withinDivBound(q, x, over, under) {
				t.Fatalf("Quo128(%d, %d, %d) = %d outside the bound (native=%v)", hi, lo, n, q, d.Native())
			}
		}
	})
}

// FuzzComputeWind drives one Reference through a byte string of events
// (each 9 bytes: U raw, commit flag) and checks the invariants: W and Wc in
// [Min, Max], incStage ≤ maxStage, an AI step adds exactly W_AI (before the
// clamp), an MI step is within the Divider's bound of Wc·η/U + W_AI.
func FuzzComputeWind(f *testing.F) {
	f.Add(uint8(5), uint16(80), []byte{})                                                   // no event
	f.Add(uint8(5), uint16(80), []byte{0x80, 0, 0, 0, 0, 0, 0, 0, 1})                       // U = 0.5, commit (AI)
	f.Add(uint8(0), uint16(0), []byte{0, 0, 0, 0, 0, 0, 0, 0, 1})                           // U = 0 in MI: W = Max
	f.Add(uint8(2), uint16(500), []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0}) // U huge, no commit
	f.Fuzz(func(t *testing.T, maxStage uint8, ai uint16, events []byte) {
		c := Config{T: 13 * units.Microsecond, Init: 162500, Max: 1 << 24, Min: 100,
			AI: units.Bytes(ai), Eta: Eta95, MaxStage: int(maxStage)}
		l, err := NewLaw(c)
		if err != nil {
			t.Fatal(err)
		}
		over, under := divBound(l.Divider())
		ref := l.InitialReference()
		for k := 0; len(events) >= 9 && k < 512; k++ { // bounded: short executions
			var raw uint64
			for _, b := range events[:8] {
				raw = raw<<8 | uint64(b)
			}
			commit := events[8]&1 == 1
			events = events[9:]
			u := fixedpoint.UQ32_32(raw)
			before := ref
			w := l.ComputeWind(&ref, u, commit)
			if w < c.Min || w > c.Max || ref.Wc < c.Min || ref.Wc > c.Max || ref.IncStage > maxStage {
				t.Fatalf("out of bounds: W=%d ref=%+v", w, ref)
			}
			if !commit && ref != before {
				t.Fatalf("reference changed without a commit: %+v → %+v", before, ref)
			}
			mi := raw >= uint64(Eta95) || before.IncStage >= maxStage
			if !mi {
				if want := min(before.Wc+units.Bytes(ai), c.Max); w != want {
					t.Fatalf("AI: W = %d, want %d", w, want)
				}
				continue
			}
			if raw == 0 {
				if w != c.Max {
					t.Fatalf("U = 0: W = %d, want Max", w)
				}
				continue
			}
			x := float64(before.Wc) * qFloat(Eta95) / qFloat(u)
			lo := math.Min(math.Max(x*(1-under)-2+float64(ai), float64(c.Min)), float64(c.Max))
			hi := math.Min(math.Max(x*(1+over)+float64(ai), float64(c.Min)), float64(c.Max))
			if fw := float64(w); fw < lo-1e-6 || fw > hi+1e-6 {
				t.Fatalf("MI: W = %d outside [%v, %v] (Wc=%d U=%v)", w, lo, hi, before.Wc, u)
			}
		}
	})
}
