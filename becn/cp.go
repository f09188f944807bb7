package becn

import (
	"strconv"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
)

// cpPart names the congestion point in errors.
const cpPart = "becn.CP"

// CPConfig configures a congestion point.
type CPConfig struct {
	// Mode is ModeBECN (the zero value: notify the source from the
	// switch) or ModeFECN (mark the packet for the receiver to echo).
	Mode Mode
	// Threshold is the queue length, in bytes, above which a packet is
	// congested: a packet is judged congested when the queue it sees is
	// greater than Threshold (q = Threshold is not). A 32-bit register,
	// 0..MaxThreshold. The survey says only "a fixed threshold"; the
	// presets take DCQCN's Kmin (see SurveyCP).
	Threshold units.Bytes
	// At is where packets are judged: AtEnqueue (the zero value, the
	// default) or AtDequeue, in both modes. Events at the other point
	// only record their time.
	At Point
	// MinInterval (ModeBECN only) is the least time between two
	// notifications of one flow: a congested packet notifies its source
	// when its flow has not been notified for MinInterval (or ever),
	// else it is counted as suppressed. 0 notifies on every congested
	// packet. Range 0..MaxPeriod (0s..1s). The survey does not say how
	// often a congested switch sends BECN cells; presets: 50 µs (see
	// SurveyCP).
	MinInterval units.Time
	// TableBits (ModeBECN only) sizes the per-flow pacing table: 2^TableBits
	// slots, each holding a flow ID and the time of its last
	// notification, indexed by a multiplicative hash of the flow ID (see
	// CP). Range 0..MaxTableBits (0..16); presets 10 (1024 flows). ModeFECN
	// keeps no table.
	TableBits uint8
}

// Validate checks every field and returns a *cc.ConfigError naming the
// first one out of range.
func (c CPConfig) Validate() error {
	switch {
	case c.Mode > ModeFECN:
		return cfgErr(cpPart, "Mode", c.Mode.String(), "becn or fecn")
	case c.Threshold < 0 || c.Threshold > MaxThreshold:
		return cfgErr(cpPart, "Threshold", c.Threshold.String(), "0B.."+MaxThreshold.String())
	case c.At > AtDequeue:
		return cfgErr(cpPart, "At", c.At.String(), "enqueue or dequeue")
	case c.MinInterval < 0 || c.MinInterval > MaxPeriod:
		return cfgErr(cpPart, "MinInterval", c.MinInterval.String(), "0s.."+MaxPeriod.String())
	case c.TableBits > MaxTableBits:
		return cfgErr(cpPart, "TableBits", strconv.Itoa(int(c.TableBits)), "0.."+strconv.Itoa(MaxTableBits))
	}
	return nil
}

// CPState is every counter register of a congestion point (the time is
// CP.Last; the table is summarised by Slots and Takeovers).
type CPState struct {
	// Packets counts the packets judged (at the configured point), Over
	// those that found the queue above the threshold, Signals the
	// notifications sent (ModeBECN) or packets marked (ModeFECN),
	// Suppressed the congested packets that sent nothing because their
	// flow was notified less than MinInterval before (ModeBECN). 64-bit,
	// wrapping.
	Packets, Over, Signals, Suppressed uint64
	// Slots is how many table slots hold a flow (ModeBECN), 0..2^16.
	Slots uint32
	// Takeovers counts notifications whose flow found its slot held by
	// another flow and took it over (64-bit, wrapping).
	Takeovers uint64
}

// cpSlot is one entry of the pacing table.
type cpSlot struct {
	last units.Time // the flow's last notification
	flow cc.FlowID
	used bool
}

// CP is the congestion point of BECN and FECN ([Survey] §4.1.1 and
// §4.1.2; [BECN]; [FECN]): one egress queue
// with one byte threshold. A packet is congested when the queue it sees
// at the judging point (CPConfig.At) exceeds the threshold:
//
//	congested ⇔ q > Threshold
//
// ModeBECN. A congested packet makes the switch send its source a one-bit
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
// ModeFECN. A congested packet is marked (cc.ActionMarkCE: the ATM EFCI
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
// payload is a
// *cc.EventError; a now before the latest event's a *cc.TimeOrderError;
// neither changes anything. No timer: NextDeadline is units.MaxTime.
//
// Registers (AppendRegisters): now, packets, over, signals, suppressed,
// slots, takeovers.
//
// It is not safe for concurrent use. The zero value is not usable; build
// one with NewCP.
type CP struct {
	cfg   CPConfig
	clock cc.Monotonic
	st    CPState
	table []cpSlot
	shift uint8
}

var _ cc.CongestionPoint = (*CP)(nil)

// NewCP validates cfg and returns a congestion point with an empty table.
func NewCP(cfg CPConfig) (*CP, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	c := &CP{cfg: cfg, shift: 32 - cfg.TableBits}
	if cfg.Mode == ModeBECN {
		c.table = make([]cpSlot, 1<<cfg.TableBits)
	}
	return c, nil
}

