package cp

import (
	"fmt"
	"math"

	"github.com/hwcc/hwcc/units"
)

// DCQCN congestion point: RED-style ECN marking at one switch egress queue
// (papers/survey-lossless-cc.txt section 4.1.2, "CP algorithm"; REFERENCE.md,
// DCQCN). With q the queue length when the packet is judged:
//
//	q ≤ Kmin          never mark
//	Kmin < q ≤ Kmax   mark with probability Pmax·(q − Kmin)/(Kmax − Kmin)
//	q > Kmax          always mark
//
// Integer form. The probability is a Q0.32 number p (2^32 = 1.0), the width of
// the random draw, and a packet is marked when draw < p, the draw coming from
// an LFSR32 (see its doc: x^32 + x^22 + x^2 + x + 1, 32 steps per draw). The
// draw is uniform over 1..2^32−1, so the realised probability is
// (p − 1)/(2^32 − 1) for p ≥ 1: 0 at p = 0, 1 at p = 2^32, and within 2^-32
// of p/2^32 in between.
//
// No division on the per-packet path: New precomputes the slope
// Pmax·2^16·2^31/(Kmax − Kmin), rounded to nearest, and a decision is one
// subtraction, one 64-bit multiply and one shift (see DCQCN.MarkProbability
// for the error bound, under 2 units of 2^-32).
//
// Choices where the sources are silent, each documented:
//
//   - The bounds: q = Kmin is not marked and q = Kmax is marked with
//     probability Pmax (the formula's value there); the "above Kmax" region
//     starts at Kmax + 1 byte.
//   - The LFSR advances only for packets whose probability is strictly
//     between 0 and 1, once per such packet. Packets below Kmin or above
//     Kmax leave it alone, so the draw sequence depends only on how many
//     packets needed a draw.
//   - q is whatever the caller passes: the instantaneous egress queue length
//     in bytes (the harness passes it on enqueue, including the arriving
//     packet). No averaging: DCQCN switches mark on the instantaneous queue.

// DCQCNPmaxOne is Pmax = 1.0 in the Q0.16 format of DCQCNConfig.Pmax.
const DCQCNPmaxOne = 1 << dcqcnPmaxFrac

// DCQCNMaxThreshold is the largest Kmin or Kmax: the thresholds are 32-bit
// byte registers.
const DCQCNMaxThreshold units.Bytes = math.MaxUint32

// DCQCNDefaultSeed is the LFSR seed of the presets. Any non-zero value works;
// give each queue of a switch its own seed to decorrelate their marks.
const DCQCNDefaultSeed uint32 = 0xACE1ACE1

const (
	// dcqcnPmaxFrac is the number of fraction bits of Pmax (Q0.16).
	dcqcnPmaxFrac = 16
	// dcqcnProbFrac is the number of fraction bits of a marking
	// probability (Q0.32): the width of the LFSR draw it is compared with.
	dcqcnProbFrac = 32
	// dcqcnProbOne is probability 1.0 in Q0.32.
	dcqcnProbOne = uint64(1) << dcqcnProbFrac
	// dcqcnSlopeFrac is the number of extra fraction bits kept in the
	// precomputed slope (probability per byte, in Q0.32 units, times
	// 2^dcqcnSlopeFrac). 31 is the most that keeps (q − Kmin)·slope within
	// 64 bits for every threshold pair up to DCQCNMaxThreshold.
	dcqcnSlopeFrac = 31
)

// DCQCNConfig configures a DCQCN congestion point.
type DCQCNConfig struct {
	// Kmin is the queue length (bytes) at or below which nothing is marked.
	// Range: 0..DCQCNMaxThreshold (a 32-bit register).
	Kmin units.Bytes
	// Kmax is the queue length (bytes) above which every packet is marked.
	// Range: Kmin..DCQCNMaxThreshold. Kmax = Kmin gives a step marker (the
	// DCTCP marker with K = Kmin).
	Kmax units.Bytes
	// Pmax is the marking probability at q = Kmax, a Q0.16 fraction:
	// Pmax/65536, with DCQCNPmaxOne (65536) = 1.0. Range: 0..65536. 0.2 is
	// 13107 (0.2·65536 = 13107.2, rounded to nearest).
	Pmax uint32
	// Seed is the LFSR32's initial state. Range: 1..2^32−1 (0 is the LFSR
	// lock-up state).
	Seed uint32
}

