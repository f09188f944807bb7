package cctest

import (
	"fmt"

	"github.com/hwcc/hwcc/cc"
	inttel "github.com/hwcc/hwcc/int"
	"github.com/hwcc/hwcc/units"
)

// Kind is which event method an Event calls.
type Kind uint8

// Event kinds: one per event method of the contract.
const (
	Enqueue  Kind = iota + 1 // cc.CongestionPoint.Enqueue or cc.SwitchPoint.Enqueue
	Dequeue                  // cc.CongestionPoint.Dequeue or cc.SwitchPoint.Dequeue
	Timer                    // cc.Clock.Timer (any role)
	Sent                     // cc.ReactionPoint.Sent
	Feedback                 // cc.ReactionPoint.Feedback or cc.NotificationPoint.Feedback
	Receive                  // cc.NotificationPoint.Receive
	Arrive                   // cc.SwitchPoint.Arrive
	Pause                    // cc.SwitchPoint.Pause
	Message                  // cc.SwitchPoint.Message
)

var kindNames = [...]string{"", "enqueue", "dequeue", "timer", "sent", "feedback", "receive", "arrive", "pause", "message"}

// String is the event's name as traces write it ("enqueue", "timer", ...).
func (k Kind) String() string {
	if k != 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind %d", k)
}

// Role returns the role whose method k calls (0 for Timer, which every
// role has, and for Enqueue, Dequeue and Feedback, which two roles have:
// see Of).
func (k Kind) Role() cc.Role {
	switch k {
	case Sent:
		return cc.RoleRP
	case Receive:
		return cc.RoleNP
	case Arrive, Pause, Message:
		return cc.RoleSW
	}
	return 0
}

// Of reports whether role r has the method k calls.
func (k Kind) Of(r cc.Role) bool {
	for _, x := range KindsOf(r) {
		if x == k {
			return true
		}
	}
	return false
}

// KindsOf lists the event kinds of role r, Timer first (nil for an
// unknown role).
func KindsOf(r cc.Role) []Kind {
	switch r {
	case cc.RoleCP:
		return []Kind{Timer, Enqueue, Dequeue}
	case cc.RoleRP:
		return []Kind{Timer, Sent, Feedback}
	case cc.RoleNP:
		return []Kind{Timer, Receive, Feedback}
	case cc.RoleSW:
		return []Kind{Timer, Arrive, Enqueue, Dequeue, Pause, Message}
	}
	return nil
}

// carries reports whether an event of kind k passes a *cc.Packet (true)
// or a *cc.Feedback (false); Timer and Pause pass neither (none).
func (k Kind) carries() (packet, none bool) {
	switch k {
	case Enqueue, Dequeue, Sent, Receive, Arrive:
		return true, false
	case Feedback, Message:
		return false, false
	}
	return false, true
}

// Event is one call of a contract method with its arguments. It holds its
// own INT header, so that a slice of events is self-contained and applying
// one allocates nothing: HasINT makes the packet's or the feedback's INT
// point at it.
//
// A switch point's events name a port: Port is Arrive's and Message's
// ingress port and Enqueue's, Dequeue's and Pause's egress port (a
// congestion point's Enqueue and Dequeue ignore it). Pause pauses
// (Paused) or resumes (not Paused) priority Packet.Prio of egress port
// Port.
type Event struct {
	Kind     Kind
	At       units.Time
	Packet   cc.Packet
	Queue    cc.Queue
	Feedback cc.Feedback
	HasINT   bool
	INT      inttel.Header
	Port     int
	Paused   bool
	// NilArg passes a nil *cc.Packet or *cc.Feedback, NilActions a nil
	// *cc.Actions (chaos sequences only): a part must refuse the one and
	// take the other as an Actions with no room, without panicking.
	NilArg, NilActions bool
}

// String describes the event for violation messages.
func (e *Event) String() string {
	s := e.describe()
	if _, none := e.Kind.carries(); e.NilArg && !none {
		s += " (passed as nil)"
	}
	if e.NilActions {
		s += " (nil actions)"
	}
	return s
}

func (e *Event) describe() string {
	switch e.Kind {
	case Enqueue, Dequeue:
		port := ""
		if e.Port != 0 {
			port = fmt.Sprintf("port %d ", e.Port)
		}
		return fmt.Sprintf("%v at %v: %sflow %d size %v, queue %v", e.Kind, e.At, port, e.Packet.Flow, e.Packet.Size, e.Queue.Len)
	case Sent:
		return fmt.Sprintf("sent at %v: flow %d seq %d payload %v", e.At, e.Packet.Flow, e.Packet.Seq, e.Packet.Payload)
	case Receive:
		return fmt.Sprintf("receive at %v: flow %d seq %d ce %v", e.At, e.Packet.Flow, e.Packet.Seq, e.Packet.CE)
	case Feedback:
		return fmt.Sprintf("feedback at %v: %v flow %d seq %d acked %v ece %v int %v", e.At, e.Feedback.Kind, e.Feedback.Flow, e.Feedback.Seq, e.Feedback.Acked, e.Feedback.ECE, e.HasINT)
	case Arrive:
		return fmt.Sprintf("arrive at %v: port %d flow %d size %v prio %d", e.At, e.Port, e.Packet.Flow, e.Packet.Size, e.Packet.Prio)
	case Pause:
		what := "resume"
		if e.Paused {
			what = "pause"
		}
		return fmt.Sprintf("pause at %v: %s port %d prio %d", e.At, what, e.Port, e.Packet.Prio)
	case Message:
		return fmt.Sprintf("message at %v: port %d %v flow %d from %#x seq %d", e.At, e.Port, e.Feedback.Kind, e.Feedback.Flow, e.Feedback.From, e.Feedback.Seq)
	}
	return fmt.Sprintf("%v at %v", e.Kind, e.At)
}

