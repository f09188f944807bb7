package cc

import "github.com/hwcc/hwcc/units"

// Clock is the timer every part has. Hardware timers work this way: the
// part says when it next wants to act, and the caller (a simulator's event
// queue, a firmware model's tick, a test) calls Timer at or after that time.
type Clock interface {
	// NextDeadline is the earliest time at which Timer has work to do, or
	// units.MaxTime when the part has no timer running. No event sets it
	// before its own now; a deadline the caller lets pass is overdue, and
	// the part catches it up at its next event, Timer or another (rule 4).
	NextDeadline() units.Time
	// Timer runs what is due at or before now, appending what it decides
	// to act. Called before NextDeadline it only records now. After it
	// returns nil, NextDeadline is later than now.
	Timer(now units.Time, act *Actions) error
}

// RegisterSource is a state machine's register snapshot: every part has
// it, and so does each hardware state machine that plays no role of this
// contract but has its own events (a link's CBFC counters, a credit
// scheduler, a VOQ manager), so that tracing reads them all one way.
type RegisterSource interface {
	// AppendRegisters appends every register the machine carries between
	// events (name, width, value) to dst and returns the extended slice,
	// always in the same order. Tracing, replay and golden comparison read
	// a part only through it.
	AppendRegisters(dst []Register) []Register
}

// Part is what every role has in common: a clock and registers.
type Part interface {
	Clock
	RegisterSource
}

// CongestionPoint is the switch side of an algorithm: one egress queue.
//
// The caller reports every packet that joins the queue (Enqueue, after it
// has joined: q.Len counts it) and every packet that leaves it to start
// transmission (Dequeue, after it has left: q.Len is the queue it leaves
// behind). A congestion point's view of its queue is the Queue of its latest
// Enqueue or Dequeue; its Timer (RoCC's periodic update, say) reads that.
// Enqueue and Dequeue may mark the packet (ActionMarkCE), ask for it to be
// dropped (ActionDrop), send feedback (ActionFeedback); Dequeue may push
// its record onto p.Tel in place (HPCC's INT), which is the only change a
// congestion point makes to the caller's packet.
type CongestionPoint interface {
	Part
	Enqueue(now units.Time, p *Packet, q Queue, act *Actions) error
	Dequeue(now units.Time, p *Packet, q Queue, act *Actions) error
}

// ReactionPoint is the sender side of an algorithm: one sending flow, its
// rate limiter and its window.
//
// The caller reports every data packet the flow starts to transmit
// (retransmissions included) with Sent, and every message that comes back
// for the flow (an ACK, a CNP, a switch's rate message) with Feedback, and
// gates the flow's sending by Limits, which it reads after every event.
//
// The set of feedback kinds is open: a reaction point takes feedback of a
// kind it does not use (an ACK at a rate-based sender, a CNP at DCTCP) as
// an event that changes nothing but the time and its count of such
// messages (rule 8), so that a caller can deliver every message of a flow
// without knowing the algorithm, and a miswiring shows. It refuses, with
// an *EventError, only a message of a kind it uses that it cannot take (a
// malformed payload, an ACK of data never sent).
type ReactionPoint interface {
	Part
	Sent(now units.Time, p *Packet, act *Actions) error
	Feedback(now units.Time, f *Feedback, act *Actions) error
	// Limits is the pacing rate and the window in force now.
	Limits() Limits
}

// NotificationPoint is the receiver side of an algorithm: one receiving
// flow. The caller reports every data packet of the flow as it arrives
// (in order or not, with its CE mark) with Receive, and every message the
// flow's source sends it (ExpressPass's credit request and stop) with
// Feedback; the part may answer the flow's source (ActionFeedback with a
// CNP, a credit). As for a reaction point, a message of a kind the part
// does not use changes nothing but the time and its count (rule 8).
type NotificationPoint interface {
	Part
	Receive(now units.Time, p *Packet, act *Actions) error
	Feedback(now units.Time, f *Feedback, act *Actions) error
}

