package np

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
)

// dcqcnRegs returns n's registers.
func dcqcnRegs(n *DCQCN) []cc.Register { return n.AppendRegisters(nil) }

// dcqcnCNP is the action a CNP of flow f is.
func dcqcnCNP(f cc.FlowID) cc.Action {
	return cc.Action{Kind: cc.ActionFeedback, To: cc.ToSource, Prio: cc.ControlPrio,
		Feedback: cc.Feedback{Kind: cc.FeedbackCNP, Flow: f}}
}

// The contract methods and the fast paths they run (onPacket, onTimer)
// send the same CNPs and leave the same registers on the same random
// packets and timer calls, deadlines often left to pass (the fast-path
// twin is told the flow through a Receive first, so that the flow
// register agrees), for both pacing rules and intervals down to 0; after
// every event the deadline is later than now.
func TestDCQCNContractMatchesTyped(t *testing.T) {
	for _, cfg := range []DCQCNConfig{DCQCNPaper(), DCQCNConnectX(), DCQCNHPCCSim(), {Mode: DCQCNSlot, Interval: 0}, {Mode: DCQCNSlot, Interval: 3 * units.Microsecond}} {
		typed, err := NewDCQCN(cfg)
		require.NoError(t, err)
		contract, err := NewDCQCN(cfg)
		require.NoError(t, err)
		const flow = cc.FlowID(77)
		require.NoError(t, typed.Receive(0, &cc.Packet{Flow: flow}, cc.NewActions(2)))
		r := rand.New(rand.NewPCG(3, uint64(cfg.Interval)))
		act := cc.NewActions(2)
		now := units.Time(0)
		require.NoError(t, contract.Receive(now, &cc.Packet{Flow: flow}, act))
		cnps, late := 0, 0
		for i := range 5000 {
			now += units.Time(r.Int64N(int64(2*cfg.Interval + 2*units.Microsecond)))
			act.Reset()
			var deferred, own bool
			if dl := typed.NextDeadline(); r.IntN(4) == 0 && dl != units.MaxTime {
				now = max(now, dl) // a timer call at or after the deadline
				deferred, err = typed.onTimer(now)
				require.NoError(t, err)
				require.NoError(t, contract.Timer(now, act))
			} else {
				ce := r.IntN(3) != 0
				deferred, own, err = typed.onPacket(now, ce)
				require.NoError(t, err)
				require.NoError(t, contract.Receive(now, &cc.Packet{Flow: flow, CE: ce, Size: 1082, Payload: 1000}, act))
				if deferred {
					late++
				}
			}
			want := []cc.Action{}
			if deferred {
				want = append(want, dcqcnCNP(flow))
			}
			if own {
				want = append(want, dcqcnCNP(flow))
			}
			cnps += len(want)
			require.Equal(t, want, act.All(), "event %d", i)
			require.Greater(t, contract.NextDeadline(), now)
			require.Equal(t, dcqcnRegs(typed), dcqcnRegs(contract), "event %d", i)
		}
		require.Positive(t, cnps, "%+v", cfg)
		if cfg.Mode == DCQCNSlot && cfg.Interval > 0 {
			require.Positive(t, late, "%+v: some deferred CNPs were caught up by a Receive", cfg)
		}
	}
}

// Time going backwards (or below 0) is a *cc.TimeOrderError from every
// event, naming both times, and changes no register.
func TestDCQCNContractTimeOrder(t *testing.T) {
	n, err := NewDCQCN(DCQCNPaper())
	require.NoError(t, err)
	require.NoError(t, n.Receive(10, &cc.Packet{CE: true}, cc.NewActions(1)))
	require.NoError(t, n.Receive(20, &cc.Packet{CE: true}, cc.NewActions(1)))
	before := dcqcnRegs(n)
	// The fast paths (onPacket, onTimer) name the contract event they serve.
	for _, e := range []struct {
		name string
		ev   func(now units.Time) error
	}{
		{"Receive", func(now units.Time) error { return n.Receive(now, &cc.Packet{CE: true}, cc.NewActions(1)) }},
		{"Timer", func(now units.Time) error { return n.Timer(now, cc.NewActions(1)) }},
		{"Receive", func(now units.Time) error { _, _, err := n.onPacket(now, true); return err }},
		{"Timer", func(now units.Time) error { _, err := n.onTimer(now); return err }},
	} {
		for _, now := range []units.Time{19, -1} {
			err := e.ev(now)
			var to *cc.TimeOrderError
			require.ErrorAs(t, err, &to, e.name)
			require.Equal(t, cc.TimeOrderError{Part: "np.DCQCN", Event: e.name, Now: now, Last: 20}, *to)
			require.Equal(t, before, dcqcnRegs(n), e.name)
		}
	}
	// A nil packet is a *cc.EventError that changes nothing.
	require.ErrorIs(t, n.Receive(30, nil, cc.NewActions(1)), cc.ErrEvent)
	require.Equal(t, before, dcqcnRegs(n))
}

