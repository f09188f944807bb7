package algos

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/harness"
	"github.com/hwcc/hwcc/units"
)

// cbfcRun runs cbfc-incast with the given link flow control and settings.
func cbfcRun(t *testing.T, fc string, set ...string) *harness.Result {
	t.Helper()
	sc, err := harness.Builtin(cbfcIncastName)
	require.NoError(t, err)
	require.NoError(t, sc.Set("flow_control", fc))
	for i := 0; i+1 < len(set); i += 2 {
		require.NoError(t, sc.Set(set[i], set[i+1]))
	}
	r, err := harness.Run(sc, harness.Options{NoSeries: true})
	require.NoError(t, err)
	return r
}

// TestCBFCIncast: 16 flows of 1 MB at line rate into one 100 Gb/s port
// through a 4 MB switch, with no end-to-end congestion control.
//
//   - CBFC: nothing dropped, no PFC frame, every flow done, and no ingress
//     ever held more than its advertised credit: 2048 blocks of 64 bytes,
//     and every frame is a full one (1000 B of payload and 62 B of
//     headers: 17 blocks), so at most ⌊2048/17⌋ = 120 frames, 120 × 1082
//     wire bytes. The senders did use their credit (more than 100 frames
//     held), and the switch held at most 16 such buffers (the switch
//     never exceeds what its receivers advertised, summed).
//   - The last flow ends when the port has sent all 16 MB: 16000 frames of
//     1082 wire bytes at 100 Gb/s = 1.385 ms, plus the base RTT and the
//     bandwidth the flow-control packets take on the bottleneck (periodic
//     ones only: 84 B per 5.24 µs, 0.13 %): within 1 %.
//   - PFC on the same incast pauses the senders and lets the buffer grow
//     past what CBFC allowed (its Xoff is 500 KB per ingress); without
//     flow control the 4 MB buffer overflows and frames drop.
func TestCBFCIncast(t *testing.T) {
	const frame = 1000 + 62 + 20 // payload, headers, preamble and gap
	cb := cbfcRun(t, harness.FlowCBFC)
	require.Nil(t, cb.Report.Errors, "no CBFC refusal: no sender broke its credit")
	require.Zero(t, cb.Counters.Drops)
	require.Zero(t, cb.Report.PFC.Pauses)
	require.Equal(t, int64(16), cb.Counters.FlowsFinished)
	require.Positive(t, cb.Counters.FCPackets)
	var maxIngress units.Bytes
	for _, p := range cb.Ports {
		require.Zero(t, p.PausesSent, p.Link)
		maxIngress = max(maxIngress, p.MaxIngress)
	}
	require.LessOrEqual(t, maxIngress, units.Bytes(120*frame), "an ingress held more than its 2048 blocks of credit")
	require.Greater(t, maxIngress, units.Bytes(100*frame), "the senders used their credit")
	require.LessOrEqual(t, cb.Counters.MaxBufferUsed, units.Bytes(16*120*frame))

	last := units.Time(0)
	for _, f := range cb.Flows {
		last = max(last, f.Finish)
	}
	ideal := units.SerializationTime(16000*frame, 100*units.Gbps)
	require.InEpsilon(t, float64(ideal), float64(last), 0.01, "last FCT %v, the port's 16 MB take %v", last, ideal)

	pfc := cbfcRun(t, harness.FlowPFC)
	require.Zero(t, pfc.Counters.Drops)
	require.Positive(t, pfc.Report.PFC.Pauses)
	require.Zero(t, pfc.Counters.FCPackets)
	require.Greater(t, pfc.Counters.MaxBufferUsed, cb.Counters.MaxBufferUsed, "PFC lets the buffer grow past CBFC's credits")

	lossy := cbfcRun(t, harness.FlowNone, "duration", "400us")
	require.Positive(t, lossy.Counters.Drops, "without flow control 16 line-rate senders overflow 4 MB")
	require.Zero(t, lossy.Report.PFC.Pauses)
}

// TestCBFCTwoTiers: on a leaf-spine, credits also gate the links between
// switches (the upstream switch's egress holds a sender, the downstream's
// ingress a receiver resynchronised by the upstream's FCTBS), with INT
// stamping on the way (HPCC): no drop, no refusal, every flow done, and
// no ingress above its credit. 8 senders on leaf 0 send 200 KB each to a
// host on leaf 1 across 2 spines.
func TestCBFCTwoTiers(t *testing.T) {
	sc, err := harness.Builtin(cbfcIncastName)
	require.NoError(t, err)
	sc.Topology = harness.TopologySpec{Kind: "leaf-spine", Leaves: 2, Spines: 2, HostsPerLeaf: 8}
	sc.Workload.Incast = []harness.IncastSpec{{Hosts: []string{"h0", "h1", "h2", "h3", "h4", "h5", "h6", "h7"}, Dst: "h8", Size: harness.Bytes(200 * units.KB)}}
	sc.Duration = harness.Time(units.Millisecond)
	sc.Algorithm = "hpcc"
	r, err := harness.Run(sc, harness.Options{NoSeries: true})
	require.NoError(t, err)
	require.Nil(t, r.Report.Errors)
	require.Zero(t, r.Counters.Drops)
	require.Equal(t, int64(8), r.Counters.FlowsFinished)
	spineIn := false
	for _, p := range r.Ports {
		require.LessOrEqual(t, p.MaxIngress, units.Bytes(2048*64*1100/1000), p.Link)
		if p.IsSwitch && p.MaxIngress > 0 && (p.Link == "spine0->leaf0" || p.Link == "spine1->leaf0") {
			spineIn = true // a spine port that received from leaf 0 (its ingress)
		}
	}
	require.True(t, spineIn, "frames crossed the spines")
}
