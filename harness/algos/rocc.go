package algos

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/hwcc/hwcc/cp"
	"github.com/hwcc/hwcc/harness"
	"github.com/hwcc/hwcc/rp"
	"github.com/hwcc/hwcc/units"
)

// roccName is the registry name.
const roccName = "rocc"

// Parameter names and values.
const (
	roccParamPreset        = "preset"
	roccParamT             = "t"
	roccParamReactionDelay = "reaction_delay"
	roccParamRecovery      = "recovery"
	roccParamFlowCapacity  = "flow_capacity"
	roccParamIdleGain      = "idle_gain"
	roccPresetAuto         = "auto"
)

// roccParamNames lists the parameters, sorted, for error messages.
var roccParamNames = []string{
	roccParamFlowCapacity, roccParamIdleGain, roccParamPreset, roccParamReactionDelay, roccParamRecovery, roccParamT,
}

// Parameter defaults and limits.
const (
	// roccReactionDelay is the NIC's reaction delay to a CNP, 15 µs
	// (section VI, "System parameters").
	roccReactionDelay = 15 * units.Microsecond
	// roccSimPeriod is T of both simulation presets (section VI) and
	// roccSimRecovery the authors' recovery timer at that T (REFERENCE.md);
	// the default recovery timer is roccSimRecovery·T/roccSimPeriod.
	roccSimPeriod   = 40 * units.Microsecond
	roccSimRecovery = 55 * units.Microsecond
	// roccAutoSplit is the largest port rate that gets the 40 Gb/s preset
	// under preset auto.
	roccAutoSplit = 40 * units.Gbps
	// Ranges of t, reaction_delay and recovery.
	roccMinT, roccMaxT               = 1 * units.Microsecond, 10 * units.Millisecond
	roccMaxReactionDelay             = 1 * units.Millisecond
	roccMinRecovery, roccMaxRecovery = 1 * units.Microsecond, 100 * units.Millisecond
	// roccFlowCapacity is the flow table size of the paper's FPGA
	// implementation (section IV-C).
	roccFlowCapacity = 1024
	// roccPendingInit is the initial capacity of an RP's delayed-CNP FIFO:
	// one CNP per CP per T arrives, and the delay (15 µs) is below T, so a
	// flow crossing up to 8 CPs never grows it.
	roccPendingInit = 8
)

// roccPresets are the named presets of param.preset, in the order the
// error message lists them.
var roccPresets = []struct {
	name string
	cfg  func() cp.RoCCConfig
}{
	{"40g", cp.RoCC40G},
	{"100g", cp.RoCC100G},
	{"dpdk10g", cp.RoCCDPDK10G},
	{"tofino40g", cp.RoCCTofino40G},
}

// roccPresetNames returns "auto, 40g, 100g, dpdk10g, tofino40g".
func roccPresetNames() string {
	names := []string{roccPresetAuto}
	for _, p := range roccPresets {
		names = append(names, p.name)
	}
	return strings.Join(names, ", ")
}

// roccPresetAutoIndex is roccParams.preset for preset auto.
const roccPresetAutoIndex = -1

// roccPresetIndex returns the index in roccPresets of the preset named v
// (any case), or roccPresetAutoIndex for "auto"; false for an unknown name.
func roccPresetIndex(v string) (int, bool) {
	if strings.EqualFold(v, roccPresetAuto) {
		return roccPresetAutoIndex, true
	}
	for i, pr := range roccPresets {
		if strings.EqualFold(v, pr.name) {
			return i, true
		}
	}
	return 0, false
}

// roccParams is the parsed parameter set of one scenario.
type roccParams struct {
	preset        int        // index in roccPresets, or roccPresetAutoIndex
	t             units.Time // 0: the preset's
	reactionDelay units.Time
	recovery      units.Time // 0: derived from T
	flowCapacity  int
	idleGain      bool // cp.RoCCConfig.IdleGain
}

