package credit_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/credit"
	"github.com/hwcc/hwcc/units"
)

// cbfcItem is one thing on the data link, sender → receiver, in FIFO
// order: a data packet of n blocks, or the sender port's flow-control
// packet carrying FCTBS (fc true), with the sender's unwrapped total sent
// when it left.
type cbfcItem struct {
	n    credit.Blocks
	fc   bool
	p    credit.FCPacket
	sent uint64
}

// cbfcUpdate is a flow-control packet on the way back, receiver → sender,
// with the unwrapped ABR the receiver had when it made it (the test's own
// 64-bit mirror of the 12-bit register).
type cbfcUpdate struct {
	p    credit.FCPacket
	abrU uint64
}

// cbfcLink models one virtual lane of one link: the sender, the data link
// (a FIFO that may lose packets), the receiver buffer drained at random,
// and a return path for flow-control packets that loses, duplicates and
// reorders them, and retires an update once the sender has sent 2048
// blocks more than the receiver had counted when it made it (the bound in
// CBFCSender's comment).
type cbfcLink struct {
	t        testing.TB
	rng      *rand.Rand
	s        *credit.CBFCSender
	r        *credit.CBFCReceiver
	capacity credit.Blocks
	maxPkt   int
	now      units.Time
	data     []cbfcItem
	back     []cbfcUpdate
	abrU     uint64 // the receiver's ABR, unwrapped
	lostU    uint64 // data blocks lost on the link
	// probabilities in 1/1000
	dataLoss, fcLoss, dup int
	// statistics
	delivered, expired, accepted int
}

func newCBFCLink(t testing.TB, seed uint64, capacity credit.Blocks, maxPkt, dataLoss, fcLoss, dup int) *cbfcLink {
	s, err := credit.NewCBFCSender(7)
	require.NoError(t, err)
	r, err := credit.NewCBFCReceiver(credit.CBFCReceiverConfig{VL: 7, Capacity: capacity, Period: 40, MinGap: 3})
	require.NoError(t, err)
	return &cbfcLink{t: t, rng: rand.New(rand.NewPCG(seed, 7)), s: s, r: r, capacity: capacity,
		maxPkt: maxPkt, dataLoss: dataLoss, fcLoss: fcLoss, dup: dup}
}

func (l *cbfcLink) chance(perMille int) bool { return l.rng.IntN(1000) < perMille }

// step runs one random event and checks the invariants; it returns an
// error describing the first violation.
func (l *cbfcLink) step() error {
	l.now += units.Time(l.rng.IntN(3))
	switch k := l.rng.IntN(100); {
	case k < 30: // the sender tries a packet
		n := credit.Blocks(1 + l.rng.IntN(l.maxPkt))
		if l.s.CanSend(n) {
			if err := l.s.Send(l.now, n); err != nil {
				return fmt.Errorf("send %d: %w", n, err)
			}
			l.data = append(l.data, cbfcItem{n: n, sent: l.s.SentBlocks()})
		} else if err := l.s.Send(l.now, n); !errors.Is(err, credit.ErrNoCredit) {
			return fmt.Errorf("refused send %d: %v", n, err)
		}
	case k < 55: // the head of the data link arrives
		if len(l.data) == 0 {
			break
		}
		it := l.data[0]
		l.data = l.data[1:]
		switch {
		case it.fc && l.chance(l.fcLoss):
		case it.fc:
			if err := l.r.ResyncFC(l.now, it.p); err != nil {
				return fmt.Errorf("resync: %w", err)
			}
			l.abrU = it.sent
		case l.chance(l.dataLoss):
			l.lostU += uint64(it.n)
		default:
			if err := l.r.Absorb(l.now, it.n); err != nil {
				return fmt.Errorf("receive %d with %d free: %w", it.n, l.r.Free(), err)
			}
			l.abrU += uint64(it.n)
		}
	case k < 75: // the buffer drains
		if h := int(l.r.Held()); h > 0 {
			if err := l.r.Drain(l.now, credit.Blocks(1+l.rng.IntN(h))); err != nil {
				return err
			}
		}
	case k < 82: // the receiver's flow-control timer
		p, sent, err := l.r.Advertise(l.now)
		if err != nil {
			return err
		}
		if sent {
			l.back = append(l.back, cbfcUpdate{p: p, abrU: l.abrU})
		}
	case k < 95: // an update arrives at the sender, any one of those in flight
		if len(l.back) == 0 {
			break
		}
		i := l.rng.IntN(len(l.back))
		u := l.back[i]
		if !l.chance(l.dup) {
			l.back = append(l.back[:i], l.back[i+1:]...)
		}
		if l.s.SentBlocks()-u.abrU >= 2048 {
			l.expired++ // past its lifetime: the path dropped it
			break
		}
		if l.chance(l.fcLoss) {
			break
		}
		ok, err := l.s.UpdateFC(l.now, u.p)
		if err != nil {
			return fmt.Errorf("update: %w", err)
		}
		l.delivered++
		if ok {
			l.accepted++
		}
	default: // the sender port's own flow-control packet (its FCTBS)
		l.data = append(l.data, cbfcItem{fc: true, p: credit.FCPacket{Op: credit.FCNormal, VL: 7, FCTBS: l.s.FCTBS()}, sent: l.s.SentBlocks()})
	}
	return l.check()
}

