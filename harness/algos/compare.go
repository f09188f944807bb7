package algos

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/hwcc/hwcc/harness"
	"github.com/hwcc/hwcc/units"
)

// The default scenario of `hwcc sim`: one long flow and an incast of several
// senders joining it at 100 Gb/s, run under RoCC, HPCC, DCQCN, DCTCP, QCN,
// BECN and FECN side by side (harness.Compare). It is HPCC's "incast into a
// long flow" micro-benchmark ([HPCC] §5.4, Fig. 9c) at the section 5.4 scale:
// hosts on one switch, 100 Gb/s links with 1 µs delay, 1000-byte payloads,
// the 32 MB shared buffer, PFC on with Xoff 500 KB.
//
//	h1 → h0           long-lived, from t = 0
//	h2.. → h0         `senders` (8) flows of `size` (500 KB) at `at` (500 µs)
//
// The run lasts 3 ms and is measured from 100 µs, so each algorithm has
// settled the long flow before the incast and has time to recover after it.
// Every algorithm runs with its adapter's defaults for a 100 Gb/s port (see
// the package documentation); algorithm parameters can be given
// to one algorithm only as `-set param.ALGO.NAME=V`.
const (
	compareName     = "compare"
	compareSenders  = 8
	compareSize     = 500 * units.KB
	compareAt       = 500 * units.Microsecond
	compareDuration = 3 * units.Millisecond
	compareFrom     = 100 * units.Microsecond
)

// compareAlgorithms are the algorithms of the default comparison, in the
// order the table prints them.
//
// The classics that fit a 100 Gb/s incast with their published constants
// are included (QCN, with Qeq scaled to the link; BECN; FECN); TIMELY is
// not: its flows start at the line rate and Algorithm 1 takes them to the
// minimum rate, from which it does not recover within the run
// (timely-fairness shows it where it works).
var compareAlgorithms = []string{"rocc", "hpcc", "dcqcn", "dctcp", qcnName, becnName, fecnName}

func compareScenario() *harness.Scenario {
	s := harness.DefaultScenario()
	s.Name = compareName
	s.Description = "a long flow h1→h0 and `senders` (8) × `size` (500KB) joining it at `at` (500us), 100 Gb/s star, under rocc, hpcc, dcqcn, dctcp, qcn, becn and fecn"
	s.Algorithm = compareAlgorithms[0]
	s.Compare = append([]string(nil), compareAlgorithms...)
	s.Topology = harness.TopologySpec{Kind: "star", Link: harness.Rate(100 * units.Gbps), Delay: harness.Time(harness.DefaultDelay)}
	s.Workload.Flows = []harness.FlowSpec{{Src: "h1", Dst: "h0"}}
	s.Workload.Incast = []harness.IncastSpec{{
		Senders: compareSenders, Hosts: compareHosts(compareSenders),
		Dst: "h0", Size: harness.Bytes(compareSize), At: harness.Time(compareAt),
	}}
	s.Duration = harness.Time(compareDuration)
	s.MeasureFrom = harness.Time(compareFrom)
	s.SampleInterval = harness.Time(5 * units.Microsecond)
	incast := func(s *harness.Scenario) *harness.IncastSpec { return &s.Workload.Incast[0] }
	s.AddParam(harness.Param{Name: "senders", Help: "incast senders joining the long flow (1..4000)", Set: func(s *harness.Scenario, v string) error {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 1 || n > 4000 {
			return fmt.Errorf("%q: want a whole number in 1..4000", v)
		}
		incast(s).Senders, incast(s).Hosts = n, compareHosts(n)
		return nil
	}})
	s.AddParam(harness.Param{Name: "size", Help: "size of each incast flow (> 0)", Set: func(s *harness.Scenario, v string) error {
		b, err := units.ParseBytes(v)
		if err != nil {
			return err
		}
		if b <= 0 {
			return fmt.Errorf("%q: want a size > 0", v)
		}
		incast(s).Size = harness.Bytes(b)
		return nil
	}})
	s.AddParam(harness.Param{Name: "at", Help: "when the incast starts (a time < duration)", Set: func(s *harness.Scenario, v string) error {
		t, err := units.ParseTime(v)
		if err != nil {
			return err
		}
		if t < 0 {
			return fmt.Errorf("%q: want a time >= 0", v)
		}
		incast(s).At = harness.Time(t)
		return nil
	}})
	return s
}

// compareHosts names the incast senders h2, h3, ...: h1 is the long flow's
// sender and h0 the receiver, so the incast shares only the switch port to
// h0 with the long flow.
func compareHosts(n int) []string {
	hosts := make([]string, n)
	for i := range hosts {
		hosts[i] = "h" + strconv.Itoa(i+2)
	}
	return hosts
}

func init() { registerBuiltins([]builtinScenario{{compareName, compareScenario}}) }
