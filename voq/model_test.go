package voq

import (
	"errors"
	"fmt"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
)

// The reference model: maps keyed by destination, plain int64 arithmetic
// (S_ij as an unbounded count compared mod 2^32), and the round robin
// written as "serve the eligible VOQ whose wait began earliest": each VOQ
// remembers the model clock at which it last became eligible or was last
// served, and Next is the eligible VOQ with the smallest such stamp. The
// Manager's linked ring must agree with that scan after every operation.

type modelVOQ struct {
	slot   Slot
	queued int64
	sent   uint64 // unbounded (mod 2^64); the Manager's register is mod 2^32
	credit int64
	flows  int64
	head   int64
	elig   bool
	since  uint64
}

type model struct {
	cfg      Config
	voqs     map[Key]*modelVOQ
	bySlot   map[Slot]Key
	clock    uint64
	enq, deq uint64
}

func newModel(cfg Config) *model {
	return &model{cfg: cfg, voqs: map[Key]*modelVOQ{}, bySlot: map[Slot]Key{}}
}

// opKind enumerates the operations the tests drive.
type opKind uint8

const (
	opOpen opKind = iota
	opClose
	opEnqueue
	opDequeue
	opServe // Dequeue of the slot Next returns, n = its head (or N)
	opAddCredit
	opSetHead
	opFlowStart
	opFlowEnd
	opReset
	numOps
)

// op is one operation: on the VOQ of Key (or, when Raw, on Slot(Key) as a
// raw slot number, open or not), with length N.
type op struct {
	Kind opKind
	Key  uint32
	N    int64
	Raw  bool
}

func (o op) String() string {
	return fmt.Sprintf("{%d key=%d n=%d raw=%v}", o.Kind, o.Key, o.N, o.Raw)
}

// target resolves an op's slot: the key's slot if it is open, else a slot
// number past the table (or, when Raw, the raw number).
func (md *model) target(o op) Slot {
	if o.Raw {
		return Slot(o.Key)
	}
	if v, ok := md.voqs[Key(o.Key)]; ok {
		return v.slot
	}
	return Slot(md.cfg.Slots + int(o.Key))
}

func (md *model) eligible(v *modelVOQ) bool {
	if v.queued == 0 {
		return false
	}
	switch md.cfg.Eligibility {
	case CreditPositive:
		return v.credit > 0
	case CreditCoversHead:
		return v.head > 0 && v.credit >= v.head
	}
	return true
}

// refresh recomputes eligibility after an operation on v; served says
// that v was just dequeued (its wait starts again).
func (md *model) refresh(v *modelVOQ, served bool) {
	md.clock++
	e := md.eligible(v)
	if e && (!v.elig || served) {
		v.since = md.clock
	}
	v.elig = e
}

// next is the eligible VOQ with the earliest since.
func (md *model) next() (Slot, bool) {
	var best *modelVOQ
	for _, v := range md.voqs {
		if v.elig && (best == nil || v.since < best.since) {
			best = v
		}
	}
	if best == nil {
		return 0, false
	}
	return best.slot, true
}

// apply predicts the sentinel of o (nil: accepted) and applies it to the
// model. For opOpen it needs the slot the Manager returned (any free slot
// is correct) and for opServe the slot it serves, which the caller takes
// from the model's next.
func (md *model) apply(o op, s Slot, opened Slot) error {
	lookup := func() (*modelVOQ, error) {
		k, ok := md.bySlot[s]
		if !ok {
			return nil, ErrSlot
		}
		return md.voqs[k], nil
	}
	switch o.Kind {
	case opOpen:
		k := Key(o.Key)
		if int64(k) >= int64(md.cfg.Keys) {
			return ErrKey
		}
		if _, ok := md.voqs[k]; ok {
			return nil
		}
		if len(md.voqs) == md.cfg.Slots {
			return ErrFull
		}
		md.voqs[k] = &modelVOQ{slot: opened, credit: int64(md.cfg.InitialCredit)}
		md.bySlot[opened] = k
		return nil
	case opReset:
		*md = *newModel(md.cfg)
		return nil
	}
	v, err := lookup()
	if err != nil {
		return err
	}
	pkt := o.N >= 1 && o.N <= int64(md.cfg.MaxPacket)
	switch o.Kind {
	case opClose:
		if v.queued != 0 || v.flows != 0 {
			return ErrBusy
		}
		delete(md.voqs, md.bySlot[s])
		delete(md.bySlot, s)
		return nil
	case opEnqueue:
		if !pkt {
			return ErrSize
		}
		if v.queued+o.N > int64(md.cfg.QueueLimit) {
			return ErrQueueLimit
		}
		if v.queued == 0 {
			v.head = o.N
		}
		v.queued += o.N
		md.enq += uint64(o.N)
	case opDequeue, opServe:
		if !pkt {
			return ErrSize
		}
		if o.N > v.queued {
			return ErrUnderrun
		}
		switch md.cfg.Eligibility {
		case CreditPositive:
			if v.credit <= 0 {
				return ErrNotEligible
			}
		case CreditCoversHead:
			if v.head != o.N || v.credit < o.N {
				return ErrNotEligible
			}
		}
		v.queued -= o.N
		v.sent += uint64(o.N)
		if md.cfg.Eligibility != IgnoreCredit {
			v.credit -= o.N
		}
		v.head = 0
		md.deq += uint64(o.N)
		md.refresh(v, true)
		return nil
	case opAddCredit:
		if o.N < 1 || o.N > int64(md.cfg.MaxCredit) {
			return ErrSize
		}
		if v.credit+o.N > int64(md.cfg.MaxCredit) {
			return ErrCreditOverflow
		}
		v.credit += o.N
	case opSetHead:
		if !pkt {
			return ErrSize
		}
		if o.N > v.queued {
			return ErrUnderrun
		}
		v.head = o.N
	case opFlowStart:
		if v.flows == 65535 {
			return ErrFlows
		}
		v.flows++
	case opFlowEnd:
		if v.flows == 0 {
			return ErrFlows
		}
		v.flows--
	}
	md.refresh(v, false)
	return nil
}

