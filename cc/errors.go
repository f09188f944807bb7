package cc

import (
	"errors"
	"strconv"

	"github.com/hwcc/hwcc/units"
)

// The sentinels every error of the contract matches with errors.Is.
var (
	// ErrTimeOrder: an event's now is before the latest now the part
	// accepted (or before time 0).
	ErrTimeOrder = errors.New("cc: event out of time order")
	// ErrConfig: a configuration value is unknown, malformed or out of
	// range.
	ErrConfig = errors.New("cc: invalid configuration")
	// ErrDecode: input bytes are malformed.
	ErrDecode = errors.New("cc: malformed bytes")
	// ErrActionsFull: an event's decisions do not fit the caller's Actions.
	ErrActionsFull = errors.New("cc: actions full")
	// ErrEvent: an event the part cannot take in its state (a dequeue of a
	// packet that was never queued, an ACK of data never sent, a value out
	// of its register's range).
	ErrEvent = errors.New("cc: event refused")
	// ErrUnknown: no algorithm or part by that name is registered.
	ErrUnknown = errors.New("cc: unknown algorithm or part")
)

// TimeOrderError is an event whose now is before Last, the latest now the
// part accepted. Part names the part ("rp.DCQCN"), Event the method
// ("Feedback").
type TimeOrderError struct {
	Part, Event string
	Now, Last   units.Time
}

// Error implements error: the TimeOrderError in one line, the part first.
func (e *TimeOrderError) Error() string {
	return e.Part + " " + e.Event + ": time " + e.Now.String() + " is before the last event's " + e.Last.String()
}

// Is reports whether target is ErrTimeOrder.
func (e *TimeOrderError) Is(target error) bool { return target == ErrTimeOrder }

// ConfigError is a bad configuration value: Field is the parameter (its
// registry name, or the Config field's Go name), Value what was given,
// Range what is allowed, and Err a cause, if any.
type ConfigError struct {
	Part  string
	Field string
	Value string
	Range string
	Err   error
}

// Error implements error: the ConfigError in one line, the part first.
func (e *ConfigError) Error() string {
	s := e.Part
	if s != "" {
		s += ": "
	}
	s += e.Field
	if e.Value != "" {
		s += " = " + e.Value
	}
	if e.Range != "" {
		s += ": want " + e.Range
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Is reports whether target is ErrConfig.
func (e *ConfigError) Is(target error) bool { return target == ErrConfig }

// Unwrap returns the cause.
func (e *ConfigError) Unwrap() error { return e.Err }

// DecodeError is malformed input bytes: What names the message ("RoCC
// feedback"), Offset the byte where decoding failed, Reason why.
type DecodeError struct {
	What   string
	Offset int
	Reason string
	// Err is a cause a codec lets callers match (a sentinel of its own),
	// or nil.
	Err error
}

// Error implements error: the DecodeError in one line, the part first.
func (e *DecodeError) Error() string {
	s := e.What + ": byte " + strconv.Itoa(e.Offset) + ": " + e.Reason
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Is reports whether target is ErrDecode.
func (e *DecodeError) Is(target error) bool { return target == ErrDecode }

// Unwrap returns the cause.
func (e *DecodeError) Unwrap() error { return e.Err }

// ActionsFullError is an event whose decisions do not fit: it needs Need
// more entries and the caller's Actions had Free.
type ActionsFullError struct {
	Part, Event string
	Need, Free  int
}

// Error implements error: the ActionsFullError in one line, the part first.
func (e *ActionsFullError) Error() string {
	return e.Part + " " + e.Event + ": needs " + strconv.Itoa(e.Need) + " actions, " + strconv.Itoa(e.Free) + " free"
}

// Is reports whether target is ErrActionsFull.
func (e *ActionsFullError) Is(target error) bool { return target == ErrActionsFull }

// EventError is an event a part refuses: Reason says why, Err is a cause
// (a *DecodeError, say), if any.
type EventError struct {
	Part, Event string
	Reason      string
	Err         error
}

// Error implements error: the EventError in one line, the part first.
func (e *EventError) Error() string {
	s := e.Part + " " + e.Event + ": " + e.Reason
	if e.Err != nil {
		if e.Reason != "" {
			s += ": "
		}
		s += e.Err.Error()
	}
	return s
}

// Is reports whether target is ErrEvent.
func (e *EventError) Is(target error) bool { return target == ErrEvent }

// Unwrap returns the cause.
func (e *EventError) Unwrap() error { return e.Err }

// Typed reports whether err is one of the contract's error types (what
// rule 5 asks of every error a part returns).
func Typed(err error) bool {
	var (
		t *TimeOrderError
		c *ConfigError
		d *DecodeError
		a *ActionsFullError
		v *EventError
	)
	return errors.As(err, &t) || errors.As(err, &c) || errors.As(err, &d) || errors.As(err, &a) || errors.As(err, &v)
}
