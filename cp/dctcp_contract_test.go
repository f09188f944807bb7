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

// The marker's events against its definition on the same random events
// (times going backwards and negative queues included), at both marking
// points: an event is refused, changing nothing, when its time is before
// the latest accepted one or its queue is negative; otherwise it records
// its time, and at the marking point it judges the packet (packets + 1)
// and marks it exactly when q > K (marked + 1, one cc.ActionMarkCE).
func TestDCTCPEventsMatchModel(t *testing.T) {
	for _, at := range []DCTCPMarkAt{DCTCPMarkEnqueue, DCTCPMarkDequeue} {
		rng := rand.New(rand.NewPCG(11, uint64(at)))
		const k = 30000
		c, err := NewDCTCP(DCTCPConfig{K: k, MarkAt: at})
		require.NoError(t, err)
		var last units.Time
		var packets, marked uint64
		act := cc.NewActions(2)
		now := units.Time(0)
		for i := range 5000 {
			now += units.Time(rng.IntN(2000)) - 200 // sometimes backwards
			q := units.Bytes(rng.IntN(60000)) - 100 // sometimes negative
			act.Reset()
			kind := rng.IntN(3)
			var err error
			switch kind {
			case 0:
				err = c.Enqueue(now, &cc.Packet{Size: 1082}, cc.Queue{Len: q, Rate: 100 * units.Gbps}, act)
			case 1:
				err = c.Dequeue(now, &cc.Packet{Size: 1082}, cc.Queue{Len: q}, act)
			default:
				err = c.Timer(now, act)
			}
			refused := now < last || kind != 2 && q < 0
			require.Equal(t, refused, err != nil, "event %d: %v", i, err)
			want := 0
			if !refused {
				last = now
				if kind == int(at) {
					packets++
					if q > k {
						marked++
						want = 1
					}
				}
			} else {
				require.True(t, cc.Typed(err), "%v", err)
				require.Equal(t, now < last, errors.Is(err, cc.ErrTimeOrder), "%v", err)
			}
			require.Equal(t, want, act.Len(), "event %d", i)
			require.Equal(t, want, act.Count(cc.ActionMarkCE), "event %d", i)
			require.Equal(t, []cc.Register{cc.TimeReg("now", last), cc.Reg("packets", 64, packets), cc.Reg("marked", 64, marked)},
				dctcpRegs(c), "event %d", i)
			require.Equal(t, units.MaxTime, c.NextDeadline())
		}
		require.NotZero(t, marked, "%v: the run marked", at)
		require.Less(t, marked, packets, "%v: and left some unmarked", at)
	}
}

// Time going backwards is refused by every event method with both times,
// and changes nothing; equal times are in order; negative times are
// refused from the start.
func TestDCTCPContractTimeOrder(t *testing.T) {
	c, err := NewDCTCP(DCTCPConfig{K: 10})
	require.NoError(t, err)
	act := cc.NewActions(4)
	p := &cc.Packet{Size: 1082}
	require.NoError(t, c.Enqueue(100, p, cc.Queue{Len: 20}, act))
	require.Equal(t, 1, act.Count(cc.ActionMarkCE))
	act.Reset()
	before := dctcpRegs(c)
	events := []struct {
		name string
		ev   func(units.Time) error
	}{
		{"Enqueue", func(now units.Time) error { return c.Enqueue(now, p, cc.Queue{Len: 20}, act) }},
		{"Dequeue", func(now units.Time) error { return c.Dequeue(now, p, cc.Queue{Len: 20}, act) }},
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
		act.Reset()
		require.NoError(t, e.ev(100), "%s: equal times are in order", e.name)
	}
	fresh, err := NewDCTCP(DCTCPConfig{K: 10})
	require.NoError(t, err)
	require.ErrorIs(t, fresh.Timer(-1, nil), cc.ErrTimeOrder)
	require.ErrorIs(t, fresh.Enqueue(-1, p, cc.Queue{}, act), cc.ErrTimeOrder)
}

