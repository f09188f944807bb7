package rp

import (
	"math"
	"strconv"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/fixedpoint"
	"github.com/hwcc/hwcc/units"
)

// dcqcnPart names the DCQCN reaction point in errors.
const dcqcnPart = "rp.DCQCN"

// The ranges, widths and units of DCQCNConfig's fields, stated once:
// Validate, the registry (package algos) and the docs read them from here.
const (
	// DCQCNRateMax is the largest value of the RC and RT registers, in
	// RateUnit: they are 32 bits wide.
	DCQCNRateMax = math.MaxUint32
	// DCQCNByteResetUnit is the unit of the vendor's rpg_byte_reset
	// field: 64 B.
	DCQCNByteResetUnit = 64 * units.Byte
	// DCQCNMaxByteReset is the largest RpgByteReset: the vendor's field
	// is 32 bits of DCQCNByteResetUnit.
	DCQCNMaxByteReset = math.MaxUint32 * DCQCNByteResetUnit
	// DCQCNMaxPeriod is the longest timer period accepted.
	DCQCNMaxPeriod = units.Second
	// DCQCNMaxGd is the largest rpg_gd, a shift (Range: 0..DCQCNMaxGd).
	DCQCNMaxGd = 31
	// DCQCNMaxMinDecFac is the largest rpg_min_dec_fac, in percent (Range:
	// 0..DCQCNMaxMinDecFac).
	DCQCNMaxMinDecFac = 100
	// DCQCNQ10Unit is the unit of the vendor's α parameters (dce_tcp_g,
	// initial_alpha_value), 0..fixedpoint.UQ0_10Max, as the registry and
	// errors name it.
	DCQCNQ10Unit = "Q10, 1024 = 1.0"
)

// DCQCNMaxSendBytes is the largest payload one Sent counts: 64 KiB, above
// any RoCE packet or segment. It bounds the work one Sent does on the byte
// counter.
const DCQCNMaxSendBytes = 64 * units.KiB

// The range and the presets' value of DCQCNConfig.AlphaFracBits, the width
// of the α register.
const (
	// DCQCNAlphaFracBitsMin: a pure Q10 register, the vendor parameters'
	// own format.
	DCQCNAlphaFracBitsMin = fixedpoint.UQ0_10Frac
	// DCQCNAlphaFracBitsMax: α·dce_tcp_g stays below 2^34 and RC·α below
	// 2^56, far inside the 64-bit products.
	DCQCNAlphaFracBitsMax = 24
	// DCQCNAlphaFracBitsDefault is the presets' width: the floor errors of
	// α's update add up to less than 0.2/1024 at dce_tcp_g = 1019 (see the
	// type's doc), a fifth of the Q10 parameters' own resolution.
	DCQCNAlphaFracBitsDefault = 20
)

const (
	// dcqcnPercent is the scale of rpg_min_dec_fac.
	dcqcnPercent = DCQCNMaxMinDecFac
	// dcqcnAlphaOne is 1.0 in Q10, the format of the vendor's α parameters
	// (the scale of dce_tcp_g; 1.0 itself is not a value of α).
	dcqcnAlphaOne = 1 << fixedpoint.UQ0_10Frac
	// dcqcnGShift: α·dce_tcp_g >> 10 is α·dce_tcp_g/1024.
	dcqcnGShift = fixedpoint.UQ0_10Frac
)

// DCQCNRateReduceMode is how rate_reduce_monitor_period schedules rate
// decreases (see DCQCN's doc, "Timers" and "Choices", for the sources and
// a worked burst).
type DCQCNRateReduceMode uint8

const (
	// DCQCNReduceSpacing (the zero value and the default): the period is
	// the minimum time between two decreases. A CNP at least a period
	// after the last decrease cuts at once; an earlier one makes one cut
	// pending for a period after the last decrease.
	DCQCNReduceSpacing DCQCNRateReduceMode = iota
	// DCQCNReduceGrid: decreases fall on the grid first CNP + k·period
	// (k ≥ 1), one cut at a grid point if a CNP arrived since the previous
	// one, as the HPCC authors' ns-3 simulator does.
	DCQCNReduceGrid
)

// String returns "spacing" or "grid".
func (m DCQCNRateReduceMode) String() string {
	switch m {
	case DCQCNReduceSpacing:
		return "spacing"
	case DCQCNReduceGrid:
		return "grid"
	}
	return "DCQCNRateReduceMode(" + strconv.Itoa(int(m)) + ")"
}

// DCQCNConfig configures a DCQCN reaction point. Each field names the NVIDIA
// ConnectX parameter it is ([ConnectX]; docs/derivations.md lists them);
// vendor units are stated,
// but every rate here is a units.Rate (bit/s) and every time a units.Time
// (picoseconds).
type DCQCNConfig struct {
	// PortRate is the port speed: the maximum rate when RpgMaxRate is 0.
	// Range: a positive multiple of RateUnit, at most DCQCNRateMax units.
	PortRate units.Rate
	// RateUnit is the least significant bit of the RC and RT registers.
	// ConnectX counts Mb/s (its rate parameters are in Mb/s). Every rate
	// below must be a multiple of it. Range: ≥ 1 bit/s.
	RateUnit units.Rate

	// DceTCPG is dce_tcp_g, α's retention per period in Q10: α ←
	// g·α/1024 (+ 1024 − g with a CNP in the period). The paper's gain is
	// 1 − g/1024. Vendor default 1019. Range: 0..fixedpoint.UQ0_10Max
	// (1023), DCQCNQ10Unit.
	DceTCPG fixedpoint.UQ0_10
	// DceTCPRtt is dce_tcp_rtt, the α update period (vendor unit µs,
	// default 1). Range: (0, DCQCNMaxPeriod].
	DceTCPRtt units.Time
	// InitialAlphaValue is initial_alpha_value, α on the first CNP, Q10
	// (vendor default 1023). Range: 0..fixedpoint.UQ0_10Max (1023),
	// DCQCNQ10Unit.
	InitialAlphaValue fixedpoint.UQ0_10
	// RateToSetOnFirstCNP is rate_to_set_on_first_cnp (vendor unit Mb/s,
	// default 0): the rate and target the first CNP sets; 0 keeps the
	// current rate and decreases it as any CNP would. Range: 0 or
	// RpgMinRate..max rate, a multiple of RateUnit.
	RateToSetOnFirstCNP units.Rate
	// RpgGd is rpg_gd: a decrease cuts RC·α >> rpg_gd (α in Q10, so 11 is
	// α/2; vendor default 11; with the wider register, RC·α >> (rpg_gd +
	// AlphaFracBits − 10)). Range: 0..DCQCNMaxGd (31).
	RpgGd uint8
	// AlphaFracBits is the width of the NIC's α register: α is an unsigned
	// fraction of AlphaFracBits bits (raw 0..2^AlphaFracBits − 1). The
	// vendor parameters dce_tcp_g and initial_alpha_value are Q10 values,
	// scaled by 2^(AlphaFracBits − 10) into it; 10 reproduces a pure Q10
	// register, whose floor makes α fall a whole 1/1024 per period once
	// α < 1024/(1024 − dce_tcp_g) (see the type's doc). The vendor does not
	// document the register's width; no preset source gives one. Range:
	// DCQCNAlphaFracBitsMin..DCQCNAlphaFracBitsMax (10..24); presets
	// DCQCNAlphaFracBitsDefault (20).
	AlphaFracBits uint8
	// RpgMinDecFac is rpg_min_dec_fac, in percent (vendor default 50): one
	// decrease leaves at least RC·rpg_min_dec_fac/100 (the cut is at most
	// RC·(100 − rpg_min_dec_fac)/100). 0 bounds nothing. Range:
	// 0..DCQCNMaxMinDecFac (100).
	RpgMinDecFac uint8
	// RpgMinRate is rpg_min_rate (vendor unit Mb/s, default 1): decreases
	// stop here. Range: RateUnit..max rate, a multiple of RateUnit.
	RpgMinRate units.Rate
	// RpgMaxRate is rpg_max_rate (vendor unit Mb/s, default 0 = port
	// speed): the ceiling of RC and RT. Range: 0 or RpgMinRate..PortRate, a
	// multiple of RateUnit.
	RpgMaxRate units.Rate
	// RateReduceMonitorPeriod is rate_reduce_monitor_period, "the time
	// period between rate reductions" (vendor unit µs, default 4): the
	// minimum time between two decreases, or the decreases' grid, as
	// RateReduceMode says. Range: 0..DCQCNMaxPeriod; 0 decreases on every
	// CNP.
	RateReduceMonitorPeriod units.Time
	// RateReduceMode is how RateReduceMonitorPeriod schedules decreases:
	// DCQCNReduceSpacing (the zero value; DCQCNConnectX, DCQCNPaper) or
	// DCQCNReduceGrid (DCQCNHPCCSim). Not a vendor parameter: it selects
	// between two readings of one (see DCQCN's doc).
	RateReduceMode DCQCNRateReduceMode
	// RpgTimeReset is rpg_time_reset, the increase timer's period (vendor
	// unit µs, default 300). Range: (0, DCQCNMaxPeriod].
	RpgTimeReset units.Time
	// RpgByteReset is rpg_byte_reset, the byte counter's threshold (vendor
	// unit 64 B, default 32767 = 2 097 088 B). 0 disables the byte
	// counter. Range: 0 or a multiple of DCQCNByteResetUnit (64 B) up to
	// DCQCNMaxByteReset ((2^32 − 1)·64 B).
	RpgByteReset units.Bytes
	// RpgThreshold is rpg_threshold, F, the number of fast-recovery stages
	// (vendor default 1; the paper's F = 5). Range: 0..255.
	RpgThreshold uint8
	// RpgAIRate is rpg_ai_rate, R_AI, the additive-increase step (vendor
	// unit Mb/s, default 5). Range: RateUnit..max rate, a multiple of
	// RateUnit.
	RpgAIRate units.Rate
	// RpgHAIRate is rpg_hai_rate, R_HAI, the hyper-increase step (vendor
	// unit Mb/s, default 50). Range as RpgAIRate.
	RpgHAIRate units.Rate
	// ClampTgtRate is clamp_tgt_rate (vendor default 0): every decrease sets
	// RT ← RC first.
	ClampTgtRate bool
	// ClampTgtRateAfterTimeInc is clamp_tgt_rate_after_time_inc (vendor
	// default 1): a decrease sets RT ← RC if the increase timer has expired
	// since the last decrease. (An expiry of the byte counter always does.)
	ClampTgtRateAfterTimeInc bool
}

