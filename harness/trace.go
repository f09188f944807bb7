package harness

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/trace"
	"github.com/hwcc/hwcc/units"
)

// TraceTarget asks a run to record the events that reach one part (a
// golden-model trace, package trace): Which names the part, W receives
// the trace (its header when the part is built, then one line per event,
// written before the part sees the event). A TraceTarget serves one run;
// Err reports how it went.
//
// Which is one of
//
//	flow:N:rp      flow N's reaction point (at its source)
//	flow:N:np      flow N's notification point (at its destination)
//	port:NODE:P    the congestion point of switch NODE's egress port P (port:s0:0)
//	switch:NODE    the switch point of switch NODE (switch:tor0)
type TraceTarget struct {
	Which string
	W     io.Writer
	// Out, if set, receives the part's outputs as the run had them, one
	// trace.Output line per event (actions, registers, deadline, limits
	// after it): what a replay of W must give, line for line.
	Out io.Writer

	kind string // "rp", "np", "port", "switch"
	flow FlowID
	node string
	port int

	found bool
	err   error
}

// Validate checks Which's syntax.
func (t *TraceTarget) Validate() error {
	_, err := t.parse()
	return err
}

func (t *TraceTarget) parse() (cc.Role, error) {
	bad := func(why string) error {
		return fmt.Errorf("harness: trace part %q: %s (want flow:N:rp, flow:N:np, port:NODE:PORT or switch:NODE)", t.Which, why)
	}
	f := strings.Split(t.Which, ":")
	switch {
	case len(f) == 3 && f[0] == "flow":
		n, err := strconv.ParseInt(f[1], 10, 32)
		if err != nil || n < 0 {
			return 0, bad("the flow is not a flow number")
		}
		t.flow = FlowID(n)
		switch f[2] {
		case "rp":
			t.kind = "rp"
			return cc.RoleRP, nil
		case "np":
			t.kind = "np"
			return cc.RoleNP, nil
		}
		return 0, bad("a flow's part is rp or np")
	case len(f) == 3 && f[0] == "port":
		n, err := strconv.Atoi(f[2])
		if err != nil || n < 0 || f[1] == "" {
			return 0, bad("not a switch name and a port number")
		}
		t.kind, t.node, t.port = "port", f[1], n
		return cc.RoleCP, nil
	case len(f) == 2 && f[0] == "switch" && f[1] != "":
		t.kind, t.node = "switch", f[1]
		return cc.RoleSW, nil
	}
	return 0, bad("unknown form")
}

// Err returns the first error writing the trace, or an error if the run
// built no part Which names (a flow that had not started by the end, a
// port or switch the topology lacks); nil once the part was traced.
func (t *TraceTarget) Err() error {
	if t.err != nil {
		return t.err
	}
	if !t.found {
		return fmt.Errorf("harness: trace part %s: the run built no such part", t.Which)
	}
	return nil
}

// use checks the target for a run of g: its syntax, a writer, and a part
// of the role it names in g's deployment.
func (t *TraceTarget) use(g *scheme) error {
	role, err := t.parse()
	if err != nil {
		return err
	}
	if t.W == nil {
		return errors.New("harness: trace target without a writer")
	}
	if g.parts[role] == nil {
		return fmt.Errorf("harness: trace part %s: algorithm %s runs no %v", t.Which, g.name(), role)
	}
	return nil
}

// names reports whether the target names the part at place at, and that
// it has not been found yet (one part per trace).
func (t *TraceTarget) names(at Place) bool {
	if t.found {
		return false
	}
	switch t.kind {
	case "port":
		return at.Role == cc.RoleCP && at.Node == t.node && at.Port == t.port
	case "switch":
		return at.Role == cc.RoleSW && at.Node == t.node
	case "rp":
		return at.Role == cc.RoleRP && at.Flow == t.flow
	case "np":
		return at.Role == cc.RoleNP && at.Flow == t.flow
	}
	return false
}

// start writes the header of the part of algorithm algo named part, of
// role, built in env with settings, and returns its recorder (nil if
// writing failed).
func (t *TraceTarget) start(algo, part string, role cc.Role, settings []cc.Setting, env *cc.Env) *traceRec {
	t.found = true
	h := trace.Header{Algorithm: algo, Part: part, Role: role, Settings: settings, Env: *env}
	w, err := trace.NewWriter(t.W, h)
	if err != nil {
		t.err = fmt.Errorf("harness: trace: %w", err)
		return nil
	}
	r := &traceRec{t: t, w: w}
	if t.Out != nil {
		r.o = trace.NewOutputWriter(t.Out)
	}
	return r
}

// traceRec writes the events of one part. After a write error it writes
// no more (TraceTarget.Err reports it).
type traceRec struct {
	t  *TraceTarget
	w  *trace.Writer
	o  *trace.OutputWriter // nil without TraceTarget.Out
	ev cc.Event
}

func (r *traceRec) write() {
	if r.t.err != nil {
		return
	}
	if err := r.w.Write(&r.ev); err != nil {
		r.t.err = fmt.Errorf("harness: trace: %w", err)
	}
}

// out records the part's outputs after the event just written (the
// Writer's last, its index Events), which returned err with act's
// decisions (TraceTarget.Out).
func (r *traceRec) out(p cc.Part, err error, act *cc.Actions) {
	if r.o == nil || r.t.err != nil {
		return
	}
	o := trace.OutputOf(r.w.Events(), p, err, act)
	if e := r.o.Write(&o); e != nil {
		r.t.err = fmt.Errorf("harness: trace outputs: %w", e)
	}
}

// timer records a Timer call.
func (r *traceRec) timer(now units.Time) {
	r.ev = cc.Event{Kind: cc.EventTimer, At: now}
	r.write()
}

// packet records an event of kind k passing p (and q, and port).
func (r *traceRec) packet(k cc.EventKind, now units.Time, port int, p *cc.Packet, q cc.Queue) {
	r.ev = cc.Event{Kind: k, At: now, Packet: *p, Queue: q, Port: port}
	r.ev.Packet.Tel = nil
	if p.Tel != nil {
		r.ev.HasTel, r.ev.Tel = true, *p.Tel
	}
	r.write()
}

// feedback records an event of kind k passing f (through port).
func (r *traceRec) feedback(k cc.EventKind, now units.Time, port int, f *cc.Feedback) {
	r.ev = cc.Event{Kind: k, At: now, Feedback: *f, Port: port}
	r.ev.Feedback.Tel = nil
	if f.Tel != nil {
		r.ev.HasTel, r.ev.Tel = true, *f.Tel
	}
	r.write()
}

// pause records a switch point's Pause.
func (r *traceRec) pause(now units.Time, port int, prio uint8, paused bool) {
	r.ev = cc.Event{Kind: cc.EventPause, At: now, Port: port, Paused: paused}
	r.ev.Packet.Prio = prio
	r.write()
}
