package cp

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	inttel "github.com/hwcc/hwcc/int"
	"github.com/hwcc/hwcc/units"
)

// hpccRandomHeader draws the INT header a data packet arrives with: none,
// 0..5 records already stamped upstream, or (rarely) a malformed one.
func hpccRandomHeader(rng *rand.Rand) *inttel.Header {
	if rng.IntN(5) == 0 {
		return nil
	}
	h := &inttel.Header{NHop: uint8(rng.IntN(inttel.HPCCMaxHops + 1)), PathID: uint16(rng.IntN(inttel.MaxPathID + 1))}
	for i := range h.NHop {
		h.Hops[i] = inttel.Hop{Speed: 4, TS: uint32(rng.IntN(inttel.MaxTS)), TxBytes: uint32(rng.IntN(inttel.MaxTxBytes)), QLen: uint16(rng.Uint32())}
	}
	switch rng.IntN(60) {
	case 0:
		h.PathID = 0x1000 // 13 bits
	case 1:
		h.NHop = inttel.HPCCMaxHops + 1
	}
	return h
}

// TestHPCCContractMatchesTyped: on seeded random streams the contract's
// Enqueue and Dequeue make exactly what the typed OnEnqueue, Stamp and
// OnDequeue make (Dequeue = Stamp with q.Len, then OnDequeue of p.Size),
// records and registers included, with valid and malformed headers, path-
// full headers, saturating queues and the odd event out of time order.
func TestHPCCContractMatchesTyped(t *testing.T) {
	for _, rate := range []units.Rate{10 * units.Gbps, 100 * units.Gbps, 800 * units.Gbps} {
		a := newTestHPCCPort(t, 0x5a5, rate) // contract
		b := newTestHPCCPort(t, 0x5a5, rate) // typed
		rng := rand.New(rand.NewPCG(5, uint64(rate)))
		now := units.Time(16_777_000) * units.Nanosecond
		var act cc.Actions
		errs := 0
		for i := range 20000 {
			now += units.Time(rng.Int64N(int64(2 * units.Microsecond)))
			at := now
			if rng.IntN(100) == 0 {
				at -= units.Microsecond
			}
			q := cc.Queue{Len: units.Bytes(rng.Int64N(6_000_000)), Rate: rate, TxBytes: rng.Uint64()}
			p := cc.Packet{Flow: cc.FlowID(rng.IntN(4)), Size: units.Bytes(rng.Int64N(9000)), INT: hpccRandomHeader(rng)}
			var ea, eb error
			if rng.IntN(2) == 0 {
				ea = a.Enqueue(at, &p, q, &act)
				eb = b.OnEnqueue(at, q.Len)
			} else {
				var typed inttel.Header
				if p.INT != nil {
					typed = *p.INT
				}
				ea = a.Dequeue(at, &p, q, &act)
				if p.INT != nil {
					eb = b.Stamp(at, &typed, q.Len)
				}
				if eb == nil {
					eb = b.OnDequeue(at, p.Size, q.Len)
				}
				if p.INT != nil {
					require.Equal(t, typed, *p.INT, "event %d: the records differ", i)
				}
			}
			require.Equal(t, eb == nil, ea == nil, "event %d: contract %v, typed %v", i, ea, eb)
			if ea != nil {
				errs++
				require.True(t, cc.Typed(ea))
			}
			require.Equal(t, b.AppendRegisters(nil), a.AppendRegisters(nil), "event %d", i)
			require.Zero(t, act.Len())
		}
		s := a.State()
		require.Positive(t, errs)
		require.Positive(t, s.PathFull)
		require.Positive(t, s.QLenSaturated)
		require.Greater(t, s.Stamped, uint64(5000))
	}
}