// check asserts the invariants after every event.
func (l *cbfcLink) check() error {
	r, s := l.r, l.s
	switch {
	case uint64(r.ABR()) != l.abrU%4096:
		return fmt.Errorf("ABR %d, mirror %d", r.ABR(), l.abrU%4096)
	case r.Free()+r.Held() != l.capacity || r.Free() < 0 || uint64(r.Held()) != r.Received()-r.Drained():
		return fmt.Errorf("buffer: free %d held %d received %d drained %d", r.Free(), r.Held(), r.Received(), r.Drained())
	case s.Credit() < 0 || s.Credit() > 2048:
		return fmt.Errorf("credit %d", s.Credit())
	}
	// The sender's limit, unwrapped, never passes what the receiver can
	// hold: every block up to it finds a free block or was lost.
	if limit := s.SentBlocks() + uint64(s.Credit()); limit > r.Drained()+uint64(l.capacity)+l.lostU {
		return fmt.Errorf("limit %d > drained %d + capacity %d + lost %d", limit, r.Drained(), l.capacity, l.lostU)
	}
	return nil
}

// quiesce stops the loss, delivers everything on the data link, drains the
// buffer, sends one FCTBS and one fresh update, and returns the sender's
// credit, which must then be min(capacity, 2048): the pair did not
// deadlock.
func (l *cbfcLink) quiesce() (credit.Blocks, error) {
	l.dataLoss, l.fcLoss, l.back = 0, 0, nil
	l.data = append(l.data, cbfcItem{fc: true, p: credit.FCPacket{VL: 7, FCTBS: l.s.FCTBS()}, sent: l.s.SentBlocks()})
	for len(l.data) > 0 {
		it := l.data[0]
		l.data = l.data[1:]
		var err error
		if it.fc {
			err = l.r.ResyncFC(l.now, it.p)
			l.abrU = it.sent
		} else {
			err = l.r.Absorb(l.now, it.n)
			l.abrU += uint64(it.n)
		}
		if err != nil {
			return 0, err
		}
	}
	if h := l.r.Held(); h > 0 {
		if err := l.r.Drain(l.now, h); err != nil {
			return 0, err
		}
	}
	l.now = max(l.now, l.r.NextDeadline())
	p, sent, err := l.r.Advertise(l.now)
	if err != nil || !sent {
		return 0, fmt.Errorf("no update at the deadline: %v", err)
	}
	if _, err := l.s.UpdateFC(l.now, p); err != nil {
		return 0, err
	}
	return l.s.Credit(), l.check()
}

// TestPropCBFCNeverOverruns is the Done-when property: over random link
// parameters and interleavings of sends, receives, drains, timers and
// updates, with data and flow-control packets lost, updates duplicated
// and reordered within the bound, the receiver never overruns (no
// ErrOverrun, and the sender's unwrapped limit never passes drained +
// capacity + lost), every 12-bit counter wraps many times, and once the
// losses stop the sender gets its full credit back: min(capacity, 2048).
func TestPropCBFCNeverOverruns(t *testing.T) {
	const steps = 40000
	props := cbfcProperties(40)
	props.Property("no overrun, progress", prop.ForAll(
		func(seed uint64, capacity int, maxPkt int, dataLoss, fcLoss, dup int) string {
			capacity = []int{1, 66, 500, 2047, 2048, 2049, 5000, 1 << 20}[capacity]
			l := newCBFCLink(t, seed, credit.Blocks(capacity), min(maxPkt, capacity), dataLoss, fcLoss, dup)
			for i := range steps {
				if err := l.step(); err != nil {
					return fmt.Sprintf("step %d: %v", i, err)
				}
			}
			// With packets of up to 66 blocks and at least 66 blocks of
			// buffer, the counters wrap at least 8 times.
			if capacity >= 66 && maxPkt >= 32 && l.s.SentBlocks() < 8*4096 {
				return fmt.Sprintf("only %d blocks sent", l.s.SentBlocks())
			}
			c, err := l.quiesce()
			if err != nil {
				return "quiesce: " + err.Error()
			}
			if want := min(capacity, 2048); int(c) != want {
				return fmt.Sprintf("credit %d after quiescing, want %d", c, want)
			}
			return ""
		},
		gen.UInt64().WithLabel("seed"),
		gen.IntRange(0, 7).WithLabel("capacity choice"),
		gen.IntRange(1, 66).WithLabel("largest packet, blocks"),
		gen.IntRange(0, 100).WithLabel("data loss ‰"),
		gen.IntRange(0, 300).WithLabel("flow-control loss ‰"),
		gen.IntRange(0, 300).WithLabel("duplication ‰"),
	))
	props.TestingRun(t)
}

