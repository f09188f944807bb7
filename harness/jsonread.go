package harness

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Limits of the strict JSON reader, besides the ones a scenario's fields
// have (see Validate): they bound the memory a document of at most
// MaxScenarioBytes can make the reader allocate, before any field is
// checked. Nesting needs no limit: the reader descends only as deep as
// the type it fills, and a list or object where the type has none is an
// error at its first byte.
const (
	// maxJSONElems bounds the elements of one list and the members of one
	// object: MaxFlows, the longest list a valid scenario holds.
	maxJSONElems = MaxFlows
	// maxJSONString bounds one string, in bytes.
	maxJSONString = 64 << 10
	// maxJSONLeaf bounds the JSON text of one time, rate or size.
	maxJSONLeaf = 256
)

// jsonReader reads one JSON document into a Go value, strictly and in one
// pass, the value's type saying what each position may hold: a field name
// the struct does not have, a name given twice in one object, a value of
// the wrong type, a number that is not a whole one where a whole number
// is wanted, or data after the document is an error naming the field's
// path and its line and column. A syntax error names its line and column.
// A struct field tagged `zero:"reason"` refuses an explicit zero value
// with that reason (its zero means a default, which leaving it out gives).
// Omitted fields keep the value they had; null sets a pointer, list or
// map to nil and is an error elsewhere.
type jsonReader struct {
	data []byte
	pos  int
}

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// readJSON decodes data, which must hold exactly one JSON object, into
// v (a pointer to a struct); path names the document in errors.
func readJSON(data []byte, v any, path string) error {
	r := &jsonReader{data: data}
	if len(data) >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF {
		return fmt.Errorf("%s: line 1, column 1: the file starts with a UTF-8 byte order mark: save it without one", path)
	}
	r.ws()
	if r.pos < len(r.data) && r.data[r.pos] != '{' {
		return fmt.Errorf("%s: %s: want a JSON object, got %s", path, r.at(r.pos), r.got(r.pos))
	}
	if err := r.value(reflect.ValueOf(v).Elem(), path); err != nil {
		return err
	}
	r.ws()
	if r.pos < len(r.data) {
		return fmt.Errorf("%s: %s: trailing data after the JSON object: %s", path, r.at(r.pos), r.got(r.pos))
	}
	return nil
}

// at formats offset off as "line L, column C" (both from 1; the column
// counts characters).
func (r *jsonReader) at(off int) string {
	off = min(off, len(r.data))
	line, start := 1, 0
	for i, c := range r.data[:off] {
		if c == '\n' {
			line, start = line+1, i+1
		}
	}
	return fmt.Sprintf("line %d, column %d", line, utf8.RuneCount(r.data[start:off])+1)
}

// got describes the byte at off for a syntax error.
func (r *jsonReader) got(off int) string {
	if off >= len(r.data) {
		return "the end of the file"
	}
	c, _ := utf8.DecodeRune(r.data[off:])
	return strconv.QuoteRune(c)
}

// syntax is a syntax error at off.
func (r *jsonReader) syntax(path string, off int, format string, args ...any) error {
	return fmt.Errorf("%s: %s: %s", path, r.at(off), fmt.Sprintf(format, args...))
}

// ws skips white space.
func (r *jsonReader) ws() {
	for r.pos < len(r.data) {
		switch r.data[r.pos] {
		case ' ', '\t', '\n', '\r':
			r.pos++
		default:
			return
		}
	}
}

// peek skips white space and returns the next byte, or eof at the end.
func (r *jsonReader) peek() int {
	r.ws()
	if r.pos >= len(r.data) {
		return eof
	}
	return int(r.data[r.pos])
}

// eof is what peek returns at the end of the data.
const eof = -1

// literal consumes word (true, false, null) if it is next.
func (r *jsonReader) literal(word string) bool {
	if bytes.HasPrefix(r.data[r.pos:], []byte(word)) {
		r.pos += len(word)
		return true
	}
	return false
}