// DCQCNConnectX returns the NVIDIA ConnectX defaults ([ConnectX], the
// mlxconfig parameters; docs/derivations.md) for a port of speed link:
// dce_tcp_g 1019, dce_tcp_rtt 1 µs, initial_alpha_value 1023,
// rate_to_set_on_first_cnp 0, rpg_gd 11, rpg_min_dec_fac 50 %, rpg_min_rate 1
// Mb/s, rpg_max_rate 0 (port speed), rate_reduce_monitor_period 4 µs,
// rpg_time_reset 300 µs, rpg_byte_reset 32767·64 B, rpg_threshold 1,
// rpg_ai_rate 5 Mb/s, rpg_hai_rate 50 Mb/s, clamp_tgt_rate 0,
// clamp_tgt_rate_after_time_inc 1, with the monitor period read as a spacing
// (DCQCNReduceSpacing, the vendor's "time period between rate reductions").
// Rates count 1 Mb/s, the NIC's unit, so link must be a whole number of Mb/s.
// The α register is DCQCNAlphaFracBitsDefault (20) bits wide: the vendor
// documents its parameters in Q10 but not the register's width.
func DCQCNConnectX(link units.Rate) DCQCNConfig {
	return DCQCNConfig{
		PortRate:                 link,
		RateUnit:                 units.Mbps,
		DceTCPG:                  1019,
		DceTCPRtt:                1 * units.Microsecond,
		InitialAlphaValue:        fixedpoint.UQ0_10Max,
		RateToSetOnFirstCNP:      0,
		RpgGd:                    11,
		AlphaFracBits:            DCQCNAlphaFracBitsDefault,
		RpgMinDecFac:             50,
		RpgMinRate:               1 * units.Mbps,
		RpgMaxRate:               0,
		RateReduceMonitorPeriod:  4 * units.Microsecond,
		RateReduceMode:           DCQCNReduceSpacing,
		RpgTimeReset:             300 * units.Microsecond,
		RpgByteReset:             32767 * DCQCNByteResetUnit,
		RpgThreshold:             1,
		RpgAIRate:                5 * units.Mbps,
		RpgHAIRate:               50 * units.Mbps,
		ClampTgtRate:             false,
		ClampTgtRateAfterTimeInc: true,
	}
}

// dcqcnPresetUnit is the rate unit of the paper-style presets: 1 Kb/s, fine
// enough for their link-scaled steps (R_AI at 1 Gb/s is 200 Kb/s).
const dcqcnPresetUnit = units.Kbps

// dcqcnScaleRate returns r·link/(25 Gb/s), the papers' scaling of R_AI and
// R_HAI, rounded down to dcqcnPresetUnit and at least one unit.
func dcqcnScaleRate(r, link units.Rate) units.Rate {
	const ref = 25 * units.Gbps
	// A quotient beyond the Rate range saturates (and fails validation later).
	q := fixedpoint.MulDivSat(uint64(r), uint64(max(link, 0)), uint64(ref))
	v := units.Rate(min(q, math.MaxInt64)) / dcqcnPresetUnit * dcqcnPresetUnit
	return max(v, dcqcnPresetUnit)
}

// DCQCNPaper returns the DCQCN paper's settings as the authors' simulators
// use them (docs/derivations.md, DCQCN presets) and [Survey] §4.1.2 states
// them: g = 1/256 (dce_tcp_g = 1024 − 4 = 1020), α updated
// every K = 55 µs, decrease at most every 50 µs (the NP's N), increase timer
// 55 µs, byte counter 10 MB (10^7 B), F = 5 fast-recovery stages, R_AI = 5
// Mb/s and R_HAI = 50 Mb/s scaled by link/25 Gb/s (rounded down to 1 Kb/s,
// at least 1 Kb/s), RT ← RC on every CNP (the paper's equation (5):
// clamp_tgt_rate = 1), initial α = 1 (1023 in Q10, the closest value), the
// first CNP halving the rate like any other (rate_to_set_on_first_cnp = 0),
// cut α/2 (rpg_gd = 11) with no other bound (rpg_min_dec_fac = 0). The
// sources give no minimum rate; this preset uses the vendor's 1 Mb/s. The
// paper's α is a real number; the preset keeps it in a
// DCQCNAlphaFracBitsDefault (20) bit register. Rates count 1 Kb/s; link
// must be a whole number of Kb/s.
func DCQCNPaper(link units.Rate) DCQCNConfig {
	return DCQCNConfig{
		PortRate:                 link,
		RateUnit:                 dcqcnPresetUnit,
		DceTCPG:                  dcqcnAlphaOne - dcqcnAlphaOne/256,
		DceTCPRtt:                55 * units.Microsecond,
		InitialAlphaValue:        fixedpoint.UQ0_10Max,
		RateToSetOnFirstCNP:      0,
		RpgGd:                    11,
		AlphaFracBits:            DCQCNAlphaFracBitsDefault,
		RpgMinDecFac:             0,
		RpgMinRate:               1 * units.Mbps,
		RpgMaxRate:               0,
		RateReduceMonitorPeriod:  50 * units.Microsecond,
		RateReduceMode:           DCQCNReduceSpacing,
		RpgTimeReset:             55 * units.Microsecond,
		RpgByteReset:             10 * units.MB,
		RpgThreshold:             5,
		RpgAIRate:                dcqcnScaleRate(5*units.Mbps, link),
		RpgHAIRate:               dcqcnScaleRate(50*units.Mbps, link),
		ClampTgtRate:             true,
		ClampTgtRateAfterTimeInc: true,
	}
}