// TestCBFCLinkWraps runs one long link with a deep buffer and reports how
// often each counter wrapped; it must be many times.
func TestCBFCLinkWraps(t *testing.T) {
	l := newCBFCLink(t, 42, 3000, 66, 20, 100, 100)
	for i := range 200000 {
		require.NoError(t, l.step(), "step %d", i)
	}
	t.Logf("sent %d blocks (%d wraps of FCTBS/ABR/FCCL), %d updates delivered, %d accepted, %d expired, %d stale ignored",
		l.s.SentBlocks(), l.s.SentBlocks()/4096, l.delivered, l.accepted, l.expired, l.s.Ignored())
	require.Greater(t, l.s.SentBlocks(), uint64(100*4096))
	require.Positive(t, l.expired)
	require.Positive(t, l.s.Ignored())
	c, err := l.quiesce()
	require.NoError(t, err)
	require.EqualValues(t, 2048, c)
}

// TestCBFCAliasingBeyondBound shows the aliasing CBFCSender's comment
// promises: an update delivered after the sender has sent 4096 blocks
// beyond what the receiver had counted when it made it reads as a valid
// limit, hands the sender 2048 blocks it does not have, and the receiver
// overruns. Less far behind, the same stale value is ignored.
func TestCBFCAliasingBeyondBound(t *testing.T) {
	s, err := credit.NewCBFCSender(0)
	require.NoError(t, err)
	r, err := credit.NewCBFCReceiver(credit.CBFCReceiverConfig{VL: 0, Capacity: 2048, Period: units.Microsecond})
	require.NoError(t, err)
	now := units.Time(0)
	p0, _, err := r.Advertise(now) // ABR 0, free 2048: FCCL 2048
	require.NoError(t, err)
	require.EqualValues(t, 2048, p0.FCCL)
	_, err = s.UpdateFC(now, p0)
	require.NoError(t, err)
	sendAll := func(n int) { // send and receive n blocks in 64-block packets
		for ; n > 0; n -= 64 {
			now++
			require.NoError(t, s.Send(now, 64))
			require.NoError(t, r.Absorb(now, 64))
		}
	}
	sendAll(2048)
	require.NoError(t, r.Drain(now, 2048))
	now = r.NextDeadline()
	p1, sent, err := r.Advertise(now) // ABR 2048, free 2048: FCCL 4096 mod 4096 = 0
	require.NoError(t, err)
	require.True(t, sent)
	require.EqualValues(t, 0, p1.FCCL)
	_, err = s.UpdateFC(now, p1)
	require.NoError(t, err)
	require.EqualValues(t, 2048, s.Credit())

	// After 1024 more blocks (sent − ABR_u(p0) = 3072, p0's limit 1024
	// behind FCTBS), p0 reads as stale and is ignored.
	sendAll(1024)
	ok, err := s.UpdateFC(now, p0)
	require.NoError(t, err)
	require.False(t, ok)

	// Beyond it: after 4096 blocks past p0's ABR, FCTBS is 0 again and p0's
	// FCCL = 2048 reads as 2048 blocks of credit; the buffer is full.
	sendAll(1024)
	require.EqualValues(t, 0, s.FCTBS())
	require.EqualValues(t, 0, r.Free())
	require.EqualValues(t, 0, s.Credit())
	ok, err = s.UpdateFC(now, p0)
	require.NoError(t, err)
	require.True(t, ok, "the stale update aliases to a valid one")
	require.EqualValues(t, 2048, s.Credit())
	require.NoError(t, s.Send(now, 1))
	require.ErrorIs(t, r.Absorb(now, 1), credit.ErrOverrun)
}
