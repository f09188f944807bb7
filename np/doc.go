// Package np holds notification points: the receiver-side state machines
// that turn what arrives (congestion marks, a flow's data) into messages
// for the sender: notifications, or credits.
//
// # Algorithms
//
// One file per algorithm (the messages it sends are package wire's):
//
//	DCQCN        per-flow CNP generation: the paper's N-µs slots or
//	             ConnectX's min_time_between_cnps ([Survey] §4.1.2, NP
//	             algorithm; [DCQCN]; [ConnectX])                dcqcn.go
//	FECN         the receiver's echo of a FECN mark (see FECN below)
//	                                                             fecn.go
//	ExpressPass  the credit pacer of one receiving flow: credits at
//	             cur_rate with jitter, Algorithm 1 (credit feedback
//	             control) on the loss the echoes show ([ExpressPass] §3,
//	             Algorithm 1; [ExpressPass-ns2])          expresspass.go
//	RCCC         Ultra Ethernet's receiver credit-based congestion
//	             control: one pull pacer per receiving host, credit in
//	             256-byte quanta paced at 0.99 of the line rate, round
//	             robin over the senders owed credit, slow pulls to idle
//	             ones, and the rate adaptation for oversubscribed fabrics
//	             as an option ([UEC]; [uet-htsim])              rccc.go
//
// # The contract
//
// Every type here keeps the contract of package cc: it implements
// cc.NotificationPoint (checked at compile time), refuses time going
// backwards with a *cc.TimeOrderError, returns only cc's error types,
// refuses a nil *cc.Actions on an event that can decide, runs a deadline
// it was let pass at the next event (each expiry as at its own deadline),
// counts messages of kinds it does not use in register unused_feedback,
// and appends every register it carries, each under its own name, to a
// caller's slice (AppendRegisters). Its events are the contract's methods
// and nothing else; typed read-only accessors report its registers in the
// units of its snapshot. Package algos registers each with its presets and
// a description of every parameter, so that cc.New builds it from
// strings.
//
// Every type has the same shape: a Config with units, widths and sources
// on every field; presets returning one; New(cfg) validating it (errors
// are *cc.ConfigError naming the field); the contract's events taking now
// first; explicit deadlines (NextDeadline, and Timer); State() returning
// every register as a struct. Nothing here allocates, reads a clock or
// starts a goroutine on an event.
//
// # FECN
//
// FECN's receiver (FECN), as [Survey] §4.1.2 states it: "Upon receiving a
// marked packet, it feedbacks a resource management (RM) cell to the
// correspond source-end" ([FECN]; InfiniBand's CNP, [IBA] annex A10). The
// switch (cp.BECN in mode cp.BECNModeFECN) marks; this part answers a
// marked packet with a one-bit notification (wire.FeedbackBECN) to the
// source (rp.BECN), at most one per FECNConfig.MinInterval (marks in
// between are dropped, not deferred). FECNInfiniBand answers every mark,
// as InfiniBand's receiver does.
package np
