package pi

import (
	"fmt"
	"math"
	"math/bits"
	"strconv"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/fixedpoint"
	"github.com/hwcc/hwcc/hwtables"
	"github.com/hwcc/hwcc/units"
)

// paramsPart names Params in configuration errors; a part that builds its
// Params puts its own name in the error's Part.
const paramsPart = "pi.Params"

// InitialF selects the value of the F register before the first update
// (Config.InitialF). The paper does not give one.
type InitialF uint8

const (
	// InitialFMax starts F at Fmax: no congestion is known, so sources
	// are not limited below the link. hwcc's default.
	InitialFMax InitialF = iota
	// InitialFMin starts F at Fmin, the most cautious value.
	InitialFMin
	// InitialZero starts F at 0, as the authors' OMNeT++ model
	// ([RoCC-code], SwitchEtherQueue.cc, currentRate(0)). 0 lies outside
	// [Fmin, Fmax]: the first update computes from it (AUTO_TUNE's bottom
	// region, no MD branch since 0 ≤ Fmax/8) and its lines 9–12 clamp the
	// result, so the first rate is at least Fmin. F reads 0 until then.
	InitialZero
)

// String returns "fmax", "fmin" or "zero".
func (v InitialF) String() string {
	switch v {
	case InitialFMax:
		return "fmax"
	case InitialFMin:
		return "fmin"
	case InitialZero:
		return "zero"
	}
	return fmt.Sprintf("InitialF(%d)", uint8(v))
}

// Rounding selects how line 8's update is rounded to the F register
// (Config.Rounding).
type Rounding uint8

const (
	// RoundNearest rounds the decrement α·e1 + β·e2 to the nearest
	// register unit, ties away from zero: an odd function, so queue errors
	// +e and −e move F by opposite amounts and rounding pushes F neither
	// up nor down on average. hwcc's default.
	RoundNearest Rounding = iota
	// RoundFloor rounds the new F down, F ← ⌊F − (α·e1 + β·e2)⌋ in
	// register units: the authors' OMNeT++ model, which assigns the
	// real-valued result to an int (truncation toward zero; the two differ
	// only below 0, where lines 11–12 clamp both to Fmin). With
	// RateFracBits = 0 it is that model's whole-ΔF arithmetic; it biases F
	// down by half a register unit per update on average.
	RoundFloor
)

// String returns "nearest" or "floor".
func (r Rounding) String() string {
	switch r {
	case RoundNearest:
		return "nearest"
	case RoundFloor:
		return "floor"
	}
	return fmt.Sprintf("Rounding(%d)", uint8(r))
}

// Limits of Config's widths and gains: the ranges NewParams accepts, which
// the registry's parameter descriptions read.
const (
	// MinQueueBits and MaxQueueBits bound the queue registers' width:
	// three values for 0 ≤ Qref < Qmid < Qmax, and the P4 CNP's 16-bit
	// qdepth field ([RoCC] §IV-B, Listing 1).
	MinQueueBits = 2
	MaxQueueBits = 16
	// MinRateBits is the narrowest integer part of F: two values for
	// 1 ≤ Fmin < Fmax.
	MinRateBits = 2
	// MaxRateBits is the widest integer part of F: the CNP's rate field
	// is 16 bits (wire.RoCCFeedback).
	MaxRateBits = 16
	// MaxRateFracBits is the most fraction bits F may have.
	MaxRateFracBits = 16
	// MaxGainFracBits is the finest shift of ᾱ and β̄.
	MaxGainFracBits = 24
	// MaxGain bounds ᾱ and β̄: each must be in (0, MaxGain).
	MaxGain = 256
	// idleShift is log2(8) in IdleGain's threshold Qref/8; IdleGain needs
	// Qref ≥ 2^idleShift ΔQ.
	idleShift = 3
)

// mdShift is log2(8) in line 2's and line 4's test F > Fmax/8.
const mdShift = 3

// halveShift is line 5's F ÷ 2.
const halveShift = 1

