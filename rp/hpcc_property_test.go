package rp

import (
	"flag"
	"fmt"
	"math"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/hwtables"
	inttel "github.com/hwcc/hwcc/int"
	"github.com/hwcc/hwcc/window"
)

// hpccSeed fixes gopter's random source; override with -hpcc.seed=N.
var hpccSeed = flag.Int64("hpcc.seed", 20190819, "seed of the HPCC gopter properties")

func hpccProperties(minSuccess int) *gopter.Properties {
	p := gopter.DefaultTestParametersWithSeed(*hpccSeed)
	p.MinSuccessfulTests = minSuccess
	return gopter.NewProperties(p)
}

// hpccDivRel returns the Divider's relative bound max(over, under) as
// stated on window.Divider: (1 + Over)/(1 − 2^-22) − 1 and
// 1 − (1 − Under)/(1 + 2^-22); 0 for the native divide.
func hpccDivRel(d window.Divider) float64 {
	if d.Native() {
		return 0
	}
	b := d.Table().Bound()
	norm := math.Ldexp(1, -22)
	return math.Max((1+b.Over)/(1-norm)-1, 1-(1-b.Under)/(1+norm))
}

// hpccTracker runs rp.HPCC and the float oracle side by side along a trace
// and carries the error bounds.
//
// Per-sample bound (line 5), from the formats stated on HPCC:
//
//	|u'_int − u'_ref| ≤ δ(u) = ε·u + 4·2^-32
//
// with ε the Divider's relative bound (the txRate term; the qlen term is
// exact to 1.001·2^-32) widened by 2^-30 for the busy-time constant's
// rounding and by 1e-14 for the oracle's own float64 rounding, and 4·2^-32
// for the truncations (qlen term 1, divider 2, one spare). The EWMA (line 9)
// is a contraction, so with w = min(τ, T)/T
//
//	B_U' = (1 − w)·B_U + w·δ(u) + Δw·(U_int + u + δ(u)) + 2^-33 + 1e-15·U_ref
//
// bounds |U_int − U_ref|: Δw = (1 + T_ps/2^32)·2^-32 bounds the integer
// weight's error, 2^-33 the half-up rounding, 1e-15·U the oracle's.
//
// Window bound, as in window's TestPropTracksFloatModel with the U
// difference added; E_c bounds |Wc_int − Wc_ref|:
//
//	MI:  E_W = Wc_int·η/U_int·ε_div + 2 + E_c·η/U_int + Wc_ref·η·B_U/(U_int·U_ref)
//	AI:  E_W = E_c
//
// A commit sets E_c = E_W (0 when both sit at the same clamp). When U_int or
// U_ref is 0 both windows are W_max, which the bound on U guarantees as
// long as B_U·W_max < W_min·η (checked). Multi-rate takes the largest
// per-hop bound, since min is 1-Lipschitz.
type hpccTracker struct {
	h      *HPCC
	ref    *hpccRef
	eps    float64 // ε of δ(u)
	epsDiv float64 // ε_div of the window law
	dw     float64 // Δw
	bU     float64
	bUHop  [inttel.HopsLimit]float64
	ec     float64
	ecHop  [inttel.HopsLimit]float64
	ew     float64 // bound on |W_int − W_ref| now
	amb    int     // ambiguous choices resolved by the hint
	acks   int
	meas   int
	prevU  float64
	prevHU [inttel.HopsLimit]float64
}

func newHPCCTracker(t testing.TB, cfg HPCCConfig) *hpccTracker {
	h, err := NewHPCC(cfg)
	require.NoError(t, err)
	rel := hpccDivRel(h.tab.law.Divider())
	return &hpccTracker{
		h:      h,
		ref:    newHPCCRef(h.Config(), h.Config().Codec),
		eps:    rel*(1+math.Ldexp(1, -30)) + math.Ldexp(1, -30) + 1e-14,
		epsDiv: rel,
		dw:     (1 + float64(cfg.Window.T)/(1<<32)) * math.Ldexp(1, -32),
	}
}

func (k *hpccTracker) delta(u float64) float64 { return k.eps*u + 4*math.Ldexp(1, -32) }

// boundU advances the bound on U for one sample and returns it.
func (k *hpccTracker) boundU(hop int, u float64, tauPs int64) float64 {
	t := float64(k.ref.tPs)
	w := math.Min(float64(tauPs), t) / t
	if hop < 0 {
		k.bU = (1-w)*k.bU + w*k.delta(u) + k.dw*(k.prevU+u+k.delta(u)) + math.Ldexp(1, -33) + 1e-15*k.ref.U
		return k.bU
	}
	k.bUHop[hop] = (1-w)*k.bUHop[hop] + w*k.delta(u) + k.dw*(k.prevHU[hop]+u+k.delta(u)) +
		math.Ldexp(1, -33) + 1e-15*k.ref.hopU[hop]
	return k.bUHop[hop]
}

