// Package cp holds congestion points: the switch-side half of each
// congestion-control algorithm, one state machine per egress queue.
//
// A congestion point sees the queue (its length on enqueue and dequeue, a
// periodic timer) and decides what the network tells the senders: an ECN
// mark (DCQCN, DCTCP), a fair rate sent back in a CNP (RoCC, paper
// ../shared/papers/rocc.txt Algorithm 1), or INT telemetry stamped on the
// packet (HPCC, ../shared/papers/hpcc.txt section 3.2).
//
// Every type here follows the shape in DESIGN.md: a Config with units,
// widths and sources on every field; New(cfg) validating it; event methods
// taking now first; explicit deadlines with OnTimer; State() returning every
// register. Nothing here allocates, reads a clock or starts a goroutine.
package cp