// Config configures Algorithm 1's integer arithmetic: the paper's
// parameters (Table II) and the widths of the registers that hold them.
// Every byte value is converted to ΔQ units by one quantiser that rounds
// down (fixedpoint.Floor, a hardware queue counter's whole units); rates
// must be whole multiples of ΔF. NewParams refuses a field out of range
// with a *cc.ConfigError naming it.
//
// Where the paper is silent, hwcc and the authors' OMNeT++ model
// ([RoCC-code], SwitchEtherQueue.cc) differ in three places, each an
// option here:
//
//   - F starts at Fmax in hwcc; that model starts it at 0 (InitialF =
//     InitialZero selects its behaviour).
//   - hwcc's F register keeps RateFracBits = 8 fraction bits of ΔF (the
//     paper says only "fixed point precision", [RoCC] §VI), so an update
//     smaller than one ΔF is not lost; that model keeps whole ΔF
//     (RateFracBits = 0).
//   - hwcc rounds line 8 to nearest; that model truncates the new F
//     (Rounding = RoundFloor).
//
// With all three set, line 8 computes what that model computes, up to the
// gains' CSD error (below 2^−17 with the presets) and AUTO_TUNE's
// comparisons, which hwcc makes exactly (F < Fmax/level in real numbers)
// where that model divides Fmax by the level in integers first.
type Config struct {
	// DeltaQ is ΔQ, the queue resolution (Table II): 600 B in the paper's
	// simulations ([RoCC] §VI), 80 B on Tofino (§VI-C). Range: ≥ 1 B.
	DeltaQ units.Bytes
	// DeltaF is ΔF, the rate resolution (Table II): 10 Mb/s in the paper
	// (§VI). Range: ≥ 1 bit/s.
	DeltaF units.Rate

	// FMin and FMax are Fmin and Fmax, the bounds of F (Table II; lines
	// 9–12): 10 ΔF and 4000 ΔF (40 Gb/s) or 10 000 ΔF (100 Gb/s) in §VI.
	// Range: multiples of DeltaF with ΔF ≤ FMin < FMax ≤
	// (2^RateBits − 1)·ΔF.
	FMin, FMax units.Rate

	// QRef, QMid and QMax are Qref (the PI's reference queue, line 8), Qmid
	// (the queue growth over one period that halves F, line 4) and Qmax (the
	// queue that resets F to Fmin, line 2), in bytes; §VI uses 150/300/360
	// KB at 40 Gb/s. [RoCC] §III-B requires Qmax > Qmid > Qref; NewParams
	// checks it after quantisation, and QMax ≤ (2^QueueBits − 1)·ΔQ.
	QRef, QMid, QMax units.Bytes

	// AlphaBar and BetaBar are ᾱ and β̄, the PI gains of the top AUTO_TUNE
	// region (Table II, line 20), in ΔF per ΔQ: 0.3 and 1.5 at 40 Gb/s,
	// 0.45 and 2.25 at 100 Gb/s (§VI). They are realised as CSD shift-add
	// constants of at most GainTerms terms with shifts down to
	// 2^−GainFracBits. Range: (0, MaxGain), and not so small that the CSD
	// rounds to 0.
	AlphaBar, BetaBar float64
	// GainTerms is the largest number of CSD terms of each gain, 1 to
	// fixedpoint.MaxCSDTerms.
	GainTerms int
	// GainFracBits is the finest shift of the gains' CSD terms, from
	// RateFracBits to MaxGainFracBits.
	GainFracBits uint

	// QueueBits is the width of Qcur, Qold and the thresholds, MinQueueBits
	// to MaxQueueBits (Qref < Qmid < Qmax need three values).
	QueueBits uint
	// RateBits is the width of F's integer part (and the largest Fmax/ΔF is
	// 2^RateBits − 1), MinRateBits to MaxRateBits (Fmin < Fmax need two
	// values above 0).
	RateBits uint
	// RateFracBits is the number of fraction bits of the F register, 0 to
	// MaxRateFracBits: 8 in the presets. With 0, F is a whole number of ΔF
	// as in Table II and the authors' OMNeT++ model, and an update smaller
	// than half a ΔF is lost.
	RateFracBits uint

	// InitialF is F before the first update: Fmax (the zero value), Fmin,
	// or 0 as in the authors' OMNeT++ model. Qold starts at 0 (an empty
	// queue) in every case.
	InitialF InitialF
	// Rounding is line 8's rounding: to nearest (the zero value) or down,
	// as the authors' OMNeT++ model.
	Rounding Rounding

	// IdleGain turns on the idle-queue gain, a rule borrowed from the
	// authors' DPDK controller that the journal's Algorithm 1 does not
	// have: while the queue is nearly empty (Qcur < ⌊Qref/8⌋ and
	// ⌊(Qcur + Qold)/2⌋ < ⌊Qref/8⌋, in ΔQ units), line 8 uses the top
	// region's gains ᾱ and β̄ whatever F is (the package doc's "The
	// idle-queue gain"). It needs Qref ≥ 8 ΔQ. False, the default, is
	// Algorithm 1 as printed.
	IdleGain bool
}

