package cp

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/fixedpoint"
	"github.com/hwcc/hwcc/pi"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// roccCPPart names cp.RoCC in errors.
const roccCPPart = "cp.RoCC"

// RoCCFlowTableKind selects the flow table of [RoCC] §III-D: the flows a
// CP sends its message to at each update.
type RoCCFlowTableKind uint8

const (
	// RoCCQueueTable is [RoCC] §III-D (1), the paper's default: the flows
	// that have bytes in the queue, with per-flow 32-bit byte counts
	// updated on enqueue and dequeue; a flow leaves when its count returns
	// to 0. A packet of a new flow that finds the table full is not
	// counted (FlowOverflows) and its flow gets no message while it stays
	// out; the table still takes every legal FIFO dequeue, counted or not,
	// holds a flow only while it has bytes queued, and keeps a flow whose
	// latest packet found room until that packet leaves (it tells counted
	// from uncounted packets by the queue's byte positions, as a switch's
	// per-packet "counted" bit would; the snapshot's untracked_bytes,
	// enq_pos and deq_pos).
	RoCCQueueTable RoCCFlowTableKind = iota
	// RoCCAgedTable is §III-D (2): a table of at most Fmax/Fmin flows seen
	// on enqueue, with age-based eviction: a new flow finding the table
	// full evicts the least recently seen (FlowOverflows, evictions), and
	// each update first drops the flows not seen for FlowMaxAge. It ignores
	// dequeues.
	RoCCAgedTable
)

// String returns "queue" or "aged".
func (k RoCCFlowTableKind) String() string {
	switch k {
	case RoCCQueueTable:
		return "queue"
	case RoCCAgedTable:
		return "aged"
	}
	return fmt.Sprintf("RoCCFlowTableKind(%d)", uint8(k))
}

// RoCCMessage selects what a CP sends every T (RoCCConfig.Message).
type RoCCMessage uint8

const (
	// RoCCSendRate sends the fair rate F the CP computed (a type-1
	// message, [RoCC] §III-B): the paper's design and the default.
	RoCCSendRate RoCCMessage = iota
	// RoCCSendReport sends Qcur and the update counter with no F (a type-2
	// message with rate 0, the P4 CNP of Listing 1): the host computes F
	// itself and keeps its own (§III-F, rp.RoCCHost).
	RoCCSendReport
	// RoCCSendReportF sends Qcur and F as it was before the update (a
	// type-2 message, §III-F's approach 2, "CP only provides Qcur
	// and F"): the host starts each update from the CP's F.
	RoCCSendReportF
)

// String returns "rate", "report" or "report_f".
func (m RoCCMessage) String() string {
	switch m {
	case RoCCSendRate:
		return "rate"
	case RoCCSendReport:
		return "report"
	case RoCCSendReportF:
		return "report_f"
	}
	return fmt.Sprintf("RoCCMessage(%d)", uint8(m))
}

// RoCCConfig configures a RoCC congestion point: Algorithm 1's arithmetic
// (pi.Config, whose fields it promotes: ΔQ, ΔF, Fmin, Fmax, Qref, Qmid,
// Qmax, ᾱ, β̄ and the register widths) and what the switch adds around it:
// the timer, the flow table of [RoCC] §III-D, the message it sends and its
// identity in that message. NewRoCC refuses a field out of range with a
// *cc.ConfigError naming it.
type RoCCConfig struct {
	pi.Config

	// Period is T, the update interval of Algorithm 1: 40 µs in simulation,
	// 100 µs on the DPDK testbed, 20 µs on Tofino ([RoCC] §VI). Range: > 0.
	Period units.Time
	// Start is the time of the first update (the timer's phase). Range: ≥ 0.
	Start units.Time

	// FlowTable selects the flow table ([RoCC] §III-D); the zero value is
	// the paper's default, RoCCQueueTable.
	FlowTable RoCCFlowTableKind
	// FlowCapacity is the number of flows the table holds, 1 to
	// RoCCMaxFlowCapacity. The paper's FPGA flow table has 1024 entries
	// (§IV-C); for RoCCAgedTable §III-D (2) bounds it by Fmax/Fmin. What
	// each table does beyond it: RoCCQueueTable, RoCCAgedTable.
	FlowCapacity int
	// FlowMaxAge is RoCCAgedTable's eviction age: a flow not seen on enqueue
	// for this long is dropped at the next update. The paper leaves it open.
	// Range: > 0 when FlowTable is RoCCAgedTable; unused otherwise.
	FlowMaxAge units.Time

	// Message is what the CP sends every T to each flow of its table: the
	// fair rate (the zero value), or a report of Qcur with or without F for
	// a host that computes the rate ([RoCC] §III-F).
	Message RoCCMessage

	// Switch and Port identify this CP in its CNPs ([RoCC] §III-C; GETCP of
	// Algorithm 2 returns the switch's address, Listing 1 carries the egress
	// port). Any value.
	Switch uint32
	Port   uint16
}