// An Actions without room (full, or of no capacity) makes an event whose
// CNP is due fail with *cc.ActionsFullError and change nothing; an event
// that sends none needs no room.
func TestDCQCNContractActionsFull(t *testing.T) {
	full := cc.NewActions(1)
	full.MarkCE()
	for _, act := range []*cc.Actions{full, cc.NewActions(0)} {
		n, err := NewDCQCN(DCQCNPaper())
		require.NoError(t, err)
		require.NoError(t, n.Receive(0, &cc.Packet{Flow: 3}, act), "no mark, no CNP")
		before := dcqcnRegs(n)
		err = n.Receive(1, &cc.Packet{Flow: 3, CE: true}, act)
		var af *cc.ActionsFullError
		require.ErrorAs(t, err, &af)
		require.Equal(t, cc.ActionsFullError{Part: "np.DCQCN", Event: "Receive", Need: 1, Free: 0}, *af)
		require.Equal(t, before, dcqcnRegs(n))

		room := cc.NewActions(1)
		require.NoError(t, n.Receive(1, &cc.Packet{Flow: 3, CE: true}, room))
		require.Equal(t, []cc.Action{dcqcnCNP(3)}, room.All())
		// A mark inside the slot is merged into the pending CNP: no room
		// needed. The slot's end then needs room for that CNP.
		require.NoError(t, n.Receive(2, &cc.Packet{Flow: 3, CE: true}, act))
		before = dcqcnRegs(n)
		end := n.NextDeadline()
		require.Equal(t, 1+50*units.Microsecond, end)
		require.NoError(t, n.Timer(end-1, act), "before the deadline: nothing to send")
		require.ErrorIs(t, n.Timer(end, act), cc.ErrActionsFull)
		require.Equal(t, before[1:], dcqcnRegs(n)[1:], "only the time of the early Timer moved")
		room.Reset()
		require.NoError(t, n.Timer(end, room))
		require.Equal(t, []cc.Action{dcqcnCNP(3)}, room.All())
	}
	require.Equal(t, 1, full.Len())

	// A Receive due to send two CNPs (the deferred one, caught up, and its
	// own) needs room for both.
	n, err := NewDCQCN(DCQCNPaper())
	require.NoError(t, err)
	require.NoError(t, n.Receive(0, &cc.Packet{Flow: 3, CE: true}, cc.NewActions(1)))
	require.NoError(t, n.Receive(1, &cc.Packet{Flow: 3, CE: true}, cc.NewActions(1)))
	before := dcqcnRegs(n)
	one := cc.NewActions(1)
	err = n.Receive(200*units.Microsecond, &cc.Packet{Flow: 3, CE: true}, one)
	var af *cc.ActionsFullError
	require.ErrorAs(t, err, &af)
	require.Equal(t, cc.ActionsFullError{Part: "np.DCQCN", Event: "Receive", Need: 2, Free: 1}, *af)
	require.Equal(t, before, dcqcnRegs(n))
	require.Zero(t, one.Len())
	two := cc.NewActions(2)
	require.NoError(t, n.Receive(200*units.Microsecond, &cc.Packet{Flow: 3, CE: true}, two))
	require.Equal(t, []cc.Action{dcqcnCNP(3), dcqcnCNP(3)}, two.All())
}

// The registers: names, widths and order fixed, every value within its
// width.
func TestDCQCNRegisters(t *testing.T) {
	n, err := NewDCQCN(DCQCNPaper())
	require.NoError(t, err)
	require.NoError(t, n.Receive(5, &cc.Packet{Flow: 9, CE: true}, cc.NewActions(1)))
	require.NoError(t, n.Receive(6, &cc.Packet{Flow: 9, CE: true}, cc.NewActions(1)))
	var got []string
	for _, r := range dcqcnRegs(n) {
		require.True(t, r.Fits(), r.String())
		got = append(got, r.String())
	}
	require.Equal(t, []string{
		"now[64]=6", "sent_cnp[1]=1", "last_cnp[64]=5", "slot_end[64]=50000005", "pending[1]=1", "flow[32]=9",
		"packets[64]=2", "marked[64]=2", "cnps[64]=1", "suppressed[64]=1", "unused_feedback[64]=0",
	}, got)
}

