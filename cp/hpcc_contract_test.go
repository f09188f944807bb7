package cp

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	inttel "github.com/hwcc/hwcc/int"
	"github.com/hwcc/hwcc/units"
)

// hpccRandomStack draws the telemetry stack a data packet arrives with
// and the header it holds: none (nil, nil), 0..5 records already stamped
// upstream, or (rarely) a malformed one: six records, above MaxHops, or
// (notHeader) bytes that are not one header, a record cut short or a byte
// too many, which no Header can stand for.
func hpccRandomStack(t testing.TB, rng *rand.Rand) (tel *cc.Telemetry, h *inttel.Header, notHeader bool) {
	if rng.IntN(5) == 0 {
		return nil, nil, false
	}
	h = &inttel.Header{NHop: uint8(rng.IntN(inttel.HPCCMaxHops + 1)), PathID: uint16(rng.IntN(inttel.MaxPathID + 1))}
	if rng.IntN(60) == 0 {
		h.NHop = inttel.HPCCMaxHops + 1
	}
	for i := range h.NHop {
		h.Hops[i] = inttel.Hop{Speed: 4, TS: uint32(rng.IntN(inttel.MaxTS)), TxBytes: uint32(rng.IntN(inttel.MaxTxBytes)), QLen: uint16(rng.Uint32())}
	}
	tel = hpccTel(t, h)
	switch rng.IntN(60) {
	case 0:
		tel.Len-- // the last record (or the prefix) cut short
		return tel, nil, true
	case 1:
		tel.Len++ // a byte after the header
		return tel, nil, true
	}
	return tel, h, false
}

// hpccPortModel is the port of Figure 7 written out from its definition,
// for TestHPCCEventsMatchModel: an unbounded transmit counter, the queue
// and time of the last event, and the counters.
type hpccPortModel struct {
	id                                    uint16
	code                                  uint8
	total                                 uint64 // bytes dequeued, never reduced
	now, lastDequeue                      units.Time
	lastQ                                 units.Bytes
	packets, stamped, pathFull, saturated uint64
}

// registers is the snapshot the port must show: tx_bytes is the counter
// modulo 2^27 B (2^20 units of 128 B, so that the stamped field is the
// unbounded counter's).
func (m *hpccPortModel) registers() []cc.Register {
	return []cc.Register{
		cc.TimeReg("now", m.now), cc.Reg("tx_bytes", 27, m.total%(1<<27)), cc.BytesReg("last_qlen", m.lastQ),
		cc.TimeReg("last_dequeue", m.lastDequeue), cc.Reg("packets", 64, m.packets), cc.Reg("stamped", 64, m.stamped),
		cc.Reg("path_full", 64, m.pathFull), cc.Reg("qlen_saturated", 64, m.saturated),
	}
}

