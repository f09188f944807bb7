package trace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/hwcc/hwcc/cc"
)

// FormatVersion is the value of the header's "hwcc_trace" field: the
// version of this format.
const FormatVersion = 2

// MaxLine is the longest line the Reader takes, in bytes.
const MaxLine = 1 << 20

// Header is a trace's first line: which part the events are for and how
// to build it (cc.NewIn(&Env, Algorithm, Part, Settings)).
type Header struct {
	// Version is the hwcc release that wrote the trace (cc.Version;
	// NewWriter fills it in when empty), "" when the header has none.
	// Readers and Replay accept any value, including none: the format is
	// FormatVersion's, so a trace written by another release replays, but
	// a part whose decisions changed between the two releases (CHANGELOG.md
	// says which) gives other outputs, which Diff then reports.
	Version string
	// Algorithm and Part name the part in the cc registry; Role is its
	// role, which the events' kinds must belong to.
	Algorithm, Part string
	Role            cc.Role
	// Settings are the part's settings, in the order they are applied.
	Settings []cc.Setting
	// Env is where the part runs; its zero fields are left out.
	Env cc.Env
}

var roleByShort = map[string]cc.Role{"CP": cc.RoleCP, "RP": cc.RoleRP, "NP": cc.RoleNP, "SW": cc.RoleSW}

// appendHeader encodes h as a line.
func appendHeader(dst []byte, h *Header) ([]byte, error) {
	if _, ok := roleByShort[h.Role.Short()]; !ok {
		return nil, fmt.Errorf("trace: header: role %d is not a role", h.Role)
	}
	str := func(s string) []byte { b, _ := json.Marshal(s); return b }
	dst = append(dst, `{"hwcc_trace":`...)
	dst = strconv.AppendInt(dst, FormatVersion, 10)
	dst = append(dst, `,"version":`...)
	dst = append(dst, str(h.Version)...)
	dst = append(dst, `,"algorithm":`...)
	dst = append(dst, str(h.Algorithm)...)
	dst = append(dst, `,"part":`...)
	dst = append(dst, str(h.Part)...)
	dst = append(dst, `,"role":`...)
	dst = append(dst, str(h.Role.Short())...)
	dst = append(dst, `,"settings":{`...)
	for i, st := range h.Settings {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, str(st.Name)...)
		dst = append(dst, ':')
		dst = append(dst, str(st.Value)...)
	}
	env, err := json.Marshal(envOf(&h.Env))
	if err != nil {
		return nil, err
	}
	dst = append(dst, `},"env":`...)
	dst = append(dst, env...)
	return append(dst, "}\n"...), nil
}

// readHeader decodes line 1.
func readHeader(line []byte, h *Header) *Error {
	o, err := parseObj(1, "", line)
	if err != nil {
		return errAt(1, "", fmt.Errorf("%w: %v", ErrNoHeader, err.Err))
	}
	if !o.has("hwcc_trace") {
		return errAt(1, "hwcc_trace", ErrNoHeader)
	}
	// The header builds the part: a field given twice (the algorithm) is
	// refused rather than read as its last value.
	if name, ok := duplicateKey(json.NewDecoder(bytes.NewReader(line)), ""); ok {
		return errAt(1, name, errors.New("given twice"))
	}
	var v int
	if o.get("hwcc_trace", &v, true) && v != FormatVersion {
		o.fail("hwcc_trace", fmt.Errorf("format version %d, this reader reads %d", v, FormatVersion))
	}
	*h = Header{}
	o.get("version", &h.Version, false)
	o.get("algorithm", &h.Algorithm, true)
	o.get("part", &h.Part, true)
	var role string
	if o.get("role", &role, true) {
		r, ok := roleByShort[role]
		if !ok {
			o.fail("role", fmt.Errorf("%q is not CP, RP, NP or SW", role))
		}
		h.Role = r
	}
	if raw, ok := o.raw("settings", false); ok {
		st, err := readSettings(raw)
		if err != nil {
			o.fail("settings", err)
		}
		h.Settings = st
	}
	if e := o.sub("env", false); e != nil {
		readEnv(e, &h.Env)
		o.child(e)
	}
	return o.done()
}

