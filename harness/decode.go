package harness

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"

	"github.com/hwcc/hwcc/units"
)

// JSON value types: a units quantity that reads and writes itself as the
// string the units parsers take ("10us", "100Gbps", "1.5MB").
type (
	// Time is a units.Time written in JSON as "1.5us".
	Time units.Time
	// Rate is a units.Rate written in JSON as "100Gbps".
	Rate units.Rate
	// Bytes is a units.Bytes written in JSON as "150KB" (a bare number of
	// bytes is accepted too).
	Bytes units.Bytes
)

// MarshalJSON writes t as a string such as "1.5us".
func (t Time) MarshalJSON() ([]byte, error) { return json.Marshal(units.Time(t).String()) }

// MarshalJSON writes r as a string such as "100Gbps".
func (r Rate) MarshalJSON() ([]byte, error) { return json.Marshal(units.Rate(r).String()) }

// MarshalJSON writes b as a string such as "150KB".
func (b Bytes) MarshalJSON() ([]byte, error) { return json.Marshal(units.Bytes(b).String()) }

// UnmarshalJSON reads a string that units.ParseTime accepts.
func (t *Time) UnmarshalJSON(b []byte) error {
	s, err := unitString(b, "a time such as \"10us\"")
	if err != nil {
		return err
	}
	v, err := units.ParseTime(s)
	if err != nil {
		return err
	}
	*t = Time(v)
	return nil
}

// UnmarshalJSON reads a string that units.ParseRate accepts.
func (r *Rate) UnmarshalJSON(b []byte) error {
	s, err := unitString(b, "a rate such as \"100Gbps\"")
	if err != nil {
		return err
	}
	v, err := units.ParseRate(s)
	if err != nil {
		return err
	}
	*r = Rate(v)
	return nil
}

// UnmarshalJSON reads a string that units.ParseBytes accepts, or a JSON
// number that is a whole number of bytes ("1500", "1.5e3").
func (x *Bytes) UnmarshalJSON(b []byte) error {
	s := string(bytes.TrimSpace(b))
	if len(s) > 0 && s[0] != '"' {
		neg, n, ok := false, uint64(0), false
		if json.Valid(b) && (s[0] == '-' || s[0] >= '0' && s[0] <= '9') {
			neg, n, ok = wholeNumber(s)
		}
		if !ok || (neg && n != 0) || n > math.MaxInt64 {
			return fmt.Errorf("want a size such as \"150KB\" or a whole number of bytes >= 0, got %s", clip(s))
		}
		*x = Bytes(n)
		return nil
	}
	str, err := unitString(b, "a size such as \"150KB\"")
	if err != nil {
		return err
	}
	v, err := units.ParseBytes(str)
	if err != nil {
		return err
	}
	*x = Bytes(v)
	return nil
}

// unitString decodes a JSON string holding a value with a unit.
func unitString(b []byte, want string) (string, error) {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return "", fmt.Errorf("want %s as a string, got %s", want, bytes.TrimSpace(b))
	}
	return s, nil
}

// DecodeScenario reads a scenario from JSON, strictly: settings it omits
// keep DefaultScenario's values; an unknown field is an error naming it,
// where it is, and the allowed fields; a field given twice in one object,
// a value of the wrong type or unit, and trailing data are errors naming
// the field and its line and column, and a syntax error names its line
// and column. A whole number may be written with an exponent ("1e3"). A
// file larger than MaxScenarioBytes is an error saying so. The result is
// validated.
func DecodeScenario(r io.Reader) (*Scenario, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxScenarioBytes+1))
	if err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	if len(data) > MaxScenarioBytes {
		return nil, fmt.Errorf("scenario file larger than %d MB (harness.MaxScenarioBytes)", MaxScenarioBytes>>20)
	}
	s := DefaultScenario()
	if err := readJSON(data, s, "scenario"); err != nil {
		return nil, err
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return s, nil
}
