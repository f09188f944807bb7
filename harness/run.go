package harness

import (
	"errors"
	"fmt"
	"github.com/hwcc/hwcc/cc"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/voq"
)

// seedStream is the second PCG word: the run's generator is
// rand.NewPCG(Seed, seedStream).
const seedStream = 0x9e3779b97f4a7c15

// Run builds and runs scenario sc: shorthand for New followed by Sim.Run.
func Run(sc *Scenario, opts Options) (*Result, error) {
	s, err := New(sc, opts)
	if err != nil {
		return nil, err
	}
	return s.Run()
}

// New validates sc and builds its network, algorithm parts and workload.
// The Sim keeps a copy of the scenario: later changes to sc do not affect it.
func New(sc *Scenario, opts Options) (*Sim, error) {
	if sc == nil {
		return nil, errors.New("harness: nil scenario")
	}
	if err := sc.Validate(); err != nil {
		return nil, err
	}
	cp := *sc
	s := &Sim{sc: &cp, opts: opts, byName: map[string]*node{}, building: true}
	algo, err := newScheme(cp.Algorithm, cp.Params)
	if err != nil {
		return nil, err
	}
	if net := algo.a.Deploy.Network; len(net) > 0 {
		for _, kv := range cc.SettingsOf(net) {
			if err := cp.Set(kv.Name, kv.Value); err != nil {
				return nil, fmt.Errorf("harness: algorithm %s: %w", algo.name(), err)
			}
		}
		if err := cp.Validate(); err != nil {
			return nil, fmt.Errorf("harness: algorithm %s's settings: %w", algo.name(), err)
		}
	}
	s.algo, s.feat = algo, algo.feat
	algo.wrap = opts.Wrap
	if opts.Trace != nil {
		if err := opts.Trace.use(algo); err != nil {
			return nil, err
		}
		algo.trace = opts.Trace
	}
	if msgs := algo.a.Deploy.Messages; len(msgs) > 0 {
		// cc.RegisterAlgorithm checked each declaration's limits.
		s.kinds = map[cc.FeedbackKind]*cc.MessageKind{}
		for i := range msgs {
			k := msgs[i]
			s.kinds[k.Kind] = &k
		}
	}
	s.payload = units.Bytes(cp.NIC.Payload)
	s.preamble = PreambleIFGBytes
	if cp.NIC.NoPreamble {
		s.preamble = 0
	}
	s.ackEvery = cp.NIC.AckEvery
	s.rto = units.Time(cp.NIC.RTO)
	s.uet = newUETFabric(&cp, s.preamble)
	s.fcMode = cp.Switch.flowControl()
	s.pfcOn = s.fcMode == FlowPFC
	switch s.fcMode {
	case FlowPFC:
		s.fc = pfcControl{}
	case FlowCBFC:
		s.fc = cbfcControl{}
	default:
		s.fc = lossyControl{}
	}
	s.xoff = units.Bytes(cp.Switch.Xoff)
	s.xon = units.Bytes(cp.Switch.Xon)
	if s.xon == 0 {
		s.xon = max(s.xoff-2*(DataOverheadBytes+s.payload+s.preamble), 0)
	}
	s.ecnK = units.Bytes(cp.Switch.ECN)
	s.rng = rand.New(rand.NewPCG(cp.Seed, seedStream))
	s.end = units.Time(cp.Duration)
	s.from = units.Time(cp.MeasureFrom)
	s.to = units.Time(cp.measureTo())
	s.sampleIvl = units.Time(cp.SampleInterval)

	topo := cp.Topology
	if topo.Kind == "star" && topo.Hosts == 0 {
		topo.Hosts = starHostsNeeded(&cp.Workload)
	}
	if err := topo.build(s); err != nil {
		return nil, fmt.Errorf("scenario %s: topology: %w", cp.Name, err)
	}
	s.nameLinks()
	if err := s.buildRoutes(); err != nil {
		return nil, fmt.Errorf("scenario %s: %w", cp.Name, err)
	}
	if err := s.buildSwitches(); err != nil {
		return nil, fmt.Errorf("scenario %s: %w", cp.Name, err)
	}
	s.maxRTT, s.maxHops = s.networkRTT(DataOverheadBytes+s.payload+s.preamble, AckFrameBytes+s.preamble)
	if err := s.buildModules(); err != nil {
		return nil, fmt.Errorf("scenario %s: %w", cp.Name, err)
	}
	// Window and sampling events first, so that at equal times they run
	// before the traffic scheduled at the same instant.
	s.evq.push(event{at: s.from, kind: evMeasure, idx: 0})
	s.evq.push(event{at: s.to, kind: evMeasure, idx: 1})
	if !opts.NoSeries {
		s.evq.push(event{at: s.sampleIvl, kind: evSample})
	}
	if err := s.buildWorkload(&cp.Workload); err != nil {
		return nil, fmt.Errorf("scenario %s: %w", cp.Name, err)
	}
	if !opts.NoSeries {
		n := int(s.end/s.sampleIvl) + 1
		series := min(len(s.flows), MaxSeriesFlows)
		for _, n := range s.nodes {
			if !n.isHost {
				series += len(n.ports)
			}
		}
		if int64(n)*int64(series) > MaxSeriesValues {
			return nil, fmt.Errorf("scenario %s: the time series would hold %d samples of %d series (limit %d): raise sample_interval (now %v) or turn the series off (Options.NoSeries)",
				cp.Name, n, series, MaxSeriesValues, s.sampleIvl)
		}
		s.sampleT = make([]units.Time, 0, n)
		for _, f := range s.flows {
			if len(s.seriesRefs) == MaxSeriesFlows {
				break
			}
			f.series = make([]float64, 0, n)
			s.seriesRefs = append(s.seriesRefs, f)
		}
		for _, pt := range s.ports {
			if pt.st.q.on {
				pt.st.queueSeries = make([]units.Bytes, 0, n)
			}
		}
	}
	s.building = false
	return s, s.err
}

