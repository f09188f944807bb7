// Package rp holds reaction points: the sender-side half of each
// congestion-control algorithm, one state machine per flow, that turns
// feedback (ACKs with ECN echo or INT, CNPs, explicit rates) and its own timers
// into a sending rate and, where the algorithm has one, a window.
//
// Every type here follows the shape in DESIGN.md: a Config with units,
// widths and sources on every field; New(cfg) validating it; event methods
// taking now first; explicit deadlines with OnTimer; State() returning every
// register. Nothing here allocates, reads a clock or starts a goroutine.
package rp
