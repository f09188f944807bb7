package cp

import (
	"math"
	"math/bits"
	"strconv"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/fixedpoint"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/voq"
	"github.com/hwcc/hwcc/wire"
)

// HierCC's first-hop formats: β and N(t) as registers hold them.
const (
	// HierCCBetaFrac is the fraction width of β: Q0.16 in a 32-bit register
	// (1.0 = 65536).
	HierCCBetaFrac = 16
	// HierCCMinBeta and HierCCMaxBeta bound β (HierCCFirstHopConfig.Beta):
	// from one LSB of Q0.16 to one LSB below 1, the values whose Q0.16
	// form lies in 1..65535.
	HierCCMinBeta = 1.0 / (1 << HierCCBetaFrac)
	HierCCMaxBeta = 1 - HierCCMinBeta
	// HierCCPaperBetaQ16 is β = 0.2 (section 5) in Q0.16: round(0.2·2^16) =
	// 13107, which is 0.199996948..., 3.05e-6 below 0.2 (a relative error
	// of −1.53e-5).
	HierCCPaperBetaQ16 = 13107
	// HierCCNFrac is the fraction width of the N(t) register: UQ16.16.
	HierCCNFrac = 16
	// kbitsPerBytePs converts a byte count over a time in ps to kb/s:
	// n bytes in d ps is n·8·10^12/d bit/s = n·8·10^9/d kb/s.
	hierccKbitsPerBytePs = 8_000_000_000
)

// HierCC's paper constants for the first hop ([HierCC] §3.3 and §5). KB
// is 1000 B (units.KB); the paper does not say. The credit constants C0
// and Δ are voq.PaperC0 and voq.PaperDelta, the host's mark interval
// rp.HierCCPaperMarkInterval.
const (
	HierCCPaperQ0    = 20 * units.KB // q0, the VOQ length eq. (1) steers to
	HierCCPaperVHigh = 70 * units.KB // stop the sources above it
	HierCCPaperVLow  = 50 * units.KB // resume them below it
	HierCCPaperBeta  = 0.2           // β
	// HierCCPaperRTTHop is RTT_hop, "quite small like 2us" (section 3.3); the
	// evaluation's 1 µs host links give 2 µs of propagation per round
	// trip.
	HierCCPaperRTTHop = 2 * units.Microsecond
)

// HierCCFirstCase is the reading of the first case of equation (1), which the
// paper prints as "R(t) = R_line if Q_voq < 0".
type HierCCFirstCase uint8

const (
	// HierCCBelowQ0 (the default): R = R_line while the VOQ is below q0 (empty
	// included). A queue length is never negative, so the printed
	// "Q_voq < 0" is read as Q_voq − q0 < 0, the sign of the equation's
	// drain term: below its target the VOQ asks for line rate.
	HierCCBelowQ0 HierCCFirstCase = iota
	// HierCCEmpty: R = R_line only while the VOQ is empty ("Q_voq ≤ 0"); between
	// 0 and q0 the equation runs with a negative drain term (it raises
	// the rate above R_credit/N to fill the queue to q0).
	HierCCEmpty
	// HierCCNever: the condition as printed, Q_voq < 0, which a queue length
	// never meets: R always follows the second case (a negative drain
	// term below q0, R kept when nothing arrived).
	HierCCNever
)

// String names the reading.
func (c HierCCFirstCase) String() string {
	switch c {
	case HierCCBelowQ0:
		return "below-q0"
	case HierCCEmpty:
		return "empty"
	case HierCCNever:
		return "never"
	}
	return "HierCCFirstCase(" + strconv.Itoa(int(c)) + ")"
}

