package window

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/fixedpoint"
	"github.com/hwcc/hwcc/units"
)

// propSeed fixes gopter's random source; override with -window.seed=N.
var propSeed = flag.Int64("window.seed", 20190819, "seed of the window package's gopter properties")

func properties(t *testing.T, minSuccess int) *gopter.Properties {
	p := gopter.DefaultTestParametersWithSeed(*propSeed)
	p.MinSuccessfulTests = minSuccess
	return gopter.NewProperties(p)
}

// randomU draws a normalised inflight that exercises both branches of line
// 12: zero, tiny, below η, within 1 % of η, above η, far above η.
func randomU(rng *rand.Rand) fixedpoint.UQ32_32 {
	one := float64(fixedpoint.UQ32_32One)
	switch rng.IntN(6) {
	case 0:
		return 0
	case 1:
		return fixedpoint.UQ32_32(rng.Uint64N(1 << 20))
	case 2:
		return fixedpoint.UQ32_32(rng.Float64() * 0.95 * one)
	case 3:
		return fixedpoint.UQ32_32((0.94 + 0.02*rng.Float64()) * one)
	case 4:
		return fixedpoint.UQ32_32((0.95 + 3*rng.Float64()) * one)
	}
	return fixedpoint.UQ32_32(math.Exp(rng.Float64()*math.Log(5000)) * one)
}

// TestPropWindowBounds: for any sequence of U and commit flags the window
// stays in [W_min, W_max] (W_max = W_init here), so does Wc, incStage stays
// in [0, maxStage], and R = W/T always matches W.
func TestPropWindowBounds(t *testing.T) {
	props := properties(t, 200)
	props.Property("W, Wc in [Min, Max]; incStage ≤ maxStage; R = Rate(W)", prop.ForAll(
		func(maxStage, ai int, minW, init int64, seed uint64) bool {
			c := Config{T: 13 * units.Microsecond, Init: units.Bytes(init), Min: units.Bytes(min(minW, init)),
				AI: units.Bytes(min(int64(ai), init)), Eta: Eta95, MaxStage: maxStage}
			w, err := New(c)
			if err != nil {
				return false
			}
			rng := rand.New(rand.NewPCG(seed, 1))
			for range 300 {
				seq := rng.Uint64N(1 << 20)
				if rng.IntN(4) == 0 {
					us := []fixedpoint.UQ32_32{randomU(rng), randomU(rng), randomU(rng)}
					w.UpdateHops(us, uint16(rng.IntN(8)), rng.IntN(3) == 0, seq)
				} else {
					w.Update(randomU(rng), rng.IntN(3) == 0, seq)
				}
				s := w.State()
				if s.W < c.Min || s.W > c.Init || s.Wc < c.Min || s.Wc > c.Init ||
					int(s.IncStage) > maxStage || s.Rate != w.Law().Rate(s.W) {
					return false
				}
				for _, h := range s.Hops {
					if h.Wc < c.Min || h.Wc > c.Init || int(h.IncStage) > maxStage {
						return false
					}
				}
			}
			return true
		},
		gen.IntRange(0, 10).WithLabel("maxStage"),
		gen.IntRange(0, 4000).WithLabel("W_AI"),
		gen.Int64Range(1, 20000).WithLabel("W_min"),
		gen.Int64Range(1, int64(MaxWindow)).WithLabel("W_init"),
		gen.UInt64().WithLabel("trace seed"),
	))
	props.TestingRun(t)
}

