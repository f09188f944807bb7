package np

import (
	"fmt"

	"github.com/hwcc/hwcc/units"
)

// DCQCN notification point: per-flow CNP generation at the receiver
// (papers/survey-lossless-cc.txt section 4.1.2, "NP algorithm"; REFERENCE.md,
// DCQCN). One DCQCN value serves one flow (one RoCE QP). Two pacing rules are
// implemented, chosen by DCQCNConfig.Mode:
//
// DCQCNSlot, the paper's N-µs slots. "If no CNP generated due to the flow in
// the last time slot (N microseconds), a CNP will be generated and sent by the
// NP immediately, a new time slot begins. Otherwise, if any marked packet
// arrives within the current time slot, the NIC only generates one CNP packet
// at the beginning of next time slot." As implemented:
//
//   - A slot starts when a CNP is sent and lasts Interval.
//   - A marked packet outside any slot (the flow is quiet) sends a CNP at
//     once and starts a slot.
//   - A marked packet inside a slot sets a pending flag; the deadline is
//     the slot's end. At the deadline (OnTimer) the pending CNP is sent and a
//     new slot starts there. A slot that ends with nothing pending ends the
//     flow's slotting: the next marked packet is again "after a quiet slot".
//
// DCQCNMinInterval, the NIC's min_time_between_cnps (NVIDIA ConnectX,
// REFERENCE.md's parameter table: 4 µs, documented 2–4 µs): a marked packet
// sends a CNP if at least Interval has passed since the flow's last CNP, and
// is otherwise ignored. Nothing is deferred, so there is no deadline. (Our
// reading of "minimum time between CNPs": the vendor documentation gives the
// interval, not what happens to the marks inside it; ignoring them is the
// simple rule the name describes.)
//
// In both modes two CNPs of a flow are never closer than Interval: a CNP is
// sent at the `now` of the call that returns true, and every rule above
// compares against the previous CNP's time. A caller that runs OnTimer late
// gets the pending CNP late, and the new slot starts at that late time, never
// earlier. Interval = 0 sends a CNP for every marked packet (the public
// simulators' behaviour, REFERENCE.md: they "leave out ... CNP pacing").
//
// Time going backwards (a call's now before the previous call's) is an error
// that changes nothing.

// DCQCNMode selects the NP's pacing rule.
type DCQCNMode uint8

const (
	// DCQCNSlot is the paper's slot rule: immediate CNP after a quiet slot,
	// one deferred CNP at the slot boundary for later marks.
	DCQCNSlot DCQCNMode = iota + 1
	// DCQCNMinInterval is ConnectX's min_time_between_cnps: marks closer
	// than Interval to the last CNP are ignored.
	DCQCNMinInterval
)

// String returns "slot" or "min-interval".
func (m DCQCNMode) String() string {
	switch m {
	case DCQCNSlot:
		return "slot"
	case DCQCNMinInterval:
		return "min-interval"
	}
	return fmt.Sprintf("DCQCNMode(%d)", uint8(m))
}

// DCQCNMaxInterval is the largest Interval accepted.
const DCQCNMaxInterval = units.Second

// DCQCNConfig configures a DCQCN notification point.
type DCQCNConfig struct {
	// Mode is the pacing rule, DCQCNSlot or DCQCNMinInterval.
	Mode DCQCNMode
	// Interval is N, the slot length (DCQCNSlot), or min_time_between_cnps
	// (DCQCNMinInterval; vendor unit µs). Range: 0..DCQCNMaxInterval; 0
	// sends a CNP per marked packet.
	Interval units.Time
}

// DCQCNPaper is the paper's NP: slots of N = 50 µs (survey section 4.1.2,
// "N microseconds, usually 50µs"; REFERENCE.md).
func DCQCNPaper() DCQCNConfig {
	return DCQCNConfig{Mode: DCQCNSlot, Interval: 50 * units.Microsecond}
}

// DCQCNConnectX is the NVIDIA ConnectX NP: min_time_between_cnps = 4 µs, the
// default in REFERENCE.md's parameter table (documented 2–4 µs).
func DCQCNConnectX() DCQCNConfig {
	return DCQCNConfig{Mode: DCQCNMinInterval, Interval: 4 * units.Microsecond}
}

// DCQCNHPCCSim is the NP of the HPCC authors' ns-3 simulator as REFERENCE.md
// describes the public simulators: no CNP pacing, every marked packet is
// answered (the HPCC paper itself, papers/hpcc.txt section 5.1, gives no NP
// setting). The reaction point's rate_reduce_monitor_period then does all the
// pacing.
func DCQCNHPCCSim() DCQCNConfig {
	return DCQCNConfig{Mode: DCQCNMinInterval, Interval: 0}
}

// Validate checks every field's range and returns an error naming the first
// field out of range and the allowed range.
func (c DCQCNConfig) Validate() error {
	if c.Mode != DCQCNSlot && c.Mode != DCQCNMinInterval {
		return fmt.Errorf("np: DCQCN Mode = %v, want DCQCNSlot (%d) or DCQCNMinInterval (%d)",
			c.Mode, DCQCNSlot, DCQCNMinInterval)
	}
	if c.Interval < 0 || c.Interval > DCQCNMaxInterval {
		return fmt.Errorf("np: DCQCN Interval = %v, want 0..%v", c.Interval, DCQCNMaxInterval)
	}
	return nil
}

