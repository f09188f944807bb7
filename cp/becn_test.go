package cp_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cp"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// becnUs is a microsecond.
const becnUs = units.Microsecond

// becnNewCP builds a congestion point of cfg.
func becnNewCP(t testing.TB, cfg cp.BECNConfig) *cp.BECN {
	t.Helper()
	c, err := cp.NewBECN(cfg)
	require.NoError(t, err)
	return c
}

// becnTo is the action a notification of flow f is.
func becnTo(f cc.FlowID) cc.Action {
	return cc.Action{Kind: cc.ActionFeedback, To: cc.ToSource, Prio: cc.ControlPrio,
		Feedback: cc.Feedback{Kind: wire.FeedbackBECN, Flow: f}}
}

// becnPkt is a full data packet of flow f.
func becnPkt(f cc.FlowID) *cc.Packet { return &cc.Packet{Flow: f, Payload: 1000, Size: 1082} }

// At or below the threshold nothing happens; above it (q > K) the packet's
// source is notified (BECN) or the packet is marked (FECN), once.
func TestBECNThreshold(t *testing.T) {
	const k = 400_000
	for _, m := range []cp.BECNMode{cp.BECNModeBECN, cp.BECNModeFECN} {
		cfg := cp.BECNSurvey(m, 100*units.Gbps)
		require.Equal(t, units.Bytes(k), cfg.Threshold, "100 KB per 25 Gb/s")
		c := becnNewCP(t, cfg)
		act := cc.NewActions(4)
		for i, q := range []units.Bytes{0, 1082, k - 1, k} {
			require.NoError(t, c.Enqueue(units.Time(i), becnPkt(7), cc.Queue{Len: q}, act), "%v q=%v", m, q)
			require.Zero(t, act.Len(), "%v: q = %v is not above %v", m, q, k)
		}
		require.NoError(t, c.Enqueue(10, becnPkt(7), cc.Queue{Len: k + 1}, act))
		want := becnTo(7)
		if m == cp.BECNModeFECN {
			want = cc.Action{Kind: cc.ActionMarkCE}
		}
		require.Equal(t, []cc.Action{want}, act.All(), "%v", m)
		s := c.State()
		require.Equal(t, cp.BECNState{Packets: 5, Over: 1, Signals: 1, Slots: s.Slots}, s)
		act.Reset()
		require.NoError(t, c.Dequeue(11, becnPkt(7), cc.Queue{Len: 10 * k}, act))
		require.Zero(t, act.Len(), "judged at enqueue only")
		require.Equal(t, uint64(5), c.State().Packets)
	}
}

// One notification per flow per MinInterval: a flow whose packets find the
// queue above the threshold every microsecond for T is notified at 0,
// MinInterval, 2·MinInterval, ...: ⌊T/MinInterval⌋ + 1 times; two flows
// interleaved are paced each on its own; MinInterval 0 notifies every
// congested packet.
func TestBECNPerFlowMinInterval(t *testing.T) {
	cfg := cp.BECNSurvey(cp.BECNModeBECN, 100*units.Gbps)
	q := cc.Queue{Len: cfg.Threshold + 1}
	const T = 1000 * becnUs
	c := becnNewCP(t, cfg)
	act := cc.NewActions(1)
	var got [2][]units.Time
	for now := units.Time(0); now <= T; now += becnUs {
		for f := range cc.FlowID(2) {
			act.Reset()
			at := now + units.Time(f)*100 // flow 1 a little later
			require.NoError(t, c.Enqueue(at, becnPkt(f+1), q, act))
			if act.Len() == 1 {
				require.Equal(t, becnTo(f+1), act.At(0))
				got[f] = append(got[f], at)
			}
		}
	}
	n := int(T/cp.BECNSurveyInterval) + 1
	for f := range 2 {
		require.Len(t, got[f], n, "flow %d", f+1)
		for i, at := range got[f] {
			require.Equal(t, units.Time(i)*cp.BECNSurveyInterval+units.Time(f)*100, at)
		}
	}
	s := c.State()
	require.Equal(t, uint64(2*n), s.Signals)
	require.Equal(t, s.Over-s.Signals, s.Suppressed)
	require.Equal(t, uint32(2), s.Slots)
	require.NotEqual(t, c.Slot(1), c.Slot(2), "flows 1 and 2 hash apart in 1024 slots")

	cfg.MinInterval = 0
	c = becnNewCP(t, cfg)
	for i := range 100 {
		act.Reset()
		require.NoError(t, c.Enqueue(units.Time(i), becnPkt(3), q, act))
		require.Equal(t, 1, act.Len())
	}
}

