package voq

import (
	"errors"
	"strconv"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
)

// Key is a destination's number: a host index (HierCC's j in VOQ i.j), a
// receiver ToR index when VOQs are aggregated per rack, or an output port.
// Keys are dense, 0..Config.Keys−1, because the key table is indexed by
// them directly; a caller with sparse identifiers (addresses) numbers them
// first.
type Key uint32

// Slot is the index of one VOQ descriptor in the Manager's table,
// 0..Config.Slots−1. The caller keeps the packets of slot s in its own
// storage indexed by s (a FIFO per slot); the Manager keeps the accounting.
type Slot uint32

// Eligibility is the rule that says which VOQs the round robin may serve.
type Eligibility uint8

const (
	// CreditPositive (the zero value, the default): a VOQ is eligible when
	// it holds data and its credit balance is above zero. A dequeue may
	// then spend more than the balance, which goes negative, down to
	// −(MaxPacket−1), and the VOQ waits until credits bring it above zero
	// again (deficit style: the overdraft is repaid, so over time a VOQ
	// sends exactly the credit it is given, plus C0). This is the
	// paper's "VOQs that have available credits" (section 3.2) read
	// literally, and it never stalls a packet longer than the balance.
	CreditPositive Eligibility = iota
	// CreditCoversHead: a VOQ is eligible when it holds data, the length
	// of its head packet is known (see Manager.SetHead) and the balance is
	// at least that length. The balance never goes below zero.
	CreditCoversHead
	// IgnoreCredit: a VOQ is eligible when it holds data; credit is
	// neither checked nor spent (plain round robin over backlogged VOQs,
	// the harness's "VOQ round robin" port scheduler).
	IgnoreCredit
)

// String names the rule as its constant.
func (e Eligibility) String() string {
	switch e {
	case CreditPositive:
		return "CreditPositive"
	case CreditCoversHead:
		return "CreditCoversHead"
	case IgnoreCredit:
		return "IgnoreCredit"
	}
	return "Eligibility(" + strconv.Itoa(int(e)) + ")"
}

// Limits of the registers and tables.
const (
	// MaxKeys is the largest key space: 2^20 destinations (the key table
	// is 4 bytes per key, 4 MiB at this size).
	MaxKeys = 1 << 20
	// MaxSlots is the largest VOQ table: 2^20 descriptors (the paper's
	// section 4 cites switch chips with 100K VOQs).
	MaxSlots = 1 << 20
	// PacketBits is the width of a packet length and of the head-length
	// register: 16 bits, so MaxPacket ≤ 65535 bytes.
	PacketBits = 16
	// QueuedBits is the width of a VOQ's bytes-queued register: 32 bits,
	// unsigned, refusing (an Enqueue past Config.QueueLimit is refused).
	QueuedBits = 32
	// SentBits is the width of S_ij, a VOQ's bytes-sent register: 32 bits,
	// unsigned, wrapping modulo 2^32 as the header field that carries it.
	SentBits = 32
	// FlowBits is the width of F_ij, a VOQ's flow count: 16 bits,
	// unsigned, refusing (FlowStart at 65535 and FlowEnd at 0 are refused).
	FlowBits = 16
	// CreditBits is the width of a VOQ's credit balance: 32 bits, signed,
	// refusing above Config.MaxCredit; below zero only in CreditPositive
	// mode, never below −(MaxPacket−1).
	CreditBits = 32
	// KeyBits and SlotBits are the widths of the key and slot registers.
	KeyBits  = 32
	SlotBits = 32

	// MaxPacket is the largest packet length a Config may allow, bytes
	// (2^16 − 1: the 16-bit head register).
	MaxPacket = 1<<PacketBits - 1
	// MaxQueueLimit is the largest bytes-queued limit: 2^32 − 1 bytes.
	MaxQueueLimit = 1<<QueuedBits - 1
	// MaxCreditLimit is the largest credit balance: 2^31 − 1 bytes.
	MaxCreditLimit = 1<<(CreditBits-1) - 1
	// MaxFlows is the largest flow count: 2^16 − 1.
	MaxFlows = 1<<FlowBits - 1
)

