// Package rp holds reaction points: the sender-side half of each
// congestion-control algorithm, one state machine per flow, that turns
// feedback (ACKs with ECN echo or INT, CNPs, explicit rates) and its own timers
// into a sending rate and, where the algorithm has one, a window.
//
// # Algorithms
//
//	RoCC    [RoCC] §III-E (Algorithm 2, the rate limiter of one flow, fed
//	        the CPs' CNPs, wire.RoCCFeedback): RoCC, RoCCConfig and its
//	        presets RoCC40G, RoCC100G, RoCCDPDK10G, RoCCTofino40G (§VI),
//	        RoCCState; §III-F (Algorithm 1 on the sender's host from the
//	        switch's reports, package pi's arithmetic): RoCCHost.
//	                                              rocc.go, rocc_host.go
//
//	DCQCN    the per-flow rate limiter of NVIDIA ConnectX NICs: RC cut
//	         by RC·α/2 per CNP, α per dce_tcp_rtt, recovery by timer
//	         and byte counter ([Survey] §4.1.2, RP algorithm,
//	         equations (5)–(8); [DCQCN]; [ConnectX])             dcqcn.go
//	Mercury  DCQCN's reaction point plus the window a switch's CNP
//	         carries ([Mercury] §"Window-based congestion
//	         notification", Algorithm 2 lines 15–20)             mercury.go
//
// Every type here (RoCC, RoCCHost, HPCC, DCQCN and DCTCP) keeps the contract of package cc: it
// implements cc.ReactionPoint (checked at compile time), refuses time going
// backwards with a *cc.TimeOrderError, returns only cc's error types, and
// appends every register it carries to a caller's slice (AppendRegisters).
// Its events are the contract's methods (RoCC's and RoCCHost's); typed
// read-only accessors report its registers in the units of its snapshot.
// Package algos registers each with its presets and a description of every
// parameter, so that cc.New builds it from strings.
//
// Every type has the same shape: a Config with units, widths
// and sources on every field; presets returning one; New(cfg) validating
// it (errors are *cc.ConfigError naming the field); event methods taking now
// first; explicit deadlines (NextDeadline, and Timer or OnTimer); State()
// returning every register as a struct. Nothing here allocates, reads a
// clock or starts a goroutine on an event.
package rp
