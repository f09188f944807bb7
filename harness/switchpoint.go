package harness

import (
	"fmt"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
)

// schemeSW runs a scheme's cc.SwitchPoint as its switch's module: the
// harness's hooks become the part's events, with the packet as cc.Packet
// (its Hdr carried both ways: the part writes it on Dequeue) and the
// queue of the port as cc.Queue, and its actions are carried out:
//
//   - ActionMarkCE marks the frame of the event;
//   - ActionFeedback goes to the flow's source (Switch.Send) or
//     destination (Switch.SendToDestination), or to the switch whose
//     SwitchID is Action.Switch (Switch.SendSwitchID);
//   - ActionCredit credits the VOQ toward host Node at egress Port
//     (Switch.AddCredit; switch.scheduler voq-credit);
//   - ActionAssignQueue, on an Enqueue, puts the frame in that physical
//     queue of its egress port (switch.scheduler queues);
//     ActionPauseQueue and ActionResumeQueue hold and release physical
//     queue Queue of egress port Port (Switch.HoldQueue);
//   - ActionDrop, ActionPause and ActionResume are not carried out by the
//     harness's switch points yet: each is reported as an error of the
//     switch (Report.Errors), and the frame goes on.
type schemeSW struct {
	p    cc.SwitchPoint
	act  *cc.Actions
	pkt  cc.Packet
	fb   cc.Feedback
	errs ErrorSink
	rec  *traceRec // nil unless this part is traced (Options.Trace)
	enq  int       // the egress port of the Enqueue being applied, else −1
}

// packet fills the part's view of p.
func (w *schemeSW) packet(p *Packet) *cc.Packet {
	w.pkt = cc.Packet{Flow: cc.FlowID(p.Flow), Src: cc.NodeID(p.Src), Dst: cc.NodeID(p.Dst), Seq: p.Seq,
		Payload: p.Payload, Size: p.Size, Prio: p.Prio, CE: p.CE, Hdr: p.Hdr}
	if p.HasTel {
		w.pkt.Tel = &p.Tel
	}
	return &w.pkt
}

// queue is the part's view of egress port out's queue at p's priority.
func queueOf(sw *Switch, out int, prio uint8) cc.Queue {
	pt := sw.n.ports[out]
	return cc.Queue{Len: pt.qbytes[prio], Rate: pt.rate, TxBytes: pt.st.txBytes, Paused: pt.pausedBy[prio]}
}

func (w *schemeSW) Arrive(now units.Time, sw *Switch, in int, p *Packet) {
	cp := w.packet(p)
	if w.rec != nil {
		w.rec.packet(cc.EventArrive, now, in, cp, cc.Queue{})
	}
	err := call(&w.act, func(a *cc.Actions) error { return w.p.Arrive(now, in, cp, a) })
	if w.rec != nil {
		w.rec.out(w.p, err, w.act)
	}
	w.apply(now, sw, p, err)
}

func (w *schemeSW) Enqueue(now units.Time, sw *Switch, out int, p *Packet) {
	cp, q := w.packet(p), queueOf(sw, out, p.Prio)
	if w.rec != nil {
		w.rec.packet(cc.EventEnqueue, now, out, cp, q)
	}
	err := call(&w.act, func(a *cc.Actions) error { return w.p.Enqueue(now, out, cp, q, a) })
	if w.rec != nil {
		w.rec.out(w.p, err, w.act)
	}
	w.enq = out
	w.apply(now, sw, p, err)
	w.enq = -1
}

func (w *schemeSW) Dequeue(now units.Time, sw *Switch, out int, p *Packet) {
	cp, q := w.packet(p), queueOf(sw, out, p.Prio)
	n := p.Tel.Len
	if w.rec != nil {
		w.rec.packet(cc.EventDequeue, now, out, cp, q)
	}
	err := call(&w.act, func(a *cc.Actions) error { return w.p.Dequeue(now, out, cp, q, a) })
	if w.rec != nil {
		w.rec.out(w.p, err, w.act)
	}
	if err == nil {
		p.Hdr = w.pkt.Hdr
		if p.HasTel && p.Tel.Len > n {
			p.Size += units.Bytes(p.Tel.Len - n)
		}
	}
	w.apply(now, sw, p, err)
}

