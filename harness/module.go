package harness

import (
	"fmt"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
)

// switchInfo describes a switch to the switch point built for it.
type switchInfo struct {
	Node     NodeID
	Name     string
	SwitchID uint16
	Ports    int
	// PortList describes each port: its rate and the host it faces, if
	// any (cc.Env.SwitchPorts).
	PortList []cc.SwitchPort
	Rate     units.Rate // its fastest port's rate
	// MaxBaseRTT is the network's largest base RTT (flowInfo.MaxBaseRTT),
	// the one RTT a switch can be configured with (Mercury's baseRTT).
	MaxBaseRTT units.Time
	// Errors records what the switch point refuses.
	Errors ErrorSink
}

// Switch is a switch point's handle on its switch: what it may read of it
// and the messages it may send.
type Switch struct {
	s   *Sim
	n   *node
	mod *schemeSW
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
// prioritised by its kind (cc.Deployment.Messages); false if the flow is unknown or
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

// buildModules gives every switch the algorithm's switch point, if its
// deployment runs one.
func (s *Sim) buildModules() error {
	if s.algo.parts[cc.RoleSW] == nil {
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
		info := switchInfo{Node: n.id, Name: n.name, SwitchID: n.swID, Ports: len(n.ports), PortList: ports, Rate: rate, MaxBaseRTT: s.maxRTT,
			Errors: ErrorSink{log: &s.errs, where: n.name + " module"}}
		m, err := s.algo.newModule(info)
		if err != nil {
			return fmt.Errorf("algorithm %s: switch point of %s: %w", s.algo.name(), n.name, err)
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
