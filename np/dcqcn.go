package np

import (
	"strconv"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/fixedpoint"
	"github.com/hwcc/hwcc/units"
)

// dcqcnPart names the DCQCN notification point in errors.
const dcqcnPart = "np.DCQCN"

// DCQCNMode selects the NP's pacing rule.
type DCQCNMode uint8

const (
	// DCQCNSlot is the paper's slot rule: immediate CNP after a quiet slot,
	// one deferred CNP at the slot boundary for later marks.
	DCQCNSlot DCQCNMode = iota + 1
	// DCQCNMinInterval is ConnectX's min_time_between_cnps: marks closer
	// than Interval to the last CNP are ignored.
	DCQCNMinInterval
)

// String returns "slot" or "min-interval".
func (m DCQCNMode) String() string {
	switch m {
	case DCQCNSlot:
		return "slot"
	case DCQCNMinInterval:
		return "min-interval"
	}
	return "DCQCNMode(" + strconv.Itoa(int(m)) + ")"
}

// DCQCNMaxInterval is the largest Interval accepted.
const DCQCNMaxInterval = units.Second

// DCQCNConfig configures a DCQCN notification point.
type DCQCNConfig struct {
	// Mode is the pacing rule, DCQCNSlot or DCQCNMinInterval.
	Mode DCQCNMode
	// Interval is N, the slot length (DCQCNSlot), or min_time_between_cnps
	// (DCQCNMinInterval; vendor unit µs). Range: 0..DCQCNMaxInterval; 0
	// sends a CNP per marked packet.
	Interval units.Time
}

// DCQCNPaper is the paper's NP: slots of N = 50 µs ([Survey] §4.1.2,
// "N microseconds, usually 50µs").
func DCQCNPaper() DCQCNConfig {
	return DCQCNConfig{Mode: DCQCNSlot, Interval: 50 * units.Microsecond}
}

// DCQCNConnectX is the NVIDIA ConnectX NP: min_time_between_cnps = 4 µs, the
// default of [ConnectX] (documented 2–4 µs; docs/derivations.md).
func DCQCNConnectX() DCQCNConfig {
	return DCQCNConfig{Mode: DCQCNMinInterval, Interval: 4 * units.Microsecond}
}

// DCQCNHPCCSim is the NP of [HPCC-ns3], as the public simulators behave
// (docs/derivations.md, DCQCN presets): no CNP pacing, every marked packet is
// answered (the HPCC paper itself, [HPCC] §5.1, gives no NP setting). The
// reaction point's rate_reduce_monitor_period then does all the pacing.
func DCQCNHPCCSim() DCQCNConfig {
	return DCQCNConfig{Mode: DCQCNMinInterval, Interval: 0}
}

// Validate checks every field's range and returns a *cc.ConfigError naming
// the first field out of range (its Go name), its value and the allowed
// range.
func (c DCQCNConfig) Validate() error {
	if c.Mode != DCQCNSlot && c.Mode != DCQCNMinInterval {
		return &cc.ConfigError{Part: dcqcnPart, Field: "Mode", Value: c.Mode.String(), Range: "DCQCNSlot (1) or DCQCNMinInterval (2)"}
	}
	if c.Interval < 0 || c.Interval > DCQCNMaxInterval {
		return &cc.ConfigError{Part: dcqcnPart, Field: "Interval", Value: c.Interval.String(), Range: "0.." + DCQCNMaxInterval.String()}
	}
	return nil
}

