package cp

import (
	"errors"
	"math"
	"strconv"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/voq"
	"github.com/hwcc/hwcc/wire"
)

// HierCC's limits: each bounds one field of HierCCConfig (or of its
// FirstHop), where Validate checks it and package algos's registration
// reads it. The fields also take bounds from the registers they fill:
// voq.MaxKeys (Dests), voq.MaxSlots (VOQs), voq.MaxPacket (MTU),
// voq.MaxCreditLimit (C0), voq.MaxQueueLimit (QueueLimit, Q0, VLow,
// VHigh), wire.HierCCMaxCreditAmount (Delta) and wire.HierCCRateUnit to
// wire.HierCCMaxRate (the rates).
const (
	// HierCCMaxPorts is the most ports a ToR has.
	HierCCMaxPorts = 1024
	// HierCCMaxToRs is the most sender-side ToRs a receiver side keeps a
	// WRR entry for: every 12-bit identifier (wire.HierCCMaxToR + 1).
	HierCCMaxToRs = wire.HierCCMaxToR + 1
	// HierCCMaxStopFlows is the largest per-VOQ table of stopped flows.
	HierCCMaxStopFlows = 1024
	// HierCCMaxBurst bounds HierCCConfig.Burst (see there).
	HierCCMaxBurst = 64
	// HierCCMinPeriod and HierCCMaxPeriod bound RTTHop and Period (and
	// RTTHop/β when Period is 0): 1 ns..1 s.
	HierCCMinPeriod = units.Nanosecond
	HierCCMaxPeriod = units.Second
	// HierCCDefaultMTU is the largest frame a ToR's VOQs take unless told:
	// a jumbo frame of 9216 bytes with its preamble and gap, in the wire
	// bytes the harness counts.
	HierCCDefaultMTU = 9216 + 20
)

// HierCCPort is one port of a ToR, as its configuration knows it.
type HierCCPort struct {
	// Edge: the port faces a server (a host port), whose number is Host;
	// the other ports lead to the fabric (uplinks).
	Edge bool
	Host voq.Key
}

// HierCCConfig configures a HierCC ToR: the sender-side and receiver-side
// roles of one top-of-rack switch behind one switch point.
type HierCCConfig struct {
	// ToR is this ToR's identifier i (0..ToRs−1): written into the
	// headers it sends, and where the receiver-side ToRs send its credits
	// (cc.Env.SwitchID, the address cc.ToSwitch names).
	ToR uint16
	// Ports are the switch's ports in the caller's numbering, at most
	// HierCCMaxPorts. A switch with no edge port is no ToR: every event
	// only records its time.
	Ports []HierCCPort
	// Dests is N, the host numbers the VOQs are keyed by: hosts 0..Dests−1
	// (1..voq.MaxKeys). A packet from a local host to a host beyond it is
	// refused.
	Dests int
	// VOQs is the VOQ table's size, 1..min(Dests, voq.MaxSlots); 0 takes
	// Dests (one VOQ per destination, every one open at once: section
	// 3.1, "each ToR has at most N VOQs").
	VOQs int
	// ToRs is M: the receiver side keeps a WRR entry per sender-side ToR
	// 0..ToRs−1 at each edge port (1..HierCCMaxToRs).
	ToRs int
	// MTU is the largest frame, 1..voq.MaxPacket bytes, in the unit queues
	// are counted in (the harness: wire bytes).
	MTU units.Bytes
	// C0 is the credit every VOQ starts with and that the receiver side
	// assumes it had (section 5: 10 KB), 0..voq.MaxCreditLimit bytes.
	C0 units.Bytes
	// Delta is Δ, the bytes one credit lets a VOQ send (section 3.2:
	// 1 KB), 1..wire.HierCCMaxCreditAmount; each edge port sends one
	// credit per Δ bytes of its line time.
	Delta units.Bytes
	// QueueLimit is the most bytes one VOQ holds, MTU..voq.MaxQueueLimit;
	// 0 takes voq.MaxQueueLimit. An arrival beyond it is refused (the
	// caller drops it).
	QueueLimit units.Bytes
	// StopFlows is the size of each VOQ's table of the flows it stopped,
	// 1..HierCCMaxStopFlows (see HierCC, "Stop and resume").
	StopFlows int
	// StopOnArrival: while a VOQ is stopped, answer the first packet of
	// each flow not yet stopped with a stop, marked or not (hwcc's
	// default). Off: only marked packets are answered (the paper's
	// section 4 literally).
	StopOnArrival bool
	// Burst, 1..HierCCMaxBurst, is kept so that configurations and the
	// registry's "burst" setting stay valid; nothing reads it. It bounded
	// the credits one edge port sent for the ticks a late caller had
	// missed, dropping the rest; a late timer is now caught up whole, each
	// missed tick sending its credit as on time (see HierCC, "Timers").
	Burst int
	// FirstHop configures each VOQ's equation (1). Its LineRate is the
	// servers' link rate, which also paces each edge port's credits.
	FirstHop HierCCFirstHopConfig
}

