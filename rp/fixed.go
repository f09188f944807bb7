package rp

import (
	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
)

// Fixed is the reaction point of no congestion control: a constant pacing
// rate, or none, and no window. It uses no message: every message it is
// given changes nothing but the time and the count of unused messages (cc
// rule 8), so a caller that hands it ACKs or CNPs shows in its snapshot.
// It has no timer (no deadline is ever late) and decides nothing, so every
// event takes a nil *cc.Actions. With Rate 0 the flow sends as its NIC
// lets it: at the line rate, or at the rate its application offers. It is
// the baseline against which the algorithms are measured (registered as
// "none", and as "static" with a rate to set).
//
// Registers: now (64 bits, ps), rate (64 bits, bit/s: the configured
// rate, a constant), unused_feedback (64 bits, wrapping: every message).
type Fixed struct {
	rate   units.Rate
	mono   cc.Monotonic
	unused cc.Unused
}

var _ cc.ReactionPoint = (*Fixed)(nil)

// fixedPart names the part in errors.
const fixedPart = "rp.Fixed"

// FixedConfig configures a Fixed reaction point.
type FixedConfig struct {
	// Rate is the pacing rate of the flow's wire bytes; 0: none (the NIC's
	// line rate, or the application's offered rate). Range 0..FixedMaxRate.
	Rate units.Rate
}

// FixedMaxRate is the largest FixedConfig.Rate: 10 Tb/s.
const FixedMaxRate = 10 * units.Tbps

// NewFixed returns a Fixed reaction point; its error is a *cc.ConfigError
// for a rate out of range.
func NewFixed(cfg FixedConfig) (*Fixed, error) {
	if cfg.Rate < 0 || cfg.Rate > FixedMaxRate {
		return nil, &cc.ConfigError{Part: fixedPart, Field: "Rate", Value: cfg.Rate.String(), Range: "0.." + FixedMaxRate.String()}
	}
	return &Fixed{rate: cfg.Rate}, nil
}

// Sent records now. Errors, after which nothing changed:
// *cc.TimeOrderError; *cc.EventError for a nil p (every send has a frame).
func (f *Fixed) Sent(now units.Time, p *cc.Packet, _ *cc.Actions) error {
	const event = "Sent"
	if err := f.mono.Check(fixedPart, event, now); err != nil {
		return err
	}
	if p == nil {
		return &cc.EventError{Part: fixedPart, Event: event, Reason: "nil packet"}
	}
	f.mono.Advance(now)
	return nil
}

// Feedback records now and counts the message as unused: no message
// changes the rate. Errors, after which nothing changed:
// *cc.TimeOrderError; *cc.EventError for a nil m.
func (f *Fixed) Feedback(now units.Time, m *cc.Feedback, _ *cc.Actions) error {
	const event = "Feedback"
	if err := f.mono.Check(fixedPart, event, now); err != nil {
		return err
	}
	if m == nil {
		return &cc.EventError{Part: fixedPart, Event: event, Reason: "nil feedback"}
	}
	f.unused.Count()
	f.mono.Advance(now)
	return nil
}

// Limits is the configured rate and no window.
func (f *Fixed) Limits() cc.Limits { return cc.Limits{Rate: f.rate} }

// NextDeadline is units.MaxTime: no timer.
func (f *Fixed) NextDeadline() units.Time { return units.MaxTime }

// Timer records now. Error: *cc.TimeOrderError.
func (f *Fixed) Timer(now units.Time, _ *cc.Actions) error {
	return f.mono.Accept(fixedPart, "Timer", now)
}

// AppendRegisters appends now, rate and unused_feedback.
func (f *Fixed) AppendRegisters(dst []cc.Register) []cc.Register {
	return append(dst, f.mono.Register(), cc.Reg("rate", 64, uint64(f.rate)), f.unused.Register())
}
