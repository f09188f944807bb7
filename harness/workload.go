package harness

import (
	"fmt"
	"github.com/hwcc/hwcc/cc"
	"math"
	"strconv"
	"strings"

	"github.com/hwcc/hwcc/harness/workloads"
	"github.com/hwcc/hwcc/units"
)

// WorkloadSpec is the traffic of a scenario: any combination of explicit
// flows, one fan-in (N senders to one receiver), incasts and a Poisson
// arrival process. Flow IDs are assigned in this order: explicit flows,
// fan-in senders, incast senders (each incast, each repetition), then
// Poisson flows as they arrive.
type WorkloadSpec struct {
	Flows   []FlowSpec   `json:"flows,omitempty"`
	FanIn   *FanInSpec   `json:"fan_in,omitempty"`
	Incast  []IncastSpec `json:"incast,omitempty"`
	Poisson *PoissonSpec `json:"poisson,omitempty"`
}

// FlowSpec is one explicit flow. Size 0 makes it long-lived: it sends
// from Start until Stop (0: the end of the run). Rate is its offered rate
// (the static baseline's rate and a cap some algorithms honour); 0 is the
// line rate.
type FlowSpec struct {
	Src   string `json:"src"`
	Dst   string `json:"dst"`
	Size  Bytes  `json:"size,omitempty"`
	Rate  Rate   `json:"rate,omitempty"`
	Start Time   `json:"start,omitempty"`
	Stop  Time   `json:"stop,omitempty"`
	// Prio is the flow's data priority, 0..6 (absent: DataPrio, 3): the
	// 802.1p class its data frames carry, which switch.scheduler
	// arbitrates and PFC pauses. Congestion points run on DataPrio's
	// queues only.
	Prio *int `json:"prio,omitempty"`
}

// FanInSpec is N flows into one receiver, one from each sender. The
// senders are Hosts if given, else the first Senders hosts of the topology
// other than Dst; Dst defaults to the first host. Sender i starts at
// Start + i·Stagger.
type FanInSpec struct {
	Senders int      `json:"senders,omitempty"`
	Hosts   []string `json:"hosts,omitempty"`
	Dst     string   `json:"dst,omitempty"`
	Size    Bytes    `json:"size,omitempty"`
	Rate    Rate     `json:"rate,omitempty"`
	Start   Time     `json:"start,omitempty"`
	Stop    Time     `json:"stop,omitempty"`
	Stagger Time     `json:"stagger,omitempty"`
}

// IncastSpec is Senders flows of Size bytes into Dst, all starting at At,
// repeated Repeat times (default 1) every Interval. Senders are chosen as
// for FanInSpec. The bursts that would start after the run's end are not
// built (nor numbered: they take no flow IDs).
type IncastSpec struct {
	Senders  int      `json:"senders,omitempty"`
	Hosts    []string `json:"hosts,omitempty"`
	Dst      string   `json:"dst,omitempty"`
	Size     Bytes    `json:"size"`
	At       Time     `json:"at,omitempty"`
	Repeat   int      `json:"repeat,omitempty"`
	Interval Time     `json:"interval,omitempty"`
}

// PoissonSpec is open-loop traffic: every host in Hosts (default all)
// starts flows as a Poisson process to a destination drawn uniformly from
// the other hosts in the set, with sizes drawn from the distribution CDF
// (see package workloads). The arrival rate makes the offered payload load
// of each host Load times its link rate, as HPCC's traffic generator does:
//
//	λ = Load · rate / (8 · mean size)   flows per second per host
//
// (the load counts payload bytes; headers add about 8 % on the wire with
// 1000-byte packets). Arrivals run from Start to Stop (0: the end of the run).
// Dsts, if set, are the destinations instead: each host of Hosts sends to
// one of Dsts other than itself, drawn uniformly (RoCC's large-scale runs:
// the hosts of two edge switches send to those of the third).
type PoissonSpec struct {
	Load  float64  `json:"load"`
	CDF   string   `json:"cdf"`
	Hosts []string `json:"hosts,omitempty"`
	Dsts  []string `json:"dsts,omitempty"`
	Start Time     `json:"start,omitempty"`
	Stop  Time     `json:"stop,omitempty"`
}

