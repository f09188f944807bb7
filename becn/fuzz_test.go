package becn_test

import (
	"slices"
	"testing"

	"github.com/hwcc/hwcc/becn"
	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cc/cctest"
	"github.com/hwcc/hwcc/units"
)

// fuzzDrive applies the events to p with an Actions of room (0 for every
// event whose byte says so): no panic, every error typed, a refused event
// changes no register and appends nothing, every register fits, and check
// holds after every accepted event.
func fuzzDrive(t *testing.T, p cc.Part, evs []cctest.Event, check func(ev *cctest.Event, act *cc.Actions)) {
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

// FuzzCP drives a congestion point, its mode, judging point and table
// size from the first byte, with cctest.FromBytes events: besides
// fuzzDrive's rules, every decision is one the mode makes (a notification
// of the packet's flow to its source in ModeBECN, a mark in ModeFECN), at
// most one per event, only for a packet judged above the threshold.
func FuzzCP(f *testing.F) {
	f.Add([]byte{0, 1, 0, 10, 0, 0, 0, 3, 0, 0, 0, 0xff, 0x30, 0, 0, 0, 0})
	f.Add(append([]byte{1}, make([]byte, 64)...))
	f.Add(append([]byte{6}, slices.Repeat([]byte{1, 0, 1, 0, 4, 0, 5, 0, 0, 0, 0xff, 0xff, 0, 0, 0, 0}, 8)...))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		cfg := becn.SurveyCP(becn.Mode(data[0]&1), 25*units.Gbps)
		cfg.At = becn.Point(data[0] >> 1 & 1)
		cfg.TableBits = data[0] >> 2 & 3
		cfg.MinInterval = units.Time(data[0]>>4) * us
		c, err := becn.NewCP(cfg)
		if err != nil {
			t.Fatal(err)
		}
		fuzzDrive(t, c, cctest.FromBytes(data[1:], cc.RoleCP), func(ev *cctest.Event, act *cc.Actions) {
			if act.Len() == 0 {
				return
			}
			at := becn.AtEnqueue
			if ev.Kind == cc.EventDequeue {
				at = becn.AtDequeue
			}
			if act.Len() > 1 || ev.Kind == cc.EventTimer || at != cfg.At || ev.Queue.Len <= cfg.Threshold {
				t.Fatalf("%v: decided %v", ev, act.All())
			}
			want := cc.Action{Kind: cc.ActionMarkCE}
			if cfg.Mode == becn.ModeBECN {
				want = becnTo(ev.Packet.Flow)
			}
			if act.At(0) != want {
				t.Fatalf("%v: decided %v, want %v", ev, act.At(0), want)
			}
		})
	})
}

// FuzzNP drives a notification point (MinInterval from the first byte)
// with cctest.FromBytes events: a notification only for a marked packet,
// of its flow, and two never closer than MinInterval.
func FuzzNP(f *testing.F) {
	f.Add([]byte{0, 1, 1, 10, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Add(append([]byte{50}, slices.Repeat([]byte{1, 1, 0, 4, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 8)...))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		cfg := becn.NPConfig{MinInterval: units.Time(data[0]) * us}
		n, err := becn.NewNP(cfg)
		if err != nil {
			t.Fatal(err)
		}
		last, sent := units.Time(0), false
		fuzzDrive(t, n, cctest.FromBytes(data[1:], cc.RoleNP), func(ev *cctest.Event, act *cc.Actions) {
			if act.Len() == 0 {
				return
			}
			if act.Len() > 1 || ev.Kind != cc.EventReceive || !ev.Packet.CE || act.At(0) != becnTo(ev.Packet.Flow) ||
				(sent && ev.At-last < cfg.MinInterval) {
				t.Fatalf("%v (last %v): decided %v", ev, last, act.All())
			}
			last, sent = ev.At, true
		})
	})
}

// FuzzRP drives a reaction point (PauseAfter, QuietPeriod and PauseTime
// from the first bytes) with cctest.FromBytes events, a CNP standing for a
// notification: besides fuzzDrive's rules, no action; the rate stays in
// [MinRate, LineRate]; a row of PauseAfter or more means a pause (when
// PauseTime is 0) and a pause means the flow is gated; the deadline is
// never before the latest event.
func FuzzRP(f *testing.F) {
	f.Add([]byte{5, 10, 0, 2, 1, 10, 0, 0, 0, 3, 0, 0, 0, 0, 3, 0, 0, 0, 0})
	f.Add(append([]byte{2, 1, 3}, slices.Repeat([]byte{2, 0, 0, 4, 0, 5, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0}, 16)...))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 3 {
			return
		}
		cfg := becn.SurveyRP(10 * units.Gbps)
		cfg.PauseAfter = data[0] % 8
		cfg.QuietPeriod = units.Time(data[1]%64+1) * us
		cfg.PauseTime = units.Time(data[2]%64) * us
		r, err := becn.NewRP(cfg)
		if err != nil {
			t.Fatal(err)
		}
		evs := cctest.FromBytes(data[3:], cc.RoleRP)
		for i := range evs {
			if evs[i].Feedback.Kind == cc.FeedbackCNP {
				evs[i].Feedback.Kind = becn.FeedbackBECN
			}
		}
		fuzzDrive(t, r, evs, func(ev *cctest.Event, act *cc.Actions) {
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