// DCQCNState is every register of a DCQCN notification point but the time
// of its latest event (DCQCN.Last).
type DCQCNState struct {
	// SentCNP is true once the flow has sent a CNP; LastCNP is the time of
	// the latest one.
	SentCNP bool
	LastCNP units.Time
	// SlotEnd is the end of the current slot (DCQCNSlot): LastCNP +
	// Interval, saturating at units.MaxTime. Meaningful once SentCNP.
	SlotEnd units.Time
	// Pending is true while a CNP waits for SlotEnd (DCQCNSlot only).
	Pending bool
	// Flow is the flow of the latest packet given to Receive (a CNP sent by
	// Timer names it).
	Flow cc.FlowID
	// Packets counts data packets, Marked the CE-marked ones, CNPs the CNPs
	// sent, Suppressed the marked packets that sent no CNP of their own
	// (merged into a pending CNP or ignored). 64-bit counters, wrapping.
	Packets, Marked, CNPs, Suppressed uint64
	// Unused counts the messages given to Feedback: the receiver uses
	// none (cc's rule 8; the register cc.UnusedRegister).
	Unused cc.Unused
}

// DCQCN is the notification point of DCQCN: per-flow CNP generation at the
// receiver ([Survey] §4.1.2, "NP algorithm"; [DCQCN]). One DCQCN value serves
// one flow (one RoCE QP). Two pacing rules are implemented, chosen by
// DCQCNConfig.Mode:
//
// DCQCNSlot, the paper's N-µs slots. "If no CNP generated due to the flow in
// the last time slot (N microseconds), a CNP will be generated and sent by the
// NP immediately, a new time slot begins. Otherwise, if any marked packet
// arrives within the current time slot, the NIC only generates one CNP packet
// at the beginning of next time slot." As implemented:
//
//   - A slot starts when a CNP is sent and lasts Interval.
//   - A marked packet outside any slot (the flow is quiet) sends a CNP at
//     once and starts a slot.
//   - A marked packet inside a slot sets a pending flag; the deadline is
//     the slot's end. At the deadline (Timer) the pending CNP is
//     sent and a new slot starts there. A slot that ends with nothing
//     pending ends the flow's slotting: the next marked packet is again
//     "after a quiet slot".
//
// DCQCNMinInterval, the NIC's min_time_between_cnps ([ConnectX]: 4 µs,
// documented 2–4 µs): a marked packet
// sends a CNP if at least Interval has passed since the flow's last CNP, and
// is otherwise ignored. Nothing is deferred, so there is no deadline. (Our
// reading of "minimum time between CNPs": the vendor documentation gives the
// interval, not what happens to the marks inside it; ignoring them is the
// simple rule the name describes.)
//
// In both modes two CNPs of a flow are never closer than Interval: a CNP
// is sent at the now of the event that sends it, a deferred CNP at its
// deadline, and every rule above compares against the previous CNP's time.
// Late timers are caught up (cc's rule 4): a caller that lets the deadline
// pass gets the deferred CNP from its next event, Receive, Timer or
// Feedback, first and as at its deadline, so the new slot starts at the
// deadline, and the part holds the same registers and sends the same CNPs
// as one whose Timer was called on time (a Receive may then append two:
// the deferred CNP, then its own). Interval = 0 sends a CNP for every
// marked packet (the public simulators' behaviour: docs/derivations.md,
// DCQCN presets).
//
// Events. DCQCN implements cc.NotificationPoint: Receive reads the packet's
// CE mark and, when a CNP is due, appends one cc.ActionFeedback to the
// flow's source at cc.ControlPrio carrying cc.Feedback{Kind:
// cc.FeedbackCNP, Flow: p.Flow}; Timer sends the slot rule's deferred CNP
// the same way, for the flow of the latest Receive. Feedback takes every
// message and uses none: it counts them (cc's rule 8). An Actions without
// room for the CNPs due makes the event fail with *cc.ActionsFullError;
// an event that can decide (Receive; in slot mode, whose timer defers
// CNPs, Timer and Feedback too) refuses a nil *cc.Actions with
// cc.NoActions's error; time going backwards is a *cc.TimeOrderError.
// Each error changes nothing.
//
// Registers (AppendRegisters): the time of the latest event, the slot's
// registers, the latest flow, the counters and unused_feedback; the NIC's
// timer widths are not documented, so times are 64-bit picoseconds.
//
// It is not safe for concurrent use. The zero value is not usable; build
// one with NewDCQCN.
type DCQCN struct {
	cfg   DCQCNConfig
	s     DCQCNState
	clock cc.Monotonic
}

