package harness

import (
	"math/bits"
	"slices"

	"github.com/hwcc/hwcc/units"
)

// evKind says what an event does; the event's index field names the object
// it acts on (a port, a flow, a congestion point, a generator).
type evKind uint8

// The event kinds. The first three act on a port (evKind.onPort): keep
// them first.
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

// onPort reports whether idx of an event of kind k is a port's gid (of the
// kinds every frame makes; evFCTimer's is too, but it is rare).
func (k evKind) onPort() bool { return k <= evNICWake }

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

// eventQueue holds the pending events and pops them in (at, seq) order. It
// is a calendar queue ([CalendarQueue]) whose slot width follows
// the event density, with slots kept unsorted until they are reached:
//
//   - cur is the current slot number (at >> shift); bot holds every
//     pending event of slot cur or earlier, sorted by (at, seq), and pop
//     takes bot's first.
//   - the slots hold, unsorted, the events of the next len(head) slot
//     numbers, cur+1 .. cur+len(head), in lists (head, node) linked through
//     event.next; a push is a list prepend and a bit set.
//   - far, a 4-ary heap, holds the events beyond: a far event moves into
//     its slot as cur comes within len(head) slots of it.
//
// When bot runs out, the next non-empty slot (found through the bitmap)
// becomes cur and its list is gathered into bot and sorted. An event pushed
// into slot cur or earlier (at the current instant, or in the test's past)
// is inserted into bot in order. Every eventEpoch pops, adapt re-chooses
// the width from the events popped per slot and the number of slots from
// how far ahead the epoch's events were pushed; a change rebuilds the
// queue. The order is exactly a heap's of (at, seq), ties in insertion
// order, in every geometry: the differential test checks it against
// eventHeap. Cost model and measurements: doc.go, "Event queue".
//
// The slots' events live in one arena, nodes; the arena, bot, the slot
// arrays and the heap grow while a run warms up and then allocate nothing
// (a change of geometry reallocates the slot arrays only when they grow).
// The zero value is an empty queue.
type eventQueue struct {
	seq  uint64
	last units.Time // the time of the last event popped (never decreases)

	bot []event // the events of slot cur and earlier, sorted; bot[bi:] pending
	bi  int
	cur int64 // the current slot number, at >> shift

	shift uint       // slot width 2^shift ps
	head  []int32    // per slot: its list's first node plus one, 0 if empty
	bits  []uint64   // per slot: its list is not empty
	nodes eventArena // the slots' events
	n     int        // events in the slots

	far eventHeap // events beyond slot cur+len(head)

	pops    int        // pops since the epoch began
	epochAt units.Time // last at the epoch's start
	dist    [65]uint32 // the epoch's pushes by bits.Len of their distance in slots
	spill   []event    // rebuild's scratch
	warmth  uint32     // where refill's and aheadStep's loads land (nothing reads it)
	// ahead is the node of the next non-empty slot's list that the last
	// load ahead (refill's, then aheadStep's) fetched, plus one; 0 once
	// the walk has reached the list's end.
	ahead int32
}

// Geometry and adaptation. The width starts at 2^initShift ps over
// 2^minSlotBits slots; adapt keeps the events popped per slot within a
// factor 2 of eventPerSlot, and enough slots (a power of two, at most
// 2^maxSlotBits) for all but 1/2^eventFarShift of the pushes.
const (
	initShift      = 13 // 8.192 ns
	minSlotBits    = 10
	maxSlotBits    = 22
	maxShift       = 40 // 1.1 s
	eventEpoch     = 4096
	eventPerSlot   = 2
	eventFarShift  = 5
	eventIdleSlots = 8
)

// slots returns the number of slots (0 before the first push).
func (q *eventQueue) slots() int64 { return int64(len(q.head)) }

// push schedules e, stamping its sequence number. The common case, an
// event due in the slots with a free node to hold it, is written out here
// (a prepend to its slot's list), so that no call is made; pushSlow does
// the rest.
func (q *eventQueue) push(e event) {
	e.seq = q.seq
	q.seq++
	a := int64(e.at >> (q.shift & 63))
	d := a - q.cur
	k := q.nodes.free
	head := q.head
	// d in 1..len(head): before the first push there are no slots.
	if uint64(d-1) >= uint64(len(head)) || k == 0 {
		q.pushSlow(e, d)
		return
	}
	q.dist[bits.Len64(uint64(d))]++
	i := int(a) & (len(head) - 1)
	nd := &q.nodes.node[k-1]
	q.nodes.free = nd.next
	e.next = head[i]
	*nd = e
	head[i] = k
	q.bits[i>>6] |= 1 << (i & 63)
	q.n++
}

