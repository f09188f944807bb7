package algos

import (
	"math"
	"strconv"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cp"
	"github.com/hwcc/hwcc/fixedpoint"
	"github.com/hwcc/hwcc/np"
	"github.com/hwcc/hwcc/rp"
	"github.com/hwcc/hwcc/units"
)

// dcqcnLink is the default link rate of the dcqcn cp and rp presets: 100
// Gb/s, the link of the harness's default scenario (compare, a 100 Gb/s
// star). The "link" setting changes it. (The DCQCN scenarios of the
// harness, after the HPCC testbed, run at 25 Gb/s: link=25Gbps.) The np
// presets take no link.
const dcqcnLink = 100 * units.Gbps

// Sources of the DCQCN parameters.
const (
	// dcqcnVendor: the NVIDIA ConnectX reaction- and notification-point
	// parameters (mlxconfig, sysfs roce_rp/roce_np; [ConnectX]).
	dcqcnVendor = "[ConnectX] (NVIDIA DOCA, \"DCQCN CC Parameters\")"
	// dcqcnSurvey: the algorithm as the survey states it.
	dcqcnSurvey = "[Survey] §4.1.2"
	// dcqcnHPCC: the HPCC paper's DCQCN settings.
	dcqcnHPCC = "[HPCC] §5.1, Parameters"
)

// dcqcnNew wraps a constructor so that an error returns a nil cc.Part, not
// a typed nil pointer.
func dcqcnNew[C any, P cc.Part](f func(C) (P, error)) func(C) (cc.Part, error) {
	return func(c C) (cc.Part, error) {
		p, err := f(c)
		if err != nil {
			return nil, err
		}
		return p, nil
	}
}

// dcqcnCPPreset is the cp part's one configuration under the three preset
// names: a switch's thresholds have no vendor default, and the paper-style
// presets (docs/derivations.md, DCQCN presets) and [HPCC] §5.1 use the same
// rule.
func dcqcnCPPreset(name, doc string) cc.Preset[cp.DCQCNConfig] {
	return cc.Preset[cp.DCQCNConfig]{
		Name: name,
		Doc: doc + ": Kmin = 100 KB and Kmax = 400 KB scaled by link/25 Gb/s (400 KB and 1.6 MB at 100 Gb/s), " +
			"Pmax = 0.2, judged at dequeue (cp.DCQCNHPCCSim; switches have no vendor default)",
		Source: dcqcnHPCC + "; docs/derivations.md, DCQCN presets",
		Config: cc.OfLink(cp.DCQCNHPCCSim),
	}
}

// dcqcnSeedMix is the odd constant (2^32/φ) that spreads queue keys over
// LFSR seeds (see dcqcnSeed).
const dcqcnSeedMix = 0x9E3779B1

// dcqcnSeed returns the LFSR seed of the queue with key k:
// DCQCNDefaultSeed XOR (k + 1)·dcqcnSeedMix mod 2^32. It is never 0 (the
// LFSR's lock-up state) and distinct for distinct keys (multiplication by an
// odd constant is a bijection mod 2^32, and so is XOR with a constant), but
// for the one key that would map to 0, which takes DCQCNDefaultSeed, the
// seed of key 0xFFFFFFFF.
func dcqcnSeed(k uint32) uint32 {
	s := cp.DCQCNDefaultSeed ^ (k+1)*dcqcnSeedMix
	if s == 0 {
		return cp.DCQCNDefaultSeed
	}
	return s
}

// dcqcnQueueKey numbers a queue: its index in the network when the
// environment gives one (Index − 1, the harness's congestion-point ID, as
// the harness's earlier DCQCN adapter keyed its seeds), else (SwitchID −
// 1)·2^16 + Port, distinct for every port of a network of up to 4095
// switches.
func dcqcnQueueKey(env cc.Env) uint32 {
	if env.Index > 0 {
		return uint32(env.Index - 1)
	}
	return uint32(env.SwitchID-1)<<16 | uint32(env.Port)
}