var _ cc.NotificationPoint = (*DCQCN)(nil)

// NewDCQCN validates cfg and returns a notification point for a flow that
// has sent no CNP. An invalid cfg is a *cc.ConfigError.
func NewDCQCN(cfg DCQCNConfig) (*DCQCN, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &DCQCN{cfg: cfg}, nil
}

// Config returns the configuration n was built with.
func (n *DCQCN) Config() DCQCNConfig { return n.cfg }

// State returns every register but the time (Last).
func (n *DCQCN) State() DCQCNState { return n.s }

// Last returns the time of the latest event accepted (0 before any).
func (n *DCQCN) Last() units.Time { return n.clock.Last() }

// NextDeadline implements cc.Clock: when a pending CNP is due (the end of
// the current slot), or units.MaxTime when nothing is pending (always, in
// DCQCNMinInterval mode).
func (n *DCQCN) NextDeadline() units.Time {
	if n.s.Pending {
		return n.s.SlotEnd
	}
	return units.MaxTime
}

// Event names, as errors name them.
const (
	dcqcnReceive  = "Receive"
	dcqcnTimer    = "Timer"
	dcqcnFeedback = "Feedback"
)

// send records in s a CNP sent at t and starts a slot there.
func (n *DCQCN) send(s *DCQCNState, t units.Time) {
	s.SentCNP, s.LastCNP = true, t
	s.SlotEnd = fixedpoint.SatAdd(t, n.cfg.Interval)
	s.Pending = false
	s.CNPs++
}

// catchUp runs on s the expiry due at or before now, if any: the deferred
// CNP of slot mode, sent as at its deadline (the slot's end), which starts
// the next slot there. It reports whether it sent the CNP. Once sent,
// nothing is pending, so at most one expiry is ever due.
func (n *DCQCN) catchUp(s *DCQCNState, now units.Time) (sent bool) {
	if s.Pending && now >= s.SlotEnd {
		n.send(s, s.SlotEnd)
		return true
	}
	return false
}

// packet runs on s the arrival at now of a data packet, ce its CE mark,
// after the catch-up, and reports whether it sends a CNP of its own.
func (n *DCQCN) packet(s *DCQCNState, now units.Time, ce bool) (cnp bool) {
	s.Packets++
	if !ce {
		return false
	}
	s.Marked++
	if n.cfg.Mode == DCQCNMinInterval {
		// At least Interval since the last CNP: now − LastCNP ≥ Interval
		// (exact: 0 ≤ LastCNP ≤ now).
		if !s.SentCNP || now-s.LastCNP >= n.cfg.Interval {
			n.send(s, now)
			return true
		}
		s.Suppressed++
		return false
	}
	// DCQCNSlot. Nothing due is pending (catchUp ran): a pending CNP's
	// slot ends after now.
	if !s.SentCNP || now >= s.SlotEnd {
		// First mark after a quiet slot: CNP at once, a new slot begins.
		n.send(s, now)
		return true
	}
	// Inside a slot: one CNP at the slot's end covers every mark in it.
	s.Pending = true
	s.Suppressed++
	return false
}

// onPacket is Receive's fast path without the packet and the actions: the
// catch-up, then a data packet of the flow arriving at now, ce telling
// whether it carries the CE mark. It reports whether the catch-up sent the
// deferred CNP (as at the deadline NextDeadline gave before the call) and
// whether the packet sends one now. Errors as Receive's.
func (n *DCQCN) onPacket(now units.Time, ce bool) (deferred, cnp bool, err error) {
	if !n.clock.InOrder(now) {
		return false, false, n.clock.Check(dcqcnPart, dcqcnReceive, now)
	}
	n.clock.Advance(now)
	deferred = n.catchUp(&n.s, now)
	return deferred, n.packet(&n.s, now, ce), nil
}

