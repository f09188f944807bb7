package rp

import (
	"math"
	"strconv"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
)

// The paper's constants ([TIMELY]). Section 6 (p. 545): "Unless mentioned
// otherwise, we use the following parameters for TIMELY: segment size of 16
// KB, Tlow of 50 µs, Thigh of 500 µs, additive increment of 10 Mbps, and a
// multiplicative decrement factor (β) of 0.8." Algorithm 1 (section 4.3): "N
// = 5 if gradient < 0 for five completion events (HAI mode)". α = 0.875 and
// minRTT = 20 µs are the values [HPCC-ns3] runs TIMELY with
// (docs/derivations.md, TIMELY: TimelyAlpha 0.875, TimelyMinRtt 20000 ns, and
// its TLow, THigh and Beta equal to section 6's); section 6 does not print
// them.
const (
	TIMELYPaperTlow         = 50 * units.Microsecond
	TIMELYPaperThigh        = 500 * units.Microsecond
	TIMELYPaperMinRTT       = 20 * units.Microsecond
	TIMELYPaperAlpha        = 0.875
	TIMELYPaperBeta         = 0.8
	TIMELYPaperDelta        = 10 * units.Mbps
	TIMELYPaperHAIThreshold = 5
	TIMELYPaperHAIFactor    = 5
	// TIMELYPaperSegment is section 6's "segment size of 16 KB", read as the
	// NIC's 16 KiB (16 384 B); section 3.1 and the survey (section 4.2)
	// give segments of 16–64 KB.
	TIMELYPaperSegment = 16 * units.KiB
	// TIMELYPaperLink is the line rate the paper's constants were chosen for
	// (its testbed's 10 Gb/s NICs, section 6).
	TIMELYPaperLink = 10 * units.Gbps
)

// Limits of TIMELY's reaction point: each configuration field's range and
// the registers' widths, declared once here (TIMELYConfig.Validate and the
// registration in package algos read them).
const (
	// TIMELYRateUnit is the unit of the rate register: R is held in kb/s in 32
	// bits.
	TIMELYRateUnit = units.Kbps
	// TIMELYMaxRate is the largest rate the 32-bit register holds: 2^32 − 1 kb/s
	// (4.294967295 Tb/s).
	TIMELYMaxRate = units.Rate(math.MaxUint32) * TIMELYRateUnit
	// TIMELYMinLineRate is the slowest LineRate: 1 Mb/s.
	TIMELYMinLineRate = units.Mbps
	// TIMELYMinThigh is the smallest Thigh: 1 ns, the RTT registers' unit.
	TIMELYMinThigh = units.Nanosecond
	// TIMELYMaxRTT is the largest RTT sample: 2^31 − 1 ns (≈ 2.147 s), so that
	// RTT samples and their differences fit 32-bit signed registers. A
	// longer sample saturates here.
	TIMELYMaxRTT = units.Time(math.MaxInt32) * units.Nanosecond
	// TIMELYMinMinRTT and TIMELYMaxMinRTT bound MinRTT: the gradient's reciprocal
	// 2^40/minRTT must leave rtt_diff·reciprocal below 2^63.
	TIMELYMinMinRTT = units.Microsecond
	TIMELYMaxMinRTT = units.Second
	// TIMELYMinSegment and TIMELYMaxSegment bound SegmentBytes: 1 B to
	// 16 MiB.
	TIMELYMinSegment units.Bytes = 1
	TIMELYMaxSegment             = 16 * units.MiB
	// TIMELYMinHAI and TIMELYMaxHAI bound HAIThreshold and HAIFactor: the
	// 8-bit increase counter counts to 255.
	TIMELYMinHAI = 1
	TIMELYMaxHAI = math.MaxUint8
	// TIMELYMaxSeq bounds the byte offsets a flow may send (Sent's p.Seq +
	// p.Payload): 2^62.
	TIMELYMaxSeq = uint64(1) << 62
	// TIMELYRingSize is the number of segments whose send times the ring holds
	// (see TIMELY).
	TIMELYRingSize = 16
	// TIMELYQOne is 1.0 in the Q0.16 constants α and β (and Q16.16 gradient).
	TIMELYQOne = 1 << 16
	// TIMELYMinAlpha is the smallest α: 2^−16, the least Q0.16 value.
	TIMELYMinAlpha = 1.0 / TIMELYQOne
	// TIMELYMinBeta is the smallest β: with the gradient saturating at 2^15,
	// β·gradient still reaches 1.
	TIMELYMinBeta = 1.0 / 1024
)