// The paper's credit constants ([HierCC] §3.2 and §5).
const (
	// PaperC0 is C0, the credit balance a VOQ starts with: 10 KB
	// (section 5, "for rapidly pushing out the first few packets").
	PaperC0 = 10 * units.KB
	// PaperDelta is Δ, the bytes one credit from the receiver-side ToR
	// lets a VOQ send: 1 KB (section 3.2). The paper does not say whether
	// KB is 1000 or 1024 bytes; hwcc uses units.KB = 1000 B throughout.
	PaperDelta = units.KB
)

// Config sizes a Manager. Every field is checked by Validate.
type Config struct {
	// Keys is the key space: keys 0..Keys−1 (1..MaxKeys). HierCC: the
	// number of destination hosts N.
	Keys int
	// Slots is the number of VOQ descriptors, 1..min(Keys, MaxSlots).
	// Open refuses a new key when all are in use.
	Slots int
	// Eligibility is the round robin's rule (default CreditPositive).
	Eligibility Eligibility
	// MaxPacket is the largest packet, bytes, 1..MaxPacket: Enqueue and
	// Dequeue refuse longer ones, and it bounds the CreditPositive
	// overdraft to MaxPacket−1.
	MaxPacket units.Bytes
	// QueueLimit is the most bytes one VOQ may hold, MaxPacket..2^32−1:
	// an Enqueue beyond it is refused (the caller drops or holds back the
	// packet; the Manager's counts do not change).
	QueueLimit units.Bytes
	// MaxCredit is the largest credit balance, MaxPacket..2^31−1: an
	// AddCredit beyond it is refused.
	MaxCredit units.Bytes
	// InitialCredit is C0, the balance of a VOQ when Open creates it,
	// 0..MaxCredit.
	InitialCredit units.Bytes
}

// HierCC returns the sender-side ToR of [HierCC] §3.2: one
// VOQ per destination host (dests of them, every one may be open at
// once), C0 = 10 KB, CreditPositive eligibility, packets up to mtu bytes,
// and the widest queue and credit registers.
func HierCC(dests int, mtu units.Bytes) Config {
	return Config{
		Keys:          dests,
		Slots:         dests,
		Eligibility:   CreditPositive,
		MaxPacket:     mtu,
		QueueLimit:    MaxQueueLimit,
		MaxCredit:     MaxCreditLimit,
		InitialCredit: PaperC0,
	}
}

// RoundRobin returns a plain round robin over slots VOQs (IgnoreCredit),
// keyed by output or destination number 0..slots−1: the harness's "VOQ
// round robin" port scheduler.
func RoundRobin(slots int, mtu units.Bytes) Config {
	return Config{
		Keys:        slots,
		Slots:       slots,
		Eligibility: IgnoreCredit,
		MaxPacket:   mtu,
		QueueLimit:  MaxQueueLimit,
		MaxCredit:   MaxCreditLimit,
	}
}

const part = "voq.Manager"

// Validate reports the first field out of range as a *cc.ConfigError.
func (c Config) Validate() error {
	itoa := func(v units.Bytes) string { return strconv.FormatInt(int64(v), 10) }
	switch {
	case c.Keys < 1 || c.Keys > MaxKeys:
		return &cc.ConfigError{Part: part, Field: "Keys", Value: strconv.Itoa(c.Keys), Range: "1.." + strconv.Itoa(MaxKeys)}
	case c.Slots < 1 || c.Slots > min(c.Keys, MaxSlots):
		return &cc.ConfigError{Part: part, Field: "Slots", Value: strconv.Itoa(c.Slots), Range: "1.." + strconv.Itoa(min(c.Keys, MaxSlots)) + " (at most Keys)"}
	case c.Eligibility > IgnoreCredit:
		return &cc.ConfigError{Part: part, Field: "Eligibility", Value: c.Eligibility.String(), Range: "CreditPositive, CreditCoversHead or IgnoreCredit"}
	case c.MaxPacket < 1 || c.MaxPacket > MaxPacket:
		return &cc.ConfigError{Part: part, Field: "MaxPacket", Value: itoa(c.MaxPacket), Range: "1.." + itoa(MaxPacket) + " bytes"}
	case c.QueueLimit < c.MaxPacket || c.QueueLimit > MaxQueueLimit:
		return &cc.ConfigError{Part: part, Field: "QueueLimit", Value: itoa(c.QueueLimit), Range: itoa(c.MaxPacket) + ".." + itoa(MaxQueueLimit) + " bytes (at least MaxPacket)"}
	case c.MaxCredit < c.MaxPacket || c.MaxCredit > MaxCreditLimit:
		return &cc.ConfigError{Part: part, Field: "MaxCredit", Value: itoa(c.MaxCredit), Range: itoa(c.MaxPacket) + ".." + itoa(MaxCreditLimit) + " bytes (at least MaxPacket)"}
	case c.InitialCredit < 0 || c.InitialCredit > c.MaxCredit:
		return &cc.ConfigError{Part: part, Field: "InitialCredit", Value: itoa(c.InitialCredit), Range: "0.." + itoa(c.MaxCredit) + " bytes (at most MaxCredit)"}
	}
	return nil
}

