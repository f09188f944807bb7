package cctest

import (
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/trace"
	"github.com/hwcc/hwcc/units"
)

// lateTimers checks rule 4's catch-up on one well-formed sequence: part X
// is given its timer at every deadline before each event (as Drive does),
// part Y only the sequence's own events. After every event of the
// sequence the two accept, they hold the same registers, and the
// decisions X made up to it (its timers' and the events') are, in order,
// those Y made. An event both refuse is not compared: Y changes nothing
// (rule 2), overdue expiries included, which its next accepted event
// runs.
func (s *suite) lateTimers(seq int, evs []Event) error {
	x, err := s.fresh()
	if err != nil {
		return err
	}
	y, err := s.fresh()
	if err != nil {
		return err
	}
	actX, actY := cc.NewActions(s.o.Actions), cc.NewActions(s.o.Actions)
	var madeX, madeY []cc.Action
	tick := cc.Event{Kind: cc.EventTimer}
	apply := func(p cc.Part, ev *Event, act *cc.Actions) (err error, panicked bool) {
		act.Reset()
		defer func() {
			if r := recover(); r != nil {
				panicked = true
			}
		}()
		sent := sentArgs(ev)
		defer sent.restore(ev)
		return ev.Apply(p, act), false
	}
	for i := range evs {
		ev := &evs[i]
		where := fmt.Sprintf("%s event %d", s.seqName(), i)
		for n := 0; n < 64; n++ {
			d := x.NextDeadline()
			if d == units.MaxTime || d > ev.At {
				break
			}
			tick.At = d
			actX.Reset()
			if err := tick.Apply(x, actX); err != nil {
				break // the deadline rule reports timers that fail or stick
			}
			madeX = append(madeX, actX.All()...)
			if x.NextDeadline() <= d {
				break
			}
		}
		errX, px := apply(x, ev, actX)
		errY, py := apply(y, ev, actY)
		if px || py {
			return nil // the no-panic rule reports it
		}
		if (errX == nil) != (errY == nil) {
			s.rep.add(RuleLateTimers, "%s: %s returned %v with the timer called at every deadline and %v with the timer left to the event", where, &ev.Event, errX, errY)
			return nil
		}
		if errX != nil {
			// Refused by both: y changed nothing (rule 2), its overdue
			// expiries included, while x ran them as separate Timer
			// events; y's next accepted event runs them, and the two are
			// compared again then.
			continue
		}
		madeX = append(madeX, actX.All()...)
		madeY = append(madeY, actY.All()...)
		if ok, diff := equalRegs(regs(x), regs(y), ""); !ok {
			s.rep.add(RuleLateTimers, "%s: after %s a part whose timer was left overdue holds other registers than one whose timer was called at every deadline: %s", where, &ev.Event, diff)
			return nil
		}
		if !sameActions(madeX, madeY) {
			s.rep.add(RuleLateTimers, "%s: up to %s a part whose timer was left overdue decided %v, one whose timer was called at every deadline %v", where, &ev.Event, madeY, madeX)
			return nil
		}
		if dx, dy := x.NextDeadline(), y.NextDeadline(); dx != dy && dy <= ev.At {
			s.rep.add(RuleLateTimers, "%s: after %s the deadline %v is still overdue: an event runs what is due by its now", where, &ev.Event, dy)
			return nil
		}
	}
	return nil
}

// unusedFeedback checks rule 8 on a part of role RP, NP or SW after the
// well-formed sequence evs: a message of kind o.UnusedKind (one no part
// of this module uses) at the latest accepted time is taken, decides
// nothing and changes no register but unused_feedback, which counts it.
func (s *suite) unusedFeedback(seq int, evs []Event) error {
	if s.role != cc.RoleRP && s.role != cc.RoleNP && s.role != cc.RoleSW {
		return nil
	}
	p, err := s.fresh()
	if err != nil {
		return err
	}
	evs = slices.Clone(evs) // a part may write the packets it is given
	act := cc.NewActions(s.o.Actions)
	var last units.Time
	var flow cc.FlowID
	for i := range evs {
		act.Reset()
		if err := evs[i].Apply(p, act); err == nil {
			last = max(last, evs[i].At)
		}
		if k := evs[i].Kind; k.Packet() {
			flow = evs[i].Packet.Flow
		} else if k.Message() {
			flow = evs[i].Feedback.Flow
		}
	}
	ev := cc.Event{Kind: cc.EventFeedback, At: last, Feedback: cc.Feedback{Kind: s.o.UnusedKind, Flow: flow, Seq: 1}}
	if s.role == cc.RoleSW {
		ev.Kind, ev.Port = cc.EventMessage, 0
	}
	before := regs(p)
	act.Reset()
	err = func() (err error) {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("panic: %v", r)
			}
		}()
		return ev.Apply(p, act)
	}()
	where := s.seqName() + ", after its events"
	switch {
	case err != nil:
		s.rep.add(RuleUnused, "%s: a message of a kind the part does not use (%v) was refused: %v", where, s.o.UnusedKind, err)
		return nil
	case act.Len() != 0:
		s.rep.add(RuleUnused, "%s: a message of a kind the part does not use (%v) decided %v", where, s.o.UnusedKind, act.All())
		return nil
	}
	after := regs(p)
	if ok, diff := equalRegs(before, after, UnusedRegister); !ok {
		s.rep.add(RuleUnused, "%s: a message of a kind the part does not use (%v) changed a register: %s", where, s.o.UnusedKind, diff)
		return nil
	}
	b, okB := regValue(before, UnusedRegister)
	a, okA := regValue(after, UnusedRegister)
	if !okB || !okA || a != b+1 && !(b == ^uint64(0) && a == 0) {
		s.rep.add(RuleUnused, "%s: a message of a kind the part does not use (%v) is not counted in register %s (before %d, after %d, present %v)", where, s.o.UnusedKind, UnusedRegister, b, a, okA)
	}
	return nil
}

