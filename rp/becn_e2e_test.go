package rp_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cp"
	"github.com/hwcc/hwcc/np"
	"github.com/hwcc/hwcc/rp"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// becnNewCP builds a congestion point of cfg.
func becnNewCP(t testing.TB, cfg cp.BECNConfig) *cp.BECN {
	t.Helper()
	c, err := cp.NewBECN(cfg)
	require.NoError(t, err)
	return c
}

// fecnNewNP builds a notification point of cfg.
func fecnNewNP(t testing.TB, cfg np.FECNConfig) *np.FECN {
	t.Helper()
	n, err := np.NewFECN(cfg)
	require.NoError(t, err)
	return n
}

// becnApply carries out a CP's decisions on the packet (a mark sets CE) and
// returns the notifications it sends.
func becnApply(act *cc.Actions, p *cc.Packet) []cc.Feedback {
	var out []cc.Feedback
	for _, a := range act.All() {
		switch a.Kind {
		case cc.ActionMarkCE:
			p.CE = true
		case cc.ActionFeedback:
			out = append(out, a.Feedback)
		}
	}
	return out
}

// FECN end to end: the CP marks the packets that find the queue above the
// threshold, the NP answers the marks with notifications (one per 50 µs),
// the RP halves per notification. A packet every 10 µs finds the queue
// congested for 240 µs: marks at 0..240 µs, notifications at 0, 50, ...,
// 200 µs (five, each 50 µs < Tq = 55 µs after the last: in a row), so the
// rate falls to line/2^k after the k-th and the fifth pauses the source.
// Then the queue drains: after Tq with no notification the pause ends and
// RC doubles, once per Tq, back to the line rate in five steps.
func TestFECNEndToEnd(t *testing.T) {
	const line = 25 * units.Gbps
	const hop = 2 * becnUs // switch to receiver, receiver to source
	sw := becnNewCP(t, cp.BECNSurvey(cp.BECNModeFECN, line))
	rcv := fecnNewNP(t, np.FECNSurvey())
	src := becnNewRP(t, rp.BECNSurvey(line))
	congested := cc.Queue{Len: sw.Config().Threshold + 1}
	act := cc.NewActions(4)
	k := 0
	for now := units.Time(0); now <= 240*becnUs; now += 10 * becnUs {
		p := becnPkt(3)
		require.NoError(t, src.Sent(now, p, nil))
		act.Reset()
		require.NoError(t, sw.Enqueue(now, p, congested, act))
		require.Empty(t, becnApply(act, p), "FECN: no notification from the switch")
		require.True(t, p.CE, "marked: the queue is above the threshold")
		act.Reset()
		require.NoError(t, rcv.Receive(now+hop, p, act))
		for _, f := range becnApply(act, p) {
			require.Equal(t, wire.FeedbackBECN, f.Kind)
			require.Equal(t, cc.FlowID(3), f.Flow)
			require.Equal(t, cc.ToSource, act.At(0).To)
			require.NoError(t, src.Feedback(now+2*hop, &f, nil))
			k++
			require.Equal(t, now, units.Time(k-1)*cp.BECNSurveyInterval, "notifications 50 µs apart")
			require.Equal(t, line>>k, src.Limits().Rate, "halved %d times", k)
			require.Equal(t, k >= 5, src.Paused(), "paused from the fifth in a row")
		}
	}
	require.Equal(t, 5, k)
	require.Equal(t, cc.Limits{Rate: line / 32, Credited: true}, src.Limits())
	last := src.State().LastNote
	require.Equal(t, 200*becnUs+2*hop, last)
	for j := 1; j <= 5; j++ {
		d := src.NextDeadline()
		require.Equal(t, last+units.Time(j)*rp.BECNSurveyQuietPeriod, d)
		require.NoError(t, src.Timer(d, nil))
		require.False(t, src.Paused(), "the quiet period ends the pause")
		require.Equal(t, line>>(5-j), src.Limits().Rate, "step %d", j)
	}
	require.Equal(t, units.MaxTime, src.NextDeadline())
	require.Equal(t, cc.Limits{Rate: line}, src.Limits())
}

// BECN end to end: the congested CP notifies the source itself, once per
// flow per 50 µs, of the packets that join the queue; the RP halves.
func TestBECNEndToEnd(t *testing.T) {
	const line = 100 * units.Gbps
	sw := becnNewCP(t, cp.BECNSurvey(cp.BECNModeBECN, line))
	src := becnNewRP(t, rp.BECNSurvey(line))
	congested := cc.Queue{Len: sw.Config().Threshold + 1}
	act := cc.NewActions(4)
	k := 0
	for now := units.Time(0); now <= 150*becnUs; now += becnUs {
		p := becnPkt(5)
		act.Reset()
		require.NoError(t, sw.Enqueue(now, p, congested, act))
		require.False(t, p.CE, "BECN does not mark")
		for _, f := range becnApply(act, p) {
			require.NoError(t, src.Feedback(now+becnUs, &f, nil))
			k++
		}
		// Another flow's packets in the same queue do not touch flow 5's
		// pacing.
		act.Reset()
		require.NoError(t, sw.Enqueue(now, becnPkt(6), congested, act))
	}
	require.Equal(t, 4, k, "at 0, 50, 100, 150 µs")
	require.Equal(t, line/16, src.Limits().Rate)
	require.False(t, src.Paused(), "four in a row")
	require.Equal(t, uint64(8), sw.State().Signals, "four for each flow")
}
