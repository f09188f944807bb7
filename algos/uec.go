package algos

import (
	"strconv"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/fixedpoint"
	"github.com/hwcc/hwcc/np"
	"github.com/hwcc/hwcc/rp"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// Ultra Ethernet's congestion control, registered three ways: nscc (the
// sender's window alone), rccc (the receiver's credit alone) and uec
// (both), as the consortium's model runs them (-sender_cc_only,
// -receiver_cc_only, -sender_cc -receiver_cc; [uet-htsim] main_uec.cpp).

// The environment a part takes when none is given (hwcc algos, a replay
// without one): the model's reference network and its default payload.
const (
	uecLink = 100 * units.Gbps
	uecRTT  = 12 * units.Microsecond
	uecMSS  = 4096 * units.Byte
	// uecOverhead is the wire bytes a harness frame adds to its payload:
	// 62 of headers and FCS (RoCEv2-sized) and 20 of preamble and gap.
	uecOverhead = 82 * units.Byte
)

// Sources of the parameters.
const (
	uecModel = "[uet-htsim] uec.cpp"
	uecInit  = uecModel + " initNsccParams"
	uecMain  = "[uet-htsim] main_uec.cpp"
	uecSpec  = "[UEC] (congestion management sublayer), as " + uecModel + " follows it"
)

// uecNSCCFields are the NSCC reaction point's parameters.
func uecNSCCFields() []cc.Field[rp.NSCCConfig] {
	type c = rp.NSCCConfig
	rtt := rp.NSCCMinRTT.String()
	maxRTT := rp.NSCCMaxRTT.String()
	f := func(name, unit, min, max, doc, source string, ptr func(*c) any) cc.Field[c] {
		return xpField(name, unit, min, max, doc, source, ptr)
	}
	maxF := xpFloat(rp.NSCCMaxFactor)
	return []cc.Field[c]{
		f("network_rtt", "", rtt, maxRTT, "T_n, the network's largest unloaded RTT, which scales every constant (the environment's network RTT)",
			uecInit+" (network_rtt)", func(c *c) any { return &c.NetworkRTT }),
		f("base_rtt", "", "0s", maxRTT, "the flow's base RTT at start (0: network_rtt, as the model without accurate base RTTs); RTT samples lower it",
			uecMain+" (initNscc with network_max_unloaded_rtt)", func(c *c) any { return &c.BaseRTT }),
		f("mss", "", rp.NSCCMinMSS.String(), rp.NSCCMaxMSS.String(), "a full packet's payload: the window's floor and the unit of fi, η and α (the environment's payload)",
			uecInit+" (_mss)", func(c *c) any { return &c.MSS }),
		f("trimming", "", "", "", "the fabric trims: the target delay defaults to 0.75·network_rtt (else network_rtt)",
			uecInit+" (target_Qdelay)", func(c *c) any { return &c.Trimming }),
		f("target_qdelay", "", "0s", maxRTT, "Q_t, the target queueing delay (0: derived from trimming)",
			uecInit+" (target_Qdelay)", func(c *c) any { return &c.TargetQDelay }),
		f("alpha", "× MSS·a·b/Q_t", "0", maxF, "the proportional increase's multiplier: α = alpha·MSS·a·b/Q_t per byte per unit of delay below target",
			uecInit+" (_alpha = 4.0·mss·a·b/target_Qdelay)", func(c *c) any { return &c.Alpha }),
		f("fi", "× MSS·a", "0", maxF, "the fair increase's multiplier: fi = fi·MSS·a per acknowledged byte",
			uecInit+" (_fi = 5·mss·a)", func(c *c) any { return &c.Fi }),
		f("eta", "× MSS·a", "0", maxF, "the fulfil step's additive increase once per adjust period: η = eta·MSS·a",
			uecInit+" (_eta = 0.15·mss·a)", func(c *c) any { return &c.Eta }),
		f("fi_scale", "× a", "0", maxF, "fast increase per acknowledged byte: fi_scale·a",
			uecInit+" (_fi_scale = 0.25·a)", func(c *c) any { return &c.FiScale }),
		f("gamma", "fraction, held in Q16", "0.0001", "1", "γ of the multiplicative decrease cwnd·max(1 − γ·(avg − Q_t)/avg, 0.5)",
			uecInit+" (_gamma = 0.8)", func(c *c) any { return &c.Gamma }),
		f("delay_alpha", "fraction, held in Q16", xpFloat(1.0/65536), xpFloat(rp.NSCCMaxDelayAlpha), "λ, the delay EWMA's gain",
			uecInit+" (_delay_alpha = 0.0125)", func(c *c) any { return &c.DelayAlpha }),
		f("qa_gate", "log2", "0", strconv.Itoa(rp.NSCCMaxQAGate), "quick adapt fires only while the bytes acknowledged in its period are below maxwnd/2^qa_gate",
			uecInit+" (_qa_gate = 3 when unset)", func(c *c) any { return &c.QAGate }),
		f("qa_factor", "× Q_t", "1", strconv.Itoa(rp.NSCCMaxQAFactor), "a delay above qa_factor·Q_t triggers quick adapt",
			uecInit+" (_qa_threshold = 4·target_Qdelay)", func(c *c) any { return &c.QAFactor }),
		f("adjust_period", "", "0s", maxRTT, "the fulfil step's η period (0: network_rtt)",
			uecInit+" (_adjust_period_threshold = network_rtt)", func(c *c) any { return &c.AdjustPeriod }),
		f("adjust_bytes", "", "0B", rp.NSCCMaxBDP.String(), "acknowledged bytes that trigger a fulfil step (0: 8·mss)",
			uecInit+" (_adjust_bytes_threshold = 8·mtu; hwcc counts payload)", func(c *c) any { return &c.AdjustBytes }),
		f("fast_delay", "", "0s", maxRTT, "the delay below which fast increase runs",
			uecModel+" fast_increase (a literal 1 µs)", func(c *c) any { return &c.FastDelay }),
		f("initial_cwnd", "", "0B", rp.NSCCMaxBDP.String(), "the window at start (0: maxwnd, 1.5 BDP of base_rtt)",
			uecModel+" initNscc (cwnd 0: _maxwnd)", func(c *c) any { return &c.InitialCwnd }),
		f("base_on_nack", "", "", "", "a NACK's round trip lowers the base RTT as an ACK's does",
			uecModel+" (update_base_rtt_on_nack = true)", func(c *c) any { return &c.BaseOnNack }),
		f("no_quick_adapt", "", "", "", "turn quick adapt off",
			uecModel+" (_disable_quick_adapt = false)", func(c *c) any { return &c.NoQuickAdapt }),
	}
}

// uecCreditFields are the RCCC sender's parameters, for a config C whose
// credit sender cr returns.
func uecCreditFields[C any](cr func(*C) *rp.RCCCSenderConfig) []cc.Field[C] {
	return []cc.Field[C]{
		xpField("size", "", "0B", rp.RCCCMaxSize.String(), "the flow's payload bytes, its backlog (0: long-lived; the environment's flow size)",
			uecModel+" startConnection (_backlog)", func(c *C) any { return &cr(c).Size }),
		xpField("frame_overhead", "", "0B", rp.RCCCMaxOverhead.String(), "wire bytes a frame adds to its payload, counted in the backlog's credit (82 B: the harness's frames, 62 B of headers and FCS and 20 of preamble and gap)",
			"hwcc (the model counts a 64-byte header per packet)", func(c *C) any { return &cr(c).FrameOverhead }),
		xpField("max_credit", "", "0B", rp.RCCCMaxCredit.String(), "the cap on credit held and on the demand a pull target states (0: 1.5 BDP of the base RTT)",
			uecModel+" (_configured_maxwnd = 1.5·bdp)", func(c *C) any { return &cr(c).MaxCredit }),
		xpField("no_speculation", "", "", "", "start with no credit (the model starts with max_credit of speculative credit)",
			uecModel+" startConnection (_credit = _configured_maxwnd)", func(c *C) any { return &cr(c).NoSpeculation }),
	}
}

// uecNSCCPreset is NSCC in the environment, with credit when credit.
func uecNSCCPreset(credit bool) func(env cc.Env) rp.NSCCConfig {
	return func(env cc.Env) rp.NSCCConfig {
		c := rp.NSCCDefault(env.Rate, orTime(env.BaseRTT, uecRTT), orBytes(env.Payload, uecMSS))
		if credit {
			c.Credit = rp.RCCCSenderConfig{On: true, Size: env.Size, FrameOverhead: uecOverhead}
		}
		return c
	}
}

// uecNSCCSpec is NSCC's part, with RCCC's sender when credit.
func uecNSCCSpec(credit bool) *cc.Spec[rp.NSCCConfig] {
	doc := "the consortium model's NSCC scaled to the network: link and network_rtt from the environment, trimming on"
	if credit {
		doc += ", RCCC's sender beside the window (speculative credit of 1.5 BDP, the pull target in every header)"
	}
	fields := uecNSCCFields()
	if credit {
		fields = append(fields, uecCreditFields(func(c *rp.NSCCConfig) *rp.RCCCSenderConfig { return &c.Credit })...)
	}
	return &cc.Spec[rp.NSCCConfig]{
		Link: uecLink,
		Presets: []cc.Preset[rp.NSCCConfig]{{
			Name: "model", Doc: doc, Source: uecInit + ", initNscc; " + uecMain,
			Config: uecNSCCPreset(credit),
		}},
		Fields: fields,
		New:    dcqcnNew(rp.NewNSCC),
	}
}

// uecRCCCNPSpec is RCCC's receiver.
func uecRCCCNPSpec() *cc.Spec[np.RCCCConfig] {
	type c = np.RCCCConfig
	q := units.Bytes(1) << wire.UECPullQuantumShift
	maxRTT := np.RCCCMaxRTT.String()
	return &cc.Spec[c]{
		Link: uecLink,
		Presets: []cc.Preset[c]{{
			Name: "model",
			Doc: "the consortium model's pull pacer: 4·MSS per pull at 0.99 of the line rate, slow credit up to 1.5 BDP of the " +
				"network RTT, 1024 senders, oversubscription off",
			Source: "[uet-htsim] uec.cpp UecPullPacer, UecSink; " + uecMain,
			Config: func(env cc.Env) c {
				return np.RCCCDefault(env.Rate, orBytes(env.Payload, uecMSS), orTime(env.BaseRTT, uecRTT))
			},
		}},
		Fields: []cc.Field[c]{
			xpField("rate_modifier", "fraction of the line rate", "0.0001", "1", "ρ: pulls are paced at ρ·link",
				uecMain+" (UecPullPacer(linkspeed, 0.99, …))", func(c *c) any { return &c.RateModifier }),
			xpField("credit_per_pull", "", q.String(), np.RCCCMaxPull.String(), "credit one pull grants, rounded down to 256-byte quanta (4·MSS)",
				"[uet-htsim] uec.cpp (_mtus_per_pull = 4, \"as per default in UEC spec\"): "+uecSpec, func(c *c) any { return &c.CreditPerPull }),
			xpField("max_credit", "", "0B", np.RCCCMaxPull.String(), "the slow credit an idle sender may get (1.5 BDP of the network RTT; 0: no slow pulls)",
				"[uet-htsim] uec.cpp UecPullPacer::doNextEvent (quantize_floor(getConfiguredMaxWnd()))", func(c *c) any { return &c.MaxCredit }),
			xpField("senders", "contexts", "1", strconv.Itoa(np.RCCCMaxSenders), "the sender table's size (a packet of a sender beyond it is counted and ignored)",
				"hwcc (the model keeps a sink per connection)", func(c *c) any { return &c.Senders }),
			xpField("oversubscribed", "", "", "", "the receiver's rate adaptation for oversubscribed fabrics",
				"[uet-htsim] oversubscribed_cc.cpp (-oversubscribed_cc)", func(c *c) any { return &c.Oversubscribed }),
			xpField("base_rtt", "", np.RCCCMinRTT.String(), maxRTT, "scales the adaptation's period, 1.5·base_rtt·(0.75 + U/2) (the network RTT)",
				"[uet-htsim] oversubscribed_cc.h nextInterval; main_uec.cpp (_base_rtt = network_max_unloaded_rtt)", func(c *c) any { return &c.BaseRTT }),
			xpField("target", "fraction, held in Q16", "0", "1", "the marked fraction the adaptation aims for",
				"[uet-htsim] oversubscribed_cc.cpp (_target_congestion = 0.3)", func(c *c) any { return &c.Target }),
			xpField("ai", "fraction of the line rate, held in Q16", "0", "1", "the additive increase (Ai·2^k while nothing is marked)",
				"[uet-htsim] oversubscribed_cc.cpp (_Ai = 0.01)", func(c *c) any { return &c.Ai }),
			xpField("md", "fraction, held in Q16", "0", "1", "the multiplicative decrease's gain: rate·(1 − (g − target)·md)",
				"[uet-htsim] oversubscribed_cc.cpp (_Md = 0.5)", func(c *c) any { return &c.Md }),
			xpField("alpha", "fraction, held in Q16", xpFloat(1.0/65536), "1", "the marked fraction's EWMA gain",
				"[uet-htsim] oversubscribed_cc.cpp (_alpha = 0.5)", func(c *c) any { return &c.Alpha }),
			xpField("min_rate", "fraction of the line rate, held in Q16", xpFloat(1.0/65536), "1", "the least rate (the model: 0.9/oversubscription ratio, at least 0.01)",
				"[uet-htsim] oversubscribed_cc.h (_min_rate = 0.01; setOversubscriptionRatio)", func(c *c) any { return &c.MinRate }),
			xpField("seed", "LFSR32 state", strconv.FormatUint(uint64(fixedpoint.LFSR32SeedMin), 10), strconv.FormatUint(uint64(fixedpoint.LFSR32SeedMax), 10),
				"the period jitter's generator (the model draws drand()); each receiver gets its own from its index",
				"hwcc (fixedpoint.LFSR32)", func(c *c) any { return &c.Seed }),
		},
		Env: func(c *c, env cc.Env) {
			if env.Index > 0 {
				c.Seed = expressPassSeed(env.Index)
			}
		},
		New: dcqcnNew(np.NewRCCC),
	}
}

// uecRCCCRPSpec is RCCC's sender alone.
func uecRCCCRPSpec() *cc.Spec[rp.RCCCConfig] {
	type c = rp.RCCCConfig
	fields := []cc.Field[c]{
		xpField("base_rtt", "", rp.NSCCMinRTT.String(), rp.NSCCMaxRTT.String(), "the RTT the credit cap (1.5·link·base_rtt) is sized by (the environment's network RTT)",
			uecModel+" initRccc", func(c *c) any { return &c.BaseRTT }),
		xpField("mss", "", rp.NSCCMinMSS.String(), rp.NSCCMaxMSS.String(), "a full packet's payload (the environment's payload)",
			uecModel+" (_mss)", func(c *c) any { return &c.MSS }),
	}
	fields = append(fields, uecCreditFields(func(c *c) *rp.RCCCSenderConfig { return &c.Credit })...)
	return &cc.Spec[c]{
		Link: uecLink,
		Presets: []cc.Preset[c]{{
			Name: "model", Doc: "the consortium model's receiver-only sender: speculative credit of 1.5 BDP, the pull target in every header, no window",
			Source: uecModel + " initRccc, computePullTarget, handlePull",
			Config: func(env cc.Env) c {
				return rp.RCCCDefault(env.Rate, orTime(env.BaseRTT, uecRTT), orBytes(env.Payload, uecMSS), env.Size, uecOverhead)
			},
		}},
		Fields: fields,
		New:    dcqcnNew(rp.NewRCCC),
	}
}

// uecNetwork is what the parts rely on from the harness's network model:
// trimming switches and the selective transport ([UEC]'s lossy fabric and
// its packet delivery sublayer), and for RCCC one pull pacer per
// receiving host.
func uecNetwork(pacer bool) map[string]string {
	m := map[string]string{"flow_control": "trim", "transport": "sack"}
	if pacer {
		m["np_scope"] = "host"
	}
	return m
}

// uecPull is RCCC's pull on the wire: a 64-byte control frame (the model's
// UecPullPacket, ACKSIZE 64) at the control priority.
var uecPull = cc.MessageKind{Kind: cc.FeedbackCredit, Name: "pull", Frame: 64, Prio: cc.ControlPrio}

// uecPaper is what every registration cites.
const uecPaper = "[UEC] (the congestion management sublayer: NSCC, RCCC); equations and constants from [uet-htsim], " +
	"docs/derivations.md \"Ultra Ethernet: NSCC and RCCC\""

func init() {
	cc.MustRegisterAlgorithm(cc.Algorithm{
		Name:  "nscc",
		Title: "Ultra Ethernet NSCC",
		Paper: uecPaper,
		Doc:   "the sender's window from each ACK's ECN echo and queueing delay against a target, quick adapt and the NACK cut",
		Deploy: cc.Deployment{
			ECN: true, NetworkRTT: true, Network: uecNetwork(false),
			Doc: "every flow's sender runs the nscc rp; the switches mark ECN with their own marker and trim (flow_control trim), " +
				"the NICs run the selective transport (transport sack) and echo each packet's header (its send time) in its ACK",
		},
		Parts: []cc.PartSpec{{
			Name: "rp", Role: cc.RoleRP,
			Doc:    "the window of one flow (rp.NSCC)",
			Config: uecNSCCSpec(false),
		}},
	})
	cc.MustRegisterAlgorithm(cc.Algorithm{
		Name:  "rccc",
		Title: "Ultra Ethernet RCCC",
		Paper: uecPaper,
		Doc:   "the receiver's pull pacer grants credit in quanta at just under its line rate, round robin over its senders",
		Deploy: cc.Deployment{
			ECN: true, NetworkRTT: true, Network: uecNetwork(true),
			Messages: []cc.MessageKind{uecPull},
			Doc: "every flow's sender runs the rccc rp (on credit only) and every receiving host one rccc np (the pull pacer, " +
				"np_scope host); pulls are 64-byte control frames; trimming switches and the selective transport, as nscc",
		},
		Parts: []cc.PartSpec{
			{Name: "rp", Role: cc.RoleRP, Doc: "the credit-limited sender of one flow (rp.RCCC)", Config: uecRCCCRPSpec()},
			{Name: "np", Role: cc.RoleNP, Doc: "the pull pacer of one receiving host (np.RCCC)", Config: uecRCCCNPSpec()},
		},
	})
	cc.MustRegisterAlgorithm(cc.Algorithm{
		Name:  "uec",
		Title: "Ultra Ethernet NSCC with RCCC",
		Paper: uecPaper,
		Doc:   "NSCC's window and RCCC's credit together: a flow sends what both allow",
		Deploy: cc.Deployment{
			ECN: true, NetworkRTT: true, Network: uecNetwork(true),
			Messages: []cc.MessageKind{uecPull},
			Doc: "every flow's sender runs the uec rp (rp.NSCC with RCCC's sender) and every receiving host one uec np (the pull " +
				"pacer); the network as rccc",
		},
		Parts: []cc.PartSpec{
			{Name: "rp", Role: cc.RoleRP, Doc: "the window and the credit of one flow (rp.NSCC on credit)", Config: uecNSCCSpec(true)},
			{Name: "np", Role: cc.RoleNP, Doc: "the pull pacer of one receiving host (np.RCCC)", Config: uecRCCCNPSpec()},
		},
	})
}
