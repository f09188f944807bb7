package algos

import (
	"github.com/hwcc/hwcc/harness"
	"github.com/hwcc/hwcc/qcn"
)

// Registry names.
const (
	qcnName   = "qcn"
	afqcnName = "afqcn"
)

// qcnKind is the CNM: an 802.1Qau CNM frame is 64 bytes or more (its
// header, the 20-byte CN-TAG and the encapsulated MSDU's first bytes); at
// the control priority.
var qcnKind = harness.ControlKind{Kind: qcn.FeedbackCNM, Name: "cnm", Frame: harness.MinFrameBytes, Prio: harness.ControlPrio}

func init() {
	for _, s := range []struct{ name, doc string }{
		{qcnName, "every switch egress data queue runs the qcn cp (sampling, Fb, a CNM to the sampled frame's source), every sender the qcn rp; CNMs are minimum frames at the control priority; no notification point, no ACK reaches the rp"},
		{afqcnName, "every switch egress data queue runs the afqcn cp (QCN's feedback mixed with a per-class fair-share term), every sender the qcn rp; CNMs as qcn's"},
	} {
		harness.MustRegisterScheme(harness.Scheme{Algo: s.name, NP: "-", NoAcks: true, Kinds: []harness.ControlKind{qcnKind}, Doc: s.doc})
	}
}
