package harness

import (
	"fmt"

	"github.com/hwcc/hwcc/fixedpoint"
	"github.com/hwcc/hwcc/units"
)

// flow is one transfer: sender state at the source NIC, receiver state at
// the destination NIC, and its metrics.
//
// Thousands of flows are active in a large run, each touched in an order
// simulated time decides, so the fields are placed by the 64-byte lines
// the per-frame paths touch (lineFlow puts line 0 on a line;
// TestHotFieldLines lists the paths' fields from the code and checks the
// counts): line 0 and the start of line 1 are the receiver's (receiveData,
// sendAck), then come the two ends and the sender's (makeData, hostSent,
// applyRP, receiveAck) to the middle of line 2, and line 3 is what hostNext
// reads of every active flow it looks at, ending with info.Size (flowInfo
// puts Size first). A data frame sent, an ACK received and a data frame
// received touch three lines each, hostNext's look at a flow one. What is
// read only at a retransmission, when a flow starts, stops or ends, at a
// window boundary or a sample fills the rest of line 2 and follows info.
type flow struct {
	// Receiver, then id, src and dst, which both ends read.
	np          *schemeNP // nil when the algorithm runs none
	npTimer     timerSlot
	rcvNxt      uint64
	rxBytes     units.Bytes // in-order payload delivered
	rxWire      units.Bytes // wire bytes of in-order data frames
	firstRx     units.Time
	lastRx      units.Time
	sinceAck    int
	markedSince int
	id          FlowID
	nakSent     bool
	src, dst    *node

	// Sender.
	rp        *schemeRP
	rate      units.Rate
	lastStart units.Time
	lastSize  units.Bytes
	sndMax    uint64 // highest byte sent + 1
	rtoAt     units.Time
	rtoTimer  timerSlot
	rpTimer   timerSlot

	retransmits int64
	activeIdx   int        // index in src.active, -1 when not there
	stopAt      units.Time // MaxTime: none
	finishAt    units.Time // sender saw the last byte acknowledged; -1 if not

	// What hostNext reads of every active flow, with info.Size.
	prio                   uint8 // data priority of its frames (FlowSpec.Prio)
	gated                  bool  // the RP gates the flow on credit
	started, stopped, done bool
	sack                   *sackFlow // the selective transport's state (nic.transport sack), else nil
	sndNxt, sndUna         uint64
	window                 units.Bytes
	nextSend               units.Time
	credit                 units.Bytes // the credit the RP holds (gated only)
	info                   flowInfo

	rev   []revHop // its data path's switches (features.Symmetric only)
	ideal units.Time

	// Measurement window snapshots of rxWire/rxBytes.
	winStartWire, winEndWire   units.Bytes
	winStartBytes, winEndBytes units.Bytes
	winEndSet                  bool

	series     []float64 // throughput samples, bit/s; nil if not recorded
	lastSample units.Bytes
}

// lineFlow is a flow placed on a 64-byte cache line: allocated alone, it
// is an object whose slot, in a size class of whole lines, starts on a
// line, and whose first allocHeader bytes are the runtime's; the padding
// puts the flow on the next line.
type lineFlow struct {
	_ [64 - allocHeader]byte
	flow
}