// HierCCPaper returns the paper's ToR (sections 2.2, 3 and 5): ToR tor
// with ports, host numbers below dests, sender-side ToRs below tors,
// servers on links of rate line, frames up to mtu: C0 = 10 KB, Δ = 1 KB,
// the paper's first hop (HierCCPaperFirstHop), and hwcc's stop table (64
// flows per VOQ, StopOnArrival; Burst 4, which nothing reads).
func HierCCPaper(tor uint16, ports []HierCCPort, dests, tors int, line units.Rate, mtu units.Bytes) HierCCConfig {
	s := hierccPaperSender(tor, dests, line, mtu)
	r := hierccPaperReceiver(1, tors, line)
	return HierCCConfig{
		ToR: tor, Ports: ports, Dests: dests, ToRs: tors, MTU: mtu,
		C0: s.C0, Delta: r.Delta, StopFlows: s.StopFlows, StopOnArrival: s.StopOnArrival,
		Burst: 4, FirstHop: s.FirstHop,
	}
}

const hierccPart = "cp.HierCC"

// sender and receiver return the configurations of the two sides.
func (c HierCCConfig) sender() hierccSenderConfig {
	return hierccSenderConfig{ToR: c.ToR, Dests: c.Dests, VOQs: c.VOQs, MTU: c.MTU, C0: c.C0, QueueLimit: c.QueueLimit,
		StopFlows: c.StopFlows, StopOnArrival: c.StopOnArrival, FirstHop: c.FirstHop}
}

func (c HierCCConfig) receiver(edge int) hierccReceiverConfig {
	return hierccReceiverConfig{Ports: edge, ToRs: c.ToRs, Rate: c.FirstHop.LineRate, Delta: c.Delta, C0: c.C0}
}

// edges counts the edge ports.
func (c HierCCConfig) edges() int {
	n := 0
	for _, p := range c.Ports {
		if p.Edge {
			n++
		}
	}
	return n
}

// Validate reports the first field out of range as a *cc.ConfigError: the
// ports, then (for a switch with an edge port) the two sides' fields.
func (c HierCCConfig) Validate() error {
	if len(c.Ports) > HierCCMaxPorts {
		return hierccCfgErr(hierccPart, "Ports", strconv.Itoa(len(c.Ports))+" ports", "0.."+strconv.Itoa(HierCCMaxPorts))
	}
	edge := c.edges()
	if edge == 0 {
		return nil
	}
	for i, p := range c.Ports {
		if p.Edge && (c.Dests < 1 || uint64(p.Host) >= uint64(c.Dests)) {
			return hierccCfgErr(hierccPart, "Ports["+strconv.Itoa(i)+"].Host", strconv.FormatUint(uint64(p.Host), 10), "0..Dests−1")
		}
	}
	if int(c.ToR) >= c.ToRs && c.ToRs >= 1 {
		return hierccCfgErr(hierccPart, "ToR", strconv.Itoa(int(c.ToR)), "0..ToRs−1")
	}
	if c.Burst < 1 || c.Burst > HierCCMaxBurst {
		return hierccCfgErr(hierccPart, "Burst", strconv.Itoa(c.Burst), "1.."+strconv.Itoa(HierCCMaxBurst))
	}
	if err := c.sender().Validate(); err != nil {
		return err
	}
	return c.receiver(edge).Validate()
}

// Sentinels of HierCC's refusals, each wrapped in a *cc.EventError.
var (
	// ErrHierCCNotToR: a credit packet for a switch with no edge port.
	ErrHierCCNotToR = errors.New("hiercc: credit for a switch that is no ToR")
	// ErrHierCCSplitVOQ: the packets of one VOQ leave by two uplinks. A
	// VOQ is one queue toward the fabric; a caller that spreads one
	// destination's traffic over several uplinks (ECMP by flow) must
	// route it by destination (the harness's switch.ecmp destination).
	ErrHierCCSplitVOQ = errors.New("hiercc: one VOQ's packets leave by two ports")
	// ErrHierCCHeader: a data packet toward a server carries a header
	// that does not decode, or one from a server of the ToR carries a
	// host's header (version 0) that does not.
	ErrHierCCHeader = errors.New("hiercc: malformed header")
	// ErrHierCCWrongToR: a credit packet for another ToR.
	ErrHierCCWrongToR = errors.New("hiercc: credit for another ToR")
	// ErrHierCCNoVOQ: a credit, a flow end or a dequeue for a VOQ that
	// is not open.
	ErrHierCCNoVOQ = errors.New("hiercc: no such VOQ")
	// ErrHierCCPort: a port outside the switch, or a packet toward a
	// host that the port does not lead to.
	ErrHierCCPort = errors.New("hiercc: wrong output port")
)

