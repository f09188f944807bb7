// Package cc is the contract every hwcc state machine keeps: four roles,
// one clock, plain value types for what they take, a caller-owned actions
// value for what they decide, typed errors, register snapshots, and a
// registry of algorithms whose configurations are described declaratively.
//
// The harness, trace replay, the C ABI and other people's simulators drive
// every algorithm through this package alone; none of them writes glue per
// algorithm. The contract's methods are a part's only event surface (the
// per-algorithm types in packages cp, rp and np keep read-only accessors of
// their state, each in the unit of its register). The package names no
// algorithm: what a packet or a message carries for one (a telemetry stack,
// header bytes, payload bytes) is bytes in that algorithm's codec. One event
// vocabulary (Event, EventKind, Event.Apply) describes a call of any method,
// for recorders, replayers and test generators.
//
// # Roles
//
// A congestion point (CongestionPoint) is one switch egress queue: it sees
// each packet join the queue and leave it, may mark or stamp the packet,
// and may send feedback to the flow's source. A reaction point
// (ReactionPoint) is one sending flow: it sees each packet the flow sends
// and the feedback that comes back, and says how fast and how much the
// flow may send (Limits). A notification point (NotificationPoint) is one
// receiving flow: it sees each data packet arrive and may answer the source
// (a CNP). A switch point (SwitchPoint) is state across the ports of one
// switch: it sees every data packet come in, join an egress queue and
// leave it, every PFC pause of an egress port, and the control messages
// other switches address to it; besides what a congestion point decides
// it may message another switch and credit its own VOQs (HierCC's ToRs,
// Mercury's port states). Every role is a Part: it has a Clock (an explicit deadline and a
// Timer to call at or after it) and appends its registers to a slice.
//
// # Rules every part keeps
//
//  1. Time order. Every event carries now; a part remembers the latest now
//     it accepted, and an event with an earlier now is refused with a
//     *TimeOrderError (errors.Is(err, ErrTimeOrder)) that names both times.
//     Equal times are in order.
//
//  2. Atomic errors. An event that returns an error leaves the part's
//     registers and the actions value as they were, so a caller may fix the
//     cause (grow the actions value, correct the input) and call again.
//
//  3. Bounded output. A part appends what it decides to the caller's
//     Actions, which has a fixed capacity. An event whose decisions do not
//     fit returns an *ActionsFullError (errors.Is(err, ErrActionsFull))
//     naming how many it needs, and (rule 2) does nothing. RunGrowing is
//     the driver's side of this rule: it grows the buffer and runs the
//     event again. An event of a kind that can decide (a notification
//     point's Receive that may answer with a CNP, a congestion point's
//     Enqueue that may mark) refuses a nil *Actions with NoActions's
//     error, whether or not this call would decide, so that a caller that
//     wires none learns it at its first event, not at its first decision;
//     an event that never decides takes nil.
//
//  4. Deadlines. NextDeadline is units.MaxTime (no timer) or the earliest
//     time at which Timer has work; the caller calls Timer at or after it.
//     No event sets a deadline before its own now. A deadline the caller
//     lets pass is overdue, and late timers are caught up, never skipped
//     or merged: every event at now first runs each expiry due at or
//     before now, in time order and each as at its own deadline (a
//     periodic timer once per period it missed), then itself, appending
//     the expiries' decisions before its own. Timer(now) before the
//     deadline does nothing but record now. So a part holds the same
//     registers and makes the same decisions, in the same order, whether
//     the caller calls Timer at every deadline or leaves its timer to the
//     next event; after any event NextDeadline is later than now.
//
//  5. No panic, no allocation, no clock. No input makes a part panic; bad
//     input is an error of this package's types (*EventError for an event
//     the part cannot take, *DecodeError for malformed bytes). Event
//     methods allocate nothing on success, read no wall clock, start no
//     goroutine and do not depend on map iteration order.
//
//  6. Determinism. Two parts built from equal configurations and given
//     equal events make equal decisions and hold equal registers, bit for
//     bit.
//
//  7. Registers. AppendRegisters appends every register a part carries
//     between events, each with its name, width and value (the value fits
//     the width), always in the same order; it allocates only when dst
//     must grow.
//
//  8. Messages a part does not use. A reaction, notification or switch
//     point given a message of a kind it does not use (a CNP at an
//     ACK-driven sender, another scheme's kind) takes it: it decides
//     nothing and changes no register but the time and UnusedRegister,
//     which counts such messages (64 bits, wrapping; type Unused), so that
//     a miswired caller shows in the snapshot and in traces instead of
//     running on silently. A message of a kind it uses that it cannot take
//     (a malformed payload, an ACK of data never sent) is refused with an
//     *EventError.
//
// Package cc/cctest checks a part, ours or a user's, against these rules.
//
// # Registry
//
// An Algorithm names its parts (PartSpec) and describes each part's
// configuration with a Spec: presets and parameters, each parameter with
// its name, unit, default, range and source. Values arrive as strings
// ("t=40us", "kmin=400KB") from the command line, a JSON scenario, a replay
// header or the C ABI, and New parses, range-checks and builds the part in
// one place. Package algos registers hwcc's own algorithms; import it for
// its side effect, as a database/sql driver is imported:
//
//	import _ "github.com/hwcc/hwcc/algos"
//
//	part, err := cc.New("rocc", "cp", "preset=40g, t=40us")
package cc