// Sentinels for the refusals. Every event error is a *cc.EventError
// wrapping one of them, so errors.Is(err, cc.ErrEvent) holds too. A
// refused event changes nothing.
var (
	// ErrKey: a key outside 0..Keys−1.
	ErrKey = errors.New("voq: key out of range")
	// ErrFull: Open of a new key with every slot in use. The Manager never
	// evicts an open VOQ.
	ErrFull = errors.New("voq: no free VOQ slot")
	// ErrSlot: a slot outside the table or not open.
	ErrSlot = errors.New("voq: slot not open")
	// ErrSize: a length below 1 or above its limit (MaxPacket for a
	// packet, MaxCredit for a credit).
	ErrSize = errors.New("voq: length out of range")
	// ErrQueueLimit: an Enqueue that would take the VOQ past QueueLimit.
	ErrQueueLimit = errors.New("voq: queue limit")
	// ErrUnderrun: a Dequeue of more bytes than the VOQ holds, or a
	// SetHead longer than the queue.
	ErrUnderrun = errors.New("voq: dequeue beyond the queued bytes")
	// ErrNotEligible: a Dequeue from a VOQ the round robin may not serve
	// (no credit; in CreditCoversHead mode, a head length that is unknown,
	// differs from the packet's, or exceeds the balance).
	ErrNotEligible = errors.New("voq: VOQ not eligible")
	// ErrCreditOverflow: an AddCredit that would take the balance past
	// MaxCredit.
	ErrCreditOverflow = errors.New("voq: credit balance overflow")
	// ErrFlows: FlowStart at MaxFlows or FlowEnd at zero flows.
	ErrFlows = errors.New("voq: flow count out of range")
	// ErrBusy: Close of a VOQ that holds data or flows.
	ErrBusy = errors.New("voq: VOQ not idle")
)

func refuse(event, reason string, err error) error {
	return &cc.EventError{Part: part, Event: event, Reason: reason, Err: err}
}

func bstr(v units.Bytes) string { return strconv.FormatInt(int64(v), 10) + " B" }

// none marks an empty link, key-table entry or ring end.
const none int32 = -1

// entry is one VOQ descriptor. Layout: 32 bytes.
type entry struct {
	key    Key    // KeyBits, the destination this slot serves
	queued uint32 // QueuedBits, bytes queued, ≤ QueueLimit
	sent   uint32 // SentBits, S_ij, bytes dequeued since Open, wraps
	credit int32  // CreditBits, signed balance, bytes
	flows  uint16 // FlowBits, F_ij
	head   uint16 // PacketBits, head packet length; 0: empty or unknown
	prev   int32  // active ring links (none when not in the ring)
	next   int32
	open   bool
	active bool // in the active ring (eligible)
}

// A Manager plays no role of cc (its events are a switch's queueing
// decisions); it keeps the contract's register snapshot.
var _ cc.RegisterSource = (*Manager)(nil)

// Manager is a sender-side VOQ manager: a bounded table of VOQ
// descriptors keyed by destination, their byte, flow, sent and credit
// registers, and a round-robin scheduler over the eligible ones. Every
// method but New and Reset runs in constant time (Open and Close
// included); nothing allocates after New except a refusal's error value.
//
// A Manager is not safe for concurrent use. The zero Manager is not
// usable; build one with New.
type Manager struct {
	cfg   Config
	keys  []int32 // key → slot, none when the key has no VOQ
	slots []entry
	free  []int32 // stack of free slots; free[nfree−1] is handed out next
	nfree int
	// The active ring: eligible slots in service order, a doubly linked
	// list through entry.prev/next. Next is its head; a served slot that
	// stays eligible moves to the tail, a newly eligible slot joins it.
	head, tail int32
	nactive    int
	// Model counters (64 bits, wrapping): bytes accepted by Enqueue and
	// Dequeue since New or Reset; and bytes queued in all VOQs (at most
	// Slots·(2^32−1) < 2^52, never wraps).
	enqueued, dequeued, queued uint64
}

