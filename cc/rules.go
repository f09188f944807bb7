package cc

import "errors"

// UnusedRegister is the register in which a reaction, notification or
// switch point counts the messages of kinds it does not use (rule 8):
// 64 bits, wrapping.
const UnusedRegister = "unused_feedback"

// Unused counts the messages of kinds a part does not use (rule 8), so that
// a caller that delivers a part what it has no use for (a miswired NIC
// model) shows in its snapshot and in traces. The zero value is 0.
type Unused struct{ n uint64 }

// Count counts one message, wrapping at 2^64.
func (u *Unused) Count() { u.n++ }

// N returns the count.
func (u Unused) N() uint64 { return u.n }

// Register returns the snapshot of the count: UnusedRegister, 64 bits.
func (u Unused) Register() Register { return Reg(UnusedRegister, 64, u.n) }

// ErrNoActions: an event that can decide was given a nil *Actions (rule
// 3); errors.Is matches it inside the *EventError a part returns.
var ErrNoActions = errors.New("cc: nil actions for an event that can decide")

// NoActions returns the error a part returns for a nil *Actions on an
// event that can decide (rule 3): an *EventError naming part and event,
// wrapping ErrNoActions. It is not inlined, so that a caller's path that
// does not refuse carries no allocation site.
//
//go:noinline
func NoActions(part, event string) error {
	return &EventError{Part: part, Event: event, Reason: "nil actions, and this event can decide", Err: ErrNoActions}
}