// onTimer is Timer's fast path without the actions: it reports whether it
// sent the deferred CNP (as at its deadline). Errors as Timer's.
func (n *DCQCN) onTimer(now units.Time) (cnp bool, err error) {
	if !n.clock.InOrder(now) {
		return false, n.clock.Check(dcqcnPart, dcqcnTimer, now)
	}
	n.clock.Advance(now)
	return n.catchUp(&n.s, now), nil
}

// timerDecides reports whether this part's timer can decide: slot mode
// defers CNPs; min-interval mode has no timer. Then every event, whose
// catch-up may send the deferred CNP, refuses a nil *cc.Actions (cc's rule
// 3).
func (n *DCQCN) timerDecides() bool { return n.cfg.Mode == DCQCNSlot }

// dcqcnSendCNP appends a CNP for flow to act: feedback to the flow's source
// at cc.ControlPrio.
func dcqcnSendCNP(act *cc.Actions, flow cc.FlowID) {
	act.Send(cc.ToSource, cc.ControlPrio, cc.Feedback{Kind: cc.FeedbackCNP, Flow: flow})
}

// Receive implements cc.NotificationPoint: the expiry due by now first
// (the deferred CNP, as at its deadline, for the flow of the previous
// Receive), then the packet: its CE mark may send a CNP now, for p.Flow,
// which it records as the flow the CNPs name (see the type's doc). Each
// CNP is one cc.ActionFeedback to act, in that order. A nil p is a
// *cc.EventError, a nil act a cc.NoActions error (Receive can decide,
// cc's rule 3), an act without room for the CNPs a *cc.ActionsFullError;
// each changes nothing.
func (n *DCQCN) Receive(now units.Time, p *cc.Packet, act *cc.Actions) error {
	if !n.clock.InOrder(now) {
		return n.clock.Check(dcqcnPart, dcqcnReceive, now)
	}
	if p == nil {
		return dcqcnNil(dcqcnReceive, "nil packet")
	}
	if act == nil {
		return dcqcnNoActions(dcqcnReceive)
	}
	s := &n.s
	late := s.Pending && now >= s.SlotEnd
	if act.Free() < dcqcnCount(late)+dcqcnCount(p.CE) {
		// Maybe no room for what it sends (the deferred CNP if due, and
		// one of its own if marked).
		return n.receiveTight(now, p, act)
	}
	n.clock.Advance(now)
	if late {
		n.send(s, s.SlotEnd) // the expiry, as at its deadline
		dcqcnSendCNP(act, s.Flow)
	}
	s.Flow = p.Flow
	if n.packet(s, now, p.CE) {
		dcqcnSendCNP(act, p.Flow)
	}
	return nil
}

// receiveTight is Receive when act may lack room for the CNPs: it runs
// the event on a copy of the registers and keeps it only if what it sends
// fits. It is out of line so that Receive's common path carries no copy.
//
//go:noinline
func (n *DCQCN) receiveTight(now units.Time, p *cc.Packet, act *cc.Actions) error {
	trial := n.s
	late := n.catchUp(&trial, now)
	trial.Flow = p.Flow
	own := n.packet(&trial, now, p.CE)
	if k := dcqcnCount(late) + dcqcnCount(own); k > act.Free() {
		return dcqcnFull(act, dcqcnReceive, k)
	}
	flow := n.s.Flow
	n.s = trial
	n.clock.Advance(now)
	if late {
		dcqcnSendCNP(act, flow)
	}
	if own {
		dcqcnSendCNP(act, p.Flow)
	}
	return nil
}