// SurveyCP returns the congestion point of the survey's scheme in mode m
// on a port of rate link. The survey gives no number; each is hwcc's
// choice, taken from DCQCN as hwcc presets it (its nearest relative, with
// the values the survey itself states for it):
//
//   - Threshold 100 KB per 25 Gb/s of link (link/250 000 bytes, rounded
//     down): DCQCN's Kmin, the queue where its marking starts
//     (docs/derivations.md, DCQCN presets: Kmin = 100 KB per 25
//     Gb/s). A link so fast that it passes MaxThreshold gives a value that
//     Validate refuses.
//   - At AtEnqueue.
//   - MinInterval 50 µs: DCQCN's CNP slot N ("N microseconds, usually
//     50µs", survey section 4.1.2), the spacing of a congested flow's
//     notifications; RPConfig.QuietPeriod is 55 µs, DCQCN's K, which the
//     survey says "must be larger than the CNP generating time slot", so
//     that the notifications of a persistently congested flow come in a
//     row.
//   - TableBits 10: 1024 flows per port.
func SurveyCP(m Mode, link units.Rate) CPConfig {
	const perBps = 250_000 // 25 Gb/s / 100 KB
	return CPConfig{
		Mode:        m,
		Threshold:   units.Bytes(max(link, 0) / perBps),
		At:          AtEnqueue,
		MinInterval: SurveyInterval,
		TableBits:   10,
	}
}

// SurveyInterval is the presets' notification spacing, at the CP (BECN)
// and at the NP (FECN): 50 µs, DCQCN's N (survey section 4.1.2).
const SurveyInterval = 50 * units.Microsecond

// Config returns the configuration c was built with.
func (c *CP) Config() CPConfig { return c.cfg }

// State returns the counter registers.
func (c *CP) State() CPState { return c.st }

// Last returns the time of the latest accepted event (0 before any).
func (c *CP) Last() units.Time { return c.clock.Last() }

// Slot returns the table slot of flow (0 in ModeFECN, which has none).
func (c *CP) Slot(flow cc.FlowID) int {
	if c.table == nil {
		return 0
	}
	return int((uint32(flow) * 0x9E3779B1) >> c.shift)
}

// Event names, as errors name them.
const (
	cpEnqueue = "Enqueue"
	cpDequeue = "Dequeue"
)

// queue is Enqueue and Dequeue: one code path.
func (c *CP) queue(now units.Time, p *cc.Packet, q cc.Queue, act *cc.Actions, at Point) error {
	if !c.clock.InOrder(now) || p == nil || q.Len < 0 || p.Size < 0 || p.Payload < 0 {
		return c.refuse(now, p, q, at)
	}
	if at != c.cfg.At {
		c.clock.Advance(now)
		return nil
	}
	if q.Len <= c.cfg.Threshold {
		c.clock.Advance(now)
		c.st.Packets++
		return nil
	}
	if c.cfg.Mode == ModeFECN {
		if act.Free() < 1 {
			return fullErr(cpPart, at.event(), act)
		}
		c.clock.Advance(now)
		c.st.Packets++
		c.st.Over++
		c.st.Signals++
		act.MarkCE()
		return nil
	}
	e := &c.table[c.Slot(p.Flow)]
	mine := e.used && e.flow == p.Flow
	// At least MinInterval since the flow's last notification: now − last
	// ≥ MinInterval (exact: 0 ≤ last ≤ now).
	notify := !mine || now-e.last >= c.cfg.MinInterval
	if notify && act.Free() < 1 {
		return fullErr(cpPart, at.event(), act)
	}
	c.clock.Advance(now)
	c.st.Packets++
	c.st.Over++
	if !notify {
		c.st.Suppressed++
		return nil
	}
	switch {
	case !e.used:
		c.st.Slots++
	case !mine:
		c.st.Takeovers++
	}
	e.flow, e.used, e.last = p.Flow, true, now
	c.st.Signals++
	act.Send(cc.ToSource, cc.ControlPrio, notification(p.Flow))
	return nil
}

// event is the method a judging point's events come through.
func (p Point) event() string {
	if p == AtDequeue {
		return cpDequeue
	}
	return cpEnqueue
}

// refuse returns the error of a queue event that queue refuses: the
// time, a nil packet, a negative queue length, then the packet's sizes.
//
//go:noinline
func (c *CP) refuse(now units.Time, p *cc.Packet, q cc.Queue, at Point) error {
	ev := at.event()
	if c.clock.InOrder(now) && p != nil && q.Len < 0 {
		return eventErr(cpPart, ev, "queue length "+q.Len.String()+" is negative")
	}
	return refusePacket(&c.clock, cpPart, ev, now, p)
}

// Enqueue implements cc.CongestionPoint: a packet joins the queue (q.Len
// counts it). Under AtEnqueue it is judged (see CP).
func (c *CP) Enqueue(now units.Time, p *cc.Packet, q cc.Queue, act *cc.Actions) error {
	return c.queue(now, p, q, act, AtEnqueue)
}

// Dequeue implements cc.CongestionPoint: a packet leaves the queue (q.Len
// is what it leaves behind). Under AtDequeue it is judged (see CP).
func (c *CP) Dequeue(now units.Time, p *cc.Packet, q cc.Queue, act *cc.Actions) error {
	return c.queue(now, p, q, act, AtDequeue)
}

// NextDeadline implements cc.Clock: units.MaxTime, the CP has no timer.
func (c *CP) NextDeadline() units.Time { return units.MaxTime }

// Timer implements cc.Clock: it only records now.
func (c *CP) Timer(now units.Time, _ *cc.Actions) error {
	return c.clock.Accept(cpPart, "Timer", now)
}

// AppendRegisters implements cc.Part: now (64-bit ps), packets, over,
// signals, suppressed (64-bit counters), slots (32 bits), takeovers (64),
// in that order.
func (c *CP) AppendRegisters(dst []cc.Register) []cc.Register {
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
