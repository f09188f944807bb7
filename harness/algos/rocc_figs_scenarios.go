package algos

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/hwcc/hwcc/harness"
	"github.com/hwcc/hwcc/harness/workloads"
	"github.com/hwcc/hwcc/units"
)

// RoCC's comparison figures ([RoCC] §VI-A c to e, §VI-D): its own
// scenarios run under the systems the paper compares RoCC with, side by
// side.
const (
	roccFig11aName = "rocc-fig11a"
	roccFig12aName = "rocc-fig12a"
	roccFig12bName = "rocc-fig12b"
	roccFig15Name  = "rocc-fig15"
)

// The systems each figure compares, by registry name, in the paper's
// order: Fig. 11 QCN, DCQCN, TIMELY, HPCC, PACC, BFC and RoCC; Figs. 12
// and 15 DCQCN, HPCC, PACC, BFC and RoCC.
var (
	roccFig11Compare = []string{qcnName, dcqcnName, timelyName, hpccName, paccName, bfcName, roccName}
	roccFig12Compare = []string{dcqcnName, hpccName, paccName, bfcName, roccName}
)

// roccFig11aTimelyRate is the rate TIMELY's flows start at in Fig. 11(a):
// C/N, 4 Gb/s. From the line rate hwcc's TIMELY falls to its minimum rate
// and stays there (the timely-fairness scenario starts below C/N too);
// the paper does not say where its TIMELY starts.
const roccFig11aTimelyRate = "4Gbps"

// roccFig11a is rocc-fairness (N = 10 at 40 Gb/s, Fig. 8's and Fig. 11's
// setting) under the systems of Fig. 11(a).
func roccFig11a() *harness.Scenario {
	s := roccFairness()
	s.Description = "RoCC Fig. 11(a): `senders` (10) flows into one 40 Gb/s port under qcn, dcqcn, timely, hpcc, pacc, bfc and rocc: each should get C/N (4 Gb/s)"
	s.Compare = append([]string(nil), roccFig11Compare...)
	s.Params = map[string]string{timelyName + ".initial_rate": roccFig11aTimelyRate}
	return s
}

// roccFig12a is rocc-multibottleneck under the systems of Fig. 12(a).
func roccFig12a() *harness.Scenario {
	s := roccMultiBottleneck()
	s.Description = "RoCC Fig. 12(a): the multi-bottleneck topology (D0 crosses two CPs) under dcqcn, hpcc, pacc, bfc and rocc: D0, D5 5 Gb/s, D1..D4 8.75 Gb/s"
	s.Compare = append([]string(nil), roccFig12Compare...)
	return s
}

// roccFig12b is rocc-asymmetric under the systems of Fig. 12(b).
func roccFig12b() *harness.Scenario {
	s := roccAsymmetric()
	s.Description = "RoCC Fig. 12(b): 5 sources at 40 Gb/s and 2 at 100 Gb/s into one 100 Gb/s port under dcqcn, hpcc, pacc, bfc and rocc: 14.29 Gb/s each"
	s.Compare = append([]string(nil), roccFig12Compare...)
	return s
}

// The large-scale network of [RoCC] §VI-D: 3 edge switches of 30 hosts at
// 40 Gb/s, each edge switch linked to each of 3 core switches by two
// 100 Gb/s links (2:1 oversubscribed); the hosts behind the first two edge
// switches send to those behind the third. hwcc builds it as a leaf-spine
// of 3 leaves and 6 spines, one 100 Gb/s link each: each paper core's two
// parallel links are two spines, the same 600 Gb/s per edge switch over
// the same 6 equal-cost paths.
const (
	roccFig15Leaves  = 3
	roccFig15Spines  = 6
	roccFig15PerLeaf = 30
	roccFig15Link    = 40 * units.Gbps
	roccFig15Core    = 100 * units.Gbps
	// roccFig15CoreLoad is the paper's 70 % "average link load", read as
	// the load of the bottleneck: the 600 Gb/s from the core into the
	// receivers' edge switch (the senders' 2400 Gb/s could not all reach
	// 1200 Gb/s of receivers anyway). Each sender then offers
	// 0.7 · 600 / (60 · 40) = 17.5 % of its link.
	roccFig15CoreLoad = 0.7
	// Arrivals for 10 ms (about 300 flows), then 20 ms for them to finish
	// (a WebSearch flow of 30 MB alone at its 40 Gb/s link takes 6 ms);
	// the comparison counts the flows that finished.
	roccFig15Arrivals = 10 * units.Millisecond
	roccFig15Drain    = 20 * units.Millisecond
)

