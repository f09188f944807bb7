package algos

import (
	"math"
	"strconv"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cp"
	"github.com/hwcc/hwcc/fixedpoint"
	"github.com/hwcc/hwcc/pi"
	"github.com/hwcc/hwcc/rp"
	"github.com/hwcc/hwcc/units"
)

// roccName is RoCC's registry name. Its parts are "cp" (cp.RoCC, the
// switch's fair-rate calculator), "hostcp" (rp.RoCCHost, the same
// calculation on the sender's host from the switch's reports, [RoCC]
// §III-F) and "rp" (rp.RoCC, the sender's rate limiter). The presets, shared
// by the three parts, are auto (the default: the paper's 40 Gb/s
// simulation setting for a link up to 40 Gb/s, its 100 Gb/s one above,
// scaled to the link) and the paper's four settings, 40g (section VI),
// 100g, dpdk10g (section VI-B) and tofino40g (section VI-C), which fix
// their own Fmax and Rmax (40, 100, 10 and 40 Gb/s). Where the part runs
// (cc.Env) sets what depends on it whatever the preset: a CP's Fmax is its
// port's rate and its CNPs name its switch and port, an RP's Rmax is its
// NIC's line rate (the Env hooks); the "fmax", "rmax", "switch" and "port"
// settings override them.
const roccName = "rocc"

// roccLink is the link rate of the auto preset when neither the "link"
// setting nor the environment gives one; roccAutoSplit the largest link
// rate auto gives the 40 Gb/s setting.
const (
	roccLink      = 40 * units.Gbps
	roccAutoSplit = 40 * units.Gbps
)

// roccNoLink adapts a preset function that takes no link rate to a
// cc.Preset's Config.
func roccNoLink[C any](preset func() C) func(cc.Env) C { return cc.Fixed(preset) }

// roccWholeDeltaF returns r rounded down to a whole number of ΔF (0 when
// deltaF is not positive).
func roccWholeDeltaF(r, deltaF units.Rate) units.Rate {
	if deltaF <= 0 {
		return 0
	}
	return r / deltaF * deltaF
}

// roccCPAuto is the auto preset of the cp and hostcp parts: cp.RoCC40G for
// a link up to 40 Gb/s, cp.RoCC100G above, with Fmax = the link rate in
// whole ΔF (the paper's 4000 ΔF at 40 Gb/s, 10 000 ΔF at 100 Gb/s).
func roccCPAuto(env cc.Env) cp.RoCCConfig {
	c := cp.RoCC40G()
	if env.Rate > roccAutoSplit {
		c = cp.RoCC100G()
	}
	if env.Rate > 0 {
		c.FMax = roccWholeDeltaF(env.Rate, c.DeltaF)
	}
	return c
}

// roccFlowMaxAge is the flow table's eviction age a cp or hostcp preset
// leaves 0 and New derives: 10 T, the packages' presets' rule, so that it
// follows the "t" setting.
func roccFlowMaxAge(c cp.RoCCConfig) cp.RoCCConfig {
	if c.FlowMaxAge == 0 {
		c.FlowMaxAge = units.MaxTime
		if c.Period <= units.MaxTime/roccMaxAgePeriods {
			c.FlowMaxAge = roccMaxAgePeriods * c.Period
		}
	}
	return c
}

// roccMaxAgePeriods is the derived eviction age in periods T.
const roccMaxAgePeriods = 10

// roccCPPreset is a cp or hostcp preset with the eviction age left to New
// (roccFlowMaxAge).
func roccCPPreset(preset func(cc.Env) cp.RoCCConfig) func(cc.Env) cp.RoCCConfig {
	return func(env cc.Env) cp.RoCCConfig {
		c := preset(env)
		c.FlowMaxAge = 0
		return c
	}
}