// pushSlow is push for e (its seq stamped, d its distance in slots from
// cur) when it is not due in the slots or the arena has no free node; it
// gives the queue its first geometry at its first push.
func (q *eventQueue) pushSlow(e event, d int64) {
	if q.head == nil {
		q.firstGeometry()
		d = int64(e.at>>q.shift) - q.cur
	}
	q.dist[bits.Len64(uint64(max(d, 0)))]++
	q.place(&e)
}

// firstGeometry gives the queue its first geometry, at its first push.
func (q *eventQueue) firstGeometry() {
	q.shift = initShift
	q.setSlots(minSlotBits)
	q.cur = int64(q.last >> q.shift)
}

// setSlots gives the queue 2^b empty slots.
func (q *eventQueue) setSlots(b int) {
	n := 1 << b
	if cap(q.head) >= n {
		q.head = q.head[:n]
		clear(q.head)
		q.bits = q.bits[:n/64]
		clear(q.bits)
		return
	}
	q.head = make([]int32, n)
	q.bits = make([]uint64, n/64)
}

// place puts e, its seq stamped, where it belongs: bot, a slot or far.
func (q *eventQueue) place(e *event) {
	a := int64(e.at >> q.shift)
	switch d := a - q.cur; {
	case d <= 0:
		q.insertBot(e)
	case d <= int64(len(q.head)):
		q.prepend(e, int(a)&(len(q.head)-1))
	default:
		q.far.push(*e)
	}
}

// insertBot inserts e into bot after every pending event before it.
func (q *eventQueue) insertBot(e *event) {
	lo, hi := q.bi, len(q.bot)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if q.bot[m].before(e) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == q.bi && q.bi > 0 { // before every pending event: reuse a popped place
		q.bi--
		q.bot[q.bi] = *e
		return
	}
	q.bot = slices.Insert(q.bot, lo, *e)
}

// prepend adds e to the list of slot i, its slot.
func (q *eventQueue) prepend(e *event, i int) {
	k := q.nodes.alloc()
	nd := q.nodes.at(k)
	*nd = *e
	nd.next = q.head[i]
	q.head[i] = k
	q.bits[i>>6] |= 1 << (i & 63)
	q.n++
}

// peek returns the next event to pop if it is already in bot (the slot
// being popped), else nil; the pointer is valid until the next push or pop.
func (q *eventQueue) peek() *event {
	if q.bi < len(q.bot) {
		return &q.bot[q.bi]
	}
	return nil
}

// len returns the number of pending events.
func (q *eventQueue) len() int { return len(q.bot) - q.bi + q.n + len(q.far.ev) }

// pop removes and returns the next event; the queue must not be empty.
func (q *eventQueue) pop() event {
	e, _ := q.popUntil(units.MaxTime)
	return e
}

// popUntil removes and returns the next event if the queue holds one due
// at or before end (ok), else leaves the queue's contents as they are.
func (q *eventQueue) popUntil(end units.Time) (e event, ok bool) {
	if q.bi == len(q.bot) && !q.refill() {
		return e, false
	}
	if q.bot[q.bi].at > end {
		return e, false
	}
	e = q.bot[q.bi]
	q.bi++
	q.last = max(q.last, e.at)
	if q.pops++; q.pops == eventEpoch {
		q.adapt()
	}
	return e, true
}