// paperWidths sets the register widths and gain precision every preset
// shares: the CNP's 16-bit fields for Qcur and F, 8 fraction bits in F
// (the paper says only "fixed point precision"), gains with up to 8 CSD
// terms down to 2^−16.
func paperWidths(c Config) Config {
	c.QueueBits = 16
	c.RateBits = 16
	c.RateFracBits = 8
	c.GainFracBits = 16
	c.GainTerms = 8
	return c
}

// RoCC40G is Algorithm 1 as the paper's 40 Gb/s simulations set it
// ([RoCC] §VI, "System parameters"): ΔF = 10 Mb/s, ΔQ = 600 B,
// Fmin = 10 ΔF, Fmax = 4000 ΔF, Qref/Qmid/Qmax = 150/300/360 KB (KB =
// 1000 B, as [RoCC-code] uses), ᾱ = 0.3, β̄ = 1.5, with 16-bit queue and
// rate registers, 8 fraction bits in F and gains of up to 8 CSD terms
// down to 2^−16.
func RoCC40G() Config {
	return paperWidths(Config{
		DeltaQ:   600 * units.Byte,
		DeltaF:   10 * units.Mbps,
		FMin:     100 * units.Mbps,
		FMax:     40 * units.Gbps,
		QRef:     150 * units.KB,
		QMid:     300 * units.KB,
		QMax:     360 * units.KB,
		AlphaBar: 0.3,
		BetaBar:  1.5,
	})
}

// RoCC100G is the paper's 100 Gb/s simulation setting ([RoCC] §VI, "System
// parameters"): as RoCC40G with Fmax = 10 000 ΔF, Qref/Qmid/Qmax =
// 300/600/660 KB, ᾱ = 0.45, β̄ = 2.25.
func RoCC100G() Config {
	c := RoCC40G()
	c.FMax = 100 * units.Gbps
	c.QRef, c.QMid, c.QMax = 300*units.KB, 600*units.KB, 660*units.KB
	c.AlphaBar, c.BetaBar = 0.45, 2.25
	return c
}

// RoCCDPDK10G is the DPDK testbed ([RoCC] §VI-B): 10 Gb/s links,
// Qref/Qmid/Qmax = 75/150/210 KB. The paper does not give ΔQ, ΔF, Fmin or
// the gains for the testbed; this preset keeps the simulation's ΔQ =
// 600 B, ΔF = 10 Mb/s, Fmin = 10 ΔF and ᾱ/β̄ = 0.3/1.5 ([RoCC-code]'s
// defaults), with Fmax = the 10 Gb/s link.
func RoCCDPDK10G() Config {
	c := RoCC40G()
	c.FMax = 10 * units.Gbps
	c.QRef, c.QMid, c.QMax = 75*units.KB, 150*units.KB, 210*units.KB
	return c
}

// RoCCTofino40G is the Tofino testbed ([RoCC] §VI-C): 40 Gb/s links,
// Qref/Qmid/Qmax = 75/150/210 KB and ΔQ = 80 B, Tofino's queue depth unit.
// Qref = 75 KB is 937.5 units and rounds down to 937. ΔF, Fmin, Fmax and
// the gains are the 40 Gb/s simulation's (the paper gives none for the
// testbed).
func RoCCTofino40G() Config {
	c := RoCC40G()
	c.DeltaQ = 80 * units.Byte
	c.QRef, c.QMid, c.QMax = 75*units.KB, 150*units.KB, 210*units.KB
	return c
}

// Params is the validated, quantised form of a Config: the thresholds in
// ΔQ units, the F bounds in register units, the gains as CSD constants
// and the AUTO_TUNE region table. It is the "simple registry" of [RoCC]
// §III-F: the same values serve the switch (cp.RoCC) and a host that
// computes the rate itself (rp.RoCCHost). Immutable after NewParams; safe
// to share.
type Params struct {
	cfg   Config
	queue fixedpoint.Quantizer // bytes → ΔQ units, Floor, QueueBits wide
	// The queue quantiser's divider, as hardware builds a divider by a
	// constant (see QueueUnits): qlim = (qtop + 1)·ΔQ, the first byte count
	// that saturates (2^64 − 1 if that overflows: no int64 reaches it);
	// qrecip = ⌈2^64/ΔQ⌉ when a multiply by it is exact below qlim, else 0
	// (ΔQ = 1, or ΔQ too large); qshift = log2 ΔQ when ΔQ is a power of
	// two (qpow2). qfast is qlim when qrecip ≠ 0, else 0: the bound below
	// which QueueUnits multiplies.
	qlim, qrecip uint64
	qfast        uint64
	qshift       uint
	qpow2        bool
	qref, qmid   uint32 // ΔQ units
	qmax, qtop   uint32 // ΔQ units; qtop = 2^QueueBits − 1
	fmin, fmax   uint32 // F register units (ΔF·2^−k)
	fmd          uint32 // the MD threshold: F > Fmax/8 ⇔ F > fmd (see init)
	qidle        uint32 // IdleGain's threshold ⌊Qref/8⌋ in ΔQ units; 0 when IdleGain is off
	alpha, beta  fixedpoint.CSD
	// alphaG, betaG are v_α·2^g and v_β·2^g, the CSD gains as integers:
	// every CSD term's shift is at most g, so CSDα(e·2^g) = e·alphaG
	// exactly, and line 8 takes two multiplies instead of the shift-add
	// chain the hardware runs (the same value, bit for bit).
	alphaG, betaG int64
	tune          hwtables.RoCCAutoTune
	k, g          uint
	finit         uint32 // F before the first update (InitialF), register units
	floor         bool   // Rounding == RoundFloor
}

