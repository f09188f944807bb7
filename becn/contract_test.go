package becn_test

import (
	"math/rand"
	"testing"

	"github.com/hwcc/hwcc/becn"
	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cc/cctest"
	"github.com/hwcc/hwcc/units"
)

// The contract's conformance suite on every part, in both modes and in
// the configurations that change its paths: judged at enqueue and at
// dequeue, paced and unpaced, a one-slot table (every flow collides) and
// a large one; the NP paced and not; the RP with the pause ending with
// the quiet period and after a fixed time, and never pausing.
func TestConformance(t *testing.T) {
	const line = 100 * units.Gbps
	cps := map[string]becn.CPConfig{}
	for _, m := range []becn.Mode{becn.ModeBECN, becn.ModeFECN} {
		base := becn.SurveyCP(m, line)
		cps[m.String()+"/survey"] = base
		deq := base
		deq.At = becn.AtDequeue
		cps[m.String()+"/dequeue"] = deq
		low := base
		low.Threshold, low.MinInterval = 20_000, 0
		cps[m.String()+"/unpaced"] = low
		one := base
		one.TableBits, one.MinInterval = 0, 5*us
		cps[m.String()+"/one-slot"] = one
		big := base
		big.TableBits = becn.MaxTableBits
		cps[m.String()+"/big-table"] = big
	}
	for name, cfg := range cps {
		t.Run("CP/"+name, func(t *testing.T) {
			if err := cctest.TestCP(func() (cc.CongestionPoint, error) { return becn.NewCP(cfg) }, cctest.Options{}); err != nil {
				t.Fatal(err)
			}
		})
	}

	// The NP receives the generator's data packets, some marked, and its
	// source's messages (none of a kind it uses).
	for name, cfg := range map[string]becn.NPConfig{"survey": becn.SurveyNP(), "infiniband": becn.InfiniBandNP(), "3us": {MinInterval: 3 * us}} {
		t.Run("NP/"+name, func(t *testing.T) {
			o := cctest.Options{Gen: cctest.GenOptions{Messages: []cc.Feedback{{Kind: becn.FeedbackBECN, Flow: 1}}}}
			if err := cctest.TestNP(func() (cc.NotificationPoint, error) { return becn.NewNP(cfg) }, o); err != nil {
				t.Fatal(err)
			}
		})
	}

	// The RP is sent notifications (for its flow and another) besides the
	// generator's ACKs, NAKs and CNPs; its rate stays within the line rate.
	fixed := becn.SurveyRP(line)
	fixed.PauseTime = 30 * us
	never := becn.SurveyRP(line)
	never.PauseAfter, never.QuietPeriod = 0, 3*us
	one := becn.SurveyRP(line)
	one.PauseAfter, one.QuietPeriod, one.PauseTime = 1, 20*us, 7*us
	for name, cfg := range map[string]becn.RPConfig{"survey": becn.SurveyRP(line), "pause-time": fixed, "no-pause": never, "pause-after-1": one} {
		t.Run("RP/"+name, func(t *testing.T) {
			o := cctest.Options{
				MaxRate: line,
				Gen: cctest.GenOptions{Messages: []cc.Feedback{
					{Kind: becn.FeedbackBECN, Flow: 1}, {Kind: becn.FeedbackBECN, Flow: 2},
				}},
			}
			if err := cctest.TestRP(func() (cc.ReactionPoint, error) { return becn.NewRP(cfg) }, o); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// The suite's generated sequences do exercise the RP: driven through them
// as a simulator would (timers at their deadlines), a survey RP takes
// notifications, halves, pauses and steps back up.
func TestConformanceSequencesNotify(t *testing.T) {
	o := cctest.GenOptions{Messages: []cc.Feedback{{Kind: becn.FeedbackBECN, Flow: 1}}}
	var s becn.RPState
	for seed := range uint64(24) {
		r, err := becn.NewRP(becn.SurveyRP(100 * units.Gbps))
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
