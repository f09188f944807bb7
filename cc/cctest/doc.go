// Package cctest is the conformance suite of the cc contract, in the manner
// of testing/fstest.TestFS: given a constructor for any congestion,
// reaction or notification point, ours or a user's, it drives fresh parts
// with generated event sequences and reports every violation of the
// contract's rules (cc's package doc), each naming its rule:
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
//	registers     every register fits its width, in the same order every time,
//	              and AppendRegisters appends without allocating when there is room
//	determinism   two parts given equal events decide and hold the same, bit for bit
//	allocs        no successful event allocates
//
// A test calls Test with the part's constructor:
//
//	func TestConformance(t *testing.T) {
//		if err := cctest.Test(func() (cc.Part, error) { return mypkg.New(cfg) }, cctest.Options{}); err != nil {
//			t.Fatal(err)
//		}
//	}
//
// The generators the suite uses are exported (Events, Chaos, and their
// gopter forms GenEvents and GenChaos) so that users write their own
// properties over the same event sequences, and Drive runs a sequence the
// way a simulator would, firing each timer at its deadline.
package cctest