// NewParams validates cfg and builds its parameters. The error is a
// *cc.ConfigError naming the first field out of range (its Go name) and the
// allowed range, with Part "pi.Params"; a part that builds its parameters
// names itself there instead.
func NewParams(cfg Config) (*Params, error) {
	p := &Params{cfg: cfg}
	if err := p.init(); err != nil {
		return nil, err
	}
	return p, nil
}

// bad returns the configuration error of field with value v.
func bad(field string, v any, want string) error {
	return &cc.ConfigError{Part: paramsPart, Field: field, Value: fmt.Sprint(v), Range: want}
}

func (p *Params) init() error {
	c := p.cfg
	switch {
	case c.DeltaQ < 1:
		return bad("DeltaQ", c.DeltaQ, "≥ 1B")
	case c.DeltaF < 1:
		return bad("DeltaF", c.DeltaF, "≥ 1bps")
	case c.QueueBits < MinQueueBits || c.QueueBits > MaxQueueBits:
		return bad("QueueBits", c.QueueBits, strconv.Itoa(MinQueueBits)+".."+strconv.Itoa(MaxQueueBits))
	case c.RateBits < MinRateBits || c.RateBits > MaxRateBits:
		return bad("RateBits", c.RateBits, strconv.Itoa(MinRateBits)+".."+strconv.Itoa(MaxRateBits))
	case c.RateFracBits > MaxRateFracBits:
		return bad("RateFracBits", c.RateFracBits, "0.."+strconv.Itoa(MaxRateFracBits))
	case c.GainFracBits < c.RateFracBits || c.GainFracBits > MaxGainFracBits:
		return bad("GainFracBits", c.GainFracBits, fmt.Sprintf("RateFracBits (%d)..%d", c.RateFracBits, MaxGainFracBits))
	case c.GainTerms < 1 || c.GainTerms > fixedpoint.MaxCSDTerms:
		return bad("GainTerms", c.GainTerms, "1.."+strconv.Itoa(fixedpoint.MaxCSDTerms))
	case !(c.AlphaBar > 0 && c.AlphaBar < MaxGain):
		return bad("AlphaBar", c.AlphaBar, "(0, "+strconv.Itoa(MaxGain)+")")
	case !(c.BetaBar > 0 && c.BetaBar < MaxGain):
		return bad("BetaBar", c.BetaBar, "(0, "+strconv.Itoa(MaxGain)+")")
	case c.InitialF > InitialZero:
		return bad("InitialF", c.InitialF, "fmax, fmin or zero")
	case c.Rounding > RoundFloor:
		return bad("Rounding", c.Rounding, "nearest or floor")
	}

	// Rates: whole multiples of ΔF within the RateBits-wide integer part.
	fmaxLimit := uint64(1)<<c.RateBits - 1
	if c.FMin < c.DeltaF || c.FMin%c.DeltaF != 0 {
		return bad("FMin", c.FMin, "a positive multiple of DeltaF ("+c.DeltaF.String()+")")
	}
	if c.FMax <= c.FMin || c.FMax%c.DeltaF != 0 || uint64(c.FMax/c.DeltaF) > fmaxLimit {
		return bad("FMax", c.FMax, fmt.Sprintf("a multiple of DeltaF (%v) in (FMin (%v), %d·DeltaF]", c.DeltaF, c.FMin, fmaxLimit))
	}
	p.k, p.g = c.RateFracBits, c.GainFracBits
	p.fmin = uint32(c.FMin/c.DeltaF) << p.k
	p.fmax = uint32(c.FMax/c.DeltaF) << p.k
	// Lines 2 and 4 test F > Fmax/8 in real numbers. For an integer F,
	// F > Fmax/8 ⇔ F > ⌊Fmax/8⌋ (Fmax/8 − ⌊Fmax/8⌋ < 1), so comparing with
	// the shifted register is exact.
	p.fmd = p.fmax >> mdShift

	// Queue thresholds: bytes → ΔQ units by the one queue quantiser.
	q, err := fixedpoint.NewQuantizer(uint64(c.DeltaQ), c.QueueBits, fixedpoint.Floor)
	if err != nil {
		return &cc.ConfigError{Part: paramsPart, Field: "DeltaQ", Value: c.DeltaQ.String(), Err: err}
	}
	p.queue = q
	p.qtop = uint32(q.Max())
	p.initQueueDivider(uint64(c.DeltaQ))
	var sat [3]bool
	for i, b := range [3]units.Bytes{c.QRef, c.QMid, c.QMax} {
		if b < 0 {
			return bad([3]string{"QRef", "QMid", "QMax"}[i], b, "≥ 0B")
		}
		var v uint64
		v, sat[i] = q.QuantizeSat(uint64(b))
		switch i {
		case 0:
			p.qref = uint32(v)
		case 1:
			p.qmid = uint32(v)
		case 2:
			p.qmax = uint32(v)
		}
	}
	if sat[0] || sat[1] || sat[2] {
		return bad("QMax", c.QMax, fmt.Sprintf("at most the %d-bit queue register's %v (%d·DeltaQ)",
			c.QueueBits, units.Bytes(q.Dequantize(q.Max())), q.Max()))
	}
	if !(p.qref < p.qmid && p.qmid < p.qmax) {
		return bad("QRef/QMid/QMax", fmt.Sprintf("%v/%v/%v (%d/%d/%d ΔQ)", c.QRef, c.QMid, c.QMax, p.qref, p.qmid, p.qmax),
			"Qref < Qmid < Qmax in whole ΔQ ([RoCC] §III-B)")
	}
	if c.IdleGain {
		// Qref/8 as a shift; with Qref < 8 ΔQ it would be 0 and no queue
		// could be idle, which is a configuration error, not a no-op.
		p.qidle = p.qref >> idleShift
		if p.qidle == 0 {
			return bad("QRef", fmt.Sprintf("%v (%d ΔQ)", c.QRef, p.qref),
				"≥ "+strconv.Itoa(1<<idleShift)+"·DeltaQ with IdleGain (its threshold is Qref/8 in whole ΔQ)")
		}
	}

	// Gains: CSD constants with shifts down to 2^−g.
	if p.alpha, err = fixedpoint.NewCSD(c.AlphaBar, c.GainTerms, c.GainFracBits); err != nil {
		return &cc.ConfigError{Part: paramsPart, Field: "AlphaBar", Value: fmt.Sprint(c.AlphaBar), Err: err}
	}
	if p.beta, err = fixedpoint.NewCSD(c.BetaBar, c.GainTerms, c.GainFracBits); err != nil {
		return &cc.ConfigError{Part: paramsPart, Field: "BetaBar", Value: fmt.Sprint(c.BetaBar), Err: err}
	}
	if p.alpha.Len() == 0 {
		return bad("AlphaBar", c.AlphaBar, fmt.Sprintf("a gain that does not round to 0 with GainFracBits = %d", c.GainFracBits))
	}
	if p.beta.Len() == 0 {
		return bad("BetaBar", c.BetaBar, fmt.Sprintf("a gain that does not round to 0 with GainFracBits = %d", c.GainFracBits))
	}
	p.alphaG, p.betaG = p.alpha.Mul(1<<p.g), p.beta.Mul(1<<p.g)
	if p.tune, err = hwtables.NewRoCCAutoTune(uint64(p.fmax)); err != nil {
		return &cc.ConfigError{Part: paramsPart, Field: "FMax", Value: c.FMax.String(), Err: err}
	}
	switch c.InitialF {
	case InitialFMin:
		p.finit = p.fmin
	case InitialZero:
		p.finit = 0
	default:
		p.finit = p.fmax
	}
	p.floor = c.Rounding == RoundFloor
	return nil
}

