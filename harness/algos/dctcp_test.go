package algos

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cp"
	"github.com/hwcc/hwcc/rp"
	"github.com/hwcc/hwcc/units"
)

// The scenario's parameters are the registry's settings (hwcc algos dctcp),
// each going to the part that has it; a bad one is a *cc.ConfigError
// naming it, its value and its range.
func TestDCTCPParams(t *testing.T) {
	a := ccAlgo(t, dctcpName)
	for _, p := range []map[string]string{
		nil, {"preset": "linux"}, {"rp.preset": "HPCC"}, {"k": "65KB"}, {"dctcp_shift_g": "0"}, {"dctcp_shift_g": "10"},
		{"dctcp_alpha_on_init": "0"}, {"slow_start": "off"}, {"initial_cwnd": "20KB", "max_cwnd": "20KB"},
		{"mark_at": "dequeue"}, {"cp.preset": "hpcc"},
	} {
		require.NoError(t, a.ValidateParams(p), "%v", p)
	}
	for _, c := range []struct {
		p             map[string]string
		field, range_ string
	}{
		{map[string]string{"kmin": "1KB"}, "kmin", "a parameter of dctcp cp, dctcp rp (hwcc algos dctcp)"},
		{map[string]string{"rp.preset": "cubic"}, "preset", "one of linux, hpcc"},
		{map[string]string{"k": "5GB"}, "k", "a size in 0B..4.294967295GB"},
		{map[string]string{"dctcp_shift_g": "11"}, "dctcp_shift_g", "a whole number in 0..10"},
		{map[string]string{"dctcp_alpha_on_init": "1025"}, "dctcp_alpha_on_init", "a whole number in 0..1024"},
		{map[string]string{"slow_start": "sometimes"}, "slow_start", "on or off"},
		{map[string]string{"max_cwnd": "2GiB"}, "max_cwnd", "a size in 2B..1.073741824GB"},
		{map[string]string{"mark_at": "late"}, "mark_at", "one of enqueue, dequeue"},
		{map[string]string{"xp.k": "1KB"}, "xp.k", "a parameter, or cp., rp., np. or sw. and a parameter"},
	} {
		err := a.ValidateParams(c.p)
		var ce *cc.ConfigError
		require.ErrorAs(t, err, &ce, "%v", c.p)
		require.Equal(t, c.field, ce.Field, "%v", c.p)
		require.Equal(t, c.range_, ce.Range, "%v", c.p)
	}
	// A window below 2 MSS is the part's own error, naming the field.
	_, err := flowRP(dctcpName, testFlow{ID: 4, LineRate: 10 * units.Gbps, Payload: 1000}, map[string]string{"initial_cwnd": "1500"})
	var ce *cc.ConfigError
	require.ErrorAs(t, err, &ce)
	require.Contains(t, err.Error(), "InitialCwnd")
}

// dctcpPart returns the rp.DCTCP a flow's reaction point is.
func dctcpPart(t testing.TB, r cc.ReactionPoint) *rp.DCTCP {
	t.Helper()
	d, ok := r.(*rp.DCTCP)
	require.True(t, ok)
	return d
}

// The presets are rp's (the MSS the scenario's payload), K the HPCC
// paper's rule K = 30 KB·Bw/10 Gb/s ([HPCC] §5.1),
// computed here from the formula.
func TestDCTCPPresetConfigs(t *testing.T) {
	f := testFlow{ID: 1, LineRate: 25 * units.Gbps, BaseRTT: 4900 * units.Nanosecond, Payload: 1000}
	r, err := flowRP(dctcpName, f, nil)
	require.NoError(t, err)
	want := rp.DCTCPDefault(1000)
	want.SlowStart = true
	require.Equal(t, want, dctcpPart(t, r).Config())

	r, err = flowRP(dctcpName, f, map[string]string{"preset": "hpcc"})
	require.NoError(t, err)
	got := dctcpPart(t, r).Config()
	require.Equal(t, rp.DCTCPHPCCSim(f.LineRate, f.BaseRTT), got) // MSS 1000 = the payload
	require.Equal(t, units.Bytes(15312), got.MaxCwnd)             // the BDP: 25 Gb/s × 4.9 µs / 8 = 15312.5 B, rounded down

	f.Payload = 4000
	r, err = flowRP(dctcpName, f, map[string]string{"rp.preset": "hpcc", "dctcp_shift_g": "5", "slow_start": "on", "max_cwnd": "100KB"})
	require.NoError(t, err)
	got = dctcpPart(t, r).Config()
	require.Equal(t, units.Bytes(4000), got.MSS)
	require.Equal(t, units.Bytes(100_000), got.MaxCwnd)
	require.Equal(t, units.Bytes(15312), got.InitialCwnd, "the BDP, below the raised cap")
	require.Equal(t, uint8(5), got.ShiftG)
	require.True(t, got.SlowStart)

	for _, link := range []units.Rate{10 * units.Gbps, 25 * units.Gbps, 100 * units.Gbps} {
		c, err := portCP(dctcpName, testPort{Rate: link}, nil)
		require.NoError(t, err)
		require.Equal(t, cp.DCTCPConfig{K: units.Bytes(30_000 * float64(link) / 10e9)}, c.(*cp.DCTCP).Config())
	}
}

