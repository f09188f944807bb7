package cp

import (
	"math"
	"strconv"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// becnPart names the congestion point in errors.
const becnPart = "cp.BECN"

// BECNMaxThreshold is the largest BECNConfig.Threshold: a 32-bit byte
// register.
const BECNMaxThreshold units.Bytes = math.MaxUint32

// BECNMaxInterval is the largest BECNConfig.MinInterval: 1 s.
const BECNMaxInterval = units.Second

// BECNMaxTableBits is the largest BECNConfig.TableBits: a table of 2^16
// flows.
const BECNMaxTableBits = 16

// BECNMode is which of the two schemes a congestion point runs.
type BECNMode uint8

// The modes.
const (
	// BECNModeBECN (the zero value): the congested CP notifies the
	// packet's source itself ([Survey] §4.1.1).
	BECNModeBECN BECNMode = iota
	// BECNModeFECN: the congested CP marks the packet (the EFCI/FECN bit,
	// cc.ActionMarkCE) and the destination's NP (np.FECN) notifies the
	// source ([Survey] §4.1.2).
	BECNModeFECN
)

// String returns "becn" or "fecn".
func (m BECNMode) String() string {
	switch m {
	case BECNModeBECN:
		return "becn"
	case BECNModeFECN:
		return "fecn"
	}
	return "mode " + strconv.Itoa(int(m))
}

// BECNPoint is where a congestion point judges a packet against its
// threshold: as it joins the queue or as it leaves it.
type BECNPoint uint8

// The judging points.
const (
	// BECNAtEnqueue (the zero value, the default): the packet is judged as
	// it joins the queue, against cc.Queue.Len including it. The survey's
	// wording for both schemes ("when the queue ... exceeds a fixed
	// threshold, the switch will directly send BECN cells to the source
	// that contribute to the congestion"; a packet "marked ... when passes
	// a congested queue") names no point; arrival is where a switch sees
	// a packet's contribution first, and it is DCTCP's and hwcc's usual
	// marking point (DCTCPMarkEnqueue).
	BECNAtEnqueue BECNPoint = iota
	// BECNAtDequeue: the packet is judged as it leaves, against the queue
	// it leaves behind (cc.Queue.Len on Dequeue).
	BECNAtDequeue
)

// String returns "enqueue" or "dequeue".
func (p BECNPoint) String() string {
	switch p {
	case BECNAtEnqueue:
		return "enqueue"
	case BECNAtDequeue:
		return "dequeue"
	}
	return "point " + strconv.Itoa(int(p))
}

// becnConfigErr is the *cc.ConfigError of a field out of range.
func becnConfigErr(field, value, want string) error {
	return &cc.ConfigError{Part: becnPart, Field: field, Value: value, Range: want}
}

// becnEventErr is the *cc.EventError of an event the CP refuses, built
// out of line so that the event paths hold no allocation site.
//
//go:noinline
func becnEventErr(event, reason string) error {
	return &cc.EventError{Part: becnPart, Event: event, Reason: reason}
}

// becnNoActions is the error of the judging point's event given a nil
// act (cc rule 3: it can decide), built out of line.
//
//go:noinline
func becnNoActions(event string) error { return cc.NoActions(becnPart, event) }

// becnFull is the *cc.ActionsFullError of an event that needs one action
// and has no room (act may be nil), built out of line.
//
//go:noinline
func becnFull(event string, act *cc.Actions) error { return act.Reserve(becnPart, event, 1) }

// BECNConfig configures a congestion point.
type BECNConfig struct {
	// Mode is BECNModeBECN (the zero value: notify the source from the
	// switch) or BECNModeFECN (mark the packet for the receiver to echo).
	Mode BECNMode
	// Threshold is the queue length, in bytes, above which a packet is
	// congested: a packet is judged congested when the queue it sees is
	// greater than Threshold (q = Threshold is not). A 32-bit register,
	// 0..BECNMaxThreshold. The survey says only "a fixed threshold"; the
	// presets take DCQCN's Kmin (see BECNSurvey).
	Threshold units.Bytes
	// At is where packets are judged: BECNAtEnqueue (the zero value, the
	// default) or BECNAtDequeue, in both modes. Events at the other point
	// only record their time.
	At BECNPoint
	// MinInterval (BECNModeBECN only) is the least time between two
	// notifications of one flow: a congested packet notifies its source
	// when its flow has not been notified for MinInterval (or ever),
	// else it is counted as suppressed. 0 notifies on every congested
	// packet. Range 0..BECNMaxInterval. The survey does not say how
	// often a congested switch sends BECN cells; presets: 50 µs (see
	// BECNSurvey).
	MinInterval units.Time
	// TableBits (BECNModeBECN only) sizes the per-flow pacing table: 2^TableBits
	// slots, each holding a flow ID and the time of its last
	// notification, indexed by a multiplicative hash of the flow ID (see
	// BECN). Range 0..BECNMaxTableBits; presets 10 (1024 flows). BECNModeFECN
	// keeps no table.
	TableBits uint8
}

// Validate checks every field and returns a *cc.ConfigError naming the
// first one out of range.
func (c BECNConfig) Validate() error {
	switch {
	case c.Mode > BECNModeFECN:
		return becnConfigErr("Mode", c.Mode.String(), "becn or fecn")
	case c.Threshold < 0 || c.Threshold > BECNMaxThreshold:
		return becnConfigErr("Threshold", c.Threshold.String(), "0B.."+BECNMaxThreshold.String())
	case c.At > BECNAtDequeue:
		return becnConfigErr("At", c.At.String(), "enqueue or dequeue")
	case c.MinInterval < 0 || c.MinInterval > BECNMaxInterval:
		return becnConfigErr("MinInterval", c.MinInterval.String(), "0s.."+BECNMaxInterval.String())
	case c.TableBits > BECNMaxTableBits:
		return becnConfigErr("TableBits", strconv.Itoa(int(c.TableBits)), "0.."+strconv.Itoa(BECNMaxTableBits))
	}
	return nil
}

// BECNState is every counter register of a congestion point (the time is
// BECN.Last; the table is summarised by Slots and Takeovers).
type BECNState struct {
	// Packets counts the packets judged (at the configured point), Over
	// those that found the queue above the threshold, Signals the
	// notifications sent (BECNModeBECN) or packets marked (BECNModeFECN),
	// Suppressed the congested packets that sent nothing because their
	// flow was notified less than MinInterval before (BECNModeBECN). 64-bit,
	// wrapping.
	Packets, Over, Signals, Suppressed uint64
	// Slots is how many table slots hold a flow (BECNModeBECN), 0..2^16.
	Slots uint32
	// Takeovers counts notifications whose flow found its slot held by
	// another flow and took it over (64-bit, wrapping).
	Takeovers uint64
}

// BECN is the congestion point of BECN and FECN ([Survey] §4.1.1 and
// §4.1.2; [BECN]; [FECN]): one egress queue
// with one byte threshold. A packet is congested when the queue it sees
// at the judging point (BECNConfig.At) exceeds the threshold:
//
//	congested ⇔ q > Threshold
//
// BECNModeBECN. A congested packet makes the switch send its source a one-bit
// notification (Newman, "Backward explicit congestion notification for
// ATM local area networks", GLOBECOM 1993; the survey's "BECN cells"): one
// cc.ActionFeedback to cc.ToSource at cc.ControlPrio carrying
// cc.Feedback{Kind: FeedbackBECN, Flow: p.Flow}, at most one per flow per
// MinInterval. The pacing is per flow, in a table of 2^TableBits slots:
//
//	slot = (flow · 0x9E3779B1 mod 2^32) >> (32 − TableBits)
//
// (Fibonacci hashing: the top TableBits bits of the 32-bit product; 0 bits
// is one slot). A slot holds one flow ID and the time of its last
// notification. A congested packet notifies when its slot is free, holds
// another flow, or holds its flow notified at least MinInterval ago
// (now − last ≥ MinInterval); the notification writes the slot. So two
// flows that share a slot take it from each other and each is notified
// as if unpaced: a collision sends extra notifications, never silences a
// flow that contributes to the congestion. Slots are never emptied: a slot
// changes hands when another flow takes it (Takeovers counts it).
//
// BECNModeFECN. A congested packet is marked (cc.ActionMarkCE: the ATM EFCI
// bit, InfiniBand's BTH FECN bit, IP's CE codepoint), every congested
// packet, and forwarded; the destination's NP answers it. MinInterval and
// the table are not used (InfiniBand switches pace marks with their
// Marking_Rate, a mean count of packets between marks, IBA Vol. 1 annex
// A10's SwitchCongestionSetting; hwcc marks every congested packet and
// paces at the NP).
//
// Events. Enqueue and Dequeue judge p at the configured point and append
// what they decide; at the other point they record the time only. An
// event whose decision does not fit act fails with *cc.ActionsFullError
// and changes nothing (a packet that decides nothing needs no room). A
// nil packet, a negative queue length or a negative packet size or
// payload is a *cc.EventError; so is a nil act at the judging point,
// whose event can decide (cc.ErrNoActions, whether or not this packet is
// congested; the other point's event and Timer take a nil act); a now
// before the latest event's is a *cc.TimeOrderError; none changes
// anything. No timer: NextDeadline is units.MaxTime.
//
// Registers (AppendRegisters): now, packets, over, signals, suppressed,
// slots, takeovers.
//
// It is not safe for concurrent use. The zero value is not usable; build
// one with NewBECN.
type BECN struct {
	cfg   BECNConfig
	clock cc.Monotonic
	st    BECNState
	table flowPacer
	shift uint8
}

var _ cc.CongestionPoint = (*BECN)(nil)

// NewBECN validates cfg and returns a congestion point with an empty table.
func NewBECN(cfg BECNConfig) (*BECN, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	c := &BECN{cfg: cfg, shift: 32 - cfg.TableBits}
	if cfg.Mode == BECNModeBECN {
		c.table = newFlowPacer(cfg.TableBits)
	}
	return c, nil
}

// BECNSurvey returns the congestion point of the survey's scheme in mode m
// on a port of rate link. The survey gives no number; each is hwcc's
// choice, taken from DCQCN as hwcc presets it (its nearest relative, with
// the values the survey itself states for it):
//
//   - Threshold 100 KB per 25 Gb/s of link (link/250 000 bytes, rounded
//     down): DCQCN's Kmin, the queue where its marking starts
//     (docs/derivations.md, DCQCN presets: Kmin = 100 KB per 25
//     Gb/s). A link so fast that it passes BECNMaxThreshold gives a value that
//     Validate refuses.
//   - At BECNAtEnqueue.
//   - MinInterval 50 µs: DCQCN's CNP slot N ("N microseconds, usually
//     50µs", survey section 4.1.2), the spacing of a congested flow's
//     notifications; rp.BECNConfig.QuietPeriod is 55 µs, DCQCN's K, which the
//     survey says "must be larger than the CNP generating time slot", so
//     that the notifications of a persistently congested flow come in a
//     row.
//   - TableBits 10: 1024 flows per port.
func BECNSurvey(m BECNMode, link units.Rate) BECNConfig {
	const perBps = 250_000 // 25 Gb/s / 100 KB
	return BECNConfig{
		Mode:        m,
		Threshold:   units.Bytes(max(link, 0) / perBps),
		At:          BECNAtEnqueue,
		MinInterval: BECNSurveyInterval,
		TableBits:   10,
	}
}

// BECNSurveyInterval is the presets' notification spacing, at the CP (BECN)
// and at the NP (FECN): 50 µs, DCQCN's N (survey section 4.1.2).
const BECNSurveyInterval = 50 * units.Microsecond

// Config returns the configuration c was built with.
func (c *BECN) Config() BECNConfig { return c.cfg }

// State returns the counter registers, each in its snapshot's unit.
func (c *BECN) State() BECNState { return c.st }

// Last returns the time of the latest accepted event (0 before any): the
// register now.
func (c *BECN) Last() units.Time { return c.clock.Last() }

// Slot returns the table slot of flow, 0..2^TableBits − 1 (0 in
// BECNModeFECN, which has no table): a function of the configuration, not
// a register.
func (c *BECN) Slot(flow cc.FlowID) int { return c.table.slot(flow) }

// Event names, as errors name them.
const (
	becnEnqueue = "Enqueue"
	becnDequeue = "Dequeue"
)

// queue is Enqueue and Dequeue: one code path.
func (c *BECN) queue(now units.Time, p *cc.Packet, q cc.Queue, act *cc.Actions, at BECNPoint) error {
	if !c.clock.InOrder(now) || cc.BadPacket(p) || q.Len < 0 {
		return c.refuse(now, p, q, at)
	}
	if at != c.cfg.At {
		c.clock.Advance(now)
		return nil
	}
	if act == nil {
		return becnNoActions(at.event())
	}
	if q.Len <= c.cfg.Threshold {
		c.clock.Advance(now)
		c.st.Packets++
		return nil
	}
	if c.cfg.Mode == BECNModeFECN {
		if act.Free() < 1 {
			return becnFull(at.event(), act)
		}
		c.clock.Advance(now)
		c.st.Packets++
		c.st.Over++
		c.st.Signals++
		act.MarkCE()
		return nil
	}
	notify := c.table.due(p.Flow, now, c.cfg.MinInterval)
	if notify && act.Free() < 1 {
		return becnFull(at.event(), act)
	}
	c.clock.Advance(now)
	c.st.Packets++
	c.st.Over++
	if !notify {
		c.st.Suppressed++
		return nil
	}
	switch fresh, took := c.table.note(p.Flow, now); {
	case fresh:
		c.st.Slots++
	case took:
		c.st.Takeovers++
	}
	c.st.Signals++
	act.Send(cc.ToSource, cc.ControlPrio, wire.BECNNotification(p.Flow))
	return nil
}

// event is the method a judging point's events come through.
func (p BECNPoint) event() string {
	if p == BECNAtDequeue {
		return becnDequeue
	}
	return becnEnqueue
}

// refuse returns the error of a queue event that queue refuses: the
// time, a nil packet, a negative queue length, then the packet's sizes.
//
//go:noinline
func (c *BECN) refuse(now units.Time, p *cc.Packet, q cc.Queue, at BECNPoint) error {
	ev := at.event()
	if c.clock.InOrder(now) && p != nil && q.Len < 0 {
		return negativeQueue(becnPart, ev, q.Len)
	}
	if err := c.clock.Check(becnPart, ev, now); err != nil {
		return err
	}
	return cc.PacketError(becnPart, ev, p)
}

// Enqueue implements cc.CongestionPoint: a packet joins the queue (q.Len
// counts it). Under BECNAtEnqueue it is judged (see BECN).
func (c *BECN) Enqueue(now units.Time, p *cc.Packet, q cc.Queue, act *cc.Actions) error {
	return c.queue(now, p, q, act, BECNAtEnqueue)
}

// Dequeue implements cc.CongestionPoint: a packet leaves the queue (q.Len
// is what it leaves behind). Under BECNAtDequeue it is judged (see BECN).
func (c *BECN) Dequeue(now units.Time, p *cc.Packet, q cc.Queue, act *cc.Actions) error {
	return c.queue(now, p, q, act, BECNAtDequeue)
}

// NextDeadline implements cc.Clock: units.MaxTime, the CP has no timer.
func (c *BECN) NextDeadline() units.Time { return units.MaxTime }

// Timer implements cc.Clock: it only records now.
func (c *BECN) Timer(now units.Time, _ *cc.Actions) error {
	return c.clock.Accept(becnPart, "Timer", now)
}

// AppendRegisters implements cc.Part: now (64-bit ps), packets, over,
// signals, suppressed (64-bit counters), slots (32 bits), takeovers (64),
// in that order.
func (c *BECN) AppendRegisters(dst []cc.Register) []cc.Register {
	return append(dst,
		c.clock.Register(),
		cc.Reg("packets", 64, c.st.Packets),
		cc.Reg("over", 64, c.st.Over),
		cc.Reg("signals", 64, c.st.Signals),
		cc.Reg("suppressed", 64, c.st.Suppressed),
		cc.Reg("slots", 32, uint64(c.st.Slots)),
		cc.Reg("takeovers", 64, c.st.Takeovers),
	)
}
