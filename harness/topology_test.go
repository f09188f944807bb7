package harness

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/units"
)

func buildOnly(t *testing.T, sc *Scenario) *Sim {
	t.Helper()
	s, err := New(sc, Options{NoSeries: true})
	require.NoError(t, err)
	return s
}

func TestTopologyShapes(t *testing.T) {
	cases := []struct {
		topo            TopologySpec
		hosts, switches int
		links           int // full-duplex links
	}{
		{TopologySpec{Kind: "star", Hosts: 5}, 5, 1, 5},
		{TopologySpec{Kind: "dumbbell", Left: 3, Right: 2}, 5, 2, 6},
		{TopologySpec{Kind: "chain", Switches: 4, HostsPerSwitch: 2}, 8, 4, 11},
		{TopologySpec{Kind: "multi-bottleneck"}, 11, 2, 12},
		{TopologySpec{Kind: "asymmetric"}, 8, 3, 10},
		{TopologySpec{Kind: "leaf-spine", Leaves: 4, Spines: 2, HostsPerLeaf: 3}, 12, 6, 12 + 8},
		// 3-tier fat tree of 6-port switches: 6 pods of 3 edge and 3
		// aggregation switches, 9 cores, 3 hosts per edge switch; k³/4
		// links in each of the three layers.
		{TopologySpec{Kind: "fat-tree", K: 6}, 54, 45, 3 * 54},
		// clos: 2 pods of 2 ToRs and 3 aggregation switches, 6 cores (a
		// stripe of 2 per aggregation switch), 3 hosts per ToR.
		{TopologySpec{Kind: "clos", Pods: 2, ToRs: 4, Aggs: 6, Cores: 6, HostsPerToR: 3}, 12, 16, 12 + 2*2*3 + 6*2},
	}
	for _, c := range cases {
		t.Run(c.topo.Kind, func(t *testing.T) {
			sc := DefaultScenario()
			sc.Topology = c.topo
			sc.Workload.FanIn = &FanInSpec{Senders: 1, Size: 1000}
			s := buildOnly(t, sc)
			require.Len(t, s.hosts, c.hosts)
			require.Equal(t, c.switches, s.nSwitches)
			require.Len(t, s.ports, 2*c.links)
			for _, n := range s.nodes {
				if !n.isHost && c.topo.Kind == "fat-tree" {
					require.Len(t, n.ports, c.topo.K, "every switch of a fat tree has k ports")
				}
			}
		})
	}
}

// pathPorts lists the egress ports flow f's data crosses, following the
// same ECMP choices as the simulator.
func pathPorts(s *Sim, f *flow) []*port { return tracePorts(f.id, f.src, f.dst) }

// tracePorts lists the egress ports a data packet of flow id from src to
// dst crosses, by the simulator's own ECMP choice at every switch.
func tracePorts(id FlowID, src, dst *node) []*port {
	var out []*port
	p := src.ports[0]
	for {
		out = append(out, p)
		n := p.peer.node
		if n.isHost {
			return out
		}
		p = ecmpPort(n, id, src.id, dst.id)
	}
}

// maxMin is an independent water-filling: raise every unfrozen flow's rate
// equally until some link fills, freeze the flows on it, repeat.
func maxMin(s *Sim) []float64 {
	rate := make([]float64, len(s.flows))
	frozen := make([]bool, len(s.flows))
	paths := make([][]*port, len(s.flows))
	for i, f := range s.flows {
		paths[i] = pathPorts(s, f)
	}
	for {
		best, bestPort := -1.0, (*port)(nil)
		for _, pt := range s.ports {
			used, n := 0.0, 0
			for i := range s.flows {
				for _, q := range paths[i] {
					if q == pt {
						if frozen[i] {
							used += rate[i]
						} else {
							n++
						}
					}
				}
			}
			if n > 0 {
				if share := (float64(pt.rate) - used) / float64(n); best < 0 || share < best {
					best, bestPort = share, pt
				}
			}
		}
		if bestPort == nil {
			return rate
		}
		for i := range s.flows {
			for _, q := range paths[i] {
				if q == bestPort && !frozen[i] {
					rate[i], frozen[i] = best, true
				}
			}
		}
	}
}