// New validates cfg and returns a Manager with every slot free.
func New(cfg Config) (*Manager, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	m := &Manager{
		cfg:   cfg,
		keys:  make([]int32, cfg.Keys),
		slots: make([]entry, cfg.Slots),
		free:  make([]int32, cfg.Slots),
	}
	m.Reset()
	return m, nil
}

// Reset returns the Manager to its state after New: every VOQ closed
// (its counters dropped), the key table empty, the active ring empty, the
// model counters zero, and the free slots handed out again from slot 0
// up. It takes time proportional to Keys + Slots.
func (m *Manager) Reset() {
	for i := range m.keys {
		m.keys[i] = none
	}
	for i := range m.slots {
		m.slots[i] = entry{prev: none, next: none}
	}
	n := len(m.free)
	for i := range m.free {
		m.free[i] = int32(n - 1 - i) // slot 0 on top of the stack
	}
	m.nfree = n
	m.head, m.tail, m.nactive = none, none, 0
	m.enqueued, m.dequeued, m.queued = 0, 0, 0
}

// Config returns the configuration.
func (m *Manager) Config() Config { return m.cfg }

// Lookup returns the slot of key's VOQ, if it is open.
func (m *Manager) Lookup(k Key) (Slot, bool) {
	if uint64(k) >= uint64(len(m.keys)) || m.keys[k] == none {
		return 0, false
	}
	return Slot(m.keys[k]), true
}

// Open returns the slot of key's VOQ, creating it if it is not open: a
// new VOQ takes the most recently freed slot (slot 0, 1, ... on a fresh
// Manager) and starts with no data, no flows, S = 0, head unknown and the
// balance C0 = InitialCredit. Opening an open key returns its slot and
// changes nothing. With every slot in use Open refuses (ErrFull) and
// evicts nothing; a key outside the key space is refused (ErrKey).
func (m *Manager) Open(k Key) (Slot, error) {
	if uint64(k) >= uint64(len(m.keys)) {
		return 0, refuse("Open", "key "+strconv.FormatUint(uint64(k), 10)+", want 0.."+strconv.Itoa(len(m.keys)-1), ErrKey)
	}
	if s := m.keys[k]; s != none {
		return Slot(s), nil
	}
	if m.nfree == 0 {
		return 0, refuse("Open", "key "+strconv.FormatUint(uint64(k), 10)+": all "+strconv.Itoa(len(m.slots))+" slots in use", ErrFull)
	}
	m.nfree--
	s := m.free[m.nfree]
	m.slots[s] = entry{key: k, credit: int32(m.cfg.InitialCredit), prev: none, next: none, open: true}
	m.keys[k] = s
	return Slot(s), nil
}

// Close frees slot s for another key. The VOQ must be idle: no bytes
// queued and no flows (else ErrBusy). Its credit balance and S are
// dropped; a later Open of the same key starts again at C0 and S = 0, so
// the receiver side must forget the VOQ too.
func (m *Manager) Close(s Slot) error {
	e, err := m.entry(s, "Close")
	if err != nil {
		return err
	}
	if e.queued != 0 || e.flows != 0 {
		return refuse("Close", "slot "+strconv.FormatUint(uint64(s), 10)+" holds "+strconv.FormatUint(uint64(e.queued), 10)+" B and "+strconv.Itoa(int(e.flows))+" flows", ErrBusy)
	}
	m.keys[e.key] = none
	*e = entry{prev: none, next: none}
	m.free[m.nfree] = int32(s)
	m.nfree++
	return nil
}

// entry returns slot s's descriptor if s is open.
func (m *Manager) entry(s Slot, event string) (*entry, error) {
	if uint64(s) >= uint64(len(m.slots)) || !m.slots[s].open {
		return nil, errSlot(s, event)
	}
	return &m.slots[s], nil
}

// errSlot and errPacket build the refusals outside the inlined checks.
func errSlot(s Slot, event string) error {
	return refuse(event, "slot "+strconv.FormatUint(uint64(s), 10)+" is not open", ErrSlot)
}

func (m *Manager) errPacket(n units.Bytes, event string) error {
	return refuse(event, "packet of "+bstr(n)+", want 1.."+bstr(m.cfg.MaxPacket), ErrSize)
}

