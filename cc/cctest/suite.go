package cctest

import (
	"errors"
	"fmt"
	"math/rand"
	"runtime"
	"slices"
	"strings"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/trace"
	"github.com/hwcc/hwcc/units"
)

// Options tune the suite. The zero value runs the defaults in parentheses.
type Options struct {
	// Seed seeds every generated sequence (1): a failure reproduces with
	// the same seed.
	Seed int64
	// Sequences is how many well-formed sequences the rules run on (24);
	// Chaos how many malformed ones the no-panic rule adds (48).
	Sequences, Chaos int
	// Gen shapes the sequences (see GenOptions).
	Gen GenOptions
	// Actions is the capacity of the Actions the part is given (256).
	Actions int
	// MaxRate bounds a reaction point's Limits().Rate (0: only ≥ 0).
	MaxRate units.Rate
	// AllocSequences is how many well-formed sequences (one of each shape
	// with the default 3), and as many chaos sequences, the allocs rule
	// measures event by event (reading the allocator's counters stops the
	// world, so it is slow). Negative skips the rule, for runs under the
	// race detector, which allocates on its own.
	AllocSequences int
	// UnusedKind is a feedback kind the part does not use, which the
	// unused-feedback rule delivers to it (255: no part of this module
	// uses it).
	UnusedKind cc.FeedbackKind
	// TraceDir, with TraceHeader (the part as the registry builds it), is
	// where a well-formed sequence that breaks a rule is written as a
	// golden-model trace (package trace) of the calls the suite made, up to
	// the failing one, timers included: `hwcc replay FILE` and
	// trace.ReadAll reproduce it. The file's name is in the Violation.
	TraceDir    string
	TraceHeader *trace.Header
}

func (o Options) withDefaults() Options {
	if o.Seed == 0 {
		o.Seed = 1
	}
	if o.Sequences <= 0 {
		o.Sequences = 24
	}
	if o.Chaos <= 0 {
		o.Chaos = 48
	}
	if o.Actions <= 0 {
		o.Actions = 256
	}
	if o.AllocSequences == 0 {
		o.AllocSequences = 3
	}
	if o.UnusedKind == cc.FeedbackNone {
		o.UnusedKind = 255
	}
	return o
}

// Rule names, as violations print them.
const (
	RuleNoPanic     = "no-panic"
	RuleTypedErrors = "typed-errors"
	RuleTimeOrder   = "time-order"
	RuleAtomic      = "atomic"
	RuleActionsFull = "actions-full"
	RuleDeadline    = "deadline"
	RuleLimits      = "limits"
	RuleRegisters   = "registers"
	RuleDeterminism = "determinism"
	RuleAllocs      = "allocs"
	RuleOutputs     = "outputs"
	RuleLateTimers  = "late-timers"
	RuleUnused      = "unused-feedback"
	RuleNilActions  = "nil-actions"
)

// rules lists the rules in the order reports and Names give them.
var rules = []string{RuleNoPanic, RuleTypedErrors, RuleTimeOrder, RuleAtomic, RuleActionsFull, RuleDeadline, RuleLimits, RuleOutputs, RuleRegisters, RuleDeterminism, RuleAllocs, RuleLateTimers, RuleUnused, RuleNilActions}

// Violation is one broken rule.
type Violation struct {
	Rule string
	Msg  string
	// Sequence is the index of the generated sequence that broke it (−1
	// for a check on no sequence), Chaos whether that is a chaos sequence,
	// Seed and Gen what it was generated from: Sequence(role, Gen, Seed)
	// or ChaosSequence(role, Gen, Seed) regenerates it.
	Sequence int
	Chaos    bool
	Seed     int64
	Gen      GenOptions
	// Trace is the file the sequence's calls up to the failing one were
	// written to (Options.TraceDir), or "".
	Trace string
}

// Error names the rule broken and what the suite saw.
func (v *Violation) Error() string { return "cctest: rule " + v.Rule + ": " + v.Msg }

// maxPerRule bounds the violations reported per rule (the rest are counted).
const maxPerRule = 3

// report collects violations.
type report struct {
	list   []error
	counts map[string]int
	// cur is the sequence the suite runs now (Sequence −1: none).
	cur seqInfo
	// trace, if set, writes the current sequence's calls for a violation.
	trace func() string
}

// seqInfo is what a Violation says of its sequence.
type seqInfo struct {
	seq   int
	chaos bool
	seed  int64
	gen   GenOptions
	file  string // the trace written for it, once
}

