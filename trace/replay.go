package trace

import (
	"encoding/hex"
	"fmt"
	"io"
	"strconv"

	"github.com/hwcc/hwcc/cc"
)

// NewPart builds the part h describes, fresh: cc.NewIn(&h.Env,
// h.Algorithm, h.Part, h.Settings), checked to play h.Role. Its errors
// are *Error on line 1 naming the header field at fault.
func NewPart(h Header) (cc.Part, error) {
	a, err := cc.Lookup(h.Algorithm)
	if err != nil {
		return nil, errAt(1, "algorithm", err)
	}
	ps, err := a.Part(h.Part)
	if err != nil {
		return nil, errAt(1, "part", err)
	}
	if ps.Role != h.Role {
		return nil, errorf(1, "role", "%s %s is a %s (%s), not %s", h.Algorithm, h.Part, ps.Role, ps.Role.Short(), h.Role.Short())
	}
	env := h.Env
	p, err := cc.NewIn(&env, h.Algorithm, h.Part, h.Settings)
	if err != nil {
		return nil, errAt(1, "settings", err)
	}
	if !h.Role.Plays(p) {
		return nil, errorf(1, "role", "the part built does not play a %v", h.Role)
	}
	return p, nil
}

// Replay reads the trace r holds, builds its part fresh from the header
// and applies each event to it in order (one cc.Event.Apply per line,
// nothing inserted: the trace holds the timer calls too), writing an
// Output line per event to w as it goes, so that its memory does not grow
// with the trace's length. A part's refusal of an event is an output
// (Output.Err), not an error; a trace that cannot be read, or a part that
// cannot be built, is an *Error naming the line and field.
func Replay(r io.Reader, w io.Writer) error {
	ow := NewOutputWriter(w)
	return replay(r, func(o *Output) (bool, error) { return true, ow.Write(o) })
}

// ReplayDiff replays the trace r holds as Replay does, writing each output
// line to w (nil: nowhere), and compares each, as it is made, with the next
// line of the outputs file want: it stops at the first difference and
// returns it (its Event and Line name the trace's event), or returns nil
// when every line matches and both end together. Its memory does not grow
// with the trace's length. Errors are Replay's, and an outputs line of want
// that cannot be read (an *Error, wrapped with "want").
func ReplayDiff(r, want io.Reader, w io.Writer) (*Mismatch, error) {
	var ow *OutputWriter
	if w != nil {
		ow = NewOutputWriter(w)
	}
	wr := NewOutputReader(want)
	var (
		exp Output
		m   *Mismatch
		n   int
	)
	err := replay(r, func(o *Output) (bool, error) {
		n = o.N
		if ow != nil {
			if err := ow.Write(o); err != nil {
				return false, err
			}
		}
		// compare reads both sides through the fields the outputs write
		// (actionFields, regValue): what a line would read back as.
		switch err := wr.Next(&exp); {
		case err == io.EOF:
			m = &Mismatch{Event: o.N, Line: o.N + 1, Field: "events", Got: "event " + strconv.Itoa(o.N), Want: "end of outputs"}
			return false, nil
		case err != nil:
			return false, fmt.Errorf("want: %w", err)
		}
		if field, x, y, ok := compare(o, &exp); !ok {
			m = &Mismatch{Event: exp.N, Line: exp.N + 1, Field: field, Got: x, Want: y}
			return false, nil
		}
		return true, nil
	})
	if err != nil || m != nil {
		return m, err
	}
	switch err := wr.Next(&exp); {
	case err == io.EOF:
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("want: %w", err)
	}
	return &Mismatch{Event: n + 1, Line: n + 2, Field: "events", Got: "end of outputs", Want: "event " + strconv.Itoa(exp.N)}, nil
}