// checkPacket refuses a packet length outside 1..MaxPacket.
func (m *Manager) checkPacket(n units.Bytes, event string) error {
	if n < 1 || n > m.cfg.MaxPacket {
		return m.errPacket(n, event)
	}
	return nil
}

// Enqueue records a packet of n bytes (1..MaxPacket) joining slot s's
// queue: bytes queued += n. When the queue was empty the packet is its
// head and the head length becomes n. An Enqueue that would take the queue
// past QueueLimit is refused (ErrQueueLimit): the VOQ's bytes-queued
// register never saturates silently, so byte counts stay conserved.
func (m *Manager) Enqueue(s Slot, n units.Bytes) error {
	e, err := m.entry(s, "Enqueue")
	if err != nil {
		return err
	}
	if err := m.checkPacket(n, "Enqueue"); err != nil {
		return err
	}
	if units.Bytes(e.queued)+n > m.cfg.QueueLimit {
		return refuse("Enqueue", "packet of "+bstr(n)+" onto "+strconv.FormatUint(uint64(e.queued), 10)+" B queued, limit "+bstr(m.cfg.QueueLimit), ErrQueueLimit)
	}
	if e.queued == 0 {
		e.head = uint16(n)
	}
	e.queued += uint32(n)
	m.enqueued += uint64(n)
	m.queued += uint64(n)
	m.update(int32(s), e)
	return nil
}

// Stamp is what HierCC writes into a packet's header as it leaves its VOQ
// ([HierCC] §3.2): F_ij and S_ij.
type Stamp struct {
	// Flows is F_ij, the VOQ's flow count (16 bits).
	Flows uint16
	// Sent is S_ij, the bytes dequeued from the VOQ since Open, this
	// packet included, modulo 2^32. The paper inserts S_ij "before
	// dequeuing", which may be read as excluding the packet (Sent − n,
	// mod 2^32); hwcc counts it, so that a receiver crediting until
	// C_sent ≥ S_ij returns the credit this packet spent and an idle VOQ
	// recovers its balance of C0.
	Sent uint32
}

// Dequeue records the packet of n bytes at the head of slot s's queue
// leaving it, and returns the header stamp (F_ij, S_ij) for it. It needs n
// in 1..MaxPacket (ErrSize), n ≤ bytes queued (ErrUnderrun), and the VOQ
// eligible (ErrNotEligible): under CreditPositive a balance above zero,
// under CreditCoversHead a known head length equal to n and a balance of
// at least n, under IgnoreCredit nothing more.
//
// Then: bytes queued −= n; S_ij += n (wrapping); the balance −= n, except
// under IgnoreCredit; the head length becomes unknown (0) unless the
// queue is now empty, and SetHead tells the next one. A served VOQ that is
// still eligible goes to the tail of the round robin, whether or not Next
// chose it.
func (m *Manager) Dequeue(s Slot, n units.Bytes) (Stamp, error) {
	e, err := m.entry(s, "Dequeue")
	if err != nil {
		return Stamp{}, err
	}
	if err := m.checkPacket(n, "Dequeue"); err != nil {
		return Stamp{}, err
	}
	if n > units.Bytes(e.queued) {
		return Stamp{}, refuse("Dequeue", "packet of "+bstr(n)+" with "+strconv.FormatUint(uint64(e.queued), 10)+" B queued", ErrUnderrun)
	}
	switch m.cfg.Eligibility {
	case CreditPositive:
		if e.credit <= 0 {
			return Stamp{}, refuse("Dequeue", "balance "+strconv.Itoa(int(e.credit))+" B, want > 0", ErrNotEligible)
		}
	case CreditCoversHead:
		if units.Bytes(e.head) != n || units.Bytes(e.credit) < n {
			return Stamp{}, refuse("Dequeue", "packet of "+bstr(n)+", head "+strconv.Itoa(int(e.head))+" B (0: unknown), balance "+strconv.Itoa(int(e.credit))+" B", ErrNotEligible)
		}
	}
	e.queued -= uint32(n)
	e.sent += uint32(n) // S_ij: wraps modulo 2^32
	if m.cfg.Eligibility != IgnoreCredit {
		// ≥ 1 − MaxPacket (CreditPositive) or ≥ 0 (CreditCoversHead).
		e.credit -= int32(n)
	}
	e.head = 0
	m.dequeued += uint64(n)
	m.queued -= uint64(n)
	// Served: leave the ring and rejoin at its tail if still eligible.
	if e.active {
		m.unlink(int32(s), e)
	}
	m.update(int32(s), e)
	return Stamp{Flows: e.flows, Sent: e.sent}, nil
}

