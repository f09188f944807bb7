package harness

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hwcc/hwcc/cc"

	"github.com/hwcc/hwcc/credit"
	"github.com/hwcc/hwcc/harness/workloads"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/voq"
)

// Scenario is everything a run needs: topology, workload, algorithm,
// switch and NIC settings, duration, measurement window and seed. The same
// Scenario and seed give the same Result bit for bit.
//
// Get one from Builtin, from DecodeScenario (a JSON file), or start from
// DefaultScenario and fill it in. Change it with Set (the command's
// -set key=value); Validate checks it and Run validates it again.
type Scenario struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Algorithm is a registered algorithm's name (cc.Names, hwcc algos);
	// Params are its parameters, in the syntax of cc.Deployment.Defaults
	// ("NAME", "cp.NAME", ...), applied over its deployment's defaults
	// to the parts that run.
	Algorithm string            `json:"algorithm"`
	Params    map[string]string `json:"params,omitempty"`
	// Compare, if not empty, lists the algorithms the command runs this
	// scenario under, side by side (Compare, Comparison); an explicit -algo
	// runs just that one. Params written "algo.name" go to that algorithm
	// only (see ForAlgorithm).
	Compare []string `json:"compare,omitempty"`

	Topology TopologySpec `json:"topology"`
	Workload WorkloadSpec `json:"workload"`
	Switch   SwitchSpec   `json:"switch"`
	NIC      NICSpec      `json:"nic"`

	// Duration is the simulated time; events at exactly Duration still run.
	Duration Time `json:"duration"`
	// The measurement window [MeasureFrom, MeasureTo); MeasureTo 0 means
	// Duration.
	MeasureFrom Time `json:"measure_from,omitempty"`
	MeasureTo   Time `json:"measure_to,omitempty"`
	// SampleInterval is the time-series step (default 10 µs).
	SampleInterval Time `json:"sample_interval,omitempty"`
	// Seed seeds the run's random source (PCG, math/rand/v2): Poisson
	// arrivals, sizes, destinations and ECMP hash salts.
	Seed uint64 `json:"seed"`

	extra []Param // keys a built-in adds to Set
}

