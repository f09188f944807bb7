package algos

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/hwcc/hwcc/harness"
	"github.com/hwcc/hwcc/units"
)

// Scenario names.
const (
	dcqcnFairnessName = "dcqcn-fairness"
	dcqcnIncastName   = "dcqcn-incast"
)

// Defaults of the DCQCN scenarios.
const (
	dcqcnScenarioLink  = 25 * units.Gbps
	dcqcnFairSenders   = 2
	dcqcnFairStagger   = 1 * units.Millisecond
	dcqcnFairSettle    = 20 * units.Millisecond
	dcqcnFairWindow    = 40 * units.Millisecond
	dcqcnFairSample    = 100 * units.Microsecond
	dcqcnIncastSenders = 7
	dcqcnIncastSize    = 500 * units.KB
	dcqcnIncastAt      = 1 * units.Millisecond
	dcqcnIncastSample  = 1 * units.Microsecond
	// dcqcnIncastMargin is added to the incast's drain time.
	dcqcnIncastMargin = 1 * units.Millisecond
	// dcqcnMaxSenders: a star has at most harness.MaxHosts (4096) hosts, one is h0.
	dcqcnMaxSenders = 4000
	// dcqcnXoffPercent: PFC Xoff is 11 % of the shared buffer.
	dcqcnXoffPercent = 11
)

// dcqcnFairnessSpec is the shape of a fairness scenario.
type dcqcnFairnessSpec struct {
	senders                 int
	stagger, settle, window units.Time
}

// dcqcnApplyFairness sets s's fan-in, duration and measurement window
// from f.
func dcqcnApplyFairness(s *harness.Scenario, f dcqcnFairnessSpec) {
	s.Workload.FanIn = &harness.FanInSpec{Senders: f.senders, Stagger: harness.Time(f.stagger)}
	last := units.Time(f.senders-1) * f.stagger
	s.MeasureFrom = harness.Time(last + f.settle)
	s.MeasureTo = 0
	s.Duration = harness.Time(last + f.settle + f.window)
}

// dcqcnReadFairness recovers the spec from s (the keys change one field).
func dcqcnReadFairness(s *harness.Scenario) dcqcnFairnessSpec {
	fi := s.Workload.FanIn
	f := dcqcnFairnessSpec{senders: fi.Senders, stagger: units.Time(fi.Stagger)}
	last := units.Time(f.senders-1) * f.stagger
	f.settle = units.Time(s.MeasureFrom) - last
	f.window = units.Time(s.Duration - s.MeasureFrom)
	return f
}

// dcqcnBase is the testbed setup with no workload.
func dcqcnBase(algo, desc string, link units.Rate) *harness.Scenario {
	s := harness.DefaultScenario()
	s.Algorithm = algo
	s.Description = desc
	s.Topology = harness.TopologySpec{Kind: "star", Link: harness.Rate(link), Delay: harness.Time(harness.DefaultDelay)}
	s.Switch.Xoff = harness.Bytes(units.Bytes(s.Switch.Buffer) * dcqcnXoffPercent / 100)
	return s
}

// dcqcnFairnessScenario returns a fairness scenario for algo.
func dcqcnFairnessScenario(algo, desc string, link units.Rate, f dcqcnFairnessSpec) *harness.Scenario {
	s := dcqcnBase(algo, desc, link)
	s.SampleInterval = harness.Time(dcqcnFairSample)
	dcqcnApplyFairness(s, f)
	edit := func(change func(*dcqcnFairnessSpec, units.Time, int)) func(*harness.Scenario, units.Time, int) {
		return func(s *harness.Scenario, t units.Time, n int) {
			f := dcqcnReadFairness(s)
			change(&f, t, n)
			dcqcnApplyFairness(s, f)
		}
	}
	s.AddParam(dcqcnCountKey("senders", fmt.Sprintf("number of long flows h1.. -> h0 (default %d)", f.senders), 1, dcqcnMaxSenders,
		edit(func(f *dcqcnFairnessSpec, _ units.Time, n int) { f.senders = n })))
	s.AddParam(dcqcnTimeKey("stagger", fmt.Sprintf("time between flow starts (default %v)", f.stagger), true,
		edit(func(f *dcqcnFairnessSpec, t units.Time, _ int) { f.stagger = t })))
	s.AddParam(dcqcnTimeKey("settle", fmt.Sprintf("time from the last start to the measurement window (default %v)", f.settle), true,
		edit(func(f *dcqcnFairnessSpec, t units.Time, _ int) { f.settle = t })))
	s.AddParam(dcqcnTimeKey("window", fmt.Sprintf("length of the measurement window (default %v)", f.window), false,
		edit(func(f *dcqcnFairnessSpec, t units.Time, _ int) { f.window = t })))
	return s
}

// dcqcnIncastSpec is the shape of an incast scenario.
type dcqcnIncastSpec struct {
	senders int
	size    units.Bytes
	at      units.Time
}

// dcqcnApplyIncast sets s's flows, duration and measurement window from
// ic: the long flow h1 → h0 and the incast from h2.. at ic.at.
func dcqcnApplyIncast(s *harness.Scenario, ic dcqcnIncastSpec) {
	s.Workload.Flows = []harness.FlowSpec{{Src: "h1", Dst: "h0"}}
	hosts := make([]string, ic.senders)
	for i := range hosts {
		hosts[i] = fmt.Sprintf("h%d", i+2)
	}
	s.Workload.Incast = []harness.IncastSpec{{Hosts: hosts, Dst: "h0", Size: harness.Bytes(ic.size), At: harness.Time(ic.at)}}
	link := units.Rate(s.Topology.Link)
	// The incast and the long flow's share: (senders + 1)·size at the line
	// rate, twice over (headers, control-loop losses and unfair shares:
	// DCTCP's long flow keeps most of the link for milliseconds, see
	// TestDCTCPRPNoGrowthWhenNotCwndLimited), plus a margin, rounded up to
	// 100 µs.
	drain := 2*units.SerializationTime(units.Bytes(ic.senders+1)*ic.size, link) + dcqcnIncastMargin
	const step = 100 * units.Microsecond
	s.Duration = harness.Time((ic.at + drain + step - 1) / step * step)
	s.MeasureFrom = harness.Time(ic.at)
	s.MeasureTo = 0
}