// roccCPEnv is the cp part's Env hook: Fmax = the port's rate in whole ΔF
// (section VI's scaling: the paper's 40 Gb/s setting on its 10 Gb/s access
// ports of Fig. 10 has Fmax = 1000 ΔF), and the CNPs name the CP by its
// switch and egress port (GETCP of Algorithm 2), unique per queue in a
// network.
func roccCPEnv(c *cp.RoCCConfig, env cc.Env) {
	if env.Rate > 0 {
		c.FMax = roccWholeDeltaF(env.Rate, c.DeltaF)
	}
	if env.Node != 0 {
		c.Switch = uint32(env.Node)
	}
	if env.Port != 0 {
		c.Port = env.Port
	}
}

// roccPaper is the source of most parameters.
const roccPaper = "[RoCC]"

// roccGainMin is the smallest gain any GainFracBits (at most
// pi.MaxGainFracBits) can hold: 2^−24. Smaller gains round to 0, which New
// refuses.
var roccGainMin = strconv.FormatFloat(math.Ldexp(1, -pi.MaxGainFracBits), 'f', -1, 64)

// roccGainMax is the largest gain the registry accepts: the largest
// float64 below pi.MaxGain, which New refuses (the gains' CSD terms stay
// below 2^8).
var roccGainMax = strconv.FormatFloat(math.Nextafter(pi.MaxGain, 0), 'g', -1, 64)

// roccCPPresets are the cp and hostcp presets.
var roccCPPresets = []cc.Preset[cp.RoCCConfig]{
	{Name: "auto", Doc: "the simulation setting for the link: 40g up to 40 Gb/s, 100g above, with Fmax = the link rate (in whole ΔF)",
		Source: roccPaper + " §VI, System parameters (one setting per link speed, Fmax the link)", Config: roccCPPreset(roccCPAuto)},
	{Name: "40g", Doc: "40 Gb/s simulation: ΔQ 600 B, ΔF 10 Mb/s, T 40 µs, Fmax 4000 ΔF, Qref/Qmid/Qmax 150/300/360 KB, ᾱ/β̄ 0.3/1.5",
		Source: roccPaper + " §VI, System parameters", Config: roccCPPreset(roccNoLink(cp.RoCC40G))},
	{Name: "100g", Doc: "100 Gb/s simulation: Fmax 10 000 ΔF, Qref/Qmid/Qmax 300/600/660 KB, ᾱ/β̄ 0.45/2.25",
		Source: roccPaper + " §VI, System parameters", Config: roccCPPreset(roccNoLink(cp.RoCC100G))},
	{Name: "dpdk10g", Doc: "10 Gb/s DPDK testbed: T 100 µs, Qref/Qmid/Qmax 75/150/210 KB, Fmax 1000 ΔF (the rest as 40g)",
		Source: roccPaper + " §VI-B", Config: roccCPPreset(roccNoLink(cp.RoCCDPDK10G))},
	{Name: "tofino40g", Doc: "40 Gb/s Tofino testbed: ΔQ 80 B, T 20 µs, Qref/Qmid/Qmax 75/150/210 KB (the rest as 40g)",
		Source: roccPaper + " §VI-C", Config: roccCPPreset(roccNoLink(cp.RoCCTofino40G))},
}

// roccCPField describes one parameter of the cp part: a field of
// cp.RoCCConfig, and for one of Algorithm 1's arithmetic (pi.Config, which
// the hostcp part reads too) that field's description.
type roccCPField struct {
	cc.Field[cp.RoCCConfig]
	pi *cc.Field[pi.Config]
}

// roccPI describes a parameter of Algorithm 1's arithmetic, a pi.Config
// field, which the cp part reads through its embedded pi.Config.
func roccPI(f cc.Field[pi.Config]) roccCPField {
	return roccCPField{pi: &f, Field: cc.Field[cp.RoCCConfig]{Param: f.Param,
		Ptr: func(c *cp.RoCCConfig) any { return f.Ptr(&c.Config) }}}
}

// roccCP describes a parameter of the switch alone.
func roccCP(f cc.Field[cp.RoCCConfig]) roccCPField { return roccCPField{Field: f} }

