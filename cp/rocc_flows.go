package cp

import (
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/fixedpoint"
	"github.com/hwcc/hwcc/units"
)

// RoCCMaxFlowCapacity is the largest flow-table capacity, 2^20 flows.
const RoCCMaxFlowCapacity = 1 << 20

// roccFibHash is 2^32/φ, the multiplier of Fibonacci hashing: the top bits
// of flow·roccFibHash spread consecutive flow IDs over the table.
const roccFibHash = 0x9E3779B1

// roccFlowBytesMax is the largest per-flow byte count, the 32-bit counter's
// maximum (4 GB, far above any switch buffer); an enqueue beyond it is
// rejected.
const roccFlowBytesMax = math.MaxUint32

// roccPosBits is the width of the queue table's enqueue and dequeue byte
// positions: free-running counters compared wrap-safely.
const roccPosBits = 64

// roccSlot is one entry, 16 bytes: four to a 64-byte cache line.
type roccSlot struct {
	val int64 // queued bytes (queue table) or last-seen time (aged table)
	key uint32
	// used marks an occupied slot; partial (queue table) a flow entered
	// while packets the table did not count were queued, whose entry
	// position is in roccFlowMap.pos.
	used, partial bool
}

// roccFlowMap is the open-addressing core of both flow tables (section
// III-D): a fixed-capacity hash table over 32-bit flow identifiers with
// linear probing and backward-shift deletion (no tombstones), allocated
// once by its constructor, so that no event allocates. The slot array has
// at least twice the capacity in slots (a power of two), so a probe
// sequence stays short. Iteration is in slot order, which depends only on
// the sequence of updates (the hash is fixed), never on map order.
//
// Iteration walks a valid-bit vector, as a switch walks the valid bits of
// a table rather than its entries: occ holds one bit per slot (bit i%64 of
// occ[i/64] is slots[i].used) and top one bit per word of occ (bit w%64 of
// top[w/64] is set iff occ[w] ≠ 0). A walk reads the top words (one per
// 4096 slots: one word at the presets' 2048 slots), then only the non-zero
// occ words, and finds each occupied slot with a trailing-zero count, so
// its cost follows the flows the table holds, not its size. Both vectors
// change with the used flag, in insert and remove.
type roccFlowMap struct {
	slots []roccSlot
	// pos[i] is the enqueue position at which the partial flow in slot i
	// was entered (queue table); read and moved only for partial slots,
	// which exist only after an overflow.
	pos   []uint64
	occ   []uint64 // valid bit per slot
	top   []uint64 // bit per non-zero occ word
	mask  uint32
	shift uint // 32 − log2(len(slots))
	n     int
	cap   int
}

func newRoCCFlowMap(part string, capacity int) (roccFlowMap, error) {
	if capacity < 1 || capacity > RoCCMaxFlowCapacity {
		return roccFlowMap{}, &cc.ConfigError{Part: part, Field: "FlowCapacity", Value: strconv.Itoa(capacity),
			Range: "1.." + strconv.Itoa(RoCCMaxFlowCapacity)}
	}
	bits := uint(1)
	for 1<<bits < 2*capacity {
		bits++
	}
	words := (1<<bits + 63) >> 6
	return roccFlowMap{
		slots: make([]roccSlot, 1<<bits),
		pos:   make([]uint64, 1<<bits),
		occ:   make([]uint64, words),
		top:   make([]uint64, (words+63)>>6),
		mask:  1<<bits - 1,
		shift: 32 - bits,
		cap:   capacity,
	}, nil
}

// insert fills the empty slot i with key and val (a new flow) and sets its
// valid bit.
func (m *roccFlowMap) insert(i uint32, s roccSlot) {
	m.slots[i] = s
	m.n++
	w := i >> 6
	m.occ[w] |= 1 << (i & 63)
	m.top[w>>6] |= 1 << (w & 63)
}