// roccPaper is the CP of the paper's Algorithm 1 setting c with update
// period t: the paper's default flow table with the 1024 entries of its
// FPGA table ([RoCC] §IV-C), an aged table's eviction age 10 T.
func roccPaper(c pi.Config, t units.Time) RoCCConfig {
	return RoCCConfig{
		Config:       c,
		Period:       t,
		FlowTable:    RoCCQueueTable,
		FlowCapacity: 1024,
		FlowMaxAge:   10 * t,
	}
}

// RoCC40G is the paper's 40 Gb/s simulation setting ([RoCC] §VI, "System
// parameters"): pi.RoCC40G (ΔF = 10 Mb/s, ΔQ = 600 B, Fmin = 10 ΔF,
// Fmax = 4000 ΔF, Qref/Qmid/Qmax = 150/300/360 KB, ᾱ = 0.3, β̄ = 1.5) with
// T = 40 µs and the queue table of 1024 flows.
func RoCC40G() RoCCConfig { return roccPaper(pi.RoCC40G(), 40*units.Microsecond) }

// RoCC100G is the paper's 100 Gb/s simulation setting ([RoCC] §VI,
// "System parameters"): pi.RoCC100G (Fmax = 10 000 ΔF, Qref/Qmid/Qmax =
// 300/600/660 KB, ᾱ = 0.45, β̄ = 2.25) with T = 40 µs.
func RoCC100G() RoCCConfig { return roccPaper(pi.RoCC100G(), 40*units.Microsecond) }

// RoCCDPDK10G is the DPDK testbed ([RoCC] §VI-B): pi.RoCCDPDK10G (10 Gb/s
// links, Qref/Qmid/Qmax = 75/150/210 KB) with T = 100 µs.
func RoCCDPDK10G() RoCCConfig { return roccPaper(pi.RoCCDPDK10G(), 100*units.Microsecond) }

// RoCCTofino40G is the Tofino testbed ([RoCC] §VI-C): pi.RoCCTofino40G
// (40 Gb/s links, Qref/Qmid/Qmax = 75/150/210 KB, ΔQ = 80 B) with
// T = 20 µs.
func RoCCTofino40G() RoCCConfig { return roccPaper(pi.RoCCTofino40G(), 20*units.Microsecond) }

// validate checks the fields RoCCConfig adds to pi.Config.
func (c RoCCConfig) validate() error {
	bad := func(field string, v any, want string) error {
		return &cc.ConfigError{Part: roccCPPart, Field: field, Value: fmt.Sprint(v), Range: want}
	}
	switch {
	case c.Period <= 0:
		return bad("Period", c.Period, "> 0")
	case c.Start < 0:
		return bad("Start", c.Start, "≥ 0")
	case c.Message > RoCCSendReportF:
		return bad("Message", c.Message, "rate, report or report_f")
	case c.FlowTable > RoCCAgedTable:
		return bad("FlowTable", c.FlowTable, "queue or aged")
	case c.FlowCapacity < 1 || c.FlowCapacity > RoCCMaxFlowCapacity:
		return bad("FlowCapacity", c.FlowCapacity, "1.."+strconv.Itoa(RoCCMaxFlowCapacity))
	case c.FlowTable == RoCCAgedTable && c.FlowMaxAge <= 0:
		return bad("FlowMaxAge", c.FlowMaxAge, "> 0 with the aged flow table")
	}
	return nil
}

