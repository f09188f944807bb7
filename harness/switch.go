package harness

import (
	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/fixedpoint"
	"github.com/hwcc/hwcc/units"
)

// switchReceive handles frame p arriving at switch sw through port in.
func (s *Sim) switchReceive(sw *node, in *port, p *Packet) {
	switch p.Kind {
	case KindPFC:
		s.onPFC(in, p)
		s.consumed(p)
		return
	case KindFC:
		s.onFC(in, p)
		s.consumed(p)
		return
	case KindFeedback:
		if p.toSwitch != 0 && p.toSwitch-1 == sw.id {
			s.switchMessage(sw, in.num, p)
			return
		}
	}
	if w := sw.module; w != nil && p.Kind == KindData {
		w.mod.Arrive(s.now, w, in.num, p)
		s.armModule(w)
	}
	out := s.nextHop(sw, p)
	if out == nil {
		s.drop(nil, p) // unroutable: cannot happen after buildRoutes
		return
	}
	s.enqueue(sw, out, p, in)
}

// enqueue admits p into egress port out of switch sw (in is the ingress
// port, nil for frames the switch originates) and starts transmission if
// the port is idle.
func (s *Sim) enqueue(sw *node, out *port, p *Packet, in *port) {
	if s.uet != nil {
		s.uet.trimmed(s, out, p) // trimming (uet.go): a data frame may become a header
	}
	if p.shape != nil {
		s.shapedPush(out, p)
		return
	}
	prio := p.Prio
	if prio != ControlPrio {
		size := p.Size
		if sw.bufUsed+size > sw.buffer || !s.fc.admit(s, sw, in, p) {
			s.drop(out, p)
			return
		}
		p.inSize = size
		sw.bufUsed += size
		if sw.bufUsed > s.st.maxBufUsed {
			s.st.maxBufUsed = sw.bufUsed
		}
	}
	fq := out.fq != nil && prio != ControlPrio
	switch {
	case out.vq != nil && prio != ControlPrio:
		if err := out.vq.push(&s.pool, p, in != nil && in.peer.node.isHost); err != nil {
			s.voqErr(out, err)
			s.unadmit(sw, p)
			s.drop(out, p)
			return
		}
	case fq:
		// It joins its physical queue after the switch point has seen
		// it join the port, and may have chosen the queue.
		p.pq = out.fq.queueOf(p)
	default:
		out.q[prio].push(&s.pool, p)
	}
	out.qbytes[prio] += p.Size
	out.bytes += p.Size
	s.queueChanged(out)
	if w := sw.module; w != nil && p.Kind == KindData {
		w.mod.Enqueue(s.now, w, out.num, p)
		s.armModule(w)
	}
	if fq {
		out.fq.push(&s.pool, p)
	}
	if p.Kind == KindData && out.queue != nil && p.Prio == out.queue.prio {
		q := out.queue
		// Default marker: CE when the data queue, the arriving frame
		// included, exceeds the threshold.
		if s.feat.ecn && q.len() > s.ecnK {
			p.CE = true
		}
		if q.cp != nil {
			q.cp.OnEnqueue(s.now, q, p)
			s.armCP(q)
		}
	}
	s.kick(out)
}

// switchNext pops the next frame port pt may send, or nil: PFC frames are
// handled by kick; here ControlPrio first (never paused), then the data
// priority the port's scheduler picks (SwitchSpec.Scheduler: strict
// priority by default), skipping paused ones.
func (s *Sim) switchNext(pt *port) *Packet {
	prio := ControlPrio
	var p *Packet
	if pt.q[ControlPrio].n == 0 {
		if p := s.shapedNext(pt); p != nil {
			s.queueChanged(pt)
			return p
		}
		if pt.vq != nil {
			var err error
			if p, err = pt.vq.next(pt); err != nil {
				s.voqErr(pt, err)
			}
			if p == nil {
				return nil
			}
			prio = int(p.Prio)
		} else if pt.fq != nil {
			if p = pt.fq.next(pt); p == nil {
				return nil
			}
			prio = int(p.Prio)
		} else if prio = pt.sched.Pick(PortView{pt}); prio < 0 {
			return nil
		}
	}
	if p == nil {
		p = pt.q[prio].pop(&s.pool)
	}
	pt.qbytes[prio] -= p.Size
	pt.bytes -= p.Size
	if prio != ControlPrio {
		pt.sched.Sent(PortView{pt}, prio, p.Size)
	}
	s.queueChanged(pt)
	return p
}