// DCQCNState is every register of a DCQCN notification point.
type DCQCNState struct {
	// SentCNP is true once the flow has sent a CNP; LastCNP is the time of
	// the latest one.
	SentCNP bool
	LastCNP units.Time
	// SlotEnd is the end of the current slot (DCQCNSlot): LastCNP +
	// Interval, saturating at units.MaxTime. Meaningful once SentCNP.
	SlotEnd units.Time
	// Pending is true while a CNP waits for SlotEnd (DCQCNSlot only).
	Pending bool
	// Started is false until the first event; Last is the latest event's
	// time (earlier times are rejected).
	Started bool
	Last    units.Time
	// Packets counts data packets, Marked the CE-marked ones, CNPs the CNPs
	// sent, Suppressed the marked packets that sent no CNP of their own
	// (merged into a pending CNP or ignored). 64-bit counters, wrapping.
	Packets, Marked, CNPs, Suppressed uint64
}

// DCQCN is the notification point of one flow. It is not safe for concurrent
// use. The zero value is not usable; build one with NewDCQCN.
type DCQCN struct {
	cfg DCQCNConfig
	s   DCQCNState
}

// NewDCQCN validates cfg and returns a notification point for a flow that
// has sent no CNP.
func NewDCQCN(cfg DCQCNConfig) (*DCQCN, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &DCQCN{cfg: cfg}, nil
}

// Config returns the configuration n was built with.
func (n *DCQCN) Config() DCQCNConfig { return n.cfg }

// State returns every register.
func (n *DCQCN) State() DCQCNState { return n.s }

// NextDeadline returns when a pending CNP is due (the end of the current
// slot), or units.MaxTime when nothing is pending (always, in
// DCQCNMinInterval mode).
func (n *DCQCN) NextDeadline() units.Time {
	if n.s.Pending {
		return n.s.SlotEnd
	}
	return units.MaxTime
}

// dcqcnAddTime returns t + d for d ≥ 0, saturating at units.MaxTime.
func dcqcnAddTime(t, d units.Time) units.Time {
	if t > units.MaxTime-d {
		return units.MaxTime
	}
	return t + d
}

func (n *DCQCN) checkTime(now units.Time, event string) error {
	if n.s.Started && now < n.s.Last {
		return fmt.Errorf("np: DCQCN %s at %v is before the previous event at %v", event, now, n.s.Last)
	}
	n.s.Started, n.s.Last = true, now
	return nil
}

// send records a CNP sent at now and starts a slot there.
func (n *DCQCN) send(now units.Time) {
	n.s.SentCNP, n.s.LastCNP = true, now
	n.s.SlotEnd = dcqcnAddTime(now, n.cfg.Interval)
	n.s.Pending = false
	n.s.CNPs++
}

// OnPacket handles a data packet of the flow arriving at now, ce telling
// whether it carries the CE mark, and returns whether to send a CNP now.
//
// In DCQCNSlot mode a call at or after a pending CNP's deadline first sends
// that CNP (the caller missed OnTimer); the packet's own mark then falls in
// the slot that CNP starts. At most one CNP is sent per call.
func (n *DCQCN) OnPacket(now units.Time, ce bool) (cnp bool, err error) {
	if err := n.checkTime(now, "OnPacket"); err != nil {
		return false, err
	}
	n.s.Packets++
	if n.cfg.Mode == DCQCNMinInterval {
		if !ce {
			return false, nil
		}
		n.s.Marked++
		if !n.s.SentCNP || now >= dcqcnAddTime(n.s.LastCNP, n.cfg.Interval) {
			n.send(now)
			return true, nil
		}
		n.s.Suppressed++
		return false, nil
	}
	// DCQCNSlot.
	if n.s.Pending && now >= n.s.SlotEnd {
		n.send(now) // the deferred CNP, late
		cnp = true
	}
	if !ce {
		return cnp, nil
	}
	n.s.Marked++
	if !cnp && (!n.s.SentCNP || now >= n.s.SlotEnd) {
		// First mark after a quiet slot: CNP at once, a new slot begins.
		// (Nothing is pending here: a pending CNP past its slot's end was
		// sent above, and one inside its slot means now < SlotEnd.)
		n.send(now)
		return true, nil
	}
	// Inside a slot: one CNP at the slot's end covers every mark in it.
	n.s.Pending = true
	n.s.Suppressed++
	return cnp, nil
}

// OnTimer sends the pending CNP if its deadline has come (now ≥
// NextDeadline()) and returns whether it did; the new slot starts at now.
// Calling it early or with nothing pending does nothing.
func (n *DCQCN) OnTimer(now units.Time) (cnp bool, err error) {
	if err := n.checkTime(now, "OnTimer"); err != nil {
		return false, err
	}
	if n.s.Pending && now >= n.s.SlotEnd {
		n.send(now)
		return true, nil
	}
	return false, nil
}
