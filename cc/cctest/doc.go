// Package cctest is the conformance suite of the cc contract, in the manner
// of testing/fstest.TestFS: given a constructor for any congestion,
// reaction, notification or switch point, ours or a user's, it drives
// fresh parts with generated event sequences and reports every violation
// of the contract's rules (cc's package doc), each naming its rule:
//
//	no-panic      no event sequence, however malformed, makes the part panic
//	typed-errors  every error is one of cc's types (cc.Typed)
//	time-order    an event before the latest accepted now gives a
//	              *cc.TimeOrderError with both times, from every event method
//	atomic        an event that fails changes no register and appends no action
//	actions-full  decisions that do not fit give cc.ErrActionsFull, never
//	              silence; the same event with room then succeeds identically
//	deadline      an event arms a timer no earlier than its now; a timer at or
//	              after the deadline moves it past now; one before it does nothing
//	limits        a reaction point's rate and window are ≥ 0 (and within
//	              Options.MaxRate)
//	outputs       every action is one of cc's kinds that the part's role
//	              decides on that event, well formed: mark and drop only on a
//	              CP's Enqueue or Dequeue or a switch point's Arrive, Enqueue
//	              or Dequeue; feedback with a kind, priority 0..7, and to a
//	              switch (cc.ToSwitch) only from a switch point; pause and
//	              resume at priority 0..7; credit only from a switch point,
//	              of Bytes > 0 at a Port below GenOptions.Ports; a
//	              physical queue assigned only on a switch point's Enqueue,
//	              paused or resumed only by a switch point, at a Port below
//	              GenOptions.Ports. A part
//	              changes the caller's packet only where the contract lets
//	              it (its telemetry on Dequeue, Hdr on a switch point's
//	              Dequeue and on Sent) and never a message it is given
//	registers     every register fits its width, in the same order every time,
//	              no two share a name, and AppendRegisters appends without
//	              allocating when there is room
//	determinism   two parts given equal events decide and hold the same, bit for bit
//	allocs        no successful event allocates
//	late-timers   a part whose timer is left to its next event holds the
//	              registers and makes the decisions, in order, of one
//	              whose timer is called at every deadline (cc rule 4)
//	unused-feedback a reaction, notification or switch point takes a
//	              message of a kind it does not use (Options.UnusedKind),
//	              decides nothing, and counts it in cc.UnusedRegister,
//	              changing no other register (cc rule 8)
//	nil-actions   an event of a kind that can decide refuses a nil
//	              *cc.Actions with an *cc.EventError wrapping
//	              cc.ErrNoActions, changing nothing (cc rule 3)
//
// A test calls Test with the part's constructor:
//
//	func TestConformance(t *testing.T) {
//		if err := cctest.Test(func() (cc.Part, error) { return mypkg.New(cfg) }, cctest.Options{}); err != nil {
//			t.Fatal(err)
//		}
//	}
//
// TestCP, TestRP, TestNP and TestSW take a constructor of one role. Every
// rule applies to every role but limits (a reaction point's); the
// time-order probes call every event method of the role (KindsOf).
//
// A violation is reproducible: it names its sequence and the seed the
// sequence was generated from (Violation.Sequence, Seed, Gen; every
// sequence has its own, SequenceSeed), Sequence and ChaosSequence
// regenerate it, and with Options.TraceDir and TraceHeader the calls the
// suite made, up to the failing one and with the timers it fired, are
// written as a golden-model trace that `hwcc replay` runs and
// trace.ReadAll loads (Violation.Trace). The gopter generators shrink a
// failing sequence to its shortest failing prefix.
//
// The generators the suite uses are exported (Events, Chaos, FromBytes,
// and the gopter forms GenEvents and GenChaos) so that users write their
// own properties over the same event sequences, and Drive runs a sequence
// the way a simulator would, firing each timer at its deadline.
//
// A switch point's sequences model a switch of GenOptions.Ports ports (4;
// set it to the port count the constructor builds with): data packets of
// several flows arrive through their ingress ports, join the FIFO queue
// of their egress port and priority at the same instant, and leave it in
// order while it is not paused, with each queue's length, each port's
// transmit counter and each queue's PFC state kept as a switch keeps
// them; PFC pauses and resumes of a port's priority alternate; control
// messages (GenOptions.Messages, or a credit from another switch) arrive
// through a port now and then; packets may carry header bytes
// (GenOptions.Hdrs). Its chaos sequences add ports out of range (−1,
// Ports, anything), priorities up to 255, pauses that do not alternate,
// random header bytes and nil packets and messages. An Event names its
// port in Event.Port and a pause's state in Event.Paused, its priority in
// Event.Packet.Prio.
package cctest
