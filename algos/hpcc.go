package algos

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"
	"sync"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cp"
	"github.com/hwcc/hwcc/fixedpoint"
	inttel "github.com/hwcc/hwcc/int"
	"github.com/hwcc/hwcc/rp"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/window"
)

// hpccLink is the default link rate of the hpcc parts' presets: 100 Gb/s,
// the NIC and switch ports of the paper's simulations ([HPCC]
// §5.1) and of the harness's HPCC scenarios. The "link" setting
// changes it: the rp's W_init = link·T, the cp's port rate.
const hpccLink = 100 * units.Gbps

// hpccPaper cites the paper's sections the parts implement.
const hpccPaper = "[HPCC] §3.2 and Algorithm 1 (sender), §3.3 (parameters), §4.1 and Figure 7 (INT), §5.1 (presets)"

// hpccINT holds the INT codec's scalars, settable on both parts: they must
// agree between the switches and the senders of one network.
type hpccINT struct {
	MaxHops     int
	TxBytesUnit units.Bytes
	QLenUnit    units.Bytes
	TSUnit      units.Time
}

// hpccDefaultINT is inttel.DefaultConfig's scalars: 5 hops, 128 B, 80 B,
// 1 ns.
func hpccDefaultINT() hpccINT {
	d := inttel.DefaultConfig()
	return hpccINT{MaxHops: d.MaxHops, TxBytesUnit: d.TxBytesUnit, QLenUnit: d.QLenUnit, TSUnit: d.TSUnit}
}

// hpccDefaultCodec is the codec of the default scalars, built once: a
// Codec is immutable, so every part that uses the default shares it (a
// simulator builds one part per switch port and per flow).
var hpccDefaultCodec = sync.OnceValues(func() (*inttel.Codec, error) {
	return inttel.NewCodec(inttel.DefaultConfig())
})

// codec builds the INT codec (the default speed table). The parameters'
// ranges are inttel's, so this fails only on a Config built by hand.
func (c hpccINT) codec(part string) (*inttel.Codec, error) {
	if c == hpccDefaultINT() {
		if codec, err := hpccDefaultCodec(); err == nil {
			return codec, nil
		}
	}
	cfg := inttel.DefaultConfig()
	cfg.MaxHops, cfg.TxBytesUnit, cfg.QLenUnit, cfg.TSUnit = c.MaxHops, c.TxBytesUnit, c.QLenUnit, c.TSUnit
	codec, err := inttel.NewCodec(cfg)
	if err != nil {
		return nil, &cc.ConfigError{Part: part, Field: "int", Err: err}
	}
	return codec, nil
}

// bitsWide names a field's width: "20-bit".
func bitsWide(n int) string { return strconv.Itoa(n) + "-bit" }

// hpccINTFields are the codec's parameters for a configuration C that
// holds an hpccINT. Their ranges and widths are package inttel's.
func hpccINTFields[C any](codec func(c *C) *hpccINT) []cc.Field[C] {
	const src = "[HPCC] §4.1 and Figure 7; [HPCC-ns3]'s INT_MULTI scales the byte units"
	return []cc.Field[C]{
		{
			Param: cc.Param{
				Name: "int_max_hops", Unit: "hop records", Min: "1", Max: strconv.Itoa(inttel.HopsLimit),
				Doc: "most INT records a header carries (the " + bitsWide(inttel.NHopBits) + " nHop counts " + strconv.Itoa(inttel.HopsLimit) +
					"; the paper sizes " + strconv.Itoa(inttel.HPCCMaxHops) + "): switches and senders must agree",
				Source: src,
			},
			Ptr: func(c *C) any { return &codec(c).MaxHops },
		},
		{
			Param: cc.Param{
				Name: "int_tx_bytes_unit", Min: "1B", Max: inttel.MaxByteUnit.String(),
				Doc:    "bytes per count of the " + bitsWide(inttel.TxBytesBits) + " txBytes field",
				Source: src,
			},
			Ptr: func(c *C) any { return &codec(c).TxBytesUnit },
		},
		{
			Param: cc.Param{
				Name: "int_qlen_unit", Min: "1B", Max: inttel.MaxByteUnit.String(),
				Doc:    "bytes per count of the " + bitsWide(inttel.QLenBits) + " qLen field (saturates at " + fmt.Sprintf("0x%X", inttel.MaxQLen) + " counts)",
				Source: src,
			},
			Ptr: func(c *C) any { return &codec(c).QLenUnit },
		},
		{
			Param: cc.Param{
				Name: "int_ts_unit", Min: "1ps", Max: inttel.MaxTSUnit.String(),
				Doc:    "time per count of the " + bitsWide(inttel.TSBits) + " TS field",
				Source: src + "; ns-3 stamps ns",
			},
			Ptr: func(c *C) any { return &codec(c).TSUnit },
		},
	}
}