// TestHPCCEventsMatchModel: on seeded random streams Enqueue and Dequeue
// do what the model of Figure 7 says, registers included after every
// event: each record pushed is {B: the port's code, TS: ⌊now/1 ns⌋ mod
// 2^24, txBytes: ⌊bytes before the packet/128⌋ mod 2^20, qLen:
// min(⌊q.Len/80⌋, 0xFFFF)} after the records already there, with nHop + 1
// and pathID ^ switch ID; a full stack is left as it is. Malformed stacks
// (six records, above MaxHops; a record cut short; a byte too many), path-
// full stacks, saturating queues and the odd event out of time order are
// mixed in; a refused event changes nothing, the stack included.
func TestHPCCEventsMatchModel(t *testing.T) {
	for code, rate := range map[uint8]units.Rate{0: 10 * units.Gbps, 4: 100 * units.Gbps, 7: 800 * units.Gbps} {
		c := newTestHPCCPort(t, 0x5a5, rate)
		m := hpccPortModel{id: 0x5a5, code: code}
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
			late := at < m.now
			q := cc.Queue{Len: units.Bytes(rng.Int64N(6_000_000)), Rate: rate, TxBytes: rng.Uint64()}
			tel, h, notHeader := hpccRandomStack(t, rng)
			p := cc.Packet{Flow: cc.FlowID(rng.IntN(4)), Size: units.Bytes(rng.Int64N(9000)), Tel: tel}
			var before cc.Telemetry
			if tel != nil {
				before = *tel
			}
			var err error
			refused := late
			if rng.IntN(2) == 0 {
				err = c.Enqueue(at, &p, q, &act)
				if !refused {
					m.now, m.lastQ = at, q.Len
				}
			} else {
				err = c.Dequeue(at, &p, q, &act)
				refused = refused || notHeader || h != nil && int(h.NHop) > inttel.HPCCMaxHops
				if !refused {
					if h != nil {
						want := *h
						if h.NHop == inttel.HPCCMaxHops {
							m.pathFull++
						} else {
							qlen := uint64(q.Len) / 80
							if qlen > 0xffff {
								qlen = 0xffff
								m.saturated++
							}
							want.Hops[want.NHop] = inttel.Hop{Speed: m.code, TS: uint32(uint64(at/units.Nanosecond) % (1 << 24)),
								TxBytes: uint32(m.total / 128 % (1 << 20)), QLen: uint16(qlen)}
							want.NHop++
							want.PathID ^= m.id
							m.stamped++
						}
						require.Equal(t, hpccTel(t, &want).Bytes(), tel.Bytes(), "event %d: the stack", i)
					}
					m.total += uint64(p.Size)
					m.now, m.lastDequeue, m.lastQ = at, at, q.Len
					m.packets++
				}
			}
			require.Equal(t, refused, err != nil, "event %d: %v", i, err)
			if err != nil {
				errs++
				require.True(t, cc.Typed(err))
				if tel != nil {
					require.Equal(t, before, *tel, "event %d: the refused stack changed", i)
				}
			}
			require.Equal(t, m.registers(), c.AppendRegisters(nil), "event %d", i)
			require.Zero(t, act.Len())
		}
		s := c.State()
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
	cut := hpccTel(t, &inttel.Header{NHop: 1}) // one record announced, 7 of its bytes present
	cut.Len--
	over := hpccTel(t, &inttel.Header{}) // a byte after the empty header
	over.Len++
	above := hpccTel(t, &inttel.Header{}) // a Len above the stack's capacity
	above.Len = cc.TelemetryCap + 1
	for name, tc := range map[string]struct {
		p      *cc.Packet
		q      cc.Queue
		decode bool // inttel's error is a *cc.DecodeError
	}{
		"nil packet":        {nil, cc.Queue{}, false},
		"negative size":     {&cc.Packet{Size: -1, Tel: hpccTel(t, &inttel.Header{})}, cc.Queue{}, false},
		"negative queue":    {&cc.Packet{Size: 1, Tel: hpccTel(t, &inttel.Header{})}, cc.Queue{Len: -1}, false},
		"record cut short":  {&cc.Packet{Size: 1, Tel: cut}, cc.Queue{}, true},
		"a byte too many":   {&cc.Packet{Size: 1, Tel: over}, cc.Queue{}, true},
		"Len above the cap": {&cc.Packet{Size: 1, Tel: above}, cc.Queue{}, true},
		"too many records":  {&cc.Packet{Size: 1, Tel: hpccTel(t, &inttel.Header{NHop: 9})}, cc.Queue{}, false},
		"no bytes":          {&cc.Packet{Size: 1, Tel: &cc.Telemetry{}}, cc.Queue{}, true},
	} {
		var tel cc.Telemetry
		if tc.p != nil && tc.p.Tel != nil {
			tel = *tc.p.Tel
		}
		err := c.Dequeue(6, tc.p, tc.q, nil)
		require.ErrorIs(t, err, cc.ErrEvent, name)
		var ee *cc.EventError
		require.ErrorAs(t, err, &ee, name)
		require.Equal(t, "cp.HPCC", ee.Part)
		require.Equal(t, "Dequeue", ee.Event)
		require.Equal(t, tc.decode, errors.Is(err, cc.ErrDecode), "%s: %v", name, err)
		require.Equal(t, before, c.AppendRegisters(nil), name)
		if tc.p != nil && tc.p.Tel != nil {
			require.Equal(t, tel, *tc.p.Tel, name)
		}
	}
	require.ErrorIs(t, c.Enqueue(6, &cc.Packet{}, cc.Queue{Len: -1}, nil), cc.ErrEvent)
	require.ErrorIs(t, c.Enqueue(6, nil, cc.Queue{}, nil), cc.ErrEvent) // every event of a queue has a frame
	require.Equal(t, before, c.AppendRegisters(nil))
}

