package harness

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cc/cctest"
	"github.com/hwcc/hwcc/units"
)

// Scheme is how the harness runs an algorithm registered in package cc:
// which of its parts plays each role, the settings the harness starts each
// part from, and what its packets need. Registering a Scheme is all it
// takes to run an algorithm here: one generic adapter builds its parts
// through cc, feeds them packets, queue states and feedback through the
// contract, carries what their actions emit, and gates the NIC by their
// Limits. Nothing in the switch or NIC models names an algorithm.
type Scheme struct {
	// Algo is the algorithm's name in the cc registry; Name the harness's
	// (default: Algo).
	Algo, Name string
	// CP, RP and NP name the parts that run at every switch egress data
	// queue, every sending flow and every receiving flow, Switch the
	// switch point that runs in every switch (as its module: Module must
	// then be nil); "" for the default, the algorithm's first part of
	// each role, "-" for none.
	CP, RP, NP, Switch string
	// INT: data packets carry an INT header (HPCC): senders add its
	// prefix, congestion points stamp it on Dequeue, receivers echo it in
	// their ACKs, and the base RTT the parts are told includes its bytes.
	INT bool
	// NetworkRTT: the parts are told the network's largest base RTT
	// (FlowInfo.MaxBaseRTT over MaxHops switches, with the INT bytes when
	// INT) instead of the flow's own, one value for every flow: HPCC's T,
	// which Eqn (1) assumes all flows share and section 5.1 sets slightly
	// above the network's largest RTT ([HPCC] §3.2; [HPCC-ns3]'s
	// GLOBAL_T). A flow's own RTT as T makes flows on short paths weigh
	// the same queue more (qlen/(B·T)) and starve (docs/scenarios.md, HPCC
	// in a large incast).
	NetworkRTT bool
	// Symmetric: what travels from a flow's receiver to its sender retraces
	// the data path (Features.Symmetric: ExpressPass's credits).
	Symmetric bool
	// NoAcks: the reaction point reacts to no ACK or NAK (DCQCN reacts to
	// CNPs only: a RoCE NIC's transport handles ACKs without its congestion
	// control), so the NIC does not hand it them.
	NoAcks bool
	// Defaults are settings applied before the scenario's parameters, in
	// the same syntax (see Params): the harness's choices where they differ
	// from the part's first preset.
	Defaults map[string]string
	// Settings are scenario settings (Scenario.Set keys: "scheduler",
	// say) the scheme runs with, applied over the scenario's own when a run
	// is built: the switch machinery its parts rely on (HierCC's switch
	// point needs its servers' packets in VOQs gated by credit at the
	// ToRs, and one port per destination). The report shows the scenario as run.
	Settings map[string]string
	// Doc says what the harness does with the algorithm (one paragraph).
	Doc string
	// Module, if set, builds the scheme's module of every switch: state
	// beyond one queue, per port or per destination (SwitchModule).
	Module func(info SwitchInfo) (SwitchModule, error)
	// Kinds declare the wire size and priority of the feedback kinds the
	// scheme's parts send (credit, credit stop, rate packet, window CNP):
	// a message of an undeclared kind travels as a RoCEv2 CNP does
	// (CNPFrameBytes at ControlPrio).
	Kinds []ControlKind
}

// ControlKind is a control message's kind on the wire: the cc feedback
// kind a part sends, its name for reports, its frame size (without
// preamble and gap, which the harness adds like every frame's) and the
// priority it travels at (ControlPrio: served first, never paused).
//
// A kind with a Spacing is shaped at every port it leaves, host and switch
// alike: its messages wait in a queue of their own, served after ControlPrio
// and before data, that starts a message at most once per ser(Spacing) of the
// port (one message and the Spacing−Frame bytes of data it stands for; no
// burst), and that holds at most Queue messages: one arriving at a full queue
// is dropped (Counters.ShapedDrops; not a Drop). Shaped messages take no
// switch buffer and PFC does not pause them. This is ExpressPass's credit
// class ([ExpressPass] §3.1; [Survey] §5.3.2): an 84-byte credit per 84+1538
// bytes, 5.2% of the link, in a queue of 8 credits, so that a credit that
// gets through makes room for exactly one full data frame on the reverse
// path.
type ControlKind struct {
	Kind  cc.FeedbackKind
	Name  string
	Frame units.Bytes
	Prio  uint8
	// Spacing is the wire bytes of port time one message takes from the
	// shaper, preamble and gap included (≥ the frame's wire size); 0: not
	// shaped. Queue is the shaper's queue in messages (≥ 1 when shaped).
	Spacing units.Bytes
	Queue   int
}