// roccCPFields are the cp part's parameters, in the order `hwcc algos`
// lists them.
var roccCPFields = []roccCPField{
	roccPI(cc.Field[pi.Config]{Param: cc.Param{Name: "delta_q", Min: "1B",
		Doc:    "ΔQ, the queue resolution: queue values are counts of ΔQ bytes (rounded down); New needs Qmax ≤ (2^queue_bits − 1)·ΔQ",
		Source: roccPaper + " Table II; §VI (600 B), §VI-C (80 B on Tofino)"},
		Ptr: func(c *pi.Config) any { return &c.DeltaQ }}),
	roccPI(cc.Field[pi.Config]{Param: cc.Param{Name: "delta_f", Min: "1bps",
		Doc:    "ΔF, the rate resolution: the CNP carries F in ΔF units; must equal every RP's delta_f",
		Source: roccPaper + " Table II; §VI (10 Mb/s)"},
		Ptr: func(c *pi.Config) any { return &c.DeltaF }}),
	roccCP(cc.Field[cp.RoCCConfig]{Param: cc.Param{Name: "t", Min: "1ps",
		Doc:    "T, the update period of Algorithm 1",
		Source: roccPaper + " §III-B; §VI (40 µs), §VI-B (100 µs), §VI-C (20 µs)"},
		Ptr: func(c *cp.RoCCConfig) any { return &c.Period }}),
	roccCP(cc.Field[cp.RoCCConfig]{Param: cc.Param{Name: "start", Min: "0",
		Doc:    "time of the first update (the timer's phase)",
		Source: "hwcc (the paper gives none)"},
		Ptr: func(c *cp.RoCCConfig) any { return &c.Start }}),
	roccPI(cc.Field[pi.Config]{Param: cc.Param{Name: "fmin", Min: "1bps",
		Doc:    "Fmin, the lowest fair rate (line 3, lines 11–12): a multiple of ΔF",
		Source: roccPaper + " Table II; §VI (10 ΔF)"},
		Ptr: func(c *pi.Config) any { return &c.FMin }}),
	roccPI(cc.Field[pi.Config]{Param: cc.Param{Name: "fmax", Min: "2bps",
		Doc:    "Fmax, the highest fair rate (lines 9–10), the link rate: a multiple of ΔF in (Fmin, (2^rate_bits − 1)·ΔF]; a cp where it runs takes its port's rate in whole ΔF",
		Source: roccPaper + " Table II; §VI (4000 ΔF at 40 Gb/s, 10 000 ΔF at 100 Gb/s)"},
		Ptr: func(c *pi.Config) any { return &c.FMax }}),
	roccPI(cc.Field[pi.Config]{Param: cc.Param{Name: "qref", Min: "0B",
		Doc:    "Qref, the PI's reference queue (line 8); Qref < Qmid < Qmax in whole ΔQ",
		Source: roccPaper + " Table II; §VI (150 KB at 40 Gb/s)"},
		Ptr: func(c *pi.Config) any { return &c.QRef }}),
	roccPI(cc.Field[pi.Config]{Param: cc.Param{Name: "qmid", Min: "1B",
		Doc:    "Qmid, the queue growth over one period that halves F (line 4)",
		Source: roccPaper + " Table II; §VI (300 KB at 40 Gb/s)"},
		Ptr: func(c *pi.Config) any { return &c.QMid }}),
	roccPI(cc.Field[pi.Config]{Param: cc.Param{Name: "qmax", Min: "2B",
		Doc:    "Qmax, the queue that resets F to Fmin (line 2); at most (2^queue_bits − 1)·ΔQ",
		Source: roccPaper + " Table II; §VI (360 KB at 40 Gb/s)"},
		Ptr: func(c *pi.Config) any { return &c.QMax }}),
	roccPI(cc.Field[pi.Config]{Param: cc.Param{Name: "alpha_bar", Unit: "ΔF per ΔQ", Min: roccGainMin, Max: roccGainMax,
		Doc:    "ᾱ, the integral gain of the top AUTO_TUNE region (a CSD constant; must not round to 0 at gain_frac_bits)",
		Source: roccPaper + " Table II, line 20; §VI (0.3 at 40 Gb/s, 0.45 at 100 Gb/s)"},
		Ptr: func(c *pi.Config) any { return &c.AlphaBar }}),
	roccPI(cc.Field[pi.Config]{Param: cc.Param{Name: "beta_bar", Unit: "ΔF per ΔQ", Min: roccGainMin, Max: roccGainMax,
		Doc:    "β̄, the proportional gain of the top AUTO_TUNE region (a CSD constant; must not round to 0 at gain_frac_bits)",
		Source: roccPaper + " Table II, line 20; §VI (1.5 at 40 Gb/s, 2.25 at 100 Gb/s)"},
		Ptr: func(c *pi.Config) any { return &c.BetaBar }}),
	roccPI(cc.Field[pi.Config]{Param: cc.Param{Name: "gain_terms", Unit: "CSD terms", Min: "1", Max: strconv.Itoa(fixedpoint.MaxCSDTerms),
		Doc:    "the most shift-add terms of each gain",
		Source: "hwcc (8 in the presets)"},
		Ptr: func(c *pi.Config) any { return &c.GainTerms }}),
	roccPI(cc.Field[pi.Config]{Param: cc.Param{Name: "gain_frac_bits", Unit: "bits", Min: "0", Max: strconv.Itoa(pi.MaxGainFracBits),
		Doc:    "the finest shift of the gains' CSD terms (2^−bits); at least rate_frac_bits",
		Source: "hwcc (16 in the presets)"},
		Ptr: func(c *pi.Config) any { return &c.GainFracBits }}),
	roccPI(cc.Field[pi.Config]{Param: cc.Param{Name: "queue_bits", Unit: "bits", Min: strconv.Itoa(pi.MinQueueBits), Max: strconv.Itoa(pi.MaxQueueBits),
		Doc:    "width of the Qcur, Qold and threshold registers (Qref < Qmid < Qmax need at least 2 bits)",
		Source: roccPaper + " §IV-B, Listing 1 (16-bit qdepth)"},
		Ptr: func(c *pi.Config) any { return &c.QueueBits }}),
	roccPI(cc.Field[pi.Config]{Param: cc.Param{Name: "rate_bits", Unit: "bits", Min: strconv.Itoa(pi.MinRateBits), Max: strconv.Itoa(pi.MaxRateBits),
		Doc:    "width of F's integer part (Fmax ≤ (2^rate_bits − 1)·ΔF)",
		Source: "hwcc: the CNP's 16-bit rate field"},
		Ptr: func(c *pi.Config) any { return &c.RateBits }}),
	roccPI(cc.Field[pi.Config]{Param: cc.Param{Name: "rate_frac_bits", Unit: "bits", Min: "0", Max: strconv.Itoa(pi.MaxRateFracBits),
		Doc:    "fraction bits of the F register: 8 in the presets (the paper's \"fixed point precision\"); 0 keeps whole ΔF as the authors' OMNeT++ model",
		Source: roccPaper + " §VI; [RoCC-code] SwitchEtherQueue.cc"},
		Ptr: func(c *pi.Config) any { return &c.RateFracBits }}),
	roccPI(cc.Field[pi.Config]{Param: cc.Param{Name: "initial_f",
		Choices: []cc.Choice{
			{Name: "fmax", Value: int64(pi.InitialFMax), Doc: "Fmax: no congestion known (hwcc's default)"},
			{Name: "fmin", Value: int64(pi.InitialFMin), Doc: "Fmin"},
			{Name: "zero", Value: int64(pi.InitialZero), Doc: "0, as the authors' OMNeT++ model; the first update clamps it into [Fmin, Fmax]"},
		},
		Doc:    "F before the first update",
		Source: "hwcc (the paper gives none); [RoCC-code] SwitchEtherQueue.cc (0)"},
		Ptr: func(c *pi.Config) any { return &c.InitialF }}),
	roccPI(cc.Field[pi.Config]{Param: cc.Param{Name: "rounding",
		Choices: []cc.Choice{
			{Name: "nearest", Value: int64(pi.RoundNearest), Doc: "line 8's decrement to the nearest register unit, ties away from zero (hwcc's default)"},
			{Name: "floor", Value: int64(pi.RoundFloor), Doc: "the new F rounded down, as the authors' OMNeT++ model's int assignment"},
		},
		Doc:    "how line 8 rounds to the F register",
		Source: "hwcc; [RoCC-code] SwitchEtherQueue.cc (floor)"},
		Ptr: func(c *pi.Config) any { return &c.Rounding }}),
	roccCP(cc.Field[cp.RoCCConfig]{Param: cc.Param{Name: "flow_table",
		Choices: []cc.Choice{
			{Name: "queue", Value: int64(cp.RoCCQueueTable), Doc: "the flows with bytes in the queue (the paper's default, section III-D (1))"},
			{Name: "aged", Value: int64(cp.RoCCAgedTable), Doc: "flows seen on enqueue, evicted by age (section III-D (2))"},
		},
		Doc:    "the flow table the CP sends feedback to",
		Source: roccPaper + " §III-D"},
		Ptr: func(c *cp.RoCCConfig) any { return &c.FlowTable }}),
	roccCP(cc.Field[cp.RoCCConfig]{Param: cc.Param{Name: "flow_capacity", Unit: "flows", Min: "1", Max: strconv.Itoa(cp.RoCCMaxFlowCapacity),
		Doc:    "entries of the flow table (beyond them a new flow's packets are not counted; see cp.RoCCQueueFlows)",
		Source: roccPaper + " §IV-C (the FPGA table's 1024 entries); §III-D (2) bounds the aged table by Fmax/Fmin"},
		Ptr: func(c *cp.RoCCConfig) any { return &c.FlowCapacity }}),
	roccCP(cc.Field[cp.RoCCConfig]{Param: cc.Param{Name: "flow_max_age", Min: "0",
		Doc:    "the aged table's eviction age (unused by the queue table); 0, the presets', is 10·t",
		Source: "hwcc (the paper leaves it open; 10 T in the presets)"},
		Ptr: func(c *cp.RoCCConfig) any { return &c.FlowMaxAge }}),
	roccPI(cc.Field[pi.Config]{Param: cc.Param{Name: "idle_gain",
		Doc:    "the top region's gains while the queue is nearly empty (below Qref/8), a rule of the authors' DPDK controller; off is Algorithm 1 as printed",
		Source: "[RoCC-code] dpdk/switch/runtime.c (get_stable_rate)"},
		Ptr: func(c *pi.Config) any { return &c.IdleGain }}),
	roccCP(cc.Field[cp.RoCCConfig]{Param: cc.Param{Name: "message",
		Choices: []cc.Choice{
			{Name: "rate", Value: int64(cp.RoCCSendRate), Doc: "the fair rate F (type 1, section III-B)"},
			{Name: "report", Value: int64(cp.RoCCSendReport), Doc: "Qcur and the counter, no F (type 2, Listing 1): for hostcp"},
			{Name: "report_f", Value: int64(cp.RoCCSendReportF), Doc: "Qcur and F before the update (type 2, section III-F approach 2): for hostcp"},
		},
		Doc:    "what the CP sends every T to each flow of its table",
		Source: roccPaper + " §III-B, §III-F"},
		Ptr: func(c *cp.RoCCConfig) any { return &c.Message }}),
	roccCP(cc.Field[cp.RoCCConfig]{Param: cc.Param{Name: "switch", Unit: "32-bit identifier", Min: "0", Max: strconv.FormatUint(math.MaxUint32, 10),
		Doc:    "the CP's switch in its CNPs (its IPv4 address; GETCP of Algorithm 2); where the part runs: its switch's node ID",
		Source: roccPaper + " §III-C, Algorithm 2"},
		Ptr: func(c *cp.RoCCConfig) any { return &c.Switch }}),
	roccCP(cc.Field[cp.RoCCConfig]{Param: cc.Param{Name: "port", Unit: "port number", Min: "0", Max: strconv.Itoa(math.MaxUint16),
		Doc:    "the CP's egress port in its CNPs; where the part runs: its port number",
		Source: roccPaper + " §IV-B, Listing 1"},
		Ptr: func(c *cp.RoCCConfig) any { return &c.Port }}),
}