// dcqcnReadIncast recovers the spec from s.
func dcqcnReadIncast(s *harness.Scenario) dcqcnIncastSpec {
	ic := s.Workload.Incast[0]
	return dcqcnIncastSpec{senders: len(ic.Hosts), size: units.Bytes(ic.Size), at: units.Time(ic.At)}
}

// dcqcnIncastScenario returns an incast scenario for algo.
func dcqcnIncastScenario(algo, desc string, link units.Rate, ic dcqcnIncastSpec) *harness.Scenario {
	s := dcqcnBase(algo, desc, link)
	s.SampleInterval = harness.Time(dcqcnIncastSample)
	dcqcnApplyIncast(s, ic)
	edit := func(change func(*dcqcnIncastSpec)) func(*harness.Scenario) {
		return func(s *harness.Scenario) {
			ic := dcqcnReadIncast(s)
			change(&ic)
			dcqcnApplyIncast(s, ic)
		}
	}
	s.AddParam(dcqcnCountKey("senders", fmt.Sprintf("number of incast senders, hosts h2.. (default %d)", ic.senders), 1, dcqcnMaxSenders-1,
		func(s *harness.Scenario, _ units.Time, n int) { edit(func(ic *dcqcnIncastSpec) { ic.senders = n })(s) }))
	s.AddParam(harness.Param{Name: "size", Help: fmt.Sprintf("size of each incast flow (default %v)", ic.size), Set: func(s *harness.Scenario, v string) error {
		b, err := units.ParseBytes(v)
		if err != nil {
			return err
		}
		if b <= 0 {
			return fmt.Errorf("%q: want a size > 0", v)
		}
		edit(func(ic *dcqcnIncastSpec) { ic.size = b })(s)
		return nil
	}})
	s.AddParam(dcqcnTimeKey("at", fmt.Sprintf("start of the incast (default %v)", ic.at), true,
		func(s *harness.Scenario, t units.Time, _ int) { edit(func(ic *dcqcnIncastSpec) { ic.at = t })(s) }))
	s.AddParam(dcqcnLinkKey(func(s *harness.Scenario) { dcqcnApplyIncast(s, dcqcnReadIncast(s)) }))
	return s
}

// dcqcnCountKey is a key for a whole number in lo..hi.
func dcqcnCountKey(name, help string, lo, hi int, apply func(*harness.Scenario, units.Time, int)) harness.Param {
	return harness.Param{Name: name, Help: help, Set: func(s *harness.Scenario, v string) error {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < lo || n > hi {
			return fmt.Errorf("%q: want a whole number in %d..%d", v, lo, hi)
		}
		apply(s, 0, n)
		return nil
	}}
}

// dcqcnTimeKey is a key for a time ≥ 0 (> 0 unless zeroOK), at most 100 s.
func dcqcnTimeKey(name, help string, zeroOK bool, apply func(*harness.Scenario, units.Time, int)) harness.Param {
	return harness.Param{Name: name, Help: help, Set: func(s *harness.Scenario, v string) error {
		t, err := units.ParseTime(v)
		if err != nil {
			return err
		}
		if t < 0 || (t == 0 && !zeroOK) || t > 100*units.Second {
			if zeroOK {
				return fmt.Errorf("%q: want a time in 0..100s", v)
			}
			return fmt.Errorf("%q: want a time in (0, 100s]", v)
		}
		apply(s, t, 0)
		return nil
	}}
}

// dcqcnLinkKey shadows the common link key so that refit runs after it.
func dcqcnLinkKey(refit func(*harness.Scenario)) harness.Param {
	return harness.Param{Name: "link", Help: "rate of every link", Set: func(s *harness.Scenario, v string) error {
		r, err := units.ParseRate(v)
		if err != nil {
			return err
		}
		if r <= 0 {
			return fmt.Errorf("%q: a link needs a rate > 0", v)
		}
		s.Topology.Link = harness.Rate(r)
		refit(s)
		return nil
	}}
}

func init() {
	registerBuiltins([]builtinScenario{
		{dcqcnFairnessName, func() *harness.Scenario {
			return dcqcnFairnessScenario(dcqcnName,
				"DCQCN fairness: `senders` (2) long flows into h0 at 25Gbps, one starting every `stagger` (1ms); measured over `window` (40ms) after `settle` (20ms)",
				dcqcnScenarioLink, dcqcnFairnessSpec{senders: dcqcnFairSenders, stagger: dcqcnFairStagger, settle: dcqcnFairSettle, window: dcqcnFairWindow})
		}},
		{dcqcnIncastName, func() *harness.Scenario {
			return dcqcnIncastScenario(dcqcnName,
				"HPCC testbed Fig. 9c at 25Gbps: long flow h1->h0; at `at` (1ms) `senders` (7) flows of `size` (500KB) from h2.. into h0",
				dcqcnScenarioLink, dcqcnIncastSpec{senders: dcqcnIncastSenders, size: dcqcnIncastSize, at: dcqcnIncastAt})
		}},
	})
}