// harness drives a Manager and the model side by side.
type harness struct {
	m  *Manager
	md *model
}

func newHarness(cfg Config) (*harness, error) {
	m, err := New(cfg)
	if err != nil {
		return nil, err
	}
	return &harness{m: m, md: newModel(cfg)}, nil
}

// step applies o to both and returns an error describing any disagreement.
// accepted reports whether the Manager took the operation.
func (h *harness) step(o op) (accepted bool, err error) {
	m, md := h.m, h.md
	s := md.target(o)
	if o.Kind == opServe {
		ns, ok := m.Next()
		if !ok {
			return false, nil
		}
		s = ns
		if o.N == 0 { // serve the head packet (CreditCoversHead needs it)
			st, _ := m.State(s)
			o.N = int64(st.Head)
			if o.N == 0 {
				o.N = int64(min(st.Queued, m.cfg.MaxPacket))
			}
		}
	}
	var got error
	var opened Slot
	var stamp Stamp
	switch o.Kind {
	case opOpen:
		before := m.Len()
		opened, got = m.Open(Key(o.Key))
		if got == nil && m.Len() != before {
			if _, used := md.bySlot[opened]; used || int(opened) >= md.cfg.Slots {
				return false, fmt.Errorf("%v: Open gave slot %d, in use or out of the table", o, opened)
			}
		}
		if got == nil && m.Len() == before {
			if v, ok := md.voqs[Key(o.Key)]; !ok || v.slot != opened {
				return false, fmt.Errorf("%v: reopen gave slot %d", o, opened)
			}
		}
	case opClose:
		got = m.Close(s)
	case opEnqueue:
		got = m.Enqueue(s, units.Bytes(o.N))
	case opDequeue, opServe:
		stamp, got = m.Dequeue(s, units.Bytes(o.N))
	case opAddCredit:
		got = m.AddCredit(s, units.Bytes(o.N))
	case opSetHead:
		got = m.SetHead(s, units.Bytes(o.N))
	case opFlowStart:
		got = m.FlowStart(s)
	case opFlowEnd:
		got = m.FlowEnd(s)
	case opReset:
		m.Reset()
	}
	want := md.apply(o, s, opened)
	switch {
	case want == nil && got != nil:
		return false, fmt.Errorf("%v on slot %d: got %v, model accepts", o, s, got)
	case want != nil && got == nil:
		return false, fmt.Errorf("%v on slot %d: accepted, model refuses with %v", o, s, want)
	case want != nil:
		var ev *cc.EventError
		if !errors.Is(got, want) || !errors.Is(got, cc.ErrEvent) || !errors.As(got, &ev) || !cc.Typed(got) {
			return false, fmt.Errorf("%v on slot %d: got %v, want %v as a *cc.EventError", o, s, got, want)
		}
	}
	if got == nil && (o.Kind == opDequeue || o.Kind == opServe) {
		v := md.voqs[md.bySlot[s]]
		if stamp.Sent != uint32(v.sent) || int64(stamp.Flows) != v.flows {
			return false, fmt.Errorf("%v: stamp %+v, model S=%d F=%d", o, stamp, uint32(v.sent), v.flows)
		}
	}
	return got == nil, h.check()
}

// check compares every register and the round robin with the model.
func (h *harness) check() error {
	m, md := h.m, h.md
	if m.Len() != len(md.voqs) {
		return fmt.Errorf("open %d, model %d", m.Len(), len(md.voqs))
	}
	active := 0
	var queued uint64
	for k, v := range md.voqs {
		if s, ok := m.Lookup(k); !ok || s != v.slot {
			return fmt.Errorf("Lookup(%d) = %d, %v; model slot %d", k, s, ok, v.slot)
		}
		st, err := m.State(v.slot)
		if err != nil {
			return err
		}
		want := State{Key: k, Queued: units.Bytes(v.queued), Sent: uint32(v.sent), Credit: units.Bytes(v.credit),
			Flows: uint16(v.flows), Head: units.Bytes(v.head), Active: v.elig}
		if st != want {
			return fmt.Errorf("slot %d: %+v, model %+v", v.slot, st, want)
		}
		if v.credit < int64(1-md.cfg.MaxPacket) || v.credit > int64(md.cfg.MaxCredit) ||
			(md.cfg.Eligibility == CreditCoversHead && v.credit < 0) {
			return fmt.Errorf("slot %d: credit %d out of its stated range", v.slot, v.credit)
		}
		if v.elig {
			active++
		}
		queued += uint64(v.queued)
	}
	if m.Active() != active {
		return fmt.Errorf("Active %d, model %d", m.Active(), active)
	}
	ws, wok := md.next()
	if gs, gok := m.Next(); gs != ws || gok != wok {
		return fmt.Errorf("Next = %d, %v; model %d, %v", gs, gok, ws, wok)
	}
	// Conservation: bytes enqueued = bytes dequeued + bytes queued.
	t := m.Totals()
	if t.Enqueued != md.enq || t.Dequeued != md.deq || t.Queued != queued || t.Enqueued != t.Dequeued+t.Queued {
		return fmt.Errorf("totals %+v, model enq %d deq %d queued %d", t, md.enq, md.deq, queued)
	}
	for _, r := range m.AppendRegisters(nil) {
		if !r.Fits() {
			return fmt.Errorf("register %v does not fit", r)
		}
	}
	return nil
}
