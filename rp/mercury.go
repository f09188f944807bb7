package rp

import (
	"math"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/fixedpoint"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// The ranges of MercuryConfig's fields, stated once: Validate, the
// registry (package algos) and the docs read them from here.
const (
	// MercuryMaxWindow is the largest InitWindow: cwnd is a 32-bit byte
	// register.
	MercuryMaxWindow units.Bytes = math.MaxUint32
	// MercuryMinResetAfter and MercuryMaxResetAfter bound ResetAfter.
	MercuryMinResetAfter, MercuryMaxResetAfter = units.Nanosecond, units.Second
)

// MercuryConfig configures Mercury's sender: DCQCN's reaction point and
// the window the CNPs carry.
type MercuryConfig struct {
	// DCQCN is the rate controller, unchanged ([Mercury]: "we
	// adopt DCQCN by default").
	DCQCN DCQCNConfig
	// InitWindow is C·baseRTT in bytes, the window before any CNP and
	// after ResetAfter without one ("the window sizes are uniformly set to
	// C × baseRTT"), 1 B..MercuryMaxWindow (2^32−1 B).
	InitWindow units.Bytes
	// ResetAfter is how long without a CNP returns the window to
	// InitWindow (the paper: "when congestion disappears, the sender no
	// longer receives CNP ... the window size will be set to the initial
	// value"; how long is hwcc's),
	// MercuryMinResetAfter..MercuryMaxResetAfter (1 ns..1 s).
	ResetAfter units.Time
	// Window is where the CNP carries the window (as the switch's).
	Window wire.MercuryWindow
}

// MercuryPaper returns Mercury's sender on a link of rate line with the
// network's base RTT: DCQCN with its paper's parameters (DCQCNPaper:
// Mercury's evaluation runs DCQCN with "the parameter settings
// recommended in their papers"),
// InitWindow = line·baseRTT, and a reset after 100 µs without a CNP: two
// of the switch's 50 µs CNP intervals (hwcc's).
func MercuryPaper(line units.Rate, baseRTT units.Time) MercuryConfig {
	return MercuryConfig{
		DCQCN:      DCQCNPaper(line),
		InitWindow: units.BytesIn(line, baseRTT),
		ResetAfter: 100 * units.Microsecond,
	}
}

// mercuryPart names the Mercury reaction point in errors.
const mercuryPart = "rp.Mercury"

// mercuryCfgErr is the *cc.ConfigError of a field out of range.
func mercuryCfgErr(part, field, value, want string) error {
	return &cc.ConfigError{Part: part, Field: field, Value: value, Range: want}
}

// Validate reports the first field out of range as a *cc.ConfigError.
func (c MercuryConfig) Validate() error {
	switch {
	case c.InitWindow < 1 || c.InitWindow > MercuryMaxWindow:
		return mercuryCfgErr(mercuryPart, "InitWindow", c.InitWindow.String(), "1B.."+MercuryMaxWindow.String())
	case c.ResetAfter < MercuryMinResetAfter || c.ResetAfter > MercuryMaxResetAfter:
		return mercuryCfgErr(mercuryPart, "ResetAfter", c.ResetAfter.String(), MercuryMinResetAfter.String()+".."+MercuryMaxResetAfter.String())
	}
	if err := c.Window.Validate(mercuryPart); err != nil {
		return err
	}
	return c.DCQCN.Validate()
}

// MercuryState is the window's registers.
type MercuryState struct {
	// Cwnd is the window in force, bytes (32 bits).
	Cwnd uint32
	// Windowed: a CNP's window is in force; LastCNP is when the last CNP
	// came.
	Windowed bool
	LastCNP  units.Time
	// Windows counts the CNPs that carried a window, Resets the returns to
	// InitWindow (64 bits, wrapping).
	Windows, Resets uint64
}

// Mercury is the sender of Mercury ([Mercury] §"Window-based congestion
// notification", Algorithm 2 lines 15–20), a cc.ReactionPoint: DCQCN's
// reaction point unchanged, plus the window the switch (cp.Mercury) sends
// in its CNPs (wire.MercuryWindow).
//
//   - Feedback with a cc.FeedbackCNP: DCQCN's rate cut, and the window in
//     the CNP's reserved bytes (Window) becomes cwnd, at most InitWindow
//     (the switch never sends more). A CNP whose window is 0 carries none
//     (a plain DCQCN CNP): the rate cut alone. Every other kind goes to
//     DCQCN, which uses none: it runs the timers due and counts the
//     message in its unused_feedback (cc's rule 8).
//   - Limits: DCQCN's rate and the window cwnd: the caller sends while
//     its unacknowledged payload is below cwnd ("when the number of
//     inflight packets exceeds the window size, the sender stops packet
//     transmission").
//   - Timer: DCQCN's timers, and ResetAfter after the last CNP the window
//     returns to InitWindow. As every timer of the contract, both are
//     caught up by the next event when the caller lets them pass (cc's
//     rule 4).
//
// It never decides: every event takes a nil *cc.Actions. Its errors are
// DCQCN's (rp.DCQCN's refusals) and its own (time order, nil arguments).
type Mercury struct {
	cfg MercuryConfig
	// d is the rate controller, held by value: the events call its fast
	// paths (send, cnp) directly.
	d     DCQCN
	clock cc.Monotonic
	st    MercuryState
}

var _ cc.ReactionPoint = (*Mercury)(nil)

// NewMercury validates cfg and returns a sender at DCQCN's initial rate
// with the window InitWindow.
func NewMercury(cfg MercuryConfig) (*Mercury, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	d, err := NewDCQCN(cfg.DCQCN)
	if err != nil {
		return nil, err
	}
	return &Mercury{cfg: cfg, d: *d, st: MercuryState{Cwnd: uint32(cfg.InitWindow)}}, nil
}

// Config returns the configuration.
func (s *Mercury) Config() MercuryConfig { return s.cfg }

// State returns the window's registers.
func (s *Mercury) State() MercuryState { return s.st }

// DCQCN returns the rate controller, for reading.
func (s *Mercury) DCQCN() *DCQCN { return &s.d }

// reset returns the window to InitWindow if ResetAfter has passed since
// the last CNP.
func (s *Mercury) reset(now units.Time) {
	if s.st.Windowed && now >= s.resetAt() {
		s.st.Windowed = false
		s.st.Cwnd = uint32(s.cfg.InitWindow)
		s.st.Resets++
	}
}

func (s *Mercury) resetAt() units.Time { return fixedpoint.SatAdd(s.st.LastCNP, s.cfg.ResetAfter) }

// NextDeadline is the earlier of DCQCN's and the window's reset.
func (s *Mercury) NextDeadline() units.Time {
	d := s.d.NextDeadline()
	if s.st.Windowed {
		d = min(d, s.resetAt())
	}
	return d
}

// Sent records a data packet: DCQCN's byte counter (DCQCN.Sent), and the
// window's reset if it is due.
func (s *Mercury) Sent(now units.Time, p *cc.Packet, _ *cc.Actions) error {
	if !s.clock.InOrder(now) {
		return s.clock.Check(mercuryPart, "Sent", now)
	}
	if p == nil {
		return mercuryNil("Sent", "nil packet")
	}
	if err := s.d.send(dcqcnSent, now, p.Payload); err != nil {
		return err
	}
	s.clock.Advance(now)
	s.reset(now)
	return nil
}

// Feedback takes a message for the flow (see the type's doc): a CNP cuts
// DCQCN's rate and sets the window it carries; every other kind goes to
// DCQCN.Feedback.
func (s *Mercury) Feedback(now units.Time, f *cc.Feedback, act *cc.Actions) error {
	if !s.clock.InOrder(now) {
		return s.clock.Check(mercuryPart, "Feedback", now)
	}
	if f == nil {
		return mercuryNil("Feedback", "nil feedback")
	}
	if f.Kind != cc.FeedbackCNP {
		if err := s.d.Feedback(now, f, act); err != nil {
			return err
		}
		s.clock.Advance(now)
		s.reset(now)
		return nil
	}
	if err := s.d.cnp(dcqcnFeedback, now); err != nil {
		return err
	}
	s.clock.Advance(now)
	s.reset(now)
	w := s.cfg.Window.Get(&f.Data)
	if w == 0 {
		return nil // a CNP without a window
	}
	s.st.Cwnd = min(w, uint32(s.cfg.InitWindow))
	s.st.Windowed, s.st.LastCNP = true, now
	s.st.Windows++
	return nil
}

// Timer runs DCQCN's timers and the window's reset.
func (s *Mercury) Timer(now units.Time, _ *cc.Actions) error {
	if !s.clock.InOrder(now) {
		return s.clock.Check(mercuryPart, "Timer", now)
	}
	if err := s.d.tick(dcqcnTimer, now); err != nil {
		return err
	}
	s.clock.Advance(now)
	s.reset(now)
	return nil
}

// mercuryNil is the *cc.EventError of a nil argument. Errors are built out
// of line, so that the event path holds no allocation site.
//
//go:noinline
func mercuryNil(event, reason string) error {
	return &cc.EventError{Part: mercuryPart, Event: event, Reason: reason}
}

// Limits are DCQCN's rate and the window in force.
func (s *Mercury) Limits() cc.Limits {
	return cc.Limits{Rate: s.d.Rate(), Window: units.Bytes(s.st.Cwnd)}
}

// AppendRegisters appends cwnd (32), windowed (1), last_cnp (64, ps),
// windows (64), resets (64), then DCQCN's registers (DCQCN.AppendRegisters,
// now and unused_feedback among them: the reaction point's clock is
// DCQCN's, which every accepted event advances to the same now).
func (s *Mercury) AppendRegisters(dst []cc.Register) []cc.Register {
	dst = append(dst,
		cc.Reg("cwnd", 32, uint64(s.st.Cwnd)),
		cc.BoolReg("windowed", s.st.Windowed),
		cc.TimeReg("last_cnp", s.st.LastCNP),
		cc.Reg("windows", 64, s.st.Windows),
		cc.Reg("resets", 64, s.st.Resets))
	return s.d.AppendRegisters(dst)
}