// dcqcnCPEnv gives each queue's LFSR its own seed, derived from where it
// runs (dcqcnSeed of dcqcnQueueKey), so that the marks of different ports
// are not correlated. A part built without a switch ID (0: unknown) keeps
// the preset's DCQCNDefaultSeed; an explicit seed setting wins.
func dcqcnCPEnv(c *cp.DCQCNConfig, env cc.Env) { dcqcnEnvSeed(&c.Seed, env) }

// dcqcnEnvSeed sets *seed, a queue's LFSR seed, from where the queue runs
// as dcqcnCPEnv says (unchanged without a switch ID): the rule of every
// congestion point that draws from DCQCN's LFSR.
func dcqcnEnvSeed(seed *uint32, env cc.Env) {
	if env.SwitchID == 0 && env.Index == 0 {
		return
	}
	*seed = dcqcnSeed(dcqcnQueueKey(env))
}

// dcqcnUint32 formats a 32-bit bound.
func dcqcnUint32(v uint32) string { return strconv.FormatUint(uint64(v), 10) }

// dcqcnRateField is a rate parameter of the rp part.
func dcqcnRateField(name, min, doc, source string, ptr func(c *rp.DCQCNConfig) *units.Rate) cc.Field[rp.DCQCNConfig] {
	return cc.Field[rp.DCQCNConfig]{
		Param: cc.Param{Name: name, Min: min, Doc: doc, Source: source},
		Ptr:   func(c *rp.DCQCNConfig) any { return ptr(c) },
	}
}

func init() {
	cc.MustRegisterAlgorithm(cc.Algorithm{
		Name: "dcqcn",
		Deploy: cc.Deployment{
			// The rp reacts to CNPs only: a RoCE NIC's transport keeps the
			// ACKs from it.
			NoAcks: true,
			Doc: "every switch egress data queue runs the dcqcn cp (the RED marker: Kmin/Kmax = 100/400 KB × port rate/25 Gb/s, Pmax = 0.2, " +
				"judged at dequeue, its LFSR seeded from the switch ID and port), every flow's receiver the dcqcn np and its sender the dcqcn rp " +
				"(preset connectx by default, paper or hpcc; the NIC's line rate is the port rate); the NIC paces at min(offered, line rate, RC)",
		},
		Title: "DCQCN",
		Paper: "[DCQCN], as [Survey] states it " +
			"([Survey] §4.1.2: CP, NP and RP algorithms, equations (5)-(8)); the reaction point in " +
			"the integer form of NVIDIA ConnectX NICs and their documented parameters ([ConnectX]; docs/derivations.md); [HPCC] §5.1 for the hpcc presets",
		Doc: "RED-style ECN marking in the switch, paced CNPs from the receiver, and a per-flow rate limiter at the sender " +
			"that cuts by α/2 per CNP and recovers by timer and byte counter",
		Parts: []cc.PartSpec{
			{
				Name: "cp",
				Role: cc.RoleCP,
				Doc:  "the RED marker of one egress queue: probability Pmax·(q − Kmin)/(Kmax − Kmin) between the thresholds, from a 32-bit LFSR (cp.DCQCN)",
				Config: &cc.Spec[cp.DCQCNConfig]{
					Link: dcqcnLink,
					Presets: []cc.Preset[cp.DCQCNConfig]{
						dcqcnCPPreset("connectx", "the marker every preset uses"),
						dcqcnCPPreset("paper", "the paper-style presets' marker"),
						dcqcnCPPreset("hpcc", "the HPCC paper's marker"),
					},
					Fields: dcqcnCPFields(),
					Env:    dcqcnCPEnv,
					New:    dcqcnNew(cp.NewDCQCN),
				},
			},
			{
				Name:   "np",
				Role:   cc.RoleNP,
				Doc:    "the CNP generator of one receiving flow: the paper's N-µs slots or ConnectX's min_time_between_cnps (np.DCQCN)",
				Config: dcqcnNPSpec(),
			},
			{
				Name:   "rp",
				Role:   cc.RoleRP,
				Doc:    "the rate limiter of one sending flow: RC cut by RC·α/2 per CNP, α updated per dce_tcp_rtt, recovery by timer and byte counter (rp.DCQCN)",
				Config: dcqcnRPSpec(dcqcnLink),
			},
		},
	})
}