// SetHead records n as the length of the packet at the head of slot s's
// queue (1..MaxPacket, at most the bytes queued; a queue that is empty
// refuses with ErrUnderrun). CreditCoversHead needs it after every Dequeue
// that leaves data behind; the other rules keep it but do not read it.
// A VOQ that becomes eligible joins the tail of the round robin.
func (m *Manager) SetHead(s Slot, n units.Bytes) error {
	e, err := m.entry(s, "SetHead")
	if err != nil {
		return err
	}
	if err := m.checkPacket(n, "SetHead"); err != nil {
		return err
	}
	if n > units.Bytes(e.queued) {
		return refuse("SetHead", "head of "+bstr(n)+" with "+strconv.FormatUint(uint64(e.queued), 10)+" B queued", ErrUnderrun)
	}
	e.head = uint16(n)
	m.update(int32(s), e)
	return nil
}

// AddCredit adds n bytes (1..MaxCredit) to slot s's balance: one HierCC
// credit packet adds Δ = PaperDelta. A balance that would pass MaxCredit is
// refused (ErrCreditOverflow) and stays as it was. Under IgnoreCredit the
// balance is kept but no rule reads it.
func (m *Manager) AddCredit(s Slot, n units.Bytes) error {
	e, err := m.entry(s, "AddCredit")
	if err != nil {
		return err
	}
	if n < 1 || n > m.cfg.MaxCredit {
		return refuse("AddCredit", "credit of "+bstr(n)+", want 1.."+bstr(m.cfg.MaxCredit), ErrSize)
	}
	if units.Bytes(e.credit)+n > m.cfg.MaxCredit {
		return refuse("AddCredit", "credit of "+bstr(n)+" onto a balance of "+strconv.Itoa(int(e.credit))+" B, limit "+bstr(m.cfg.MaxCredit), ErrCreditOverflow)
	}
	e.credit += int32(n)
	m.update(int32(s), e)
	return nil
}

// FlowStart counts one more flow in slot s's VOQ (F_ij += 1); at
// MaxFlows it refuses (ErrFlows).
func (m *Manager) FlowStart(s Slot) error {
	e, err := m.entry(s, "FlowStart")
	if err != nil {
		return err
	}
	if e.flows == MaxFlows {
		return refuse("FlowStart", "flow count at its 16-bit limit", ErrFlows)
	}
	e.flows++
	return nil
}

// FlowEnd counts one flow fewer (F_ij −= 1); at zero it refuses (ErrFlows).
func (m *Manager) FlowEnd(s Slot) error {
	e, err := m.entry(s, "FlowEnd")
	if err != nil {
		return err
	}
	if e.flows == 0 {
		return refuse("FlowEnd", "no flow to end", ErrFlows)
	}
	e.flows--
	return nil
}

// eligible is the Eligibility rule for one descriptor.
func (m *Manager) eligible(e *entry) bool {
	if e.queued == 0 {
		return false
	}
	switch m.cfg.Eligibility {
	case CreditPositive:
		return e.credit > 0
	case CreditCoversHead:
		return e.head != 0 && e.credit >= int32(e.head)
	}
	return true
}

// update puts slot s in the active ring exactly when it is eligible: a
// slot that becomes eligible joins the tail; one that stops leaves.
func (m *Manager) update(s int32, e *entry) {
	switch el := m.eligible(e); {
	case el && !e.active:
		e.prev, e.next = m.tail, none
		if m.tail == none {
			m.head = s
		} else {
			m.slots[m.tail].next = s
		}
		m.tail = s
		e.active = true
		m.nactive++
	case !el && e.active:
		m.unlink(s, e)
	}
}

// unlink removes slot s from the active ring.
func (m *Manager) unlink(s int32, e *entry) {
	if e.prev == none {
		m.head = e.next
	} else {
		m.slots[e.prev].next = e.next
	}
	if e.next == none {
		m.tail = e.prev
	} else {
		m.slots[e.next].prev = e.prev
	}
	e.prev, e.next, e.active = none, none, false
	m.nactive--
}

