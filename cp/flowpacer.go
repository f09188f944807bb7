package cp

import (
	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
)

// flowPacerMaxBits is the largest flowPacer table: 2^16 slots.
const flowPacerMaxBits = 16

// flowPacerMix is Fibonacci hashing's odd multiplier, ⌊2^32/φ⌋ rounded to
// odd.
const flowPacerMix = 0x9E3779B1

// flowPacer spaces the notifications a switch sends each flow's source:
// a table of 2^bits slots, each holding one flow ID and the time of its
// last notification, indexed by
//
//	slot = (flow · 0x9E3779B1 mod 2^32) >> (32 − bits)
//
// (Fibonacci hashing: the top bits of the 32-bit product; 0 bits is one
// slot). A flow is due a notification when its slot is free, holds
// another flow, or holds it notified at least the interval ago; the
// notification writes the slot. Two flows that share a slot take it from
// each other, so a collision sends extra notifications and never silences
// a flow. Slots are never emptied. BECN's and PACC's congestion points
// pace with it. The zero value has no slots (a scheme that keeps none).
type flowPacer struct {
	slots []flowPacerSlot
	shift uint8
}

// flowPacerSlot is one slot of a flowPacer.
type flowPacerSlot struct {
	last units.Time // the flow's last notification
	flow cc.FlowID
	used bool
}

// newFlowPacer returns an empty table of 2^bits slots (bits ≤
// flowPacerMaxBits; the caller validates it).
func newFlowPacer(bits uint8) flowPacer {
	return flowPacer{slots: make([]flowPacerSlot, 1<<bits), shift: 32 - bits}
}

// slot returns flow's slot, 0 for a table without slots.
func (t *flowPacer) slot(flow cc.FlowID) int {
	if t.slots == nil {
		return 0
	}
	return int((uint32(flow) * flowPacerMix) >> t.shift)
}

// due reports whether flow may be notified at now, interval after its last
// notification (now − last ≥ interval: exact, the caller's times being in
// order). It changes nothing.
func (t *flowPacer) due(flow cc.FlowID, now, interval units.Time) bool {
	e := &t.slots[t.slot(flow)]
	return !(e.used && e.flow == flow) || now-e.last >= interval
}

// note records a notification of flow at now in its slot. It reports
// whether the slot was free before (fresh) or held another flow
// (takeover).
func (t *flowPacer) note(flow cc.FlowID, now units.Time) (fresh, takeover bool) {
	e := &t.slots[t.slot(flow)]
	fresh, takeover = !e.used, e.used && e.flow != flow
	e.flow, e.used, e.last = flow, true, now
	return fresh, takeover
}