// Config returns the configuration the parameters were built from.
func (p *Params) Config() Config { return p.cfg }

// initQueueDivider builds the divider of QueueUnits for ΔQ = d ≥ 1 and the
// queue register's maximum p.qtop.
func (p *Params) initQueueDivider(d uint64) {
	hi, lo := bits.Mul64(uint64(p.qtop)+1, d)
	p.qlim = lo
	if hi != 0 {
		p.qlim = math.MaxUint64
	}
	p.qpow2, p.qshift = d&(d-1) == 0, uint(bits.TrailingZeros64(d))
	switch {
	case d == 1: // ⌈2^64/1⌉ does not fit: queueDiv returns v
	case p.qpow2:
		// d = 2^s, s ≥ 1: c = 2^(64−s), and c·n/2^64 = n/2^s exactly.
		p.qrecip = 1 << (64 - p.qshift)
	default:
		// c = ⌈2^64/d⌉ = ⌊(2^64 − 1)/d⌋ + 1 is 2^64/d + e with 0 < e < 1,
		// so c·n/2^64 = n/d + e·n/2^64 and, with n = q·d + r,
		// ⌊c·n/2^64⌋ = q whenever r/d + n/2^64 < 1, which n·d < 2^64
		// guarantees (r ≤ d − 1). Every n below qlim satisfies it iff
		// (qlim − 1)·d < 2^64 (Lemire, Kaser and Kurz, "Faster remainder by
		// direct computation", 2019, Theorem 1). Otherwise (ΔQ of megabytes
		// and more) queueDiv divides.
		if hi, _ := bits.Mul64(p.qlim-1, d); hi == 0 {
			p.qrecip = math.MaxUint64/d + 1
		}
	}
	if p.qrecip != 0 {
		p.qfast = p.qlim
	}
}