// arrivalSource is one host's Poisson arrival process.
type arrivalSource struct {
	host    *node
	peers   []*node // possible destinations
	cdf     *workloads.CDF
	meanGap float64 // mean inter-arrival time, ps
	stop    units.Time
	idx     int32 // index in Sim.gens
}

// pickSenders returns the hosts of a fan-in or incast.
func (s *Sim) pickSenders(what string, n int, names []string, dst *node) ([]*node, error) {
	if len(names) > 0 {
		if n != 0 && n != len(names) {
			return nil, fmt.Errorf("%s.senders = %d but %d hosts are listed", what, n, len(names))
		}
		out := make([]*node, len(names))
		for i, name := range names {
			h, err := s.host(what+".hosts", name)
			if err != nil {
				return nil, err
			}
			if h == dst {
				return nil, fmt.Errorf("%s.hosts: %s is also the destination", what, name)
			}
			out[i] = h
		}
		return out, nil
	}
	if n <= 0 {
		return nil, fmt.Errorf("%s.senders = %d: want at least 1", what, n)
	}
	out := make([]*node, 0, n)
	for _, h := range s.hosts {
		if len(out) == n {
			break
		}
		if h != dst {
			out = append(out, h)
		}
	}
	if len(out) < n {
		return nil, fmt.Errorf("%s.senders = %d: the topology has only %d other hosts", what, n, len(s.hosts)-1)
	}
	return out, nil
}

// host looks a host up by name for field what.
func (s *Sim) host(what, name string) (*node, error) {
	n, ok := s.byName[name]
	if !ok || !n.isHost {
		names := make([]string, 0, len(s.hosts))
		for _, h := range s.hosts {
			names = append(names, h.name)
		}
		if len(names) > 12 {
			names = append(names[:12], "...")
		}
		return nil, fmt.Errorf("%s: no host %q (hosts: %s)", what, name, strings.Join(names, ", "))
	}
	return n, nil
}

// dstOrFirst resolves a destination name, defaulting to the first host.
func (s *Sim) dstOrFirst(what, name string) (*node, error) {
	if name == "" {
		return s.hosts[0], nil
	}
	return s.host(what, name)
}

// buildWorkload creates the static flows and the Poisson sources.
func (s *Sim) buildWorkload(w *WorkloadSpec) error {
	for i, fs := range w.Flows {
		what := fmt.Sprintf("workload.flows[%d]", i)
		src, err := s.host(what+".src", fs.Src)
		if err != nil {
			return err
		}
		dst, err := s.host(what+".dst", fs.Dst)
		if err != nil {
			return err
		}
		if src == dst {
			return fmt.Errorf("%s: src and dst are both %s", what, fs.Src)
		}
		f := s.newFlow(src, dst, units.Bytes(fs.Size), units.Rate(fs.Rate), units.Time(fs.Start), units.Time(fs.Stop))
		if fs.Prio != nil {
			if *fs.Prio < 0 || *fs.Prio >= ControlPrio {
				return fmt.Errorf("%s.prio = %d: want a data priority 0..%d", what, *fs.Prio, ControlPrio-1)
			}
			f.prio = uint8(*fs.Prio)
		}
	}
	if fi := w.FanIn; fi != nil {
		dst, err := s.dstOrFirst("workload.fan_in.dst", fi.Dst)
		if err != nil {
			return err
		}
		snd, err := s.pickSenders("workload.fan_in", fi.Senders, fi.Hosts, dst)
		if err != nil {
			return err
		}
		for i, h := range snd {
			start := units.Time(fi.Start) + units.Time(i)*units.Time(fi.Stagger)
			s.newFlow(h, dst, units.Bytes(fi.Size), units.Rate(fi.Rate), start, units.Time(fi.Stop))
		}
	}
	for k, ic := range w.Incast {
		what := fmt.Sprintf("workload.incast[%d]", k)
		dst, err := s.dstOrFirst(what+".dst", ic.Dst)
		if err != nil {
			return err
		}
		snd, err := s.pickSenders(what, ic.Senders, ic.Hosts, dst)
		if err != nil {
			return err
		}
		for r := range ic.bursts(s.sc.Duration) {
			at := units.Time(ic.At) + units.Time(r)*units.Time(ic.Interval)
			for _, h := range snd {
				s.newFlow(h, dst, units.Bytes(ic.Size), 0, at, 0)
			}
		}
	}
	if p := w.Poisson; p != nil {
		cdf, err := workloads.Named(p.CDF)
		if err != nil {
			return fmt.Errorf("workload.poisson.cdf: %w", err)
		}
		set := s.hosts
		if len(p.Hosts) > 0 {
			set = make([]*node, len(p.Hosts))
			for i, name := range p.Hosts {
				if set[i], err = s.host("workload.poisson.hosts", name); err != nil {
					return err
				}
			}
		}
		dsts := set
		if len(p.Dsts) > 0 {
			dsts = make([]*node, len(p.Dsts))
			for i, name := range p.Dsts {
				if dsts[i], err = s.host("workload.poisson.dsts", name); err != nil {
					return err
				}
			}
		} else if len(set) < 2 {
			return fmt.Errorf("workload.poisson.hosts: want at least 2 hosts, have %d", len(set))
		}
		stop := units.Time(p.Stop)
		if stop == 0 {
			stop = s.end
		}
		for _, h := range set {
			peers := make([]*node, 0, len(dsts))
			for _, o := range dsts {
				if o != h {
					peers = append(peers, o)
				}
			}
			if len(peers) == 0 {
				return fmt.Errorf("workload.poisson.dsts: host %s has no destination but itself", h.name)
			}
			rate := h.ports[0].rate
			// λ = load·rate/(8·mean) per second; mean gap in ps = 1e12/λ.
			gap := 8 * cdf.Mean() / (p.Load * float64(rate)) * float64(units.Second)
			g := &arrivalSource{host: h, peers: peers, cdf: cdf, meanGap: gap, stop: stop, idx: int32(len(s.gens))}
			s.gens = append(s.gens, g)
			first := units.Time(p.Start) + s.expGap(g)
			if first < stop {
				s.evq.push(event{at: first, kind: evPoisson, idx: int32(len(s.gens) - 1)})
			}
		}
	}
	return nil
}