// HierCC is the switch point of HierCC ([HierCC] §3 and §4): one
// top-of-rack switch, sender-side and receiver-side ToR at once ("each
// ToR switch has VOQs at the sender side and downstream output queues to
// servers at the receiver side", section 3.1). It implements
// cc.SwitchPoint and is registered as algorithm "hiercc" part "sw"
// (package algos); rp.HierCC is the host it talks to, package wire holds
// the header, host header, credit and rate packets.
//
// # Which packets are whose
//
// Ports are edge ports (toward a server, HierCCPort.Edge) or uplinks.
// Every data packet whose source is one of this ToR's servers is VOQ
// traffic of the sender side, whatever its destination: section 3.1 gives
// ToR i a VOQ i.j for every server j of the network, its own rack's
// included ("ToR 1 has VOQ1.1-VOQ1.8"). Such a packet to a server of this
// rack leaves its VOQ by that server's edge port, and this ToR's receiver
// side takes its header there, on Dequeue, and credits the VOQ as it
// credits other ToRs' (its own WRR entry), without a credit packet. A
// packet from elsewhere that joins an edge port with another ToR's header
// is traffic of the receiver side; the rest (transit, none at a ToR of a
// Clos) changes nothing.
//
// # Events
//
//	Enqueue, from a   the packet joins VOQ j (its destination); the host's
//	server here       flags read from p.Hdr (wire.DecodeHierCCHostHeader):
//	                  its mark answered with a rate packet to the flow's
//	                  source (ActionFeedback ToSource,
//	                  wire.FeedbackHierCCRate); a first packet counts a
//	                  flow (F_ij += 1); the packet that opens a VOQ grants
//	                  it C0 (ActionCredit); above V_high the VOQ stops
//	Dequeue, from a   the header (this ToR, j, F_ij, S_ij, the mark)
//	server here       written into p.Hdr (wire.HierCCHeader); the packet's
//	                  size spent in credit; a stopped VOQ's resume sends
//	                  its rate packets; a last packet ends its flow; at an
//	                  edge port, the receiver side reads the header
//	Enqueue, edge,    the receiver side reads the packet's header: S_ij
//	from elsewhere    and F_ij of VOQ i.j in the port's WRR
//	Message           a wire.FeedbackHierCCCredit (wire.HierCCCreditPacket
//	                  in Data) for a VOQ of this ToR: its balance, and
//	                  ActionCredit of its amount to the VOQ (the uplink it
//	                  leaves by, its destination host): the caller's
//	                  scheduler holds the packets and serves a VOQ while
//	                  its balance is positive, as the ToR's accounting does
//	Timer             equation (1) for every open VOQ every RTT_hop/β, and
//	                  the credits of every edge port whose tick is due,
//	                  each sent to its ToR (ActionFeedback ToSwitch,
//	                  wire.FeedbackHierCCCredit) or, for a VOQ of this ToR,
//	                  taken as Message takes one
//	Arrive, Pause     record the time
//
// The caller's VOQ scheduler and the ToR's accounting are two copies of
// one state: the caller keeps the packets, the ToR the registers. They
// agree as long as the caller starts every VOQ with no credit, credits it
// exactly as the ToR's ActionCredit says (C0 when the VOQ opens, then each
// credit packet's amount), counts the same bytes (the frame sizes the ToR
// sees) and serves a VOQ only while its balance is positive; a Dequeue the
// ToR finds ineligible is refused with voq.ErrNotEligible, which is how a
// caller learns that it does not.
//
// # Stop and resume
//
// Above V_high a VOQ advertises R = 0 (a wire.HierCCRatePacket with Stop).
// A stopped flow sends nothing, so it marks nothing and would never learn
// the resume by answer; the ToR therefore remembers the flows it stopped,
// in a table of StopFlows entries per VOQ, and on the Dequeue that takes
// the VOQ below V_low sends each of them the frozen rate (section 3.3:
// "the previous rate value before stopping the source will be sent to the
// senders"). The paper does not say how the ToR knows them; the table is
// hwcc's. A flow that does not fit the full table is not stopped (it gets
// no answer while the VOQ is stopped; the stop_overflow register counts
// them), so that no flow is stopped forever. With StopOnArrival the first
// packet of every flow not yet stopped is answered with a stop at once,
// marked or not: a host marks only every 10 µs, five RTT_hop, and the
// VOQ's bound needs every source stopped within one RTT_hop. With hosts
// that apply a rate packet as it arrives, no stop-table overflow, H hosts
// on links of rate L and n flows, a VOQ holds at most V_high +
// H·L·RTT_hop + (n + H)·MTU (a test checks it in a closed loop).
//
// # Choices the paper leaves open
//
//   - F_ij is counted from the packets: a flow starts with the packet
//     its host flags wire.HierCCFlagFirst and ends when the packet flagged
//     wire.HierCCFlagLast leaves the VOQ (RoCEv2's FIRST and LAST opcodes
//     carry the same; section 4 keeps "no flow table" at the ToR, and
//     neither does this). The count saturates: a first packet beyond
//     65535 flows, or a last packet with no flow counted (its first was
//     lost), changes nothing but FlowsSaturated.
//   - Credits are addressed to the sender-side ToR by its identifier,
//     which the header carries; each credit goes to the uplink the VOQ's
//     packets leave by, learnt from its first packet; a VOQ whose packets
//     take another uplink is refused (ErrHierCCSplitVOQ).
//   - A header at an edge port from this ToR itself is ignored, as is a
//     host's header (version 0: a packet no ToR stamped, an all-zero Hdr
//     included); one that does not decode is refused (ErrHierCCHeader
//     wrapping the *cc.DecodeError).
//   - A packet from a server of this ToR carries the host's flags in a
//     host's header (wire.HierCCHostHeader, version 0), read on Enqueue
//     and again on Dequeue before the ToR's header replaces it; one that
//     does not decode is refused (ErrHierCCHeader wrapping the
//     *cc.DecodeError). A Hdr with a version (another switch's header,
//     which no packet from this rack's servers carries in a fabric of
//     HierCC ToRs) is not the host's: the packet is taken as flagging
//     nothing, and its Hdr is replaced on Dequeue.
//   - VOQs are opened by a packet, and never closed: a closed VOQ would
//     drop its S_ij, which the receiver tracks. Size the table (VOQs) for
//     the destinations.
//   - Every marked packet is answered with the rate in force (R(t) of the
//     last update, 0 while stopped).
//   - A credit's total (C_ij) is not checked: a jump past amount counts
//     the missing bytes in the credit_gap register (lost credits) and
//     nothing else.
//   - The first hop's choices (equation (1)'s first case, R_arrive = 0,
//     a stopped VOQ's R) are HierCCFirstHopConfig's; the receiver side's
//     credit pacing is in "Credits".
//   - A message of another kind than a credit is not used: it is counted
//     in cc.UnusedRegister and changes nothing else (rule 8).
//
// # Credits
//
// Each edge port ticks every Δ bytes of its line time (320 ns for 1 KB at
// 25 Gb/s) and sends a credit of Δ to the VOQ its WRR picks (weight
// F_ij/Σ_i F_ij, only while C_ij < S_ij: credit.WRR), so that the credits
// add up to the port's line rate in the bytes the sender's VOQ spends. A
// tick with no eligible VOQ is not kept; a port with none stops ticking
// and, when an arrival makes a VOQ eligible again, ticks at once if an
// interval has passed since its last credit. The paper does not say how
// credits are paced; it also does not say whether traffic that bypasses
// the VOQs (intra-rack, control) takes from the credited rate: here it
// does not. The grant rule keeps C_ij ≤ S_ij + Δ − 1 at every instant, so
// a VOQ's balance C0 + C_ij − S_ij stays below C0 + Δ.
//
// # Timers
//
// The two sides' deadlines are one timer (NextDeadline, the earlier):
// the sender side's updates of equation (1) every T = RTT_hop/β for all
// VOQs at once, and each edge port's credit ticks. Every event first runs
// each expiry due at or before its now, in time order and each as at its
// own deadline (the contract's rule 4; at equal times the updates go
// first, then the ports in index order), then itself: a caller that
// leaves the timer to its next event gets the same credits, rates and
// registers as one that calls Timer at every deadline. A run of updates
// with no credit of this ToR's own between them is counted in closed
// form; the credits are all sent, one per tick while the port's WRR owes
// one (credit.WRR.Owed), so an event's catch-up is bounded by the credits
// due, not by how late it is. Every event therefore refuses a nil
// *cc.Actions (rule 3), and one whose catch-up and own decisions do not
// fit is refused whole (*cc.ActionsFullError). A port whose VOQ becomes
// eligible at an event ticks at once if an interval has passed since its
// last credit: the event sends that credit too, after its own decisions,
// so that after every event NextDeadline is later than its now.
//
// Refused events change nothing (the contract's rule 2): an event's own
// checks (its VOQ's balance among them, with the credits the catch-up
// would grant it) come before its catch-up. Nothing allocates after
// NewHierCC except errors.
type HierCC struct {
	cfg   HierCCConfig
	clock cc.Monotonic
	s     *hierccSender
	r     *hierccReceiver
	rport []int16 // per port: its receiver port, −1 for an uplink
	local []bool  // per host number: a server of this ToR
	eport []int16 // per host number: the receiver port toward it, −1 none
	up    []int32 // per VOQ slot: the uplink its packets leave by, −1 unknown
	// Scratch for the two sides' outputs.
	rates   []wire.HierCCRatePacket
	credits []wire.HierCCCreditPacket
	// Counters (64 bits, wrapping).
	saturated, refused uint64
	unused             cc.Unused
	regs               regMap // the names of AppendRegisters' registers
}

