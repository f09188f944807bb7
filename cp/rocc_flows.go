package cp

import (
	"fmt"
	"math"

	"github.com/hwcc/hwcc/units"
)

// RoCC flow tables (papers/rocc.txt section III-D): the recipients of the
// CP's feedback. Two of the paper's five designs are here:
//
//   - RoCCQueueFlows, (1) "a table of the flows currently in the queue", the
//     paper's default: per-flow queued-byte counts updated on enqueue and
//     dequeue; a flow leaves when its count returns to zero.
//   - RoCCAgedFlows, (2) a table bounded by Fmax/Fmin ("the number of
//     concurrent flows on a link has an upper bound") "in conjunction with a
//     simple age-based flow eviction mechanism".
//
// Both are fixed-capacity open-addressing hash tables (linear probing,
// backward-shift deletion, no tombstones) over 32-bit flow identifiers,
// allocated once by the constructor: no per-packet allocation. The slot
// array has at least twice the capacity in slots (a power of two), so a
// probe sequence stays short. Iteration is in slot order, which depends
// only on the sequence of updates (the hash is fixed), never on map order.

// RoCCMaxFlowCapacity is the largest flow-table capacity, 2^20 flows.
const RoCCMaxFlowCapacity = 1 << 20

// roccFibHash is 2^32/φ, the multiplier of Fibonacci hashing: the top bits
// of flow·roccFibHash spread consecutive flow IDs over the table.
const roccFibHash = 0x9E3779B1

// roccFlowBytesMax is the largest per-flow byte count, the 32-bit counter's
// maximum (4 GB, far above any switch buffer); an enqueue beyond it is
// rejected.
const roccFlowBytesMax = math.MaxUint32

type roccSlot struct {
	val  int64 // queued bytes or last-seen time
	key  uint32
	used bool
}

// roccFlowMap is the open-addressing core of both tables.
type roccFlowMap struct {
	slots []roccSlot
	mask  uint32
	shift uint // 32 − log2(len(slots))
	n     int
	cap   int
}

func newRoCCFlowMap(capacity int) (roccFlowMap, error) {
	if capacity < 1 || capacity > RoCCMaxFlowCapacity {
		return roccFlowMap{}, fmt.Errorf("cp: RoCC flow table capacity = %d, want [1, %d]", capacity, RoCCMaxFlowCapacity)
	}
	bits := uint(1)
	for 1<<bits < 2*capacity {
		bits++
	}
	return roccFlowMap{
		slots: make([]roccSlot, 1<<bits),
		mask:  1<<bits - 1,
		shift: 32 - bits,
		cap:   capacity,
	}, nil
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
			m.slots[j] = roccSlot{}
			i = j
		}
	}
}

// RoCCQueueFlows is the default flow table of section III-D (1): the flows
// with bytes in the queue and how many. Each count is a 32-bit byte counter;
// an enqueue that would pass 2^32 − 1 is rejected. The zero value is not
// usable; build one with NewRoCCQueueFlows.
type RoCCQueueFlows struct{ m roccFlowMap }

// NewRoCCQueueFlows returns an empty table for up to capacity flows (1 to
// RoCCMaxFlowCapacity).
func NewRoCCQueueFlows(capacity int) (*RoCCQueueFlows, error) {
	m, err := newRoCCFlowMap(capacity)
	if err != nil {
		return nil, err
	}
	return &RoCCQueueFlows{m: m}, nil
}

// Len returns the number of flows in the table.
func (t *RoCCQueueFlows) Len() int { return t.m.n }

// Cap returns the capacity.
func (t *RoCCQueueFlows) Cap() int { return t.m.cap }

// Queued returns the bytes of flow in the queue and whether the table holds
// the flow.
func (t *RoCCQueueFlows) Queued(flow uint32) (units.Bytes, bool) {
	i, ok := t.m.find(flow)
	if !ok {
		return 0, false
	}
	return units.Bytes(t.m.slots[i].val), true
}

// Enqueue adds size bytes to flow's count, entering the flow if it is new.
// A new flow that does not fit (the table holds Cap flows) is not entered:
// full is true, and that is not an error. A size of 0 changes nothing. It
// returns an error, changing nothing, for a negative size or a count that
// would pass 2^32 − 1 bytes.
func (t *RoCCQueueFlows) Enqueue(flow uint32, size units.Bytes) (full bool, err error) {
	if size < 0 || size > roccFlowBytesMax {
		return false, fmt.Errorf("cp: RoCC flow table enqueue of %v, want [0, %d]B", size, uint64(roccFlowBytesMax))
	}
	if size == 0 {
		return false, nil
	}
	i, ok := t.m.find(flow)
	if ok {
		if t.m.slots[i].val+int64(size) > roccFlowBytesMax {
			return false, fmt.Errorf("cp: RoCC flow %d would have %v queued, above the 32-bit counter's %dB",
				flow, units.Bytes(t.m.slots[i].val)+size, uint64(roccFlowBytesMax))
		}
		t.m.slots[i].val += int64(size)
		return false, nil
	}
	if t.m.n >= t.m.cap {
		return true, nil
	}
	t.m.slots[i] = roccSlot{key: flow, val: int64(size), used: true}
	t.m.n++
	return false, nil
}

