// Package rp holds reaction points: the sender-side half of each
// congestion-control algorithm, one state machine per flow, that turns
// feedback (ACKs with ECN echo or INT, CNPs, explicit rates) and its own timers
// into a sending rate and, where the algorithm has one, a window.
//
// Every type here (RoCC, HPCC, DCQCN, DCTCP, HierCC and ExpressPass) keeps the contract of package cc: it
// implements cc.ReactionPoint (checked at compile time), refuses time going
// backwards with a *cc.TimeOrderError, returns only cc's error types, and
// appends every register it carries to a caller's slice (AppendRegisters).
// Its typed methods (OnEnqueue, OnAck, OnCNP, ... with the algorithm's own
// arguments) stay for firmware modellers who want them; the typed and the
// contract methods share one code path. Package algos registers each with
// its presets and a description of every parameter, so that cc.New builds
// it from strings.
//
// Every type has the same shape: a Config with units, widths
// and sources on every field; presets returning one; New(cfg) validating
// it (errors are *cc.ConfigError naming the field); event methods taking now
// first; explicit deadlines (NextDeadline, and Timer or OnTimer); State()
// returning every register as a struct. Nothing here allocates, reads a
// clock or starts a goroutine on an event.
//
// # Algorithms
//
//	HierCC       the host of one HierCC flow: a mark every 10 µs, the
//	             first and last packet flagged, the ToR's rate packets
//	             applied ([HierCC] §4). hiercc.go
//	ExpressPass  the credit-gated sender: requests credits, spends one per
//	             frame and echoes it, stops them after the last byte
//	             ([ExpressPass] §3; [ExpressPass-ns2]). expresspass.go
package rp
