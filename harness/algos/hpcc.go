package algos

import (
	// The cc registrations the schemes below run.
	_ "github.com/hwcc/hwcc/algos"
	"github.com/hwcc/hwcc/harness"
)

// hpccName is the registry name.
const hpccName = "hpcc"

func init() {
	harness.MustRegisterScheme(harness.Scheme{
		Algo: hpccName,
		INT:  true,
		// One T for every flow: the network's largest base RTT with INT.
		NetworkRTT: true,
		// The harness keeps every port's count of bytes sent on every
		// priority (cc.Queue.TxBytes), which is what the authors' ns-3
		// stamps; the registry's default, a count of the queue's own
		// packets, is for callers that keep none.
		Defaults: map[string]string{"cp.port_tx_bytes": "on"},
		Doc: "every switch egress data queue runs the hpcc cp (cp.HPCC), which stamps its INT record (the switch's ID, the port's rate, " +
			"bytes sent on every priority, the queue) on each data frame it dequeues; receivers echo the header in their ACKs; " +
			"every flow's sender runs the hpcc rp (rp.HPCC) with T = the network's largest base RTT with the INT bytes of its longest path (one T for all flows), W_init = line rate·T " +
			"and W_AI = W_init·(1 − η)/100 unless set, and the NIC sends while inflight < W, paced at W/T",
	})
}
