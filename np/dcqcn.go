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
// In both modes two CNPs of a flow are never closer than Interval: a CNP is
// sent at the now of the event that sends it, and every rule above compares
// against the previous CNP's time. A caller that runs the timer late gets the
// pending CNP late, and the new slot starts at that late time, never
// earlier. Interval = 0 sends a CNP for every marked packet (the public
// simulators' behaviour: docs/derivations.md, DCQCN presets).
//
// Events. DCQCN implements cc.NotificationPoint: Receive reads the packet's
// CE mark and, when a CNP is due, appends one cc.ActionFeedback to the
// flow's source at cc.ControlPrio carrying cc.Feedback{Kind:
// cc.FeedbackCNP, Flow: p.Flow}; Timer sends the slot rule's deferred CNP
// the same way. An Actions without room for a CNP that is due makes the
// event fail with *cc.ActionsFullError and change nothing. Time going backwards is a *cc.TimeOrderError that changes
// nothing.
//
// Registers (AppendRegisters): the time of the latest event, the slot's
// registers and the latest flow; the NIC's timer widths are not documented,
// so times are 64-bit picoseconds.
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
	dcqcnReceive = "Receive"
	dcqcnTimer   = "Timer"
)

// send records in s a CNP sent at now and starts a slot there.
func (n *DCQCN) send(s *DCQCNState, now units.Time) {
	s.SentCNP, s.LastCNP = true, now
	s.SlotEnd = fixedpoint.SatAdd(now, n.cfg.Interval)
	s.Pending = false
	s.CNPs++
}

// packet runs the arrival of a data packet at now on s and reports whether
// it sends a CNP. It is the one code path of onPacket and Receive; the
// caller checked the time.
func (n *DCQCN) packet(s *DCQCNState, now units.Time, ce bool) (cnp bool) {
	s.Packets++
	if n.cfg.Mode == DCQCNMinInterval {
		if !ce {
			return false
		}
		s.Marked++
		// At least Interval since the last CNP: now − LastCNP ≥ Interval
		// (exact: 0 ≤ LastCNP ≤ now).
		if !s.SentCNP || now-s.LastCNP >= n.cfg.Interval {
			n.send(s, now)
			return true
		}
		s.Suppressed++
		return false
	}
	// DCQCNSlot.
	if s.Pending && now >= s.SlotEnd {
		n.send(s, now) // the deferred CNP, late
		cnp = true
	}
	if !ce {
		return cnp
	}
	s.Marked++
	if !cnp && (!s.SentCNP || now >= s.SlotEnd) {
		// First mark after a quiet slot: CNP at once, a new slot begins.
		// (Nothing is pending here: a pending CNP past its slot's end was
		// sent above, and one inside its slot means now < SlotEnd.)
		n.send(s, now)
		return true
	}
	// Inside a slot: one CNP at the slot's end covers every mark in it.
	s.Pending = true
	s.Suppressed++
	return cnp
}

// timer runs a timer call at now on s and reports whether it sends the
// pending CNP. It is the one code path of onTimer and Timer.
func (n *DCQCN) timer(s *DCQCNState, now units.Time) (cnp bool) {
	if s.Pending && now >= s.SlotEnd {
		n.send(s, now)
		return true
	}
	return false
}

// onPacket is Receive's fast path without the packet and the actions: a
// data packet of the flow arriving at now, ce telling whether it carries
// the CE mark; it returns whether to send a CNP now.
//
// In DCQCNSlot mode a call at or after a pending CNP's deadline first sends
// that CNP (the caller missed Timer); the packet's own mark then falls in
// the slot that CNP starts. At most one CNP is sent per call. A now before
// the latest event's is a *cc.TimeOrderError that changes nothing.
func (n *DCQCN) onPacket(now units.Time, ce bool) (cnp bool, err error) {
	if !n.clock.InOrder(now) {
		return false, n.clock.Check(dcqcnPart, dcqcnReceive, now)
	}
	n.clock.Advance(now)
	return n.packet(&n.s, now, ce), nil
}

