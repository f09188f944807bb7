package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
)

// Output is what a part shows after one event of a trace: one line of
// an outputs file.
type Output struct {
	// N is the event's index in the trace, from 1 (the event on line
	// N+1).
	N int
	// Err is the error the part returned ("" if it took the event).
	Err string
	// Actions are the decisions the event appended.
	Actions []cc.Action
	// Registers is the part's register snapshot after the event.
	Registers []cc.Register
	// NextDeadline is the part's NextDeadline after the event.
	NextDeadline units.Time
	// Limits is a reaction point's Limits after the event (nil for the
	// other roles).
	Limits *cc.Limits
}

// OutputOf snapshots p after event n (from 1), which returned err and
// appended act's decisions. Its slices are the Output's own.
func OutputOf(n int, p cc.Part, err error, act *cc.Actions) Output {
	var acts []cc.Action
	if act.Len() > 0 {
		acts = append([]cc.Action(nil), act.All()...)
	}
	return outputOn(n, p, err, acts, p.AppendRegisters(nil))
}

// outputOn is OutputOf over the caller's slices, without copies: acts
// are the event's decisions, regs p's snapshot after it.
func outputOn(n int, p cc.Part, err error, acts []cc.Action, regs []cc.Register) Output {
	o := Output{N: n, Actions: acts, Registers: regs, NextDeadline: p.NextDeadline()}
	if err != nil {
		o.Err = err.Error()
	}
	if rp, ok := p.(cc.ReactionPoint); ok {
		l := rp.Limits()
		o.Limits = &l
	}
	return o
}

// regValue is a register's value as the outputs write it: a signed
// register's sign-extended, an unsigned one's as is.
func regValue(r cc.Register) string {
	if r.Signed {
		return strconv.FormatInt(r.Int(), 10)
	}
	return strconv.FormatUint(r.Value, 10)
}

func actionOf(a *cc.Action) *wAction {
	w := &wAction{Kind: a.Kind.String(), Prio: a.Prio, Switch: a.Switch, Node: a.Node, Port: a.Port, Queue: a.Queue, Bytes: a.Bytes}
	if a.Kind == cc.ActionFeedback {
		w.To = destName(a.To)
		w.Feedback = feedbackOf(&a.Feedback, a.Feedback.Tel)
	}
	return w
}

// AppendOutput appends o's line to dst.
func AppendOutput(dst []byte, o *Output) ([]byte, error) {
	dst = append(dst, `{"n":`...)
	dst = strconv.AppendInt(dst, int64(o.N), 10)
	if o.Err != "" {
		b, _ := json.Marshal(o.Err)
		dst = append(dst, `,"err":`...)
		dst = append(dst, b...)
	}
	if len(o.Actions) > 0 {
		dst = append(dst, `,"actions":[`...)
		for i := range o.Actions {
			if i > 0 {
				dst = append(dst, ',')
			}
			b, err := json.Marshal(actionOf(&o.Actions[i]))
			if err != nil {
				return nil, err
			}
			dst = append(dst, b...)
		}
		dst = append(dst, ']')
	}
	dst = append(dst, `,"registers":[`...)
	for i, r := range o.Registers {
		if i > 0 {
			dst = append(dst, ',')
		}
		name, _ := json.Marshal(r.Name)
		dst = append(dst, '[')
		dst = append(dst, name...)
		dst = append(dst, ',')
		dst = strconv.AppendUint(dst, uint64(r.Width), 10)
		dst = append(dst, ',')
		dst = append(dst, regValue(r)...)
		dst = append(dst, ']')
	}
	dst = append(dst, `],"next_deadline":`...)
	dst = strconv.AppendInt(dst, int64(o.NextDeadline), 10)
	if o.Limits != nil {
		b, err := json.Marshal(wLimits(*o.Limits))
		if err != nil {
			return nil, err
		}
		dst = append(dst, `,"limits":`...)
		dst = append(dst, b...)
	}
	return append(dst, "}\n"...), nil
}

// OutputWriter writes an outputs file, one line per Output.
type OutputWriter struct {
	w   io.Writer
	buf []byte
}

// NewOutputWriter returns a writer of outputs to w.
func NewOutputWriter(w io.Writer) *OutputWriter { return &OutputWriter{w: w} }

// Write writes o's line.
func (w *OutputWriter) Write(o *Output) error {
	b, err := AppendOutput(w.buf[:0], o)
	if err != nil {
		return err
	}
	w.buf = b
	_, err = w.w.Write(b)
	return err
}

// OutputReader reads an outputs file.
type OutputReader struct{ l *lineReader }

// NewOutputReader returns a reader of the outputs r holds. Every error
// Next returns for its content is an *Error.
func NewOutputReader(r io.Reader) *OutputReader { return &OutputReader{l: newLineReader(r)} }

// Line is the number of the line read last.
func (r *OutputReader) Line() int { return r.l.line }

// Next reads the next line into o; io.EOF at the end.
func (r *OutputReader) Next(o *Output) error {
	line, err := r.l.next()
	if err != nil {
		return err
	}
	if e := readOutput(r.l.line, line, o); e != nil {
		return e
	}
	return nil
}