// roccFields returns the cp part's fields.
func roccFields() []cc.Field[cp.RoCCConfig] {
	out := make([]cc.Field[cp.RoCCConfig], len(roccCPFields))
	for i, f := range roccCPFields {
		out[i] = f.Field
	}
	return out
}

// roccHostFields returns the hostcp part's fields: Algorithm 1's, in the
// cp part's order.
func roccHostFields() []cc.Field[pi.Config] {
	var out []cc.Field[pi.Config]
	for _, f := range roccCPFields {
		if f.pi != nil {
			out = append(out, *f.pi)
		}
	}
	return out
}

// roccHostPresets are the cp presets' Algorithm 1 settings, under their
// names: one preset setting configures the cp and hostcp parts alike.
func roccHostPresets() []cc.Preset[pi.Config] {
	out := make([]cc.Preset[pi.Config], len(roccCPPresets))
	for i, p := range roccCPPresets {
		f := p.Config
		out[i] = cc.Preset[pi.Config]{Name: p.Name, Doc: p.Doc, Source: p.Source,
			Config: func(env cc.Env) pi.Config { return f(env).Config }}
	}
	return out
}

// roccRPConfig is what the rp part's settings fill: rp.RoCCConfig and T,
// the update period of the CPs the flow crosses. A RecoveryPeriod left 0
// (every preset's) is derived from T in New: the authors' 55 µs at
// T = 40 µs, scaled with T (roccRecovery), so that setting t for every
// part keeps the recovery timer longer than the CPs' period.
type roccRPConfig struct {
	rp.RoCCConfig
	T units.Time
}

