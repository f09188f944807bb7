package harness

import (
	"bytes"
	"encoding/json"
	"math/big"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/units"
)

// builtShape is the shape of the network s built, counted from it.
func builtShape(s *Sim) netShape {
	n := netShape{hosts: len(s.hosts), links: len(s.ports) / 2}
	for _, nd := range s.nodes {
		if !nd.isHost {
			n.switches++
			n.maxPorts = max(n.maxPorts, len(nd.ports))
		}
	}
	for _, h := range s.hosts {
		n.hostRate = max(n.hostRate, h.ports[0].rate)
	}
	return n
}

// TestShapeCounts: the counts Validate bounds, computed without building,
// against the hand counts of TestTopologyShapes (hosts, switches, links)
// and the port count of the busiest switch read off each kind's wiring.
func TestShapeCounts(t *testing.T) {
	cases := []struct {
		topo                             TopologySpec
		hosts, switches, links, maxPorts int
	}{
		{TopologySpec{Kind: "star", Hosts: 5}, 5, 1, 5, 5},
		// s0 has its 3 hosts and the core link.
		{TopologySpec{Kind: "dumbbell", Left: 3, Right: 2}, 5, 2, 6, 4},
		// A middle switch: 2 hosts and its two neighbours.
		{TopologySpec{Kind: "chain", Switches: 4, HostsPerSwitch: 2}, 8, 4, 11, 4},
		{TopologySpec{Kind: "chain", Switches: 1, HostsPerSwitch: 3}, 3, 1, 3, 3},
		// S1: B0..B5 and S0.
		{TopologySpec{Kind: "multi-bottleneck"}, 11, 2, 12, 7},
		// S0: A0..A4 and S2.
		{TopologySpec{Kind: "asymmetric"}, 8, 3, 10, 6},
		// A leaf: 3 hosts and 2 spines; a spine: 4 leaves.
		{TopologySpec{Kind: "leaf-spine", Leaves: 4, Spines: 2, HostsPerLeaf: 3}, 12, 6, 20, 5},
		// Every switch of a fat tree has k ports.
		{TopologySpec{Kind: "fat-tree", K: 6}, 54, 45, 3 * 54, 6},
		// A ToR: 3 hosts and its pod's 3 aggregation switches; an
		// aggregation switch: 2 ToRs and 2 cores.
		{TopologySpec{Kind: "clos", Pods: 2, ToRs: 4, Aggs: 6, Cores: 6, HostsPerToR: 3}, 12, 16, 36, 6},
	}
	for _, c := range cases {
		got := c.topo.shape(nil)
		require.Equal(t, [4]int{c.hosts, c.switches, c.links, c.maxPorts},
			[4]int{got.hosts, got.switches, got.links, got.maxPorts}, "%+v", c.topo)
	}
}

