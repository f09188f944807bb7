package cc

import (
	"errors"
	"fmt"

	"github.com/hwcc/hwcc/units"
)

// EventKind is which contract method an Event calls: the contract's event
// vocabulary, shared by the harness, trace replay, the C ABI and cctest.
type EventKind uint8

// The event kinds: one per event method of the contract.
const (
	EventEnqueue  EventKind = iota + 1 // CongestionPoint.Enqueue or SwitchPoint.Enqueue
	EventDequeue                       // CongestionPoint.Dequeue or SwitchPoint.Dequeue
	EventTimer                         // Clock.Timer (every role)
	EventSent                          // ReactionPoint.Sent
	EventFeedback                      // ReactionPoint.Feedback or NotificationPoint.Feedback
	EventReceive                       // NotificationPoint.Receive
	EventArrive                        // SwitchPoint.Arrive
	EventPause                         // SwitchPoint.Pause
	EventMessage                       // SwitchPoint.Message
)

// EventKinds lists every event kind in order.
var EventKinds = [...]EventKind{EventEnqueue, EventDequeue, EventTimer, EventSent, EventFeedback, EventReceive, EventArrive, EventPause, EventMessage}

var eventNames = [...]string{"", "enqueue", "dequeue", "timer", "sent", "feedback", "receive", "arrive", "pause", "message"}

// String returns the kind's lower-case name ("enqueue", "feedback", ...),
// the name traces use, or "kind N".
func (k EventKind) String() string {
	if k != 0 && int(k) < len(eventNames) {
		return eventNames[k]
	}
	return fmt.Sprintf("kind %d", k)
}

// EventKindNamed returns the kind whose String is name.
func EventKindNamed(name string) (EventKind, bool) {
	for _, k := range EventKinds {
		if eventNames[k] == name {
			return k, true
		}
	}
	return 0, false
}

// Of reports whether role r has the method k calls.
func (k EventKind) Of(r Role) bool {
	for _, x := range r.Events() {
		if x == k {
			return true
		}
	}
	return false
}

// Packet reports whether an event of kind k passes a *Packet (Enqueue,
// Dequeue, Sent, Receive, Arrive); Feedback and Message pass a *Feedback,
// Timer and Pause neither.
func (k EventKind) Packet() bool {
	switch k {
	case EventEnqueue, EventDequeue, EventSent, EventReceive, EventArrive:
		return true
	}
	return false
}

// Message reports whether an event of kind k passes a *Feedback (Feedback
// and Message).
func (k EventKind) Message() bool { return k == EventFeedback || k == EventMessage }

var (
	cpEvents = []EventKind{EventTimer, EventEnqueue, EventDequeue}
	rpEvents = []EventKind{EventTimer, EventSent, EventFeedback}
	npEvents = []EventKind{EventTimer, EventReceive, EventFeedback}
	swEvents = []EventKind{EventTimer, EventArrive, EventEnqueue, EventDequeue, EventPause, EventMessage}
)

// Events lists the event kinds of role r, Timer first (nil for an unknown
// role). The slice is shared: do not modify it.
func (r Role) Events() []EventKind {
	switch r {
	case RoleCP:
		return cpEvents
	case RoleRP:
		return rpEvents
	case RoleNP:
		return npEvents
	case RoleSW:
		return swEvents
	}
	return nil
}

// RoleOf returns the role p plays, or 0 if it plays none.
func RoleOf(p Part) Role {
	for _, r := range Roles {
		if r.Plays(p) {
			return r
		}
	}
	return 0
}

// Event is one call of a contract method with its arguments: what a trace
// line holds, what the harness records, what cctest generates. It is a
// plain value that holds its own telemetry stack, so that a slice of
// events is self-contained and applying one allocates nothing: HasTel
// makes the packet's or the message's Tel point at the event's.
//
// A switch point's events name a port: Port is Arrive's and Message's
// ingress port (−1 for a message the switch sent itself) and Enqueue's,
// Dequeue's and Pause's egress port; a congestion point's Enqueue and
// Dequeue do not read it. Pause pauses (Paused) or resumes (not Paused)
// priority Packet.Prio of egress port Port.
type Event struct {
	Kind     EventKind
	At       units.Time
	Packet   Packet
	Queue    Queue
	Feedback Feedback
	HasTel   bool
	Tel      Telemetry
	Port     int
	Paused   bool
}

