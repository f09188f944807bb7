package harness

import (
	"errors"
	"fmt"

	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/voq"
)

// Scheduler kinds that keep a port's data frames in virtual output queues
// (SwitchSpec.Scheduler).
const (
	// SchedulerVOQ: one VOQ per destination host at every switch egress
	// port, served round robin, one frame per turn (voq.IgnoreCredit).
	SchedulerVOQ = "voq"
	// SchedulerVOQCredit: the same VOQs, each with a credit balance that
	// starts at switch.voq_credit and that a switch module tops up
	// (Switch.AddCredit, HierCC's credits from the receiver-side ToR);
	// the round robin serves a VOQ only while its balance is positive,
	// and each frame spends its wire bytes (voq.CreditPositive: the
	// balance may go below zero by less than one frame, as a deficit).
	SchedulerVOQCredit = "voq-credit"
)

// switch.voq_gate values.
const (
	VOQGateAll     = "all"
	VOQGateUplinks = "uplinks"
	// VOQGateLocal: at the switches with hosts, at every port, the frames
	// that came in from one of the switch's own hosts; every other frame
	// waits in VOQs served without credit.
	VOQGateLocal = "local"
)

// switch.ecmp values.
const (
	ECMPFlow        = "flow"
	ECMPDestination = "destination"
)

// hasHost reports whether switch n has a host attached.
func hasHost(n *node) bool {
	for _, pt := range n.ports {
		if pt.peer.node.isHost {
			return true
		}
	}
	return false
}

// voqSched marks a port whose scheduler is a VOQ kind: the port keeps its
// data frames in a portVOQ instead of its priority FIFOs, and Pick is never
// called.
type voqSched struct{ credit bool }

func (voqSched) Pick(PortView) int               { return -1 }
func (voqSched) Sent(PortView, int, units.Bytes) {}

// portVOQ is a switch egress port's virtual output queues, in up to two
// sets: the credit-gated VOQs (switch.scheduler voq-credit, on the ports
// and frames switch.voq_gate names) and the free ones, served round robin
// without credit. In each set the voq.Manager keeps the accounting and the
// round robin, keyed by the destination's node ID, and the port keeps each
// VOQ's frames in a FIFO by slot; a port with both sets serves them in
// turn, one frame each (a set with nothing to send passes its turn).
//
// Every data priority's frames go to the VOQ of their destination (a VOQ
// is per destination, not per class), so the head of a VOQ whose priority
// is paused by PFC, or short of CBFC credit, holds up its set until it
// may go (the round robin waits for it rather than serve a later VOQ out
// of turn): run one data priority through a VOQ port. Control frames keep
// their strict priority ahead of every VOQ. There is one slot per host of
// the network (memory: ports × hosts descriptors), so no destination is
// ever refused, and VOQs stay open for the run (a credited VOQ keeps its
// balance while it is empty).
type portVOQ struct {
	set  [2]*voqSet // [0] free, [1] gated; nil when the port has none
	n    [NumPrios]int32
	turn uint8 // the set whose turn it is
}

// voqSet is one set of VOQs of a port.
type voqSet struct {
	m *voq.Manager
	q []fifo // by slot
}

// voqGating says which sets a port has: free, gated, or both (the frames
// from the switch's own hosts gated, the others free).
type voqGating uint8

const (
	gateNone  voqGating = iota // every frame free (scheduler voq, or an ungated port)
	gateAll                    // every frame gated
	gateLocal                  // frames from the switch's hosts gated, others free
)

// newPortVOQ builds the VOQs of one port of a network of nodes nodes and
// hosts hosts, with frames up to maxFrame wire bytes; gated VOQs start
// with credit initial.
func newPortVOQ(g voqGating, initial units.Bytes, nodes, hosts int, maxFrame units.Bytes) (*portVOQ, error) {
	v := &portVOQ{}
	for i, want := range [2]bool{g != gateAll, g != gateNone} {
		if !want {
			continue
		}
		cfg := voq.RoundRobin(hosts, maxFrame)
		cfg.Keys = nodes
		kind := SchedulerVOQ
		if i == 1 {
			cfg.Eligibility = voq.CreditPositive
			cfg.InitialCredit = initial
			kind = SchedulerVOQCredit
		}
		m, err := voq.New(cfg)
		if err != nil {
			return nil, fmt.Errorf("switch.scheduler %s: %w", kind, err)
		}
		v.set[i] = &voqSet{m: m, q: make([]fifo, hosts)}
	}
	return v, nil
}

// gated returns the gated set, or nil.
func (v *portVOQ) gated() *voqSet { return v.set[1] }

// push queues data frame p (already admitted to the buffer) in its
// destination's VOQ: of the gated set if local (it came in from a host of
// this switch) or if the port has no free set, else of the free set.
func (v *portVOQ) push(pp *packetPool, p *Packet, local bool) error {
	vs := v.set[0]
	if vs == nil || (local && v.set[1] != nil) {
		vs = v.set[1]
	}
	slot, err := vs.m.Open(voq.Key(p.Dst))
	if err != nil {
		return err
	}
	if err := vs.m.Enqueue(slot, p.Size); err != nil {
		return err
	}
	vs.q[slot].push(pp, p)
	v.n[p.Prio]++
	return nil
}