// RegisterScheme makes a cc-registered algorithm runnable by the harness
// under s.Name. It checks that the algorithm and the named parts exist with
// their roles and that the defaults are valid settings.
func RegisterScheme(s Scheme) error {
	a, err := newSchemeAlgo(s)
	if err != nil {
		return err
	}
	var probe Scenario
	for _, kv := range cc.SettingsOf(s.Settings) {
		if err := probe.Set(kv.Name, kv.Value); err != nil {
			return fmt.Errorf("harness: scheme %s: %w", a.Name(), err)
		}
	}
	return Register(a)
}

// scenarioSetter is implemented by an Algorithm that runs with scenario
// settings of its own (Scheme.Settings).
type scenarioSetter interface {
	ScenarioSettings() map[string]string
}

// ScenarioSettings implements scenarioSetter.
func (g *schemeAlgo) ScenarioSettings() map[string]string { return g.s.Settings }

// MustRegisterScheme is RegisterScheme for init functions.
func MustRegisterScheme(s Scheme) {
	if err := RegisterScheme(s); err != nil {
		panic(err)
	}
}

// schemeAlgo is the one generic adapter: a harness Algorithm over a Scheme.
type schemeAlgo struct {
	s     Scheme
	a     cc.Algorithm
	parts [5]*cc.PartSpec // by cc.Role
}

func newSchemeAlgo(s Scheme) (*schemeAlgo, error) {
	a, err := cc.Lookup(s.Algo)
	if err != nil {
		return nil, fmt.Errorf("harness: scheme: %w", err)
	}
	if s.Name == "" {
		s.Name = s.Algo
	}
	g := &schemeAlgo{s: s, a: a}
	for _, r := range []struct {
		role cc.Role
		name *string
	}{{cc.RoleCP, &g.s.CP}, {cc.RoleRP, &g.s.RP}, {cc.RoleNP, &g.s.NP}, {cc.RoleSW, &g.s.Switch}} {
		if *r.name == "" {
			for i := range a.Parts {
				if a.Parts[i].Role == r.role {
					*r.name = a.Parts[i].Name
					break
				}
			}
		}
		if *r.name == "" || *r.name == "-" {
			*r.name = ""
			continue
		}
		ps, err := a.Part(*r.name)
		if err != nil {
			return nil, fmt.Errorf("harness: scheme %s: %w", s.Name, err)
		}
		if ps.Role != r.role {
			return nil, fmt.Errorf("harness: scheme %s: part %s is a %v, not a %v", s.Name, ps.Name, ps.Role, r.role)
		}
		g.parts[r.role] = &ps
	}
	if g.s.Module != nil && g.parts[cc.RoleSW] != nil {
		return nil, fmt.Errorf("harness: scheme %s: a Module and switch point %s: set Switch to \"-\" to run the Module", s.Name, g.s.Switch)
	}
	if err := g.CheckParams(nil); err != nil {
		return nil, fmt.Errorf("harness: scheme %s: defaults: %w", s.Name, err)
	}
	return g, nil
}

func (g *schemeAlgo) Name() string { return g.s.Name }

// Features: INT as the scheme says; never the harness's threshold marker
// (a scheme's congestion points mark themselves).
func (g *schemeAlgo) Features() Features {
	return Features{INT: g.s.INT, Symmetric: g.s.Symmetric}
}

// NewModule implements moduleBuilder: the scheme's module, its switch
// point's adapter, or none.
func (g *schemeAlgo) NewModule(info SwitchInfo) (SwitchModule, error) {
	if g.s.Module != nil {
		return g.s.Module(info)
	}
	if g.parts[cc.RoleSW] == nil {
		return nil, nil
	}
	p, err := g.build(cc.RoleSW, swEnv(info), info.Params)
	if err != nil || p == nil {
		return nil, err
	}
	return &schemeSW{p: p.(cc.SwitchPoint), act: cc.NewActions(initialActions), errs: info.Errors}, nil
}

