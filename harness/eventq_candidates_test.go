package harness

import (
	"math/bits"

	"github.com/hwcc/hwcc/units"
)

// The event queues the benchmarks compare eventQueue with (besides
// eventHeap, the 4-ary heap alone): the fixed calendar the harness used
// before, and eventQueue with Brown's sorted slots (pushSorted).

// fixedCalendar is the harness's former event queue: 1024 slots of 8.192
// ns, each a list kept sorted by (at, seq), over the 8.4 µs after the last
// event popped, and a 4-ary heap for later events. Its cost grows with the
// events per slot: a push walks its slot's list.
type fixedCalendar struct {
	seq   uint64
	last  units.Time // the time of the last event popped (never decreases)
	n     int        // events in the calendar
	nodes eventArena
	head  [fixedCalSlots]int32
	tail  [fixedCalSlots]int32
	bits  [fixedCalSlots / 64]uint64
	far   eventHeap
}

// fixedCalendar's geometry: fixedCalSlots slots of 2^fixedCalShift ps.
const (
	fixedCalShift = 13
	fixedCalSlots = 1024
)

// push schedules e, stamping its sequence number.
func (q *fixedCalendar) push(e event) {
	e.seq = q.seq
	q.seq++
	if e.at < q.last || uint64(e.at>>fixedCalShift)-uint64(q.last>>fixedCalShift) >= fixedCalSlots {
		q.far.push(e)
		return
	}
	k := q.nodes.alloc()
	e.next = 0
	*q.nodes.at(k) = e
	q.n++
	i := int(e.at>>fixedCalShift) & (fixedCalSlots - 1)
	t := q.tail[i]
	switch {
	case t == 0: // an empty slot
		q.head[i], q.tail[i] = k, k
		q.bits[i>>6] |= 1 << (i & 63)
	case q.nodes.at(t).at <= e.at: // e has the largest seq: it goes last
		q.nodes.at(t).next = k
		q.tail[i] = k
	default: // after the slot's events due no later than e
		var prev int32
		c := q.head[i]
		for q.nodes.at(c).at <= e.at {
			prev, c = c, q.nodes.at(c).next
		}
		q.nodes.at(k).next = c
		if prev == 0 {
			q.head[i] = k
		} else {
			q.nodes.at(prev).next = k
		}
	}
}

// len returns the number of pending events.
func (q *fixedCalendar) len() int { return q.n + len(q.far.ev) }

// first returns the calendar slot holding the calendar's earliest event,
// or -1 if the calendar is empty.
func (q *fixedCalendar) first() int {
	if q.n == 0 {
		return -1
	}
	cur := int(q.last>>fixedCalShift) & (fixedCalSlots - 1)
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
func (q *fixedCalendar) next() int {
	i := q.first()
	if i >= 0 && len(q.far.ev) > 0 && q.far.ev[0].before(q.nodes.at(q.head[i])) {
		return -1
	}
	return i
}

// pop removes and returns the next event; the queue must not be empty.
func (q *fixedCalendar) pop() event {
	e, _ := q.popUntil(units.MaxTime)
	return e
}

// popUntil removes and returns the next event if the queue holds one due
// at or before end (ok), else leaves the queue as it is.
func (q *fixedCalendar) popUntil(end units.Time) (e event, ok bool) {
	if q.n == 0 && len(q.far.ev) == 0 {
		return e, false
	}
	if i := q.next(); i >= 0 {
		k := q.head[i]
		if q.nodes.at(k).at > end {
			return e, false
		}
		e = *q.nodes.at(k)
		if q.head[i] = e.next; e.next == 0 {
			q.tail[i] = 0
			q.bits[i>>6] &^= 1 << (i & 63)
		}
		q.nodes.release(k)
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

// pushSorted is eventQueue's push with Brown's slots: each slot's list is
// kept sorted as events are pushed (latest first, so that refill's
// reversal leaves it in order and its sort only checks it), instead of
// being sorted once when the slot is reached. The events that migrate
// from far or move in a rebuild are prepended unsorted; refill's sort
// orders them.
func (q *eventQueue) pushSorted(e event) {
	e.seq = q.seq
	q.seq++
	if q.head == nil {
		q.firstGeometry()
	}
	a := int64(e.at >> q.shift)
	if d := a - q.cur; d <= 0 || d > q.slots() {
		q.place(&e)
		return
	}
	i := int(a) & (len(q.head) - 1)
	q.prepend(&e, i)
	k := q.head[i]
	if q.nodes.at(k).next == 0 || !q.nodes.at(k).before(q.nodes.at(q.nodes.at(k).next)) {
		return // e is the slot's latest
	}
	// Unlink e and insert it after the slot's events later than it.
	q.head[i] = q.nodes.at(k).next
	prev := q.head[i]
	for c := q.nodes.at(prev).next; c != 0 && q.nodes.at(k).before(q.nodes.at(c)); c = q.nodes.at(c).next {
		prev = c
	}
	q.nodes.at(k).next = q.nodes.at(prev).next
	q.nodes.at(prev).next = k
}
