// Package algos adapts hwcc's congestion-control state machines (packages
// cp, rp, np and window) to the reference harness, and registers each one
// with harness.Register and its paper's scenarios with
// harness.RegisterBuiltin. Import it for its side effects:
//
//	import _ "github.com/hwcc/hwcc/harness/algos"
//
// One file per algorithm. An adapter translates harness events (enqueue,
// dequeue, ACK, CNP, feedback, timers) into the state machine's event methods
// and its decisions (mark, stamp, rate, window, feedback) back into the
// harness; it holds no congestion-control logic of its own, so the harness
// runs exactly the code a user embeds.
package algos
