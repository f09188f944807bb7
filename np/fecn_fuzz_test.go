package np_test

import (
	"slices"
	"testing"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cc/cctest"
	"github.com/hwcc/hwcc/np"
	"github.com/hwcc/hwcc/units"
)

// fuzzDrive applies the events to p with an Actions of room (0 for every
// event whose byte says so): no panic, every error typed, a refused event
// changes no register and appends nothing, every register fits, and check
// holds after every accepted event.
func fecnFuzzDrive(t *testing.T, p cc.Part, evs []cctest.Event, check func(ev *cctest.Event, act *cc.Actions)) {
	big, none := cc.NewActions(4), cc.NewActions(0)
	for i := range evs {
		ev := &evs[i]
		act := big
		if ev.Packet.Prio&1 != 0 {
			act = none
		}
		act.Reset()
		before := p.AppendRegisters(nil)
		if err := ev.Apply(p, act); err != nil {
			if !cc.Typed(err) {
				t.Fatalf("event %d (%v): untyped error %v", i, ev, err)
			}
			if !slices.Equal(before, p.AppendRegisters(nil)) || act.Len() != 0 {
				t.Fatalf("event %d (%v): refused (%v) but changed the part", i, ev, err)
			}
			continue
		}
		for _, r := range p.AppendRegisters(nil) {
			if !r.Fits() {
				t.Fatalf("event %d: register %v does not fit", i, r)
			}
		}
		check(ev, act)
	}
}

// FuzzFECN drives a notification point (MinInterval from the first byte)
// with cctest.FromBytes events: a notification only for a marked packet,
// of its flow, and two never closer than MinInterval.
func FuzzFECN(f *testing.F) {
	f.Add([]byte{0, 1, 1, 10, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Add(append([]byte{50}, slices.Repeat([]byte{1, 1, 0, 4, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 8)...))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		cfg := np.FECNConfig{MinInterval: units.Time(data[0]) * fecnUs}
		n, err := np.NewFECN(cfg)
		if err != nil {
			t.Fatal(err)
		}
		last, sent := units.Time(0), false
		fecnFuzzDrive(t, n, cctest.FromBytes(data[1:], cc.RoleNP), func(ev *cctest.Event, act *cc.Actions) {
			if act.Len() == 0 {
				return
			}
			if act.Len() > 1 || ev.Kind != cc.EventReceive || !ev.Packet.CE || act.At(0) != fecnTo(ev.Packet.Flow) ||
				(sent && ev.At-last < cfg.MinInterval) {
				t.Fatalf("%v (last %v): decided %v", ev, last, act.All())
			}
			last, sent = ev.At, true
		})
	})
}