// buildSwitches sets up every switch: per-port PFC headroom, the buffer
// (switch.buffer, or switch.pool plus the headroom its ports reserve), ECMP
// salt, queue statistics, the data queue's congestion point.
func (s *Sim) buildSwitches() error {
	// First pass: headroom, reserve and buffer of every switch, which the
	// CPs (cpInfo.Buffer) and the histograms (their length) need.
	buffer, pool := units.Bytes(s.sc.Switch.Buffer), units.Bytes(s.sc.Switch.Pool)
	var maxBuffer units.Bytes
	for _, n := range s.nodes {
		if n.isHost {
			continue
		}
		for _, pt := range n.ports {
			pt.headroom = units.Bytes(s.sc.Switch.Headroom)
			if pt.headroom == 0 {
				pt.headroom = s.headroomFor(pt)
			}
			if s.pfcOn {
				// Each term and the running sum stay at most MaxBuffer,
				// so the sum cannot wrap (see MaxBuffer).
				if pt.headroom > units.Bytes(MaxBuffer) || n.hdrmReserve+pt.headroom > units.Bytes(MaxBuffer) {
					return fmt.Errorf("switch %s: the PFC headroom of its ports exceeds %v at port %s (%v): lower switch.headroom, or the links' rate·delay",
						n.name, units.Bytes(MaxBuffer), pt.name, pt.headroom)
				}
				n.hdrmReserve += pt.headroom
			}
		}
		// buffer = pool + Σ_ports headroom (0 with PFC off), so that
		// sharedFree starts at exactly pool.
		n.buffer = buffer
		if pool > 0 {
			n.buffer = pool + n.hdrmReserve
		}
		maxBuffer = max(maxBuffer, n.buffer)
	}
	// The histograms span twice the largest buffer plus 1 MB: queue
	// lengths also count control frames, which the buffer does not hold;
	// a longer queue is counted in the last bucket.
	histLen := histBucket(2*maxBuffer+units.MB) + 1
	var queues slab[lineQueue]
	for _, n := range s.nodes {
		if n.isHost {
			continue
		}
		n.salt = s.rng.Uint64()
		n.byDst = s.sc.Switch.ECMP == ECMPDestination
		for _, pt := range n.ports {
			pt.st.q.on, pt.st.q.n = true, int32(histLen)
			q := &queues.next().egressQueue
			q.s, q.p, q.prio, q.id = s, pt, DataPrio, CPID(len(s.queues))
			q.timer.at = units.MaxTime
			q.info = cpInfo{
				ID: q.id, Node: n.id, NodeName: n.name, Port: pt.num, PeerName: pt.peer.node.name,
				Prio: DataPrio, Rate: pt.rate, Delay: pt.delay, Buffer: n.buffer,
				SwitchID: n.swID, Errors: ErrorSink{log: &s.errs, where: pt.name + " cp"},
			}
			cp, err := s.algo.newCP(q.info)
			if err != nil {
				return fmt.Errorf("algorithm %s: CP of %s: %w", s.algo.name(), pt.name, err)
			}
			q.cp = cp
			pt.queue = q
			if pt.sched, err = newScheduler(s.sc.Switch.Scheduler, s.sc.Switch.Weights, s.maxFrame()); err != nil {
				return fmt.Errorf("harness: %w", err)
			}
			if _, ok := pt.sched.(queuesSched); ok {
				pt.fq = newPortQueues(orDefault(s.sc.Switch.Queues, DefaultPortQueues), s.maxFrame())
			}
			if vs, ok := pt.sched.(voqSched); ok {
				c0 := voq.PaperC0
				if s.sc.Switch.VOQCredit != nil {
					c0 = units.Bytes(*s.sc.Switch.VOQCredit)
				}
				g := gateNone
				if vs.credit {
					switch s.sc.Switch.VOQGate {
					case VOQGateUplinks:
						if hasHost(n) && !pt.peer.node.isHost {
							g = gateAll
						}
					case VOQGateLocal:
						if hasHost(n) {
							g = gateLocal
						}
					default:
						g = gateAll
					}
				}
				if pt.vq, err = newPortVOQ(g, c0, len(s.nodes), len(s.hosts), s.maxFrame()); err != nil {
					return fmt.Errorf("harness: port %s: %w", pt.name, err)
				}
			}
			s.queues = append(s.queues, q)
			if cp != nil {
				s.armCP(q)
			}
		}
		// Never true with switch.pool > 0 (the buffer is pool + reserve).
		if s.pfcOn && n.hdrmReserve >= n.buffer {
			return fmt.Errorf("switch %s: buffer %v cannot hold the PFC headroom of its %d ports (%v): raise switch.buffer, lower switch.headroom, or size the shared pool with switch.pool",
				n.name, n.buffer, len(n.ports), n.hdrmReserve)
		}
	}
	for _, pt := range s.ports {
		pt.st.firstPause = -1
	}
	if s.fcMode == FlowCBFC {
		return s.buildCBFC(&s.sc.Switch)
	}
	return nil
}