// next returns the first occupied slot at or after i (0 ≤ i), or
// len(m.slots) if there is none: the valid-bit walk (see roccFlowMap).
func (m *roccFlowMap) next(i int) int {
	w := i >> 6
	if w >= len(m.occ) {
		return len(m.slots)
	}
	if b := m.occ[w] >> (uint(i) & 63); b != 0 {
		return i + bits.TrailingZeros64(b)
	}
	// The first non-zero occ word after w, from the summary.
	for w++; w < len(m.occ); w = (w | 63) + 1 {
		if b := m.top[w>>6] >> (uint(w) & 63); b != 0 {
			w += bits.TrailingZeros64(b)
			return w<<6 + bits.TrailingZeros64(m.occ[w])
		}
	}
	return len(m.slots)
}

func (m *roccFlowMap) home(key uint32) uint32 { return (key * roccFibHash) >> m.shift }

// find returns the slot holding key, or the empty slot where it would go.
func (m *roccFlowMap) find(key uint32) (uint32, bool) {
	i := m.home(key)
	for m.slots[i].used {
		if m.slots[i].key == key {
			return i, true
		}
		i = (i + 1) & m.mask
	}
	return i, false
}

// remove empties slot i and shifts later members of its probe run back so
// that every key stays reachable from its home slot.
func (m *roccFlowMap) remove(i uint32) {
	m.slots[i] = roccSlot{}
	m.n--
	for j := (i + 1) & m.mask; m.slots[j].used; j = (j + 1) & m.mask {
		h := m.home(m.slots[j].key)
		// The key at j may fill the hole at i if i lies on its probe path
		// h, h+1, …, j: its distance from h is at least the hole's from i.
		if (j-h)&m.mask >= (j-i)&m.mask {
			m.slots[i] = m.slots[j]
			if m.slots[i].partial {
				m.pos[i] = m.pos[j]
			}
			m.slots[j] = roccSlot{}
			i = j
		}
	}
	// Every hole but the last was refilled: one valid bit clears.
	w := i >> 6
	if m.occ[w] &^= 1 << (i & 63); m.occ[w] == 0 {
		m.top[w>>6] &^= 1 << (w & 63)
	}
}

// occupancyBits is the width of a counter of 0..cap flows.
func (m *roccFlowMap) occupancyBits() uint8 { return uint8(bits.Len(uint(m.cap))) }

// roccQueueFlows is the default flow table of [RoCC] §III-D
// (1), "a table of the flows currently in the queue": the flows with bytes
// in one FIFO egress queue and how many, updated on every enqueue and
// dequeue; a flow leaves when its count returns to zero. Each count is a
// 32-bit byte counter; an enqueue that would pass 2^32 − 1 is rejected. The
// zero value is not usable; build one with newRoCCQueueFlows.
//
// # Overflow
//
// The table holds Cap flows. A packet of a new flow that arrives while the
// table is full is not counted (Enqueue reports full): its flow gets no
// feedback while it stays out of the table. The paper does not say what
// happens then; the table keeps two promises, whatever the sequence of
// flows:
//
//   - It never refuses a legal dequeue: every packet that left the head of
//     the queue in FIFO order is accepted, counted or not.
//   - It stays consistent with the queue: a flow is in the table only while
//     it has bytes queued; its count is exactly its queued bytes, except
//     for a flow marked Partial, whose count misses the uncounted packets
//     it had queued when it was entered (never more than its queued bytes);
//     and a flow whose latest packet found room (or found it in the table)
//     is in the table until that packet leaves.
//
// Hardware carries this with one bit per packet: the P4 switch of section
// IV-B updates its flow table in the egress pipeline and would set a
// "counted" bit in the packet's bridged metadata at enqueue, so that the
// dequeue decrements only packets it counted. The table derives that bit
// instead of storing it, from the queue's two free-running 64-bit byte
// counters (enqueue and dequeue positions, as a switch's queue counts bytes
// in and out): in a FIFO queue a packet leaves when the dequeue position
// reaches the enqueue position it had, so a packet of flow f is counted iff
// it was enqueued at or after the position at which f was entered (or f was
// entered while no uncounted byte was queued, which is every entry until
// the first overflow). Untracked() is the uncounted bytes still queued; a
// dequeue that the table can prove illegal (more bytes than the flow's count
// or the uncounted bytes hold) is refused. A flow entered while uncounted
// bytes were queued keeps its entry position in a second array, read only
// for such flows: the slots stay 16 bytes, four to a cache line, and the
// table costs no more per packet than before until an overflow.
//
// The alternative designs refuse the dequeue or lose the flow: a table that
// counts the late-entered flow's dequeues against its count refuses a legal dequeue when an earlier, uncounted packet is
// larger than the count, and drops the flow, which then gets no feedback,
// when it is smaller. The authors' OMNeT++ model has no capacity limit
// (an unbounded map of packet counts per flow).
type roccQueueFlows struct {
	m roccFlowMap
	// enq and deq are the queue's enqueue and dequeue byte positions
	// (free-running, 64 bits, wrapping); untracked the queued bytes of
	// packets the table did not count.
	enq, deq  uint64
	untracked uint64
}

