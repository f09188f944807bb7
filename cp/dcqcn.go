package cp

import (
	"math"
	"strconv"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/fixedpoint"
	"github.com/hwcc/hwcc/units"
)

// The ranges and units of DCQCNConfig's fields, stated once: Validate,
// the registry (package algos) and the docs read them from here.
const (
	// DCQCNPmaxOne is Pmax = 1.0 in the Q0.16 format of
	// DCQCNConfig.Pmax, and Pmax's largest value (Range: 0..DCQCNPmaxOne).
	DCQCNPmaxOne = 1 << dcqcnPmaxFrac
	// DCQCNPmaxUnit is Pmax's unit as the registry and errors name it.
	DCQCNPmaxUnit = "Q0.16, 65536 = 1.0"
	// DCQCNMaxThreshold is the largest Kmin or Kmax: the thresholds are
	// 32-bit byte registers (Range: 0..DCQCNMaxThreshold).
	DCQCNMaxThreshold units.Bytes = math.MaxUint32
)

// DCQCNDefaultSeed is the LFSR seed of the presets. Any non-zero value works
// (fixedpoint.LFSR32SeedMin..LFSR32SeedMax); give each queue of a switch its
// own seed to decorrelate their marks.
const DCQCNDefaultSeed uint32 = 0xACE1ACE1

// DCQCNPmaxUnit's words are DCQCNPmaxOne's value: 2^16 = 65536.
var (
	_ [DCQCNPmaxOne - 65536]byte
	_ [65536 - DCQCNPmaxOne]byte
)

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

// dcqcnPart names the DCQCN congestion point in errors.
const dcqcnPart = "cp.DCQCN"

// DCQCNMarkAt is where a DCQCN congestion point takes its marking decision:
// as a packet leaves the queue or as it joins it. The sources do not agree
// (see the constants), so it is a configuration choice; the congestion
// point, not its caller, applies it: of the two events it is told about
// (cc's Enqueue and Dequeue), it judges the packet at the one MarkAt names
// and only records the time of the other.
type DCQCNMarkAt uint8

const (
	// DCQCNMarkDequeue (the zero value and the default) judges a packet as
	// it leaves the queue, against the queue it leaves behind. This is the
	// HPCC authors' ns-3 switch, which marks in its dequeue hook after
	// taking the frame out of the egress count; the mark then reaches the
	// receiver without waiting behind the queue it reports. It reproduces
	// the HPCC paper's DCQCN incast ([HPCC] §5.2: "the
	// queue builds up to 550 KB"; hwcc's dcqcn-incast scenario measures a
	// first peak of 558 KB, against 2.0 MB when marking on enqueue, whose
	// mark travels behind up to Kmax of queue).
	DCQCNMarkDequeue DCQCNMarkAt = iota
	// DCQCNMarkEnqueue judges a packet as it joins the queue, against the
	// queue including it: the survey's wording ("mark an arriving packet",
	// [Survey] §4.1.2) and RED's classic
	// placement.
	DCQCNMarkEnqueue
)

// String returns "dequeue" or "enqueue".
func (m DCQCNMarkAt) String() string {
	switch m {
	case DCQCNMarkDequeue:
		return "dequeue"
	case DCQCNMarkEnqueue:
		return "enqueue"
	}
	return "DCQCNMarkAt(" + strconv.Itoa(int(m)) + ")"
}

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
	// Pmax/65536, with DCQCNPmaxOne (65536) = 1.0. Range:
	// 0..DCQCNPmaxOne. 0.2 is 13107 (0.2·65536 = 13107.2, rounded to
	// nearest).
	Pmax uint32
	// Seed is the fixedpoint.LFSR32's initial state. Range:
	// fixedpoint.LFSR32SeedMin..LFSR32SeedMax, 1..2^32−1 (0 is the LFSR
	// lock-up state).
	Seed uint32
	// MarkAt is where the decision is taken: DCQCNMarkDequeue (the zero
	// value, the presets') or DCQCNMarkEnqueue.
	MarkAt DCQCNMarkAt
}

