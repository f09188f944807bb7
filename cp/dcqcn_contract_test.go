package cp

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
)

// dcqcnRegs returns c's registers.
func dcqcnRegs(c *DCQCN) []cc.Register { return c.AppendRegisters(nil) }

// The contract methods and the unexported decisions they run (onEnqueue,
// onDequeue) make the same decisions and leave the same registers on the
// same random events (both marking points, queue lengths across the three
// regions, timer calls in between).
func TestDCQCNContractMatchesTyped(t *testing.T) {
	for _, at := range []DCQCNMarkAt{DCQCNMarkDequeue, DCQCNMarkEnqueue} {
		cfg := DCQCNHPCCSim(25 * units.Gbps)
		cfg.MarkAt = at
		typed, err := NewDCQCN(cfg)
		require.NoError(t, err)
		contract, err := NewDCQCN(cfg)
		require.NoError(t, err)
		r := rand.New(rand.NewPCG(11, uint64(at)))
		act := cc.NewActions(2)
		now := units.Time(0)
		for i := range 20000 {
			now += units.Time(r.Int64N(int64(2 * units.Microsecond)))
			q := units.Bytes(r.Int64N(int64(cfg.Kmax + 200*units.KB)))
			p := cc.Packet{Flow: cc.FlowID(i), Size: 1082, Payload: 1000}
			act.Reset()
			var want bool
			switch r.IntN(5) {
			case 0, 1:
				want, err = typed.onEnqueue(now, q)
				require.NoError(t, err)
				require.NoError(t, contract.Enqueue(now, &p, cc.Queue{Len: q, Rate: 25 * units.Gbps}, act))
			case 2, 3:
				want, err = typed.onDequeue(now, q)
				require.NoError(t, err)
				require.NoError(t, contract.Dequeue(now, &p, cc.Queue{Len: q, Rate: 25 * units.Gbps}, act))
			default:
				require.NoError(t, typed.Timer(now, nil))
				require.NoError(t, contract.Timer(now, act))
			}
			require.Equal(t, want, act.Has(cc.ActionMarkCE), "event %d", i)
			require.LessOrEqual(t, act.Len(), 1)
			require.Equal(t, dcqcnRegs(typed), dcqcnRegs(contract), "event %d", i)
		}
		s := typed.State()
		require.Positive(t, s.Marked, "%v", at)
		require.Positive(t, s.Draws, "%v", at)
		require.Less(t, s.Draws, s.Packets, "%v: some decisions outside the linear region", at)
	}
}

// The decision is taken at MarkAt only: above Kmax (certain mark) the other
// event marks nothing and counts nothing, and only records its time.
func TestDCQCNMarkAt(t *testing.T) {
	for _, at := range []DCQCNMarkAt{DCQCNMarkDequeue, DCQCNMarkEnqueue} {
		cfg := DCQCNHPCCSim(25 * units.Gbps)
		cfg.MarkAt = at
		c, err := NewDCQCN(cfg)
		require.NoError(t, err)
		act := cc.NewActions(1)
		q := cc.Queue{Len: cfg.Kmax + 1}
		require.NoError(t, c.Enqueue(5, nil, q, act))
		require.Equal(t, at == DCQCNMarkEnqueue, act.Has(cc.ActionMarkCE), "%v: Enqueue", at)
		act.Reset()
		require.NoError(t, c.Dequeue(6, nil, q, act))
		require.Equal(t, at == DCQCNMarkDequeue, act.Has(cc.ActionMarkCE), "%v: Dequeue", at)
		require.Equal(t, uint64(1), c.State().Packets, "%v: one decision", at)
		require.Equal(t, units.Time(6), c.Last())
		m, err := c.onEnqueue(7, q.Len)
		require.NoError(t, err)
		require.Equal(t, at == DCQCNMarkEnqueue, m)
		m, err = c.onDequeue(8, q.Len)
		require.NoError(t, err)
		require.Equal(t, at == DCQCNMarkDequeue, m)
	}
	require.Equal(t, DCQCNMarkDequeue, DCQCNConfig{}.MarkAt, "the zero value is the default")
	require.Equal(t, DCQCNMarkDequeue, DCQCNHPCCSim(25*units.Gbps).MarkAt)
	require.Equal(t, "dequeue", DCQCNMarkDequeue.String())
	require.Equal(t, "enqueue", DCQCNMarkEnqueue.String())
	require.Equal(t, "DCQCNMarkAt(7)", DCQCNMarkAt(7).String())
}