// newRoCCQueueFlows returns an empty table for up to capacity flows (1 to
// RoCCMaxFlowCapacity).
func newRoCCQueueFlows(capacity int) (*roccQueueFlows, error) {
	m, err := newRoCCFlowMap(roccCPPart, capacity)
	if err != nil {
		return nil, err
	}
	return &roccQueueFlows{m: m}, nil
}

// Len returns the number of flows in the table.
func (t *roccQueueFlows) Len() int { return t.m.n }

// Cap returns the capacity.
func (t *roccQueueFlows) Cap() int { return t.m.cap }

// Queued returns the bytes of flow the table counts in the queue and
// whether the table holds the flow. The count is the flow's queued bytes
// unless Partial(flow).
func (t *roccQueueFlows) Queued(flow uint32) (units.Bytes, bool) {
	i, ok := t.m.find(flow)
	if !ok {
		return 0, false
	}
	return units.Bytes(t.m.slots[i].val), true
}

// Partial reports whether flow is in the table but may have uncounted
// packets queued ahead of the ones it counts: it was entered while
// uncounted bytes were queued and the queue has not yet drained past the
// point where it was entered. Queued then returns less than the flow's
// queued bytes (or all of them, if none of the uncounted bytes were its
// own).
func (t *roccQueueFlows) Partial(flow uint32) bool {
	i, ok := t.m.find(flow)
	return ok && t.partialAt(i)
}

func (t *roccQueueFlows) partialAt(i uint32) bool {
	return t.m.slots[i].partial && fixedpoint.WrapBefore(t.deq, t.m.pos[i], roccPosBits)
}

// Untracked returns the queued bytes of packets the table did not count
// (their flows were not in the table and the table was full).
func (t *roccQueueFlows) Untracked() units.Bytes { return units.Bytes(t.untracked) }

// Bytes returns the bytes in the queue: every byte enqueued minus every
// byte dequeued, counted or not.
func (t *roccQueueFlows) Bytes() units.Bytes {
	return units.Bytes(fixedpoint.WrapSub(t.enq, t.deq, roccPosBits))
}

// Positions returns the queue's enqueue and dequeue byte positions: the
// free-running 64-bit counters of every byte that entered and left it.
func (t *roccQueueFlows) Positions() (enq, deq uint64) { return t.enq, t.deq }

// Why the queue table refuses an event.
const (
	roccNegative       = iota + 1 // a negative size
	roccCounterFull               // the flow's 32-bit counter would overflow
	roccTooBig                    // a new flow's packet above the counter
	roccAboveCount                // a counted packet above its flow's count
	roccAboveUntracked            // an uncounted packet above the uncounted bytes
)

// refuse returns the *cc.EventError of event for why (the roccNegative …
// constants). It runs only on the error path, so the event paths stay
// small; it reads the table as the refused event left it (unchanged).
//
//go:noinline
func (t *roccQueueFlows) refuse(event string, why int, flow uint32, size units.Bytes) error {
	var r string
	switch why {
	case roccNegative:
		r = strings.ToLower(event) + " of " + size.String() + ", want ≥ 0"
	case roccCounterFull:
		q, _ := t.Queued(flow)
		r = fmt.Sprintf("flow %d would have %v queued, above the 32-bit counter's %dB", flow, q+size, uint64(roccFlowBytesMax))
	case roccTooBig:
		r = fmt.Sprintf("enqueue of %v, want at most %dB", size, uint64(roccFlowBytesMax))
	case roccAboveCount:
		q, _ := t.Queued(flow)
		r = fmt.Sprintf("dequeue of %v for flow %d, which has %v queued", size, flow, q)
	case roccAboveUntracked:
		r = fmt.Sprintf("dequeue of %v for flow %d, which is not counted, but only %v of uncounted packets are queued",
			size, flow, units.Bytes(t.untracked))
	}
	return &cc.EventError{Part: roccCPPart, Event: event, Reason: r}
}