type roccFig15Cfg struct {
	load     float64
	cdf      string
	arrivals units.Time
}

// senderLoad is the Poisson load of each sender that loads the receivers'
// edge switch's core links at c.load.
func (c *roccFig15Cfg) senderLoad() float64 {
	senders := float64((roccFig15Leaves - 1) * roccFig15PerLeaf)
	return c.load * float64(roccFig15Spines) * float64(roccFig15Core) / (senders * float64(roccFig15Link))
}

func (c *roccFig15Cfg) apply(s *harness.Scenario) {
	s.Workload.Poisson.Load = math.Round(c.senderLoad()*1e6) / 1e6
	s.Workload.Poisson.CDF = c.cdf
	s.Workload.Poisson.Stop = harness.Time(c.arrivals)
	s.Duration = harness.Time(c.arrivals + roccFig15Drain)
}

// roccFig15Hosts names hosts h{from}..h{to−1}.
func roccFig15Hosts(from, to int) []string {
	out := make([]string, 0, to-from)
	for i := from; i < to; i++ {
		out = append(out, "h"+strconv.Itoa(i))
	}
	return out
}

func roccFig15() *harness.Scenario {
	s := roccBase("RoCC Fig. 15: WebSearch flows from 60 hosts on two edge switches to 30 on the third, 70 % load on the core links into it, under dcqcn, hpcc, pacc, bfc and rocc: average FCT")
	s.Compare = append([]string(nil), roccFig12Compare...)
	c := &roccFig15Cfg{load: roccFig15CoreLoad, cdf: "websearch", arrivals: roccFig15Arrivals}
	s.Topology = harness.TopologySpec{Kind: "leaf-spine", Leaves: roccFig15Leaves, Spines: roccFig15Spines, HostsPerLeaf: roccFig15PerLeaf,
		Link: harness.Rate(roccFig15Link), CoreLink: harness.Rate(roccFig15Core), Delay: harness.Time(harness.DefaultDelay)}
	senders := (roccFig15Leaves - 1) * roccFig15PerLeaf
	s.Workload.Poisson = &harness.PoissonSpec{
		Hosts: roccFig15Hosts(0, senders), Dsts: roccFig15Hosts(senders, roccFig15Leaves*roccFig15PerLeaf),
	}
	c.apply(s)
	s.Switch.Xoff = harness.Bytes(roccXoffFor(roccFig15Core))
	s.SampleInterval = harness.Time(100 * units.Microsecond)
	s.AddParam(roccKey("core_load", "load of the core links into the receivers' edge switch (default 0.7); sets workload.poisson.load",
		func(v string) error {
			x, err := strconv.ParseFloat(v, 64)
			if err != nil || !(x > 0) || x*float64(roccFig15Spines)*float64(roccFig15Core)/(float64(senders)*float64(roccFig15Link)) > 1 {
				return fmt.Errorf("%q: want a load in (0, %.4g] (each sender's load ≤ 1)", v, float64(senders)*float64(roccFig15Link)/(float64(roccFig15Spines)*float64(roccFig15Core)))
			}
			c.load = x
			return nil
		}, c.apply))
	s.AddParam(roccKey("arrivals", "how long flows arrive (default 10ms); the run lasts 20 ms longer, for them to finish",
		func(v string) error {
			t, err := units.ParseTime(v)
			if err != nil {
				return err
			}
			if t <= 0 || t > 10*units.Second {
				return fmt.Errorf("%q: want a time in (0, 10s]", v)
			}
			c.arrivals = t
			return nil
		}, c.apply))
	s.AddParam(roccKey("flow_sizes", "flow-size distribution: "+strings.Join(workloads.Names(), ", ")+" (default websearch; the paper's other is fbhadoop)",
		func(v string) error {
			if _, err := workloads.Named(v); err != nil {
				return err
			}
			c.cdf = v
			return nil
		}, c.apply))
	return s
}

func init() {
	registerBuiltins([]builtinScenario{
		{roccFig11aName, roccFig11a},
		{roccFig12aName, roccFig12a},
		{roccFig12bName, roccFig12b},
		{roccFig15Name, roccFig15},
	})
}
