package algos

import (
	// The cc registrations the schemes below run.
	_ "github.com/hwcc/hwcc/algos"
	"github.com/hwcc/hwcc/harness"
)

// dcqcnName is the registry name.
const dcqcnName = "dcqcn"

func init() {
	harness.MustRegisterScheme(harness.Scheme{
		Algo: dcqcnName,
		// The rp reacts to CNPs only: the NIC keeps ACKs from it, as the
		// earlier adapter did (the reports' event counts stay the same
		// where flows stop with timers pending).
		NoAcks: true,
		Doc: "every switch egress data queue runs the dcqcn cp (the RED marker: Kmin/Kmax = 100/400 KB × port rate/25 Gb/s, Pmax = 0.2, " +
			"judged at dequeue, its LFSR seeded from the switch ID and port), every flow's receiver the dcqcn np and its sender the dcqcn rp " +
			"(preset connectx by default, paper or hpcc; the NIC's line rate is the port rate); the NIC paces at min(offered, line rate, RC)",
	})
}