var _ cc.SwitchPoint = (*HierCC)(nil)

// NewHierCC validates cfg and returns a ToR with its VOQs closed and its
// credit tables empty.
func NewHierCC(cfg HierCCConfig) (*HierCC, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.Ports = append([]HierCCPort(nil), cfg.Ports...)
	t := &HierCC{cfg: cfg, rport: make([]int16, len(cfg.Ports))}
	edge := cfg.edges()
	if edge == 0 {
		t.regs = t.regs.add("", t.appendRegisters(nil))
		return t, nil
	}
	var err error
	if t.s, err = newHierCCSender(cfg.sender()); err != nil {
		return nil, err
	}
	if t.r, err = newHierCCReceiver(cfg.receiver(edge)); err != nil {
		return nil, err
	}
	t.local = make([]bool, cfg.Dests)
	t.eport = make([]int16, cfg.Dests)
	for i := range t.eport {
		t.eport[i] = -1
	}
	k := int16(0)
	for i, p := range cfg.Ports {
		t.rport[i] = -1
		if p.Edge {
			t.rport[i], k = k, k+1
			t.local[p.Host] = true
			if t.eport[p.Host] < 0 {
				t.eport[p.Host] = t.rport[i]
			}
		}
	}
	t.up = make([]int32, t.s.VOQs().Config().Slots)
	for i := range t.up {
		t.up[i] = -1
	}
	t.rates = make([]wire.HierCCRatePacket, 0, t.s.MaxRatePackets())
	t.credits = make([]wire.HierCCCreditPacket, 0, t.r.MaxCreditPackets())
	t.regs = t.registerMap()
	return t, nil
}

// registerMap names the ToR's registers: its own, the sender side's after
// "tx.", the receiver side's after "rx.", each edge port's block after
// "rx.port<i>." with i the switch port.
func (t *HierCC) registerMap() regMap {
	m := regMap(nil).add("", t.appendOwn(nil))
	m = m.add("tx.", t.s.AppendRegisters(nil)[1:]) // without its now
	rs := t.r.AppendRegisters(nil)[1:]
	per := (len(rs) - hierccReceiverSummary) / len(t.r.wrr)
	m = m.add("rx.", rs[:hierccReceiverSummary])
	for i, k := range t.rport {
		if k >= 0 {
			at := hierccReceiverSummary + int(k)*per
			m = m.add("rx."+portPrefix(i), rs[at:at+per])
		}
	}
	return m
}

