package rp_test

import (
	"slices"
	"testing"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cc/cctest"
	"github.com/hwcc/hwcc/rp"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// fuzzDrive applies the events to p with an Actions of room (0 for every
// event whose byte says so): no panic, every error typed, a refused event
// changes no register and appends nothing, every register fits, and check
// holds after every accepted event.
func becnFuzzDrive(t *testing.T, p cc.Part, evs []cctest.Event, check func(ev *cctest.Event, act *cc.Actions)) {
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

// FuzzBECN drives a reaction point (PauseAfter, QuietPeriod and PauseTime
// from the first bytes) with cctest.FromBytes events, a CNP standing for a
// notification: besides fuzzDrive's rules, no action; the rate stays in
// [MinRate, LineRate]; a row of PauseAfter or more means a pause (when
// PauseTime is 0) and a pause means the flow is gated; the deadline is
// never before the latest event.
func FuzzBECN(f *testing.F) {
	f.Add([]byte{5, 10, 0, 2, 1, 10, 0, 0, 0, 3, 0, 0, 0, 0, 3, 0, 0, 0, 0})
	f.Add(append([]byte{2, 1, 3}, slices.Repeat([]byte{2, 0, 0, 4, 0, 5, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0}, 16)...))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 3 {
			return
		}
		cfg := rp.BECNSurvey(10 * units.Gbps)
		cfg.PauseAfter = data[0] % 8
		cfg.QuietPeriod = units.Time(data[1]%64+1) * becnUs
		cfg.PauseTime = units.Time(data[2]%64) * becnUs
		r, err := rp.NewBECN(cfg)
		if err != nil {
			t.Fatal(err)
		}
		evs := cctest.FromBytes(data[3:], cc.RoleRP)
		for i := range evs {
			if evs[i].Feedback.Kind == cc.FeedbackCNP {
				evs[i].Feedback.Kind = wire.FeedbackBECN
			}
		}
		becnFuzzDrive(t, r, evs, func(ev *cctest.Event, act *cc.Actions) {
			s := r.State()
			l := r.Limits()
			switch {
			case act.Len() != 0:
				t.Fatalf("%v: the RP appended %v", ev, act.All())
			case l.Rate < cfg.MinRate || l.Rate > cfg.LineRate:
				t.Fatalf("%v: rate %v outside [%v, %v]", ev, l.Rate, cfg.MinRate, cfg.LineRate)
			case l.Credited != s.Paused || l.Credit != 0 || l.Window != 0:
				t.Fatalf("%v: limits %+v, paused %v", ev, l, s.Paused)
			case cfg.PauseTime == 0 && cfg.PauseAfter > 0 && s.Run >= cfg.PauseAfter && !s.Paused:
				t.Fatalf("%v: a row of %d without a pause", ev, s.Run)
			case s.Run > 0 && !s.Quiet:
				t.Fatalf("%v: a row without the quiet timer", ev)
			case ev.Kind == cc.EventTimer && r.NextDeadline() <= ev.At:
				t.Fatalf("%v: a timer left the deadline at %v", ev, r.NextDeadline())
			}
		})
	})
}