// swEnv is a switch point's environment.
func swEnv(info SwitchInfo) *cc.Env {
	return &cc.Env{Rate: info.Rate, Node: cc.NodeID(info.Node), SwitchID: info.SwitchID, Ports: info.Ports, SwitchPorts: info.PortList, BaseRTT: info.MaxBaseRTT, Index: int(info.Node) + 1}
}

// ControlKinds implements kindDeclarer.
func (g *schemeAlgo) ControlKinds() []ControlKind { return g.s.Kinds }

// kindDeclarer is implemented by an Algorithm whose parts send control
// messages of their own kinds.
type kindDeclarer interface {
	ControlKinds() []ControlKind
}

// Params returns each role's settings: the scheme's defaults, then the
// scenario's params. A key "cp.NAME", "rp.NAME" or "np.NAME" goes to that
// role's part only; a bare "NAME" goes to every part that has a setting of
// that name and must be known to at least one.
func (g *schemeAlgo) settings(params map[string]string) ([5][]cc.Setting, error) {
	var out [5][]cc.Setting
	for _, m := range []map[string]string{g.s.Defaults, params} {
		for _, st := range cc.SettingsOf(m) {
			role, name := cc.Role(0), st.Name
			if pfx, rest, ok := strings.Cut(st.Name, "."); ok {
				switch pfx {
				case "cp":
					role = cc.RoleCP
				case "rp":
					role = cc.RoleRP
				case "np":
					role = cc.RoleNP
				case "sw":
					role = cc.RoleSW
				default:
					return out, &cc.ConfigError{Part: g.s.Name, Field: st.Name, Value: st.Value, Range: "a parameter, or cp., rp., np. or sw. and a parameter"}
				}
				name = rest
			}
			used := false
			for r := cc.RoleCP; r <= cc.RoleSW; r++ {
				ps := g.parts[r]
				if ps == nil || (role != 0 && role != r) || !ps.Config.Has(name) {
					continue
				}
				used = true
				out[r] = setSetting(out[r], cc.Setting{Name: name, Value: st.Value})
			}
			if !used {
				return out, &cc.ConfigError{Part: g.s.Name, Field: st.Name, Value: st.Value,
					Range: "a parameter of " + g.partNames() + " (hwcc algos " + g.s.Algo + ")", Err: cc.ErrUnknown}
			}
		}
	}
	return out, nil
}

// setSetting adds st to list, replacing an earlier value of the same name
// (a scenario's param overrides the scheme's default).
func setSetting(list []cc.Setting, st cc.Setting) []cc.Setting {
	for i := range list {
		if list[i].Name == st.Name {
			list[i] = st
			return list
		}
	}
	return append(list, st)
}

func (g *schemeAlgo) partNames() string {
	var names []string
	for r := cc.RoleCP; r <= cc.RoleSW; r++ {
		if ps := g.parts[r]; ps != nil {
			names = append(names, g.s.Algo+" "+ps.Name)
		}
	}
	return strings.Join(names, ", ")
}

// CheckParams implements ParamChecker: every key names a setting of a
// part, and every value parses within its parameter's range.
func (g *schemeAlgo) CheckParams(params map[string]string) error {
	st, err := g.settings(params)
	if err != nil {
		return err
	}
	for r := cc.RoleCP; r <= cc.RoleSW; r++ {
		if ps := g.parts[r]; ps != nil {
			if err := ps.Config.Validate(g.s.Algo+" "+ps.Name, st[r]); err != nil {
				return err
			}
		}
	}
	return nil
}

// build makes role r's part in env.
func (g *schemeAlgo) build(r cc.Role, env *cc.Env, params map[string]string) (cc.Part, error) {
	ps := g.parts[r]
	if ps == nil {
		return nil, nil
	}
	st, err := g.settings(params)
	if err != nil {
		return nil, err
	}
	return cc.NewIn(env, g.s.Algo, ps.Name, st[r])
}

// NewCP builds the congestion point of one switch egress data queue, in
// the environment of its port.
func (g *schemeAlgo) NewCP(info CPInfo) (CP, error) {
	if b := info.build; b != nil {
		return b.newCP(g, info)
	}
	p, err := g.build(cc.RoleCP, cpEnv(info), info.Params)
	if err != nil || p == nil {
		return nil, err
	}
	return &schemeCP{c: p.(cc.CongestionPoint), act: cc.NewActions(initialActions), errs: info.Errors}, nil
}

