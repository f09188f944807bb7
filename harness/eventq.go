package harness

import "github.com/hwcc/hwcc/units"

// evKind says what an event does; the event's index field names the object
// it acts on (a port, a flow, a congestion point, a generator).
type evKind uint8

const (
	evArrive      evKind = iota // pkt arrives at ports[idx]'s node through ports[idx]
	evTxDone                    // ports[idx] finished serialising its frame
	evNICWake                   // ports[idx] (a host port) may send a paced packet
	evRPTimer                   // flows[idx]'s reaction point deadline
	evNPTimer                   // flows[idx]'s notification point deadline
	evRTO                       // flows[idx]'s retransmission timeout check
	evCPTimer                   // cps[idx]'s deadline
	evFlowStart                 // flows[idx] starts
	evFlowStop                  // flows[idx] stops sending (long-lived flows)
	evPoisson                   // generator idx draws its next flow
	evSample                    // take one time-series sample
	evMeasure                   // idx 0: measurement window opens, 1: it closes
	evTest                      // used by the event-core tests and benchmark
	evModuleTimer               // modules[idx]'s deadline
	evFCTimer                   // ports[idx]'s CBFC receivers' deadline
	evSwitchMsg                 // pkt, a message nodes[idx] sent itself, reaches its module
)

// event is one scheduled action. Events are plain values in a slice: no
// interface boxing, no closures, no pointers (the packet is its pool
// handle), so that the garbage collector neither scans the heap nor puts a
// write barrier on the moves of a sift.
type event struct {
	at   units.Time
	seq  uint64 // insertion order, breaks ties between equal times
	idx  int32
	pkt  uint32 // the packet's handle (packetPool.at), 0 if none
	kind evKind
}

// before reports whether a runs before b: earlier time first, then earlier
// insertion. seq is unique, so the order is total and a run is reproducible.
func (a *event) before(b *event) bool {
	return a.at < b.at || (a.at == b.at && a.seq < b.seq)
}

// eventQueue is a 4-ary min-heap of events ordered by (at, seq), written
// out by hand over a slice of values (no container/heap, no interface
// boxing). Sifts move a hole instead of swapping, so each level costs one
// copy. It grows its slice while a run warms up and then allocates nothing.
type eventQueue struct {
	ev  []event
	seq uint64
}

// heapArity is the number of children per node: 4 halves the depth of a
// binary heap and keeps a node's children within two cache lines.
const heapArity = 4

// push schedules e, stamping its sequence number.
func (q *eventQueue) push(e event) {
	e.seq = q.seq
	q.seq++
	q.ev = append(q.ev, e)
	i := len(q.ev) - 1
	for i > 0 {
		parent := (i - 1) / heapArity
		if !e.before(&q.ev[parent]) {
			break
		}
		q.ev[i] = q.ev[parent]
		i = parent
	}
	q.ev[i] = e
}

// len returns the number of pending events.
func (q *eventQueue) len() int { return len(q.ev) }

// peek returns the time of the next event; the queue must not be empty.
func (q *eventQueue) peek() units.Time { return q.ev[0].at }

// pop removes and returns the next event; the queue must not be empty.
func (q *eventQueue) pop() event {
	top := q.ev[0]
	n := len(q.ev) - 1
	x := q.ev[n]
	q.ev = q.ev[:n]
	if n == 0 {
		return top
	}
	i := 0
	for {
		c := heapArity*i + 1
		if c >= n {
			break
		}
		m := c
		for j, end := c+1, min(c+heapArity, n); j < end; j++ {
			if q.ev[j].before(&q.ev[m]) {
				m = j
			}
		}
		if !q.ev[m].before(&x) {
			break
		}
		q.ev[i] = q.ev[m]
		i = m
	}
	q.ev[i] = x
	return top
}

// timerSlot turns a state machine's reported deadline into at most one
// useful pending event. at is the time of the earliest event pushed for this
// slot that has not fired yet (MaxTime if none). A deadline that moves later
// does not push: the earlier event fires, finds the deadline not yet due and
// re-arms. A deadline that moves earlier pushes a new event; the old one
// fires later and finds nothing due. So stale events are harmless and the
// heap holds at most a few per slot.
type timerSlot struct {
	at units.Time
}

// want reports whether a deadline d needs a new event, and records it.
func (t *timerSlot) want(d units.Time) bool {
	if d == units.MaxTime || d >= t.at {
		return false
	}
	t.at = d
	return true
}

// fired is called when an event of this slot runs at now.
func (t *timerSlot) fired(now units.Time) {
	if now >= t.at {
		t.at = units.MaxTime
	}
}