// roccParams builds the pi.Params of a configuration, its errors naming
// part.
func roccParams(part string, cfg pi.Config) (*pi.Params, error) {
	p, err := pi.NewParams(cfg)
	if ce, ok := err.(*cc.ConfigError); ok {
		ce.Part = part
	}
	return p, err
}

// RoCCState is every register of a RoCC congestion point, in the units of
// its snapshot (RoCC.AppendRegisters).
type RoCCState struct {
	// F is the fair-rate register, in units of ΔF·2^−RateFracBits (register
	// "f"), and QOld Qold, in ΔQ units ("qold").
	F, QOld uint32
	// QCur is the last queue sample in ΔQ units.
	QCur uint32
	// Shift is AUTO_TUNE's gain shift for the current F (an update that
	// takes pi.PIIdle uses shift 0 instead).
	Shift uint8
	// Branch is the branch the last update took.
	Branch pi.Branch
	// Seq is the 8-bit update counter carried in CNPs (Listing 1's counter),
	// wrapping mod 256.
	Seq uint8
	// Deadline is the next update time and Last the time of the latest
	// event (the cc.Monotonic register).
	Deadline, Last units.Time
	// Updates counts updates, Saturated the queue samples that saturated
	// the Qcur register;
	// FlowOverflows the packets of flows the table could not hold (queue
	// table: packets of new flows not entered; aged table: flows evicted to
	// make room). 64-bit counters, wrapping.
	Updates, Saturated, FlowOverflows uint64
	// Flows is the number of flows in the table.
	Flows int
}

// RoCC is the congestion point of one egress queue: the fair-rate
// calculator of [RoCC] §III-B (Algorithm 1, "Fair Rate Computation at the
// CP", whose arithmetic is package pi's), with the flow table of §III-D
// (RoCCConfig.FlowTable), the CNP of §III-C (wire.RoCCFeedback) and, for a
// host that computes the rate itself (§III-F), the report that rp.RoCCHost
// takes. Its events are the cc.CongestionPoint contract's; its other
// methods read its state. It is not safe for concurrent use. Build one
// with NewRoCC.
//
// Its registers are Algorithm 1's (pi.Regs: F in units of
// ΔF·2^−RateFracBits, Qold in ΔQ units; the package doc of pi gives their
// widths, line 8's rounding and the tracking bound against a real-valued
// Algorithm 1), the last queue sample, the update counter the CNPs carry,
// the timer and the flow table's (AppendRegisters lists them).
//
// # Timer
//
// The update runs every Period at Start, Start + Period, … (a hardware
// timer with a fixed phase), on the CP's view of its queue: the Queue of
// its latest Enqueue or Dequeue, which is the queue a switch's timer reads
// from its queue-depth register, since nothing else changes it between
// events. Every event runs the updates due at or before its now first,
// each as at its own deadline, then itself (rule 4 of package cc): a
// caller that leaves the timer to the next event gets the same registers
// and messages, in the same order, as one that calls Timer at every
// deadline, and must give the Actions room for the messages of every
// update it let pass. An update due at the very time of an Enqueue or
// Dequeue samples the queue before that packet. Many missed updates with
// no flow to tell cost one update each until F stops changing, then
// nothing (the rest differ only in their counters).
//
// # The contract (cc.CongestionPoint)
//
// Enqueue and Dequeue feed the flow table with p.Flow and p.Size and
// record q as the queue view. Each update appends one cc.ActionFeedback
// per flow of the table (after the aged table's expiry at the update's
// time), in slot order (ForEachFlow): ToSource at cc.ControlPrio, a
// cc.FeedbackRate message with From = the CP's identity (Switch·2^16 +
// Port, wire.RoCCFeedback.CP) and Data = the 16-byte RoCC CNP of
// RoCCConfig.Message (CNP: a rate, or a report for rp.RoCCHost). An event
// reserves those actions before it changes a register, so a full
// cc.Actions refuses it and changes nothing. Every event can decide (an
// update due), so every one refuses a nil *cc.Actions (rule 3). The CP
// never marks or drops a packet (RoCC has no ECN and no INT): Enqueue and
// Dequeue decide nothing of their own.
//
// Errors: *cc.TimeOrderError for an event before the latest one (or before
// time 0), *cc.EventError for a nil packet or actions, a negative size or
// queue length, or a dequeue the flow table can prove was never queued,
// and *cc.ActionsFullError; an event that fails changes nothing.
type RoCC struct {
	p      *pi.Params
	cfg    RoCCConfig
	regs   pi.Regs
	state  RoCCState
	clock  cc.Monotonic
	queue  *roccQueueFlows // FlowTable == RoCCQueueTable
	aged   *roccAgedFlows  // FlowTable == RoCCAgedTable
	branch pi.Branch
	prevF  uint32      // F before the last update, for Report
	qlen   units.Bytes // the queue's length at the latest Enqueue or Dequeue (the contract's view)
	id     uint64      // Switch·2^16 + Port, wire.RoCCFeedback.CP
	fbits  uint8       // width of the flow-occupancy register
	fw, qw uint8       // widths of the F and queue registers
}

