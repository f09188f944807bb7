package algos

import (
	"fmt"

	"github.com/hwcc/hwcc/harness"
	"github.com/hwcc/hwcc/units"
)

// The Mercury scenarios ([Mercury] §"Existing congestion control
// schemes are insufficient" and "Small-scale simulations").
const (
	mercuryVictimName = "mercury-victim"
	mercuryBurstName  = "mercury-burst"

	// The small-scale settings: 40 Gb/s links, 4 µs of propagation, PFC
	// Xoff/Xon 320/318 KB.
	mercuryRate   = 40 * units.Gbps
	mercuryFabric = 100 * units.Gbps
	mercuryDelay  = 4 * units.Microsecond
	mercuryXoff   = 320 * units.KB
	mercuryXon    = 318 * units.KB

	// The victim scenario: F1 and F2 at 20 Gb/s (the paper's H1 and H2
	// links) from 0; 8 flows into R2 from 3 ms to 3.5 ms.
	mercuryVictimRate  = 20 * units.Gbps
	mercuryBurstAt     = 3 * units.Millisecond
	mercuryBurstLength = 500 * units.Microsecond
	mercuryVictimEnd   = 8 * units.Millisecond
	mercuryVictimFlow  = 50 * units.KB
	mercuryVictimEvery = 10 * units.Microsecond

	// The burst scenario: a long flow, and 8 flows of 120 KB at 600 µs.
	mercuryBurstSize  = 120 * units.KB
	mercuryBurstStart = 600 * units.Microsecond
	mercuryBurstEnd   = 2 * units.Millisecond
	mercuryBursts     = 8
)

// mercuryCompare are the algorithms both scenarios run side by side.
var mercuryCompare = []string{mercuryName, dcqcnName, hpccName}

// mercuryBase is a 40 Gb/s network with 4 µs links and the paper's PFC
// thresholds.
func mercuryBase(desc string, topo harness.TopologySpec) *harness.Scenario {
	s := harness.DefaultScenario()
	s.Algorithm = mercuryName
	s.Description = desc
	s.Compare = append([]string(nil), mercuryCompare...)
	topo.Link, topo.Delay = harness.Rate(mercuryRate), harness.Time(mercuryDelay)
	s.Topology = topo
	s.Switch.Xoff, s.Switch.Xon = harness.Bytes(mercuryXoff), harness.Bytes(mercuryXon)
	s.SampleInterval = harness.Time(5 * units.Microsecond)
	// DCQCN as Mercury's evaluation runs it: its paper's parameters ("the
	// parameter settings recommended in their papers"), which Mercury's
	// sender runs too.
	s.Params = map[string]string{dcqcnName + ".rp.preset": "paper"}
	return s
}

// mercuryVictimScenario is the paper's Figures 2, 3 and 9 on a chain of
// three switches s0–s1–s2 (9 hosts each, h<switch>_<n>; 40 Gb/s host
// links, 100 Gb/s between the switches, 4 µs everywhere): the victim F1
// h0_0→h1_0 and F2 h0_1→h2_0, both at 20 Gb/s (the paper's H1 and H2
// links), share s0's port toward s1 (the paper's P1); F2 goes on through
// s1's port toward s2 (P2). From 3 ms to 3.5 ms s1's hosts h1_1..h1_8
// each start a 50 KB flow to h2_0 every 10 µs (the paper's "the size of
// each burst flow is 50KB, and the duration is 500 µs": flows too short
// for an end-to-end loop to slow). They meet F2 at P2, congested: s1
// pauses its own burst hosts, F2's frames back up behind the burst in
// s1 until its ingress from s0 passes Xoff, and s1 pauses P1, where F1,
// which crosses no congested port, waits too. The paper's Figure 2 is a
// fat tree whose R2 switch is reached over several links; here the
// burst's 8 hosts sit on s1 and the 100 Gb/s link between s1 and s2 lets
// it arrive faster than h2_0's port drains, which PFC then spreads back.
func mercuryVictimScenario() *harness.Scenario {
	s := mercuryBase("Mercury Fig. 9: F1 h0_0→h1_0 (victim) and F2 h0_1→h2_0 at 20 Gb/s; from 3 ms to 3.5 ms h1_1..h1_8 each send 50 KB to h2_0 every 10 µs; chain s0–s1–s2, 40 Gb/s hosts, 100 Gb/s between switches, 4 µs, PFC 320/318 KB; measured over the burst",
		harness.TopologySpec{Kind: "chain", Switches: 3, HostsPerSwitch: 9})
	s.Topology.CoreLink = harness.Rate(mercuryFabric)
	s.Duration = harness.Time(mercuryVictimEnd)
	s.MeasureFrom = harness.Time(mercuryBurstAt)
	s.MeasureTo = harness.Time(mercuryBurstAt + mercuryBurstLength)
	s.Workload.Flows = []harness.FlowSpec{
		{Src: "h0_0", Dst: "h1_0", Rate: harness.Rate(mercuryVictimRate)},
		{Src: "h0_1", Dst: "h2_0", Rate: harness.Rate(mercuryVictimRate)},
	}
	for at := mercuryBurstAt; at < mercuryBurstAt+mercuryBurstLength; at += mercuryVictimEvery {
		for i := range mercuryBursts {
			s.Workload.Flows = append(s.Workload.Flows, harness.FlowSpec{Src: fmt.Sprintf("h1_%d", i+1), Dst: "h2_0",
				Size: harness.Bytes(mercuryVictimFlow), Start: harness.Time(at)})
		}
	}
	return s
}

// mercuryBurstScenario is the paper's Figure 4: a long flow h1→h0 on a
// 40 Gb/s star with 4 µs links, and from 600 µs eight flows of 120 KB from
// h2..h9 into h0.
func mercuryBurstScenario() *harness.Scenario {
	s := mercuryBase("Mercury Fig. 4: long flow h1→h0; 8 × 120 KB from h2..h9 into h0 at 600 µs; 40 Gb/s star, 4 µs links, PFC 320/318 KB",
		harness.TopologySpec{Kind: "star"})
	s.Duration = harness.Time(mercuryBurstEnd)
	s.Workload.Flows = []harness.FlowSpec{{Src: "h1", Dst: "h0"}}
	for i := range mercuryBursts {
		s.Workload.Flows = append(s.Workload.Flows, harness.FlowSpec{Src: fmt.Sprintf("h%d", i+2), Dst: "h0",
			Size: harness.Bytes(mercuryBurstSize), Start: harness.Time(mercuryBurstStart)})
	}
	return s
}

func init() {
	registerBuiltins([]builtinScenario{
		{mercuryVictimName, mercuryVictimScenario},
		{mercuryBurstName, mercuryBurstScenario},
	})
}