// windowBound is E_W for one reference.
func (k *hpccTracker) windowBound(mi bool, uInt, uRef, wcInt, wcRef, ec, bU float64) (float64, error) {
	r := k.ref
	if !mi {
		return ec, nil
	}
	if uInt == 0 || uRef == 0 {
		if bU*r.wmax >= r.wmin*r.eta {
			return 0, fmt.Errorf("U = 0 on one side but the U bound %g does not force W_max on both", bU)
		}
		return 0, nil
	}
	return wcInt*r.eta/uInt*k.epsDiv + 2 + ec*r.eta/uInt + wcRef*r.eta*bU/(uInt*uRef), nil
}

// step feeds one ACK to both models and checks the bounds.
func (k *hpccTracker) step(ev hpccEvent) error {
	k.acks++
	h, r := k.h, k.ref
	s0 := h.State()
	k.prevU = float64(s0.U) / (1 << 32)
	for i := range k.prevHU {
		k.prevHU[i] = float64(s0.Hops[i].U) / (1 << 32)
	}
	wcRef0, hopWcRef0 := r.Wc, r.hopWc
	wasStarted, oldNHop, oldPath := r.started, r.nHop, r.pathID

	if err := h.ack(ev.now, ev.ackSeq, ev.sndNxt, &ev.hdr); err != nil {
		return fmt.Errorf("ack: %w", err)
	}
	s := h.State()
	committed := s.Window.Commits != s0.Window.Commits
	hint := &hpccHint{
		bottleneck: int(s.Bottleneck),
		mi:         s.U >= r.etaRaw(),
		argTie:     func(best, u float64) bool { return math.Abs(best-u) <= k.delta(best)+k.delta(u) },
		boundU:     k.boundU,
	}
	for i := range s.Hops {
		hint.hopMI[i] = s.Hops[i].U >= r.etaRaw()
	}
	measured, commit := r.onAck(int64(ev.now), ev.ackSeq, ev.sndNxt, &ev.hdr, hint)
	k.amb += hint.ambiguous
	if committed != (measured && commit) {
		return fmt.Errorf("commit: int %v, ref %v", committed, measured && commit)
	}
	if wasStarted && (ev.hdr.NHop != oldNHop || ev.hdr.PathID != oldPath) && r.multi {
		// Both restart the per-hop references at W and U_i at 0.
		for i := range k.ecHop {
			k.ecHop[i], k.bUHop[i] = k.ew, 0
		}
	}
	if measured {
		k.meas++
		if err := k.afterMeasure(s, committed, wcRef0, hopWcRef0, s0); err != nil {
			return err
		}
	}
	// W and R.
	wInt := float64(s.Window.W)
	if d := math.Abs(wInt - r.W); d > k.ew+1e-6 {
		return fmt.Errorf("|W_int − W_ref| = %g > bound %g (W_int %v, W_ref %v)", d, k.ew, wInt, r.W)
	}
	if d := math.Abs(float64(s.Window.Rate) - r.rateOf(wInt)); d > 1.5 {
		return fmt.Errorf("R = %v, want W·8/T = %v", s.Window.Rate, r.rateOf(wInt))
	}
	return nil
}

func (k *hpccTracker) afterMeasure(s HPCCState, committed bool, wcRef0 float64, hopWcRef0 [inttel.HopsLimit]float64, s0 HPCCState) error {
	r := k.ref
	if r.multi {
		ew := 0.0
		for i := range int(r.nHop) {
			if r.lastSmp&(1<<i) == 0 {
				ew = math.Max(ew, k.ecHop[i])
				continue
			}
			ui := float64(s.Hops[i].U) / (1 << 32)
			if d := math.Abs(ui - r.hopU[i]); d > k.bUHop[i] {
				return fmt.Errorf("hop %d: |U_int − U_ref| = %g > %g (U_int %g, U_ref %g)", i, d, k.bUHop[i], ui, r.hopU[i])
			}
			e, err := k.windowBound(r.lastHopMI[i], ui, r.hopU[i], float64(s0.Window.Hops[i].Wc), hopWcRef0[i], k.ecHop[i], k.bUHop[i])
			if err != nil {
				return fmt.Errorf("hop %d: %w", i, err)
			}
			ew = math.Max(ew, e)
			if committed {
				k.ecHop[i] = e
			}
		}
		k.ew = ew
		return nil
	}
	ui := float64(s.U) / (1 << 32)
	if d := math.Abs(ui - r.U); d > k.bU {
		return fmt.Errorf("|U_int − U_ref| = %g > %g (U_int %g, U_ref %g)", d, k.bU, ui, r.U)
	}
	e, err := k.windowBound(r.lastMI, ui, r.U, float64(s0.Window.Wc), wcRef0, k.ec, k.bU)
	if err != nil {
		return err
	}
	k.ew = e
	if committed {
		k.ec = e
		if float64(s.Window.W) == r.W && (r.W == r.wmax || r.W == r.wmin) {
			k.ec = 0
		}
	}
	return nil
}