// DCQCNHPCCSim returns the DCQCN settings of the HPCC paper's simulations.
// The paper ([HPCC] §5.1, "Parameters") says only "we use the parameters
// suggested by a major NIC vendor"; its §2.3 names the vendor's timers
// (increase 300 µs, decrease 4 µs). The values are the run script's of
// [HPCC-ns3] for "dcqcn" (docs/derivations.md, DCQCN presets): α period 1 µs
// with g = 1/256 (dce_tcp_g 1020), decreases on a 4 µs grid from the first
// CNP (DCQCNReduceGrid: its CheckRateDecreaseMlx checks every 4 µs for a CNP
// since the last check), increase timer 300 µs, one fast-recovery stage (F =
// 1), R_AI = 5 Mb/s and R_HAI = 50 Mb/s scaled by link/25 Gb/s, minimum rate
// 1000 Mb/s, no target clamp except after a timer increase (CLAMP_TARGET_RATE
// 0; its code clamps once the timer stage is non-zero), no byte counter
// (rpg_byte_reset 0: the simulator has none), no bound on one decrease beyond
// α/2 (rpg_min_dec_fac 0), the rate kept on the first CNP, whose cut waits
// for the first grid point as in the simulator, and α = 1 (1023). The
// simulator keeps α as a double (53-bit mantissa); the preset keeps the paper
// preset's DCQCNAlphaFracBitsDefault (20) bit register, whose accumulated
// floor error (below 0.25/1024 at dce_tcp_g = 1020, see the type's doc) is a
// quarter of the Q10 parameters' own resolution. Rates count 1 Kb/s; link
// must be a whole number of Kb/s and at least 1000 Mb/s.
func DCQCNHPCCSim(link units.Rate) DCQCNConfig {
	c := DCQCNPaper(link)
	c.DceTCPRtt = 1 * units.Microsecond
	c.RateReduceMonitorPeriod = 4 * units.Microsecond
	c.RateReduceMode = DCQCNReduceGrid
	c.RpgTimeReset = 300 * units.Microsecond
	c.RpgByteReset = 0
	c.RpgThreshold = 1
	c.RpgMinRate = 1000 * units.Mbps
	c.ClampTgtRate = false
	c.ClampTgtRateAfterTimeInc = true
	return c
}

// MaxRate returns the ceiling of the rate: RpgMaxRate, or PortRate when
// RpgMaxRate is 0.
func (c DCQCNConfig) MaxRate() units.Rate {
	if c.RpgMaxRate == 0 {
		return c.PortRate
	}
	return c.RpgMaxRate
}

// dcqcnBad is the *cc.ConfigError of a field out of range.
func dcqcnBad(field, value, want string) error {
	return &cc.ConfigError{Part: dcqcnPart, Field: field, Value: value, Range: want}
}

// dcqcnCheckRate validates a rate field: a multiple of unit in [lo, hi].
func dcqcnCheckRate(name string, r, unit, lo, hi units.Rate) error {
	if r < lo || r > hi || r%unit != 0 {
		return dcqcnBad(name, r.String(), "a multiple of RateUnit ("+unit.String()+") in "+lo.String()+".."+hi.String())
	}
	return nil
}

// dcqcnCheckPeriod validates a timer period in [lo, DCQCNMaxPeriod].
func dcqcnCheckPeriod(name string, t, lo units.Time) error {
	if t < lo || t > DCQCNMaxPeriod {
		if lo > 0 {
			return dcqcnBad(name, t.String(), "(0, "+DCQCNMaxPeriod.String()+"]")
		}
		return dcqcnBad(name, t.String(), "0.."+DCQCNMaxPeriod.String())
	}
	return nil
}

// dcqcnQ10Range is the range of a Q10 α parameter, as errors state it.
func dcqcnQ10Range() string {
	return "0.." + strconv.Itoa(int(fixedpoint.UQ0_10Max)) + " (" + DCQCNQ10Unit + ")"
}

// dcqcnUint formats an integer field's value.
func dcqcnUint[T ~uint8 | ~uint16](v T) string { return strconv.FormatUint(uint64(v), 10) }

// Validate checks every field's range and returns a *cc.ConfigError naming
// the first field out of range (its Go name), its value and the allowed
// range.
func (c DCQCNConfig) Validate() error {
	if c.RateUnit < 1 {
		return dcqcnBad("RateUnit", c.RateUnit.String(), "≥ 1bps")
	}
	if c.PortRate < c.RateUnit || c.PortRate%c.RateUnit != 0 || uint64(c.PortRate/c.RateUnit) > DCQCNRateMax {
		return dcqcnBad("PortRate", c.PortRate.String(), "a positive multiple of RateUnit ("+c.RateUnit.String()+
			"), at most "+strconv.FormatUint(DCQCNRateMax, 10)+" units")
	}
	if c.RpgMaxRate != 0 {
		if err := dcqcnCheckRate("RpgMaxRate", c.RpgMaxRate, c.RateUnit, c.RateUnit, c.PortRate); err != nil {
			return err
		}
	}
	maxRate := c.MaxRate()
	if err := dcqcnCheckRate("RpgMinRate", c.RpgMinRate, c.RateUnit, c.RateUnit, maxRate); err != nil {
		return err
	}
	if c.RateToSetOnFirstCNP != 0 {
		if err := dcqcnCheckRate("RateToSetOnFirstCNP", c.RateToSetOnFirstCNP, c.RateUnit, c.RpgMinRate, maxRate); err != nil {
			return err
		}
	}
	if err := dcqcnCheckRate("RpgAIRate", c.RpgAIRate, c.RateUnit, c.RateUnit, maxRate); err != nil {
		return err
	}
	if err := dcqcnCheckRate("RpgHAIRate", c.RpgHAIRate, c.RateUnit, c.RateUnit, maxRate); err != nil {
		return err
	}
	if c.DceTCPG > fixedpoint.UQ0_10Max {
		return dcqcnBad("DceTCPG", dcqcnUint(c.DceTCPG), dcqcnQ10Range())
	}
	if c.InitialAlphaValue > fixedpoint.UQ0_10Max {
		return dcqcnBad("InitialAlphaValue", dcqcnUint(c.InitialAlphaValue), dcqcnQ10Range())
	}
	if c.RpgGd > DCQCNMaxGd {
		return dcqcnBad("RpgGd", dcqcnUint(c.RpgGd), "0.."+strconv.Itoa(DCQCNMaxGd))
	}
	if c.AlphaFracBits < DCQCNAlphaFracBitsMin || c.AlphaFracBits > DCQCNAlphaFracBitsMax {
		return dcqcnBad("AlphaFracBits", dcqcnUint(c.AlphaFracBits), strconv.Itoa(DCQCNAlphaFracBitsMin)+".."+strconv.Itoa(DCQCNAlphaFracBitsMax)+
			" (the α register's fraction bits; "+strconv.Itoa(DCQCNAlphaFracBitsMin)+" is Q10)")
	}
	if c.RpgMinDecFac > DCQCNMaxMinDecFac {
		return dcqcnBad("RpgMinDecFac", dcqcnUint(c.RpgMinDecFac), "0.."+strconv.Itoa(DCQCNMaxMinDecFac)+" (percent)")
	}
	if err := dcqcnCheckPeriod("DceTCPRtt", c.DceTCPRtt, 1); err != nil {
		return err
	}
	if err := dcqcnCheckPeriod("RateReduceMonitorPeriod", c.RateReduceMonitorPeriod, 0); err != nil {
		return err
	}
	if c.RateReduceMode > DCQCNReduceGrid {
		return dcqcnBad("RateReduceMode", c.RateReduceMode.String(), "DCQCNReduceSpacing or DCQCNReduceGrid")
	}
	if err := dcqcnCheckPeriod("RpgTimeReset", c.RpgTimeReset, 1); err != nil {
		return err
	}
	if c.RpgByteReset < 0 || c.RpgByteReset%DCQCNByteResetUnit != 0 || c.RpgByteReset > DCQCNMaxByteReset {
		return dcqcnBad("RpgByteReset", c.RpgByteReset.String(), "0 (off) or a multiple of "+DCQCNByteResetUnit.String()+" up to "+DCQCNMaxByteReset.String())
	}
	return nil
}