// HierCCFirstHopConfig configures one VOQ's first-hop rate controller.
type HierCCFirstHopConfig struct {
	// LineRate is R_line, the host link rate: the first case's rate, the
	// ceiling of R and the initial R. A multiple of wire.HierCCRateUnit in
	// wire.HierCCRateUnit..wire.HierCCMaxRate.
	LineRate units.Rate
	// MinRate is the floor of equation (1)'s result, a multiple of
	// wire.HierCCRateUnit in wire.HierCCRateUnit..LineRate. The paper
	// states none. It is not 0 because a host told R = 0 sends nothing, so
	// marks nothing and would never hear a new rate: only the stop
	// (V_high) sets 0, and the ToR remembers whom it stopped. HierCC
	// presets: LineRate/256.
	MinRate units.Rate
	// Beta is β, HierCCMinBeta..HierCCMaxBeta, held in Q0.16 (0.2:
	// HierCCPaperBetaQ16).
	Beta float64
	// RTTHop is RTT_hop, the host-to-ToR round trip,
	// HierCCMinPeriod..HierCCMaxPeriod.
	RTTHop units.Time
	// Period is the measurement period of R_credit and R_arrive and of the
	// update, "every RTT_hop/β" (section 3.3); 0 takes round(RTTHop/β)
	// (10 µs for the paper's 2 µs and 0.2), which must then lie in
	// HierCCMinPeriod..HierCCMaxPeriod as Period does.
	Period units.Time
	// Q0 is q0, 0..VLow−1 bytes.
	Q0 units.Bytes
	// VLow < VHigh ≤ voq.MaxQueueLimit bytes (the VOQ's length register):
	// stop above VHigh, resume below VLow.
	VLow, VHigh units.Bytes
	// FirstCase is the reading of the equation's first case.
	FirstCase HierCCFirstCase
	// UpdateWhileStopped: equation (1) keeps running while the VOQ is
	// stopped (its R is not advertised: the rate is 0), and the resume
	// sends the R of the latest update. Off (the paper's section 3.3
	// literally): R is frozen at the stop, and the resume sends "the
	// previous rate value before stopping".
	UpdateWhileStopped bool
}

// HierCCPaperFirstHop returns the paper's first hop (sections 3.3 and 5) for
// hosts on links of rate line: β = 0.2, q0 = 20 KB, V_high = 70 KB,
// V_low = 50 KB, RTT_hop = 2 µs and a period of RTT_hop/β = 10 µs, with
// hwcc's floor MinRate = line/256 (rounded down to whole kb/s, at least 1
// kb/s).
func HierCCPaperFirstHop(line units.Rate) HierCCFirstHopConfig {
	return HierCCFirstHopConfig{
		LineRate: line,
		MinRate:  max(line/256/wire.HierCCRateUnit*wire.HierCCRateUnit, wire.HierCCRateUnit),
		Beta:     HierCCPaperBeta,
		RTTHop:   HierCCPaperRTTHop,
		Q0:       HierCCPaperQ0,
		VLow:     HierCCPaperVLow,
		VHigh:    HierCCPaperVHigh,
	}
}

const hierccFirstHopPart = "cp.HierCCFirstHop"

func hierccCfgErr(part, field, value, want string) error {
	return &cc.ConfigError{Part: part, Field: field, Value: value, Range: want}
}

