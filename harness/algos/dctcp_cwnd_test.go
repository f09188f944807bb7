package algos

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/harness"
	"github.com/hwcc/hwcc/rp"
	"github.com/hwcc/hwcc/units"
)

// Regression tests: rp.DCTCP grows cwnd only while the sender is
// cwnd-limited, as its reference, Linux tcp_dctcp.c, does: the window
// growth (tcp_reno_cong_avoid) starts with "if (!tcp_is_cwnd_limited(sk))
// return;", i.e. cwnd grows only while the sender uses it (in slow start:
// cwnd < 2·max_packets_out; otherwise: the sender was blocked by cwnd in
// the current window). A sender held back by something else (pacing, the
// NIC, the application) keeps its window.
//
// Without that rule, a flow paced at its line rate into a bottleneck of the
// same rate builds no queue, gets no mark, and its window grows on every
// ACK: the long flow of dctcp-incast reached a 1.16 MB cwnd (about 160
// times its 7.3 KB bandwidth-delay product) in its 1 ms alone, so that when the incast started it filled the
// queue far past K (peak 333 KB against K = 30 KB) and kept about 60 % of
// the link for milliseconds while its α climbed at g = 1/16 per window.
//
// TestDCTCPRPNoGrowthWhenNotCwndLimited: two segments in flight against a
// 10-segment window, acknowledged and resent 100 times (200 segments
// acknowledged, 20 windows' worth): Linux leaves cwnd at 10 segments, with
// slow start on (10 ≥ 2·2 packets out) or off (never blocked by cwnd).
func TestDCTCPRPNoGrowthWhenNotCwndLimited(t *testing.T) {
	for _, slowStart := range []bool{false, true} {
		cfg := rp.DCTCPDefault(1000 * units.Byte)
		cfg.SlowStart = slowStart
		d, err := rp.NewDCTCP(cfg)
		require.NoError(t, err)
		now := units.Time(0)
		seq := uint64(0)
		for round := 0; round < 100; round++ {
			for k := 0; k < 2; k++ {
				require.NoError(t, d.Sent(now, &cc.Packet{Seq: seq + uint64(k)*1000, Payload: 1000}, nil))
			}
			now += units.Microsecond
			for k := 1; k <= 2; k++ {
				require.NoError(t, d.Feedback(now, &cc.Feedback{Kind: cc.FeedbackAck, Seq: seq + uint64(k)*1000, Acked: 1000}, nil))
			}
			seq += 2000
		}
		require.Equal(t, cfg.InitialCwnd, d.Window(),
			"slow start %v: 2 segments in flight never use the 10-segment window, so Linux keeps cwnd", slowStart)
	}
}

// dctcpProbeRP wraps the reaction point of a flow (Options.Wrap): it
// records the window at the first send at or after at, and the largest
// flight after a send before then.
type dctcpProbeRP struct {
	cc.ReactionPoint
	d  *rp.DCTCP
	at units.Time
	// sampled: cwnd holds the window at the first send at or after at;
	// maxFlight is the largest inflight after a send before then.
	sampled         bool
	cwnd, maxFlight units.Bytes
}

func (r *dctcpProbeRP) Sent(now units.Time, p *cc.Packet, act *cc.Actions) error {
	if !r.sampled && now >= r.at {
		r.sampled, r.cwnd = true, r.d.Window()
	}
	err := r.ReactionPoint.Sent(now, p, act)
	if !r.sampled {
		r.maxFlight = max(r.maxFlight, r.d.Inflight())
	}
	return err
}

// In dctcp-incast (linux preset: slow start on, IW10, 1000-byte MSS) the
// long flow is alone for its first 1 ms, paced at the 10 Gb/s line rate into
// the 10 Gb/s port of h0: no queue, no mark, and at most one base RTT of
// line-rate payload in flight plus the segment being sent, flight ≤ BDP +
// MSS (BDP = line rate × base RTT = 7.3 KB). Linux's slow start grows cwnd
// only while cwnd < 2·max flight, one acknowledged segment (one MSS: an ACK
// per segment) at a time, so when the incast starts cwnd < 2·(BDP + MSS) +
// MSS = 2·BDP + 3·MSS (17.7 KB; measured 14 KB, twice its 7 KB flight,
// where it was 1.16 MB when cwnd grew on every ACK). It started at IW10,
// 10 KB, above its flight, so it is not window-limited: flight < cwnd − MSS.
func TestDCTCPIncastLongFlowWindowBeforeIncast(t *testing.T) {
	var long *dctcpProbeRP
	wrap := func(at harness.Place, p cc.Part) cc.Part {
		if at.Role != cc.RoleRP || at.Flow != 0 {
			return p
		}
		long = &dctcpProbeRP{ReactionPoint: p.(cc.ReactionPoint), d: p.(*rp.DCTCP), at: dcqcnIncastAt}
		return long
	}
	sc := dcqcnBuiltin(t, dctcpIncastName)
	require.Equal(t, dctcpName, sc.Algorithm)
	res, err := harness.Run(sc, harness.Options{NoSeries: true, Wrap: wrap})
	require.NoError(t, err)
	require.NotNil(t, long, "no RP for the long flow")
	require.True(t, long.sampled, "the long flow sent nothing after the incast's start")
	require.Nil(t, res.Report.Errors, "a state machine rejected an event")
	const mss = 1000 * units.Byte // the scenario's payload, the linux preset's MSS
	f := res.Flows[0]
	require.Zero(t, f.Size, "flow 0 is the long flow")
	bdp := units.BytesIn(dctcpScenarioLink, f.BaseRTT)
	t.Logf("long flow at %v: cwnd %v, largest flight before %v; BDP %v", dcqcnIncastAt, long.cwnd, long.maxFlight, bdp)
	require.LessOrEqual(t, long.maxFlight, bdp+mss, "paced at the line rate: at most a BDP and a segment in flight")
	require.Less(t, long.cwnd, 2*bdp+3*mss, "slow start stops at twice the flight")
	require.Less(t, long.maxFlight, long.cwnd-mss, "pacing-limited, not window-limited")
}