// Dequeue subtracts size bytes from flow's count and removes the flow when
// the count reaches 0. It returns an error, changing nothing, for a flow not
// in the table, a negative size or more bytes than the flow has queued.
func (t *RoCCQueueFlows) Dequeue(flow uint32, size units.Bytes) error {
	i, ok := t.m.find(flow)
	if !ok {
		return fmt.Errorf("cp: RoCC flow table dequeue for flow %d, which is not in the table", flow)
	}
	if size < 0 || int64(size) > t.m.slots[i].val {
		return fmt.Errorf("cp: RoCC flow table dequeue of %v for flow %d, want [0, %v]", size, flow, units.Bytes(t.m.slots[i].val))
	}
	t.m.slots[i].val -= int64(size)
	if t.m.slots[i].val == 0 {
		t.m.remove(i)
	}
	return nil
}

// ForEach calls fn(flow, queued bytes) for every flow in slot order. fn must
// not modify the table.
func (t *RoCCQueueFlows) ForEach(fn func(flow uint32, queued units.Bytes)) {
	for i := range t.m.slots {
		if s := &t.m.slots[i]; s.used {
			fn(s.key, units.Bytes(s.val))
		}
	}
}

// AppendFlows appends the flows in slot order to dst. With cap(dst) −
// len(dst) ≥ Len() it does not allocate.
func (t *RoCCQueueFlows) AppendFlows(dst []uint32) []uint32 {
	for i := range t.m.slots {
		if s := &t.m.slots[i]; s.used {
			dst = append(dst, s.key)
		}
	}
	return dst
}

// RoCCAgedFlows is the flow table of section III-D (2): at most Cap flows
// (the paper bounds it by Fmax/Fmin), each with the time it was last seen.
// Touch on a new flow with the table full evicts the least recently seen
// flow (the lowest slot among equals); Expire drops flows not seen for
// MaxAge. The zero value is not usable; build one with NewRoCCAgedFlows.
type RoCCAgedFlows struct {
	m         roccFlowMap
	maxAge    units.Time
	evictions uint64
}

// NewRoCCAgedFlows returns an empty table for up to capacity flows (1 to
// RoCCMaxFlowCapacity) that forgets a flow maxAge (> 0) after it was last
// seen.
func NewRoCCAgedFlows(capacity int, maxAge units.Time) (*RoCCAgedFlows, error) {
	if maxAge <= 0 {
		return nil, fmt.Errorf("cp: RoCC aged flow table maxAge = %v, want > 0", maxAge)
	}
	m, err := newRoCCFlowMap(capacity)
	if err != nil {
		return nil, err
	}
	return &RoCCAgedFlows{m: m, maxAge: maxAge}, nil
}

// Len returns the number of flows in the table.
func (t *RoCCAgedFlows) Len() int { return t.m.n }

// Cap returns the capacity.
func (t *RoCCAgedFlows) Cap() int { return t.m.cap }

// Evictions returns how many flows Touch evicted to make room (a 64-bit
// wrapping counter).
func (t *RoCCAgedFlows) Evictions() uint64 { return t.evictions }

// LastSeen returns when flow was last seen and whether the table holds it.
func (t *RoCCAgedFlows) LastSeen(flow uint32) (units.Time, bool) {
	i, ok := t.m.find(flow)
	if !ok {
		return 0, false
	}
	return units.Time(t.m.slots[i].val), true
}

// Touch marks flow as seen at now, entering it if it is new. With the table
// full, a new flow replaces the least recently seen one (evicted is true):
// a scan of the slot array, done only on that path.
func (t *RoCCAgedFlows) Touch(now units.Time, flow uint32) (evicted bool) {
	i, ok := t.m.find(flow)
	if ok {
		t.m.slots[i].val = int64(now)
		return false
	}
	if t.m.n >= t.m.cap {
		oldest := -1
		for j := range t.m.slots {
			if t.m.slots[j].used && (oldest < 0 || t.m.slots[j].val < t.m.slots[oldest].val) {
				oldest = j
			}
		}
		t.m.remove(uint32(oldest))
		t.evictions++
		evicted = true
		i, _ = t.m.find(flow) // the removal may have moved the empty slot
	}
	t.m.slots[i] = roccSlot{key: flow, val: int64(now), used: true}
	t.m.n++
	return evicted
}

// Expire drops every flow last seen at or before now − MaxAge.
func (t *RoCCAgedFlows) Expire(now units.Time) {
	for i := range t.m.slots {
		// remove shifts a later key into slot i; look at i again. A key
		// shifted from the start of the array into its end is looked at
		// twice, which is harmless.
		for t.m.slots[i].used && now-units.Time(t.m.slots[i].val) >= t.maxAge {
			t.m.remove(uint32(i))
		}
	}
}

// ForEach calls fn(flow, last seen) for every flow in slot order. fn must
// not modify the table.
func (t *RoCCAgedFlows) ForEach(fn func(flow uint32, seen units.Time)) {
	for i := range t.m.slots {
		if s := &t.m.slots[i]; s.used {
			fn(s.key, units.Time(s.val))
		}
	}
}

// AppendFlows appends the flows in slot order to dst. With cap(dst) −
// len(dst) ≥ Len() it does not allocate.
func (t *RoCCAgedFlows) AppendFlows(dst []uint32) []uint32 {
	for i := range t.m.slots {
		if s := &t.m.slots[i]; s.used {
			dst = append(dst, s.key)
		}
	}
	return dst
}