// Validate reports the first field out of range as a *cc.ConfigError.
func (c HierCCFirstHopConfig) Validate() error {
	switch {
	case c.LineRate < wire.HierCCRateUnit || c.LineRate > wire.HierCCMaxRate || c.LineRate%wire.HierCCRateUnit != 0:
		return hierccCfgErr(hierccFirstHopPart, "LineRate", c.LineRate.String(), "a multiple of "+wire.HierCCRateUnit.String()+" in "+wire.HierCCRateUnit.String()+".."+wire.HierCCMaxRate.String())
	case c.MinRate < wire.HierCCRateUnit || c.MinRate > c.LineRate || c.MinRate%wire.HierCCRateUnit != 0:
		return hierccCfgErr(hierccFirstHopPart, "MinRate", c.MinRate.String(), "a multiple of "+wire.HierCCRateUnit.String()+" in "+wire.HierCCRateUnit.String()+"..LineRate")
	case !(c.Beta >= HierCCMinBeta && c.Beta <= HierCCMaxBeta):
		return hierccCfgErr(hierccFirstHopPart, "Beta", strconv.FormatFloat(c.Beta, 'g', -1, 64),
			strconv.FormatFloat(HierCCMinBeta, 'g', -1, 64)+".."+strconv.FormatFloat(HierCCMaxBeta, 'g', -1, 64))
	case c.RTTHop < HierCCMinPeriod || c.RTTHop > HierCCMaxPeriod:
		return hierccCfgErr(hierccFirstHopPart, "RTTHop", c.RTTHop.String(), HierCCMinPeriod.String()+".."+HierCCMaxPeriod.String())
	case c.Period != 0 && (c.Period < HierCCMinPeriod || c.Period > HierCCMaxPeriod):
		return hierccCfgErr(hierccFirstHopPart, "Period", c.Period.String(), "0 (RTTHop/β) or "+HierCCMinPeriod.String()+".."+HierCCMaxPeriod.String())
	case c.Period == 0 && float64(c.RTTHop)/c.Beta > float64(HierCCMaxPeriod):
		return hierccCfgErr(hierccFirstHopPart, "Period", "0 (RTTHop/β)", "RTTHop/β at most "+HierCCMaxPeriod.String())
	case c.VHigh < 1 || c.VHigh > voq.MaxQueueLimit:
		return hierccCfgErr(hierccFirstHopPart, "VHigh", c.VHigh.String(), "1B.."+units.Bytes(voq.MaxQueueLimit).String())
	case c.VLow < 1 || c.VLow >= c.VHigh:
		return hierccCfgErr(hierccFirstHopPart, "VLow", c.VLow.String(), "1B..VHigh−1")
	case c.Q0 < 0 || c.Q0 >= c.VLow:
		return hierccCfgErr(hierccFirstHopPart, "Q0", c.Q0.String(), "0B..VLow−1")
	case c.FirstCase > HierCCNever:
		return hierccCfgErr(hierccFirstHopPart, "FirstCase", c.FirstCase.String(), "below-q0, empty or never")
	}
	return nil
}

// period returns the measurement period the configuration gives.
func (c HierCCFirstHopConfig) period() units.Time {
	if c.Period != 0 {
		return c.Period
	}
	return units.Time(math.Round(float64(c.RTTHop) / c.Beta))
}

// fhConst is what New derives from a HierCCFirstHopConfig: the integer
// constants of the update.
type hierccFHConst struct {
	line, min uint32 // R_line, MinRate in kb/s
	betaQ16   uint32 // β, Q0.16
	// gainQ16 is β·8·10^9/RTT_hop in kb/s per byte, Q.16: the drain term
	// β·(Q − q0)/RTT_hop in kb/s is (gainQ16·(Q − q0)) >> 16.
	gainQ16 uint64
	period  units.Time
	q0      uint32
	vlow    uint32
	vhigh   uint32
	first   HierCCFirstCase
	update  bool // UpdateWhileStopped
}

func (c HierCCFirstHopConfig) consts() hierccFHConst {
	b := uint32(math.Round(c.Beta * (1 << HierCCBetaFrac)))
	return hierccFHConst{
		line:    uint32(c.LineRate / wire.HierCCRateUnit),
		min:     uint32(c.MinRate / wire.HierCCRateUnit),
		betaQ16: b,
		// ⌊β_Q16 · 8·10^9 / RTT_hop⌋: ≤ 2^16·8·10^9/1000 < 2^40.
		gainQ16: uint64(b) * hierccKbitsPerBytePs / uint64(c.RTTHop),
		period:  c.period(),
		q0:      uint32(c.Q0),
		vlow:    uint32(c.VLow),
		vhigh:   uint32(c.VHigh),
		first:   c.FirstCase,
		update:  c.UpdateWhileStopped,
	}
}

// hierccFirstHopState is every register of a FirstHop.
type hierccFirstHopState struct {
	// Rate is R(t), kb/s (32 bits): what eq. (1) last gave, and the rate
	// a stop freezes and the resume sends again.
	Rate uint32
	// Stopped: the VOQ went above V_high and has not yet come below
	// V_low; the advertised rate is 0.
	Stopped bool
	// Arrived and Credited are the bytes that joined the VOQ and the
	// credit bytes it received in the current window (32 bits,
	// saturating).
	Arrived, Credited uint32
	// RArrive and RCredit are R_arrive(t) and R_credit(t) of the last
	// update, kb/s (32 bits, saturating).
	RArrive, RCredit uint32
	// N is N(t) = R_arrive(t)/R(t−1) of the last update, UQ16.16 (32
	// bits, saturating); 0 when R_arrive was 0.
	N uint32
	// WindowStart is when the current measurement window opened;
	// Deadline when the next update is due.
	WindowStart, Deadline units.Time
	// Updates counts updates, Stops stops (64 bits, wrapping).
	Updates, Stops uint64
}

