package cc

import "github.com/hwcc/hwcc/cc/ccerr"

// The contract's error types. They live in the leaf package ccerr, so that
// packages below cc (inttel's codec) return them too; these are the names
// to use.
type (
	// TimeOrderError is an event whose now is before Last, the latest now
	// the part accepted; errors.Is(err, ErrTimeOrder).
	TimeOrderError = ccerr.TimeOrderError
	// ConfigError is a bad configuration value naming the field, the
	// value and the allowed range; errors.Is(err, ErrConfig).
	ConfigError = ccerr.ConfigError
	// DecodeError is malformed input bytes naming the byte offset;
	// errors.Is(err, ErrDecode).
	DecodeError = ccerr.DecodeError
	// ActionsFullError is an event whose decisions do not fit the caller's
	// Actions; errors.Is(err, ErrActionsFull).
	ActionsFullError = ccerr.ActionsFullError
	// EventError is an event a part refuses; errors.Is(err, ErrEvent).
	EventError = ccerr.EventError
)

// The sentinels every error of the contract matches with errors.Is.
var (
	// ErrTimeOrder: an event's now is before the latest now the part
	// accepted (or before time 0).
	ErrTimeOrder = ccerr.ErrTimeOrder
	// ErrConfig: a configuration value is unknown, malformed or out of
	// range.
	ErrConfig = ccerr.ErrConfig
	// ErrDecode: input bytes are malformed.
	ErrDecode = ccerr.ErrDecode
	// ErrActionsFull: an event's decisions do not fit the caller's Actions.
	ErrActionsFull = ccerr.ErrActionsFull
	// ErrEvent: an event the part cannot take in its state.
	ErrEvent = ccerr.ErrEvent
	// ErrUnknown: no algorithm or part by that name is registered.
	ErrUnknown = ccerr.ErrUnknown
)

// Typed reports whether err is one of the contract's error types (what
// rule 5 asks of every error a part returns).
func Typed(err error) bool { return ccerr.Typed(err) }
