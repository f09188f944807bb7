package algos

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/harness"
	"github.com/hwcc/hwcc/units"
)

// benchFattree runs built-in name b.N times and reports events per second,
// wall nanoseconds per simulated packet-hop (a frame of any kind put on one
// link: Counters.FrameHops), packets per run, allocations per packet over
// the whole run (set-up included) and the heap the runtime held at the end.
func benchFattree(b *testing.B, name string) {
	b.ReportAllocs()
	var events, pkts, hops int64
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	for i := 0; i < b.N; i++ {
		sc, err := harness.Builtin(name)
		if err != nil {
			b.Fatal(err)
		}
		r, err := harness.Run(sc, harness.Options{NoSeries: true})
		if err != nil {
			b.Fatal(err)
		}
		if r.Report.Errors != nil {
			b.Fatalf("state-machine errors: %+v", *r.Report.Errors)
		}
		events += int64(r.Report.Events)
		pkts += r.Counters.DataRecvPackets
		hops += r.Counters.FrameHops
	}
	b.StopTimer()
	runtime.ReadMemStats(&m1)
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(hops), "ns/hop")
	b.ReportMetric(float64(hops)/float64(b.N), "hops/op")
	b.ReportMetric(float64(pkts)/float64(b.N), "packets/op")
	b.ReportMetric(float64(m1.Mallocs-m0.Mallocs)/float64(pkts), "allocs/packet")
	b.ReportMetric(float64(m1.HeapSys)/(1<<20), "heap-MiB")
}

// BenchmarkIncastFattree: HPCC, 16 × 2 MB across the k = 8 fat tree.
func BenchmarkIncastFattree(b *testing.B) { benchFattree(b, fattreeIncastName) }

// BenchmarkIncastFattree1024: HPCC, 256 × 2 MB across the k = 16 fat tree.
func BenchmarkIncastFattree1024(b *testing.B) { benchFattree(b, fattreeIncast1024Name) }

// TestIncastFattree1024SteadyStateAllocs: once the network is built and
// its packet pool warm, the 1024-host incast allocates nothing per event.
// The allocator's count is read every 100 000 events; between the samples
// at 10 ms and 40 ms of simulated time (the incast is under way: 256 flows
// sharing h0's link until about 43 ms) the run may allocate at most one
// object per 10 000 events (room for the runtime's own bookkeeping, which
// reading the counters catches; measured: 2 in 900 000 events).
func TestIncastFattree1024SteadyStateAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("a 1024-host run")
	}
	sc, err := harness.Builtin(fattreeIncast1024Name)
	require.NoError(t, err)
	type sample struct {
		at      units.Time
		mallocs uint64
	}
	var samples []sample
	var ms runtime.MemStats
	opts := harness.Options{NoSeries: true, ProgressEvery: 100_000, Progress: func(now, _ units.Time) {
		runtime.ReadMemStats(&ms)
		samples = append(samples, sample{now, ms.Mallocs})
	}}
	r, err := harness.Run(sc, opts)
	require.NoError(t, err)
	require.Nil(t, r.Report.Errors)
	var from, to *sample
	for i := range samples {
		if from == nil && samples[i].at >= 10*units.Millisecond {
			from = &samples[i]
		}
		if samples[i].at <= 40*units.Millisecond {
			to = &samples[i]
		}
	}
	require.NotNil(t, from)
	require.NotNil(t, to)
	events := uint64(0)
	for i := range samples {
		if samples[i].at > from.at && samples[i].at <= to.at {
			events += 100_000
		}
	}
	require.Greater(t, events, uint64(500_000), "the window holds most of the run")
	grew := to.mallocs - from.mallocs
	t.Logf("%d allocations over %d events between %v and %v", grew, events, from.at, to.at)
	require.LessOrEqual(t, grew, events/10_000)
}
