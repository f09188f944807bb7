package algos

import (
	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cp"
)

// tcdPaper is the source of DCQCN+TCD's state machine.
const tcdPaper = "[TCD], as [Mercury] §\"Introduction\" and §\"Related work\" describe it (reconstructed: docs/derivations.md)"

// tcdCPEnv seeds each queue's marker from where it runs, as the dcqcn cp's.
func tcdCPEnv(c *cp.TCDConfig, env cc.Env) { dcqcnCPEnv(&c.Marker, env) }

func init() {
	type tcd = cp.TCDConfig
	fields := []cc.Field[tcd]{
		xpField("threshold", "", "0B", cp.DCQCNMaxThreshold.String(), "the congestion threshold K: a queue above it is congested or undetermined, one at or below it non-congested",
			"hwcc (the sources give no value): the marker's Kmin, where DCQCN's marking begins", func(c *tcd) any { return &c.Threshold }),
		xpField("max_ton", "", "0s", cp.TCDMaxTime.String(), "max(Ton): a port sending for less than it since a PFC pause, its queue above K, is undetermined; for at least it, congested",
			tcdPaper+" (a pre-configured max(Ton)); hwcc's value: docs/derivations.md", func(c *tcd) any { return &c.MaxTOn }),
	}
	fields = append(fields, liftFields(dcqcnCPFields(), func(c *tcd) *cp.DCQCNConfig { return &c.Marker })...)
	cc.MustRegisterAlgorithm(cc.Algorithm{
		Name: "tcd",
		Deploy: cc.Deployment{
			NoAcks: true,
			Doc: "every switch egress data queue runs the tcd cp (ternary congestion detection from the queue and its PFC pause: " +
				"non-congested at or below K, undetermined while paused and for max(Ton) = 20 µs after, congested above K otherwise; " +
				"in the congested state DCQCN's RED marker, Kmin/Kmax = 100/400 KB × port rate/25 Gb/s, Pmax = 0.2, judged at dequeue, " +
				"K = Kmin), every flow's receiver the dcqcn np and its sender the dcqcn rp (preset connectx by default, paper or hpcc): " +
				"DCQCN+TCD",
		},
		Title: "DCQCN+TCD",
		Paper: tcdPaper + "; DCQCN as the dcqcn registration",
		Doc: "DCQCN whose switches mark only ports in TCD's congested state: a queue built while PFC pauses its port, or within " +
			"max(Ton) of the pause, is undetermined and not marked, so that the flows PFC backs up are not slowed as culprits",
		Parts: []cc.PartSpec{
			{
				Name: "cp",
				Role: cc.RoleCP,
				Doc:  "one egress queue: the congested/undetermined/non-congested state from the queue and its PFC pause, DCQCN's RED marker in the congested state (cp.TCD)",
				Config: &cc.Spec[tcd]{
					Link: dcqcnLink,
					Presets: []cc.Preset[tcd]{{
						Name: "dcqcn",
						Doc: "DCQCN's marker (Kmin/Kmax = 100/400 KB per 25 Gb/s, Pmax = 0.2, at dequeue), K = Kmin, max(Ton) = 20 µs " +
							"(cp.TCDDCQCN)",
						Source: tcdPaper + "; " + dcqcnHPCC + " (the marker)",
						Config: cc.OfLink(cp.TCDDCQCN),
					}},
					Fields: fields,
					Env:    tcdCPEnv,
					New:    dcqcnNew(cp.NewTCD),
				},
			},
			{
				Name:   "np",
				Role:   cc.RoleNP,
				Doc:    "the CNP generator of one receiving flow: DCQCN's notification point unchanged (np.DCQCN)",
				Config: dcqcnNPSpec(),
			},
			{
				Name:   "rp",
				Role:   cc.RoleRP,
				Doc:    "the rate limiter of one sending flow: DCQCN's reaction point unchanged (rp.DCQCN)",
				Config: dcqcnRPSpec(dcqcnLink),
			},
		},
	})
}
