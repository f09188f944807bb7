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
	hpccIncastName     = "hpcc-incast"
	hpccLongShortName  = "hpcc-long-short"
	hpccIntoLongName   = "hpcc-incast-into-long"
	hpccFairnessName   = "hpcc-fairness"
	hpccSampleInterval = 1 * units.Microsecond
)

// Scenario defaults.
const (
	hpccIncastSenders  = 16
	hpccIncastSize     = 1 * units.MB
	hpccShortSize      = 1 * units.MB
	hpccShortStart     = 100 * units.Microsecond
	hpccIntoSenders    = 7
	hpccIntoSize       = 500 * units.KB
	hpccIntoAt         = 100 * units.Microsecond
	hpccFairFlows      = 4
	hpccFairStep       = 5 * units.Millisecond
	hpccFairSample     = 10 * units.Microsecond
	hpccMaxSenders     = 4000 // a star has at most harness.MaxHosts (4096) hosts
	hpccDurationMargin = 200 * units.Microsecond
)

// hpccDurationFor returns the time bytes of payload need on a link of rate
// r, with a margin: ×5/4 for headers, INT and HPCC's 95 % target
// (1092/1000 wire bytes per payload byte ÷ 0.95 = 1.15), plus
// hpccDurationMargin for start-up and the last ACKs, rounded up to 100 µs.
func hpccDurationFor(bytes units.Bytes, r units.Rate) units.Time {
	t := units.SerializationTime(bytes, r)*5/4 + hpccDurationMargin
	const step = 100 * units.Microsecond
	return (t + step - 1) / step * step
}

// hpccExtend lengthens s.Duration to at least d.
func hpccExtend(s *harness.Scenario, d units.Time) {
	if harness.Time(d) > s.Duration {
		s.Duration = harness.Time(d)
	}
}

// hpccLink returns the host link rate of s (the topology default if unset).
func hpccLink(s *harness.Scenario) units.Rate {
	if s.Topology.Link > 0 {
		return units.Rate(s.Topology.Link)
	}
	return harness.DefaultLink
}

// hpccBase is the section 5.4 setup with no workload.
func hpccBase(desc string) *harness.Scenario {
	s := harness.DefaultScenario()
	s.Algorithm = hpccName
	s.Description = desc
	s.Topology = harness.TopologySpec{Kind: "star", Link: harness.Rate(harness.DefaultLink), Delay: harness.Time(harness.DefaultDelay)}
	s.SampleInterval = harness.Time(hpccSampleInterval)
	s.Duration = 0 // each scenario's fit sets it
	return s
}

// hpccKeys adds keys to s; after each, fit lengthens the duration.
func hpccKeys(s *harness.Scenario, fit func(*harness.Scenario), keys ...harness.Param) {
	for _, k := range keys {
		set := k.Set
		k.Set = func(s *harness.Scenario, v string) error {
			if err := set(s, v); err != nil {
				return err
			}
			fit(s)
			return nil
		}
		s.AddParam(k)
	}
}

// hpccCountKey is a key for a whole number in lo..hi.
func hpccCountKey(name, help string, lo, hi int, apply func(*harness.Scenario, int)) harness.Param {
	return harness.Param{Name: name, Help: help, Set: func(s *harness.Scenario, v string) error {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < lo || n > hi {
			return fmt.Errorf("%q: want a whole number in %d..%d", v, lo, hi)
		}
		apply(s, n)
		return nil
	}}
}

// hpccBytesKey is a key for a size > 0.
func hpccBytesKey(name, help string, apply func(*harness.Scenario, units.Bytes)) harness.Param {
	return harness.Param{Name: name, Help: help, Set: func(s *harness.Scenario, v string) error {
		b, err := units.ParseBytes(v)
		if err != nil {
			return err
		}
		if b <= 0 {
			return fmt.Errorf("%q: want a size > 0", v)
		}
		apply(s, b)
		return nil
	}}
}

// hpccTimeKey is a key for a time ≥ 0 (> 0 unless zeroOK).
func hpccTimeKey(name, help string, zeroOK bool, apply func(*harness.Scenario, units.Time)) harness.Param {
	return harness.Param{Name: name, Help: help, Set: func(s *harness.Scenario, v string) error {
		t, err := units.ParseTime(v)
		if err != nil {
			return err
		}
		if t < 0 || (t == 0 && !zeroOK) {
			return fmt.Errorf("%q: want a time > 0", v)
		}
		apply(s, t)
		return nil
	}}
}

