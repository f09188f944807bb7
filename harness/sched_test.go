package harness

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/units"
)

// twoClasses is a star with h1 sending at priority 1 and h2 at priority 2,
// both long-lived at the line rate into h0 under the static baseline, so
// that the egress port s0→h0 is the only contended resource and its
// scheduler decides the shares.
func twoClasses(t *testing.T, sets ...string) *Result {
	t.Helper()
	p1, p2 := 1, 2
	sc := DefaultScenario()
	sc.Name = "two-classes"
	sc.Algorithm = "static"
	sc.Topology = TopologySpec{Kind: "star", Hosts: 3}
	sc.Workload = WorkloadSpec{Flows: []FlowSpec{{Src: "h1", Dst: "h0", Prio: &p1}, {Src: "h2", Dst: "h0", Prio: &p2}}}
	sc.Duration = Time(2 * units.Millisecond)
	sc.MeasureFrom = Time(200 * units.Microsecond)
	require.NoError(t, sc.SetAll(sets))
	return runScenario(t, sc)
}

// TestDWRRGivesFlowsTheirWeights: with DWRR weights 1 and 3 for
// priorities 1 and 2 the two backlogged classes share h0's link 1:3. DRR
// serves each class weight·quantum bytes per round with a quantum of one
// maximum frame, so each round is exactly one frame of priority 1 and three
// of priority 2 (all frames are full); over the 1.8 ms window (about 21 000
// frames) the shares are exact to a frame per round at the window's edges:
// within 0.5 % of 25 % and 75 % of the link's wire rate. PFC holds the
// senders back at each ingress (the port drains each class at its share),
// so nothing is lost.
func TestDWRRGivesFlowsTheirWeights(t *testing.T) {
	r := twoClasses(t, "scheduler=dwrr", "weights=1,1,3")
	link := float64(100 * units.Gbps)
	require.InDelta(t, 0.25, r.Flows[0].Throughput/link, 0.005, "priority 1: %.4f", r.Flows[0].Throughput/link)
	require.InDelta(t, 0.75, r.Flows[1].Throughput/link, 0.005, "priority 2: %.4f", r.Flows[1].Throughput/link)
	require.Zero(t, r.Report.Drops)
	// Equal weights: equal shares.
	r = twoClasses(t, "scheduler=dwrr")
	require.InDelta(t, r.Flows[0].Throughput, r.Flows[1].Throughput, 0.01*link)
}

// TestStrictPriorityStarvesTheLowerClass: under strict priority the
// higher class takes the whole link while it has frames; the lower one
// gets only the gaps (none with a line-rate sender: under 1 %).
func TestStrictPriorityStarvesTheLowerClass(t *testing.T) {
	r := twoClasses(t)
	link := float64(100 * units.Gbps)
	require.Greater(t, r.Flows[1].Throughput/link, 0.97)
	require.Less(t, r.Flows[0].Throughput/link, 0.01)
}

// TestConservationInEveryMode: data bytes sent = delivered + dropped + in
// flight, at several instants, under every scheduler with every link flow
// control (PFC and CBFC, lossless; none, lossy), with two classes and four
// senders. Under voq-credit no module adds credit, so each VOQ sends its
// initial 10 KB and stops: nothing to drop there.
func TestConservationInEveryMode(t *testing.T) {
	for _, sched := range SchedulerKinds() {
		for _, pfc := range []string{FlowPFC, FlowCBFC, FlowNone} {
			p := []int{1, 2, 1, 2}
			sc := DefaultScenario()
			sc.Name = "conservation"
			sc.Algorithm = "static"
			sc.Topology = TopologySpec{Kind: "star", Hosts: 5}
			for i := range 4 {
				sc.Workload.Flows = append(sc.Workload.Flows, FlowSpec{Src: "h" + string(rune('1'+i)), Dst: "h0", Prio: &p[i]})
			}
			sc.Duration = Time(300 * units.Microsecond)
			sc.MeasureFrom = 0
			require.NoError(t, sc.SetAll([]string{"scheduler=" + sched, "flow_control=" + pfc, "buffer=200KB", "cbfc_buffer=8KiB", "rto=20us"}))
			s, err := New(sc, Options{})
			require.NoError(t, err)
			for _, at := range []units.Time{41 * units.Microsecond, 150 * units.Microsecond, 300 * units.Microsecond} {
				s.runUntil(at)
				c := s.result().Counters
				require.Equal(t, c.DataSentPayload, c.DataRecvPayload+c.DroppedDataPayload+c.InFlightDataPayload, "%s pfc %s at %v", sched, pfc, at)
			}
			c := s.result().Counters
			require.Nil(t, s.result().Report.Errors, "%s %s", sched, pfc)
			switch {
			case pfc != FlowNone:
				require.Zero(t, c.Drops, "%s: %s is lossless", sched, pfc)
			case sched != SchedulerVOQCredit:
				require.Positive(t, c.Drops, "%s: the lossy mode drops and counts what it drops", sched)
			}
		}
	}
}

func TestSchedulerSettingsRefused(t *testing.T) {
	sc, err := Builtin("single-flow")
	require.NoError(t, err)
	require.ErrorContains(t, sc.Set("scheduler", "wfq"), "want one of strict, dwrr, voq, voq-credit")
	require.ErrorContains(t, sc.Set("weights", "1,x"), "whole numbers")
	require.ErrorContains(t, sc.Set("weights", "1,-1"), "switch.weights[1] = -1")
	require.ErrorContains(t, sc.Set("weights", "1,1,1,1,1,1,1,1,1"), "at most 8")
	sc.Switch.Weights = []int{2}
	require.ErrorContains(t, sc.Validate(), `switch.weights are for switch.scheduler "dwrr"`)
}