// unadmit gives back what admitting p took at switch sw: its bytes of the
// shared buffer and of its ingress port (ingressAdd's p.ingress, a port's
// gid + 1), with the flow control's release (PFC RESUME).
func (s *Sim) unadmit(sw *node, p *Packet) {
	sw.bufUsed -= p.inSize
	if in := p.ingress; in != 0 {
		p.ingress = 0
		s.fc.release(s, sw, s.ports[in-1], p)
	}
}

// switchDequeued runs the dequeue side effects of p leaving pt (pt is
// already marked busy): buffer and ingress release with PFC RESUME, and the
// CP's OnDequeue, which pushes its record onto p's telemetry stack (and
// grows p.Size by it) when the algorithm's congestion point does.
func (s *Sim) switchDequeued(pt *port, p *Packet) {
	if p.Prio != ControlPrio {
		s.unadmit(pt.node, p)
	}
	if w := pt.node.module; w != nil && p.Kind == KindData {
		w.mod.Dequeue(s.now, w, pt.num, p)
		s.armModule(w)
	}
	if p.Kind != KindData || pt.queue == nil || p.Prio != pt.queue.prio {
		return
	}
	q := pt.queue
	n := p.Tel.Len
	if q.cp != nil {
		q.cp.OnDequeue(s.now, q, p)
		s.armCP(q)
	}
	if p.HasTel && p.Tel.Len == n {
		// The port added no record: the stack was full (the frame goes
		// on with the records it has), or the CP refused the event
		// (Report.Errors says so).
		s.st.intFull++
	}
}

// pfcSignal asks port in to tell its peer the PFC state of prio.
func (s *Sim) pfcSignal(in *port, prio uint8) {
	in.pfcDirty |= 1 << prio
	s.kick(in)
}

// nextPFC returns a PFC frame port pt owes its peer, or nil.
func (s *Sim) nextPFC(pt *port) *Packet {
	for pt.pfcDirty != 0 {
		prio := uint8(0)
		for pt.pfcDirty&(1<<prio) == 0 {
			prio++
		}
		pt.pfcDirty &^= 1 << prio
		if pt.wantPause[prio] == pt.toldPause[prio] {
			continue // paused and resumed again before the frame went out
		}
		pt.toldPause[prio] = pt.wantPause[prio]
		p := s.pool.get()
		p.Kind = KindPFC
		p.Prio = prio
		p.pause = pt.wantPause[prio]
		p.Src = pt.node.id
		p.Dst = pt.peer.node.id
		p.Size = PFCFrameBytes + s.preamble
		if p.pause {
			pt.st.pausesSent++
		}
		return p
	}
	return nil
}

// onPFC applies a PFC frame that arrived through port pt: it pauses or
// resumes pt's egress for the frame's priority.
func (s *Sim) onPFC(pt *port, p *Packet) {
	prio := p.Prio
	if p.pause == pt.pausedBy[prio] {
		return
	}
	pt.pausedBy[prio] = p.pause
	if w := pt.node.module; w != nil {
		w.mod.Pause(s.now, w, pt.num, prio, p.pause)
		s.armModule(w)
	}
	if p.pause {
		pt.st.pauses++
		pt.st.pauseStart[prio] = s.now
		if pt.st.firstPause < 0 {
			pt.st.firstPause = s.now
		}
		return
	}
	pt.st.pausedTime += s.now - pt.st.pauseStart[prio]
	s.kick(pt)
}

// sendFeedback builds a feedback packet from q's switch to flow's source.
func (s *Sim) sendFeedback(q *egressQueue, id FlowID, fb *cc.Feedback) bool {
	if id < 0 || int(id) >= len(s.flows) {
		return false
	}
	f := s.flows[id]
	if f.done || f.stopped || !f.started {
		return false
	}
	sw := q.p.node
	p := s.pool.get()
	p.Kind = KindFeedback
	p.Flow = id
	p.Src = sw.id
	p.Dst = f.src.id
	p.Feedback = *fb
	s.controlWire(p, fb.Kind)
	s.st.feedbackSent++
	out := s.route(sw, id, sw.id, f.src.id)
	if out == nil {
		s.drop(nil, p)
		return false
	}
	s.enqueue(sw, out, p, nil)
	return true
}

// controlWire sets the priority, wire size and shaping of control message
// p of kind k: the algorithm's declaration (cc.Deployment.Messages), else
// a RoCEv2 CNP's (CNPFrameBytes at ControlPrio).
func (s *Sim) controlWire(p *Packet, k cc.FeedbackKind) {
	if c, ok := s.kinds[k]; ok {
		p.Prio, p.Size = c.Prio, c.Frame+s.preamble
		if c.Spacing > 0 {
			p.shape = c
		}
		return
	}
	p.Prio, p.Size = ControlPrio, CNPFrameBytes+s.preamble
}

