package cp_test

import (
	"slices"
	"testing"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cc/cctest"
)

// fuzzDrive applies the events to p as a fuzz target does, with an
// Actions of room (of none for every event whose packet priority is odd):
// no panic (the fuzzer reports one), every error typed, a refused event
// changes no register and appends nothing, every register fits its width,
// and check, if not nil, holds after every accepted event.
func fuzzDrive(t *testing.T, p cc.Part, evs []cctest.Event, check func(ev *cctest.Event, act *cc.Actions)) {
	big, none := cc.NewActions(4), cc.NewActions(0)
	var before, after []cc.Register
	for i := range evs {
		ev := &evs[i]
		act := big
		if ev.Packet.Prio&1 != 0 {
			act = none
		}
		act.Reset()
		before = p.AppendRegisters(before[:0])
		err := ev.Apply(p, act)
		after = p.AppendRegisters(after[:0])
		if err != nil {
			if !cc.Typed(err) {
				t.Fatalf("event %d (%v): untyped error %T: %v", i, ev, err, err)
			}
			if !slices.Equal(before, after) || act.Len() != 0 {
				t.Fatalf("event %d (%v): refused (%v) but changed the part", i, ev, err)
			}
			continue
		}
		for _, r := range after {
			if !r.Fits() {
				t.Fatalf("event %d: register %v does not fit", i, r)
			}
		}
		if check != nil {
			check(ev, act)
		}
	}
}