// TIMELYSample says which send time a segment's RTT is measured from.
type TIMELYSample uint8

const (
	// TIMELYSampleFirst is the paper's equation (section 3.1; the survey's
	// equation (9)): RTT = t_completion − t_send − seg.size/line rate,
	// t_send the time the segment's first packet started. It is right when
	// the caller sends each segment as a burst at line rate, as TIMELY's
	// NIC does (it paces segments, not packets).
	TIMELYSampleFirst TIMELYSample = iota
	// TIMELYSampleLast measures from the packet that completed the segment:
	// RTT = t_completion − t_last − its payload/line rate. For a segment
	// sent as a line-rate burst it is TIMELYSampleFirst's RTT (up to the frame
	// overhead of the segment's other packets, which TIMELYSampleFirst leaves in
	// the sample); for a caller that paces packet by packet (the hwcc
	// harness) it leaves out the gaps the pacer put between the segment's
	// packets, which TIMELYSampleFirst would count as delay (16 KiB paced at 1
	// Gb/s spreads over 131 µs).
	TIMELYSampleLast
)

// String returns "first" or "last".
func (s TIMELYSample) String() string {
	switch s {
	case TIMELYSampleFirst:
		return "first"
	case TIMELYSampleLast:
		return "last"
	}
	return "sample " + strconv.Itoa(int(s))
}

// TIMELYConfig configures TIMELY's reaction point. Rates are held in kb/s
// (TIMELYRateUnit), floored; times in ns, floored.
type TIMELYConfig struct {
	// LineRate is the NIC's line rate: the ceiling of R, and the rate of
	// the serialisation an RTT sample leaves out.
	// TIMELYMinLineRate..TIMELYMaxRate.
	LineRate units.Rate
	// MinRate is the floor of R, TIMELYRateUnit..LineRate. The
	// paper states none (the authors' code calls it optional); TIMELYPaper uses
	// one δ, 10 Mb/s.
	MinRate units.Rate
	// InitialRate is R before the first sample, MinRate..LineRate. The
	// paper states none; TIMELYPaper starts at line rate, as RDMA NICs (and the
	// HPCC authors' simulator) start every flow.
	InitialRate units.Rate
	// Tlow: a sample below it adds δ (Algorithm 1). 0..Thigh; the paper's
	// TIMELYPaperTlow (section 6). 0 turns the region off (the authors' code
	// recommends 0 with per-packet pacing).
	Tlow units.Time
	// Thigh: a sample above it cuts R by β(1 − Thigh/rtt) (Algorithm 1).
	// TIMELYMinThigh..TIMELYMaxRTT; the paper's TIMELYPaperThigh (section
	// 6).
	Thigh units.Time
	// MinRTT normalises the gradient: gradient = rtt_diff/minRTT
	// (Algorithm 1), a configured constant, so that the division is a
	// multiplication by a reciprocal computed at NewTIMELY.
	// TIMELYMinMinRTT..TIMELYMaxMinRTT; TIMELYPaperMinRTT ([HPCC-ns3]).
	MinRTT units.Time
	// Alpha is α, the EWMA weight of the new RTT difference: rtt_diff ←
	// (1 − α)·rtt_diff + α·new_rtt_diff (Algorithm 1). Held in Q0.16
	// (round(α·2^16), error ≤ 2^−17; 0.875 is exact, 57344).
	// TIMELYMinAlpha..1; TIMELYPaperAlpha ([HPCC-ns3]; the authors' later
	// code recommends 0.02).
	Alpha float64
	// Beta is β, the multiplicative decrement factor. Held in Q0.16
	// (round(β·2^16), error ≤ 2^−17; 0.8 is 52429/65536, 3.05e−6 above).
	// TIMELYMinBeta..1; the paper's TIMELYPaperBeta (section 6).
	Beta float64
	// Delta is δ, the additive increment step, TIMELYRateUnit..LineRate;
	// the paper's TIMELYPaperDelta (section 6).
	Delta units.Rate
	// HAIThreshold is the number of consecutive increases (this one
	// included) from which an increase in the gradient region adds
	// HAIFactor·δ instead of δ (hyperactive increase).
	// TIMELYMinHAI..TIMELYMaxHAI; TIMELYPaperHAIThreshold (Algorithm 1:
	// "gradient < 0 for five completion events").
	HAIThreshold int
	// HAIFactor is N, the multiple of δ a HAI step adds.
	// TIMELYMinHAI..TIMELYMaxHAI; TIMELYPaperHAIFactor (Algorithm 1).
	HAIFactor int
	// SegmentBytes is the segment whose completion gives one RTT sample.
	// TIMELYMinSegment..TIMELYMaxSegment; the paper's TIMELYPaperSegment
	// (section 6; segments are 16–64 KB, section 3.1). 1 B (or the MTU)
	// gives one sample per packet.
	SegmentBytes units.Bytes
	// Sample is the send time a segment's RTT is measured from
	// (TIMELYSampleFirst: the paper's; TIMELYSampleLast: the default of the presets,
	// see Sample).
	Sample TIMELYSample
	// SubtractSerialization: subtract the segment's (TIMELYSampleFirst) or the
	// last packet's (TIMELYSampleLast) payload serialisation at LineRate from
	// the sample, as the paper's RTT equation does (section 3.1: "in a 10
	// Gbps network, serialization of 64 KB takes 51 µs"). Off, the sample
	// is the plain completion time minus the send time.
	SubtractSerialization bool
}

