package cp

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"strconv"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/fixedpoint"
	"github.com/hwcc/hwcc/hwtables"
	"github.com/hwcc/hwcc/units"
)

// Part names in errors.
const (
	roccCPPart   = "cp.RoCC"
	roccHostPart = "cp.RoCCHost"
)

// RoCCFlowTableKind selects the flow table of section III-D.
type RoCCFlowTableKind uint8

const (
	// RoCCQueueTable is section III-D (1), the paper's default: the flows
	// that have bytes in the queue, with per-flow byte counts updated on
	// enqueue and dequeue (RoCCQueueFlows).
	RoCCQueueTable RoCCFlowTableKind = iota
	// RoCCAgedTable is section III-D (2): a table of at most
	// Fmax/Fmin flows seen on enqueue, with age-based eviction
	// (RoCCAgedFlows).
	RoCCAgedTable
)

// String returns "queue" or "aged".
func (k RoCCFlowTableKind) String() string {
	switch k {
	case RoCCQueueTable:
		return "queue"
	case RoCCAgedTable:
		return "aged"
	}
	return fmt.Sprintf("RoCCFlowTableKind(%d)", uint8(k))
}

// RoCCInitialF selects the value of the F register before the first update
// (RoCCConfig.InitialF). The paper does not give one.
type RoCCInitialF uint8

const (
	// RoCCInitialFMax starts F at Fmax: no congestion is known, so sources
	// are not limited below the link. hwcc's default.
	RoCCInitialFMax RoCCInitialF = iota
	// RoCCInitialFMin starts F at Fmin, the most cautious value.
	RoCCInitialFMin
	// RoCCInitialZero starts F at 0, as the authors' OMNeT++ model
	// (SwitchEtherQueue.cc, currentRate(0)). 0 lies outside [Fmin, Fmax]:
	// the first update computes from it (AUTO_TUNE's bottom region, no MD
	// branch since 0 ≤ Fmax/8) and its lines 9–12 clamp the result, so the
	// first CNP carries at least Fmin. F() and Rate() read 0 until then.
	RoCCInitialZero
)

// String returns "fmax", "fmin" or "zero".
func (v RoCCInitialF) String() string {
	switch v {
	case RoCCInitialFMax:
		return "fmax"
	case RoCCInitialFMin:
		return "fmin"
	case RoCCInitialZero:
		return "zero"
	}
	return fmt.Sprintf("RoCCInitialF(%d)", uint8(v))
}

// RoCCRounding selects how line 8's update is rounded to the F register
// (RoCCConfig.Rounding).
type RoCCRounding uint8

const (
	// RoCCRoundNearest rounds the decrement α·e1 + β·e2 to the nearest
	// register unit, ties away from zero: an odd function, so queue errors
	// +e and −e move F by opposite amounts and rounding pushes F neither
	// up nor down on average. hwcc's default.
	RoCCRoundNearest RoCCRounding = iota
	// RoCCRoundFloor rounds the new F down, F ← ⌊F − (α·e1 + β·e2)⌋ in
	// register units: the authors' OMNeT++ model, which assigns the
	// real-valued result to an int (truncation toward zero; the two differ
	// only below 0, where lines 11–12 clamp both to Fmin). With
	// RateFracBits = 0 it is that model's whole-ΔF arithmetic; it biases F
	// down by half a register unit per update on average.
	RoCCRoundFloor
)

// String returns "nearest" or "floor".
func (r RoCCRounding) String() string {
	switch r {
	case RoCCRoundNearest:
		return "nearest"
	case RoCCRoundFloor:
		return "floor"
	}
	return fmt.Sprintf("RoCCRounding(%d)", uint8(r))
}

// RoCCMessage selects what a CP sends every T (RoCCConfig.Message).
type RoCCMessage uint8

const (
	// RoCCSendRate sends the fair rate F the CP computed (a type-1
	// message, section III-B): the paper's design and the default.
	RoCCSendRate RoCCMessage = iota
	// RoCCSendReport sends Qcur and the update counter with no F (a type-2
	// message with rate 0, the P4 CNP of Listing 1): the host computes F
	// itself and keeps its own (section III-F, RoCCHost).
	RoCCSendReport
	// RoCCSendReportF sends Qcur and F as it was before the update (a
	// type-2 message, section III-F's approach 2, "CP only provides Qcur
	// and F"): the host starts each update from the CP's F.
	RoCCSendReportF
)

// String returns "rate", "report" or "report_f".
func (m RoCCMessage) String() string {
	switch m {
	case RoCCSendRate:
		return "rate"
	case RoCCSendReport:
		return "report"
	case RoCCSendReportF:
		return "report_f"
	}
	return fmt.Sprintf("RoCCMessage(%d)", uint8(m))
}

// Limits of RoCCConfig's widths and gains.
const (
	// RoCCMinQueueBits and RoCCMaxQueueBits bound the queue registers'
	// width: three values for 0 ≤ Qref < Qmid < Qmax, and the P4 CNP's
	// 16-bit qdepth field (section IV-B, Listing 1).
	RoCCMinQueueBits = 2
	RoCCMaxQueueBits = 16
	// RoCCMinRateBits is the narrowest integer part of F: two values for
	// 1 ≤ Fmin < Fmax.
	RoCCMinRateBits = 2
	// RoCCMaxRateBits is the widest integer part of F: the CNP's rate field
	// is 16 bits (RoCCFeedback).
	RoCCMaxRateBits = 16
	// RoCCMaxRateFracBits is the most fraction bits F may have.
	RoCCMaxRateFracBits = 16
	// RoCCMaxGainFracBits is the finest shift of ᾱ and β̄.
	RoCCMaxGainFracBits = 24
	// RoCCMaxGain bounds ᾱ and β̄: each must be in (0, 256).
	RoCCMaxGain = 256
)

// roccMDShift is log2(8) in line 2's and line 4's test F > Fmax/8.
const roccMDShift = 3

// roccIdleShift is log2(8) in IdleGain's threshold Qref/8.
const roccIdleShift = 3

// roccHalveShift is line 5's F ÷ 2.
const roccHalveShift = 1