// Config returns the configuration.
func (t *HierCC) Config() HierCCConfig { return t.cfg }

// FlowsSaturated returns the register flows_saturated: the first and last
// packets the flow count did not take (see HierCC), a count (64 bits,
// wrapping).
func (t *HierCC) FlowsSaturated() uint64 { return t.saturated }

// CreditsRefused returns the register credits_refused: the credits of
// this ToR's receiver side for its own VOQs that its sender side refused
// (a balance at its limit), a count (64 bits, wrapping).
func (t *HierCC) CreditsRefused() uint64 { return t.refused }

// NextDeadline is the earlier of the two sides' deadlines: the sender
// side's next update of equation (1), the receiver side's next credit.
func (t *HierCC) NextDeadline() units.Time {
	if t.s == nil {
		return units.MaxTime
	}
	return min(t.s.NextDeadline(), t.r.NextDeadline())
}

//go:noinline
func hierccEvErr(event, reason string, err error) error {
	return &cc.EventError{Part: hierccPart, Event: event, Reason: reason, Err: err}
}

// check refuses an event out of time order, with a nil act (rule 3: the
// timer's catch-up can decide at any event), on a port outside the switch
// (lo: the lowest port the event takes), or with a nil packet (p is
// nil-checked when need is set).
func (t *HierCC) check(event string, now units.Time, port, lo int, p *cc.Packet, need bool, act *cc.Actions) error {
	if !t.clock.InOrder(now) {
		return t.clock.Check(hierccPart, event, now)
	}
	if act == nil {
		return cc.NoActions(hierccPart, event)
	}
	if port < lo || port >= len(t.cfg.Ports) {
		return hierccEvErr(event, "port "+strconv.Itoa(port)+" outside "+strconv.Itoa(lo)+".."+strconv.Itoa(len(t.cfg.Ports)-1), ErrHierCCPort)
	}
	if need && p == nil {
		return hierccEvErr(event, "nil packet", nil)
	}
	return nil
}

// hierccMaxCatchUp bounds the credits one event sends for a timer left
// overdue: a caller later than that gets an *cc.ActionsFullError asking
// for more room than any Actions has, rather than a count that overflows.
const hierccMaxCatchUp = 1 << 20

// reserve makes room for the credits the expiries due at or before now
// send and for own more decisions of the event's own, before a catch-up
// (overdue). The event's own checks come first: once it reserved, nothing
// refuses it.
func (t *HierCC) reserve(event string, now units.Time, own int, act *cc.Actions) error {
	now = hierccHorizon(now)
	if t.r.next > now {
		return act.Reserve(hierccPart, event, own)
	}
	if now-t.r.next < t.r.interval && own+len(t.r.wrr) <= act.Free() {
		return nil // on time: at most one tick due a port
	}
	return act.Reserve(hierccPart, event, own+t.r.due(now))
}

// overdue reports whether an expiry of either side is due at or before
// now: the check every event makes before it calls catchUp.
func (t *HierCC) overdue(now units.Time) bool {
	now = hierccHorizon(now)
	return t.s != nil && (t.s.deadline <= now || t.r.next <= now)
}

// hierccHorizon returns the latest deadline an event at now runs: now,
// except that a deadline of units.MaxTime is no timer (cc rule 4), never
// due, so an event at units.MaxTime runs those before it. (A deadline
// that saturates at units.MaxTime stops there.)
func hierccHorizon(now units.Time) units.Time { return min(now, units.MaxTime-1) }

// catchUp runs every expiry of the two sides due at or before now, in
// time order and each as at its own deadline (the contract's rule 4): the
// sender side's updates of equation (1), a run of them with no credit
// between in one step (hierccSender.expire), and the receiver side's
// credit ticks, each credit sent to its ToR or, for a VOQ of this ToR,
// taken at once; at equal times the updates go first, as Timer at that
// deadline would run them. The caller reserved the room (reserve).
func (t *HierCC) catchUp(now units.Time, act *cc.Actions) {
	now = hierccHorizon(now)
	for {
		ds, dr := t.s.deadline, t.r.next
		switch {
		case ds <= dr && ds <= now:
			// Every update of the grid up to the next credit tick (or now).
			t.s.expire(uint64(min(now, dr)-ds)/uint64(t.s.k.period) + 1)
		case dr <= now:
			for _, c := range t.r.expire(dr, t.credits[:0]) {
				if c.ToR == t.cfg.ToR {
					t.credit(dr, c, act) // a VOQ of this ToR: no packet needed
					continue
				}
				f := cc.Feedback{Kind: wire.FeedbackHierCCCredit}
				_ = c.Put(&f.Data) // valid: a ToR in range, an amount of Δ
				act.SendSwitch(c.ToR, cc.ControlPrio, f)
			}
		default:
			return
		}
	}
}

