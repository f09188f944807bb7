package algos

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/harness"
	"github.com/hwcc/hwcc/units"
)

// roccFairnessRun runs rocc-fairness (10 flows into 40 Gb/s) for d without
// time series and returns its result.
func roccFairnessRun(t testing.TB, d units.Time) *harness.Result {
	sc, err := harness.Builtin(roccFairnessName)
	require.NoError(t, err)
	require.NoError(t, sc.SetAll([]string{"measure_from=0s", "duration=" + d.String()}))
	res, err := harness.Run(sc, harness.Options{NoSeries: true})
	require.NoError(t, err)
	return res
}

// TestRoCCSteadyStateAllocs: with the rocc adapter a run allocates nothing
// per packet once it has its working size. The runs are deterministic, so
// a 12 ms run repeats a 6 ms one and then runs 6 ms more of RoCC's steady
// state (settled by ≈4.4 ms, TestRoCCFairnessFig8); the difference of
// their allocations over the difference of their delivered packets is the
// steady state's allocations per packet (the harness's own bound, < 0.01).
func TestRoCCSteadyStateAllocs(t *testing.T) {
	var short, long *harness.Result
	a1 := testing.AllocsPerRun(1, func() { short = roccFairnessRun(t, 6*units.Millisecond) })
	a2 := testing.AllocsPerRun(1, func() { long = roccFairnessRun(t, 12*units.Millisecond) })
	pkts := float64(long.Counters.DataRecvPackets - short.Counters.DataRecvPackets)
	require.Greater(t, pkts, 20000.0, "6 ms at 40 Gb/s is ≈27 000 frames")
	perPkt := (a2 - a1) / pkts
	t.Logf("steady state: %.0f allocations for %.0f packets (%.5f per packet); whole 6 ms run: %.0f", a2-a1, pkts, perPkt, a1)
	require.Less(t, perPkt, 0.01)
}

// BenchmarkRoCCFairness runs the whole rocc-fairness scenario (10 flows,
// 40 Gb/s, 12 ms) and reports events per second and allocations per
// delivered packet (set-up included).
func BenchmarkRoCCFairness(b *testing.B) {
	b.ReportAllocs()
	var events, pkts int64
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	m0 := ms.Mallocs
	for i := 0; i < b.N; i++ {
		res := roccFairnessRun(b, 12*units.Millisecond)
		events += int64(res.Report.Events)
		pkts += res.Counters.DataRecvPackets
	}
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(pkts)/float64(b.N), "packets/op")
	b.ReportMetric(float64(ms.Mallocs-m0)/float64(pkts), "allocs/packet")
}
