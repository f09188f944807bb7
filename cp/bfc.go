package cp

import (
	"errors"
	"math"
	"math/bits"
	"slices"
	"strconv"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/fixedpoint"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// Limits of a BFC switch's configuration (BFCConfig), stated once:
// Validate, the registry (package algos) and the docs read them from here.
const (
	// BFCMaxPorts is the most ports a BFC switch has.
	BFCMaxPorts = 1024
	// BFCMaxQueues is the most physical queues per egress port: 64, so
	// that a port's queue sets are one 64-bit register each
	// (wire.BFCMaxQueue + 1).
	BFCMaxQueues = wire.BFCMaxQueue + 1
	// BFCMinTableBits and BFCMaxTableBits bound a port's flow table:
	// 2^bits entries. Every entry of every port can hold one upstream
	// queue paused, so the count of the entries that hold one (kept per
	// ingress port and upstream queue) is 32 bits: it covers
	// BFCMaxPorts·2^BFCMaxTableBits = 2^26 holders, never wraps, and no
	// arrival is refused for it.
	BFCMinTableBits, BFCMaxTableBits = 1, 16
	// BFCMaxRate is the fastest port, 10 Tb/s.
	BFCMaxRate = 10 * units.Tbps
	// BFCMinTime and BFCMaxTime bound HopRTT and Repause.
	BFCMinTime, BFCMaxTime = units.Nanosecond, 10 * units.Millisecond
	// BFCMaxThreshold bounds MinThreshold and every pause threshold: the
	// thresholds and queue counters are 32-bit byte counts (an arrival
	// that would wrap a queue's is refused, ErrBFCTable).
	BFCMaxThreshold units.Bytes = math.MaxUint32
	// BFCMaxPackets is the most packets one flow entry counts (24 bits;
	// an arrival beyond it is refused, ErrBFCTable).
	BFCMaxPackets = 1<<24 - 1
	// BFCMaxPrio is the highest data priority (802.1p: 0..7).
	BFCMaxPrio = 7
)

// The holder counts (32 bits) cover every entry of every port: this
// constant conversion stops compiling if the limits outgrow them.
const _ = uint32(BFCMaxPorts << BFCMaxTableBits)

// BFC's constants as hwcc reads [BFC] (docs/derivations.md, "BFC").
const (
	// BFCPaperQueues is the physical queues per egress port: 32, what
	// the paper's switch (Tofino) offers per port.
	BFCPaperQueues = 32
	// BFCPaperTableBits sizes each port's flow table: 2^10 entries, far
	// above the flows one port holds at once in the paper's workloads
	// (hwcc's choice; the paper's table is per switch).
	BFCPaperTableBits = 10
)

// BFCConfig configures the BFC switch of one switch (BFC).
type BFCConfig struct {
	// Ports is the switch's port count, 1..BFCMaxPorts.
	Ports int
	// Rates is each port's line rate µ (len Ports, 1 bit/s..BFCMaxRate):
	// the pause threshold's drain rate.
	Rates []units.Rate
	// Edge says which ports face a host (len Ports, or nil: none): a flow
	// that comes in by one is paused at its sender (a pause about the flow
	// to its source) rather than at a switch's queue.
	Edge []bool
	// SwitchID is the switch's 12-bit ID (cc.Env.SwitchID): the tag it
	// writes into the packets it sends names it, for the next switch's
	// pauses.
	SwitchID uint16
	// Prio is the data priority BFC runs on (0..BFCMaxPrio); packets of
	// other priorities get no queue and no pause.
	Prio uint8
	// Queues is the physical queues per egress port, 1..BFCMaxQueues
	// (BFCPaperQueues). The switch's scheduler must keep as many.
	Queues int
	// TableBits sizes each egress port's flow table: 2^TableBits
	// entries indexed by CRC-32C of the flow, BFCMinTableBits..
	// BFCMaxTableBits.
	TableBits int
	// HopRTT is the round trip of one hop, pause and its effect included:
	// the pause threshold is µ·HopRTT/N_active (BFCMinTime..BFCMaxTime,
	// with µ·HopRTT at most BFCMaxThreshold at every port).
	HopRTT units.Time
	// MinThreshold is the smallest pause threshold, 1 B..BFCMaxThreshold:
	// a queue of many active ones still holds this much before it pauses.
	MinThreshold units.Bytes
	// Lease is the time each pause holds the upstream queue without a
	// resume (carried in the pause, wire.BFCPause): 0 holds until resumed;
	// else 1 ns..wire.BFCMaxLease in whole ns. A lost resume then costs at
	// most Lease.
	Lease units.Time
	// Repause is the least time between two pauses of one upstream queue
	// or sender while a flow that goes through it stays paused: a packet
	// of a paused flow that arrives later than that after the last pause
	// means the upstream is sending (the pause was lost, or its lease ran
	// out), and the switch pauses it again. 0: never again;
	// BFCMinTime..BFCMaxTime.
	Repause units.Time
}

// BFCPaper returns BFC's switch for ports ports at rate line: 32 physical
// queues per port, the threshold µ·HopRTT/N_active with HopRTT hopRTT
// ([BFC] §3.3), and hwcc's choices where the paper gives none or hwcc is
// not sure of it (docs/derivations.md, "BFC"): a flow table of 2^10
// entries per port, a threshold of at least two full frames (2 KB),
// pauses with a lease of 64·HopRTT, repeated after 2·HopRTT while the
// upstream keeps sending, on the data priority 3.
func BFCPaper(ports int, line units.Rate, hopRTT units.Time) BFCConfig {
	return BFCConfig{
		Ports: ports, Rates: slices.Repeat([]units.Rate{line}, ports), Prio: 3,
		Queues: BFCPaperQueues, TableBits: BFCPaperTableBits,
		HopRTT: hopRTT, MinThreshold: 2 * units.KB,
		Lease: bfcWholeNs(64 * hopRTT), Repause: 2 * hopRTT,
	}
}

// bfcWholeNs rounds t down to whole nanoseconds, at most the largest
// lease, at least 1 ns.
func bfcWholeNs(t units.Time) units.Time {
	return max(min(t, wire.BFCMaxLease)/units.Nanosecond*units.Nanosecond, units.Nanosecond)
}

// bfcPart names the BFC switch in errors.
const bfcPart = "cp.BFC"

func bfcCfgErr(field, value, want string) error {
	return &cc.ConfigError{Part: bfcPart, Field: field, Value: value, Range: want}
}

// Validate reports the first field out of range as a *cc.ConfigError.
func (c BFCConfig) Validate() error {
	itoa := strconv.Itoa
	tr := func(lo units.Time) string { return lo.String() + ".." + BFCMaxTime.String() }
	switch {
	case c.Ports < 1 || c.Ports > BFCMaxPorts:
		return bfcCfgErr("Ports", itoa(c.Ports), "1.."+itoa(BFCMaxPorts))
	case len(c.Rates) != c.Ports:
		return bfcCfgErr("Rates", itoa(len(c.Rates))+" rates", "one per port")
	case c.Edge != nil && len(c.Edge) != c.Ports:
		return bfcCfgErr("Edge", itoa(len(c.Edge))+" ports", "one per port, or none")
	case c.SwitchID > wire.BFCMaxSwitch:
		return bfcCfgErr("SwitchID", itoa(int(c.SwitchID)), "0.."+itoa(wire.BFCMaxSwitch))
	case c.Prio > BFCMaxPrio:
		return bfcCfgErr("Prio", itoa(int(c.Prio)), "0.."+itoa(BFCMaxPrio))
	case c.Queues < 1 || c.Queues > BFCMaxQueues:
		return bfcCfgErr("Queues", itoa(c.Queues), "1.."+itoa(BFCMaxQueues))
	case c.TableBits < BFCMinTableBits || c.TableBits > BFCMaxTableBits:
		return bfcCfgErr("TableBits", itoa(c.TableBits), itoa(BFCMinTableBits)+".."+itoa(BFCMaxTableBits))
	case c.HopRTT < BFCMinTime || c.HopRTT > BFCMaxTime:
		return bfcCfgErr("HopRTT", c.HopRTT.String(), tr(BFCMinTime))
	case c.MinThreshold < 1 || c.MinThreshold > BFCMaxThreshold:
		return bfcCfgErr("MinThreshold", c.MinThreshold.String(), "1B.."+BFCMaxThreshold.String())
	case c.Lease < 0 || c.Lease > wire.BFCMaxLease || c.Lease%units.Nanosecond != 0:
		return bfcCfgErr("Lease", c.Lease.String(), "0s (until resumed) or whole ns up to "+wire.BFCMaxLease.String())
	case c.Repause != 0 && (c.Repause < BFCMinTime || c.Repause > BFCMaxTime):
		return bfcCfgErr("Repause", c.Repause.String(), "0s (never) or "+tr(BFCMinTime))
	}
	for i, r := range c.Rates {
		if r < 1 || r > BFCMaxRate {
			return bfcCfgErr("Rates["+itoa(i)+"]", r.String(), units.Rate(1).String()+".."+BFCMaxRate.String())
		}
		if units.BytesIn(r, c.HopRTT) > BFCMaxThreshold {
			return bfcCfgErr("HopRTT", c.HopRTT.String(), "µ·HopRTT at most "+BFCMaxThreshold.String()+" at every port (port "+itoa(i)+" at "+r.String()+")")
		}
	}
	return nil
}

// Sentinels of a BFC switch's refusals, each wrapped in a *cc.EventError.
var (
	// ErrBFCPort: a port outside 0..Ports−1.
	ErrBFCPort = errors.New("bfc: no such port")
	// ErrBFCTable: a packet leaves a port whose flow table has no entry
	// holding it (a departure without its arrival), or an entry or queue
	// counter would wrap.
	ErrBFCTable = errors.New("bfc: flow table refuses the packet")
	// ErrBFCPause: a pause for a queue this switch does not have, or one
	// addressed to a sender.
	ErrBFCPause = errors.New("bfc: pause for no queue of this switch")
)

// BFCEntry is one flow-table entry of an egress port, as Entry reads it.
type BFCEntry struct {
	// Flow is the flow that took the entry (32 bits); Packets the packets
	// it holds in the port's queue, of that flow or of flows that hash to
	// the same entry (24 bits).
	Flow    cc.FlowID
	Packets uint32
	// Queue is the physical queue its packets wait in.
	Queue uint8
	// Paused: the switch has paused its upstream. Host: the upstream is
	// the flow's sender (In an edge port); else, when In ≥ 0, physical
	// queue UpQueue of the switch on ingress port In. In is −1 when the
	// switch knows no upstream to pause.
	Paused, Host bool
	In           int16
	UpQueue      uint8
}

// bfcEntry is a flow-table entry's registers: flow (32), pkts (24), in
// (16, bfcNoIn none), queue (6), uq (6), flags (4), last (64, ps: its
// last pause to a sender, for Repause).
type bfcEntry struct {
	flow  uint32
	pkts  uint32
	in    uint16
	queue uint8
	uq    uint8
	flags uint8
	last  units.Time
}

// Entry flags.
const (
	bfcValid  = 1 << iota // the entry holds packets
	bfcPaused             // its upstream is paused
	bfcHost               // its upstream is the sender of flow
)

// bfcNoIn is an entry's in when it has no upstream.
const bfcNoIn = math.MaxUint16

// bfcNever is a pause's "never sent" time.
const bfcNever = units.Time(math.MinInt64)

// BFC is the switch side of Backpressure Flow Control ([BFC]): per-hop,
// per-flow backpressure, a cc.SwitchPoint. Each egress port keeps Queues
// physical queues and a flow table; a flow that arrives with no packet at
// the port takes an empty queue if there is one (dynamic queue
// assignment), and a flow whose queue holds more than the pause threshold
// is paused at its upstream: the physical queue it came from at the
// previous switch (named by the tag that switch wrote into the packet,
// wire.BFCTag), or the flow itself at its sender. The upstream switch's
// BFC takes the pause (Message) and stops serving that queue
// (cc.ActionPauseQueue) until the resume, sent when the flow's queue
// drains to the threshold or the flow's last packet leaves, or until the
// pause's lease runs out. Senders run rp.BFC, which stops a flow while it
// is paused.
//
// # By event (data priority Prio)
//
//	Arrive    remember the packet's ingress port for its Enqueue
//	Enqueue   entry ← flow table[out][CRC-32C(flow)]; a free entry takes
//	          the flow, its upstream (ingress port and the tag's queue,
//	          or the sender when the port faces a host) and a queue:
//	          the lowest empty one, else one by the flow's hash;
//	          packets += 1; Q[queue] += size
//	          N_active = non-empty queues; Th = max(µ·HopRTT/N_active,
//	          MinThreshold) (a table written at New, one row per port)
//	          Q[queue] > Th and the entry not paused: pause its upstream
//	          (a switch's queue: once for all the entries that pause it,
//	          counted per ingress port and upstream queue in 32 bits,
//	          enough for every entry of every port: BFCMaxTableBits)
//	          the entry paused, the packet from its upstream, Repause
//	          since the last pause: pause it again
//	          → ActionAssignQueue(queue), then the pauses
//	Dequeue   packets −= 1; Q[queue] −= size; the entry paused and
//	          (packets = 0 or Q[queue] ≤ Th): resume its upstream (a
//	          switch's queue when no other entry holds it paused);
//	          packets = 0 frees the entry; the tag (SwitchID, out,
//	          queue) into p.Hdr
//	Message   a pause of (port, queue): hold it (ActionPauseQueue) until
//	          now + lease, or a resume (ActionResumeQueue)
//	Timer     a held queue whose lease ran out resumes
//
// Every event first runs the lease expiries due by its now (cc's rule 4),
// so each refuses a nil *cc.Actions. Refused events change nothing; a
// PFC Pause changes nothing but the time (BFC replaces PFC; a harness may
// keep PFC as a backstop). Collisions are counted: two flows that hash to
// one entry share it (its queue, its pause, whose upstream is the first
// flow's), and a flow that finds no empty queue shares one by its hash.
// Not safe for concurrent use; nothing allocates after NewBFC except
// errors.
type BFC struct {
	cfg   BFCConfig
	clock cc.Monotonic
	mask  uint32
	all   uint64 // the Queues low bits
	// Per egress port.
	table    []bfcEntry   // port-major, 2^TableBits per port
	qlen     []uint32     // bytes per physical queue, port-major
	nonempty []uint64     // queues with bytes
	held     []uint64     // own queues held by the downstream's pauses
	until    []units.Time // per own queue: when its hold ends (MaxTime: at the resume)
	thr      []uint32     // per port, N_active = 0..Queues: the pause threshold
	// Per ingress port, toward the switch upstream.
	upSwitch []uint16     // its ID, from the tags (bfcNoIn: none seen)
	upPort   []uint16     // its egress port
	cnt      []uint32     // per upstream queue: entries that hold it paused, ≤ Ports·2^TableBits
	upPaused []uint64     // upstream queues with cnt > 0
	upLast   []units.Time // per upstream queue: its last pause
	// The latest Arrive, for its Enqueue.
	latchFlow uint32
	latchIn   int32 // −1: none
	// next is the earliest hold's end (MaxTime: none).
	next units.Time
	// Counters (64 bits, wrapping).
	pauses, resumes, repauses, holds, expiries, shared, crowded, untracked uint64
	unused                                                                 cc.Unused
	names                                                                  []string // per-port register names
}

var _ cc.SwitchPoint = (*BFC)(nil)

// NewBFC validates cfg and returns a BFC switch with empty queues and
// tables, nothing paused.
func NewBFC(cfg BFCConfig) (*BFC, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.Rates = append([]units.Rate(nil), cfg.Rates...)
	if cfg.Edge != nil {
		cfg.Edge = append([]bool(nil), cfg.Edge...)
	}
	n, q := cfg.Ports, cfg.Queues
	s := &BFC{
		cfg: cfg, mask: 1<<cfg.TableBits - 1, all: ^uint64(0) >> (64 - q),
		table: make([]bfcEntry, n<<cfg.TableBits), qlen: make([]uint32, n*q),
		nonempty: make([]uint64, n), held: make([]uint64, n), until: make([]units.Time, n*q),
		thr:      make([]uint32, n*(q+1)),
		upSwitch: make([]uint16, n), upPort: make([]uint16, n),
		cnt: make([]uint32, n*BFCMaxQueues), upPaused: make([]uint64, n), upLast: make([]units.Time, n*BFCMaxQueues),
		latchIn: -1, next: units.MaxTime,
	}
	for i := range s.table {
		s.table[i].last = bfcNever
	}
	for i := range s.upLast {
		s.upLast[i] = bfcNever
	}
	for i := range s.upSwitch {
		s.upSwitch[i] = bfcNoIn
	}
	for o := range n {
		// Th(N) = max(µ·HopRTT/N, MinThreshold), N = 1..Queues; a row is
		// written once, as a switch's control plane writes a register
		// array, so that the data path divides by nothing. Row entry 0
		// (no active queue) is row entry 1's.
		bdp := uint64(units.BytesIn(cfg.Rates[o], cfg.HopRTT)) // ≤ 2^32 − 1 (Validate)
		row := s.thr[o*(q+1) : (o+1)*(q+1)]
		for k := 1; k <= q; k++ {
			row[k] = uint32(max(bdp/uint64(k), uint64(cfg.MinThreshold)))
		}
		row[0] = row[1]
		s.names = append(s.names, "p"+strconv.Itoa(o)+".nonempty", "p"+strconv.Itoa(o)+".held", "p"+strconv.Itoa(o)+".up_paused")
	}
	return s, nil
}

// Config returns the configuration.
func (s *BFC) Config() BFCConfig { return s.cfg }

// Threshold returns the pause threshold of egress port out with active
// non-empty queues (clamped to 1..Queues), and false for no such port.
func (s *BFC) Threshold(out, active int) (units.Bytes, bool) {
	if out < 0 || out >= s.cfg.Ports {
		return 0, false
	}
	return units.Bytes(s.thr[out*(s.cfg.Queues+1)+min(max(active, 1), s.cfg.Queues)]), true
}

// QueueLen returns the bytes physical queue q of port out holds, as the
// switch counts them.
func (s *BFC) QueueLen(out, q int) units.Bytes {
	if out < 0 || out >= s.cfg.Ports || q < 0 || q >= s.cfg.Queues {
		return 0
	}
	return units.Bytes(s.qlen[out*s.cfg.Queues+q])
}

// Held returns the set of port out's own queues its downstream holds
// paused (bit q for queue q).
func (s *BFC) Held(out int) uint64 {
	if out < 0 || out >= s.cfg.Ports {
		return 0
	}
	return s.held[out]
}

// UpPaused returns the set of queues of the switch upstream of ingress
// port in that this switch holds paused.
func (s *BFC) UpPaused(in int) uint64 {
	if in < 0 || in >= s.cfg.Ports {
		return 0
	}
	return s.upPaused[in]
}

// Entry returns the flow-table entry flow maps to at egress port out, and
// false when it holds no packets.
func (s *BFC) Entry(out int, flow cc.FlowID) (BFCEntry, bool) {
	if out < 0 || out >= s.cfg.Ports {
		return BFCEntry{}, false
	}
	e := &s.table[s.index(out, uint32(flow))]
	if e.flags&bfcValid == 0 {
		return BFCEntry{}, false
	}
	in := int16(-1)
	if e.in != bfcNoIn {
		in = int16(e.in)
	}
	return BFCEntry{Flow: cc.FlowID(e.flow), Packets: e.pkts, Queue: e.queue, Paused: e.flags&bfcPaused != 0,
		Host: e.flags&bfcHost != 0, In: in, UpQueue: e.uq}, true
}

// BFCCounters are a BFC switch's event counters (64 bits, wrapping).
type BFCCounters struct {
	// Pauses and Resumes are the pause and resume messages sent;
	// Repauses the pauses sent again to an upstream that kept sending.
	Pauses, Resumes, Repauses uint64
	// Holds counts the pauses taken from downstream (Message); Expiries
	// the holds that ended by their lease.
	Holds, Expiries uint64
	// Shared counts packets of a flow that found its entry taken by
	// another; Crowded the flows that found no empty queue; Untracked the
	// packets whose upstream the switch cannot pause (no tag from a
	// switch port, or no Arrive before their Enqueue).
	Shared, Crowded, Untracked uint64
}

// Counters returns the event counters.
func (s *BFC) Counters() BFCCounters {
	return BFCCounters{Pauses: s.pauses, Resumes: s.resumes, Repauses: s.repauses, Holds: s.holds, Expiries: s.expiries,
		Shared: s.shared, Crowded: s.crowded, Untracked: s.untracked}
}

// index is the flow-table slot of flow at port out.
func (s *BFC) index(out int, flow uint32) int {
	return out<<s.cfg.TableBits | int(bfcFlowHash(flow)&s.mask)
}

// bfcFlowHash is CRC-32C of the flow ID, 4 bytes big-endian (the
// Castagnoli table Mercury's hash uses).
func bfcFlowHash(flow uint32) uint32 {
	crc := ^uint32(0)
	for i := 24; i >= 0; i -= 8 {
		crc = mercuryCastagnoli[byte(crc)^byte(flow>>uint(i))] ^ crc>>8
	}
	return ^crc
}

// hashQueue is the queue a flow shares when none is empty: the hash's
// high 16 bits scaled to 0..Queues−1 (h·Queues >> 16, a multiply and a
// shift rather than a modulo).
func (s *BFC) hashQueue(flow uint32) uint8 {
	return uint8((bfcFlowHash(flow) >> 16 * uint32(s.cfg.Queues)) >> 16)
}

//go:noinline
func bfcErr(event, reason string, err error) error {
	return &cc.EventError{Part: bfcPart, Event: event, Reason: reason, Err: err}
}

// check refuses an event out of time order, on a port outside the
// switch, with a nil packet when p is needed, or a nil act.
func (s *BFC) check(event string, now units.Time, port int, p *cc.Packet, need bool, act *cc.Actions) error {
	if !s.clock.InOrder(now) {
		return s.clock.Check(bfcPart, event, now)
	}
	if port < 0 || port >= s.cfg.Ports {
		return bfcErr(event, "port "+strconv.Itoa(port)+" outside 0.."+strconv.Itoa(s.cfg.Ports-1), ErrBFCPort)
	}
	if need && p == nil {
		return bfcErr(event, "nil packet", nil)
	}
	if act == nil {
		// Every event runs the lease expiries due first: each can decide.
		return cc.NoActions(bfcPart, event)
	}
	return nil
}

// due returns the holds whose lease ends at or before now.
func (s *BFC) due(now units.Time) int {
	if now < s.next || s.next == units.MaxTime {
		return 0
	}
	n := 0
	for o, h := range s.held {
		for m := h; m != 0; m &= m - 1 {
			if u := s.until[o*s.cfg.Queues+bits.TrailingZeros64(m)]; u <= now && u != units.MaxTime {
				n++
			}
		}
	}
	return n
}

// expire ends, in time order (port, then queue, on a tie), every hold
// whose lease ends at or before now, each with an ActionResumeQueue (a
// hold until resumed, end MaxTime, never ends so); the caller reserved
// room for due(now) actions.
func (s *BFC) expire(now units.Time, act *cc.Actions) {
	for s.next <= now && s.next != units.MaxTime {
		o, q := s.earliest()
		s.held[o] &^= 1 << q
		s.until[o*s.cfg.Queues+q] = 0
		s.expiries++
		act.HoldQueue(uint16(o), uint16(q), false)
		s.next = s.earliestTime()
	}
}

// catchUp makes room for the expiries due by now and extra more
// decisions, runs the expiries (cc's rule 4) and records now; when the
// room is short it returns the *cc.ActionsFullError and changes nothing.
func (s *BFC) catchUp(event string, now units.Time, act *cc.Actions, extra int) error {
	if err := act.Reserve(bfcPart, event, s.due(now)+extra); err != nil {
		return err
	}
	s.expire(now, act)
	s.clock.Advance(now)
	return nil
}

// earliest returns the held queue whose hold ends first (s.next).
func (s *BFC) earliest() (o, q int) {
	for o, h := range s.held {
		for m := h; m != 0; m &= m - 1 {
			q := bits.TrailingZeros64(m)
			if s.until[o*s.cfg.Queues+q] == s.next {
				return o, q
			}
		}
	}
	return 0, 0 // unreachable while s.next < MaxTime
}

// earliestTime returns the earliest end of a hold, MaxTime for none.
func (s *BFC) earliestTime() units.Time {
	t := units.MaxTime
	for o, h := range s.held {
		for m := h; m != 0; m &= m - 1 {
			t = min(t, s.until[o*s.cfg.Queues+bits.TrailingZeros64(m)])
		}
	}
	return t
}

// NextDeadline is the earliest end of a hold's lease (MaxTime: none).
func (s *BFC) NextDeadline() units.Time { return s.next }

// Timer ends every hold whose lease ran out by now, each with an
// ActionResumeQueue, in time order.
func (s *BFC) Timer(now units.Time, act *cc.Actions) error {
	if !s.clock.InOrder(now) {
		return s.clock.Check(bfcPart, "Timer", now)
	}
	if act == nil {
		return cc.NoActions(bfcPart, "Timer")
	}
	return s.catchUp("Timer", now, act, 0)
}

// Arrive remembers the packet's ingress port for its Enqueue (the
// switch's ingress pipeline carries it to the egress, as the metadata a
// switch bridges).
func (s *BFC) Arrive(now units.Time, in int, p *cc.Packet, act *cc.Actions) error {
	if err := s.check("Arrive", now, in, p, true, act); err != nil {
		return err
	}
	if err := s.catchUp("Arrive", now, act, 0); err != nil {
		return err
	}
	if p.Prio == s.cfg.Prio {
		s.latchFlow, s.latchIn = uint32(p.Flow), int32(in)
	}
	return nil
}

// Pause takes a PFC pause or resume: BFC changes nothing for it but the
// time (and the expiries due).
func (s *BFC) Pause(now units.Time, out int, prio uint8, _ bool, act *cc.Actions) error {
	if err := s.check("Pause", now, out, nil, false, act); err != nil {
		return err
	}
	if prio > 7 {
		return bfcErr("Pause", "priority "+strconv.Itoa(int(prio))+" outside 0..7", nil)
	}
	return s.catchUp("Pause", now, act, 0)
}

// bfcRef is an upstream a packet came from: a switch's queue (in ≥ 0,
// host false), a flow's sender (host), or none (in < 0).
type bfcRef struct {
	in   int
	uq   uint8
	host bool
}

// ref returns e's upstream.
func (e *bfcEntry) ref() bfcRef {
	if e.in == bfcNoIn {
		return bfcRef{in: -1}
	}
	return bfcRef{in: int(e.in), uq: e.uq, host: e.flags&bfcHost != 0}
}

// bfcSizeOK refuses a packet size outside 1..2^31 − 1.
func bfcSizeOK(event string, p *cc.Packet) error {
	if p.Size < 1 || p.Size > math.MaxInt32 {
		return bfcErr(event, "packet of "+p.Size.String()+", want 1B..2147483647B", nil)
	}
	return nil
}

// pauseMsg returns the pause the switch sends: its lease, or until resumed.
func (s *BFC) pauseMsg(port uint16, uq uint8, resume bool) wire.BFCPause {
	switch {
	case resume:
		return wire.BFCPause{Port: port, Queue: uq}
	case s.cfg.Lease == 0:
		return wire.BFCPause{Port: port, Queue: uq, Forever: true}
	}
	return wire.BFCPause{Port: port, Queue: uq, Lease: s.cfg.Lease}
}

// sendRef appends the pause (resume false) or resume of upstream r for
// flow: to the flow's source for a sender, to the upstream switch for its
// queue. The message is valid by construction (queue < 64, lease
// validated), so Feedback cannot fail.
func (s *BFC) sendRef(act *cc.Actions, r bfcRef, flow uint32, resume bool) {
	if r.host {
		f, _ := s.pauseMsg(wire.BFCHostPort, 0, resume).Feedback(cc.FlowID(flow))
		act.Send(cc.ToSource, cc.ControlPrio, f)
		return
	}
	f, _ := s.pauseMsg(s.upPort[r.in], r.uq, resume).Feedback(0)
	act.SendSwitch(s.upSwitch[r.in], cc.ControlPrio, f)
}

// holdRef counts one more entry that holds switch upstream r paused and
// reports whether it is the first (a pause to send).
func (s *BFC) holdRef(r bfcRef) bool {
	i := r.in*BFCMaxQueues + int(r.uq)
	s.cnt[i]++
	if s.cnt[i] == 1 {
		s.upPaused[r.in] |= 1 << r.uq
		return true
	}
	return false
}

// releaseRef counts one entry fewer that holds switch upstream r paused
// and reports whether it was the last (a resume to send).
func (s *BFC) releaseRef(r bfcRef) bool {
	i := r.in*BFCMaxQueues + int(r.uq)
	s.cnt[i]--
	if s.cnt[i] == 0 {
		s.upPaused[r.in] &^= 1 << r.uq
		return true
	}
	return false
}

// firstHold reports whether pausing switch upstream r would send a pause
// (no entry holds it yet); a sender is always told.
func (s *BFC) firstHold(r bfcRef) bool {
	return r.host || s.cnt[r.in*BFCMaxQueues+int(r.uq)] == 0
}

// lastHold reports whether releasing switch upstream r would send a
// resume (this is the only entry that holds it).
func (s *BFC) lastHold(r bfcRef) bool {
	return r.host || s.cnt[r.in*BFCMaxQueues+int(r.uq)] == 1
}

// admit checks a packet event ev at port out and reports whether p is on
// BFC's priority, its size checked; a packet of another priority only
// moves the time (and the expiries due).
func (s *BFC) admit(ev string, now units.Time, out int, p *cc.Packet, act *cc.Actions) (bool, error) {
	if err := s.check(ev, now, out, p, true, act); err != nil {
		return false, err
	}
	if p.Prio != s.cfg.Prio {
		return false, s.catchUp(ev, now, act, 0)
	}
	return true, bfcSizeOK(ev, p)
}

// Enqueue takes a packet joining egress port out: the flow table, the
// queue assignment (ActionAssignQueue) and the pause decision (see BFC).
func (s *BFC) Enqueue(now units.Time, out int, p *cc.Packet, _ cc.Queue, act *cc.Actions) error {
	const ev = "Enqueue"
	if ours, err := s.admit(ev, now, out, p, act); !ours || err != nil {
		return err
	}
	tag, tagged, err := wire.DecodeBFCTag(&p.Hdr)
	if err != nil {
		return err
	}
	flow := uint32(p.Flow)
	// The packet's upstream.
	r := bfcRef{in: -1}
	if s.latchIn >= 0 && s.latchFlow == flow {
		switch in := int(s.latchIn); {
		case s.cfg.Edge != nil && s.cfg.Edge[in]:
			r = bfcRef{in: in, host: true}
		case tagged:
			r = bfcRef{in: in, uq: tag.Queue}
		}
	}
	e := &s.table[s.index(out, flow)]
	fresh := e.flags&bfcValid == 0
	own := fresh || e.flow == flow
	base := out * s.cfg.Queues
	qi := e.queue
	if fresh {
		if free := ^s.nonempty[out] & s.all; free != 0 {
			qi = uint8(bits.TrailingZeros64(free))
		} else {
			qi = s.hashQueue(flow)
		}
	}
	size := uint32(p.Size)
	if !fresh && e.pkts >= BFCMaxPackets || s.qlen[base+int(qi)] > math.MaxUint32-size {
		return bfcErr(ev, "a flow entry's 24-bit packet count or a queue's 32-bit byte count would wrap", ErrBFCTable)
	}
	// The plan: which pauses and resumes this packet sends.
	old := bfcRef{in: -1}
	paused := false
	if !fresh {
		old, paused = e.ref(), e.flags&bfcPaused != 0
	}
	ref := old
	if own && r.in >= 0 {
		ref = r // the flow's upstream now (its queue there may have changed)
	}
	moved := paused && ref != old
	qlen := s.qlen[base+int(qi)] + size
	active := bits.OnesCount64(s.nonempty[out] | 1<<qi)
	over := qlen > s.thr[out*(s.cfg.Queues+1)+active]
	pause := !paused && ref.in >= 0 && over
	last := bfcNever
	if ref.in >= 0 {
		last = s.lastPause(e, ref, fresh)
	}
	repause := paused && !moved && own && r.in >= 0 && s.cfg.Repause > 0 && (last == bfcNever || now-last >= s.cfg.Repause)
	need := 1
	if moved {
		if old.in >= 0 && s.lastHold(old) {
			need++
		}
		if s.firstHold(ref) {
			need++
		}
	}
	if pause && s.firstHold(ref) {
		need++
	}
	if repause {
		need++
	}
	// Commit.
	if err := s.catchUp(ev, now, act, need); err != nil {
		return err
	}
	s.latchIn = -1
	if r.in >= 0 && !r.host {
		s.upSwitch[r.in], s.upPort[r.in] = tag.Switch, tag.Port
	}
	if fresh {
		if s.nonempty[out]&s.all == s.all {
			s.crowded++
		}
		*e = bfcEntry{flow: flow, queue: qi, in: bfcNoIn, last: bfcNever, flags: bfcValid}
	} else if !own {
		s.shared++
	}
	if r.in < 0 {
		s.untracked++
	}
	act.AssignQueue(uint16(qi))
	e.pkts++
	s.qlen[base+int(qi)] = qlen
	s.nonempty[out] |= 1 << qi
	if moved {
		if old.in >= 0 {
			s.release(act, e, old)
		}
		s.hold(act, now, e, ref)
	}
	e.setRef(ref)
	if pause {
		e.flags |= bfcPaused
		s.hold(act, now, e, ref)
	}
	if repause {
		s.repauses++
		s.pauses++
		s.sendRef(act, ref, e.flow, false)
		s.markSent(e, ref, now)
	}
	return nil
}

// lastPause returns when upstream r was last paused for e: e's own time
// for a sender (never for a fresh entry), the upstream queue's for a
// switch.
func (s *BFC) lastPause(e *bfcEntry, r bfcRef, fresh bool) units.Time {
	if r.host {
		if fresh {
			return bfcNever
		}
		return e.last
	}
	return s.upLast[r.in*BFCMaxQueues+int(r.uq)]
}

// markSent records a pause sent to r for e now.
func (s *BFC) markSent(e *bfcEntry, r bfcRef, now units.Time) {
	if r.host {
		e.last = now
	} else {
		s.upLast[r.in*BFCMaxQueues+int(r.uq)] = now
	}
}

// setRef records r as e's upstream.
func (e *bfcEntry) setRef(r bfcRef) {
	e.flags &^= bfcHost
	if r.in < 0 {
		e.in, e.uq = bfcNoIn, 0
		return
	}
	e.in, e.uq = uint16(r.in), r.uq
	if r.host {
		e.flags |= bfcHost
	}
}

// hold pauses upstream r for entry e: a pause to the sender, or one more
// holder of the switch's queue (a pause when it is the first).
func (s *BFC) hold(act *cc.Actions, now units.Time, e *bfcEntry, r bfcRef) {
	if !r.host && !s.holdRef(r) {
		return
	}
	s.pauses++
	s.sendRef(act, r, e.flow, false)
	s.markSent(e, r, now)
}

// release resumes upstream r for entry e: a resume to the sender, or one
// holder fewer of the switch's queue (a resume when it was the last).
func (s *BFC) release(act *cc.Actions, e *bfcEntry, r bfcRef) {
	if !r.host && !s.releaseRef(r) {
		return
	}
	s.resumes++
	s.sendRef(act, r, e.flow, true)
}

// Dequeue takes a packet leaving egress port out: the entry's count and
// the queue's bytes go down, the entry's upstream resumes when the queue
// has drained to the threshold or the entry's last packet leaves, and the
// switch's tag goes into p.Hdr for the next switch (see BFC).
func (s *BFC) Dequeue(now units.Time, out int, p *cc.Packet, _ cc.Queue, act *cc.Actions) error {
	const ev = "Dequeue"
	if ours, err := s.admit(ev, now, out, p, act); !ours || err != nil {
		return err
	}
	e := &s.table[s.index(out, uint32(p.Flow))]
	base := out * s.cfg.Queues
	size := uint32(p.Size)
	if e.flags&bfcValid == 0 || s.qlen[base+int(e.queue)] < size {
		return bfcErr(ev, "flow "+strconv.FormatUint(uint64(p.Flow), 10)+" has no entry holding a packet of "+p.Size.String()+" at port "+strconv.Itoa(out), ErrBFCTable)
	}
	qi := e.queue
	qlen := s.qlen[base+int(qi)] - size
	nonempty := s.nonempty[out]
	if qlen == 0 {
		nonempty &^= 1 << qi
	}
	r := e.ref()
	resume := e.flags&bfcPaused != 0 && (e.pkts == 1 || qlen <= s.thr[out*(s.cfg.Queues+1)+bits.OnesCount64(nonempty)])
	need := 0
	if resume && s.lastHold(r) {
		need++
	}
	if err := s.catchUp(ev, now, act, need); err != nil {
		return err
	}
	s.qlen[base+int(qi)] = qlen
	s.nonempty[out] = nonempty
	e.pkts--
	if resume {
		e.flags &^= bfcPaused
		s.release(act, e, r)
	}
	if e.pkts == 0 {
		*e = bfcEntry{in: bfcNoIn, last: bfcNever}
	}
	// SwitchID ≤ 4095 (Validate), qi < 64: Put cannot refuse.
	_ = wire.BFCTag{Switch: s.cfg.SwitchID, Port: uint16(out), Queue: qi}.Put(&p.Hdr)
	return nil
}

// Message takes a pause or resume from the downstream switch
// (wire.FeedbackBFCPause) for one of this switch's own queues: a pause
// holds the queue (ActionPauseQueue, unless already held) until its lease
// ends, a resume ends the hold (ActionResumeQueue). A message of another
// kind changes nothing but the time and its count (cc's rule 8); a pause
// that does not decode, is addressed to a sender, or names a port or
// queue this switch does not have is refused.
func (s *BFC) Message(now units.Time, in int, f *cc.Feedback, act *cc.Actions) error {
	const ev = "Message"
	if !s.clock.InOrder(now) {
		return s.clock.Check(bfcPart, ev, now)
	}
	if in < -1 || in >= s.cfg.Ports {
		return bfcErr(ev, "port "+strconv.Itoa(in)+" outside −1.."+strconv.Itoa(s.cfg.Ports-1), ErrBFCPort)
	}
	if f == nil {
		return bfcErr(ev, "nil feedback", nil)
	}
	if act == nil {
		return cc.NoActions(bfcPart, ev)
	}
	if f.Kind != wire.FeedbackBFCPause {
		if err := s.catchUp(ev, now, act, 0); err != nil {
			return err
		}
		s.unused.Count()
		return nil
	}
	m, err := wire.DecodeBFCPause(&f.Data)
	if err != nil {
		return err
	}
	if m.Port == wire.BFCHostPort || int(m.Port) >= s.cfg.Ports || int(m.Queue) >= s.cfg.Queues {
		return bfcErr(ev, "pause of port "+strconv.Itoa(int(m.Port))+" queue "+strconv.Itoa(int(m.Queue))+": this switch has ports 0.."+
			strconv.Itoa(s.cfg.Ports-1)+" of queues 0.."+strconv.Itoa(s.cfg.Queues-1), ErrBFCPause)
	}
	o, q := int(m.Port), int(m.Queue)
	bit := uint64(1) << q
	// A pause of a queue already held only moves its end; a resume of one
	// not held does nothing. A hold that expires by now ends first.
	u := s.until[o*s.cfg.Queues+q]
	expiring := s.held[o]&bit != 0 && u <= now && u != units.MaxTime
	wasHeld := s.held[o]&bit != 0 && !expiring
	need := 0
	if m.Resume() == wasHeld {
		need++
	}
	if err := s.catchUp(ev, now, act, need); err != nil {
		return err
	}
	if m.Resume() {
		if wasHeld {
			s.held[o] &^= bit
			s.until[o*s.cfg.Queues+q] = 0
			act.HoldQueue(uint16(o), uint16(q), false)
		}
	} else {
		s.holds++
		end := units.MaxTime
		if !m.Forever {
			end = fixedpoint.SatAdd(now, m.Lease)
		}
		if !wasHeld {
			s.held[o] |= bit
			act.HoldQueue(uint16(o), uint16(q), true)
		}
		s.until[o*s.cfg.Queues+q] = end
	}
	s.next = s.earliestTime()
	return nil
}

// AppendRegisters appends now (64); latch_flow (32) and latch_in (signed
// 32: −1 none), the latest Arrive's flow and ingress port; next (64, ps:
// the earliest end of a hold); the counters pauses, resumes, repauses,
// holds, expiries, shared, crowded, untracked (64 each, wrapping);
// unused_feedback (64, cc.UnusedRegister); table (64: an FNV-1a digest of
// every flow entry: flow, packets, ingress, queue, upstream queue, flags,
// last pause), queues (64: a digest of every queue's bytes and hold end)
// and upstream (64: a digest of the upstream ports' switch, port, holder
// counts and last pauses), so that a trace sees them change, each a read
// of the whole table (Entry, QueueLen read one); then per port pN.nonempty,
// pN.held and pN.up_paused (64 each: bit q for queue q).
func (s *BFC) AppendRegisters(dst []cc.Register) []cc.Register {
	table := newTableDigest()
	for i := range s.table {
		e := &s.table[i]
		table.mix(uint64(e.flow)<<32 | uint64(e.pkts))
		table.mix(uint64(e.in)<<32 | uint64(e.queue)<<16 | uint64(e.uq)<<8 | uint64(e.flags))
		table.mix(uint64(e.last))
	}
	queues := newTableDigest()
	for i, v := range s.qlen {
		queues.mix(uint64(v))
		queues.mix(uint64(s.until[i]))
	}
	up := newTableDigest()
	for i := range s.upSwitch {
		up.mix(uint64(s.upSwitch[i])<<16 | uint64(s.upPort[i]))
	}
	for i, c := range s.cnt {
		up.mix(uint64(c))
		up.mix(uint64(s.upLast[i]))
	}
	dst = append(dst, s.clock.Register(),
		cc.Reg("latch_flow", 32, uint64(s.latchFlow)), cc.SignedReg("latch_in", 32, int64(s.latchIn)),
		cc.TimeReg("next", s.next),
		cc.Reg("pauses", 64, s.pauses), cc.Reg("resumes", 64, s.resumes), cc.Reg("repauses", 64, s.repauses),
		cc.Reg("holds", 64, s.holds), cc.Reg("expiries", 64, s.expiries),
		cc.Reg("shared", 64, s.shared), cc.Reg("crowded", 64, s.crowded), cc.Reg("untracked", 64, s.untracked),
		s.unused.Register(), cc.Reg("table", 64, uint64(table)), cc.Reg("queues", 64, uint64(queues)), cc.Reg("upstream", 64, uint64(up)))
	for o := range s.cfg.Ports {
		dst = append(dst, cc.Reg(s.names[3*o], 64, s.nonempty[o]), cc.Reg(s.names[3*o+1], 64, s.held[o]), cc.Reg(s.names[3*o+2], 64, s.upPaused[o]))
	}
	return dst
}