// credit takes credit packet c, due at d, for a VOQ of this ToR and
// grants its amount to the caller's VOQ; a refused credit (its VOQ not
// open, a balance at its limit) changes nothing and is counted in
// CreditsRefused.
func (t *HierCC) credit(d units.Time, c wire.HierCCCreditPacket, act *cc.Actions) {
	if t.s.Credit(d, c) != nil {
		t.refused++
		return
	}
	slot, _ := t.s.Lookup(c.Dst) // open: Credit took it
	act.Credit(uint16(t.up[slot]), cc.NodeID(c.Dst), units.Bytes(c.Amount))
}

// localCredit returns the credit the expiries due at or before now grant
// VOQ dst of this ToR from its own receiver side (dst a host of this
// rack), without granting it.
func (t *HierCC) localCredit(now units.Time, dst voq.Key) units.Bytes {
	if uint64(dst) >= uint64(len(t.eport)) || t.eport[dst] < 0 {
		return 0
	}
	return units.Bytes(t.r.grantsTo(int(t.eport[dst]), int(t.cfg.ToR), now)) * t.cfg.Delta
}

// sending reports whether p is VOQ traffic: from a server of this ToR.
func (t *HierCC) sending(p *cc.Packet) bool {
	return t.s != nil && uint64(p.Src) < uint64(len(t.local)) && t.local[p.Src]
}

// hierccHostFlagsOf reads the host's flags from the header of p, a packet
// from a server of this ToR: a host's header decoded (ErrHierCCHeader when
// it does not decode), or none when Hdr has a version (see HierCC).
func hierccHostFlagsOf(event string, p *cc.Packet) (wire.HierCCFlags, error) {
	if !wire.IsHierCCHostHeader(&p.Hdr) {
		return 0, nil
	}
	f, err := wire.DecodeHierCCHostHeader(p.Hdr[:])
	if err != nil {
		return 0, hierccEvErr(event, "host header of the packet from host "+strconv.FormatUint(uint64(p.Src), 10), errors.Join(ErrHierCCHeader, err))
	}
	return f, nil
}

// hostAt refuses a packet to host dst at edge port out when out leads to
// another host.
func (t *HierCC) hostAt(event string, out int, dst cc.NodeID) error {
	if h := t.cfg.Ports[out].Host; uint64(h) != uint64(dst) {
		return hierccEvErr(event, "port "+strconv.Itoa(out)+" leads to host "+strconv.FormatUint(uint64(h), 10)+", not "+strconv.FormatUint(uint64(dst), 10), ErrHierCCPort)
	}
	return nil
}

// tick is an event that only catches the timers up and records the time.
func (t *HierCC) tick(event string, now units.Time, act *cc.Actions) error {
	if t.overdue(now) {
		if err := t.reserve(event, now, 0, act); err != nil {
			return err
		}
		t.catchUp(now, act)
	}
	t.clock.Advance(now)
	return nil
}

// Arrive catches the timers up and records the time: the ToR acts when
// the packet joins a queue.
func (t *HierCC) Arrive(now units.Time, in int, p *cc.Packet, act *cc.Actions) error {
	if err := t.check("Arrive", now, in, 0, p, true, act); err != nil {
		return err
	}
	return t.tick("Arrive", now, act)
}

// Pause catches the timers up and records the time: HierCC does not use
// PFC's state.
func (t *HierCC) Pause(now units.Time, out int, prio uint8, _ bool, act *cc.Actions) error {
	if err := t.check("Pause", now, out, 0, nil, false, act); err != nil {
		return err
	}
	if prio > 7 {
		return hierccEvErr("Pause", "priority "+strconv.Itoa(int(prio))+" outside 0..7", nil)
	}
	return t.tick("Pause", now, act)
}

// Enqueue takes a packet joining egress port out, after the expiries due
// by now: VOQ traffic into the sender side, a header at an edge port into
// the receiver side (see HierCC).
func (t *HierCC) Enqueue(now units.Time, out int, p *cc.Packet, _ cc.Queue, act *cc.Actions) error {
	if !t.clock.InOrder(now) || act == nil || uint(out) >= uint(len(t.cfg.Ports)) || p == nil {
		return t.check("Enqueue", now, out, 0, p, true, act)
	}
	if !t.sending(p) {
		if t.s != nil && t.rport[out] >= 0 {
			return t.receive(now, out, p, act)
		}
		return t.tick("Enqueue", now, act)
	}
	if p.Size < 1 || p.Size > math.MaxUint32 || uint64(p.Dst) >= uint64(t.cfg.Dests) {
		// The sender side refuses them too; checked here so that the key
		// below fits.
		return hierccEvErr("Enqueue", "packet of "+p.Size.String()+" to host "+strconv.FormatUint(uint64(p.Dst), 10)+": want 1..MTU bytes to a host below Dests", voq.ErrSize)
	}
	if t.rport[out] >= 0 {
		if err := t.hostAt("Enqueue", out, p.Dst); err != nil {
			return err
		}
	}
	dst := voq.Key(p.Dst)
	slot, open := t.s.Lookup(dst)
	if open && t.up[slot] >= 0 && int(t.up[slot]) != out {
		return hierccEvErr("Enqueue", "VOQ of host "+strconv.FormatUint(uint64(dst), 10)+" leaves by port "+strconv.Itoa(int(t.up[slot]))+", not "+strconv.Itoa(out), ErrHierCCSplitVOQ)
	}
	f, err := hierccHostFlagsOf("Enqueue", p)
	if err != nil {
		return err
	}
	a := hierccArrival{Flow: p.Flow, Dst: dst, Size: p.Size, Mark: f&wire.HierCCFlagMark != 0}
	// At most a rate packet and the new VOQ's C0.
	if t.overdue(now) {
		// Checked before the catch-up, which no refusal may follow.
		if err := t.s.checkArrive(now, a); err != nil {
			return err
		}
		if err := t.reserve("Enqueue", now, 2, act); err != nil {
			return err
		}
		t.catchUp(now, act)
	} else if err := act.Reserve(hierccPart, "Enqueue", 2); err != nil {
		return err
	}
	slot, rates, err := t.s.Arrive(now, a, t.rates[:0]) // refuses only with nothing done
	if err != nil {
		return err
	}
	t.clock.Advance(now)
	t.up[slot] = int32(out)
	if !open && t.cfg.C0 > 0 {
		// The VOQ's pre-credit (section 3.1: "each VOQ has an initial
		// amount of credits, denoted as C0"), granted to the caller's VOQ.
		act.Credit(uint16(out), p.Dst, t.cfg.C0)
	}
	if f&wire.HierCCFlagFirst != 0 {
		if st, _ := t.s.VOQs().State(slot); st.Flows == math.MaxUint16 {
			t.saturated++ // F_ij at its 16-bit limit
		} else {
			_ = t.s.FlowStart(now, dst) // open, in order, below the limit
		}
	}
	t.sendRates(rates, act)
	return nil
}