// The ToR state machines are typed cores that the switch point (ToR)
// wraps; each keeps the contract's register snapshot.
var (
	_ cc.RegisterSource = (*hierccFirstHop)(nil)
	_ cc.RegisterSource = (*hierccSender)(nil)
	_ cc.RegisterSource = (*hierccReceiver)(nil)
)

// FirstHop is the first-hop rate controller of one VOQ at a sender-side
// ToR ([HierCC] §3.3, equation (1)): the rate R each flow
// of the VOQ may send at, which the ToR sends to the flow's source in
// answer to a marked packet.
//
// Every period T = RTT_hop/β (Timer), over the window since the last
// update, with Q the VOQ's length then:
//
//	R_arrive(t) = bytes that joined the VOQ / window      (kb/s)
//	R_credit(t) = credit bytes received / window           (kb/s)
//	N(t)        = R_arrive(t) / R(t−1)                     (UQ16.16)
//	R(t) = R_line                                  if Q < q0
//	R(t) = R(t−1)·(R_credit(t) − β·(Q − q0)/RTT_hop)/R_arrive(t) otherwise
//	R(t) clamped to [MinRate, R_line]
//
// and on every change of Q (Arrive, Depart): stop (advertise R = 0) when
// Q > V_high, resume with the frozen R(t) when Q < V_low.
//
// # What N(t) is for
//
// The paper's per-flow rate is R(t) = R_target(t)/N(t) with R_target =
// R_credit − β(Q − q0)/RTT_hop, the VOQ's drain rate shared among its N
// active flows, and N(t) = R_arrive(t)/R(t−1) counts the flows as RCP
// does (each sends at R(t−1), so their sum over R(t−1) is their number).
// Substituting N gives equation (1). hwcc evaluates equation (1) as
// written, R(t−1)·R_target/R_arrive, one rounding instead of two (N's and
// the quotient's); N(t) is computed as well, as a register for traces and
// tests (its integer part is the flow count the equation divides by).
//
// # Integer form and error
//
// Rates are 32-bit registers in kb/s (wire.HierCCRateUnit). The window's byte counts
// are 32-bit saturating counters; R_arrive = ⌊A·8·10^9/W⌋ with W the
// window in ps, R_credit likewise. The drain term is
// ⌊gain·(Q − q0)⌋ >> 16 with gain = ⌊β_Q16·8·10^9/RTT_hop⌋ (Q.16 kb/s per
// byte) fixed in New: β's Q0.16 rounding is a relative error of −1.53e-5
// for 0.2, gain's floor less than 2^-16 kb/s per byte. The update is one
// 64×64→128-bit product and one division, truncating. Each of R_arrive,
// R_credit, the drain and the quotient truncates by under 1 kb/s, so one
// update is within
//
//	1 + R(t−1)·(2 + 1.6e-5·|drain|)/R_arrive + R(t)/R_arrive  kb/s
//
// of the real-valued equation fed the same bytes, window, Q and R(t−1)
// (the test's float model checks it over random inputs).
//
// # Divisions
//
// Three divisions per update (R_arrive, R_credit: by the window; the
// quotient) and one for N(t), all once per period per VOQ (10 µs), none
// per packet: a ToR's shared divider serves them between periods. When
// the caller is on time the window is the constant T and the first two
// are multiplications by the constant 8·10^9/T.
//
// # Choices the paper leaves open
//
//   - First case: HierCCBelowQ0 (default), Empty or Never, see HierCCFirstCase.
//   - R_arrive = 0 in a window (no packet joined, e.g. every source
//     stopped or the flows ended): N(t) is unknown and R keeps its value
//     (the first case still applies).
//   - R_credit − drain ≤ 0: R = MinRate (the clamp).
//   - While stopped, R is frozen (the default): the windows still close
//     on time, but the update is skipped, so that the resume sends "the
//     previous rate value before stopping" (section 3.3). With
//     UpdateWhileStopped the update runs and the resume sends its latest
//     R. Neither settles a synchronized burst of line-rate flows
//     (docs/scenarios.md, hiercc-burst): frozen, every resume sends the
//     line rate again; updated, the update after the stop sees the
//     burst's arrivals and the drain of a queue far above q0 and gives
//     MinRate, the VOQ empties, and the first case gives the line rate.
//   - The initial R is R_line (the paper's hosts start at line rate).
//   - A Timer called late runs every update it missed, each as at its own
//     deadline on the grid start + k·T (the contract's rule 4): the first
//     closes the window with what arrived in it, the later ones empty
//     windows (in closed form; see expire).
//
// A FirstHop is not safe for concurrent use. Build one with newHierCCFirstHop;
// nothing in it allocates after that, except the error of a refused event.
type hierccFirstHop struct {
	k     hierccFHConst
	clock cc.Monotonic
	st    hierccFirstHopState
}

