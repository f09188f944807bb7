package rp

import "github.com/hwcc/hwcc/units"

// SetState loads every register (the reference tests start the integer
// machine and the float model from the same state).
func (r *TIMELY) SetState(s TIMELYState) { r.st = s }

// Rho, BetaQ and AlphaQ are the constants NewTIMELY fixed, for the tests'
// error bounds.
func (r *TIMELY) Rho() int64    { return r.rho }
func (r *TIMELY) BetaQ() int64  { return r.betaQ }
func (r *TIMELY) AlphaQ() int64 { return r.alphaQ }

// OnRTT takes one RTT sample rtt at now and runs Algorithm 1 on it, as
// Feedback does with the sample a completed segment gives: the tests'
// way to the rate computation without the measurement. rtt is floored to
// ns and saturates at TIMELYMaxRTT; a now out of order or a negative rtt
// is refused.
func (r *TIMELY) OnRTT(now, rtt units.Time) error {
	if !r.clock.InOrder(now) {
		return r.clock.Check(timelyPart, "OnRTT", now)
	}
	if rtt < 0 {
		return timelyEventErr("OnRTT", "negative RTT")
	}
	r.clock.Advance(now)
	r.update(uint32(min(rtt/units.Nanosecond, timelyMaxRTTNs)))
	return nil
}
