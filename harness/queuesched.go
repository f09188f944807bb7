package harness

import (
	"fmt"
	"math/bits"

	"github.com/hwcc/hwcc/units"
)

// SchedulerQueues is the scheduler kind that keeps each egress port's data
// frames in switch.queues physical FIFOs (SwitchSpec.Queues), served by
// deficit round robin. A switch point puts each data frame it sees join a
// port in the queue it chooses (cc.ActionAssignQueue on Enqueue: BFC's
// dynamic queue assignment) and may stop and resume serving any of its
// queues (cc.ActionPauseQueue, cc.ActionResumeQueue: BFC's per-queue
// backpressure from the next switch); a frame no switch point assigns
// waits in queue flow mod switch.queues (a stochastic fair queue by flow).
const SchedulerQueues = "queues"

// Physical queues per port under SchedulerQueues.
const (
	// DefaultPortQueues is switch.queues when 0: 32, the queues per port
	// of the switch BFC's paper runs on.
	DefaultPortQueues = 32
	// MaxPortQueues is the most: 64, a port's queue sets one 64-bit word
	// each.
	MaxPortQueues = 64
)

// queuesSched marks a port whose scheduler is SchedulerQueues: the port
// keeps its data frames in a portQueues instead of its priority FIFOs,
// and Pick is never called.
type queuesSched struct{}

func (queuesSched) Pick(PortView) int               { return -1 }
func (queuesSched) Sent(PortView, int, units.Bytes) {}

// portQueues is an egress port's physical queues. Deficit round robin
// (Shreedhar and Varghese, as dwrr) visits the queues that hold frames and
// are not held, in index order from the one whose turn it is: a visit adds
// quantum (one maximum frame) to the queue's deficit and the queue sends
// while its head frame fits; an emptied queue's deficit is reset, a held
// one keeps it. A queue whose head frame's priority is paused by PFC, or
// short of CBFC credit, is passed over for the scan. Control frames keep
// their strict priority ahead of every queue.
type portQueues struct {
	q        []fifo
	deficit  []units.Bytes
	nonempty uint64 // queues that hold frames
	held     uint64 // queues a switch point holds (cc.ActionPauseQueue)
	cur      int
	credited bool // cur has had this visit's quantum
	quantum  units.Bytes
	n        [NumPrios]int32 // frames per priority
}

// newPortQueues returns n empty queues served with quantum bytes per visit.
func newPortQueues(n int, quantum units.Bytes) *portQueues {
	return &portQueues{q: make([]fifo, n), deficit: make([]units.Bytes, n), quantum: quantum}
}

// queueOf is the queue a frame waits in when no switch point assigns it
// one: its flow's, modulo the queue count.
func (v *portQueues) queueOf(p *Packet) uint8 {
	return uint8(uint32(p.Flow) % uint32(len(v.q)))
}

// push queues p in queue p.pq.
func (v *portQueues) push(pp *packetPool, p *Packet) {
	v.q[p.pq].push(pp, p)
	v.nonempty |= 1 << p.pq
	v.n[p.Prio]++
}

// next pops the frame the round robin serves now, or nil.
func (v *portQueues) next(pt *port) *Packet {
	ready := v.nonempty &^ v.held
	// Each turn either sends, passes a queue over for good (its head may
	// not go), or moves on from a queue whose deficit is spent; every
	// queue is credited once per round, which sends its head (quantum ≥
	// any frame): two rounds bound the scan.
	for range 2*len(v.q) + 1 {
		if ready == 0 {
			return nil
		}
		if ready&(1<<v.cur) == 0 {
			v.cur, v.credited = nextSet(ready, v.cur), false
		}
		c := v.cur
		h := v.q[c].first(pt.pool)
		if pt.pausedBy[h.Prio] || !pt.creditFor(int(h.Prio), h.Size) {
			ready &^= 1 << c
			continue
		}
		if !v.credited {
			v.deficit[c] += v.quantum
			v.credited = true
		}
		if h.Size <= v.deficit[c] {
			p := v.q[c].pop(pt.pool)
			v.deficit[c] -= p.Size
			v.n[p.Prio]--
			if v.q[c].n == 0 {
				v.nonempty &^= 1 << c
				v.deficit[c] = 0
				v.cur, v.credited = (c+1)%len(v.q), false
			}
			return p
		}
		v.cur, v.credited = (c+1)%len(v.q), false
	}
	return nil
}

// nextSet returns the first set bit of m at or after i, wrapping (m ≠ 0).
func nextSet(m uint64, i int) int {
	if hi := m >> uint(i); hi != 0 {
		return i + bits.TrailingZeros64(hi)
	}
	return bits.TrailingZeros64(m)
}

// each calls fn for every frame in the queues.
func (v *portQueues) each(pp *packetPool, fn func(*Packet)) {
	for i := range v.q {
		v.q[i].each(pp, fn)
	}
}

// HoldQueue stops (hold true) or resumes serving physical queue q of
// egress port (switch.scheduler queues; cc.ActionPauseQueue and
// cc.ActionResumeQueue); a resumed queue is served again at this instant,
// after the event in progress. It returns an error when the port keeps no
// physical queues or has no queue q.
func (w *Switch) HoldQueue(port, q int, hold bool) error {
	if port < 0 || port >= len(w.n.ports) {
		return fmt.Errorf("harness: %s has no port %d", w.n.name, port)
	}
	pt := w.n.ports[port]
	if err := pt.physicalQueue(q); err != nil {
		return err
	}
	if hold {
		pt.fq.held |= 1 << q
		return nil
	}
	pt.fq.held &^= 1 << q
	// As AddCredit: a wake-up at now, not a kick from inside a hook.
	if !pt.busy && pt.wake.want(w.s.now) {
		w.s.evq.push(event{at: w.s.now, kind: evNICWake, idx: pt.gid})
	}
	return nil
}

// Held returns the set of port's physical queues held (bit q for queue q),
// 0 for a port without them.
func (w *Switch) Held(port int) uint64 {
	if port < 0 || port >= len(w.n.ports) || w.n.ports[port].fq == nil {
		return 0
	}
	return w.n.ports[port].fq.held
}

// physicalQueue returns an error unless pt keeps physical queues, q among
// them.
func (pt *port) physicalQueue(q int) error {
	switch {
	case pt.fq == nil:
		return fmt.Errorf("harness: port %s keeps no physical queues (switch.scheduler %s)", pt.name, SchedulerQueues)
	case q < 0 || q >= len(pt.fq.q):
		return fmt.Errorf("harness: port %s has physical queues 0..%d (switch.queues), not %d", pt.name, len(pt.fq.q)-1, q)
	}
	return nil
}
