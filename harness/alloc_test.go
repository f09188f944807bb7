package harness

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/units"
)

// steadySim builds a scenario and runs it past its warm-up, so that the
// packet pool, the event heap and the active lists have their working size.
func steadySim(t testing.TB, sc *Scenario, warm units.Time, opts Options) *Sim {
	s, err := New(sc, opts)
	require.NoError(t, err)
	s.runUntil(warm)
	return s
}

func TestSteadyStateAllocs(t *testing.T) {
	registerProbes(t)
	cases := map[string]func() *Scenario{
		"none 4-to-1 with PFC": func() *Scenario {
			sc, _ := Builtin("line-rate-2to1")
			_ = sc.SetAll([]string{"senders=4", "duration=2ms"})
			return sc
		},
		"probe with INT, ECN, CNPs and feedback": func() *Scenario {
			sc := DefaultScenario()
			sc.Algorithm = "test-probe"
			sc.Topology = TopologySpec{Kind: "chain", Switches: 3}
			sc.Workload.Flows = []FlowSpec{{Src: "h0_0", Dst: "h2_0"}, {Src: "h1_0", Dst: "h2_0"}}
			sc.Switch.ECN = Bytes(5 * units.KB)
			sc.Duration = Time(2 * units.Millisecond)
			return sc
		},
	}
	for name, mk := range cases {
		t.Run(name, func(t *testing.T) {
			s := steadySim(t, mk(), 300*units.Microsecond, Options{})
			end := s.now
			pkts0 := s.st.dataRecvPkts
			// AllocsPerRun calls the function once more than runs (warm-up).
			allocs := testing.AllocsPerRun(5, func() {
				end += 200 * units.Microsecond
				s.runUntil(end)
			})
			pkts := float64(s.st.dataRecvPkts-pkts0) / 6
			require.Greater(t, pkts, 1000.0)
			require.Less(t, allocs/pkts, 0.01, "%.1f allocations for %.0f packets", allocs, pkts)
		})
	}
}

// BenchmarkLineRate4to1 runs a whole scenario: 4 senders at line rate into
// one 100 Gb/s port with PFC, 1 ms, and reports events per second and
// allocations per delivered packet.
func BenchmarkLineRate4to1(b *testing.B) {
	b.ReportAllocs()
	var events, pkts int64
	for i := 0; i < b.N; i++ {
		sc, _ := Builtin("line-rate-2to1")
		_ = sc.SetAll([]string{"senders=4", "duration=1ms"})
		r, err := Run(sc, Options{})
		if err != nil {
			b.Fatal(err)
		}
		events += int64(r.Report.Events)
		pkts += r.Counters.DataRecvPackets
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(pkts)/float64(b.N), "packets/op")
}

// BenchmarkSteadyState measures the event path alone, after warm-up:
// allocations per packet should be 0.
func BenchmarkSteadyState(b *testing.B) {
	sc, _ := Builtin("line-rate-2to1")
	_ = sc.SetAll([]string{"senders=4", "duration=100s"})
	s := steadySim(b, sc, 300*units.Microsecond, Options{NoSeries: true})
	b.ReportAllocs()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	m0 := ms.Mallocs
	b.ResetTimer()
	ev0, p0 := s.events, s.st.dataRecvPkts
	end := s.now
	for i := 0; i < b.N; i++ {
		end += 10 * units.Microsecond
		s.runUntil(end)
	}
	b.StopTimer()
	runtime.ReadMemStats(&ms)
	pkts := float64(s.st.dataRecvPkts - p0)
	b.ReportMetric(float64(s.events-ev0)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(pkts/float64(b.N), "packets/op")
	b.ReportMetric(float64(ms.Mallocs-m0)/pkts, "allocs/packet")
}