// Flows that share a slot take it from each other: each notification of
// one frees the other from its pacing, so both are notified on every
// packet (never silenced by the other), and each taking counts.
func TestBECNTableCollision(t *testing.T) {
	cfg := cp.BECNSurvey(cp.BECNModeBECN, 100*units.Gbps)
	cfg.TableBits = 0 // one slot
	c := becnNewCP(t, cfg)
	require.Equal(t, 0, c.Slot(12345))
	act := cc.NewActions(100)
	q := cc.Queue{Len: cfg.Threshold + 1}
	for i := range 10 {
		require.NoError(t, c.Enqueue(units.Time(i), becnPkt(cc.FlowID(i%2)), q, act))
	}
	require.Equal(t, 10, act.Len())
	require.Equal(t, uint64(9), c.State().Takeovers)
	require.Equal(t, uint32(1), c.State().Slots)
	act.Reset()
	require.NoError(t, c.Enqueue(10, becnPkt(1), q, act), "flow 1 holds the slot since 9")
	require.Zero(t, act.Len(), "paced within MinInterval")
	// The hash spreads consecutive flow IDs: 1024 of them fill more of
	// the 1024 slots than a uniformly random hash would on average,
	// 1024·(1 − (1 − 1/1024)^1024) ≈ 1024·(1 − 1/e) ≈ 647 (Fibonacci
	// hashing spaces consecutive keys by the golden ratio; it fills 896).
	c = becnNewCP(t, cp.BECNSurvey(cp.BECNModeBECN, 100*units.Gbps))
	seen := make(map[int]bool)
	for f := range cc.FlowID(1024) {
		seen[c.Slot(f)] = true
	}
	require.Greater(t, len(seen), 647)
	t.Logf("1024 consecutive flows take %d of 1024 slots", len(seen))
}

// FECN marks every congested packet (no pacing), at the configured point;
// Dequeue judges the queue the packet leaves behind.
func TestBECNFECNDequeue(t *testing.T) {
	cfg := cp.BECNSurvey(cp.BECNModeFECN, 25*units.Gbps)
	cfg.At = cp.BECNAtDequeue
	c := becnNewCP(t, cfg)
	act := cc.NewActions(8)
	require.NoError(t, c.Enqueue(0, becnPkt(1), cc.Queue{Len: 1 << 30}, act))
	require.Zero(t, act.Len(), "not judged at enqueue")
	for i := range 5 {
		require.NoError(t, c.Dequeue(units.Time(i), becnPkt(1), cc.Queue{Len: 100_001}, act))
	}
	require.NoError(t, c.Dequeue(6, becnPkt(1), cc.Queue{Len: 100_000}, act))
	require.Equal(t, 5, act.Count(cc.ActionMarkCE))
	require.Equal(t, 5, act.Len())
}

