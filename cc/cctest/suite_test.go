package cctest_test

import (
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cc/cctest"
	"github.com/hwcc/hwcc/fixedpoint"
	"github.com/hwcc/hwcc/units"
)

// fault selects one deliberate breach of the contract in the toy parts.
type fault int

const (
	ok fault = iota
	panics
	untypedErr
	noTimeOrder
	nonAtomic
	silentDrop
	stuckDeadline
	negativeLimits
	regOverflow
	nondeterministic
	allocating
	refuseEqualTime
	jitterLimits
	overAppend
	wipeActions
)

// global makes the nondeterministic fault: parts share it.
var global uint64

// sink keeps the allocating fault's allocations alive.
var sink []*int

// toy is a minimal part of every role: a byte counter, a rate that halves
// on each CNP or marked packet and doubles every period, and a timer.
type toy struct {
	fault  fault
	clock  cc.Monotonic
	bytes  uint64 // 32-bit register
	rate   units.Rate
	next   units.Time
	period units.Time
	flow   cc.FlowID
	// stamped counts INT records a CP stamped (wraps at 2^16).
	stamped uint16
}

func newToy(f fault) *toy {
	return &toy{fault: f, rate: 100 * units.Gbps, period: 10 * units.Microsecond, next: 10 * units.Microsecond}
}

func (t *toy) check(event string, now units.Time) error {
	switch t.fault {
	case noTimeOrder:
		return nil
	case untypedErr:
		if now < t.clock.Last() || now < 0 {
			return fmt.Errorf("time went backwards")
		}
		return nil
	case refuseEqualTime:
		if now == t.clock.Last() && now > 0 {
			return &cc.TimeOrderError{Part: "toy", Event: event, Now: now, Last: t.clock.Last()}
		}
	}
	return t.clock.Check("toy", event, now)
}

func (t *toy) advance(now units.Time) {
	if t.fault == nondeterministic {
		global++
		t.bytes += global & 1
	}
	if t.fault == allocating {
		sink = append(sink[:0], new(int))
	}
	t.clock.Advance(now)
}

// reserve is act.Reserve, or a silent no-op for the silentDrop fault.
func (t *toy) reserve(act *cc.Actions, event string, n int) error {
	if t.fault == silentDrop {
		return nil
	}
	if act == nil {
		if n == 0 {
			return nil
		}
		return &cc.ActionsFullError{Part: "toy", Event: event, Need: n}
	}
	return act.Reserve("toy", event, n)
}

func (t *toy) NextDeadline() units.Time { return t.next }

func (t *toy) Timer(now units.Time, act *cc.Actions) error {
	if err := t.check("Timer", now); err != nil {
		return err
	}
	if now < t.next {
		t.advance(now)
		return nil
	}
	if err := t.reserve(act, "Timer", 1); err != nil {
		return err
	}
	t.advance(now)
	t.rate = min(2*t.rate, 100*units.Gbps)
	if t.fault != stuckDeadline {
		// The next grid point after now, saturating at MaxTime ("never").
		t.next = fixedpoint.SatAdd(now-(now-t.next)%t.period, t.period)
	}
	if act != nil {
		act.Send(cc.ToSource, cc.ControlPrio, cc.Feedback{Kind: cc.FeedbackRate, Flow: t.flow})
	}
	return nil
}

func (t *toy) AppendRegisters(dst []cc.Register) []cc.Register {
	b := cc.Reg("bytes", 32, t.bytes)
	if t.fault == regOverflow {
		b.Value = t.bytes | 1<<40
	}
	return append(dst, t.clock.Register(), b, cc.RateReg("rate", t.rate), cc.TimeReg("next", t.next), cc.Reg("stamped", 16, uint64(t.stamped)))
}

func (t *toy) count(event string, now units.Time, p *cc.Packet, act *cc.Actions, mark bool) error {
	if err := t.check(event, now); err != nil {
		return err
	}
	if p == nil {
		return &cc.EventError{Part: "toy", Event: event, Reason: "nil packet"}
	}
	if p.Size < 0 {
		if t.fault == nonAtomic {
			t.bytes++
		}
		return &cc.EventError{Part: "toy", Event: event, Reason: "negative size"}
	}
	if t.fault == panics && p.Size > 1<<40 {
		panic("toy: huge packet")
	}
	n := 0
	if mark {
		n = 1
	}
	if t.fault == wipeActions {
		act.Reset() // the caller's earlier decisions are gone
	}
	if err := t.reserve(act, event, n); err != nil {
		return err
	}
	t.advance(now)
	t.bytes = (t.bytes + uint64(p.Size)) & (1<<32 - 1)
	t.flow = p.Flow
	if mark && act != nil {
		act.MarkCE()
		if t.fault == overAppend { // reserved one, appends two
			act.Send(cc.ToSource, cc.ControlPrio, cc.Feedback{Kind: cc.FeedbackRate, Flow: p.Flow})
		}
	}
	return nil
}