// replay runs the trace r holds, calling each with every event's output
// (valid only during the call) until it returns false or an error.
func replay(r io.Reader, each func(o *Output) (bool, error)) error {
	rd, err := NewReader(r)
	if err != nil {
		return err
	}
	p, err := NewPart(rd.Header())
	if err != nil {
		return err
	}
	act := cc.NewActions(64)
	var ev cc.Event
	var regs []cc.Register
	for n := 1; ; n++ {
		err := rd.Next(&ev)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		perr := apply(p, &ev, &act)
		// OutputOf without its copies: the line is used at once.
		regs = p.AppendRegisters(regs[:0])
		o := outputOn(n, p, perr, act.All(), regs)
		if more, err := each(&o); err != nil || !more {
			return err
		}
	}
}

// apply applies ev with a reset act, growing act when the part asks for
// more room (it changed nothing: the contract's rule 2), up to
// cc.ActionsLimit, as the harness does.
func apply(p cc.Part, ev *cc.Event, act **cc.Actions) error {
	return cc.RunGrowing(act, cc.ActionsLimit, func(a *cc.Actions) error { return ev.Apply(p, a) })
}

// Mismatch is the first difference Diff finds.
type Mismatch struct {
	// Event is the event's index (from 1), Line its line in the trace
	// (Event+1: line 1 is the header).
	Event, Line int
	// Field names what differs: "err", "register NAME", "registers"
	// (their number), "action I FIELD" (I from 1), "actions" (their
	// number), "next_deadline", "limits.FIELD", "n", or "events" when one
	// file has more lines.
	Field string
	// Got and Want are the two values as the outputs write them ("" for
	// one that is absent).
	Got, Want string
}

// String says where the outputs first differ and what each side had.
func (m *Mismatch) String() string {
	return fmt.Sprintf("event %d (line %d): %s: got %s, want %s", m.Event, m.Line, m.Field, show(m.Got), show(m.Want))
}

// Error makes a Mismatch usable as an error.
func (m *Mismatch) Error() string { return m.String() }