// hpccTrackConfig builds the configurations the tracking property runs.
func hpccTrackConfig(mode int, table *hwtables.Table) HPCCConfig {
	c := HPCCPaperSim(100e9)
	c.Window.Max = 4 * c.Window.Init // room above W_init so MI increases show
	switch mode % 3 {
	case 1:
		c.Window.Table = table
	case 2:
		c.Window.NativeDivision = true
	}
	switch mode / 3 {
	case 1:
		c.MultiRate = true
	case 2:
		c.FastReact = false
	}
	return c
}

// TestPropHPCCTracksFloatModel: over random INT traces that cross the
// txBytes and TS wraps (see hpccTraceGen) the integer U stays within B_U of
// the float model's and the integer window within E_W (bounds on
// hpccTracker), for the default table, a fine table (ε = 2^-16) and the
// native divide, in the single-rate, multi-rate and fast-react-off modes.
// U ≥ 0 in the oracle, and the commits happen on the same ACKs.
func TestPropHPCCTracksFloatModel(t *testing.T) {
	fine, err := hwtables.NewReciprocal(hwtables.ReciprocalConfig{EpsLog2: hwtables.MaxEpsLog2})
	require.NoError(t, err)
	props := hpccProperties(60)
	var acks, meas, amb, wrapTS, wrapTx, reseeds, zeros, stales int
	props.Property("U within B_U and W within E_W of the float model", prop.ForAll(
		func(mode int, seed uint64) bool {
			k := newHPCCTracker(t, hpccTrackConfig(mode, fine))
			g := newHPCCTraceGen(seed, k.h.Config().Codec)
			for range 600 {
				if err := k.step(g.next()); err != nil {
					t.Logf("mode %d seed %d ack %d: %v", mode, seed, k.acks, err)
					return false
				}
				if k.ref.U < 0 {
					return false
				}
			}
			acks, meas, amb = acks+k.acks, meas+k.meas, amb+k.amb
			r := k.ref
			wrapTS, wrapTx, reseeds, zeros, stales = wrapTS+r.wrapTS, wrapTx+r.wrapTx, reseeds+r.reseeds, zeros+r.zeros, stales+r.stales
			return true
		},
		gen.IntRange(0, 8).WithLabel("mode (table × single/multi/no fast react)"),
		gen.UInt64().WithLabel("trace seed"),
	))
	props.TestingRun(t)
	t.Logf("%d ACKs, %d measured, %d ambiguous choices taken from the integer model", acks, meas, amb)
	t.Logf("deltas across a wrap: TS %d, txBytes %d; hops re-seeded %d, Δts = 0 %d, stale %d", wrapTS, wrapTx, reseeds, zeros, stales)
	// The traces must reach every case the bounds are claimed for.
	require.Greater(t, meas, acks/3, "most ACKs must be measured for the property to mean anything")
	for _, c := range []struct {
		name string
		n    int
	}{{"TS wraps", wrapTS}, {"txBytes wraps", wrapTx}, {"re-seeds", reseeds}, {"Δts = 0", zeros}, {"stale records", stales}} {
		require.Positive(t, c.n, c.name)
	}
}

// TestPropHPCCInvariants: over random traces in every mode, after every ACK
// the window is within [W_min, W_max] (W_max = 4·W_init here), so is every
// per-hop reference, R = W·8/T, incStage ≤ maxStage, and a packet may go
// when nothing is in flight. (U ≥ 0 holds by type; its accuracy is
// TestPropHPCCTracksFloatModel's.)
func TestPropHPCCInvariants(t *testing.T) {
	props := hpccProperties(60)
	props.Property("bounds hold after every ACK", prop.ForAll(
		func(mode int, seed uint64) bool {
			cfg := hpccTrackConfig(mode, nil)
			h, err := NewHPCC(cfg)
			if err != nil {
				return false
			}
			g := newHPCCTraceGen(seed, h.Config().Codec)
			wc := h.Config().Window
			for range 600 {
				ev := g.next()
				if err := h.ack(ev.now, ev.ackSeq, ev.sndNxt, &ev.hdr); err != nil {
					return false
				}
				s := h.State()
				if s.Window.W < wc.Min || s.Window.W > wc.Max || s.Window.Rate != h.win.Law().Rate(s.Window.W) ||
					int(s.Window.IncStage) > wc.MaxStage || !h.CanSend(0) {
					return false
				}
				for i := range s.Hops {
					if s.Window.Hops[i].Wc < wc.Min || s.Window.Hops[i].Wc > wc.Max {
						return false
					}
				}
			}
			return true
		},
		gen.IntRange(0, 8).WithLabel("mode"),
		gen.UInt64().WithLabel("trace seed"),
	))
	props.TestingRun(t)
}