// DCQCNState is every register of a DCQCN reaction point but the time of
// its latest event (DCQCN.Last).
type DCQCNState struct {
	// Active is true once the first CNP has allocated the rate limiter.
	Active bool
	// RC and RT are the current and target rate, 32-bit registers
	// counting RateUnit (the snapshot's rc and rt, in the same unit; the
	// rate in bit/s is RC·RateUnit, DCQCN.Rate). Before the first CNP both
	// hold the maximum rate.
	RC, RT uint32
	// PrevRC is RC just before the latest decrease (for traces and the
	// min_dec_fac property), counting RateUnit (the snapshot's prev_rc).
	PrevRC uint32
	// AlphaRaw is the α register: an unsigned fraction of AlphaFracBits
	// bits, 0..2^AlphaFracBits − 1, value AlphaRaw/2^AlphaFracBits.
	// DCQCN.Alpha returns its Q10 view, AlphaRaw >> (AlphaFracBits − 10).
	AlphaRaw uint32
	// AlphaCNPArrived is set by a CNP and consumed by the next α tick.
	AlphaCNPArrived bool
	// DecreasePending is set by a CNP whose cut waits for NextDecrease: in
	// DCQCNReduceSpacing mode one that came within
	// rate_reduce_monitor_period of the last decrease, in DCQCNReduceGrid
	// mode every CNP until the next grid point.
	DecreasePending bool
	// TimerStage and ByteStage count increase-timer and byte-counter
	// expiries since the last decrease (32-bit, saturating).
	TimerStage, ByteStage uint32
	// ByteCount is the bytes sent since the last byte-counter expiry or
	// decrease (always below rpg_byte_reset).
	ByteCount uint64
	// AlphaAnchor is the first CNP's time: α ticks fall at AlphaAnchor +
	// k·dce_tcp_rtt, and in DCQCNReduceGrid mode the decrease grid at
	// AlphaAnchor + k·rate_reduce_monitor_period.
	AlphaAnchor units.Time
	// NextAlpha, NextIncrease and NextDecrease are the timers' deadlines,
	// units.MaxTime when idle (NextDecrease is meaningful only while
	// DecreasePending).
	NextAlpha, NextIncrease, NextDecrease units.Time
	// Decreased is true once a decrease (or the first CNP's set rate) has
	// happened; LastDecrease is its time.
	Decreased    bool
	LastDecrease units.Time
	// CNPs, Decreases and Increases count CNPs received, rate decreases and
	// increase events (fast recovery, additive, hyper). 64-bit, wrapping.
	CNPs, Decreases, Increases uint64
	// Unused counts the messages of kinds DCQCN does not use, every kind
	// but a CNP (cc's rule 8; the register cc.UnusedRegister).
	Unused cc.Unused
}

// dcqcnPhase is the kind of an increase event.
type dcqcnPhase uint8

const (
	dcqcnFastRecovery dcqcnPhase = iota
	dcqcnAdditive
	dcqcnHyper
)