func show(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// Diff compares two outputs files line by line and returns the first
// difference, or nil if they are the same. An outputs line that cannot
// be read is an error (an *Error, wrapped with "got" or "want").
func Diff(got, want io.Reader) (*Mismatch, error) {
	g, w := NewOutputReader(got), NewOutputReader(want)
	var a, b Output
	for k := 1; ; k++ {
		ea, eb := g.Next(&a), w.Next(&b)
		if ea != nil && ea != io.EOF {
			return nil, fmt.Errorf("got: %w", ea)
		}
		if eb != nil && eb != io.EOF {
			return nil, fmt.Errorf("want: %w", eb)
		}
		switch {
		case ea == io.EOF && eb == io.EOF:
			return nil, nil
		case ea == io.EOF:
			return &Mismatch{Event: k, Line: k + 1, Field: "events", Got: "end of outputs", Want: "event " + strconv.Itoa(b.N)}, nil
		case eb == io.EOF:
			return &Mismatch{Event: k, Line: k + 1, Field: "events", Got: "event " + strconv.Itoa(a.N), Want: "end of outputs"}, nil
		}
		if field, x, y, ok := compare(&a, &b); !ok {
			return &Mismatch{Event: b.N, Line: b.N + 1, Field: field, Got: x, Want: y}, nil
		}
	}
}

// compare returns the first field where a and b differ.
func compare(a, b *Output) (field, got, want string, same bool) {
	if a.N != b.N {
		return "n", strconv.Itoa(a.N), strconv.Itoa(b.N), false
	}
	if a.Err != b.Err {
		return "err", strconv.Quote(a.Err), strconv.Quote(b.Err), false
	}
	for i := range max(len(a.Actions), len(b.Actions)) {
		if i >= len(a.Actions) || i >= len(b.Actions) {
			return "actions", strconv.Itoa(len(a.Actions)) + " actions", strconv.Itoa(len(b.Actions)) + " actions", false
		}
		fa, fb := actionFields(&a.Actions[i]), actionFields(&b.Actions[i])
		for j := range min(len(fa), len(fb)) {
			if fa[j].v != fb[j].v {
				return "action " + strconv.Itoa(i+1) + " " + fa[j].name, fa[j].v, fb[j].v, false
			}
		}
	}
	for i := range max(len(a.Registers), len(b.Registers)) {
		switch {
		case i >= len(b.Registers):
			return "registers", a.Registers[i].Name + " and " + strconv.Itoa(len(a.Registers)-i-1) + " more", "none after " + strconv.Itoa(i), false
		case i >= len(a.Registers):
			return "registers", "none after " + strconv.Itoa(i), b.Registers[i].Name + " and " + strconv.Itoa(len(b.Registers)-i-1) + " more", false
		}
		ra, rb := a.Registers[i], b.Registers[i]
		if ra.Name != rb.Name {
			return "register " + strconv.Itoa(i+1) + " name", ra.Name, rb.Name, false
		}
		if ra.Width != rb.Width {
			return "register " + ra.Name + " width", strconv.Itoa(int(ra.Width)), strconv.Itoa(int(rb.Width)), false
		}
		if va, vb := regValue(ra), regValue(rb); va != vb {
			return "register " + regName(b.Registers, i), va, vb, false
		}
	}
	if a.NextDeadline != b.NextDeadline {
		return "next_deadline", strconv.FormatInt(int64(a.NextDeadline), 10), strconv.FormatInt(int64(b.NextDeadline), 10), false
	}
	if (a.Limits == nil) != (b.Limits == nil) {
		return "limits", present(a.Limits != nil), present(b.Limits != nil), false
	}
	if a.Limits != nil {
		la, lb := *a.Limits, *b.Limits
		for _, f := range []struct {
			name string
			x, y int64
		}{
			{"rate", int64(la.Rate), int64(lb.Rate)},
			{"window", int64(la.Window), int64(lb.Window)},
			{"credited", b2i(la.Credited), b2i(lb.Credited)},
			{"credit", int64(la.Credit), int64(lb.Credit)},
		} {
			if f.x != f.y {
				return "limits." + f.name, strconv.FormatInt(f.x, 10), strconv.FormatInt(f.y, 10), false
			}
		}
	}
	return "", "", "", true
}

// regName is register i's name, with its position ("host (#18)") when
// the snapshot has more than one of that name.
func regName(regs []cc.Register, i int) string {
	for j := range regs {
		if j != i && regs[j].Name == regs[i].Name {
			return regs[i].Name + " (#" + strconv.Itoa(i+1) + ")"
		}
	}
	return regs[i].Name
}

func present(b bool) string {
	if b {
		return "present"
	}
	return ""
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

type namedValue struct{ name, v string }

// actionFields lists an action's fields as the outputs write them, in a
// fixed order.
func actionFields(a *cc.Action) []namedValue {
	u := func(v uint64) string { return strconv.FormatUint(v, 10) }
	i := func(v int64) string { return strconv.FormatInt(v, 10) }
	out := []namedValue{
		{"kind", a.Kind.String()}, {"to", destName(a.To)}, {"prio", u(uint64(a.Prio))},
		{"switch", u(uint64(a.Switch))}, {"node", u(uint64(a.Node))}, {"port", u(uint64(a.Port))},
		{"queue", u(uint64(a.Queue))}, {"bytes", i(int64(a.Bytes))},
	}
	f := &a.Feedback
	out = append(out,
		namedValue{"feedback.kind", f.Kind.String()}, namedValue{"feedback.flow", u(uint64(f.Flow))},
		namedValue{"feedback.from", u(f.From)}, namedValue{"feedback.seq", u(f.Seq)},
		namedValue{"feedback.acked", i(int64(f.Acked))}, namedValue{"feedback.snd_nxt", u(f.SndNxt)},
		namedValue{"feedback.ece", strconv.FormatBool(f.ECE)}, namedValue{"feedback.data", hexOf(f.Data[:])})
	tel := "none"
	if f.Tel != nil {
		tel = "0x" + hex.EncodeToString(f.Tel.Bytes())
	}
	out = append(out, namedValue{"feedback.tel", tel})
	return out
}
