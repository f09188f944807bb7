package cctest_test

import (
	"encoding/binary"
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
	earlyDeadline
	badCredit
	writesHdr
	lateSkipped  // only Timer runs what is due; other events leave it
	unusedSilent // a message of a kind it does not use is not counted
	nilTaken     // a nil *cc.Actions is taken as one with no room
	dupRegister  // two registers share a name
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
	// stamped counts telemetry records a CP pushed (wraps at 2^16).
	stamped uint16
	unused  cc.Unused
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
	if act == nil && t.fault != silentDrop {
		return cc.NoActions("toy", "Timer")
	}
	if err := t.catchUp("Timer", now, act, 0); err != nil {
		return err
	}
	t.advance(now)
	return nil
}

// catchUp makes room for the expiries due at or before now and n more
// decisions, then runs the expiries (each doubles the rate and sends a
// rate message), as every event does first (cc's rule 4); on error it
// changes nothing. A caller can be so late that the decisions could fill
// no Actions: beyond 2^20 expiries the room asked is that.
func (t *toy) catchUp(event string, now units.Time, act *cc.Actions, n int) error {
	k := 0
	if now >= t.next && (t.fault != lateSkipped || event == "Timer") {
		k = int(min((now-t.next)/t.period+1, 1<<20))
	}
	if err := t.reserve(act, event, k+n); err != nil {
		return err
	}
	for range k {
		t.rate = min(2*t.rate, 100*units.Gbps)
		if act != nil {
			act.Send(cc.ToSource, cc.ControlPrio, cc.Feedback{Kind: cc.FeedbackRate, Flow: t.flow})
		}
	}
	if k > 0 && t.fault != stuckDeadline {
		// The next grid point after now, saturating at MaxTime ("never").
		t.next = fixedpoint.SatAdd(now-(now-t.next)%t.period, t.period)
	}
	return nil
}

func (t *toy) AppendRegisters(dst []cc.Register) []cc.Register {
	b := cc.Reg("bytes", 32, t.bytes)
	if t.fault == regOverflow {
		b.Value = t.bytes | 1<<40
	}
	stamped := cc.Reg("stamped", 16, uint64(t.stamped))
	if t.fault == dupRegister {
		stamped.Name = "bytes"
	}
	return append(dst, t.clock.Register(), b, cc.RateReg("rate", t.rate), cc.TimeReg("next", t.next), stamped, t.unused.Register())
}