// The recovery timer's rule: roccSimRecovery at T = roccSimPeriod
// ([RoCC-code]'s values; docs/derivations.md, RoCC), in proportion to T.
const (
	roccSimPeriod   = 40 * units.Microsecond
	roccSimRecovery = 55 * units.Microsecond
)

// roccRecovery returns 55 µs·T/40 µs (T·11/8, rounded down to a
// picosecond), or false when that overflows the time type.
func roccRecovery(t units.Time) (units.Time, bool) {
	q, r := t/roccSimPeriod, t%roccSimPeriod
	if q > units.MaxTime/roccSimRecovery-1 {
		return 0, false
	}
	// r < 40 µs, so r·55 µs fits; the sum is T·55/40 exactly, rounded down.
	return q*roccSimRecovery + r*roccSimRecovery/roccSimPeriod, true
}

// roccRPPreset turns a preset of package rp into the registry's form: T of
// the cp preset of the same name, and the recovery timer left to New.
func roccRPPreset(c rp.RoCCConfig, t units.Time) roccRPConfig {
	c.RecoveryPeriod = 0
	return roccRPConfig{RoCCConfig: c, T: t}
}

// roccRPAuto is the rp's auto preset: rp.RoCC40G up to 40 Gb/s, rp.RoCC100G
// above, with Rmax = the link rate in whole ΔF.
func roccRPAuto(env cc.Env) roccRPConfig {
	c := rp.RoCC40G()
	if env.Rate > roccAutoSplit {
		c = rp.RoCC100G()
	}
	if env.Rate > 0 {
		c.RMax = roccWholeDeltaF(env.Rate, c.DeltaF)
	}
	return roccRPPreset(c, cp.RoCC40G().Period)
}