// Next returns the VOQ the round robin serves next: the head of the active
// ring, the eligible VOQ that has waited longest since it was last served
// or became eligible. It changes nothing (calling it twice gives the same
// slot); the Dequeue that serves the slot moves it on. ok is false when no
// VOQ is eligible.
func (m *Manager) Next() (s Slot, ok bool) {
	if m.head == none {
		return 0, false
	}
	return Slot(m.head), true
}

// Eligible reports whether slot s is open and may be served now.
func (m *Manager) Eligible(s Slot) bool {
	return uint64(s) < uint64(len(m.slots)) && m.slots[s].active
}

// Active returns how many VOQs are eligible (the length of the round
// robin).
func (m *Manager) Active() int { return m.nactive }

// Len returns how many VOQs are open.
func (m *Manager) Len() int { return len(m.slots) - m.nfree }

// State is one VOQ's registers.
type State struct {
	Key    Key         // destination
	Queued units.Bytes // bytes queued, 0..QueueLimit
	Sent   uint32      // S_ij, bytes dequeued since Open, mod 2^32
	Credit units.Bytes // balance, −(MaxPacket−1)..MaxCredit
	Flows  uint16      // F_ij
	Head   units.Bytes // head packet length, 0: empty or unknown
	Active bool        // eligible, in the round robin
}

// State returns slot s's registers (ErrSlot when s is not open).
func (m *Manager) State(s Slot) (State, error) {
	e, err := m.entry(s, "State")
	if err != nil {
		return State{}, err
	}
	return State{Key: e.key, Queued: units.Bytes(e.queued), Sent: e.sent, Credit: units.Bytes(e.credit),
		Flows: e.flows, Head: units.Bytes(e.head), Active: e.active}, nil
}

// Totals are the Manager's model counters: bytes accepted by Enqueue and
// by Dequeue since New or Reset (64 bits, wrapping), and bytes queued in
// all VOQs. Conservation: Enqueued = Dequeued + Queued (mod 2^64).
type Totals struct {
	Enqueued, Dequeued, Queued uint64
}

// Totals returns the model counters.
func (m *Manager) Totals() Totals {
	return Totals{Enqueued: m.enqueued, Dequeued: m.dequeued, Queued: m.queued}
}

// AppendRegisters appends the Manager's summary registers to dst, in this
// order, and returns the extended slice; it allocates only when dst must
// grow. The table is summarised, not dumped (AppendSlotRegisters dumps
// one VOQ):
//
//	open        32 bits  VOQs open
//	active      32 bits  VOQs eligible (round-robin length)
//	rr_head     32 bits  slot Next returns (2^32−1: none)
//	enqueued    64 bits  bytes accepted by Enqueue (model counter, wraps)
//	dequeued    64 bits  bytes accepted by Dequeue (model counter, wraps)
//	queued      64 bits  bytes queued in all VOQs
func (m *Manager) AppendRegisters(dst []cc.Register) []cc.Register {
	return append(dst,
		cc.Reg("open", SlotBits, uint64(m.Len())),
		cc.Reg("active", SlotBits, uint64(m.nactive)),
		cc.Reg("rr_head", SlotBits, uint64(uint32(m.head))),
		cc.Reg("enqueued", 64, m.enqueued),
		cc.Reg("dequeued", 64, m.dequeued),
		cc.Reg("queued", 64, m.queued),
	)
}

// AppendSlotRegisters appends slot s's registers to dst, in this order
// (nothing for a slot that is not open):
//
//	key       32 bits            destination
//	queued    32 bits            bytes queued
//	sent      32 bits            S_ij, wraps
//	credit    32 bits, signed    balance, bytes
//	flows     16 bits            F_ij
//	head      16 bits            head packet length (0: empty or unknown)
//	active     1 bit             eligible
func (m *Manager) AppendSlotRegisters(dst []cc.Register, s Slot) []cc.Register {
	if uint64(s) >= uint64(len(m.slots)) || !m.slots[s].open {
		return dst
	}
	e := &m.slots[s]
	return append(dst,
		cc.Reg("key", KeyBits, uint64(e.key)),
		cc.Reg("queued", QueuedBits, uint64(e.queued)),
		cc.Reg("sent", SentBits, uint64(e.sent)),
		cc.SignedReg("credit", CreditBits, int64(e.credit)),
		cc.Reg("flows", FlowBits, uint64(e.flows)),
		cc.Reg("head", PacketBits, uint64(e.head)),
		cc.BoolReg("active", e.active),
	)
}