// QueueUnits returns qlen in ΔQ units as Algorithm 1 reads it: ⌊qlen/ΔQ⌋,
// saturated at 2^QueueBits − 1 (saturated reports whether it was). A
// negative qlen reads as 0. It is the queue quantiser's QuantizeSat (Floor)
// computed as a constant divider: a compare with the first saturating byte
// count and the high word of a multiply by ⌈2^64/ΔQ⌉, exact for every
// unsaturated qlen (see initQueueDivider; a test checks it against the
// quantiser), or, for ΔQ = 1 or a ΔQ where that multiply would not be
// exact, queueUnits.
func (p *Params) QueueUnits(qlen units.Bytes) (q uint32, saturated bool) {
	// A negative qlen is above 2^63 as a uint64, and qfast ≤ 2^63 (qlim,
	// where qrecip ≠ 0: (qlim − 1)·ΔQ < 2^64 with ΔQ ≥ 2): it takes
	// queueUnits.
	if v := uint64(qlen); v < p.qfast {
		hi, _ := bits.Mul64(v, p.qrecip)
		return uint32(hi), false
	}
	return p.queueUnits(qlen)
}

// queueUnits is QueueUnits off its multiply path: negative, saturated, or
// a ΔQ without an exact reciprocal.
func (p *Params) queueUnits(qlen units.Bytes) (uint32, bool) {
	v := uint64(max(qlen, 0))
	if v >= p.qlim {
		return p.qtop, true
	}
	if p.qrecip != 0 {
		hi, _ := bits.Mul64(v, p.qrecip)
		return uint32(hi), false
	}
	return p.queueDiv(v), false
}

// queueDiv is QueueUnits below saturation without a reciprocal: a shift
// for ΔQ = 1 (by 0), else the quantiser's division.
func (p *Params) queueDiv(v uint64) uint32 {
	if p.qpow2 {
		return uint32(v >> p.qshift)
	}
	n, _ := p.queue.QuantizeSat(v)
	return uint32(n)
}

// Thresholds returns Qref, Qmid, Qmax and the queue register's maximum, in
// ΔQ units.
func (p *Params) Thresholds() (qref, qmid, qmax, qtop uint32) {
	return p.qref, p.qmid, p.qmax, p.qtop
}

// IdleThreshold returns IdleGain's threshold ⌊Qref/8⌋ in ΔQ units (at
// least 1), or 0 when IdleGain is off (no queue is below 0, so no update is
// idle).
func (p *Params) IdleThreshold() uint32 { return p.qidle }

// Idle reports whether IdleGain's rule applies to an update with queue
// sample qcur and register Qold (both in ΔQ units): Qcur < ⌊Qref/8⌋ and
// ⌊(Qcur + Qold)/2⌋ < ⌊Qref/8⌋. Always false when IdleGain is off.
func (p *Params) Idle(qcur, qold uint32) bool {
	// The sum in 64 bits: any uint32 pair, not only register values.
	return qcur < p.qidle && (uint64(qcur)+uint64(qold))>>1 < uint64(p.qidle)
}

// FBounds returns Fmin and Fmax in F register units (ΔF·2^−RateFracBits).
func (p *Params) FBounds() (fmin, fmax uint32) { return p.fmin, p.fmax }

