package algos

import (
	"fmt"

	"github.com/hwcc/hwcc/harness"
	"github.com/hwcc/hwcc/units"
)

// The survey's classic schemes ([Survey] §4):
// one scenario per headline behaviour.
const (
	timelyFairnessName = "timely-fairness"
	becnIncastName     = "becn-incast"
	qcnIncastName      = "qcn-incast"
	afqcnWeightedName  = "afqcn-weighted"

	// 10 Gb/s, the link of the QCN and TIMELY papers.
	classicLink = 10 * units.Gbps
)

// classicBase is a 10 Gb/s star with 1 µs links and the harness's
// defaults otherwise.
func classicBase(algo, desc string, compare ...string) *harness.Scenario {
	s := harness.DefaultScenario()
	s.Algorithm = algo
	s.Description = desc
	s.Compare = compare
	s.Topology = harness.TopologySpec{Kind: "star", Link: harness.Rate(classicLink), Delay: harness.Time(harness.DefaultDelay)}
	s.SampleInterval = harness.Time(10 * units.Microsecond)
	return s
}

// timelyFairnessScenario: four long flows start together into h0 at 10
// Gb/s, each at 2 Gb/s (initial_rate): TIMELY holds the RTT below Thigh
// (most of the time below Tlow) and shares the link fairly. From the line
// rate, four flows build a queue whose RTT rises by tens of µs per
// segment, the normalised gradient passes 1 and every flow drops to the
// minimum rate, from which one δ per 16 KB segment cannot climb back
// within the run (docs/scenarios.md): TIMELY's per-completion update, as
// published.
func timelyFairnessScenario() *harness.Scenario {
	s := classicBase(timelyName, "TIMELY: 4 long flows h1..h4 → h0 at 10 Gb/s starting together at 2 Gb/s; measured over 20–40 ms", timelyName, dcqcnName, hpccName)
	for i := range 4 {
		s.Workload.Flows = append(s.Workload.Flows, harness.FlowSpec{Src: fmt.Sprintf("h%d", i+1), Dst: "h0"})
	}
	s.Params = map[string]string{timelyName + ".initial_rate": "2Gbps"}
	s.Duration = harness.Time(40 * units.Millisecond)
	s.MeasureFrom = harness.Time(20 * units.Millisecond)
	return s
}

// becnIncastScenario: a long flow h1→h0 and, at 1 ms, 7 flows of 500 KB
// from h2..h8 into h0 at 25 Gb/s (dcqcn-incast's traffic), under BECN,
// FECN and DCQCN: notifications halve the sources' rates, five in a row
// pause them, and quiet periods double them back.
func becnIncastScenario() *harness.Scenario {
	s := dcqcnIncastScenario(becnName, "BECN/FECN: long flow h1->h0; at `at` (1ms) `senders` (7) flows of `size` (500KB) from h2.. into h0 at 25 Gb/s",
		25*units.Gbps, dcqcnIncastSpec{senders: 7, size: 500 * units.KB, at: units.Millisecond})
	s.Compare = []string{becnName, fecnName, dcqcnName}
	return s
}

// qcnIncastScenario: four long flows into h0 at 10 Gb/s under QCN (and
// DCQCN): QCN holds the queue at Qeq (26 KB at 10 Gb/s) and the link full;
// its shares are not fair (the motivation of AF-QCN, the survey's Fig. 8).
func qcnIncastScenario() *harness.Scenario {
	s := classicBase(qcnName, "QCN: 4 long flows h1..h4 → h0 at 10 Gb/s; 100 ms, measured over 50–100 ms", qcnName, dcqcnName)
	for i := range 4 {
		s.Workload.Flows = append(s.Workload.Flows, harness.FlowSpec{Src: fmt.Sprintf("h%d", i+1), Dst: "h0"})
	}
	s.Duration = harness.Time(100 * units.Millisecond)
	s.MeasureFrom = harness.Time(50 * units.Millisecond)
	return s
}

// afqcnWeightedScenario: two long flows into h0 at 10 Gb/s, each its own
// AF-QCN class by source host (h1 is node 2, class 2; h2 node 3, class
// 3), weights 2 and 1: AF-QCN shares the link 2:1; QCN, with no classes,
// does not.
func afqcnWeightedScenario() *harness.Scenario {
	s := classicBase(afqcnName, "AF-QCN: h1 (weight 2) and h2 (weight 1) → h0 at 10 Gb/s, classes by source host; 100 ms, measured over 50–100 ms", afqcnName, qcnName)
	s.Workload.Flows = []harness.FlowSpec{{Src: "h1", Dst: "h0"}, {Src: "h2", Dst: "h0"}}
	s.Params = map[string]string{afqcnName + ".cp.class_by": "src", afqcnName + ".cp.weight2": "2", afqcnName + ".cp.weight3": "1"}
	s.Duration = harness.Time(100 * units.Millisecond)
	s.MeasureFrom = harness.Time(50 * units.Millisecond)
	return s
}

func init() {
	for _, b := range []struct {
		name string
		fn   func() *harness.Scenario
	}{
		{timelyFairnessName, timelyFairnessScenario},
		{becnIncastName, becnIncastScenario},
		{qcnIncastName, qcnIncastScenario},
		{afqcnWeightedName, afqcnWeightedScenario},
	} {
		if err := harness.RegisterBuiltin(b.name, b.fn); err != nil {
			panic(err)
		}
	}
}
