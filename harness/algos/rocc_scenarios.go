package algos

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/hwcc/hwcc/harness"
	"github.com/hwcc/hwcc/units"
)

// Scenario names.
const (
	roccFairnessName    = "rocc-fairness"
	roccConvergenceName = "rocc-convergence"
	roccMultiName       = "rocc-multibottleneck"
	roccAsymName        = "rocc-asymmetric"
	roccMaxMinName      = "rocc-maxmin"
)

// Scenario defaults.
const (
	// roccOfferedLoad is the offered load of every source, 90 % of its link
	// (section VI-A a).
	roccOfferedLoad = 0.9
	// roccFairSenders and roccFairLink: N = 10 at B = 40 Gb/s (Fig. 8 and
	// Fig. 11's setting).
	roccFairSenders = 10
	roccFairLink    = 40 * units.Gbps
	// Run lengths and measurement windows. With Algorithm 1 as printed
	// RoCC's fair rate settles more slowly than the paper's "~2 ms" for
	// small N from a simultaneous start at 90 % of the link, because line 3
	// of Algorithm 1 resets F to Fmin and the PI climbs back slowly
	// (param.idle_gain=on speeds the climb). Each window opens after the
	// slowest default case of its scenario has settled, with margin:
	// rocc-fairness N = 2, 10, 100 (window [8, 12) ms), rocc-multibottleneck
	// S0's CP ([12, 20) ms), rocc-asymmetric ([6, 10) ms), rocc-maxmin
	// 10/3/1 on 10 Gb/s and 40/30/10 on 40 Gb/s ([10, 15) ms).
	// TestRoCCFairnessFig8 requires F to settle before its window opens and
	// logs each settling time (go test -v -run TestRoCC ./harness/algos);
	// the other tests require the max-min shares over the window.
	roccFairDuration  = 12 * units.Millisecond
	roccFairFrom      = 8 * units.Millisecond
	roccMultiDuration = 20 * units.Millisecond
	roccMultiFrom     = 12 * units.Millisecond
	roccAsymDuration  = 10 * units.Millisecond
	roccAsymFrom      = 6 * units.Millisecond
	// The convergence staircase (Fig. 9): 3 → 100 flows in 5 ≈doublings
	// (3, 6, 12, 25, 50, 100) every 10 ms, the paper's step: 110 ms
	// simulated by default.
	roccConvStart = 3
	roccConvMax   = 100
	roccConvSteps = 5
	roccConvStep  = 10 * units.Millisecond
	// The max-min run (three senders).
	roccMaxMinLink     = 10 * units.Gbps
	roccMaxMinDuration = 15 * units.Millisecond
	roccMaxMinFrom     = 10 * units.Millisecond
	// PFC thresholds of section VI: 500 KB for 40 Gb/s, 800 KB for 100 Gb/s.
	roccXoff40  = 500 * units.KB
	roccXoff100 = 800 * units.KB
	// roccPool is each switch's shared pool. The paper states no buffer
	// size; the authors' simulator gives the bottleneck egress queue a
	// drop-tail capacity of 5000 KB with PFC off
	// (github.com/danushkam/rocc, rocc/simple-fabric-dyn.ini,
	// queueCapacity = 5000, in KB = 1000 B). The lossless harness maps that
	// to a shared pool of the same size with the PFC headroom of the
	// switch's ports on top (harness SwitchSpec.Pool): both cap a burst at
	// 5 MB, and the pool stays 5 MB however many senders a scenario has.
	roccPool = 5 * units.MB
	// roccSample is the time-series step of the scenarios.
	roccSample = 10 * units.Microsecond
	// roccMaxHosts bounds flow counts: a star has at most harness.MaxHosts (4096) hosts.
	roccMaxHosts = 4000
)

// roccMaxMinDefault is the DPDK testbed's mix (section VI-B).
var roccMaxMinDefault = []units.Rate{10 * units.Gbps, 3 * units.Gbps, 1 * units.Gbps}

// roccXoffFor returns the paper's PFC threshold for a bottleneck of rate r.
func roccXoffFor(r units.Rate) units.Bytes {
	if r > roccAutoSplit {
		return roccXoff100
	}
	return roccXoff40
}

// roccOffered returns load·link rounded to a whole bit/s.
func roccOffered(link units.Rate, load float64) harness.Rate {
	return harness.Rate(math.Round(float64(link) * load))
}

// roccBase returns a scenario with the settings every RoCC scenario shares.
func roccBase(desc string) *harness.Scenario {
	s := harness.DefaultScenario()
	s.Algorithm = roccName
	s.Description = desc
	s.SampleInterval = harness.Time(roccSample)
	s.Switch.Pool = harness.Bytes(roccPool)
	return s
}