// Apply calls the event's method on p with act: a congestion point's or a
// switch point's Enqueue and Dequeue as p plays, a switch point's with
// Port. The packet or feedback it passes points into e (and its INT at
// e.INT when HasINT), so Apply allocates nothing itself, and what a part
// writes in the packet (Dequeue's INT stamp and header bytes) stays in e.
// An event for a role p does not play returns an error that is not a cc
// type: it is the caller's mistake, not the part's.
func (e *Event) Apply(p cc.Part, act *cc.Actions) error {
	e.Packet.INT, e.Feedback.INT = nil, nil
	if e.HasINT {
		if e.Kind == Feedback || e.Kind == Message {
			e.Feedback.INT = &e.INT
		} else {
			e.Packet.INT = &e.INT
		}
	}
	pkt, fb := &e.Packet, &e.Feedback
	if e.NilArg {
		pkt, fb = nil, nil
	}
	if e.NilActions {
		act = nil
	}
	switch e.Kind {
	case Timer:
		return p.Timer(e.At, act)
	case Enqueue, Dequeue:
		switch x := p.(type) {
		case cc.CongestionPoint:
			if e.Kind == Enqueue {
				return x.Enqueue(e.At, pkt, e.Queue, act)
			}
			return x.Dequeue(e.At, pkt, e.Queue, act)
		case cc.SwitchPoint:
			if e.Kind == Enqueue {
				return x.Enqueue(e.At, e.Port, pkt, e.Queue, act)
			}
			return x.Dequeue(e.At, e.Port, pkt, e.Queue, act)
		}
		return errRole
	case Sent:
		r, ok := p.(cc.ReactionPoint)
		if !ok {
			return errRole
		}
		return r.Sent(e.At, pkt, act)
	case Feedback:
		switch x := p.(type) {
		case cc.ReactionPoint:
			return x.Feedback(e.At, fb, act)
		case cc.NotificationPoint:
			return x.Feedback(e.At, fb, act)
		}
		return errRole
	case Receive:
		n, ok := p.(cc.NotificationPoint)
		if !ok {
			return errRole
		}
		return n.Receive(e.At, pkt, act)
	case Arrive, Pause, Message:
		w, ok := p.(cc.SwitchPoint)
		if !ok {
			return errRole
		}
		switch e.Kind {
		case Arrive:
			return w.Arrive(e.At, e.Port, pkt, act)
		case Pause:
			return w.Pause(e.At, e.Port, e.Packet.Prio, e.Paused, act)
		}
		return w.Message(e.At, e.Port, fb, act)
	}
	return errRole
}

var errRole = fmt.Errorf("cctest: event for a role the part does not play")

// RoleOf returns the role p plays (0 if none).
func RoleOf(p cc.Part) cc.Role {
	for _, r := range cc.Roles {
		if r.Plays(p) {
			return r
		}
	}
	return 0
}

// Step is what Drive reports for every call it makes: the event (a Timer
// event Drive inserted at a deadline has Inserted set), the error, and the
// actions the call appended.
type Step struct {
	Event    *Event
	Inserted bool
	Err      error
	Actions  []cc.Action
}

// Drive runs events through p as a simulator would: before each event it
// fires the part's timer at every deadline at or before the event's time
// (as Timer events with Inserted set), then applies the event. act is reset
// before every call. each, if not nil, sees every call; Drive stops and
// returns the step's error if each returns false. Drive returns an error
// of its own if a timer keeps its deadline at a time it has already been
// fired at (a part breaking the deadline rule would loop forever).
func Drive(p cc.Part, events []Event, act *cc.Actions, each func(Step) bool) error {
	var tick Event
	tick.Kind = Timer
	for i := range events {
		ev := &events[i]
		stuck, last := 0, units.Time(-1)
		for {
			d := p.NextDeadline()
			if d > ev.At || d == units.MaxTime {
				break
			}
			if d <= last {
				if stuck++; stuck == maxStuck {
					return fmt.Errorf("cctest: deadline %v still due after %d timer calls at it", d, stuck)
				}
			}
			last = d
			tick.At = d
			act.Reset()
			err := tick.Apply(p, act)
			if each != nil && !each(Step{Event: &tick, Inserted: true, Err: err, Actions: act.All()}) {
				return err
			}
			if err != nil {
				break
			}
		}
		act.Reset()
		err := ev.Apply(p, act)
		if each != nil && !each(Step{Event: ev, Err: err, Actions: act.All()}) {
			return err
		}
	}
	return nil
}

// maxStuck bounds the timer calls Drive makes at a deadline that does not
// move.
const maxStuck = 3