func (r *report) add(rule, format string, args ...any) {
	if r.counts == nil {
		r.counts = map[string]int{}
	}
	r.counts[rule]++
	if r.counts[rule] <= maxPerRule {
		c := &r.cur
		if c.seq >= 0 && !c.chaos && c.file == "" && r.trace != nil {
			c.file = r.trace()
		}
		r.list = append(r.list, &Violation{Rule: rule, Msg: fmt.Sprintf(format, args...),
			Sequence: c.seq, Chaos: c.chaos, Seed: c.seed, Gen: c.gen, Trace: c.file})
	}
}

func (r *report) err() error {
	for _, rule := range rules {
		if n := r.counts[rule]; n > maxPerRule {
			r.list = append(r.list, &Violation{Rule: rule, Msg: fmt.Sprintf("%d more violations", n-maxPerRule)})
		}
	}
	return errors.Join(r.list...)
}

// Test checks parts made by newPart against every rule of the contract
// and returns nil or an error joining one *Violation per broken rule
// instance (at most three per rule, then a count), each naming its rule,
// the sequence and the event. newPart must return a fresh part in the same
// initial state on every call. It is called many times.
func Test(newPart func() (cc.Part, error), o Options) error {
	_, err := TestStats(newPart, o)
	return err
}

// TestStats is Test that also returns what the well-formed sequences did.
func TestStats(newPart func() (cc.Part, error), o Options) (Stats, error) {
	o = o.withDefaults()
	probe, err := newPart()
	if err != nil {
		return Stats{}, fmt.Errorf("cctest: constructor: %w", err)
	}
	role := cc.RoleOf(probe)
	if role == 0 {
		return Stats{}, &Violation{Rule: "role", Msg: fmt.Sprintf("%T plays no role of package cc", probe)}
	}
	rep := report{cur: seqInfo{seq: -1}}
	s := &suite{newPart: newPart, o: o, role: role, rep: &rep, ports: o.Gen.withDefaults().Ports}
	s.stats.Actions = map[cc.ActionKind]int{}
	s.stats.Refused = map[string]int{}
	if o.TraceDir != "" && o.TraceHeader != nil {
		rep.trace = s.writeTrace
	}
	nilSeen := map[cc.EventKind]bool{}
	for i := range o.Sequences {
		g := o.Gen
		if (role == cc.RoleCP || role == cc.RoleSW) && g.Flows == 0 {
			g.Flows = []int{4, 64, 2048}[i%3]
		}
		if r, ok := probe.(cc.ReactionPoint); ok && r.Limits().Credited {
			g.Credited = true
		}
		seed := SequenceSeed(o.Seed, i)
		rep.cur = seqInfo{seq: i, seed: seed, gen: g}
		evs := events(rand.New(rand.NewSource(seed)), role, g)
		if err := s.wellFormed(i, evs); err != nil {
			return s.stats, err
		}
		for _, rule := range []func(int, []Event) error{s.lateTimers, s.unusedFeedback,
			func(i int, evs []Event) error { return s.nilActions(i, evs, nilSeen) }} {
			if err := rule(i, evs); err != nil {
				return s.stats, err
			}
		}
		if i < o.AllocSequences {
			if err := s.allocs(i, evs); err != nil {
				return s.stats, err
			}
		}
	}
	for i := range o.Chaos {
		seed := SequenceSeed(o.Seed, -1-i)
		rep.cur = seqInfo{seq: i, chaos: true, seed: seed, gen: o.Gen}
		evs := Chaos(rand.New(rand.NewSource(seed)), role, o.Gen)
		if err := s.chaos(i, evs); err != nil {
			return s.stats, err
		}
		if i < o.AllocSequences {
			// Malformed input too: an accepted event allocates nothing
			// whatever its values.
			if err := s.allocs(-1-i, evs); err != nil {
				return s.stats, err
			}
		}
	}
	return s.stats, rep.err()
}

// TestCP, TestRP and TestNP are Test for a constructor of one role.
func TestCP(newPart func() (cc.CongestionPoint, error), o Options) error {
	return Test(func() (cc.Part, error) { return newPart() }, o)
}

// TestRP is Test for a reaction point's constructor.
func TestRP(newPart func() (cc.ReactionPoint, error), o Options) error {
	return Test(func() (cc.Part, error) { return newPart() }, o)
}

// TestNP is Test for a notification point's constructor.
func TestNP(newPart func() (cc.NotificationPoint, error), o Options) error {
	return Test(func() (cc.Part, error) { return newPart() }, o)
}

// TestSW is Test for a switch point's constructor; o.Gen.Ports should be
// the port count it builds the switch point with.
func TestSW(newPart func() (cc.SwitchPoint, error), o Options) error {
	return Test(func() (cc.Part, error) { return newPart() }, o)
}