// Time going backwards (or below 0) is a *cc.TimeOrderError from every
// event, naming both times, and changes no register.
func TestDCQCNContractTimeOrder(t *testing.T) {
	c, err := NewDCQCN(DCQCNHPCCSim(25 * units.Gbps))
	require.NoError(t, err)
	q := cc.Queue{Len: 250 * units.KB}
	require.NoError(t, c.Dequeue(10, nil, q, cc.NewActions(1)))
	before := dcqcnRegs(c)
	// The unexported decisions (the fast path of Enqueue and Dequeue) name
	// the contract event they serve.
	events := []struct {
		name string
		ev   func(now units.Time) error
	}{
		{"Enqueue", func(now units.Time) error { return c.Enqueue(now, nil, q, cc.NewActions(1)) }},
		{"Dequeue", func(now units.Time) error { return c.Dequeue(now, nil, q, cc.NewActions(1)) }},
		{"Timer", func(now units.Time) error { return c.Timer(now, cc.NewActions(1)) }},
		{"Enqueue", func(now units.Time) error { _, err := c.onEnqueue(now, q.Len); return err }},
		{"Dequeue", func(now units.Time) error { _, err := c.onDequeue(now, q.Len); return err }},
	}
	for _, e := range events {
		for _, now := range []units.Time{9, -1} {
			err := e.ev(now)
			var to *cc.TimeOrderError
			require.ErrorAs(t, err, &to, e.name)
			require.ErrorIs(t, err, cc.ErrTimeOrder)
			require.Equal(t, cc.TimeOrderError{Part: "cp.DCQCN", Event: e.name, Now: now, Last: 10}, *to)
			require.Equal(t, before, dcqcnRegs(c), e.name)
		}
	}
	fresh, err := NewDCQCN(DCQCNHPCCSim(25 * units.Gbps))
	require.NoError(t, err)
	require.ErrorIs(t, fresh.Enqueue(-1, nil, q, nil), cc.ErrTimeOrder, "time starts at 0")
	// A negative queue length is a *cc.EventError that changes nothing.
	require.ErrorIs(t, c.Dequeue(11, nil, cc.Queue{Len: -1}, cc.NewActions(1)), cc.ErrEvent)
	require.Equal(t, before, dcqcnRegs(c))
}

// An Actions without room (full, or of no capacity) makes an event that
// marks fail with *cc.ActionsFullError and change nothing, the LFSR
// included; an event that marks nothing needs no room.
func TestDCQCNContractActionsFull(t *testing.T) {
	cfg := DCQCNHPCCSim(25 * units.Gbps)
	c, err := NewDCQCN(cfg)
	require.NoError(t, err)
	full := cc.NewActions(1)
	full.MarkCE()
	for _, act := range []*cc.Actions{full, cc.NewActions(0)} {
		before := dcqcnRegs(c)
		err := c.Dequeue(1, nil, cc.Queue{Len: cfg.Kmax + 1}, act)
		var af *cc.ActionsFullError
		require.ErrorAs(t, err, &af)
		require.Equal(t, cc.ActionsFullError{Part: "cp.DCQCN", Event: "Dequeue", Need: 1, Free: 0}, *af)
		require.Equal(t, before, dcqcnRegs(c))
		require.NoError(t, c.Dequeue(1, nil, cc.Queue{Len: cfg.Kmin}, act), "no mark, no room needed")
		require.NoError(t, c.Enqueue(1, nil, cc.Queue{Len: cfg.Kmax + 1}, act), "not judged at enqueue")
	}
	require.Equal(t, 1, full.Len())

	// In the linear region: a draw that would mark fails and keeps the
	// LFSR, so the retry with room makes the same decision as a twin that
	// always had room; a draw that does not mark succeeds without room.
	twin, err := NewDCQCN(cfg)
	require.NoError(t, err)
	c, err = NewDCQCN(cfg)
	require.NoError(t, err)
	q := cc.Queue{Len: 400 * units.KB} // p = Pmax = 0.2
	fails := 0
	none := cc.NewActions(0)
	for i := range 2000 {
		now := units.Time(i)
		want, err := twin.onDequeue(now, q.Len)
		require.NoError(t, err)
		err = c.Dequeue(now, nil, q, none)
		if want {
			require.ErrorIs(t, err, cc.ErrActionsFull)
			fails++
			act := cc.NewActions(1)
			require.NoError(t, c.Dequeue(now, nil, q, act))
			require.True(t, act.Has(cc.ActionMarkCE))
		} else {
			require.NoError(t, err)
		}
		require.Equal(t, dcqcnRegs(twin), dcqcnRegs(c), "decision %d", i)
	}
	require.InDelta(t, 400, fails, 100, "about Pmax = 0.2 of the draws mark")
}

