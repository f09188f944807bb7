package algos

import (
	"strconv"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/rp"
	"github.com/hwcc/hwcc/units"
)

// timelyLink is the presets' default link: the paper's 10 Gb/s NICs.
const timelyLink = 10 * units.Gbps

const timelyPaper = "[TIMELY] Algorithm 1, §6"

type timelyCfg = rp.TIMELYConfig

// timelyMinAlpha and timelyMinBeta are the least α and β that
// rp.TIMELYConfig.Validate accepts (rp.TIMELYMinAlpha, rp.TIMELYMinBeta),
// in full decimal: a rounded bound ("0.0000153") would make the
// description refuse the edge value that Validate takes.
var (
	timelyMinAlpha = strconv.FormatFloat(rp.TIMELYMinAlpha, 'f', -1, 64)
	timelyMinBeta  = strconv.FormatFloat(rp.TIMELYMinBeta, 'f', -1, 64)
	timelyHAIMin   = strconv.Itoa(rp.TIMELYMinHAI)
	timelyHAIMax   = strconv.Itoa(rp.TIMELYMaxHAI)
)

func init() {
	f := func(name, unit, lo, hi, doc, src string, ptr func(c *timelyCfg) any) cc.Field[timelyCfg] {
		return xpField(name, unit, lo, hi, doc, src, ptr)
	}
	cc.MustRegisterAlgorithm(cc.Algorithm{
		Name: "timely", Title: "TIMELY",
		Deploy: cc.Deployment{
			Doc: "every sender runs the timely rp (rp.TIMELY): one RTT sample per 16 KB segment from the ACK that completes it, " +
				"Algorithm 1 on each; no switch state, no notification point",
		},
		Paper: timelyPaper + "; [Survey] §4.2",
		Doc:   "a sender-only rate control on the RTT of completed segments: additive increase below Tlow or on a falling RTT, a decrease by the normalised RTT gradient, a cut above Thigh",
		Parts: []cc.PartSpec{{
			Name: "rp", Role: cc.RoleRP,
			Doc: "the rate of one flow from the RTT of its 16 KB segments, measured from its ACKs (rp.TIMELY)",
			Config: &cc.Spec[timelyCfg]{
				Link: timelyLink,
				Presets: []cc.Preset[timelyCfg]{
					{Name: "paper", Doc: "Tlow 50 µs, Thigh 500 µs, minRTT 20 µs, α 0.875, β 0.8, δ 10 Mb/s, HAI ×5 after 5 increases, 16 KB segments (rp.TIMELYPaper)",
						Source: timelyPaper, Config: cc.OfLink(rp.TIMELYPaper)},
					{Name: "scaled", Doc: "the paper's timing with δ and the minimum rate scaled to 10 Mb/s per 10 Gb/s of link (rp.TIMELYScaled)",
						Source: timelyPaper + "; the authors' later code (\"10 Mbps for 10 Gbps\")", Config: cc.OfLink(rp.TIMELYScaled)},
				},
				Fields: []cc.Field[timelyCfg]{
					f("line_rate", "", rp.TIMELYMinLineRate.String(), rp.TIMELYMaxRate.String(), "the NIC's rate: the ceiling", "the link", func(c *timelyCfg) any { return &c.LineRate }),
					f("min_rate", "", rp.TIMELYRateUnit.String(), rp.TIMELYMaxRate.String(), "the floor of the rate", "hwcc (the paper states none)", func(c *timelyCfg) any { return &c.MinRate }),
					f("initial_rate", "", rp.TIMELYRateUnit.String(), rp.TIMELYMaxRate.String(), "the rate before the first sample", "hwcc: the link", func(c *timelyCfg) any { return &c.InitialRate }),
					f("t_low", "", "0s", rp.TIMELYMaxRTT.String(), "below it the rate increases additively", timelyPaper+" (50 µs)", func(c *timelyCfg) any { return &c.Tlow }),
					f("t_high", "", rp.TIMELYMinThigh.String(), rp.TIMELYMaxRTT.String(), "above it the rate is cut by β(1 − Thigh/rtt)", timelyPaper+" (500 µs)", func(c *timelyCfg) any { return &c.Thigh }),
					f("min_rtt", "", rp.TIMELYMinMinRTT.String(), rp.TIMELYMaxMinRTT.String(), "normalises the gradient: rtt_diff/minRTT", "[HPCC-ns3] (20 µs; docs/derivations.md, TIMELY)", func(c *timelyCfg) any { return &c.MinRTT }),
					f("alpha", "fraction, held in Q0.16", timelyMinAlpha, "1", "the EWMA weight of the new RTT difference", "[HPCC-ns3] (0.875; docs/derivations.md, TIMELY)", func(c *timelyCfg) any { return &c.Alpha }),
					f("beta", "fraction, held in Q0.16", timelyMinBeta, "1", "the multiplicative decrease factor", timelyPaper+" (0.8)", func(c *timelyCfg) any { return &c.Beta }),
					f("delta", "", rp.TIMELYRateUnit.String(), rp.TIMELYMaxRate.String(), "the additive increase step", timelyPaper+" (10 Mb/s)", func(c *timelyCfg) any { return &c.Delta }),
					f("hai_threshold", "increases", timelyHAIMin, timelyHAIMax, "increases in a row after which the step is hai_factor·δ", timelyPaper+" (5)", func(c *timelyCfg) any { return &c.HAIThreshold }),
					f("hai_factor", "", timelyHAIMin, timelyHAIMax, "N, the hyper-active step's multiple of δ", timelyPaper+" (5)", func(c *timelyCfg) any { return &c.HAIFactor }),
					f("segment_bytes", "", rp.TIMELYMinSegment.String(), rp.TIMELYMaxSegment.String(), "one RTT sample per segment of this many payload bytes", timelyPaper+" (16 KB; 16–64 KB in §3.1)", func(c *timelyCfg) any { return &c.SegmentBytes }),
					{
						Param: cc.Param{
							Name: "sample",
							Choices: []cc.Choice{
								{Name: "last", Value: int64(rp.TIMELYSampleLast), Doc: "time a segment from its last packet (equal to the paper's for a line-rate burst, and not inflated by pacing gaps)"},
								{Name: "first", Value: int64(rp.TIMELYSampleFirst), Doc: "time it from its first packet, as the paper's completion event"},
							},
							Doc: "which packet of a segment its RTT is timed from", Source: "hwcc (rp.TIMELYSample)",
						},
						Ptr: func(c *timelyCfg) any { return &c.Sample },
					},
					f("subtract_serialization", "", "", "", "subtract the segment's serialisation at line rate from the sample", timelyPaper+" (§3.1)", func(c *timelyCfg) any { return &c.SubtractSerialization }),
				},
				New: dcqcnNew(rp.NewTIMELY),
			},
		}},
	})
}
