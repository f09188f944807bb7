package np

import (
	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// fecnPart names the notification point in errors.
const fecnPart = "np.FECN"

// FECNMaxInterval is the largest FECNConfig.MinInterval: 1 s.
const FECNMaxInterval = units.Second

// FECNSurveyInterval is FECNSurvey's notification spacing: 50 µs,
// DCQCN's N ([Survey] §4.1.2), the spacing cp.BECNSurvey gives BECN's
// congestion point too.
const FECNSurveyInterval = 50 * units.Microsecond

// FECNConfig configures a FECN notification point.
type FECNConfig struct {
	// MinInterval is the least time between two notifications of the
	// flow: a marked packet notifies the source when the flow has sent no
	// notification for MinInterval (or ever), else it is counted as
	// suppressed. 0 notifies on every marked packet (InfiniBand's
	// receiver). Range 0..FECNMaxInterval. The survey says only that
	// the receiver "feedbacks a resource management (RM) cell" upon a
	// marked packet; presets: 50 µs (FECNSurvey) or 0 (FECNInfiniBand).
	MinInterval units.Time
}

// Validate returns a *cc.ConfigError if MinInterval is out of range.
func (c FECNConfig) Validate() error {
	if c.MinInterval < 0 || c.MinInterval > FECNMaxInterval {
		return &cc.ConfigError{Part: fecnPart, Field: "MinInterval", Value: c.MinInterval.String(), Range: "0s.." + FECNMaxInterval.String()}
	}
	return nil
}

// FECNSurvey returns the NP of the survey's FECN with hwcc's pacing: one
// notification per flow per 50 µs (FECNSurveyInterval: DCQCN's N, survey
// section 4.1.2, the same spacing cp.BECNSurvey gives BECN), so that a source
// halves at most once per 50 µs in either scheme.
func FECNSurvey() FECNConfig { return FECNConfig{MinInterval: FECNSurveyInterval} }

// FECNInfiniBand returns the NP of InfiniBand congestion control (IBA Vol.
// 1 annex A10, the survey's "IB CC" variant of FECN): the receiver
// answers every FECN-marked packet, with a CNP or an ACK whose BECN bit is
// set (as the Linux hfi1 driver's hfi1_process_ecn_slowpath does), so
// MinInterval is 0.
func FECNInfiniBand() FECNConfig { return FECNConfig{} }

// FECNState is every register of a notification point but the time
// (FECN.Last).
type FECNState struct {
	// Sent is true once the flow has sent a notification; LastSent is the
	// time of the latest.
	Sent     bool
	LastSent units.Time
	// Flow is the flow of the latest packet given to Receive.
	Flow cc.FlowID
	// Packets counts the data packets received, Marked the marked ones,
	// Notifications the notifications sent, Suppressed the marked packets
	// that sent none (less than MinInterval after the last). 64-bit,
	// wrapping.
	Packets, Marked, Notifications, Suppressed uint64
	// Unused counts the messages given to Feedback, none of a kind the NP
	// uses (cc rule 8; the register cc.UnusedRegister).
	Unused cc.Unused
}

// FECN is the receiver side of FECN for one flow ([Survey]
// §4.1.2: "Upon receiving a marked packet, it feedbacks a resource
// management (RM) cell to the correspond source-end"; [FECN]: a one-bit
// forward mark that the receiver echoes). It implements
// cc.NotificationPoint.
//
// Receive reads the packet's mark (p.CE: the EFCI bit, InfiniBand's FECN
// bit) and, for a marked packet at least MinInterval after the flow's last
// notification (or the first), appends one cc.ActionFeedback to
// cc.ToSource at cc.ControlPrio carrying cc.Feedback{Kind: FeedbackBECN,
// Flow: p.Flow}: the RM cell, InfiniBand's CNP. The rule is
//
//	notify ⇔ p.CE ∧ (no notification yet ∨ now − LastSent ≥ MinInterval)
//
// and the marks inside the interval are dropped, not deferred (so the NP
// has no timer), as DCQCN's min_time_between_cnps (DCQCNMinInterval)
// does. A notification that does not fit act fails the event with
// *cc.ActionsFullError and changes nothing. A nil packet, a negative size
// or payload, or a nil act (Receive can decide: cc.ErrNoActions, marked
// or not) is a *cc.EventError that changes nothing. Feedback uses no
// kind: every message is counted in unused_feedback (cc rule 8), a nil
// one is refused. No timer.
//
// Registers (AppendRegisters): now, sent, last_sent, flow, packets,
// marked, notifications, suppressed, unused_feedback.
//
// It is not safe for concurrent use. The zero value is not usable; build
// one with NewFECN.
type FECN struct {
	cfg   FECNConfig
	clock cc.Monotonic
	st    FECNState
}

var _ cc.NotificationPoint = (*FECN)(nil)

// NewFECN validates cfg and returns a notification point that has sent
// nothing.
func NewFECN(cfg FECNConfig) (*FECN, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &FECN{cfg: cfg}, nil
}

// Config returns the configuration n was built with.
func (n *FECN) Config() FECNConfig { return n.cfg }

// State returns every register but the time, each in its snapshot's
// unit.
func (n *FECN) State() FECNState { return n.st }

// Last returns the time of the latest accepted event (0 before any): the
// register now.
func (n *FECN) Last() units.Time { return n.clock.Last() }

const fecnReceive = "Receive"

// Receive implements cc.NotificationPoint (see FECN).
func (n *FECN) Receive(now units.Time, p *cc.Packet, act *cc.Actions) error {
	if !n.clock.InOrder(now) || cc.BadPacket(p) || act == nil {
		return n.refuse(now, p)
	}
	// At least MinInterval since the last notification: now − LastSent ≥
	// MinInterval (exact: 0 ≤ LastSent ≤ now).
	notify := p.CE && (!n.st.Sent || now-n.st.LastSent >= n.cfg.MinInterval)
	if notify && act.Free() < 1 {
		return fecnFull(act)
	}
	n.clock.Advance(now)
	n.st.Flow = p.Flow
	n.st.Packets++
	if !p.CE {
		return nil
	}
	n.st.Marked++
	if !notify {
		n.st.Suppressed++
		return nil
	}
	n.st.Sent, n.st.LastSent = true, now
	n.st.Notifications++
	act.Send(cc.ToSource, cc.ControlPrio, wire.BECNNotification(p.Flow))
	return nil
}

// Feedback implements cc.NotificationPoint: the NP uses no message from
// its source, so every message is counted in the register
// cc.UnusedRegister (cc rule 8) and changes nothing else but the time. A
// nil f is refused. It decides nothing and takes a nil act.
func (n *FECN) Feedback(now units.Time, f *cc.Feedback, _ *cc.Actions) error {
	if !n.clock.InOrder(now) {
		return n.clock.Check(fecnPart, "Feedback", now)
	}
	if f == nil {
		return fecnNilFeedback()
	}
	n.clock.Advance(now)
	n.st.Unused.Count()
	return nil
}

// NextDeadline implements cc.Clock: units.MaxTime, the NP has no timer.
func (n *FECN) NextDeadline() units.Time { return units.MaxTime }

// Timer implements cc.Clock: it only records now.
func (n *FECN) Timer(now units.Time, _ *cc.Actions) error {
	return n.clock.Accept(fecnPart, "Timer", now)
}

// AppendRegisters implements cc.Part: now (64-bit ps), sent (1),
// last_sent (64-bit ps), flow (32), packets, marked, notifications,
// suppressed, unused_feedback (64-bit counters), in that order.
func (n *FECN) AppendRegisters(dst []cc.Register) []cc.Register {
	return append(dst,
		n.clock.Register(),
		cc.BoolReg("sent", n.st.Sent),
		cc.TimeReg("last_sent", n.st.LastSent),
		cc.Reg("flow", 32, uint64(n.st.Flow)),
		cc.Reg("packets", 64, n.st.Packets),
		cc.Reg("marked", 64, n.st.Marked),
		cc.Reg("notifications", 64, n.st.Notifications),
		cc.Reg("suppressed", 64, n.st.Suppressed),
		n.st.Unused.Register(),
	)
}

// refuse is the error of a Receive that Receive refuses: its time out of
// order, a bad packet (cc.PacketError), then nil actions (cc rule 3:
// Receive can decide), in that order. Built out of line.
//
//go:noinline
func (n *FECN) refuse(now units.Time, p *cc.Packet) error {
	if err := n.clock.Check(fecnPart, fecnReceive, now); err != nil {
		return err
	}
	if err := cc.PacketError(fecnPart, fecnReceive, p); err != nil {
		return err
	}
	return cc.NoActions(fecnPart, fecnReceive)
}

// fecnFull is Receive's *cc.ActionsFullError (act may be nil), built out
// of line so that the event path holds no allocation site.
//
//go:noinline
func fecnFull(act *cc.Actions) error { return act.Reserve(fecnPart, fecnReceive, 1) }

// fecnNilFeedback is Feedback's error for a nil message.
//
//go:noinline
func fecnNilFeedback() error {
	return &cc.EventError{Part: fecnPart, Event: "Feedback", Reason: "nil feedback"}
}
