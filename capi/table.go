package capi

import (
	"errors"
	"fmt"
	"sync"

	_ "github.com/hwcc/hwcc/algos" // registers hwcc's algorithms
	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
)

// This file is the Go side of the C ABI without cgo: the handle table and
// the events, in Go types, so that tests can drive it directly. capi.go
// converts between these and hwcc.h's C structs.

// maxActions is the largest action capacity an event uses
// (HWCC_MAX_ACTIONS): a caller's larger capacity is taken as this, so that
// a careless cap does not make the library allocate a huge buffer.
const maxActions = 1 << 16

// slot is one entry of the handle table. Its mutex makes a part usable from
// one thread at a time: an event takes it with TryLock (a concurrent call
// gets errBusy), hwcc_part_free with Lock. The scratch values let an event
// convert its C arguments without allocating.
type slot struct {
	mu   sync.Mutex
	gen  uint32 // incremented at every free, so stale handles miss
	part cc.Part
	role cc.Role

	acts   []cc.Action
	regs   []cc.Register
	pkt    cc.Packet
	pktTel cc.Telemetry
	fb     cc.Feedback
	fbTel  cc.Telemetry
}

// table is every slot ever made, with a free list of the ones not in use.
// Slots are pointers so that growing the slice moves no mutex.
var table struct {
	sync.RWMutex
	slots []*slot
	free  []int
	live  int
}

// A handle is gen<<32 | (index+1): never 0, and a freed slot's old handles
// no longer match its generation.
func handleOf(i int, gen uint32) uint64 { return uint64(gen)<<32 | uint64(i+1) }

func splitHandle(h uint64) (i int, gen uint32) { return int(uint32(h)) - 1, uint32(h >> 32) }

// The ABI's own errors, beside cc's.
var (
	errHandle = errors.New("hwcc: invalid or freed part handle")
	errBusy   = errors.New("hwcc: part handle in use by another thread")
	errArg    = errors.New("hwcc: invalid argument")
	errRole   = errors.New("hwcc: event not of the part's role")
)

// argError is an errArg with a reason.
func argError(format string, a ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{errArg}, a...)...)
}

// newPart builds a part and stores it in the table.
func newPart(algo, part, settings string, env *cc.Env) (uint64, error) {
	st, err := cc.ParseSettings(settings)
	if err != nil {
		return 0, err
	}
	p, err := cc.NewIn(env, algo, part, st)
	if err != nil {
		return 0, err
	}
	// cc.NewIn checked that p plays its registered role; a part may
	// implement more interfaces, and the registered role is the one it
	// plays.
	a, _ := cc.Lookup(algo)
	ps, _ := a.Part(part)
	role := ps.Role
	table.Lock()
	defer table.Unlock()
	var i int
	if n := len(table.free); n > 0 {
		i = table.free[n-1]
		table.free = table.free[:n-1]
	} else {
		if len(table.slots) >= 1<<31-1 {
			return 0, argError("too many parts")
		}
		table.slots = append(table.slots, &slot{gen: 1})
		i = len(table.slots) - 1
	}
	s := table.slots[i]
	s.part, s.role = p, role
	table.live++
	return handleOf(i, s.gen), nil
}

// lookup returns h's slot, or nil. The caller holds the table's lock.
func lookup(h uint64) *slot {
	i, gen := splitHandle(h)
	if i < 0 || i >= len(table.slots) {
		return nil
	}
	s := table.slots[i]
	if s.gen != gen || s.part == nil {
		return nil
	}
	return s
}

// acquire returns h's slot locked for the caller's event, or errHandle or
// errBusy. The caller unlocks s.mu.
func acquire(h uint64) (*slot, error) {
	table.RLock()
	defer table.RUnlock()
	s := lookup(h)
	if s == nil {
		return nil, errHandle
	}
	if !s.mu.TryLock() {
		return nil, errBusy
	}
	return s, nil
}

