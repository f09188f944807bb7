package cp

import (
	"math"
	"strconv"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/fixedpoint"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/voq"
	"github.com/hwcc/hwcc/wire"
)

// hierccSenderConfig configures a sender-side ToR.
type hierccSenderConfig struct {
	// ToR is this ToR's identifier i (0..wire.HierCCMaxToR), written into every
	// header and checked against every credit packet.
	ToR uint16
	// Dests is N, the destination hosts: VOQ keys 0..Dests−1
	// (1..voq.MaxKeys).
	Dests int
	// VOQs is the VOQ table's size, 1..Dests; 0 takes Dests (one VOQ per
	// destination, every one open at once: section 3.1, "each ToR has at
	// most N VOQs").
	VOQs int
	// MTU is the largest packet, 1..voq.MaxPacket bytes, in the unit the
	// caller counts queues in (the harness: wire bytes).
	MTU units.Bytes
	// C0 is the credit a VOQ starts with, 0..voq.MaxCreditLimit bytes
	// (section 5: 10 KB).
	C0 units.Bytes
	// QueueLimit is the most bytes one VOQ holds, MTU..voq.MaxQueueLimit;
	// 0 takes voq.MaxQueueLimit. An arrival beyond it is refused.
	QueueLimit units.Bytes
	// StopFlows is the size of each VOQ's table of the flows it stopped,
	// 1..HierCCMaxStopFlows (see HierCC, "Stop and resume").
	StopFlows int
	// StopOnArrival: while the VOQ is stopped, answer the first packet of
	// each flow not yet stopped with a stop, marked or not (hwcc's default;
	// see hierccSender). Off: only marked packets are answered (the paper's
	// section 4 literally).
	StopOnArrival bool
	// FirstHop configures each VOQ's equation (1).
	FirstHop HierCCFirstHopConfig
}

// hierccPaperSender returns the paper's sender-side ToR (sections 3 to 5): ToR
// tor, dests destination hosts with one VOQ each, C0 = 10 KB, packets up
// to mtu bytes, hosts on links of rate line (HierCCPaperFirstHop), 64 stopped
// flows per VOQ (hwcc's: the 16 servers per ToR of section 2.2 with 4
// flows each to one destination) and StopOnArrival.
func hierccPaperSender(tor uint16, dests int, line units.Rate, mtu units.Bytes) hierccSenderConfig {
	return hierccSenderConfig{
		ToR:           tor,
		Dests:         dests,
		MTU:           mtu,
		C0:            voq.PaperC0,
		StopFlows:     64,
		StopOnArrival: true,
		FirstHop:      HierCCPaperFirstHop(line),
	}
}

const hierccSenderPart = "cp.HierCCSender"

// Validate reports the first field out of range as a *cc.ConfigError.
func (c hierccSenderConfig) Validate() error {
	if c.ToR > wire.HierCCMaxToR {
		return hierccCfgErr(hierccSenderPart, "ToR", strconv.Itoa(int(c.ToR)), "0.."+strconv.Itoa(wire.HierCCMaxToR))
	}
	if c.StopFlows < 1 || c.StopFlows > HierCCMaxStopFlows {
		return hierccCfgErr(hierccSenderPart, "StopFlows", strconv.Itoa(c.StopFlows), "1.."+strconv.Itoa(HierCCMaxStopFlows))
	}
	if err := c.voqConfig().Validate(); err != nil {
		return err
	}
	return c.FirstHop.Validate()
}

func (c hierccSenderConfig) voqConfig() voq.Config {
	slots := c.VOQs
	if slots == 0 {
		slots = c.Dests
	}
	limit := c.QueueLimit
	if limit == 0 {
		limit = voq.MaxQueueLimit
	}
	return voq.Config{
		Keys:          c.Dests,
		Slots:         slots,
		Eligibility:   voq.CreditPositive,
		MaxPacket:     c.MTU,
		QueueLimit:    limit,
		MaxCredit:     voq.MaxCreditLimit,
		InitialCredit: c.C0,
	}
}

// hierccArrival is a data packet from a local host arriving at the sender-side
// ToR.
type hierccArrival struct {
	// Flow is the packet's flow: a rate packet answering it goes to this
	// flow's source.
	Flow cc.FlowID
	// Dst is the destination host j, the VOQ's key.
	Dst voq.Key
	// Size is the bytes the VOQ counts for it (1..MTU).
	Size units.Bytes
	// Mark is the host's reserved bit (section 4).
	Mark bool
}