// refill makes the next non-empty slot the current one and sorts its
// events into bot; it reports false if the queue is empty.
func (q *eventQueue) refill() bool {
	q.bot, q.bi = q.bot[:0], 0
	if q.n == 0 {
		if len(q.far.ev) == 0 {
			return false
		}
		q.cur = int64(q.far.ev[0].at>>q.shift) - 1 // far's first event is in the next slot
		q.migrate()
	}
	q.cur += q.nextSlot()
	i := int(q.cur) & (len(q.head) - 1)
	for k := q.head[i]; k != 0; {
		nd := q.nodes.at(k)
		q.bot = append(q.bot, *nd)
		next := nd.next
		q.nodes.release(k)
		k = next
	}
	q.n -= len(q.bot)
	q.head[i] = 0
	q.bits[i>>6] &^= 1 << (i & 63)
	q.migrate() // after the gathering: slot i is now slot cur+len(head)
	if q.n > 0 {
		// Load the next slot's first node now, while this slot's events
		// run, rather than when it is reached: each node of a list is
		// found through the one before it, so the first is the only one
		// whose address is known ahead; aheadStep goes on from it.
		j := int(q.cur+q.nextSlot()) & (len(q.head) - 1)
		q.ahead = q.head[j]
		q.warmth += uint32(q.nodes.at(q.ahead).kind)
	} else {
		q.ahead = 0
	}
	// The list is in reverse order of push: reversed, events pushed with
	// the same delay are already in order, which insertion sort finds.
	slices.Reverse(q.bot)
	sortEvents(q.bot)
	return true
}

// aheadStep walks the next slot's list one node further: it returns the
// node fetched at the last step (refill's or aheadStep's, in cache by now)
// and loads its successor, or returns nil once the walk has reached the
// list's end. The run loop calls it once per event, so that the nodes of
// the next slot are fetched one event apart, each while an event runs,
// rather than one after the other when refill reaches them; and it warms
// the port and packet of the returned event, whose addresses are known
// only now. Nodes leave a slot's list only in refill (which restarts the
// walk) and rebuild (which stops it), so the node is still the event it
// was; pushes since refill may have prepended nodes that the walk does not
// visit. It changes nothing that pop returns.
func (q *eventQueue) aheadStep() *event {
	k := q.ahead
	if k == 0 {
		return nil
	}
	e := q.nodes.at(k)
	if q.ahead = e.next; q.ahead != 0 {
		q.warmth += uint32(q.nodes.at(q.ahead).kind)
	}
	return e
}

// sortEvents sorts evs by (at, seq): insertion sort for the few events of
// a slot at the right width, pdqsort for a crowd (events at one instant).
func sortEvents(evs []event) {
	if len(evs) > 24 {
		slices.SortFunc(evs, func(a, b event) int {
			if a.before(&b) {
				return -1
			}
			return 1 // seq is unique: never equal
		})
		return
	}
	for i := 1; i < len(evs); i++ {
		x := evs[i]
		j := i
		for ; j > 0 && x.before(&evs[j-1]); j-- {
			evs[j] = evs[j-1]
		}
		evs[j] = x
	}
}

// nextSlot returns the distance from cur to the next non-empty slot,
// 1..len(head); the slots must not all be empty.
func (q *eventQueue) nextSlot() int64 {
	mask := len(q.head) - 1
	start := int(q.cur+1) & mask
	w := start >> 6
	if b := q.bits[w] >> (start & 63); b != 0 {
		return int64(1 + bits.TrailingZeros64(b))
	}
	nw := len(q.bits)
	for k := 1; k <= nw; k++ {
		wk := (w + k) & (nw - 1)
		if b := q.bits[wk]; b != 0 {
			return int64((wk<<6+bits.TrailingZeros64(b)-start)&mask) + 1
		}
	}
	return 1 // not reached: q.n > 0
}

// migrate moves far's events that are now within len(head) slots of cur
// into their slots. They are all beyond cur: far holds only events beyond
// the slots, and cur moves by at most len(head) at a time.
func (q *eventQueue) migrate() {
	end := q.cur + q.slots()
	for len(q.far.ev) > 0 && int64(q.far.ev[0].at>>q.shift) <= end {
		e := q.far.pop()
		q.prepend(&e, int(e.at>>q.shift)&(len(q.head)-1))
	}
}