// hpccLinkKey shadows the common link key so that the duration follows.
func hpccLinkKey() harness.Param {
	return harness.Param{Name: "link", Help: "rate of every link (default 100Gbps)", Set: func(s *harness.Scenario, v string) error {
		r, err := units.ParseRate(v)
		if err != nil {
			return err
		}
		if r <= 0 {
			return fmt.Errorf("%q: a link needs a rate > 0", v)
		}
		s.Topology.Link = harness.Rate(r)
		return nil
	}}
}

// hpccSenders returns the host names h{first}..h{first+n-1}.
func hpccSenders(first, n int) []string {
	h := make([]string, n)
	for i := range h {
		h[i] = fmt.Sprintf("h%d", first+i)
	}
	return h
}

// hpccIncastScenario: section 5.4's 16-to-1 incast.
func hpccIncastScenario() *harness.Scenario {
	s := hpccBase("HPCC §5.4: `senders` (16) flows of `size` (1MB) start together into h0 across one switch")
	incastOf(s, hpccIncastSenders, hpccIncastSize)
	return s
}

// incastOf gives star scenario s one incast of senders flows of size
// into h0 at t = 0 (the shape of HPCC's section 5.4, also the CBFC and
// ExpressPass incasts), a duration that fits it, and the keys senders,
// size and link, after each of which the duration follows.
func incastOf(s *harness.Scenario, senders int, size units.Bytes) {
	s.Workload.Incast = []harness.IncastSpec{{Senders: senders, Size: harness.Bytes(size)}}
	fit := func(s *harness.Scenario) {
		ic := s.Workload.Incast[0]
		hpccExtend(s, units.Time(ic.At)+hpccDurationFor(units.Bytes(ic.Size)*units.Bytes(ic.Senders), hpccLink(s)))
	}
	fit(s)
	hpccKeys(s, fit,
		hpccCountKey("senders", fmt.Sprintf("number of incast senders (default %d)", senders), 1, hpccMaxSenders, func(s *harness.Scenario, n int) {
			s.Workload.Incast[0].Senders, s.Workload.Incast[0].Hosts = n, nil
		}),
		hpccBytesKey("size", fmt.Sprintf("size of each incast flow (default %v)", size), func(s *harness.Scenario, b units.Bytes) {
			s.Workload.Incast[0].Size = harness.Bytes(b)
		}),
		hpccLinkKey(),
	)
}

// hpccLongShortScenario: Figure 9a, a long flow and a short one that joins
// and leaves.
func hpccLongShortScenario() *harness.Scenario {
	s := hpccBase("HPCC Fig. 9a: long flow h1->h0; a `size` (1MB) flow h2->h0 joins at `start` (100us) and leaves when done")
	s.Workload.Flows = []harness.FlowSpec{
		{Src: "h1", Dst: "h0"},
		{Src: "h2", Dst: "h0", Size: harness.Bytes(hpccShortSize), Start: harness.Time(hpccShortStart)},
	}
	fit := func(s *harness.Scenario) {
		sh := s.Workload.Flows[1]
		// The short flow gets about half the link: twice its size.
		hpccExtend(s, units.Time(sh.Start)+hpccDurationFor(2*units.Bytes(sh.Size), hpccLink(s)))
	}
	fit(s)
	hpccKeys(s, fit,
		hpccBytesKey("size", "size of the short flow (default 1MB)", func(s *harness.Scenario, b units.Bytes) {
			s.Workload.Flows[1].Size = harness.Bytes(b)
		}),
		hpccTimeKey("start", "start of the short flow (default 100us)", true, func(s *harness.Scenario, t units.Time) {
			s.Workload.Flows[1].Start = harness.Time(t)
		}),
		hpccLinkKey(),
	)
	return s
}

