package cp

import (
	"strconv"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
)

// TCDMaxTime is the largest TCDConfig.MaxTOn: 1 s.
const TCDMaxTime = units.Second

// TCDDefaultMaxTOn is the presets' max(Ton), hwcc's choice
// (docs/derivations.md, "TCD's state machine, reconstructed"): the longest
// ON period of a port that PFC switches on and off over a 4 µs link whose
// downstream drains it at up to half its rate, 12.3 µs at 100 Gb/s, with
// margin.
const TCDDefaultMaxTOn = 20 * units.Microsecond

// tcdPart names TCD's congestion point in errors.
const tcdPart = "cp.TCD"

// TCDState is an egress queue's congestion state ([TCD]: ternary
// congestion detection).
type TCDState uint8

const (
	// TCDNonCongested: the queue is at or below the threshold: the port's
	// arrivals do not exceed its capacity.
	TCDNonCongested TCDState = iota
	// TCDUndetermined: the port is paused by PFC, or has been sending for
	// less than max(Ton) since it last was, with its queue above the
	// threshold: the queue may be PFC's doing, not its arrivals'.
	TCDUndetermined
	// TCDCongested: the queue is above the threshold and the port has
	// been sending for at least max(Ton) (or was never paused): its
	// arrivals exceed its capacity.
	TCDCongested
)

// tcdStateBits is the width of the state register: 3 values.
const tcdStateBits = 2

// String returns "non-congested", "undetermined" or "congested".
func (s TCDState) String() string {
	switch s {
	case TCDNonCongested:
		return "non-congested"
	case TCDUndetermined:
		return "undetermined"
	case TCDCongested:
		return "congested"
	}
	return "TCDState(" + strconv.Itoa(int(s)) + ")"
}

// TCDConfig configures a TCD congestion point.
type TCDConfig struct {
	// Threshold is the congestion threshold K on the queue (bytes): a
	// queue above it is congested or undetermined, one at or below it
	// non-congested. 0..DCQCNMaxThreshold (a 32-bit register). The
	// presets take the marker's Kmin.
	Threshold units.Bytes
	// MaxTOn is max(Ton): a port that has been sending for less than it
	// since a PFC pause may still be in PFC's ON-OFF pattern. 0..TCDMaxTime
	// (0: a resumed port is judged at once, as one never paused).
	MaxTOn units.Time
	// Marker is DCQCN's RED marker, which decides the marks of the
	// congested state (its MarkAt is where packets are judged).
	Marker DCQCNConfig
}

// TCDDCQCN is DCQCN+TCD's congestion point at a port of rate link, as
// [Mercury] §"Experiment settings" runs it: DCQCN's marker
// (DCQCNHPCCSim: Kmin = 100 KB, Kmax = 400 KB per 25 Gb/s, Pmax = 0.2,
// judged at dequeue), the threshold at its Kmin, max(Ton) =
// TCDDefaultMaxTOn (20 µs). The threshold and max(Ton) are hwcc's
// choices (docs/derivations.md).
func TCDDCQCN(link units.Rate) TCDConfig {
	m := DCQCNHPCCSim(link)
	return TCDConfig{Threshold: m.Kmin, MaxTOn: TCDDefaultMaxTOn, Marker: m}
}

// Validate reports the first field out of range as a *cc.ConfigError
// (the marker's as DCQCNConfig.Validate names them).
func (c TCDConfig) Validate() error {
	bad := func(field, value, want string) error {
		return &cc.ConfigError{Part: tcdPart, Field: field, Value: value, Range: want}
	}
	switch {
	case c.Threshold < 0 || c.Threshold > DCQCNMaxThreshold:
		return bad("Threshold", c.Threshold.String(), "0B.."+DCQCNMaxThreshold.String())
	case c.MaxTOn < 0 || c.MaxTOn > TCDMaxTime:
		return bad("MaxTOn", c.MaxTOn.String(), "0s.."+TCDMaxTime.String())
	}
	return c.Marker.Validate()
}