// A decision that does not fit fails the event and changes nothing; a
// packet that decides nothing needs no room; the judging point's event
// refuses a nil act whether or not it would decide (cc rule 3), the other
// point's takes one; bad input is refused.
func TestBECNRefusals(t *testing.T) {
	for _, m := range []cp.BECNMode{cp.BECNModeBECN, cp.BECNModeFECN} {
		cfg := cp.BECNSurvey(m, 100*units.Gbps)
		c := becnNewCP(t, cfg)
		over := cc.Queue{Len: cfg.Threshold + 1}
		full := cc.NewActions(1)
		full.MarkCE()
		before := c.AppendRegisters(nil)
		for _, act := range []*cc.Actions{full, cc.NewActions(0)} {
			err := c.Enqueue(5, becnPkt(1), over, act)
			require.ErrorIs(t, err, cc.ErrActionsFull, "%v", m)
			require.Equal(t, before, c.AppendRegisters(nil))
		}
		require.Equal(t, 1, full.Len())
		for _, q := range []cc.Queue{over, {Len: 10}} {
			err := c.Enqueue(5, becnPkt(1), q, nil)
			var ee *cc.EventError
			require.ErrorAs(t, err, &ee, "%v", m)
			require.ErrorIs(t, err, cc.ErrNoActions)
			require.Equal(t, "cp.BECN", ee.Part)
			require.Equal(t, "Enqueue", ee.Event)
			require.Equal(t, before, c.AppendRegisters(nil))
		}
		require.NoError(t, c.Enqueue(5, becnPkt(1), cc.Queue{Len: 10}, cc.NewActions(0)), "nothing to decide: no room needed")
		require.NoError(t, c.Dequeue(5, becnPkt(1), over, nil), "not judged at dequeue")
		require.NoError(t, c.Timer(5, nil))
		deq := cfg
		deq.At = cp.BECNAtDequeue
		d := becnNewCP(t, deq)
		require.ErrorIs(t, d.Dequeue(5, becnPkt(1), over, nil), cc.ErrNoActions, "judged at dequeue")
		require.NoError(t, d.Enqueue(5, becnPkt(1), over, nil), "not judged at enqueue")
		if m == cp.BECNModeBECN {
			require.NoError(t, c.Enqueue(5, becnPkt(1), over, cc.NewActions(1)))
			require.NoError(t, c.Enqueue(6, becnPkt(1), over, cc.NewActions(0)), "suppressed: nothing to append")
			require.Equal(t, uint64(1), c.State().Suppressed)
		}
		before = c.AppendRegisters(nil)
		for _, err := range []error{
			c.Enqueue(7, nil, over, cc.NewActions(1)),
			c.Enqueue(7, becnPkt(1), cc.Queue{Len: -1}, cc.NewActions(1)),
			c.Dequeue(7, &cc.Packet{Size: -1}, over, cc.NewActions(1)),
			c.Dequeue(7, &cc.Packet{Payload: -1}, over, cc.NewActions(1)),
		} {
			require.ErrorIs(t, err, cc.ErrEvent)
		}
		// The first fault is named: a nil packet, then the queue, then the
		// packet's sizes.
		for _, tc := range []struct {
			p      *cc.Packet
			q      units.Bytes
			reason string
		}{
			{nil, -1, "nil packet"},
			{&cc.Packet{Size: -1}, -1, "queue length -1B is negative"},
			{&cc.Packet{Size: -1, Payload: -1}, 0, "packet size -1B is negative"},
			{&cc.Packet{Payload: -1}, 0, "payload -1B is negative"},
		} {
			var ee *cc.EventError
			require.ErrorAs(t, c.Enqueue(7, tc.p, cc.Queue{Len: tc.q}, nil), &ee)
			require.Equal(t, tc.reason, ee.Reason)
		}
		for _, err := range []error{
			c.Enqueue(4, becnPkt(1), over, cc.NewActions(1)), c.Dequeue(4, nil, over, nil), c.Timer(4, nil),
		} {
			require.ErrorIs(t, err, cc.ErrTimeOrder)
		}
		require.Equal(t, before, c.AppendRegisters(nil))
		require.NoError(t, c.Timer(100, nil))
		require.Equal(t, units.MaxTime, c.NextDeadline())
		require.Equal(t, units.Time(100), c.Last())
	}
}

func TestBECNConfig(t *testing.T) {
	require.Equal(t, cp.BECNConfig{Mode: cp.BECNModeFECN, Threshold: 100_000, MinInterval: 50 * becnUs, TableBits: 10},
		cp.BECNSurvey(cp.BECNModeFECN, 25*units.Gbps))
	for field, c := range map[string]cp.BECNConfig{
		"Mode":        {Mode: 2},
		"Threshold":   {Threshold: cp.BECNMaxThreshold + 1},
		"At":          {At: 2},
		"MinInterval": {MinInterval: -1},
		"TableBits":   {TableBits: cp.BECNMaxTableBits + 1},
	} {
		_, err := cp.NewBECN(c)
		var ce *cc.ConfigError
		require.ErrorAs(t, err, &ce, field)
		require.Equal(t, field, ce.Field)
	}
	require.Error(t, cp.BECNSurvey(cp.BECNModeBECN, 2000*units.Tbps).Validate(), "a threshold past 32 bits")
	require.Equal(t, "becn", cp.BECNModeBECN.String())
	require.Equal(t, "fecn", cp.BECNModeFECN.String())
	require.Equal(t, "dequeue", cp.BECNAtDequeue.String())
	require.Equal(t, "mode 9", cp.BECNMode(9).String())
	require.Equal(t, "point 9", cp.BECNPoint(9).String())
}
