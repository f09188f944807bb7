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
	Enqueue  Kind = iota + 1 // cc.CongestionPoint.Enqueue
	Dequeue                  // cc.CongestionPoint.Dequeue
	Timer                    // cc.Clock.Timer (any role)
	Sent                     // cc.ReactionPoint.Sent
	Feedback                 // cc.ReactionPoint.Feedback or cc.NotificationPoint.Feedback
	Receive                  // cc.NotificationPoint.Receive
)

var kindNames = [...]string{"", "enqueue", "dequeue", "timer", "sent", "feedback", "receive"}

func (k Kind) String() string {
	if k != 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind %d", k)
}

// Role returns the role whose method k calls (0 for Timer, which every
// role has).
func (k Kind) Role() cc.Role {
	switch k {
	case Enqueue, Dequeue:
		return cc.RoleCP
	case Sent:
		return cc.RoleRP
	case Receive:
		return cc.RoleNP
	}
	return 0 // Timer and Feedback: more than one role has them
}

// Event is one call of a contract method with its arguments. It holds its
// own INT header, so that a slice of events is self-contained and applying
// one allocates nothing: HasINT makes the packet's or the feedback's INT
// point at it.
type Event struct {
	Kind     Kind
	At       units.Time
	Packet   cc.Packet
	Queue    cc.Queue
	Feedback cc.Feedback
	HasINT   bool
	INT      inttel.Header
	// NilArg passes a nil *cc.Packet or *cc.Feedback, NilActions a nil
	// *cc.Actions (chaos sequences only): a part must refuse the one and
	// take the other as an Actions with no room, without panicking.
	NilArg, NilActions bool
}

// String describes the event for violation messages.
func (e *Event) String() string {
	s := e.describe()
	if e.NilArg {
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
		return fmt.Sprintf("%v at %v: flow %d size %v, queue %v", e.Kind, e.At, e.Packet.Flow, e.Packet.Size, e.Queue.Len)
	case Sent:
		return fmt.Sprintf("sent at %v: flow %d seq %d payload %v", e.At, e.Packet.Flow, e.Packet.Seq, e.Packet.Payload)
	case Receive:
		return fmt.Sprintf("receive at %v: flow %d seq %d ce %v", e.At, e.Packet.Flow, e.Packet.Seq, e.Packet.CE)
	case Feedback:
		return fmt.Sprintf("feedback at %v: %v flow %d seq %d acked %v ece %v int %v", e.At, e.Feedback.Kind, e.Feedback.Flow, e.Feedback.Seq, e.Feedback.Acked, e.Feedback.ECE, e.HasINT)
	}
	return fmt.Sprintf("%v at %v", e.Kind, e.At)
}

// Apply calls the event's method on p with act. The packet or feedback it
// passes points into e (and its INT at e.INT when HasINT), so Apply
// allocates nothing itself. An event for a role p does not play returns an
// error that is not a cc type: it is the caller's mistake, not the part's.
func (e *Event) Apply(p cc.Part, act *cc.Actions) error {
	e.Packet.INT, e.Feedback.INT = nil, nil
	if e.HasINT {
		if e.Kind == Feedback {
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
		c, ok := p.(cc.CongestionPoint)
		if !ok {
			return errRole
		}
		if e.Kind == Enqueue {
			return c.Enqueue(e.At, pkt, e.Queue, act)
		}
		return c.Dequeue(e.At, pkt, e.Queue, act)
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
	}
	return errRole
}

var errRole = fmt.Errorf("cctest: event for a role the part does not play")

// RoleOf returns the role p plays (0 if none).
func RoleOf(p cc.Part) cc.Role {
	for _, r := range []cc.Role{cc.RoleCP, cc.RoleRP, cc.RoleNP} {
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