// RoCCConfig configures a RoCC congestion point (and a host that computes
// its rate, RoCCHost). Every byte value is converted to ΔQ units by one
// quantiser that rounds down (fixedpoint.Floor, a hardware queue counter's
// whole units); rates must be whole multiples of ΔF. New (NewRoCC,
// NewRoCCParams) refuses a field out of range with a *cc.ConfigError naming
// it.
//
// Where the paper is silent, hwcc and the authors' OMNeT++ model
// (github.com/danushkam/rocc, SwitchEtherQueue.cc) differ in three places,
// each an option here:
//
//   - F starts at Fmax in hwcc; that model starts it at 0 (InitialF =
//     RoCCInitialZero selects its behaviour).
//   - hwcc's F register keeps RateFracBits = 8 fraction bits of ΔF (the
//     paper says only "fixed point precision", section VI), so an update
//     smaller than one ΔF is not lost; that model keeps whole ΔF
//     (RateFracBits = 0).
//   - hwcc rounds line 8 to nearest; that model truncates the new F
//     (Rounding = RoCCRoundFloor).
//
// With all three set, line 8 computes what that model computes, up to the
// gains' CSD error (below 2^−17 with the presets) and AUTO_TUNE's
// comparisons, which hwcc makes exactly (F < Fmax/level in real numbers)
// where that model divides Fmax by the level in integers first.
type RoCCConfig struct {
	// DeltaQ is ΔQ, the queue resolution (Table II): 600 B in the paper's
	// simulations (section VI), 80 B on Tofino (section VI-C). Range: ≥ 1 B.
	DeltaQ units.Bytes
	// DeltaF is ΔF, the rate resolution (Table II): 10 Mb/s in the paper
	// (section VI). Range: ≥ 1 bit/s.
	DeltaF units.Rate
	// Period is T, the update interval of Algorithm 1: 40 µs in simulation,
	// 100 µs on the DPDK testbed, 20 µs on Tofino (section VI). Range: > 0.
	Period units.Time
	// Start is the time of the first update (the timer's phase). Range: ≥ 0.
	Start units.Time

	// FMin and FMax are Fmin and Fmax, the bounds of F (Table II; lines
	// 9–12): 10 ΔF and 4000 ΔF (40 Gb/s) or 10 000 ΔF (100 Gb/s) in section
	// VI. Range: multiples of DeltaF with ΔF ≤ FMin < FMax ≤
	// (2^RateBits − 1)·ΔF.
	FMin, FMax units.Rate

	// QRef, QMid and QMax are Qref (the PI's reference queue, line 8), Qmid
	// (the queue growth over one period that halves F, line 4) and Qmax (the
	// queue that resets F to Fmin, line 2), in bytes; section VI uses
	// 150/300/360 KB at 40 Gb/s. Section III-B requires Qmax > Qmid > Qref;
	// New checks it after quantisation, and QMax ≤ (2^QueueBits − 1)·ΔQ.
	QRef, QMid, QMax units.Bytes

	// AlphaBar and BetaBar are ᾱ and β̄, the PI gains of the top AUTO_TUNE
	// region (Table II, line 20), in ΔF per ΔQ: 0.3 and 1.5 at 40 Gb/s,
	// 0.45 and 2.25 at 100 Gb/s (section VI). They are realised as CSD
	// shift-add constants of at most GainTerms terms with shifts down to
	// 2^−GainFracBits. Range: (0, 256), and not so small that the CSD
	// rounds to 0.
	AlphaBar, BetaBar float64
	// GainTerms is the largest number of CSD terms of each gain, 1 to
	// fixedpoint.MaxCSDTerms.
	GainTerms int
	// GainFracBits is the finest shift of the gains' CSD terms, from
	// RateFracBits to 24.
	GainFracBits uint

	// QueueBits is the width of Qcur, Qold and the thresholds, 2 to 16 (Qref
	// < Qmid < Qmax need three values).
	QueueBits uint
	// RateBits is the width of F's integer part (and the largest Fmax/ΔF is
	// 2^RateBits − 1), 2 to 16 (Fmin < Fmax need two values above 0).
	RateBits uint
	// RateFracBits is the number of fraction bits of the F register, 0 to
	// 16: 8 in the presets. With 0, F is a whole number of ΔF as in Table II
	// and the authors' OMNeT++ model, and an update smaller than half a ΔF
	// is lost.
	RateFracBits uint

	// InitialF is F before the first update: Fmax (the zero value), Fmin,
	// or 0 as in the authors' OMNeT++ model. Qold starts at 0 (an empty
	// queue) in every case.
	InitialF RoCCInitialF
	// Rounding is line 8's rounding: to nearest (the zero value) or down,
	// as the authors' OMNeT++ model.
	Rounding RoCCRounding

	// FlowTable selects the flow table (section III-D); the zero value is
	// the paper's default, RoCCQueueTable.
	FlowTable RoCCFlowTableKind
	// FlowCapacity is the number of flows the table holds, 1 to 2^20. The
	// paper's FPGA flow table has 1024 entries (section IV-C); for
	// RoCCAgedTable section III-D (2) bounds it by Fmax/Fmin. What the
	// queue table does beyond it: RoCCQueueFlows.
	FlowCapacity int
	// FlowMaxAge is RoCCAgedTable's eviction age: a flow not seen on enqueue
	// for this long is dropped at the next update. The paper leaves it open.
	// Range: > 0 when FlowTable is RoCCAgedTable; unused otherwise.
	FlowMaxAge units.Time

	// IdleGain turns on the idle-queue gain, a rule borrowed from the
	// authors' DPDK controller that the journal's Algorithm 1 does not
	// have: while the queue is nearly empty (Qcur < ⌊Qref/8⌋ and
	// ⌊(Qcur + Qold)/2⌋ < ⌊Qref/8⌋, in ΔQ units), line 8 uses the top
	// region's gains ᾱ and β̄ whatever F is (see "The idle-queue gain" on
	// RoCC). It needs Qref ≥ 8 ΔQ. False, the default, is Algorithm 1 as
	// printed.
	IdleGain bool

	// Message is what the CP sends every T to each flow of its table: the
	// fair rate (the zero value), or a report of Qcur with or without F for
	// a host that computes the rate (section III-F).
	Message RoCCMessage

	// Switch and Port identify this CP in its CNPs (section III-C; GETCP of
	// Algorithm 2 returns the switch's address, Listing 1 carries the egress
	// port). Any value.
	Switch uint32
	Port   uint16
}

// roccPaperWidths sets the register widths and gain precision every preset
// shares: the CNP's 16-bit fields for Qcur and F, 8 fraction bits in F
// (the paper says only "fixed point precision"), gains with up to 8 CSD
// terms down to 2^−16, and the paper's default flow table with the 1024
// entries of its FPGA table (section IV-C).
func roccPaperWidths(c RoCCConfig) RoCCConfig {
	c.QueueBits = 16
	c.RateBits = 16
	c.RateFracBits = 8
	c.GainFracBits = 16
	c.GainTerms = 8
	c.FlowTable = RoCCQueueTable
	c.FlowCapacity = 1024
	c.FlowMaxAge = 10 * c.Period
	return c
}

// RoCC40G is the paper's 40 Gb/s simulation setting ([RoCC]
// §VI, "System parameters"): ΔF = 10 Mb/s, ΔQ = 600 B, T = 40 µs,
// Fmin = 10 ΔF, Fmax = 4000 ΔF, Qref/Qmid/Qmax = 150/300/360 KB (KB =
// 1000 B, as the authors' code uses), ᾱ = 0.3, β̄ = 1.5. Register widths as
// roccPaperWidths.
func RoCC40G() RoCCConfig {
	return roccPaperWidths(RoCCConfig{
		DeltaQ:   600 * units.Byte,
		DeltaF:   10 * units.Mbps,
		Period:   40 * units.Microsecond,
		FMin:     100 * units.Mbps,
		FMax:     40 * units.Gbps,
		QRef:     150 * units.KB,
		QMid:     300 * units.KB,
		QMax:     360 * units.KB,
		AlphaBar: 0.3,
		BetaBar:  1.5,
	})
}

// RoCC100G is the paper's 100 Gb/s simulation setting (section VI, "System
// parameters"): as RoCC40G with Fmax = 10 000 ΔF, Qref/Qmid/Qmax =
// 300/600/660 KB, ᾱ = 0.45, β̄ = 2.25.
func RoCC100G() RoCCConfig {
	c := RoCC40G()
	c.FMax = 100 * units.Gbps
	c.QRef, c.QMid, c.QMax = 300*units.KB, 600*units.KB, 660*units.KB
	c.AlphaBar, c.BetaBar = 0.45, 2.25
	return c
}

// RoCCDPDK10G is the DPDK testbed (section VI-B): 10 Gb/s links,
// Qref/Qmid/Qmax = 75/150/210 KB, T = 100 µs. The paper does not give ΔQ,
// ΔF, Fmin or the gains for the testbed; this preset keeps the simulation's
// ΔQ = 600 B, ΔF = 10 Mb/s, Fmin = 10 ΔF and ᾱ/β̄ = 0.3/1.5 ([RoCC-code]'s
// defaults), with Fmax = the 10 Gb/s link.
func RoCCDPDK10G() RoCCConfig {
	c := RoCC40G()
	c.FMax = 10 * units.Gbps
	c.Period = 100 * units.Microsecond
	c.QRef, c.QMid, c.QMax = 75*units.KB, 150*units.KB, 210*units.KB
	return roccPaperWidths(c)
}

// RoCCTofino40G is the Tofino testbed (section VI-C): 40 Gb/s links,
// Qref/Qmid/Qmax = 75/150/210 KB, T = 20 µs, and ΔQ = 80 B, Tofino's queue
// depth unit. Qref = 75 KB is 937.5 units and rounds down to 937. ΔF, Fmin,
// Fmax and the gains are the 40 Gb/s simulation's (the paper gives none for
// the testbed).
func RoCCTofino40G() RoCCConfig {
	c := RoCC40G()
	c.DeltaQ = 80 * units.Byte
	c.Period = 20 * units.Microsecond
	c.QRef, c.QMid, c.QMax = 75*units.KB, 150*units.KB, 210*units.KB
	return roccPaperWidths(c)
}