// dcqcnRPSpec is the DCQCN reaction point's configuration for a default
// link of link (the rp part's, and the sender of schemes that keep
// DCQCN's: PACC, DCQCN+TCD).
func dcqcnRPSpec(link units.Rate) *cc.Spec[rp.DCQCNConfig] {
	return &cc.Spec[rp.DCQCNConfig]{
		Link:    link,
		Presets: dcqcnRPPresets(),
		Fields:  dcqcnRPFields(),
		New:     dcqcnNew(rp.NewDCQCN),
	}
}

// dcqcnRPPresets are the DCQCN reaction point's presets (the rp part's,
// and the rate controller of schemes that run DCQCN at the sender:
// Mercury).
func dcqcnRPPresets() []cc.Preset[rp.DCQCNConfig] {
	return []cc.Preset[rp.DCQCNConfig]{
		{
			Name:   "connectx",
			Doc:    "the NVIDIA ConnectX defaults for a port of the link's speed, rates in Mb/s (rp.DCQCNConnectX)",
			Source: dcqcnVendor,
			Config: cc.OfLink(rp.DCQCNConnectX),
		},
		{
			Name: "paper",
			Doc: "the paper's settings: g = 1/256, K = 55 µs, decreases 50 µs apart, timer 55 µs, byte counter 10 MB, F = 5, " +
				"R_AI/R_HAI = 5/50 Mb/s scaled by link/25 Gb/s, rates in Kb/s (rp.DCQCNPaper)",
			Source: dcqcnSurvey + "; docs/derivations.md, DCQCN presets",
			Config: cc.OfLink(rp.DCQCNPaper),
		},
		{
			Name: "hpcc",
			Doc: "the HPCC authors' ns-3 DCQCN: α every 1 µs with g = 1/256, decreases on a 4 µs grid, timer 300 µs, no byte counter, " +
				"F = 1, minimum rate 1000 Mb/s (the link must be at least that), rates in Kb/s (rp.DCQCNHPCCSim)",
			Source: dcqcnHPCC + "; [HPCC-ns3] run.py (docs/derivations.md, DCQCN presets)",
			Config: cc.OfLink(rp.DCQCNHPCCSim),
		},
	}
}

