package harness

import (
	"math/bits"

	"github.com/hwcc/hwcc/units"
)

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
// handle), so that the garbage collector neither scans the queue nor puts
// a write barrier on the copies the queue makes.
type event struct {
	at   units.Time
	seq  uint64 // insertion order, breaks ties between equal times
	idx  int32
	pkt  uint32 // the packet's handle (packetPool.at), 0 if none
	next int32  // eventQueue's calendar list link
	kind evKind
}

// before reports whether a runs before b: earlier time first, then earlier
// insertion. seq is unique, so the order is total and a run is reproducible.
func (a *event) before(b *event) bool {
	return a.at < b.at || (a.at == b.at && a.seq < b.seq)
}

// eventQueue holds the pending events and pops them in (at, seq) order. It is
// a calendar queue ([CalendarQueue]) in front of a heap: an event due within
// calSlots·calWidth of the last event popped goes into the calendar slot of
// its time (slot = (at / calWidth) mod calSlots), a list kept sorted by (at,
// seq); any other event (a timer far ahead) goes into far, a 4-ary heap.
// Every calendar event lies within one turn of the calendar from the last
// event popped, so the first non-empty slot from there (a bitmap finds it)
// holds the calendar's earliest event at its head, and pop takes the earlier
// of that and far's minimum: the order is exactly the heap's alone, (at,
// seq), ties in insertion order. Almost every event of a run (ends of
// serialisation and arrivals, due within a few µs) costs a list append and a
// bit scan instead of a sift.
//
// The calendar's events live in one arena, node, linked through
// event.next (indices plus one; 0 ends a list) with a free list of popped
// nodes; the arena and the heap grow while a run warms up and then
// allocate nothing. The zero value is an empty queue.
type eventQueue struct {
	seq  uint64
	last units.Time // the time of the last event popped (never decreases)
	n    int        // events in the calendar
	free int32      // free list of node, through event.next
	node []event
	head [calSlots]int32
	tail [calSlots]int32
	bits [calSlots / 64]uint64
	far  eventHeap
}

// Calendar geometry: calSlots slots of calWidth = 2^calShift ps (8.192 ns)
// each, one turn = 8.4 µs, enough for a frame's serialisation and
// propagation on the links of every built-in topology.
const (
	calShift = 13
	calSlots = 1024
)

// push schedules e, stamping its sequence number.
func (q *eventQueue) push(e event) {
	e.seq = q.seq
	q.seq++
	if e.at < q.last || uint64(e.at>>calShift)-uint64(q.last>>calShift) >= calSlots {
		q.far.push(e)
		return
	}
	var k int32 // e's node, plus one
	if k = q.free; k != 0 {
		q.free = q.node[k-1].next
	} else {
		q.node = append(q.node, event{})
		k = int32(len(q.node))
	}
	e.next = 0
	q.node[k-1] = e
	q.n++
	i := int(e.at>>calShift) & (calSlots - 1)
	t := q.tail[i]
	switch {
	case t == 0: // an empty slot
		q.head[i], q.tail[i] = k, k
		q.bits[i>>6] |= 1 << (i & 63)
	case q.node[t-1].at <= e.at: // e has the largest seq: it goes last
		q.node[t-1].next = k
		q.tail[i] = k
	default: // after the slot's events due no later than e
		var prev int32
		c := q.head[i]
		for q.node[c-1].at <= e.at {
			prev, c = c, q.node[c-1].next
		}
		q.node[k-1].next = c
		if prev == 0 {
			q.head[i] = k
		} else {
			q.node[prev-1].next = k
		}
	}
}

// len returns the number of pending events.
func (q *eventQueue) len() int { return q.n + len(q.far.ev) }

// first returns the calendar slot holding the calendar's earliest event,
// or -1 if the calendar is empty.
func (q *eventQueue) first() int {
	if q.n == 0 {
		return -1
	}
	cur := int(q.last>>calShift) & (calSlots - 1)
	w := cur >> 6
	if b := q.bits[w] &^ (1<<(cur&63) - 1); b != 0 {
		return w<<6 + bits.TrailingZeros64(b)
	}
	for k := 1; k <= len(q.bits); k++ {
		wk := (w + k) & (len(q.bits) - 1)
		if b := q.bits[wk]; b != 0 {
			return wk<<6 + bits.TrailingZeros64(b)
		}
	}
	return -1 // not reached: q.n > 0
}

// next returns where the next event is: calendar slot i ≥ 0, or far (-1).
// The queue must not be empty.
func (q *eventQueue) next() int {
	i := q.first()
	if i >= 0 && len(q.far.ev) > 0 && q.far.ev[0].before(&q.node[q.head[i]-1]) {
		return -1
	}
	return i
}

// pop removes and returns the next event; the queue must not be empty.
func (q *eventQueue) pop() event {
	e, _ := q.popUntil(units.MaxTime)
	return e
}

// popUntil removes and returns the next event if the queue holds one due
// at or before end (ok), else leaves the queue as it is.
func (q *eventQueue) popUntil(end units.Time) (e event, ok bool) {
	if q.n == 0 && len(q.far.ev) == 0 {
		return e, false
	}
	if i := q.next(); i >= 0 {
		k := q.head[i]
		if q.node[k-1].at > end {
			return e, false
		}
		e = q.node[k-1]
		if q.head[i] = e.next; e.next == 0 {
			q.tail[i] = 0
			q.bits[i>>6] &^= 1 << (i & 63)
		}
		q.node[k-1].next = q.free
		q.free = k
		q.n--
	} else {
		if q.far.ev[0].at > end {
			return e, false
		}
		e = q.far.pop()
	}
	q.last = max(q.last, e.at)
	return e, true
}

// each calls fn for every pending event, in no particular order.
func (q *eventQueue) each(fn func(*event)) {
	for i := range q.head {
		for k := q.head[i]; k != 0; k = q.node[k-1].next {
			fn(&q.node[k-1])
		}
	}
	for i := range q.far.ev {
		fn(&q.far.ev[i])
	}
}

// eventHeap is a 4-ary min-heap of events ordered by (at, seq), written
// out by hand over a slice of values (no container/heap, no interface
// boxing). Sifts move a hole instead of swapping, so each level costs one
// copy. It grows its slice while a run warms up and then allocates nothing.
type eventHeap struct {
	ev []event
}

// heapArity is the number of children per node: 4 halves the depth of a
// binary heap and keeps a node's children within two cache lines.
const heapArity = 4

// push adds e (its seq already stamped).
func (q *eventHeap) push(e event) {
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

// pop removes and returns the earliest event; the heap must not be empty.
func (q *eventHeap) pop() event {
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
// queue holds at most a few per slot.
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