// starHostsNeeded returns the host count a star needs for workload w.
func starHostsNeeded(w *WorkloadSpec) int {
	n := 2
	use := func(names []string) {
		for _, name := range names {
			if v, ok := strings.CutPrefix(name, "h"); ok {
				if i, err := strconv.Atoi(v); err == nil && i >= 0 && i < MaxHosts {
					n = max(n, i+1)
				}
			}
		}
	}
	if fi := w.FanIn; fi != nil {
		n = max(n, fi.Senders+1, len(fi.Hosts)+1)
		use(fi.Hosts)
		use([]string{fi.Dst})
	}
	for _, ic := range w.Incast {
		n = max(n, ic.Senders+1, len(ic.Hosts)+1)
		use(ic.Hosts)
		use([]string{ic.Dst})
	}
	for _, f := range w.Flows {
		use([]string{f.Src, f.Dst})
	}
	if p := w.Poisson; p != nil {
		use(p.Hosts)
		use(p.Dsts)
	}
	return n
}

// Run runs the simulation to the scenario's duration and returns its
// result. A Sim runs once.
func (s *Sim) Run() (*Result, error) {
	if s.ran {
		return nil, errors.New("harness: Sim.Run called twice")
	}
	s.ran = true
	s.runUntil(s.end)
	if s.opts.Progress != nil {
		s.opts.Progress(s.now, s.end)
	}
	if s.err != nil {
		return nil, s.err
	}
	return s.result(), nil
}

