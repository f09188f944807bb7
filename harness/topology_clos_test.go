package harness

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/units"
)

// buildTopo builds topo with one tiny flow (the workload must not be
// empty) and no series.
func buildTopo(t *testing.T, topo TopologySpec, flows ...FlowSpec) *Sim {
	t.Helper()
	sc := DefaultScenario()
	sc.Topology = topo
	sc.Workload.FanIn = nil
	if len(flows) == 0 {
		flows = []FlowSpec{{Src: "h0", Dst: "h1", Size: 1000}}
	}
	sc.Workload.Flows = flows
	return buildOnly(t, sc)
}

// tier is a switch's tier, from its name: "edge" or "tor", "agg", "core".
func tier(n *node) string { return strings.TrimRight(n.name, "0123456789") }

// countTiers counts the switches of each tier.
func countTiers(s *Sim) map[string]int {
	c := map[string]int{}
	for _, n := range s.nodes {
		if !n.isHost {
			c[tier(n)]++
		}
	}
	return c
}

// equalCostPaths counts the distinct switch paths from src to dst that the
// routing tables allow, by depth-first search over every switch's ECMP set
// for dst, and checks that they all cross the same number of switches,
// which it returns.
func equalCostPaths(t *testing.T, src, dst *node) (paths, switches int) {
	t.Helper()
	lengths := map[int]bool{}
	var walk func(n *node, depth int)
	walk = func(n *node, depth int) {
		if n == dst {
			paths++
			lengths[depth-1] = true
			return
		}
		require.False(t, n.isHost, "a path through host %s", n.name)
		for _, pn := range n.ecmpSet(dst.id) {
			walk(n.ports[pn].peer.node, depth+1)
		}
	}
	walk(src.ports[0].peer.node, 1)
	require.Len(t, lengths, 1, "%s to %s: paths of different lengths", src.name, dst.name)
	for l := range lengths {
		switches = l
	}
	return paths, switches
}

// TestFatTreeShape: Al-Fares's counts for k = 2..16: k³/4 hosts, k²/2
// edge and k²/2 aggregation switches, (k/2)² cores, k ports on every
// switch, k³/4 links in each layer; switches are added before hosts, so a
// switch's INT ID is its NodeID + 1.
func TestFatTreeShape(t *testing.T) {
	for _, k := range []int{2, 4, 8, 16} {
		t.Run(fmt.Sprintf("k=%d", k), func(t *testing.T) {
			start := time.Now()
			s := buildTopo(t, TopologySpec{Kind: "fat-tree", K: k})
			t.Logf("k = %d: %d nodes built in %v", k, len(s.nodes), time.Since(start))
			h := k * k * k / 4
			require.Len(t, s.hosts, h)
			require.Equal(t, map[string]int{"edge": k * k / 2, "agg": k * k / 2, "core": k * k / 4}, countTiers(s))
			require.Equal(t, 5*k*k/4, s.nSwitches)
			require.Len(t, s.ports, 2*3*h)
			for i, n := range s.nodes {
				if n.isHost {
					require.GreaterOrEqual(t, i, s.nSwitches, "host %s before a switch", n.name)
					require.Equal(t, fmt.Sprintf("h%d", i-s.nSwitches), n.name)
					continue
				}
				require.Len(t, n.ports, k, "%s has k ports", n.name)
				require.Equal(t, uint16(n.id+1), n.swID, n.name)
				for _, p := range n.ports {
					require.Equal(t, DefaultLink, p.rate, p.name)
				}
			}
		})
	}
	// The sizes the fat-tree scenarios use: k = 4, 8, 16.
	for k, hosts := range map[int]int{4: 16, 8: 128, 16: 1024} {
		require.Equal(t, hosts, k*k*k/4)
	}
}

