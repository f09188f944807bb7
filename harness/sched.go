package harness

import (
	"fmt"
	"strings"

	"github.com/hwcc/hwcc/units"
)

// Scheduler is an egress port's choice of which data priority sends next:
// a plug-in point of the switch (SwitchSpec.Scheduler). The port sends its
// PFC frames first and its control priority (ControlPrio) next, strictly;
// the scheduler arbitrates the data priorities 0..ControlPrio−1 that hold
// frames and are not paused by the downstream neighbour's PFC.
type Scheduler interface {
	// Pick returns the priority to send from now, or −1 when none may.
	Pick(v PortView) int
	// Sent tells it that a frame of size wire bytes left priority prio.
	Sent(v PortView, prio int, size units.Bytes)
}

// PortView is what a Scheduler sees of its port: per priority, the frames
// queued, the head frame's size and the pause state.
type PortView struct{ p *port }

// Packets returns the frames queued at priority prio.
func (v PortView) Packets(prio int) int { return v.p.packets(prio) }

// HeadSize returns the wire size of the frame at the head of prio's queue
// (0 when it is empty).
func (v PortView) HeadSize(prio int) units.Bytes {
	if h := v.p.q[prio].first(v.p.pool); h != nil {
		return h.Size
	}
	return 0
}

// Paused reports whether the downstream neighbour paused prio (PFC).
func (v PortView) Paused(prio int) bool { return v.p.pausedBy[prio] }

// Blocked reports whether prio may not send its head frame now: paused by
// PFC, or short of credit for it (CBFC, switch.flow_control = cbfc).
func (v PortView) Blocked(prio int) bool {
	h := v.p.q[prio].first(v.p.pool)
	return v.p.pausedBy[prio] || (h != nil && !v.p.creditFor(prio, h.Size))
}

// ready reports whether prio holds a frame it may send.
func (v PortView) ready(prio int) bool {
	h := v.p.q[prio].first(v.p.pool)
	return h != nil && !v.p.pausedBy[prio] && v.p.creditFor(prio, h.Size)
}

// strictPriority serves the highest ready data priority: the harness's
// default, as every 802.1Q switch offers.
type strictPriority struct{}

func (strictPriority) Pick(v PortView) int {
	if v.p.bytes == 0 {
		// Nothing queued, no priority ready: the common case of a port
		// that finished a frame with nothing behind it skips the scan.
		return -1
	}
	for prio := ControlPrio - 1; prio >= 0; prio-- {
		if v.ready(prio) {
			return prio
		}
	}
	return -1
}

func (strictPriority) Sent(PortView, int, units.Bytes) {}

// dwrr is deficit weighted round robin over the data priorities
// (Shreedhar and Varghese, "Efficient Fair Queuing using Deficit Round
// Robin", SIGCOMM 1995): each visit of priority c adds weight[c]·quantum
// bytes to its deficit, c sends while its head frame fits in the deficit,
// and an empty priority's deficit is reset to 0. With quantum at least the
// largest frame every visit of a ready priority sends, so over a busy
// period each backlogged priority gets weight[c]/Σ weight of the port's
// bytes, within one quantum per round. A priority paused by PFC is passed
// over and keeps its deficit. Weights of 0 are not served while another
// priority is ready (they get what the others leave).
type dwrr struct {
	quantum  units.Bytes
	weight   [NumPrios]int64
	deficit  [NumPrios]units.Bytes
	cur      int
	credited bool // cur has had this visit's quantum
}

// newDWRR returns a DWRR scheduler with weights per priority (missing
// entries: 1) and quantum bytes per unit of weight.
func newDWRR(weights []int, quantum units.Bytes) (*dwrr, error) {
	d := &dwrr{quantum: quantum}
	for i := range d.weight {
		d.weight[i] = 1
	}
	if len(weights) > NumPrios {
		return nil, fmt.Errorf("switch.weights has %d entries, want at most %d (one per priority)", len(weights), NumPrios)
	}
	for i, w := range weights {
		if w < 0 || w > 1<<20 {
			return nil, fmt.Errorf("switch.weights[%d] = %d, want 0..%d", i, w, 1<<20)
		}
		d.weight[i] = int64(w)
	}
	return d, nil
}

func (d *dwrr) Pick(v PortView) int {
	// A full round visits every priority once; two rounds bound the scan
	// (a visit that is credited but cannot send waits for the next round
	// only when its weight is 0).
	for n := 0; n < 2*ControlPrio; n++ {
		c := d.cur
		if v.ready(c) && d.weight[c] > 0 {
			if !d.credited {
				d.deficit[c] += units.Bytes(d.weight[c]) * d.quantum
				d.credited = true
			}
			if v.HeadSize(c) <= d.deficit[c] {
				return c
			}
		} else if v.Packets(c) == 0 {
			d.deficit[c] = 0 // DRR: an empty queue keeps no credit
		}
		d.cur, d.credited = (c+1)%ControlPrio, false
	}
	// Only weight-0 priorities are ready: serve them strictly.
	return strictPriority{}.Pick(v)
}

func (d *dwrr) Sent(v PortView, prio int, size units.Bytes) {
	if prio < ControlPrio && d.weight[prio] > 0 {
		d.deficit[prio] = max(d.deficit[prio]-size, 0)
		if v.Packets(prio) == 0 {
			d.deficit[prio] = 0
		}
	}
}

// Scheduler kinds for SwitchSpec.Scheduler.
const (
	SchedulerStrict = "strict"
	SchedulerDWRR   = "dwrr"
)

// SchedulerKinds lists the schedulers SwitchSpec.Scheduler names.
func SchedulerKinds() []string {
	return []string{SchedulerStrict, SchedulerDWRR, SchedulerVOQ, SchedulerVOQCredit, SchedulerQueues}
}

// newScheduler builds the scheduler spec names for one port, with quantum
// the largest frame of the run.
func newScheduler(kind string, weights []int, quantum units.Bytes) (Scheduler, error) {
	switch strings.ToLower(kind) {
	case "", SchedulerStrict:
		if len(weights) > 0 {
			return nil, fmt.Errorf("switch.weights are for switch.scheduler %q", SchedulerDWRR)
		}
		return strictPriority{}, nil
	case SchedulerDWRR:
		return newDWRR(weights, quantum)
	case SchedulerVOQ, SchedulerVOQCredit:
		if len(weights) > 0 {
			return nil, fmt.Errorf("switch.weights are for switch.scheduler %q", SchedulerDWRR)
		}
		return voqSched{credit: strings.ToLower(kind) == SchedulerVOQCredit}, nil
	case SchedulerQueues:
		if len(weights) > 0 {
			return nil, fmt.Errorf("switch.weights are for switch.scheduler %q", SchedulerDWRR)
		}
		return queuesSched{}, nil
	}
	return nil, fmt.Errorf("switch.scheduler = %q: want one of %s", kind, strings.Join(SchedulerKinds(), ", "))
}