// The harness's 64-bit byte sequence reaches rp.DCTCP as its low 32 bits;
// a flow crossing 2^32 keeps its window bookkeeping exact (rp compares
// sequences wrap-aware).
func TestDCTCPSequenceWrap(t *testing.T) {
	r, err := flowRP(dctcpName, testFlow{LineRate: 10 * units.Gbps, Payload: 1000}, nil)
	require.NoError(t, err)
	d := dctcpPart(t, r)
	s := newTestSender(r, 0)
	// Bring the flow to just below 2^32 with 64 KiB segments, each acked.
	const seg = uint64(rp.DCTCPMaxSegment)
	start := uint64(1)<<32 - 5500 // the 6th segment below straddles 2^32
	now := units.Time(0)
	for seq := uint64(0); seq < start; {
		n := min(seg, start-seq)
		require.NoError(t, s.sent(now, seq, units.Bytes(n)))
		seq += n
		now += units.Nanosecond
		require.NoError(t, s.ack(now, seq, units.Bytes(n), false))
	}
	require.Equal(t, uint32(start), d.State().SndUna)
	for i := uint64(0); i < 10; i++ {
		require.NoError(t, s.sent(now, start+i*1000, 1000))
	}
	require.Equal(t, units.Bytes(10_000), d.Inflight())
	for i := uint64(1); i <= 10; i++ {
		now += units.Microsecond
		seq := start + i*1000
		require.NoError(t, s.ack(now, seq, 1000, i == 8))
		require.Equal(t, uint32(seq), d.State().SndUna)
		require.Equal(t, units.Bytes(10_000-i*1000), d.Inflight(), "after ACK %d", i)
	}
	require.Equal(t, uint64(1), d.State().Cuts, "the ECN echo after the wrap cut the window")
}

// An ACK that newly acknowledges more than rp.DCTCPMaxSegment reaches
// rp.DCTCP as consecutive chunks ending at the ACK's sequence, with one
// cut for its ECN echo.
func TestDCTCPAckChunks(t *testing.T) {
	r, err := flowRP(dctcpName, testFlow{LineRate: 10 * units.Gbps, Payload: 1000}, map[string]string{"initial_cwnd": "300KB"})
	require.NoError(t, err)
	d := dctcpPart(t, r)
	s := newTestSender(r, 0)
	for i := uint64(0); i < 200; i++ {
		require.NoError(t, s.sent(0, i*1000, 1000))
	}
	require.NoError(t, s.ack(units.Microsecond, 150_000, 150_000, true))
	st := d.State()
	require.Equal(t, uint32(150_000), st.SndUna)
	require.Equal(t, uint64(3), st.Acks, "150 KB = 64 KiB + 64 KiB + 18928 B")
	require.Equal(t, uint64(1), st.Cuts)
	// A duplicate (nothing new) is one call with 0 bytes.
	require.NoError(t, s.ack(2*units.Microsecond, 150_000, 0, false))
	require.Equal(t, uint64(4), d.State().Acks)
}