// DCQCN is the reaction point of DCQCN: the sender's per-flow rate limiter
// ([Survey] §4.1.2, "RP algorithm", equations (5)–(8)) of one flow, in the
// integer form NVIDIA ConnectX NICs run and document through their parameters
// ([ConnectX]; every parameter of the table in docs/derivations.md is a
// DCQCNConfig field, named after it).
//
// The paper's equations, and the register operation that implements each:
//
//	on CNP:        RT ← RC                   target clamp (see below)
//	               RC ← RC·(1 − α/2)          RC −= min(RC·α >> rpg_gd, RC·(100 − rpg_min_dec_fac)/100)
//	               α ← (1 − g)·α + g          per dce_tcp_rtt period with a CNP:
//	                                          α ← ⌊dce_tcp_g·α/1024⌋ + (1024 − dce_tcp_g)
//	no CNP for K:  α ← (1 − g)·α              per period without: α ← ⌊dce_tcp_g·α/1024⌋
//	fast recovery: RC ← (RC + RT)/2           RC ← ⌈(RC + RT)/2⌉
//	additive:      RT += R_AI; RC ← (RC+RT)/2 RT ← min(RT + rpg_ai_rate, max)
//	hyper:         RT += i·R_HAI              RT ← min(RT + rpg_hai_rate, max)
//
// so g = 1 − dce_tcp_g/1024 and rpg_gd = 11 is the paper's α/2.
//
// (α and the Q10 constants above are written in Q10 units; the register
// holds them scaled, see below.)
//
// Registers. RC (current rate) and RT (target rate) are 32-bit unsigned
// registers counting DCQCNConfig.RateUnit (ConnectX: 1 Mb/s). α is an
// unsigned fraction of f = DCQCNConfig.AlphaFracBits bits (UQ0.f, raw
// 0..2^f − 1, value raw/2^f; 10 ≤ f ≤ 24). The vendor's α parameters are
// Q10 values (dce_tcp_g, initial_alpha_value, and the 1024 − dce_tcp_g added
// on a period with a CNP); the register holds them scaled by S = 2^(f−10),
// and the updates run in it with the vendor's formulas:
//
//	period without CNP:  α ← ⌊α·dce_tcp_g/1024⌋            (α·dce_tcp_g >> 10)
//	period with CNP:     α ← ⌊α·dce_tcp_g/1024⌋ + (1024 − dce_tcp_g)·S
//	first CNP:           α ← initial_alpha_value·S
//	decrease:            cut = RC·α >> (rpg_gd + f − 10)     (= RC·(α/S) >> rpg_gd)
//
// so f = 10 is a pure Q10 register. Why wider: the floor loses up to one
// LSB per period, and in Q10 with the vendor's g = 1019 the exact decrement
// α·5/1024 is below one LSB for every α < 205, so α then falls by a whole
// 1/1024 per µs instead of by 0.5 % of itself: 600 µs after one CNP
// equation (6) gives α = 54.3/1024 and a Q10 register holds 0, and CNPs more
// than a few µs apart leave α near 0, so decreases cut almost nothing. With
// f bits the floor errors add up to less than 1024/(1024 − g)·2^(10−f) Q10
// units (0.2/1024 at g = 1019, f = 20), whatever the number of periods.
//
// The floor is applied to the retained part, ⌊α·g/1024⌋, not to the
// decrement: α − ⌊α·(1024 − g)/1024⌋ would round α up and stick at small
// values (at α = 1, g = 1019 the decrement floors to 0 forever). With the
// floor on the product, a period without CNP lowers a non-zero α by at least
// one LSB (g ≤ 1023), so α decays to exactly 0, and the α timer idles. It
// takes at most ⌈(1024/d)·ln(2^f·d/1024)⌉ + ⌊1024/d⌋ periods from any α
// (d = 1024 − g ≥ 1: α shrinks by the factor g/1024 per period down to
// 1024/d, then by at least one LSB per period): at g = 1019 exactly 1863
// periods from the largest α (2^20 − 1) and 1862 from initial_alpha_value
// 1023 at f = 20, 466 at f = 10; at worst (g = 1023) 7686 periods at f = 20,
// 10523 at f = 24, 1023 at f = 10.
//
// The stage counters are 32-bit, saturating. The byte counter counts bytes
// (64-bit; it stays below rpg_byte_reset + DCQCNMaxSendBytes). Products are
// formed in 64 bits (RC·α < 2^56, α·g < 2^34, RC·100 < 2^39): no overflow.
//
// Invariants (checked by the tests): rpg_min_rate ≤ RC ≤ RT ≤ max rate;
// α ≤ 2^f − 1, so its Q10 view α >> (f − 10) (Alpha) is at most 1023. The
// largest α is reached and kept by a CNP in every period (⌊(2^f − 1)·g/1024⌋
// = g·S − 1 for g ≥ 1, plus (1024 − g)·S); at g = 0 a period with a CNP
// would give 2^f, and the register saturates at 2^f − 1.
//
// Timers, all explicit (NextDeadline and Timer; every event also
// runs every timer due at or before its time first, so a caller may skip
// timer calls):
//
//   - α timer, period dce_tcp_rtt, free-running from the first CNP (ticks at
//     first + k·period). It idles while α = 0 and no CNP arrived, and a CNP
//     wakes it on the same grid.
//   - Rate-decrease monitor, rate_reduce_monitor_period P, in one of two
//     modes (DCQCNConfig.RateReduceMode, see DCQCNRateReduceMode):
//     DCQCNReduceSpacing (the default), P is the minimum time between two
//     decreases: a CNP arriving at least P after the last decrease (or the
//     first CNP) decreases at once; one arriving earlier marks a decrease
//     pending, done P after the last decrease (more CNPs meanwhile add
//     nothing). DCQCNReduceGrid, decreases happen only on the grid first
//     CNP + k·P (k ≥ 1): at each grid point the rate is cut once if a CNP
//     arrived since the previous one (the first CNP counts for the first
//     point). P = 0 decreases on every CNP in both modes.
//   - Rate-increase timer, rpg_time_reset, restarted by every decrease. Each
//     expiry is one increase event, then TimerStage++. It idles once RC and
//     RT both reach the maximum.
//   - Byte counter, rpg_byte_reset bytes (vendor unit 64 B), restarted by
//     every decrease: each time the bytes sent (Sent) fill it, one
//     increase event, then ByteStage++.
//
// An increase event picks its phase from the stages (rpg_threshold = F, the
// paper's 5 fast-recovery cycles): hyper increase when min(TimerStage,
// ByteStage) > F, additive when max(TimerStage, ByteStage) ≥ F, fast recovery
// otherwise (docs/derivations.md, DCQCN's integer reaction point). The target
// clamp on a decrease: RT ← RC when clamp_tgt_rate, or the byte counter has
// expired since the last decrease, or clamp_tgt_rate_after_time_inc and the
// timer has (the vendor's documented meaning of the two flags).
//
// Choices where the sources are silent, each documented:
//
//   - The α register's width, AlphaFracBits: the vendor documents its α
//     parameters in Q10 but not the register they act on. The presets use
//     20 bits, where α follows equation (6) within 0.2/1024 (the HPCC
//     authors' simulator keeps α as a double); 10 is available to model a
//     pure Q10 register.
//   - rate_reduce_monitor_period is a minimum spacing by default
//     (DCQCNReduceSpacing): the vendor documents it as "the time period
//     between rate reductions" ([ConnectX]: µs, 1…UINT32, default 4), a
//     spacing between reductions, and the paper's RP reduces its rate when
//     it receives a CNP ("When the sender receives a CNP, it turns to the
//     period of rate decrease", [Survey] §4.1.2): the CNP triggers the
//     cut, not a clock. Spacing keeps both, a cut at the CNP
//     that ends a quiet spell and cuts at least P apart; neither source
//     describes a free-running grid. [HPCC-ns3]
//     (RdmaHw::CheckRateDecreaseMlx) does run one: it checks every P from
//     the first CNP and cuts if a CNP arrived since the last check.
//     DCQCNReduceGrid models it, and DCQCNHPCCSim uses it. (ns-3 offsets
//     its checks by 1 ns so that each follows the α update of the same
//     microsecond; hwcc's same-picosecond order, below, does that without
//     the offset, so a CNP arriving within that nanosecond counts for the
//     next grid point here and for this one in ns-3.) The two differ
//     in more than the first decrease. Spacing cuts at the first CNP of a
//     burst and then every P while CNPs keep coming; the grid collapses the
//     CNPs of each P-window into one cut at the window's end, so a burst
//     gets one cut fewer: CNPs every 1 µs from 0 to 10 µs with P = 4 µs
//     are cut at 0, 4, 8 and 12 µs by spacing and at 4, 8 and 12 µs by the
//     grid. After a quiet spell spacing cuts at the next CNP at once, while
//     the grid's phase stays where the first CNP put it, so that CNP waits
//     up to P for the next grid point.
//   - The α timer delays α's response as well: a CNP raises α (the +g of
//     equation (6), α ← (1 − g)·α + g) only at the next α tick, up to one
//     dce_tcp_rtt later (the paper's K = 55 µs in DCQCNPaper, 1 µs at the
//     vendor's default), so a decrease taken at the CNP uses the α of
//     before it, and a flow's first CNP cuts with initial_alpha_value.
//   - First CNP (the rate limiter is allocated): α ← initial_alpha_value and
//     that CNP does not also raise α. If rate_to_set_on_first_cnp ≠ 0 the
//     rate and target are set to it (no further cut for this CNP); if 0 the
//     CNP decreases the rate like any other, with the initial α. The limiter
//     is never released: "first" means the first CNP of the flow's life.
//   - The fast-recovery average rounds up, ⌈(RC + RT)/2⌉, so that RC reaches
//     RT; rounding down would leave RC one unit below the target forever.
//   - Hyper increase adds rpg_hai_rate per event (the NIC's constant step),
//     not the paper's growing i·R_HAI.
//   - rpg_byte_reset = 0 disables the byte counter (the public simulators
//     have none); then the phase uses the timer stage alone (hyper when
//     TimerStage > F, as those simulators do).
//   - Events at the same picosecond run in this order: α tick, increase
//     tick, pending decrease, then the caller's event.
//   - Overdue timers are caught up exactly: every missed tick is applied at
//     its own time, as if Timer had been called at each deadline; runs of
//     identical increase steps are applied in one step (bit-identical).
//   - A deadline past units.MaxTime saturates to it and never fires.
//
// Events. DCQCN implements cc.ReactionPoint: Sent counts the packet's
// payload bytes (p.Payload, what the NIC's byte counter counts), Feedback
// with a cc.FeedbackCNP is a CNP, Timer runs the timers due, and Limits is
// the current rate (Rate) with no window. DCQCN reacts to CNPs only: a
// Feedback of any other kind (an ACK, a NAK, another scheme's message) is
// accepted, as a NIC delivers every message of the flow to it, and counted
// in unused_feedback (cc's rule 8); it runs the timers due, as any event
// does. DCQCN never appends an action, so every event takes a nil Actions.
// Errors: a
// now before the latest event's (or before 0) is a *cc.TimeOrderError; a
// byte count outside 0..DCQCNMaxSendBytes, a nil packet or feedback a
// *cc.EventError; either changes nothing.
//
// Registers (AppendRegisters, in this order): now; active; rc, rt and prev_rc
// (32 bits, RateUnit); alpha (AlphaFracBits bits); alpha_cnp_arrived and
// decrease_pending (1 bit); timer_stage and byte_stage (32 bits); byte_count
// (a 64-bit model counter: the vendor gives no width); alpha_anchor,
// next_alpha, next_increase and next_decrease (64-bit ps: the NIC's timer
// widths are not documented); decreased (1 bit) and last_decrease; the
// 64-bit model counters cnps, decreases and increases; and unused_feedback
// (64 bits, cc.UnusedRegister).
//
// It is not safe for concurrent use. The zero value is not usable; build one
// with NewDCQCN.
type DCQCN struct {
	cfg DCQCNConfig
	// Rates in RateUnit.
	maxR, minR, ai, hai, first uint32
	// byteReset is the byte counter threshold in bytes, 0 when off.
	byteReset uint64
	// keep is 100 − rpg_min_dec_fac: the largest cut in percent.
	keep uint64
	// The α register (f = AlphaFracBits): alphaShift = f − 10 scales a Q10
	// value into it; alphaCNP = min((1024 − dce_tcp_g) << alphaShift,
	// 2^f − 1), added on a period with a CNP (see alphaTicks for the min);
	// alphaInit = initial_alpha_value << alphaShift; cutShift = rpg_gd +
	// alphaShift.
	alphaShift, cutShift uint
	alphaCNP             uint64
	// g is dce_tcp_g, α's retention per period in Q10.
	g         uint64
	alphaInit uint32
	s         DCQCNState
	clock     cc.Monotonic
}

var _ cc.ReactionPoint = (*DCQCN)(nil)

// NewDCQCN validates cfg and returns a reaction point sending at the maximum
// rate with no rate limiter allocated. An invalid cfg is a *cc.ConfigError.
func NewDCQCN(cfg DCQCNConfig) (*DCQCN, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	u := cfg.RateUnit
	sh := uint(cfg.AlphaFracBits) - fixedpoint.UQ0_10Frac
	d := &DCQCN{
		cfg:        cfg,
		maxR:       uint32(cfg.MaxRate() / u),
		minR:       uint32(cfg.RpgMinRate / u),
		ai:         uint32(cfg.RpgAIRate / u),
		hai:        uint32(cfg.RpgHAIRate / u),
		first:      uint32(cfg.RateToSetOnFirstCNP / u),
		byteReset:  uint64(cfg.RpgByteReset),
		keep:       dcqcnPercent - uint64(cfg.RpgMinDecFac),
		alphaShift: sh,
		cutShift:   uint(cfg.RpgGd) + sh,
		alphaCNP:   min(uint64(dcqcnAlphaOne-cfg.DceTCPG)<<sh, uint64(1)<<cfg.AlphaFracBits-1),
		alphaInit:  uint32(cfg.InitialAlphaValue) << sh,
		g:          uint64(cfg.DceTCPG),
	}
	d.s.RC, d.s.RT = d.maxR, d.maxR
	d.s.NextAlpha, d.s.NextIncrease, d.s.NextDecrease = units.MaxTime, units.MaxTime, units.MaxTime
	return d, nil
}