// expGap draws an exponential inter-arrival time of g, in whole ps (at least 1).
func (s *Sim) expGap(g *arrivalSource) units.Time {
	d := s.rng.ExpFloat64() * g.meanGap
	if d >= math.MaxInt64/2 {
		return units.MaxTime / 2
	}
	return max(units.Time(d+0.5), 1)
}

// draw returns g's next flow: its destination and size. Together with
// expGap it is the whole arrival process; onArrival applies it.
func (s *Sim) draw(g *arrivalSource) (*node, units.Bytes) {
	dst := g.peers[s.rng.IntN(len(g.peers))]
	return dst, g.cdf.Sample(s.rng)
}

// onArrival starts one Poisson flow of g and schedules the next arrival.
func (s *Sim) onArrival(g *arrivalSource) {
	dst, size := s.draw(g)
	s.newFlow(g.host, dst, size, 0, s.now, 0)
	s.st.poissonFlows++
	s.st.poissonBytes += int64(size)
	next := s.now + s.expGap(g)
	if next < g.stop {
		s.evq.push(event{at: next, kind: evPoisson, idx: g.idx})
	}
}

// newFlow creates a flow and schedules its start (and stop). It computes
// its path, base RTT and ideal FCT.
func (s *Sim) newFlow(src, dst *node, size units.Bytes, offered units.Rate, start, stop units.Time) *flow {
	id := FlowID(len(s.flows))
	lf := &lineFlow{flow: flow{id: id, src: src, dst: dst, prio: DataPrio, activeIdx: -1, finishAt: -1, firstRx: -1, stopAt: units.MaxTime}}
	f := &lf.flow
	f.rpTimer.at, f.npTimer.at, f.rtoTimer.at, f.rtoAt = units.MaxTime, units.MaxTime, units.MaxTime, units.MaxTime
	var hops []*port
	fwd := s.path(id, src, dst, nil, &hops)
	nFwd := len(hops)
	if s.feat.symmetric {
		f.rev = s.reversePath(id, src, dst)
	}
	s.flows = append(s.flows, f) // before the reverse path, which reads f.rev
	rev := s.path(id, dst, src, nil, &hops)
	r := flowRoute{srcID: src.id, dstID: dst.id}
	r.setRoute(0, hops[:nFwd])
	r.setRoute(1, hops[nFwd:])
	s.routes = append(s.routes, r)
	full := DataOverheadBytes + s.payload + s.preamble
	ackW := AckFrameBytes + s.preamble
	bott := fwd[0].rate
	for _, h := range fwd {
		bott = min(bott, h.rate)
	}
	f.info = flowInfo{
		ID: id, Src: src.id, Dst: dst.id, SrcName: src.name, DstName: dst.name,
		Size: size, Offered: offered, Start: start,
		LineRate: src.ports[0].rate, Bottleneck: bott,
		BaseRTT: rtt0(fwd, rev, full, ackW), Hops: len(fwd) - 1, MaxBaseRTT: s.maxRTT, MaxHops: s.maxHops,
		Payload: s.payload, PacketBytes: full, AckBytes: ackW,
		Errors: ErrorSink{log: &s.errs, where: "flow " + strconv.Itoa(int(id))},
	}
	f.info.SendToSource = func(fb cc.Feedback) bool { return s.sendToSource(f, fb) }
	f.info.SendToDestination = func(fb cc.Feedback) bool { return s.sendToDestination(f, fb) }
	if size > 0 {
		n := int64((size + s.payload - 1) / s.payload)
		lastW := DataOverheadBytes + (size - units.Bytes(n-1)*s.payload) + s.preamble
		f.ideal = idealFCT(fwd, rev, n, full, lastW, ackW)
	}
	if start <= s.now && !s.building {
		s.startFlow(f)
	} else {
		s.evq.push(event{at: start, kind: evFlowStart, idx: int32(id)})
	}
	if stop > 0 {
		f.stopAt = stop
		s.evq.push(event{at: stop, kind: evFlowStop, idx: int32(id)})
	}
	return f
}