// value decodes the next value into v.
func (r *jsonReader) value(v reflect.Value, path string) error {
	c := r.peek()
	start := r.pos
	if c == eof {
		return r.syntax(path, start, "unexpected end of the file: want a value")
	}
	if c == 'n' && r.literal("null") {
		switch v.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Map:
			v.SetZero()
			return nil
		}
		return fmt.Errorf("%s (%s): null: give %s, or leave the field out for its default", path, r.at(start), wantOf(v.Type()))
	}
	if reflect.PointerTo(v.Type()).Implements(unmarshalerType) {
		if c == '{' || c == '[' {
			return r.wrongType(v, path)
		}
		if err := r.scalar(path); err != nil {
			return err
		}
		if r.pos-start > maxJSONLeaf {
			return fmt.Errorf("%s (%s): a value of %d bytes: want %s", path, r.at(start), r.pos-start, wantOf(v.Type()))
		}
		if err := v.Addr().Interface().(json.Unmarshaler).UnmarshalJSON(r.data[start:r.pos]); err != nil {
			return fmt.Errorf("%s (%s): %v", path, r.at(start), err)
		}
		return nil
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		return r.value(v.Elem(), path)
	case reflect.Struct:
		return r.object(v, path)
	case reflect.Map:
		return r.stringMap(v, path)
	case reflect.Slice:
		return r.list(v, path)
	case reflect.String:
		if c != '"' {
			return r.wrongType(v, path)
		}
		s, err := r.str(path)
		if err != nil {
			return err
		}
		v.SetString(s)
		return nil
	case reflect.Bool:
		switch {
		case r.literal("true"):
			v.SetBool(true)
		case r.literal("false"):
			v.SetBool(false)
		default:
			return r.wrongType(v, path)
		}
		return nil
	case reflect.Int, reflect.Int64, reflect.Int32, reflect.Uint64, reflect.Uint32, reflect.Uint, reflect.Float64:
		if c != '-' && (c < '0' || c > '9') {
			return r.wrongType(v, path)
		}
		num, err := r.number(path)
		if err != nil {
			return err
		}
		if err := setNumber(v, num); err != nil {
			return fmt.Errorf("%s (%s): %w", path, r.at(start), err)
		}
		return nil
	}
	return fmt.Errorf("%s: harness: the JSON reader has no rule for %v", path, v.Type())
}

// wrongType reports the next value as not of v's type.
func (r *jsonReader) wrongType(v reflect.Value, path string) error {
	start := r.pos
	what, err := r.describe(path)
	if err != nil {
		return err
	}
	return fmt.Errorf("%s (%s): want %s, got %s", path, r.at(start), wantOf(v.Type()), what)
}

// describe returns the next value as an error message shows it: "an
// object", "a list", or its text cut at 40 bytes (read, and checked).
func (r *jsonReader) describe(path string) (string, error) {
	start := r.pos
	switch r.peek() {
	case '{':
		return "an object", nil
	case '[':
		return "a list", nil
	}
	if err := r.scalar(path); err != nil {
		return "", err
	}
	return clip(string(r.data[start:r.pos])), nil
}

// clip cuts s to 40 bytes (on a character boundary) for an error message.
func clip(s string) string {
	const n = 40
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// fieldNames returns the JSON names of struct type t's fields, and the
// field index of each.
func fieldNames(t reflect.Type) (map[string]int, []string) {
	idx := map[string]int{}
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
		idx[name] = i
		names = append(names, name)
	}
	sort.Strings(names)
	return idx, names
}

// members reads an object's members, calling member for each name with
// the reader at its value; a name given twice is an error.
func (r *jsonReader) members(path string, member func(name string, at int) error) error {
	open := r.pos
	if r.peek() != '{' {
		return r.syntax(path, r.pos, "want an object, got %s", r.got(r.pos))
	}
	r.pos++
	seen := map[string]int{}
	for n := 0; ; n++ {
		c := r.peek()
		if c == '}' && n == 0 {
			r.pos++
			return nil
		}
		if c != '"' {
			if c == eof {
				return r.syntax(path, r.pos, "unexpected end of the file: the object opened at %s is not closed", r.at(open))
			}
			return r.syntax(path, r.pos, "want a field name in double quotes, got %s", r.got(r.pos))
		}
		if n == maxJSONElems {
			return r.syntax(path, r.pos, "more than %d members in one object", maxJSONElems)
		}
		at := r.pos
		name, err := r.str(path)
		if err != nil {
			return err
		}
		if first, ok := seen[name]; ok {
			return fmt.Errorf("%s: field %q given twice (%s and %s)", path, clip(name), r.at(first), r.at(at))
		}
		seen[name] = at
		if r.peek() != ':' {
			return r.syntax(path, r.pos, "want ':' after the field name %q, got %s", clip(name), r.got(r.pos))
		}
		r.pos++
		if err := member(name, at); err != nil {
			return err
		}
		switch r.peek() {
		case ',':
			r.pos++
		case '}':
			r.pos++
			return nil
		case eof:
			return r.syntax(path, r.pos, "unexpected end of the file: the object opened at %s is not closed", r.at(open))
		default:
			return r.syntax(path, r.pos, "want ',' or '}' after the value of %q, got %s", clip(name), r.got(r.pos))
		}
	}
}