// TestFatTreeWiring checks every link of the k = 4 and k = 8 fat trees
// against the paper's rules: edge e (pod e/(k/2)) has hosts
// h{e·k/2}..h{e·k/2+k/2-1} and every aggregation switch of its pod;
// aggregation switch a (pod a/(k/2), position j = a mod k/2) has its pod's
// edge switches and cores j·k/2 .. j·k/2+k/2-1; core c has one aggregation
// switch per pod, the one at position c/(k/2).
func TestFatTreeWiring(t *testing.T) {
	for _, k := range []int{4, 8} {
		s := buildTopo(t, TopologySpec{Kind: "fat-tree", K: k})
		half := k / 2
		want := func(n *node) []string {
			var w []string
			var i int
			_, _ = fmt.Sscanf(strings.TrimPrefix(n.name, tier(n)), "%d", &i)
			switch tier(n) {
			case "edge":
				for j := range half {
					w = append(w, fmt.Sprintf("h%d", i*half+j))
				}
				for j := range half {
					w = append(w, fmt.Sprintf("agg%d", i/half*half+j))
				}
			case "agg":
				for j := range half {
					w = append(w, fmt.Sprintf("edge%d", i/half*half+j))
				}
				for m := range half {
					w = append(w, fmt.Sprintf("core%d", i%half*half+m))
				}
			case "core":
				for pod := range k {
					w = append(w, fmt.Sprintf("agg%d", pod*half+i/half))
				}
			}
			return w
		}
		for _, n := range s.nodes {
			if n.isHost {
				continue
			}
			var got []string
			for _, p := range n.ports {
				got = append(got, p.peer.node.name)
			}
			require.Equal(t, want(n), got, "k = %d, %s: peers in port order", k, n.name)
		}
	}
}

// TestFatTreeHopsAndPaths: between hosts on one edge switch a path
// crosses 1 switch, within a pod 3 over k/2 equal-cost paths, across pods 5
// over (k/2)² paths; the flow's FlowInfo.Hops and the path its packets
// take agree. Every host pair of the k = 4 tree, and one pair of each
// kind for k = 8 and 16.
func TestFatTreeHopsAndPaths(t *testing.T) {
	for _, k := range []int{4, 8, 16} {
		half := k / 2
		perPod := half * half
		s := buildTopo(t, TopologySpec{Kind: "fat-tree", K: k},
			FlowSpec{Src: "h0", Dst: "h1", Size: 1000},
			FlowSpec{Src: "h0", Dst: fmt.Sprintf("h%d", half), Size: 1000},
			FlowSpec{Src: "h0", Dst: fmt.Sprintf("h%d", perPod), Size: 1000},
			FlowSpec{Src: fmt.Sprintf("h%d", k*k*k/4-1), Dst: "h0", Size: 1000})
		kinds := map[string][2]int{ // switches, equal-cost paths
			"same edge": {1, 1}, "same pod": {3, half}, "across pods": {5, half * half},
		}
		kindOf := func(a, b int) string {
			switch {
			case a/half == b/half:
				return "same edge"
			case a/perPod == b/perPod:
				return "same pod"
			}
			return "across pods"
		}
		for i, f := range s.flows {
			a, b := f.src.id-NodeID(s.nSwitches), f.dst.id-NodeID(s.nSwitches)
			w := kinds[kindOf(int(a), int(b))]
			require.Equal(t, w[0], f.info.Hops, "k = %d flow %d (%s)", k, i, kindOf(int(a), int(b)))
			require.Len(t, pathPorts(s, f), w[0]+1)
			paths, sw := equalCostPaths(t, f.src, f.dst)
			require.Equal(t, w, [2]int{sw, paths}, "k = %d flow %d (%s)", k, i, kindOf(int(a), int(b)))
		}
		if k != 4 {
			continue
		}
		for _, a := range s.hosts {
			for _, b := range s.hosts {
				if a == b {
					continue
				}
				ia, ib := int(a.id)-s.nSwitches, int(b.id)-s.nSwitches
				paths, sw := equalCostPaths(t, a, b)
				require.Equal(t, kinds[kindOf(ia, ib)], [2]int{sw, paths}, "%s to %s", a.name, b.name)
			}
		}
	}
}

