// Package np holds notification points: the receiver-side state machines
// that turn congestion marks on arriving packets into notifications for the
// sender, such as DCQCN's per-flow CNP generation (survey section 4.1.2).
//
// Every type here (DCQCN and ExpressPass) keeps the contract of package cc: it
// implements cc.NotificationPoint (checked at compile time), refuses time going
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
//	ExpressPass  the credit pacer of one receiving flow: credits at
//	             cur_rate with jitter, Algorithm 1 (credit feedback
//	             control) on the loss the echoes show ([ExpressPass] §3,
//	             Algorithm 1; [ExpressPass-ns2]). expresspass.go
package np
