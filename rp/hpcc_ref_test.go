package rp

import (
	"math"
	"math/big"

	"github.com/hwcc/hwcc/fixedpoint"
	inttel "github.com/hwcc/hwcc/int"
)

// hpccRef is the real-valued model of HPCC's sender, Algorithm 1 in
// float64: MeasureInflight (lines 1–10) from the raw INT fields, then
// ComputeWind and NewAck (lines 11–27). It is the oracle for rp.HPCC.
//
// It shares no arithmetic with the code under test. It does share the
// documented decisions, which are exact integer comparisons on the raw
// fields and the sender's clock: when a hop is re-seeded (speed code
// changed, record older than half the faster wrap period), skipped (Δts = 0,
// a delta of half a period or more) or the path restarts (pathID or nHop
// changed), and the first-ACK rule. Where the integer model's rounding can
// legitimately flip a discrete choice (which hop has the largest u', whether
// U ≥ η when U is within the stated error of η) the oracle follows the
// integer model's choice, passed in as a hint; the tests count those.
type hpccRef struct {
	// Parameters in real units.
	T        float64 // T, s
	tPs      int64   // T, ps (for τ = min(τ, T) on integer Δts)
	eta      float64 // η (the exact value of the configured UQ32_32 register)
	etaQ     fixedpoint.UQ32_32
	ai       float64 // W_AI, B
	wmin     float64 // W_min, B
	wmax     float64 // W_max, B
	winit    float64 // W_init, B
	maxStage int
	fast     bool
	multi    bool
	qUnit    float64 // B per qLen count
	txUnit   float64 // B per txBytes count
	tsUnitPs int64   // ps per TS count
	rate     [inttel.MaxSpeed + 1]float64
	horizon  [inttel.MaxSpeed + 1]int64 // ps: min(TS period, txBytes period at B)/2

	// State.
	started       bool
	nHop          uint8
	pathID        uint16
	rec           [inttel.HopsLimit]inttel.Hop
	at            [inttel.HopsLimit]int64
	hopU          [inttel.HopsLimit]float64
	hopWc         [inttel.HopsLimit]float64
	hopStage      [inttel.HopsLimit]int
	U             float64
	W, Wc         float64
	stage         int
	lastUpdateSeq uint64

	// Last measurement, for the tests' bounds.
	lastU     float64 // u of line 7 (single-rate)
	lastTau   int64   // τ of line 7, ps
	lastUps   [inttel.HopsLimit]float64
	lastTaus  [inttel.HopsLimit]int64
	lastSmp   uint16 // hops measured
	lastMI    bool   // line 13 ran (single-rate)
	lastHopMI [inttel.HopsLimit]bool

	// Coverage counters: measured deltas across a TS or txBytes wrap, and
	// hops re-seeded, skipped for Δts = 0, skipped as stale.
	wrapTS, wrapTx, reseeds, zeros, stales int
}

// newHPCCRef builds the oracle from a configuration.
func newHPCCRef(cfg HPCCConfig, codec *inttel.Codec) *hpccRef {
	wc := cfg.Window
	if wc.Max == 0 {
		wc.Max = wc.Init
	}
	cc := codec.Config()
	r := &hpccRef{
		T:        float64(wc.T) / 1e12,
		tPs:      int64(wc.T),
		eta:      float64(wc.Eta) / (1 << 32),
		etaQ:     wc.Eta,
		ai:       float64(wc.AI),
		wmin:     float64(wc.Min),
		wmax:     float64(wc.Max),
		winit:    float64(wc.Init),
		maxStage: wc.MaxStage,
		fast:     cfg.FastReact,
		multi:    cfg.MultiRate,
		qUnit:    float64(cc.QLenUnit),
		txUnit:   float64(cc.TxBytesUnit),
		tsUnitPs: int64(cc.TSUnit),
	}
	tsPeriod := int64(1<<inttel.TSBits) * r.tsUnitPs
	for _, s := range cc.Speeds {
		r.rate[s.Code] = float64(s.Rate)
		// txBytes period at line rate, ps, rounded up: 2^20·unit·8·10^12/B.
		num := new(big.Int).Mul(big.NewInt(int64(1<<inttel.TxBytesBits)*int64(cc.TxBytesUnit)), big.NewInt(8e12))
		den := big.NewInt(int64(s.Rate))
		q, m := new(big.Int).QuoRem(num, den, new(big.Int))
		if m.Sign() != 0 {
			q.Add(q, big.NewInt(1))
		}
		txPeriod := int64(math.MaxInt64)
		if q.IsInt64() {
			txPeriod = q.Int64()
		}
		r.horizon[s.Code] = min(tsPeriod, txPeriod) / 2
	}
	r.W, r.Wc = r.winit, r.winit
	for i := range r.hopWc {
		r.hopWc[i] = r.winit
	}
	return r
}