// Two long DCTCP flows on a 10 Gb/s bottleneck (K = 30 KB) share it
// fairly and keep the queue near K. Over the 20 ms window that starts
// 10 ms after the second start:
//
//   - Jain ≥ 0.99 and each flow within 10 % of C/2 (as for DCQCN).
//   - The queue follows the DCTCP paper's sawtooth (section 3.3), in packets
//     of P = 1082 wire bytes: with N = 2 flows, K the threshold and C·RTT
//     the base-RTT pipe, the windows meet the threshold at W* = (C·RTT +
//     K)/N, the marked fraction α solves α²(1 − α/4) = (2W* + 1)/(W* + 1)²,
//     each flow cuts D = (W* + 1)·α/2 and the queue swings by A = N·D below
//     Qmax = K + N. Assert p99 ≤ Qmax + 1 packet (one frame of rounding:
//     the threshold compares wire bytes, the windows count payload) and
//     p10 ≥ Qmax − 2A. The factor 2: the analysis assumes one cut per flow
//     per congestion episode; in the packet-level run a flow leaves its
//     reduction state one window after the cut and cuts again if the queue
//     is still above K, and the runs show two to three cuts per episode
//     with α at about two thirds of the analysis' value, a total cut of
//     about 1.7 D.
func TestDCTCPFairnessAndQueue(t *testing.T) {
	sc := dcqcnBuiltin(t, dctcpFairnessName, "sample_interval=1us")
	res := dcqcnRun(t, sc)
	require.GreaterOrEqual(t, res.Report.Fairness.Jain, 0.99)
	half := float64(dctcpScenarioLink) / 2
	for _, f := range res.Flows {
		require.InEpsilon(t, half, f.Throughput, 0.10, "flow %d: %.3f Gb/s", f.ID, f.Throughput/1e9)
	}

	const pkt = 1082.0 // wire bytes of a 1000-byte payload frame
	n := 2.0
	k := 30_000 * float64(dctcpScenarioLink) / 10e9 / pkt
	pipe := float64(units.BytesIn(dctcpScenarioLink, res.Flows[0].BaseRTT)) / pkt
	w := (pipe + k) / n
	rhs := (2*w + 1) / ((w + 1) * (w + 1))
	alpha := math.Sqrt(rhs) // solve α²(1 − α/4) = rhs by fixed-point iteration
	for i := 0; i < 50; i++ {
		alpha = math.Sqrt(rhs / (1 - alpha/4))
	}
	a := n * (w + 1) * alpha / 2
	qmax := k + n
	q := dcqcnQueueQuantiles(t, res, "s0->h0", units.Time(res.Scenario.MeasureFrom), res.End, 0.10, 0.99)
	t.Logf("W* %.1f α %.3f A %.2f pkts; Qmax %.0f B; p10 %v p99 %v", w, alpha, a, qmax*pkt, q[0], q[1])
	require.LessOrEqual(t, float64(q[1]), (qmax+1)*pkt, "p99")
	require.GreaterOrEqual(t, float64(q[0]), (qmax-2*a)*pkt, "p10")
}

// dctcp-incast runs to completion: every incast flow finishes and nothing
// is dropped (PFC is on).
func TestDCTCPIncast(t *testing.T) {
	res := dcqcnRun(t, dcqcnBuiltin(t, dctcpIncastName))
	require.Zero(t, res.Report.Drops)
	for _, f := range res.Flows[1:] {
		require.GreaterOrEqual(t, f.Finish, units.Time(0), "incast flow %d did not finish", f.ID)
	}
}

// FuzzDCTCPParams: any parameter set either fails ValidateParams, or builds a
// CP and an RP at 10 Gb/s (or fails the RP's MSS-dependent checks with an
// error) — never a panic. Seeds: valid, each kind of bad value, unknown.
func FuzzDCTCPParams(f *testing.F) {
	f.Add("preset", "hpcc", "k", "30KB")              // valid
	f.Add("initial_cwnd", "1500", "max_cwnd", "1GiB") // below 2 MSS: the rp's error
	f.Add("dctcp_shift_g", "11", "slow_start", "on")  // out of range
	f.Add("mark_at", "dequeue", "dctcp_alpha_on_init", "1024")
	f.Add("nope", "1", "k", "-1")
	a := ccAlgo(f, dctcpName)
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2 string) {
		params := map[string]string{k1: v1, k2: v2}
		if a.ValidateParams(params) != nil {
			return
		}
		c, err := portCP(dctcpName, testPort{Rate: 10 * units.Gbps}, params)
		if err != nil {
			require.ErrorIs(t, err, cc.ErrConfig, "a setting valid alone but not with the other")
			return
		}
		require.NotNil(t, c)
		fi := testFlow{LineRate: 10 * units.Gbps, BaseRTT: 6 * units.Microsecond, Payload: 1000}
		if r, err := flowRP(dctcpName, fi, params); err == nil {
			require.GreaterOrEqual(t, r.Limits().Window, units.Bytes(2000))
		} else {
			require.ErrorIs(t, err, cc.ErrConfig)
		}
	})
}
