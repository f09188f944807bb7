package algos

import (
	"fmt"

	"github.com/hwcc/hwcc/harness"
	"github.com/hwcc/hwcc/units"
)

// Mercury's comparisons ([Mercury] §"Performance evaluation", Figures 9 to
// 13): every system the paper compares, side by side, on the small-scale
// networks of mercury_scenarios.go and on the large-scale fat tree.
const (
	mercuryFig9Name  = "mercury-fig9"
	mercuryFig10Name = "mercury-fig10"
	mercuryFig11Name = "mercury-fig11"

	// Figure 10: "all of the link rates 40Gbps", H1 and H2 sending to
	// R1 and R2 across two switches, 80 % Hadoop load. The harness's
	// Poisson hosts send to every other host of their set, so each of
	// the four sends 2/3 of its flows across the switch-to-switch link:
	// a host load of 0.6 loads that link (each way) at 2·0.6·2/3 = 80 %.
	mercuryFig10Load = 0.6
	mercuryFig10Stop = 10 * units.Millisecond
	mercuryFig10End  = 40 * units.Millisecond

	// The large-scale network ("Experiment settings"): a fat tree of 16
	// cores, 20 aggregation switches and 20 ToRs (5 pods, as the HPCC
	// authors' 320-host topology has them), 16 servers per ToR at 100
	// Gb/s, 400 Gb/s between switches, 1 µs links, PFC Xoff/Xon 620/618
	// KB; Poisson arrivals for 250 µs (about 4100 flows; the paper gives
	// no duration, and 1 ms takes a minute of CPU per system), run to 3 ms
	// so that they finish.
	mercuryServerLink = 100 * units.Gbps
	mercuryCoreLink   = 400 * units.Gbps
	mercuryLargeDelay = 1 * units.Microsecond
	mercuryLargeXoff  = 620 * units.KB
	mercuryLargeXon   = 618 * units.KB
	mercuryLargeLoad  = 0.5
	mercuryLargeStop  = 250 * units.Microsecond
	mercuryLargeEnd   = 3 * units.Millisecond
	mercuryHadoopCDF  = "fbhadoop"
)

// mercuryCompareAll are the systems of the paper's comparisons, Mercury
// first (the scenario's own) and then the paper's order: Timely, DCQCN,
// DCQCN+TCD, PACC, HPCC.
var mercuryCompareAll = []string{mercuryName, timelyName, dcqcnName, tcdName, paccName, hpccName}

// mercuryAll turns s into a comparison of every system: DCQCN and the
// two schemes that keep its reaction point (DCQCN+TCD, PACC) with DCQCN's
// paper parameters, as mercuryBase gives DCQCN ("the parameter settings
// recommended in their papers"); TIMELY and HPCC with their registrations'
// defaults (their papers' parameters).
func mercuryAll(s *harness.Scenario, desc string) *harness.Scenario {
	s.Description = desc
	s.Compare = append([]string(nil), mercuryCompareAll...)
	s.Params = map[string]string{}
	for _, a := range []string{dcqcnName, tcdName, paccName} {
		s.Params[a+".rp.preset"] = "paper"
	}
	return s
}

// mercuryFig9Scenario is Figure 9 (the congested flow F2 and the victim
// F1) under all six systems: mercury-victim's network and workload.
func mercuryFig9Scenario() *harness.Scenario {
	return mercuryAll(mercuryVictimScenario(),
		"Mercury Fig. 9 under timely, dcqcn, tcd, pacc, hpcc: mercury-victim's F1 (victim) h0_0→h1_0 and F2 h0_1→h2_0 at 20 Gb/s, "+
			"the 50 KB burst into h2_0 from 3 ms to 3.5 ms; chain s0–s1–s2, 40 Gb/s hosts, 100 Gb/s between switches, 4 µs, PFC 320/318 KB; measured over the burst")
}