// next pops the frame the round robin serves now, or nil: none is
// eligible, or the head of the VOQ whose turn it is may not go (paused,
// short of CBFC credit), in both sets.
func (v *portVOQ) next(pt *port) (*Packet, error) {
	for k := range 2 {
		i := v.turn ^ uint8(k)
		vs := v.set[i]
		if vs == nil {
			continue
		}
		p, err := vs.next(pt)
		if err != nil || p != nil {
			if p != nil {
				v.n[p.Prio]--
				v.turn = i ^ 1
			}
			return p, err
		}
	}
	return nil, nil
}

// next pops the frame set vs serves now, or nil.
func (vs *voqSet) next(pt *port) (*Packet, error) {
	slot, ok := vs.m.Next()
	if !ok {
		return nil, nil
	}
	h := vs.q[slot].first(pt.pool)
	if h == nil {
		return nil, errors.New("harness: VOQ accounting holds bytes its queue does not") // cannot happen
	}
	if pt.pausedBy[h.Prio] || !pt.creditFor(int(h.Prio), h.Size) {
		return nil, nil
	}
	if _, err := vs.m.Dequeue(slot, h.Size); err != nil {
		return nil, err
	}
	return vs.q[slot].pop(pt.pool), nil
}

// voqErr reports a VOQ refusal at port pt.
func (s *Sim) voqErr(pt *port, err error) {
	ErrorSink{log: &s.errs, where: pt.name + " voq"}.Add(s.now, -1, err)
}

// each calls fn for every frame in the VOQs.
func (v *portVOQ) each(pp *packetPool, fn func(*Packet)) {
	for _, vs := range v.set {
		if vs == nil {
			continue
		}
		for i := range vs.q {
			vs.q[i].each(pp, fn)
		}
	}
}

// packets returns the frames port pt holds at priority prio.
func (pt *port) packets(prio int) int {
	if pt.vq != nil && prio != ControlPrio {
		return int(pt.vq.n[prio])
	}
	if pt.fq != nil && prio != ControlPrio {
		return int(pt.fq.n[prio])
	}
	return pt.q[prio].n
}

// AddCredit adds n bytes of credit to the VOQ of destination dst at egress
// port (switch.scheduler voq-credit), opening it if needed; the port
// serves it again, at this instant but after the event in progress, if it
// was waiting for credit. It returns an error when the port keeps no VOQs,
// dst is not a host, or the balance would pass its register
// (voq.MaxCreditLimit).
func (w *Switch) AddCredit(port int, dst NodeID, n units.Bytes) error {
	if port < 0 || port >= len(w.n.ports) {
		return fmt.Errorf("harness: %s has no port %d", w.n.name, port)
	}
	pt := w.n.ports[port]
	if pt.vq == nil {
		return fmt.Errorf("harness: port %s keeps no VOQs (switch.scheduler %s or %s)", pt.name, SchedulerVOQ, SchedulerVOQCredit)
	}
	if pt.vq.gated() == nil {
		return fmt.Errorf("harness: port %s keeps no credit-gated VOQs (switch.scheduler %s, switch.voq_gate)", pt.name, SchedulerVOQCredit)
	}
	if dst < 0 || int(dst) >= len(w.s.nodes) || !w.s.nodes[dst].isHost {
		return fmt.Errorf("harness: AddCredit: node %d is not a host", dst)
	}
	m := pt.vq.gated().m
	slot, err := m.Open(voq.Key(dst))
	if err != nil {
		return err
	}
	if err := m.AddCredit(slot, n); err != nil {
		return err
	}
	// Not kick(pt) here: a module may call AddCredit from its hooks, and
	// from Enqueue a synchronous kick would send the frame that just
	// joined before the congestion point has seen it join (OnDequeue
	// before OnEnqueue, and a drop or CE mark applied to a frame on the
	// wire). A wake-up at now serves the port once the event is over.
	if !pt.busy && pt.wake.want(w.s.now) {
		w.s.evq.push(event{at: w.s.now, kind: evNICWake, idx: pt.gid})
	}
	return nil
}

// VOQ returns the registers of the VOQ of destination dst at egress port
// (the credit-gated one where the port has both sets), and false when the
// port keeps no VOQs or that VOQ was never opened.
func (w *Switch) VOQ(port int, dst NodeID) (voq.State, bool) {
	if port < 0 || port >= len(w.n.ports) || w.n.ports[port].vq == nil || dst < 0 {
		return voq.State{}, false
	}
	v := w.n.ports[port].vq
	vs := v.gated()
	if vs == nil {
		vs = v.set[0]
	}
	m := vs.m
	slot, ok := m.Lookup(voq.Key(dst))
	if !ok {
		return voq.State{}, false
	}
	st, err := m.State(slot)
	return st, err == nil
}
