package wire

import "github.com/hwcc/hwcc/cc"

// FeedbackBECN is the kind of the one-bit congestion notification of
// BECN and FECN: the BECN cell a congested cp.BECN sends to a flow's
// source, and the RM cell (InfiniBand: the CNP, or the ACK with its BECN
// bit set) FECN's receiver, np.FECN, returns for a marked packet. The
// message is its kind alone: Flow names the flow it is about, Data is all
// zero and is not read. It is cc.FeedbackUser + 24, in package cc's range
// for schemes that add a kind of their own.
const FeedbackBECN = cc.FeedbackUser + 24

// BECNNotification returns the notification about flow: a FeedbackBECN
// with that Flow and nothing else.
func BECNNotification(flow cc.FlowID) cc.Feedback {
	return cc.Feedback{Kind: FeedbackBECN, Flow: flow}
}