// hierccSender is the sender side of a HierCC ToR ([HierCC] §3.1–§3.3
// and §4): a VOQ per destination host j (a voq.Manager with C0 and
// credit-positive round robin), each VOQ's flow count F_ij and bytes sent
// S_ij stamped into the packets it sends, its credits from the
// receiver-side ToRs, and its first-hop rate controller (hierccFirstHop,
// equation (1)) answering the hosts' marked packets with rate packets.
// HierCC drives it; stop and resume are described there.
//
// # Events, in the order a switch sees them
//
//	FlowStart, FlowEnd  a flow toward j starts or ends (F_ij ± 1)
//	Arrive              a data packet from a local host joins VOQ j;
//	                    counts toward R_arrive; may stop the VOQ; a marked
//	                    packet is answered with a wire.HierCCRatePacket
//	Next, Eligible      which VOQ the uplink scheduler serves (round robin
//	                    over VOQs with data and credit > 0, voq.Manager)
//	Dequeue             a packet leaves VOQ s toward the fabric: spends
//	                    its size in credit, returns the header to stamp
//	                    (F_ij, S_ij); may resume the VOQ's stopped flows
//	Credit              a credit packet from a receiver-side ToR: adds its
//	                    amount to VOQ j's balance, counts toward R_credit
//	Timer               every T = RTT_hop/β: each open VOQ's equation (1)
//
// Rate packets are returned by appending to the caller's slice (no
// allocation while it has room: give it MaxRatePackets of capacity).
//
// # Bound
//
// With hosts that apply a rate packet as it arrives, no stop-table
// overflow, H hosts on links of rate L and n flows, a VOQ holds at most
//
//	V_high + H·L·RTT_hop + (n + H)·MTU
//
// past V_high, each flow's next packet is answered with a stop; a host
// sends until its last flow's stop arrives: one RTT_hop of its link after
// that flow's first packet after the crossing, which waits behind at most
// one packet of each of the host's other flows (n·MTU in all), plus the
// packet it is serialising (H·MTU). The test drives a model of hosts
// obeying the rate packets against it (8 hosts × 2 flows at 25 Gb/s into
// one 25 Gb/s destination: 133 KB measured, 148 KB bound with the model's
// time steps).
//
// The measurement grid is one per ToR: every VOQ updates at the same
// deadlines; a VOQ opened mid-period has a short first window. Refused
// events change nothing and return a *cc.EventError (voq's sentinels,
// ErrHierCCWrongToR, ErrHierCCNoVOQ) or a *cc.TimeOrderError. Nothing
// allocates after newHierCCSender except errors and a caller's slice that
// must grow.
type hierccSender struct {
	cfg   hierccSenderConfig
	k     hierccFHConst
	m     *voq.Manager
	clock cc.Monotonic
	// Per slot.
	fh        []hierccFirstHop
	open      []bool
	stopTab   []cc.FlowID // StopFlows per slot
	stopN     []uint16
	lastTotal []uint32
	hasTotal  []bool
	// The measurement grid.
	deadline units.Time
	// Counters (64 bits, wrapping).
	ratePackets, stopOverflow, creditGap uint64
}

// newHierCCSender validates cfg and returns a ToR with every VOQ closed and
// its first update due at T.
func newHierCCSender(cfg hierccSenderConfig) (*hierccSender, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	m, err := voq.New(cfg.voqConfig())
	if err != nil {
		return nil, err
	}
	n := m.Config().Slots
	s := &hierccSender{
		cfg: cfg, k: cfg.FirstHop.consts(), m: m,
		fh: make([]hierccFirstHop, n), open: make([]bool, n),
		stopTab: make([]cc.FlowID, n*cfg.StopFlows), stopN: make([]uint16, n),
		lastTotal: make([]uint32, n), hasTotal: make([]bool, n),
	}
	s.deadline = s.k.period
	return s, nil
}

// Config returns the configuration.
func (s *hierccSender) Config() hierccSenderConfig { return s.cfg }

// VOQs returns the voq.Manager, for reading (State, Totals, Next). A
// caller that changes it through its own methods breaks the ToR's
// accounting.
func (s *hierccSender) VOQs() *voq.Manager { return s.m }