// UnusedRegister is the register a reaction, notification or switch point
// counts the messages of kinds it does not use in (rule 8).
const UnusedRegister = cc.UnusedRegister

// regValue returns the value of register name in rs.
func regValue(rs []cc.Register, name string) (uint64, bool) {
	for _, r := range rs {
		if r.Name == name {
			return r.Value, true
		}
	}
	return 0, false
}

// nilActions checks rule 3's refusal of a nil *Actions on one well-formed
// sequence: for the first event of each kind that decided something (on a
// part that took the events before it), a fresh part given the same events
// and that event with nil actions refuses it with an *cc.EventError
// wrapping cc.ErrNoActions, changing nothing. seen records the kinds
// already checked.
func (s *suite) nilActions(seq int, orig []Event, seen map[cc.EventKind]bool) error {
	p, err := s.fresh()
	if err != nil {
		return err
	}
	evs := slices.Clone(orig) // a part may write the packets it is given
	act := cc.NewActions(s.o.Actions)
	for i := range evs {
		ev := &evs[i]
		act.Reset()
		err := ev.Apply(p, act)
		decided := act.Len()
		if err != nil || decided == 0 || seen[ev.Kind] {
			continue
		}
		seen[ev.Kind] = true
		q, err := s.fresh()
		if err != nil {
			return err
		}
		replay := slices.Clone(orig[:i+1])
		for j := range replay[:i] {
			act.Reset()
			_ = replay[j].Apply(q, act)
		}
		before := regs(q)
		errNil := func() (err error) {
			defer func() {
				if r := recover(); r != nil {
					err = fmt.Errorf("panic: %v", r)
				}
			}()
			return replay[i].Event.Apply(q, nil)
		}()
		where := fmt.Sprintf("%s event %d", s.seqName(), i)
		var ee *cc.EventError
		switch {
		case errNil == nil:
			s.rep.add(RuleNilActions, "%s: %s decides (%d actions) but took a nil *cc.Actions", where, &ev.Event, decided)
		case !errors.As(errNil, &ee) || !errors.Is(errNil, cc.ErrNoActions):
			s.rep.add(RuleNilActions, "%s: %s with a nil *cc.Actions returned %v, not a *cc.EventError wrapping cc.ErrNoActions", where, &ev.Event, errNil)
		default:
			if ok, diff := equalRegs(before, regs(q), ""); !ok {
				s.rep.add(RuleNilActions, "%s: %s refused nil actions but changed a register: %s", where, &ev.Event, diff)
			}
		}
	}
	return nil
}

// SequenceSeed is the seed of the suite's sequence i for Options.Seed seed:
// well-formed sequence i (from 0) is generated from SequenceSeed(seed, i),
// chaos sequence i from SequenceSeed(seed, −1−i). It mixes the two with
// SplitMix64's finaliser, so that neighbouring sequences share no stream.
func SequenceSeed(seed int64, i int) int64 {
	z := uint64(seed) + uint64(int64(i))*0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return int64(z ^ z>>31)
}

// Sequence regenerates a well-formed sequence of the suite: the one a
// Violation names, from its Gen and Seed, for a part of role.
func Sequence(role cc.Role, o GenOptions, seed int64) []cc.Event {
	return Events(rand.New(rand.NewSource(seed)), role, o)
}

// ChaosSequence regenerates a chaos sequence of the suite from a
// Violation's Gen and Seed.
func ChaosSequence(role cc.Role, o GenOptions, seed int64) []Event {
	return Chaos(rand.New(rand.NewSource(seed)), role, o)
}

// seqName names the sequence the suite runs now, with its seed.
func (s *suite) seqName() string {
	c := &s.rep.cur
	if c.chaos {
		return fmt.Sprintf("chaos sequence %d (seed %d)", c.seq, c.seed)
	}
	return fmt.Sprintf("sequence %d (seed %d)", c.seq, c.seed)
}

// writeTrace writes the current sequence's calls to a trace file in
// Options.TraceDir and returns its path ("" and nothing written when it
// cannot: the violation is reported all the same).
func (s *suite) writeTrace() string {
	h := *s.o.TraceHeader
	c := &s.rep.cur
	name := filepath.Join(s.o.TraceDir, fmt.Sprintf("cctest-%s-%s-seq%d-seed%d.trace", h.Algorithm, h.Part, c.seq, c.seed))
	f, err := os.Create(name)
	if err != nil {
		return ""
	}
	defer f.Close()
	w, err := trace.NewWriter(f, h)
	if err != nil {
		return ""
	}
	for i := range s.calls {
		if w.Write(&s.calls[i]) != nil {
			return ""
		}
	}
	return name
}