// The registers: names, widths and order fixed, every value within its
// width, the time and counters where the events put them.
func TestDCQCNRegisters(t *testing.T) {
	c, err := NewDCQCN(DCQCNHPCCSim(25 * units.Gbps))
	require.NoError(t, err)
	_, err = c.onDequeue(42, 401*units.KB)
	require.NoError(t, err)
	regs := dcqcnRegs(c)
	var names []string
	for _, r := range regs {
		require.True(t, r.Fits(), r.String())
		names = append(names, r.Name)
	}
	require.Equal(t, []string{"now", "lfsr", "packets", "draws", "marked"}, names)
	require.Equal(t, "now[64]=42", regs[0].String())
	require.Equal(t, uint8(32), regs[1].Width)
	require.Equal(t, uint64(DCQCNDefaultSeed), regs[1].Value, "no draw above Kmax")
	require.Equal(t, "marked[64]=1", regs[4].String())
	require.Equal(t, units.MaxTime, c.NextDeadline())
	require.NoError(t, c.Timer(50, nil), "no timer: Timer only records now")
	require.Equal(t, units.Time(50), c.Last())
	require.Equal(t, units.MaxTime, c.NextDeadline())
}

// Zero allocations per contract event, and for AppendRegisters with room.
func TestDCQCNContractNoAllocs(t *testing.T) {
	c, err := NewDCQCN(DCQCNHPCCSim(25 * units.Gbps))
	require.NoError(t, err)
	act := cc.NewActions(4)
	p := cc.Packet{Size: 1082}
	q := cc.Queue{Len: 250 * units.KB, Rate: 25 * units.Gbps}
	now := units.Time(0)
	regs := make([]cc.Register, 0, 16)
	for name, f := range map[string]func(){
		"Enqueue": func() { now++; act.Reset(); _ = c.Enqueue(now, &p, q, act) },
		"Dequeue": func() { now++; act.Reset(); _ = c.Dequeue(now, &p, q, act) },
		"Timer":   func() { now++; _ = c.Timer(now, act) },
		"AppendRegisters": func() {
			regs = c.AppendRegisters(regs[:0])
		},
	} {
		require.Zero(t, testing.AllocsPerRun(1000, f), name)
	}
}

// BenchmarkDCQCNContractDequeue is BenchmarkDCQCNOnDequeue through the
// contract (a draw every call).
func BenchmarkDCQCNContractDequeue(b *testing.B) {
	c, _ := NewDCQCN(DCQCNHPCCSim(25 * units.Gbps))
	act := cc.NewActions(1)
	p := cc.Packet{Size: 1082}
	q := cc.Queue{Len: 250 * units.KB}
	now := units.Time(0)
	b.ReportAllocs()
	for b.Loop() {
		now += units.Nanosecond
		act.Reset()
		_ = c.Dequeue(now, &p, q, act)
	}
}