// RoCCParams is the validated, quantised form of a RoCCConfig: the
// thresholds in ΔQ units, the F bounds in register units, the gains as CSD
// constants and the AUTO_TUNE region table. It is the "simple registry" of
// section III-F: the same values serve the switch (RoCC) and a host that
// computes the rate itself (RoCCHost). Immutable after NewRoCCParams; safe
// to share. It is configuration the parts read, not a cc part itself.
type RoCCParams struct {
	cfg   RoCCConfig
	queue fixedpoint.Quantizer // bytes → ΔQ units, Floor, QueueBits wide
	// The queue quantiser's divider, as hardware builds a divider by a
	// constant (see QueueUnits): qlim = (qtop + 1)·ΔQ, the first byte count
	// that saturates (2^64 − 1 if that overflows: no int64 reaches it);
	// qrecip = ⌈2^64/ΔQ⌉ when a multiply by it is exact below qlim, else 0
	// (ΔQ = 1, or ΔQ too large); qshift = log2 ΔQ when ΔQ is a power of
	// two (qpow2).
	qlim, qrecip uint64
	qshift       uint
	qpow2        bool
	qref, qmid   uint32 // ΔQ units
	qmax, qtop   uint32 // ΔQ units; qtop = 2^QueueBits − 1
	fmin, fmax   uint32 // F register units (ΔF·2^−k)
	fmd          uint32 // the MD threshold: F > Fmax/8 ⇔ F > fmd (see NewRoCCParams)
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
	floor         bool   // Rounding == RoCCRoundFloor
}

// NewRoCCParams validates cfg and builds its parameters. The error is a
// *cc.ConfigError naming the first field out of range (its Go name) and the
// allowed range.
func NewRoCCParams(cfg RoCCConfig) (*RoCCParams, error) {
	p := &RoCCParams{cfg: cfg}
	if err := p.init(); err != nil {
		return nil, err
	}
	return p, nil
}

// roccBad returns the configuration error of field with value v.
func roccBad(field string, v any, want string) error {
	return &cc.ConfigError{Part: roccCPPart, Field: field, Value: fmt.Sprint(v), Range: want}
}