func (t *toy) count(event string, now units.Time, p *cc.Packet, act *cc.Actions, mark bool) error {
	if err := t.check(event, now); err != nil {
		return err
	}
	if p == nil {
		return &cc.EventError{Part: "toy", Event: event, Reason: "nil packet"}
	}
	if act == nil && t.fault != silentDrop && t.fault != nilTaken {
		return cc.NoActions("toy", event) // its timer's catch-up can decide
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
	if err := t.catchUp(event, now, act, n); err != nil {
		return err
	}
	t.advance(now)
	t.bytes = (t.bytes + uint64(p.Size)) & (1<<32 - 1)
	t.flow = p.Flow
	if mark && act != nil {
		if event == "Receive" {
			act.Send(cc.ToSource, cc.ControlPrio, cc.Feedback{Kind: cc.FeedbackCNP, Flow: p.Flow})
		} else {
			act.MarkCE()
		}
		if t.fault == overAppend { // reserved one, appends two
			act.Send(cc.ToSource, cc.ControlPrio, cc.Feedback{Kind: cc.FeedbackRate, Flow: p.Flow})
		}
	}
	return nil
}

func (t *toy) enqueue(now units.Time, p *cc.Packet, q cc.Queue, act *cc.Actions) error {
	return t.count("Enqueue", now, p, act, q.Len > 20000)
}

func (t *toy) dequeue(now units.Time, p *cc.Packet, q cc.Queue, act *cc.Actions) error {
	return t.count("Dequeue", now, p, act, false)
}

func (t *toy) sent(now units.Time, p *cc.Packet, act *cc.Actions) error {
	return t.count("Sent", now, p, act, false)
}

func (t *toy) Feedback(now units.Time, f *cc.Feedback, act *cc.Actions) error {
	if err := t.check("Feedback", now); err != nil {
		return err
	}
	if f == nil {
		return &cc.EventError{Part: "toy", Event: "Feedback", Reason: "nil feedback"}
	}
	if act == nil && t.fault != silentDrop {
		return cc.NoActions("toy", "Feedback") // its timer's catch-up can decide
	}
	if err := t.catchUp("Feedback", now, act, 0); err != nil {
		return err
	}
	t.advance(now)
	if f.Kind == cc.FeedbackCNP {
		t.rate = max(t.rate/2, units.Gbps)
	} else if t.fault != unusedSilent {
		t.unused.Count()
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

func (t *toy) receive(now units.Time, p *cc.Packet, act *cc.Actions) error {
	// A CE mark is answered with a CNP.
	return t.count("Receive", now, p, act, p != nil && p.CE)
}

// The toy in each role.
type (
	toyCP struct{ *toy }
	toyRP struct{ *toy }
	toyNP struct{ *toy }
)

func (c toyCP) Enqueue(now units.Time, p *cc.Packet, q cc.Queue, a *cc.Actions) error {
	return c.toy.enqueue(now, p, q, a)
}

func (c toyCP) Dequeue(now units.Time, p *cc.Packet, q cc.Queue, a *cc.Actions) error {
	err := c.toy.dequeue(now, p, q, a)
	// Push an 8-byte record in place, as HPCC's switch does, while the
	// header has room (5 records).
	if err == nil && p != nil && p.Tel != nil && p.Tel.Len <= 2+8*4 {
		binary.BigEndian.PutUint64(p.Tel.Data[p.Tel.Len:], uint64(min(q.Len/80, 0xFFFF)))
		p.Tel.Len += 8
		c.stamped++
	}
	return err
}

func (r toyRP) Sent(now units.Time, p *cc.Packet, a *cc.Actions) error { return r.toy.sent(now, p, a) }
func (r toyRP) Feedback(now units.Time, f *cc.Feedback, a *cc.Actions) error {
	return r.toy.Feedback(now, f, a)
}
func (r toyRP) Limits() cc.Limits { return r.toy.Limits() }

func (n toyNP) Receive(now units.Time, p *cc.Packet, a *cc.Actions) error {
	return n.toy.receive(now, p, a)
}

var (
	_ cc.CongestionPoint   = toyCP{}
	_ cc.ReactionPoint     = toyRP{}
	_ cc.NotificationPoint = toyNP{}
)

// TestToyRoles: each toy plays the role it is built for and no earlier
// one (cctest takes a part's role as the first it plays).
func TestToyRoles(t *testing.T) {
	for _, role := range []cc.Role{cc.RoleCP, cc.RoleRP, cc.RoleNP} {
		p, err := ctor(role, ok)()
		require.NoError(t, err)
		require.Equal(t, role, cc.RoleOf(p))
	}
}

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
		{lateSkipped, cc.RoleCP, cctest.RuleLateTimers},
		{unusedSilent, cc.RoleRP, cctest.RuleUnused},
		{nilTaken, cc.RoleNP, cctest.RuleNilActions},
		{dupRegister, cc.RoleCP, cctest.RuleRegisters},
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
	props.Property("cp", prop.ForAll(func(evs []cc.Event) bool {
		var now units.Time
		var fifo []cc.Packet
		var q units.Bytes
		for _, e := range evs {
			if e.At < now {
				return false
			}
			now = e.At
			switch e.Kind {
			case cc.EventEnqueue:
				fifo = append(fifo, e.Packet)
				q += e.Packet.Size
			case cc.EventDequeue:
				if len(fifo) == 0 || fifo[0].Flow != e.Packet.Flow || fifo[0].Size != e.Packet.Size {
					return false
				}
				q -= fifo[0].Size
				fifo = fifo[1:]
			}
			if e.Kind != cc.EventTimer && e.Queue.Len != q {
				return false
			}
		}
		return true
	}, cctest.GenEvents(cc.RoleCP, cctest.GenOptions{INT: true})))
	props.Property("rp", prop.ForAll(func(evs []cc.Event) bool {
		var now units.Time
		var sndNxt uint64
		for _, e := range evs {
			if e.At < now {
				return false
			}
			now = e.At
			switch {
			case e.Kind == cc.EventSent:
				if e.Packet.Seq != sndNxt {
					return false
				}
				sndNxt += uint64(e.Packet.Payload)
			case e.Kind == cc.EventFeedback && e.Feedback.Kind == cc.FeedbackNak:
				sndNxt = e.Feedback.Seq // go back N
			case e.Kind == cc.EventFeedback && e.Feedback.Kind == cc.FeedbackAck:
				if e.Feedback.Seq > sndNxt || e.Feedback.SndNxt != sndNxt || !e.HasTel {
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
	evs := []cc.Event{{Kind: cc.EventSent, At: 35 * units.Microsecond, Packet: cc.Packet{Size: 100}}}
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

// toyPorts is the toy switch point's port count (cctest's default).
const toyPorts = 4

// toySW is a minimal switch point: it counts the bytes that arrive and
// leave each egress port, keeps each port's PFC state, writes its port
// and a hop count in the header (and an INT record) of each packet that
// leaves, sends switch 7 a message every 8 dequeues, credits a VOQ on
// each message it receives, marks packets that join a long queue, and
// ticks a periodic timer.
type toySW struct {
	fault  fault
	clock  cc.Monotonic
	in     uint64
	out    [toyPorts]uint32 // wraps at 2^32
	paused [toyPorts][8]bool
	deqs   uint16 // wraps at 2^16
	msgs   uint16
	ticks  uint16
	next   units.Time
	unused cc.Unused
}

var _ cc.SwitchPoint = (*toySW)(nil)

func newToySW(f fault) *toySW { return &toySW{fault: f, next: 10 * units.Microsecond} }

var outNames = [toyPorts]string{"out0", "out1", "out2", "out3"}

func (w *toySW) AppendRegisters(dst []cc.Register) []cc.Register {
	var bits uint64
	for port := range w.paused {
		for prio, p := range w.paused[port] {
			if p {
				bits |= 1 << (8*port + prio)
			}
		}
	}
	width := uint8(32)
	if w.fault == regOverflow {
		width = 8 // but ports 1..3 keep their bits above it
	}
	dst = append(dst, w.clock.Register(), cc.Reg("in", 64, w.in))
	for i, n := range w.out {
		dst = append(dst, cc.Reg(outNames[i], 32, uint64(n)))
	}
	return append(dst, cc.Reg("paused", width, bits), cc.Reg("deqs", 16, uint64(w.deqs)),
		cc.Reg("msgs", 16, uint64(w.msgs)), cc.Reg("ticks", 16, uint64(w.ticks)), cc.TimeReg("next", w.next), w.unused.Register())
}

func (w *toySW) NextDeadline() units.Time { return w.next }

func (w *toySW) Timer(now units.Time, _ *cc.Actions) error {
	if err := w.clock.Check("toysw", "Timer", now); err != nil {
		return err
	}
	w.advance(now)
	return nil
}

// advance records now, after running every tick due by it (cc's rule 4:
// the timer is caught up by any event); a tick decides nothing.
func (w *toySW) advance(now units.Time) {
	if now >= w.next {
		const period = 10 * units.Microsecond
		w.ticks += uint16((now - w.next) / period % (1 << 16))
		w.ticks++
		w.next = fixedpoint.SatAdd(now-(now-w.next)%period, period)
	}
	if w.fault == nondeterministic {
		global++
		w.in += global & 1
	}
	if w.fault == allocating {
		sink = append(sink[:0], new(int))
	}
	w.clock.Advance(now)
}

// refuse is the toy's refusal of an event it cannot take: an EventError,
// or an untyped error under the untypedErr fault.
func (w *toySW) refuse(event, reason string) error {
	if w.fault == untypedErr {
		return fmt.Errorf("toysw: %s: %s", event, reason)
	}
	return &cc.EventError{Part: "toysw", Event: event, Reason: reason}
}

// take checks time order and the port (in 0..toyPorts−1, or −1 when
// self is set: a message the switch sent itself comes in through no port).
func (w *toySW) take(event string, now units.Time, port int, self, nilArg bool) error {
	if err := w.clock.Check("toysw", event, now); err != nil {
		return err
	}
	if nilArg {
		return w.refuse(event, "nil argument")
	}
	if port >= toyPorts || port < 0 && !(self && port == -1) {
		return w.refuse(event, "no such port")
	}
	return nil
}

// reserve is act.Reserve for an event that can decide: it refuses a nil
// act (cc's rule 3).
func reserve(act *cc.Actions, event string, n int) error {
	if act == nil {
		return cc.NoActions("toysw", event)
	}
	return act.Reserve("toysw", event, n)
}

func (w *toySW) Arrive(now units.Time, in int, p *cc.Packet, act *cc.Actions) error {
	if err := w.take("Arrive", now, in, false, p == nil); err != nil {
		return err
	}
	w.advance(now)
	w.in += uint64(p.Size)
	return nil
}

func (w *toySW) Enqueue(now units.Time, out int, p *cc.Packet, q cc.Queue, act *cc.Actions) error {
	if err := w.take("Enqueue", now, out, false, p == nil); err != nil {
		return err
	}
	mark := q.Len > 20000
	n := 0
	if mark {
		n = 1
	}
	if err := reserve(act, "Enqueue", n); err != nil {
		return err
	}
	w.advance(now)
	if w.fault == writesHdr {
		p.Hdr[0] = 0xff // a header is written on Dequeue only
	}
	if mark {
		act.MarkCE()
	}
	return nil
}

func (w *toySW) Dequeue(now units.Time, out int, p *cc.Packet, q cc.Queue, act *cc.Actions) error {
	if w.fault == nonAtomic {
		w.deqs++ // counted before the event is known to be taken
	}
	if err := w.take("Dequeue", now, out, false, p == nil); err != nil {
		return err
	}
	send := (w.deqs+1)%8 == 0
	n := 0
	if send {
		n = 1
	}
	if err := reserve(act, "Dequeue", n); err != nil {
		return err
	}
	w.advance(now)
	if w.fault != nonAtomic {
		w.deqs++
	}
	w.out[out] += uint32(p.Size)
	p.Hdr[0] = byte(out) + 1
	p.Hdr[1]++
	if p.Tel != nil && p.Tel.Len <= 2+8*4 {
		binary.BigEndian.PutUint64(p.Tel.Data[p.Tel.Len:], uint64(min(q.Len/80, 0xFFFF)))
		p.Tel.Len += 8
	}
	if send {
		act.SendSwitch(7, cc.ControlPrio, cc.Feedback{Kind: cc.FeedbackUser, Flow: p.Flow, From: 3})
	}
	return nil
}

func (w *toySW) Pause(now units.Time, out int, prio uint8, paused bool, act *cc.Actions) error {
	if err := w.take("Pause", now, out, false, false); err != nil {
		return err
	}
	if prio > 7 && w.fault != panics { // the panics fault indexes by it unchecked
		return w.refuse("Pause", "no such priority")
	}
	w.advance(now)
	w.paused[out][prio] = paused
	if w.fault == earlyDeadline && paused {
		w.next = now / 2
	}
	return nil
}

func (w *toySW) Message(now units.Time, in int, f *cc.Feedback, act *cc.Actions) error {
	if w.fault == noTimeOrder {
		if f == nil || in >= toyPorts || in < -1 {
			return w.refuse("Message", "bad message")
		}
	} else if err := w.take("Message", now, in, true, f == nil); err != nil {
		return err
	}
	if f.Kind != cc.FeedbackCredit && f.Kind != cc.FeedbackUser {
		// A kind it does not use: counted, nothing else (cc's rule 8).
		w.advance(now)
		w.unused.Count()
		return nil
	}
	if err := reserve(act, "Message", 1); err != nil {
		return err
	}
	w.advance(now)
	w.msgs++
	port := uint16(f.Flow % toyPorts)
	if w.fault == badCredit {
		port = toyPorts
	}
	act.Credit(port, cc.NodeID(f.Flow), 1000)
	if w.fault == overAppend { // reserved one, appends two
		act.SendSwitch(uint16(f.From), cc.ControlPrio, cc.Feedback{Kind: cc.FeedbackUser, Flow: f.Flow})
	}
	return nil
}

func swCtor(f fault) func() (cc.SwitchPoint, error) {
	return func() (cc.SwitchPoint, error) { return newToySW(f), nil }
}

// TestCorrectSwitchPointPasses: the toy switch point keeps every rule, and
// the well-formed sequences exercise it (most events taken; marks,
// messages to a switch, credits and INT stamps decided).
func TestCorrectSwitchPointPasses(t *testing.T) {
	require.NoError(t, cctest.TestSW(swCtor(ok), quick))
	o := quick
	o.Gen = cctest.GenOptions{INT: true, Hops: 5, Hdrs: [][cc.PacketHdrLen]byte{{1, 2}, {3, 0, 0, 4}}}
	st, err := cctest.TestStats(func() (cc.Part, error) { return newToySW(ok), nil }, o)
	require.NoError(t, err)
	require.Greater(t, st.Accepted, st.Calls*9/10, "refused %v", st.Refused)
	for _, k := range []cc.ActionKind{cc.ActionMarkCE, cc.ActionFeedback, cc.ActionCredit} {
		require.Positive(t, st.Actions[k], "%v", k)
	}
}

// TestBrokenSwitchPointsFail: each deliberate breach by a switch point is
// reported under its rule's name.
func TestBrokenSwitchPointsFail(t *testing.T) {
	cases := []struct {
		f    fault
		rule string
	}{
		{panics, cctest.RuleNoPanic},         // a pause of priority 8 or more
		{untypedErr, cctest.RuleTypedErrors}, // bad ports refused with fmt.Errorf
		{noTimeOrder, cctest.RuleTimeOrder},  // Message checks no time
		{nonAtomic, cctest.RuleAtomic},       // Dequeue counts before it refuses
		{overAppend, cctest.RuleActionsFull}, // Message reserves one, appends two
		{earlyDeadline, cctest.RuleDeadline}, // a pause moves the deadline before now
		{regOverflow, cctest.RuleRegisters},  // "paused" is wider than its width
		{nondeterministic, cctest.RuleDeterminism},
		{allocating, cctest.RuleAllocs}, // Arrive allocates
		{badCredit, cctest.RuleOutputs}, // a credit at a port the switch lacks
		{writesHdr, cctest.RuleOutputs}, // Enqueue writes the header
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s/%d", c.rule, c.f), func(t *testing.T) {
			err := cctest.TestSW(swCtor(c.f), quick)
			require.Error(t, err)
			require.Contains(t, err.Error(), "rule "+c.rule+":", "the violation names its rule")
			var v *cctest.Violation
			require.True(t, errors.As(err, &v))
		})
	}
}

// TestSwitchGeneratorWellFormed checks the switch point generator against
// its promises: time never goes back; ports are in range; every Enqueue
// is the packet of an Arrive at the same instant; each port's priority
// queue is a FIFO whose Queue.Len is the sum of its sizes and which sends
// nothing while paused; TxBytes counts what the port sent; pauses and
// resumes alternate.
func TestSwitchGeneratorWellFormed(t *testing.T) {
	params := gopter.DefaultTestParameters()
	params.Rng.Seed(7)
	params.MinSuccessfulTests = 50
	props := gopter.NewProperties(params)
	const ports = 6
	props.Property("sw", prop.ForAll(func(evs []cc.Event) bool {
		type queue struct {
			fifo   []cc.Packet
			len    units.Bytes
			paused bool
		}
		var (
			now    units.Time
			queues [ports][8]queue
			tx     [ports]uint64
			last   *cc.Event
			kinds  = map[cc.EventKind]int{}
		)
		for i := range evs {
			e := &evs[i]
			if e.At < now || e.Port < 0 || e.Port >= ports {
				return false
			}
			now = e.At
			kinds[e.Kind]++
			switch e.Kind {
			case cc.EventEnqueue:
				if last == nil || last.Kind != cc.EventArrive || last.At != e.At || last.Packet != e.Packet || last.Port == e.Port {
					return false
				}
				q := &queues[e.Port][e.Packet.Prio]
				q.fifo = append(q.fifo, e.Packet)
				q.len += e.Packet.Size
				if e.Queue.Len != q.len || e.Queue.Paused != q.paused || e.Queue.TxBytes != tx[e.Port] {
					return false
				}
			case cc.EventDequeue:
				q := &queues[e.Port][e.Packet.Prio]
				if len(q.fifo) == 0 || q.paused || q.fifo[0] != e.Packet || e.Queue.TxBytes != tx[e.Port] {
					return false
				}
				q.len -= e.Packet.Size
				q.fifo = q.fifo[1:]
				tx[e.Port] += uint64(e.Packet.Size)
				if e.Queue.Len != q.len || e.Queue.Paused {
					return false
				}
			case cc.EventPause:
				q := &queues[e.Port][e.Packet.Prio]
				if e.Paused == q.paused || e.Packet.Prio >= cc.ControlPrio {
					return false
				}
				q.paused = e.Paused
			case cc.EventMessage:
				if e.Feedback.Kind == cc.FeedbackNone {
					return false
				}
			case cc.EventArrive, cc.EventTimer:
			default:
				return false
			}
			last = e
		}
		return kinds[cc.EventArrive] > 0 && kinds[cc.EventDequeue] > 0 && kinds[cc.EventPause] > 0 && kinds[cc.EventMessage] > 0
	}, cctest.GenEvents(cc.RoleSW, cctest.GenOptions{Ports: ports, INT: true, Events: 400})))
	props.TestingRun(t)
}

// TestSwitchKinds: a switch point's events are its own kinds, and chaos
// and fuzz sequences for it use every one of them, ports out of range
// included.
func TestSwitchKinds(t *testing.T) {
	require.Equal(t, []cc.EventKind{cc.EventTimer, cc.EventArrive, cc.EventEnqueue, cc.EventDequeue, cc.EventPause, cc.EventMessage}, cc.RoleSW.Events())
	require.True(t, cc.EventEnqueue.Of(cc.RoleSW) && cc.EventEnqueue.Of(cc.RoleCP) && !cc.EventEnqueue.Of(cc.RoleRP))
	r := rand.New(rand.NewSource(5))
	data := make([]byte, 16*200)
	r.Read(data)
	for name, evs := range map[string][]cctest.Event{
		"chaos": cctest.Chaos(r, cc.RoleSW, cctest.GenOptions{}),
		"bytes": cctest.FromBytes(data, cc.RoleSW),
	} {
		kinds, outside := map[cc.EventKind]bool{}, 0
		for _, e := range evs {
			kinds[e.Kind] = true
			if e.Port < 0 || e.Port >= 4 {
				outside++
			}
		}
		require.Len(t, kinds, 6, name)
		require.Positive(t, outside, name)
	}
	require.Equal(t, cctest.FromBytes(data, cc.RoleSW), cctest.FromBytes(data, cc.RoleSW))
	p := newToySW(ok)
	require.Equal(t, cc.RoleSW, cc.RoleOf(p))
	ev := cc.Event{Kind: cc.EventPause, At: 5, Port: 2, Paused: true}
	ev.Packet.Prio = 3
	require.NoError(t, ev.Apply(p, cc.NewActions(1)))
	require.True(t, p.paused[2][3])
	require.Contains(t, ev.String(), "pause port 2 prio 3")
}