// roccKey is a scenario key whose value parse turns into a setting; apply
// then rebuilds the scenario's derived fields.
func roccKey(name, help string, parse func(v string) error, apply func(*harness.Scenario)) harness.Param {
	return harness.Param{Name: name, Help: help, Set: func(s *harness.Scenario, v string) error {
		if err := parse(strings.TrimSpace(v)); err != nil {
			return err
		}
		apply(s)
		return nil
	}}
}

// roccParseRate reads a link rate > 0 into dst.
func roccParseRate(dst *units.Rate) func(string) error {
	return func(v string) error {
		r, err := units.ParseRate(v)
		if err != nil {
			return err
		}
		if r <= 0 {
			return fmt.Errorf("%q: a link needs a rate > 0", v)
		}
		*dst = r
		return nil
	}
}

// roccParseLoad reads a fraction in (0, 1] into dst.
func roccParseLoad(dst *float64) func(string) error {
	return func(v string) error {
		x, err := strconv.ParseFloat(v, 64)
		if err != nil || !(x > 0 && x <= 1) {
			return fmt.Errorf("%q: want a fraction of the link rate in (0, 1]", v)
		}
		*dst = x
		return nil
	}
}

// roccParseCount reads a whole number in lo..hi into dst.
func roccParseCount(dst *int, lo, hi int) func(string) error {
	return func(v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < lo || n > hi {
			return fmt.Errorf("%q: want a whole number in %d..%d", v, lo, hi)
		}
		*dst = n
		return nil
	}
}

// roccParseRates reads a comma-separated list of rates > 0.
func roccParseRates(dst *[]units.Rate) func(string) error {
	return func(v string) error {
		parts := strings.Split(v, ",")
		if len(parts) > roccMaxHosts {
			return fmt.Errorf("%d rates: want at most %d", len(parts), roccMaxHosts)
		}
		out := make([]units.Rate, 0, len(parts))
		for _, p := range parts {
			r, err := units.ParseRate(strings.TrimSpace(p))
			if err != nil {
				return err
			}
			if r <= 0 {
				return fmt.Errorf("%q: want rates > 0 separated by commas, such as 10Gbps,3Gbps,1Gbps", v)
			}
			out = append(out, r)
		}
		*dst = out
		return nil
	}
}

// ---- rocc-fairness ----

type roccFairnessCfg struct {
	link units.Rate
	load float64
}

func (c *roccFairnessCfg) apply(s *harness.Scenario) {
	s.Topology.Link = harness.Rate(c.link)
	s.Workload.FanIn.Rate = roccOffered(c.link, c.load)
	s.Switch.Xoff = harness.Bytes(roccXoffFor(c.link))
}

func roccFairness() *harness.Scenario {
	s := roccBase("`senders` (10) flows offered 0.9 of the link into one 40 Gb/s port (RoCC Fig. 8): each gets C/N")
	c := &roccFairnessCfg{link: roccFairLink, load: roccOfferedLoad}
	s.Topology = harness.TopologySpec{Kind: "star", Delay: harness.Time(harness.DefaultDelay)}
	s.Workload.FanIn = &harness.FanInSpec{Senders: roccFairSenders}
	s.Duration = harness.Time(roccFairDuration)
	s.MeasureFrom = harness.Time(roccFairFrom)
	c.apply(s)
	s.AddParam(roccKey("link", "host link rate (default 40Gbps); also sets the offered rate and xoff (500KB, 800KB above 40Gbps)",
		roccParseRate(&c.link), c.apply))
	s.AddParam(roccKey("offered_load", "offered rate of each sender as a fraction of the link (default 0.9)",
		roccParseLoad(&c.load), c.apply))
	return s
}

// ---- rocc-convergence ----

type roccConvCfg struct {
	start, max, steps int
	step              units.Time
	link              units.Rate
	load              float64
}

// levels returns the flow counts n_0 = start, …, n_steps = max, spaced
// geometrically: n_k = round(start·(max/start)^(k/steps)), made strictly
// increasing (each step adds at least one flow).
func (c *roccConvCfg) levels() []int {
	n := make([]int, c.steps+1)
	for k := range n {
		v := int(math.Round(float64(c.start) * math.Pow(float64(c.max)/float64(c.start), float64(k)/float64(c.steps))))
		if k > 0 && v <= n[k-1] {
			v = n[k-1] + 1
		}
		n[k] = v
	}
	n[c.steps] = max(n[c.steps], c.max)
	return n
}

// check reports settings that cannot form a staircase.
func (c *roccConvCfg) check() error {
	if c.max < c.start+c.steps {
		return fmt.Errorf("max_flows = %d: want at least start_flows + steps = %d + %d, so that every step adds a flow",
			c.max, c.start, c.steps)
	}
	if d := units.Time(2*c.steps+1) * c.step; d > 100*units.Second {
		return fmt.Errorf("steps = %d, step = %v: the run would last %v, want at most 100s", c.steps, c.step, d)
	}
	return nil
}

