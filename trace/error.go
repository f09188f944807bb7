package trace

import (
	"errors"
	"fmt"
)

// Error is what the Reader, Replay and Diff return for a trace or an
// outputs file they cannot read: the 1-based line, the field (a dotted
// path: "packet.seq", "env.switch_ports.1.rate", "registers.3"; "" when
// the line as a whole is at fault) and what is wrong with it.
type Error struct {
	Line  int
	Field string
	Err   error
}

// Error names the line and, where there is one, the field.
func (e *Error) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("trace: line %d: %v", e.Line, e.Err)
	}
	return fmt.Sprintf("trace: line %d: field %s: %v", e.Line, e.Field, e.Err)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Sentinel causes inside an *Error (test with errors.Is).
var (
	// ErrMissing: a required field is absent.
	ErrMissing = errors.New("missing")
	// ErrUnknownField: a field the format does not have, or one the
	// line's event kind does not take.
	ErrUnknownField = errors.New("unknown field")
	// ErrNoHeader: the trace does not start with a header line.
	ErrNoHeader = errors.New("no trace header (want {\"hwcc_trace\":1,...} on line 1)")
)

func errAt(line int, field string, err error) *Error {
	return &Error{Line: line, Field: field, Err: err}
}

func errorf(line int, field, format string, args ...any) *Error {
	return &Error{Line: line, Field: field, Err: fmt.Errorf(format, args...)}
}
