// Package mercury holds the state machines of Mercury ([Mercury]: He,
// Liang, Fan, Wang, Han, Xiao, Dou, "Accurate and fast congestion feedback
// in MEC-enabled RDMA datacenters", Journal of Cloud Computing 13:72, 2024;
// §"Mercury design" and §"Discussions"). The paper's algorithm listings
// were lost from the copy hwcc was written from; docs/derivations.md
// reconstructs them from its text, and this package follows that
// reconstruction.
//
// Mercury moves DCQCN's congestion and notification points into the
// switch: each egress port tells a queue built by congestion from one
// built by PFC pauses from downstream, and only the flows through a
// congested port get a CNP, which carries a window in its reserved bytes;
// the sender runs DCQCN unchanged and, besides, keeps its unacknowledged
// bytes below that window.
//
// # What is where
//
//	Switch   one switch's egress ports: the Determined/Undetermined state
//	         machine (Algorithm 1: rxByte, the pause's start, Tpause,
//	         Q_Length, the 10 µs check), the flow table per port keyed by
//	         the hash of (source, destination), the window C·baseRTT·
//	         data_f/Σdata by reciprocal table (Algorithm 2), the CNP; a
//	         cc.SwitchPoint, registered as algorithm "mercury" part "sw"
//	         (package algos).                                   switch.go
//	Sender   DCQCN's reaction point (package rp) plus the window from the
//	         CNPs, reset to C·baseRTT when they stop; a cc.ReactionPoint,
//	         registered as part "rp".                           sender.go
//	Window   where the window travels in the CNP's 16 reserved bytes
//	         (cc.Feedback.Data; on the wire, wire.CNP.Reserved).
//
// # The paper's constants
//
//	T = 10 µs                              "Parameter settings"
//	PFC Xoff/Xon 320/318 KB (small scale), 620/618 KB (large scale)
//	initial window C·baseRTT, baseRTT the network's largest
//	DCQCN at the sender, its parameters unchanged
//
// Every value the paper leaves open (the congestion threshold, CNP pacing,
// when the window resets, the table's size and hash, the window's offset
// and byte order) is a configuration field, documented where it is.
//
// # Conventions
//
// Every event takes now first and refuses, changing nothing, an event out
// of time order (cc.ErrTimeOrder) or out of range (a *cc.EventError);
// configurations are refused with a *cc.ConfigError. Nothing panics;
// nothing allocates per event except errors; the state is integers of
// stated widths.
package mercury