// TestPropAIThenMI: with U held below η and every update committing, the
// window grows by exactly W_AI per update for maxStage updates (line 17),
// then takes one multiplicative step W = Wc·η/U + W_AI (line 13) within the
// Divider's bound, and incStage returns to 0; the cycle repeats.
func TestPropAIThenMI(t *testing.T) {
	props := properties(t, 300)
	for _, native := range []bool{false, true} {
		props.Property(fmt.Sprintf("AI maxStage times, then MI (native=%v)", native), prop.ForAll(
			func(maxStage, ai int, wc0 int64, uRaw uint64) bool {
				c := Config{T: 9 * units.Microsecond, Init: MaxWindow, Min: 1, AI: units.Bytes(ai),
					Eta: Eta95, MaxStage: maxStage, NativeDivision: native}
				l, err := NewLaw(c)
				if err != nil {
					return false
				}
				over, under := divBound(l.Divider())
				ref := Reference{Wc: units.Bytes(wc0)}
				u := fixedpoint.UQ32_32(uRaw)
				for range 2 { // two cycles
					start := float64(ref.Wc)
					for k := 1; k <= maxStage; k++ {
						w := l.ComputeWind(&ref, u, true)
						want := math.Min(start+float64(k*ai), float64(MaxWindow))
						if float64(w) != want || int(ref.IncStage) != k {
							return false
						}
					}
					// MI: x = Wc·η/U in real numbers, with the η register.
					x := float64(ref.Wc) * qFloat(Eta95) / qFloat(u)
					w := float64(l.ComputeWind(&ref, u, true))
					lo := math.Min(math.Max(x*(1-under)-2+float64(ai), 1), float64(MaxWindow))
					hi := math.Min(x*(1+over)+float64(ai), float64(MaxWindow))
					// 1e-6 B: float64 rounding of the oracle (x < 2^42).
					if w < lo-1e-6 || w > hi+1e-6 || ref.IncStage != 0 || ref.Wc != units.Bytes(w) {
						return false
					}
				}
				return true
			},
			gen.IntRange(0, 10).WithLabel("maxStage"),
			gen.IntRange(0, 2000).WithLabel("W_AI"),
			// Wc ≤ 2^20 and U ≥ 1/16 keep Wc·η/U ≤ 2^24, far from the clamp.
			gen.Int64Range(1, 1<<20).WithLabel("Wc"),
			gen.UInt64Range(1<<28, uint64(Eta95)-1).WithLabel("U (raw UQ32_32, in [1/16, η))"),
		))
	}
	props.TestingRun(t)
}

// TestPropSingleBottleneckOneStep: N flows share one link of B·T bytes; the
// link's normalised inflight is U = ΣW_j/(B·T) > η. After one update of
// every flow (line 13, committing), the projected utilisation
// U' = ΣW'_j/(B·T) is η + N·W_AI/(B·T) (Appendix A.2), within
//
//	η·(U/U_q)·(1 − under) − 2N/(B·T)  ≤  U' − N·W_AI/(B·T)  ≤  η·(U/U_q)·(1 + over)
//
// where U_q is U rounded to UQ32_32 (|U/U_q − 1| ≤ 2^-33/U), (over, under)
// is the Divider's bound (0.79 % and 0.10 % at the default table) and
// −2N/(B·T) the truncations (each W'_j ≥ 1000·η/U ≫ W_min, so no clamp).
func TestPropSingleBottleneckOneStep(t *testing.T) {
	props := properties(t, 300)
	for _, native := range []bool{false, true} {
		props.Property(fmt.Sprintf("one MI step brings a single bottleneck to η (native=%v)", native), prop.ForAll(
			func(n int, bt int64, overload uint64, ai int, seed uint64) bool {
				c := Config{T: 13 * units.Microsecond, Init: MaxWindow, Min: 1, AI: units.Bytes(ai),
					Eta: Eta95, MaxStage: 5, NativeDivision: native}
				l, err := NewLaw(c)
				if err != nil {
					return false
				}
				over, under := divBound(l.Divider())
				// Split U·BT bytes into n windows of at least 1000 B.
				target := float64(bt) * (qFloat(Eta95) + float64(overload)/1000)
				rng := rand.New(rand.NewPCG(seed, 2))
				ws := make([]int64, n)
				var sum int64
				for j := range ws {
					ws[j] = 1000 + int64(rng.Float64()*2*target/float64(n))
					sum += ws[j]
				}
				uq, err := fixedpoint.UQ32_32FromRatio(uint64(sum), uint64(bt), fixedpoint.Nearest)
				if err != nil {
					return false
				}
				u := float64(sum) / float64(bt)
				if u < qFloat(Eta95) { // the split came out below η: not this property's case
					return true
				}
				var sumNew float64
				for _, wj := range ws {
					ref := Reference{Wc: units.Bytes(wj)}
					sumNew += float64(l.ComputeWind(&ref, uq, true))
				}
				proj := sumNew/float64(bt) - float64(n*ai)/float64(bt)
				ratio := u / qFloat(uq)
				lo := qFloat(Eta95)*ratio*(1-under) - 2*float64(n)/float64(bt)
				hi := qFloat(Eta95) * ratio * (1 + over)
				return proj >= lo-1e-12 && proj <= hi+1e-12
			},
			gen.IntRange(1, 64).WithLabel("N flows"),
			gen.Int64Range(10_000, 10_000_000).WithLabel("B·T bytes"),
			gen.UInt64Range(1, 20_000).WithLabel("(U − η)·1000"),
			gen.IntRange(0, 200).WithLabel("W_AI"),
			gen.UInt64().WithLabel("split seed"),
		))
	}
	props.TestingRun(t)
}