// apply rebuilds the flows and the duration. Flow i (0-based) of level k
// (n_{k−1} ≤ i < n_k) starts at k·step and stops at (2·steps + 1 − k)·step;
// the first n_0 flows run throughout.
func (c *roccConvCfg) apply(s *harness.Scenario) {
	lv := c.levels()
	rate := roccOffered(c.link, c.load)
	end := units.Time(2*c.steps+1) * c.step
	flows := make([]harness.FlowSpec, 0, lv[c.steps])
	k := 0
	for i := 0; i < lv[c.steps]; i++ {
		for k < c.steps && i >= lv[k] {
			k++
		}
		f := harness.FlowSpec{Src: fmt.Sprintf("h%d", i+1), Dst: "h0", Rate: rate}
		if i >= lv[0] {
			f.Start = harness.Time(units.Time(k) * c.step)
			f.Stop = harness.Time(units.Time(2*c.steps+1-k) * c.step)
		}
		flows = append(flows, f)
	}
	s.Workload.Flows = flows
	s.Topology.Link = harness.Rate(c.link)
	s.Switch.Xoff = harness.Bytes(roccXoffFor(c.link))
	s.Duration = harness.Time(end)
	s.MeasureFrom, s.MeasureTo = 0, 0
}

func roccConvergence() *harness.Scenario {
	s := roccBase("3 -> 100 -> 3 flows at 40 Gb/s, the count ≈doubling every `step` (10ms) then halving (RoCC Fig. 9)")
	c := &roccConvCfg{start: roccConvStart, max: roccConvMax, steps: roccConvSteps, step: roccConvStep,
		link: roccFairLink, load: roccOfferedLoad}
	s.Topology = harness.TopologySpec{Kind: "star", Delay: harness.Time(harness.DefaultDelay)}
	c.apply(s)
	key := func(name, help string, parse func(string) error) harness.Param {
		return harness.Param{Name: name, Help: help, Set: func(s *harness.Scenario, v string) error {
			old := *c
			if err := parse(strings.TrimSpace(v)); err != nil {
				return err
			}
			if err := c.check(); err != nil {
				*c = old
				return err
			}
			c.apply(s)
			return nil
		}}
	}
	s.AddParam(key("start_flows", "flows at the start and the end (default 3)", roccParseCount(&c.start, 1, roccMaxHosts)))
	s.AddParam(key("max_flows", "flows at the peak (default 100)", roccParseCount(&c.max, 2, roccMaxHosts)))
	s.AddParam(key("steps", "steps from start_flows to max_flows, and back (default 5: ≈doubling)", roccParseCount(&c.steps, 1, 64)))
	s.AddParam(key("step", "time between steps (default 10ms, the paper's)", func(v string) error {
		t, err := units.ParseTime(v)
		if err != nil {
			return err
		}
		if t <= 0 {
			return errors.New("want a time > 0")
		}
		c.step = t
		return nil
	}))
	s.AddParam(key("link", "host link rate (default 40Gbps); also sets the offered rate and xoff", roccParseRate(&c.link)))
	s.AddParam(key("offered_load", "offered rate of each flow as a fraction of the link (default 0.9)", roccParseLoad(&c.load)))
	return s
}

// ---- rocc-multibottleneck ----

type roccMultiCfg struct {
	link, core units.Rate
	load       float64
}

// apply sets the links and the flows D0..D5 (flow i is Di).
func (c *roccMultiCfg) apply(s *harness.Scenario) {
	s.Topology.Link, s.Topology.CoreLink = harness.Rate(c.link), harness.Rate(c.core)
	rate := roccOffered(c.link, c.load)
	s.Workload.Flows = []harness.FlowSpec{{Src: "A0", Dst: "B0", Rate: rate}}
	for i := 1; i <= 4; i++ {
		s.Workload.Flows = append(s.Workload.Flows, harness.FlowSpec{Src: fmt.Sprintf("A%d", i), Dst: fmt.Sprintf("B%d", i), Rate: rate})
	}
	s.Workload.Flows = append(s.Workload.Flows, harness.FlowSpec{Src: "B5", Dst: "B0", Rate: rate})
	s.Switch.Xoff = harness.Bytes(roccXoffFor(max(c.link, c.core)))
}