// newHierCCFirstHop validates cfg and returns a controller at R = R_line, not
// stopped, its first window opening at time 0 and its first update due
// at T.
func newHierCCFirstHop(cfg HierCCFirstHopConfig) (*hierccFirstHop, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	f := &hierccFirstHop{}
	f.init(cfg.consts(), 0, cfg.period())
	return f, nil
}

// init sets f to its initial state with its first window opening at start
// and its first update due at deadline (> start).
func (f *hierccFirstHop) init(k hierccFHConst, start, deadline units.Time) {
	clock := f.clock
	*f = hierccFirstHop{k: k, clock: clock}
	f.st.Rate = k.line
	f.st.WindowStart = start
	f.st.Deadline = deadline
}

// Period returns T, the measurement period.
func (f *hierccFirstHop) Period() units.Time { return f.k.period }

// BetaQ16 returns β in Q0.16.
func (f *hierccFirstHop) BetaQ16() uint32 { return f.k.betaQ16 }

// State returns every register.
func (f *hierccFirstHop) State() hierccFirstHopState { return f.st }

// RateKbps returns the rate advertised now in kb/s: 0 while stopped, else
// R(t).
func (f *hierccFirstHop) RateKbps() uint32 {
	if f.st.Stopped {
		return 0
	}
	return f.st.Rate
}

// Rate is RateKbps as a units.Rate.
func (f *hierccFirstHop) Rate() units.Rate { return units.Rate(f.RateKbps()) * wire.HierCCRateUnit }

// Stopped reports whether the sources are stopped.
func (f *hierccFirstHop) Stopped() bool { return f.st.Stopped }

// NextDeadline is when the next update is due.
func (f *hierccFirstHop) NextDeadline() units.Time { return f.st.Deadline }

// rangeErr refuses a byte count outside 1..2^32 − 1 or a queue length
// outside 0..2^32 − 1.
//
//go:noinline
func hierccRangeErr(part, event, what string, v units.Bytes) error {
	return &cc.EventError{Part: part, Event: event, Reason: what + " " + v.String() + " outside 0..4294967295B (1.. for a packet)"}
}

// Arrive records n bytes (1..2^32−1) joining the VOQ at now, which then
// holds q bytes (0..2^32−1): n counts toward R_arrive, and the VOQ stops
// its sources if q > V_high (reported by stopped: true when this arrival
// stopped them). A refused event changes nothing.
func (f *hierccFirstHop) Arrive(now units.Time, n, q units.Bytes) (stopped bool, err error) {
	if !f.clock.InOrder(now) {
		return false, f.clock.Check(hierccFirstHopPart, "Arrive", now)
	}
	if n < 1 || n > math.MaxUint32 {
		return false, hierccRangeErr(hierccFirstHopPart, "Arrive", "packet", n)
	}
	if q < 0 || q > math.MaxUint32 {
		return false, hierccRangeErr(hierccFirstHopPart, "Arrive", "queue", q)
	}
	f.clock.Advance(now)
	f.st.Arrived = fixedpoint.SatAdd(f.st.Arrived, uint32(n))
	return f.check(uint32(q)) == hierccStopNow, nil
}