func (p *RoCCParams) init() error {
	c := p.cfg
	switch {
	case c.DeltaQ < 1:
		return roccBad("DeltaQ", c.DeltaQ, "≥ 1B")
	case c.DeltaF < 1:
		return roccBad("DeltaF", c.DeltaF, "≥ 1bps")
	case c.Period <= 0:
		return roccBad("Period", c.Period, "> 0")
	case c.Start < 0:
		return roccBad("Start", c.Start, "≥ 0")
	case c.QueueBits < RoCCMinQueueBits || c.QueueBits > RoCCMaxQueueBits:
		return roccBad("QueueBits", c.QueueBits, strconv.Itoa(RoCCMinQueueBits)+".."+strconv.Itoa(RoCCMaxQueueBits))
	case c.RateBits < RoCCMinRateBits || c.RateBits > RoCCMaxRateBits:
		return roccBad("RateBits", c.RateBits, strconv.Itoa(RoCCMinRateBits)+".."+strconv.Itoa(RoCCMaxRateBits))
	case c.RateFracBits > RoCCMaxRateFracBits:
		return roccBad("RateFracBits", c.RateFracBits, "0.."+strconv.Itoa(RoCCMaxRateFracBits))
	case c.GainFracBits < c.RateFracBits || c.GainFracBits > RoCCMaxGainFracBits:
		return roccBad("GainFracBits", c.GainFracBits, fmt.Sprintf("RateFracBits (%d)..%d", c.RateFracBits, RoCCMaxGainFracBits))
	case c.GainTerms < 1 || c.GainTerms > fixedpoint.MaxCSDTerms:
		return roccBad("GainTerms", c.GainTerms, "1.."+strconv.Itoa(fixedpoint.MaxCSDTerms))
	case !(c.AlphaBar > 0 && c.AlphaBar < RoCCMaxGain):
		return roccBad("AlphaBar", c.AlphaBar, "(0, 256)")
	case !(c.BetaBar > 0 && c.BetaBar < RoCCMaxGain):
		return roccBad("BetaBar", c.BetaBar, "(0, 256)")
	case c.InitialF > RoCCInitialZero:
		return roccBad("InitialF", c.InitialF, "fmax, fmin or zero")
	case c.Rounding > RoCCRoundFloor:
		return roccBad("Rounding", c.Rounding, "nearest or floor")
	case c.Message > RoCCSendReportF:
		return roccBad("Message", c.Message, "rate, report or report_f")
	case c.FlowTable > RoCCAgedTable:
		return roccBad("FlowTable", c.FlowTable, "queue or aged")
	case c.FlowCapacity < 1 || c.FlowCapacity > RoCCMaxFlowCapacity:
		return roccBad("FlowCapacity", c.FlowCapacity, "1.."+strconv.Itoa(RoCCMaxFlowCapacity))
	case c.FlowTable == RoCCAgedTable && c.FlowMaxAge <= 0:
		return roccBad("FlowMaxAge", c.FlowMaxAge, "> 0 with the aged flow table")
	}

	// Rates: whole multiples of ΔF within the RateBits-wide integer part.
	fmaxLimit := uint64(1)<<c.RateBits - 1
	if c.FMin < c.DeltaF || c.FMin%c.DeltaF != 0 {
		return roccBad("FMin", c.FMin, "a positive multiple of DeltaF ("+c.DeltaF.String()+")")
	}
	if c.FMax <= c.FMin || c.FMax%c.DeltaF != 0 || uint64(c.FMax/c.DeltaF) > fmaxLimit {
		return roccBad("FMax", c.FMax, fmt.Sprintf("a multiple of DeltaF (%v) in (FMin (%v), %d·DeltaF]", c.DeltaF, c.FMin, fmaxLimit))
	}
	p.k, p.g = c.RateFracBits, c.GainFracBits
	p.fmin = uint32(c.FMin/c.DeltaF) << p.k
	p.fmax = uint32(c.FMax/c.DeltaF) << p.k
	// Lines 2 and 4 test F > Fmax/8 in real numbers. For an integer F,
	// F > Fmax/8 ⇔ F > ⌊Fmax/8⌋ (Fmax/8 − ⌊Fmax/8⌋ < 1), so comparing with
	// the shifted register is exact.
	p.fmd = p.fmax >> roccMDShift

	// Queue thresholds: bytes → ΔQ units by the one queue quantiser.
	q, err := fixedpoint.NewQuantizer(uint64(c.DeltaQ), c.QueueBits, fixedpoint.Floor)
	if err != nil {
		return &cc.ConfigError{Part: roccCPPart, Field: "DeltaQ", Value: c.DeltaQ.String(), Err: err}
	}
	p.queue = q
	p.qtop = uint32(q.Max())
	p.initQueueDivider(uint64(c.DeltaQ))
	var sat [3]bool
	for i, b := range [3]units.Bytes{c.QRef, c.QMid, c.QMax} {
		if b < 0 {
			return roccBad([3]string{"QRef", "QMid", "QMax"}[i], b, "≥ 0B")
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
		return roccBad("QMax", c.QMax, fmt.Sprintf("at most the %d-bit queue register's %v (%d·DeltaQ)",
			c.QueueBits, units.Bytes(q.Dequantize(q.Max())), q.Max()))
	}
	if !(p.qref < p.qmid && p.qmid < p.qmax) {
		return roccBad("QRef/QMid/QMax", fmt.Sprintf("%v/%v/%v (%d/%d/%d ΔQ)", c.QRef, c.QMid, c.QMax, p.qref, p.qmid, p.qmax),
			"Qref < Qmid < Qmax in whole ΔQ (section III-B)")
	}
	if c.IdleGain {
		// Qref/8 as a shift; with Qref < 8 ΔQ it would be 0 and no queue
		// could be idle, which is a configuration error, not a no-op.
		p.qidle = p.qref >> roccIdleShift
		if p.qidle == 0 {
			return roccBad("QRef", fmt.Sprintf("%v (%d ΔQ)", c.QRef, p.qref),
				"≥ 8·DeltaQ with IdleGain (its threshold is Qref/8 in whole ΔQ)")
		}
	}

	// Gains: CSD constants with shifts down to 2^−g.
	if p.alpha, err = fixedpoint.NewCSD(c.AlphaBar, c.GainTerms, c.GainFracBits); err != nil {
		return &cc.ConfigError{Part: roccCPPart, Field: "AlphaBar", Value: fmt.Sprint(c.AlphaBar), Err: err}
	}
	if p.beta, err = fixedpoint.NewCSD(c.BetaBar, c.GainTerms, c.GainFracBits); err != nil {
		return &cc.ConfigError{Part: roccCPPart, Field: "BetaBar", Value: fmt.Sprint(c.BetaBar), Err: err}
	}
	if p.alpha.Len() == 0 {
		return roccBad("AlphaBar", c.AlphaBar, fmt.Sprintf("a gain that does not round to 0 with GainFracBits = %d", c.GainFracBits))
	}
	if p.beta.Len() == 0 {
		return roccBad("BetaBar", c.BetaBar, fmt.Sprintf("a gain that does not round to 0 with GainFracBits = %d", c.GainFracBits))
	}
	p.alphaG, p.betaG = p.alpha.Mul(1<<p.g), p.beta.Mul(1<<p.g)
	if p.tune, err = hwtables.NewRoCCAutoTune(uint64(p.fmax)); err != nil {
		return &cc.ConfigError{Part: roccCPPart, Field: "FMax", Value: c.FMax.String(), Err: err}
	}
	switch c.InitialF {
	case RoCCInitialFMin:
		p.finit = p.fmin
	case RoCCInitialZero:
		p.finit = 0
	default:
		p.finit = p.fmax
	}
	p.floor = c.Rounding == RoCCRoundFloor
	return nil
}

// Config returns the configuration the parameters were built from.
func (p *RoCCParams) Config() RoCCConfig { return p.cfg }

// initQueueDivider builds the divider of QueueUnits for ΔQ = d ≥ 1 and the
// queue register's maximum p.qtop.
func (p *RoCCParams) initQueueDivider(d uint64) {
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
}

// QueueUnits returns qlen in ΔQ units as the CP reads it: ⌊qlen/ΔQ⌋,
// saturated at 2^QueueBits − 1 (saturated reports whether it was). A
// negative qlen reads as 0. It is the queue quantiser's QuantizeSat (Floor)
// computed as a constant divider: a compare with the first saturating byte
// count, then the high word of a multiply by ⌈2^64/ΔQ⌉, exact for every
// unsaturated qlen (see initQueueDivider; a test checks it against the
// quantiser), or, for ΔQ = 1 or a ΔQ where that multiply would not be
// exact, queueDiv.
func (p *RoCCParams) QueueUnits(qlen units.Bytes) (q uint32, saturated bool) {
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
func (p *RoCCParams) queueDiv(v uint64) uint32 {
	if p.qpow2 {
		return uint32(v >> p.qshift)
	}
	n, _ := p.queue.QuantizeSat(v)
	return uint32(n)
}

// Thresholds returns Qref, Qmid, Qmax and the queue register's maximum, in
// ΔQ units.
func (p *RoCCParams) Thresholds() (qref, qmid, qmax, qtop uint32) {
	return p.qref, p.qmid, p.qmax, p.qtop
}

// IdleThreshold returns IdleGain's threshold ⌊Qref/8⌋ in ΔQ units (at
// least 1), or 0 when IdleGain is off (no queue is below 0, so no update is
// idle).
func (p *RoCCParams) IdleThreshold() uint32 { return p.qidle }

// Idle reports whether IdleGain's rule applies to an update with queue
// sample qcur and register Qold (both in ΔQ units): Qcur < ⌊Qref/8⌋ and
// ⌊(Qcur + Qold)/2⌋ < ⌊Qref/8⌋. Always false when IdleGain is off.
func (p *RoCCParams) Idle(qcur, qold uint32) bool {
	// The sum in 64 bits: any uint32 pair, not only register values.
	return qcur < p.qidle && (uint64(qcur)+uint64(qold))>>1 < uint64(p.qidle)
}

// FBounds returns Fmin and Fmax in F register units (ΔF·2^−RateFracBits).
func (p *RoCCParams) FBounds() (fmin, fmax uint32) { return p.fmin, p.fmax }

// FracBits returns RateFracBits, the number of fraction bits of F.
func (p *RoCCParams) FracBits() uint { return p.k }

// Gains returns the CSD constants realising ᾱ and β̄.
func (p *RoCCParams) Gains() (alpha, beta fixedpoint.CSD) { return p.alpha, p.beta }

// AutoTune returns the AUTO_TUNE region table (over F register units).
func (p *RoCCParams) AutoTune() *hwtables.RoCCAutoTune { return &p.tune }

// Shift returns AUTO_TUNE's gain shift s = log2(ratio) for the F register
// value f (Algorithm 1, lines 15–21): α = ᾱ/2^s, β = β̄/2^s. It is
// AutoTune().Shift(f): five comparators side by side, no data-dependent
// branch.
func (p *RoCCParams) Shift(f uint32) uint { return p.tune.Shift(uint64(f)) }

// RateUnits returns F in whole ΔF units, ⌊f / 2^RateFracBits⌋: the value the
// CNP carries. Rounding down never tells a source more than the CP computed,
// and keeps the result in [Fmin, Fmax].
func (p *RoCCParams) RateUnits(f uint32) uint32 { return f >> p.k }

// Rate returns the F register value f as a rate, ⌊f/2^k⌋·ΔF.
func (p *RoCCParams) Rate(f uint32) units.Rate {
	return units.Rate(p.RateUnits(f)) * p.cfg.DeltaF
}

// StepErrorBound returns the bound, in ΔF units, on the difference between
// one integer PI update (line 8, gain shift s) and the same update in real
// numbers with the exact ᾱ, β̄, for queue errors e1 = Qcur − Qref and
// e2 = Qcur − Qold (see "Tracking bound" on RoCC):
//
//	2^−(k+1) + (|ᾱ − v_α|·|e1| + |β̄ − v_β|·|e2|) / 2^s
//
// (2^−k in place of 2^−(k+1) with RoCCRoundFloor, whose one rounding errs
// by up to a whole register unit). For tests, reports and the doc's
// numbers; not used by the state machine.
func (p *RoCCParams) StepErrorBound(e1, e2 int64, s uint) float64 {
	b := math.Ldexp(1, -int(p.k)-1)
	if p.floor {
		b = math.Ldexp(1, -int(p.k))
	}
	return b + (math.Abs(p.alpha.Error())*math.Abs(float64(e1))+
		math.Abs(p.beta.Error())*math.Abs(float64(e2)))/math.Ldexp(1, int(s))
}

// RoCCRegs are the registers Algorithm 1 carries between updates: the fair
// rate F (RateBits + RateFracBits wide, units of ΔF·2^−RateFracBits) and
// Qold (QueueBits wide, ΔQ units). The CP and a host computing the rate
// (section III-F) hold the same pair.
type RoCCRegs struct {
	F    uint32
	QOld uint32
}

// RoCCBranch names the branch of Algorithm 1 an update took.
type RoCCBranch uint8

const (
	// RoCCPI is line 8, the PI step.
	RoCCPI RoCCBranch = iota
	// RoCCMDMin is line 3: Qcur ≥ Qmax and F > Fmax/8, F ← Fmin.
	RoCCMDMin
	// RoCCMDHalf is line 5: Qcur − Qold ≥ Qmid and F > Fmax/8, F ← F/2.
	RoCCMDHalf
	// RoCCPIIdle is line 8 with IdleGain's top-region gains: the queue was
	// idle (RoCCParams.Idle), so α = ᾱ and β = β̄ whatever F is.
	RoCCPIIdle
)

// String returns "pi", "md-min", "md-half" or "pi-idle".
func (b RoCCBranch) String() string {
	switch b {
	case RoCCPI:
		return "pi"
	case RoCCMDMin:
		return "md-min"
	case RoCCMDHalf:
		return "md-half"
	case RoCCPIIdle:
		return "pi-idle"
	}
	return fmt.Sprintf("RoCCBranch(%d)", uint8(b))
}

// InitialRegs returns the registers of a CP that has not updated yet: F as
// RoCCConfig.InitialF says (Fmax by default: no congestion known, so
// sources are not limited below the link; the authors' OMNeT++ model starts
// at 0) and Qold = 0 (an empty queue). The paper does not give initial
// values.
func (p *RoCCParams) InitialRegs() RoCCRegs { return RoCCRegs{F: p.finit} }

// RoCCStep is CALCULATE_FAIR_RATE of Algorithm 1 (lines 1–14) as a pure
// function of the parameters, the registers and Qcur (in ΔQ units; a value
// above the queue register saturates at 2^QueueBits − 1). It returns the
// next registers and the branch taken. The switch (RoCC.OnTimer) and the
// host (RoCCHost.OnReport) both call it; it does not allocate. An F outside
// [Fmin, Fmax] (never produced by RoCCStep) is clamped like a computed one.
func RoCCStep(p *RoCCParams, r RoCCRegs, qcur uint32) (RoCCRegs, RoCCBranch) {
	qcur = min(qcur, p.qtop)
	f := int64(r.F)
	branch := RoCCPI
	// 1: function CALCULATE_FAIR_RATE(Qcur)
	// 2: if Qcur ≥ Qmax AND F > Fmax/8 then
	if qcur >= p.qmax && f > int64(p.fmd) {
		// 3: F ← Fmin
		f = int64(p.fmin)
		branch = RoCCMDMin
		// 4: else if (Qcur − Qold) ≥ Qmid AND F > Fmax/8 then
	} else if int64(qcur)-int64(r.QOld) >= int64(p.qmid) && f > int64(p.fmd) {
		// 5: F ← F ÷ 2 (a right shift: ⌊F/2⌋ in register units)
		f >>= roccHalveShift
		branch = RoCCMDHalf
		// 6: else
	} else {
		// 7: α, β ← AUTO_TUNE(): the gain shift s, α = ᾱ/2^s, β = β̄/2^s.
		s := p.Shift(r.F)
		// IdleGain (not in Algorithm 1): an idle queue takes the top
		// region's gains, s = 0.
		if p.Idle(qcur, r.QOld) {
			s, branch = 0, RoCCPIIdle
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
	return RoCCRegs{F: uint32(f), QOld: qcur}, branch
}

// piDecrement returns line 8's (ᾱ·e1 + β̄·e2)/2^s in F register units
// (ΔF·2^−k), rounded to nearest with ties away from zero, or up with
// RoCCRoundFloor (so that F − ΔF is rounded down); see "Line 8, sign and
// rounding" on RoCC for why the sum is exact before the one rounding.
func (p *RoCCParams) piDecrement(e1, e2 int64, s uint) int64 {
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
	return roccRoundShift(n, sh)
}

// roccRoundShift returns n/2^sh rounded to nearest, ties away from zero:
// sign(n)·⌊(|n| + 2^(sh−1)) / 2^sh⌋. It needs |n| < 2^62 and sh < 62.
//
// The sign is applied without a branch (a queue error's sign is data): with
// m = n >> 63 (0 or −1), |n| = (n ^ m) − m and sign(n)·x = (x ^ m) − m;
// half = 2^sh >> 1 is 2^(sh−1), or 0 for sh = 0 (n itself).
func roccRoundShift(n int64, sh uint) int64 {
	sh &= 63 // sh < 62: the mask only spares Go's shift-by-64 guards
	half := int64(1) << sh >> 1
	m := n >> 63
	r := ((n ^ m) - m + half) >> sh // ⌊(|n| + 2^(sh−1)) / 2^sh⌋
	return (r ^ m) - m
}

// RoCCDecision is what one update of the CP decides.
type RoCCDecision struct {
	// F is the new fair rate in ΔF units, ⌊F register / 2^k⌋: the CNP's
	// rate field.
	F uint32
	// Rate is F·ΔF.
	Rate units.Rate
	// Send is true when the flow table holds at least one flow: send a CNP
	// with F to each (ForEachFlow, AppendFlows, Feedback). Section III-B:
	// the CP sends the fair rate every T to the flows of its table.
	Send bool
	// Flows is the number of flows in the table.
	Flows int
	// Branch is the branch of Algorithm 1 taken.
	Branch RoCCBranch
}

// RoCCState is every register of a RoCC congestion point.
type RoCCState struct {
	// F is the fair-rate register (units of ΔF·2^−RateFracBits) and QOld
	// Qold (ΔQ units).
	F, QOld uint32
	// QCur is the last queue sample in ΔQ units.
	QCur uint32
	// Shift is AUTO_TUNE's gain shift for the current F (an update that
	// takes RoCCPIIdle uses shift 0 instead).
	Shift uint8
	// Branch is the branch the last update took.
	Branch RoCCBranch
	// Seq is the 8-bit update counter carried in CNPs (Listing 1's counter),
	// wrapping mod 256.
	Seq uint8
	// Deadline is the next update time and Last the time of the latest
	// event (the cc.Monotonic register).
	Deadline, Last units.Time
	// Updates counts updates, Missed the timer ticks skipped by late calls,
	// Saturated the queue samples that saturated the Qcur register;
	// FlowOverflows the packets of flows the table could not hold (queue
	// table: packets of new flows not entered; aged table: flows evicted to
	// make room). 64-bit counters, wrapping.
	Updates, Missed, Saturated, FlowOverflows uint64
	// Flows is the number of flows in the table.
	Flows int
}

// RoCC is the congestion point of one egress queue: the fair-rate
// calculator of [RoCC] §III-B (Algorithm 1, "Fair Rate
// Computation at the CP"), with the flow table of section III-D
// (RoCCQueueFlows or RoCCAgedFlows), the CNP of section III-C
// (RoCCFeedback) and, for a host that computes the rate itself (section
// III-F), the report of RoCCHost. It implements cc.CongestionPoint and
// keeps its typed methods (OnEnqueue, OnDequeue, OnTimer) for firmware
// models; both share one code path. It is not safe for concurrent use.
// Build one with NewRoCC.
//
// # Registers and units
//
// Queue values are counts of ΔQ bytes and rates counts of ΔF bit/s
// (section III-B, Table II). Every register is unsigned:
//
//	Qcur, Qold, Qref, Qmid, Qmax  QueueBits (≤ 16) wide, ΔQ units.
//	                              Qcur saturates at 2^QueueBits − 1 (a gauge),
//	                              which is ≥ Qmax, so a saturated queue still
//	                              triggers line 2's decrease.
//	F, Fmin, Fmax                 RateBits + RateFracBits (≤ 32) wide, in
//	                              units of ΔF·2^−RateFracBits: RateBits integer
//	                              bits (the CNP's 16-bit rate field holds
//	                              ⌊F⌋) and RateFracBits fraction bits. The
//	                              paper's simulator keeps F in "fixed point
//	                              precision" (section VI) without saying how
//	                              much; the presets use 8 fraction bits (the
//	                              authors' OMNeT++ model keeps whole ΔF:
//	                              RateFracBits = 0). F is clamped to
//	                              [Fmin, Fmax] on every update (saturate;
//	                              lines 9–12). It starts at Fmax (InitialF;
//	                              that model starts at 0).
//	ᾱ, β̄                          CSD shift-add constants with GainFracBits
//	                              fraction bits (fixedpoint.CSD); the exact
//	                              error of each is in Params().
//
// The intermediate PI sum is a signed 64-bit value: |Qcur − Qref| and
// |Qcur − Qold| are below 2^16, scaled by 2^GainFracBits ≤ 2^24 and
// multiplied by gains below 2^8, each product is below 2^48 and the sum
// below 2^49, so nothing overflows.
//
// # Line 8, sign and rounding
//
// In real numbers, with s = log2(ratio) from AUTO_TUNE:
//
//	F ← F − (ᾱ·(Qcur − Qref) + β̄·(Qcur − Qold)) / 2^s
//
// A queue above Qref or growing lowers F; below Qref or shrinking raises it.
// The integer form computes the sum exactly and rounds once:
//
//	N  = CSDα(e1·2^g) + CSDβ(e2·2^g)       = (v_α·e1 + v_β·e2)·2^g exactly
//	ΔF = round(N / 2^(g + s − k))           in units of ΔF·2^−k
//	F  ← F − ΔF
//
// with e1 = Qcur − Qref, e2 = Qcur − Qold, g = GainFracBits, k =
// RateFracBits, and v_α, v_β the CSD values of ᾱ, β̄ (every term's shift is
// at most g, so shifting e·2^g right by it drops nothing: the CSD sum is
// exact). round is to nearest with ties away from zero, an odd function:
// queue errors +e and −e move F by exactly opposite amounts, so the rounding
// pushes F neither up nor down on average. With Rounding = RoCCRoundFloor,
// round is ⌈·⌉ instead, so that F ← ⌊F − N/2^(g + s − k)⌋: the authors'
// OMNeT++ model, which assigns the real-valued F to an int.
//
// # Tracking bound
//
// Take one update from the same (F, Qold, Qcur) in the integer machine and
// in a real-valued Algorithm 1 with the exact ᾱ and β̄ (the test files'
// reference model). Both take the same branch and region (every comparison
// is exact; see hwtables.RoCCAutoTune), and in ΔF units
//
//	|F'int − F'real| ≤ 2^−(k+1) + (|ᾱ − v_α|·|e1| + |β̄ − v_β|·|e2|) / 2^s
//
// on line 8 (one rounding, plus the CSD constants' errors), 2^−(k+1) on
// line 5 (⌊F/2⌋ drops at most half a unit of the register) and 0 on line 3;
// the clamp of lines 9–12 is 1-Lipschitz and keeps the bound. With
// Rounding = RoCCRoundFloor line 8's rounding errs by up to 2^−k (a whole
// register unit, always downward) instead of 2^−(k+1). With the
// presets (k = 8, g = 16, 8 terms) the CSD errors are below 2^−17, so for
// queue errors up to 1000 ΔQ the bound is below 0.01 ΔF per update.
// Over n updates that take the same branches and regions, line 8 and the
// clamp are 1-Lipschitz in F and line 5 halves the difference, so the
// per-update bounds add up (RoCCParams.StepErrorBound).
//
// # The idle-queue gain (IdleGain, an option, off by default)
//
// Algorithm 1's integral term is slew-limited from below: while the queue
// is empty line 8 adds α·Qref per update and no more, with α = ᾱ/ratio,
// ratio 32 below Fmax/32 and halving with each doubling of F. At 40 Gb/s
// (ᾱ = 0.3, Qref = 250 ΔQ) that is 2.3 ΔF per 40 µs at the bottom, and the
// climb from Fmin to C/2 takes 155 updates, 6.2 ms, after line 3 has reset
// F to Fmin (harness/algos TestRoCCFairnessFig8 measures and models it).
// The authors' public simulator runs this law as printed, with F starting
// at 0 (github.com/danushkam/rocc, rocc/.../SwitchEtherQueue.cc).
//
// IdleGain borrows one rule from a different controller of the same
// authors: the one their DPDK switch runs (dpdk/switch/runtime.c,
// get_stable_rate) and an earlier law left, not called, in the OMNeT++
// switch (getFairRateForAlgo1). That controller differs otherwise (a
// continuous gain F/(C/2) clamped to [1/64, 1] instead of AUTO_TUNE's
// regions, gains per byte, the mean of the last two queue samples in
// place of Qold, other MD tests); its rule here is that the gain is the
// largest whenever the queue and the mean of the last two samples are
// both below Qref/8. In ΔQ units, with shifts:
//
//	qidle = ⌊Qref/8⌋                                 (Qref >> 3)
//	idle  = Qcur < qidle AND ⌊(Qcur + Qold)/2⌋ < qidle
//	7:  α, β ← idle ? (ᾱ, β̄) : AUTO_TUNE()          (shift 0 when idle)
//
// (the DPDK code compares bytes: there Qref/8 is 18.75 KB at the 40 Gb/s
// preset's Qref, here ⌊250/8⌋ = 31 ΔQ = 18.6 KB). NewRoCCParams rejects
// IdleGain with Qref below 8 ΔQ, where qidle would be 0 and the rule could
// never apply.
//
// Only line 8 changes: an idle queue is below Qref/8 < Qmax, and its growth
// Qcur − Qold ≤ Qcur < Qref < Qmid, so lines 2 and 4 never apply to it. An
// idle update reports the branch RoCCPIIdle. In real numbers, with the CSD
// values v_α, v_β of the gains and v_β < 7·v_α (both presets: β̄ = 5ᾱ),
// line 8's increment on an idle queue is v_α·(Qref − Qcur) − v_β·(Qcur −
// Qold) > v_α·7Qref/8 − v_β·Qref/8 > 0, so the update raises F, and by at
// least as much as the printed algorithm (which divides the same increment
// by its ratio ≥ 1). In the integer machine "at least as much" holds
// exactly (the one rounding is monotone in the shift); "raises" holds
// unless F is at Fmax or, with RateFracBits = 0 and tiny gains, the
// increment rounds to 0. With v_β > 7·v_α an idle update can lower F
// (TestRoCCIdleGainSign). The tracking bound above holds with s = 0.
//
// At equilibrium the queue sits at Qref, far above Qref/8, so the rule
// changes no steady state. It does change transients: it ignores
// AUTO_TUNE's estimate of N, so after a step that empties the queue F can
// overshoot (harness Fig. 9, 100 → 50 flows: F reaches 103 ΔF against a
// target of 80, the queue 269 KB against 174 KB without the rule). With it
// the paper's "~2 ms" convergence of Fig. 8 and Fig. 9 reproduces (the
// harness scenarios' param.idle_gain=on); it is not evidence that the
// paper's figures were made with it.
//
// # Timer
//
// The update runs every Period at Start, Start + Period, … (a hardware
// timer with a fixed phase). The caller calls OnTimer(now, qlen) or
// Timer(now, act) at NextDeadline or later; a late call runs one update
// with the queue it has and skips the missed ticks (counted in
// State().Missed), since a queue sample cannot be taken in the past.
// OnTimer before the deadline is refused (*cc.EventError); Timer before it
// only records now, as the contract asks.
//
// # The contract (cc.CongestionPoint)
//
// Enqueue and Dequeue feed the flow table with p.Flow and p.Size, as
// OnEnqueue and OnDequeue do, and record q: the CP's view of its queue is
// the Queue of its latest Enqueue or Dequeue, and Timer samples q.Len from
// it, as a switch's timer reads its queue-depth register. Timer runs
// Algorithm 1 when due and appends one cc.ActionFeedback per flow of the
// table (after the aged table's expiry), in slot order: ToSource at
// cc.ControlPrio, a cc.FeedbackRate message with From = the CP's identity
// (Switch·2^16 + Port, RoCCFeedback.CP) and Data = the 16-byte RoCC CNP of
// RoCCConfig.Message (a rate, or a report for RoCCHost). It reserves those
// actions before it changes a register, so a full cc.Actions refuses the
// update and changes nothing. Enqueue and Dequeue append nothing: the CP
// never marks or drops a packet (RoCC has no ECN and no INT), and a
// deadline the caller lets pass stays where it is until Timer runs, which
// then makes one late update on the queue view it has then.
//
// Errors: *cc.TimeOrderError for an event before the latest one (or before
// time 0), *cc.EventError for a nil packet, a negative size or queue
// length, a dequeue the flow table can prove was never queued, or OnTimer
// before its deadline, and *cc.ActionsFullError; an event that fails
// changes nothing.
type RoCC struct {
	p      RoCCParams
	regs   RoCCRegs
	state  RoCCState
	clock  cc.Monotonic
	queue  *RoCCQueueFlows // FlowTable == RoCCQueueTable
	aged   *RoCCAgedFlows  // FlowTable == RoCCAgedTable
	branch RoCCBranch
	prevF  uint32      // F before the last update, for Report
	qlen   units.Bytes // the queue's length at the latest Enqueue or Dequeue (the contract's view)
	id     uint64      // Switch·2^16 + Port, RoCCFeedback.CP
	fbits  uint8       // width of the flow-occupancy register
}

var _ cc.CongestionPoint = (*RoCC)(nil)

// NewRoCC validates cfg and returns a congestion point with F as
// cfg.InitialF says (Fmax by default), Qold = 0 and its first update due at
// cfg.Start. Event times start at 0: an event before time 0 is refused like
// any event before the previous one. The error is a *cc.ConfigError naming
// the field.
func NewRoCC(cfg RoCCConfig) (*RoCC, error) {
	p, err := NewRoCCParams(cfg)
	if err != nil {
		return nil, err
	}
	c := &RoCC{p: *p}
	c.regs = c.p.InitialRegs()
	c.prevF = c.regs.F
	switch cfg.FlowTable {
	case RoCCQueueTable:
		c.queue, err = NewRoCCQueueFlows(cfg.FlowCapacity)
	case RoCCAgedTable:
		c.aged, err = NewRoCCAgedFlows(cfg.FlowCapacity, cfg.FlowMaxAge)
	}
	if err != nil {
		return nil, err
	}
	c.id = RoCCFeedback{Switch: cfg.Switch, Port: cfg.Port}.CP()
	c.fbits = c.flowMap().occupancyBits()
	c.state.Deadline = cfg.Start
	c.state.Flows = c.flowLen()
	return c, nil
}

// Params returns the CP's parameters (the registry a host can use to
// compute the same rates, section III-F).
func (c *RoCC) Params() *RoCCParams { return &c.p }

// NextDeadline returns when the next update is due.
func (c *RoCC) NextDeadline() units.Time { return c.state.Deadline }

// F returns the current fair rate in ΔF units.
func (c *RoCC) F() uint32 { return c.p.RateUnits(c.regs.F) }

// Rate returns the current fair rate, F·ΔF.
func (c *RoCC) Rate() units.Rate { return c.p.Rate(c.regs.F) }

// Regs returns the registers of Algorithm 1.
func (c *RoCC) Regs() RoCCRegs { return c.regs }

// State returns every register.
func (c *RoCC) State() RoCCState {
	s := c.state
	s.Last = c.clock.Last()
	// The registers Algorithm 1 carries, and what follows from them: read
	// here rather than copied on every update.
	s.F, s.QOld = c.regs.F, c.regs.QOld
	s.Shift = uint8(c.p.Shift(c.regs.F))
	s.Branch = c.branch
	return s
}

// Queue returns the CP's view of its queue's length: the cc.Queue.Len of
// its latest Enqueue or Dequeue (0 before any), which Timer samples.
func (c *RoCC) Queue() units.Bytes { return c.qlen }

// Flows returns the queue table, or nil when the CP has the aged table.
func (c *RoCC) Flows() *RoCCQueueFlows { return c.queue }

// AgedFlows returns the aged table, or nil when the CP has the queue table.
func (c *RoCC) AgedFlows() *RoCCAgedFlows { return c.aged }

func (c *RoCC) flowMap() *roccFlowMap {
	if c.queue != nil {
		return &c.queue.m
	}
	return &c.aged.m
}

func (c *RoCC) flowLen() int { return c.flowMap().n }

// liveFlows returns the number of flows the table holds after an update at
// now: the aged table expires old flows first.
func (c *RoCC) liveFlows(now units.Time) int {
	if c.aged != nil {
		return c.aged.Live(now)
	}
	return c.queue.Len()
}

// roccEvent returns the *cc.EventError of event for reason.
func roccEvent(event, reason string) error {
	return &cc.EventError{Part: roccCPPart, Event: event, Reason: reason}
}

// OnTimer runs the update due at NextDeadline (Algorithm 1) with the queue
// length qlen sampled now, and returns the decision; the caller sends it
// (Feedback or Report for each flow of AppendFlows). now must be at or
// after NextDeadline; a late call runs one update and skips the ticks it
// missed. It returns an error, changing nothing: a *cc.TimeOrderError for a
// call before the previous event, a *cc.EventError for a call before the
// deadline or a negative qlen. It is the one path of the update: Timer
// calls it with the CP's queue view.
func (c *RoCC) OnTimer(now units.Time, qlen units.Bytes) (RoCCDecision, error) {
	if !c.clock.InOrder(now) || now < c.state.Deadline || qlen < 0 {
		return RoCCDecision{}, c.refuseTimer(now, qlen)
	}
	// Next tick: the first Start + i·T after now; the ticks in between were
	// missed. On time (now − deadline < T, the usual case) nothing was
	// missed and nothing is divided.
	step := c.p.cfg.Period
	if late := now - c.state.Deadline; late >= step {
		missed := late / step
		c.state.Missed += uint64(missed)
		step = fixedpoint.SatMul(missed+1, step)
	}
	c.state.Deadline = fixedpoint.SatAddNonNeg(c.state.Deadline, step)

	// qcur = QueueUnits(qlen), its multiply path inline (qlen ≥ 0 here):
	// QueueUnits is over the inlining budget, and its call would cost more
	// than the multiply (TestRoCCOnTimerQueueUnits compares the two).
	var qcur uint32
	if v := uint64(qlen); v < c.p.qlim && c.p.qrecip != 0 {
		hi, _ := bits.Mul64(v, c.p.qrecip)
		qcur = uint32(hi)
	} else {
		var sat bool
		if qcur, sat = c.p.QueueUnits(qlen); sat {
			c.state.Saturated++
		}
	}
	c.state.QCur = qcur
	c.prevF = c.regs.F
	c.regs, c.branch = RoCCStep(&c.p, c.regs, qcur)
	c.state.Seq++ // 8-bit, wraps
	c.state.Updates++
	if c.aged != nil {
		c.aged.Expire(now)
	}
	c.state.Flows = c.flowLen()
	c.clock.Advance(now)
	f := c.p.RateUnits(c.regs.F)
	return RoCCDecision{
		F:      f,
		Rate:   units.Rate(f) * c.p.cfg.DeltaF,
		Send:   c.state.Flows > 0,
		Flows:  c.state.Flows,
		Branch: c.branch,
	}, nil
}

// refuseTimer returns OnTimer's error for a call at now with qlen that
// fails a check: the time order first, then the deadline, then qlen. It
// is out of line so that the update path builds no error.
//
//go:noinline
func (c *RoCC) refuseTimer(now units.Time, qlen units.Bytes) error {
	const ev = "OnTimer"
	if err := c.clock.Check(roccCPPart, ev, now); err != nil {
		return err
	}
	if now < c.state.Deadline {
		return roccEvent(ev, "update at "+now.String()+" is before "+c.state.Deadline.String()+", its deadline")
	}
	return roccEvent(ev, "queue length = "+qlen.String()+", want ≥ 0")
}

// Timer runs the update due at NextDeadline on the CP's view of its queue
// (the Queue of its latest Enqueue or Dequeue) and appends the CP's message
// to every flow of its table (see "The contract" on RoCC). Before the
// deadline it only records now.
func (c *RoCC) Timer(now units.Time, act *cc.Actions) error {
	const ev = "Timer"
	if !c.clock.InOrder(now) {
		return c.clock.Check(roccCPPart, ev, now)
	}
	if now < c.state.Deadline {
		c.clock.Advance(now)
		return nil
	}
	// The update sends to every flow of the table: reserve first.
	if err := act.Reserve(roccCPPart, ev, c.liveFlows(now)); err != nil { // a nil act holds nothing
		return err
	}
	// OnTimer cannot fail here: time and deadline are checked, and the
	// queue view is ≥ 0 (Enqueue and Dequeue refuse a negative one).
	if d, _ := c.OnTimer(now, c.qlen); d.Send {
		c.sendAll(act)
	}
	return nil
}

// sendAll appends the CP's message (Message) for every flow of the table,
// in slot order, to act, which has room. The messages of one update differ
// only in their flow, so the message is encoded once and each flow writes
// its identifier into it (the flow field, bytes 12–15); the table's valid
// bits are walked word by word (see roccFlowMap), so the cost follows the
// flows the table holds.
func (c *RoCC) sendAll(act *cc.Actions) {
	// act.Send(cc.ToSource, cc.ControlPrio, f) for each flow's f: the
	// message with flow 0 is built once and appended as it is, then the
	// appended copy gets its flow (a copy made from a template the loop
	// does not write, so that no wide load of the copy waits on the narrow
	// stores of the flow fields).
	x := cc.Action{Kind: cc.ActionFeedback, To: cc.ToSource, Prio: cc.ControlPrio,
		Feedback: cc.Feedback{Kind: cc.FeedbackRate, From: c.id}}
	c.Message(0).Put(&x.Feedback.Data)
	m := c.flowMap()
	for t, tw := range m.top {
		for ; tw != 0; tw &= tw - 1 {
			w := t<<6 + bits.TrailingZeros64(tw)
			for b := m.occ[w]; b != 0; b &= b - 1 {
				flow := m.slots[w<<6+bits.TrailingZeros64(b)].key
				act.Add(x)
				all := act.All()
				f := &all[len(all)-1].Feedback
				f.Flow = cc.FlowID(flow)
				binary.BigEndian.PutUint32(f.Data[roccFbFlow:], flow)
			}
		}
	}
}

// Message returns the CNP the CP sends flow at an update, as
// RoCCConfig.Message selects: Feedback(flow), Report(flow, false) or
// Report(flow, true).
func (c *RoCC) Message(flow uint32) RoCCFeedback {
	switch c.p.cfg.Message {
	case RoCCSendReport:
		return c.Report(flow, false)
	case RoCCSendReportF:
		return c.Report(flow, true)
	}
	return c.Feedback(flow)
}

// roccRelabel returns the queue table's refusal err as the CP's event's:
// the same reason, Part cp.RoCC.
func roccRelabel(event string, err error) error {
	var e *cc.EventError
	if errors.As(err, &e) {
		return roccEvent(event, e.Reason)
	}
	return err
}

// enqueue is the one path of OnEnqueue and Enqueue after the time check:
// it returns an error (changing nothing) or records the packet at now.
func (c *RoCC) enqueue(event string, now units.Time, flow uint32, size units.Bytes) error {
	var full bool
	if c.queue != nil {
		var err error
		if full, err = c.queue.Enqueue(flow, size); err != nil {
			return roccRelabel(event, err)
		}
	} else {
		if size < 0 {
			return roccEvent(event, "enqueue of "+size.String()+", want ≥ 0")
		}
		full = c.aged.Touch(now, flow) // evicted the least recently seen flow
	}
	if full {
		c.state.FlowOverflows++
	}
	c.state.Flows = c.flowLen()
	c.clock.Advance(now)
	return nil
}

// dequeue is the one path of OnDequeue and Dequeue after the time check:
// it returns an error (changing nothing) or records the packet at now.
func (c *RoCC) dequeue(event string, now units.Time, flow uint32, size units.Bytes) error {
	if c.queue != nil {
		if err := c.queue.Dequeue(flow, size); err != nil {
			return roccRelabel(event, err)
		}
	} else if size < 0 {
		return roccEvent(event, "dequeue of "+size.String()+", want ≥ 0")
	}
	c.state.Flows = c.flowLen()
	c.clock.Advance(now)
	return nil
}

// OnEnqueue records a packet of size bytes of flow joining the tail of the
// queue: the queue table adds its bytes, the aged table marks the flow seen
// at now. A flow the table cannot hold is counted in State().FlowOverflows
// and gets no feedback (RoCCQueueFlows says what happens then); that is not
// an error. It returns an error, changing nothing: a *cc.TimeOrderError for
// an event before the previous one, a *cc.EventError for a negative size or
// a flow count that would pass 2^32 − 1 bytes.
func (c *RoCC) OnEnqueue(now units.Time, flow uint32, size units.Bytes) error {
	const ev = "OnEnqueue"
	if err := c.clock.Check(roccCPPart, ev, now); err != nil {
		return err
	}
	return c.enqueue(ev, now, flow, size)
}

// OnDequeue records the packet at the head of the queue, size bytes of
// flow, leaving it; the caller reports dequeues in FIFO order. The queue
// table subtracts the bytes it counted for the packet and drops the flow at
// zero (RoCCQueueFlows.Dequeue); the aged table ignores dequeues. It
// returns an error, changing nothing: a *cc.TimeOrderError for an event
// before the previous one, a *cc.EventError for a negative size or a
// dequeue the queue table can prove was never queued.
func (c *RoCC) OnDequeue(now units.Time, flow uint32, size units.Bytes) error {
	const ev = "OnDequeue"
	if err := c.clock.Check(roccCPPart, ev, now); err != nil {
		return err
	}
	return c.dequeue(ev, now, flow, size)
}

// checkPacket returns the error of a contract Enqueue or Dequeue with a nil
// packet or a negative queue length, or nil.
func roccCheckPacket(event string, p *cc.Packet, q cc.Queue) error {
	if p == nil {
		return roccEvent(event, "nil packet")
	}
	if q.Len < 0 {
		return roccEvent(event, "queue length = "+q.Len.String()+", want ≥ 0")
	}
	return nil
}

// Enqueue is OnEnqueue(now, p.Flow, p.Size) through the contract; it also
// records q as the CP's view of its queue (see "The contract" on RoCC). It
// appends no action.
func (c *RoCC) Enqueue(now units.Time, p *cc.Packet, q cc.Queue, _ *cc.Actions) error {
	const ev = "Enqueue"
	if err := c.clock.Check(roccCPPart, ev, now); err != nil {
		return err
	}
	if err := roccCheckPacket(ev, p, q); err != nil {
		return err
	}
	if err := c.enqueue(ev, now, uint32(p.Flow), p.Size); err != nil {
		return err
	}
	c.qlen = q.Len
	return nil
}

// Dequeue is OnDequeue(now, p.Flow, p.Size) through the contract; it also
// records q as the CP's view of its queue. It appends no action.
func (c *RoCC) Dequeue(now units.Time, p *cc.Packet, q cc.Queue, _ *cc.Actions) error {
	const ev = "Dequeue"
	if err := c.clock.Check(roccCPPart, ev, now); err != nil {
		return err
	}
	if err := roccCheckPacket(ev, p, q); err != nil {
		return err
	}
	if err := c.dequeue(ev, now, uint32(p.Flow), p.Size); err != nil {
		return err
	}
	c.qlen = q.Len
	return nil
}

// AppendRegisters appends the CP's registers to dst, in this order: now;
// Algorithm 1's f and f_prev (RateBits + RateFracBits wide), qold and qcur
// (QueueBits), shift (3 bits: AUTO_TUNE's 0..5), branch (2), seq (8),
// deadline; the 64-bit counters updates, missed, saturated and
// flow_overflows; the flow table's occupancy flows (wide enough for
// FlowCapacity), untracked_bytes, enq_pos and deq_pos (the queue table's
// 64-bit byte counters; 0 with the aged table) and evictions (aged table;
// 0 with the queue table); and qlen, the queue view Timer samples.
func (c *RoCC) AppendRegisters(dst []cc.Register) []cc.Register {
	fw := uint8(c.p.cfg.RateBits + c.p.k)
	qw := uint8(c.p.cfg.QueueBits)
	var untracked, enq, deq, evictions uint64
	if c.queue != nil {
		untracked, enq, deq = c.queue.untracked, c.queue.enq, c.queue.deq
	} else {
		evictions = c.aged.evictions
	}
	return append(dst,
		c.clock.Register(),
		cc.Reg("f", fw, uint64(c.regs.F)),
		cc.Reg("f_prev", fw, uint64(c.prevF)),
		cc.Reg("qold", qw, uint64(c.regs.QOld)),
		cc.Reg("qcur", qw, uint64(c.state.QCur)),
		cc.Reg("shift", 3, uint64(c.p.Shift(c.regs.F))),
		cc.Reg("branch", 2, uint64(c.branch)),
		cc.Reg("seq", 8, uint64(c.state.Seq)),
		cc.TimeReg("deadline", c.state.Deadline),
		cc.Reg("updates", 64, c.state.Updates),
		cc.Reg("missed", 64, c.state.Missed),
		cc.Reg("saturated", 64, c.state.Saturated),
		cc.Reg("flow_overflows", 64, c.state.FlowOverflows),
		cc.Reg("flows", c.fbits, uint64(c.flowLen())),
		cc.Reg("untracked_bytes", 64, untracked),
		cc.Reg("enq_pos", 64, enq),
		cc.Reg("deq_pos", 64, deq),
		cc.Reg("evictions", 64, evictions),
		cc.BytesReg("qlen", c.qlen),
	)
}

// ForEachFlow calls fn for every flow in the table, in slot order: a
// deterministic order that depends only on the sequence of table updates.
// fn must not call OnEnqueue, OnDequeue or OnTimer.
func (c *RoCC) ForEachFlow(fn func(flow uint32)) {
	m := c.flowMap()
	for i := m.next(0); i < len(m.slots); i = m.next(i + 1) {
		fn(m.slots[i].key)
	}
}

// AppendFlows appends the flows in the table to dst in ForEachFlow's order.
// With cap(dst) ≥ FlowCapacity it does not allocate.
func (c *RoCC) AppendFlows(dst []uint32) []uint32 { return c.flowMap().appendFlows(dst) }

// Feedback returns the CNP for flow carrying the current fair rate (type
// RoCCRate): F in ΔF units, Qcur (saturated to 16 bits), the update
// counter and the CP's identity.
func (c *RoCC) Feedback(flow uint32) RoCCFeedback {
	return RoCCFeedback{
		Type:   RoCCRateFeedback,
		Seq:    c.state.Seq,
		Port:   c.p.cfg.Port,
		Switch: c.p.cfg.Switch,
		Rate:   uint16(c.p.RateUnits(c.regs.F)),
		QDepth: uint16(c.state.QCur),
		Flow:   flow,
	}
}

// Report returns the CNP of section III-F (type RoCCReportFeedback) for
// flow, for a host that computes the rate itself (RoCCHost): Qcur of the
// last update and the update counter, as the P4 CNP of Listing 1 carries
// them, and in the rate field the whole ΔF of F as it was before that update
// (section III-F's approach 2, "CP only provides Qcur and F"), or 0 with
// withF false (Listing 1 carries no F; the host keeps its own).
func (c *RoCC) Report(flow uint32, withF bool) RoCCFeedback {
	fb := c.Feedback(flow)
	fb.Type = RoCCReportFeedback
	fb.Rate = 0
	if withF {
		fb.Rate = uint16(c.p.RateUnits(c.prevF))
	}
	return fb
}