// onTimer is Timer's fast path without the actions: it sends the pending
// CNP if its deadline has come (now ≥
// NextDeadline()) and returns whether it did; the new slot starts at now.
// Calling it early or with nothing pending only records now. A now before
// the latest event's is a *cc.TimeOrderError that changes nothing.
func (n *DCQCN) onTimer(now units.Time) (cnp bool, err error) {
	if !n.clock.InOrder(now) {
		return false, n.clock.Check(dcqcnPart, dcqcnTimer, now)
	}
	n.clock.Advance(now)
	return n.timer(&n.s, now), nil
}

// Receive implements cc.NotificationPoint: onPacket(now, p.CE), appending
// the CNP, if one is due, to act (see the type's doc) and recording p.Flow
// as the flow the CNPs name. A nil p is a *cc.EventError; a nil act has no
// room.
func (n *DCQCN) Receive(now units.Time, p *cc.Packet, act *cc.Actions) error {
	if !n.clock.InOrder(now) {
		return n.clock.Check(dcqcnPart, dcqcnReceive, now)
	}
	if p == nil {
		return dcqcnNilPacket()
	}
	s := &n.s
	var trial DCQCNState
	if act.Free() < 1 {
		// No room for a CNP: run the event on a copy and keep it only if
		// it sends none.
		trial = n.s
		s = &trial
	}
	s.Flow = p.Flow
	if n.packet(s, now, p.CE) {
		if s == &trial {
			return dcqcnFull(act, dcqcnReceive)
		}
		act.Send(cc.ToSource, cc.ControlPrio, cc.Feedback{Kind: cc.FeedbackCNP, Flow: s.Flow})
	} else if s == &trial {
		n.s = trial
	}
	n.clock.Advance(now)
	return nil
}

// Timer implements cc.Clock: onTimer(now), appending the deferred CNP, if
// one is sent, to act for the flow of the latest Receive. A nil act has no
// room.
func (n *DCQCN) Timer(now units.Time, act *cc.Actions) error {
	if !n.clock.InOrder(now) {
		return n.clock.Check(dcqcnPart, dcqcnTimer, now)
	}
	if n.s.Pending && now >= n.s.SlotEnd && act.Free() < 1 {
		return dcqcnFull(act, dcqcnTimer)
	}
	if n.timer(&n.s, now) {
		act.Send(cc.ToSource, cc.ControlPrio, cc.Feedback{Kind: cc.FeedbackCNP, Flow: n.s.Flow})
	}
	n.clock.Advance(now)
	return nil
}

// dcqcnFull is the *cc.ActionsFullError of an event that needs one action
// and has no room (act may be nil). Errors are built out of line, so that
// the event path holds no allocation site.
//
//go:noinline
func dcqcnFull(act *cc.Actions, event string) error {
	return &cc.ActionsFullError{Part: dcqcnPart, Event: event, Need: 1, Free: act.Free()}
}

// dcqcnNilPacket is Receive's error for a nil packet.
//
//go:noinline
func dcqcnNilPacket() error {
	return &cc.EventError{Part: dcqcnPart, Event: dcqcnReceive, Reason: "nil packet"}
}

// AppendRegisters implements cc.Part: now, sent_cnp, last_cnp, slot_end,
// pending, flow (32 bits), then the 64-bit model counters packets, marked,
// cnps and suppressed, in that order. Times are 64-bit picoseconds.
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
	)
}

// Feedback implements cc.NotificationPoint: DCQCN's receiver takes no
// message from its source (the contract's open set of kinds: any message
// changes nothing but the time); a nil f is refused.
func (n *DCQCN) Feedback(now units.Time, f *cc.Feedback, _ *cc.Actions) error {
	if err := n.clock.Check(dcqcnPart, "Feedback", now); err != nil {
		return err
	}
	if f == nil {
		return &cc.EventError{Part: dcqcnPart, Event: "Feedback", Reason: "nil feedback"}
	}
	n.clock.Advance(now)
	return nil
}
