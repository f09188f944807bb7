package rp

import (
	"testing"

	"github.com/stretchr/testify/require"

	inttel "github.com/hwcc/hwcc/int"
	"github.com/hwcc/hwcc/units"
)

// hpccBenchRing is the length of the benchmark's ACK ring and hpccBenchGap
// the time between its ACKs: 2048 × 8.192 µs = 2^24 ns, exactly one period
// of the TS field, and every port's bytes over the ring add up to a whole
// number of txBytes periods (2^27 B), so the ring replays seamlessly: ACK k
// of pass p+1 reads as 8.192 µs after ACK k−1 of pass p. The gap is below
// T = 13 µs, so the EWMA weight τ/T is computed on every ACK.
const (
	hpccBenchRing = 2048
	hpccBenchGap  = 8192 * units.Nanosecond
)

// hpccBenchTrace is the ring of ACKs over a 5-hop path (Figure 7's sizing:
// 100, 400, 400, 400, 100 Gb/s). Each port alternates 0.5× and 1.5× a base
// of 2^27/2048·k bytes per ACK (k = 1 at 100 Gb/s: 32 and 96 Gb/s; k = 4 at
// 400 Gb/s: 128 and 384 Gb/s), and its queue cycles through 0..198 KB.
func hpccBenchTrace(tb testing.TB) []hpccEvent {
	codec, err := inttel.NewCodec(inttel.DefaultConfig())
	require.NoError(tb, err)
	evs := make([]hpccEvent, hpccBenchRing)
	rates := [5]units.Rate{100 * units.Gbps, 400 * units.Gbps, 400 * units.Gbps, 400 * units.Gbps, 100 * units.Gbps}
	var tx [5]uint64
	for i := range evs {
		t := units.Time(i+1) * hpccBenchGap
		for j := range tx {
			base := uint64(1<<27/hpccBenchRing) * uint64(rates[j]/(100*units.Gbps))
			if i%2 == 0 {
				tx[j] += base / 2
			} else {
				tx[j] += base * 3 / 2
			}
			_, err := codec.Stamp(t, &evs[i].hdr, inttel.Port{SwitchID: uint16(j + 1), Rate: rates[j],
				TxBytes: units.Bytes(tx[j]), QLen: units.Bytes((i % 64) * 3100 * (j + 1) % 200000)})
			require.NoError(tb, err)
		}
		evs[i].now = t + 2*units.Microsecond
		evs[i].ackSeq = uint64(i) * 1000
		evs[i].sndNxt = evs[i].ackSeq + 100000
	}
	return evs
}

// hpccBenchAck feeds ACK i (any i ≥ 0) of the endless replay of evs.
func hpccBenchAck(h *HPCC, evs []hpccEvent, i int) error {
	pass, k := i/hpccBenchRing, i%hpccBenchRing
	ev := &evs[k]
	shift := uint64(pass) * hpccBenchRing * 1000
	return h.ack(ev.now+units.Time(pass)*hpccBenchRing*hpccBenchGap, ev.ackSeq+shift, ev.sndNxt+shift, &ev.hdr)
}

// TestHPCCBenchTraceMeasuresEveryHop: after the first ACK every ACK of the
// replayed ring measures all five hops, across passes, so the benchmark
// times the full per-ACK update and not a guard's early exit.
func TestHPCCBenchTraceMeasuresEveryHop(t *testing.T) {
	evs := hpccBenchTrace(t)
	h, err := NewHPCC(HPCCPaperSim(100 * units.Gbps))
	require.NoError(t, err)
	for i := range 3 * hpccBenchRing {
		require.NoError(t, hpccBenchAck(h, evs, i))
	}
	s := h.State()
	require.Zero(t, s.Reseeds+s.Stale+s.ZeroIntervals+s.NoSample+s.PathChanges)
	require.Equal(t, uint64(3*hpccBenchRing), s.Acks)
	require.Positive(t, s.Window.Commits)
}

// hpccBenchModes are the divisions the per-ACK benchmarks run with:
// hwtables' reciprocal table and the CPU's divide.
var hpccBenchModes = []struct {
	name   string
	native bool
}{{"5hops/table", false}, {"5hops/native", true}}

// newHPCCBench returns the benchmarks' sender: the paper's simulation
// preset at 100 Gb/s, dividing with the CPU when native.
func newHPCCBench(b *testing.B, native bool) *HPCC {
	c := HPCCPaperSim(100 * units.Gbps)
	c.Window.NativeDivision = native
	h, err := NewHPCC(c)
	require.NoError(b, err)
	return h
}

// BenchmarkHPCCOnAck measures the per-ACK update (MeasureInflight over 5
// hops, ComputeWind, NewAck) on the typed fast path, ack, given the
// decoded header: what Feedback runs once it has read the header from the
// ACK's telemetry stack (BenchmarkHPCCFeedback). With hwtables' reciprocal
// table and with the native divide, in one binary.
func BenchmarkHPCCOnAck(b *testing.B) {
	evs := hpccBenchTrace(b)
	for _, mode := range hpccBenchModes {
		b.Run(mode.name, func(b *testing.B) {
			h := newHPCCBench(b, mode.native)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if err := hpccBenchAck(h, evs, i); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestHPCCNoAllocs: the per-ACK path does not allocate, in every mode.
func TestHPCCNoAllocs(t *testing.T) {
	evs := hpccBenchTrace(t)
	for _, mod := range []func(*HPCCConfig){
		func(*HPCCConfig) {},
		func(c *HPCCConfig) { c.Window.NativeDivision = true },
		func(c *HPCCConfig) { c.MultiRate = true },
		func(c *HPCCConfig) { c.FastReact = false },
	} {
		c := HPCCPaperSim(100 * units.Gbps)
		mod(&c)
		h, err := NewHPCC(c)
		require.NoError(t, err)
		i := 0
		allocs := testing.AllocsPerRun(1000, func() {
			if err := hpccBenchAck(h, evs, i); err != nil {
				t.Fatal(err)
			}
			_ = h.CanSend(units.Bytes(i))
			_ = h.Window()
			_ = h.Rate()
			_ = h.State()
			i++
		})
		require.Zero(t, allocs)
	}
}
