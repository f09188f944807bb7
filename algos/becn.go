package algos

import (
	"strconv"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cp"
	"github.com/hwcc/hwcc/np"
	"github.com/hwcc/hwcc/rp"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// becnLink is the presets' default link where the part is told none.
const becnLink = 25 * units.Gbps

const becnSurvey = "[Survey] §4.1 (BECN, FECN)"

type (
	becnCP = cp.BECNConfig
	becnNP = np.FECNConfig
	becnRP = rp.BECNConfig
)

// becnCPSpec is the cp part of mode m.
func becnCPSpec(m cp.BECNMode, doc string) cc.PartSpec {
	fields := []cc.Field[becnCP]{
		xpField("threshold", "", "0B", cp.BECNMaxThreshold.String(), "a packet is congested when the queue it sees is above it",
			"hwcc (the survey: \"a fixed threshold\"): DCQCN's Kmin, 100 KB per 25 Gb/s", func(c *becnCP) any { return &c.Threshold }),
		{
			Param: cc.Param{
				Name: "at",
				Choices: []cc.Choice{
					{Name: "enqueue", Value: int64(cp.BECNAtEnqueue), Doc: "judge packets as they join the queue"},
					{Name: "dequeue", Value: int64(cp.BECNAtDequeue), Doc: "judge packets as they leave it"},
				},
				Doc: "where packets are judged", Source: "hwcc",
			},
			Ptr: func(c *becnCP) any { return &c.At },
		},
	}
	if m == cp.BECNModeBECN {
		fields = append(fields,
			xpField("min_interval", "", "0s", cp.BECNMaxInterval.String(), "least time between two notifications to one flow (0: every congested packet)",
				"hwcc: DCQCN's N, 50 µs (survey 4.1.2)", func(c *becnCP) any { return &c.MinInterval }),
			xpField("table_bits", "bits", "0", strconv.Itoa(cp.BECNMaxTableBits), "the per-flow pacing table has 2^table_bits slots",
				"hwcc", func(c *becnCP) any { return &c.TableBits }))
	}
	return cc.PartSpec{
		Name: "cp", Role: cc.RoleCP, Doc: doc,
		Config: &cc.Spec[becnCP]{
			Link: becnLink,
			Presets: []cc.Preset[becnCP]{{
				Name: "survey", Doc: "threshold 100 KB per 25 Gb/s, judged at enqueue, 50 µs between notifications to a flow",
				Source: becnSurvey, Config: cc.OfLink(func(l units.Rate) becnCP { return cp.BECNSurvey(m, l) }),
			}},
			Fields: fields,
			New:    dcqcnNew(cp.NewBECN),
		},
	}
}

// becnRPSpec is the source's part, shared by both.
func becnRPSpec() cc.PartSpec {
	return cc.PartSpec{
		Name: "rp", Role: cc.RoleRP,
		Doc: "the source: halves its rate per notification (not below min_rate), pauses after pause_after notifications in a row, " +
			"doubles back toward its line rate per quiet period (rp.BECN)",
		Config: &cc.Spec[becnRP]{
			Link: becnLink,
			Presets: []cc.Preset[becnRP]{{
				Name: "survey", Doc: "halve per notification, pause after 5 in a row, a 55 µs quiet period doubles the rate back, 1 Mb/s floor",
				Source: becnSurvey, Config: cc.OfLink(rp.BECNSurvey),
			}},
			Fields: []cc.Field[becnRP]{
				xpField("line_rate", "", rp.BECNRateUnit.String(), rp.BECNMaxRate.String(), "the flow's original rate: the start and the ceiling of recovery",
					"the link", func(c *becnRP) any { return &c.LineRate }),
				xpField("min_rate", "", rp.BECNRateUnit.String(), rp.BECNMaxRate.String(), "the floor of the halving",
					"hwcc: rpg_min_rate, 1 Mb/s", func(c *becnRP) any { return &c.MinRate }),
				xpField("pause_after", "notifications", "0", strconv.Itoa(rp.BECNMaxPauseAfter), "notifications in a row that pause the source (0: never)",
					becnSurvey+" (\"five successive BECN cells\")", func(c *becnRP) any { return &c.PauseAfter }),
				xpField("quiet_period", "", rp.BECNMinQuietPeriod.String(), rp.BECNMaxPeriod.String(), "a notification less than this after the last continues the row; each quiet period without one doubles the rate back",
					"hwcc: DCQCN's K, 55 µs (survey 4.1.2)", func(c *becnRP) any { return &c.QuietPeriod }),
				xpField("pause_time", "", "0s", rp.BECNMaxPeriod.String(), "how long a pause lasts (0: until the quiet period)",
					"hwcc", func(c *becnRP) any { return &c.PauseTime }),
			},
			New: dcqcnNew(rp.NewBECN),
		},
	}
}

func init() {
	cc.MustRegisterAlgorithm(cc.Algorithm{
		Name: "becn", Title: "BECN",
		Deploy: cc.Deployment{
			NP: "-", NoAcks: true,
			Messages: []cc.MessageKind{becnNotification},
			Doc: "every switch egress data queue runs the becn cp (a notification to the source of each packet joining above the " +
				"threshold, at most one per flow per 50 µs); every sender the becn rp (halve per notification, pause after five in a row, " +
				"double back per 55 µs quiet period); notifications are minimum frames at the control priority; no ACK reaches the rp",
		},
		Paper: "Backward explicit congestion notification as [Survey] states it (" + becnSurvey + "); [BECN]",
		Doc:   "the switch notifies the sources of packets that find its queue above a threshold; a source halves its rate per notification and pauses after five in a row",
		Parts: []cc.PartSpec{
			becnCPSpec(cp.BECNModeBECN, "one egress queue: a notification to the source of each packet that joins above the threshold, at most one per flow per min_interval (cp.BECN, mode becn)"),
			becnRPSpec(),
		},
	})
	cc.MustRegisterAlgorithm(cc.Algorithm{
		Name: "fecn", Title: "FECN",
		Deploy: cc.Deployment{
			NoAcks:   true,
			Messages: []cc.MessageKind{becnNotification},
			Doc: "every switch egress data queue runs the fecn cp (CE on each packet joining above the threshold), every receiver the " +
				"fecn np (a notification to the source per marked packet, at most one per 50 µs), every sender the becn rp; " +
				"notifications are minimum frames at the control priority; no ACK reaches the rp",
		},
		Paper: "Forward explicit congestion notification as [Survey] states it (" + becnSurvey + "); [FECN] (ATM EFCI), InfiniBand CC ([IBA] annex A10)",
		Doc:   "the switch marks packets that find its queue above a threshold; the receiver echoes each mark to the source, which reacts as BECN's",
		Parts: []cc.PartSpec{
			becnCPSpec(cp.BECNModeFECN, "one egress queue: marks (CE, the EFCI/FECN bit) each packet that joins above the threshold (cp.BECN, mode fecn)"),
			{
				Name: "np", Role: cc.RoleNP,
				Doc: "the receiver: a notification to the source per marked packet, at most one per min_interval (np.FECN)",
				Config: &cc.Spec[becnNP]{
					Presets: []cc.Preset[becnNP]{
						{Name: "survey", Doc: "at most one notification per flow per 50 µs", Source: "hwcc: DCQCN's N ([Survey] §4.1.2)", Config: cc.Fixed(np.FECNSurvey)},
						{Name: "infiniband", Doc: "a notification per marked packet", Source: "[IBA] annex A10; the Linux hfi1 driver", Config: cc.Fixed(np.FECNInfiniBand)},
					},
					Fields: []cc.Field[becnNP]{
						xpField("min_interval", "", "0s", np.FECNMaxInterval.String(), "least time between two notifications of the flow (0: one per marked packet)",
							"hwcc", func(c *becnNP) any { return &c.MinInterval }),
					},
					New: dcqcnNew(np.NewFECN),
				},
			},
			becnRPSpec(),
		},
	})
}

// becnNotification is the notification on the wire (a BECN cell, FECN's
// RM cell, InfiniBand's CNP): a minimum frame at the control priority; it
// carries one bit.
var becnNotification = cc.MessageKind{Kind: wire.FeedbackBECN, Name: "notification", Frame: wire.MinFrameBytes, Prio: cc.ControlPrio}