// TIMELYPaper returns the SIGCOMM paper's 10 Gb/s constants (section 6 and
// Algorithm 1; α and minRTT from [HPCC-ns3]) on a link of rate link:
// Tlow 50 µs, Thigh 500 µs, minRTT 20 µs, α 0.875, β 0.8, δ 10 Mb/s, HAI
// after 5 increases with N = 5, 16 KiB segments, serialisation subtracted.
// hwcc's choices where the paper is silent: R starts at line rate,
// MinRate = δ, and samples are taken from the segment's last packet
// (TIMELYSampleLast). On a link below 10 Mb/s δ and MinRate are the link's rate.
func TIMELYPaper(link units.Rate) TIMELYConfig {
	d := min(TIMELYPaperDelta, max(link, TIMELYRateUnit))
	return TIMELYConfig{
		LineRate:              link,
		MinRate:               d,
		InitialRate:           link,
		Tlow:                  TIMELYPaperTlow,
		Thigh:                 TIMELYPaperThigh,
		MinRTT:                TIMELYPaperMinRTT,
		Alpha:                 TIMELYPaperAlpha,
		Beta:                  TIMELYPaperBeta,
		Delta:                 d,
		HAIThreshold:          TIMELYPaperHAIThreshold,
		HAIFactor:             TIMELYPaperHAIFactor,
		SegmentBytes:          TIMELYPaperSegment,
		Sample:                TIMELYSampleLast,
		SubtractSerialization: true,
	}
}

// TIMELYScaled is TIMELYPaper with δ (and MinRate, one δ) scaled to the link: δ =
// 10 Mb/s × link/10 Gb/s, at least 1 kb/s (the authors' published TIMELY
// code recommends "additiveIncrement: 10Mbps for 10Gbps line rate"; hwcc
// keeps that ratio at other rates, so that the increase takes as many
// samples to cover the link at any speed). The thresholds are times and
// stay as they are.
func TIMELYScaled(link units.Rate) TIMELYConfig {
	c := TIMELYPaper(link)
	d := units.Rate(float64(TIMELYPaperDelta) * float64(link) / float64(TIMELYPaperLink))
	d = min(max(d/TIMELYRateUnit*TIMELYRateUnit, TIMELYRateUnit), max(link, TIMELYRateUnit))
	c.Delta, c.MinRate = d, d
	return c
}