func roccMultiBottleneck() *harness.Scenario {
	s := roccBase("RoCC Fig. 10: D0 crosses two CPs; fair shares 5 Gb/s (D0, D5) and 8.75 Gb/s (D1..D4)")
	c := &roccMultiCfg{link: 10 * units.Gbps, core: 40 * units.Gbps, load: roccOfferedLoad}
	s.Topology = harness.TopologySpec{Kind: "multi-bottleneck", Delay: harness.Time(harness.DefaultDelay)}
	s.Duration = harness.Time(roccMultiDuration)
	s.MeasureFrom = harness.Time(roccMultiFrom)
	c.apply(s)
	s.AddParam(roccKey("link", "access link rate (default 10Gbps); also sets the offered rates", roccParseRate(&c.link), c.apply))
	s.AddParam(roccKey("core_link", "S0-S1 link rate (default 40Gbps)", roccParseRate(&c.core), c.apply))
	s.AddParam(roccKey("offered_load", "offered rate of each flow as a fraction of its access link (default 0.9)",
		roccParseLoad(&c.load), c.apply))
	return s
}

// ---- rocc-asymmetric ----

type roccAsymCfg struct {
	slow, fast units.Rate
	load       float64
}

// apply sets the links and the flows D0..D6 (Ai → B0, flow i is Di).
func (c *roccAsymCfg) apply(s *harness.Scenario) {
	s.Topology.Link, s.Topology.CoreLink = harness.Rate(c.slow), harness.Rate(c.fast)
	s.Workload.Flows = nil
	for i := 0; i < 7; i++ {
		r := c.slow
		if i >= 5 {
			r = c.fast
		}
		s.Workload.Flows = append(s.Workload.Flows, harness.FlowSpec{Src: fmt.Sprintf("A%d", i), Dst: "B0", Rate: roccOffered(r, c.load)})
	}
	s.Switch.Xoff = harness.Bytes(roccXoffFor(c.fast))
}

func roccAsymmetric() *harness.Scenario {
	s := roccBase("RoCC VI-A e: 5 sources at 40 Gb/s and 2 at 100 Gb/s into one 100 Gb/s port: 14.29 Gb/s each")
	c := &roccAsymCfg{slow: 40 * units.Gbps, fast: 100 * units.Gbps, load: roccOfferedLoad}
	s.Topology = harness.TopologySpec{Kind: "asymmetric", Delay: harness.Time(harness.DefaultDelay)}
	s.Duration = harness.Time(roccAsymDuration)
	s.MeasureFrom = harness.Time(roccAsymFrom)
	c.apply(s)
	s.AddParam(roccKey("link", "rate of A0..A4's links (default 40Gbps); also sets their offered rates", roccParseRate(&c.slow), c.apply))
	s.AddParam(roccKey("core_link", "rate of A5, A6, B0 and the switch links (default 100Gbps); also sets A5, A6's offered rates and xoff",
		roccParseRate(&c.fast), c.apply))
	s.AddParam(roccKey("offered_load", "offered rate of each flow as a fraction of its source's link (default 0.9)",
		roccParseLoad(&c.load), c.apply))
	return s
}

// ---- rocc-maxmin ----

type roccMaxMinCfg struct {
	link    units.Rate
	offered []units.Rate
}

// apply sets the link and one flow h(i+1) → h0 per offered rate.
func (c *roccMaxMinCfg) apply(s *harness.Scenario) {
	s.Topology.Link = harness.Rate(c.link)
	s.Workload.Flows = nil
	for i, r := range c.offered {
		s.Workload.Flows = append(s.Workload.Flows, harness.FlowSpec{Src: fmt.Sprintf("h%d", i+1), Dst: "h0", Rate: harness.Rate(r)})
	}
	s.Switch.Xoff = harness.Bytes(roccXoffFor(c.link))
}

func roccMaxMin() *harness.Scenario {
	s := roccBase("flows offered `offered` (10Gbps,3Gbps,1Gbps) into one `link` (10 Gb/s) port (RoCC VI-B, VI-C): max-min shares")
	c := &roccMaxMinCfg{link: roccMaxMinLink, offered: append([]units.Rate(nil), roccMaxMinDefault...)}
	s.Topology = harness.TopologySpec{Kind: "star", Delay: harness.Time(harness.DefaultDelay)}
	s.Duration = harness.Time(roccMaxMinDuration)
	s.MeasureFrom = harness.Time(roccMaxMinFrom)
	c.apply(s)
	s.AddParam(roccKey("link", "host link rate (default 10Gbps); also sets xoff", roccParseRate(&c.link), c.apply))
	s.AddParam(roccKey("offered", "offered rates of the senders h1, h2, …, comma separated (default 10Gbps,3Gbps,1Gbps)",
		roccParseRates(&c.offered), c.apply))
	return s
}

func init() {
	registerBuiltins([]builtinScenario{
		{roccFairnessName, roccFairness},
		{roccConvergenceName, roccConvergence},
		{roccMultiName, roccMultiBottleneck},
		{roccAsymName, roccAsymmetric},
		{roccMaxMinName, roccMaxMin},
	})
}