// object decodes a JSON object into struct v.
func (r *jsonReader) object(v reflect.Value, path string) error {
	if r.peek() != '{' {
		return r.wrongType(v, path)
	}
	idx, names := fieldNames(v.Type())
	return r.members(path, func(name string, at int) error {
		i, ok := idx[name]
		if !ok {
			return fmt.Errorf("%s (%s): unknown field %q (allowed: %s)", path, r.at(at), clip(name), strings.Join(names, ", "))
		}
		start := r.pos
		if err := r.value(v.Field(i), path+"."+name); err != nil {
			return err
		}
		if why := v.Type().Field(i).Tag.Get("zero"); why != "" && v.Field(i).IsZero() {
			return fmt.Errorf("%s.%s (%s): %s: %s", path, name, r.at(start), clip(strings.TrimSpace(string(r.data[start:r.pos]))), why)
		}
		return nil
	})
}

// stringMap decodes a JSON object into map v (string keys), adding to it.
func (r *jsonReader) stringMap(v reflect.Value, path string) error {
	if r.peek() != '{' {
		return r.wrongType(v, path)
	}
	if v.IsNil() {
		v.Set(reflect.MakeMap(v.Type()))
	}
	return r.members(path, func(name string, _ int) error {
		e := reflect.New(v.Type().Elem()).Elem()
		if err := r.value(e, path+"."+name); err != nil {
			return err
		}
		v.SetMapIndex(reflect.ValueOf(name).Convert(v.Type().Key()), e)
		return nil
	})
}

// list decodes a JSON array into slice v, replacing its elements.
func (r *jsonReader) list(v reflect.Value, path string) error {
	open := r.pos
	if r.peek() != '[' {
		return r.wrongType(v, path)
	}
	r.pos++
	v.Set(reflect.MakeSlice(v.Type(), 0, 0))
	for n := 0; ; n++ {
		c := r.peek()
		if c == ']' && n == 0 {
			r.pos++
			return nil
		}
		if n == maxJSONElems {
			return fmt.Errorf("%s (%s): more than %d elements (harness.MaxFlows, the longest list a scenario holds)", path, r.at(open), maxJSONElems)
		}
		e := reflect.New(v.Type().Elem()).Elem()
		if err := r.value(e, fmt.Sprintf("%s[%d]", path, n)); err != nil {
			return err
		}
		v.Set(reflect.Append(v, e))
		switch r.peek() {
		case ',':
			r.pos++
		case ']':
			r.pos++
			return nil
		case eof:
			return r.syntax(path, r.pos, "unexpected end of the file: the list opened at %s is not closed", r.at(open))
		default:
			return r.syntax(path, r.pos, "want ',' or ']' after element %d, got %s", n, r.got(r.pos))
		}
	}
}

// str reads a string.
func (r *jsonReader) str(path string) (string, error) {
	start := r.pos
	if r.peek() != '"' {
		return "", r.syntax(path, r.pos, "want a string, got %s", r.got(r.pos))
	}
	escaped := false
	for i := start + 1; i < len(r.data); i++ {
		switch c := r.data[i]; {
		case c == '"':
			r.pos = i + 1
			raw := r.data[start:r.pos]
			if i-start-1 > maxJSONString {
				return "", r.syntax(path, start, "a string of %d bytes, longer than %d", i-start-1, maxJSONString)
			}
			if !escaped {
				return strings.ToValidUTF8(string(raw[1:len(raw)-1]), "\uFFFD"), nil
			}
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				off := start
				var se *json.SyntaxError
				if errors.As(err, &se) {
					off += int(se.Offset) - 1
				}
				return "", r.syntax(path, off, "bad string: %v", err)
			}
			return s, nil
		case c == '\\':
			escaped = true
			i++
		case c < 0x20:
			return "", r.syntax(path, i, "control character %q in a string (write it as an escape such as \\n)", rune(c))
		}
	}
	return "", r.syntax(path, start, "unexpected end of the file: the string is not closed")
}

// number reads a number, checking RFC 8259's grammar, and returns its text.
func (r *jsonReader) number(path string) (string, error) {
	d := r.data
	start, i := r.pos, r.pos
	digits := func() int {
		n := 0
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i, n = i+1, n+1
		}
		return n
	}
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case digits() == 0:
		return "", r.syntax(path, i, "bad number: want a digit, got %s", r.got(i))
	}
	if i < len(d) && d[i] == '.' {
		i++
		if digits() == 0 {
			return "", r.syntax(path, i, "bad number: want a digit after '.', got %s", r.got(i))
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if digits() == 0 {
			return "", r.syntax(path, i, "bad number: want a digit in the exponent, got %s", r.got(i))
		}
	}
	r.pos = i
	return string(d[start:i]), nil
}

