package harness

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
)

// delayedRP is a reaction point with a reaction delay that records when
// each kind of feedback reached it.
type delayedRP struct {
	got []delayedEvent
}

type delayedEvent struct {
	at   units.Time
	kind cc.FeedbackKind
}

func (r *delayedRP) ReactionDelay() units.Time                       { return 15 * units.Microsecond }
func (r *delayedRP) Sent(units.Time, *cc.Packet, *cc.Actions) error  { return nil }
func (r *delayedRP) Limits() cc.Limits                               { return cc.Limits{} }
func (r *delayedRP) NextDeadline() units.Time                        { return units.MaxTime }
func (r *delayedRP) Timer(units.Time, *cc.Actions) error             { return nil }
func (r *delayedRP) AppendRegisters(dst []cc.Register) []cc.Register { return dst }
func (r *delayedRP) Feedback(now units.Time, f *cc.Feedback, _ *cc.Actions) error {
	r.got = append(r.got, delayedEvent{now, f.Kind})
	return nil
}

var delayedOnce sync.Once

// The reaction delay is the NIC's reaction to congestion feedback: a CNP
// or a rate message waits it out, an ACK or a NAK reaches the part at once
// (after the delayed messages already due), so the part sees every event
// in time order. The reaction point's adapter is driven directly.
func TestSchemeReactionDelaySparesAcks(t *testing.T) {
	delayedOnce.Do(func() {
		cc.MustRegisterAlgorithm(cc.Algorithm{
			Name: "test-delayed", Title: "delayed", Paper: "none", Doc: "records the times of its feedback",
			Parts: []cc.PartSpec{{Name: "rp", Role: cc.RoleRP, Doc: "the recording sender", Config: testSpec(func(cc.Env) (cc.Part, error) {
				return &delayedRP{}, nil
			})}},
		})
	})
	g, err := newScheme("test-delayed", nil)
	require.NoError(t, err)
	r, err := g.newRP(flowInfo{ID: 3, LineRate: 10 * units.Gbps})
	require.NoError(t, err)
	part := r.r.(*delayedRP)
	us := units.Microsecond
	r.OnAck(1*us, &ackInfo{Seq: 1000, Newly: 1000})
	require.Equal(t, units.MaxTime, r.NextDeadline(), "an ACK does not wait")
	r.OnFeedback(2*us, &cc.Feedback{Kind: cc.FeedbackRate, Flow: 3})
	r.OnCNP(3 * us)
	require.Equal(t, 17*us, r.NextDeadline())
	r.OnAck(4*us, &ackInfo{Seq: 500, NAK: true})
	r.OnAck(18*us, &ackInfo{Seq: 2000, Newly: 1000})
	r.OnTimer(18 * us)
	require.Equal(t, []delayedEvent{
		{1 * us, cc.FeedbackAck}, {4 * us, cc.FeedbackNak},
		{17 * us, cc.FeedbackRate}, {18 * us, cc.FeedbackCNP}, {18 * us, cc.FeedbackAck},
	}, part.got)
	require.Equal(t, units.MaxTime, r.NextDeadline())

	// Steady state: an ACK, a delayed message, a sent frame and the
	// message's delivery allocate nothing once the FIFO has its size.
	now := 20 * us
	ack := &ackInfo{Seq: 1000, Newly: 1000}
	fb := &cc.Feedback{Kind: cc.FeedbackRate, Flow: 3}
	frame := &Packet{Kind: KindData, Flow: 3, Payload: 1000, Size: 1082, Prio: DataPrio}
	part.got = make([]delayedEvent, 0, 4096)
	allocs := testing.AllocsPerRun(1000, func() {
		now += 20 * us // after the previous delivery
		r.OnAck(now, ack)
		r.OnFeedback(now, fb)
		r.OnSendFrame(now, frame)
		r.OnTimer(r.NextDeadline())
	})
	require.Zero(t, allocs)
	require.Equal(t, 2*1001, len(part.got), "every message reached the part")
	for i := 1; i < len(part.got); i++ {
		require.LessOrEqual(t, part.got[i-1].at, part.got[i].at, "in time order")
	}
}