// dcqcnRPFields are the DCQCN reaction point's parameters (the rp
// part's, and lifted into schemes that run DCQCN at the sender).
func dcqcnRPFields() []cc.Field[rp.DCQCNConfig] {
	maxPeriod := rp.DCQCNMaxPeriod.String()
	return []cc.Field[rp.DCQCNConfig]{
		dcqcnRateField("port_rate", "1bps", "the port speed: the maximum rate when rpg_max_rate is 0 (a multiple of rate_unit, at most 2^32 − 1 units); the presets set it to the link",
			dcqcnVendor, func(c *rp.DCQCNConfig) *units.Rate { return &c.PortRate }),
		dcqcnRateField("rate_unit", "1bps", "the LSB of the 32-bit RC and RT registers (ConnectX: 1 Mb/s); every rate must be a multiple of it",
			dcqcnVendor+" (rates in Mb/s)", func(c *rp.DCQCNConfig) *units.Rate { return &c.RateUnit }),
		{
			Param: cc.Param{
				Name: "dce_tcp_g", Unit: rp.DCQCNQ10Unit, Min: "0", Max: strconv.Itoa(int(fixedpoint.UQ0_10Max)),
				Doc:    "α's retention per period: α ← g·α/1024 (+ 1024 − g with a CNP in the period); the paper's gain is 1 − g/1024",
				Source: dcqcnVendor,
			},
			Ptr: func(c *rp.DCQCNConfig) any { return &c.DceTCPG },
		},
		{
			Param: cc.Param{
				Name: "dce_tcp_rtt", Min: "1ps", Max: maxPeriod,
				Doc:    "the α update period (the paper's K)",
				Source: dcqcnVendor + "; " + dcqcnSurvey + " (K = 55 µs)",
			},
			Ptr: func(c *rp.DCQCNConfig) any { return &c.DceTCPRtt },
		},
		{
			Param: cc.Param{
				Name: "initial_alpha_value", Unit: rp.DCQCNQ10Unit, Min: "0", Max: strconv.Itoa(int(fixedpoint.UQ0_10Max)),
				Doc:    "α on the flow's first CNP",
				Source: dcqcnVendor,
			},
			Ptr: func(c *rp.DCQCNConfig) any { return &c.InitialAlphaValue },
		},
		dcqcnRateField("rate_to_set_on_first_cnp", "0bps", "rate and target the first CNP sets; 0 cuts the current rate as any CNP would (else rpg_min_rate..max rate)",
			dcqcnVendor, func(c *rp.DCQCNConfig) *units.Rate { return &c.RateToSetOnFirstCNP }),
		{
			Param: cc.Param{
				Name: "rpg_gd", Unit: "bits of shift", Min: "0", Max: strconv.Itoa(rp.DCQCNMaxGd),
				Doc:    "a decrease cuts RC·α >> rpg_gd with α in Q10 (11 is α/2)",
				Source: dcqcnVendor,
			},
			Ptr: func(c *rp.DCQCNConfig) any { return &c.RpgGd },
		},
		{
			Param: cc.Param{
				Name: "alpha_frac_bits", Unit: "bits", Min: strconv.Itoa(rp.DCQCNAlphaFracBitsMin), Max: strconv.Itoa(rp.DCQCNAlphaFracBitsMax),
				Doc:    "width of the α register (10 is a pure Q10 register, whose floor pins α near 0 when CNPs are sparse); not a vendor parameter",
				Source: "hwcc (the vendor documents its α parameters in Q10, not the register's width)",
			},
			Ptr: func(c *rp.DCQCNConfig) any { return &c.AlphaFracBits },
		},
		{
			Param: cc.Param{
				Name: "rpg_min_dec_fac", Unit: "%", Min: "0", Max: strconv.Itoa(rp.DCQCNMaxMinDecFac),
				Doc:    "one decrease leaves at least this share of RC (0 bounds nothing)",
				Source: dcqcnVendor,
			},
			Ptr: func(c *rp.DCQCNConfig) any { return &c.RpgMinDecFac },
		},
		dcqcnRateField("rpg_min_rate", "1bps", "decreases stop here (a multiple of rate_unit, at most the maximum rate)",
			dcqcnVendor, func(c *rp.DCQCNConfig) *units.Rate { return &c.RpgMinRate }),
		dcqcnRateField("rpg_max_rate", "0bps", "the ceiling of RC and RT; 0 is the port speed",
			dcqcnVendor, func(c *rp.DCQCNConfig) *units.Rate { return &c.RpgMaxRate }),
		{
			Param: cc.Param{
				Name: "rate_reduce_monitor_period", Min: "0s", Max: maxPeriod,
				Doc:    "the time period between rate reductions (see rate_reduce_mode); 0 cuts on every CNP",
				Source: dcqcnVendor,
			},
			Ptr: func(c *rp.DCQCNConfig) any { return &c.RateReduceMonitorPeriod },
		},
		{
			Param: cc.Param{
				Name: "rate_reduce_mode",
				Choices: []cc.Choice{
					{Name: "spacing", Value: int64(rp.DCQCNReduceSpacing), Doc: "the period is the least time between two cuts: a CNP after a quiet period cuts at once"},
					{Name: "grid", Value: int64(rp.DCQCNReduceGrid), Doc: "cuts fall on the grid first CNP + k·period, one per grid point with a CNP since the last (the HPCC authors' ns-3)"},
				},
				Doc:    "how rate_reduce_monitor_period schedules decreases; not a vendor parameter",
				Source: dcqcnVendor + " (spacing); [HPCC-ns3] RdmaHw::CheckRateDecreaseMlx (grid)",
			},
			Ptr: func(c *rp.DCQCNConfig) any { return &c.RateReduceMode },
		},
		{
			Param: cc.Param{
				Name: "rpg_time_reset", Min: "1ps", Max: maxPeriod,
				Doc:    "the increase timer's period, restarted by every decrease",
				Source: dcqcnVendor + "; " + dcqcnSurvey + " (T)",
			},
			Ptr: func(c *rp.DCQCNConfig) any { return &c.RpgTimeReset },
		},
		{
			Param: cc.Param{
				Name: "rpg_byte_reset", Min: "0B", Max: rp.DCQCNMaxByteReset.String(),
				Doc:    "the byte counter's threshold, a multiple of 64 B (the vendor's unit); 0 turns it off",
				Source: dcqcnVendor + "; " + dcqcnSurvey + " (B)",
			},
			Ptr: func(c *rp.DCQCNConfig) any { return &c.RpgByteReset },
		},
		{
			Param: cc.Param{
				Name: "rpg_threshold", Unit: "stages", Min: "0", Max: strconv.Itoa(math.MaxUint8),
				Doc:    "F, the number of fast-recovery stages before additive increase",
				Source: dcqcnVendor + "; " + dcqcnSurvey + " (F = 5)",
			},
			Ptr: func(c *rp.DCQCNConfig) any { return &c.RpgThreshold },
		},
		dcqcnRateField("rpg_ai_rate", "1bps", "R_AI, the additive-increase step (a multiple of rate_unit)",
			dcqcnVendor, func(c *rp.DCQCNConfig) *units.Rate { return &c.RpgAIRate }),
		dcqcnRateField("rpg_hai_rate", "1bps", "R_HAI, the hyper-increase step (a multiple of rate_unit)",
			dcqcnVendor, func(c *rp.DCQCNConfig) *units.Rate { return &c.RpgHAIRate }),
		{
			Param: cc.Param{
				Name:   "clamp_tgt_rate",
				Doc:    "every decrease sets RT ← RC first",
				Source: dcqcnVendor,
			},
			Ptr: func(c *rp.DCQCNConfig) any { return &c.ClampTgtRate },
		},
		{
			Param: cc.Param{
				Name:   "clamp_tgt_rate_after_time_inc",
				Doc:    "a decrease sets RT ← RC if the increase timer expired since the last decrease",
				Source: dcqcnVendor,
			},
			Ptr: func(c *rp.DCQCNConfig) any { return &c.ClampTgtRateAfterTimeInc },
		},
	}
}