func readOutput(n int, line []byte, out *Output) *Error {
	o, err := parseObj(n, "", line)
	if err != nil {
		return err
	}
	*out = Output{}
	if o.get("n", &out.N, true) && out.N < 1 {
		o.fail("n", errors.New("an event index from 1"))
	}
	o.get("err", &out.Err, false)
	for i, raw := range o.array("actions", false) {
		if o.err != nil {
			break
		}
		a, err := parseObj(n, o.index("actions", i), raw)
		if err != nil {
			return err
		}
		out.Actions = append(out.Actions, readAction(a))
		o.child(a)
	}
	for i, raw := range o.array("registers", true) {
		if o.err != nil {
			break
		}
		r, err := readRegister(n, o.index("registers", i), raw)
		if err != nil {
			return err
		}
		out.Registers = append(out.Registers, r)
	}
	o.get("next_deadline", &out.NextDeadline, true)
	if l := o.sub("limits", false); l != nil {
		var lim cc.Limits
		l.get("rate", &lim.Rate, true)
		l.get("window", &lim.Window, true)
		l.get("credited", &lim.Credited, true)
		l.get("credit", &lim.Credit, true)
		o.child(l)
		out.Limits = &lim
	}
	return o.done()
}

func readAction(o *obj) cc.Action {
	var a cc.Action
	var kind string
	if o.get("kind", &kind, true) {
		k, ok := actionKinds[kind]
		if !ok {
			o.fail("kind", fmt.Errorf("%q is not an action (mark-ce, drop, feedback, pause, resume, credit, assign-queue, pause-queue, resume-queue)", kind))
		}
		a.Kind = k
	}
	var to string
	if o.get("to", &to, a.Kind == cc.ActionFeedback) {
		d, err := parseDest(to)
		if err != nil {
			o.fail("to", err)
		}
		a.To = d
	}
	o.get("prio", &a.Prio, false)
	o.get("switch", &a.Switch, false)
	o.get("node", &a.Node, false)
	o.get("port", &a.Port, false)
	o.get("queue", &a.Queue, false)
	o.get("bytes", &a.Bytes, false)
	if f := o.sub("feedback", a.Kind == cc.ActionFeedback); f != nil {
		// The stack an action's feedback carries is compared by value:
		// it lives in the Output's own.
		t := new(cc.Telemetry)
		if readFeedback(f, &a.Feedback, t) {
			a.Feedback.Tel = t
		}
		o.child(f)
	}
	return a
}

// readRegister decodes [name, width, value]: fastRegister for the form the
// OutputWriter writes, slowRegister for any other.
func readRegister(n int, path string, raw []byte) (cc.Register, *Error) {
	if r, ok := fastRegister(raw); ok {
		return r, nil
	}
	return slowRegister(n, path, raw)
}

// slowRegister decodes [name, width, value] with encoding/json, naming the
// element at fault (n and path) when it cannot. It is the reference
// fastRegister must agree with (FuzzFastRegister).
func slowRegister(n int, path string, raw []byte) (cc.Register, *Error) {
	var parts []json.RawMessage
	if err := json.Unmarshal(raw, &parts); err != nil {
		return cc.Register{}, errAt(n, path, jsonErr(err))
	}
	if len(parts) != 3 {
		return cc.Register{}, errorf(n, path, "%d elements, want [name, width, value]", len(parts))
	}
	var r cc.Register
	if err := json.Unmarshal(parts[0], &r.Name); err != nil {
		return r, errAt(n, path+".name", jsonErr(err))
	}
	if err := json.Unmarshal(parts[1], &r.Width); err != nil {
		return r, errAt(n, path+".width", jsonErr(err))
	}
	s := string(bytes.TrimSpace(parts[2]))
	if s == "" || (s[0] != '-' && (s[0] < '0' || s[0] > '9')) {
		return r, errorf(n, path+".value", "%.20q is not a whole number", s)
	}
	if u, err := strconv.ParseUint(s, 10, 64); err == nil {
		r.Value = u
		return r, nil
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return r, errorf(n, path+".value", "%q is not a 64-bit whole number", s)
	}
	return cc.SignedReg(r.Name, r.Width, v), nil
}

// fastRegister decodes the form the OutputWriter writes, ["name",W,V]
// with a name without escapes, without encoding/json; ok false for any
// other form, which readRegister decodes the slow way. Where it says ok it
// gives slowRegister's register (FuzzFastRegister).
func fastRegister(raw []byte) (cc.Register, bool) {
	var r cc.Register
	if len(raw) < 8 || raw[0] != '[' || raw[1] != '"' || raw[len(raw)-1] != ']' {
		return r, false
	}
	rest := raw[2 : len(raw)-1]
	q := bytes.IndexByte(rest, '"')
	if q < 0 || bytes.IndexByte(rest[:q], '\\') >= 0 {
		return r, false
	}
	name := rest[:q]
	for _, c := range name {
		if c < 0x20 || c >= 0x80 {
			return r, false
		}
	}
	f := bytes.Split(rest[q+1:], []byte(","))
	if len(f) != 3 || len(f[0]) != 0 {
		return r, false
	}
	for _, x := range [][]byte{f[1], bytes.TrimPrefix(f[2], []byte("-"))} {
		if len(x) == 0 || (len(x) > 1 && x[0] == '0') {
			return r, false // JSON has no leading zeros
		}
	}
	w, err := strconv.ParseUint(string(f[1]), 10, 8)
	if err != nil || f[2][0] == '+' {
		return r, false
	}
	r.Name, r.Width = string(name), uint8(w)
	if u, err := strconv.ParseUint(string(f[2]), 10, 64); err == nil {
		r.Value = u
		return r, true
	}
	v, err := strconv.ParseInt(string(f[2]), 10, 64)
	if err != nil || f[2][0] != '-' {
		return r, false
	}
	return cc.SignedReg(r.Name, r.Width, v), true
}