// Credit records n credit bytes (1..2^32−1) received at now: they count
// toward R_credit.
func (f *hierccFirstHop) Credit(now units.Time, n units.Bytes) error {
	if !f.clock.InOrder(now) {
		return f.clock.Check(hierccFirstHopPart, "Credit", now)
	}
	if n < 1 || n > math.MaxUint32 {
		return hierccRangeErr(hierccFirstHopPart, "Credit", "credit", n)
	}
	f.clock.Advance(now)
	f.st.Credited = fixedpoint.SatAdd(f.st.Credited, uint32(n))
	return nil
}

// Depart records the VOQ's length q after a packet left it at now, and
// resumes the sources if they were stopped and q < V_low (resumed: true;
// RateKbps is then the rate to send them).
func (f *hierccFirstHop) Depart(now units.Time, q units.Bytes) (resumed bool, err error) {
	if !f.clock.InOrder(now) {
		return false, f.clock.Check(hierccFirstHopPart, "Depart", now)
	}
	if q < 0 || q > math.MaxUint32 {
		return false, hierccRangeErr(hierccFirstHopPart, "Depart", "queue", q)
	}
	f.clock.Advance(now)
	return f.check(uint32(q)) == hierccResumeNow, nil
}

type hierccTransition uint8

const (
	hierccNoChange hierccTransition = iota
	hierccStopNow
	hierccResumeNow
)

// check applies the stop and resume thresholds to queue length q.
func (f *hierccFirstHop) check(q uint32) hierccTransition {
	switch {
	case !f.st.Stopped && q > f.k.vhigh:
		// R(t) = 0 "as long as the VOQ queue length is greater than V_high".
		f.st.Stopped = true
		f.st.Stops++
		return hierccStopNow
	case f.st.Stopped && q < f.k.vlow:
		// "When the queue length is less than V_low, the previous rate
		// value before stopping the source will be sent."
		f.st.Stopped = false
		return hierccResumeNow
	}
	return hierccNoChange
}

// Timer runs every update due at or before now (NextDeadline, then every
// T), each as at its own deadline, with q the VOQ's length (0..2^32−1),
// which no event changed since; before the deadline it only records now.
// It reports whether an update ran.
func (f *hierccFirstHop) Timer(now units.Time, q units.Bytes) (updated bool, err error) {
	if !f.clock.InOrder(now) {
		return false, f.clock.Check(hierccFirstHopPart, "Timer", now)
	}
	if q < 0 || q > math.MaxUint32 {
		return false, hierccRangeErr(hierccFirstHopPart, "Timer", "queue", q)
	}
	f.clock.Advance(now)
	if now < f.st.Deadline {
		return false, nil
	}
	f.expire(uint64(now-f.st.Deadline)/uint64(f.k.period)+1, uint32(q))
	return true, nil
}

// expire runs the k ≥ 1 updates due next, at Deadline, Deadline + T, ...,
// each as at its own deadline with the VOQ at q bytes. Only the first
// closes a window with arrivals or credits in it; the second closes an
// empty one (R_arrive = R_credit = N = 0), which leaves R at what the
// empty window gives it (line rate below q0 under HierCCBelowQ0, else
// unchanged); every later one closes another empty window with the same
// q and R, and so changes nothing but the update count, the window start
// and the deadline: they are counted in closed form, bit for bit what k
// calls of update would leave.
func (f *hierccFirstHop) expire(k uint64, q uint32) {
	d, T := f.st.Deadline, f.k.period
	f.update(d, q)
	last := d
	if k >= 2 {
		last = fixedpoint.SatAdd(d, T)
		f.update(last, q)
	}
	if k > 2 {
		last = fixedpoint.SatAdd(d, units.Time(k-1)*T)
		f.st.Updates += k - 2
		f.st.WindowStart = last
	}
	f.st.Deadline = fixedpoint.SatAdd(last, T)
	f.clock.Advance(last)
}

