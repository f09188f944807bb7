package harness

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/units"
)

// allPaths returns every path (as pathHop lists) a packet from src to dst
// may take through the ECMP sets, by depth-first search.
func allPaths(src, dst *node) [][]pathHop {
	var out [][]pathHop
	var walk func(p *port, acc []pathHop)
	walk = func(p *port, acc []pathHop) {
		acc = append(acc, pathHop{rate: p.rate, delay: p.delay})
		n := p.peer.node
		if n == dst || n.isHost {
			out = append(out, append([]pathHop(nil), acc...))
			return
		}
		for _, pn := range n.ecmpSet(dst.id) {
			walk(n.ports[pn], acc)
		}
	}
	walk(src.ports[0], nil)
	return out
}

// TestNetworkRTTIsTheLargestPairRTT: networkRTT is the largest rtt0 over
// every ordered pair of hosts and every pair of ECMP paths (found here by
// brute force), and the largest switch count, on every topology kind
// (hosts with unequal links on one switch included: asymmetric); every
// flow's flowInfo carries both. HPCC's param.t = auto reads them.
func TestNetworkRTTIsTheLargestPairRTT(t *testing.T) {
	for _, topo := range []TopologySpec{
		{Kind: "star", Hosts: 4},
		{Kind: "dumbbell", Left: 2, Right: 3, CoreLink: Rate(40 * units.Gbps)},
		{Kind: "chain", Switches: 4, HostsPerSwitch: 2},
		{Kind: "multi-bottleneck"},
		{Kind: "asymmetric"},
		{Kind: "leaf-spine", Leaves: 3, Spines: 2, HostsPerLeaf: 2},
		{Kind: "fat-tree", K: 4},
		{Kind: "clos", Pods: 2, ToRs: 4, Aggs: 6, Cores: 6, HostsPerToR: 3},
	} {
		t.Run(topo.Kind, func(t *testing.T) {
			sc := DefaultScenario()
			sc.Topology = topo
			sc.Workload.FanIn = &FanInSpec{Senders: 1, Size: 1000}
			s := buildOnly(t, sc)
			w, a := DataOverheadBytes+s.payload+s.preamble, AckFrameBytes+s.preamble
			var want units.Time
			wantHops := 0
			for _, o := range s.hosts {
				for _, h := range s.hosts {
					if o == h {
						continue
					}
					for _, fwd := range allPaths(o, h) {
						wantHops = max(wantHops, len(fwd)-1)
						for _, rev := range allPaths(h, o) {
							want = max(want, rtt0(fwd, rev, w, a))
						}
					}
				}
			}
			got, hops := s.networkRTT(w, a)
			require.Equal(t, want, got)
			require.Equal(t, wantHops, hops)
			require.NotEmpty(t, s.flows)
			for _, f := range s.flows {
				require.Equal(t, got, f.info.MaxBaseRTT)
				require.Equal(t, hops, f.info.MaxHops)
				require.LessOrEqual(t, f.info.BaseRTT, f.info.MaxBaseRTT)
			}
		})
	}
}

// TestNetworkRTTLeafSpine: on the leaf-spine of the HPCC incast of
// docs/scenarios.md (16 leaves of 8 hosts, 8 spines, 100 Gb/s, 1 µs), a
// flow within the receiver's leaf has half the base RTT of one across the
// spines, and both carry the cross-spine RTT as MaxBaseRTT.
func TestNetworkRTTLeafSpine(t *testing.T) {
	sc := DefaultScenario()
	sc.Topology = TopologySpec{Kind: "leaf-spine", Leaves: 16, Spines: 8, HostsPerLeaf: 8}
	sc.NIC.Payload = 9000
	sc.Workload.Flows = []FlowSpec{{Src: "h1", Dst: "h0"}, {Src: "h8", Dst: "h0"}}
	s := buildOnly(t, sc)
	in, across := s.flows[0].info, s.flows[1].info
	require.Equal(t, 1, in.Hops)
	require.Equal(t, 3, across.Hops)
	// 9082-byte frames and 86-byte ACKs at 100 Gb/s, 1 µs per link.
	frame := units.SerializationTime(9082, 100*units.Gbps) + units.Microsecond
	ack := units.SerializationTime(86, 100*units.Gbps) + units.Microsecond
	require.Equal(t, 2*frame+2*ack, in.BaseRTT)
	require.Equal(t, 4*frame+4*ack, across.BaseRTT)
	for _, f := range []flowInfo{in, across} {
		require.Equal(t, across.BaseRTT, f.MaxBaseRTT)
		require.Equal(t, 3, f.MaxHops)
	}
}