func (w *schemeSW) Pause(now units.Time, sw *Switch, out int, prio uint8, paused bool) {
	if w.rec != nil {
		w.rec.pause(now, out, prio, paused)
	}
	err := call(&w.act, func(a *cc.Actions) error { return w.p.Pause(now, out, prio, paused, a) })
	if w.rec != nil {
		w.rec.out(w.p, err, w.act)
	}
	w.apply(now, sw, nil, err)
}

func (w *schemeSW) Message(now units.Time, sw *Switch, in int, fb *cc.Feedback) {
	w.fb = *fb
	if w.rec != nil {
		w.rec.feedback(cc.EventMessage, now, in, &w.fb)
	}
	err := call(&w.act, func(a *cc.Actions) error { return w.p.Message(now, in, &w.fb, a) })
	if w.rec != nil {
		w.rec.out(w.p, err, w.act)
	}
	w.apply(now, sw, nil, err)
}

func (w *schemeSW) NextDeadline() units.Time { return w.p.NextDeadline() }

func (w *schemeSW) Timer(now units.Time, sw *Switch) {
	if w.rec != nil {
		w.rec.timer(now)
	}
	err := call(&w.act, func(a *cc.Actions) error { return w.p.Timer(now, a) })
	if w.rec != nil {
		w.rec.out(w.p, err, w.act)
	}
	w.apply(now, sw, nil, err)
}

// apply carries out the actions of an event on frame p (nil for Pause,
// Message and Timer), or records its error.
func (w *schemeSW) apply(now units.Time, sw *Switch, p *Packet, err error) {
	if err != nil {
		w.errs.Add(now, flowOf(p), err)
		return
	}
	for _, a := range w.act.All() {
		switch a.Kind {
		case cc.ActionMarkCE:
			if p != nil {
				p.CE = true
			}
		case cc.ActionFeedback:
			// A message about a flow that has ended is not sent (false),
			// as a congestion point's is not.
			switch fb := a.Feedback; a.To {
			case cc.ToSource:
				sw.Send(FlowID(fb.Flow), fb)
			case cc.ToDestination:
				sw.SendToDestination(FlowID(fb.Flow), fb)
			case cc.ToSwitch:
				if e := sw.SendSwitchID(a.Switch, fb); e != nil {
					w.errs.Add(now, flowOf(p), e)
				}
			}
		case cc.ActionCredit:
			if e := sw.AddCredit(int(a.Port), NodeID(a.Node), a.Bytes); e != nil {
				w.errs.Add(now, flowOf(p), e)
			}
		case cc.ActionAssignQueue:
			if w.enq < 0 || p == nil {
				w.errs.Add(now, flowOf(p), fmt.Errorf("harness: a switch point assigned a queue outside an Enqueue"))
			} else if e := sw.n.ports[w.enq].physicalQueue(int(a.Queue)); e != nil {
				w.errs.Add(now, flowOf(p), e)
			} else {
				p.pq = uint8(a.Queue)
			}
		case cc.ActionPauseQueue, cc.ActionResumeQueue:
			if e := sw.HoldQueue(int(a.Port), int(a.Queue), a.Kind == cc.ActionPauseQueue); e != nil {
				w.errs.Add(now, flowOf(p), e)
			}
		default:
			w.errs.Add(now, flowOf(p), fmt.Errorf("harness: switch point asked for %v, which the harness does not carry out for switch points yet", a.Kind))
		}
	}
}

// SendToDestination sends control message fb about flow to the flow's
// destination host from this switch, sized and prioritised by its kind;
// false if the flow is unknown or has not started.
func (w *Switch) SendToDestination(flow FlowID, fb cc.Feedback) bool {
	s := w.s
	if flow < 0 || int(flow) >= len(s.flows) || !s.flows[flow].started {
		return false
	}
	f := s.flows[flow]
	return w.sendFrom(flow, f.dst.id, fb, 0) == nil
}