type suite struct {
	// calls are the events the current well-formed sequence gave its
	// lockstep part A so far, timers included (a trace of them reproduces
	// a violation).
	calls   []cc.Event
	newPart func() (cc.Part, error)
	o       Options
	role    cc.Role
	ports   int // a switch point's port count (GenOptions.Ports)
	rep     *report
	stats   Stats
}

// Stats count what the well-formed sequences did, so that a test can check
// the rules were not met vacuously (a part that refuses every event keeps
// most of them).
type Stats struct {
	// Calls is the events and timers applied to one of the lockstep
	// parts; Accepted those that returned nil; Actions the decisions they
	// appended, by kind.
	Calls, Accepted int
	Actions         map[cc.ActionKind]int
	// Refused counts the errors by sentinel name ("time-order", "event",
	// "decode", "actions-full", "config", "other").
	Refused map[string]int
}

// fresh returns a new part or an error that ends the suite.
func (s *suite) fresh() (cc.Part, error) {
	p, err := s.newPart()
	if err != nil {
		return nil, fmt.Errorf("cctest: constructor failed on a later call: %w", err)
	}
	if p == nil {
		return nil, errors.New("cctest: constructor returned a nil part")
	}
	return p, nil
}

// call applies ev to p, turning a panic into an error it reports.
func (s *suite) call(where string, p cc.Part, ev *Event, act *cc.Actions) (err error, panicked bool) {
	defer func() {
		if r := recover(); r != nil {
			s.rep.add(RuleNoPanic, "%s: %s: panic: %v", where, ev, r)
			err, panicked = fmt.Errorf("panic: %v", r), true
		}
	}()
	return ev.Apply(p, act), false
}

// regs is a snapshot of a part's registers.
func regs(p cc.Part) []cc.Register { return p.AppendRegisters(nil) }

// equalRegs compares two snapshots, skipping the register named skip.
func equalRegs(a, b []cc.Register, skip string) (bool, string) {
	if len(a) != len(b) {
		return false, fmt.Sprintf("%d registers, then %d", len(a), len(b))
	}
	for i := range a {
		if a[i].Name == skip && b[i].Name == skip {
			continue
		}
		if a[i] != b[i] {
			return false, fmt.Sprintf("%v became %v", a[i], b[i])
		}
	}
	return true, ""
}

func sameErr(a, b error) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Error() == b.Error()
}

func sameActions(a, b []cc.Action) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		// A telemetry pointer would point into the caller's event:
		// compare presence only.
		if (x.Feedback.Tel == nil) != (y.Feedback.Tel == nil) {
			return false
		}
		x.Feedback.Tel, y.Feedback.Tel = nil, nil
		if x != y {
			return false
		}
	}
	return true
}

// duplicateName returns a name two registers of rs share, if any.
func duplicateName(rs []cc.Register) (string, bool) {
	for i := range rs {
		for j := range i {
			if rs[j].Name == rs[i].Name {
				return rs[i].Name, true
			}
		}
	}
	return "", false
}

// checkRegs checks the registers rule on snapshot r against the first
// snapshot of the sequence (shape).
func (s *suite) checkRegs(where string, r, shape []cc.Register) {
	for _, x := range r {
		if !x.Fits() {
			s.rep.add(RuleRegisters, "%s: register %q has width %d and value %#x, which does not fit", where, x.Name, x.Width, x.Value)
		}
	}
	if len(r) != len(shape) {
		s.rep.add(RuleRegisters, "%s: %d registers, %d at the start", where, len(r), len(shape))
		return
	}
	for i := range r {
		if r[i].Name != shape[i].Name || r[i].Width != shape[i].Width || r[i].Signed != shape[i].Signed {
			s.rep.add(RuleRegisters, "%s: register %d is %q[%d], was %q[%d]", where, i, r[i].Name, r[i].Width, shape[i].Name, shape[i].Width)
			return
		}
	}
}