// adapt ends an epoch of eventEpoch pops. It re-chooses the slot width if
// the events popped per slot of the epoch are more than twice or less than
// half eventPerSlot, to the power of two nearest to meeting it; and the
// number of slots as the fewest that would have held all but
// 1/2^eventFarShift of the epoch's pushes (in the new width), growing to
// it at once but shrinking only to a quarter or less, and only when the
// slots outnumber the pending events eventIdleSlots times (a run's load
// varies from epoch to epoch: holding on to slots costs memory, not time).
// It rebuilds the queue in the new geometry if either changed.
func (q *eventQueue) adapt() {
	// The ps the epoch's pops spanned, capped so that the products below
	// stay within 63 bits (pops·2^shift < 2^53).
	dt := min(uint64(q.last-q.epochAt), 1<<56)
	pops := uint64(q.pops)
	q.pops, q.epochAt = 0, q.last
	shift := q.shift
	// Events per slot = pops·2^shift / dt; want eventPerSlot, that is
	// 2^shift ≈ w = eventPerSlot·dt / pops, rounded: up when w is more
	// than 1.5 times the power of two below it.
	perSlot := pops << q.shift
	if dt == 0 || perSlot > 2*eventPerSlot*dt || 2*perSlot < eventPerSlot*dt {
		shift = 0
		if w := eventPerSlot * dt / pops; w > 1 {
			shift = uint(bits.Len64(w) - 1)
			if w-1<<shift > 1<<shift/2 {
				shift++
			}
			shift = min(shift, maxShift)
		}
	}
	// dist[j] counts the pushes 2^(j-1) ≤ d < 2^j slots ahead (j = 0:
	// d ≤ 0); in slots of the new width they are 2^(q.shift-shift) times
	// as far.
	var pushes, held uint64
	for _, c := range q.dist {
		pushes += uint64(c)
	}
	b := bits.Len(uint(len(q.head))) - 1
	if pushes > 0 {
		scale := int(q.shift) - int(shift)
		need := 0
		for j, c := range q.dist {
			if held += uint64(c); held >= pushes-pushes>>eventFarShift {
				need = max(0, j+scale)
				break
			}
		}
		need = max(minSlotBits, min(maxSlotBits, need))
		if need > b || (need <= b-2 && len(q.head) > eventIdleSlots*q.len()) {
			b = need
		}
	}
	q.dist = [65]uint32{}
	if shift != q.shift || 1<<b != len(q.head) {
		q.rebuild(shift, b)
	}
}

// rebuild re-places every pending event in a geometry of 2^shift ps slots,
// 2^b of them, with cur the slot of the last event popped. The order of the
// events does not change: it is (at, seq) in any geometry.
func (q *eventQueue) rebuild(shift uint, b int) {
	q.spill = append(q.spill[:0], q.bot[q.bi:]...)
	for i := range q.head {
		for k := q.head[i]; k != 0; k = q.nodes.at(k).next {
			q.spill = append(q.spill, *q.nodes.at(k))
		}
	}
	q.spill = append(q.spill, q.far.ev...)
	q.bot, q.bi = q.bot[:0], 0
	q.ahead = 0
	q.nodes.node, q.nodes.free, q.n = q.nodes.node[:0], 0, 0
	q.far.ev = q.far.ev[:0]
	q.shift = shift
	q.setSlots(b)
	q.cur = int64(q.last >> shift)
	for i := range q.spill {
		if e := &q.spill[i]; int64(e.at>>shift) <= q.cur {
			q.bot = append(q.bot, *e)
		} else {
			q.place(e)
		}
	}
	sortEvents(q.bot)
}

// each calls fn for every pending event, in no particular order.
func (q *eventQueue) each(fn func(*event)) {
	for i := q.bi; i < len(q.bot); i++ {
		fn(&q.bot[i])
	}
	for i := range q.head {
		for k := q.head[i]; k != 0; k = q.nodes.at(k).next {
			fn(q.nodes.at(k))
		}
	}
	for i := range q.far.ev {
		fn(&q.far.ev[i])
	}
}

// eventArena holds events in lists linked through event.next by node
// index plus one (0 ends a list), with a free list of released nodes. It
// grows while a run warms up and then allocates nothing.
type eventArena struct {
	node []event
	free int32 // the first free node, plus one
}

// alloc returns a free node (its index plus one).
func (a *eventArena) alloc() int32 {
	if k := a.free; k != 0 {
		a.free = a.node[k-1].next
		return k
	}
	a.node = append(a.node, event{})
	return int32(len(a.node))
}

// at returns node k (an index plus one).
func (a *eventArena) at(k int32) *event { return &a.node[k-1] }

// release puts node k on the free list.
func (a *eventArena) release(k int32) {
	a.node[k-1].next = a.free
	a.free = k
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
