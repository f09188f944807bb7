package cctest

import (
	"fmt"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
)

// Event is one event of a generated sequence: a cc.Event and, in chaos
// sequences only, a request to pass a nil argument, which a trace cannot
// hold and a part must survive: NilArg passes a nil *cc.Packet or
// *cc.Feedback (a part refuses it), NilActions a nil *cc.Actions (a part
// takes it as an Actions with no room).
type Event struct {
	cc.Event
	NilArg, NilActions bool
}

// String describes the event for violation messages.
func (e *Event) String() string {
	s := e.Event.String()
	if e.NilArg && (e.Kind.Packet() || e.Kind.Message()) {
		s += " (passed as nil)"
	}
	if e.NilActions {
		s += " (nil actions)"
	}
	return s
}

// Apply calls the event's method on p with act, as cc.Event.Apply does,
// passing nil where NilArg or NilActions asks.
func (e *Event) Apply(p cc.Part, act *cc.Actions) error {
	if e.NilActions {
		act = nil
	}
	if !e.NilArg {
		return e.Event.Apply(p, act)
	}
	return e.Call(p, nil, nil, act)
}

// Step is what Drive reports for every call it makes: the event (a Timer
// event Drive inserted at a deadline has Inserted set), the error, and the
// actions the call appended.
type Step struct {
	Event    *cc.Event
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
func Drive(p cc.Part, events []cc.Event, act *cc.Actions, each func(Step) bool) error {
	tick := cc.Event{Kind: cc.EventTimer}
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