// FracBits returns RateFracBits, the number of fraction bits of F.
func (p *Params) FracBits() uint { return p.k }

// RateWidth returns the F register's width, RateBits + RateFracBits.
func (p *Params) RateWidth() uint8 { return uint8(p.cfg.RateBits + p.k) }

// QueueWidth returns the queue registers' width, QueueBits.
func (p *Params) QueueWidth() uint8 { return uint8(p.cfg.QueueBits) }

// Gains returns the CSD constants realising ᾱ and β̄.
func (p *Params) Gains() (alpha, beta fixedpoint.CSD) { return p.alpha, p.beta }

// AutoTune returns the AUTO_TUNE region table (over F register units).
func (p *Params) AutoTune() *hwtables.RoCCAutoTune { return &p.tune }

// Shift returns AUTO_TUNE's gain shift s = log2(ratio) for the F register
// value f (Algorithm 1, lines 15–21): α = ᾱ/2^s, β = β̄/2^s. It is
// AutoTune().Shift(f): five comparators side by side, no data-dependent
// branch.
func (p *Params) Shift(f uint32) uint { return p.tune.Shift(uint64(f)) }

// RateUnits returns the F register value f in whole ΔF units,
// ⌊f / 2^RateFracBits⌋: the value a rate message carries. Rounding down
// never tells a source more than Algorithm 1 computed, and keeps the
// result in [Fmin, Fmax].
func (p *Params) RateUnits(f uint32) uint32 { return f >> p.k }

// Rate returns the F register value f as a rate, ⌊f/2^k⌋·ΔF.
func (p *Params) Rate(f uint32) units.Rate {
	return units.Rate(p.RateUnits(f)) * p.cfg.DeltaF
}

// StepErrorBound returns the bound, in ΔF units, on the difference between
// one integer PI update (line 8, gain shift s) and the same update in real
// numbers with the exact ᾱ, β̄, for queue errors e1 = Qcur − Qref and
// e2 = Qcur − Qold (the package doc's "Tracking bound"):
//
//	2^−(k+1) + (|ᾱ − v_α|·|e1| + |β̄ − v_β|·|e2|) / 2^s
//
// (2^−k in place of 2^−(k+1) with RoundFloor, whose one rounding errs by
// up to a whole register unit). For tests, reports and the doc's numbers;
// not used by an update.
func (p *Params) StepErrorBound(e1, e2 int64, s uint) float64 {
	b := math.Ldexp(1, -int(p.k)-1)
	if p.floor {
		b = math.Ldexp(1, -int(p.k))
	}
	return b + (math.Abs(p.alpha.Error())*math.Abs(float64(e1))+
		math.Abs(p.beta.Error())*math.Abs(float64(e2)))/math.Ldexp(1, int(s))
}

// Regs are the registers Algorithm 1 carries between updates: the fair
// rate F (RateBits + RateFracBits wide, units of ΔF·2^−RateFracBits) and
// Qold (QueueBits wide, ΔQ units). The switch and a host computing the
// rate ([RoCC] §III-F) hold the same pair.
type Regs struct {
	F    uint32
	QOld uint32
}

// Branch names the branch of Algorithm 1 an update took.
type Branch uint8

const (
	// PI is line 8, the PI step.
	PI Branch = iota
	// MDMin is line 3: Qcur ≥ Qmax and F > Fmax/8, F ← Fmin.
	MDMin
	// MDHalf is line 5: Qcur − Qold ≥ Qmid and F > Fmax/8, F ← F/2.
	MDHalf
	// PIIdle is line 8 with IdleGain's top-region gains: the queue was
	// idle (Params.Idle), so α = ᾱ and β = β̄ whatever F is.
	PIIdle
)

// BranchBits is the width of a Branch register: 2 bits for its 4 values.
const BranchBits = 2

// ShiftBits is the width of AUTO_TUNE's shift register: 3 bits for its
// values 0..5.
const ShiftBits = 3

// String returns "pi", "md-min", "md-half" or "pi-idle".
func (b Branch) String() string {
	switch b {
	case PI:
		return "pi"
	case MDMin:
		return "md-min"
	case MDHalf:
		return "md-half"
	case PIIdle:
		return "pi-idle"
	}
	return fmt.Sprintf("Branch(%d)", uint8(b))
}

// InitialRegs returns the registers before the first update: F as
// Config.InitialF says (Fmax by default: no congestion known, so sources
// are not limited below the link; the authors' OMNeT++ model starts at 0)
// and Qold = 0 (an empty queue). The paper does not give initial values.
func (p *Params) InitialRegs() Regs { return Regs{F: p.finit} }

