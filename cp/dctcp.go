package cp

import (
	"math"
	"strconv"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
)

// DCTCPMaxThreshold is the largest K: a 32-bit byte register.
const DCTCPMaxThreshold units.Bytes = math.MaxUint32

// DCTCPMarkAt is where a DCTCP congestion point judges a packet: as it
// joins the queue or as it leaves it.
type DCTCPMarkAt uint8

// Marking points.
const (
	// DCTCPMarkEnqueue judges each packet on arrival against the queue
	// including it (cc.Queue.Len on Enqueue): the DCTCP paper's rule
	// (section 3.1: an arriving packet is marked if the queue occupancy is
	// greater than K upon its arrival), which its section 3.3 analysis
	// assumes. Linux's RED qdisc (sch_red), the software marker commonly
	// set up as a step at K for DCTCP, marks in its enqueue path too. The
	// default, as it has always been in the harness.
	DCTCPMarkEnqueue DCTCPMarkAt = iota
	// DCTCPMarkDequeue judges each packet on departure against the queue
	// it leaves behind (cc.Queue.Len on Dequeue): the HPCC authors' ns-3
	// switch (SwitchNode's dequeue hook), whose DCTCP runs the HPCC paper
	// reports. Marking at dequeue signals congestion one queueing delay
	// earlier; Linux's CoDel and FQ-CoDel mark at dequeue too, but by
	// sojourn time, not by a byte threshold.
	DCTCPMarkDequeue
)

// String returns "enqueue" or "dequeue".
func (m DCTCPMarkAt) String() string {
	switch m {
	case DCTCPMarkEnqueue:
		return "enqueue"
	case DCTCPMarkDequeue:
		return "dequeue"
	}
	return "mark point " + strconv.Itoa(int(m))
}

// DCTCPConfig configures a DCTCP congestion point.
type DCTCPConfig struct {
	// K is the marking threshold in bytes (a 32-bit register). Range:
	// 0..DCTCPMaxThreshold.
	K units.Bytes
	// MarkAt is where packets are judged: DCTCPMarkEnqueue (the zero
	// value, the paper's rule) or DCTCPMarkDequeue (the HPCC authors'
	// ns-3). Events at the other point only record their time.
	MarkAt DCTCPMarkAt
}

// DCTCPHPCCSim is the marker of the HPCC paper's DCTCP runs
// ([HPCC] §5.1, "Parameters": Kmin = Kmax = 30 KB·Bw/10 Gb/s,
// "according to [8]", the DCTCP paper), judging at enqueue. KB is 1000 B; K
// is rounded down to whole bytes. A link so fast that K would pass
// DCTCPMaxThreshold gives a K that Validate refuses.
func DCTCPHPCCSim(link units.Rate) DCTCPConfig {
	const (
		k   = 30 * units.KB
		ref = 10 * units.Gbps
	)
	if link <= 0 {
		return DCTCPConfig{}
	}
	if int64(link) > int64(DCTCPMaxThreshold+1)/int64(k)*int64(ref) {
		return DCTCPConfig{K: DCTCPMaxThreshold + 1} // fails Validate
	}
	// K = 30 KB · link / 10 Gb/s.
	return DCTCPConfig{K: units.Bytes(int64(k) * int64(link) / int64(ref))}
}

// dctcpCPPart names the congestion point in errors.
const dctcpCPPart = "cp.DCTCP"

// Validate checks every field and returns a *cc.ConfigError naming the
// first one out of range.
func (c DCTCPConfig) Validate() error {
	if c.K < 0 || c.K > DCTCPMaxThreshold {
		return &cc.ConfigError{Part: dctcpCPPart, Field: "K", Value: c.K.String(), Range: "0.." + DCTCPMaxThreshold.String()}
	}
	if c.MarkAt > DCTCPMarkDequeue {
		return &cc.ConfigError{Part: dctcpCPPart, Field: "MarkAt", Value: c.MarkAt.String(), Range: "enqueue or dequeue"}
	}
	return nil
}

// DCTCPState is every register of a DCTCP congestion point, in the units
// of its snapshot (AppendRegisters).
type DCTCPState struct {
	// Time is the latest time an event was accepted at (earlier times are
	// refused): register now, ps.
	Time cc.Monotonic
	// Packets counts the packets judged, Marked those marked (registers
	// packets and marked). 64-bit model counters, wrapping.
	Packets, Marked uint64
}

// DCTCP is the congestion point of DCTCP ([DCTCP] §3.1): step ECN marking at
// one threshold K on the instantaneous queue of one egress queue. A packet is
// marked when the queue length it sees exceeds K bytes:
//
//	mark ⇔ q > K
//
// ("greater than K", the paper's wording; q = K is not marked). No random
// draw, no averaging. It is DCQCN's marker with Kmin = Kmax = K, written
// out on its own because it needs no LFSR. Where the packet is judged,
// arriving or departing, is DCTCPConfig.MarkAt.
//
// It has the events of a cc.CongestionPoint only: the event at the
// configured point (Enqueue or Dequeue) judges the packet and appends
// cc.ActionMarkCE when it marks it, so it refuses a nil *cc.Actions (cc
// rule 3); the event at the other point only records the time and takes
// a nil *cc.Actions. It has no timer, so no deadline is ever late.
// Registers (AppendRegisters): now, packets, marked.
//
// It is not safe for concurrent use. The zero value is not usable; build
// one with NewDCTCP.
type DCTCP struct {
	cfg DCTCPConfig
	s   DCTCPState
}