// cpEnv is a congestion point's environment: its port's.
func cpEnv(info CPInfo) *cc.Env {
	return &cc.Env{Rate: info.Rate, Node: cc.NodeID(info.Node), Port: uint16(info.Port), SwitchID: info.SwitchID, Index: int(info.ID) + 1}
}

// cpBuild is what the CPs a Sim builds share (CPInfo.build): the
// settings, computed once for the first CP's params (every CP of a run
// gets the scenario's), and slabs that the adapters, environments and
// action buffers are cut from, so that a network of thousands of ports
// does not make thousands of small allocations of each. What NewCP builds
// from it is what it builds without it.
type cpBuild struct {
	params   map[string]string
	settings [5][]cc.Setting
	err      error
	done     bool
	cps      slab[schemeCP]
	envs     slab[cc.Env]
	acts     slab[cc.Actions]
	bufs     slab[[initialActions]cc.Action]
}

func (b *cpBuild) newCP(g *schemeAlgo, info CPInfo) (CP, error) {
	ps := g.parts[cc.RoleCP]
	if ps == nil {
		return nil, nil
	}
	if !b.done || !sameMap(b.params, info.Params) {
		b.params, b.done = info.Params, true
		b.settings, b.err = g.settings(info.Params)
	}
	if b.err != nil {
		return nil, b.err
	}
	env := b.envs.next()
	*env = *cpEnv(info)
	p, err := cc.NewIn(env, g.s.Algo, ps.Name, b.settings[cc.RoleCP])
	if err != nil {
		return nil, err
	}
	act := b.acts.next()
	*act = cc.ActionsOn(b.bufs.next()[:])
	w := b.cps.next()
	w.c, w.act, w.errs = p.(cc.CongestionPoint), act, info.Errors
	return w, nil
}

// sameMap reports whether a and b are the same map (not equal contents:
// the same value, which a Sim passes to all its CPs).
func sameMap(a, b map[string]string) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

// env returns a flow's environment for its reaction and notification
// points: the NIC's line rate, the path, the payload, and the base RTT with
// the INT bytes the scheme adds.
func (g *schemeAlgo) env(f FlowInfo) *cc.Env {
	rtt := f.BaseRTT
	if g.s.INT {
		rtt = BaseRTTWithINT(f)
	}
	if g.s.NetworkRTT && f.MaxBaseRTT > 0 {
		n := FlowInfo{BaseRTT: f.MaxBaseRTT, Hops: f.MaxHops, Bottleneck: f.Bottleneck}
		if g.s.INT {
			n.BaseRTT = BaseRTTWithINT(n)
		}
		rtt = max(rtt, n.BaseRTT)
	}
	return &cc.Env{Rate: f.LineRate, Node: cc.NodeID(f.Src), BaseRTT: rtt, Bottleneck: f.Bottleneck, Hops: f.Hops, Payload: f.Payload, Size: f.Size, Index: int(f.ID) + 1}
}

// NewRP builds the reaction point of one flow.
func (g *schemeAlgo) NewRP(f FlowInfo) (RP, error) {
	p, err := g.build(cc.RoleRP, g.env(f), f.Params)
	if err != nil {
		return nil, fmt.Errorf("flow %d (%s->%s): %w", f.ID, f.SrcName, f.DstName, err)
	}
	if p == nil {
		return nil, nil
	}
	r := &schemeRP{r: p.(cc.ReactionPoint), flow: cc.FlowID(f.ID), line: f.LineRate, act: cc.NewActions(initialActions), errs: f.Errors, noAcks: g.s.NoAcks,
		toDst: f.SendToDestination, src: cc.NodeID(f.Src), dst: cc.NodeID(f.Dst)}
	r.cap = f.LineRate
	if f.Offered > 0 && f.Offered < r.cap {
		r.cap = f.Offered
	}
	if d, ok := p.(interface{ ReactionDelay() units.Time }); ok {
		r.delay = d.ReactionDelay()
	}
	return r, nil
}

