package harness

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/units"
)

// TestQueuesSchedulerIsMaxMinFair: under switch.scheduler queues with no
// switch point, flow f waits in queue f mod 32, and the deficit round
// robin over the queues gives three flows offered 100, 100 and 10 Gb/s
// into one 100 Gb/s port their max-min shares: the 10 Gb/s flow all it
// offers, the other two half of the rest each, 45 Gb/s (PFC holds the
// senders at the ingress). The static senders pace their wire bytes at
// the offered rate, so the shares are in wire bit/s; 1 % of the link
// covers a frame per round at the window's edges.
func TestQueuesSchedulerIsMaxMinFair(t *testing.T) {
	sc := DefaultScenario()
	sc.Name = "queues-maxmin"
	sc.Algorithm = "static"
	sc.Topology = TopologySpec{Kind: "star", Hosts: 4}
	sc.Workload = WorkloadSpec{Flows: []FlowSpec{
		{Src: "h1", Dst: "h0", Rate: Rate(100 * units.Gbps)},
		{Src: "h2", Dst: "h0", Rate: Rate(100 * units.Gbps)},
		{Src: "h3", Dst: "h0", Rate: Rate(10 * units.Gbps)},
	}}
	sc.Duration = Time(2 * units.Millisecond)
	sc.MeasureFrom = Time(200 * units.Microsecond)
	require.NoError(t, sc.SetAll([]string{"scheduler=queues"}))
	r := runScenario(t, sc)
	link := float64(100 * units.Gbps)
	for i, want := range []float64{0.45, 0.45, 0.10} {
		require.InDelta(t, want, r.Flows[i].Throughput/link, 0.01, "flow %d: %.4f", i, r.Flows[i].Throughput/link)
	}
	require.Zero(t, r.Report.Drops)
}

// TestQueuesSchedulerSettings: switch.queues takes 0..64 and refuses the
// rest; scheduler queues takes no weights.
func TestQueuesSchedulerSettings(t *testing.T) {
	sc, err := Builtin("single-flow")
	require.NoError(t, err)
	require.NoError(t, sc.Set("queues", "64"))
	require.Equal(t, 64, sc.Switch.Queues)
	require.ErrorContains(t, sc.Set("queues", "65"), "0..64")
	require.Equal(t, 64, sc.Switch.Queues, "a refused setting changes nothing")
	sc.Switch.Queues = -1
	require.ErrorContains(t, sc.Validate(), "switch.queues = -1")
	sc.Switch.Queues = 0
	require.NoError(t, sc.Set("scheduler", "queues"))
	sc.Switch.Weights = []int{2}
	require.ErrorContains(t, sc.Validate(), `switch.weights are for switch.scheduler "dwrr"`)
}

// TestNextSet: the first set bit at or after i, wrapping.
func TestNextSet(t *testing.T) {
	for _, c := range []struct {
		m    uint64
		i    int
		want int
	}{{0b1010, 0, 1}, {0b1010, 1, 1}, {0b1010, 2, 3}, {0b1010, 4, 1}, {1 << 63, 5, 63}, {1, 63, 0}} {
		require.Equal(t, c.want, nextSet(c.m, c.i), "%b from %d", c.m, c.i)
	}
}