var _ cc.CongestionPoint = (*RoCC)(nil)

// NewRoCC validates cfg and returns a congestion point with F as
// cfg.InitialF says (Fmax by default), Qold = 0 and its first update due at
// cfg.Start. Event times start at 0: an event before time 0 is refused like
// any event before the previous one. The error is a *cc.ConfigError naming
// the field.
func NewRoCC(cfg RoCCConfig) (*RoCC, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	p, err := roccParams(roccCPPart, cfg.Config)
	if err != nil {
		return nil, err
	}
	c := &RoCC{p: p, cfg: cfg, fw: p.RateWidth(), qw: p.QueueWidth()}
	c.regs = c.p.InitialRegs()
	c.prevF = c.regs.F
	switch cfg.FlowTable {
	case RoCCQueueTable:
		c.queue, err = newRoCCQueueFlows(cfg.FlowCapacity)
	case RoCCAgedTable:
		c.aged, err = newRoCCAgedFlows(cfg.FlowCapacity, cfg.FlowMaxAge)
	}
	if err != nil {
		return nil, err
	}
	c.id = wire.RoCCFeedback{Switch: cfg.Switch, Port: cfg.Port}.CP()
	c.fbits = c.flowMap().occupancyBits()
	c.state.Deadline = cfg.Start
	c.state.Flows = c.flowLen()
	return c, nil
}

// Config returns the configuration the CP was built with.
func (c *RoCC) Config() RoCCConfig { return c.cfg }

// Params returns the CP's parameters (the registry a host can use to
// compute the same rates, [RoCC] §III-F).
func (c *RoCC) Params() *pi.Params { return c.p }

// NextDeadline returns when the next update is due.
func (c *RoCC) NextDeadline() units.Time { return c.state.Deadline }

// F returns the fair-rate register F in its own units, ΔF·2^−RateFracBits
// (RateFracBits fraction bits; the snapshot's register "f", and Regs().F):
// with the presets' 8 fraction bits, F = 2037·256 + 128 is 2037.5 ΔF. The
// CNP carries ⌊F / 2^RateFracBits⌋ whole ΔF; Rate is that times ΔF.
func (c *RoCC) F() uint32 { return c.regs.F }

// Rate returns the fair rate the CP's rate message carries, in bit/s:
// ⌊F / 2^RateFracBits⌋·ΔF.
func (c *RoCC) Rate() units.Rate { return c.p.Rate(c.regs.F) }

// Regs returns the registers of Algorithm 1: F in units of
// ΔF·2^−RateFracBits and Qold in ΔQ units (the snapshot's "f" and "qold").
func (c *RoCC) Regs() pi.Regs { return c.regs }

// State returns every register, in the units of the snapshot.
func (c *RoCC) State() RoCCState {
	s := c.state
	s.Last = c.clock.Last()
	// The registers Algorithm 1 carries, and what follows from them: read
	// here rather than copied on every update.
	s.F, s.QOld = c.regs.F, c.regs.QOld
	s.Shift = uint8(c.p.Shift(c.regs.F))
	s.Branch = c.branch
	return s
}

// Queue returns the CP's view of its queue's length: the cc.Queue.Len of
// its latest Enqueue or Dequeue (0 before any), which Timer samples.
func (c *RoCC) Queue() units.Bytes { return c.qlen }