// NewNP builds the notification point of one flow.
func (g *schemeAlgo) NewNP(f FlowInfo) (NP, error) {
	p, err := g.build(cc.RoleNP, g.env(f), f.Params)
	if err != nil {
		return nil, fmt.Errorf("flow %d (%s->%s): %w", f.ID, f.SrcName, f.DstName, err)
	}
	if p == nil {
		return nil, nil
	}
	return &schemeNP{n: p.(cc.NotificationPoint), act: cc.NewActions(initialActions), errs: f.Errors, send: f.SendToSource}, nil
}

// BaseRTTWithINT returns a flow's round trip with INT: its base RTT (a
// full data frame and its ACK, no INT) plus the INT bytes the frames carry
// on each link, each serialised at the path's slowest rate (an upper bound,
// so that it is not below the real base RTT). On link k of the forward path
// (k = 0 the sender's) the data frame carries the 2-byte prefix and k hop
// records; the ACK echoes all Hops records on every reverse link:
//
//	RTT = BaseRTT + Σ_{k=0..H} ser(2 + 8k) + (H+1)·ser(2 + 8H)
func BaseRTTWithINT(f FlowInfo) units.Time {
	t := f.BaseRTT
	h := units.Bytes(f.Hops)
	for k := units.Bytes(0); k <= h; k++ {
		t += units.SerializationTime(INTPrefixBytes+k*INTHopBytes, f.Bottleneck)
	}
	t += units.Time(h+1) * units.SerializationTime(INTPrefixBytes+h*INTHopBytes, f.Bottleneck)
	return t
}

// initialActions is the capacity of a part's actions buffer (a CP marks
// or sends one message per event; a large network builds thousands); a
// part that needs more says how many (cc.ActionsFullError) and the buffer
// grows (call).
const initialActions = 2

// call runs ev against act, growing act when the part needs more room
// than it has (the part changed nothing, rule 2), up to cc.ActionsLimit.
func call(act **cc.Actions, ev func(*cc.Actions) error) error {
	return cc.RunGrowing(act, cc.ActionsLimit, ev)
}

// schemeCP runs a cc.CongestionPoint at one harness queue.
type schemeCP struct {
	c    cc.CongestionPoint
	act  *cc.Actions
	pkt  cc.Packet
	errs ErrorSink
	rec  *traceRec // nil unless this part is traced (Options.Trace)
}

func (w *schemeCP) queue(q *Queue) cc.Queue {
	return cc.Queue{Len: q.Len(), Rate: q.Rate(), TxBytes: q.TxBytes(), Paused: q.Paused()}
}

// packet fills the CP's cc.Packet from p. Field by field, every field
// written (TestSchemePacketFields checks the list): w is on the heap and
// cc.Packet holds a pointer, so assigning a whole composite value would
// copy it with a bulk write barrier while the GC is marking.
func (w *schemeCP) packet(p *Packet) *cc.Packet {
	c := &w.pkt
	c.Flow, c.Src, c.Dst, c.Seq = cc.FlowID(p.Flow), cc.NodeID(p.Src), cc.NodeID(p.Dst), p.Seq
	c.Payload, c.Size, c.Prio, c.CE = p.Payload, p.Size, p.Prio, p.CE
	c.INT = nil
	if p.HasINT {
		c.INT = &p.INT
	}
	c.Echo, c.Hdr = 0, p.Hdr
	return c
}

func (w *schemeCP) OnEnqueue(now units.Time, q *Queue, p *Packet) {
	cq, cp := w.queue(q), w.packet(p)
	if w.rec != nil {
		w.rec.packet(cctest.Enqueue, now, 0, cp, cq)
	}
	err := call(&w.act, func(a *cc.Actions) error { return w.c.Enqueue(now, cp, cq, a) })
	if w.rec != nil {
		w.rec.out(w.c, err, w.act)
	}
	w.apply(now, q, p, err)
}

func (w *schemeCP) OnDequeue(now units.Time, q *Queue, p *Packet) {
	cq, cp := w.queue(q), w.packet(p)
	hops := p.INT.NHop
	if w.rec != nil {
		w.rec.packet(cctest.Dequeue, now, 0, cp, cq)
	}
	err := call(&w.act, func(a *cc.Actions) error { return w.c.Dequeue(now, cp, cq, a) })
	if w.rec != nil {
		w.rec.out(w.c, err, w.act)
	}
	if p.HasINT && p.INT.NHop > hops {
		// The CP stamped its record: the frame grows by it on the wire.
		p.Size += units.Bytes(p.INT.NHop-hops) * INTHopBytes
	}
	w.apply(now, q, p, err)
}

