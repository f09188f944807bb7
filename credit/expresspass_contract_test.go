package credit

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cc/cctest"
	"github.com/hwcc/hwcc/units"
)

// xpCredits returns credits as a receiver sends them (flow 5, seqs 1..16),
// for the sender's generated sequences.
func xpCredits() []cc.Feedback {
	var out []cc.Feedback
	for s := uint64(1); s <= 16; s++ {
		out = append(out, cc.Feedback{Kind: cc.FeedbackCredit, Flow: 5, Seq: s})
	}
	return out
}

// creditFed is an ExpressPassSender driven as a credit-gated NIC drives
// it: a Sent that finds no credit held is preceded by the credit the NIC
// waited for (at the same time), so that the suite's generated senders,
// which send regardless of Limits, exercise the sender's accepted path.
// Invalid frames go to the sender as they are (it refuses them).
type creditFed struct {
	*ExpressPassSender
	seq uint64
}

func (c *creditFed) Sent(now units.Time, p *cc.Packet, act *cc.Actions) error {
	if p != nil && c.Held() == 0 && now >= c.Last() && p.Size >= 0 && p.Payload >= 0 && p.Size <= c.cfg.FrameBytes &&
		c.s.Phase != ExpressPassStopped {
		// The credit and the frame as one event: a refused frame takes
		// the credit back.
		saved, seq := *c.ExpressPassSender, c.seq
		c.seq = epSeqNext(c.seq, c.seqMax)
		if err := c.ExpressPassSender.Feedback(now, &cc.Feedback{Kind: cc.FeedbackCredit, Seq: c.seq}, act); err != nil {
			return err
		}
		if err := c.ExpressPassSender.Sent(now, p, act); err != nil {
			*c.ExpressPassSender, c.seq = saved, seq
			return err
		}
		return nil
	}
	return c.ExpressPassSender.Sent(now, p, act)
}

// The conformance suite over both parts: the receiver as it is, the
// sender as it is (given credits among its feedback; the generated sends
// without credit are refused, which the suite allows), and the sender fed
// a credit before each send, where at least 3/4 of the events are taken.
func TestExpressPassContract(t *testing.T) {
	o := cctest.Options{Gen: cctest.GenOptions{Messages: xpCredits()}}
	if testing.Short() {
		o.Sequences, o.Chaos, o.AllocSequences = 6, 12, 1
	}
	for _, bits := range []uint8{32, 8} {
		st, err := cctest.TestStats(func() (cc.Part, error) {
			c := ExpressPassPaper(100 * units.Gbps)
			c.SeqBits = bits
			return NewExpressPassReceiver(c)
		}, o)
		require.NoError(t, err)
		require.Positive(t, st.Actions[cc.ActionFeedback], "credits sent")
		require.Greater(t, st.Accepted, st.Calls*3/4, "%v", st.Refused)
	}
	for _, size := range []units.Bytes{0, 50_000} {
		newSender := func() (*ExpressPassSender, error) {
			c := ExpressPassSenderPaper()
			c.Size = size
			return NewExpressPassSender(c)
		}
		require.NoError(t, cctest.Test(func() (cc.Part, error) { return newSender() }, o))
		st, err := cctest.TestStats(func() (cc.Part, error) {
			x, err := newSender()
			if err != nil {
				return nil, err
			}
			return &creditFed{ExpressPassSender: x}, nil
		}, o)
		require.NoError(t, err)
		require.Greater(t, st.Accepted, st.Calls*3/4, "size %v: %v", size, st.Refused)
	}
}