// Config returns the configuration d was built with.
func (d *DCQCN) Config() DCQCNConfig { return d.cfg }

// State returns every register but the time (Last).
func (d *DCQCN) State() DCQCNState { return d.s }

// Last returns the time of the latest event accepted (0 before any).
func (d *DCQCN) Last() units.Time { return d.clock.Last() }

// Rate returns the current rate in bit/s: the pacing rate Limits gives,
// RC·RateUnit, where RC (State().RC, the snapshot's rc) counts RateUnit.
func (d *DCQCN) Rate() units.Rate { return units.Rate(d.s.RC) * d.cfg.RateUnit }

// Alpha returns α's Q10 view, the unit of the vendor's α parameters: the
// register rounded down to 10 fraction bits, AlphaRaw >> (AlphaFracBits −
// 10), 0..1023 (value Alpha/1024). The register itself, in the snapshot's
// unit, is AlphaRaw.
func (d *DCQCN) Alpha() fixedpoint.UQ0_10 { return fixedpoint.UQ0_10(d.s.AlphaRaw >> d.alphaShift) }

// AlphaRaw returns the α register as the snapshot's alpha holds it:
// AlphaFracBits fraction bits (value AlphaRaw/2^AlphaFracBits).
func (d *DCQCN) AlphaRaw() uint32 { return d.s.AlphaRaw }

// NextDeadline implements cc.Clock: the earliest timer deadline, at or
// after which the caller calls Timer; units.MaxTime when every
// timer is idle.
func (d *DCQCN) NextDeadline() units.Time {
	t := min(d.s.NextAlpha, d.s.NextIncrease)
	if d.s.DecreasePending {
		t = min(t, d.s.NextDecrease)
	}
	return t
}

// dcqcnTickLoop bounds the catch-ups dcqcnTicks counts by subtraction: a
// gap of fewer than dcqcnTickLoop periods takes at most dcqcnTickLoop − 1
// compare-and-subtract steps instead of a 64-bit division.
const dcqcnTickLoop = 8

// dcqcnTicks returns how many ticks of a timer with deadline next and the
// given period (0 < period ≤ DCQCNMaxPeriod) fall at or before bound (0 if
// next > bound or the timer is idle, else ⌊(bound − next)/period⌋ + 1) and
// the deadline after them, next + k·period, saturating at units.MaxTime. A
// hardware timer fires each tick and divides nothing: a catch-up of fewer
// than dcqcnTickLoop periods (every one an event path meets when the caller
// keeps up) counts its ticks by subtracting the period; only a longer one
// divides. next + k·period is computed as bound − r + period, r the
// remainder (bound − next) mod period, so no product can overflow.
func dcqcnTicks(next, bound, period units.Time) (k uint64, after units.Time) {
	if next > bound || next == units.MaxTime {
		return 0, next
	}
	k, r := dcqcnCount(uint64(bound-next), uint64(period)) // 0 ≤ next ≤ bound: exact
	return k, fixedpoint.SatAddNonNeg(bound-units.Time(r), period)
}

// dcqcnCount returns ⌊gap/p⌋ + 1 and gap mod p for 0 < p ≤ DCQCNMaxPeriod:
// by at most dcqcnTickLoop − 1 compare-and-subtract steps when gap <
// dcqcnTickLoop·p (the product fits: p ≤ 10^12), by a division otherwise.
func dcqcnCount(gap, p uint64) (k, r uint64) {
	if gap >= dcqcnTickLoop*p {
		return gap/p + 1, gap % p
	}
	for k = 1; gap >= p; k++ {
		gap -= p
	}
	return k, gap
}

// dcqcnNextTick returns the first point of the grid anchor + k·period
// (k ≥ 1) after now, for anchor ≤ now and period > 0: now − (now −
// anchor) mod period + period, saturating at units.MaxTime.
func dcqcnNextTick(anchor, now, period units.Time) units.Time {
	return fixedpoint.SatAdd(now-(now-anchor)%period, period)
}

// dcqcnEvent names an event method in errors: a small integer on the
// event path, its name (dcqcnEventNames) only when an error is built.
type dcqcnEvent uint8

// The events.
const (
	dcqcnSent dcqcnEvent = iota
	dcqcnFeedback
	dcqcnTimer
)

// dcqcnEventNames are the events' names, as errors give them.
var dcqcnEventNames = [...]string{"Sent", "Feedback", "Timer"}

// String returns the event method's name.
func (e dcqcnEvent) String() string { return dcqcnEventNames[e] }

// onTimer, onCNP and onSend are the fast paths of Timer, Feedback with a
// CNP and Sent: the events without the contract's arguments (the packet,
// the message, the actions DCQCN never appends to). Their errors name the
// contract event.
func (d *DCQCN) onTimer(now units.Time) error               { return d.tick(dcqcnTimer, now) }
func (d *DCQCN) onCNP(now units.Time) error                 { return d.cnp(dcqcnFeedback, now) }
func (d *DCQCN) onSend(now units.Time, n units.Bytes) error { return d.send(dcqcnSent, now, n) }

// Sent implements cc.ReactionPoint: it counts the p.Payload bytes the flow
// sent at now into the byte counter; each time it fills (rpg_byte_reset
// bytes) an increase event happens and ByteStage grows. Nothing is counted
// before the first CNP or with the counter off. Timers due at or before
// now run first. A nil p or a payload outside 0..DCQCNMaxSendBytes is a
// *cc.EventError, a now before the latest event's a *cc.TimeOrderError;
// either changes nothing. It appends nothing to act (which may be nil).
func (d *DCQCN) Sent(now units.Time, p *cc.Packet, _ *cc.Actions) error {
	if p == nil {
		return d.refuse(dcqcnSent, now, "nil packet")
	}
	return d.send(dcqcnSent, now, p.Payload)
}

// Feedback implements cc.ReactionPoint. A cc.FeedbackCNP for this flow
// arriving at now: the first allocates the rate limiter (see the type's
// doc); later ones flag α's next tick and decrease the rate now or at the
// next point rate_reduce_monitor_period allows (RateReduceMode). Every
// other kind is of no use to DCQCN (it reacts to CNPs only): it is
// counted in State().Unused (the register unused_feedback) and changes
// nothing else but the time. Timers due at or before now run first. A nil f is
// a *cc.EventError, a now before the latest event's a *cc.TimeOrderError;
// either changes nothing. It appends nothing to act (which may be nil).
func (d *DCQCN) Feedback(now units.Time, f *cc.Feedback, _ *cc.Actions) error {
	if f == nil {
		return d.refuse(dcqcnFeedback, now, "nil feedback")
	}
	if f.Kind == cc.FeedbackCNP {
		return d.cnp(dcqcnFeedback, now)
	}
	if err := d.tick(dcqcnFeedback, now); err != nil {
		return err
	}
	d.s.Unused.Count()
	return nil
}

// Timer implements cc.Clock: it runs every timer due at or before now,
// each at its own deadline (see the type's doc for the order), however
// many deadlines the caller let pass. Calling it early only records now. A
// now before the latest event's is a *cc.TimeOrderError that changes
// nothing. It appends nothing to act (which may be nil).
func (d *DCQCN) Timer(now units.Time, _ *cc.Actions) error { return d.tick(dcqcnTimer, now) }

// Limits implements cc.ReactionPoint: the current rate, RC·RateUnit, and
// no window.
func (d *DCQCN) Limits() cc.Limits { return cc.Limits{Rate: d.Rate(), Window: cc.NoWindow} }

