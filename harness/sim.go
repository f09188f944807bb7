package harness

import (
	"github.com/hwcc/hwcc/cc"
	"math/rand/v2"

	"github.com/hwcc/hwcc/units"
)

// Options are the run-time options of a simulation that are not part of
// the scenario (they do not change its result).
type Options struct {
	// Progress, if set, is called every ProgressEvery events with the
	// simulated time and the end time, and once more at the end.
	Progress func(now, end units.Time)
	// ProgressEvery is the number of events between Progress calls;
	// 0 means 1<<20.
	ProgressEvery uint64
	// NoSeries turns the time series off (Result.Series stays empty).
	NoSeries bool
	// Trace, if set, records the events of one part of the run as a
	// golden-model trace (package trace; TraceTarget.Err says how it
	// went).
	Trace *TraceTarget
	// Wrap, if set, is called with every part the run builds and where it
	// runs, and returns the part the run drives: the same part (to read
	// its registers after the run), or one that wraps it (to check or log
	// each event, as a firmware model's probe would). It must return a
	// part of the same role; the run refuses anything else. What the run
	// reads of a part beyond its role (a reaction point's ReactionDelay)
	// it reads from the part it built, so that a wrapper need not forward
	// it.
	Wrap func(at Place, p cc.Part) cc.Part
}

// DefaultProgressEvery is the default number of events between Progress calls.
const DefaultProgressEvery = 1 << 20

// Sim is one simulation run of a scenario: a single-threaded discrete-event
// simulation with integer picosecond time. Build it with New and run it
// with Run; a Sim runs once.
type Sim struct {
	sc      *Scenario // validated, defaults applied
	algo    *scheme
	feat    features
	errs    errLog                              // the state machines' errors (Report.Errors)
	fc      flowControl                         // the switches' link flow control
	uet     *uetFabric                          // trimming, the selective transport, host NPs (uet.go); nil when off
	modules []*Switch                           // the switches' switch points
	kinds   map[cc.FeedbackKind]*cc.MessageKind // the algorithm's message kinds (cc.Deployment.Messages)
	opts    Options

	now      units.Time
	end      units.Time
	evq      eventQueue
	rng      *rand.Rand
	pool     packetPool
	events   uint64
	err      error
	ran      bool
	building bool

	nodes     []*node
	hosts     []*node
	hostsOf   [][]*node      // by switch node ID: the hosts attached to it, in host order (buildRoutes)
	edges     []*node        // the switches with hosts, in the order of their first host
	bySwID    [1 << 12]*node // switches by 12-bit SwitchID (Switch.SendSwitchID)
	ports     []*port
	portSlab  slab[linePort]
	queues    []*egressQueue // indexed by CPID
	flows     []*flow
	routes    []flowRoute // by flow ID, for nextHop
	adj       adjacency   // the links, for the set-up's searches (buildRoutes)
	byName    map[string]*node
	nSwitches int
	gens      []*arrivalSource
	// maxRTT and maxHops are the network's largest base round trip and
	// its longest path in switches (networkRTT): flowInfo.MaxBaseRTT and
	// MaxHops.
	maxRTT  units.Time
	maxHops int

	// Configuration in force (from the scenario, defaults applied).
	payload  units.Bytes
	preamble units.Bytes
	ackEvery int
	rto      units.Time
	pfcOn    bool
	fcMode   string // FlowPFC, FlowCBFC or FlowNone
	xoff     units.Bytes
	xon      units.Bytes
	ecnK     units.Bytes

	// Measurement.
	from, to   units.Time
	sampleIvl  units.Time
	sampleT    []units.Time
	seriesRefs []*flow

	ack ackInfo
	st  simStats
	// warmth is where warm's loads land (a sum nothing reads), so that
	// the compiler keeps them.
	warmth uint32
}

// simStats are the run's global counters.
type simStats struct {
	drops, dropBytes          int64
	dropDataPayload           int64
	headroomDrops             int64
	shapedDrops               int64
	fcSent                    int64 // CBFC flow-control packets
	dataSentPayload           int64
	dataSentPkts              int64
	dataRecvPayload           int64
	dataRecvPkts              int64
	cnpSent                   int64
	feedbackSent              int64
	feedbackRecv              int64
	timeouts                  int64
	flowsDone                 int64
	intFull                   int64
	intQLenSat                int64
	maxBufUsed                units.Bytes
	droppedCtrl, consumedCtrl int64
	poissonFlows              int64
	poissonBytes              int64
	frameHops                 int64 // frames put on a wire (transmit)
}

// fail records the first error; the run stops at the next event.
func (s *Sim) fail(err error) {
	if s.err == nil {
		s.err = err
	}
}

// Now returns the current simulated time.
func (s *Sim) Now() units.Time { return s.now }

// Events returns the number of events processed so far.
func (s *Sim) Events() uint64 { return s.events }

