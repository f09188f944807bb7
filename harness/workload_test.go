package harness

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/units"
)

// TestPoissonOfferedLoad runs the arrival process of one host for 300 000
// arrivals (about 0.2 s of simulated time at 100 Gb/s, load 0.6, WebSearch)
// and measures the offered payload load Σsize·8 / (T·rate). The estimate's
// relative standard error is √(E[X²]/mean²/N) (compound Poisson); the test
// allows 5 of them (false alarm < 1e-6). It also checks that destinations
// are uniform over the other hosts (5 binomial standard deviations).
func TestPoissonOfferedLoad(t *testing.T) {
	const load, n = 0.6, 300_000
	sc := DefaultScenario()
	sc.Topology = TopologySpec{Kind: "star", Hosts: 4}
	sc.Workload.Poisson = &PoissonSpec{Load: load, CDF: "websearch"}
	s, err := New(sc, Options{NoSeries: true})
	require.NoError(t, err)
	g := s.gens[0]
	var T units.Time
	var bytes float64
	per := map[string]int{}
	for range n {
		T += s.expGap(g)
		dst, size := s.draw(g)
		bytes += float64(size)
		per[dst.name]++
	}
	rate := float64(g.host.ports[0].rate)
	got := bytes * 8 / (T.Seconds() * rate)
	m := g.cdf.Mean()
	se := math.Sqrt(g.cdf.SecondMoment() / (m * m) / n)
	require.InEpsilon(t, load, got, 5*se, "offered %.4f, target %.2f, standard error %.4f", got, load, se)
	require.Len(t, per, 3)
	sd := math.Sqrt(n * (1.0 / 3) * (2.0 / 3))
	for h, c := range per {
		require.InDelta(t, n/3.0, c, 5*sd, h)
	}
}

// TestPoissonRunSlowdownAtLeastOne: in a real run with ECMP and
// contention, no flow finishes faster than alone on the idle network.
func TestPoissonRunSlowdownAtLeastOne(t *testing.T) {
	sc := DefaultScenario()
	sc.Topology = TopologySpec{Kind: "fat-tree", K: 4}
	sc.Workload.Poisson = &PoissonSpec{Load: 0.4, CDF: "fbhadoop"}
	sc.Duration = Time(300 * units.Microsecond)
	r := runScenario(t, sc)
	var done int
	for _, f := range r.Report.Flows {
		if f.FCTNs != nil {
			done++
			// The ideal is exact to the picosecond for a lone flow; the
			// slack covers the float division.
			require.GreaterOrEqual(t, *f.Slowdown, 1-1e-9, "flow %d", f.ID)
		}
	}
	require.Greater(t, done, 50)
	require.Equal(t, int64(len(r.Report.Flows)), r.Counters.PoissonFlows)
	c := r.Counters
	require.Equal(t, c.DataSentPayload, c.DataRecvPayload+c.DroppedDataPayload+c.InFlightDataPayload)
}

func TestIncastAndFanInOptions(t *testing.T) {
	sc := DefaultScenario()
	sc.Topology = TopologySpec{Kind: "star", Hosts: 6}
	sc.Workload.Incast = []IncastSpec{{Hosts: []string{"h1", "h2", "h3"}, Dst: "h5", Size: Bytes(20 * units.KB), At: Time(10 * units.Microsecond), Repeat: 2, Interval: Time(50 * units.Microsecond)}}
	sc.Workload.FanIn = &FanInSpec{Senders: 2, Dst: "h4", Size: Bytes(10 * units.KB), Stagger: Time(units.Microsecond)}
	sc.Duration = Time(200 * units.Microsecond)
	r := runScenario(t, sc)
	// Order: fan-in senders first (h0, h1: the first hosts other than h4),
	// then the incast, twice.
	require.Len(t, r.Flows, 2+6)
	require.Equal(t, "h0", r.Flows[0].Src)
	require.Equal(t, "h1", r.Flows[1].Src)
	require.Equal(t, units.Time(units.Microsecond), r.Flows[1].Start)
	require.Equal(t, units.Time(60*units.Microsecond), r.Flows[5].Start)
	for _, f := range r.Report.Flows {
		require.NotNil(t, f.FCTNs, "flow %d", f.ID)
	}
	_, err := New(func() *Scenario {
		c := *sc
		c.Workload.FanIn = &FanInSpec{Senders: 9}
		return &c
	}(), Options{})
	require.ErrorContains(t, err, "only 5 other hosts")
}

func TestProgressAndSeries(t *testing.T) {
	sc, err := Builtin("line-rate-2to1")
	require.NoError(t, err)
	require.NoError(t, sc.SetAll([]string{"duration=200us", "sample_interval=20us"}))
	var calls int
	var last units.Time
	r, err := Run(sc, Options{ProgressEvery: 1000, Progress: func(now, end units.Time) {
		calls++
		require.GreaterOrEqual(t, now, last)
		require.Equal(t, 200*units.Microsecond, end)
		last = now
	}})
	require.NoError(t, err)
	require.Equal(t, int(r.Report.Events/1000)+1, calls)
	require.Equal(t, 200*units.Microsecond, last)
	// 10 samples at 20, 40, ..., 200 µs.
	require.Len(t, r.Series.Times, 10)
	require.Equal(t, 200*units.Microsecond, r.Series.Times[9])
	require.Len(t, r.Series.Flows, 2)
	require.Len(t, r.Series.Queues, 3)
	// After the start-up, the two flows split the link each interval.
	for i := 2; i < 10; i++ {
		sum := r.Series.Flows[0].Bps[i] + r.Series.Flows[1].Bps[i]
		require.InEpsilon(t, 100e9, sum, 0.06, "sample %d", i)
	}
	// The bottleneck queue is non-empty once PFC has kicked in.
	require.Positive(t, r.Series.Queues[0].Bytes[9])
}

// TestPoissonDsts: with dsts, the hosts of hosts only send, each to one of
// dsts other than itself, the destinations drawn uniformly: h1 and h2 send
// to h0 and h3 (h3 also sends, never to itself); every flow's ends obey
// that, and each destination gets its share within five standard
// deviations of the binomial count.
func TestPoissonDsts(t *testing.T) {
	sc := DefaultScenario()
	sc.Topology = TopologySpec{Kind: "star", Hosts: 4}
	sc.Workload.Poisson = &PoissonSpec{Load: 0.5, CDF: "fbhadoop", Hosts: []string{"h1", "h2", "h3"}, Dsts: []string{"h0", "h3"}}
	sc.Duration = Time(2 * units.Millisecond)
	r := runScenario(t, sc)
	per := map[string]int{}
	fromOthers := 0
	for _, f := range r.Flows {
		require.Contains(t, []string{"h1", "h2", "h3"}, f.Src)
		require.Contains(t, []string{"h0", "h3"}, f.Dst)
		require.NotEqual(t, f.Src, f.Dst)
		if f.Src != "h3" {
			per[f.Dst]++
			fromOthers++
		}
	}
	require.Greater(t, fromOthers, 100)
	n := float64(fromOthers)
	sd := math.Sqrt(n / 4)
	require.InDelta(t, n/2, float64(per["h0"]), 5*sd)
	sc.Workload.Poisson.Dsts = []string{"h9"}
	_, err := Run(sc, Options{})
	require.ErrorContains(t, err, "workload.poisson.dsts")
}