// mercuryFig10Scenario is Figure 10: Poisson FB_Hadoop flows among l0, l1
// (the paper's H1, H2) and r0, r1 (R1, R2) on a 40 Gb/s dumbbell with 4
// µs links and the small-scale PFC thresholds, loading the link between
// the switches at 80 % each way for 10 ms, run until 40 ms.
func mercuryFig10Scenario() *harness.Scenario {
	s := mercuryBase("", harness.TopologySpec{Kind: "dumbbell", Left: 2, Right: 2})
	s.Duration = harness.Time(mercuryFig10End)
	s.SampleInterval = harness.Time(20 * units.Microsecond)
	s.Workload.Poisson = &harness.PoissonSpec{Load: mercuryFig10Load, CDF: mercuryHadoopCDF, Stop: harness.Time(mercuryFig10Stop)}
	s.AddParam(mercuryStopKey())
	return mercuryAll(s, fmt.Sprintf("Mercury Fig. 10: Poisson FB_Hadoop flows among l0, l1, r0, r1 at `load` (%.1f: 80%% of the s0–s1 link) until `stop` (%v), run to %v; "+
		"40 Gb/s dumbbell, 4 µs, PFC 320/318 KB; under mercury, timely, dcqcn, tcd, pacc, hpcc", mercuryFig10Load, mercuryFig10Stop, mercuryFig10End))
}

// mercuryStopKey is the key `stop`: when the Poisson arrivals stop.
func mercuryStopKey() harness.Param {
	return harness.Param{Name: "stop", Help: "when the Poisson arrivals stop (a time in (0, duration])", Set: func(s *harness.Scenario, v string) error {
		t, err := units.ParseTime(v)
		if err != nil {
			return err
		}
		if t <= 0 || t > units.Time(s.Duration) {
			return fmt.Errorf("%q: want a time in (0, %v]", v, units.Time(s.Duration))
		}
		s.Workload.Poisson.Stop = harness.Time(t)
		return nil
	}}
}

// mercuryLargeScale is the large-scale network with Poisson arrivals of
// cdf at load among all 320 servers.
func mercuryLargeScale(cdf string) *harness.Scenario {
	s := mercuryBase("", harness.TopologySpec{Kind: "clos", Cores: 16, Aggs: 20, ToRs: 20, Pods: 5, HostsPerToR: 16})
	s.Topology.Link, s.Topology.CoreLink = harness.Rate(mercuryServerLink), harness.Rate(mercuryCoreLink)
	s.Topology.Delay = harness.Time(mercuryLargeDelay)
	s.Switch.Xoff, s.Switch.Xon = harness.Bytes(mercuryLargeXoff), harness.Bytes(mercuryLargeXon)
	s.Duration = harness.Time(mercuryLargeEnd)
	s.SampleInterval = harness.Time(20 * units.Microsecond)
	s.Workload.Poisson = &harness.PoissonSpec{Load: mercuryLargeLoad, CDF: cdf, Stop: harness.Time(mercuryLargeStop)}
	s.AddParam(mercuryStopKey())
	return s
}

// mercuryLargeDesc describes the large-scale scenarios.
const mercuryLargeDesc = "Poisson `cdf` (%s) flows among the 320 servers at `load` (%.1f) until `stop` (%v), run to %v; fat tree of 16 cores, 20 aggs, 20 ToRs " +
	"(5 pods), 100 Gb/s servers, 400 Gb/s between switches, 1 µs, PFC 620/618 KB; under mercury, timely, dcqcn, tcd, pacc, hpcc"

// mercuryFig11Scenario is Figures 11, 12 and 13: the average (Fig. 11)
// and 99th percentile (Fig. 12) FCT on the large-scale network, and the
// same runs' FCT of short and long flows (Fig. 13, FB_Hadoop), taken from
// the per-flow report. FB_Hadoop by default (the paper's other workloads:
// `cdf` websearch; its WebServer and Cache Follower distributions are not
// among the harness's).
func mercuryFig11Scenario() *harness.Scenario {
	return mercuryAll(mercuryLargeScale(mercuryHadoopCDF),
		"Mercury Figs. 11–13 (FCT mean, p99, and by flow size): "+fmt.Sprintf(mercuryLargeDesc, mercuryHadoopCDF, mercuryLargeLoad, mercuryLargeStop, mercuryLargeEnd))
}

func init() {
	registerBuiltins([]builtinScenario{
		{mercuryFig9Name, mercuryFig9Scenario},
		{mercuryFig10Name, mercuryFig10Scenario},
		{mercuryFig11Name, mercuryFig11Scenario},
	})
}