// wellFormed runs one well-formed sequence on two parts in lockstep: A
// with room for its actions, B with none first (the actions-full rule) and
// then with room (determinism), probing time order along the way.
func (s *suite) wellFormed(seq int, evs []Event) error {
	s.calls = s.calls[:0]
	a, err := s.fresh()
	if err != nil {
		return err
	}
	b, err := s.fresh()
	if err != nil {
		return err
	}
	shape := regs(a)
	s.checkRegs(s.seqName()+": new part", shape, shape)
	if name, ok := duplicateName(shape); ok {
		s.rep.add(RuleRegisters, "%s: two registers are named %q (a name is a register's key in traces, the C ABI and the RTL benches)", s.seqName(), name)
	}
	if ok, diff := equalRegs(shape, regs(b), ""); !ok {
		s.rep.add(RuleDeterminism, "%s: two new parts differ: %s", s.seqName(), diff)
	}
	// AppendRegisters must append: a prefix survives, nothing allocates
	// when there is room.
	dst := make([]cc.Register, 1, len(shape)+1)
	dst[0] = cc.Reg("caller", 8, 42)
	if n := testingAllocs(func() { dst = a.AppendRegisters(dst[:1]) }); n > 0 && s.o.AllocSequences >= 0 {
		s.rep.add(RuleAllocs, "%s: AppendRegisters allocated %v times with room in dst", s.seqName(), n)
	}
	if len(dst) != len(shape)+1 || dst[0] != cc.Reg("caller", 8, 42) {
		s.rep.add(RuleRegisters, "%s: AppendRegisters did not append to dst (got %d registers, first %v)", s.seqName(), len(dst), dst[0])
	}
	actA := cc.NewActions(s.o.Actions)
	actB := cc.NewActions(s.o.Actions + 1) // room for the caller's sentinel
	var none cc.Actions
	var accepted units.Time // the latest now A accepted
	var tick Event
	tick.Kind = cc.EventTimer
	step := func(ev *Event, where string) {
		// A congestion or switch point may push its record onto the
		// packet's telemetry in place, a switch point or a reaction
		// point write its header bytes: each part gets the packet as the
		// event has it, and the two must write alike.
		sent := sentArgs(ev)
		defer sent.restore(ev)
		s.calls = append(s.calls, ev.Event)
		before := regs(a)
		deadline := a.NextDeadline()
		actA.Reset()
		errA, pa := s.call(where, a, ev, actA)
		if pa {
			return
		}
		after := regs(a)
		stampedA, writtenA := ev.Tel, ev.Packet
		s.count(errA, actA)
		s.checkWrites(where, ev, sent)
		if errors.Is(errA, cc.ErrTimeOrder) && ev.At >= accepted && ev.At >= 0 {
			s.rep.add(RuleTimeOrder, "%s: %s is in time order (the latest accepted now is %v; equal times are in order) but was refused: %v", where, ev, accepted, errA)
		}
		if errA != nil {
			if !cc.Typed(errA) {
				s.rep.add(RuleTypedErrors, "%s: %s: error of type %T is not one of cc's: %v", where, ev, errA, errA)
			}
			if ok, diff := equalRegs(before, after, ""); !ok {
				s.rep.add(RuleAtomic, "%s: %s failed (%v) but changed a register: %s", where, ev, errA, diff)
			}
			if actA.Len() != 0 {
				s.rep.add(RuleAtomic, "%s: %s failed (%v) but appended %d actions", where, ev, errA, actA.Len())
			}
		} else {
			accepted = max(accepted, ev.At)
			s.checkAfter(where, a, ev, before, after, deadline, actA, accepted)
			s.checkActions(where, ev, actA.All(), true)
		}
		s.checkRegs(where, after, shape)
		// B: first with no room.
		none = cc.Actions{}
		sent.restore(ev)
		errB, pb := s.call(where+" (no room)", b, ev, &none)
		if pb {
			return
		}
		if errB == nil && actA.Len() > 0 {
			s.rep.add(RuleActionsFull, "%s: %s decides %d actions but with no room returned nil instead of cc.ErrActionsFull", where, ev, actA.Len())
			return // B moved on without its actions: lockstep is lost
		}
		if errors.Is(errB, cc.ErrActionsFull) {
			if ok, diff := equalRegs(before, regs(b), ""); !ok {
				s.rep.add(RuleActionsFull, "%s: %s failed for want of room but changed a register: %s", where, ev, diff)
			}
			if k := actA.Len(); errA == nil && k >= 2 {
				// Room for all but one: still refused, still nothing done,
				// the caller's earlier decisions kept.
				part := cc.ActionsOn(make([]cc.Action, 0, k))
				part.Add(sentinel)
				sent.restore(ev)
				errP, pp := s.call(where+" (room for all but one)", b, ev, &part)
				if pp {
					return
				}
				if !errors.Is(errP, cc.ErrActionsFull) {
					s.rep.add(RuleActionsFull, "%s: %s decides %d actions but with room for %d returned %v instead of cc.ErrActionsFull", where, ev, k, k-1, errP)
					return // B may have moved on: lockstep is lost
				}
				if ok, diff := equalRegs(before, regs(b), ""); !ok {
					s.rep.add(RuleActionsFull, "%s: %s failed for want of room but changed a register: %s", where, ev, diff)
				}
				if part.Len() != 1 || part.At(0) != sentinel {
					s.rep.add(RuleAtomic, "%s: %s failed for want of room but changed the caller's actions: %v", where, ev, part.All())
				}
			}
			// Then with room, after a decision the caller already holds.
			actB.Reset()
			actB.Add(sentinel)
			sent.restore(ev)
			errB, pb = s.call(where, b, ev, actB)
			if pb {
				return
			}
			got := actB.All()
			switch {
			case len(got) == 0 || got[0] != sentinel:
				s.rep.add(RuleAtomic, "%s: %s did not append to the caller's actions: the decision already there is gone (%v)", where, ev, got)
			case errB != nil && len(got) != 1:
				s.rep.add(RuleAtomic, "%s: %s failed (%v) but appended %d actions", where, ev, errB, len(got)-1)
			case !sameActions(actA.All(), got[1:]):
				s.rep.add(RuleDeterminism, "%s: %s: two equal parts decided differently: %v and %v", where, ev, actA.All(), got[1:])
			}
		} else if errA == nil && actA.Len() > 0 {
			s.rep.add(RuleActionsFull, "%s: %s decides %d actions but with no room returned %v instead of cc.ErrActionsFull", where, ev, actA.Len(), errB)
		}
		if !sameErr(errA, errB) {
			s.rep.add(RuleDeterminism, "%s: %s: two equal parts returned %v and %v", where, ev, errA, errB)
		}
		if ev.Tel != stampedA {
			s.rep.add(RuleDeterminism, "%s: %s: two equal parts wrote the telemetry stack differently: % x and % x", where, ev, stampedA.Bytes(), ev.Tel.Bytes())
		}
		if ev.Packet != writtenA {
			s.rep.add(RuleDeterminism, "%s: %s: two equal parts wrote the packet differently: %+v and %+v", where, ev, writtenA, ev.Packet)
		}
		if ok, diff := equalRegs(after, regs(b), ""); !ok {
			s.rep.add(RuleDeterminism, "%s: %s: two equal parts' registers differ: %s", where, ev, diff)
		}
		if da, db := a.NextDeadline(), b.NextDeadline(); da != db {
			s.rep.add(RuleDeterminism, "%s: %s: two equal parts' deadlines differ: %v and %v", where, ev, da, db)
		}
		if ra, ok := a.(cc.ReactionPoint); ok {
			if la, lb := ra.Limits(), b.(cc.ReactionPoint).Limits(); la != lb {
				s.rep.add(RuleDeterminism, "%s: %s: two equal parts' limits differ: %+v and %+v", where, ev, la, lb)
			}
		}
	}
	for i := range evs {
		ev := &evs[i]
		where := fmt.Sprintf("%s event %d", s.seqName(), i)
		// Fire due timers first, as a simulator would.
		for n := 0; n < 64; n++ {
			d := a.NextDeadline()
			if d == units.MaxTime || d > ev.At || d < accepted {
				break
			}
			tick.At = d
			step(&tick, where+" (timer at deadline)")
			if a.NextDeadline() <= d {
				break // reported by checkAfter
			}
		}
		step(ev, where)
		if i%16 == 15 {
			s.timeOrder(where, a, b, ev, accepted)
		}
	}
	return nil
}

