package algos

import (
	"github.com/hwcc/hwcc/harness"
	"github.com/hwcc/hwcc/hiercc"
)

// hierccName is the registry name.
const hierccName = "hiercc"

// hierccKinds: the credit packet (receiver-side ToR → sender-side ToR) and
// the rate packet (sender-side ToR → host) each carry 16 bytes, as a
// RoCEv2 CNP does: 78-byte frames at the control priority. The paper
// gives no format (hiercc.CreditPacket, hiercc.RatePacket are hwcc's).
var hierccKinds = []harness.ControlKind{
	{Kind: hiercc.FeedbackCredit, Name: "credit", Frame: harness.CNPFrameBytes, Prio: harness.ControlPrio},
	{Kind: hiercc.FeedbackRate, Name: "rate", Frame: harness.CNPFrameBytes, Prio: harness.ControlPrio},
}

func init() {
	harness.MustRegisterScheme(harness.Scheme{
		Algo:   hierccName,
		NoAcks: true,
		Settings: map[string]string{
			"scheduler":  harness.SchedulerVOQCredit,
			"voq_gate":   harness.VOQGateLocal,
			"ecmp":       harness.ECMPDestination,
			"voq_credit": "0B",
		},
		Kinds: hierccKinds,
		Doc: "every switch runs the hiercc sw part (hiercc.ToR; a switch with no server port does nothing): at a ToR, the packets " +
			"its servers send wait in the harness's VOQs at the port they leave by (switch.scheduler voq-credit, gating at the ToRs " +
			"the frames of their own servers, switch.voq_gate local; each VOQ starts with no credit and the ToR grants C0 = 10 KB " +
			"when it opens), one port per destination (switch.ecmp destination: a VOQ is one queue), served round robin while " +
			"their credit is positive; the ToR stamps F_ij and S_ij on each, answers marked packets with rate packets (equation (1)), " +
			"and, at its server ports, sends credits of 1 KB by WRR to the VOQs sending there (its own rack's included), which the " +
			"sender-side ToR adds to the VOQ; every flow's " +
			"sender runs the hiercc rp (hiercc.Host: a mark every 10 µs, the first and last packet flagged, the rate packets " +
			"applied, gated while stopped); credit and rate packets are 78-byte control frames; no ACK reaches the rp",
	})
}