// TCDRegs is every register of a TCD congestion point but the time
// (TCD.Last) and the marker's (TCD.Marker).
type TCDRegs struct {
	// State is the queue's state after the latest event (2 bits).
	State TCDState
	// Paused is the PFC pause the latest event reported (1 bit);
	// EverPaused whether any event has reported one (1 bit).
	Paused, EverPaused bool
	// OnSince is when the port was last seen sent again after a pause
	// (64-bit ps): the start of its current ON period.
	OnSince units.Time
	// Judged counts the packets judged (at the marker's MarkAt) in each
	// state, indexed by TCDState (64-bit, wrapping).
	Judged [3]uint64
}

// TCD is the congestion point of DCQCN+TCD: ternary congestion detection
// ([TCD], as [Mercury] §"Introduction" and §"Related work" describe it
// and docs/derivations.md reconstructs it) in front of DCQCN's RED marker,
// at one egress queue. The state follows the queue and its PFC pause
// (cc.Queue.Paused), both as each Enqueue and Dequeue reports them; with
// K the threshold and ON the time since the port was last seen resumed:
//
//	input (each event)              next state
//	paused                          Undetermined
//	not paused, Q ≤ K               NonCongested
//	not paused, Q > K, ON < max(Ton)   Undetermined
//	not paused, Q > K, ON ≥ max(Ton)   Congested     (a port never paused: ON ≥ max(Ton))
//
// from every state. A packet judged (at the marker's MarkAt, dequeue in
// the presets) in the Congested state is marked as DCQCN's marker decides
// (probability Pmax·(Q − Kmin)/(Kmax − Kmin) between the thresholds); in
// the other two states it is never marked and no draw is taken. The
// receivers and senders run DCQCN's notification and reaction points
// unchanged: the undetermined state, which [TCD] signals with a codepoint
// of its own, makes no mark that DCQCN would read.
//
// The resume is seen at the first event that reports the queue not
// paused after one that reported it paused (a port's first dequeue after
// a RESUME, as the harness calls it, comes at the RESUME's time when the
// queue holds data). A pause during which no packet joins the queue is
// not seen at all: the queue did not grow during it, and a switch point
// (cc.SwitchPoint.Pause) is the role that sees every PAUSE.
//
// Events. Enqueue and Dequeue update the state; the one at MarkAt judges
// the packet and refuses a nil act (cc's rule 3); the other takes nil.
// The packet is not read (it may be nil). A negative queue is a
// *cc.EventError, a mark without room a *cc.ActionsFullError; a refused
// event changes nothing. No timer.
type TCD struct {
	cfg    TCDConfig
	clock  cc.Monotonic
	r      TCDRegs
	marker DCQCN // its clock unused: decide reads none
}

var _ cc.CongestionPoint = (*TCD)(nil)

// NewTCD validates cfg and returns a congestion point NonCongested, not
// paused, its marker's LFSR at cfg.Marker.Seed.
func NewTCD(cfg TCDConfig) (*TCD, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	m, err := NewDCQCN(cfg.Marker)
	if err != nil {
		return nil, err
	}
	return &TCD{cfg: cfg, marker: *m}, nil
}

// Config returns the configuration.
func (t *TCD) Config() TCDConfig { return t.cfg }

// Regs returns TCD's registers.
func (t *TCD) Regs() TCDRegs { return t.r }

// State returns the queue's state after the latest event.
func (t *TCD) State() TCDState { return t.r.State }

// Marker returns the marker's registers: the LFSR and the counts of the
// packets it judged (those judged Congested), drew for and marked.
func (t *TCD) Marker() DCQCNState { return t.marker.State() }

// Last returns the time of the latest accepted event (0 before any).
func (t *TCD) Last() units.Time { return t.clock.Last() }