// TestFatTreeECMPSpreadsOverCores: the k = 8 fat tree has 16 cores, and a
// flow across pods reaches any of them: one per equal-cost path. 4096
// flows (every host of pods 0..3 to every host of pods 4..7) should put
// Binomial(4096, 1/16) flows on each core: mean 256, sd 15.5; each core
// must carry 256 ± 5 sd. The flows' first hops spread the same way over
// the 4 uplinks of each edge switch. And one host pair, over 1000 flow
// IDs, uses every one of its 16 paths.
func TestFatTreeECMPSpreadsOverCores(t *testing.T) {
	const k = 8
	var flows []FlowSpec
	for a := range 64 {
		for b := 64; b < 128; b++ {
			flows = append(flows, FlowSpec{Src: fmt.Sprintf("h%d", a), Dst: fmt.Sprintf("h%d", b), Size: 1000})
		}
	}
	s := buildTopo(t, TopologySpec{Kind: "fat-tree", K: k}, flows...)
	require.Len(t, s.flows, 4096)
	perCore := map[string]int{}
	perUplink := map[string]int{}
	for _, f := range s.flows {
		ps := pathPorts(s, f)
		require.Len(t, ps, 6)
		require.Equal(t, "core", tier(ps[3].node), "the 4th egress is a core's")
		perCore[ps[3].node.name]++
		perUplink[ps[1].name]++
	}
	n, p := 4096.0, 1.0/16
	mean, sd := n*p, math.Sqrt(n*p*(1-p))
	require.Len(t, perCore, 16)
	for c, got := range perCore {
		require.InDelta(t, mean, got, 5*sd, "flows on %s", c)
	}
	// 16 edge switches send, 4 uplinks each, 256 flows per edge switch:
	// Binomial(256, 1/4), mean 64, sd 6.9.
	require.Len(t, perUplink, 64)
	for u, got := range perUplink {
		require.InDelta(t, 64, got, 5*math.Sqrt(256*0.25*0.75), "flows on %s", u)
	}

	used := map[string]bool{}
	src, dst := s.byName["h0"], s.byName["h127"]
	for id := range FlowID(1000) {
		var key []string
		for _, p := range tracePorts(id, src, dst) {
			key = append(key, p.name)
		}
		used[strings.Join(key, " ")] = true
	}
	require.Len(t, used, (k/2)*(k/2), "1000 flows between one pair use every equal-cost path")
}

// closLines are the papers' topologies as documented in doc.go (section
// Topologies) and docs/scenarios.md, and the kind's defaults, with their
// expected shape.
var closLines = []struct {
	name                          string
	line                          string
	hosts, switches, links        int
	torPorts, aggPorts, corePorts int // ports of a ToR, an aggregation switch, a core
	host, fabric                  units.Rate
	samePod, acrossPods           int // equal-cost paths
}{
	{"HierCC 2.2, 5.2", `{"kind":"clos","cores":16,"aggs":20,"tors":20,"pods":5,"hosts_per_tor":16,"link":"25Gbps","core_link":"100Gbps","delay":"1us"}`,
		320, 56, 480, 16 + 4, 4 + 4, 5, 25 * units.Gbps, 100 * units.Gbps, 4, 16},
	{"HierCC 5.1", `{"kind":"clos","cores":2,"aggs":4,"tors":4,"pods":2,"hosts_per_tor":16,"link":"25Gbps","core_link":"100Gbps","delay":"1us"}`,
		64, 10, 64 + 8 + 4, 16 + 2, 2 + 1, 2, 25 * units.Gbps, 100 * units.Gbps, 2, 2},
	// HPCC's topology file: "376 56 480" (nodes, switches, links).
	{"HPCC 5, Mercury", `{"kind":"clos","cores":16,"aggs":20,"tors":20,"pods":5,"hosts_per_tor":16,"link":"100Gbps","core_link":"400Gbps","delay":"1us"}`,
		320, 56, 480, 16 + 4, 4 + 4, 5, 100 * units.Gbps, 400 * units.Gbps, 4, 16},
	{"defaults", `{"kind":"clos"}`,
		320, 56, 480, 16 + 4, 4 + 4, 5, 100 * units.Gbps, 100 * units.Gbps, 4, 16},
}

// TestClosPaperTopologies: each line, as doc.go and docs/scenarios.md show
// it, decodes strictly and builds the paper's counts, port counts, rates,
// hop counts (1, 3, 5 switches) and path diversity (aggs/pods paths within
// a pod, cores across pods).
func TestClosPaperTopologies(t *testing.T) {
	doc := docText(t)
	ref, err := os.ReadFile("../docs/scenarios.md")
	require.NoError(t, err)
	for _, c := range closLines {
		t.Run(c.name, func(t *testing.T) {
			if c.name != "defaults" {
				require.Contains(t, doc, c.line, "doc.go, section Topologies, shows the line")
				require.Contains(t, string(ref), "`"+c.line+"`", "docs/scenarios.md shows the line")
			}
			sc, err := DecodeScenario(strings.NewReader(`{"topology":` + c.line + `,"workload":{"flows":[{"src":"h0","dst":"h1","size":"1KB"}]}}`))
			require.NoError(t, err)
			s := buildOnly(t, sc)
			require.Len(t, s.hosts, c.hosts)
			require.Equal(t, c.switches, s.nSwitches)
			require.Len(t, s.ports, 2*c.links)
			ports := map[string]int{"tor": c.torPorts, "agg": c.aggPorts, "core": c.corePorts}
			for _, n := range s.nodes {
				if n.isHost {
					require.Equal(t, c.host, n.ports[0].rate)
					continue
				}
				require.Len(t, n.ports, ports[tier(n)], n.name)
				for _, p := range n.ports {
					if !p.peer.node.isHost {
						require.Equal(t, c.fabric, p.rate, p.name)
					}
				}
			}
			perToR := 16
			perPod := perToR * countTiers(s)["tor"] / orDefault(sc.Topology.Pods, defaultClosPods)
			for _, w := range []struct {
				dst             int
				switches, paths int
			}{{1, 1, 1}, {perToR, 3, c.samePod}, {perPod, 5, c.acrossPods}} {
				paths, sw := equalCostPaths(t, s.hosts[0], s.hosts[w.dst])
				require.Equal(t, [2]int{w.switches, w.paths}, [2]int{sw, paths}, "h0 to h%d", w.dst)
			}
		})
	}
}