func (t *toy) Enqueue(now units.Time, p *cc.Packet, q cc.Queue, act *cc.Actions) error {
	return t.count("Enqueue", now, p, act, q.Len > 20000)
}

func (t *toy) Dequeue(now units.Time, p *cc.Packet, q cc.Queue, act *cc.Actions) error {
	return t.count("Dequeue", now, p, act, false)
}

func (t *toy) Sent(now units.Time, p *cc.Packet, act *cc.Actions) error {
	return t.count("Sent", now, p, act, false)
}

func (t *toy) Feedback(now units.Time, f *cc.Feedback, act *cc.Actions) error {
	if err := t.check("Feedback", now); err != nil {
		return err
	}
	if f == nil {
		return &cc.EventError{Part: "toy", Event: "Feedback", Reason: "nil feedback"}
	}
	t.advance(now)
	if f.Kind == cc.FeedbackCNP {
		t.rate = max(t.rate/2, units.Gbps)
	}
	return nil
}

func (t *toy) Limits() cc.Limits {
	if t.fault == negativeLimits {
		return cc.Limits{Rate: -t.rate}
	}
	if t.fault == jitterLimits {
		global++
		return cc.Limits{Rate: t.rate - units.Rate(global%2)*units.Kbps}
	}
	return cc.Limits{Rate: t.rate}
}

func (t *toy) Receive(now units.Time, p *cc.Packet, act *cc.Actions) error {
	return t.count("Receive", now, p, act, p.CE)
}

// The toy in each role.
type (
	toyCP struct{ *toy }
	toyRP struct{ *toy }
	toyNP struct{ *toy }
)

func (c toyCP) Enqueue(now units.Time, p *cc.Packet, q cc.Queue, a *cc.Actions) error {
	return c.toy.Enqueue(now, p, q, a)
}

func (c toyCP) Dequeue(now units.Time, p *cc.Packet, q cc.Queue, a *cc.Actions) error {
	err := c.toy.Dequeue(now, p, q, a)
	// Stamp an INT record in place, as HPCC's switch does, while the
	// header has room (5 records).
	if err == nil && p != nil && p.INT != nil && p.INT.NHop < 5 {
		p.INT.Hops[p.INT.NHop].QLen = uint16(min(q.Len/80, 0xFFFF))
		p.INT.NHop++
		c.stamped++
	}
	return err
}

func (r toyRP) Sent(now units.Time, p *cc.Packet, a *cc.Actions) error { return r.toy.Sent(now, p, a) }
func (r toyRP) Feedback(now units.Time, f *cc.Feedback, a *cc.Actions) error {
	return r.toy.Feedback(now, f, a)
}
func (r toyRP) Limits() cc.Limits { return r.toy.Limits() }

func (n toyNP) Receive(now units.Time, p *cc.Packet, a *cc.Actions) error {
	return n.toy.Receive(now, p, a)
}

var (
	_ cc.CongestionPoint   = toyCP{}
	_ cc.ReactionPoint     = toyRP{}
	_ cc.NotificationPoint = toyNP{}
)

func ctor(role cc.Role, f fault) func() (cc.Part, error) {
	return func() (cc.Part, error) {
		switch role {
		case cc.RoleCP:
			return toyCP{newToy(f)}, nil
		case cc.RoleRP:
			return toyRP{newToy(f)}, nil
		}
		return toyNP{newToy(f)}, nil
	}
}

var quick = cctest.Options{Sequences: 6, Chaos: 12, AllocSequences: 1}

// TestCorrectPartsPass: the toy parts keep every rule in every role.
func TestCorrectPartsPass(t *testing.T) {
	for _, role := range []cc.Role{cc.RoleCP, cc.RoleRP, cc.RoleNP} {
		require.NoError(t, cctest.Test(ctor(role, ok), quick), role.String())
	}
}

// TestStampingCPPasses: a CP that stamps the packet's INT header in place
// is not taken for a nondeterministic one when headers fill up (each of the
// lockstep parts gets the header as the event has it).
func TestStampingCPPasses(t *testing.T) {
	o := quick
	o.Gen = cctest.GenOptions{INT: true, Hops: 5}
	require.NoError(t, cctest.Test(ctor(cc.RoleCP, ok), o))
}

