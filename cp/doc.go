// Package cp holds congestion points: the switch-side half of each
// congestion-control algorithm, one state machine per egress queue.
//
// A congestion point sees the queue (its length on enqueue and dequeue, a
// periodic timer) and decides what the network tells the senders: an ECN
// mark (DCQCN, DCTCP), a fair rate sent back in a CNP (RoCC, paper
// [RoCC] Algorithm 1), or INT telemetry stamped on the
// packet (HPCC, [HPCC] §3.2).
//
// Every type here (RoCC, HPCC, DCQCN and DCTCP (and RoCCHost, the host-side computation of section III-F, which plays cc.ReactionPoint), and HierCC, a switch point) keeps the contract of package cc: it
// implements cc.CongestionPoint or cc.SwitchPoint (checked at compile time), refuses time going
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
//	HierCC   one top-of-rack switch of HierCC, a cc.SwitchPoint: VOQs per
//	         destination host credited by the receiver-side ToRs' weighted
//	         round robin, equation (1)'s first-hop rate sent to the hosts
//	         ([HierCC] §3.1–§3.3, §4). hiercc.go, hiercc_sender.go,
//	         hiercc_receiver.go, hiercc_firsthop.go
package cp
