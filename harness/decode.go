package harness

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sort"
	"strings"

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
// integer of bytes.
func (x *Bytes) UnmarshalJSON(b []byte) error {
	s := string(bytes.TrimSpace(b))
	if len(s) > 0 && s[0] != '"' {
		var n int64
		if err := json.Unmarshal(b, &n); err != nil || n < 0 {
			return fmt.Errorf("want a size such as \"150KB\" or a whole number of bytes >= 0, got %s", s)
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
// where it is, and the allowed fields; a value of the wrong type or unit
// is an error naming the field; trailing data is an error. The result is
// validated.
func DecodeScenario(r io.Reader) (*Scenario, error) {
	data, err := io.ReadAll(io.LimitReader(r, 64<<20))
	if err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	first := json.NewDecoder(bytes.NewReader(data))
	var raw json.RawMessage
	if err := first.Decode(&raw); err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	if _, err := first.Token(); err != io.EOF {
		return nil, errors.New("scenario: trailing data after the JSON object")
	}
	if err := checkJSON(raw, reflect.TypeFor[Scenario](), "scenario"); err != nil {
		return nil, err
	}
	s := DefaultScenario()
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(s); err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return s, nil
}

// checkJSON walks raw against type t and reports the first unknown field or
// badly typed value with its path, before encoding/json sees it.
func checkJSON(raw json.RawMessage, t reflect.Type, path string) error {
	if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(reflect.TypeFor[json.Unmarshaler]()) {
		v := reflect.New(t)
		if err := json.Unmarshal(raw, v.Interface()); err != nil {
			return fmt.Errorf("%s: %v", path, err)
		}
		return nil
	}
	switch t.Kind() {
	case reflect.Struct:
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			return fmt.Errorf("%s: want a JSON object", path)
		}
		fields := map[string]reflect.StructField{}
		var names []string
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" || name == "-" {
				continue
			}
			fields[name] = f
			names = append(names, name)
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			f, ok := fields[k]
			if !ok {
				sort.Strings(names)
				return fmt.Errorf("%s: unknown field %q (allowed: %s)", path, k, strings.Join(names, ", "))
			}
			if err := checkJSON(m[k], f.Type, path+"."+k); err != nil {
				return err
			}
		}
		return nil
	case reflect.Slice:
		var arr []json.RawMessage
		if err := json.Unmarshal(raw, &arr); err != nil {
			return fmt.Errorf("%s: want a JSON array", path)
		}
		for i, e := range arr {
			if err := checkJSON(e, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		return nil
	default:
		v := reflect.New(t)
		if err := json.Unmarshal(raw, v.Interface()); err != nil {
			return fmt.Errorf("%s: want %s, got %s", path, kindName(t), bytes.TrimSpace(raw))
		}
		return nil
	}
}

func kindName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "a string"
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "a whole number"
	case reflect.Uint64, reflect.Uint32, reflect.Uint:
		return "a whole number >= 0"
	case reflect.Float64:
		return "a number"
	case reflect.Map:
		return "an object of strings"
	}
	return t.String()
}