// TestBoundErrors: each bound refuses a scenario just beyond it, naming
// the bound, from Validate (nothing is built).
func TestBoundErrors(t *testing.T) {
	cases := []struct {
		name string
		mod  func(*Scenario)
		want string
	}{
		{"dumbbell hosts", func(s *Scenario) { s.Topology = TopologySpec{Kind: "dumbbell", Left: 4000, Right: 97} },
			"topology dumbbell: 4097 hosts (left + right = 4000 + 97), want at most 4096 (harness.MaxHosts)"},
		{"chain hosts", func(s *Scenario) { s.Topology = TopologySpec{Kind: "chain", Switches: 1024, HostsPerSwitch: 1024} },
			"topology chain: 1048576 hosts (switches × hosts_per_switch = 1024 × 1024), want at most 4096"},
		{"leaf-spine switches", func(s *Scenario) {
			s.Topology = TopologySpec{Kind: "leaf-spine", Leaves: 1000, Spines: 25, HostsPerLeaf: 1}
		}, "topology leaf-spine: 1025 switches (leaves + spines = 1000 + 25), want at most 1024 (harness.MaxSwitches)"},
		// 64·64 host links and 64·512 leaf–spine links.
		{"leaf-spine links", func(s *Scenario) {
			s.Topology = TopologySpec{Kind: "leaf-spine", Leaves: 64, Spines: 512, HostsPerLeaf: 64}
		}, "topology leaf-spine: 36864 links (leaves × hosts_per_leaf = 64 × 64 + leaves × spines = 64 × 512), want at most 16384 (harness.MaxLinks)"},
		// One switch port per host.
		{"voqs", func(s *Scenario) {
			s.Topology = TopologySpec{Kind: "star", Hosts: 2048}
			s.Switch.Scheduler = SchedulerVOQCredit
		}, "topology star: switch.scheduler voq keeps a VOQ per host at every switch port: 2048 ports × 2048 hosts = 4194304 VOQs, want at most 2097152 (harness.MaxVOQs)"},
		{"fan-in senders", func(s *Scenario) { s.Workload.FanIn.Senders = 1e9 },
			"workload.fan_in.senders = 1000000000: want 1..4095 (harness.MaxHosts − 1), or list hosts"},
		{"incast senders", func(s *Scenario) {
			s.Workload = WorkloadSpec{Incast: []IncastSpec{{Senders: 100000, Size: 1000}}}
		}, "workload.incast[0].senders = 100000: want 1..4095"},
		{"host list length", func(s *Scenario) { s.Workload.FanIn = &FanInSpec{Hosts: make([]string, MaxHosts)} },
			"workload.fan_in.hosts: 4096 hosts, want at most 4095 (harness.MaxHosts − 1)"},
		{"host list duplicate", func(s *Scenario) {
			s.Workload = WorkloadSpec{Incast: []IncastSpec{{Hosts: []string{"h1", "h2", "h1"}, Size: 1000}}}
		}, `workload.incast[0].hosts: "h1" is listed twice ([0] and [2])`},
		{"host list empty name", func(s *Scenario) { s.Workload.FanIn = &FanInSpec{Hosts: []string{"h1", ""}} },
			"workload.fan_in.hosts[1]: an empty host name"},
		{"poisson host duplicate", func(s *Scenario) {
			s.Workload.Poisson = &PoissonSpec{Load: 0.5, CDF: "websearch", Hosts: []string{"h0", "h0"}}
		}, `workload.poisson.hosts: "h0" is listed twice`},
		// 16 senders × every 1 ns over 1 ms: 1,000,001 bursts start in the
		// run (at 0, 1 ns, …, 1 ms).
		{"incast bursts", func(s *Scenario) {
			s.Workload = WorkloadSpec{Incast: []IncastSpec{{Senders: 16, Size: 1000, Repeat: 1e9, Interval: Time(units.Nanosecond)}}}
		}, "workload: 16000016 flows built before the run (flows 0, incast[0] 16 senders × 1000001 bursts; an incast's bursts that start after the run are not built), want at most 65536 (harness.MaxFlows)"},
		{"explicit flows", func(s *Scenario) { s.Workload.Flows = make([]FlowSpec, MaxFlows+1) },
			"workload.flows: 65537 flows, want at most 65536 (harness.MaxFlows)"},
		// 3456 hosts at 100 Gb/s, load 1, 100 s of fbhadoop: far beyond.
		{"poisson arrivals", func(s *Scenario) {
			s.Topology = TopologySpec{Kind: "fat-tree", K: 24}
			s.Workload = WorkloadSpec{Poisson: &PoissonSpec{Load: 1, CDF: "fbhadoop"}}
			s.Duration = Time(100 * units.Second)
			s.SampleInterval = Time(units.Millisecond)
		}, "want at most 1048576 (harness.MaxPoissonFlows)"},
		{"compare duplicate", func(s *Scenario) { s.Compare = []string{"none", "none"} },
			`compare: "none" is listed twice ([0] and [1]): each algorithm runs once`},
	}
	for _, c := range cases {
		sc := DefaultScenario()
		sc.Workload.FanIn = &FanInSpec{Senders: 1}
		c.mod(sc)
		require.ErrorContains(t, sc.Validate(), c.want, c.name)
	}
}

// TestIncastBurstsWithinTheRun: the bursts an incast builds are those that
// start at or before the run's end, counted by hand.
func TestIncastBurstsWithinTheRun(t *testing.T) {
	ms := Time(units.Millisecond)
	for _, c := range []struct {
		ic     IncastSpec
		bursts int
	}{
		{IncastSpec{Repeat: 1e9, Interval: Time(units.Second)}, 1},                        // only the one at 0
		{IncastSpec{Repeat: 1e9, Interval: ms}, 5},                                        // 0, 1, 2, 3, 4 ms
		{IncastSpec{Repeat: 3, Interval: ms}, 3},                                          // all of them
		{IncastSpec{At: Time(4600 * units.Microsecond)}, 1},                               // at the end itself
		{IncastSpec{At: Time(4600*units.Microsecond) + 1}, 0},                             // after it
		{IncastSpec{At: 2 * ms, Repeat: 1e9, Interval: Time(300 * units.Microsecond)}, 9}, // 2, 2.3, …, 4.4 ms
	} {
		sc := DefaultScenario()
		sc.Duration = Time(4600 * units.Microsecond)
		c.ic.Senders, c.ic.Size = 3, 1000
		sc.Workload.Incast = []IncastSpec{c.ic}
		s := buildOnly(t, sc)
		require.Len(t, s.flows, 3*c.bursts, "%+v", c.ic)
		require.Equal(t, c.bursts, c.ic.bursts(sc.Duration))
	}
}