// docText is the package documentation source.
func docText(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("doc.go")
	require.NoError(t, err)
	// The lines are indented code in a comment: drop the comment markers.
	return string(bytes.ReplaceAll(b, []byte("\n//\t"), []byte("\n")))
}

// TestClosWiring: an uneven Clos (3 pods of 2 ToRs and 3 aggregation
// switches, 6 cores: a stripe of 2 per aggregation switch) wired as
// documented, and the fat tree of k = 4 is the clos of the same counts,
// link for link.
func TestClosWiring(t *testing.T) {
	s := buildTopo(t, TopologySpec{Kind: "clos", Pods: 3, ToRs: 6, Aggs: 9, Cores: 6, HostsPerToR: 2})
	peers := func(name string) []string {
		var out []string
		for _, p := range s.byName[name].ports {
			out = append(out, p.peer.node.name)
		}
		return out
	}
	require.Equal(t, []string{"h2", "h3", "agg0", "agg1", "agg2"}, peers("tor1"))
	require.Equal(t, []string{"h10", "h11", "agg6", "agg7", "agg8"}, peers("tor5"))
	require.Equal(t, []string{"tor2", "tor3", "core2", "core3"}, peers("agg4"))
	require.Equal(t, []string{"agg2", "agg5", "agg8"}, peers("core5"))
	p, sw := equalCostPaths(t, s.byName["h0"], s.byName["h2"])
	require.Equal(t, [2]int{3, 3}, [2]int{sw, p}, "within a pod: one path per aggregation switch")
	p, sw = equalCostPaths(t, s.byName["h0"], s.byName["h11"])
	require.Equal(t, [2]int{5, 6}, [2]int{sw, p}, "across pods: one path per core")

	ft := buildTopo(t, TopologySpec{Kind: "fat-tree", K: 4})
	cl := buildTopo(t, TopologySpec{Kind: "clos", Pods: 4, ToRs: 8, Aggs: 8, Cores: 4, HostsPerToR: 2})
	require.Len(t, cl.ports, len(ft.ports))
	for i, p := range ft.ports {
		require.Equal(t, strings.ReplaceAll(p.name, "edge", "tor"), cl.ports[i].name)
		require.Equal(t, p.rate, cl.ports[i].rate)
	}
}

// TestClosLoneFlowAcrossPods runs one flow across pods of HierCC's 2/4/4
// Clos (25 Gb/s hosts, 100 Gb/s fabric): its FCT, ideal and base RTT are
// those of the independent store-and-forward model over the 6 links, and
// the base RTT is HierCC's 12 µs of propagation plus serialisation.
func TestClosLoneFlowAcrossPods(t *testing.T) {
	const g = 1e9
	sc := DefaultScenario()
	sc.Topology = TopologySpec{Kind: "clos", Cores: 2, Aggs: 4, ToRs: 4, Pods: 2, HostsPerToR: 16,
		Link: Rate(25 * units.Gbps), CoreLink: Rate(100 * units.Gbps)}
	sc.Workload.FanIn = nil
	const size = 300_000
	sc.Workload.Flows = []FlowSpec{{Src: "h0", Dst: "h63", Size: size}}
	r := runScenario(t, sc)
	f := r.Flows[0]
	require.GreaterOrEqual(t, f.Finish, units.Time(0), "flow did not finish")
	path := []hop{{25 * g, 1e-6}, {100 * g, 1e-6}, {100 * g, 1e-6}, {100 * g, 1e-6}, {100 * g, 1e-6}, {25 * g, 1e-6}}
	want := refFCT(size, path, path)
	require.InEpsilon(t, want, f.FCT.Seconds(), 1e-3)
	require.InEpsilon(t, want, f.Ideal.Seconds(), 1e-3)
	var ser float64
	for _, h := range path {
		ser += 8*float64(testPayload+wireExtra)/h.rate + 8*ackWire/h.rate
	}
	require.InEpsilon(t, 12e-6+ser, f.BaseRTT.Seconds(), 1e-6)
	require.Equal(t, int64(size), r.Report.Flows[0].Bytes)
}