// receive takes a packet from elsewhere joining edge port out.
func (t *HierCC) receive(now units.Time, out int, p *cc.Packet, act *cc.Actions) error {
	if wire.IsHierCCHostHeader(&p.Hdr) { // no ToR's header: none, or a host's
		if _, err := wire.DecodeHierCCHostHeader(p.Hdr[:]); err != nil {
			return hierccEvErr("Enqueue", "header of the packet to port "+strconv.Itoa(out), errors.Join(ErrHierCCHeader, err))
		}
		return t.tick("Enqueue", now, act)
	}
	h, err := wire.DecodeHierCCHeader(p.Hdr[:])
	if err != nil {
		return hierccEvErr("Enqueue", "header of the packet to port "+strconv.Itoa(out), errors.Join(ErrHierCCHeader, err))
	}
	if h.ToR == t.cfg.ToR {
		return t.tick("Enqueue", now, act)
	}
	if err := t.hostAt("Enqueue", out, cc.NodeID(h.Dst)); err != nil {
		return err
	}
	// The header may wake the port: its tick then falls due at once.
	if t.overdue(now) {
		// Checked before the catch-up, which no refusal may follow.
		if err := t.r.checkArrive(int(t.rport[out]), h); err != nil {
			return err
		}
		if err := t.reserve("Enqueue", now, 1, act); err != nil {
			return err
		}
		t.catchUp(now, act)
	} else if err := act.Reserve(hierccPart, "Enqueue", 1); err != nil {
		return err
	}
	if _, err := t.r.Arrive(now, int(t.rport[out]), h); err != nil {
		return err // refused with nothing done
	}
	t.clock.Advance(now)
	if t.overdue(now) {
		t.catchUp(now, act)
	}
	return nil
}

// sendRates appends a rate packet to each flow's source.
func (t *HierCC) sendRates(rates []wire.HierCCRatePacket, act *cc.Actions) {
	for _, r := range rates {
		f := cc.Feedback{Kind: wire.FeedbackHierCCRate, Flow: r.Flow}
		_ = r.Put(&f.Data) // valid: a rate, or a stop with none
		act.Send(cc.ToSource, cc.ControlPrio, f)
	}
}

// Dequeue takes a packet leaving egress port out, after the expiries due
// by now: VOQ traffic is stamped with the header and spends its size in
// credit (see HierCC).
func (t *HierCC) Dequeue(now units.Time, out int, p *cc.Packet, _ cc.Queue, act *cc.Actions) error {
	if !t.clock.InOrder(now) || act == nil || uint(out) >= uint(len(t.cfg.Ports)) || p == nil {
		return t.check("Dequeue", now, out, 0, p, true, act)
	}
	if !t.sending(p) {
		return t.tick("Dequeue", now, act)
	}
	local := t.rport[out] >= 0 // to a server of this ToR: its receiver side takes it at once
	if local {
		if err := t.hostAt("Dequeue", out, p.Dst); err != nil {
			return err
		}
	}
	dst := voq.Key(p.Dst)
	slot, ok := t.s.Lookup(dst)
	if !ok || uint64(p.Dst) >= uint64(t.cfg.Dests) {
		return hierccEvErr("Dequeue", "host "+strconv.FormatUint(uint64(p.Dst), 10)+" has no VOQ", ErrHierCCNoVOQ)
	}
	if int(t.up[slot]) != out {
		return hierccEvErr("Dequeue", "VOQ of host "+strconv.FormatUint(uint64(dst), 10)+" leaves by port "+strconv.Itoa(int(t.up[slot]))+", not "+strconv.Itoa(out), ErrHierCCSplitVOQ)
	}
	f, err := hierccHostFlagsOf("Dequeue", p)
	if err != nil {
		return err
	}
	own := t.s.StoppedFlows(slot) // the resume's rate packets
	if local {
		own++ // the header may wake its port: a credit at once
	}
	if t.overdue(now) {
		// Checked before the catch-up, which no refusal may follow: with
		// the balance the VOQ will have then, its own plus what this
		// ToR's receiver side grants it in the catch-up (a VOQ toward
		// this rack).
		var extra units.Bytes
		st, _ := t.s.m.State(slot) // open
		if st.Credit <= 0 {
			extra = t.localCredit(now, dst)
		}
		if err := t.s.checkDequeue(now, slot, st, p.Size, extra); err != nil {
			return err
		}
		if err := t.reserve("Dequeue", now, own, act); err != nil {
			return err
		}
		t.catchUp(now, act)
	} else if err := act.Reserve(hierccPart, "Dequeue", own); err != nil {
		return err
	}
	h, rates, err := t.s.Dequeue(now, slot, p.Size, t.rates[:0]) // refuses only with nothing done
	if err != nil {
		return err
	}
	t.clock.Advance(now)
	h.Mark = f&wire.HierCCFlagMark != 0
	_ = h.Put(&p.Hdr) // valid: the ToR's identifier is in range
	if local {
		_, _ = t.r.Arrive(now, int(t.rport[out]), h) // in order, this ToR, the port's host
	}
	if f&wire.HierCCFlagLast != 0 {
		if st, _ := t.s.VOQs().State(slot); st.Flows == 0 {
			t.saturated++ // no flow counted: its first packet was lost
		} else {
			_ = t.s.FlowEnd(now, dst)
		}
	}
	t.sendRates(rates, act)
	if local && t.overdue(now) {
		t.catchUp(now, act) // a tick the header woke, after this event's own decisions
	}
	return nil
}