// count adds one call of the lockstep part A to the stats.
func (s *suite) count(err error, act *cc.Actions) {
	s.stats.Calls++
	if err == nil {
		s.stats.Accepted++
		for _, x := range act.All() {
			s.stats.Actions[x.Kind]++
		}
		return
	}
	name := "other"
	for _, c := range []struct {
		sentinel error
		name     string
	}{{cc.ErrTimeOrder, "time-order"}, {cc.ErrEvent, "event"}, {cc.ErrDecode, "decode"}, {cc.ErrActionsFull, "actions-full"}, {cc.ErrConfig, "config"}} {
		if errors.Is(err, c.sentinel) {
			name = c.name
			break
		}
	}
	s.stats.Refused[name]++
}

// sentinel stands for a decision the caller already holds in its Actions
// when it calls a part: the part must append after it and, on error, leave
// it alone.
var sentinel = cc.Action{Kind: 255, Prio: 255}

// checkAfter checks the deadline and limits rules after a successful call.
func (s *suite) checkAfter(where string, p cc.Part, ev *Event, before, after []cc.Register, deadline units.Time, act *cc.Actions, accepted units.Time) {
	d := p.NextDeadline()
	if d != deadline && d < ev.At {
		s.rep.add(RuleDeadline, "%s: %s moved NextDeadline from %v to %v, before its now", where, ev, deadline, d)
	}
	if ev.Kind == cc.EventTimer {
		switch {
		case ev.At < deadline:
			if ok, diff := equalRegs(before, after, "now"); !ok {
				s.rep.add(RuleDeadline, "%s: a timer at %v before the deadline %v changed a register: %s", where, ev.At, deadline, diff)
			}
			if act.Len() != 0 {
				s.rep.add(RuleDeadline, "%s: a timer at %v before the deadline %v appended %d actions", where, ev.At, deadline, act.Len())
			}
		case d != units.MaxTime && d <= ev.At:
			s.rep.add(RuleDeadline, "%s: a timer at %v (deadline %v) left NextDeadline at %v, not after now", where, ev.At, deadline, d)
		}
	}
	if r, ok := p.(cc.ReactionPoint); ok {
		l := r.Limits()
		if l.Rate < 0 || l.Window < 0 || (s.o.MaxRate > 0 && l.Rate > s.o.MaxRate) {
			s.rep.add(RuleLimits, "%s: after %s Limits() = rate %v window %v (want rate in 0..%v, window ≥ 0)", where, ev, l.Rate, l.Window, s.o.MaxRate)
		}
	}
}

