package cc

import "github.com/hwcc/hwcc/units"

// Monotonic is the time-order register every part carries (rule 1): the
// latest now it accepted. Its zero value is time 0, so a now before 0 is
// always refused. Every hwcc part checks time order through it; a user's
// part may too.
//
// The check and the advance are separate so that an event can be refused
// for another reason after its time was checked and still leave the
// register unchanged (rule 2).
type Monotonic struct {
	last units.Time
}

// Check returns a *TimeOrderError naming part and event if now is before
// the latest accepted time, and nil otherwise. It changes nothing.
func (m *Monotonic) Check(part, event string, now units.Time) error {
	if now < m.last || now < 0 {
		return m.refuse(part, event, now)
	}
	return nil
}

// InOrder reports whether an event at now is in time order: Check's test
// without its error, for a hot path that builds the error only when it
// refuses.
func (m *Monotonic) InOrder(now units.Time) bool { return now >= m.last && now >= 0 }

// refuse builds Check's error. It is not inlined so that a caller's
// in-order path carries no allocation site (which would make the compiler
// spill the caller's arguments on every call).
//
//go:noinline
func (m *Monotonic) refuse(part, event string, now units.Time) error {
	return &TimeOrderError{Part: part, Event: event, Now: now, Last: m.last}
}

// Advance records now as the latest accepted time (a caller checked it
// first; an earlier now is ignored).
func (m *Monotonic) Advance(now units.Time) {
	if now > m.last {
		m.last = now
	}
}

// Accept is Check followed, on success, by Advance.
func (m *Monotonic) Accept(part, event string, now units.Time) error {
	if now < m.last || now < 0 {
		return m.refuse(part, event, now)
	}
	m.last = now
	return nil
}

// Last returns the latest accepted time (0 before any event).
func (m Monotonic) Last() units.Time { return m.last }

// Register returns the register snapshot of the latest accepted time:
// "now", 64 bits, picoseconds.
func (m Monotonic) Register() Register { return TimeReg("now", m.last) }