// SwitchSpec are the settings every switch gets.
type SwitchSpec struct {
	// Buffer is the buffer per switch (default 32 MB, HPCC's). With PFC on,
	// the switch reserves every port's headroom out of it and the rest is
	// the shared pool data frames queue in, so the pool shrinks as the port
	// count grows; a buffer that cannot hold the headroom is an error.
	// Ignored when Pool > 0.
	Buffer Bytes `json:"buffer"`
	// Pool, if > 0, sizes each switch by its shared pool instead: its
	// buffer is Pool plus the PFC headroom of its own ports (Pool alone
	// with PFC off), so every switch has exactly Pool bytes to queue
	// however many ports it has, as a switch whose vendor splits the
	// buffer into a shared pool and a headroom pool. 0 (the default): use
	// Buffer.
	Pool Bytes `json:"pool,omitempty"`
	// PFC turns priority flow control on (lossless data) or off (tail drop).
	// FlowControl, when set, overrides it: "pfc", "cbfc" (InfiniBand's
	// credit-based flow control on every link into a switch: a sender
	// sends a frame only within the credit the switch advertised, see
	// package credit) or "none" (tail drop).
	PFC         bool   `json:"pfc"`
	FlowControl string `json:"flow_control,omitempty"`
	// Trim is the trimming threshold of an egress data queue under
	// flow_control "trim" (0: one BDP of the network's largest RTT at the
	// port's rate); TrimBytes a trimmed frame's size, its header (0: 64
	// B). See uet.go.
	Trim      Bytes `json:"trim,omitempty"`
	TrimBytes Bytes `json:"trim_bytes,omitempty"`
	// CBFC: CBFCBuffer is the receive buffer of one ingress port for one
	// data priority (default DefaultCBFCBuffer, 2048 blocks); CBFCPeriod
	// the longest spacing of a lane's flow-control packets (0: 65,536
	// byte times of the link, IBA's 65,536 symbol times, 5.24 µs at 100
	// Gb/s); CBFCGap the shortest spacing of those a credit change sends
	// (0: the period / 8).
	CBFCBuffer Bytes `json:"cbfc_buffer,omitempty"`
	CBFCPeriod Time  `json:"cbfc_period,omitempty"`
	CBFCGap    Time  `json:"cbfc_gap,omitempty"`
	// Xoff: bytes admitted through one ingress port (data priority) at
	// which the switch pauses its upstream (default 500 KB, RoCC's PFC
	// threshold at 40 Gb/s). Xon: at or below which it resumes (0: Xoff
	// minus two full data frames). Headroom: the bytes one ingress may take
	// beyond Xoff before frames drop (0: per port, 2·rate·delay + three
	// maximum frames + a PFC frame, enough for any frame in flight).
	Xoff     Bytes `json:"xoff"`
	Xon      Bytes `json:"xon,omitempty"`
	Headroom Bytes `json:"headroom,omitempty"`
	// ECN is the threshold of the default marker (algorithms with
	// features.ECN): CE when the egress data queue, the arriving frame
	// included, exceeds it (default 100 KB).
	ECN Bytes `json:"ecn"`
	// Scheduler picks, at every egress port, the data priority that sends
	// next: "strict" (the default: the highest ready priority) or "dwrr"
	// (deficit weighted round robin, Weights per priority, each unit of
	// weight a quantum of one maximum frame). Control frames always go
	// first.
	Scheduler string `json:"scheduler,omitempty"`
	// VOQCredit is the credit a VOQ starts with under scheduler
	// voq-credit (HierCC's C0; nil: voq.PaperC0, 10 KB; 0 is none, for a
	// switch module that grants each VOQ's first credit itself).
	VOQCredit *Bytes `json:"voq_credit,omitempty"`
	// VOQGate says what voq-credit gates by credit: "all" (the default:
	// every frame at every port), "uplinks" (every frame at the ports of
	// switches with hosts that lead to other switches) or "local" (at the
	// switches with hosts, at every port, the frames their own hosts sent:
	// HierCC's sender-side VOQ i.j for every destination j, the rack's own
	// servers included, waits for the credits of j's receiver side, while
	// what comes from the fabric waits in VOQs served without credit).
	// Every other port serves its VOQs round robin without credit; a port
	// with both kinds serves them in turn, a frame each.
	VOQGate string `json:"voq_gate,omitempty"`
	// ECMP says what a switch hashes onto the equal-cost paths: "flow"
	// (the default: the flow, its source and destination, so the flows
	// toward one host spread over the paths) or "destination" (the
	// destination host only, so that everything one switch sends toward
	// one host leaves by one port: a VOQ per destination host is then one
	// queue, as HierCC's sender-side ToR has).
	ECMP string `json:"ecmp,omitempty"`
	// Weights are DWRR's weights, indexed by priority (missing: 1; 0: only
	// what the others leave).
	Weights []int `json:"weights,omitempty"`
	// Queues is the physical queues of each egress port under scheduler
	// queues (SchedulerQueues), 1..MaxPortQueues (0: DefaultPortQueues).
	Queues int `json:"queues,omitempty"`
}

// flowControl returns the link flow control in force: FlowControl, or
// pfc or none from PFC.
func (sw *SwitchSpec) flowControl() string {
	switch {
	case sw.FlowControl != "":
		return sw.FlowControl
	case sw.PFC:
		return FlowPFC
	}
	return FlowNone
}

// NICSpec are the settings every NIC gets.
type NICSpec struct {
	// Payload of a full data packet (default 1000 B, as HPCC's simulations).
	Payload Bytes `json:"payload"`
	// AckEvery: the receiver ACKs every n-th in-order data packet (and the
	// last packet of a sized flow). Default 1.
	AckEvery int `json:"ack_every"`
	// RTO: go-back-N retransmission timeout; 0 disables it (default 1 ms).
	RTO Time `json:"rto"`
	// NoPreamble: do not count the 20 bytes of preamble, SFD and
	// inter-frame gap on the wire (default false: they are counted).
	NoPreamble bool `json:"no_preamble,omitempty"`
	// Transport is "gbn" (go-back-N, the default) or "sack" (selective:
	// per-packet ACKs echoing the data's header, NACKs of trimmed frames,
	// selective retransmission); NPScope "flow" (a notification point per
	// receiving flow, the default) or "host" (one per receiving host).
	// See uet.go.
	Transport string `json:"transport,omitempty"`
	NPScope   string `json:"np_scope,omitempty"`
}

// MaxBuffer bounds switch.buffer, switch.pool, switch.headroom and the
// headroom a switch reserves for all its ports: 1 PB, far above any switch,
// and far enough below the int64 range (9.2e18 B) that the sums of the
// build (pool plus the reserve, the reserve port by port) cannot overflow.
const MaxBuffer = Bytes(1_000_000 * units.GB)

