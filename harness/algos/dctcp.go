package algos

import (
	// The cc registrations the schemes below run.
	_ "github.com/hwcc/hwcc/algos"
	"github.com/hwcc/hwcc/harness"
)

// dctcpName is the registry name.
const dctcpName = "dctcp"

func init() {
	harness.MustRegisterScheme(harness.Scheme{
		Algo: dctcpName,
		Doc: "every switch egress data queue runs the dctcp cp (the step marker at K; preset hpcc: K = 30 KB × port rate/10 Gb/s), " +
			"every flow's sender the dctcp rp (preset linux by default; hpcc for the HPCC paper's runs, cwnd at one BDP of the flow); " +
			"the NIC echoes CE in its ACKs and paces at min(offered, line rate)",
	})
}
