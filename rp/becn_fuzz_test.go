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
