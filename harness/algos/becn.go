package algos

import (
	"github.com/hwcc/hwcc/becn"
	"github.com/hwcc/hwcc/harness"
)

// Registry names.
const (
	becnName = "becn"
	fecnName = "fecn"
)

// becnKind is the notification (a BECN cell, FECN's RM cell, IB's CNP): a
// minimum frame at the control priority; it carries one bit.
var becnKind = harness.ControlKind{Kind: becn.FeedbackBECN, Name: "notification", Frame: harness.MinFrameBytes, Prio: harness.ControlPrio}

func init() {
	harness.MustRegisterScheme(harness.Scheme{
		Algo: becnName, NP: "-", NoAcks: true,
		Kinds: []harness.ControlKind{becnKind},
		Doc: "every switch egress data queue runs the becn cp (a notification to the source of each packet joining above the " +
			"threshold, at most one per flow per 50 µs); every sender the becn rp (halve per notification, pause after five in a row, " +
			"double back per 55 µs quiet period); notifications are minimum frames at the control priority; no ACK reaches the rp",
	})
	harness.MustRegisterScheme(harness.Scheme{
		Algo: fecnName, NoAcks: true,
		Kinds: []harness.ControlKind{becnKind},
		Doc: "every switch egress data queue runs the fecn cp (CE on each packet joining above the threshold), every receiver the " +
			"fecn np (a notification to the source per marked packet, at most one per 50 µs), every sender the becn rp; " +
			"notifications are minimum frames at the control priority; no ACK reaches the rp",
	})
}