// duplicateKey reads one JSON value from dec and returns the path of the
// first name given twice in one of its objects ("env.rate"). A syntax
// error ends the search (parseObj reports it).
func duplicateKey(dec *json.Decoder, path string) (string, bool) {
	tok, err := dec.Token()
	if err != nil {
		return "", false
	}
	d, _ := tok.(json.Delim)
	join := func(k string) string {
		if path == "" {
			return k
		}
		return path + "." + k
	}
	switch d {
	case '{':
		seen := map[string]bool{}
		for dec.More() {
			t, err := dec.Token()
			if err != nil {
				return "", false
			}
			k, _ := t.(string)
			if seen[k] {
				return join(k), true
			}
			seen[k] = true
			if p, ok := duplicateKey(dec, join(k)); ok {
				return p, true
			}
		}
	case '[':
		for i := 0; dec.More(); i++ {
			if p, ok := duplicateKey(dec, join(strconv.Itoa(i))); ok {
				return p, true
			}
		}
	default:
		return "", false
	}
	_, _ = dec.Token() // the closing delimiter
	return "", false
}

// readSettings decodes {"name":"value",...} keeping the order.
func readSettings(raw []byte) ([]cc.Setting, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, jsonErr(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not an object of \"name\": \"value\"")
	}
	var out []cc.Setting
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil, jsonErr(err)
		}
		name, _ := k.(string)
		v, err := dec.Token()
		if err != nil {
			return nil, jsonErr(err)
		}
		val, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("%s: want a string value, as \"%s\": \"1.5\"", name, name)
		}
		for _, st := range out {
			if st.Name == name {
				return nil, fmt.Errorf("%s: given twice", name)
			}
		}
		out = append(out, cc.Setting{Name: name, Value: val})
	}
	return out, nil
}

// Writer writes a trace: the header, then one line per event. Each Write
// is one Write call on the underlying writer.
type Writer struct {
	w    io.Writer
	role cc.Role
	n    int
}

// NewWriter writes h to w and returns a Writer for the events.
func NewWriter(w io.Writer, h Header) (*Writer, error) {
	if h.Version == "" {
		h.Version = cc.Version
	}
	line, err := appendHeader(nil, &h)
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(line); err != nil {
		return nil, err
	}
	return &Writer{w: w, role: h.Role}, nil
}

// Write writes one event. It refuses an event of a kind the header's
// role does not have and one passed as nil (cc.Event.NilArg,
// NilActions), which a trace cannot carry.
func (w *Writer) Write(ev *cc.Event) error {
	if !ev.Kind.Of(w.role) {
		return fmt.Errorf("trace: event %d: %v is not an event of a %v", w.n+1, ev.Kind, w.role)
	}
	line, err := marshalLine(eventOf(ev, w.role))
	if err != nil {
		return err
	}
	if _, err := w.w.Write(line); err != nil {
		return err
	}
	w.n++
	return nil
}

// Events is the number of events written.
func (w *Writer) Events() int { return w.n }

// ports reports whether an event of kind k names a port for a part of
// role r.
func ports(k cc.EventKind, r cc.Role) bool { return r == cc.RoleSW && k != cc.EventTimer }

func eventOf(ev *cc.Event, role cc.Role) *wEvent {
	w := &wEvent{T: ev.At, Ev: ev.Kind.String()}
	var h *cc.Telemetry // the stack the packet or feedback carries
	if ev.HasTel {
		h = &ev.Tel
	}
	switch ev.Kind {
	case cc.EventEnqueue, cc.EventDequeue:
		w.Packet = packetOf(&ev.Packet, h)
		q := wQueue(ev.Queue)
		w.Queue = &q
	case cc.EventSent, cc.EventReceive, cc.EventArrive:
		w.Packet = packetOf(&ev.Packet, h)
	case cc.EventFeedback, cc.EventMessage:
		w.Feedback = feedbackOf(&ev.Feedback, h)
	case cc.EventPause:
		prio, paused := ev.Packet.Prio, ev.Paused
		w.Prio, w.Paused = &prio, &paused
	}
	if ports(ev.Kind, role) {
		port := ev.Port
		w.Port = &port
	}
	return w
}

// readEvent decodes an event line of a part of role.
func readEvent(n int, line []byte, role cc.Role, ev *cc.Event) *Error {
	o, err := parseObj(n, "", line)
	if err != nil {
		return err
	}
	*ev = cc.Event{}
	o.get("t", &ev.At, true)
	var name string
	if o.get("ev", &name, true) {
		k, ok := cc.EventKindNamed(name)
		switch {
		case !ok:
			o.fail("ev", fmt.Errorf("%q is not an event (sent, feedback, timer, enqueue, dequeue, receive, arrive, pause, message)", name))
		case !k.Of(role):
			o.fail("ev", fmt.Errorf("%s is not an event of a %v (the header's role %s)", name, role, role.Short()))
		}
		ev.Kind = k
	}
	if o.err != nil {
		return o.err
	}
	switch ev.Kind {
	case cc.EventEnqueue, cc.EventDequeue, cc.EventSent, cc.EventReceive, cc.EventArrive:
		if p := o.sub("packet", true); p != nil {
			ev.HasTel = readPacket(p, &ev.Packet, &ev.Tel)
			o.child(p)
		}
		if ev.Kind == cc.EventEnqueue || ev.Kind == cc.EventDequeue {
			if q := o.sub("queue", true); q != nil {
				readQueue(q, &ev.Queue)
				o.child(q)
			}
		}
	case cc.EventFeedback, cc.EventMessage:
		if f := o.sub("feedback", true); f != nil {
			ev.HasTel = readFeedback(f, &ev.Feedback, &ev.Tel)
			o.child(f)
		}
	case cc.EventPause:
		o.get("prio", &ev.Packet.Prio, true)
		o.get("paused", &ev.Paused, true)
	}
	if ports(ev.Kind, role) {
		o.get("port", &ev.Port, true)
	}
	return o.done()
}