// hpccCPConfig is what the cp part's settings fill: cp.HPCCConfig and the
// INT codec's scalars.
type hpccCPConfig struct {
	cp.HPCCConfig
	INT hpccINT
}

// hpccCPPreset is the cp's port: the link rate (the port's, where it runs),
// switch ID 0, the default INT codec, counting its own queue's bytes.
func hpccCPPreset(env cc.Env) hpccCPConfig {
	return hpccCPConfig{HPCCConfig: cp.HPCCConfig{Rate: env.Rate}, INT: hpccDefaultINT()}
}

// hpccCPEnv is the cp's Env hook: the switch's ID where it is known
// (section 4.1: unique among the network's switches, XORed into pathID).
// The port's rate reaches the preset as its link rate.
func hpccCPEnv(c *hpccCPConfig, env cc.Env) {
	if env.SwitchID != 0 {
		c.SwitchID = env.SwitchID
	}
}

// hpccRPConfig is what the rp part's settings fill: rp.HPCCConfig, the INT
// codec's scalars, η as a real number (converted to the UQ32_32 register,
// to nearest, in New), and the link rate the preset was built for. Window
// sizes left 0 are derived from the link and T in New, so that setting t
// alone keeps W_init = link·T (see hpccRPNew).
type hpccRPConfig struct {
	rp.HPCCConfig
	INT  hpccINT
	Eta  float64
	Link units.Rate
}

// hpccRPPreset turns a preset of package rp into the registry's form: η as
// a real, and W_init, W_min, W_max left to be derived from link and T.
func hpccRPPreset(c rp.HPCCConfig, link units.Rate) hpccRPConfig {
	c.Window.Init, c.Window.Min, c.Window.Max = 0, 0, 0
	return hpccRPConfig{HPCCConfig: c, INT: hpccDefaultINT(), Eta: 0.95, Link: link}
}

// hpccRPEnv is the rp's Env hook, the paper's rules that depend on where
// the flow runs: when a base RTT is known (env.BaseRTT, which a caller
// gives with the INT bytes the frames carry; the harness gives every flow
// the network's largest, harness.Scheme.NetworkRTT), T is that round
// trip, "slightly greater than the maximum RTT" (section 5.1; Eqn (1)
// assumes one T for all flows, and the authors' simulator sets T to the
// topology's largest base RTT, GLOBAL_T), and W_AI follows the rule of section
// 3.3 at that T (wai 0, see hpccRPNew) instead of the preset's value for
// its own T. Explicit t and wai settings apply after it and win.
func hpccRPEnv(c *hpccRPConfig, env cc.Env) {
	if env.BaseRTT > 0 {
		c.Window.T = env.BaseRTT
		c.Window.AI = 0
	}
}

// hpccRPNew derives what the presets leave 0 and builds the part:
//
//	W_init = link·T (B_NIC·T, section 3.2), W_max = W_init (window's 0),
//	W_min = min(max(1 Gb/s·T, 1 B), W_init) (the authors' MIN_RATE),
//	W_AI = ⌊W_init·(1 − η)/100⌋ (section 3.3, N = rp.HPCCRuleFlows),
//
// exactly as rp.HPCCPaperSim and rp.HPCCTestbed do at their own T.
func hpccRPNew(c hpccRPConfig) (cc.Part, error) {
	const part = "hpcc rp"
	cfg := c.HPCCConfig
	w := &cfg.Window
	if w.Init == 0 {
		w.Init = units.BytesIn(c.Link, w.T)
	}
	if w.Min == 0 {
		w.Min = min(max(units.BytesIn(rp.HPCCMinRate, w.T), 1), max(w.Init, 1))
	}
	eta, err := fixedpoint.UQ32_32FromFloat(c.Eta)
	if err != nil || eta < window.EtaMin || eta > window.EtaMax {
		return nil, &cc.ConfigError{Part: part, Field: "eta", Value: strconv.FormatFloat(c.Eta, 'g', -1, 64), Range: hpccEtaMin + ".." + hpccEtaMax, Err: err}
	}
	w.Eta = eta
	if w.AI == 0 {
		// An Init out of range fails here and again, naming Window.Init,
		// in rp.NewHPCC.
		if ai, err := window.AIRule(w.Init, eta, rp.HPCCRuleFlows); err == nil {
			w.AI = ai
		}
	}
	if cfg.Codec, err = c.INT.codec(part); err != nil {
		return nil, err
	}
	h, err := rp.NewHPCC(cfg)
	if err != nil {
		return nil, err
	}
	return h, nil
}