// dcqcnCPFields are the DCQCN congestion point's parameters (the cp
// part's, and lifted into DCQCN+TCD's, whose congested state marks with
// it).
func dcqcnCPFields() []cc.Field[cp.DCQCNConfig] {
	return []cc.Field[cp.DCQCNConfig]{
		{
			Param: cc.Param{
				Name: "kmin", Min: "0B", Max: cp.DCQCNMaxThreshold.String(),
				Doc:    "queue length at or below which nothing is marked (32-bit register; at most kmax)",
				Source: dcqcnSurvey + ", CP algorithm; " + dcqcnHPCC,
			},
			Ptr: func(c *cp.DCQCNConfig) any { return &c.Kmin },
		},
		{
			Param: cc.Param{
				Name: "kmax", Min: "0B", Max: cp.DCQCNMaxThreshold.String(),
				Doc:    "queue length above which every packet is marked (32-bit register; at least kmin)",
				Source: dcqcnSurvey + ", CP algorithm; " + dcqcnHPCC,
			},
			Ptr: func(c *cp.DCQCNConfig) any { return &c.Kmax },
		},
		{
			Param: cc.Param{
				Name: "pmax", Unit: cp.DCQCNPmaxUnit, Min: "0", Max: strconv.Itoa(cp.DCQCNPmaxOne),
				Doc:    "marking probability at Kmax (0.2 is 13107)",
				Source: dcqcnSurvey + ", CP algorithm; [HPCC-ns3] run.py (Pmax = 0.2)",
			},
			Ptr: func(c *cp.DCQCNConfig) any { return &c.Pmax },
		},
		{
			Param: cc.Param{
				Name: "seed", Unit: "LFSR state", Min: dcqcnUint32(fixedpoint.LFSR32SeedMin), Max: dcqcnUint32(fixedpoint.LFSR32SeedMax),
				Doc:    "initial state of the 32-bit LFSR (0 is its lock-up state); where the switch ID is known each queue gets its own, derived from the switch ID and port (setting it gives every queue this one)",
				Source: "hwcc ([XAPP052] taps 32, 22, 2, 1)",
			},
			Ptr: func(c *cp.DCQCNConfig) any { return &c.Seed },
		},
		{
			Param: cc.Param{
				Name: "mark_at",
				Choices: []cc.Choice{
					{Name: "dequeue", Value: int64(cp.DCQCNMarkDequeue), Doc: "judge departing packets against the queue they leave (the HPCC authors' ns-3; reproduces the HPCC paper's 550 KB incast peak)"},
					{Name: "enqueue", Value: int64(cp.DCQCNMarkEnqueue), Doc: "judge arriving packets against the queue including them (the survey's wording, classic RED)"},
				},
				Doc:    "where packets are judged",
				Source: "[HPCC-ns3] switch (dequeue); " + dcqcnSurvey + " (enqueue)",
			},
			Ptr: func(c *cp.DCQCNConfig) any { return &c.MarkAt },
		},
	}
}