// update closes the window [WindowStart, now] with the VOQ at q bytes.
func (f *hierccFirstHop) update(now units.Time, q uint32) {
	w := uint64(now - f.st.WindowStart)
	a, c := f.st.Arrived, f.st.Credited
	f.st.Arrived, f.st.Credited, f.st.WindowStart = 0, 0, now
	if w == 0 {
		return
	}
	f.st.Updates++
	// R_arrive(t) = A/W and R_credit(t) = C/W, in kb/s: A·8·10^9/W_ps.
	rArr := fixedpoint.SatConv[uint32](fixedpoint.MulDivSat(uint64(a), hierccKbitsPerBytePs, w))
	rCr := fixedpoint.SatConv[uint32](fixedpoint.MulDivSat(uint64(c), hierccKbitsPerBytePs, w))
	f.st.RArrive, f.st.RCredit = rArr, rCr
	prev := f.st.Rate
	// N(t) = R_arrive(t)/R(t−1), UQ16.16 (R(t−1) ≥ MinRate ≥ 1 kb/s).
	f.st.N = fixedpoint.SatConv[uint32](fixedpoint.MulDivSat(uint64(rArr), 1<<HierCCNFrac, uint64(prev)))
	if f.st.Stopped && !f.k.update {
		return // R frozen until the resume
	}
	// First case: R(t) = R_line if Q_voq < q0 (HierCCBelowQ0) or Q_voq = 0 (Empty).
	if q < f.k.q0 && (f.k.first == HierCCBelowQ0 || (f.k.first == HierCCEmpty && q == 0)) {
		f.st.Rate = f.k.line
		return
	}
	if rArr == 0 {
		return // N(t) unknown: R(t) = R(t−1)
	}
	// drain = β·(Q_voq(t) − q0)/RTT_hop in kb/s: (gain_Q16·|Q − q0|) >> 16,
	// saturating at 2^63 (far above any R_credit).
	var target uint64 // R_credit(t) − drain, when positive
	if q >= f.k.q0 {
		drain := hierccMulShift16(f.k.gainQ16, uint64(q-f.k.q0))
		if drain >= uint64(rCr) {
			f.st.Rate = f.k.min // R_credit − drain ≤ 0: clamp to MinRate
			return
		}
		target = uint64(rCr) - drain
	} else { // Empty reading, 0 < Q < q0: a negative drain
		target = fixedpoint.SatAdd(uint64(rCr), hierccMulShift16(f.k.gainQ16, uint64(f.k.q0-q)))
	}
	// R(t) = R(t−1)·(R_credit(t) − β·(Q_voq(t) − q0)/RTT_hop)/R_arrive(t)
	r := fixedpoint.MulDivSat(uint64(prev), target, uint64(rArr))
	f.st.Rate = uint32(fixedpoint.Clamp(r, uint64(f.k.min), uint64(f.k.line)))
}

// AppendRegisters appends the registers to dst, in this order:
//
//	now          64 bits  ps, latest accepted time
//	rate         32 bits  R(t), kb/s
//	stopped       1 bit
//	arrived      32 bits  bytes joined in this window (saturating)
//	credited     32 bits  credit bytes in this window (saturating)
//	r_arrive     32 bits  R_arrive of the last update, kb/s
//	r_credit     32 bits  R_credit of the last update, kb/s
//	n            32 bits  N(t), UQ16.16
//	window_start 64 bits  ps
//	deadline     64 bits  ps
//	updates      64 bits  (wraps)
//	stops        64 bits  (wraps)
func (f *hierccFirstHop) AppendRegisters(dst []cc.Register) []cc.Register {
	return f.appendRegs(dst, true)
}

func (f *hierccFirstHop) appendRegs(dst []cc.Register, clock bool) []cc.Register {
	if clock {
		dst = append(dst, f.clock.Register())
	}
	return append(dst,
		cc.Reg("rate", 32, uint64(f.st.Rate)),
		cc.BoolReg("stopped", f.st.Stopped),
		cc.Reg("arrived", 32, uint64(f.st.Arrived)),
		cc.Reg("credited", 32, uint64(f.st.Credited)),
		cc.Reg("r_arrive", 32, uint64(f.st.RArrive)),
		cc.Reg("r_credit", 32, uint64(f.st.RCredit)),
		cc.Reg("n", 32, uint64(f.st.N)),
		cc.TimeReg("window_start", f.st.WindowStart),
		cc.TimeReg("deadline", f.st.Deadline),
		cc.Reg("updates", 64, f.st.Updates),
		cc.Reg("stops", 64, f.st.Stops),
	)
}

// mulShift16 returns ⌊a·b/2^16⌋, saturating at 2^63.
func hierccMulShift16(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return min(fixedpoint.ShrSat128(hi, lo, 16), 1<<63)
}
