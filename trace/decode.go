package trace

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// obj is one JSON object of a line being decoded strictly: every field
// read is marked, and done reports the first one nobody read. Its methods
// stop at the first error, which err keeps.
type obj struct {
	line int
	path string // "" at the top of the line, else "packet." etc.
	m    map[string]json.RawMessage
	used map[string]bool
	err  *Error
}

// parseObj decodes raw as an object at path (a field name, "" for the
// line itself).
func parseObj(line int, path string, raw []byte) (*obj, *Error) {
	o := &obj{line: line, used: map[string]bool{}}
	if path != "" {
		o.path = path + "."
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		what := "not a JSON object"
		if len(raw) == 0 {
			what = "empty"
		}
		return nil, errAt(line, path, errors.New(what))
	}
	if err := json.Unmarshal(raw, &o.m); err != nil {
		return nil, errAt(line, path, jsonErr(err))
	}
	return o, nil
}

// jsonErr makes encoding/json's errors short.
func jsonErr(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("invalid JSON at byte %d: %v", se.Offset, se)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Errorf("want %v, have a JSON %s", te.Type, te.Value)
	}
	return err
}

func (o *obj) name(key string) string { return o.path + key }

func (o *obj) fail(key string, err error) {
	if o.err == nil {
		o.err = errAt(o.line, o.name(key), err)
	}
}

// has reports whether key is present.
func (o *obj) has(key string) bool {
	_, ok := o.m[key]
	return ok
}

// raw returns key's value, marking it read; ok false if absent (and an
// error if required).
func (o *obj) raw(key string, required bool) (json.RawMessage, bool) {
	v, ok := o.m[key]
	if !ok {
		if required {
			o.fail(key, ErrMissing)
		}
		return nil, false
	}
	o.used[key] = true
	if bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
		o.fail(key, errors.New("null (omit the field for its zero value)"))
		return nil, false
	}
	return v, o.err == nil
}

// get decodes key into dst (a pointer to an integer, bool or string).
func (o *obj) get(key string, dst any, required bool) bool {
	v, ok := o.raw(key, required)
	if !ok {
		return false
	}
	if err := json.Unmarshal(v, dst); err != nil {
		o.fail(key, jsonErr(err))
		return false
	}
	return true
}

// sub decodes key as a nested object.
func (o *obj) sub(key string, required bool) *obj {
	v, ok := o.raw(key, required)
	if !ok {
		return nil
	}
	s, err := parseObj(o.line, o.name(key), v)
	if err != nil {
		o.err = err
		return nil
	}
	return s
}

// array decodes key as a JSON array of raw elements.
func (o *obj) array(key string, required bool) []json.RawMessage {
	v, ok := o.raw(key, required)
	if !ok {
		return nil
	}
	var out []json.RawMessage
	if err := json.Unmarshal(v, &out); err != nil {
		o.fail(key, jsonErr(err))
		return nil
	}
	return out
}

// hex16 decodes key as 16 bytes in hexadecimal (32 digits).
func (o *obj) hex16(key string, dst *[16]byte) {
	var s string
	if !o.get(key, &s, false) {
		return
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		o.fail(key, fmt.Errorf("bad hex: %v", err))
		return
	}
	if len(b) != len(dst) {
		o.fail(key, fmt.Errorf("%d bytes, want %d (%d hex digits)", len(b), len(dst), 2*len(dst)))
		return
	}
	copy(dst[:], b)
}

// done reports the first error, or the first field nobody read.
func (o *obj) done() *Error {
	if o.err != nil {
		return o.err
	}
	var bad string
	for k := range o.m {
		if !o.used[k] && (bad == "" || k < bad) {
			bad = k
		}
	}
	if bad != "" {
		return errAt(o.line, o.name(bad), ErrUnknownField)
	}
	return nil
}

// child records the error of a nested object.
func (o *obj) child(c *obj) {
	if c != nil && o.err == nil {
		o.err = c.done()
	}
}

// index is the path of element i of array key.
func (o *obj) index(key string, i int) string { return o.name(key) + "." + strconv.Itoa(i) }