// roccParseParams parses and range-checks params; unknown keys are errors.
func roccParseParams(params map[string]string) (roccParams, error) {
	p := roccParams{preset: roccPresetAutoIndex, reactionDelay: roccReactionDelay, flowCapacity: roccFlowCapacity}
	// Sorted, so that the first bad key is reported deterministically.
	for _, k := range slices.Sorted(maps.Keys(params)) {
		v := strings.TrimSpace(params[k])
		bad := func(want string) error {
			return fmt.Errorf("rocc: param.%s = %q: want %s", k, v, want)
		}
		timeIn := func(lo, hi units.Time) (units.Time, error) {
			t, err := units.ParseTime(v)
			if v == "0" { // a bare zero needs no unit
				t, err = 0, nil
			}
			if err != nil || t < lo || t > hi {
				return 0, bad(fmt.Sprintf("a time in %v..%v", lo, hi))
			}
			return t, nil
		}
		var err error
		switch k {
		case roccParamPreset:
			i, ok := roccPresetIndex(v)
			if !ok {
				return p, bad("one of " + roccPresetNames())
			}
			p.preset = i
		case roccParamT:
			p.t, err = timeIn(roccMinT, roccMaxT)
		case roccParamReactionDelay:
			p.reactionDelay, err = timeIn(0, roccMaxReactionDelay)
		case roccParamRecovery:
			p.recovery, err = timeIn(roccMinRecovery, roccMaxRecovery)
		case roccParamFlowCapacity:
			n, e := strconv.Atoi(v)
			if e != nil || n < 1 || n > cp.RoCCMaxFlowCapacity {
				return p, bad(fmt.Sprintf("a whole number in 1..%d", cp.RoCCMaxFlowCapacity))
			}
			p.flowCapacity = n
		case roccParamIdleGain:
			b, ok := parseOnOff(v)
			if !ok {
				return p, bad(onOffWant)
			}
			p.idleGain = b
		default:
			return p, fmt.Errorf("rocc: unknown parameter param.%s (known: %s)", k, strings.Join(roccParamNames, ", "))
		}
		if err != nil {
			return p, err
		}
	}
	return p, nil
}

// roccPresetFor returns the preset name and configuration of a port of
// rate r under p (see the package documentation, RoCC presets and the
// port-rate mapping).
func roccPresetFor(p roccParams, r units.Rate) (string, cp.RoCCConfig) {
	i := p.preset
	if i == roccPresetAutoIndex {
		i = 0 // 40g
		if r > roccAutoSplit {
			i = 1 // 100g
		}
	}
	return roccPresets[i].name, roccPresets[i].cfg()
}

// roccCPConfig returns the cp.RoCC configuration of egress queue info.
func roccCPConfig(info harness.CPInfo, p roccParams) (cp.RoCCConfig, error) {
	name, cfg := roccPresetFor(p, info.Rate)
	if p.t > 0 {
		cfg.Period = p.t
	}
	// The flow table's eviction age is unused by the default (queue) table;
	// keep the presets' 10 T.
	cfg.FlowMaxAge = 10 * cfg.Period
	cfg.FlowCapacity = p.flowCapacity
	cfg.IdleGain = p.idleGain
	// Fmax = the port's rate, in whole ΔF (the paper's 4000 ΔF at 40 Gb/s
	// and 10 000 ΔF at 100 Gb/s).
	fmax := info.Rate / cfg.DeltaF * cfg.DeltaF
	limit := units.Rate(1<<cfg.RateBits-1) * cfg.DeltaF
	if fmax <= cfg.FMin || fmax > limit {
		return cfg, fmt.Errorf("rocc: port %s->%s runs at %v: Fmax = the port rate must be in (%v, %v] with preset %s (ΔF = %v)",
			info.NodeName, info.PeerName, info.Rate, cfg.FMin, limit, name, cfg.DeltaF)
	}
	cfg.FMax = fmax
	cfg.Switch = uint32(info.Node)
	cfg.Port = uint16(info.Port)
	return cfg, nil
}

// roccRecovery returns the RP's recovery timer under p: param.recovery, or
// 55 µs·T/40 µs with T = param.t, the named preset's T, or 40 µs (auto).
func roccRecovery(p roccParams) units.Time {
	if p.recovery > 0 {
		return p.recovery
	}
	t := roccSimPeriod
	switch {
	case p.t > 0:
		t = p.t
	case p.preset != roccPresetAutoIndex:
		t = roccPresets[p.preset].cfg().Period
	}
	// 55/40 = 11/8; T ≤ 10 ms, so the product cannot overflow.
	return t * roccSimRecovery / roccSimPeriod
}