// DCQCNHPCCSim is the marker of the HPCC paper's DCQCN runs
// (papers/hpcc.txt section 5.1, "Parameters": Kmin = 100 KB·Bw/25 Gb/s and
// Kmax = 400 KB·Bw/25 Gb/s, "according to our experiences (no vendor
// suggestion available)"). The paper gives no Pmax; 0.2 is the authors' ns-3
// run script's (REFERENCE.md, DCQCN, "Pmax = 0.2"). KB is 1000 B; the
// thresholds are rounded down to whole bytes.
func DCQCNHPCCSim(link units.Rate) DCQCNConfig {
	return DCQCNConfig{
		Kmin: dcqcnScaleBytes(100*units.KB, link),
		Kmax: dcqcnScaleBytes(400*units.KB, link),
		Pmax: 13107, // 0.2 in Q0.16
		Seed: DCQCNDefaultSeed,
	}
}

// dcqcnScaleBytes returns b·link/(25 Gb/s), rounded down, saturating at
// DCQCNMaxThreshold+1 so that an absurd link fails validation instead of
// wrapping.
func dcqcnScaleBytes(b units.Bytes, link units.Rate) units.Bytes {
	const ref = 25 * units.Gbps
	if link <= 0 {
		return 0
	}
	if int64(link) > int64(DCQCNMaxThreshold+1)/int64(b)*int64(ref) {
		return DCQCNMaxThreshold + 1
	}
	return units.Bytes(int64(b) * int64(link) / int64(ref))
}

// Validate checks every field's range and returns an error naming the first
// field out of range and the allowed range.
func (c DCQCNConfig) Validate() error {
	if c.Kmin < 0 || c.Kmin > DCQCNMaxThreshold {
		return fmt.Errorf("cp: DCQCN Kmin = %v, want 0..%d bytes", c.Kmin, int64(DCQCNMaxThreshold))
	}
	if c.Kmax < c.Kmin || c.Kmax > DCQCNMaxThreshold {
		return fmt.Errorf("cp: DCQCN Kmax = %v, want Kmin (%v)..%d bytes", c.Kmax, c.Kmin, int64(DCQCNMaxThreshold))
	}
	if c.Pmax > DCQCNPmaxOne {
		return fmt.Errorf("cp: DCQCN Pmax = %d, want 0..%d (Q0.16, %d = 1.0)", c.Pmax, DCQCNPmaxOne, DCQCNPmaxOne)
	}
	if c.Seed == 0 {
		return fmt.Errorf("cp: DCQCN Seed = 0, want 1..%d (0 is the LFSR lock-up state)", uint32(math.MaxUint32))
	}
	return nil
}

// DCQCNState is every register of a DCQCN congestion point.
type DCQCNState struct {
	// LFSR is the random generator's register (never 0).
	LFSR uint32
	// Started is false until the first OnEnqueue; Last is that call's time
	// (earlier times are rejected).
	Started bool
	Last    units.Time
	// Packets counts decisions, Draws the decisions that needed a random
	// draw, Marked the packets marked. 64-bit counters, wrapping.
	Packets, Draws, Marked uint64
}

// DCQCN is the marker of one egress queue. It is not safe for concurrent use.
// The zero value is not usable; build one with NewDCQCN.
type DCQCN struct {
	cfg DCQCNConfig
	// kmin, kmax are the thresholds in bytes.
	kmin, kmax uint64
	// slope = round(Pmax·2^16·2^31/(Kmax − Kmin)): probability per byte
	// above Kmin, Q0.32 scaled by 2^31. Unused when Kmax = Kmin.
	slope uint64
	// pmax is Pmax in Q0.32 (Pmax·2^16), the cap of the linear region.
	pmax uint64
	lfsr LFSR32
	s    DCQCNState
}