// TestBrokenPartsFail: each deliberate breach is reported under its rule's
// name (and a correct part is not).
func TestBrokenPartsFail(t *testing.T) {
	cases := []struct {
		f    fault
		role cc.Role
		rule string
	}{
		{panics, cc.RoleCP, cctest.RuleNoPanic},
		{untypedErr, cc.RoleRP, cctest.RuleTypedErrors},
		{noTimeOrder, cc.RoleNP, cctest.RuleTimeOrder},
		{nonAtomic, cc.RoleCP, cctest.RuleAtomic},
		{silentDrop, cc.RoleCP, cctest.RuleActionsFull},
		{stuckDeadline, cc.RoleRP, cctest.RuleDeadline},
		{negativeLimits, cc.RoleRP, cctest.RuleLimits},
		{regOverflow, cc.RoleNP, cctest.RuleRegisters},
		{nondeterministic, cc.RoleCP, cctest.RuleDeterminism},
		{allocating, cc.RoleRP, cctest.RuleAllocs},
		{refuseEqualTime, cc.RoleNP, cctest.RuleTimeOrder},
		{jitterLimits, cc.RoleRP, cctest.RuleDeterminism},
		{overAppend, cc.RoleCP, cctest.RuleActionsFull},
		{wipeActions, cc.RoleCP, cctest.RuleAtomic},
	}
	for _, c := range cases {
		t.Run(c.rule, func(t *testing.T) {
			err := cctest.Test(ctor(c.role, c.f), quick)
			require.Error(t, err)
			require.Contains(t, err.Error(), "rule "+c.rule+":", "the violation names its rule")
			var v *cctest.Violation
			require.True(t, errors.As(err, &v))
		})
	}
}

// TestViolationsBounded: a part that breaks a rule on every event gets at
// most three messages for it and a count of the rest.
func TestViolationsBounded(t *testing.T) {
	err := cctest.Test(ctor(cc.RoleRP, negativeLimits), quick)
	require.Error(t, err)
	require.Equal(t, 4, strings.Count(err.Error(), "rule limits:"))
	require.Contains(t, err.Error(), "more violations")
}

// TestGeneratorsWellFormed checks the well-formed generators against their
// own promises: time never goes back; a CP's queue length is the sum of
// the queued sizes and dequeues leave in FIFO order; an RP's ACKs never
// acknowledge more than was sent.
func TestGeneratorsWellFormed(t *testing.T) {
	params := gopter.DefaultTestParameters()
	params.Rng.Seed(7)
	params.MinSuccessfulTests = 50
	props := gopter.NewProperties(params)
	props.Property("cp", prop.ForAll(func(evs []cctest.Event) bool {
		var now units.Time
		var fifo []cc.Packet
		var q units.Bytes
		for _, e := range evs {
			if e.At < now {
				return false
			}
			now = e.At
			switch e.Kind {
			case cctest.Enqueue:
				fifo = append(fifo, e.Packet)
				q += e.Packet.Size
			case cctest.Dequeue:
				if len(fifo) == 0 || fifo[0].Flow != e.Packet.Flow || fifo[0].Size != e.Packet.Size {
					return false
				}
				q -= fifo[0].Size
				fifo = fifo[1:]
			}
			if e.Kind != cctest.Timer && e.Queue.Len != q {
				return false
			}
		}
		return true
	}, cctest.GenEvents(cc.RoleCP, cctest.GenOptions{INT: true})))
	props.Property("rp", prop.ForAll(func(evs []cctest.Event) bool {
		var now units.Time
		var sndNxt uint64
		for _, e := range evs {
			if e.At < now {
				return false
			}
			now = e.At
			switch {
			case e.Kind == cctest.Sent:
				if e.Packet.Seq != sndNxt {
					return false
				}
				sndNxt += uint64(e.Packet.Payload)
			case e.Kind == cctest.Feedback && e.Feedback.Kind == cc.FeedbackNak:
				sndNxt = e.Feedback.Seq // go back N
			case e.Kind == cctest.Feedback && e.Feedback.Kind == cc.FeedbackAck:
				if e.Feedback.Seq > sndNxt || e.Feedback.SndNxt != sndNxt || !e.HasINT {
					return false
				}
			}
		}
		return true
	}, cctest.GenEvents(cc.RoleRP, cctest.GenOptions{INT: true})))
	props.TestingRun(t)
}

// TestDriveFiresTimers: Drive calls the timer at each deadline before the
// event that passes it.
func TestDriveFiresTimers(t *testing.T) {
	p, _ := ctor(cc.RoleRP, ok)()
	evs := []cctest.Event{{Kind: cctest.Sent, At: 35 * units.Microsecond, Packet: cc.Packet{Size: 100}}}
	var timers []units.Time
	err := cctest.Drive(p, evs, cc.NewActions(4), func(s cctest.Step) bool {
		if s.Inserted {
			timers = append(timers, s.Event.At)
		}
		return s.Err == nil
	})
	require.NoError(t, err)
	require.Equal(t, []units.Time{10 * units.Microsecond, 20 * units.Microsecond, 30 * units.Microsecond}, timers)
	// A part whose deadline never moves is caught, not looped on.
	stuck, _ := ctor(cc.RoleRP, stuckDeadline)()
	require.Error(t, cctest.Drive(stuck, evs, cc.NewActions(4), nil))
}

// TestFromBytesDeterministic: the fuzz decoder is a function of its input.
func TestFromBytesDeterministic(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	data := make([]byte, 160)
	r.Read(data)
	a := cctest.FromBytes(data, cc.RoleRP)
	b := cctest.FromBytes(data, cc.RoleRP)
	require.Len(t, a, 10)
	require.Equal(t, a, b)
	require.Empty(t, cctest.FromBytes(data[:15], cc.RoleCP))
}