// roccRPConfig returns the rp.RoCC configuration of flow f under p.
func roccRPConfig(f harness.FlowInfo, p roccParams) (rp.RoCCConfig, error) {
	cfg := rp.RoCC40G()
	// ΔF must be the CPs'; every preset has 10 Mb/s (TestRoCCPresetsShareDeltaF).
	cfg.DeltaF = cp.RoCC40G().DeltaF
	// Rmax = the NIC's line rate (Table II: "usually the link bandwidth"),
	// in whole ΔF.
	cfg.RMax = f.LineRate / cfg.DeltaF * cfg.DeltaF
	cfg.RecoveryPeriod = roccRecovery(p)
	cfg.ReactionDelay = p.reactionDelay
	if err := cfg.Validate(); err != nil {
		return cfg, fmt.Errorf("rocc: flow %d (%s->%s, line rate %v): %w", f.ID, f.SrcName, f.DstName, f.LineRate, err)
	}
	return cfg, nil
}

// roccAlgo is the harness.Algorithm. It is stateless: every run parses its
// own parameters.
type roccAlgo struct{}

func (roccAlgo) Name() string { return roccName }

// Features: RoCC needs neither the default ECN marker nor INT.
func (roccAlgo) Features() harness.Features { return harness.Features{} }

// CheckParams implements harness.ParamChecker.
func (roccAlgo) CheckParams(params map[string]string) error {
	_, err := roccParseParams(params)
	return err
}

// NewCP returns the cp.RoCC of one switch egress queue.
func (roccAlgo) NewCP(info harness.CPInfo) (harness.CP, error) {
	p, err := roccParseParams(info.Params)
	if err != nil {
		return nil, err
	}
	cfg, err := roccCPConfig(info, p)
	if err != nil {
		return nil, err
	}
	c, err := cp.NewRoCC(cfg)
	if err != nil {
		return nil, fmt.Errorf("rocc: CP %s->%s: %w", info.NodeName, info.PeerName, err)
	}
	return &roccCP{c: c}, nil
}

// NewRP returns the rp.RoCC of one flow.
func (roccAlgo) NewRP(f harness.FlowInfo) (harness.RP, error) {
	p, err := roccParseParams(f.Params)
	if err != nil {
		return nil, err
	}
	cfg, err := roccRPConfig(f, p)
	if err != nil {
		return nil, err
	}
	r, err := rp.NewRoCC(cfg)
	if err != nil {
		return nil, fmt.Errorf("rocc: flow %d: %w", f.ID, err)
	}
	limit := f.LineRate
	if f.Offered > 0 && f.Offered < limit {
		limit = f.Offered
	}
	return &roccRP{
		r: r, flow: uint32(f.ID), limit: limit, delay: cfg.ReactionDelay,
		pending: make([]roccPending, roccPendingInit),
	}, nil
}

// NewNP: RoCC has no notification point (the CP talks to the source).
func (roccAlgo) NewNP(harness.FlowInfo) (harness.NP, error) { return nil, nil }

// roccErrs counts a state machine's errors and keeps the first.
type roccErrs struct {
	n     uint64
	first error
}

func (e *roccErrs) add(err error) {
	e.n++
	if e.first == nil {
		e.first = err
	}
}

// roccCP adapts cp.RoCC to harness.CP (see the package documentation,
// RoCC in the harness).
type roccCP struct {
	harness.BaseCP
	c *cp.RoCC
	// flows is the scratch list of the flow table at an update; it grows
	// to the largest table seen and is then reused (no allocation).
	flows []uint32
	// sent counts CNPs handed to the harness, refused those it refused (the
	// flow had finished or stopped while its last frames were queued).
	sent, refused uint64
	errs          roccErrs
}

// OnEnqueue adds the data frame's wire bytes to its flow's entry.
func (c *roccCP) OnEnqueue(now units.Time, _ *harness.Queue, p *harness.Packet) {
	if err := c.c.OnEnqueue(now, uint32(p.Flow), p.Size); err != nil {
		c.errs.add(err)
	}
}

// OnDequeue takes them out again; the flow leaves the table at zero. RoCC
// has no INT, so p.Size is the size it was enqueued with.
func (c *roccCP) OnDequeue(now units.Time, _ *harness.Queue, p *harness.Packet) {
	if err := c.c.OnDequeue(now, uint32(p.Flow), p.Size); err != nil {
		c.errs.add(err)
	}
}

// NextDeadline is the next update of Algorithm 1.
func (c *roccCP) NextDeadline() units.Time { return c.c.NextDeadline() }