// roccRPFixed adapts a preset of package rp, with the T of cp's preset.
func roccRPFixed(c func() rp.RoCCConfig, cpPreset func() cp.RoCCConfig) func(cc.Env) roccRPConfig {
	return func(cc.Env) roccRPConfig { return roccRPPreset(c(), cpPreset().Period) }
}

// roccRPPresets are the rp presets: the cp presets' names, so that one
// preset setting configures both parts alike.
var roccRPPresets = []cc.Preset[roccRPConfig]{
	{Name: "auto", Doc: "as 40g up to 40 Gb/s, as 100g above, with Rmax = the link rate (in whole ΔF)",
		Source: roccPaper + " §VI, Table II (Rmax: \"usually the link bandwidth\")", Config: roccRPAuto},
	{Name: "40g", Doc: "Rmax 40 Gb/s, ΔF 10 Mb/s, T 40 µs (so recovery 55 µs), reaction delay 15 µs",
		Source: roccPaper + " §VI; [RoCC-code]'s recovery timer (docs/derivations.md, RoCC)", Config: roccRPFixed(rp.RoCC40G, cp.RoCC40G)},
	{Name: "100g", Doc: "as 40g with Rmax 100 Gb/s", Source: roccPaper + " §VI", Config: roccRPFixed(rp.RoCC100G, cp.RoCC100G)},
	{Name: "dpdk10g", Doc: "Rmax 10 Gb/s, T 100 µs (so recovery 137.5 µs), no reaction delay (the testbed's own)",
		Source: roccPaper + " §VI-B", Config: roccRPFixed(rp.RoCCDPDK10G, cp.RoCCDPDK10G)},
	{Name: "tofino40g", Doc: "Rmax 40 Gb/s, T 20 µs (so recovery 27.5 µs), no reaction delay",
		Source: roccPaper + " §VI-C", Config: roccRPFixed(rp.RoCCTofino40G, cp.RoCCTofino40G)},
}