// TestHPCCTimeOrder: every event method refuses a time before the latest
// accepted one with a *cc.TimeOrderError carrying both times, and changes
// no register (nor the header).
func TestHPCCTimeOrder(t *testing.T) {
	c := newTestHPCCPort(t, 3, 100*units.Gbps)
	require.NoError(t, c.Enqueue(10, &cc.Packet{Size: 1500}, cc.Queue{Len: 1500}, nil))
	before := c.AppendRegisters(nil)
	var act cc.Actions
	tel := hpccTel(t, &inttel.Header{})
	p := cc.Packet{Size: 1500, Tel: tel}
	for name, ev := range map[string]func() error{
		"Enqueue": func() error { return c.Enqueue(9, &p, cc.Queue{}, &act) },
		"Dequeue": func() error { return c.Dequeue(9, &p, cc.Queue{}, &act) },
		"Timer":   func() error { return c.Timer(9, &act) },
	} {
		err := ev()
		var te *cc.TimeOrderError
		require.ErrorAs(t, err, &te, name)
		require.Equal(t, cc.TimeOrderError{Part: "cp.HPCC", Event: name, Now: 9, Last: 10}, *te)
		require.ErrorIs(t, err, cc.ErrTimeOrder)
		require.Equal(t, before, c.AppendRegisters(nil), name)
		require.Equal(t, hpccTel(t, &inttel.Header{}), tel, name)
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
	for i, act := range []*cc.Actions{nil, &zero} {
		now := units.Time(2 * i)
		tel := hpccTel(t, &inttel.Header{})
		require.NoError(t, c.Enqueue(now, &cc.Packet{Size: 100}, cc.Queue{Len: 100}, act))
		require.NoError(t, c.Dequeue(now+1, &cc.Packet{Size: 100, Tel: tel}, cc.Queue{}, act))
		require.Equal(t, uint8(1), hpccHeaderOf(t, tel).NHop)
	}
	before := c.AppendRegisters(nil)
	require.NoError(t, c.Timer(7, nil))
	after := c.AppendRegisters(nil)
	require.Equal(t, cc.TimeReg("now", 7), after[0])
	require.Equal(t, before[1:], after[1:])
	require.Equal(t, units.MaxTime, c.NextDeadline())
}

// TestHPCCNoTimerToCatchUp (cc rule 4): the port has no timer, so no
// deadline is ever late: a port also given Timer calls at times between
// its events pushes the same records and ends every event with the same
// registers as one given none. (Rule 3: no event decides, so all take a
// nil *cc.Actions; TestHPCCNoTimerNoActions.)
func TestHPCCNoTimerToCatchUp(t *testing.T) {
	ticked, plain := newTestHPCCPort(t, 9, 100*units.Gbps), newTestHPCCPort(t, 9, 100*units.Gbps)
	rng := rand.New(rand.NewPCG(6, 7))
	now := units.Microsecond
	for i := range 3000 {
		for range rng.IntN(3) {
			now += units.Time(rng.Int64N(int64(units.Microsecond)))
			require.NoError(t, ticked.Timer(now, nil))
		}
		now += units.Time(rng.Int64N(int64(units.Microsecond)))
		q := cc.Queue{Len: units.Bytes(rng.Int64N(500_000)), Rate: 100 * units.Gbps}
		a, b := hpccTel(t, &inttel.Header{}), hpccTel(t, &inttel.Header{})
		pa, pb := cc.Packet{Size: 1082, Tel: a}, cc.Packet{Size: 1082, Tel: b}
		if i%2 == 0 {
			require.NoError(t, ticked.Enqueue(now, &pa, q, nil))
			require.NoError(t, plain.Enqueue(now, &pb, q, nil))
		} else {
			require.NoError(t, ticked.Dequeue(now, &pa, q, nil))
			require.NoError(t, plain.Dequeue(now, &pb, q, nil))
		}
		require.Equal(t, *b, *a, "event %d: the records", i)
		require.Equal(t, plain.AppendRegisters(nil), ticked.AppendRegisters(nil), "event %d", i)
		require.Equal(t, units.MaxTime, ticked.NextDeadline())
	}
	require.Equal(t, uint64(1500), ticked.State().Stamped)
}

// TestHPCCRegisters: fixed names and order, values within widths, tx_bytes
// 27 bits wide at the default 128 B unit and equal to State.
func TestHPCCRegisters(t *testing.T) {
	c := newTestHPCCPort(t, 3, 100*units.Gbps)
	require.NoError(t, c.Dequeue(2, &cc.Packet{Size: 1 << 27, Tel: hpccTel(t, &inttel.Header{})}, cc.Queue{Len: 7}, nil))
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
		empty, full := *hpccTel(t, &inttel.Header{}), *hpccTel(t, &inttel.Header{NHop: 5})
		i := 0
		allocs := testing.AllocsPerRun(1000, func() {
			now := units.Time(i) * units.Nanosecond
			tel := empty
			q := cc.Queue{Len: units.Bytes(i), Rate: 100 * units.Gbps, TxBytes: uint64(i) * 1000}
			p := cc.Packet{Size: 1000, Tel: &tel}
			if c.Enqueue(now, &p, q, &act) != nil || c.Dequeue(now, &p, q, &act) != nil || c.Timer(now, &act) != nil {
				t.Fatal("event refused")
			}
			if tel.Len != uint8(inttel.HeaderLen(1)) {
				t.Fatal("not stamped")
			}
			tel = full
			if c.Dequeue(now, &p, q, &act) != nil || tel != full {
				t.Fatal("path full refused or stamped")
			}
			i++
		})
		require.Zero(t, allocs)
		require.Equal(t, uint64(1001), c.State().PathFull) // AllocsPerRun's warm-up run and 1000
	}
}

// BenchmarkHPCCDequeue times the INT stamp at dequeue: one record pushed
// onto an empty stack and one count per call.
func BenchmarkHPCCDequeue(b *testing.B) {
	c := newTestHPCCPort(b, 7, 100*units.Gbps)
	var tel cc.Telemetry
	var act cc.Actions
	p := cc.Packet{Size: 1000, Tel: &tel}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		tel.Len, tel.Data[0], tel.Data[1] = inttel.PrefixLen, 0, 0 // the empty header
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