// refuse is the error of an event refused for reason: a
// *cc.TimeOrderError if now is out of order too, else a *cc.EventError.
// Errors are built out of line, so that the event path holds no allocation
// site.
//
//go:noinline
func (d *DCQCN) refuse(event dcqcnEvent, now units.Time, reason string) error {
	if err := d.clock.Check(dcqcnPart, event.String(), now); err != nil {
		return err
	}
	return &cc.EventError{Part: dcqcnPart, Event: event.String(), Reason: reason}
}

// dcqcnBadBytes is the reason a byte count n is refused.
//
//go:noinline
func dcqcnBadBytes(n units.Bytes) string {
	return "byte count " + n.String() + " outside 0.." + DCQCNMaxSendBytes.String()
}

// tick is the one code path of Timer and the unused feedback.
func (d *DCQCN) tick(event dcqcnEvent, now units.Time) error {
	if !d.clock.InOrder(now) {
		return d.clock.Check(dcqcnPart, event.String(), now)
	}
	d.clock.Advance(now)
	d.runTimers(now) // (it checks what is due; a timer call usually comes at a deadline)
	return nil
}

// cnp is the code path of Feedback with a CNP.
func (d *DCQCN) cnp(event dcqcnEvent, now units.Time) error {
	if !d.clock.InOrder(now) {
		return d.clock.Check(dcqcnPart, event.String(), now)
	}
	d.clock.Advance(now)
	d.runTimers(now) // (it checks what is due; CNPs usually come an α period or more apart)
	s := &d.s
	s.CNPs++
	if !s.Active {
		d.firstCNP(now)
		return nil
	}
	s.AlphaCNPArrived = true
	if s.NextAlpha == units.MaxTime {
		// Wake the idle α timer on its grid: the first tick after now.
		s.NextAlpha = dcqcnNextTick(s.AlphaAnchor, now, d.cfg.DceTCPRtt)
	}
	if s.DecreasePending {
		return nil
	}
	p := d.cfg.RateReduceMonitorPeriod
	switch {
	case p == 0:
		d.decrease(now)
	case d.cfg.RateReduceMode == DCQCNReduceGrid:
		// The next grid point after now (a CNP at a grid point's
		// picosecond comes after that point's check).
		s.DecreasePending, s.NextDecrease = true, dcqcnNextTick(s.AlphaAnchor, now, p)
	default:
		// At least P since the last decrease: now − LastDecrease ≥ P
		// (exact: 0 ≤ LastDecrease ≤ now).
		if !s.Decreased || now-s.LastDecrease >= p {
			d.decrease(now)
		} else {
			s.DecreasePending, s.NextDecrease = true, fixedpoint.SatAddNonNeg(s.LastDecrease, p)
		}
	}
	return nil
}

// send is the code path of Sent.
func (d *DCQCN) send(event dcqcnEvent, now units.Time, n units.Bytes) error {
	if !d.clock.InOrder(now) {
		return d.clock.Check(dcqcnPart, event.String(), now)
	}
	if n < 0 || n > DCQCNMaxSendBytes {
		return d.refuse(event, now, dcqcnBadBytes(n))
	}
	d.clock.Advance(now)
	if d.NextDeadline() <= now {
		d.runTimers(now)
	}
	s := &d.s
	if !s.Active || d.byteReset == 0 {
		return nil
	}
	s.ByteCount += uint64(n)
	// At most DCQCNMaxSendBytes/64 + 1 iterations; one at the defaults.
	for s.ByteCount >= d.byteReset {
		s.ByteCount -= d.byteReset
		d.increase(d.phase(s.TimerStage, s.ByteStage))
		s.ByteStage = fixedpoint.SatAdd(s.ByteStage, 1)
	}
	return nil
}

// firstCNP allocates the rate limiter at now.
func (d *DCQCN) firstCNP(now units.Time) {
	s := &d.s
	s.Active = true
	// α ← initial_alpha_value (Q10), scaled into the register.
	s.AlphaRaw = d.alphaInit
	s.AlphaCNPArrived = false
	s.AlphaAnchor = now
	s.NextAlpha = fixedpoint.SatAdd(now, d.cfg.DceTCPRtt)
	switch p := d.cfg.RateReduceMonitorPeriod; {
	case d.first != 0:
		s.RC, s.RT = d.first, d.first
		d.restartIncrease(now)
	case d.cfg.RateReduceMode == DCQCNReduceGrid && p > 0:
		// The first CNP's cut waits for the first grid point.
		s.DecreasePending, s.NextDecrease = true, fixedpoint.SatAdd(now, p)
	default:
		d.decrease(now)
	}
}

// restartIncrease resets the increase timer, byte counter and stages at t,
// and records t as the last decrease.
func (d *DCQCN) restartIncrease(t units.Time) {
	s := &d.s
	s.TimerStage, s.ByteStage, s.ByteCount = 0, 0, 0
	s.NextIncrease = fixedpoint.SatAddNonNeg(t, d.cfg.RpgTimeReset)
	s.Decreased, s.LastDecrease = true, t
	s.DecreasePending, s.NextDecrease = false, units.MaxTime
}

// decrease cuts the rate at time t.
func (d *DCQCN) decrease(t units.Time) {
	s := &d.s
	if d.cfg.ClampTgtRate || s.ByteStage > 0 || (d.cfg.ClampTgtRateAfterTimeInc && s.TimerStage > 0) {
		// RT ← RC
		s.RT = s.RC
	}
	rc := uint64(s.RC)
	// RC ← RC·(1 − α/2): cut = RC·α/2^rpg_gd with α in Q10 (rpg_gd = 11 is
	// α/2), i.e. RC·AlphaRaw >> (rpg_gd + AlphaFracBits − 10) with the full
	// register, rounded down once; bounded by RC·(100 − rpg_min_dec_fac)/100
	// (the division is by the constant 100).
	cut := min(rc*uint64(s.AlphaRaw)>>(d.cutShift&63), rc*d.keep/dcqcnPercent) // cutShift ≤ 45: the mask only spares Go's shift-by-64 guard
	s.PrevRC = s.RC
	s.RC = uint32(max(rc-cut, uint64(d.minR)))
	s.Decreases++
	d.restartIncrease(t)
}

// phase returns the increase phase for stages t (timer) and b (byte).
func (d *DCQCN) phase(t, b uint32) dcqcnPhase {
	if d.byteReset == 0 {
		b = t // no byte counter: the timer stage alone decides
	}
	f := uint32(d.cfg.RpgThreshold)
	switch {
	case min(t, b) > f:
		return dcqcnHyper
	case max(t, b) >= f:
		return dcqcnAdditive
	}
	return dcqcnFastRecovery
}

// limitPhase returns the phase timer expiries reach and keep while the byte
// stage stays b: the phase is non-decreasing in the timer stage.
func (d *DCQCN) limitPhase(b uint32) dcqcnPhase {
	if d.byteReset == 0 || b > uint32(d.cfg.RpgThreshold) {
		return dcqcnHyper
	}
	return dcqcnAdditive
}

func (d *DCQCN) step(p dcqcnPhase) uint32 {
	switch p {
	case dcqcnAdditive:
		return d.ai
	case dcqcnHyper:
		return d.hai
	}
	return 0
}

// increase runs one increase event of phase p.
func (d *DCQCN) increase(p dcqcnPhase) {
	s := &d.s
	// Additive: RT ← RT + R_AI; hyper: RT ← RT + R_HAI; clamped to the
	// maximum. Fast recovery leaves RT alone.
	s.RT = uint32(min(uint64(s.RT)+uint64(d.step(p)), uint64(d.maxR)))
	// RC ← (RC + RT)/2, rounded up so that RC reaches RT.
	s.RC = uint32((uint64(s.RC) + uint64(s.RT) + 1) >> 1)
	s.Increases++
}