const timelyPart = "rp.TIMELY"

//go:noinline
func timelyConfigErr(field, value, want string) error {
	return &cc.ConfigError{Part: timelyPart, Field: field, Value: value, Range: want}
}

// fmtFloat formats f exactly, in the shortest form that parses back.
func fmtFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// timelyHAIRange is the range of HAIThreshold and HAIFactor in errors.
var timelyHAIRange = strconv.Itoa(TIMELYMinHAI) + ".." + strconv.Itoa(TIMELYMaxHAI)

// Validate reports the first field out of range as a *cc.ConfigError
// naming the field, its value and the range.
func (c TIMELYConfig) Validate() error {
	switch {
	case c.LineRate < TIMELYMinLineRate || c.LineRate > TIMELYMaxRate:
		return timelyConfigErr("LineRate", c.LineRate.String(), TIMELYMinLineRate.String()+".."+TIMELYMaxRate.String())
	case c.MinRate < TIMELYRateUnit || c.MinRate > c.LineRate:
		return timelyConfigErr("MinRate", c.MinRate.String(), TIMELYRateUnit.String()+"..LineRate ("+c.LineRate.String()+")")
	case c.InitialRate < c.MinRate || c.InitialRate > c.LineRate:
		return timelyConfigErr("InitialRate", c.InitialRate.String(), "MinRate ("+c.MinRate.String()+")..LineRate ("+c.LineRate.String()+")")
	case c.Thigh < TIMELYMinThigh || c.Thigh > TIMELYMaxRTT:
		return timelyConfigErr("Thigh", c.Thigh.String(), TIMELYMinThigh.String()+".."+TIMELYMaxRTT.String())
	case c.Tlow < 0 || c.Tlow > c.Thigh:
		return timelyConfigErr("Tlow", c.Tlow.String(), "0s..Thigh ("+c.Thigh.String()+")")
	case c.MinRTT < TIMELYMinMinRTT || c.MinRTT > TIMELYMaxMinRTT:
		return timelyConfigErr("MinRTT", c.MinRTT.String(), TIMELYMinMinRTT.String()+".."+TIMELYMaxMinRTT.String())
	case !(c.Alpha >= TIMELYMinAlpha && c.Alpha <= 1):
		return timelyConfigErr("Alpha", fmtFloat(c.Alpha), fmtFloat(TIMELYMinAlpha)+"..1")
	case !(c.Beta >= TIMELYMinBeta && c.Beta <= 1):
		return timelyConfigErr("Beta", fmtFloat(c.Beta), fmtFloat(TIMELYMinBeta)+"..1")
	case c.Delta < TIMELYRateUnit || c.Delta > c.LineRate:
		return timelyConfigErr("Delta", c.Delta.String(), TIMELYRateUnit.String()+"..LineRate ("+c.LineRate.String()+")")
	case c.HAIThreshold < TIMELYMinHAI || c.HAIThreshold > TIMELYMaxHAI:
		return timelyConfigErr("HAIThreshold", strconv.Itoa(c.HAIThreshold), timelyHAIRange)
	case c.HAIFactor < TIMELYMinHAI || c.HAIFactor > TIMELYMaxHAI:
		return timelyConfigErr("HAIFactor", strconv.Itoa(c.HAIFactor), timelyHAIRange)
	case c.SegmentBytes < TIMELYMinSegment || c.SegmentBytes > TIMELYMaxSegment:
		return timelyConfigErr("SegmentBytes", c.SegmentBytes.String(), TIMELYMinSegment.String()+".."+TIMELYMaxSegment.String())
	case c.Sample != TIMELYSampleFirst && c.Sample != TIMELYSampleLast:
		return timelyConfigErr("Sample", c.Sample.String(), "first, last")
	}
	return nil
}