// enqueueWhy returns why the table refuses an enqueue of size > 0 bytes
// for a flow it holds with count bytes (found) or does not hold (a
// roccCounterFull or roccTooBig constant), or 0.
func enqueueWhy(found bool, count int64, size units.Bytes) int {
	switch {
	case found && int64(size) > roccFlowBytesMax-count: // (count + size would overflow int64 for a huge size)
		return roccCounterFull
	case !found && size > roccFlowBytesMax:
		return roccTooBig
	}
	return 0
}

// enqueueCheck returns why Enqueue would refuse an enqueue of size bytes
// of flow (a roccNegative … constant), or 0. It changes nothing.
func (t *roccQueueFlows) enqueueCheck(flow uint32, size units.Bytes) int {
	if size <= 0 {
		if size < 0 {
			return roccNegative
		}
		return 0
	}
	i, found := t.m.find(flow)
	return enqueueWhy(found, t.m.slots[i].val, size) // an empty slot's count is 0
}

// Enqueue records a packet of size bytes of flow joining the tail of the
// queue: its bytes are added to flow's count, entering the flow if it is
// new. A new flow that does not fit (the table holds Cap flows) is not
// entered and its bytes are counted as untracked: full is true, and that is
// not an error. A size of 0 changes nothing. It returns a *cc.EventError,
// changing nothing, for a negative size or a count that would pass
// 2^32 − 1 bytes (enqueueCheck).
func (t *roccQueueFlows) Enqueue(flow uint32, size units.Bytes) (full bool, err error) {
	if size <= 0 {
		if size < 0 {
			return false, t.refuse("Enqueue", roccNegative, flow, size)
		}
		return false, nil
	}
	i, found := t.m.find(flow)
	if found {
		s := &t.m.slots[i]
		if why := enqueueWhy(true, s.val, size); why != 0 {
			return false, t.refuse("Enqueue", why, flow, size)
		}
		s.val += int64(size)
		t.enq = fixedpoint.WrapAdd(t.enq, uint64(size), roccPosBits)
		return false, nil
	}
	if why := enqueueWhy(false, 0, size); why != 0 {
		return false, t.refuse("Enqueue", why, flow, size)
	}
	at := t.enq
	t.enq = fixedpoint.WrapAdd(t.enq, uint64(size), roccPosBits)
	if t.m.n >= t.m.cap {
		t.untracked += uint64(size)
		return true, nil
	}
	// A flow entered while uncounted bytes are queued may have some of
	// them: its dequeues before position at are not counted.
	partial := t.untracked > 0
	if partial {
		t.m.pos[i] = at
	}
	t.m.insert(i, roccSlot{key: flow, val: int64(size), used: true, partial: partial})
	return false, nil
}

// dequeueWhy returns why the table refuses a dequeue of size > 0 bytes of
// a packet it counted (counted, for a flow with count bytes) or did not
// count (untracked bytes of such packets queued): roccAboveCount or
// roccAboveUntracked, or 0.
func dequeueWhy(counted bool, count int64, untracked uint64, size units.Bytes) int {
	switch {
	case counted && int64(size) > count:
		return roccAboveCount
	case !counted && uint64(size) > untracked:
		return roccAboveUntracked
	}
	return 0
}

// dequeueCheck returns why Dequeue would refuse a dequeue of size bytes of
// flow at the head of the queue (a roccNegative … constant), or 0. It
// changes nothing.
func (t *roccQueueFlows) dequeueCheck(flow uint32, size units.Bytes) int {
	if size <= 0 {
		if size < 0 {
			return roccNegative
		}
		return 0
	}
	i, found := t.m.find(flow)
	return dequeueWhy(found && !t.partialAt(i), t.m.slots[i].val, t.untracked, size)
}