// A full Actions fails an event that marks, changing nothing; an event
// that does not mark needs no room.
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
		p := &cc.Packet{Size: 1082}
		for _, act := range []*cc.Actions{full, cc.NewActions(0)} {
			was := act.Len()
			err := ev(5, p, cc.Queue{Len: 11}, act)
			require.ErrorIs(t, err, cc.ErrActionsFull)
			var fe *cc.ActionsFullError
			require.ErrorAs(t, err, &fe)
			require.Equal(t, 1, fe.Need)
			require.Equal(t, before, dctcpRegs(c), "%v: nothing changed", at)
			require.Equal(t, was, act.Len())
			// Not marked: no room needed.
			require.NoError(t, ev(5, p, cc.Queue{Len: 10}, act))
			before = dctcpRegs(c)
		}
		require.Equal(t, uint64(2), c.State().Packets)
		require.Zero(t, c.State().Marked)
	}
}

// Rule 3 (nil actions): the event at the marking point can decide (mark),
// so it refuses a nil *cc.Actions with cc.NoActions, marked or not,
// changing nothing; the event at the other point never decides and takes
// nil.
func TestDCTCPNilActions(t *testing.T) {
	for _, at := range []DCTCPMarkAt{DCTCPMarkEnqueue, DCTCPMarkDequeue} {
		c, err := NewDCTCP(DCTCPConfig{K: 10, MarkAt: at})
		require.NoError(t, err)
		judge, other := c.Enqueue, c.Dequeue
		name := "Enqueue"
		if at == DCTCPMarkDequeue {
			judge, other, name = c.Dequeue, c.Enqueue, "Dequeue"
		}
		p := &cc.Packet{Size: 1082}
		before := dctcpRegs(c)
		for _, q := range []units.Bytes{11, 10, 0} { // marked, not marked
			err := judge(5, p, cc.Queue{Len: q}, nil)
			require.ErrorIs(t, err, cc.ErrNoActions, "%v q=%d", at, q)
			var ee *cc.EventError
			require.ErrorAs(t, err, &ee)
			require.Equal(t, cc.EventError{Part: "cp.DCTCP", Event: name, Reason: ee.Reason, Err: cc.ErrNoActions}, *ee)
			require.Equal(t, before, dctcpRegs(c), "%v q=%d: nothing changed", at, q)
		}
		require.NoError(t, other(5, p, cc.Queue{Len: 11}, nil), "%v", at)
		require.NoError(t, c.Timer(6, nil), "%v", at)
		require.Equal(t, DCTCPState{Time: c.State().Time}, c.State(), "%v: nothing judged", at)
		require.Equal(t, units.Time(6), c.State().Time.Last())
	}
}

// Rule 4 (late timers): the marker has no timer (NextDeadline is always
// units.MaxTime), so no deadline is ever late; Timer calls at any time
// between the events change nothing but the time: a marker given them and
// one given none make the same marks and end with the same registers.
func TestDCTCPNoTimerToCatchUp(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	cfg := DCTCPConfig{K: 30000}
	ticked, err := NewDCTCP(cfg)
	require.NoError(t, err)
	plain, err := NewDCTCP(cfg)
	require.NoError(t, err)
	a, b := cc.NewActions(1), cc.NewActions(1)
	now := units.Time(0)
	marks := 0
	for i := range 2000 {
		for range rng.IntN(3) {
			now += units.Time(rng.IntN(500))
			a.Reset()
			require.NoError(t, ticked.Timer(now, a))
			require.Zero(t, a.Len())
		}
		now += units.Time(rng.IntN(500))
		q := cc.Queue{Len: units.Bytes(rng.IntN(60000))}
		a.Reset()
		b.Reset()
		require.NoError(t, ticked.Enqueue(now, &cc.Packet{Size: 1082}, q, a))
		require.NoError(t, plain.Enqueue(now, &cc.Packet{Size: 1082}, q, b))
		require.Equal(t, b.All(), a.All(), "event %d", i)
		marks += a.Len()
		require.Equal(t, dctcpRegs(plain), dctcpRegs(ticked), "event %d", i)
		require.Equal(t, units.MaxTime, ticked.NextDeadline())
	}
	require.Positive(t, marks)
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