func (c *RoCC) flowMap() *roccFlowMap {
	if c.queue != nil {
		return &c.queue.m
	}
	return &c.aged.m
}

func (c *RoCC) flowLen() int { return c.flowMap().n }

// roccEvent returns the *cc.EventError of event for reason.
func roccEvent(event, reason string) error {
	return &cc.EventError{Part: roccCPPart, Event: event, Reason: reason}
}

// due returns the number of updates due at or before now: those at
// Deadline, Deadline + T, … up to now (0 when the deadline is later, or
// MaxTime: never).
func (c *RoCC) due(now units.Time) uint64 {
	d := c.state.Deadline
	if now < d || d == units.MaxTime {
		return 0
	}
	// On time or less than a period late, the usual case, nothing is
	// divided.
	if late := now - d; late >= c.cfg.Period {
		return uint64(late/c.cfg.Period) + 1
	}
	return 1
}

// need returns the number of messages n due updates send: one per flow of
// the table at each update (the queue table's flows do not change between
// events; the aged table's expire update by update). It saturates at the
// largest int, which no cc.Actions holds.
func (c *RoCC) need(n uint64) int {
	if c.aged != nil {
		return c.aged.sends(c.state.Deadline, c.cfg.Period, n)
	}
	f := uint64(c.queue.Len())
	if f != 0 && n > uint64(math.MaxInt)/f {
		return math.MaxInt
	}
	return int(n * f)
}

// catchUp makes room in act for the messages of the updates due at or
// before now and runs them, each at its own deadline (rule 4 of package
// cc), on the CP's view of its queue, which no update changes: the view of
// the latest Enqueue or Dequeue. It returns a *cc.ActionsFullError,
// changing nothing, when act has no room for them all; an event calls it
// after its own checks, so that a refused event changes nothing either.
func (c *RoCC) catchUp(event string, now units.Time, act *cc.Actions) error {
	n := c.due(now)
	if n == 0 {
		return nil
	}
	if need := c.need(n); need > 0 {
		if err := act.Reserve(roccCPPart, event, need); err != nil {
			return err
		}
	}
	for ; n > 0; n-- {
		before := c.regs
		sat := c.update()
		if c.state.Flows > 0 {
			c.sendAll(act)
			continue
		}
		if n > 1 && c.regs == before {
			// A fixed point with no flow to tell: the n − 1 updates left
			// start from the same registers and sample the same queue, so
			// each computes what this one did and sends nothing; they
			// differ only in their counters and deadlines (the same as
			// running them one by one, which a test compares).
			r := n - 1
			c.state.Seq += uint8(r) // mod 256, as r single increments
			c.state.Updates += r
			if sat {
				c.state.Saturated += r
			}
			c.state.Deadline = fixedpoint.SatAddNonNeg(c.state.Deadline, fixedpoint.SatMul(units.Time(min(r, math.MaxInt64)), c.cfg.Period))
			return nil
		}
	}
	return nil
}

// update runs the update due at the deadline (Algorithm 1, package pi) on
// the CP's queue view and moves the deadline one period on; the aged table
// expires the flows too old at the update's time. It reports whether the
// queue sample saturated the Qcur register.
func (c *RoCC) update() (saturated bool) {
	at := c.state.Deadline
	c.state.Deadline = fixedpoint.SatAddNonNeg(at, c.cfg.Period)
	// qcur = ⌊qlen/ΔQ⌋, saturated at the queue register's maximum.
	qcur, sat := c.p.QueueUnits(c.qlen)
	if sat {
		c.state.Saturated++
	}
	c.state.QCur = qcur
	c.prevF = c.regs.F
	c.regs, c.branch = pi.Step(c.p, c.regs, qcur)
	c.state.Seq++ // 8-bit, wraps
	c.state.Updates++
	if c.aged != nil {
		c.aged.Expire(at)
	}
	c.state.Flows = c.flowLen()
	return sat
}