func (w *schemeCP) NextDeadline() units.Time { return w.c.NextDeadline() }

func (w *schemeCP) OnTimer(now units.Time, q *Queue) {
	if w.rec != nil {
		w.rec.timer(now)
	}
	err := call(&w.act, func(a *cc.Actions) error { return w.c.Timer(now, a) })
	if w.rec != nil {
		w.rec.out(w.c, err, w.act)
	}
	w.apply(now, q, nil, err)
}

// apply carries out a CP's decisions: marks on the packet, feedback to
// flows' sources.
func (w *schemeCP) apply(now units.Time, q *Queue, p *Packet, err error) {
	if err != nil {
		w.errs.Add(now, flowOf(p), err)
		return
	}
	for _, a := range w.act.All() {
		switch a.Kind {
		case cc.ActionMarkCE:
			if p != nil {
				p.CE = true
			}
		case cc.ActionFeedback:
			if a.To != cc.ToSource {
				w.errs.Add(now, flowOf(p), fmt.Errorf("harness: congestion point sent %v to the flow's %v, which the harness does not carry yet", a.Feedback.Kind, a.To))
				continue
			}
			q.SendFeedback(FlowID(a.Feedback.Flow), Feedback{CC: a.Feedback})
		default:
			w.errs.Add(now, flowOf(p), fmt.Errorf("harness: congestion point asked for %v, which the harness does not carry out yet", a.Kind))
		}
	}
}

func flowOf(p *Packet) FlowID {
	if p == nil {
		return -1
	}
	return p.Flow
}

// schemeRP runs a cc.ReactionPoint at one flow's sender.
type schemeRP struct {
	r          cc.ReactionPoint
	flow       cc.FlowID
	line, cap  units.Rate // the NIC's line rate; min(offered, line)
	act        *cc.Actions
	errs       ErrorSink
	delay      units.Time // the NIC's reaction delay to feedback (the part's ReactionDelay)
	pending    []pendingFeedback
	head, n    int
	pkt        cc.Packet
	fb         cc.Feedback
	lastLimits cc.Limits
	noAcks     bool                   // the scheme's NoAcks
	toDst      func(cc.Feedback) bool // FlowInfo.SendToDestination
	src, dst   cc.NodeID
	rec        *traceRec // nil unless this part is traced (Options.Trace)
}

// pendingFeedback is a message waiting out the reaction delay.
type pendingFeedback struct {
	at units.Time
	fb cc.Feedback
}

// Rate is min(offered, line rate, the part's pacing rate).
func (w *schemeRP) Rate() units.Rate {
	l := w.r.Limits()
	if l.Rate == cc.NoRate || l.Rate > w.cap {
		return w.cap
	}
	return l.Rate
}

// Window is the part's window (0: none).
func (w *schemeRP) Window() units.Bytes { return w.r.Limits().Window }

func (w *schemeRP) OnSend(now units.Time, seq uint64, n units.Bytes) {
	w.deliver(now)
	w.pkt = cc.Packet{Flow: w.flow, Src: w.src, Dst: w.dst, Seq: seq, Payload: n}
	if w.rec != nil {
		w.rec.packet(cctest.Sent, now, 0, &w.pkt, cc.Queue{})
	}
	w.run(now, func(a *cc.Actions) error { return w.r.Sent(now, &w.pkt, a) })
}

// OnSendFrame is OnSend with the frame's wire size and priority, which a
// credited part spends (the harness calls it instead of OnSend).
func (w *schemeRP) OnSendFrame(now units.Time, p *Packet) {
	w.deliver(now)
	w.pkt = cc.Packet{Flow: w.flow, Src: w.src, Dst: w.dst, Seq: p.Seq, Payload: p.Payload, Size: p.Size, Prio: p.Prio}
	if w.rec != nil {
		w.rec.packet(cctest.Sent, now, 0, &w.pkt, cc.Queue{})
	}
	w.run(now, func(a *cc.Actions) error { return w.r.Sent(now, &w.pkt, a) })
	p.Echo = w.pkt.Echo
}

// Credit is the part's credit and whether it gates the flow on it.
func (w *schemeRP) Credit() (units.Bytes, bool) {
	l := w.r.Limits()
	return l.Credit, l.Credited
}