// Dequeue records the packet at the head of the queue, size bytes of flow,
// leaving it (the caller reports dequeues in FIFO order). A packet the
// table counted is subtracted from its flow's count, and the flow leaves
// the table at zero; an uncounted one from Untracked. A size of 0 changes
// nothing. It returns a *cc.EventError, changing nothing, for a dequeue the
// table can prove was never queued (dequeueCheck): a negative size, or more
// bytes than the flow's count or the uncounted bytes hold.
func (t *roccQueueFlows) Dequeue(flow uint32, size units.Bytes) error {
	if size <= 0 {
		if size < 0 {
			return t.refuse("Dequeue", roccNegative, flow, size)
		}
		return nil
	}
	i, found := t.m.find(flow)
	// The packet at the head was counted iff its flow is in the table and
	// was not entered after it (see Overflow on the type).
	if found && !t.partialAt(i) {
		s := &t.m.slots[i]
		if why := dequeueWhy(true, s.val, 0, size); why != 0 {
			return t.refuse("Dequeue", why, flow, size)
		}
		t.deq = fixedpoint.WrapAdd(t.deq, uint64(size), roccPosBits)
		s.partial = false // at or past its entry: every later packet is counted
		if s.val -= int64(size); s.val == 0 {
			t.m.remove(i)
		}
		return nil
	}
	if why := dequeueWhy(false, 0, t.untracked, size); why != 0 {
		return t.refuse("Dequeue", why, flow, size)
	}
	t.deq = fixedpoint.WrapAdd(t.deq, uint64(size), roccPosBits)
	t.untracked -= uint64(size)
	return nil
}

// ForEach calls fn(flow, counted bytes) for every flow in slot order. fn
// must not modify the table.
func (t *roccQueueFlows) ForEach(fn func(flow uint32, queued units.Bytes)) {
	for i := t.m.next(0); i < len(t.m.slots); i = t.m.next(i + 1) {
		s := &t.m.slots[i]
		fn(s.key, units.Bytes(s.val))
	}
}

// AppendFlows appends the flows in slot order to dst. With cap(dst) −
// len(dst) ≥ Len() it does not allocate.
func (t *roccQueueFlows) AppendFlows(dst []uint32) []uint32 {
	return t.m.appendFlows(dst)
}

func (m *roccFlowMap) appendFlows(dst []uint32) []uint32 {
	for i := m.next(0); i < len(m.slots); i = m.next(i + 1) {
		dst = append(dst, m.slots[i].key)
	}
	return dst
}

// roccAgedFlows is the flow table of [RoCC] §III-D (2):
// "RoCC has a lower bound for fair rate, hence the number of concurrent
// flows on a link has an upper bound (i.e., Fmax/Fmin)", used "in
// conjunction with a simple age-based flow eviction mechanism". It holds at
// most Cap flows, each with the time it was last seen on enqueue. Touch on
// a new flow with the table full evicts the least recently seen flow (the
// lowest slot among equals); Expire drops flows not seen for MaxAge. It
// ignores dequeues, so it never refuses one. The zero value is not usable;
// build one with newRoCCAgedFlows.
type roccAgedFlows struct {
	m         roccFlowMap
	maxAge    units.Time
	evictions uint64
}

// newRoCCAgedFlows returns an empty table for up to capacity flows (1 to
// RoCCMaxFlowCapacity) that forgets a flow maxAge (> 0) after it was last
// seen.
func newRoCCAgedFlows(capacity int, maxAge units.Time) (*roccAgedFlows, error) {
	if maxAge <= 0 {
		return nil, &cc.ConfigError{Part: roccCPPart, Field: "FlowMaxAge", Value: maxAge.String(), Range: "> 0"}
	}
	m, err := newRoCCFlowMap(roccCPPart, capacity)
	if err != nil {
		return nil, err
	}
	return &roccAgedFlows{m: m, maxAge: maxAge}, nil
}

// Len returns the number of flows in the table.
func (t *roccAgedFlows) Len() int { return t.m.n }