// MaxRatePackets is the most rate packets one event appends: StopFlows.
func (s *hierccSender) MaxRatePackets() int { return s.cfg.StopFlows }

// Next returns the VOQ the uplink's round robin serves next (voq.Manager.Next).
func (s *hierccSender) Next() (voq.Slot, bool) { return s.m.Next() }

// Eligible reports whether VOQ slot may be served now.
func (s *hierccSender) Eligible(slot voq.Slot) bool { return s.m.Eligible(slot) }

// Lookup returns the slot of destination j's VOQ, if open.
func (s *hierccSender) Lookup(dst voq.Key) (voq.Slot, bool) { return s.m.Lookup(dst) }

// FirstHop returns the registers of slot's first-hop controller (false if
// the slot is not open).
func (s *hierccSender) FirstHop(slot voq.Slot) (hierccFirstHopState, bool) {
	if uint64(slot) >= uint64(len(s.open)) || !s.open[slot] {
		return hierccFirstHopState{}, false
	}
	return s.fh[slot].st, true
}

// Rate returns the rate VOQ slot advertises now (0 while stopped or not
// open).
func (s *hierccSender) Rate(slot voq.Slot) units.Rate {
	if uint64(slot) >= uint64(len(s.open)) || !s.open[slot] {
		return 0
	}
	return s.fh[slot].Rate()
}

// StoppedFlows returns how many flows VOQ slot has stopped and will
// resume.
func (s *hierccSender) StoppedFlows(slot voq.Slot) int {
	if uint64(slot) >= uint64(len(s.open)) {
		return 0
	}
	return int(s.stopN[slot])
}

// NextDeadline is the next update of the measurement grid.
func (s *hierccSender) NextDeadline() units.Time { return s.deadline }

// RatePackets returns the rate packets sent.
func (s *hierccSender) RatePackets() uint64 { return s.ratePackets }

// StopOverflow returns the flows not stopped because the stop table was
// full.
func (s *hierccSender) StopOverflow() uint64 { return s.stopOverflow }

// CreditGap returns the credit bytes missing from the credits' totals.
func (s *hierccSender) CreditGap() uint64 { return s.creditGap }

//go:noinline
func hierccSenderErr(event, reason string, err error) error {
	return &cc.EventError{Part: hierccSenderPart, Event: event, Reason: reason, Err: err}
}

// openSlot returns dst's VOQ, opening it if needed; opened says it was
// opened here (the caller then starts it, or closes it if the event is
// refused).
func (s *hierccSender) openSlot(dst voq.Key) (slot voq.Slot, opened bool, err error) {
	if sl, ok := s.m.Lookup(dst); ok {
		return sl, false, nil
	}
	sl, err := s.m.Open(dst)
	if err != nil {
		return 0, false, err
	}
	return sl, true, nil
}

// start initialises a newly opened slot's registers.
func (s *hierccSender) start(now units.Time, slot voq.Slot) {
	s.open[slot] = true
	s.fh[slot].init(s.k, now, s.deadline)
	s.fh[slot].clock.Advance(now)
	s.stopN[slot] = 0
	s.hasTotal[slot] = false
	s.lastTotal[slot] = 0
}

// FlowStart counts a new flow toward dst (F_ij += 1), opening its VOQ if
// needed.
func (s *hierccSender) FlowStart(now units.Time, dst voq.Key) error {
	if !s.clock.InOrder(now) {
		return s.clock.Check(hierccSenderPart, "FlowStart", now)
	}
	slot, opened, err := s.openSlot(dst)
	if err != nil {
		return err
	}
	if err := s.m.FlowStart(slot); err != nil {
		if opened {
			_ = s.m.Close(slot) // idle: undoes the Open
		}
		return err
	}
	s.clock.Advance(now)
	if opened {
		s.start(now, slot)
	}
	return nil
}

// FlowEnd counts a flow toward dst ending (F_ij −= 1).
func (s *hierccSender) FlowEnd(now units.Time, dst voq.Key) error {
	if !s.clock.InOrder(now) {
		return s.clock.Check(hierccSenderPart, "FlowEnd", now)
	}
	slot, ok := s.m.Lookup(dst)
	if !ok {
		return hierccSenderErr("FlowEnd", "destination "+strconv.FormatUint(uint64(dst), 10)+" has no VOQ", ErrHierCCNoVOQ)
	}
	if err := s.m.FlowEnd(slot); err != nil {
		return err
	}
	s.clock.Advance(now)
	return nil
}