// DCQCNHPCCSim is the marker of the HPCC paper's DCQCN runs
// ([HPCC] §5.1, "Parameters": Kmin = 100 KB·Bw/25 Gb/s and
// Kmax = 400 KB·Bw/25 Gb/s, "according to our experiences (no vendor
// suggestion available)"). The paper gives no Pmax; 0.2 is [HPCC-ns3]'s
// run script's (docs/derivations.md, DCQCN presets). KB is 1000 B; the
// thresholds are rounded down to whole bytes. It marks on dequeue, as the
// authors' ns-3 switch does (DCQCNMarkDequeue).
func DCQCNHPCCSim(link units.Rate) DCQCNConfig {
	return DCQCNConfig{
		Kmin:   dcqcnScaleBytes(100*units.KB, link),
		Kmax:   dcqcnScaleBytes(400*units.KB, link),
		Pmax:   13107, // 0.2 in Q0.16
		Seed:   DCQCNDefaultSeed,
		MarkAt: DCQCNMarkDequeue,
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

// Validate checks every field's range and returns a *cc.ConfigError naming
// the first field out of range (its Go name), its value and the allowed
// range.
func (c DCQCNConfig) Validate() error {
	bad := func(field, value, want string) error {
		return &cc.ConfigError{Part: dcqcnPart, Field: field, Value: value, Range: want}
	}
	maxB := strconv.FormatInt(int64(DCQCNMaxThreshold), 10) + "B"
	if c.Kmin < 0 || c.Kmin > DCQCNMaxThreshold {
		return bad("Kmin", c.Kmin.String(), "0.."+maxB+" (a 32-bit register)")
	}
	if c.Kmax < c.Kmin || c.Kmax > DCQCNMaxThreshold {
		return bad("Kmax", c.Kmax.String(), "Kmin ("+c.Kmin.String()+").."+maxB)
	}
	if c.Pmax > DCQCNPmaxOne {
		return bad("Pmax", strconv.FormatUint(uint64(c.Pmax), 10), "0.."+strconv.Itoa(DCQCNPmaxOne)+" ("+DCQCNPmaxUnit+")")
	}
	if c.Seed < fixedpoint.LFSR32SeedMin {
		return bad("Seed", strconv.FormatUint(uint64(c.Seed), 10), fixedpoint.LFSR32SeedRange())
	}
	if c.MarkAt > DCQCNMarkEnqueue {
		return bad("MarkAt", c.MarkAt.String(), "DCQCNMarkDequeue or DCQCNMarkEnqueue")
	}
	return nil
}

// DCQCNState is every register of a DCQCN congestion point but the time of
// its latest event (DCQCN.Last).
type DCQCNState struct {
	// LFSR is the random generator's register (never 0).
	LFSR uint32
	// Packets counts decisions (packets judged at MarkAt), Draws the
	// decisions that needed a random draw, Marked the packets marked.
	// 64-bit counters, wrapping.
	Packets, Draws, Marked uint64
}

// DCQCN is the congestion point of DCQCN: RED-style ECN marking at one
// switch egress queue ([Survey] §4.1.2, "CP
// algorithm"; [DCQCN]; [RED]). With q the queue length when the packet
// is judged:
//
//	q ≤ Kmin          never mark
//	Kmin < q ≤ Kmax   mark with probability Pmax·(q − Kmin)/(Kmax − Kmin)
//	q > Kmax          always mark
//
// Integer form. The probability is a Q0.32 number p (2^32 = 1.0), the width of
// the random draw, and a packet is marked when draw < p, the draw coming from
// a fixedpoint.LFSR32 (see its doc: x^32 + x^22 + x^2 + x + 1, 32 steps per draw). The
// draw is uniform over 1..2^32−1, so the realised probability is
// (p − 1)/(2^32 − 1) for p ≥ 1: 0 at p = 0, 1 at p = 2^32, and within 2^-32
// of p/2^32 in between.
//
// No division on the per-packet path: New precomputes the slope
// Pmax·2^16·2^31/(Kmax − Kmin), rounded to nearest, and a decision is one
// subtraction, one 64-bit multiply and one shift (see DCQCN.MarkProbability
// for the error bound, under 2 units of 2^-32).
//
// Registers: the 32-bit LFSR, the time of the latest event (64-bit ps) and
// three 64-bit model counters (AppendRegisters lists them).
//
// Events. DCQCN implements cc.CongestionPoint: Enqueue and Dequeue read
// q.Len and append one cc.ActionMarkCE when the packet is to be marked (an
// Actions without room for it makes the event fail with
// *cc.ActionsFullError and change nothing); it has no timer. The decision
// is taken at the event DCQCNConfig.MarkAt names, which therefore refuses
// a nil Actions (cc's rule 3); the other event only records its time.
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
//   - q is whatever the caller passes as the queue's length: on Enqueue
//     the queue including the arriving packet, on Dequeue the queue the
//     departing packet leaves behind (cc.Queue's convention; the harness
//     counts wire bytes). No averaging: DCQCN switches mark on the
//     instantaneous queue.
//   - Where the decision is taken: DCQCNConfig.MarkAt (see DCQCNMarkAt),
//     dequeue by default.
//   - A packet already carrying CE is judged like any other (its draw is
//     taken), and a mark asks for CE, which it already has.
//
// It is not safe for concurrent use. The zero value is not usable; build
// one with NewDCQCN.
type DCQCN struct {
	cfg DCQCNConfig
	// kmin, kmax are the thresholds in bytes.
	kmin, kmax uint64
	// slope = round(Pmax·2^16·2^31/(Kmax − Kmin)): probability per byte
	// above Kmin, Q0.32 scaled by 2^31. Unused when Kmax = Kmin.
	slope uint64
	// pmax is Pmax in Q0.32 (Pmax·2^16), the cap of the linear region.
	pmax  uint64
	lfsr  fixedpoint.LFSR32
	s     DCQCNState
	clock cc.Monotonic
}

var _ cc.CongestionPoint = (*DCQCN)(nil)

// NewDCQCN validates cfg and returns a marker whose LFSR holds cfg.Seed. An
// invalid cfg is a *cc.ConfigError.
func NewDCQCN(cfg DCQCNConfig) (*DCQCN, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	l, err := fixedpoint.NewLFSR32(cfg.Seed)
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

// State returns every register but the time (Last).
func (c *DCQCN) State() DCQCNState {
	s := c.s
	s.LFSR = c.lfsr.State()
	return s
}

// Last returns the time of the latest event accepted (0 before any).
func (c *DCQCN) Last() units.Time { return c.clock.Last() }

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
// It reads no register and changes none.
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

// dcqcnEvent names an event method in errors: a small integer on the
// event path, its name (dcqcnEventNames) only when an error is built.
type dcqcnEvent uint8

// The events.
const (
	dcqcnEnqueue dcqcnEvent = iota
	dcqcnDequeue
	dcqcnTimer
)

// dcqcnEventNames are the events' names, as errors give them.
var dcqcnEventNames = [...]string{"Enqueue", "Dequeue", "Timer"}

// String returns the event method's name.
func (e dcqcnEvent) String() string { return dcqcnEventNames[e] }

// onEnqueue is Enqueue's decision without the actions: a packet joined
// the queue at now, qlen (bytes) being the queue including it. With MarkAt
// = DCQCNMarkEnqueue it decides whether to mark the packet, advancing the
// LFSR if the decision needed a draw; otherwise it records now and returns
// false. Errors as Enqueue's; either changes nothing.
func (c *DCQCN) onEnqueue(now units.Time, qlen units.Bytes) (mark bool, err error) {
	return c.judge(dcqcnEnqueue, DCQCNMarkEnqueue, now, qlen)
}

// onDequeue is Dequeue's decision without the actions: a packet left the
// queue at now, qlen (bytes) being the queue it leaves behind. With MarkAt
// = DCQCNMarkDequeue (the default) it decides whether to mark the packet;
// otherwise it records now and returns false.
func (c *DCQCN) onDequeue(now units.Time, qlen units.Bytes) (mark bool, err error) {
	return c.judge(dcqcnDequeue, DCQCNMarkDequeue, now, qlen)
}

// Enqueue implements cc.CongestionPoint: a packet joined the queue at now,
// q.Len (bytes) being the queue including it. With MarkAt =
// DCQCNMarkEnqueue it decides whether to mark the packet (advancing the
// LFSR if the decision needed a draw) and appends one cc.ActionMarkCE to
// act when it does; otherwise it only records now. p is not read (it may
// be nil). A negative q.Len is a *cc.EventError, a now before the latest
// event's a *cc.TimeOrderError, a mark without room in act a
// *cc.ActionsFullError; each changes nothing. The event MarkAt names can
// decide, so it refuses a nil act with cc.NoActions's error whether or not
// it would mark (cc's rule 3); the other event never decides and takes
// nil.
func (c *DCQCN) Enqueue(now units.Time, _ *cc.Packet, q cc.Queue, act *cc.Actions) error {
	return c.event(dcqcnEnqueue, DCQCNMarkEnqueue, now, q.Len, act)
}

// Dequeue implements cc.CongestionPoint: a packet left the queue at now,
// q.Len (bytes) being the queue it leaves behind. With MarkAt =
// DCQCNMarkDequeue (the default) it decides whether to mark the packet;
// otherwise it only records now. As Enqueue otherwise.
func (c *DCQCN) Dequeue(now units.Time, _ *cc.Packet, q cc.Queue, act *cc.Actions) error {
	return c.event(dcqcnDequeue, DCQCNMarkDequeue, now, q.Len, act)
}

// event runs a contract event through judge. With room for a mark it is
// judge plus the action; without (eventTight), judge runs on a copy of the
// marker that is kept only if it marks nothing (a mark is then refused,
// changing nothing), and at the event that judges a nil act is refused
// first.
func (c *DCQCN) event(event dcqcnEvent, at DCQCNMarkAt, now units.Time, qlen units.Bytes, act *cc.Actions) error {
	if act.Free() > 0 {
		mark, err := c.judge(event, at, now, qlen)
		if mark {
			act.MarkCE()
		}
		return err
	}
	return c.eventTight(event, at, now, qlen, act)
}

// eventTight is event without room in act (a nil act included). It is
// out of line so that event's common path carries no copy of the marker.
//
//go:noinline
func (c *DCQCN) eventTight(event dcqcnEvent, at DCQCNMarkAt, now units.Time, qlen units.Bytes, act *cc.Actions) error {
	if act == nil && at == c.cfg.MarkAt {
		if !c.clock.InOrder(now) {
			return c.clock.Check(dcqcnPart, event.String(), now)
		}
		return dcqcnNoActions(event)
	}
	trial := *c
	mark, err := trial.judge(event, at, now, qlen)
	if err != nil {
		return err
	}
	if mark {
		return dcqcnFull(event, act.Free())
	}
	*c = trial
	return nil
}

// judge is the one code path of Enqueue and Dequeue: a packet seen at the
// event at; the decision is taken if at is MarkAt, and the registers
// (time, LFSR, counters) committed. An error changes nothing.
func (c *DCQCN) judge(event dcqcnEvent, at DCQCNMarkAt, now units.Time, qlen units.Bytes) (mark bool, err error) {
	if !c.clock.InOrder(now) {
		return false, c.clock.Check(dcqcnPart, event.String(), now)
	}
	if qlen < 0 {
		return false, dcqcnNegativeQueue(event, qlen)
	}
	c.clock.Advance(now)
	if at != c.cfg.MarkAt {
		return false, nil
	}
	return c.decide(qlen), nil
}

// decide is the decision on a packet judged against the queue qlen ≥ 0:
// the counters, the draw when the probability needs one, and whether to
// mark. It reads no clock: judge's, or another part's that marks as DCQCN
// does (TCD, in its congested state).
func (c *DCQCN) decide(qlen units.Bytes) (mark bool) {
	c.s.Packets++
	switch p := c.MarkProbability(qlen); {
	case p == 0:
	case p >= dcqcnProbOne:
		mark = true
	default:
		// Mark with probability p/2^32: draw < p.
		c.s.Draws++
		mark = uint64(c.lfsr.Next()) < p
	}
	if mark {
		c.s.Marked++
	}
	return mark
}

// dcqcnNegativeQueue is the error of a negative queue length. Errors are
// built out of line, so that the event path holds no allocation site.
//
//go:noinline
func dcqcnNegativeQueue(event dcqcnEvent, qlen units.Bytes) error {
	return negativeQueue(dcqcnPart, event.String(), qlen)
}

// negativeQueue is a queue's congestion point's error for an event that
// reports a negative queue length (a *cc.EventError), out of line.
//
//go:noinline
func negativeQueue(part, event string, qlen units.Bytes) error {
	return &cc.EventError{Part: part, Event: event, Reason: "queue length " + qlen.String() + " is negative"}
}

// dcqcnNoActions is the error of a nil Actions at the event that judges
// (cc.NoActions, kept out of line).
//
//go:noinline
func dcqcnNoActions(event dcqcnEvent) error { return cc.NoActions(dcqcnPart, event.String()) }

// dcqcnFull is the error of a mark that does not fit the caller's Actions.
//
//go:noinline
func dcqcnFull(event dcqcnEvent, free int) error {
	return &cc.ActionsFullError{Part: dcqcnPart, Event: event.String(), Need: 1, Free: max(free, 0)}
}

// NextDeadline implements cc.Clock: the marker has no timer, units.MaxTime.
func (c *DCQCN) NextDeadline() units.Time { return units.MaxTime }

// Timer implements cc.Clock: with no timer it only records now (a now
// before the latest event's is a *cc.TimeOrderError).
func (c *DCQCN) Timer(now units.Time, _ *cc.Actions) error {
	if !c.clock.InOrder(now) {
		return c.clock.Check(dcqcnPart, dcqcnTimer.String(), now)
	}
	c.clock.Advance(now)
	return nil
}

// AppendRegisters implements cc.Part: now (64-bit ps), lfsr (32 bits), and
// the 64-bit model counters packets, draws and marked, in that order.
func (c *DCQCN) AppendRegisters(dst []cc.Register) []cc.Register {
	return append(dst,
		c.clock.Register(),
		cc.Reg("lfsr", 32, uint64(c.lfsr.State())),
		cc.Reg("packets", 64, c.s.Packets),
		cc.Reg("draws", 64, c.s.Draws),
		cc.Reg("marked", 64, c.s.Marked),
	)
}