// Timer implements cc.Clock: it sends the deferred CNP if its deadline
// has come (now ≥ NextDeadline()), as at its deadline: the new slot starts
// there. The CNP names the flow of the latest Receive. Called early or
// with nothing pending it only records now. In slot mode a nil act is a
// cc.NoActions error (the timer can decide, cc's rule 3); in min-interval
// mode, which has no timer, it takes nil. An act without room for a CNP
// that is due is a *cc.ActionsFullError. Each error changes nothing.
func (n *DCQCN) Timer(now units.Time, act *cc.Actions) error {
	return n.idle(dcqcnTimer, now, act)
}

// idle is the one code path of Timer and Feedback: the catch-up alone.
func (n *DCQCN) idle(event string, now units.Time, act *cc.Actions) error {
	if !n.clock.InOrder(now) {
		return n.clock.Check(dcqcnPart, event, now)
	}
	if act == nil && n.timerDecides() {
		return dcqcnNoActions(event)
	}
	due := n.s.Pending && now >= n.s.SlotEnd
	if due && act.Free() < 1 {
		return dcqcnFull(act, event, 1)
	}
	n.clock.Advance(now)
	if n.catchUp(&n.s, now) {
		dcqcnSendCNP(act, n.s.Flow)
	}
	return nil
}

// dcqcnCount is 1 for true, 0 for false.
func dcqcnCount(b bool) int {
	if b {
		return 1
	}
	return 0
}

// dcqcnFull is the *cc.ActionsFullError of an event that needs need
// actions and has less room (act may be nil). Errors are built out of
// line, so that the event path holds no allocation site.
//
//go:noinline
func dcqcnFull(act *cc.Actions, event string, need int) error {
	return &cc.ActionsFullError{Part: dcqcnPart, Event: event, Need: need, Free: act.Free()}
}

// dcqcnNoActions is the error of a nil Actions at an event that can
// decide (cc.NoActions, kept out of line).
//
//go:noinline
func dcqcnNoActions(event string) error { return cc.NoActions(dcqcnPart, event) }

// dcqcnNil is the error of a nil packet or feedback.
//
//go:noinline
func dcqcnNil(event, reason string) error {
	return &cc.EventError{Part: dcqcnPart, Event: event, Reason: reason}
}

// AppendRegisters implements cc.Part: now, sent_cnp, last_cnp, slot_end,
// pending, flow (32 bits), the 64-bit model counters packets, marked,
// cnps and suppressed, then unused_feedback (64 bits, cc.UnusedRegister),
// in that order. Times are 64-bit picoseconds.
func (n *DCQCN) AppendRegisters(dst []cc.Register) []cc.Register {
	s := &n.s
	return append(dst,
		n.clock.Register(),
		cc.BoolReg("sent_cnp", s.SentCNP),
		cc.TimeReg("last_cnp", s.LastCNP),
		cc.TimeReg("slot_end", s.SlotEnd),
		cc.BoolReg("pending", s.Pending),
		cc.Reg("flow", 32, uint64(s.Flow)),
		cc.Reg("packets", 64, s.Packets),
		cc.Reg("marked", 64, s.Marked),
		cc.Reg("cnps", 64, s.CNPs),
		cc.Reg("suppressed", 64, s.Suppressed),
		s.Unused.Register(),
	)
}

// Feedback implements cc.NotificationPoint. DCQCN's receiver takes no
// message from its source: every message is of a kind it does not use
// (cc's rule 8), counted in Unused (the register unused_feedback) after
// the expiry due by now, as Timer runs it (the deferred CNP, appended to
// act). A nil f is a *cc.EventError; a nil act is refused as by Timer.
// Each error changes nothing.
func (n *DCQCN) Feedback(now units.Time, f *cc.Feedback, act *cc.Actions) error {
	if f == nil {
		if err := n.clock.Check(dcqcnPart, dcqcnFeedback, now); err != nil {
			return err
		}
		return dcqcnNil(dcqcnFeedback, "nil feedback")
	}
	if err := n.idle(dcqcnFeedback, now, act); err != nil {
		return err
	}
	n.s.Unused.Count()
	return nil
}