// multiBottleneckFlows are RoCC Fig. 10's flows: Ai→Bi for i = 1..4, A0→B0
// and B5→B0.
func multiBottleneckFlows() []FlowSpec {
	fl := []FlowSpec{{Src: "A0", Dst: "B0"}}
	for i := 1; i <= 4; i++ {
		fl = append(fl, FlowSpec{Src: fmt.Sprintf("A%d", i), Dst: fmt.Sprintf("B%d", i)})
	}
	return append(fl, FlowSpec{Src: "B5", Dst: "B0"})
}

func TestMultiBottleneckReconstruction(t *testing.T) {
	sc := DefaultScenario()
	sc.Topology = TopologySpec{Kind: "multi-bottleneck"}
	sc.Workload.Flows = multiBottleneckFlows()
	s := buildOnly(t, sc)
	// D0 crosses both congestion points, S0 and S1.
	require.Equal(t, []string{"A0->S0", "S0->S1", "S1->B0"}, names(pathPorts(s, s.flows[0])))
	// RoCC section VI-A d: D0 and D5 get 5 Gb/s, D1..D4 8.75 Gb/s.
	want := []float64{5e9, 8.75e9, 8.75e9, 8.75e9, 8.75e9, 5e9}
	got := maxMin(s)
	for i := range want {
		require.InDelta(t, want[i], got[i], 1, "D%d", i)
	}
}

func TestAsymmetricReconstruction(t *testing.T) {
	sc := DefaultScenario()
	sc.Topology = TopologySpec{Kind: "asymmetric"}
	for i := 0; i <= 6; i++ {
		sc.Workload.Flows = append(sc.Workload.Flows, FlowSpec{Src: fmt.Sprintf("A%d", i), Dst: "B0"})
	}
	s := buildOnly(t, sc)
	require.Equal(t, 40*units.Gbps, s.byName["A0"].ports[0].rate)
	require.Equal(t, 100*units.Gbps, s.byName["A6"].ports[0].rate)
	// RoCC section VI-A e: every flow's fair share is 100/7 = 14.29 Gb/s.
	for i, r := range maxMin(s) {
		require.InDelta(t, 100e9/7, r, 1, "D%d", i)
	}
}

func names(ps []*port) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.name
	}
	return out
}

func TestMultiBottleneckStaticAtFairShares(t *testing.T) {
	// With every flow paced at its max-min share, both bottlenecks run
	// full and nobody is paused for long: the static baseline delivers
	// the shares (1 %: pacing granularity and the first RTT).
	sc := DefaultScenario()
	sc.Algorithm = "static"
	sc.Topology = TopologySpec{Kind: "multi-bottleneck"}
	sc.Workload.Flows = multiBottleneckFlows()
	shares := []units.Rate{5 * units.Gbps, 8750 * units.Mbps, 8750 * units.Mbps, 8750 * units.Mbps, 8750 * units.Mbps, 5 * units.Gbps}
	for i := range sc.Workload.Flows {
		sc.Workload.Flows[i].Rate = Rate(shares[i])
	}
	sc.Duration = Time(400 * units.Microsecond)
	sc.MeasureFrom = Time(50 * units.Microsecond)
	r := runScenario(t, sc)
	for i, f := range r.Report.Flows {
		require.InEpsilon(t, float64(shares[i]), f.ThroughputBps, 0.01, "D%d", i)
	}
}

func TestLeafSpineECMPUsesEverySpine(t *testing.T) {
	sc := DefaultScenario()
	sc.Topology = TopologySpec{Kind: "leaf-spine", Leaves: 2, Spines: 4, HostsPerLeaf: 8}
	for i := 0; i < 8; i++ {
		for j := 8; j < 16; j++ {
			sc.Workload.Flows = append(sc.Workload.Flows, FlowSpec{Src: fmt.Sprintf("h%d", i), Dst: fmt.Sprintf("h%d", j), Size: 1000})
		}
	}
	s := buildOnly(t, sc)
	perSpine := map[string]int{}
	for _, f := range s.flows {
		ps := pathPorts(s, f)
		require.Len(t, ps, 4, "host, leaf, spine, leaf")
		perSpine[ps[1].peer.node.name]++
		// The base RTT covers the four links both ways.
		require.Equal(t, 4, f.info.Hops+1)
	}
	require.Len(t, perSpine, 4, "64 flows hash onto all 4 spines")
	for sp, n := range perSpine {
		// Binomial(64, 1/4): mean 16, sd 3.5; 4 sd either way.
		require.InDelta(t, 16, n, 14, sp)
	}
}