// timeOrder sends both parts every event method of the role (a switch
// point's with the port of like) at a time before the latest accepted now
// (and at −1 ps), expecting a
// *cc.TimeOrderError naming both times and no change.
func (s *suite) timeOrder(where string, a, b cc.Part, like *Event, accepted units.Time) {
	kinds := s.role.Events()
	times := []units.Time{-1}
	if accepted > 0 {
		times = append(times, accepted-1)
	}
	for _, at := range times {
		for _, k := range kinds {
			ev := *like
			ev.Kind, ev.At = k, at
			switch {
			case k == cc.EventFeedback && ev.Feedback.Kind == cc.FeedbackNone:
				ev.Feedback.Kind = cc.FeedbackAck
			case k == cc.EventMessage && ev.Feedback.Kind == cc.FeedbackNone:
				ev.Feedback.Kind = cc.FeedbackCredit
			}
			before := regs(a)
			act := cc.NewActions(s.o.Actions)
			err, panicked := s.call(where+" (time order)", a, &ev, act)
			if panicked {
				continue
			}
			var te *cc.TimeOrderError
			switch {
			case !errors.Is(err, cc.ErrTimeOrder) || !errors.As(err, &te):
				s.rep.add(RuleTimeOrder, "%s: %v at %v after an event at %v returned %v, want a *cc.TimeOrderError", where, k, at, accepted, err)
			case te.Now != at || te.Last != accepted:
				s.rep.add(RuleTimeOrder, "%s: %v at %v: TimeOrderError names now %v and last %v, want %v and %v", where, k, at, te.Now, te.Last, at, accepted)
			}
			if ok, diff := equalRegs(before, regs(a), ""); !ok {
				s.rep.add(RuleTimeOrder, "%s: %v at %v, refused for time order, changed a register: %s", where, k, at, diff)
			}
			if act.Len() != 0 {
				s.rep.add(RuleTimeOrder, "%s: %v at %v, refused for time order, appended %d actions", where, k, at, act.Len())
			}
			_, _ = s.call(where+" (time order)", b, &ev, cc.NewActions(s.o.Actions))
		}
	}
}

