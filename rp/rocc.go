package rp

import (
	"fmt"
	"math"
	"strconv"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/fixedpoint"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// roccPart names rp.RoCC in errors.
const roccPart = "rp.RoCC"

// RoCCConfig configures a RoCC reaction point. Rates are bit/s, times are
// picoseconds (units package).
type RoCCConfig struct {
	// RMax is Rmax, the maximum send rate (Table II: "usually the link
	// bandwidth", §III-E). Range: a positive multiple of DeltaF with
	// RMax/DeltaF ≤ RoCCRateMax/2, so that Rcur = 2·Rmax fits the register.
	RMax units.Rate

	// DeltaF is ΔF, the rate resolution: a CNP's rate field counts ΔF
	// units, Rrcvd = GETRATE(cnp)·ΔF (Algorithm 2 line 2, Table II). It must
	// equal the ΔF of every CP on the path. The paper uses 10 Mb/s
	// (§VI, "System parameters"). Range: ≥ 1 bit/s.
	DeltaF units.Rate

	// RecoveryPeriod is the fast-recovery timer of Algorithm 2 (lines 7 and
	// 13): after this long without an accepted CNP the rate doubles. The
	// paper gives no value; [RoCC-code] doubles after 55 µs
	// (docs/derivations.md, RoCC). Range: > 0.
	RecoveryPeriod units.Time

	// ReactionDelay is the NIC's delay between a CNP's arrival and its effect
	// on the rate limiter: 15 µs in the paper's simulations (§VI,
	// "System parameters"). RoCC does not apply it: the caller (the harness's
	// NIC model) delivers a CNP to Feedback ReactionDelay after
	// it arrives. It is here so that a configuration carries it. Range: ≥ 0.
	ReactionDelay units.Time
}

// RoCCRateMax is the largest value of the Rcur register and of an accepted
// CNP rate: Rcur is a 32-bit unsigned register in ΔF units. Doubling
// saturates at this value (it cannot be reached with a valid RMax and a
// 16-bit CNP rate field, since RMax/ΔF ≤ RoCCRateMax/2).
const RoCCRateMax = math.MaxUint32

// roccDoubleShift is line 12's Rcur × 2.
const roccDoubleShift = 1

// RoCC40G is the reaction point of the paper's 40 Gb/s simulations
// ([RoCC] §VI, "System parameters": ΔF = 10 Mb/s, NIC
// reaction delay 15 µs; Rmax = the 40 Gb/s link, Table II) with the
// recovery timer of [RoCC-code], 55 µs (docs/derivations.md, RoCC).
func RoCC40G() RoCCConfig {
	return RoCCConfig{
		RMax:           40 * units.Gbps,
		DeltaF:         10 * units.Mbps,
		RecoveryPeriod: 55 * units.Microsecond,
		ReactionDelay:  15 * units.Microsecond,
	}
}

// RoCC100G is RoCC40G on the paper's 100 Gb/s links (§VI, "System
// parameters").
func RoCC100G() RoCCConfig {
	c := RoCC40G()
	c.RMax = 100 * units.Gbps
	return c
}

// RoCCDPDK10G is the reaction point of the DPDK testbed (§VI-B: Intel
// X710 10 Gb/s NICs, Pktgen rate-limited by the computed fair rate). The
// paper gives neither ΔF nor the recovery timer for the testbed; this
// preset keeps the simulation's ΔF = 10 Mb/s and the authors' 55 µs timer.
// ReactionDelay is 0: the testbed's delay is whatever the hosts add.
func RoCCDPDK10G() RoCCConfig {
	c := RoCC40G()
	c.RMax = 10 * units.Gbps
	c.ReactionDelay = 0
	return c
}

// RoCCTofino40G is the reaction point of the Tofino testbed (§VI-C:
// 40 Gb/s links, Pktgen on a Chelsio T62100 host). As for RoCCDPDK10G, ΔF
// and the recovery timer are the simulation's, since the paper gives none.
func RoCCTofino40G() RoCCConfig {
	c := RoCC40G()
	c.ReactionDelay = 0
	return c
}

// Validate checks every field's range and returns a *cc.ConfigError
// naming the first field out of range (its Go name) and the allowed range.
func (c RoCCConfig) Validate() error {
	bad := func(field string, v any, want string) error {
		return &cc.ConfigError{Part: roccPart, Field: field, Value: fmt.Sprint(v), Range: want}
	}
	if c.DeltaF < 1 {
		return bad("DeltaF", c.DeltaF, "≥ 1bps")
	}
	if c.RMax < c.DeltaF || c.RMax%c.DeltaF != 0 {
		return bad("RMax", c.RMax, "a positive multiple of DeltaF ("+c.DeltaF.String()+")")
	}
	if uint64(c.RMax/c.DeltaF) > RoCCRateMax/2 {
		return bad("RMax", c.RMax, fmt.Sprintf("at most %d·DeltaF (Rcur = 2·Rmax must fit 32 bits); it is %d ΔF",
			uint64(RoCCRateMax/2), c.RMax/c.DeltaF))
	}
	if c.RecoveryPeriod <= 0 {
		return bad("RecoveryPeriod", c.RecoveryPeriod, "> 0")
	}
	if c.ReactionDelay < 0 {
		return bad("ReactionDelay", c.ReactionDelay, "≥ 0")
	}
	return nil
}

// RoCCState is every register of a RoCC reaction point.
type RoCCState struct {
	// Limited is true while a rate limiter is installed (Algorithm 2: from
	// the first accepted CNP until line 10 removes it).
	Limited bool
	// RCur is Rcur in ΔF units, a 32-bit unsigned register (saturating);
	// 0 while not limited (where the algorithm's Rcur is +∞).
	RCur uint32
	// CPCur is CPcur, the CP of the last accepted CNP; meaningful only while
	// Limited.
	CPCur uint64
	// Deadline is the recovery timer's expiry; units.MaxTime while not
	// limited.
	Deadline units.Time
	// Last is the time of the latest event (the cc.Monotonic register);
	// events earlier than it are refused.
	Last units.Time
	// Accepted, Rejected, Doublings and Removals count CNPs accepted and
	// rejected on line 4, rate doublings (line 12) and limiter removals
	// (line 10); Unused the messages Algorithm 2 does not use (the register
	// unused_feedback, rule 8 of package cc). 64-bit counters, wrapping.
	Accepted, Rejected, Doublings, Removals, Unused uint64
}

// RoCC is the reaction point of one flow: one rate limiter (RL) at the
// sender, fed by the fair rates the congestion points on the flow's path
// send in CNPs ([RoCC] §III-E, Algorithm 2 "Rate Limiting at the RP"). Its
// events are the cc.ReactionPoint contract's; its other methods read its
// state. It is not safe for concurrent use. The zero value is not usable;
// build one with NewRoCC.
//
// Algorithm 2, as implemented (line numbers are the paper's):
//
//	1: procedure PROCESS_CNP(cnp)                      Feedback
//	2:   Rrcvd ← GETRATE(cnp) × ΔF                      the CNP's rate, ΔF units
//	3:   CPrcvd ← GETCP(cnp)                            its switch and port
//	4:   if Rrcvd ≤ Rcur OR CPrcvd = CPcur then
//	5:     Rcur ← Rrcvd
//	6:     CPcur ← CPrcvd
//	7:     RESET_TIMER()
//	8: procedure TIMER_EXPIRED                         Timer
//	9:   if Rcur > Rmax then
//	10:    remove this rate limiter if its queue is empty
//	11:  else
//	12:    Rcur ← Rcur × 2
//	13:  RESET_TIMER()
//
// Choices where the paper is silent, each a documented behaviour:
//
//   - No limiter installed (the initial state, and after line 10): the flow
//     sends at Rmax and has no CPcur; Rcur is taken as +∞, so line 4 accepts
//     any CNP and installs the limiter with Rcur = Rrcvd.
//   - Line 10's "if its queue is empty" is the NIC's resource decision, not a
//     rate decision: a limiter whose Rcur exceeds Rmax never limits (the flow
//     cannot send above Rmax anyway). TIMER_EXPIRED therefore always
//     uninstalls it (Limited() becomes false) and the caller frees the RL's
//     slot when its queue drains. The rate the flow may use is the same
//     either way.
//   - Between line 12 and the next expiry, Rcur may exceed Rmax (at most
//     2·Rmax); Rate() clamps to Rmax, so the rate the flow uses never
//     exceeds Rmax.
//   - RESET_TIMER on line 13 re-arms from the expiry instant (deadline += T),
//     so the timer keeps its own phase however late the caller is; on line 7
//     it re-arms from the CNP's arrival (deadline = now + T).
//   - Every event (a CNP, a sent packet, any message, Timer) first applies
//     the recovery-timer expiries due at or before its now, each at its own
//     deadline (rule 4 of package cc), so that line 4 compares with Rcur as
//     it stands then, whether or not the caller called Timer at every
//     deadline.
//   - The NIC's reaction delay (RoCCConfig.ReactionDelay, ReactionDelay) is
//     the caller's: it delivers each CNP that much after its arrival (the
//     harness keeps a FIFO of delayed CNPs in front of the RP).
//
// # The contract (cc.ReactionPoint)
//
// Feedback takes a cc.FeedbackRate message whose Data is the CP's 16-byte
// CNP (wire.RoCCFeedback, type 1): it decodes it, refuses a message that
// names another flow than f.Flow, and runs PROCESS_CNP with the CNP's rate
// and CP (GETCP is the payload's switch and port, wire.RoCCFeedback.CP;
// f.From is not read). A message Algorithm 2 does not use (an ACK, a NAK,
// a DCQCN CNP, another scheme's message, or a RoCC report, type 2, which
// is RoCCHost's) is taken and counted in the register unused_feedback
// (rule 8), so that a miswired caller shows. Sent does nothing of its own.
// Limits is {Rate: Rate(), no window}. Timer is the recovery timer
// (TIMER_EXPIRED). RoCC appends no action, so every event takes a nil
// *cc.Actions.
//
// Errors: *cc.TimeOrderError for an event before the latest one (or before
// time 0); *cc.EventError for a nil message, a malformed CNP (wrapping the
// *cc.DecodeError with its byte offset; a rate message's rate of 0
// included) or one for another flow than the message's; an event that
// fails changes nothing.
type RoCC struct {
	cfg    RoCCConfig
	rmax   uint64 // Rmax in ΔF units
	state  RoCCState
	clock  cc.Monotonic
	unused cc.Unused // messages Algorithm 2 does not use (rule 8)
}

var _ cc.ReactionPoint = (*RoCC)(nil)

// NewRoCC validates cfg and returns a reaction point with no rate limiter
// installed: the flow sends at RMax until the first CNP.
func NewRoCC(cfg RoCCConfig) (*RoCC, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	r := &RoCC{cfg: cfg, rmax: uint64(cfg.RMax / cfg.DeltaF)}
	r.state.Deadline = units.MaxTime
	return r, nil
}

// Config returns the configuration r was built with.
func (r *RoCC) Config() RoCCConfig { return r.cfg }

// ReactionDelay is the NIC's delay from a CNP's arrival to its effect
// (RoCCConfig.ReactionDelay), which the caller applies: a simulator
// delivers each CNP to Feedback this much after it arrives. The harness's
// generic adapter reads it through this method.
func (r *RoCC) ReactionDelay() units.Time { return r.cfg.ReactionDelay }

// State returns every register.
func (r *RoCC) State() RoCCState {
	s := r.state
	s.Last = r.clock.Last()
	s.Unused = r.unused.N()
	return s
}

// Limited reports whether a rate limiter is installed.
func (r *RoCC) Limited() bool { return r.state.Limited }

// NextDeadline returns when the recovery timer expires next: the caller
// calls Timer at or after it. units.MaxTime while no limiter is installed.
func (r *RoCC) NextDeadline() units.Time { return r.state.Deadline }

// Rate returns the rate the flow may send at, in bit/s: min(Rcur·ΔF, Rmax)
// while limited, Rmax otherwise (Limits().Rate). It never exceeds Rmax.
func (r *RoCC) Rate() units.Rate {
	if !r.state.Limited || uint64(r.state.RCur) >= r.rmax {
		return r.cfg.RMax
	}
	// Rcur·ΔF < Rmax, no overflow.
	return units.Rate(r.state.RCur) * r.cfg.DeltaF
}

// RCur returns the Rcur register in ΔF units, as the snapshot's "rcur" (0
// while not limited).
func (r *RoCC) RCur() uint32 { return r.state.RCur }

// expire runs TIMER_EXPIRED for every deadline ≤ now. Each expiry either
// doubles Rcur or removes the limiter, and Rcur ≥ 1 reaches above Rmax in at
// most 32 doublings, so the loop runs at most 33 times.
func (r *RoCC) expire(now units.Time) bool {
	fired := false
	for r.state.Limited && r.state.Deadline <= now {
		fired = true
		// 9: if Rcur > Rmax then
		if uint64(r.state.RCur) > r.rmax {
			// 10: remove this rate limiter (if its queue is empty: the
			// caller frees the slot when the queue drains; see the type's
			// comment).
			r.state.Limited = false
			r.state.RCur = 0
			r.state.CPCur = 0
			r.state.Deadline = units.MaxTime
			r.state.Removals++
			continue
		}
		// 11: else
		// 12: Rcur ← Rcur × 2 (saturating at the 32-bit register's maximum).
		r.state.RCur = uint32(min(uint64(r.state.RCur)<<roccDoubleShift, RoCCRateMax))
		r.state.Doublings++
		// 13: RESET_TIMER(), from the expiry instant.
		r.state.Deadline = fixedpoint.SatAdd(r.state.Deadline, r.cfg.RecoveryPeriod)
	}
	return fired
}

// advance checks now against the latest event, then records it and
// applies every recovery-timer expiry due at or before it (so that events
// take effect in time order whoever calls first); it reports whether any
// was due. It changes nothing when it returns an error.
func (r *RoCC) advance(event string, now units.Time) (fired bool, err error) {
	if err := r.clock.Accept(roccPart, event, now); err != nil {
		return false, err
	}
	if now < r.state.Deadline { // nothing due (MaxTime while not limited): the usual case
		return false, nil
	}
	return r.expire(now), nil
}

// onTimer applies every recovery-timer expiry due at or before now
// (Algorithm 2, TIMER_EXPIRED) and reports whether any was due: Timer's
// path. Calling it before NextDeadline is not an error and changes nothing
// but the time of the latest event. It returns a *cc.TimeOrderError,
// changing nothing, if now is before the previous event.
func (r *RoCC) onTimer(now units.Time) (fired bool, err error) { return r.advance("Timer", now) }

// onFeedback processes a CNP carrying the fair rate rate (in ΔF units) from
// congestion point cp (Algorithm 2, PROCESS_CNP) and reports whether it was
// accepted: Feedback's path once the CNP is decoded. Recovery-timer
// expiries due at or before now are applied first. It returns an error,
// changing nothing: a *cc.TimeOrderError for an event before the previous
// one, a *cc.EventError for a rate of 0.
func (r *RoCC) onFeedback(now units.Time, rate uint32, cp uint64) (accepted bool, err error) {
	return r.feedback("Feedback", now, rate, cp)
}

// feedback is PROCESS_CNP, named event in errors.
func (r *RoCC) feedback(event string, now units.Time, rate uint32, cp uint64) (accepted bool, err error) {
	if err := r.clock.Check(roccPart, event, now); err != nil {
		return false, err
	}
	if rate == 0 {
		return false, &cc.EventError{Part: roccPart, Event: event, Reason: "CNP rate = 0 ΔF, want 1..4294967295 ΔF"}
	}
	r.clock.Advance(now)
	if now >= r.state.Deadline {
		r.expire(now)
	}
	// 2: Rrcvd ← GETRATE(cnp) × ΔF: kept in ΔF units, the scale of Rcur.
	// 3: CPrcvd ← GETCP(cnp).
	// 4: if Rrcvd ≤ Rcur OR CPrcvd = CPcur then (no limiter: Rcur = +∞).
	if r.state.Limited && rate > r.state.RCur && cp != r.state.CPCur {
		r.state.Rejected++
		return false, nil
	}
	r.state.Limited = true
	// 5: Rcur ← Rrcvd
	r.state.RCur = rate
	// 6: CPcur ← CPrcvd
	r.state.CPCur = cp
	// 7: RESET_TIMER(), from the CNP's arrival.
	r.state.Deadline = fixedpoint.SatAdd(now, r.cfg.RecoveryPeriod)
	r.state.Accepted++
	return true, nil
}

// Feedback is PROCESS_CNP through the contract: see "The contract" on RoCC.
func (r *RoCC) Feedback(now units.Time, f *cc.Feedback, _ *cc.Actions) error {
	const ev = "Feedback"
	if err := r.clock.Check(roccPart, ev, now); err != nil {
		return err
	}
	bad := func(reason string, cause error) error {
		return &cc.EventError{Part: roccPart, Event: ev, Reason: reason, Err: cause}
	}
	if f == nil {
		return bad("nil feedback", nil)
	}
	if f.Kind != cc.FeedbackRate {
		// A kind Algorithm 2 does not use (an ACK, a DCQCN CNP, another
		// scheme's message): counted (rule 8), after the expiries due.
		r.notUsed(now)
		return nil
	}
	m, err := wire.DecodeRoCCFeedback(f.Data[:])
	if err != nil {
		return bad("malformed CNP", err)
	}
	if m.Flow != uint32(f.Flow) {
		return bad("CNP for flow "+strconv.FormatUint(uint64(m.Flow), 10)+" delivered as flow "+strconv.FormatUint(uint64(f.Flow), 10), nil)
	}
	if m.Type != wire.RoCCRateFeedback {
		// A report (type 2) is for the host computation (RoCCHost), which
		// sends the flow a rate: the RP does not use it.
		r.notUsed(now)
		return nil
	}
	_, err = r.feedback(ev, now, uint32(m.Rate), m.CP())
	return err
}

// notUsed takes a message at now that Algorithm 2 does not use: the
// expiries due by now run (rule 4), the message is counted (rule 8), and
// nothing else changes.
func (r *RoCC) notUsed(now units.Time) {
	r.clock.Advance(now)
	r.expire(now)
	r.unused.Count()
}

// Sent runs the recovery-timer expiries due by now (rule 4 of package cc),
// as every event does; Algorithm 2 does not look at the packets a flow
// sends.
func (r *RoCC) Sent(now units.Time, _ *cc.Packet, _ *cc.Actions) error {
	if err := r.clock.Accept(roccPart, "Sent", now); err != nil {
		return err
	}
	if now >= r.state.Deadline { // MaxTime while not limited
		r.expire(now)
	}
	return nil
}

// Timer runs every recovery-timer expiry due at or before now (Algorithm 2,
// TIMER_EXPIRED, lines 8–13).
func (r *RoCC) Timer(now units.Time, _ *cc.Actions) error {
	_, err := r.advance("Timer", now)
	return err
}

// Limits is the rate limiter's rate (Rate) and no window.
func (r *RoCC) Limits() cc.Limits { return cc.Limits{Rate: r.Rate(), Window: cc.NoWindow} }

// AppendRegisters appends the RP's registers to dst, in this order: now;
// limited (1 bit), rcur (32), cpcur (48, the CP's switch and port),
// deadline; the 64-bit counters accepted, rejected, doublings, removals
// and unused_feedback (cc.UnusedRegister: messages Algorithm 2 does not
// use).
func (r *RoCC) AppendRegisters(dst []cc.Register) []cc.Register {
	return append(dst,
		r.clock.Register(),
		cc.BoolReg("limited", r.state.Limited),
		cc.Reg("rcur", 32, uint64(r.state.RCur)),
		cc.Reg("cpcur", wire.RoCCCPBits, r.state.CPCur),
		cc.TimeReg("deadline", r.state.Deadline),
		cc.Reg("accepted", 64, r.state.Accepted),
		cc.Reg("rejected", 64, r.state.Rejected),
		cc.Reg("doublings", 64, r.state.Doublings),
		cc.Reg("removals", 64, r.state.Removals),
		r.unused.Register(),
	)
}