// Defaults of DefaultScenario.
const (
	DefaultBuffer         = 32 * units.MB
	DefaultXoff           = 500 * units.KB
	DefaultECN            = 100 * units.KB
	DefaultRTO            = 1 * units.Millisecond
	DefaultDuration       = 1 * units.Millisecond
	DefaultSampleInterval = 10 * units.Microsecond
)

// DefaultScenario returns a scenario with every setting at its default, a
// star topology and no workload (Validate requires one).
func DefaultScenario() *Scenario {
	return &Scenario{
		Name:      "custom",
		Algorithm: "none",
		Topology:  TopologySpec{Kind: "star"},
		Switch: SwitchSpec{
			Buffer: Bytes(DefaultBuffer), PFC: true, Xoff: Bytes(DefaultXoff), ECN: Bytes(DefaultECN),
		},
		NIC:            NICSpec{Payload: Bytes(DefaultPayload), AckEvery: 1, RTO: Time(DefaultRTO)},
		Duration:       Time(DefaultDuration),
		SampleInterval: Time(DefaultSampleInterval),
		Seed:           1,
	}
}

// Validate checks every setting and returns the first problem, naming the
// field and its allowed values. Host names in the workload are checked
// when the run is built (they depend on the topology).
func (s *Scenario) Validate() error {
	if _, err := cc.Lookup(s.Algorithm); err != nil {
		return fmt.Errorf("scenario %s: algorithm: %w", s.Name, err)
	}
	// A comparison gives each algorithm its own parameters (ForAlgorithm);
	// a single run gives all of them to its algorithm.
	runs := s.Compare
	if len(runs) == 0 {
		runs = []string{s.Algorithm}
	}
	for i, name := range s.Compare {
		if j := slices.Index(s.Compare[:i], name); j >= 0 {
			return fmt.Errorf("scenario %s: compare: %q is listed twice ([%d] and [%d]): each algorithm runs once", s.Name, name, j, i)
		}
	}
	for _, name := range runs {
		a, err := cc.Lookup(name)
		if err != nil {
			return fmt.Errorf("scenario %s: compare: %w", s.Name, err)
		}
		params := s.Params
		if len(s.Compare) > 0 {
			params = s.ForAlgorithm(name).Params
		}
		if err := a.ValidateParams(params); err != nil {
			return fmt.Errorf("scenario %s: params of %s: %w", s.Name, name, err)
		}
	}
	if err := s.Topology.validate(); err != nil {
		return fmt.Errorf("scenario %s: %w", s.Name, err)
	}
	if err := s.Workload.validate(); err != nil {
		return fmt.Errorf("scenario %s: %w", s.Name, err)
	}
	sw, nic := &s.Switch, &s.NIC
	if _, err := newScheduler(sw.Scheduler, sw.Weights, 1); err != nil {
		return fmt.Errorf("scenario %s: %w", s.Name, err)
	}
	checks := []struct {
		bad bool
		msg string
	}{
		{sw.Buffer <= 0 || sw.Buffer > MaxBuffer, fmt.Sprintf("switch.buffer = %v: want > 0 and at most %v", units.Bytes(sw.Buffer), units.Bytes(MaxBuffer))},
		{sw.Pool < 0 || sw.Pool > MaxBuffer, fmt.Sprintf("switch.pool = %v: want >= 0 (0: use switch.buffer) and at most %v", units.Bytes(sw.Pool), units.Bytes(MaxBuffer))},
		{sw.Xoff <= 0, fmt.Sprintf("switch.xoff = %v: want > 0", units.Bytes(sw.Xoff))},
		{sw.FlowControl != "" && sw.FlowControl != FlowPFC && sw.FlowControl != FlowCBFC && sw.FlowControl != FlowNone && sw.FlowControl != FlowTrim,
			fmt.Sprintf("switch.flow_control = %q: want pfc, cbfc, none or trim", sw.FlowControl)},
		{sw.CBFCBuffer < 0 || sw.CBFCBuffer > Bytes(credit.MaxCapacity.Bytes()), fmt.Sprintf("switch.cbfc_buffer = %v: want 0 (default %v) .. %v", units.Bytes(sw.CBFCBuffer), DefaultCBFCBuffer, credit.MaxCapacity.Bytes())},
		{sw.VOQGate != "" && sw.VOQGate != VOQGateAll && sw.VOQGate != VOQGateUplinks && sw.VOQGate != VOQGateLocal, fmt.Sprintf("switch.voq_gate = %q: want all, uplinks or local", sw.VOQGate)},
		{sw.ECMP != "" && sw.ECMP != ECMPFlow && sw.ECMP != ECMPDestination, fmt.Sprintf("switch.ecmp = %q: want flow or destination", sw.ECMP)},
		{sw.Queues < 0 || sw.Queues > MaxPortQueues, fmt.Sprintf("switch.queues = %d: want 0 (%d) .. %d", sw.Queues, DefaultPortQueues, MaxPortQueues)},
		{sw.VOQCredit != nil && (*sw.VOQCredit < 0 || *sw.VOQCredit > voq.MaxCreditLimit), fmt.Sprintf("switch.voq_credit = %v: want 0..%v", units.Bytes(deref(sw.VOQCredit)), units.Bytes(voq.MaxCreditLimit))},
		{sw.CBFCPeriod < 0 || units.Time(sw.CBFCPeriod) > units.Second, fmt.Sprintf("switch.cbfc_period = %v: want 0 (65,536 byte times) .. 1s", units.Time(sw.CBFCPeriod))},
		{sw.CBFCGap < 0 || (sw.CBFCPeriod > 0 && sw.CBFCGap > sw.CBFCPeriod) || units.Time(sw.CBFCGap) > units.Second, fmt.Sprintf("switch.cbfc_gap = %v: want 0 (period/8) .. cbfc_period", units.Time(sw.CBFCGap))},
		{sw.Xon < 0 || (sw.Xon != 0 && sw.Xon >= sw.Xoff), fmt.Sprintf("switch.xon = %v: want below xoff (%v), or 0 for xoff minus two frames", units.Bytes(sw.Xon), units.Bytes(sw.Xoff))},
		{sw.Headroom < 0 || sw.Headroom > MaxBuffer, fmt.Sprintf("switch.headroom = %v: want >= 0 (0: automatic) and at most %v", units.Bytes(sw.Headroom), units.Bytes(MaxBuffer))},
		{sw.ECN < 0, fmt.Sprintf("switch.ecn = %v: want >= 0", units.Bytes(sw.ECN))},
		{nic.Payload < 1 || nic.Payload > 9000, fmt.Sprintf("nic.payload = %v: want 1..9000 B", units.Bytes(nic.Payload))},
		{nic.AckEvery < 1 || nic.AckEvery > 1<<16, fmt.Sprintf("nic.ack_every = %d: want 1..65536", nic.AckEvery)},
		{nic.RTO < 0, fmt.Sprintf("nic.rto = %v: want >= 0 (0 disables retransmission timeouts)", units.Time(nic.RTO))},
		{s.Duration <= 0 || units.Time(s.Duration) > 100*units.Second, fmt.Sprintf("duration = %v: want 0..100s, exclusive of 0", units.Time(s.Duration))},
		{s.MeasureFrom < 0 || s.MeasureFrom >= s.measureTo(), fmt.Sprintf("measure_from = %v: want 0 <= measure_from < measure_to (%v)", units.Time(s.MeasureFrom), units.Time(s.measureTo()))},
		{s.MeasureTo < 0 || s.MeasureTo > s.Duration, fmt.Sprintf("measure_to = %v: want 0..duration (%v); 0 means duration", units.Time(s.MeasureTo), units.Time(s.Duration))},
		{s.SampleInterval <= 0 || s.Duration/s.SampleInterval > 10_000_000, fmt.Sprintf("sample_interval = %v: want > 0 and at most 10^7 samples per run", units.Time(s.SampleInterval))},
	}
	for _, c := range checks {
		if c.bad {
			return fmt.Errorf("scenario %s: %s", s.Name, c.msg)
		}
	}
	if err := uetCheck(s); err != nil {
		return fmt.Errorf("scenario %s: %w", s.Name, err)
	}
	return s.checkBounds()
}