// Cap returns the capacity.
func (t *roccAgedFlows) Cap() int { return t.m.cap }

// Evictions returns how many flows Touch evicted to make room (a 64-bit
// wrapping counter).
func (t *roccAgedFlows) Evictions() uint64 { return t.evictions }

// LastSeen returns when flow was last seen and whether the table holds it.
func (t *roccAgedFlows) LastSeen(flow uint32) (units.Time, bool) {
	i, ok := t.m.find(flow)
	if !ok {
		return 0, false
	}
	return units.Time(t.m.slots[i].val), true
}

// Touch marks flow as seen at now, entering it if it is new. With the table
// full, a new flow replaces the least recently seen one (evicted is true):
// a scan of the slot array, done only on that path.
func (t *roccAgedFlows) Touch(now units.Time, flow uint32) (evicted bool) {
	i, ok := t.m.find(flow)
	if ok {
		t.m.slots[i].val = int64(now)
		return false
	}
	if t.m.n >= t.m.cap {
		oldest := -1
		for j := t.m.next(0); j < len(t.m.slots); j = t.m.next(j + 1) {
			if oldest < 0 || t.m.slots[j].val < t.m.slots[oldest].val {
				oldest = j
			}
		}
		t.m.remove(uint32(oldest))
		t.evictions++
		evicted = true
		i, _ = t.m.find(flow) // the removal may have moved the empty slot
	}
	t.m.insert(i, roccSlot{key: flow, val: int64(now), used: true})
	return evicted
}

// expired reports whether a flow last seen at seen is too old at now. Both
// are times the CP accepted, ≥ 0, so now − seen cannot overflow.
func (t *roccAgedFlows) expired(now units.Time, seen int64) bool {
	return now-units.Time(seen) >= t.maxAge
}

// sends returns how many messages n updates at d, d + t, …, d + (n−1)·t
// send, each after its Expire: the sum over the flows of the updates
// before the flow's age reaches maxAge (a flow last seen at s is kept by
// an update at u iff u − s < maxAge). It changes nothing; it saturates at
// the largest int.
func (t *roccAgedFlows) sends(d, period units.Time, n uint64) int {
	var total uint64
	for i := t.m.next(0); i < len(t.m.slots); i = t.m.next(i + 1) {
		// The updates at d + j·t < s + maxAge, j < n: ⌈(s + maxAge − d)/t⌉
		// of them, at most n (all, when s + maxAge passes MaxTime).
		end := fixedpoint.SatAdd(units.Time(t.m.slots[i].val), t.maxAge)
		k := n
		if end != units.MaxTime {
			if end <= d {
				continue
			}
			x := end - d
			k = min(n, uint64(x/period)+uint64(min(x%period, 1)))
		}
		total = fixedpoint.SatAdd(total, k)
	}
	return int(min(total, math.MaxInt))
}

// Expire drops every flow last seen at or before now − MaxAge.
func (t *roccAgedFlows) Expire(now units.Time) {
	// Slot order, skipping empty slots by the valid bits (read afresh at
	// each step, so a key a removal shifted is seen where it lands).
	for i := t.m.next(0); i < len(t.m.slots); i = t.m.next(i + 1) {
		// remove shifts a later key into slot i; look at i again. A key
		// shifted from the start of the array into its end is looked at
		// twice, which is harmless.
		for t.m.slots[i].used && t.expired(now, t.m.slots[i].val) {
			t.m.remove(uint32(i))
		}
	}
}

// ForEach calls fn(flow, last seen) for every flow in slot order. fn must
// not modify the table.
func (t *roccAgedFlows) ForEach(fn func(flow uint32, seen units.Time)) {
	for i := t.m.next(0); i < len(t.m.slots); i = t.m.next(i + 1) {
		s := &t.m.slots[i]
		fn(s.key, units.Time(s.val))
	}
}

// AppendFlows appends the flows in slot order to dst. With cap(dst) −
// len(dst) ≥ Len() it does not allocate.
func (t *roccAgedFlows) AppendFlows(dst []uint32) []uint32 {
	return t.m.appendFlows(dst)
}
