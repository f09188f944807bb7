package algos

import (
	"math"
	"strconv"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cp"
	"github.com/hwcc/hwcc/rp"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// qcnLink is the presets' default link: the QCN papers' 10 Gb/s.
const qcnLink = 10 * units.Gbps

const (
	qcnStd   = "IEEE 802.1Qau-2010 (IEEE8021-CN-MIB defaults)"
	qcnPaper = "[QCN-Allerton]; the QCN pseudocode (Pan, Prabhakar et al., 2007)"
	afqcnSrc = "[AF-QCN]; [Survey] §4.1.1"
)

type (
	qcnCP   = cp.QCNConfig
	qcnRP   = rp.QCNConfig
	qcnAFCP = cp.AFQCNConfig
)

// qcnCPFields are the QCN congestion point's parameters.
func qcnCPFields() []cc.Field[qcnCP] {
	return []cc.Field[qcnCP]{
		xpField("qeq", "", cp.QCNMinQeq.String(), cp.QCNMaxQueue.String(), "the queue QCN steers to: Fb = −(Q − Qeq + w·Qδ)", qcnStd+" (26000 B)", func(c *qcnCP) any { return &c.Qeq }),
		xpField("w", "", "0", strconv.Itoa(cp.QCNMaxW), "the weight of the queue's change since the last sample", qcnStd+" (feedback weight 2^1)", func(c *qcnCP) any { return &c.W }),
		xpField("jitter_percent", "%", "0", strconv.Itoa(cp.QCNMaxJitterPercent), "randomise the sampling interval by ±this much (an LFSR; 0: deterministic)", "hwcc", func(c *qcnCP) any { return &c.JitterPercent }),
		xpField("seed", "LFSR state", "0", strconv.Itoa(cp.QCNMaxSeed), "the jitter LFSR's initial state (1.. when jitter_percent > 0)", "hwcc", func(c *qcnCP) any { return &c.Seed }),
		// CPID is any 64-bit value; the registry's integers stop at 2^63 − 1.
		xpField("cpid", "", "0", strconv.Itoa(math.MaxInt64), "the congestion point identifier the CNMs carry", qcnStd, func(c *qcnCP) any { return &c.CPID }),
	}
}

// qcnRPSpec is QCN's reaction point, shared by qcn and afqcn.
func qcnRPSpec() cc.PartSpec {
	return cc.PartSpec{
		Name: "rp", Role: cc.RoleRP,
		Doc: "the rate limiter of one flow: RC cut by Gd·|Fb| per CNM, recovery by byte counter and timer: 5 fast-recovery cycles, then active and hyper-active increase (rp.QCN)",
		Config: &cc.Spec[qcnRP]{
			Link: qcnLink,
			Presets: []cc.Preset[qcnRP]{
				{Name: "standard", Doc: "the standard's defaults: Gd 1/128, BC_LIMIT 150 KB, timer 15 ms, R_AI 5 Mb/s, R_HAI 50 Mb/s, minimum 5 Mb/s, a cut of at most 50 %", Source: qcnStd, Config: cc.OfLink(rp.QCNStandard)},
				{Name: "paper", Doc: "the papers' RP: the standard's with a 10 ms timer and no floor on the decrease factor", Source: qcnPaper, Config: cc.OfLink(rp.QCNPaper)},
			},
			Fields: []cc.Field[qcnRP]{
				xpField("line_rate", "", rp.QCNRateUnit.String(), rp.QCNMaxLineRate.String(), "the NIC's rate", "the link", func(c *qcnRP) any { return &c.LineRate }),
				xpField("min_rate", "", rp.QCNRateUnit.String(), rp.QCNMaxLineRate.String(), "the floor of RC", qcnStd+" (5 Mb/s)", func(c *qcnRP) any { return &c.MinRate }),
				xpField("gd_shift", "bits", strconv.Itoa(rp.QCNMinGdShift), strconv.Itoa(rp.QCNMaxGdShift), "Gd = 2^-gd_shift: a CNM cuts RC·|Fb| >> gd_shift", qcnStd+" (7: 1/128)", func(c *qcnRP) any { return &c.GdShift }),
				xpField("min_dec_fac", "%", "0", strconv.Itoa(rp.QCNMaxMinDecFac), "one cut leaves at least this share of RC", qcnStd+" (50)", func(c *qcnRP) any { return &c.MinDecFac }),
				xpField("byte_limit", "", rp.QCNMinByteLimit.String(), rp.QCNMaxByteLimit.String(), "BC_LIMIT: a recovery cycle per this many bytes sent", qcnStd+" (150000 B)", func(c *qcnRP) any { return &c.ByteLimit }),
				xpField("period", "", rp.QCNMinPeriod.String(), rp.QCNMaxPeriod.String(), "T: a recovery cycle per period", qcnStd+" (15 ms); "+qcnPaper+" (10 ms)", func(c *qcnRP) any { return &c.Period }),
				xpField("threshold", "cycles", "0", strconv.Itoa(rp.QCNMaxThreshold), "fast-recovery cycles before the increases", qcnStd+" (5)", func(c *qcnRP) any { return &c.Threshold }),
				xpField("ai_rate", "", rp.QCNRateUnit.String(), rp.QCNMaxLineRate.String(), "R_AI, the active increase", qcnStd+" (5 Mb/s)", func(c *qcnRP) any { return &c.AIRate }),
				xpField("hai_rate", "", rp.QCNRateUnit.String(), rp.QCNMaxLineRate.String(), "R_HAI, the hyper-active increase step", qcnStd+" (50 Mb/s)", func(c *qcnRP) any { return &c.HAIRate }),
				xpField("halve_after_recovery", "", "", "", "halve BC_LIMIT and T after fast recovery", qcnPaper, func(c *qcnRP) any { return &c.HalveAfterRecovery }),
				xpField("target_every_cnm", "", "", "", "set RT ← RC on every CNM (off: only on the first, or after an increase)", "hwcc's default off; on is the paper's wording", func(c *qcnRP) any { return &c.TargetEveryCNM }),
			},
			New: dcqcnNew(rp.NewQCN),
		},
	}
}

func init() {
	cc.MustRegisterAlgorithm(cc.Algorithm{
		Name: "qcn", Title: "QCN",
		Deploy: cc.Deployment{
			NP: "-", NoAcks: true, Messages: []cc.MessageKind{qcnCNM},
			Doc: "every switch egress data queue runs the qcn cp (sampling, Fb, a CNM to the sampled frame's source), every sender the qcn rp; CNMs are minimum frames at the control priority; no notification point, no ACK reaches the rp",
		},
		Paper: qcnStd + "; " + qcnPaper + "; [Survey] §4.1",
		Doc:   "the switch samples arriving frames and sends their sources a 6-bit quantised congestion measure Fb = −(Qoff + w·Qδ); the source cuts its rate by Gd·|Fb| and recovers by byte counter and timer",
		Parts: []cc.PartSpec{
			{
				Name: "cp", Role: cc.RoleCP,
				Doc: "one egress queue: samples a frame per 150 KB down to 18.5 KB as |Fb| grows, a CNM to its source when Fb < 0 (cp.QCN)",
				Config: &cc.Spec[qcnCP]{
					Link: qcnLink,
					Presets: []cc.Preset[qcnCP]{
						{Name: "paper", Doc: "Qeq 26 KB scaled by link/10 Gb/s, w 2, the pseudocode's sampling table", Source: qcnPaper, Config: cc.OfLink(cp.QCNPaper)},
						{Name: "standard", Doc: "the standard's defaults: Qeq 26000 B, w 2, sampling from 150000 B", Source: qcnStd, Config: cc.Fixed(cp.QCNStandard)},
					},
					Fields: qcnCPFields(),
					New:    dcqcnNew(cp.NewQCN),
				},
			},
			qcnRPSpec(),
		},
	})
	afFields := liftFields(qcnCPFields(), func(c *qcnAFCP) *qcnCP { return &c.QCN })
	afFields = append(afFields,
		xpField("alpha", "/256", strconv.Itoa(cp.AFQCNMinAlpha), strconv.Itoa(cp.AFQCNMaxAlpha), "a: Fb = (1 − a)·Fb_QCN + a·Fb_AF, a = alpha/256", "hwcc (the paper's a is not given): 1/2", func(c *qcnAFCP) any { return &c.Alpha }),
		xpField("b_shift", "bits", strconv.Itoa(cp.AFQCNMinBShift), strconv.Itoa(cp.AFQCNMaxBShift), "b = 2^-b_shift, the arrival average's gain", "hwcc (the paper's b is not given): 1/8", func(c *qcnAFCP) any { return &c.BShift }),
		xpField("ts", "", cp.AFQCNMinTs.String(), cp.AFQCNMaxTs.String(), "Ts, the arrival measurement period", "hwcc (the paper's Ts is not given): 100 µs", func(c *qcnAFCP) any { return &c.Ts }),
		cc.Field[qcnAFCP]{
			Param: cc.Param{
				Name: "class_by",
				Choices: []cc.Choice{
					{Name: "prio", Value: int64(cp.AFQCNClassByPrio), Doc: "the frame's priority (one class per traffic class)"},
					{Name: "flow", Value: int64(cp.AFQCNClassByFlow), Doc: "the flow identifier modulo 8"},
					{Name: "src", Value: int64(cp.AFQCNClassBySrc), Doc: "the source host modulo 8 (one class per tenant host)"},
					{Name: "dst", Value: int64(cp.AFQCNClassByDst), Doc: "the destination host modulo 8"},
				},
				Doc: "what makes a frame's class", Source: afqcnSrc + "; the key is hwcc's",
			},
			Ptr: func(c *qcnAFCP) any { return &c.ClassBy },
		})
	for i := range cp.AFQCNClasses {
		afFields = append(afFields, xpField("weight"+strconv.Itoa(i), "", "0", strconv.Itoa(cp.AFQCNMaxWeight), "class "+string(rune('0'+i))+"'s weight W_i: its fair share is W_i/ΣW of the active classes' arrivals",
			afqcnSrc, func(c *qcnAFCP) any { return &c.Weights[i] }))
	}
	cc.MustRegisterAlgorithm(cc.Algorithm{
		Name: "afqcn", Title: "AF-QCN",
		Deploy: cc.Deployment{
			NP: "-", NoAcks: true, Messages: []cc.MessageKind{qcnCNM},
			Doc: "every switch egress data queue runs the afqcn cp (QCN's feedback mixed with a per-class fair-share term), every sender the qcn rp; CNMs as qcn's",
		},
		Paper: afqcnSrc,
		Doc:   "QCN with the congestion point's feedback mixed with an approximate-fair-dropping term per class: classes above their weighted share of the arrivals get more feedback",
		Parts: []cc.PartSpec{
			{
				Name: "cp", Role: cc.RoleCP,
				Doc: "one egress queue: QCN's feedback, per class arrivals averaged every Ts, Fb_AF = ⌊64·max(0, 1 − M_fair/M)⌋, Fb = (1 − a)·Fb_QCN + a·Fb_AF (cp.AFQCN)",
				Config: &cc.Spec[qcnAFCP]{
					Link: qcnLink,
					Presets: []cc.Preset[qcnAFCP]{
						{Name: "paper", Doc: "QCN's paper CP, all weights 1, a 1/2, b 1/8, Ts 100 µs, classes by priority", Source: afqcnSrc, Config: cc.OfLink(cp.AFQCNPaper)},
					},
					Fields: afFields,
					New:    dcqcnNew(cp.NewAFQCN),
				},
			},
			qcnRPSpec(),
		},
	})
}

// qcnCNM is the CNM on the wire: an 802.1Qau CNM frame is 64 bytes or more
// (its header, the 20-byte CN-TAG and the encapsulated MSDU's first
// bytes); at the control priority.
var qcnCNM = cc.MessageKind{Kind: wire.FeedbackCNM, Name: "cnm", Frame: wire.MinFrameBytes, Prio: cc.ControlPrio}
