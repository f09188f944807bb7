package harness

import (
	"fmt"

	// hwcc's own algorithms: a run may name any of them, and its default,
	// none, is one. A user's algorithm registers itself in cc alike.
	_ "github.com/hwcc/hwcc/algos"
	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
)

// scheme is how a run drives the algorithm it runs: the registered
// algorithm (package cc), the part of each role its deployment runs, each
// part's settings (the deployment's defaults, then the scenario's
// parameters), and what the run asks of the parts it builds (a trace of
// one, Options.Wrap). One generic adapter per role feeds the parts
// packets, queue states and feedback through the contract, carries what
// their actions emit, and gates the NIC by their Limits: nothing in the
// switch or NIC models names an algorithm.
type scheme struct {
	a        cc.Algorithm
	parts    [cc.RoleSW + 1]*cc.PartSpec
	settings [cc.RoleSW + 1][]cc.Setting
	feat     features
	trace    *TraceTarget
	wrap     func(Place, cc.Part) cc.Part
	cps      slab[cpBlock]             // the congestion points' adapters (newCP)
	rps      slab[partBlock[schemeRP]] // the flows' reaction points' adapters (newRP)
	nps      slab[partBlock[schemeNP]] // and notification points' (newNP)
}

// newScheme looks algorithm name up in the registry and resolves its
// deployment's parts and their settings for a run with params.
func newScheme(name string, params map[string]string) (*scheme, error) {
	a, err := cc.Lookup(name)
	if err != nil {
		return nil, err
	}
	g := &scheme{a: a}
	d := &a.Deploy
	g.feat = features{tel: d.Telemetry, symmetric: d.Symmetric, ecn: d.ECN}
	for _, r := range cc.Roles {
		pn := a.Deployed(r)
		if pn == "" {
			continue
		}
		ps, err := a.Part(pn)
		if err != nil {
			return nil, err
		}
		g.parts[r] = &ps
		if g.settings[r], err = a.DeploySettings(r, params); err != nil {
			return nil, err
		}
	}
	if err := a.ValidateParams(params); err != nil {
		return nil, err
	}
	if g.parts[cc.RoleRP] == nil {
		return nil, fmt.Errorf("harness: algorithm %s deploys no reaction point: every flow runs one", a.Name)
	}
	return g, nil
}

// name is the algorithm's registry name.
func (g *scheme) name() string { return g.a.Name }

// build makes role r's part in env and returns the part the run drives,
// wrapped as Options.Wrap asks, and the part as the deployment built it,
// whose optional hooks (ReactionDelay) the run reads, so that a probe
// wrapping a part does not change how the NIC treats it; with its
// recorder if the trace target names place (nil, nil when the deployment
// runs no part in that role).
func (g *scheme) build(r cc.Role, env *cc.Env, at Place) (drive, built cc.Part, rec *traceRec, err error) {
	ps := g.parts[r]
	if ps == nil {
		return nil, nil, nil, nil
	}
	p, err := cc.NewIn(env, g.a.Name, ps.Name, g.settings[r])
	if err != nil {
		return nil, nil, nil, err
	}
	built = p
	at.Role, at.Env = r, *env
	if g.trace != nil && g.trace.names(at) {
		rec = g.trace.start(g.a.Name, ps.Name, r, g.settings[r], env)
	}
	if g.wrap != nil {
		w := g.wrap(at, p)
		if w == nil || !r.Plays(w) {
			return nil, nil, nil, fmt.Errorf("harness: Options.Wrap returned %T for the %v at %s, not a %v", w, r, at.where(), r)
		}
		p = w
	}
	return p, built, rec, nil
}

// where describes a place for errors.
func (at Place) where() string {
	switch at.Role {
	case cc.RoleCP:
		return fmt.Sprintf("port %s:%d", at.Node, at.Port)
	case cc.RoleSW:
		return "switch " + at.Node
	}
	return fmt.Sprintf("flow %d at %s", at.Flow, at.Node)
}

// newModule builds the switch point of one switch, or returns nil when the
// deployment runs none.
func (g *scheme) newModule(info switchInfo) (*schemeSW, error) {
	p, _, rec, err := g.build(cc.RoleSW, swEnv(info), Place{Node: info.Name, Port: -1, Flow: -1})
	if err != nil || p == nil {
		return nil, err
	}
	return &schemeSW{p: p.(cc.SwitchPoint), act: cc.NewActions(initialActions), errs: info.Errors, rec: rec, enq: -1}, nil
}