// idealFCT is the exact FCT of a lone flow of n frames, n−1 of full wire
// bytes and a last one of last bytes, over the tandem of store-and-forward
// links fwd with every frame ready at time 0, plus the ACK of the last frame
// over rev. The last frame reaches the receiver after the propagation
// delays plus the longest monotone path through the grid of serialisation
// times ser(frame k, hop h) (a tandem-queue identity). Because the first
// n−1 frames are equal, the longest path takes frame 1 to some hop j, the
// frames 2..n−1 at hop j, frame n−1 on to some hop jj ≥ j, and the last
// frame from hop jj to the end:
//
//	max over j ≤ jj of  Σ_{h≤j} ser(full, r_h) + (n−2)·ser(full, r_j)
//	                  + Σ_{j<h≤jj} ser(full, r_h) + Σ_{h≥jj} ser(last, r_h)
//
// When the last frame is full too this is (n−1)·ser(full, r_min) + the
// one-frame idle-path time. O(hops²).
func idealFCT(fwd, rev []pathHop, n int64, full, last, ack units.Bytes) units.Time {
	var best units.Time
	if n == 1 {
		for _, h := range fwd {
			best += units.SerializationTime(last, h.rate)
		}
	} else {
		for j := range fwd {
			var prefix units.Time
			for h := 0; h <= j; h++ {
				prefix += units.SerializationTime(full, fwd[h].rate)
			}
			prefix += units.Time(n-2) * units.SerializationTime(full, fwd[j].rate)
			mid := units.Time(0)
			for jj := j; jj < len(fwd); jj++ {
				if jj > j {
					mid += units.SerializationTime(full, fwd[jj].rate)
				}
				var tail units.Time
				for h := jj; h < len(fwd); h++ {
					tail += units.SerializationTime(last, fwd[h].rate)
				}
				best = max(best, prefix+mid+tail)
			}
		}
	}
	for _, h := range fwd {
		best += h.delay
	}
	for _, h := range rev {
		best += units.SerializationTime(ack, h.rate) + h.delay
	}
	return best
}

// rtt0 is the idle-path round trip of a data frame of w wire bytes and its
// ACK of a wire bytes: store and forward at every hop,
//
//	Σ_fwd (ser(w, r_h) + d_h) + Σ_rev (ser(a, r_h) + d_h).
func rtt0(fwd, rev []pathHop, w, a units.Bytes) units.Time {
	var t units.Time
	for _, h := range fwd {
		t += units.SerializationTime(w, h.rate) + h.delay
	}
	for _, h := range rev {
		t += units.SerializationTime(a, h.rate) + h.delay
	}
	return t
}
