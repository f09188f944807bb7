package algos

import (
	"math"
	"strconv"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/np"
	"github.com/hwcc/hwcc/rp"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// expressPassLink is the default link rate of the expresspass np presets:
// 100 Gb/s, as dcqcnLink. The "link" setting or the environment's line
// rate changes it.
const expressPassLink = 100 * units.Gbps

// Sources of the ExpressPass parameters.
const (
	// xpPaper: the algorithm.
	xpPaper = "[ExpressPass] Algorithm 1 (credit feedback control)"
	// xpNS2: the authors' ns-2 code, where each constant was checked.
	xpNS2 = "[ExpressPass-ns2]"
)

// expressPassSeedMix spreads flow numbers over seeds (2^32/φ, odd).
const expressPassSeedMix = 0x9E3779B1

// expressPassSeed returns the jitter seed of the flow numbered index (cc.Env.Index,
// from 1): np.ExpressPassDefaultSeed XOR index·expressPassSeedMix mod
// 2^32, distinct for distinct indexes below 2^32 (a bijection), and the
// default seed in place of the lock-up 0.
func expressPassSeed(index int) uint32 {
	s := np.ExpressPassDefaultSeed ^ uint32(index)*expressPassSeedMix
	if s == 0 {
		return np.ExpressPassDefaultSeed
	}
	return s
}

// expressPassNPEnv: the update period is the flow's base RTT (Algorithm 1:
// "RTT by default") and each flow's jitter generator gets its own seed.
func expressPassNPEnv(c *np.ExpressPassConfig, env cc.Env) {
	if env.BaseRTT > 0 {
		c.UpdatePeriod = min(env.BaseRTT, np.ExpressPassMaxPeriod)
	}
	if env.Index > 0 {
		c.Seed = expressPassSeed(env.Index)
	}
}

// expressPassRPEnv: the flow's size (its credit stop), its number (the
// harness numbers flows Index = ID + 1), a stop timeout of 2 base RTTs
// (ns-2's send_credit_stop waits 2·RTT) and its start, when the first
// credit request is due.
func expressPassRPEnv(c *rp.ExpressPassConfig, env cc.Env) {
	if env.Size > 0 {
		c.Size = env.Size
	}
	if env.Index > 0 {
		c.Flow = cc.FlowID(env.Index - 1)
	}
	if env.BaseRTT > 0 {
		c.StopTimeout = min(2*env.BaseRTT, rp.ExpressPassMaxTimeout)
	}
	c.Start = env.Start
}

// xpFloat formats a bound of a float parameter as the registry parses it.
func xpFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// xpField is a parameter of a part with config C.
func xpField[C any](name, unit, min, max, doc, source string, ptr func(c *C) any) cc.Field[C] {
	return cc.Field[C]{Param: cc.Param{Name: name, Unit: unit, Min: min, Max: max, Doc: doc, Source: source}, Ptr: ptr}
}

func init() {
	type rx = np.ExpressPassConfig
	type tx = rp.ExpressPassConfig
	maxPeriod := np.ExpressPassMaxPeriod.String()
	maxTimeout := rp.ExpressPassMaxTimeout.String()
	maxGain := xpFloat(np.ExpressPassMaxGain)
	seqMin, seqMax := strconv.Itoa(wire.ExpressPassMinSeqBits), strconv.Itoa(wire.ExpressPassMaxSeqBits)
	cc.MustRegisterAlgorithm(cc.Algorithm{
		Name: "expresspass",
		Deploy: cc.Deployment{
			Symmetric: true,
			Messages: []cc.MessageKind{
				expressPassCredit,
				{Kind: cc.FeedbackCreditRequest, Name: "credit-request", Frame: wire.MinFrameBytes, Prio: cc.ControlPrio},
				{Kind: cc.FeedbackCreditStop, Name: "credit-stop", Frame: wire.MinFrameBytes, Prio: cc.ControlPrio},
			},
			Doc: "every flow's receiver runs the expresspass np (credits paced at its rate, Algorithm 1 once per base RTT on the loss " +
				"its echoes show) and its sender the expresspass rp (one frame per credit, echoing the credit's number; the credit request " +
				"at the start, the stop after the last byte); credits are 84 B frames shaped at every port to 84/(84+1538) of the link in a " +
				"queue of 8, and retrace the data path (symmetric routing); no switch state. One credit pays for one frame of up to 1538 B " +
				"on the wire: at the harness's default 1000 B payload (1082 B frames) a flow reaches at most 1082/1622 of the link, so the " +
				"ExpressPass scenarios use 1456 B payloads (1538 B frames)",
		},
		Title: "ExpressPass",
		Paper: "[ExpressPass]: credits paced by the " +
			"receiver, one data frame per credit, Algorithm 1 (credit feedback control); constants as in " +
			"[ExpressPass-ns2]; [Survey] §5.3.2",
		Doc: "the receiver paces 84 B credits, dropped by the switches' rate-limited credit queues; the sender sends one frame per " +
			"credit and echoes its sequence number, whose gaps drive the receiver's credit rate",
		Parts: []cc.PartSpec{
			{
				Name: "np",
				Role: cc.RoleNP,
				Doc:  "the credit pacer of one receiving flow: credits at cur_rate with ±10 % jitter, Algorithm 1 every update period on the loss the echoes show (np.ExpressPass)",
				Config: &cc.Spec[rx]{
					Link: expressPassLink,
					Presets: []cc.Preset[rx]{{
						Name: "paper",
						Doc: "α = w_init = 1/16, w_min = 0.01, w_max = 0.5, target loss 0.125, 84 B credits per 1538 B frame, jitter ±0.1, " +
							"update period the base RTT (10 µs where unknown)",
						Source: xpPaper + "; " + xpNS2 + ", scripts/large-scale-fattree.tcl and xpass/xpass.cc",
						Config: cc.OfLink(np.ExpressPassPaper),
					}},
					Fields: []cc.Field[rx]{
						xpField("credit_bytes", "", "1B", np.ExpressPassMaxFrameBytes.String(), "a credit frame's wire size (at most frame_bytes)",
							xpNS2+" (min_credit_size_ = max_credit_size_ = 84); [ExpressPass] §3.1", func(c *rx) any { return &c.CreditBytes }),
						xpField("frame_bytes", "", "1B", np.ExpressPassMaxFrameBytes.String(), "the largest data frame's wire size: the largest credit rate is link·credit_bytes/(credit_bytes+frame_bytes)",
							xpNS2+" (max_ethernet_size_ = 1538); [ExpressPass] §3.1", func(c *rx) any { return &c.FrameBytes }),
						xpField("alpha", "fraction of the largest rate, held in Q16", xpFloat(np.ExpressPassMinAlpha), "1", "the initial credit rate α·max_rate",
							xpNS2+" (alpha 0.0625)", func(c *rx) any { return &c.Alpha }),
						xpField("w_init", "fraction, held in Q16", "0", maxGain, "the aggressiveness w at a credit request",
							xpNS2+" (w_init 0.0625)", func(c *rx) any { return &c.WInit }),
						xpField("w_min", "fraction, held in Q16", "0", maxGain, "the least w: a decrease sets w = max(w/2, w_min)",
							xpPaper+"; "+xpNS2+" (min_w_ 0.01)", func(c *rx) any { return &c.WMin }),
						xpField("w_max", "fraction, held in Q16", "0", maxGain, "the w consecutive increases approach: w = (w + w_max)/2",
							xpPaper+"; "+xpNS2+" (w_ capped at 0.5)", func(c *rx) any { return &c.WMax }),
						xpField("target_loss", "fraction, held in Q16", "0", maxGain, "the credit loss Algorithm 1 tolerates before it decreases",
							xpPaper+"; "+xpNS2+" (target_loss_scaling_ 0.125)", func(c *rx) any { return &c.TargetLoss }),
						xpField("update_period", "", np.ExpressPassMinPeriod.String(), maxPeriod, "how often Algorithm 1 runs (at a credit departure); the flow's base RTT where the environment gives one",
							xpPaper+" (\"RTT by default\"); 10 µs where unknown is hwcc's", func(c *rx) any { return &c.UpdatePeriod }),
						xpField("jitter_min", "fraction of the interval", xpFloat(-np.ExpressPassMaxJitter), "0", "the least stretch j of a credit interval: interval·(1 + j)",
							xpNS2+" (min_jitter_ -0.1)", func(c *rx) any { return &c.JitterMin }),
						xpField("jitter_max", "fraction of the interval", "0", xpFloat(np.ExpressPassMaxJitter), "the largest stretch j of a credit interval",
							xpNS2+" (max_jitter_ 0.1)", func(c *rx) any { return &c.JitterMax }),
						xpField("seed", "xorshift32 state", strconv.FormatUint(uint64(np.ExpressPassMinSeed), 10), strconv.FormatUint(math.MaxUint32, 10), "the jitter generator's initial state; each flow gets its own from its index where the environment gives one",
							"hwcc (Marsaglia's xorshift32)", func(c *rx) any { return &c.Seed }),
						xpField("seq_bits", "bits", seqMin, seqMax, "the credit sequence number's width (1..2^bits − 1, wrapping to 1)",
							xpNS2+" (32-bit credit_seq_, skipping 0)", func(c *rx) any { return &c.SeqBits }),
					},
					Env: expressPassNPEnv,
					New: dcqcnNew(np.NewExpressPass),
				},
			},
			{
				Name: "rp",
				Role: cc.RoleRP,
				Doc:  "the credit-gated sender of one flow: requests credits, holds them in a FIFO, spends one per frame and echoes it, stops credits after the last byte (rp.ExpressPass)",
				Config: &cc.Spec[tx]{
					Presets: []cc.Preset[tx]{{
						Name:   "paper",
						Doc:    "1538 B per credit, a FIFO of 8 credits, request and stop resent after 100 µs (the stop after 2 base RTTs where known), 32-bit credit sequence numbers",
						Source: xpPaper + "; " + xpNS2 + " (max_ethernet_size_, retransmit_timeout_)",
						Config: cc.Fixed(rp.ExpressPassPaper),
					}},
					Fields: []cc.Field[tx]{
						xpField("frame_bytes", "", rp.ExpressPassMinFrameBytes.String(), rp.ExpressPassMaxFrameBytes.String(), "the wire bytes one credit pays for: Limits().Credit = credits held × frame_bytes; a larger frame is refused",
							xpNS2+" (max_ethernet_size_ = 1538)", func(c *tx) any { return &c.FrameBytes }),
						xpField("depth", "credits", "1", strconv.Itoa(rp.ExpressPassMaxDepth), "the credits the sender holds; one more is wasted",
							"hwcc (the paper's sender holds none: it sends a frame per credit at once)", func(c *tx) any { return &c.Depth }),
						xpField("request_timeout", "", "0s", maxTimeout, "resend the credit request while no credit has come (0: never)",
							xpNS2+" (retransmit_timeout_ 0.0001)", func(c *tx) any { return &c.RequestTimeout }),
						xpField("stop_timeout", "", "0s", maxTimeout, "a credit this long after the latest stop resends it (0: never); 2 base RTTs where the environment gives one",
							xpNS2+" (send_credit_stop: 2·rtt, then CLOSE_WAIT)", func(c *tx) any { return &c.StopTimeout }),
						xpField("size", "", "0B", "", "the flow's payload bytes: the frame that covers the last sends the credit stop (0: long-lived); the environment's flow size where given",
							xpPaper+" (CREDIT_STOP)", func(c *tx) any { return &c.Size }),
						xpField("seq_bits", "bits", seqMin, seqMax, "the credit sequence number's width, as the receiver's",
							xpNS2+" (32-bit credit_seq_)", func(c *tx) any { return &c.SeqBits }),
					},
					Env: expressPassRPEnv,
					New: dcqcnNew(rp.NewExpressPass),
				},
			},
		},
	})
}

// expressPassCredit is ExpressPass's credit class ([ExpressPass] §3.1;
// the authors' ns-2 code): a minimum Ethernet frame (64 B, 84 B on the
// wire), shaped at every port to one per 84 + 1538 bytes of port time
// (5.2 % of the link: the credit for one full data frame on the reverse
// path) in a queue of 8 credits, beyond which they are dropped (the ns-2
// scripts' credit queue of 8).
var expressPassCredit = cc.MessageKind{
	Kind: cc.FeedbackCredit, Name: "credit", Frame: wire.ExpressPassCreditBytes - wire.WireGapBytes, Prio: cc.ControlPrio,
	Spacing: wire.ExpressPassCreditBytes + wire.ExpressPassFrameBytes, Queue: expressPassCreditQueue,
}

// expressPassCreditQueue is the shaper's queue in credits.
const expressPassCreditQueue = 8