// Arrive takes a data packet from a local host into VOQ a.Dst (opening it
// if needed) and returns the VOQ's slot, where the caller queues the
// packet. It counts a.Size toward R_arrive and stops the VOQ's sources if
// its length passes V_high. It appends to out, and returns, at most one
// wire.HierCCRatePacket: the answer to a marked packet (R in force, or a stop), or,
// with StopOnArrival, the stop of a flow not yet stopped. Refused (nothing
// changes, out is returned as given): a.Size outside 1..MTU, a.Dst
// outside 0..Dests−1, a full VOQ table, a VOQ at its QueueLimit (voq's
// sentinels), time going back.
func (s *hierccSender) Arrive(now units.Time, a hierccArrival, out []wire.HierCCRatePacket) (voq.Slot, []wire.HierCCRatePacket, error) {
	if !s.clock.InOrder(now) {
		return 0, out, s.clock.Check(hierccSenderPart, "Arrive", now)
	}
	slot, opened, err := s.openSlot(a.Dst)
	if err != nil {
		return 0, out, err
	}
	if err := s.m.Enqueue(slot, a.Size); err != nil {
		if opened {
			_ = s.m.Close(slot) // idle: undoes the Open
		}
		return 0, out, err
	}
	s.clock.Advance(now)
	if opened {
		s.start(now, slot)
	}
	st, _ := s.m.State(slot)
	f := &s.fh[slot]
	_, _ = f.Arrive(now, a.Size, st.Queued) // in range: checked by voq
	if !a.Mark && !(s.cfg.StopOnArrival && f.Stopped()) {
		return slot, out, nil
	}
	r := f.RateKbps()
	if r != 0 {
		s.ratePackets++
		return slot, append(out, wire.HierCCRatePacket{Flow: a.Flow, Rate: r, Dst: a.Dst}), nil
	}
	// Stopped: record the flow to resume it, once.
	tab := s.stopTab[int(slot)*s.cfg.StopFlows : int(slot)*s.cfg.StopFlows+int(s.stopN[slot])]
	for _, fl := range tab {
		if fl == a.Flow {
			if a.Mark { // a marked packet is always answered
				s.ratePackets++
				return slot, append(out, wire.HierCCRatePacket{Flow: a.Flow, Stop: true, Dst: a.Dst}), nil
			}
			return slot, out, nil
		}
	}
	if int(s.stopN[slot]) == s.cfg.StopFlows {
		s.stopOverflow++
		return slot, out, nil
	}
	s.stopTab[int(slot)*s.cfg.StopFlows+int(s.stopN[slot])] = a.Flow
	s.stopN[slot]++
	s.ratePackets++
	return slot, append(out, wire.HierCCRatePacket{Flow: a.Flow, Stop: true, Dst: a.Dst}), nil
}

// Dequeue records the packet of n bytes at the head of VOQ slot leaving
// toward the fabric: it spends n in credit (voq.Manager.Dequeue: the VOQ
// must be eligible) and returns the Header to stamp on it (this ToR, the
// destination, F_ij and S_ij counting this packet; Mark false: the caller
// may copy the host's bit). If the VOQ was stopped and falls below V_low,
// it resumes, appending a wire.HierCCRatePacket with the frozen rate for each flow
// it stopped. Refused (nothing changes): voq's refusals, time going back.
func (s *hierccSender) Dequeue(now units.Time, slot voq.Slot, n units.Bytes, out []wire.HierCCRatePacket) (wire.HierCCHeader, []wire.HierCCRatePacket, error) {
	if !s.clock.InOrder(now) {
		return wire.HierCCHeader{}, out, s.clock.Check(hierccSenderPart, "Dequeue", now)
	}
	stamp, err := s.m.Dequeue(slot, n)
	if err != nil {
		return wire.HierCCHeader{}, out, err
	}
	s.clock.Advance(now)
	st, _ := s.m.State(slot)
	h := wire.HierCCHeader{ToR: s.cfg.ToR, Dst: st.Key, Flows: stamp.Flows, Sent: stamp.Sent}
	f := &s.fh[slot]
	if resumed, _ := f.Depart(now, st.Queued); resumed {
		r := f.RateKbps()
		base := int(slot) * s.cfg.StopFlows
		for _, fl := range s.stopTab[base : base+int(s.stopN[slot])] {
			out = append(out, wire.HierCCRatePacket{Flow: fl, Rate: r, Dst: st.Key})
		}
		s.ratePackets += uint64(s.stopN[slot])
		s.stopN[slot] = 0
	}
	return h, out, nil
}

