package cp

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
)

// dctcpRegs returns c's registers.
func dctcpRegs(c *DCTCP) []cc.Register { return c.AppendRegisters(nil) }

// The contract methods and the typed ones make the same decisions and
// leave the same registers on the same random events (times going
// backwards and negative queues included), at both marking points.
func TestDCTCPContractMatchesTyped(t *testing.T) {
	for _, at := range []DCTCPMarkAt{DCTCPMarkEnqueue, DCTCPMarkDequeue} {
		rng := rand.New(rand.NewPCG(11, uint64(at)))
		cfg := DCTCPConfig{K: 30000, MarkAt: at}
		typed, err := NewDCTCP(cfg)
		require.NoError(t, err)
		contract, err := NewDCTCP(cfg)
		require.NoError(t, err)
		act := cc.NewActions(2)
		now := units.Time(0)
		for i := range 5000 {
			now += units.Time(rng.IntN(2000)) - 200 // sometimes backwards
			q := units.Bytes(rng.IntN(60000)) - 100 // sometimes negative
			act.Reset()
			var mark bool
			var e1, e2 error
			switch rng.IntN(3) {
			case 0:
				mark, e1 = typed.OnEnqueue(now, q)
				e2 = contract.Enqueue(now, &cc.Packet{Size: 1082}, cc.Queue{Len: q, Rate: 100 * units.Gbps}, act)
			case 1:
				mark, e1 = typed.OnDequeue(now, q)
				e2 = contract.Dequeue(now, &cc.Packet{Size: 1082}, cc.Queue{Len: q}, act)
			default:
				e1 = typed.Timer(now, nil)
				e2 = contract.Timer(now, act)
			}
			require.Equal(t, e1 == nil, e2 == nil, "event %d: %v / %v", i, e1, e2)
			if e1 != nil {
				require.True(t, cc.Typed(e1) && cc.Typed(e2), "%v / %v", e1, e2)
				require.Equal(t, errors.Is(e1, cc.ErrTimeOrder), errors.Is(e2, cc.ErrTimeOrder))
				require.Zero(t, act.Len(), "a refused event appends nothing")
			} else {
				require.Equal(t, mark, act.Has(cc.ActionMarkCE), "event %d", i)
				require.LessOrEqual(t, act.Len(), 1)
			}
			require.Equal(t, dctcpRegs(typed), dctcpRegs(contract), "event %d", i)
			require.Equal(t, typed.State(), contract.State())
			require.Equal(t, units.MaxTime, contract.NextDeadline())
		}
		s := typed.State()
		require.NotZero(t, s.Marked, "%v: the run marked", at)
		require.Less(t, s.Marked, s.Packets, "%v: and left some unmarked", at)
	}
}

// Time going backwards is refused by every event method with both times,
// and changes nothing; equal times are in order; negative times are
// refused from the start.
func TestDCTCPContractTimeOrder(t *testing.T) {
	c, err := NewDCTCP(DCTCPConfig{K: 10})
	require.NoError(t, err)
	act := cc.NewActions(4)
	require.NoError(t, c.Enqueue(100, nil, cc.Queue{Len: 20}, act))
	require.Equal(t, 1, act.Count(cc.ActionMarkCE))
	act.Reset()
	before := dctcpRegs(c)
	events := []struct {
		name string
		ev   func(units.Time) error
	}{
		{"OnEnqueue", func(now units.Time) error { _, err := c.OnEnqueue(now, 20); return err }},
		{"OnDequeue", func(now units.Time) error { _, err := c.OnDequeue(now, 20); return err }},
		{"Enqueue", func(now units.Time) error { return c.Enqueue(now, nil, cc.Queue{Len: 20}, act) }},
		{"Dequeue", func(now units.Time) error { return c.Dequeue(now, nil, cc.Queue{Len: 20}, act) }},
		{"Timer", func(now units.Time) error { return c.Timer(now, act) }},
	}
	for _, e := range events {
		name, ev := e.name, e.ev
		err := ev(99)
		require.ErrorIs(t, err, cc.ErrTimeOrder, name)
		var te *cc.TimeOrderError
		require.ErrorAs(t, err, &te)
		require.Equal(t, "cp.DCTCP", te.Part)
		require.Equal(t, name, te.Event)
		require.Equal(t, units.Time(99), te.Now)
		require.Equal(t, units.Time(100), te.Last)
		require.Equal(t, before, dctcpRegs(c), name)
		require.Zero(t, act.Len(), name)
	}
	for _, e := range events {
		require.NoError(t, e.ev(100), "%s: equal times are in order", e.name)
	}
	fresh, err := NewDCTCP(DCTCPConfig{K: 10})
	require.NoError(t, err)
	require.ErrorIs(t, fresh.Timer(-1, nil), cc.ErrTimeOrder)
	require.ErrorIs(t, fresh.Enqueue(-1, nil, cc.Queue{}, nil), cc.ErrTimeOrder)
}