// lineReader reads lines of at most MaxLine bytes, counting them.
type lineReader struct {
	r    *bufio.Reader
	line int
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10)}
}

// next returns the next line without its end, or io.EOF. The slice is
// valid until the next call.
func (l *lineReader) next() ([]byte, error) {
	var buf []byte
	for {
		chunk, err := l.r.ReadSlice('\n')
		buf = append(buf, chunk...)
		if len(buf) > MaxLine {
			l.line++
			return nil, errorf(l.line, "", "line longer than %d bytes", MaxLine)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF && len(buf) == 0 {
			return nil, io.EOF
		}
		if err != nil && err != io.EOF {
			return nil, errAt(l.line+1, "", err)
		}
		l.line++
		buf = bytes.TrimSuffix(buf, []byte("\n"))
		buf = bytes.TrimSuffix(buf, []byte("\r"))
		return buf, nil
	}
}

// Reader reads a trace: NewReader reads the header, Next each event.
type Reader struct {
	l *lineReader
	h Header
}

// NewReader reads the header of the trace r holds. Every error it and
// Next return for the trace's content is an *Error.
func NewReader(r io.Reader) (*Reader, error) {
	l := newLineReader(r)
	line, err := l.next()
	if err == io.EOF {
		return nil, errAt(1, "", fmt.Errorf("%w: the trace is empty", ErrNoHeader))
	}
	if err != nil {
		return nil, err
	}
	rd := &Reader{l: l}
	if e := readHeader(line, &rd.h); e != nil {
		return nil, e
	}
	return rd, nil
}

// Header returns the trace's header.
func (r *Reader) Header() Header { return r.h }

// Line is the number of the line read last (1: the header).
func (r *Reader) Line() int { return r.l.line }

// Next reads the next event into ev; io.EOF at the end of the trace.
func (r *Reader) Next(ev *cc.Event) error {
	line, err := r.l.next()
	if err != nil {
		return err
	}
	if e := readEvent(r.l.line, line, r.h.Role, ev); e != nil {
		return e
	}
	return nil
}

// ReadAll reads a whole trace.
func ReadAll(r io.Reader) (Header, []cc.Event, error) {
	rd, err := NewReader(r)
	if err != nil {
		return Header{}, nil, err
	}
	var evs []cc.Event
	for {
		var ev cc.Event
		err := rd.Next(&ev)
		if err == io.EOF {
			return rd.h, evs, nil
		}
		if err != nil {
			return rd.h, evs, err
		}
		evs = append(evs, ev)
	}
}

// Canonical returns ev as a trace carries it for a part of role: the
// fields its kind does not pass to the part (a Timer event's packet, a
// congestion point's port) zeroed, the telemetry stack's bytes past its
// length zeroed, and the Tel pointers nil (Apply sets them). Reading back
// what a Writer wrote gives the canonical events.
func Canonical(ev cc.Event, role cc.Role) cc.Event {
	out := cc.Event{Kind: ev.Kind, At: ev.At}
	switch ev.Kind {
	case cc.EventEnqueue, cc.EventDequeue:
		out.Packet, out.Queue, out.HasTel = ev.Packet, ev.Queue, ev.HasTel
	case cc.EventSent, cc.EventReceive, cc.EventArrive:
		out.Packet, out.HasTel = ev.Packet, ev.HasTel
	case cc.EventFeedback, cc.EventMessage:
		out.Feedback, out.HasTel = ev.Feedback, ev.HasTel
	case cc.EventPause:
		out.Packet.Prio, out.Paused = ev.Packet.Prio, ev.Paused
	}
	out.Packet.Tel, out.Feedback.Tel = nil, nil
	if out.HasTel {
		out.Tel.Set(ev.Tel.Bytes())
	}
	if ports(ev.Kind, role) {
		out.Port = ev.Port
	}
	return out
}
