package algos

import (
	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/rp"
)

// The baselines: no congestion control, every flow as fast as its NIC and
// its application let it. They are what the algorithms are measured
// against, and the line-rate and flow-control scenarios' default. Their
// reaction point uses no message, so the NIC hands it no ACK (NoAcks): a
// message that reaches it all the same is counted in its unused_feedback
// register, the sign of a miswired caller.
func init() {
	type fixed = rp.FixedConfig
	zero := cc.Fixed(func() fixed { return fixed{} })
	cc.MustRegisterAlgorithm(cc.Algorithm{
		Name: "none", Title: "none",
		Paper: "no congestion control: the baseline",
		Doc:   "no congestion control: every flow sends at its NIC's line rate, or the rate its application offers, with no window",
		Parts: []cc.PartSpec{{
			Name: "rp", Role: cc.RoleRP, Doc: "a reaction point that limits nothing (rp.Fixed with no rate)",
			Config: &cc.Spec[fixed]{
				Presets: []cc.Preset[fixed]{{Name: "line", Doc: "no pacing, no window", Source: "hwcc", Config: zero}},
				New:     dcqcnNew(rp.NewFixed),
			},
		}},
		Deploy: cc.Deployment{
			NoAcks: true,
			Doc: "every flow's sender runs the none rp (rp.Fixed: no pacing, no window), which is handed no ACK; the NIC sends at min(offered, line rate); " +
				"no switch state, no notification point",
		},
	})
	cc.MustRegisterAlgorithm(cc.Algorithm{
		Name: "static", Title: "static",
		Paper: "a fixed rate per flow: the baseline of rate-limited senders",
		Doc:   "a fixed pacing rate per flow and no window: rate, or the rate the application offers when rate is 0",
		Parts: []cc.PartSpec{{
			Name: "rp", Role: cc.RoleRP, Doc: "a reaction point that paces at a constant rate (rp.Fixed)",
			Config: &cc.Spec[fixed]{
				Presets: []cc.Preset[fixed]{{Name: "offered", Doc: "no rate of its own: the application's offered rate, else the line rate", Source: "hwcc", Config: zero}},
				Fields: []cc.Field[fixed]{
					xpField("rate", "", "0bps", rp.FixedMaxRate.String(), "the flow's pacing rate (0: none of its own)", "hwcc", func(c *fixed) any { return &c.Rate }),
				},
				New: dcqcnNew(rp.NewFixed),
			},
		}},
		Deploy: cc.Deployment{
			NoAcks: true,
			Doc: "every flow's sender runs the static rp (rp.Fixed at its rate setting), which is handed no ACK; the NIC sends at min(offered, line rate, rate); " +
				"no switch state, no notification point",
		},
	})
}