// Timer runs every update due at or before now, each at its own deadline
// on the CP's view of its queue (the Queue of its latest Enqueue or
// Dequeue), and appends each update's message to every flow of its table
// (see "The contract" on RoCC). Before the deadline it only records now.
func (c *RoCC) Timer(now units.Time, act *cc.Actions) error {
	const ev = "Timer"
	if err := c.clock.Check(roccCPPart, ev, now); err != nil {
		return err
	}
	if act == nil {
		return cc.NoActions(roccCPPart, ev)
	}
	if err := c.catchUp(ev, now, act); err != nil {
		return err
	}
	c.clock.Advance(now)
	return nil
}

// sendAll appends the CP's message (CNP) for every flow of the table,
// in slot order, to act, which has room. The messages of one update differ
// only in their flow, so the message is encoded once and each flow writes
// its identifier into it (the flow field, bytes 12–15); the table's valid
// bits are walked word by word (see roccFlowMap), so the cost follows the
// flows the table holds.
func (c *RoCC) sendAll(act *cc.Actions) {
	// act.Send(cc.ToSource, cc.ControlPrio, f) for each flow's f: the
	// message with flow 0 is built once and appended as it is, then the
	// appended copy gets its flow (a copy made from a template the loop
	// does not write, so that no wide load of the copy waits on the narrow
	// stores of the flow fields).
	x := cc.Action{Kind: cc.ActionFeedback, To: cc.ToSource, Prio: cc.ControlPrio,
		Feedback: cc.Feedback{Kind: cc.FeedbackRate, From: c.id}}
	c.message(0).Put(&x.Feedback.Data)
	m := c.flowMap()
	for t, tw := range m.top {
		for ; tw != 0; tw &= tw - 1 {
			w := t<<6 + bits.TrailingZeros64(tw)
			for b := m.occ[w]; b != 0; b &= b - 1 {
				flow := m.slots[w<<6+bits.TrailingZeros64(b)].key
				act.Add(x)
				all := act.All()
				f := &all[len(all)-1].Feedback
				f.Flow = cc.FlowID(flow)
				wire.PutRoCCFlow(&f.Data, flow)
			}
		}
	}
}

// CNP returns the message the CP's latest update sent flow, as
// RoCCConfig.Message selects: the fair rate (type wire.RoCCRateFeedback: F
// in whole ΔF, Qcur saturated to 16 bits, the update counter and the CP's
// switch and port), or a report for rp.RoCCHost (wire.RoCCReportFeedback:
// the same with no F, or with F as it was before that update, [RoCC]
// §III-F's approach 2). Before the first update it is the message of the
// initial registers with counter 0. It reads the state only.
func (c *RoCC) CNP(flow cc.FlowID) wire.RoCCFeedback { return c.message(uint32(flow)) }

// message is CNP for a table key.
func (c *RoCC) message(flow uint32) wire.RoCCFeedback {
	m := wire.RoCCFeedback{
		Type:   wire.RoCCRateFeedback,
		Seq:    c.state.Seq,
		Port:   c.cfg.Port,
		Switch: c.cfg.Switch,
		Rate:   uint16(c.p.RateUnits(c.regs.F)),
		QDepth: uint16(c.state.QCur),
		Flow:   flow,
	}
	switch c.cfg.Message {
	case RoCCSendReport:
		m.Type, m.Rate = wire.RoCCReportFeedback, 0
	case RoCCSendReportF:
		// F before the update, in whole ΔF (the field has no fraction).
		m.Type, m.Rate = wire.RoCCReportFeedback, uint16(c.p.RateUnits(c.prevF))
	}
	return m
}

// roccRelabel returns the queue table's refusal err as the CP's event's:
// the same reason, Part cp.RoCC.
func roccRelabel(event string, err error) error {
	var e *cc.EventError
	if errors.As(err, &e) {
		return roccEvent(event, e.Reason)
	}
	return err
}

// enqueue is Enqueue after its checks: the queue table adds size bytes to
// flow, the aged table marks flow seen at now. A flow the table cannot
// hold is counted in FlowOverflows (see RoCCQueueTable and RoCCAgedTable);
// that is not an error. It returns an error, changing nothing, for a
// negative size or a flow count that would pass 2^32 − 1 bytes, or records
// the packet.
func (c *RoCC) enqueue(event string, now units.Time, flow uint32, size units.Bytes) error {
	var full bool
	if c.queue != nil {
		var err error
		if full, err = c.queue.Enqueue(flow, size); err != nil {
			return roccRelabel(event, err)
		}
	} else {
		if size < 0 {
			return roccEvent(event, "enqueue of "+size.String()+", want ≥ 0")
		}
		full = c.aged.Touch(now, flow) // evicted the least recently seen flow
	}
	if full {
		c.state.FlowOverflows++
	}
	c.state.Flows = c.flowLen()
	return nil
}