// checkBounds checks what the run would build against the bounds
// (MaxHosts and the others), once every field is valid.
func (s *Scenario) checkBounds() error {
	net := s.Topology.shape(&s.Workload)
	sched := strings.ToLower(s.Switch.Scheduler)
	voq := sched == SchedulerVOQ || sched == SchedulerVOQCredit
	if err := net.check(s.Topology.Kind, voq); err != nil {
		return fmt.Errorf("scenario %s: %w", s.Name, err)
	}
	if err := s.Workload.checkFlows(s.Duration, net); err != nil {
		return fmt.Errorf("scenario %s: %w", s.Name, err)
	}
	return nil
}

func (s *Scenario) measureTo() Time {
	if s.MeasureTo == 0 {
		return s.Duration
	}
	return s.MeasureTo
}

// validate checks the workload's own fields (not host names).
func (w *WorkloadSpec) validate() error {
	if len(w.Flows) == 0 && w.FanIn == nil && len(w.Incast) == 0 && w.Poisson == nil {
		return errors.New("workload: empty: give flows, fan_in, incast or poisson")
	}
	times := func(what string, start, stop Time) error {
		if start < 0 {
			return fmt.Errorf("%s.start = %v: want >= 0", what, units.Time(start))
		}
		if stop != 0 && stop <= start {
			return fmt.Errorf("%s.stop = %v: want after start (%v), or 0 for the end of the run", what, units.Time(stop), units.Time(start))
		}
		return nil
	}
	if len(w.Flows) > MaxFlows {
		return fmt.Errorf("workload.flows: %d flows, want at most %d (harness.MaxFlows)", len(w.Flows), MaxFlows)
	}
	for i, f := range w.Flows {
		what := fmt.Sprintf("workload.flows[%d]", i)
		if f.Src == "" || f.Dst == "" {
			return fmt.Errorf("%s: src and dst are required host names", what)
		}
		if f.Size < 0 || f.Rate < 0 {
			return fmt.Errorf("%s: size and rate must be >= 0", what)
		}
		if err := times(what, f.Start, f.Stop); err != nil {
			return err
		}
	}
	if fi := w.FanIn; fi != nil {
		if fi.Senders < 0 || fi.Senders > MaxHosts-1 || (fi.Senders == 0 && len(fi.Hosts) == 0) {
			return fmt.Errorf("workload.fan_in.senders = %d: want 1..%d (harness.MaxHosts − 1), or list hosts", fi.Senders, MaxHosts-1)
		}
		if err := checkHosts("workload.fan_in.hosts", fi.Hosts, MaxHosts-1, "harness.MaxHosts − 1"); err != nil {
			return err
		}
		if fi.Size < 0 || fi.Rate < 0 || fi.Stagger < 0 {
			return errors.New("workload.fan_in: size, rate and stagger must be >= 0")
		}
		if err := times("workload.fan_in", fi.Start, fi.Stop); err != nil {
			return err
		}
	}
	for i, ic := range w.Incast {
		what := fmt.Sprintf("workload.incast[%d]", i)
		if ic.Senders < 0 || ic.Senders > MaxHosts-1 || (ic.Senders == 0 && len(ic.Hosts) == 0) {
			return fmt.Errorf("%s.senders = %d: want 1..%d (harness.MaxHosts − 1), or list hosts", what, ic.Senders, MaxHosts-1)
		}
		if err := checkHosts(what+".hosts", ic.Hosts, MaxHosts-1, "harness.MaxHosts − 1"); err != nil {
			return err
		}
		if ic.Size <= 0 {
			return fmt.Errorf("%s.size = %v: want > 0", what, units.Bytes(ic.Size))
		}
		if ic.At < 0 || ic.Repeat < 0 || ic.Interval < 0 || (ic.Repeat > 1 && ic.Interval == 0) {
			return fmt.Errorf("%s: at, repeat and interval must be >= 0, and interval > 0 when repeat > 1", what)
		}
	}
	if p := w.Poisson; p != nil {
		if !(p.Load > 0 && p.Load <= 1) {
			return fmt.Errorf("workload.poisson.load = %v: want 0 < load <= 1 (fraction of the host link rate)", p.Load)
		}
		if _, err := workloads.Named(p.CDF); err != nil {
			return fmt.Errorf("workload.poisson.cdf: %w", err)
		}
		if err := checkHosts("workload.poisson.hosts", p.Hosts, MaxHosts, "harness.MaxHosts"); err != nil {
			return err
		}
		if err := checkHosts("workload.poisson.dsts", p.Dsts, MaxHosts, "harness.MaxHosts"); err != nil {
			return err
		}
		if err := times("workload.poisson", p.Start, p.Stop); err != nil {
			return err
		}
	}
	return nil
}

// checkHosts checks a list of host names: at most limit (bound names it),
// none empty, none twice (a host sends one flow of a fan-in or burst).
func checkHosts(what string, names []string, limit int, bound string) error {
	if len(names) > limit {
		return fmt.Errorf("%s: %d hosts, want at most %d (%s)", what, len(names), limit, bound)
	}
	seen := make(map[string]int, len(names))
	for i, n := range names {
		if n == "" {
			return fmt.Errorf("%s[%d]: an empty host name", what, i)
		}
		if j, ok := seen[n]; ok {
			return fmt.Errorf("%s: %q is listed twice ([%d] and [%d])", what, n, j, i)
		}
		seen[n] = i
	}
	return nil
}

// deref returns *b, or 0 for nil.
func deref(b *Bytes) Bytes {
	if b == nil {
		return 0
	}
	return *b
}