// hpccHint carries the integer model's discrete choices for the ambiguous
// cases and the error bounds that decide when a case is ambiguous.
type hpccHint struct {
	bottleneck int                    // single-rate argmax hop (State.Bottleneck)
	mi         bool                   // single-rate: U_int ≥ η_int
	hopMI      [inttel.HopsLimit]bool // multi-rate: U_i,int ≥ η_int
	// argTie reports whether u is within the measurement error of uBest,
	// so that either may be the integer model's largest u'.
	argTie func(uBest, u float64) bool
	// boundU is called with the sample (hop −1: the single-rate maximum)
	// once the oracle has it and returns the bound on |U_int − U_ref|
	// after this ACK; within it of η the branch of line 12 is the hint's.
	boundU func(hop int, u float64, tauPs int64) float64
	// ambiguous counts the choices taken from the hint.
	ambiguous int
}

// onAck is NewAck. It returns what it did, for the tests: ignored (fast
// react off), seeded (first ACK or path change), measured (a window was
// computed), commit.
func (r *hpccRef) onAck(now int64, ackSeq, sndNxt uint64, hdr *inttel.Header, hint *hpccHint) (measured, commit bool) {
	commit = ackSeq > r.lastUpdateSeq // 22
	if !commit && !r.fast {
		return false, commit
	}
	if !r.started || hdr.NHop != r.nHop || hdr.PathID != r.pathID {
		if !r.started {
			r.lastUpdateSeq = sndNxt
			r.started = true
		} else if r.multi {
			for i := range r.hopWc {
				r.hopWc[i], r.hopStage[i] = r.W, 0
			}
		}
		r.nHop, r.pathID = hdr.NHop, hdr.PathID
		for i := range r.rec {
			r.rec[i], r.at[i], r.hopU[i] = inttel.Hop{}, 0, 0
		}
		for i, p := range hdr.Hops[:hdr.NHop] {
			r.rec[i], r.at[i] = p, now
		}
		return false, commit
	}
	// MeasureInflight, lines 1–10.
	r.lastSmp = 0
	best, arg := 0.0, -1
	var bestTau int64
	for i, nh := range hdr.Hops[:hdr.NHop] {
		old := r.rec[i]
		if nh.Speed != old.Speed || now-r.at[i] >= r.horizon[nh.Speed] {
			r.rec[i], r.at[i] = nh, now
			r.reseeds++
			continue
		}
		dtsN := (int64(nh.TS) - int64(old.TS)) & (1<<inttel.TSBits - 1)
		if dtsN == 0 {
			r.zeros++
			continue
		}
		dtxN := (int64(nh.TxBytes) - int64(old.TxBytes)) & (1<<inttel.TxBytesBits - 1)
		if dtsN >= 1<<(inttel.TSBits-1) || dtxN >= 1<<(inttel.TxBytesBits-1) {
			r.stales++
			continue
		}
		if nh.TS < old.TS {
			r.wrapTS++
		}
		if nh.TxBytes < old.TxBytes {
			r.wrapTx++
		}
		dtsPs := dtsN * r.tsUnitPs
		dts := float64(dtsPs) / 1e12    // s
		dtx := float64(dtxN) * r.txUnit // B
		B := r.rate[nh.Speed]           // bit/s
		txRate := dtx * 8 / dts         // 4: bit/s
		q := math.Min(float64(nh.QLen), float64(old.QLen)) * r.qUnit
		u := q/(B/8*r.T) + txRate/B // 5
		r.rec[i], r.at[i] = nh, now
		r.lastUps[i], r.lastTaus[i] = u, dtsPs
		r.lastSmp |= 1 << i
		// 6–7, with ties and near-ties resolved as the integer model did.
		switch {
		case arg < 0:
			best, arg, bestTau = u, i, dtsPs
		case hint != nil && hint.argTie(best, u):
			hint.ambiguous++
			if i == hint.bottleneck {
				best, arg, bestTau = u, i, dtsPs
			}
		case u > best:
			best, arg, bestTau = u, i, dtsPs
		}
		if r.multi {
			r.hopU[i] = r.ewma(r.hopU[i], u, dtsPs)
		}
	}
	if r.lastSmp == 0 {
		return false, commit
	}
	if r.multi {
		w := math.Inf(1)
		for i := range int(hdr.NHop) {
			wi := r.hopWc[i]
			if r.lastSmp&(1<<i) != 0 {
				tol, h := -1.0, false
				if hint != nil {
					tol, h = hint.boundU(i, r.lastUps[i], r.lastTaus[i]), hint.hopMI[i]
				}
				wi, r.lastHopMI[i] = r.compute(&r.hopWc[i], &r.hopStage[i], r.hopU[i], commit, tol, h)
				if hint != nil && math.Abs(r.hopU[i]-r.eta) <= tol && r.hopStage[i] < r.maxStage {
					hint.ambiguous++
				}
			}
			w = math.Min(w, wi)
		}
		r.W = w
	} else {
		r.lastU, r.lastTau = best, bestTau
		r.U = r.ewma(r.U, best, bestTau) // 8–9
		tol, h := -1.0, false
		if hint != nil {
			tol, h = hint.boundU(-1, best, bestTau), hint.mi
			if math.Abs(r.U-r.eta) <= tol && r.stage < r.maxStage {
				hint.ambiguous++
			}
		}
		r.W, r.lastMI = r.compute(&r.Wc, &r.stage, r.U, commit, tol, h) // 23/26
	}
	if commit {
		r.lastUpdateSeq = sndNxt // 24
	}
	return true, commit
}