// runUntil processes every event scheduled at or before end, then sets the
// clock to end. Events at the same instant run in the order they were
// scheduled.
func (s *Sim) runUntil(end units.Time) {
	every := s.opts.ProgressEvery
	if every == 0 {
		every = DefaultProgressEvery
	}
	for s.err == nil {
		e, ok := s.evq.popUntil(end)
		if !ok {
			break
		}
		s.now = e.at
		// Time-series samples are the harness observing itself, not
		// network events: they are not counted, so that Report.Events is
		// the same with and without series (Options.NoSeries).
		if e.kind != evSample {
			s.events++
		}
		// Warm the next event of this slot, and walk the next slot's
		// list one node further, warming the node the last step fetched
		// (doc.go, Event queue).
		if n := s.evq.aheadStep(); n != nil {
			s.warm(n)
		}
		if n := s.evq.peek(); n != nil {
			s.warm(n)
		}
		s.dispatch(&e)
		if s.opts.Progress != nil && s.events%every == 0 {
			s.opts.Progress(s.now, s.end)
		}
	}
	if s.now < end {
		s.now = end
	}
}

// warm loads the first cache line of the port and of the packet of
// pending event e, the next to run: runUntil calls it before it runs the
// current event, so that the memory the next one starts from is on its
// way to the cache while the current one runs, rather than fetched when
// the next begins. It reads and changes nothing else: the run is the same
// without it (doc.go, Event queue).
func (s *Sim) warm(e *event) {
	if e.kind.onPort() {
		s.warmth += uint32(s.ports[e.idx].gid)
	}
	if e.pkt != 0 {
		s.warmth += uint32(s.pool.at(e.pkt).Kind)
	}
}

// dispatch runs one event.
func (s *Sim) dispatch(e *event) {
	switch e.kind {
	case evArrive:
		pt := s.ports[e.idx]
		if n := pt.node; n.isHost {
			s.hostReceive(n, pt, s.pool.at(e.pkt))
		} else {
			s.switchReceive(n, pt, s.pool.at(e.pkt))
		}
	case evTxDone:
		pt := s.ports[e.idx]
		pt.busy = false
		s.kick(pt)
	case evNICWake:
		pt := s.ports[e.idx]
		pt.wake.fired(s.now)
		s.kick(pt)
	case evRPTimer:
		s.onRPTimer(s.flows[e.idx])
	case evNPTimer:
		s.onNPTimer(s.flows[e.idx])
	case evRTO:
		s.onRTO(s.flows[e.idx])
	case evCPTimer:
		s.onCPTimer(s.queues[e.idx])
	case evModuleTimer:
		s.onModuleTimer(s.modules[e.idx])
	case evFCTimer:
		s.onFCTimer(s.ports[e.idx])
	case evSwitchMsg:
		s.switchMessage(s.nodes[e.idx], -1, s.pool.at(e.pkt))
	case evFlowStart:
		s.startFlow(s.flows[e.idx])
	case evFlowStop:
		s.stopFlow(s.flows[e.idx])
	case evPoisson:
		s.onArrival(s.gens[e.idx])
	case evSample:
		s.sample()
	case evMeasure:
		s.measure(e.idx)
	}
}

// kick starts a transmission on pt if it is idle and has something to
// send: a PFC frame first, then by priority.
func (s *Sim) kick(pt *port) {
	if pt.busy {
		return
	}
	if pt.pfcDirty != 0 {
		if p := s.nextPFC(pt); p != nil {
			pt.busy = true
			s.transmit(pt, p)
			return
		}
	}
	if pt.fcDue != 0 {
		if p := s.nextFC(pt); p != nil {
			pt.busy = true
			s.transmit(pt, p)
			return
		}
	}
	var p *Packet
	if pt.node.isHost {
		p = s.hostNext(pt)
	} else {
		p = s.switchNext(pt)
	}
	if p == nil {
		return
	}
	// Busy before the hooks run, so that a hook that kicks this port
	// (feedback, a rate change) cannot start a second frame.
	pt.busy = true
	if !pt.node.isHost {
		s.switchDequeued(pt, p)
	} else if p.Kind == KindData {
		s.hostSent(s.flows[p.Flow], p)
	}
	if pt.cbfcTx != nil {
		s.cbfcSent(pt, p)
	}
	s.transmit(pt, p)
}

// transmit serialises p on pt: the port is busy for ser(p.Size, rate), and
// p arrives at the peer after that plus the propagation delay (the last
// bit: store and forward).
func (s *Sim) transmit(pt *port, p *Packet) {
	d := units.SerializationTime(p.Size, pt.rate)
	pt.st.txBytes += uint64(p.Size)
	s.st.frameHops++
	pt.txStart, pt.txEnd, pt.txSize = s.now, s.now+d, p.Size
	s.evq.push(event{at: s.now + d, kind: evTxDone, idx: pt.gid})
	s.evq.push(event{at: s.now + d + pt.delay, kind: evArrive, idx: pt.peerGID, pkt: p.handle})
}

// drop discards p at egress port out (nil if none).
func (s *Sim) drop(out *port, p *Packet) {
	s.st.drops++
	s.st.dropBytes += int64(p.Size)
	if p.Kind == KindData {
		s.st.dropDataPayload += int64(p.Payload)
	} else {
		s.st.droppedCtrl++
	}
	if out != nil {
		out.st.drops++
	}
	s.free(p)
}

// consumed discards p at its destination.
func (s *Sim) consumed(p *Packet) {
	if p.Kind != KindData {
		s.st.consumedCtrl++
	}
	s.free(p)
}

func (s *Sim) free(p *Packet) { s.pool.put(p) }
