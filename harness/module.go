package harness

import (
	"fmt"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
)

// SwitchModule is state a scheme keeps in a switch beyond one egress
// queue: per port or per destination (HierCC's per-destination VOQs and
// receiver-side credit tables, Mercury's per-port congestion states). It
// is a plug-in point of the switch: it sees every data frame that arrives
// at its switch, joins an egress queue and leaves one, and every PFC
// pause or resume of the switch's egress ports, and it may send control
// messages about a flow to the flow's source. One module runs per switch,
// built by the scheme (Scheme.Module); like a part, it reports a deadline
// and the harness calls Timer at it.
//
// The harness calls the module after its own handling of the event (the
// frame admitted, the pause applied) and before the egress queue's
// congestion point. A module must not keep the *Packet past the call.
type SwitchModule interface {
	// Arrive: data frame p came in through port in (before admission:
	// a frame the buffer refuses is also seen).
	Arrive(now units.Time, sw *Switch, in int, p *Packet)
	// Enqueue: p joined egress port out's queue of its priority.
	Enqueue(now units.Time, sw *Switch, out int, p *Packet)
	// Dequeue: p left egress port out to start transmission.
	Dequeue(now units.Time, sw *Switch, out int, p *Packet)
	// Pause: the downstream neighbour paused (or resumed) priority prio
	// of egress port out.
	Pause(now units.Time, sw *Switch, out int, prio uint8, paused bool)
	// NextDeadline is when Timer has work (units.MaxTime: none).
	NextDeadline() units.Time
	Timer(now units.Time, sw *Switch)
}

// SwitchInfo describes a switch to Scheme.Module.
type SwitchInfo struct {
	Node     NodeID
	Name     string
	SwitchID uint16
	Ports    int
	// PortList describes each port: its rate and the host it faces, if
	// any (cc.Env.SwitchPorts).
	PortList []cc.SwitchPort
	Rate     units.Rate // its fastest port's rate
	// MaxBaseRTT is the network's largest base RTT (FlowInfo.MaxBaseRTT),
	// the one RTT a switch can be configured with (Mercury's baseRTT).
	MaxBaseRTT units.Time
	// Params are the scenario's algorithm parameters (read only).
	Params map[string]string
	// Errors records what the module's state machines refuse.
	Errors ErrorSink
}

// Switch is a module's handle on its switch: what it may read of it and
// the messages it may send.
type Switch struct {
	s   *Sim
	n   *node
	mod SwitchModule
	idx int32
	tm  timerSlot
}

// Name returns the switch's name; ID its node ID; Ports its port count.
func (w *Switch) Name() string { return w.n.name }

// ID returns the switch's node ID.
func (w *Switch) ID() NodeID { return w.n.id }

// Ports returns the number of ports.
func (w *Switch) Ports() int { return len(w.n.ports) }

// PortRate returns port's line rate.
func (w *Switch) PortRate(port int) units.Rate { return w.n.ports[port].rate }

// Peer returns the name of the node at the other end of port.
func (w *Switch) Peer(port int) string { return w.n.ports[port].peer.node.name }

// QueueLen returns the bytes queued at egress port for priority prio.
func (w *Switch) QueueLen(port int, prio uint8) units.Bytes { return w.n.ports[port].qbytes[prio] }

// Paused reports whether the downstream neighbour paused prio on port.
func (w *Switch) Paused(port int, prio uint8) bool { return w.n.ports[port].pausedBy[prio] }

// BufferUsed returns the bytes of data in the switch's shared buffer.
func (w *Switch) BufferUsed() units.Bytes { return w.n.bufUsed }

// Send sends control message fb about flow to the flow's source, sized and
// prioritised by its kind (Scheme.Kinds); false if the flow is unknown or
// has ended.
func (w *Switch) Send(flow FlowID, fb cc.Feedback) bool {
	s := w.s
	if flow < 0 || int(flow) >= len(s.flows) {
		return false
	}
	f := s.flows[flow]
	if f.done || f.stopped || !f.started {
		return false
	}
	return w.sendFrom(flow, f.src.id, fb, 0) == nil
}

// moduleBuilder is implemented by an Algorithm that runs a module in
// every switch.
type moduleBuilder interface {
	NewModule(info SwitchInfo) (SwitchModule, error)
}

// buildModules gives every switch the algorithm's module, if it has one.
func (s *Sim) buildModules() error {
	mb, ok := s.algo.(moduleBuilder)
	if !ok {
		return nil
	}
	for _, n := range s.nodes {
		if n.isHost {
			continue
		}
		var rate units.Rate
		ports := make([]cc.SwitchPort, len(n.ports))
		for i, pt := range n.ports {
			rate = max(rate, pt.rate)
			ports[i] = cc.SwitchPort{Rate: pt.rate}
			if peer := pt.peer.node; peer.isHost {
				ports[i].Edge, ports[i].Host = true, cc.NodeID(peer.id)
			}
		}
		info := SwitchInfo{Node: n.id, Name: n.name, SwitchID: n.swID, Ports: len(n.ports), PortList: ports, Rate: rate, MaxBaseRTT: s.maxRTT, Params: s.sc.Params,
			Errors: ErrorSink{log: &s.errs, where: n.name + " module"}}
		m, err := mb.NewModule(info)
		if err != nil {
			return fmt.Errorf("algorithm %s: module of %s: %w", s.algo.Name(), n.name, err)
		}
		if m == nil {
			continue
		}
		w := &Switch{s: s, n: n, mod: m, idx: int32(len(s.modules))}
		w.tm.at = units.MaxTime
		n.module = w
		s.modules = append(s.modules, w)
		s.armModule(w)
	}
	return nil
}

// armModule schedules w's timer at its module's deadline.
func (s *Sim) armModule(w *Switch) {
	d := w.mod.NextDeadline()
	if d == units.MaxTime {
		return
	}
	if d < s.now {
		d = s.now
	}
	if w.tm.want(d) {
		s.evq.push(event{at: d, kind: evModuleTimer, idx: w.idx})
	}
}

// onModuleTimer runs a module's timer if it is due and re-arms it.
func (s *Sim) onModuleTimer(w *Switch) {
	w.tm.fired(s.now)
	if w.mod.NextDeadline() <= s.now {
		w.mod.Timer(s.now, w)
	}
	s.armModule(w)
}
