// Package np holds notification points: the receiver-side state machines
// that turn congestion marks on arriving packets into notifications for the
// sender, such as DCQCN's per-flow CNP generation (survey section 4.1.2).
//
// Every type here follows the shape in DESIGN.md: a Config with units and
// sources on every field; New(cfg) validating it; event methods taking now
// first; State() returning every register. Nothing here allocates, reads a
// clock or starts a goroutine.
package np