var _ cc.CongestionPoint = (*DCTCP)(nil)

// NewDCTCP validates cfg and returns a marker.
func NewDCTCP(cfg DCTCPConfig) (*DCTCP, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &DCTCP{cfg: cfg}, nil
}

// Config returns the configuration c was built with.
func (c *DCTCP) Config() DCTCPConfig { return c.cfg }

// State returns every register, in the units of its snapshot.
func (c *DCTCP) State() DCTCPState { return c.s }

// queue is the one code path of Enqueue (at = DCTCPMarkEnqueue) and
// Dequeue (at = DCTCPMarkDequeue): it checks its input, records now and,
// at the configured marking point, judges the packet (q > K), counts it
// and appends the mark to act. Its fast path tests every refusal in one
// condition; refuse builds the error.
func (c *DCTCP) queue(now units.Time, p *cc.Packet, qlen units.Bytes, act *cc.Actions, at DCTCPMarkAt) error {
	judge := at == c.cfg.MarkAt
	mark := judge && qlen > c.cfg.K
	// InOrder is Check without its error, which refuse builds: the error's
	// allocation stays off this path.
	if !c.s.Time.InOrder(now) || p == nil || qlen < 0 || judge && (act == nil || mark && act.Free() < 1) {
		return c.refuse(now, p, qlen, act, at)
	}
	c.s.Time.Advance(now)
	if !judge {
		return nil
	}
	c.s.Packets++
	if mark {
		c.s.Marked++
		act.MarkCE()
	}
	return nil
}

// refuse returns the error of a queue event that queue refuses, the first
// of: the *cc.TimeOrderError of c.s.Time.Check; the *cc.EventError of a
// nil packet or a negative qlen; cc.NoActions for a nil act at the
// marking point; the *cc.ActionsFullError of a mark that does not fit. It
// is a function of its own so that queue's fast path carries no
// allocation (with Check inlined there, the compiler spills queue's
// arguments on every call).
func (c *DCTCP) refuse(now units.Time, p *cc.Packet, qlen units.Bytes, act *cc.Actions, at DCTCPMarkAt) error {
	event := dctcpEvents[at&1]
	if err := c.s.Time.Check(dctcpCPPart, event, now); err != nil {
		return err
	}
	switch {
	case p == nil:
		return &cc.EventError{Part: dctcpCPPart, Event: event, Reason: "nil packet"}
	case qlen < 0:
		return negativeQueue(dctcpCPPart, event, qlen)
	case act == nil:
		return cc.NoActions(dctcpCPPart, event)
	}
	return act.Reserve(dctcpCPPart, event, 1)
}

// dctcpEvents names the queue events by their marking point.
var dctcpEvents = [...]string{DCTCPMarkEnqueue: "Enqueue", DCTCPMarkDequeue: "Dequeue"}

// Enqueue implements cc.CongestionPoint: a packet joins the queue at now,
// q.Len the queue in bytes including it. Under DCTCPMarkEnqueue it
// appends cc.ActionMarkCE when q.Len > K; under DCTCPMarkDequeue it only
// records now. Errors, after which nothing changed (act included): a now
// before the latest event's (*cc.TimeOrderError); a nil p or a negative
// q.Len (*cc.EventError); under DCTCPMarkEnqueue a nil act (cc.NoActions),
// or a full act when there is a mark to append (*cc.ActionsFullError).
func (c *DCTCP) Enqueue(now units.Time, p *cc.Packet, q cc.Queue, act *cc.Actions) error {
	return c.queue(now, p, q.Len, act, DCTCPMarkEnqueue)
}

// Dequeue implements cc.CongestionPoint: a packet leaves the queue at now,
// q.Len the bytes it leaves behind. Under DCTCPMarkDequeue it appends
// cc.ActionMarkCE when q.Len > K; under DCTCPMarkEnqueue it only records
// now. Errors as Enqueue's, with the marking points swapped.
func (c *DCTCP) Dequeue(now units.Time, p *cc.Packet, q cc.Queue, act *cc.Actions) error {
	return c.queue(now, p, q.Len, act, DCTCPMarkDequeue)
}

// NextDeadline implements cc.Clock: units.MaxTime, the marker has no timer.
func (c *DCTCP) NextDeadline() units.Time { return units.MaxTime }

// Timer implements cc.Clock: it only records now (the marker has no
// timer).
func (c *DCTCP) Timer(now units.Time, act *cc.Actions) error {
	if err := c.s.Time.Check(dctcpCPPart, "Timer", now); err != nil {
		return err
	}
	c.s.Time.Advance(now)
	return nil
}

// AppendRegisters implements cc.Part: now (64-bit ps), packets and marked
// (64-bit counters), in that order.
func (c *DCTCP) AppendRegisters(dst []cc.Register) []cc.Register {
	return append(dst,
		c.s.Time.Register(),
		cc.Reg("packets", 64, c.s.Packets),
		cc.Reg("marked", 64, c.s.Marked),
	)
}