// TestThreeTierValidation: the fat tree's k and the Clos counts are
// checked with errors that name the field, its value and the rule.
func TestThreeTierValidation(t *testing.T) {
	cases := []struct {
		topo TopologySpec
		want string
	}{
		{TopologySpec{Kind: "fat-tree", K: 3}, "topology.k = 3: want an even number of switch ports, 2..24"},
		{TopologySpec{Kind: "fat-tree", K: 26}, "topology.k = 26: want an even number"},
		{TopologySpec{Kind: "fat-tree", K: -4}, "topology.k = -4: want an even number"},
		{TopologySpec{Kind: "fat-tree", K: 4, CoreLink: Rate(units.Gbps)}, "topology.core_link is not used by kind fat-tree (it uses: k, link, delay)"},
		{TopologySpec{Kind: "fat-tree", Cores: 4}, "topology.cores is not used by kind fat-tree"},
		{TopologySpec{Kind: "clos", K: 4}, "topology.k is not used by kind clos (it uses: cores, aggs, tors, pods, hosts_per_tor, link, core_link, delay)"},
		{TopologySpec{Kind: "clos", ToRs: 4, Aggs: 4, Cores: 2}, "topology.tors = 4 is not a multiple of topology.pods = 5 (the default)"},
		{TopologySpec{Kind: "clos", Pods: 2, ToRs: 4, Aggs: 5}, "topology.aggs = 5 is not a multiple of topology.pods = 2"},
		{TopologySpec{Kind: "clos", Pods: 2, ToRs: 4, Aggs: 4, Cores: 3}, "topology.cores = 3 is not a multiple of the 2 aggregation switches per pod"},
		{TopologySpec{Kind: "clos", Pods: 3, ToRs: 9, Aggs: 9}, "topology.cores = 16 (the default) is not a multiple of the 3 aggregation switches per pod"},
		{TopologySpec{Kind: "clos", ToRs: 300, Pods: 4, Aggs: 4, Cores: 1, HostsPerToR: 16}, "tors × hosts_per_tor = 300 × 16 = 4800 hosts, want at most 4096"},
		{TopologySpec{Kind: "clos", Pods: 1, ToRs: 512, Aggs: 256, Cores: 512, HostsPerToR: 1}, "cores + aggs + tors = 512 + 256 + 512 = 1280 switches, want at most 1024"},
		// 512 ToRs of 256 aggregation switches each in one pod: a mesh of
		// 131,072 links, beyond MaxLinks.
		{TopologySpec{Kind: "clos", Pods: 1, ToRs: 512, Aggs: 256, Cores: 256, HostsPerToR: 8}, "topology clos: 135424 links (hosts + tors × aggs/pods + aggs × cores/(aggs/pods)), want at most 16384 (harness.MaxLinks)"},
		{TopologySpec{Kind: "clos", Pods: -1}, "topology.pods = -1: want 1..1024"},
		{TopologySpec{Kind: "clos", HostsPerToR: 2000}, "topology.hosts_per_tor = 2000: want 1..1024"},
	}
	for _, c := range cases {
		t.Run(c.want, func(t *testing.T) {
			sc := DefaultScenario()
			sc.Topology = c.topo
			err := sc.Validate()
			require.Error(t, err)
			require.Contains(t, err.Error(), c.want)
		})
	}
	for _, topo := range []TopologySpec{
		{Kind: "fat-tree"}, {Kind: "fat-tree", K: 2}, {Kind: "fat-tree", K: 24},
		{Kind: "clos"}, {Kind: "clos", Pods: 1, ToRs: 1, Aggs: 1, Cores: 1, HostsPerToR: 1},
		{Kind: "clos", Pods: 256, ToRs: 256, Aggs: 256, Cores: 1, HostsPerToR: 16},
		// At MaxHosts, MaxSwitches and MaxLinks: 4096 host links, 512 × 16
		// ToR–aggregation and 256 × 16 aggregation–core links.
		{Kind: "clos", Pods: 16, ToRs: 512, Aggs: 256, Cores: 256, HostsPerToR: 8},
	} {
		sc := DefaultScenario()
		sc.Topology = topo
		sc.Workload.Flows = []FlowSpec{{Src: "h0", Dst: "h1", Size: 1000}}
		require.NoError(t, sc.Validate(), "%+v", topo)
	}
}