// hostNext returns the next frame host port pt sends, or nil. When a flow
// is held back only by pacing, it arms a wake-up at the earliest pacing time.
func (s *Sim) hostNext(pt *port) *Packet {
	if p := pt.q[ControlPrio].pop(pt.pool); p != nil {
		pt.qbytes[ControlPrio] -= p.Size
		pt.bytes -= p.Size
		return p
	}
	if p := s.shapedNext(pt); p != nil {
		return p
	}
	h := pt.node
	n := len(h.active)
	earliest := units.MaxTime
	for i := 0; i < n; i++ {
		j := h.rr + i
		if j >= n {
			j -= n
		}
		f := h.active[j]
		if pt.pausedBy[f.prio] || !f.hasData() || (f.window > 0 && f.inflight() >= f.window) {
			continue
		}
		if f.gated || pt.cbfcTx != nil {
			_, size := s.nextFrame(f)
			if f.gated && size > f.credit {
				continue // no pacing wake: a credit's arrival kicks the port
			}
			if !pt.creditFor(int(f.prio), size) {
				continue // no wake either: a flow-control packet kicks the port
			}
		}
		if f.nextSend > s.now {
			if f.nextSend < earliest {
				earliest = f.nextSend
			}
			continue
		}
		h.rr = j + 1
		if h.rr >= n {
			h.rr = 0
		}
		return s.makeData(f)
	}
	if earliest != units.MaxTime && pt.wake.want(earliest) {
		s.evq.push(event{at: earliest, kind: evNICWake, idx: pt.gid})
	}
	return nil
}

// hasData reports whether f has bytes it has not sent (or must resend).
func (f *flow) hasData() bool {
	if f.sack != nil {
		return f.sackHasData()
	}
	return f.info.Size == 0 || f.sndNxt < uint64(f.info.Size)
}

// nextFrame returns the payload and wire size of f's next data frame.
func (s *Sim) nextFrame(f *flow) (pay, size units.Bytes) {
	pay = s.payload
	if f.sack != nil {
		pay = f.sackNextPay()
	} else if f.info.Size > 0 {
		if left := units.Bytes(uint64(f.info.Size) - f.sndNxt); left < pay {
			pay = left
		}
	}
	size = DataOverheadBytes + pay + s.preamble
	size += s.feat.tel.Init
	return pay, size
}

// makeData builds f's next data packet and advances its sender state.
func (s *Sim) makeData(f *flow) *Packet {
	pay, size := s.nextFrame(f)
	p := s.pool.get()
	p.Kind = KindData
	p.Prio = f.prio
	p.Flow = f.id
	p.Src = f.src.id
	p.Dst = f.dst.id
	p.Seq = f.sndNxt
	p.Payload = pay
	p.Size = size
	p.SentAt = s.now
	if p.HasTel = s.feat.telemetry(); p.HasTel {
		// The stack as the sender attaches it: Init zero bytes (HPCC's
		// INT header: nHop = 0, pathID = 0); the pool's packet is zero.
		p.Tel.Len = uint8(s.feat.tel.Init)
	}
	if f.sack != nil {
		s.sackMake(f, p) // the segment: a resend first (p.Seq), else new data
	} else if p.Seq < f.sndMax {
		f.retransmits++
	}
	if f.sack == nil {
		f.sndNxt += uint64(pay)
	}
	if f.sndNxt > f.sndMax {
		f.sndMax = f.sndNxt
	}
	f.lastStart = s.now
	f.lastSize = p.Size
	f.nextSend = fixedpoint.SatAddNonNeg(s.now, units.SerializationTime(p.Size, f.rate))
	s.st.dataSentPayload += int64(pay)
	s.st.dataSentPkts++
	return p
}

// hostSent runs the side effects of data packet p starting transmission:
// the RP's OnSend and the retransmission timer.
func (s *Sim) hostSent(f *flow, p *Packet) {
	if f.rtoAt == units.MaxTime && s.rto > 0 {
		f.rtoAt = s.now + s.rto
		s.armRTO(f)
	}
	f.rp.OnSendFrame(s.now, p)
	s.applyRP(f)
}