// TestHPCCDequeueErrorsChangeNothing: a refused Dequeue leaves the
// registers and the packet's header as they were.
func TestHPCCDequeueErrorsChangeNothing(t *testing.T) {
	c := newTestHPCCPort(t, 3, 100*units.Gbps)
	require.NoError(t, c.Dequeue(5, &cc.Packet{Size: 1500}, cc.Queue{Len: 10}, nil))
	before := c.AppendRegisters(nil)
	for name, tc := range map[string]struct {
		p *cc.Packet
		q cc.Queue
	}{
		"nil packet":       {nil, cc.Queue{}},
		"negative size":    {&cc.Packet{Size: -1, INT: &inttel.Header{}}, cc.Queue{}},
		"negative queue":   {&cc.Packet{Size: 1, INT: &inttel.Header{}}, cc.Queue{Len: -1}},
		"13-bit path ID":   {&cc.Packet{Size: 1, INT: &inttel.Header{PathID: 0x1000}}, cc.Queue{}},
		"too many records": {&cc.Packet{Size: 1, INT: &inttel.Header{NHop: 9}}, cc.Queue{}},
	} {
		var hdr inttel.Header
		if tc.p != nil && tc.p.INT != nil {
			hdr = *tc.p.INT
		}
		err := c.Dequeue(6, tc.p, tc.q, nil)
		require.ErrorIs(t, err, cc.ErrEvent, name)
		var ee *cc.EventError
		require.ErrorAs(t, err, &ee, name)
		require.Equal(t, "cp.HPCC", ee.Part)
		require.Equal(t, "Dequeue", ee.Event)
		require.Equal(t, before, c.AppendRegisters(nil), name)
		if tc.p != nil && tc.p.INT != nil {
			require.Equal(t, hdr, *tc.p.INT, name)
		}
	}
	require.ErrorIs(t, c.Enqueue(6, nil, cc.Queue{Len: -1}, nil), cc.ErrEvent)
	require.ErrorIs(t, c.OnEnqueue(6, -1), cc.ErrEvent)
	require.Equal(t, before, c.AppendRegisters(nil))
}

// TestHPCCTimeOrder: every event method refuses a time before the latest
// accepted one with a *cc.TimeOrderError carrying both times, and changes
// no register (nor the header).
func TestHPCCTimeOrder(t *testing.T) {
	c := newTestHPCCPort(t, 3, 100*units.Gbps)
	require.NoError(t, c.Enqueue(10, nil, cc.Queue{Len: 1500}, nil))
	before := c.AppendRegisters(nil)
	var hdr inttel.Header
	var act cc.Actions
	p := cc.Packet{Size: 1500, INT: &hdr}
	for name, ev := range map[string]func() error{
		"Enqueue":   func() error { return c.Enqueue(9, &p, cc.Queue{}, &act) },
		"Dequeue":   func() error { return c.Dequeue(9, &p, cc.Queue{}, &act) },
		"Timer":     func() error { return c.Timer(9, &act) },
		"Stamp":     func() error { return c.Stamp(9, &hdr, 0) },
		"OnDequeue": func() error { return c.OnDequeue(9, 1500, 0) },
		"OnEnqueue": func() error { return c.OnEnqueue(9, 0) },
	} {
		err := ev()
		var te *cc.TimeOrderError
		require.ErrorAs(t, err, &te, name)
		require.Equal(t, cc.TimeOrderError{Part: "cp.HPCC", Event: name, Now: 9, Last: 10}, *te)
		require.ErrorIs(t, err, cc.ErrTimeOrder)
		require.Equal(t, before, c.AppendRegisters(nil), name)
		require.Zero(t, hdr.NHop, name)
	}
	c = newTestHPCCPort(t, 3, 100*units.Gbps)
	require.ErrorIs(t, c.Dequeue(-1, &p, cc.Queue{}, nil), cc.ErrTimeOrder)
}

// TestHPCCNoTimerNoActions: the port has no timer and emits nothing, so
// nil and zero-capacity Actions are fine for every event; Timer only
// records the time.
func TestHPCCNoTimerNoActions(t *testing.T) {
	c := newTestHPCCPort(t, 3, 100*units.Gbps)
	require.Equal(t, units.MaxTime, c.NextDeadline())
	var zero cc.Actions
	var hdr inttel.Header
	for i, act := range []*cc.Actions{nil, &zero} {
		now := units.Time(2 * i)
		require.NoError(t, c.Enqueue(now, &cc.Packet{Size: 100}, cc.Queue{Len: 100}, act))
		require.NoError(t, c.Dequeue(now+1, &cc.Packet{Size: 100, INT: &hdr}, cc.Queue{}, act))
		require.Equal(t, uint8(1), hdr.NHop)
		hdr.NHop = 0
	}
	before := c.AppendRegisters(nil)
	require.NoError(t, c.Timer(7, nil))
	after := c.AppendRegisters(nil)
	require.Equal(t, cc.TimeReg("now", 7), after[0])
	require.Equal(t, before[1:], after[1:])
	require.Equal(t, units.MaxTime, c.NextDeadline())
}