// A full or nil Actions fails an event that marks, changing nothing; an
// event that does not mark needs no room.
func TestDCTCPContractActionsFull(t *testing.T) {
	for _, at := range []DCTCPMarkAt{DCTCPMarkEnqueue, DCTCPMarkDequeue} {
		c, err := NewDCTCP(DCTCPConfig{K: 10, MarkAt: at})
		require.NoError(t, err)
		ev := c.Enqueue
		if at == DCTCPMarkDequeue {
			ev = c.Dequeue
		}
		full := cc.NewActions(1)
		full.MarkCE()
		before := dctcpRegs(c)
		for _, act := range []*cc.Actions{nil, full, cc.NewActions(0)} {
			n := act.Len
			if act == nil {
				n = func() int { return 0 }
			}
			was := n()
			err := ev(5, nil, cc.Queue{Len: 11}, act)
			require.ErrorIs(t, err, cc.ErrActionsFull)
			var fe *cc.ActionsFullError
			require.ErrorAs(t, err, &fe)
			require.Equal(t, 1, fe.Need)
			require.Equal(t, before, dctcpRegs(c), "%v: nothing changed", at)
			require.Equal(t, was, n())
			// Not marked: no room needed.
			require.NoError(t, ev(5, nil, cc.Queue{Len: 10}, act))
			before = dctcpRegs(c)
		}
		require.Equal(t, uint64(3), c.State().Packets)
		require.Zero(t, c.State().Marked)
	}
}

// No input panics: a nil packet, a zero queue, the extremes of every field.
func TestDCTCPContractNoPanic(t *testing.T) {
	c, err := NewDCTCP(DCTCPConfig{K: DCTCPMaxThreshold})
	require.NoError(t, err)
	act := cc.NewActions(1)
	for _, q := range []cc.Queue{{}, {Len: -1}, {Len: units.MaxBytes, Rate: -1, TxBytes: ^uint64(0), Paused: true}} {
		act.Reset()
		_ = c.Enqueue(1, nil, q, act)
		_ = c.Dequeue(1, &cc.Packet{Payload: -5, Size: -5, Prio: 255}, q, nil)
	}
	_ = c.Timer(units.MaxTime, nil)
	require.Equal(t, units.MaxTime, c.State().Time.Last())
	for _, r := range dctcpRegs(c) {
		require.True(t, r.Fits(), "%v", r)
	}
}

func TestDCTCPContractNoAllocs(t *testing.T) {
	c, err := NewDCTCP(DCTCPHPCCSim(100 * units.Gbps))
	require.NoError(t, err)
	act := cc.NewActions(1)
	now := units.Time(0)
	q := cc.Queue{Len: 400 * units.KB}
	p := &cc.Packet{Size: 1082}
	for _, e := range []struct {
		name string
		ev   func() error
	}{
		{"Enqueue", func() error { return c.Enqueue(now, p, q, act) }},
		{"Dequeue", func() error { return c.Dequeue(now, p, q, act) }},
		{"Timer", func() error { return c.Timer(now, act) }},
	} {
		require.Zero(t, testing.AllocsPerRun(1000, func() {
			now++
			act.Reset()
			if err := e.ev(); err != nil {
				panic(err)
			}
		}), e.name)
	}
	dst := make([]cc.Register, 0, 8)
	require.Zero(t, testing.AllocsPerRun(1000, func() { dst = c.AppendRegisters(dst[:0]) }))
	require.Len(t, dst, 3)
}

func BenchmarkDCTCPEnqueue(b *testing.B) {
	c, _ := NewDCTCP(DCTCPHPCCSim(100 * units.Gbps))
	act := cc.NewActions(1)
	p, q := &cc.Packet{Size: 1082}, cc.Queue{Len: 400 * units.KB}
	now := units.Time(0)
	b.ReportAllocs()
	for b.Loop() {
		now++
		act.Reset()
		_ = c.Enqueue(now, p, q, act)
	}
}

func BenchmarkDCTCPDequeue(b *testing.B) {
	cfg := DCTCPHPCCSim(100 * units.Gbps)
	cfg.MarkAt = DCTCPMarkDequeue
	c, _ := NewDCTCP(cfg)
	act := cc.NewActions(1)
	p, q := &cc.Packet{Size: 1082}, cc.Queue{Len: 400 * units.KB}
	now := units.Time(0)
	b.ReportAllocs()
	for b.Loop() {
		now++
		act.Reset()
		_ = c.Dequeue(now, p, q, act)
	}
}

func BenchmarkDCTCPTimer(b *testing.B) {
	c, _ := NewDCTCP(DCTCPHPCCSim(100 * units.Gbps))
	now := units.Time(0)
	b.ReportAllocs()
	for b.Loop() {
		now++
		_ = c.Timer(now, nil)
	}
}

func BenchmarkDCTCPAppendRegisters(b *testing.B) {
	c, _ := NewDCTCP(DCTCPHPCCSim(100 * units.Gbps))
	dst := make([]cc.Register, 0, 8)
	b.ReportAllocs()
	for b.Loop() {
		dst = c.AppendRegisters(dst[:0])
	}
}
