package algos

import (
	"strconv"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cp"
	"github.com/hwcc/hwcc/fixedpoint"
	"github.com/hwcc/hwcc/units"
)

// paccLink is the link rate of the pacc cp preset when neither the "link"
// setting nor the environment gives one: the 40 Gb/s of [Mercury]'s
// small-scale network, where hwcc compares it.
const paccLink = 40 * units.Gbps

// Sources of PACC's parameters.
const (
	paccPaper  = "[PACC], as [RoCC] §II (Table I) and [Mercury] §\"Large-scale simulations\" and §\"Related work\" describe it"
	paccChoice = "hwcc (the sources give no number; docs/derivations.md, PACC's constants)"
	// paccNPSpacing: the CNP spacing of the notification point PACC
	// replaces (the dcqcn np's connectx preset), kept because PACC keeps
	// DCQCN's reaction point.
	paccNPSpacing = dcqcnVendor + " (min_time_between_cnps, 4 µs: the receiver PACC replaces; docs/derivations.md, PACC's constants)"
)

// paccCPEnv gives each queue's LFSR its own seed, derived from where it
// runs, as the dcqcn cp's (dcqcnCPEnv).
func paccCPEnv(c *cp.PACCConfig, env cc.Env) { dcqcnEnvSeed(&c.Seed, env) }

func init() {
	type pacc = cp.PACCConfig
	gain := strconv.Itoa(cp.PACCMaxGain)
	minT, maxT := cp.PACCMinPeriod.String(), cp.PACCMaxTime.String()
	cc.MustRegisterAlgorithm(cc.Algorithm{
		Name: "pacc",
		Deploy: cc.Deployment{
			NP: "-", NoAcks: true,
			Doc: "every switch egress data queue runs the pacc cp (a PI controller on the queue, every 80 µs, sets the probability " +
				"with which an arriving packet sends a CNP to its source, none while the queue is at most Qref/2, at most one per flow per 4 µs; " +
				"its LFSR seeded from the switch ID " +
				"and port); every flow's sender runs DCQCN's reaction point (the dcqcn rp, preset connectx by default, paper or hpcc); " +
				"no receiver sends CNPs, no ACK reaches the rp; CNPs are RoCEv2 CNP frames",
		},
		Title: "PACC",
		Paper: paccPaper + "; every constant but the 80 µs period and the 4 µs CNP spacing of the receiver it replaces is hwcc's (docs/derivations.md)",
		Doc: "switch-driven DCQCN: the congestion point sends CNPs to the sources itself instead of marking ECN, at a rate a PI " +
			"controller on the queue sets; the senders run DCQCN's reaction point unchanged",
		Parts: []cc.PartSpec{
			{
				Name: "cp",
				Role: cc.RoleCP,
				Doc:  "one egress queue: the PI controller of the CNP probability, the LFSR draw on each arriving packet, the per-flow CNP pacing (cp.PACC)",
				Config: &cc.Spec[pacc]{
					Link: paccLink,
					Presets: []cc.Preset[pacc]{{
						Name: "paper",
						Doc: "T = 80 µs; hwcc's Qref = 100 KB per 25 Gb/s, gains adding 1/256 per update per Qref of error (β = 5α), " +
							"PMax = 0.2, no CNP at or below Qref/2, a CNP per flow per 4 µs at most (ConnectX's min_time_between_cnps), 1024 pacing slots (cp.PACCPaper)",
						Source: paccPaper + " (80 µs); " + paccNPSpacing + "; " + paccChoice,
						Config: cc.OfLink(cp.PACCPaper),
					}},
					Fields: []cc.Field[pacc]{
						xpField("qref", "", "1B", cp.PACCMaxQueue.String(), "the reference queue the PI controller holds",
							paccChoice+": DCQCN's Kmin, 100 KB per 25 Gb/s", func(c *pacc) any { return &c.QRef }),
						xpField("period", "", minT, maxT, "T, the PI controller's update period (the probability the CNPs follow, from the queue)",
							"[Mercury] §\"Large-scale simulations\" (PACC's 80 µs \"to update the flow table and send CNPs\")", func(c *pacc) any { return &c.Period }),
						xpField("alpha", cp.PACCGainUnit, "1", gain, "the integral gain: α·(Q − Qref)/1024 per update, Q in bytes",
							paccChoice+": a Qref of error adds 1/256 per update", func(c *pacc) any { return &c.Alpha }),
						xpField("beta", cp.PACCGainUnit, "0", gain, "the proportional gain: β·(Q − Qold)/1024 per update",
							paccChoice+": 5α, RoCC's β̄/ᾱ ([RoCC] §VI)", func(c *pacc) any { return &c.Beta }),
						xpField("pmax", cp.DCQCNPmaxUnit, "1", strconv.Itoa(cp.PACCPmaxOne), "the largest CNP probability",
							paccChoice+": 0.2, DCQCN's Pmax", func(c *pacc) any { return &c.PMax }),
						xpField("min_queue", "", "0B", cp.PACCMaxQueue.String(), "a packet that finds the queue at or below it (itself included) draws no CNP (0: every packet draws)",
							paccChoice+": Qref/2, PIE's rule (RFC 8033 §4.1)", func(c *pacc) any { return &c.MinQueue }),
						xpField("cnp_interval", "", "0s", maxT, "least time between two CNPs to one flow (0: a CNP for every packet drawn)",
							paccNPSpacing, func(c *pacc) any { return &c.CNPInterval }),
						xpField("table_bits", "bits", "0", strconv.Itoa(cp.PACCMaxTableBits), "the CNP pacing table has 2^table_bits slots, by a hash of the flow",
							paccChoice, func(c *pacc) any { return &c.TableBits }),
						xpField("seed", "LFSR state", dcqcnUint32(fixedpoint.LFSR32SeedMin), dcqcnUint32(fixedpoint.LFSR32SeedMax),
							"initial state of the 32-bit LFSR; where the switch ID is known each queue gets its own (setting it gives every queue this one)",
							"hwcc ([XAPP052] taps 32, 22, 2, 1)", func(c *pacc) any { return &c.Seed }),
					},
					Env: paccCPEnv,
					New: dcqcnNew(cp.NewPACC),
				},
			},
			{
				Name:   "rp",
				Role:   cc.RoleRP,
				Doc:    "the rate limiter of one sending flow: DCQCN's reaction point unchanged (rp.DCQCN)",
				Config: dcqcnRPSpec(paccLink),
			},
		},
	})
}