// roccRPFields are the rp part's parameters.
var roccRPFields = []cc.Field[roccRPConfig]{
	{Param: cc.Param{Name: "rmax", Min: "1bps",
		Doc: "Rmax, the flow's maximum rate (the NIC's line rate): a multiple of ΔF, at most " + strconv.FormatUint(rp.RoCCRateMax/2, 10) +
			"·ΔF (rp.RoCCRateMax/2: Rcur = 2·Rmax fits its 32 bits); where the part runs: its NIC's line rate in whole ΔF",
		Source: roccPaper + " Table II, §III-E"},
		Ptr: func(c *roccRPConfig) any { return &c.RMax }},
	{Param: cc.Param{Name: "delta_f", Min: "1bps",
		Doc:    "ΔF: a CNP's rate field counts ΔF units; must equal the CPs'",
		Source: roccPaper + " Table II; §VI (10 Mb/s)"},
		Ptr: func(c *roccRPConfig) any { return &c.DeltaF }},
	{Param: cc.Param{Name: "t", Min: "1ps",
		Doc:    "T, the update period of the CPs on the flow's path (the cp's t): it sets the default recovery timer, 55 µs·t/40 µs",
		Source: roccPaper + " §III-B; §VI (40 µs), §VI-B (100 µs), §VI-C (20 µs)"},
		Ptr: func(c *roccRPConfig) any { return &c.T }},
	{Param: cc.Param{Name: "recovery", Min: "0",
		Doc:    "the fast-recovery timer of Algorithm 2 (lines 7 and 13): Rcur doubles after this long without a CNP; 0, the presets', is 55 µs·t/40 µs (55 µs at T = 40 µs), longer than T so that a congested CP's CNP (one per T) comes first",
		Source: "[RoCC-code] (55 µs at T = 40 µs; docs/derivations.md, RoCC); the paper gives none"},
		Ptr: func(c *roccRPConfig) any { return &c.RecoveryPeriod }},
	{Param: cc.Param{Name: "reaction_delay", Min: "0",
		Doc:    "the NIC's delay from a CNP's arrival to its effect; the caller applies it (rp.RoCC carries it only)",
		Source: roccPaper + " §VI, System parameters (15 µs)"},
		Ptr: func(c *roccRPConfig) any { return &c.ReactionDelay }},
}

// roccRPEnv is the rp part's Env hook: Rmax = the NIC's line rate in whole
// ΔF (Table II: "usually the link bandwidth").
func roccRPEnv(c *roccRPConfig, env cc.Env) {
	if env.Rate > 0 {
		c.RMax = roccWholeDeltaF(env.Rate, c.DeltaF)
	}
}