// BenchmarkDCQCNContractEnqueue is an Enqueue that is not judged (the
// default marks at dequeue): the time check alone.
func BenchmarkDCQCNContractEnqueue(b *testing.B) {
	c, _ := NewDCQCN(DCQCNHPCCSim(25 * units.Gbps))
	act := cc.NewActions(1)
	p := cc.Packet{Size: 1082}
	q := cc.Queue{Len: 250 * units.KB}
	now := units.Time(0)
	b.ReportAllocs()
	for b.Loop() {
		now += units.Nanosecond
		_ = c.Enqueue(now, &p, q, act)
	}
}

func BenchmarkDCQCNContractTimer(b *testing.B) {
	c, _ := NewDCQCN(DCQCNHPCCSim(25 * units.Gbps))
	act := cc.NewActions(1)
	now := units.Time(0)
	b.ReportAllocs()
	for b.Loop() {
		now += units.Nanosecond
		_ = c.Timer(now, act)
	}
}

// cc's rules 3 and 4 at the marker. Rule 3: the event MarkAt names can
// mark, so it refuses a nil *cc.Actions with cc.ErrNoActions whether or
// not it would mark (a queue below Kmin, above Kmax), changing nothing,
// the LFSR included; the other event and Timer never decide and take nil.
// Rule 4: the marker has no timer, so Timer calls between events change
// no decision: a twin given Timer at random times makes the same marks
// and holds the same registers but the time. (Rule 8 concerns reaction,
// notification and switch points: a congestion point takes no messages.)
func TestDCQCNContractRules(t *testing.T) {
	for _, at := range []DCQCNMarkAt{DCQCNMarkDequeue, DCQCNMarkEnqueue} {
		cfg := DCQCNHPCCSim(25 * units.Gbps)
		cfg.MarkAt = at
		c, err := NewDCQCN(cfg)
		require.NoError(t, err)
		judged, other := c.Dequeue, c.Enqueue
		if at == DCQCNMarkEnqueue {
			judged, other = c.Enqueue, c.Dequeue
		}
		require.NoError(t, judged(5, nil, cc.Queue{Len: 250 * units.KB}, cc.NewActions(1)))
		before := dcqcnRegs(c)
		for _, q := range []units.Bytes{0, cfg.Kmin, 250 * units.KB, cfg.Kmax + 1} {
			err := judged(6, nil, cc.Queue{Len: q}, nil)
			var ee *cc.EventError
			require.ErrorAs(t, err, &ee, "%v q=%v", at, q)
			require.ErrorIs(t, err, cc.ErrNoActions)
			require.Equal(t, "cp.DCQCN", ee.Part)
			require.Equal(t, before, dcqcnRegs(c), "%v q=%v: refused, nothing changed", at, q)
		}
		require.ErrorIs(t, judged(4, nil, cc.Queue{}, nil), cc.ErrTimeOrder, "time order is checked first")
		require.NoError(t, other(7, nil, cc.Queue{Len: cfg.Kmax + 1}, nil), "%v: the other event never decides", at)
		require.NoError(t, c.Timer(8, nil))
		require.Equal(t, before[1:], dcqcnRegs(c)[1:], "only the time moved")
	}

	x, err := NewDCQCN(DCQCNHPCCSim(25 * units.Gbps))
	require.NoError(t, err)
	y, err := NewDCQCN(DCQCNHPCCSim(25 * units.Gbps))
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(8, 9))
	actX, actY := cc.NewActions(1), cc.NewActions(1)
	marks := 0
	for i := range 3000 {
		now := units.Time(10 * (i + 1))
		if r.IntN(3) == 0 {
			require.NoError(t, x.Timer(now-1, actX))
		}
		q := cc.Queue{Len: units.Bytes(r.Int64N(int64(500 * units.KB)))}
		actX.Reset()
		actY.Reset()
		require.NoError(t, x.Dequeue(now, nil, q, actX))
		require.NoError(t, y.Dequeue(now, nil, q, actY))
		require.Equal(t, actY.All(), actX.All(), "decision %d", i)
		require.Equal(t, dcqcnRegs(y), dcqcnRegs(x), "decision %d", i)
		marks += actX.Len()
	}
	require.Positive(t, marks)
}