// OnTimer runs Algorithm 1 on the queue's length now and sends the fair
// rate to every flow in the table (section III-B).
func (c *roccCP) OnTimer(now units.Time, q *harness.Queue) {
	d, err := c.c.OnTimer(now, q.Len())
	if err != nil {
		c.errs.add(err)
		return
	}
	if !d.Send {
		return
	}
	// Copy the table first: sending may start frames on other ports, whose
	// CPs run; this one is not re-entered, but the list is then fixed.
	c.flows = c.c.AppendFlows(c.flows[:0])
	for _, flow := range c.flows {
		var fb harness.Feedback
		_ = c.c.Feedback(flow).Append(fb.Data[:0]) // exactly RoCCFeedbackLen = 16 bytes
		if q.SendFeedback(harness.FlowID(flow), fb) {
			c.sent++
		} else {
			c.refused++
		}
	}
}

// roccPending is a CNP waiting out the reaction delay.
type roccPending struct {
	at   units.Time
	rate uint32 // ΔF units
	cp   uint64 // CPrcvd
}

// roccRP adapts rp.RoCC to harness.RP (see the package documentation,
// RoCC in the harness).
type roccRP struct {
	harness.BaseRP
	r     *rp.RoCC
	flow  uint32
	limit units.Rate // min(offered, line rate)
	delay units.Time
	// pending is a ring of CNPs in arrival order (so in due-time order):
	// n of them from index head. It doubles when full (never in a run
	// where at most roccPendingInit CNPs arrive within one delay).
	pending []roccPending
	head, n int
	// received counts CNPs, wrongFlow those addressed to another flow
	// (ignored); errs the decode and state-machine errors.
	received, wrongFlow uint64
	errs                roccErrs
}

// Rate is min(offered, line rate, RoCC's rate limiter).
func (r *roccRP) Rate() units.Rate { return min(r.limit, r.r.Rate()) }

// Window: RoCC is rate based.
func (r *roccRP) Window() units.Bytes { return 0 }

// errRoCCReport is an RP's error for a CNP of the host-computed type
// (section III-F), which the switch adapter never sends.
var errRoCCReport = errors.New("rocc: RP received a report CNP (type 2); the harness's CPs send rate CNPs")

// OnFeedback decodes a CNP and schedules it ReactionDelay from now.
func (r *roccRP) OnFeedback(now units.Time, fb *harness.Feedback) {
	r.received++
	m, err := cp.DecodeRoCCFeedback(fb.Data[:])
	if err != nil {
		r.errs.add(err)
		return
	}
	if m.Type != cp.RoCCRateFeedback {
		r.errs.add(errRoCCReport)
		return
	}
	if m.Flow != r.flow {
		r.wrongFlow++
		return
	}
	if r.delay == 0 {
		r.apply(now, uint32(m.Rate), m.CP())
		return
	}
	r.push(roccPending{at: now + r.delay, rate: uint32(m.Rate), cp: m.CP()})
}

// push appends e to the ring, doubling it when full.
func (r *roccRP) push(e roccPending) {
	if r.n == len(r.pending) {
		grown := make([]roccPending, 2*len(r.pending))
		for i := 0; i < r.n; i++ {
			grown[i] = r.pending[(r.head+i)%len(r.pending)]
		}
		r.pending, r.head = grown, 0
	}
	r.pending[(r.head+r.n)%len(r.pending)] = e
	r.n++
}

// apply is Algorithm 2's PROCESS_CNP at time at.
func (r *roccRP) apply(at units.Time, rate uint32, cpID uint64) {
	if _, err := r.r.OnFeedback(at, rate, cpID); err != nil {
		r.errs.add(err)
	}
}

// NextDeadline is the earlier of the next delayed CNP and the recovery
// timer.
func (r *roccRP) NextDeadline() units.Time {
	d := r.r.NextDeadline()
	if r.n > 0 {
		d = min(d, r.pending[r.head].at)
	}
	return d
}

// OnTimer delivers every CNP due by now, each at its due time, then runs
// the recovery timer (TIMER_EXPIRED) up to now.
func (r *roccRP) OnTimer(now units.Time) {
	for r.n > 0 && r.pending[r.head].at <= now {
		e := r.pending[r.head]
		r.head = (r.head + 1) % len(r.pending)
		r.n--
		r.apply(e.at, e.rate, e.cp)
	}
	if _, err := r.r.OnTimer(now); err != nil {
		r.errs.add(err)
	}
}

func init() {
	harness.MustRegister(roccAlgo{})
}

// Compile-time checks.
var (
	_ harness.Algorithm    = roccAlgo{}
	_ harness.ParamChecker = roccAlgo{}
	_ harness.CP           = (*roccCP)(nil)
	_ harness.RP           = (*roccRP)(nil)
)