// SendSwitch sends control message fb to switch node, which hands it to
// its switch point (cc.SwitchPoint.Message: HierCC's credit to a
// sender-side ToR, BFC's pause to its upstream). The harness routes it
// toward a host attached to that switch, or, for a switch with no host,
// sends it on the first link to it when it is a neighbour (a hop-by-hop
// message); fb.Flow, if it names a flow, is only carried. It returns an
// error when node is neither.
func (w *Switch) SendSwitch(node NodeID, fb cc.Feedback) error {
	s := w.s
	if node < 0 || int(node) >= len(s.nodes) || s.nodes[node].isHost {
		return fmt.Errorf("harness: SendSwitch: node %d is not a switch", node)
	}
	hs := s.hostsOf[node]
	if len(hs) == 0 {
		for _, pt := range w.n.ports {
			if pt.peer.node.id == node {
				return w.sendOn(pt, fb, node+1)
			}
		}
		return fmt.Errorf("harness: SendSwitch: switch %s has no host to route toward and is not a neighbour of %s", s.nodes[node].name, w.n.name)
	}
	return w.sendFrom(-1, hs[0].id, fb, node+1)
}

// SendSwitchID is SendSwitch to the switch whose 12-bit SwitchID
// (switchInfo.SwitchID, cc.Env.SwitchID) is id: how a switch point
// addresses another switch (cc.ToSwitch). In a network of more than 4095
// switches IDs repeat, and id names the first switch that has it.
func (w *Switch) SendSwitchID(id uint16, fb cc.Feedback) error {
	n := w.s.bySwID[id&0xFFF]
	if n == nil || id > 0xFFF {
		return fmt.Errorf("harness: SendSwitchID: no switch has ID %d", id)
	}
	return w.SendSwitch(n.id, fb)
}

// sendFrom queues control message fb at this switch toward host dst:
// about flow (−1: none), for switch toSwitch−1 when toSwitch > 0.
func (w *Switch) sendFrom(flow FlowID, dst NodeID, fb cc.Feedback, toSwitch NodeID) error {
	s := w.s
	p := s.pool.get()
	p.Kind = KindFeedback
	p.Flow = flow
	p.Src = w.n.id
	p.Dst = dst
	p.toSwitch = toSwitch
	p.Feedback = fb
	s.controlWire(p, fb.Kind)
	s.st.feedbackSent++
	if toSwitch-1 == w.n.id {
		// Addressed to this switch: it arrives at this instant, through no
		// port, once the event in progress is over (the module is not
		// called back while it acts).
		s.evq.push(event{at: s.now, kind: evSwitchMsg, idx: int32(w.n.id), pkt: p.handle})
		return nil
	}
	out := s.route(w.n, flow, w.n.id, dst)
	if out == nil {
		s.drop(nil, p)
		return fmt.Errorf("harness: %s has no route to %s", w.n.name, s.nodes[dst].name)
	}
	s.enqueue(w.n, out, p, nil)
	return nil
}

// sendOn queues control message fb at this switch's port out, for switch
// toSwitch−1, its neighbour on that port.
func (w *Switch) sendOn(out *port, fb cc.Feedback, toSwitch NodeID) error {
	s := w.s
	p := s.pool.get()
	p.Kind = KindFeedback
	p.Flow = -1
	p.Src = w.n.id
	p.Dst = toSwitch - 1
	p.toSwitch = toSwitch
	p.Feedback = fb
	s.controlWire(p, fb.Kind)
	s.st.feedbackSent++
	s.enqueue(w.n, out, p, nil)
	return nil
}

// switchMessage hands control message p, addressed to switch sw, to its
// module, and frees it.
func (s *Sim) switchMessage(sw *node, in int, p *Packet) {
	s.st.feedbackRecv++
	w := sw.module
	if w == nil {
		s.errs.add(s.now, -1, sw.name, fmt.Errorf("harness: a %v message for %s, which runs no switch point", p.Feedback.Kind, sw.name))
	} else {
		w.mod.Message(s.now, w, in, &p.Feedback) // p is freed after: no copy escapes
		s.armModule(w)
	}
	s.consumed(p)
}

// TxBytes returns the wire bytes egress port has sent since the run began.
func (w *Switch) TxBytes(port int) uint64 { return w.n.ports[port].st.txBytes }