// swEnv is a switch point's environment.
func swEnv(info switchInfo) *cc.Env {
	return &cc.Env{Rate: info.Rate, Node: cc.NodeID(info.Node), SwitchID: info.SwitchID, Ports: info.Ports, SwitchPorts: info.PortList, BaseRTT: info.MaxBaseRTT, Index: int(info.Node) + 1}
}

// newCP builds the congestion point of one switch egress data queue, in
// the environment of its port, or returns nil when the deployment runs
// none. The adapters, environments and action buffers are cut from slabs,
// so that a network of thousands of ports does not make thousands of
// small allocations of each.
func (g *scheme) newCP(info cpInfo) (*schemeCP, error) {
	if g.parts[cc.RoleCP] == nil {
		return nil, nil
	}
	k := g.cps.next()
	k.env = *cpEnv(info)
	p, _, rec, err := g.build(cc.RoleCP, &k.env, Place{Node: info.NodeName, Port: info.Port, Flow: -1})
	if err != nil {
		return nil, err
	}
	w := &k.w
	w.c, w.act, w.errs, w.rec = p.(cc.CongestionPoint), k.actions(), info.Errors, rec
	return w, nil
}

// cpEnv is a congestion point's environment: its port's.
func cpEnv(info cpInfo) *cc.Env {
	return &cc.Env{Rate: info.Rate, Node: cc.NodeID(info.Node), Port: uint16(info.Port), SwitchID: info.SwitchID, Index: int(info.ID) + 1}
}

// partBlock is what the harness keeps of one part: its adapter w, the
// adapter's actions and their buffer, next to one another, so that an
// event on one of a large network's thousands of parts touches
// neighbouring lines of one page rather than lines of several arrays. A
// run cuts them from slabs in build order (a flow's when it starts), so
// that the parts in use at once sit near one another.
type partBlock[W any] struct {
	w   W
	act cc.Actions
	buf [initialActions]cc.Action
}

// actions points the block's actions at its buffer and returns them.
func (k *partBlock[W]) actions() *cc.Actions {
	k.act = cc.ActionsOn(k.buf[:])
	return &k.act
}

// cpBlock is a congestion point's block, with its environment.
type cpBlock struct {
	partBlock[schemeCP]
	env cc.Env
}

// env returns a flow's environment for its reaction and notification
// points: the NIC's line rate, the path, the payload, and the base RTT with
// the telemetry bytes the deployment adds (the network's largest with
// NetworkRTT).
func (g *scheme) env(f flowInfo) *cc.Env {
	rtt := f.BaseRTT
	tel := g.feat.telemetry()
	if tel {
		rtt = baseRTTWithTel(f, g.feat.tel)
	}
	if g.a.Deploy.NetworkRTT && f.MaxBaseRTT > 0 {
		n := flowInfo{BaseRTT: f.MaxBaseRTT, Hops: f.MaxHops, Bottleneck: f.Bottleneck}
		if tel {
			n.BaseRTT = baseRTTWithTel(n, g.feat.tel)
		}
		rtt = max(rtt, n.BaseRTT)
	}
	return &cc.Env{Rate: f.LineRate, Node: cc.NodeID(f.Src), BaseRTT: rtt, Bottleneck: f.Bottleneck, Hops: f.Hops, Payload: f.Payload, Size: f.Size, Index: int(f.ID) + 1,
		Start: f.Start}
}

// newRP builds the reaction point of one flow.
func (g *scheme) newRP(f flowInfo) (*schemeRP, error) {
	p, built, rec, err := g.build(cc.RoleRP, g.env(f), Place{Node: f.SrcName, Port: -1, Flow: f.ID})
	if err != nil {
		return nil, fmt.Errorf("flow %d (%s->%s): %w", f.ID, f.SrcName, f.DstName, err)
	}
	k := g.rps.next()
	r := &k.w
	*r = schemeRP{r: p.(cc.ReactionPoint), flow: cc.FlowID(f.ID), line: f.LineRate, act: k.actions(), errs: f.Errors, noAcks: g.a.Deploy.NoAcks,
		toDst: f.SendToDestination, src: cc.NodeID(f.Src), dst: cc.NodeID(f.Dst), rec: rec}
	r.cap = f.LineRate
	if f.Offered > 0 && f.Offered < r.cap {
		r.cap = f.Offered
	}
	if d, ok := built.(interface{ ReactionDelay() units.Time }); ok {
		r.delay = d.ReactionDelay()
	}
	return r, nil
}