// scalar reads the next value, which must be a string, number, true,
// false or null, checking its syntax.
func (r *jsonReader) scalar(path string) error {
	switch c := r.peek(); {
	case c == '"':
		_, err := r.str(path)
		return err
	case c == '-' || c >= '0' && c <= '9':
		_, err := r.number(path)
		return err
	case c == 't' && r.literal("true"), c == 'f' && r.literal("false"), c == 'n' && r.literal("null"):
		return nil
	case c == eof:
		return r.syntax(path, r.pos, "unexpected end of the file: want a value")
	}
	return r.syntax(path, r.pos, "want a value (a string, number, object, list, true, false or null), got %s", r.got(r.pos))
}

// setNumber sets v, an integer or float64, from the JSON number num.
// An integer field takes any whole number in its range, written with a
// fraction or exponent or not ("1e9", "2.0").
func setNumber(v reflect.Value, num string) error {
	if v.Kind() == reflect.Float64 {
		f, err := strconv.ParseFloat(num, 64)
		if err != nil || math.IsInf(f, 0) {
			return fmt.Errorf("%s is out of the range of a number", clip(num))
		}
		v.SetFloat(f)
		return nil
	}
	neg, mag, ok := wholeNumber(num)
	switch {
	case !ok:
		return fmt.Errorf("want %s, got %s", wantOf(v.Type()), clip(num))
	case v.CanUint() && neg && mag != 0:
		return fmt.Errorf("want %s, got %s", wantOf(v.Type()), clip(num))
	case v.CanUint():
		if v.OverflowUint(mag) {
			return fmt.Errorf("%s is too large (at most %d)", clip(num), uint64(1)<<v.Type().Bits()-1)
		}
		v.SetUint(mag)
		return nil
	}
	limit := uint64(1) << (v.Type().Bits() - 1) // -limit .. limit-1
	if mag > limit || (!neg && mag == limit) {
		return fmt.Errorf("%s is too large (at most %d in magnitude)", clip(num), limit-1)
	}
	n := int64(mag)
	if neg {
		n = int64(-mag)
	}
	v.SetInt(n)
	return nil
}

// wholeNumber reads a JSON number as sign and magnitude if it is a whole
// number whose magnitude fits a uint64: "1e9", "-20", "2.50e1". ok is
// false for a fraction ("1.5", "1e-3"); a whole number too large for 64
// bits gives ok with mag = MaxUint64, which every field refuses.
func wholeNumber(num string) (neg bool, mag uint64, ok bool) {
	s := num
	if neg = strings.HasPrefix(s, "-"); neg {
		s = s[1:]
	}
	mant, exp, _ := strings.Cut(strings.ToLower(s), "e")
	whole, frac, _ := strings.Cut(mant, ".")
	digits := strings.TrimLeft(whole+frac, "0")
	// The value is digits · 10^e10.
	e10 := -len(frac)
	if exp != "" {
		x, err := strconv.Atoi(exp)
		if err != nil || x < -1e9 || x > 1e9 { // beyond any 64-bit whole number's
			if digits == "" {
				return neg, 0, true
			}
			return neg, math.MaxUint64, !strings.HasPrefix(exp, "-")
		}
		e10 += x
	}
	if digits == "" {
		return neg, 0, true
	}
	for e10 < 0 && strings.HasSuffix(digits, "0") {
		digits, e10 = digits[:len(digits)-1], e10+1
	}
	if e10 < 0 {
		return neg, 0, false
	}
	if len(digits)+e10 > 20 {
		return neg, math.MaxUint64, true
	}
	for _, c := range digits {
		hi, lo := bits.Mul64(mag, 10)
		lo, carry := bits.Add64(lo, uint64(c-'0'), 0)
		if hi != 0 || carry != 0 {
			return neg, math.MaxUint64, true
		}
		mag = lo
	}
	for range e10 {
		hi, lo := bits.Mul64(mag, 10)
		if hi != 0 {
			return neg, math.MaxUint64, true
		}
		mag = lo
	}
	return neg, mag, true
}

// wantOf says what a value of type t is, for errors.
func wantOf(t reflect.Type) string {
	switch t {
	case reflect.TypeFor[Time]():
		return `a time such as "10us"`
	case reflect.TypeFor[Rate]():
		return `a rate such as "100Gbps"`
	case reflect.TypeFor[Bytes]():
		return `a size such as "150KB" or a whole number of bytes`
	}
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
	case reflect.Slice:
		return "a list"
	case reflect.Struct:
		return "a JSON object"
	case reflect.Pointer:
		return wantOf(t.Elem())
	}
	return t.String()
}