// timerIncreases runs k increase-timer expiries, fewer if RC and RT both
// reach the maximum first, and reports whether they did (the timer then
// idles: further expiries could change nothing but the stage).
//
// Fast path. Once the phase has reached its limit (it cannot change while
// only the timer stage grows) with step S, and the gap RT − RC is S or
// S − 1, an expiry adds exactly S to both registers: with RC = RT − g and
// RT' = RT + S, ⌈(RC + RT')/2⌉ = RT + ⌈(S − g)/2⌉ = RC + S for g ∈ {S−1, S}.
// So j expiries that keep RT + j·S ≤ max are one addition of j·S, bit for
// bit what j single expiries give. From any state the gap reaches {S−1, S}
// within 33 expiries (g' = ⌊(g + S)/2⌋), so a catch-up of any length costs
// at most about F + 70 single steps plus one division by S.
func (d *DCQCN) timerIncreases(k uint64) (idle bool) {
	s := &d.s
	for k > 0 && !(s.RC == d.maxR && s.RT == d.maxR) {
		p := d.phase(s.TimerStage, s.ByteStage)
		if k > 1 && p != dcqcnFastRecovery && p == d.limitPhase(s.ByteStage) {
			st := uint64(d.step(p))
			if g := uint64(s.RT - s.RC); g == st || g+1 == st {
				if j := min(k, (uint64(d.maxR)-uint64(s.RT))/st); j > 0 {
					s.RT += uint32(j * st)
					s.RC += uint32(j * st)
					s.TimerStage = fixedpoint.SatAdd(s.TimerStage, uint32(j)) // j ≤ maxR < 2^32
					s.Increases += j
					k -= j
					continue
				}
			}
		}
		d.increase(p)
		s.TimerStage = fixedpoint.SatAdd(s.TimerStage, 1)
		k--
	}
	return s.RC == d.maxR && s.RT == d.maxR
}

// alphaTicks runs k α-timer ticks, fewer if α reaches 0 with no CNP
// flagged first, and reports whether it did (the timer then idles until the
// next CNP). Each tick without a CNP lowers a non-zero α by at least one LSB
// (g ≤ 1023), so at most the type doc's decay bound of ticks run after the
// first (10523 at worst, 1863 at the ConnectX defaults). The register is
// held in a local across the ticks and written back once: one multiply and
// one shift per tick.
func (d *DCQCN) alphaTicks(k uint64) (idle bool) {
	a := uint64(d.s.AlphaRaw)
	if d.s.AlphaCNPArrived && k > 0 {
		// α ← (1 − g)·α + g: ⌊α·dce_tcp_g/1024⌋ + (1024 − dce_tcp_g)·2^(f−10),
		// saturated at 2^f − 1. The saturation is unreachable for
		// α ≤ 2^f − 1 and g ≥ 1 (⌊g·(2^f − 1)/1024⌋ = g·2^(f−10) − 1); at
		// g = 0 the sum is 0 + 2^f, and alphaCNP holds it saturated (2^f − 1),
		// so no tick needs a compare.
		a, k = a*d.g>>dcqcnGShift+d.alphaCNP, k-1
		d.s.AlphaCNPArrived = false
	}
	for ; k > 0 && a != 0; k-- {
		// α ← (1 − g)·α: ⌊α·dce_tcp_g/1024⌋ < α (g ≤ 1023), so no
		// saturation.
		a = a * d.g >> dcqcnGShift
	}
	d.s.AlphaRaw = uint32(a)
	return a == 0 && !d.s.AlphaCNPArrived
}

// alphaRun runs the α ticks due at or before bound: dcqcnTicks's ticks
// from NextAlpha, applied by alphaTicks, with NextAlpha then idle or the
// deadline after them. A catch-up of fewer than dcqcnTickLoop periods (what
// every event meets when the caller keeps up) does it in one loop, one
// multiply, one shift and one compare-and-subtract of the gap per tick; the
// same ticks, in the same order, as the two steps.
//
// From an event (event true, bound = now) it is the entry of every timer
// due: when the increase timer or a pending decrease is due too, it runs
// advance instead, which calls it back for each bound (event false).
func (d *DCQCN) alphaRun(bound units.Time, event bool) {
	s := &d.s
	if event && (s.NextIncrease <= bound || (s.DecreasePending && s.NextDecrease <= bound)) {
		d.advance(bound)
		return
	}
	next, p := s.NextAlpha, uint64(d.cfg.DceTCPRtt)
	if next > bound || next == units.MaxTime {
		return
	}
	gap := uint64(bound - next) // 0 ≤ next ≤ bound: exact
	if gap >= dcqcnTickLoop*p {
		k, after := dcqcnTicks(next, bound, d.cfg.DceTCPRtt)
		if d.alphaTicks(k) {
			s.NextAlpha = units.MaxTime
		} else {
			s.NextAlpha = after
		}
		return
	}
	// The ticks at next, next + p, …, next + ⌊gap/p⌋·p: each runs one tick
	// (alphaTicks's formulas), then stops at the last (gap < p, gap the
	// remainder) or steps to the next (gap −= p). A tick that would start
	// with α = 0 and no CNP flagged ends the run: the timer idles.
	a, g := uint64(s.AlphaRaw), d.g
	if s.AlphaCNPArrived {
		a = a*g>>dcqcnGShift + d.alphaCNP // > 0: alphaCNP ≥ 2^(f−10)
		s.AlphaCNPArrived = false
		if gap >= p {
			gap -= p
		} else {
			s.AlphaRaw, s.NextAlpha = uint32(a), fixedpoint.SatAddNonNeg(bound-units.Time(gap), d.cfg.DceTCPRtt)
			return
		}
	}
	for a != 0 {
		a = a * g >> dcqcnGShift
		if gap < p {
			break
		}
		gap -= p
	}
	s.AlphaRaw = uint32(a)
	if a == 0 {
		s.NextAlpha = units.MaxTime
	} else {
		s.NextAlpha = fixedpoint.SatAddNonNeg(bound-units.Time(gap), d.cfg.DceTCPRtt)
	}
}

// runTimers runs every timer due at or before now: alphaRun's entry from
// an event, which runs advance when more than the α timer is due.
func (d *DCQCN) runTimers(now units.Time) { d.alphaRun(now, true) }

// advance runs every timer due at or before now, in time order.
func (d *DCQCN) advance(now units.Time) {
	s := &d.s
	for {
		bound := now
		decDue := s.DecreasePending && s.NextDecrease <= now
		if decDue {
			bound = s.NextDecrease // ticks at the decrease's time run first
		}
		if s.NextAlpha <= bound { // an idle timer's MaxTime is never below bound but at the end of time
			d.alphaRun(bound, false)
		}
		if s.NextIncrease <= bound {
			if k, after := dcqcnTicks(s.NextIncrease, bound, d.cfg.RpgTimeReset); k > 0 {
				if d.timerIncreases(k) {
					s.NextIncrease = units.MaxTime
				} else {
					s.NextIncrease = after
				}
			}
		}
		if !decDue {
			return
		}
		d.decrease(s.NextDecrease)
	}
}

// AppendRegisters implements cc.Part: the registers the type's doc lists,
// in that order.
func (d *DCQCN) AppendRegisters(dst []cc.Register) []cc.Register {
	s := &d.s
	return append(dst,
		d.clock.Register(),
		cc.BoolReg("active", s.Active),
		cc.Reg("rc", 32, uint64(s.RC)),
		cc.Reg("rt", 32, uint64(s.RT)),
		cc.Reg("prev_rc", 32, uint64(s.PrevRC)),
		cc.Reg("alpha", d.cfg.AlphaFracBits, uint64(s.AlphaRaw)),
		cc.BoolReg("alpha_cnp_arrived", s.AlphaCNPArrived),
		cc.BoolReg("decrease_pending", s.DecreasePending),
		cc.Reg("timer_stage", 32, uint64(s.TimerStage)),
		cc.Reg("byte_stage", 32, uint64(s.ByteStage)),
		cc.Reg("byte_count", 64, s.ByteCount),
		cc.TimeReg("alpha_anchor", s.AlphaAnchor),
		cc.TimeReg("next_alpha", s.NextAlpha),
		cc.TimeReg("next_increase", s.NextIncrease),
		cc.TimeReg("next_decrease", s.NextDecrease),
		cc.BoolReg("decreased", s.Decreased),
		cc.TimeReg("last_decrease", s.LastDecrease),
		cc.Reg("cnps", 64, s.CNPs),
		cc.Reg("decreases", 64, s.Decreases),
		cc.Reg("increases", 64, s.Increases),
		s.Unused.Register(),
	)
}
