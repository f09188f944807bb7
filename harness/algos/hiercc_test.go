package algos

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cp"
	"github.com/hwcc/hwcc/harness"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/voq"
)

// hierccVOQMax is the longest queue at tor2's uplinks: where HierCC's VOQ
// toward h0 waits (switch.ecmp destination puts it on one of them).
func hierccVOQMax(t *testing.T, r *harness.Result) units.Bytes {
	return max(hpccPort(t, r, "tor2->agg2").MaxBytes, hpccPort(t, r, "tor2->agg3").MaxBytes)
}

// Wire sizes of the burst scenario: 1000 B payloads in 1082-byte frames
// (harness.DataOverheadBytes and the preamble and gap), and the rate
// packet's 78-byte frame plus preamble and gap.
const (
	hierccFrame     = units.Bytes(1082)
	hierccRateFrame = units.Bytes(98)
)

// TestHierCCBurst: §5.1 ([HierCC], Figure 4): a long flow
// and 15 flows of 75 KB at 1 ms and 3 ms into one server of the 2/4/4
// network. The paper: "HierCC limits VOQs length and aggregates single
// flows into long-lived flows, thus it keeps high link bandwidth
// utilization and small queue length while DCQCN builds queue up to
// 1000KB".
//
//   - The bottleneck (tor0→h0) stays within one VOQ's credit window: the
//     receiver side credits VOQ tor2.h0 only while C_ij < S_ij, so the
//     VOQ's balance never exceeds C0 + Δ and it cannot put more than
//     C0 + Δ plus one frame (its deficit) ahead of what h0's port has
//     sent: 32 KB + 1 KB + 1082 B (measured 21.6 KB).
//   - The VOQ stays within the SenderToR's bound V_high + H·L·RTT_hop +
//     (n + H)·MTU, V_high plus one RTT_hop of its 16 servers' arrivals at
//     line rate (the bound this test asserts): RTT_hop here is the 1 µs link both
//     ways plus a frame's and a rate packet's serialisation (2.38 µs), so
//     70 KB + 16 × 25 Gb/s × 2.38 µs + 32 frames = 223 KB (measured 190
//     KB). It does not stay below V_high: 15 flows at line rate put one
//     RTT_hop of 15 × 25 Gb/s into it before any stop can reach them
//     (section 3.3 starts every flow at line rate), and each resume sends
//     the rate frozen at the stop, the line rate again (see
//     docs/scenarios.md).
//   - h0's link stays busy: at least 97 % utilised over the run (measured
//     99.9 %), and the long flow alone before the burst runs at line rate
//     (at least 24 Gb/s over [0.2 ms, 1 ms]; measured 24.99).
//   - DCQCN on the same scenario builds a bottleneck queue of the order of
//     1000 KB: between 500 KB and 2 MB (measured 1.21 MB), at least 20
//     times HierCC's.
//   - Every flow finishes, and no state machine refuses an event.
func TestHierCCBurst(t *testing.T) {
	hc := xpRun(t, hierccBurstName, hierccName, false)
	bott := hpccPort(t, hc, "tor0->h0")
	window := hierccBurstC0 + voq.PaperDelta + hierccFrame
	require.LessOrEqual(t, bott.MaxBytes, window, "the bottleneck queue beyond one VOQ window")
	rttHop := 2*hierccDelay + units.SerializationTime(hierccFrame, hierccServerLink) + units.SerializationTime(hierccRateFrame, hierccServerLink)
	bound := cp.HierCCPaperVHigh + units.BytesIn(16*hierccServerLink, rttHop) + 32*hierccFrame
	voqMax := hierccVOQMax(t, hc)
	require.LessOrEqual(t, voqMax, bound, "the VOQ beyond V_high plus one RTT_hop of arrivals (%v)", bound)
	require.Greater(t, voqMax, cp.HierCCPaperVHigh, "the synchronized burst overshoots V_high (see the doc comment)")
	require.GreaterOrEqual(t, bott.Utilization, 0.97, "h0's link")
	require.Equal(t, int64(len(hc.Flows)-1), hc.Counters.FlowsFinished, "every sized flow finished")

	alone := xpRun(t, hierccBurstName, hierccName, false, "measure_from", "200us", "measure_to", "1ms")
	require.GreaterOrEqual(t, alone.Flows[0].Throughput, 24e9, "the long flow alone before the burst")

	dc := xpRun(t, hierccBurstName, dcqcnName, false)
	dq := hpccPort(t, dc, "tor0->h0").MaxBytes
	require.GreaterOrEqual(t, dq, 500*units.KB, "DCQCN's queue, of the order of 1000 KB")
	require.LessOrEqual(t, dq, 2*units.MB, "DCQCN's queue, of the order of 1000 KB")
	require.GreaterOrEqual(t, dq, 20*bott.MaxBytes, "DCQCN's bottleneck against HierCC's")
}

