package rp_test

import (
	"math/rand"
	"testing"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cc/cctest"
	"github.com/hwcc/hwcc/rp"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// The contract's conformance suite on the reaction point, with the pause
// ending with the quiet period and after a fixed time, and never pausing.
func TestBECNConformance(t *testing.T) {
	const line = 100 * units.Gbps
	// The RP is sent notifications (for its flow and another) besides the
	// generator's ACKs, NAKs and CNPs; its rate stays within the line rate.
	fixed := rp.BECNSurvey(line)
	fixed.PauseTime = 30 * becnUs
	never := rp.BECNSurvey(line)
	never.PauseAfter, never.QuietPeriod = 0, 3*becnUs
	one := rp.BECNSurvey(line)
	one.PauseAfter, one.QuietPeriod, one.PauseTime = 1, 20*becnUs, 7*becnUs
	for name, cfg := range map[string]rp.BECNConfig{"survey": rp.BECNSurvey(line), "pause-time": fixed, "no-pause": never, "pause-after-1": one} {
		t.Run("RP/"+name, func(t *testing.T) {
			o := cctest.Options{
				MaxRate: line,
				Gen: cctest.GenOptions{Messages: []cc.Feedback{
					{Kind: wire.FeedbackBECN, Flow: 1}, {Kind: wire.FeedbackBECN, Flow: 2},
				}},
			}
			if err := cctest.TestRP(func() (cc.ReactionPoint, error) { return rp.NewBECN(cfg) }, o); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// The suite's generated sequences do exercise the RP: driven through them
// as a simulator would (timers at their deadlines), a survey RP takes
// notifications, halves, pauses and steps back up.
func TestBECNConformanceSequencesNotify(t *testing.T) {
	o := cctest.GenOptions{Messages: []cc.Feedback{{Kind: wire.FeedbackBECN, Flow: 1}}}
	var s rp.BECNState
	for seed := range uint64(24) {
		r, err := rp.NewBECN(rp.BECNSurvey(100 * units.Gbps))
		if err != nil {
			t.Fatal(err)
		}
		evs := cctest.Events(rand.New(rand.NewSource(int64(seed)+1)), cc.RoleRP, o)
		if err := cctest.Drive(r, evs, cc.NewActions(8), nil); err != nil {
			t.Fatal(err)
		}
		st := r.State()
		s.Notifications += st.Notifications
		s.Pauses += st.Pauses
		s.Steps += st.Steps
	}
	t.Logf("24 sequences: %d notifications, %d pauses, %d steps up", s.Notifications, s.Pauses, s.Steps)
	if s.Notifications == 0 || s.Steps == 0 {
		t.Fatalf("the sequences do not exercise the RP: %+v", s)
	}
}