// TestPropTracksFloatModel: over random traces of U and commit flags the
// integer window tracks the real-valued law (refLaw) given the same U. The
// bound is carried along the trace: E_c bounds |Wc_int − Wc_ref| and each
// update's bound is
//
//	MI:  E_W = Wc_int·η/U·max(over, under) + 2 + E_c·η/U
//	AI:  E_W = E_c
//
// (the Divider's relative bound on the quotient, its truncation, and the
// propagated reference error), plus 1e-6 B of float64 rounding in the
// oracle. A commit sets E_c = E_W, or 0 when both windows sit at the same
// clamp. U = 0 gives W_max in both. The branch of line 12 is the same in
// both because U and incStage are.
func TestPropTracksFloatModel(t *testing.T) {
	props := properties(t, 150)
	fine := fineTable(t)
	props.Property("integer window within E_W of the float law", prop.ForAll(
		func(maxStage, ai int, table int, seed uint64) bool {
			c := paperSim()
			c.MaxStage, c.AI = maxStage, units.Bytes(ai)
			c.Max = 4 * c.Init
			switch table {
			case 1:
				c.Table = fine
			case 2:
				c.NativeDivision = true
			}
			w, err := New(c)
			if err != nil {
				return false
			}
			ref := newRefLaw(c)
			rr := refReference{wc: float64(c.Init)}
			over, under := divBound(w.Law().Divider())
			rel := math.Max(over, under)
			eta := qFloat(Eta95)
			rng := rand.New(rand.NewPCG(seed, 3))
			var ec float64 // bound on |Wc_int − Wc_ref|
			for k := range 400 {
				u := randomU(rng)
				commit := rng.IntN(3) == 0
				wcInt := float64(w.State().Wc)
				gotInt := float64(w.Update(u, commit, uint64(k)))
				gotRef, mi := ref.compute(&rr, qFloat(u), commit)
				var ew float64
				switch {
				case mi && u == 0:
					ew = 0
				case mi:
					ew = wcInt*eta/qFloat(u)*rel + 2 + ec*eta/qFloat(u)
				default:
					ew = ec
				}
				if math.Abs(gotInt-gotRef) > ew+1e-6 {
					t.Logf("step %d: int %v ref %v bound %v", k, gotInt, gotRef, ew)
					return false
				}
				if commit {
					ec = ew
					if gotInt == gotRef && (gotInt == ref.max || gotInt == ref.min) {
						ec = 0
					}
				}
			}
			return true
		},
		gen.IntRange(0, 8).WithLabel("maxStage"),
		gen.IntRange(0, 500).WithLabel("W_AI"),
		gen.IntRange(0, 2).WithLabel("table (default, fine, native)"),
		gen.UInt64().WithLabel("trace seed"),
	))
	props.TestingRun(t)
}

// TestMIStepErrorDefaultTable states the single-step error of line 13 at
// the default table over random Wc and U: the quotient is never below the
// exact Wc·η/U by more than 0.10 % + 2 B nor above it by more than 0.79 %.
func TestMIStepErrorDefaultTable(t *testing.T) {
	l, err := NewLaw(Config{T: 13 * units.Microsecond, Init: MaxWindow, Min: 1, Eta: Eta95})
	require.NoError(t, err)
	over, under := divBound(l.Divider())
	require.Less(t, over, 0.0079)
	require.Less(t, under, 0.0010)
	rng := rand.New(rand.NewPCG(5, 6))
	for range 100000 {
		wc := units.Bytes(1 + rng.Int64N(int64(MaxWindow)))
		u := randomU(rng)
		if u == 0 {
			continue
		}
		ref := Reference{Wc: wc}
		got := l.ComputeWind(&ref, u, false)
		x := exactQuo(0, uint64(wc)*uint64(Eta95), uint64(u))
		if got == 1 || got == MaxWindow { // clamped
			continue
		}
		require.True(t, withinDivBound(uint64(got), x, over, under), "Wc=%d U=%v W=%d", wc, u, got)
	}
}