// dcqcnNPSpec is the DCQCN notification point's configuration (the np
// part's, and the receiver of schemes that keep DCQCN's: DCQCN+TCD).
func dcqcnNPSpec() *cc.Spec[np.DCQCNConfig] {
	return &cc.Spec[np.DCQCNConfig]{
		Presets: []cc.Preset[np.DCQCNConfig]{
			{
				Name:   "connectx",
				Doc:    "min_time_between_cnps = 4 µs: marks within 4 µs of the last CNP are ignored",
				Source: dcqcnVendor,
				Config: cc.Fixed(np.DCQCNConnectX),
			},
			{
				Name:   "paper",
				Doc:    "slots of N = 50 µs: a CNP at once after a quiet slot, one deferred CNP per busy slot",
				Source: dcqcnSurvey + ", NP algorithm",
				Config: cc.Fixed(np.DCQCNPaper),
			},
			{
				Name:   "hpcc",
				Doc:    "a CNP for every marked packet (no pacing), as the public simulators",
				Source: "[HPCC-ns3] (no CNP pacing); docs/derivations.md, DCQCN presets",
				Config: cc.Fixed(np.DCQCNHPCCSim),
			},
		},
		Fields: []cc.Field[np.DCQCNConfig]{
			{
				Param: cc.Param{
					Name: "mode",
					Choices: []cc.Choice{
						{Name: "slot", Value: int64(np.DCQCNSlot), Doc: "the paper's N-µs slots"},
						{Name: "min-interval", Value: int64(np.DCQCNMinInterval), Doc: "ConnectX's min_time_between_cnps: marks too close to the last CNP are ignored"},
					},
					Doc:    "the pacing rule",
					Source: dcqcnSurvey + ", NP algorithm (slot); " + dcqcnVendor + " (min-interval)",
				},
				Ptr: func(c *np.DCQCNConfig) any { return &c.Mode },
			},
			{
				Param: cc.Param{
					Name: "min_time_between_cnps", Min: "0s", Max: np.DCQCNMaxInterval.String(),
					Doc:    "least time between two CNPs of the flow: the slot length N (mode slot) or min_time_between_cnps (mode min-interval); 0 sends a CNP per marked packet",
					Source: dcqcnVendor + " (4 µs, documented 2–4 µs); " + dcqcnSurvey + " (N = 50 µs)",
				},
				Ptr: func(c *np.DCQCNConfig) any { return &c.Interval },
			},
		},
		New: dcqcnNew(np.NewDCQCN),
	}
}