// Zero allocations per contract event, and for AppendRegisters with room
// (each case on its own part, in min-interval mode for the event without
// room so that no CNP is ever deferred to it).
func TestDCQCNContractNoAllocs(t *testing.T) {
	act := cc.NewActions(4)
	p := cc.Packet{Flow: 1, CE: true, Size: 1082}
	unmarked := cc.Packet{Flow: 1, Size: 1082}
	regs := make([]cc.Register, 0, 16)
	none := cc.NewActions(0)
	ack := cc.Feedback{Kind: cc.FeedbackAck, Flow: 1}
	for _, c := range []struct {
		name string
		cfg  DCQCNConfig
		f    func(n *DCQCN, now units.Time)
	}{
		{"Receive", DCQCNPaper(), func(n *DCQCN, now units.Time) { act.Reset(); require.NoError(t, n.Receive(now, &p, act)) }},
		{"Timer", DCQCNPaper(), func(n *DCQCN, now units.Time) {
			act.Reset()
			require.NoError(t, n.Receive(now, &p, act))
			act.Reset()
			require.NoError(t, n.Timer(now+7*units.Microsecond, act))
		}},
		{"Receive without room", DCQCNConnectX(), func(n *DCQCN, now units.Time) {
			require.NoError(t, n.Receive(now, &unmarked, none)) // an unmarked packet needs none
		}},
		{"Feedback", DCQCNPaper(), func(n *DCQCN, now units.Time) {
			act.Reset()
			require.NoError(t, n.Feedback(now, &ack, act))
		}},
		{"AppendRegisters", DCQCNPaper(), func(n *DCQCN, _ units.Time) { regs = n.AppendRegisters(regs[:0]) }},
	} {
		n, err := NewDCQCN(c.cfg)
		require.NoError(t, err)
		now := units.Time(0)
		require.Zero(t, testing.AllocsPerRun(1000, func() { now += 10 * units.Microsecond; c.f(n, now) }), c.name)
	}
}

// BenchmarkDCQCNNPContractReceive is BenchmarkDCQCNNPOnPacket through the
// contract.
func BenchmarkDCQCNNPContractReceive(b *testing.B) {
	n, _ := NewDCQCN(DCQCNPaper())
	act := cc.NewActions(1)
	p := cc.Packet{Flow: 1, CE: true, Size: 1082}
	now := units.Time(0)
	b.ReportAllocs()
	for b.Loop() {
		now += 100 * units.Nanosecond
		act.Reset()
		_ = n.Receive(now, &p, act)
	}
}

// BenchmarkDCQCNNPContractTimer: a marked packet every 10 µs and a Timer
// call every 1 µs; one call in 50 sends the slot's deferred CNP.
func BenchmarkDCQCNNPContractTimer(b *testing.B) {
	n, _ := NewDCQCN(DCQCNPaper())
	act := cc.NewActions(1)
	p := cc.Packet{Flow: 1, CE: true, Size: 1082}
	now := units.Time(0)
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		now += units.Microsecond
		act.Reset()
		if i%10 == 0 {
			_ = n.Receive(now, &p, act)
			act.Reset()
		}
		_ = n.Timer(now, act)
		i++
	}
}

// cc's rule 3: Receive can send a CNP, so it refuses a nil *cc.Actions
// with cc.ErrNoActions whether or not it would (an unmarked packet
// included), changing nothing; in slot mode the timer defers CNPs, so
// Timer and Feedback, whose catch-up may send one, refuse nil too; in
// min-interval mode there is no timer and they take nil.
func TestDCQCNContractNilActions(t *testing.T) {
	for _, cfg := range []DCQCNConfig{DCQCNPaper(), DCQCNConnectX()} {
		n, err := NewDCQCN(cfg)
		require.NoError(t, err)
		require.NoError(t, n.Receive(10, &cc.Packet{Flow: 1, CE: true}, cc.NewActions(1)))
		before := dcqcnRegs(n)
		for _, ce := range []bool{false, true} {
			err := n.Receive(20, &cc.Packet{Flow: 1, CE: ce}, nil)
			var ee *cc.EventError
			require.ErrorAs(t, err, &ee, "%v ce=%v", cfg.Mode, ce)
			require.ErrorIs(t, err, cc.ErrNoActions)
			require.Equal(t, "Receive", ee.Event)
			require.Equal(t, before, dcqcnRegs(n))
		}
		ack := &cc.Feedback{Kind: cc.FeedbackAck, Flow: 1}
		if cfg.Mode == DCQCNSlot {
			require.ErrorIs(t, n.Timer(20, nil), cc.ErrNoActions)
			require.ErrorIs(t, n.Feedback(20, ack, nil), cc.ErrNoActions)
			require.Equal(t, before, dcqcnRegs(n))
		} else {
			require.NoError(t, n.Timer(20, nil))
			require.NoError(t, n.Feedback(21, ack, nil))
		}
	}
}