// freePart releases h's part; a stale or zero handle is ignored. It waits
// for an event in progress on the part to end.
func freePart(h uint64) {
	table.Lock()
	defer table.Unlock()
	s := lookup(h)
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	i, _ := splitHandle(h)
	s.gen++
	if s.gen == 0 {
		s.gen = 1
	}
	s.part, s.role = nil, 0
	s.pkt, s.fb, s.pktTel, s.fbTel = cc.Packet{}, cc.Feedback{}, cc.Telemetry{}, cc.Telemetry{}
	clear(s.acts)
	clear(s.regs)
	table.free = append(table.free, i)
	table.live--
}

// liveParts is the number of parts not yet freed.
func liveParts() int {
	table.RLock()
	defer table.RUnlock()
	return table.live
}

// Event kinds of run.
const (
	evSent = iota + 1
	evFeedback
	evTimer
	evEnqueue
	evDequeue
	evReceive
	evArrive
	evPause
	evMessage
)

// eventArgs is one event's arguments in Go types.
type eventArgs struct {
	ev     int
	now    units.Time
	port   int
	prio   uint8
	paused bool
	pkt    *cc.Packet
	q      cc.Queue
	fb     *cc.Feedback
}

// actions returns an empty Actions over s's buffer with capacity
// min(capacity, maxActions).
func (s *slot) actions(capacity uint64) cc.Actions {
	c := int(min(capacity, maxActions))
	if cap(s.acts) < c {
		s.acts = make([]cc.Action, c)
	}
	return cc.ActionsOn(s.acts[:c:c])
}

// abiKinds maps the ABI's event numbers (HWCC_EV_*, fixed by hwcc.h) to the
// contract's event kinds.
var abiKinds = [...]cc.EventKind{evSent: cc.EventSent, evFeedback: cc.EventFeedback, evTimer: cc.EventTimer,
	evEnqueue: cc.EventEnqueue, evDequeue: cc.EventDequeue, evReceive: cc.EventReceive, evArrive: cc.EventArrive,
	evPause: cc.EventPause, evMessage: cc.EventMessage}

// eventName is the name of ABI event ev ("sent", ...), or "event N".
func eventName(ev int) string {
	if ev > 0 && ev < len(abiKinds) {
		return abiKinds[ev].String()
	}
	return fmt.Sprintf("event %d", ev)
}

// run delivers one event to s's part as the contract's event of its kind,
// called as the role the part was registered with.
func (s *slot) run(e eventArgs, act *cc.Actions) error {
	if e.ev <= 0 || e.ev >= len(abiKinds) {
		return argError("unknown event %d", e.ev)
	}
	ev := cc.Event{Kind: abiKinds[e.ev], At: e.now, Queue: e.q, Port: e.port, Paused: e.paused}
	if !ev.Kind.Of(s.role) {
		return fmt.Errorf("%w: a %s has no %s event", errRole, s.role, ev.Kind)
	}
	ev.Packet.Prio = e.prio
	return ev.Call(s.part, e.pkt, e.fb, act)
}

// The error codes of hwcc.h.
const (
	codeOK          = 0
	codeHandle      = -1
	codeArg         = -2
	codeRole        = -3
	codeConfig      = -4
	codeTimeOrder   = -5
	codeEvent       = -6
	codeActionsFull = -7
	codeDecode      = -8
	codeBusy        = -9
	codeTruncated   = -10
	codeInternal    = -11
)

// codeOf maps an error to its HWCC_E_* code.
func codeOf(err error) int {
	switch {
	case err == nil:
		return codeOK
	case errors.Is(err, errHandle):
		return codeHandle
	case errors.Is(err, errBusy):
		return codeBusy
	case errors.Is(err, errArg):
		return codeArg
	case errors.Is(err, errRole):
		return codeRole
	case errors.Is(err, cc.ErrTimeOrder):
		return codeTimeOrder
	case errors.Is(err, cc.ErrActionsFull):
		return codeActionsFull
	case errors.Is(err, cc.ErrEvent):
		return codeEvent
	case errors.Is(err, cc.ErrConfig), errors.Is(err, cc.ErrUnknown):
		return codeConfig
	case errors.Is(err, cc.ErrDecode):
		return codeDecode
	}
	return codeInternal
}