// TestHPCCRegisters: fixed names and order, values within widths, tx_bytes
// 27 bits wide at the default 128 B unit and equal to State.
func TestHPCCRegisters(t *testing.T) {
	c := newTestHPCCPort(t, 3, 100*units.Gbps)
	var hdr inttel.Header
	require.NoError(t, c.Dequeue(2, &cc.Packet{Size: 1 << 27, INT: &hdr}, cc.Queue{Len: 7}, nil))
	require.NoError(t, c.Dequeue(3, &cc.Packet{Size: 1<<27 - 1}, cc.Queue{Len: 7}, nil))
	regs := c.AppendRegisters(nil)
	names := make([]string, len(regs))
	for i, r := range regs {
		names[i] = r.Name
		require.True(t, r.Fits(), "%v", r)
	}
	require.Equal(t, []string{"now", "tx_bytes", "last_qlen", "last_dequeue", "packets", "stamped", "path_full", "qlen_saturated"}, names)
	require.Equal(t, cc.Reg("tx_bytes", 27, 1<<27-1), regs[1])
	require.Equal(t, uint64(c.State().TxBytes), regs[1].Value)
	buf := make([]cc.Register, 0, 16)
	require.Zero(t, testing.AllocsPerRun(100, func() { buf = c.AppendRegisters(buf[:0]) }))
}

// TestHPCCContractNoAllocs: Enqueue, Dequeue (stamping, and path full) and
// Timer do not allocate on success.
func TestHPCCContractNoAllocs(t *testing.T) {
	for _, port := range []bool{false, true} {
		c, err := NewHPCC(HPCCConfig{SwitchID: 7, Rate: 100 * units.Gbps, PortTxBytes: port})
		require.NoError(t, err)
		var act cc.Actions
		i := 0
		allocs := testing.AllocsPerRun(1000, func() {
			now := units.Time(i) * units.Nanosecond
			var h inttel.Header
			q := cc.Queue{Len: units.Bytes(i), Rate: 100 * units.Gbps, TxBytes: uint64(i) * 1000}
			p := cc.Packet{Size: 1000, INT: &h}
			if c.Enqueue(now, &p, q, &act) != nil || c.Dequeue(now, &p, q, &act) != nil || c.Timer(now, &act) != nil {
				t.Fatal("event refused")
			}
			full := inttel.Header{NHop: 5}
			p.INT = &full
			if c.Dequeue(now, &p, q, &act) != nil {
				t.Fatal("path full refused")
			}
			i++
		})
		require.Zero(t, allocs)
	}
}

// BenchmarkHPCCDequeue is BenchmarkHPCCStamp through the contract: one
// stamp and one count per call.
func BenchmarkHPCCDequeue(b *testing.B) {
	c := newTestHPCCPort(b, 7, 100*units.Gbps)
	var h inttel.Header
	var act cc.Actions
	p := cc.Packet{Size: 1000, INT: &h}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		h.NHop = 0
		_ = c.Dequeue(units.Time(i)*units.Nanosecond, &p, cc.Queue{Len: units.Bytes(i & 0xffff)}, &act)
	}
}

func BenchmarkHPCCEnqueue(b *testing.B) {
	c := newTestHPCCPort(b, 7, 100*units.Gbps)
	var act cc.Actions
	p := cc.Packet{Size: 1000}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		_ = c.Enqueue(units.Time(i)*units.Nanosecond, &p, cc.Queue{Len: units.Bytes(i & 0xffff)}, &act)
	}
}

func BenchmarkHPCCTimer(b *testing.B) {
	c := newTestHPCCPort(b, 7, 100*units.Gbps)
	var act cc.Actions
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		_ = c.Timer(units.Time(i), &act)
	}
}
