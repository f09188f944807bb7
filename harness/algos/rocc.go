package algos

import (
	// The cc registrations the schemes below run.
	_ "github.com/hwcc/hwcc/algos"
	"github.com/hwcc/hwcc/harness"
	"github.com/hwcc/hwcc/units"
)

// roccName is the registry name.
const roccName = "rocc"

// roccAutoSplit is the largest port rate that gets the 40 Gb/s setting
// under the registry's preset auto (the rocc parts' auto presets), and the
// largest bottleneck the scenarios give the paper's 40 Gb/s PFC threshold.
const roccAutoSplit = 40 * units.Gbps

// roccReactionDelay is the NIC's reaction delay to a CNP the harness
// applies with every preset, 15 µs (section VI, "System parameters"): the
// testbed presets' own 0 is whatever their hosts add, which the harness
// does not model.
const roccReactionDelay = 15 * units.Microsecond

func init() {
	harness.MustRegisterScheme(harness.Scheme{
		Algo: roccName,
		// The registry's first reaction point is hostcp (section III-F);
		// the harness's CPs send rates, for the rate limiter.
		RP:       "rp",
		Defaults: map[string]string{"reaction_delay": roccReactionDelay.String()},
		Doc: "every switch egress data queue runs the rocc cp (Algorithm 1; preset auto: 40g up to 40 Gb/s, 100g above; " +
			"Fmax = the port's rate, the CNPs naming the switch's node ID and the port), every flow's sender the rocc rp " +
			"(Algorithm 2; Rmax = the NIC's line rate, recovery 55 µs·T/40 µs) behind the NIC's 15 µs reaction delay; " +
			"the NIC paces at min(offered, line rate, the rp's rate); no notification point",
	})
}