// Credit takes a credit packet from a receiver-side ToR: c.Amount bytes
// join VOQ c.Dst's balance (voq.Manager.AddCredit) and count toward its
// R_credit. Refused (nothing changes): a packet for another ToR
// (ErrHierCCWrongToR), a VOQ that is not open (ErrHierCCNoVOQ), a balance that would
// pass its limit (voq.ErrCreditOverflow), time going back.
func (s *hierccSender) Credit(now units.Time, c wire.HierCCCreditPacket) error {
	if !s.clock.InOrder(now) {
		return s.clock.Check(hierccSenderPart, "Credit", now)
	}
	slot, err := s.checkCreditPacket(c)
	if err != nil {
		return err
	}
	if err := s.m.AddCredit(slot, units.Bytes(c.Amount)); err != nil {
		return err // a balance past its limit: voq changed nothing
	}
	s.credited(now, slot, c)
	return nil
}

// credited records credit packet c, whose amount VOQ slot's balance took
// at now: toward R_credit, and its total against the last one.
func (s *hierccSender) credited(now units.Time, slot voq.Slot, c wire.HierCCCreditPacket) {
	s.clock.Advance(now)
	_ = s.fh[slot].Credit(now, units.Bytes(c.Amount))
	// total should be last + amount (mod 2^32); a jump ahead is lost credit.
	if s.hasTotal[slot] {
		want := s.lastTotal[slot] + c.Amount
		if fixedpoint.WrapBefore(want, c.Total, 32) {
			s.creditGap += uint64(c.Total - want)
		}
	}
	s.lastTotal[slot], s.hasTotal[slot] = c.Total, true
}

// Timer runs every update of the grid due at or before now (NextDeadline,
// then every T): equation (1) for every open VOQ, each update as at its
// own deadline (see expire). Before the deadline it only records now. It
// decides nothing.
func (s *hierccSender) Timer(now units.Time) error {
	if !s.clock.InOrder(now) {
		return s.clock.Check(hierccSenderPart, "Timer", now)
	}
	s.clock.Advance(now)
	if now = hierccHorizon(now); now >= s.deadline {
		s.expire(uint64(now-s.deadline)/uint64(s.k.period) + 1)
	}
	return nil
}

// expire runs the k ≥ 1 updates of the grid due next (NextDeadline, + T,
// ...), each as at its own deadline, for every open VOQ: no event comes
// between them, so each VOQ's length is its length now
// (hierccFirstHop.expire).
func (s *hierccSender) expire(k uint64) {
	for i := range s.open {
		if !s.open[i] {
			continue
		}
		st, _ := s.m.State(voq.Slot(i))
		s.fh[i].expire(k, uint32(st.Queued))
	}
	s.deadline = fixedpoint.SatAdd(s.deadline, units.Time(k)*s.k.period)
}

// checkArrive reports, changing nothing, the error Arrive would refuse a
// with now: voq's refusals of the VOQ's opening or the packet.
func (s *hierccSender) checkArrive(now units.Time, a hierccArrival) error {
	if slot, ok := s.m.Lookup(a.Dst); ok {
		st, _ := s.m.State(slot)
		if a.Size >= 1 && a.Size <= s.m.Config().MaxPacket && st.Queued+a.Size <= s.m.Config().QueueLimit {
			return nil
		}
	} else if uint64(a.Dst) < uint64(s.m.Config().Keys) && s.m.Len() < s.m.Config().Slots &&
		a.Size >= 1 && a.Size <= s.m.Config().MaxPacket {
		return nil // a new VOQ takes any packet up to MaxPacket (≤ QueueLimit)
	}
	// Refused: Arrive says why, and changes nothing.
	_, _, err := s.Arrive(now, a, nil)
	return err
}