// shapedPush queues shaped control message p at port pt, or drops it when
// the shaper's queue is full (Counters.ShapedDrops).
func (s *Sim) shapedPush(pt *port, p *Packet) {
	if pt.shapedQ.n >= p.shape.Queue {
		s.st.shapedDrops++
		s.free(p)
		return
	}
	pt.shapedQ.push(&s.pool, p)
	pt.bytes += p.Size
	if !pt.node.isHost {
		s.queueChanged(pt)
	}
	s.kick(pt)
}

// shapedNext pops the shaped control message port pt may start now, or
// returns nil and arms a wake-up for when the shaper allows the next one.
func (s *Sim) shapedNext(pt *port) *Packet {
	if pt.shapedQ.n == 0 {
		return nil
	}
	if pt.shapedAt > s.now {
		if pt.wake.want(pt.shapedAt) {
			s.evq.push(event{at: pt.shapedAt, kind: evNICWake, idx: pt.gid})
		}
		return nil
	}
	p := pt.shapedQ.pop(&s.pool)
	pt.bytes -= p.Size
	pt.shapedAt = fixedpoint.SatAddNonNeg(s.now, units.SerializationTime(p.shape.Spacing, pt.rate))
	return p
}

// sendToSource sends control message fb about flow f from its receiver
// to its source (flowInfo.SendToSource).
func (s *Sim) sendToSource(f *flow, fb cc.Feedback) bool {
	if f.done || f.stopped || !f.started {
		return false
	}
	s.hostMessage(f, f.dst, f.src, fb)
	return true
}

// hostMessage queues control message fb about flow f at host from, to
// host to.
func (s *Sim) hostMessage(f *flow, from, to *node, fb cc.Feedback) {
	p := s.pool.get()
	p.Kind = KindFeedback
	p.Flow = f.id
	p.Src = from.id
	p.Dst = to.id
	p.Feedback = fb
	s.controlWire(p, fb.Kind)
	s.st.feedbackSent++
	s.hostQueueControl(from, p)
}

// sendToDestination sends control message fb about flow f from its source
// to its receiver (flowInfo.SendToDestination). A flow that has stopped
// or finished may still send: its last message (a credit stop) says so.
func (s *Sim) sendToDestination(f *flow, fb cc.Feedback) bool {
	if !f.started {
		return false
	}
	s.hostMessage(f, f.src, f.dst, fb)
	return true
}

// armCP schedules q's CP timer at its reported deadline.
func (s *Sim) armCP(q *egressQueue) {
	d := q.cp.NextDeadline()
	if d < s.now {
		d = s.now
	}
	if q.timer.want(d) {
		s.evq.push(event{at: d, kind: evCPTimer, idx: int32(q.id)})
	}
}

// onCPTimer runs a CP's timer if it is due and re-arms it.
func (s *Sim) onCPTimer(q *egressQueue) {
	q.timer.fired(s.now)
	if q.cp.NextDeadline() <= s.now {
		q.cp.OnTimer(s.now, q)
	}
	s.armCP(q)
}

// sharedFree returns the free bytes of sw's shared pool: its buffer less
// the headroom reserved for every port less the bytes in the buffer (may be
// negative once ports use their headroom). With switch.pool it is Pool less
// the bytes in the buffer.
func (s *Sim) sharedFree(sw *node) units.Bytes {
	return sw.buffer - sw.hdrmReserve - sw.bufUsed
}

// maxFrame is the largest data frame on the wire, with the largest
// telemetry stack a frame is sized for (maxStackBytes).
func (s *Sim) maxFrame() units.Bytes {
	return DataOverheadBytes + s.payload + s.preamble + maxStackBytes
}

// maxStackBytes is the largest telemetry stack the harness sizes a data
// frame for: 122 bytes, a 2-byte prefix and 15 records of 8 (HPCC's INT
// at its 4-bit hop count's limit). The PFC headroom, the CBFC credit
// check, the XON margin and the schedulers' quanta are sized by it.
const maxStackBytes units.Bytes = 2 + 15*8

// headroomFor returns the automatic PFC headroom of an ingress port: what
// can still arrive after the switch decides to pause. The PAUSE waits for
// at most one maximum frame ahead of it on the reverse link, then travels
// one propagation delay; meanwhile the link carries delay·rate bytes and
// the upstream port finishes the frame it has started:
//
//	headroom = 2·rate·delay + 2·maxFrame + PFC frame
//
// (maxFrame and the PFC frame in wire bytes), plus one maximum frame of
// margin for the frame in serialisation when the threshold is crossed.
func (s *Sim) headroomFor(p *port) units.Bytes {
	return 2*units.BytesIn(p.rate, p.delay) + 3*s.maxFrame() + PFCFrameBytes + s.preamble
}