func (w *schemeRP) OnAck(now units.Time, a *Ack) {
	if w.noAcks {
		return
	}
	kind := cc.FeedbackAck
	if a.NAK {
		kind = cc.FeedbackNak
	}
	f := cc.Feedback{Kind: kind, Flow: w.flow, Seq: a.Seq, Acked: a.Newly, SndNxt: a.SndNxt, ECE: a.ECE}
	if a.HasINT {
		f.INT = a.INT
	}
	w.feedback(now, f)
}

func (w *schemeRP) OnCNP(now units.Time) {
	w.feedback(now, cc.Feedback{Kind: cc.FeedbackCNP, Flow: w.flow})
}

func (w *schemeRP) OnFeedback(now units.Time, fb *Feedback) {
	w.feedback(now, fb.CC)
}

// feedback hands f to the part now, or queues it for the reaction delay.
// The delay is the NIC's reaction to congestion feedback (a CNP, a rate
// message, RoCC's "NIC (RP) reaction delay"): the transport's ACKs and
// NAKs reach the part at once, after the delayed messages already due. An
// INT header is only valid during the call, so a delayed message goes
// without it (no delayed scheme carries INT).
func (w *schemeRP) feedback(now units.Time, f cc.Feedback) {
	w.deliver(now)
	if w.delay == 0 || f.Kind == cc.FeedbackAck || f.Kind == cc.FeedbackNak {
		w.fb = f
		if w.rec != nil {
			w.rec.feedback(cctest.Feedback, now, 0, &w.fb)
		}
		w.run(now, func(a *cc.Actions) error { return w.r.Feedback(now, &w.fb, a) })
		return
	}
	f.INT = nil
	if w.n == len(w.pending) {
		grown := make([]pendingFeedback, max(8, 2*len(w.pending)))
		for i := 0; i < w.n; i++ {
			grown[i] = w.pending[(w.head+i)%len(w.pending)]
		}
		w.pending, w.head = grown, 0
	}
	w.pending[(w.head+w.n)%len(w.pending)] = pendingFeedback{at: now + w.delay, fb: f}
	w.n++
}

// deliver hands the part every delayed message due by now, each at its due
// time.
func (w *schemeRP) deliver(now units.Time) {
	for w.n > 0 && w.pending[w.head].at <= now {
		e := w.pending[w.head]
		w.head = (w.head + 1) % len(w.pending)
		w.n--
		w.fb = e.fb
		if w.rec != nil {
			w.rec.feedback(cctest.Feedback, e.at, 0, &w.fb)
		}
		w.run(e.at, func(a *cc.Actions) error { return w.r.Feedback(e.at, &w.fb, a) })
	}
}

// run calls the part and carries its messages to the flow's receiver.
func (w *schemeRP) run(now units.Time, ev func(*cc.Actions) error) {
	err := call(&w.act, ev)
	if w.rec != nil {
		w.rec.out(w.r, err, w.act)
	}
	if err != nil {
		w.errs.Add(now, FlowID(w.flow), err)
		return
	}
	for _, a := range w.act.All() {
		if a.Kind == cc.ActionFeedback && a.To == cc.ToDestination && w.toDst != nil {
			w.toDst(a.Feedback)
			continue
		}
		w.errs.Add(now, FlowID(w.flow), fmt.Errorf("harness: reaction point asked for %v %v to the %v, which the harness does not carry", a.Kind, a.Feedback.Kind, a.To))
	}
}

// NextDeadline is the earlier of the next delayed message and the part's.
func (w *schemeRP) NextDeadline() units.Time {
	d := w.r.NextDeadline()
	if w.n > 0 {
		d = min(d, w.pending[w.head].at)
	}
	return d
}

func (w *schemeRP) OnTimer(now units.Time) {
	w.deliver(now)
	if w.r.NextDeadline() <= now {
		if w.rec != nil {
			w.rec.timer(now)
		}
		w.run(now, func(a *cc.Actions) error { return w.r.Timer(now, a) })
	}
}

// schemeNP runs a cc.NotificationPoint at one flow's receiver.
type schemeNP struct {
	n    cc.NotificationPoint
	act  *cc.Actions
	pkt  cc.Packet
	fb   cc.Feedback
	errs ErrorSink
	send func(fb cc.Feedback) bool // FlowInfo.SendToSource
	rec  *traceRec                 // nil unless this part is traced (Options.Trace)
}