// Next returns the state after an event that reports queue q at now,
// from registers r: the transition table of TCD, a pure function.
func (c TCDConfig) Next(r TCDRegs, now units.Time, q cc.Queue) TCDRegs {
	if q.Paused {
		r.Paused, r.EverPaused = true, true
		r.State = TCDUndetermined
		return r
	}
	if r.Paused {
		r.Paused, r.OnSince = false, now // the resume, seen now
	}
	switch {
	case q.Len <= c.Threshold:
		r.State = TCDNonCongested
	case r.EverPaused && now-r.OnSince < c.MaxTOn:
		r.State = TCDUndetermined
	default:
		r.State = TCDCongested
	}
	return r
}

// event is Enqueue (at = DCQCNMarkEnqueue) and Dequeue.
func (t *TCD) event(ev string, at DCQCNMarkAt, now units.Time, q cc.Queue, act *cc.Actions) error {
	if err := t.clock.Check(tcdPart, ev, now); err != nil {
		return err
	}
	if q.Len < 0 {
		return negativeQueue(tcdPart, ev, q.Len)
	}
	judge := at == t.cfg.Marker.MarkAt
	if judge && act == nil {
		return cc.NoActions(tcdPart, ev)
	}
	r := t.cfg.Next(t.r, now, q)
	if !judge {
		t.r = r
		t.clock.Advance(now)
		return nil
	}
	r.Judged[r.State]++
	m := t.marker
	mark := r.State == TCDCongested && m.decide(q.Len)
	if mark && act.Free() < 1 {
		return act.Reserve(tcdPart, ev, 1)
	}
	t.r, t.marker = r, m
	t.clock.Advance(now)
	if mark {
		act.MarkCE()
	}
	return nil
}

// Enqueue takes a packet joining the queue (q.Len counts it) and q's
// pause; with the marker's MarkAt = DCQCNMarkEnqueue it judges the packet.
func (t *TCD) Enqueue(now units.Time, _ *cc.Packet, q cc.Queue, act *cc.Actions) error {
	return t.event("Enqueue", DCQCNMarkEnqueue, now, q, act)
}

// Dequeue takes a packet leaving the queue (q.Len is what it leaves) and
// q's pause; with the marker's MarkAt = DCQCNMarkDequeue (the presets') it
// judges the packet.
func (t *TCD) Dequeue(now units.Time, _ *cc.Packet, q cc.Queue, act *cc.Actions) error {
	return t.event("Dequeue", DCQCNMarkDequeue, now, q, act)
}

// NextDeadline: no timer.
func (t *TCD) NextDeadline() units.Time { return units.MaxTime }

// Timer only records now.
func (t *TCD) Timer(now units.Time, _ *cc.Actions) error {
	return t.clock.Accept(tcdPart, "Timer", now)
}

// AppendRegisters appends now (64-bit ps), state (2 bits: 0
// non-congested, 1 undetermined, 2 congested), paused and ever_paused (1
// each), on_since (64-bit ps), the 64-bit counters judged_n, judged_u and
// judged_c, then the marker's lfsr (32), packets, draws and marked (64).
func (t *TCD) AppendRegisters(dst []cc.Register) []cc.Register {
	m := t.marker.State()
	return append(dst,
		t.clock.Register(),
		cc.Reg("state", tcdStateBits, uint64(t.r.State)),
		cc.BoolReg("paused", t.r.Paused),
		cc.BoolReg("ever_paused", t.r.EverPaused),
		cc.TimeReg("on_since", t.r.OnSince),
		cc.Reg("judged_n", 64, t.r.Judged[TCDNonCongested]),
		cc.Reg("judged_u", 64, t.r.Judged[TCDUndetermined]),
		cc.Reg("judged_c", 64, t.r.Judged[TCDCongested]),
		cc.Reg("lfsr", 32, uint64(m.LFSR)),
		cc.Reg("packets", 64, m.Packets),
		cc.Reg("draws", 64, m.Draws),
		cc.Reg("marked", 64, m.Marked),
	)
}