// TestWholeNumber: JSON numbers read as whole numbers, against math/big's
// reading of the same text.
func TestWholeNumber(t *testing.T) {
	for _, num := range []string{
		"0", "-0", "7", "1e9", "1E9", "1e+9", "2.50e1", "1.5", "1e-3", "100e-2", "0.0", "0e99999999999",
		"9223372036854775807", "9223372036854775808", "-9223372036854775808", "18446744073709551615",
		"18446744073709551616", "1e19", "1e20", "1e400", "1e-400", "123456789012345678901234567890e-10",
		"0.000000000000000000001e21", "-1.0e3",
	} {
		neg, mag, ok := wholeNumber(num)
		r, good := new(big.Rat).SetString(num)
		require.True(t, good, num)
		if !r.IsInt() {
			require.False(t, ok, "%s is not whole", num)
			continue
		}
		require.True(t, ok, "%s is whole", num)
		abs := new(big.Int).Abs(r.Num())
		if abs.IsUint64() {
			require.Equal(t, abs.Uint64(), mag, num)
			require.Equal(t, r.Sign() < 0, neg && mag != 0, num)
		} else {
			require.Equal(t, uint64(1<<64-1), mag, "%s: beyond 64 bits reads as MaxUint64", num)
		}
	}
}

// FuzzScenarioBuild decodes a scenario and, when it decodes, checks that
// what Validate computed (netShape) is within the bounds and, for networks
// small enough to build quickly, that the network New builds is exactly
// that shape and its flows are those counted.
func FuzzScenarioBuild(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("..", "examples", "scenarios", "*.json"))
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		// This package registers "none" and no algorithm of package algos.
		var m map[string]any
		if json.Unmarshal(b, &m) == nil {
			m["algorithm"] = "none"
			delete(m, "params")
			delete(m, "compare")
			b, _ = json.Marshal(m)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"workload":{"fan_in":{"senders":1e3}},"topology":{"kind":"star"}}`))
	f.Add([]byte(`{"workload":{"incast":[{"senders":3,"size":"1KB","repeat":1e9,"interval":"100us"}]},"duration":"1ms"}`))
	f.Add([]byte(`{"topology":{"kind":"leaf-spine","leaves":3,"spines":2,"hosts_per_leaf":2},"switch":{"scheduler":"voq"},"workload":{"flows":[{"src":"h0","dst":"h5"}]}}`))
	f.Add([]byte(`{"topology":{"kind":"clos","pods":2,"tors":2,"aggs":2,"cores":2,"hosts_per_tor":2},"workload":{"poisson":{"load":0.3,"cdf":"websearch"}}}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		sc, err := DecodeScenario(bytes.NewReader(in))
		if err != nil {
			return
		}
		net := sc.Topology.shape(&sc.Workload)
		require.LessOrEqual(t, net.hosts, MaxHosts)
		require.LessOrEqual(t, net.switches, MaxSwitches)
		require.LessOrEqual(t, net.links, MaxLinks)
		require.LessOrEqual(t, net.maxPorts, MaxPorts)
		static := len(sc.Workload.Flows)
		if fi := sc.Workload.FanIn; fi != nil {
			static += senders(fi.Senders, fi.Hosts)
		}
		for _, ic := range sc.Workload.Incast {
			static += senders(ic.Senders, ic.Hosts) * ic.bursts(sc.Duration)
		}
		require.LessOrEqual(t, static, MaxFlows)
		if net.links > 256 || static > 1024 {
			return // valid, and too large to build in a fuzz iteration
		}
		s, err := New(sc, Options{NoSeries: true})
		if err != nil {
			// Host names are checked when the network is built; an
			// adapter may refuse the parts. Neither is a bound.
			return
		}
		got := builtShape(s)
		require.Equal(t, [5]int64{int64(net.hosts), int64(net.switches), int64(net.links), int64(net.maxPorts), int64(net.hostRate)},
			[5]int64{int64(got.hosts), int64(got.switches), int64(got.links), int64(got.maxPorts), int64(got.hostRate)},
			"the network built is the shape Validate bounded")
		require.Len(t, s.flows, static, "the flows built before the run are those counted")
	})
}

// TestFuzzScenarioBuildSeeds: every example scenario decodes under the
// fuzz target's rewrite (algorithm none), so that its seeds reach New.
func TestFuzzScenarioBuildSeeds(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "examples", "scenarios", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, name := range files {
		b, err := os.ReadFile(name)
		require.NoError(t, err)
		var m map[string]any
		require.NoError(t, json.Unmarshal(b, &m))
		m["algorithm"] = "none"
		delete(m, "params")
		delete(m, "compare")
		b, err = json.Marshal(m)
		require.NoError(t, err)
		_, err = DecodeScenario(bytes.NewReader(b))
		require.NoError(t, err, name)
	}
}
