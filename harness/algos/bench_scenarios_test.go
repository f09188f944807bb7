package algos

import (
	"math"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/harness"
	"github.com/hwcc/hwcc/harness/workloads"
	"github.com/hwcc/hwcc/units"
)

// benchFattree runs built-in name b.N times and reports events per second,
// wall nanoseconds per simulated packet-hop (a frame of any kind put on one
// link: Counters.FrameHops), packets per run, allocations per packet over
// the whole run (set-up included) and the heap the runtime held at the end;
// and, where the platform reports it, events per second of the process's
// CPU time, which other programs sharing the machine disturb less than
// the wall clock.
func benchFattree(b *testing.B, name string) {
	b.ReportAllocs()
	var events, pkts, hops int64
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	cpu0, cpuOK := processCPU()
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
	cpu1, _ := processCPU()
	runtime.ReadMemStats(&m1)
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
	if cpuOK && cpu1 > cpu0 {
		b.ReportMetric(float64(events)/(cpu1-cpu0), "events/cpu-s")
	}
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

// BenchmarkPoissonFattree: HPCC, Poisson WebSearch load 0.5 on the k = 8
// fat tree, 1000 B payloads.
func BenchmarkPoissonFattree(b *testing.B) { benchFattree(b, fattreePoissonName) }

// BenchmarkPoissonFattree1024: the same on the k = 16 fat tree (1024
// hosts): every port busy at once, the event queue's hardest case.
func BenchmarkPoissonFattree1024(b *testing.B) { benchFattree(b, fattreePoisson1024Name) }

// TestPoissonFattree: the Poisson fat-tree scenarios start as many flows
// as their arrival rate says, lose nothing, and obey the wire's physics.
// Each host starts flows at λ = load·rate/(8·mean size) per second
// (PoissonSpec), so the window sees N ~ Poisson(hosts·λ·window) flows of
// N·E[size] bytes on average; the tolerances are 4 standard deviations,
// √E[N] for the count and √(E[N]·E[size²]) for the bytes (a compound
// Poisson sum). Lossless: PFC with a 32 MB buffer drops nothing, so every
// payload byte sent is delivered or still in the network. A finished
// flow takes at least its ideal FCT (a lone flow on an idle path), and no
// link carries more than its rate.
func TestPoissonFattree(t *testing.T) {
	for _, tc := range []struct {
		name  string
		hosts int
	}{{fattreePoissonName, 128}, {fattreePoisson1024Name, 1024}} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.hosts > 128 && testing.Short() {
				t.Skip("a 1024-host run")
			}
			sc, err := harness.Builtin(tc.name)
			require.NoError(t, err)
			r, err := harness.Run(sc, harness.Options{NoSeries: true})
			require.NoError(t, err)
			require.Nil(t, r.Report.Errors)

			cdf, err := workloads.Named(fattreePoissonCDF)
			require.NoError(t, err)
			lambda := fattreePoissonLoad * float64(100*units.Gbps) / (8 * cdf.Mean()) // flows/s per host
			n := float64(tc.hosts) * lambda * fattreePoissonWindow.Seconds()
			c := r.Counters
			require.InDelta(t, n, float64(c.PoissonFlows), 4*math.Sqrt(n), "flows started in the window")
			require.InDelta(t, n*cdf.Mean(), float64(c.PoissonBytes), 4*math.Sqrt(n*cdf.SecondMoment()), "bytes offered")
			require.Equal(t, c.PoissonFlows, c.FlowsStarted)

			require.Zero(t, c.Drops)
			require.Equal(t, c.DataSentPayload, c.DataRecvPayload+c.InFlightDataPayload)
			require.Positive(t, c.FlowsFinished)
			finished := 0
			for _, f := range r.Report.Flows {
				require.NotEqual(t, f.Src, f.Dst)
				if f.FCTNs != nil {
					finished++
					// FCT is truncated to whole ns; the ideal is exact.
					require.GreaterOrEqual(t, *f.Slowdown, 1-1e-3, "flow %d", f.ID)
				}
			}
			require.EqualValues(t, c.FlowsFinished, finished)
			for _, l := range r.Report.Links {
				require.LessOrEqual(t, l.Utilization, 1+1e-9, l.Name)
			}
			t.Logf("%d flows (expected %.0f), %d finished, %d events, %d frame hops", c.PoissonFlows, n, c.FlowsFinished, r.Report.Events, c.FrameHops)
		})
	}
}