// checkDequeue reports, changing nothing, the error Dequeue of n bytes
// from VOQ slot, in state st, would be refused with at now, once the
// VOQ's balance has grown by extra ≥ 0 (the credits a catch-up grants it
// first).
func (s *hierccSender) checkDequeue(now units.Time, slot voq.Slot, st voq.State, n, extra units.Bytes) error {
	if n >= 1 && n <= s.cfg.MTU && n <= st.Queued && st.Credit+extra > 0 {
		return nil
	}
	// Refused even with extra, so without it too: Dequeue says why, and
	// changes nothing.
	_, _, err := s.Dequeue(now, slot, n, nil)
	return err
}

// checkCreditPacket returns the slot of credit c's VOQ, or Credit's
// refusal of c other than time going back and the balance: a packet for
// another ToR (ErrHierCCWrongToR), a VOQ that is not open
// (ErrHierCCNoVOQ), an amount outside 1..2^31−1 (voq.ErrSize).
func (s *hierccSender) checkCreditPacket(c wire.HierCCCreditPacket) (voq.Slot, error) {
	if c.ToR != s.cfg.ToR {
		return 0, hierccSenderErr("Credit", "credit for ToR "+strconv.FormatUint(uint64(c.ToR), 10)+" at ToR "+strconv.FormatUint(uint64(s.cfg.ToR), 10), ErrHierCCWrongToR)
	}
	slot, ok := s.m.Lookup(c.Dst)
	if !ok {
		return 0, hierccSenderErr("Credit", "destination "+strconv.FormatUint(uint64(c.Dst), 10)+" has no VOQ", ErrHierCCNoVOQ)
	}
	if c.Amount < 1 || c.Amount > math.MaxInt32 {
		return 0, hierccSenderErr("Credit", "amount "+strconv.FormatUint(uint64(c.Amount), 10)+" B", voq.ErrSize)
	}
	return slot, nil
}

// checkCredit returns Credit's refusal of c once the VOQ's balance has
// grown by extra ≥ 0 (the credits a catch-up grants it first), other than
// time going back: checkCreditPacket's, or a balance that would pass its
// limit (voq.ErrCreditOverflow).
func (s *hierccSender) checkCredit(c wire.HierCCCreditPacket, extra units.Bytes) error {
	slot, err := s.checkCreditPacket(c)
	if err != nil {
		return err
	}
	if st, _ := s.m.State(slot); st.Credit+extra+units.Bytes(c.Amount) > s.m.Config().MaxCredit {
		return hierccSenderErr("Credit", "balance "+(st.Credit+extra).String()+" + "+units.Bytes(c.Amount).String()+" passes "+s.m.Config().MaxCredit.String(), voq.ErrCreditOverflow)
	}
	return nil
}

// AppendRegisters appends the ToR's summary registers, in this order: now
// (64), deadline (64), the voq.Manager's registers
// (voq.Manager.AppendRegisters), stopped (32: VOQs stopped now), and the
// 64-bit counters rate_packets, stop_overflow, credit_gap.
// AppendSlotRegisters dumps one VOQ.
func (s *hierccSender) AppendRegisters(dst []cc.Register) []cc.Register {
	var stopped uint64
	for i := range s.open {
		if s.open[i] && s.fh[i].st.Stopped {
			stopped++
		}
	}
	dst = append(dst, s.clock.Register(), cc.TimeReg("deadline", s.deadline))
	dst = s.m.AppendRegisters(dst)
	return append(dst,
		cc.Reg("stopped", 32, stopped),
		cc.Reg("rate_packets", 64, s.ratePackets),
		cc.Reg("stop_overflow", 64, s.stopOverflow),
		cc.Reg("credit_gap", 64, s.creditGap),
	)
}

// AppendSlotRegisters appends VOQ slot's registers (nothing if it is not
// open): voq.Manager.AppendSlotRegisters, FirstHop's (without now),
// stop_flows (11 bits) and last_total (32 bits, C_ij of its last credit).
func (s *hierccSender) AppendSlotRegisters(dst []cc.Register, slot voq.Slot) []cc.Register {
	if uint64(slot) >= uint64(len(s.open)) || !s.open[slot] {
		return dst
	}
	dst = s.m.AppendSlotRegisters(dst, slot)
	dst = s.fh[slot].appendRegs(dst, false)
	return append(dst,
		cc.Reg("stop_flows", 11, uint64(s.stopN[slot])),
		cc.Reg("last_total", 32, uint64(s.lastTotal[slot])),
	)
}