// applyRP reads f's RP outputs and applies them: rate, window, timer.
func (s *Sim) applyRP(f *flow) {
	rp := f.rp
	if r := rp.Rate(); r != f.rate {
		if r < 0 {
			r = 0
		}
		f.rate = r
		if f.lastSize > 0 {
			f.nextSend = fixedpoint.SatAddNonNeg(f.lastStart, units.SerializationTime(f.lastSize, r))
		}
		s.kick(f.src.ports[0])
	}
	if w := rp.Window(); w != f.window {
		opened := w == 0 || w > f.window
		f.window = max(w, 0)
		if opened {
			s.kick(f.src.ports[0])
		}
	}
	if c, gated := rp.Credit(); gated != f.gated || c != f.credit {
		opened := !gated || c > f.credit
		f.gated, f.credit = gated, max(c, 0)
		if opened {
			s.kick(f.src.ports[0])
		}
	}
	d := rp.NextDeadline()
	if d < s.now {
		d = s.now
	}
	if f.rpTimer.want(d) {
		s.evq.push(event{at: d, kind: evRPTimer, idx: int32(f.id)})
	}
}

// hostReceive handles frame p arriving at host h.
func (s *Sim) hostReceive(h *node, in *port, p *Packet) {
	switch p.Kind {
	case KindPFC:
		s.onPFC(in, p)
	case KindFC:
		s.onFC(in, p)
	case KindData:
		s.receiveData(p)
	case KindAck, KindNak:
		s.receiveAck(p)
	case KindTrim:
		s.sackTrimmed(s.flows[p.Flow], p)
	case KindCNP:
		if f := s.flows[p.Flow]; f.rp != nil && !f.done {
			f.rp.OnCNP(s.now)
			s.applyRP(f)
		}
	case KindFeedback:
		s.st.feedbackRecv++
		f := s.flows[p.Flow]
		if h == f.dst && h != f.src {
			s.sourceMessage(f, p)
		} else if f.rp != nil && !f.done {
			f.rp.OnFeedback(s.now, &p.Feedback)
			s.applyRP(f)
		}
	}
	s.consumed(p)
}

// sourceMessage hands the message p from f's source to f's notification
// point.
func (s *Sim) sourceMessage(f *flow, p *Packet) {
	np := f.np
	if np == nil {
		f.info.Errors.Add(s.now, f.id, fmt.Errorf("harness: a %v message reached flow %d's receiver, which has no notification point that takes its source's messages", p.Feedback.Kind, f.id))
		return
	}
	if np.OnSource(s.now, &p.Feedback) {
		s.sendCNP(f)
	}
	s.armNP(f)
}

// receiveData is the receiving NIC: go-back-N acceptance, ACK generation
// every AckEvery packets (and for the last packet of a sized flow), and the
// NP hook.
func (s *Sim) receiveData(p *Packet) {
	f := s.flows[p.Flow]
	s.st.dataRecvPayload += int64(p.Payload)
	s.st.dataRecvPkts++
	if f.np != nil {
		if f.np.OnData(s.now, p) {
			s.sendCNP(f)
		}
		s.armNP(f)
	}
	if f.sack != nil {
		s.sackReceive(f, p)
		return
	}
	switch {
	case p.Seq == f.rcvNxt:
		f.rcvNxt += uint64(p.Payload)
		f.rxBytes += p.Payload
		f.rxWire += p.Size
		if f.firstRx < 0 {
			f.firstRx = s.now
		}
		f.lastRx = s.now
		f.nakSent = false
		f.sinceAck++
		if p.CE {
			f.markedSince++
		}
		last := f.info.Size > 0 && f.rcvNxt >= uint64(f.info.Size)
		if f.sinceAck >= s.ackEvery || last {
			s.sendAck(f, p, KindAck)
		}
	case p.Seq > f.rcvNxt:
		if !f.nakSent {
			f.nakSent = true
			s.sendAck(f, p, KindNak)
		}
	default:
		s.sendAck(f, p, KindAck) // duplicate: tell the sender where we are
	}
}