// roccRPNew derives the recovery timer when it is 0 and builds the part.
func roccRPNew(c roccRPConfig) (cc.Part, error) {
	cfg := c.RoCCConfig
	if cfg.RecoveryPeriod == 0 {
		rec, ok := roccRecovery(c.T)
		if !ok {
			return nil, &cc.ConfigError{Part: "rocc rp", Field: "t", Value: c.T.String(),
				Range: "a time whose recovery timer 55 µs·t/40 µs fits (or set recovery)"}
		}
		cfg.RecoveryPeriod = rec
	}
	r, err := rp.NewRoCC(cfg)
	if err != nil {
		return nil, err
	}
	return r, nil
}

func init() {
	cc.MustRegisterAlgorithm(cc.Algorithm{
		Name: roccName,
		Deploy: cc.Deployment{
			// The first reaction point is hostcp (section III-F); the
			// switches' CPs send rates, for the rate limiter.
			RP:       "rp",
			Defaults: map[string]string{"reaction_delay": roccReactionDelay.String()},
			Doc: "every switch egress data queue runs the rocc cp (Algorithm 1; preset auto: 40g up to 40 Gb/s, 100g above; " +
				"Fmax = the port's rate, the CNPs naming the switch's node ID and the port), every flow's sender the rocc rp " +
				"(Algorithm 2; Rmax = the NIC's line rate, recovery 55 µs·T/40 µs) behind the NIC's 15 µs reaction delay; " +
				"the NIC paces at min(offered, line rate, the rp's rate); no notification point",
		},
		Title: "RoCC",
		Paper: "[RoCC] §III-B (Algorithm 1), §III-C (CNP), §III-D (flow table), §III-E (Algorithm 2), §III-F (host computation), §VI (parameters)",
		Doc:   "a PI controller in each switch queue computes a fair rate every T and sends it to the flows in the queue; each sender takes the smallest rate on its path",
		Parts: []cc.PartSpec{
			{
				Name: "cp",
				Role: cc.RoleCP,
				Doc:  "the fair-rate calculator of one egress queue (Algorithm 1), its flow table and CNPs (cp.RoCC)",
				Config: &cc.Spec[cp.RoCCConfig]{
					Link:    roccLink,
					Presets: roccCPPresets,
					Fields:  roccFields(),
					Env:     roccCPEnv,
					New: func(c cp.RoCCConfig) (cc.Part, error) {
						p, err := cp.NewRoCC(roccFlowMaxAge(c))
						if err != nil {
							return nil, err
						}
						return p, nil
					},
				},
			},
			{
				Name: "hostcp",
				Role: cc.RoleRP,
				Doc:  "Algorithm 1 on the sender's host from the CP's reports (message=report or report_f), sending the rate to the flow's rp (rp.RoCCHost, section III-F)",
				Config: &cc.Spec[pi.Config]{
					Link:    roccLink,
					Presets: roccHostPresets(),
					Fields:  roccHostFields(),
					New: func(c pi.Config) (cc.Part, error) {
						h, err := rp.NewRoCCHostConfig(c)
						if err != nil {
							return nil, err
						}
						return h, nil
					},
				},
			},
			{
				Name: "rp",
				Role: cc.RoleRP,
				Doc:  "the rate limiter of one flow (Algorithm 2, rp.RoCC)",
				Config: &cc.Spec[roccRPConfig]{
					Link:    roccLink,
					Presets: roccRPPresets,
					Fields:  roccRPFields,
					Env:     roccRPEnv,
					New:     roccRPNew,
				},
			},
		},
	})
}

// roccReactionDelay is the NIC's reaction delay to a CNP under the
// deployment, whatever the preset, 15 µs ([RoCC] §VI, "System
// parameters"): the testbed presets' own 0 is whatever their hosts add,
// which a simulator of the network does not model.
const roccReactionDelay = 15 * units.Microsecond