// String describes the event in one line, for error messages.
func (e *Event) String() string {
	switch e.Kind {
	case EventEnqueue, EventDequeue:
		port := ""
		if e.Port != 0 {
			port = fmt.Sprintf("port %d ", e.Port)
		}
		return fmt.Sprintf("%v at %v: %sflow %d size %v, queue %v", e.Kind, e.At, port, e.Packet.Flow, e.Packet.Size, e.Queue.Len)
	case EventSent:
		return fmt.Sprintf("sent at %v: flow %d seq %d payload %v", e.At, e.Packet.Flow, e.Packet.Seq, e.Packet.Payload)
	case EventReceive:
		return fmt.Sprintf("receive at %v: flow %d seq %d ce %v", e.At, e.Packet.Flow, e.Packet.Seq, e.Packet.CE)
	case EventFeedback:
		return fmt.Sprintf("feedback at %v: %v flow %d seq %d acked %v ece %v tel %v", e.At, e.Feedback.Kind, e.Feedback.Flow, e.Feedback.Seq, e.Feedback.Acked, e.Feedback.ECE, e.HasTel)
	case EventArrive:
		return fmt.Sprintf("arrive at %v: port %d flow %d size %v prio %d", e.At, e.Port, e.Packet.Flow, e.Packet.Size, e.Packet.Prio)
	case EventPause:
		what := "resume"
		if e.Paused {
			what = "pause"
		}
		return fmt.Sprintf("pause at %v: %s port %d prio %d", e.At, what, e.Port, e.Packet.Prio)
	case EventMessage:
		return fmt.Sprintf("message at %v: port %d %v flow %d from %#x seq %d", e.At, e.Port, e.Feedback.Kind, e.Feedback.Flow, e.Feedback.From, e.Feedback.Seq)
	}
	return fmt.Sprintf("%v at %v", e.Kind, e.At)
}

// Apply calls the event's method on p with act: e.Call with the event's
// own packet and message, whose Tel points at e.Tel when HasTel. What a
// part writes in the packet (a Dequeue's telemetry record and header
// bytes, a Sent's header bytes) stays in e.
func (e *Event) Apply(p Part, act *Actions) error {
	e.Packet.Tel, e.Feedback.Tel = nil, nil
	if e.HasTel {
		if e.Kind.Message() {
			e.Feedback.Tel = &e.Tel
		} else {
			e.Packet.Tel = &e.Tel
		}
	}
	return e.Call(p, &e.Packet, &e.Feedback, act)
}

// ErrRole is what Call returns for an event of a kind the part's role does
// not have: the caller's mistake, not the part's, so it is none of the
// contract's error types.
var ErrRole = errors.New("cc: event for a role the part does not play")

// Call calls the method of e.Kind on p at e.At with pkt as its packet or
// f as its message (whichever the kind passes; either may be nil, which a
// part refuses), e.Queue as its queue, e.Port as its port and act as its
// actions. A congestion point's or a switch point's Enqueue and Dequeue
// are called as p plays. An event for a role p does not play returns an
// error wrapping ErrRole. Call allocates nothing itself.
func (e *Event) Call(p Part, pkt *Packet, f *Feedback, act *Actions) error {
	switch e.Kind {
	case EventTimer:
		return p.Timer(e.At, act)
	case EventEnqueue, EventDequeue:
		switch x := p.(type) {
		case CongestionPoint:
			if e.Kind == EventEnqueue {
				return x.Enqueue(e.At, pkt, e.Queue, act)
			}
			return x.Dequeue(e.At, pkt, e.Queue, act)
		case SwitchPoint:
			if e.Kind == EventEnqueue {
				return x.Enqueue(e.At, e.Port, pkt, e.Queue, act)
			}
			return x.Dequeue(e.At, e.Port, pkt, e.Queue, act)
		}
	case EventSent:
		if r, ok := p.(ReactionPoint); ok {
			return r.Sent(e.At, pkt, act)
		}
	case EventFeedback:
		switch x := p.(type) {
		case ReactionPoint:
			return x.Feedback(e.At, f, act)
		case NotificationPoint:
			return x.Feedback(e.At, f, act)
		}
	case EventReceive:
		if n, ok := p.(NotificationPoint); ok {
			return n.Receive(e.At, pkt, act)
		}
	case EventArrive, EventPause, EventMessage:
		w, ok := p.(SwitchPoint)
		if !ok {
			break
		}
		switch e.Kind {
		case EventArrive:
			return w.Arrive(e.At, e.Port, pkt, act)
		case EventPause:
			return w.Pause(e.At, e.Port, e.Packet.Prio, e.Paused, act)
		}
		return w.Message(e.At, e.Port, f, act)
	}
	return fmt.Errorf("%w: %v", ErrRole, e.Kind)
}