// etaRaw is η as the integer model's register (for the branch hint).
func (r *hpccRef) etaRaw() fixedpoint.UQ32_32 { return r.etaQ }

// ewma is lines 8–9 in real numbers.
func (r *hpccRef) ewma(U, u float64, tauPs int64) float64 {
	tau := float64(min(tauPs, r.tPs)) / 1e12 // 8
	w := tau / r.T
	return (1-w)*U + w*u // 9
}

// compute is ComputeWind (lines 11–20) with the documented clamp; when U is
// within tol of η the branch is the hint's.
func (r *hpccRef) compute(wc *float64, stage *int, U float64, commit bool, tol float64, hint bool) (float64, bool) {
	mi := U >= r.eta || *stage >= r.maxStage // 12
	if *stage < r.maxStage && math.Abs(U-r.eta) <= tol {
		mi = hint
	}
	var w float64
	if mi {
		if U == 0 {
			w = r.wmax
		} else {
			w = *wc/(U/r.eta) + r.ai // 13
		}
	} else {
		w = *wc + r.ai // 17
	}
	w = math.Min(math.Max(w, r.wmin), r.wmax)
	if commit {
		if mi {
			*stage = 0 // 15
		} else {
			*stage++ // 19
		}
		*wc = w
	}
	return w, mi
}

// rate is R = W/T in bit/s.
func (r *hpccRef) rateOf(w float64) float64 { return w * 8 / r.T }