// allocs replays a well-formed sequence on two fresh parts and counts the
// allocations of every successful call; an event that allocates in both
// runs is a violation (one that allocates in one run only is the runtime's
// own background work landing in the window).
func (s *suite) allocs(seq int, evs []Event) error {
	if s.o.AllocSequences < 0 {
		return nil
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var counts [2][]uint64
	for run := range counts {
		evs := slices.Clone(evs) // a CP may push onto the telemetry stacks in place
		p, err := s.fresh()
		if err != nil {
			return err
		}
		act := cc.NewActions(s.o.Actions)
		var ms runtime.MemStats
		var tick Event
		tick.Kind = cc.EventTimer
		measure := func(ev *Event) (n uint64) {
			defer func() {
				if recover() != nil { // reported by the no-panic rule
					n = 0
				}
			}()
			act.Reset()
			runtime.ReadMemStats(&ms)
			n0 := ms.Mallocs
			err := ev.Apply(p, act)
			runtime.ReadMemStats(&ms)
			if err != nil {
				return 0
			}
			return ms.Mallocs - n0
		}
		for i := range evs {
			var n uint64
			for k := 0; k < 64; k++ {
				d := p.NextDeadline()
				if d == units.MaxTime || d > evs[i].At {
					break
				}
				tick.At = d
				n += measure(&tick)
				if p.NextDeadline() <= d {
					break
				}
			}
			counts[run] = append(counts[run], n+measure(&evs[i]))
		}
	}
	name := s.seqName()
	for i := range evs {
		if counts[0][i] > 0 && counts[1][i] > 0 {
			s.rep.add(RuleAllocs, "%s event %d: %s (with the timers due before it) allocated %d times", name, i, &evs[i], min(counts[0][i], counts[1][i]))
		}
	}
	return nil
}

// chaos runs one malformed sequence: nothing may panic, every error must
// be typed and leave the part as it was, registers must fit, and the
// deadline rule holds.
func (s *suite) chaos(seq int, evs []Event) error {
	p, err := s.fresh()
	if err != nil {
		return err
	}
	shape := regs(p)
	act := cc.NewActions(s.o.Actions)
	var accepted units.Time
	for i := range evs {
		ev := &evs[i]
		where := fmt.Sprintf("%s event %d", s.seqName(), i)
		before := regs(p)
		deadline := p.NextDeadline()
		act.Reset()
		sent := sentArgs(ev)
		err, panicked := s.call(where, p, ev, act)
		if panicked {
			// A part that panicked is in an unknown state: start afresh.
			if p, err = s.fresh(); err != nil {
				return err
			}
			accepted = 0
			continue
		}
		after := regs(p)
		s.checkRegs(where, after, shape)
		s.checkWrites(where, ev, sent)
		if err != nil {
			if !cc.Typed(err) {
				s.rep.add(RuleTypedErrors, "%s: %s: error of type %T is not one of cc's: %v", where, ev, err, err)
			}
			if ok, diff := equalRegs(before, after, ""); !ok {
				s.rep.add(RuleAtomic, "%s: %s failed (%v) but changed a register: %s", where, ev, err, diff)
			}
			if act.Len() != 0 {
				s.rep.add(RuleAtomic, "%s: %s failed (%v) but appended %d actions", where, ev, err, act.Len())
			}
			if ev.At < accepted && !errors.Is(err, cc.ErrTimeOrder) {
				s.rep.add(RuleTimeOrder, "%s: %s is before the latest accepted now %v but failed with %v", where, ev, accepted, err)
			}
			continue
		}
		if ev.At < accepted || ev.At < 0 {
			s.rep.add(RuleTimeOrder, "%s: %s accepted although the latest accepted now was %v", where, ev, accepted)
		}
		accepted = max(accepted, ev.At)
		s.checkActions(where, ev, act.All(), false)
		if d := p.NextDeadline(); d != deadline && d < ev.At {
			s.rep.add(RuleDeadline, "%s: %s moved NextDeadline from %v to %v, before its now", where, ev, deadline, d)
		} else if ev.Kind == cc.EventTimer && ev.At >= deadline && d != units.MaxTime && d <= ev.At {
			s.rep.add(RuleDeadline, "%s: a timer at %v (deadline %v) left NextDeadline at %v, not after now", where, ev.At, deadline, d)
		}
		if r, ok := p.(cc.ReactionPoint); ok {
			if l := r.Limits(); l.Rate < 0 || l.Window < 0 {
				s.rep.add(RuleLimits, "%s: after %s Limits() = rate %v window %v", where, ev, l.Rate, l.Window)
			}
		}
	}
	return nil
}

// testingAllocs counts the mallocs of one call of f (f runs twice: once to
// warm up), as testing.AllocsPerRun does, without importing testing into a
// non-test build.
func testingAllocs(f func()) uint64 {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	f()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	n0 := ms.Mallocs
	f()
	runtime.ReadMemStats(&ms)
	return ms.Mallocs - n0
}

// Names lists the rules, for documentation and tests.
func Names() string {
	return strings.Join(rules, ", ")
}

// args is what an event passes a part by pointer, as the event holds it
// before the call.
type args struct {
	pkt cc.Packet
	fb  cc.Feedback
	tel cc.Telemetry
}

func sentArgs(ev *Event) args { return args{ev.Packet, ev.Feedback, ev.Tel} }

// restore gives ev back the arguments it had before a call.
func (a *args) restore(ev *Event) { ev.Packet, ev.Feedback, ev.Tel = a.pkt, a.fb, a.tel }

// checkWrites checks the outputs rule on what a call left in its packet
// and feedback: a part changes the caller's packet only where the contract
// lets it (a congestion or switch point's Dequeue may push onto its
// telemetry stack, a switch point's Dequeue and a reaction point's Sent
// write Hdr) and never a message it is given.
func (s *suite) checkWrites(where string, ev *Event, sent args) {
	pkt := ev.Kind.Packet()
	if !pkt && !ev.Kind.Message() || ev.NilArg {
		return
	}
	var want *cc.Telemetry
	if ev.HasTel {
		want = &ev.Tel
	}
	if !pkt {
		w := sent.fb
		w.Tel = want
		if ev.Feedback != w {
			s.rep.add(RuleOutputs, "%s: %s wrote the message it was given: %+v became %+v", where, ev, w, ev.Feedback)
		}
		if ev.HasTel && ev.Tel != sent.tel {
			s.rep.add(RuleOutputs, "%s: %s wrote the message's telemetry stack: % x became % x", where, ev, sent.tel.Bytes(), ev.Tel.Bytes())
		}
		return
	}
	w := sent.pkt
	w.Tel = want
	switch {
	case ev.Kind == cc.EventDequeue && s.role == cc.RoleSW, ev.Kind == cc.EventSent:
		w.Hdr = ev.Packet.Hdr
	}
	if ev.Packet != w {
		s.rep.add(RuleOutputs, "%s: %s changed the caller's packet beyond what the contract lets it: %+v became %+v", where, ev, w, ev.Packet)
	}
	if ev.HasTel && ev.Kind != cc.EventDequeue && ev.Tel != sent.tel {
		s.rep.add(RuleOutputs, "%s: %s wrote the packet's telemetry stack, which only a Dequeue may: % x became % x", where, ev, sent.tel.Bytes(), ev.Tel.Bytes())
	}
}

// checkActions checks the outputs rule on the decisions acts of a
// successful call: each is of a known kind, one the part's role takes on
// that event, and well formed. ports bounds an ActionCredit's,
// ActionPauseQueue's and ActionResumeQueue's port in
// well-formed sequences (the suite does not know a switch's port count
// in chaos, whose ports are anywhere).
func (s *suite) checkActions(where string, ev *Event, acts []cc.Action, wellFormed bool) {
	for i, x := range acts {
		bad := ""
		switch x.Kind {
		case cc.ActionMarkCE, cc.ActionDrop:
			cp := s.role == cc.RoleCP && (ev.Kind == cc.EventEnqueue || ev.Kind == cc.EventDequeue)
			sw := s.role == cc.RoleSW && (ev.Kind == cc.EventArrive || ev.Kind == cc.EventEnqueue || ev.Kind == cc.EventDequeue)
			if !cp && !sw {
				bad = fmt.Sprintf("a %v point's %v has no packet of a queue to act on", s.role.Short(), ev.Kind)
			}
		case cc.ActionFeedback:
			switch {
			case x.To > cc.ToSwitch:
				bad = fmt.Sprintf("destination %d is none of cc's", x.To)
			case x.To == cc.ToSwitch && s.role != cc.RoleSW:
				bad = "only a switch point sends a message to a switch"
			case x.Feedback.Kind == cc.FeedbackNone:
				bad = "its feedback has kind none, which is not a message"
			case x.Prio > 7:
				bad = fmt.Sprintf("priority %d is not 0..7", x.Prio)
			}
		case cc.ActionPause, cc.ActionResume:
			if x.Prio > 7 {
				bad = fmt.Sprintf("priority %d is not 0..7", x.Prio)
			}
		case cc.ActionCredit:
			switch {
			case s.role != cc.RoleSW:
				bad = "only a switch point credits a VOQ"
			case x.Bytes <= 0:
				bad = fmt.Sprintf("it credits %v, not a positive amount", x.Bytes)
			case wellFormed && int(x.Port) >= s.ports:
				bad = fmt.Sprintf("port %d is not one of the switch's %d (GenOptions.Ports)", x.Port, s.ports)
			}
		case cc.ActionAssignQueue:
			if s.role != cc.RoleSW || ev.Kind != cc.EventEnqueue {
				bad = "only a switch point's Enqueue puts its packet in a physical queue"
			}
		case cc.ActionPauseQueue, cc.ActionResumeQueue:
			switch {
			case s.role != cc.RoleSW:
				bad = "only a switch point pauses or resumes its own queues"
			case wellFormed && int(x.Port) >= s.ports:
				bad = fmt.Sprintf("port %d is not one of the switch's %d (GenOptions.Ports)", x.Port, s.ports)
			}
		default:
			bad = "its kind is none of cc's"
		}
		if bad != "" {
			s.rep.add(RuleOutputs, "%s: %s decided %v (action %d, %+v): %s", where, ev, x.Kind, i, x, bad)
		}
	}
}
