// Package cp holds congestion points: the switch-side half of each
// congestion-control algorithm, one state machine per egress queue.
//
// A congestion point sees the queue (its length on enqueue and dequeue, a
// periodic timer) and decides what the network tells the senders: an ECN
// mark (DCQCN, DCTCP), a fair rate sent back in a CNP (RoCC, paper
// [RoCC] Algorithm 1), or INT telemetry stamped on the
// packet (HPCC, [HPCC] §3.2). A switch point (cc.SwitchPoint) holds state
// across a switch's ports.
//
// # Algorithms
//
//	DCQCN    RED marking of one egress queue from a 32-bit LFSR
//	         ([Survey] §4.1.2, CP algorithm; [DCQCN]; [RED])     dcqcn.go
//	Mercury  a switch's egress ports: the Determined/Undetermined
//	         state machine driven by PFC, the flow table, the window
//	         C·baseRTT·data_f/Σdata sent in a CNP ([Mercury]
//	         §"Mercury design", Algorithms 1 and 2, reconstructed in
//	         docs/derivations.md); a switch point                mercury.go
//
// # Algorithms
//
//	RoCC    [RoCC] §III-B (Algorithm 1, the fair rate of one egress queue,
//	        whose arithmetic is package pi's), §III-C (its CNP,
//	        wire.RoCCFeedback), §III-D (the flow table), §III-F (the
//	        report for a host that computes the rate, rp.RoCCHost):
//	        RoCC, RoCCConfig and its presets RoCC40G, RoCC100G,
//	        RoCCDPDK10G, RoCCTofino40G (§VI), RoCCFlowTableKind,
//	        RoCCMessage, RoCCState.                 rocc.go, rocc_flows.go
//
// Every type here (RoCC, HPCC, DCQCN and DCTCP) keeps the contract of package cc: it
// implements cc.CongestionPoint (checked at compile time), refuses time going
// backwards with a *cc.TimeOrderError, returns only cc's error types, and
// appends every register it carries to a caller's slice (AppendRegisters).
// Its events are the contract's methods (RoCC's); typed read-only accessors
// report its registers in the units of its snapshot. Package algos
// registers each with its presets and a description of every parameter, so
// that cc.New builds it from strings.
//
// Every type has the same shape: a Config with units, widths
// and sources on every field; presets returning one; New(cfg) validating
// it (errors are *cc.ConfigError naming the field); event methods taking now
// first; explicit deadlines (NextDeadline, and Timer or OnTimer); State()
// returning every register as a struct. Nothing here allocates, reads a
// clock or starts a goroutine on an event.
package cp