// dequeue is Dequeue after its checks: the queue table subtracts the bytes
// it counted for the packet at the head of the queue and drops the flow at
// zero; the aged table ignores dequeues. It returns an error, changing
// nothing, for a negative size or a dequeue the queue table can prove was
// never queued, or records the packet.
func (c *RoCC) dequeue(event string, flow uint32, size units.Bytes) error {
	if c.queue != nil {
		if err := c.queue.Dequeue(flow, size); err != nil {
			return roccRelabel(event, err)
		}
	} else if size < 0 {
		return roccEvent(event, "dequeue of "+size.String()+", want ≥ 0")
	}
	c.state.Flows = c.flowLen()
	return nil
}

// refusal returns the error the flow table gives a packet of size bytes of
// flow joining the queue (enqueue) or leaving it, or nil; it changes
// nothing. It runs before an event's catch-up, so that an event the table
// refuses runs no update either (rule 2 of package cc).
func (c *RoCC) refusal(event string, enqueue bool, flow uint32, size units.Bytes) error {
	if c.queue == nil {
		if size < 0 {
			return roccEvent(event, strings.ToLower(event)+" of "+size.String()+", want ≥ 0")
		}
		return nil
	}
	var why int
	if enqueue {
		why = c.queue.enqueueCheck(flow, size)
	} else {
		why = c.queue.dequeueCheck(flow, size)
	}
	if why == 0 {
		return nil
	}
	return roccRelabel(event, c.queue.refuse(event, why, flow, size))
}

// roccCheckPacket returns the error of an Enqueue or Dequeue with a nil
// packet or a negative queue length, or nil.
func roccCheckPacket(event string, p *cc.Packet, q cc.Queue) error {
	if p == nil {
		return roccEvent(event, "nil packet")
	}
	if q.Len < 0 {
		return roccEvent(event, "queue length = "+q.Len.String()+", want ≥ 0")
	}
	return nil
}

// packet is Enqueue (enqueue true) and Dequeue off their fast path: the
// checks of time, packet and actions with their errors, the updates due
// by now (each on the queue view it had before this event, their messages
// appended to act), then the packet in the flow table and q as the queue
// view.
//
//go:noinline
func (c *RoCC) packet(event string, enqueue bool, now units.Time, p *cc.Packet, q cc.Queue, act *cc.Actions) error {
	if err := c.clock.Check(roccCPPart, event, now); err != nil {
		return err
	}
	if err := roccCheckPacket(event, p, q); err != nil {
		return err
	}
	if act == nil {
		// The catch-up can decide, whether or not this call does.
		return cc.NoActions(roccCPPart, event)
	}
	flow := uint32(p.Flow)
	if now >= c.state.Deadline {
		// Updates are due: they run first, on the queue view before this
		// packet, if the table takes the packet.
		if err := c.refusal(event, enqueue, flow, p.Size); err != nil {
			return err
		}
		if err := c.catchUp(event, now, act); err != nil {
			return err
		}
	}
	var err error
	if enqueue {
		err = c.enqueue(event, now, flow, p.Size)
	} else {
		err = c.dequeue(event, flow, p.Size)
	}
	if err != nil {
		return err // only before a catch-up: refusal checked it otherwise
	}
	c.qlen = q.Len
	c.clock.Advance(now)
	return nil
}

// Enqueue records p joining the tail of the queue: its flow's p.Size bytes
// in the flow table (see "The contract" on RoCC), and q as the CP's view of
// its queue. It first runs the updates due by now, appending their
// messages; it decides nothing of its own.
func (c *RoCC) Enqueue(now units.Time, p *cc.Packet, q cc.Queue, act *cc.Actions) error {
	const ev = "Enqueue"
	// The fast path: in time, well formed, no update due.
	if !c.clock.InOrder(now) || p == nil || q.Len < 0 || act == nil || now >= c.state.Deadline {
		return c.packet(ev, true, now, p, q, act)
	}
	if err := c.enqueue(ev, now, uint32(p.Flow), p.Size); err != nil {
		return err
	}
	c.qlen = q.Len
	c.clock.Advance(now)
	return nil
}