// hpccIntoLongScenario: Figure 9c, an incast into the receiver of a long
// flow.
func hpccIntoLongScenario() *harness.Scenario {
	s := hpccBase("HPCC Fig. 9c: long flow h1->h0; at `at` (100us) `senders` (7) flows of `size` (500KB) from h2.. join it")
	s.Workload.Flows = []harness.FlowSpec{{Src: "h1", Dst: "h0"}}
	s.Workload.Incast = []harness.IncastSpec{{
		Hosts: hpccSenders(2, hpccIntoSenders), Dst: "h0", Size: harness.Bytes(hpccIntoSize), At: harness.Time(hpccIntoAt),
	}}
	fit := func(s *harness.Scenario) {
		ic := s.Workload.Incast[0]
		n := units.Bytes(len(ic.Hosts))
		// The long flow keeps a 1/(n+1) share meanwhile.
		hpccExtend(s, units.Time(ic.At)+hpccDurationFor(units.Bytes(ic.Size)*(n+1), hpccLink(s)))
	}
	fit(s)
	hpccKeys(s, fit,
		hpccCountKey("senders", "number of incast senders, hosts h2.. (default 7)", 1, hpccMaxSenders, func(s *harness.Scenario, n int) {
			s.Workload.Incast[0].Hosts = hpccSenders(2, n)
		}),
		hpccBytesKey("size", "size of each incast flow (default 500KB)", func(s *harness.Scenario, b units.Bytes) {
			s.Workload.Incast[0].Size = harness.Bytes(b)
		}),
		hpccTimeKey("at", "start of the incast (default 100us)", true, func(s *harness.Scenario, t units.Time) {
			s.Workload.Incast[0].At = harness.Time(t)
		}),
		hpccLinkKey(),
	)
	return s
}

// hpccFairnessFlows sets n long flows h1..hn → h0, flow i joining at
// i·step and leaving at (2n−1−i)·step, the duration (2n−1)·step and the
// measurement window to the second half of the phase with all n flows,
// [(n−½)·step, n·step), so that Report.Fairness.Jain is the index of the
// n flows once they have had half a step to converge.
func hpccFairnessFlows(s *harness.Scenario, n int, step units.Time) {
	s.Workload.Flows = s.Workload.Flows[:0]
	for i := 0; i < n; i++ {
		s.Workload.Flows = append(s.Workload.Flows, harness.FlowSpec{
			Src: fmt.Sprintf("h%d", i+1), Dst: "h0",
			Start: harness.Time(units.Time(i) * step),
			Stop:  harness.Time(units.Time(2*n-1-i) * step),
		})
	}
	s.Duration = harness.Time(units.Time(2*n-1) * step)
	s.MeasureFrom = harness.Time(units.Time(n-1)*step + step/2)
	s.MeasureTo = harness.Time(units.Time(n) * step)
}

// hpccFairnessScenario: Figure 9g, flows joining one by one and leaving.
func hpccFairnessScenario() *harness.Scenario {
	s := hpccBase("HPCC Fig. 9g: `senders` (4) long flows into h0 join one every `step` (5ms), then leave in reverse order")
	s.SampleInterval = harness.Time(hpccFairSample)
	fairnessOf(s, hpccFairFlows, hpccFairStep)
	return s
}

// fairnessOf gives star scenario s n long flows joining one every step
// and leaving in reverse order (hpccFairnessFlows), and the keys senders
// and step, which rebuild the flows (the order of -set keys does not
// matter).
func fairnessOf(s *harness.Scenario, n int, step units.Time) {
	hpccFairnessFlows(s, n, step)
	s.AddParam(hpccCountKey("senders", fmt.Sprintf("number of flows (default %d)", n), 1, hpccMaxSenders, func(s *harness.Scenario, n int) {
		hpccFairnessFlows(s, n, units.Time(s.Workload.Flows[0].Stop)/units.Time(2*len(s.Workload.Flows)-1))
	}))
	s.AddParam(hpccTimeKey("step", fmt.Sprintf("time between joins and between leaves (default %v)", step), false, func(s *harness.Scenario, t units.Time) {
		hpccFairnessFlows(s, len(s.Workload.Flows), t)
	}))
}

func init() {
	registerBuiltins([]builtinScenario{
		{hpccIncastName, hpccIncastScenario},
		{hpccLongShortName, hpccLongShortScenario},
		{hpccIntoLongName, hpccIntoLongScenario},
		{hpccFairnessName, hpccFairnessScenario},
	})
}