// cc's rule 4: a slot-mode NP given only the packets and its source's
// messages (each deferred CNP left overdue, caught up by the next event as
// at its deadline) holds after every event the registers of a twin whose
// Timer was called at every deadline, and has sent the same CNPs in the
// same order; intervals from 3 µs (often overdue) to the paper's 50 µs.
func TestDCQCNContractLateTimer(t *testing.T) {
	for _, cfg := range []DCQCNConfig{DCQCNPaper(), {Mode: DCQCNSlot, Interval: 3 * units.Microsecond}} {
		x, err := NewDCQCN(cfg)
		require.NoError(t, err)
		y, err := NewDCQCN(cfg)
		require.NoError(t, err)
		r := rand.New(rand.NewPCG(6, uint64(cfg.Interval)))
		actX, actY := cc.NewActions(2), cc.NewActions(2)
		var madeX, madeY []cc.Action
		now, caught, checked := units.Time(0), 0, 0
		for e := range 4000 {
			now += units.Time(r.Int64N(int64(cfg.Interval)))
			for d := x.NextDeadline(); d <= now; d = x.NextDeadline() {
				actX.Reset()
				require.NoError(t, x.Timer(d, actX))
				madeX = append(madeX, actX.All()...)
			}
			if y.NextDeadline() <= now {
				caught++
			}
			actX.Reset()
			actY.Reset()
			if r.IntN(8) == 0 {
				f := &cc.Feedback{Kind: cc.FeedbackCreditRequest, Flow: 4}
				require.NoError(t, x.Feedback(now, f, actX))
				require.NoError(t, y.Feedback(now, f, actY))
			} else {
				p := &cc.Packet{Flow: 4, CE: r.IntN(2) == 0}
				require.NoError(t, x.Receive(now, p, actX))
				require.NoError(t, y.Receive(now, p, actY))
			}
			madeX, madeY = append(madeX, actX.All()...), append(madeY, actY.All()...)
			require.Equal(t, dcqcnRegs(x), dcqcnRegs(y), "event %d", e)
			// Both lists only grow: compare what this event added.
			require.Equal(t, len(madeX), len(madeY), "event %d", e)
			require.Equal(t, madeX[checked:], madeY[checked:], "event %d", e)
			checked = len(madeX)
		}
		require.Positive(t, caught, "%v: some deadlines were left to an event", cfg.Interval)
		require.Greater(t, len(madeY), 10)
	}
}

// cc's rule 8: the receiver uses no message from its source, so every
// kind (an ACK, a CNP, ExpressPass's credit request, a kind of no module)
// is taken, decides nothing and changes no register but the time and
// unused_feedback, which counts it.
func TestDCQCNContractUnusedFeedback(t *testing.T) {
	n, err := NewDCQCN(DCQCNPaper())
	require.NoError(t, err)
	act := cc.NewActions(2)
	require.NoError(t, n.Receive(10, &cc.Packet{Flow: 1, CE: true}, act))
	for i, k := range []cc.FeedbackKind{cc.FeedbackAck, cc.FeedbackCNP, cc.FeedbackCreditRequest, cc.FeedbackUser + 7} {
		before := dcqcnRegs(n)
		act.Reset()
		require.NoError(t, n.Feedback(units.Time(20+i), &cc.Feedback{Kind: k, Flow: 1}, act))
		require.Zero(t, act.Len(), k.String())
		after := dcqcnRegs(n)
		last := len(after) - 1
		require.Equal(t, cc.UnusedRegister, after[last].Name)
		require.Equal(t, uint64(i+1), after[last].Value, k.String())
		require.Equal(t, before[1:last], after[1:last], "%v: nothing else but the time", k)
		require.Equal(t, units.Time(20+i), n.Last())
	}
	require.ErrorIs(t, n.Feedback(30, nil, act), cc.ErrEvent)
	require.Equal(t, uint64(4), n.State().Unused.N())
}