// NewDCQCN validates cfg and returns a marker whose LFSR holds cfg.Seed.
func NewDCQCN(cfg DCQCNConfig) (*DCQCN, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	l, err := NewLFSR32(cfg.Seed)
	if err != nil {
		return nil, err
	}
	c := &DCQCN{
		cfg:  cfg,
		kmin: uint64(cfg.Kmin),
		kmax: uint64(cfg.Kmax),
		pmax: uint64(cfg.Pmax) << (dcqcnProbFrac - dcqcnPmaxFrac),
		lfsr: l,
	}
	if d := c.kmax - c.kmin; d > 0 {
		// slope = Pmax·2^(32−16)·2^31/D, rounded to nearest (ties up).
		// Pmax ≤ 2^16, so the numerator is at most 2^63 and D/2 < 2^31
		// keeps the sum in 64 bits. Division at configuration time only.
		c.slope = (uint64(cfg.Pmax)<<(dcqcnProbFrac-dcqcnPmaxFrac+dcqcnSlopeFrac) + d/2) / d
	}
	return c, nil
}

// Config returns the configuration c was built with.
func (c *DCQCN) Config() DCQCNConfig { return c.cfg }

// State returns every register.
func (c *DCQCN) State() DCQCNState {
	s := c.s
	s.LFSR = c.lfsr.State()
	return s
}

// MarkProbability returns the marking probability at queue length qlen as a
// Q0.32 number: 0 for qlen ≤ Kmin (and for a negative qlen), 2^32 (1.0) for
// qlen > Kmax, and in between
//
//	p = Pmax·(qlen − Kmin)/(Kmax − Kmin) · 2^32
//
// computed as ((qlen − Kmin)·slope) >> 31, capped at Pmax·2^16. Error: the
// slope is within 1/2 of its exact value, so the product is within
// (Kmax − Kmin)/2^32 < 1 unit of the exact one before the shift truncates;
// the result is within one unit of floor(p) (units of 2^-32). Overflow: none,
// (qlen − Kmin) ≤ Kmax − Kmin < 2^32 and slope ≤ 2^63/(Kmax − Kmin) + 1.
func (c *DCQCN) MarkProbability(qlen units.Bytes) uint64 {
	if qlen <= 0 {
		return 0
	}
	q := uint64(qlen)
	if q <= c.kmin {
		return 0
	}
	if q > c.kmax {
		return dcqcnProbOne
	}
	// p = Pmax·(q − Kmin)/(Kmax − Kmin), in Q0.32.
	p := (q - c.kmin) * c.slope >> dcqcnSlopeFrac
	return min(p, c.pmax)
}

// OnEnqueue decides whether to mark a packet that sees queue length qlen
// (bytes) at time now, and advances the LFSR if the decision needed a draw.
// A negative qlen, or a now earlier than the previous call's, is an error and
// changes nothing.
func (c *DCQCN) OnEnqueue(now units.Time, qlen units.Bytes) (mark bool, err error) {
	if qlen < 0 {
		return false, fmt.Errorf("cp: DCQCN OnEnqueue qlen = %v, want ≥ 0", qlen)
	}
	if c.s.Started && now < c.s.Last {
		return false, fmt.Errorf("cp: DCQCN OnEnqueue at %v is before the previous call at %v", now, c.s.Last)
	}
	c.s.Started, c.s.Last = true, now
	c.s.Packets++
	switch p := c.MarkProbability(qlen); {
	case p == 0:
	case p >= dcqcnProbOne:
		mark = true
	default:
		c.s.Draws++
		// Mark with probability p/2^32: draw < p.
		mark = uint64(c.lfsr.Next()) < p
	}
	if mark {
		c.s.Marked++
	}
	return mark, nil
}