// Step is CALCULATE_FAIR_RATE of Algorithm 1 (lines 1–14) as a pure
// function of the parameters, the registers and Qcur (in ΔQ units; a value
// above the queue register saturates at 2^QueueBits − 1). It returns the
// next registers and the branch taken. The switch (cp.RoCC) and the host
// (rp.RoCCHost) both call it; it does not allocate. An F outside
// [Fmin, Fmax] (never produced by Step) is clamped like a computed one.
func Step(p *Params, r Regs, qcur uint32) (Regs, Branch) {
	qcur = min(qcur, p.qtop)
	f := int64(r.F)
	branch := PI
	// 1: function CALCULATE_FAIR_RATE(Qcur)
	// 2: if Qcur ≥ Qmax AND F > Fmax/8 then
	if qcur >= p.qmax && f > int64(p.fmd) {
		// 3: F ← Fmin
		f = int64(p.fmin)
		branch = MDMin
		// 4: else if (Qcur − Qold) ≥ Qmid AND F > Fmax/8 then
	} else if int64(qcur)-int64(r.QOld) >= int64(p.qmid) && f > int64(p.fmd) {
		// 5: F ← F ÷ 2 (a right shift: ⌊F/2⌋ in register units)
		f >>= halveShift
		branch = MDHalf
		// 6: else
	} else {
		// 7: α, β ← AUTO_TUNE(): the gain shift s, α = ᾱ/2^s, β = β̄/2^s.
		s := p.Shift(r.F)
		// IdleGain (not in Algorithm 1): an idle queue takes the top
		// region's gains, s = 0.
		if p.Idle(qcur, r.QOld) {
			s, branch = 0, PIIdle
		}
		// 8: F ← F − α·(Qcur − Qref) − β·(Qcur − Qold)
		f -= p.piDecrement(int64(qcur)-int64(p.qref), int64(qcur)-int64(r.QOld), s)
	}
	// 9–10: if F > Fmax then F ← Fmax
	if f > int64(p.fmax) {
		f = int64(p.fmax)
	}
	// 11–12: if F < Fmin then F ← Fmin
	if f < int64(p.fmin) {
		f = int64(p.fmin)
	}
	// 13: Qold ← Qcur; 14: return F
	return Regs{F: uint32(f), QOld: qcur}, branch
}

// piDecrement returns line 8's (ᾱ·e1 + β̄·e2)/2^s in F register units
// (ΔF·2^−k), rounded to nearest with ties away from zero, or up with
// RoundFloor (so that F − ΔF is rounded down); see "Line 8, sign and
// rounding" in the package doc for why the sum is exact before the one
// rounding.
func (p *Params) piDecrement(e1, e2 int64, s uint) int64 {
	// N = (v_α·e1 + v_β·e2)·2^g: each CSD term shifts e·2^g right by at most
	// g, so no bit is dropped. |N| < 2·2^8·2^16·2^24 = 2^49.
	n := p.alphaG*e1 + p.betaG*e2 // = p.alpha.Mul(e1<<p.g) + p.beta.Mul(e2<<p.g), see alphaG
	// ΔF = N / 2^(g + s − k) in units of ΔF·2^−k; g ≥ k, so the shift is ≥ 0.
	sh := p.g + s - p.k
	if p.floor {
		// ⌈N/2^sh⌉ = −⌊−N/2^sh⌋ (an arithmetic shift floors), so that
		// F − ΔF = ⌊F − N/2^sh⌋ for an integer F.
		return -((-n) >> (sh & 63)) // sh ≤ 29: the mask only spares Go's shift-by-64 guard
	}
	return roundShift(n, sh)
}

// roundShift returns n/2^sh rounded to nearest, ties away from zero:
// sign(n)·⌊(|n| + 2^(sh−1)) / 2^sh⌋. It needs |n| < 2^62 and sh < 62.
//
// The sign is applied without a branch (a queue error's sign is data): with
// m = n >> 63 (0 or −1), |n| = (n ^ m) − m and sign(n)·x = (x ^ m) − m;
// half = 2^sh >> 1 is 2^(sh−1), or 0 for sh = 0 (n itself).
func roundShift(n int64, sh uint) int64 {
	sh &= 63 // sh < 62: the mask only spares Go's shift-by-64 guards
	half := int64(1) << sh >> 1
	m := n >> 63
	r := ((n ^ m) - m + half) >> sh // ⌊(|n| + 2^(sh−1)) / 2^sh⌋
	return (r ^ m) - m
}