// sendAck sends an ACK or NAK for flow f triggered by data packet d,
// echoing its SentAt and telemetry stack.
func (s *Sim) sendAck(f *flow, d *Packet, kind Kind) {
	a := s.newAck(f, d, kind)
	a.ECE = f.markedSince > 0
	a.ackPkts = int32(f.sinceAck)
	a.ackMarked = int32(f.markedSince)
	f.sinceAck, f.markedSince = 0, 0
	a.Size = AckFrameBytes + s.preamble
	if d.HasTel {
		// The receiver NIC copies the stack's bytes into the ACK: its
		// Len bytes, not the whole buffer (the rest of a's is zero, from
		// the pool, and nothing reads past Len).
		a.HasTel, a.Tel.Len = true, d.Tel.Len
		copy(a.Tel.Data[:], d.Tel.Bytes())
		a.Size += units.Bytes(d.Tel.Len)
	}
	s.hostQueueControl(f.dst, a)
}

// newAck takes from the pool an ACK or NAK for flow f triggered by data
// packet d, addressed from f's receiver to its source, carrying the
// cumulative rcvNxt in Seq and echoing d's SentAt; the caller fills the
// rest and queues it.
func (s *Sim) newAck(f *flow, d *Packet, kind Kind) *Packet {
	a := s.toSource(f, kind)
	a.Seq = f.rcvNxt
	a.SentAt = d.SentAt
	return a
}

// toSource takes from the pool a control packet of kind for flow f, from
// its receiver to its source; the caller fills the rest.
func (s *Sim) toSource(f *flow, kind Kind) *Packet {
	p := s.pool.get()
	p.Kind = kind
	p.Prio = ControlPrio
	p.Flow = f.id
	p.Src = f.dst.id
	p.Dst = f.src.id
	return p
}

// sendCNP sends a CNP for flow f from its receiver to its source.
func (s *Sim) sendCNP(f *flow) {
	c := s.toSource(f, KindCNP)
	c.Size = CNPFrameBytes + s.preamble
	s.st.cnpSent++
	s.hostQueueControl(f.dst, c)
}

// hostQueueControl queues control frame p at host h's port.
func (s *Sim) hostQueueControl(h *node, p *Packet) {
	pt := h.ports[0]
	if p.shape != nil {
		s.shapedPush(pt, p)
		return
	}
	pt.q[ControlPrio].push(pt.pool, p)
	pt.qbytes[ControlPrio] += p.Size
	pt.bytes += p.Size
	s.kick(pt)
}

// receiveAck is the sending NIC's ACK/NAK processing.
func (s *Sim) receiveAck(p *Packet) {
	f := s.flows[p.Flow]
	if f.done || f.rp == nil {
		return
	}
	if f.sack != nil {
		s.sackAckArrived(f, p)
		return
	}
	var newly units.Bytes
	if p.Seq > f.sndUna {
		newly = units.Bytes(p.Seq - f.sndUna)
		f.sndUna = p.Seq
		if f.sndNxt < f.sndUna {
			f.sndNxt = f.sndUna
		}
	}
	if p.Kind == KindNak && p.Seq < f.sndNxt {
		f.sndNxt = p.Seq // go back N
		s.kick(f.src.ports[0])
	}
	inflight := units.Bytes(f.sndNxt - f.sndUna)
	if s.rto > 0 {
		switch {
		case f.sndUna >= f.sndMax:
			f.rtoAt = units.MaxTime
		case newly > 0:
			f.rtoAt = s.now + s.rto
			s.armRTO(f)
		}
	}
	done := f.info.Size > 0 && f.sndUna >= uint64(f.info.Size)
	a := &s.ack
	*a = ackInfo{
		Flow:     f.id,
		Seq:      p.Seq,
		Newly:    newly,
		SndNxt:   f.sndNxt,
		Inflight: inflight,
		NAK:      p.Kind == KindNak,
		ECE:      p.ECE,
		Marked:   int(p.ackMarked),
		Packets:  int(p.ackPkts),
		RTT:      s.now - p.SentAt,
		Done:     done,
	}
	if p.HasTel {
		a.Tel = &p.Tel
	}
	f.rp.OnAck(s.now, a)
	a.Tel = nil
	if done {
		s.finish(f)
		return
	}
	s.applyRP(f)
	if newly > 0 && f.window > 0 {
		s.kick(f.src.ports[0])
	}
}