// Message takes, after the expiries due by now, a credit packet for one
// of this ToR's VOQs (see HierCC); a message of another kind is not used:
// it is counted in cc.UnusedRegister (rule 8).
func (t *HierCC) Message(now units.Time, in int, f *cc.Feedback, act *cc.Actions) error {
	if !t.clock.InOrder(now) || act == nil || uint(in+1) > uint(len(t.cfg.Ports)) {
		return t.check("Message", now, in, -1, nil, false, act)
	}
	if f == nil {
		return hierccEvErr("Message", "nil feedback", nil)
	}
	if f.Kind != wire.FeedbackHierCCCredit {
		if err := t.tick("Message", now, act); err != nil {
			return err
		}
		t.unused.Count()
		return nil
	}
	if t.s == nil {
		return hierccEvErr("Message", "credit packet at a switch with no server port", ErrHierCCNotToR)
	}
	c, err := wire.DecodeHierCCCreditPacket(f.Data[:])
	if err != nil {
		return hierccEvErr("Message", "malformed credit packet", err)
	}
	if t.overdue(now) {
		// Checked before the catch-up, which no refusal may follow, with
		// the credit the catch-up grants the VOQ first.
		var extra units.Bytes
		if c.ToR == t.cfg.ToR {
			extra = t.localCredit(now, c.Dst)
		}
		if err := t.s.checkCredit(c, extra); err != nil {
			return err
		}
		if err := t.reserve("Message", now, 1, act); err != nil {
			return err
		}
		t.catchUp(now, act)
	} else if err := act.Reserve(hierccPart, "Message", 1); err != nil {
		return err
	}
	if err := t.s.Credit(now, c); err != nil { // refuses only with nothing done
		return err
	}
	t.clock.Advance(now)
	slot, _ := t.s.Lookup(c.Dst)
	act.Credit(uint16(t.up[slot]), cc.NodeID(c.Dst), units.Bytes(c.Amount))
	return nil
}

// Timer runs every expiry of the two sides due at or before now, in time
// order and each as at its own deadline: equation (1) for every VOQ every
// RTT_hop/β, and the credits of every edge port whose tick is due, each
// sent to its ToR or taken by this one's VOQ (see HierCC).
func (t *HierCC) Timer(now units.Time, act *cc.Actions) error {
	if !t.clock.InOrder(now) {
		return t.clock.Check(hierccPart, "Timer", now)
	}
	if act == nil {
		return cc.NoActions(hierccPart, "Timer")
	}
	return t.tick("Timer", now, act)
}

// AppendRegisters appends now (64), flows_saturated (64), credits_refused
// (64), unused_feedback (64, cc.UnusedRegister), and for a ToR with an
// edge port the sender side's registers, named after "tx.", and the
// receiver side's, named after "rx." (next, credits) and, per edge port i,
// after "rx.port<i>." (host, tick, the WRR's), each side without its own
// now.
func (t *HierCC) AppendRegisters(dst []cc.Register) []cc.Register {
	n := len(dst)
	dst = t.appendRegisters(dst)
	t.regs.apply(dst[n:])
	return dst
}

// appendOwn appends the ToR's own registers, before the two sides'.
func (t *HierCC) appendOwn(dst []cc.Register) []cc.Register {
	return append(dst, t.clock.Register(), cc.Reg("flows_saturated", 64, t.saturated), cc.Reg("credits_refused", 64, t.refused), t.unused.Register())
}

// appendRegisters appends the registers under the sides' own names.
func (t *HierCC) appendRegisters(dst []cc.Register) []cc.Register {
	dst = t.appendOwn(dst)
	if t.s == nil {
		return dst
	}
	n := len(dst)
	dst = t.s.AppendRegisters(dst)
	dst = append(dst[:n], dst[n+1:]...) // the sender's now
	n = len(dst)
	dst = t.r.AppendRegisters(dst)
	return append(dst[:n], dst[n+1:]...) // the receiver's now
}