// hpccEtaMin and hpccEtaMax are η's range, window.EtaMin..EtaMax, as the
// real numbers the eta setting takes.
var (
	hpccEtaMin = strconv.FormatFloat(window.EtaMin.Float(), 'g', -1, 64)
	hpccEtaMax = strconv.FormatFloat(window.EtaMax.Float(), 'g', -1, 64)
)

// hpccSpeeds describes the port speeds the default INT codec has a code
// for (inttel.DefaultSpeedCodes): the slowest, the fastest, and the list
// in Gb/s ("10, 25, ... or 800 Gb/s").
func hpccSpeeds() (lo, hi units.Rate, list string) {
	codes := inttel.DefaultSpeedCodes()
	lo, hi = codes[0].Rate, codes[0].Rate
	gbps := make([]string, len(codes))
	for i, c := range codes {
		lo, hi = min(lo, c.Rate), max(hi, c.Rate)
		gbps[i] = strconv.FormatFloat(float64(c.Rate)/float64(units.Gbps), 'g', -1, 64)
	}
	last := len(gbps) - 1
	return lo, hi, strings.Join(gbps[:last], ", ") + " or " + gbps[last] + " Gb/s"
}

func init() {
	speedLo, speedHi, speeds := hpccSpeeds()
	rpFields := []cc.Field[hpccRPConfig]{
		{
			Param: cc.Param{
				Name: "t", Min: window.MinT.String(), Max: window.MaxT.String(),
				Doc: "T, the base-RTT bound: \"slightly greater than the maximum RTT\"; normalises U, weights the EWMA, R = W/T; " +
					"where the caller gives a base RTT (cc.Env.BaseRTT; the harness: the network's largest, data and ACK with their INT bytes, the same for every flow), that RTT, else the preset's",
				Source: "[HPCC] §3.2 and §5.1 (13 µs in simulation, 9 µs on the testbed)",
			},
			Ptr: func(c *hpccRPConfig) any { return &c.Window.T },
		},
		{
			Param: cc.Param{
				Name: "w_init", Min: "0B", Max: window.MaxWindow.String(),
				Doc:    "W_init, the window a flow starts with (" + bitsWide(window.WindowBits) + " register); 0: link·T, line rate for the first RTT",
				Source: "[HPCC] §3.2",
			},
			Ptr: func(c *hpccRPConfig) any { return &c.Window.Init },
		},
		{
			Param: cc.Param{
				Name: "w_min", Min: "0B", Max: window.MaxWindow.String(),
				Doc:    "W_min, the smallest window, at most w_init; 0: 1 Gb/s·T (the authors' MIN_RATE)",
				Source: "[HPCC-ns3] run.py (MIN_RATE = 1000 Mb/s); the paper has none",
			},
			Ptr: func(c *hpccRPConfig) any { return &c.Window.Min },
		},
		{
			Param: cc.Param{
				Name: "w_max", Min: "0B", Max: window.MaxWindow.String(),
				Doc:    "W_max, the largest window, at least w_init; 0: w_init (the rate never passes the NIC's)",
				Source: "[HPCC-ns3] (rate capped at the NIC rate)",
			},
			Ptr: func(c *hpccRPConfig) any { return &c.Window.Max },
		},
		{
			Param: cc.Param{
				Name: "wai", Min: "0B", Max: window.MaxWindow.String(),
				Doc: "W_AI, the additive increase per update, at most w_max; 0: the rule W_init·(1 − η)/100 (N = 100 flows), the testbed preset's and, " +
					"where the flow's base RTT is known (the harness), every preset's at T = that RTT; papersim alone: the paper's 80 B (the rule at 100 Gb/s and 13 µs, rounded)",
				Source: "[HPCC] §3.3 and §5.1",
			},
			Ptr: func(c *hpccRPConfig) any { return &c.Window.AI },
		},
		{
			Param: cc.Param{
				Name: "eta", Unit: "fraction (held as UQ32_32)", Min: hpccEtaMin, Max: hpccEtaMax,
				Doc:    "η, the target utilisation",
				Source: "[HPCC] §3.3 and §5.1 (95 %)",
			},
			Ptr: func(c *hpccRPConfig) any { return &c.Eta },
		},
		{
			Param: cc.Param{
				Name: "max_stage", Unit: "AI steps", Min: "0", Max: strconv.Itoa(window.MaxStageLimit),
				Doc:    "maxStage, the additive-increase steps before a multiplicative step (" + bitsWide(bits.Len(window.MaxStageLimit)) + " incStage)",
				Source: "[HPCC] §3.3 and §5.1 (5); [HPCC-ns3] run.py uses 0",
			},
			Ptr: func(c *hpccRPConfig) any { return &c.Window.MaxStage },
		},
		{
			Param: cc.Param{
				Name:   "fast_react",
				Doc:    "per-ACK reaction without commit (Algorithm 1 lines 25–26); off: per-RTT only",
				Source: "[HPCC] Algorithm 1 and §5.4 (Figure 13); [HPCC-ns3] FAST_REACT",
			},
			Ptr: func(c *hpccRPConfig) any { return &c.FastReact },
		},
		{
			Param: cc.Param{
				Name:   "multi_rate",
				Doc:    "one U and one reference window per hop, W the smallest",
				Source: "[HPCC] Appendix A.3; [HPCC-ns3] MULTI_RATE",
			},
			Ptr: func(c *hpccRPConfig) any { return &c.MultiRate },
		},
		{
			Param: cc.Param{
				Name: "initial_u",
				Choices: []cc.Choice{
					{Name: "zero", Value: int64(rp.HPCCInitialUZero), Doc: "U = 0: no load measured yet (hwcc)"},
					{Name: "one", Value: int64(rp.HPCCInitialUOne), Doc: "U = 1 (the authors' ns-3: hp.u = 1)"},
					{Name: "eta", Value: int64(rp.HPCCInitialUEta), Doc: "U = η (htsim)"},
				},
				Doc:    "where U starts (shows only in the first round trip)",
				Source: "the paper is silent; [HPCC-ns3] rdma-queue-pair.cc; [htsim]",
			},
			Ptr: func(c *hpccRPConfig) any { return &c.InitialU },
		},
		{
			Param: cc.Param{
				Name:   "native_division",
				Doc:    "divide Wc·η/U and Δtx/Δts with the CPU instead of the 1/n table (for measurement; hardware models leave it off)",
				Source: "[HPCC] §4.3 (the NIC's table)",
			},
			Ptr: func(c *hpccRPConfig) any { return &c.Window.NativeDivision },
		},
	}
	rpFields = append(rpFields, hpccINTFields(func(c *hpccRPConfig) *hpccINT { return &c.INT })...)

	cpFields := []cc.Field[hpccCPConfig]{
		{
			Param: cc.Param{
				Name: "switch_id", Unit: bitsWide(inttel.PathIDBits) + " ID", Min: "0", Max: strconv.Itoa(inttel.MaxPathID),
				Doc:    "the switch's ID, XORed into the header's pathID",
				Source: "[HPCC] §4.1",
			},
			Ptr: func(c *hpccCPConfig) any { return &c.SwitchID },
		},
		{
			Param: cc.Param{
				Name: "rate", Min: speedLo.String(), Max: speedHi.String(),
				Doc:    "the port's speed; it must have a speed code (" + speeds + ")",
				Source: "[HPCC] Figure 7 (B); hwcc's inttel.DefaultSpeedCodes",
			},
			Ptr: func(c *hpccCPConfig) any { return &c.Rate },
		},
		{
			Param: cc.Param{
				Name:   "port_tx_bytes",
				Doc:    "stamp the caller's port counter (bytes sent on every priority, as ns-3 counts) instead of counting this queue's packets",
				Source: "[HPCC-ns3] switch-node.cc (m_txBytes per port)",
			},
			Ptr: func(c *hpccCPConfig) any { return &c.PortTxBytes },
		},
	}
	cpFields = append(cpFields, hpccINTFields(func(c *hpccCPConfig) *hpccINT { return &c.INT })...)

	cc.MustRegisterAlgorithm(cc.Algorithm{
		Name: "hpcc",
		Deploy: cc.Deployment{
			Telemetry: cc.TelemetryFormat{Init: inttel.PrefixLen, Hop: inttel.HopLen},
			// One T for every flow: the network's largest base RTT with INT.
			NetworkRTT: true,
			// A switch keeps every port's count of bytes sent on every
			// priority (cc.Queue.TxBytes), which is what the authors' ns-3
			// stamps; the part's default, a count of the queue's own
			// packets, is for callers that keep none.
			Defaults: map[string]string{"cp.port_tx_bytes": "on"},
			Doc: "every switch egress data queue runs the hpcc cp (cp.HPCC), which pushes its INT record (the switch's ID, the port's rate, " +
				"bytes sent on every priority, the queue) onto each data frame it dequeues; receivers echo the stack in their ACKs; " +
				"every flow's sender runs the hpcc rp (rp.HPCC) with T = the network's largest base RTT with the INT bytes of its longest path (one T for all flows), W_init = line rate·T " +
				"and W_AI = W_init·(1 − η)/100 unless set, and the NIC sends while inflight < W, paced at W/T",
		},
		Title: "HPCC",
		Paper: hpccPaper,
		Doc:   "switches stamp INT records of their egress ports (rate, time, bytes sent, queue) on data packets; senders compute each link's utilisation from the echoed records and set an inflight window and a pacing rate",
		Parts: []cc.PartSpec{
			{
				Name: "cp",
				Role: cc.RoleCP,
				Doc:  "one switch egress port: stamps its INT record on every data packet it dequeues (cp.HPCC)",
				Config: &cc.Spec[hpccCPConfig]{
					Link: hpccLink,
					// The rp's preset names, so that one preset setting
					// configures both parts: the paper's switches stamp
					// the same records in simulation and on the testbed.
					Presets: []cc.Preset[hpccCPConfig]{
						{
							Name:   "papersim",
							Doc:    "a port at the link rate, switch ID 0, the default INT codec (128 B, 80 B, 1 ns, 5 hops), counting its own queue's bytes",
							Source: "[HPCC] §4.1 and Figure 7",
							Config: hpccCPPreset,
						},
						{
							Name:   "testbed",
							Doc:    "the same port (HPCC's switch has no setting the paper varies)",
							Source: "[HPCC] §4.1 and Figure 7",
							Config: hpccCPPreset,
						},
					},
					Env:    hpccCPEnv,
					Fields: cpFields,
					New: func(c hpccCPConfig) (cc.Part, error) {
						codec, err := c.INT.codec("hpcc cp")
						if err != nil {
							return nil, err
						}
						c.Codec = codec
						p, err := cp.NewHPCC(c.HPCCConfig)
						if err != nil {
							return nil, err
						}
						return p, nil
					},
				},
			},
			{
				Name: "rp",
				Role: cc.RoleRP,
				Doc:  "the sender of one flow: U from the echoed INT records, the window law of Algorithm 1, pacing at W/T (rp.HPCC)",
				Config: &cc.Spec[hpccRPConfig]{
					Link: hpccLink,
					Presets: []cc.Preset[hpccRPConfig]{
						{
							Name:   "papersim",
							Doc:    "the paper's simulations: T = 13 µs, η = 95 %, maxStage = 5, W_AI = 80 B, W_init = W_max = link·T, W_min = 1 Gb/s·T, fast react",
							Source: "[HPCC] §5.1",
							Config: func(env cc.Env) hpccRPConfig { return hpccRPPreset(rp.HPCCPaperSim(env.Rate), env.Rate) },
						},
						{
							Name:   "testbed",
							Doc:    "the paper's testbed: T = 9 µs, η = 95 %, maxStage = 5, W_AI = W_init·(1 − η)/100 (wai 0: the rule at the final T and η), W_init = W_max = link·T, W_min = 1 Gb/s·T",
							Source: "[HPCC] §3.3 and §5.1",
							Config: func(env cc.Env) hpccRPConfig {
								c := hpccRPPreset(rp.HPCCTestbed(env.Rate), env.Rate)
								c.Window.AI = 0 // the rule, in hpccRPNew: rp.HPCCTestbed's value at its T and η
								return c
							},
						},
					},
					Env:    hpccRPEnv,
					Fields: rpFields,
					New:    hpccRPNew,
				},
			},
		},
	})
}