// result assembles the Result at the end of the run.
func (s *Sim) result() *Result {
	r := &Result{Scenario: s.sc, End: s.now}
	rep := &r.Report
	rep.Scenario = s.sc.Name
	rep.Algorithm = s.algo.name()
	rep.Events = s.events
	rep.Errors = s.errs.report()
	win := (s.to - s.from).Seconds()

	var active []float64
	rep.Flows = make([]FlowReport, 0, len(s.flows))
	r.Flows = make([]FlowResult, 0, len(s.flows))
	for _, f := range s.flows {
		fr := FlowResult{
			ID: f.id, Src: f.src.name, Dst: f.dst.name, Size: f.info.Size, Offered: f.info.Offered,
			Start: f.info.Start, Finish: f.finishAt, FCT: -1, Ideal: f.ideal, BaseRTT: f.info.BaseRTT,
			Delivered: f.rxBytes, Wire: f.rxWire, Retransmits: f.retransmits,
		}
		if f.winEndSet {
			fr.Throughput = float64(f.winEndWire-f.winStartWire) * 8 / win
			fr.Goodput = float64(f.winEndBytes-f.winStartBytes) * 8 / win
		}
		rep1 := FlowReport{
			ID: int(f.id), Src: f.src.name, Dst: f.dst.name, Bytes: int64(f.rxBytes),
			ThroughputBps: fr.Throughput,
		}
		if f.finishAt >= 0 {
			fr.FCT = f.finishAt - f.info.Start
			ns := fr.FCT.Nanoseconds()
			sd := float64(fr.FCT) / float64(f.ideal)
			rep1.FCTNs, rep1.Slowdown = &ns, &sd
		}
		fr.Active = f.started && f.info.Start <= s.from &&
			!(f.done && f.finishAt < s.to) && !(f.stopped && f.stopAt < s.to)
		if fr.Active {
			active = append(active, fr.Throughput)
		}
		if f.started {
			r.Counters.FlowsStarted++
		}
		r.Flows = append(r.Flows, fr)
		rep.Flows = append(rep.Flows, rep1)
	}
	rep.Fairness.Jain = Jain(active)

	rep.Queues = make([]QueueReport, 0, len(s.ports))
	rep.Links = make([]LinkReport, 0, len(s.ports))
	r.Ports = make([]PortResult, 0, len(s.ports))
	for _, pt := range s.ports {
		st := &pt.st
		paused := st.pausedTime
		for prio, on := range pt.pausedBy {
			if on {
				paused += s.now - st.pauseStart[prio]
			}
		}
		util := (st.winEndTx - st.winStartTx) * 8 / (float64(pt.rate) * win)
		pr := PortResult{
			Node: pt.node.name, Port: pt.num, Link: pt.name, Rate: pt.rate, IsSwitch: !pt.node.isHost,
			Utilization: util, TxBytes: st.txBytes, Pauses: st.pauses, PausesSent: st.pausesSent,
			PausedTime: paused, FirstPause: st.firstPause, MaxIngress: pt.maxIngress, Drops: st.drops,
		}
		if st.q.on {
			q := &st.q
			if w := float64(s.to - s.from); w > 0 {
				pr.MeanBytes = q.area / w
			}
			pr.P50, pr.P95, pr.P99, pr.MaxBytes = q.percentile(0.5), q.percentile(0.95), q.percentile(0.99), q.max
			rep.Queues = append(rep.Queues, QueueReport{
				Node: pt.node.name, Port: pt.num, MeanBytes: pr.MeanBytes,
				P50Bytes: int64(pr.P50), P95Bytes: int64(pr.P95), P99Bytes: int64(pr.P99), MaxBytes: int64(pr.MaxBytes),
			})
		}
		rep.Links = append(rep.Links, LinkReport{Name: pt.name, Utilization: util})
		rep.PFC.Pauses += st.pauses
		rep.PFC.PausedNs += paused.Nanoseconds()
		r.Ports = append(r.Ports, pr)
	}
	rep.Drops = s.st.drops
	rep.ShapedDrops, rep.FCPackets = s.st.shapedDrops, s.st.fcSent

	r.Series.Interval = s.sampleIvl
	r.Series.Times = s.sampleT
	for _, f := range s.seriesRefs {
		r.Series.Flows = append(r.Series.Flows, FlowSeries{ID: f.id, Src: f.src.name, Dst: f.dst.name, Bps: f.series})
	}
	for _, pt := range s.ports {
		if pt.st.queueSeries != nil {
			r.Series.Queues = append(r.Series.Queues, QueueSeries{Node: pt.node.name, Port: pt.num, Link: pt.name, Bytes: pt.st.queueSeries})
		}
	}

	c := &r.Counters
	c.DataSentPackets, c.DataSentPayload = s.st.dataSentPkts, s.st.dataSentPayload
	c.DataRecvPackets, c.DataRecvPayload = s.st.dataRecvPkts, s.st.dataRecvPayload
	c.DroppedDataPayload = s.st.dropDataPayload
	c.InFlightDataPayload = s.inFlightDataPayload()
	c.Drops, c.DropBytes, c.HeadroomDrops = s.st.drops, s.st.dropBytes, s.st.headroomDrops
	c.ShapedDrops, c.FCPackets = s.st.shapedDrops, s.st.fcSent
	c.CNPs, c.FeedbackSent, c.FeedbackReceived = s.st.cnpSent, s.st.feedbackSent, s.st.feedbackRecv
	c.Timeouts, c.FlowsFinished = s.st.timeouts, s.st.flowsDone
	c.PoissonFlows, c.PoissonBytes = s.st.poissonFlows, s.st.poissonBytes
	c.MaxBufferUsed, c.INTPathFull = s.st.maxBufUsed, s.st.intFull
	c.PacketsAllocated, c.FrameHops = s.pool.allocated, s.st.frameHops
	if u := s.uet; u != nil {
		c.Trims, c.TrimmedPayload, c.Nacks = u.trims, u.trimmedPayload, u.nacks
		c.RetransmittedPayload, c.DuplicatePayload = u.rtxPayload, u.dupPayload
		rep.Trims, rep.Nacks, rep.RetransmittedBytes = u.trims, u.nacks, u.rtxPayload
	}
	return r
}

// inFlightDataPayload counts, independently of the send and receive
// counters, the payload of data packets still in the network: in egress
// queues or on a wire (scheduled to arrive).
func (s *Sim) inFlightDataPayload() int64 {
	var n int64
	for _, pt := range s.ports {
		for prio := range pt.q {
			pt.q[prio].each(&s.pool, func(p *Packet) {
				if p.Kind == KindData {
					n += int64(p.Payload)
				}
			})
		}
		if pt.vq != nil {
			pt.vq.each(&s.pool, func(p *Packet) {
				if p.Kind == KindData {
					n += int64(p.Payload)
				}
			})
		}
		if pt.fq != nil {
			pt.fq.each(&s.pool, func(p *Packet) {
				if p.Kind == KindData {
					n += int64(p.Payload)
				}
			})
		}
	}
	s.evq.each(func(e *event) {
		if e.kind == evArrive && s.pool.at(e.pkt).Kind == KindData {
			n += int64(s.pool.at(e.pkt).Payload)
		}
	})
	return n
}