// newNP builds the notification point of one flow, or returns nil when the
// deployment runs none.
func (g *scheme) newNP(f flowInfo) (*schemeNP, error) {
	p, _, rec, err := g.build(cc.RoleNP, g.env(f), Place{Node: f.DstName, Port: -1, Flow: f.ID})
	if err != nil {
		return nil, fmt.Errorf("flow %d (%s->%s): %w", f.ID, f.SrcName, f.DstName, err)
	}
	if p == nil {
		return nil, nil
	}
	k := g.nps.next()
	k.w = schemeNP{n: p.(cc.NotificationPoint), act: k.actions(), errs: f.Errors, send: f.SendToSource, rec: rec}
	return &k.w, nil
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

func (w *schemeCP) queue(q *egressQueue) cc.Queue {
	return cc.Queue{Len: q.len(), Rate: q.p.rate, TxBytes: q.txBytes(), Paused: q.paused()}
}

// packet fills the CP's cc.Packet from p. Field by field, every field
// written (TestSchemePacketFields checks the list): w is on the heap and
// cc.Packet holds a pointer, so assigning a whole composite value would
// copy it with a bulk write barrier while the GC is marking.
func (w *schemeCP) packet(p *Packet) *cc.Packet {
	c := &w.pkt
	c.Flow, c.Src, c.Dst, c.Seq = cc.FlowID(p.Flow), cc.NodeID(p.Src), cc.NodeID(p.Dst), p.Seq
	c.Payload, c.Size, c.Prio, c.CE = p.Payload, p.Size, p.Prio, p.CE
	c.Tel = nil
	if p.HasTel {
		c.Tel = &p.Tel
	}
	c.Hdr = p.Hdr
	return c
}

func (w *schemeCP) OnEnqueue(now units.Time, q *egressQueue, p *Packet) {
	cq, cp := w.queue(q), w.packet(p)
	if w.rec != nil {
		w.rec.packet(cc.EventEnqueue, now, 0, cp, cq)
	}
	err := call(&w.act, func(a *cc.Actions) error { return w.c.Enqueue(now, cp, cq, a) })
	if w.rec != nil {
		w.rec.out(w.c, err, w.act)
	}
	w.apply(now, q, p, err)
}

func (w *schemeCP) OnDequeue(now units.Time, q *egressQueue, p *Packet) {
	cq, cp := w.queue(q), w.packet(p)
	n := p.Tel.Len
	if w.rec != nil {
		w.rec.packet(cc.EventDequeue, now, 0, cp, cq)
	}
	err := call(&w.act, func(a *cc.Actions) error { return w.c.Dequeue(now, cp, cq, a) })
	if w.rec != nil {
		w.rec.out(w.c, err, w.act)
	}
	if p.HasTel && p.Tel.Len > n {
		// The CP pushed its record: the frame grows by it on the wire.
		p.Size += units.Bytes(p.Tel.Len - n)
	}
	w.apply(now, q, p, err)
}

func (w *schemeCP) NextDeadline() units.Time { return w.c.NextDeadline() }

func (w *schemeCP) OnTimer(now units.Time, q *egressQueue) {
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
func (w *schemeCP) apply(now units.Time, q *egressQueue, p *Packet, err error) {
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
			q.s.sendFeedback(q, FlowID(a.Feedback.Flow), &a.Feedback)
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
	toDst      func(cc.Feedback) bool // flowInfo.SendToDestination
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

// OnSendFrame hands the part data frame p as it starts transmission, with
// its wire size and priority (which a credited part spends), and carries
// the header bytes the part writes into the frame.
func (w *schemeRP) OnSendFrame(now units.Time, p *Packet) {
	w.deliver(now)
	w.pkt = cc.Packet{Flow: w.flow, Src: w.src, Dst: w.dst, Seq: p.Seq, Payload: p.Payload, Size: p.Size, Prio: p.Prio}
	if w.rec != nil {
		w.rec.packet(cc.EventSent, now, 0, &w.pkt, cc.Queue{})
	}
	w.run(now, func(a *cc.Actions) error { return w.r.Sent(now, &w.pkt, a) })
	p.Hdr = w.pkt.Hdr
}

// Credit is the part's credit and whether it gates the flow on it.
func (w *schemeRP) Credit() (units.Bytes, bool) {
	l := w.r.Limits()
	return l.Credit, l.Credited
}

// OnAck hands the part an ACK or NAK of its flow, unless the deployment
// keeps them from it (NoAcks).
func (w *schemeRP) OnAck(now units.Time, a *ackInfo) {
	if w.noAcks {
		return
	}
	kind := cc.FeedbackAck
	if a.NAK {
		kind = cc.FeedbackNak
	}
	f := cc.Feedback{Kind: kind, Flow: w.flow, Seq: a.Seq, Acked: a.Newly, SndNxt: a.SndNxt, ECE: a.ECE, Data: a.Data}
	f.Tel = a.Tel
	w.feedback(now, f)
}

// OnCNP hands the part a CNP from its flow's notification point.
func (w *schemeRP) OnCNP(now units.Time) {
	w.feedback(now, cc.Feedback{Kind: cc.FeedbackCNP, Flow: w.flow})
}

// OnFeedback hands the part a control message about its flow.
func (w *schemeRP) OnFeedback(now units.Time, fb *cc.Feedback) {
	w.feedback(now, *fb)
}

// feedback hands f to the part now, or queues it for the reaction delay.
// The delay is the NIC's reaction to congestion feedback (a CNP, a rate
// message, RoCC's "NIC (RP) reaction delay"): the transport's ACKs and
// NAKs reach the part at once, after the delayed messages already due. A
// telemetry stack is only valid during the call, so a delayed message
// goes without it (no delayed scheme carries telemetry).
func (w *schemeRP) feedback(now units.Time, f cc.Feedback) {
	w.deliver(now)
	if w.delay == 0 || f.Kind == cc.FeedbackAck || f.Kind == cc.FeedbackNak {
		w.fb = f
		if w.rec != nil {
			w.rec.feedback(cc.EventFeedback, now, 0, &w.fb)
		}
		w.run(now, func(a *cc.Actions) error { return w.r.Feedback(now, &w.fb, a) })
		return
	}
	f.Tel = nil
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
			w.rec.feedback(cc.EventFeedback, e.at, 0, &w.fb)
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
	send func(fb cc.Feedback) bool // flowInfo.SendToSource
	rec  *traceRec                 // nil unless this part is traced (Options.Trace)
	// owner is the flow whose timer a host's notification point runs on
	// (nic.np_scope host; uet.go), nil for a flow's own.
	owner *flow
}

func (w *schemeNP) OnData(now units.Time, p *Packet) bool {
	return w.receive(now, p, p.Payload)
}

// receive hands the part packet p as arriving with payload bytes (p's own
// for a data packet, 0 for a trimmed header) and reports whether it asked
// for a CNP.
func (w *schemeNP) receive(now units.Time, p *Packet, payload units.Bytes) bool {
	w.pkt = cc.Packet{Flow: cc.FlowID(p.Flow), Src: cc.NodeID(p.Src), Dst: cc.NodeID(p.Dst), Seq: p.Seq,
		Payload: payload, Size: p.Size, Prio: p.Prio, CE: p.CE, Hdr: p.Hdr}
	if w.rec != nil {
		w.rec.packet(cc.EventReceive, now, 0, &w.pkt, cc.Queue{})
	}
	err := call(&w.act, func(a *cc.Actions) error { return w.n.Receive(now, &w.pkt, a) })
	if w.rec != nil {
		w.rec.out(w.n, err, w.act)
	}
	return w.cnp(now, p.Flow, err)
}

// OnSource hands the part a message from the flow's source.
func (w *schemeNP) OnSource(now units.Time, fb *cc.Feedback) bool {
	w.fb = *fb
	if w.rec != nil {
		w.rec.feedback(cc.EventFeedback, now, 0, &w.fb)
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