func (w *schemeNP) OnData(now units.Time, p *Packet) bool {
	w.pkt = cc.Packet{Flow: cc.FlowID(p.Flow), Src: cc.NodeID(p.Src), Dst: cc.NodeID(p.Dst), Seq: p.Seq,
		Payload: p.Payload, Size: p.Size, Prio: p.Prio, CE: p.CE, Echo: p.Echo, Hdr: p.Hdr}
	if w.rec != nil {
		w.rec.packet(cctest.Receive, now, 0, &w.pkt, cc.Queue{})
	}
	err := call(&w.act, func(a *cc.Actions) error { return w.n.Receive(now, &w.pkt, a) })
	if w.rec != nil {
		w.rec.out(w.n, err, w.act)
	}
	return w.cnp(now, p.Flow, err)
}

// OnSource hands the part a message from the flow's source.
func (w *schemeNP) OnSource(now units.Time, fb *Feedback) bool {
	w.fb = fb.CC
	if w.rec != nil {
		w.rec.feedback(cctest.Feedback, now, 0, &w.fb)
	}
	err := call(&w.act, func(a *cc.Actions) error { return w.n.Feedback(now, &w.fb, a) })
	if w.rec != nil {
		w.rec.out(w.n, err, w.act)
	}
	return w.cnp(now, FlowID(w.fb.Flow), err)
}

func (w *schemeNP) NextDeadline() units.Time { return w.n.NextDeadline() }

func (w *schemeNP) OnTimer(now units.Time) bool {
	if w.rec != nil {
		w.rec.timer(now)
	}
	err := call(&w.act, func(a *cc.Actions) error { return w.n.Timer(now, a) })
	if w.rec != nil {
		w.rec.out(w.n, err, w.act)
	}
	return w.cnp(now, -1, err)
}

// cnp reports whether the part asked for a CNP to the flow's source.
func (w *schemeNP) cnp(now units.Time, flow FlowID, err error) bool {
	if err != nil {
		w.errs.Add(now, flow, err)
		return false
	}
	cnp := false
	for _, a := range w.act.All() {
		switch {
		case a.Kind == cc.ActionFeedback && a.To == cc.ToSource && a.Feedback.Kind == cc.FeedbackCNP:
			cnp = true // the NIC's CNP path (OnData's result)
		case a.Kind == cc.ActionFeedback && a.To == cc.ToSource && w.send != nil:
			w.send(a.Feedback)
		default:
			w.errs.Add(now, flow, fmt.Errorf("harness: notification point asked for %v %v to the %v, which the harness does not carry yet", a.Kind, a.Feedback.Kind, a.To))
		}
	}
	return cnp
}

// PartHolder is implemented by the congestion, reaction and notification
// points the generic adapter returns: Part gives the cc part it drives, for
// tests and tools that read its state (AppendRegisters, or its own type's
// State).
type PartHolder interface {
	Part() cc.Part
}

// Part returns the congestion point this queue runs.
func (w *schemeCP) Part() cc.Part { return w.c }

// Part returns the reaction point this flow runs.
func (w *schemeRP) Part() cc.Part { return w.r }

// Part returns the notification point this flow runs.
func (w *schemeNP) Part() cc.Part { return w.n }

// Schemes returns the names of the registered algorithms the generic
// adapter runs, sorted.
func Schemes() []string {
	var out []string
	for _, n := range Names() {
		if a, err := Lookup(n); err == nil {
			if _, ok := a.(*schemeAlgo); ok {
				out = append(out, n)
			}
		}
	}
	slices.Sort(out)
	return out
}

// Compile-time checks.
var (
	_ Algorithm    = (*schemeAlgo)(nil)
	_ ParamChecker = (*schemeAlgo)(nil)
	_ CP           = (*schemeCP)(nil)
	_ RP           = (*schemeRP)(nil)
	_ NP           = (*schemeNP)(nil)
	_ CreditRP     = (*schemeRP)(nil)
	_ FrameRP      = (*schemeRP)(nil)
	_ SourceNP     = (*schemeNP)(nil)
	_ PartHolder   = (*schemeCP)(nil)
	_ PartHolder   = (*schemeRP)(nil)
	_ PartHolder   = (*schemeNP)(nil)
)