// TestHierCCPaperC0: with the paper's C0 = 10 KB a VOQ sends at most
// C0 + Δ plus a frame per inter-ToR round trip (the credit rule C_ij <
// S_ij makes C0 + Δ a window), and that round trip crosses 4 links of
// 1 µs each way, at least 8 µs: the long flow alone cannot pass
// (10 KB + 1 KB + 1082 B)·8/8 µs = 12.1 Gb/s (measured 6.3 Gb/s), half
// the line rate, where the burst scenario's 32 KB gives 25 (TestHierCCBurst).
func TestHierCCPaperC0(t *testing.T) {
	r := xpRun(t, hierccBurstName, hierccName, false, "param.sw.c0", "10KB", "measure_from", "200us", "measure_to", "1ms")
	window := voq.PaperC0 + voq.PaperDelta + hierccFrame
	ceiling := float64(window) * 8 / (8 * hierccDelay).Seconds()
	require.LessOrEqual(t, r.Flows[0].Throughput, ceiling, "the long flow beyond (C0 + Δ + frame)/RTT")
	require.Less(t, r.Flows[0].Throughput, 0.5*float64(hierccServerLink))
}

// TestHierCCCacheFollower: section 5.2's comparison at the scale of
// section 5.1 (hiercc-cachefollower). The paper: HierCC's average FCT
// below HPCC's, TIMELY's, ExpressPass's and DCQCN's (by up to 10, 20, 50
// and 60 %), and its 99th percentile below all of them. What this
// network and workload stand-in reproduce, each checked here:
//
//   - every flow finishes under every algorithm, and no state machine
//     refuses an event;
//   - HierCC's mean FCT is below ExpressPass's (measured 101 µs against
//     138 µs) and its mean slowdown below DCQCN's and ExpressPass's
//     (1.47 against 1.74 and 2.91);
//   - HierCC's largest queue is less than half of DCQCN's (226 KB against
//     491 KB).
//
// What it does not: HierCC's mean FCT is within 10 % of HPCC's and
// DCQCN's, not 10 % and 60 % below, and HPCC's mean slowdown is the
// lowest (1.32): see docs/scenarios.md for why.
func TestHierCCCacheFollower(t *testing.T) {
	skipLongReproduction(t)
	sc, err := harness.Builtin(hierccCacheName)
	require.NoError(t, err)
	cmp, results, err := harness.Compare(sc, nil, harness.Options{NoSeries: true})
	require.NoError(t, err)
	rows := map[string]harness.ComparisonRow{}
	for i, row := range cmp.Rows {
		require.Nil(t, results[i].Report.Errors, "%s: the state machines refused events", row.Algorithm)
		require.Equal(t, row.Sized, row.Finished, "%s: every flow finishes", row.Algorithm)
		require.Greater(t, row.Sized, 1000, "%s: flows", row.Algorithm)
		rows[row.Algorithm] = row
	}
	hc := rows[hierccName]
	require.Less(t, hc.FCTMeanNs, rows[expressPassName].FCTMeanNs, "mean FCT against ExpressPass")
	require.Less(t, hc.SlowdownMean, rows[dcqcnName].SlowdownMean, "mean slowdown against DCQCN")
	require.Less(t, hc.SlowdownMean, rows[expressPassName].SlowdownMean, "mean slowdown against ExpressPass")
	require.Less(t, 2*hc.QueueMaxBytes, rows[dcqcnName].QueueMaxBytes, "largest queue against DCQCN")
	for _, a := range []string{hpccName, dcqcnName} {
		ratio := float64(hc.FCTMeanNs) / float64(rows[a].FCTMeanNs)
		t.Logf("mean FCT HierCC/%s = %.3f", a, ratio)
	}
}
