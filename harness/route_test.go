package harness

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestNextHopMatchesRoute walks every hop of flows whose paths are
// shorter and longer than routeMaxHops, both ways, and checks that
// nextHop gives the port route computes: from the flow's route line when
// it holds the path (which must then list route's ports: nextHop's check
// of the switch would otherwise hide a wrong line behind route's
// answer), from route itself when the path is too long for it.
func TestNextHopMatchesRoute(t *testing.T) {
	sc := DefaultScenario()
	sc.Topology = TopologySpec{Kind: "chain", Switches: routeMaxHops + 3}
	sc.Workload.Flows = []FlowSpec{
		{Src: "h0_0", Dst: "h3_0"}, // 4 switches: kept in the route's line
		{Src: "h0_0", Dst: "h8_0"}, // 9 switches: too long, route's choice
	}
	s, err := New(sc, Options{NoSeries: true})
	require.NoError(t, err)
	require.Len(t, s.routes, 2)
	require.Equal(t, [2]uint8{4, 4}, s.routes[0].n)
	require.Equal(t, [2]uint8{0, 0}, s.routes[1].n)
	for _, f := range s.flows {
		for dir, ends := range [][2]*node{{f.src, f.dst}, {f.dst, f.src}} {
			r := s.routes[f.id]
			src, dst := ends[0], ends[1]
			p := &Packet{Flow: f.id, Src: src.id, Dst: dst.id}
			n := src.ports[0].peer.node
			hops := 0
			for !n.isHost {
				want := s.route(n, f.id, src.id, dst.id)
				got := s.nextHop(n, p)
				require.Same(t, want, got, "flow %d %s->%s at %s", f.id, src.name, dst.name, n.name)
				if r.n[dir] > 0 {
					require.Equal(t, want.gid, r.out[dir][hops], "flow %d's route line, hop %d", f.id, hops)
				}
				n = got.peer.node
				hops++
			}
			require.Same(t, dst, n)
			require.Equal(t, f.info.Hops, hops, "flow %d: switches on its path", f.id)
		}
	}
}
