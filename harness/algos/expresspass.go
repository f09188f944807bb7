package algos

import (
	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/credit"
	"github.com/hwcc/hwcc/harness"
)

// expressPassName is the registry name.
const expressPassName = "expresspass"

// expressPassCredit is ExpressPass's credit class ([ExpressPass]
// §3.1; [ExpressPass-ns2]): a
// minimum Ethernet frame (64 B, 84 B on the wire), shaped at every port to
// one per 84 + 1538 bytes of port time (5.2 % of the link: the credit for
// one full data frame on the reverse path) in a queue of 8 credits, beyond
// which they are dropped (the ns-2 scripts' credit queue of 8).
var expressPassCredit = harness.ControlKind{
	Kind: cc.FeedbackCredit, Name: "credit", Frame: credit.ExpressPassCreditBytes - harness.PreambleIFGBytes, Prio: harness.ControlPrio,
	Spacing: credit.ExpressPassCreditBytes + credit.ExpressPassFrameBytes, Queue: expressPassCreditQueue,
}

// expressPassCreditQueue is the shaper's queue in credits.
const expressPassCreditQueue = 8

func init() {
	harness.MustRegisterScheme(harness.Scheme{
		Algo:      expressPassName,
		Symmetric: true,
		Doc: "every flow's receiver runs the expresspass np (credits paced at its rate, Algorithm 1 once per base RTT on the loss " +
			"its echoes show) and its sender the expresspass rp (one frame per credit, echoing the credit's number; the credit request " +
			"at the start, the stop after the last byte); credits are 84 B frames shaped at every port to 84/(84+1538) of the link in a " +
			"queue of 8, and retrace the data path (symmetric routing); no switch state. One credit pays for one frame of up to 1538 B " +
			"on the wire: at the harness's default 1000 B payload (1082 B frames) a flow reaches at most 1082/1622 of the link, so the " +
			"ExpressPass scenarios use 1456 B payloads (1538 B frames)",
		Kinds: []harness.ControlKind{
			expressPassCredit,
			{Kind: cc.FeedbackCreditRequest, Name: "credit-request", Frame: harness.MinFrameBytes, Prio: harness.ControlPrio},
			{Kind: cc.FeedbackCreditStop, Name: "credit-stop", Frame: harness.MinFrameBytes, Prio: harness.ControlPrio},
		},
	})
}