// finish records a sized flow's completion at the sender.
func (s *Sim) finish(f *flow) {
	f.done = true
	f.finishAt = s.now
	f.rtoAt = units.MaxTime
	s.deactivate(f)
	s.st.flowsDone++
}

// deactivate removes f from its source's active list.
func (s *Sim) deactivate(f *flow) {
	i := f.activeIdx
	if i < 0 {
		return
	}
	h := f.src
	last := len(h.active) - 1
	h.active[i] = h.active[last]
	h.active[i].activeIdx = i
	h.active[last] = nil
	h.active = h.active[:last]
	f.activeIdx = -1
	if h.rr > last {
		h.rr = 0
	}
}

// startFlow creates f's RP and NP and puts it on its source's active list.
func (s *Sim) startFlow(f *flow) {
	if f.started {
		return
	}
	rp, err := s.algo.newRP(f.info)
	if err != nil {
		s.fail(err)
		return
	}
	var np *schemeNP
	if s.uet != nil && s.uet.hostScope {
		np, err = s.hostNP(f)
	} else {
		np, err = s.algo.newNP(f.info)
	}
	if err != nil {
		s.fail(err)
		return
	}
	f.rp, f.np = rp, np
	if s.uet != nil && s.uet.sack {
		f.sack = s.newSackFlow(f)
	}
	f.started = true
	f.rate = rp.Rate()
	f.window = max(rp.Window(), 0)
	f.nextSend = s.now
	f.activeIdx = len(f.src.active)
	f.src.active = append(f.src.active, f)
	s.applyRP(f)
	if np != nil {
		s.armNP(f)
	}
	s.kick(f.src.ports[0])
}

// stopFlow stops f from sending new data (its stop time).
func (s *Sim) stopFlow(f *flow) {
	if f.done || f.stopped {
		return
	}
	f.stopped = true
	f.rtoAt = units.MaxTime
	s.deactivate(f)
}

func (s *Sim) armNP(f *flow) {
	if f.np.owner != nil {
		f = f.np.owner // a host's notification point runs on its first flow's timer
	}
	d := f.np.NextDeadline()
	if d < s.now {
		d = s.now
	}
	if f.npTimer.want(d) {
		s.evq.push(event{at: d, kind: evNPTimer, idx: int32(f.id)})
	}
}

func (s *Sim) armRTO(f *flow) {
	if f.rtoTimer.want(f.rtoAt) {
		s.evq.push(event{at: f.rtoAt, kind: evRTO, idx: int32(f.id)})
	}
}

func (s *Sim) onRPTimer(f *flow) {
	f.rpTimer.fired(s.now)
	if f.done || f.stopped || f.rp == nil {
		return
	}
	if f.rp.NextDeadline() <= s.now {
		f.rp.OnTimer(s.now)
	}
	s.applyRP(f)
}

func (s *Sim) onNPTimer(f *flow) {
	f.npTimer.fired(s.now)
	if f.np == nil {
		return
	}
	if f.np.NextDeadline() <= s.now && f.np.OnTimer(s.now) {
		s.sendCNP(f)
	}
	s.armNP(f)
}

func (s *Sim) onRTO(f *flow) {
	f.rtoTimer.fired(s.now)
	if f.done || f.stopped || f.rtoAt == units.MaxTime {
		return
	}
	if s.now < f.rtoAt {
		s.armRTO(f)
		return
	}
	if f.sack != nil {
		s.sackTimeout(f)
	} else if f.sndUna < f.sndMax {
		f.sndNxt = f.sndUna
		s.st.timeouts++
		s.kick(f.src.ports[0])
	}
	f.rtoAt = s.now + s.rto
	s.armRTO(f)
}