// SwitchPoint is the switch-resident side of an algorithm: state that
// spans the ports of one switch (HierCC's per-destination VOQs and
// credit tables, Mercury's per-port pause states and flow table), where a
// CongestionPoint sees one egress queue. Ports are numbered from 0 on
// their switch, as the caller numbers them (cc.Env.Ports says how many,
// cc.Env.SwitchPorts which face hosts).
//
// The caller reports every data packet that comes in (Arrive, through
// ingress port in, before it joins a queue), joins an egress queue
// (Enqueue, q the queue after it joined) and leaves one to start
// transmission (Dequeue, q the queue it leaves behind); every PFC pause
// or resume of an egress port's priority (Pause); and every control
// message addressed to the switch (Message: another switch's credit, say).
// Besides what a congestion point may decide (ActionMarkCE and ActionDrop
// on Arrive or Enqueue, ActionFeedback to a flow's source or destination),
// a switch point may send a message to another switch (ActionFeedback
// with To = ToSwitch and the target's SwitchID), grant credit to one of its own VOQs
// (ActionCredit, Bytes > 0, Port below the port count), put the packet of
// an Enqueue in one of its egress port's physical queues
// (ActionAssignQueue), and stop or resume serving one of its own physical
// queues (ActionPauseQueue, ActionResumeQueue, Port below the port
// count). ActionMarkCE is
// taken on Arrive, Enqueue and Dequeue; ActionDrop on Arrive and Enqueue;
// ActionAssignQueue on Enqueue only.
// On Dequeue it may write p.Hdr (its header fields) and push its record
// onto p.Tel, the only changes it makes to the caller's packet; it never
// writes a Feedback it is given.
//
// q is the queue of egress port out at p's priority (Len at that
// priority, TxBytes of the whole port); Pause names a priority 0..7.
// Message's in is −1 for a message the switch sent itself. As for a
// reaction point, a message of a kind the part does not use changes
// nothing but the time and its count (rule 8), so that a caller may deliver every message
// addressed to a switch.
type SwitchPoint interface {
	Part
	Arrive(now units.Time, in int, p *Packet, act *Actions) error
	Enqueue(now units.Time, out int, p *Packet, q Queue, act *Actions) error
	Dequeue(now units.Time, out int, p *Packet, q Queue, act *Actions) error
	Pause(now units.Time, out int, prio uint8, paused bool, act *Actions) error
	Message(now units.Time, in int, f *Feedback, act *Actions) error
}

// Role is which of the four roles a part plays.
type Role uint8

// The roles.
const (
	RoleCP Role = iota + 1 // CongestionPoint
	RoleRP                 // ReactionPoint
	RoleNP                 // NotificationPoint
	RoleSW                 // SwitchPoint
)

// Roles lists the roles in order.
var Roles = [...]Role{RoleCP, RoleRP, RoleNP, RoleSW}

var roleNames = [...]string{"", "congestion point", "reaction point", "notification point", "switch point"}

// String returns "congestion point", "reaction point", "notification
// point" or "switch point".
func (r Role) String() string {
	if int(r) < len(roleNames) && r != 0 {
		return roleNames[r]
	}
	return "unknown role"
}

// Short returns "CP", "RP", "NP" or "SW".
func (r Role) Short() string {
	switch r {
	case RoleCP:
		return "CP"
	case RoleRP:
		return "RP"
	case RoleNP:
		return "NP"
	case RoleSW:
		return "SW"
	}
	return "?"
}

// Plays reports whether p implements role r.
func (r Role) Plays(p Part) bool {
	switch r {
	case RoleCP:
		_, ok := p.(CongestionPoint)
		return ok
	case RoleRP:
		_, ok := p.(ReactionPoint)
		return ok
	case RoleNP:
		_, ok := p.(NotificationPoint)
		return ok
	case RoleSW:
		_, ok := p.(SwitchPoint)
		return ok
	}
	return false
}