// Dequeue records p, the packet at the head of the queue, leaving it (the
// caller reports dequeues in FIFO order), and q as the CP's view of its
// queue. It first runs the updates due by now, appending their messages;
// it decides nothing of its own.
func (c *RoCC) Dequeue(now units.Time, p *cc.Packet, q cc.Queue, act *cc.Actions) error {
	const ev = "Dequeue"
	if !c.clock.InOrder(now) || p == nil || q.Len < 0 || act == nil || now >= c.state.Deadline {
		return c.packet(ev, false, now, p, q, act)
	}
	if err := c.dequeue(ev, uint32(p.Flow), p.Size); err != nil {
		return err
	}
	c.qlen = q.Len
	c.clock.Advance(now)
	return nil
}

// AppendRegisters appends the CP's registers to dst, in this order: now;
// Algorithm 1's f and f_prev (RateBits + RateFracBits wide), qold and qcur
// (QueueBits), shift (3 bits: AUTO_TUNE's 0..5), branch (2), seq (8),
// deadline; the 64-bit counters updates, saturated and flow_overflows; the flow table's occupancy flows (wide enough for
// FlowCapacity), untracked_bytes, enq_pos and deq_pos (the queue table's
// 64-bit byte counters; 0 with the aged table) and evictions (aged table;
// 0 with the queue table); and qlen, the queue view Timer samples.
func (c *RoCC) AppendRegisters(dst []cc.Register) []cc.Register {
	fw, qw := c.fw, c.qw
	var untracked, enq, deq, evictions uint64
	if c.queue != nil {
		untracked, enq, deq = c.queue.untracked, c.queue.enq, c.queue.deq
	} else {
		evictions = c.aged.evictions
	}
	return append(dst,
		c.clock.Register(),
		cc.Reg("f", fw, uint64(c.regs.F)),
		cc.Reg("f_prev", fw, uint64(c.prevF)),
		cc.Reg("qold", qw, uint64(c.regs.QOld)),
		cc.Reg("qcur", qw, uint64(c.state.QCur)),
		cc.Reg("shift", pi.ShiftBits, uint64(c.p.Shift(c.regs.F))),
		cc.Reg("branch", pi.BranchBits, uint64(c.branch)),
		cc.Reg("seq", 8, uint64(c.state.Seq)),
		cc.TimeReg("deadline", c.state.Deadline),
		cc.Reg("updates", 64, c.state.Updates),
		cc.Reg("saturated", 64, c.state.Saturated),
		cc.Reg("flow_overflows", 64, c.state.FlowOverflows),
		cc.Reg("flows", c.fbits, uint64(c.flowLen())),
		cc.Reg("untracked_bytes", 64, untracked),
		cc.Reg("enq_pos", 64, enq),
		cc.Reg("deq_pos", 64, deq),
		cc.Reg("evictions", 64, evictions),
		cc.BytesReg("qlen", c.qlen),
	)
}

// ForEachFlow calls fn for every flow in the table, in slot order (the
// order of the messages an update appends): a deterministic order that
// depends only on the sequence of table updates. fn must not call an event
// method of c.
func (c *RoCC) ForEachFlow(fn func(flow cc.FlowID)) {
	m := c.flowMap()
	for i := m.next(0); i < len(m.slots); i = m.next(i + 1) {
		fn(cc.FlowID(m.slots[i].key))
	}
}

// AppendFlows appends the flows in the table to dst in ForEachFlow's order.
// With cap(dst) − len(dst) ≥ FlowCapacity it does not allocate.
func (c *RoCC) AppendFlows(dst []cc.FlowID) []cc.FlowID {
	m := c.flowMap()
	for i := m.next(0); i < len(m.slots); i = m.next(i + 1) {
		dst = append(dst, cc.FlowID(m.slots[i].key))
	}
	return dst
}
