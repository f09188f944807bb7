package cp_test

import (
	"encoding/binary"
	"hash/crc32"
	"math/rand"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cp"
	"github.com/hwcc/hwcc/hwtables"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

const (
	mercuryLine  = 40 * units.Gbps
	mercuryRTT   = 16 * units.Microsecond
	mercuryFrame = units.Bytes(1082)
	mercuryUS    = units.Microsecond
)

// newMercury returns a 4-port switch at 40 Gb/s with a 16 µs base RTT:
// C·baseRTT = 80 KB, threshold 40 KB.
func newMercury(t testing.TB) *cp.Mercury {
	s, err := cp.NewMercury(cp.MercuryPaper(4, mercuryLine, mercuryRTT))
	require.NoError(t, err)
	return s
}

func mercuryPkt(flow cc.FlowID, src, dst cc.NodeID) *cc.Packet {
	return &cc.Packet{Flow: flow, Src: src, Dst: dst, Payload: 1000, Size: mercuryFrame, Prio: 3}
}

func mercuryQ(n units.Bytes) cc.Queue { return cc.Queue{Len: n, Rate: mercuryLine} }

// mercuryFill enqueues n frames of flow at port out, the queue growing from
// start, and returns the actions of the last.
func mercuryFill(t *testing.T, s *cp.Mercury, now units.Time, out int, p *cc.Packet, start units.Bytes, n int) *cc.Actions {
	t.Helper()
	act := cc.NewActions(8)
	for i := range n {
		act.Reset()
		require.NoError(t, s.Enqueue(now, out, p, mercuryQ(start+units.Bytes(i+1)*mercuryFrame), act))
	}
	return act
}

// TestMercuryPortStateMachine: Algorithm 1 as docs/derivations.md states it, event by
// event: a PAUSE makes the port Undetermined; a RESUME with the queue
// above the threshold and rxByte ≤ C·Tpause keeps it Undetermined (PFC's
// backlog), with rxByte > C·Tpause makes it Determined (congested); below
// the threshold, Determined; an Undetermined port's check after T keeps it
// while the queue is above the threshold and shrank, else Determined.
func TestMercuryPortStateMachine(t *testing.T) {
	s := newMercury(t)
	st := func() cp.MercuryPort { p, _ := s.Port(1); return p }
	p := mercuryPkt(1, 10, 20)
	require.Equal(t, cp.MercuryDetermined, st().State)

	// 60 frames (65 KB, above the 40 KB threshold) queue, then a PAUSE.
	mercuryFill(t, s, mercuryUS, 1, p, 0, 60)
	require.NoError(t, s.Pause(2*mercuryUS, 1, 3, true, nil))
	require.Equal(t, cp.MercuryUndetermined, st().State)
	require.True(t, st().Paused)
	// 10 µs of pause at 40 Gb/s could drain 50 KB: 30 frames (32.5 KB)
	// arriving is PFC's backlog.
	mercuryFill(t, s, 5*mercuryUS, 1, p, 60*mercuryFrame, 30)
	require.Equal(t, uint32(30*mercuryFrame), st().RxBytes)
	require.NoError(t, s.Pause(12*mercuryUS, 1, 3, false, nil))
	require.Equal(t, 10*mercuryUS, st().TPause)
	require.Equal(t, cp.MercuryUndetermined, st().State, "rxByte 32.5 KB ≤ C·Tpause 50 KB")

	// The check after T (10 µs): the queue above the threshold and
	// shrinking keeps it Undetermined; T is re-armed.
	act := cc.NewActions(8)
	require.NoError(t, s.Dequeue(15*mercuryUS, 1, p, mercuryQ(89*mercuryFrame), act))
	require.Equal(t, cp.MercuryUndetermined, st().State, "T not expired")
	require.NoError(t, s.Dequeue(22*mercuryUS, 1, p, mercuryQ(88*mercuryFrame), act))
	require.Equal(t, cp.MercuryUndetermined, st().State, "above the threshold and shrank from 90 to 88 frames")
	// At the next expiry the queue has grown: Determined.
	mercuryFill(t, s, 25*mercuryUS, 1, p, 88*mercuryFrame, 2)
	require.NoError(t, s.Dequeue(33*mercuryUS, 1, p, mercuryQ(89*mercuryFrame), act))
	require.Equal(t, cp.MercuryDetermined, st().State, "the queue grew during T")

	// A second pause with 60 frames (65 KB > 50 KB) arriving in 10 µs:
	// congestion, Determined at the RESUME.
	require.NoError(t, s.Pause(40*mercuryUS, 1, 3, true, nil))
	mercuryFill(t, s, 45*mercuryUS, 1, p, 89*mercuryFrame, 60)
	require.NoError(t, s.Pause(50*mercuryUS, 1, 3, false, nil))
	require.Equal(t, cp.MercuryDetermined, st().State, "rxByte 65 KB > C·Tpause 50 KB")

	// A pause of another priority, or a RESUME with the queue below the
	// threshold: Determined.
	require.NoError(t, s.Pause(51*mercuryUS, 1, 5, true, nil))
	require.False(t, st().Paused)
	for range 149 {
		require.NoError(t, s.Dequeue(52*mercuryUS, 1, p, mercuryQ(0), act))
	}
	require.NoError(t, s.Pause(53*mercuryUS, 1, 3, true, nil))
	require.NoError(t, s.Pause(60*mercuryUS, 1, 3, false, nil))
	require.Equal(t, cp.MercuryDetermined, st().State, "Q_Length 0 at the RESUME")
	require.Equal(t, uint64(3), s.Pauses())
}

// TestMercuryCNPsOnlyAtDeterminedPorts: a packet joining a queue above the
// threshold at a Determined port makes its flow's entry send one CNP, with
// the window C·baseRTT·data_f/Σdata; at an Undetermined port, none.
func TestMercuryCNPsOnlyAtDeterminedPorts(t *testing.T) {
	s := newMercury(t)
	a, b := mercuryPkt(1, 10, 20), mercuryPkt(2, 11, 20)
	// 30 frames of a and 7 of b: the 37th (40.03 KB) crosses 40 KB.
	act := mercuryFill(t, s, mercuryUS, 0, a, 0, 30)
	require.Zero(t, act.Len(), "below the threshold")
	act = mercuryFill(t, s, mercuryUS, 0, b, 30*mercuryFrame, 6)
	require.Zero(t, act.Len(), "36 frames, 38.95 KB: below the threshold")
	act = mercuryFill(t, s, mercuryUS, 0, b, 36*mercuryFrame, 1)
	require.Equal(t, 1, act.Len(), "b's 7th mercuryFrame: queue 40.03 KB > 40 KB")
	x := act.At(0)
	require.Equal(t, cc.ToSource, x.To)
	require.Equal(t, cc.FeedbackCNP, x.Feedback.Kind)
	require.Equal(t, cc.FlowID(2), x.Feedback.Flow)
	// b holds 7 of the 37 frames: 80 KB·7/37 = 15.1 KB, within the
	// reciprocal table's +0.79 %/−0.10 % (Σdata in 64-byte cells: 40034 B
	// is 625.5 cells, rounded up to 626, 0.08 % more) and the final
	// truncations.
	w := wire.MercuryWindow{}.Get(&x.Feedback.Data)
	exact := float64(units.BytesIn(mercuryLine, mercuryRTT)) * 7 / 37
	require.InDelta(t, exact, float64(w), exact*0.0079+64)
	// The next frame of a congested flow within 50 µs sends nothing.
	act = mercuryFill(t, s, 10*mercuryUS, 0, b, 37*mercuryFrame, 1)
	require.Zero(t, act.Len(), "one CNP per entry per 50 µs")
	act = mercuryFill(t, s, 51*mercuryUS, 0, b, 38*mercuryFrame, 1)
	require.Equal(t, 1, act.Len(), "50 µs later, another")

	// Undetermined: no CNP, however long the queue.
	require.NoError(t, s.Pause(60*mercuryUS, 0, 3, true, nil))
	act = mercuryFill(t, s, 200*mercuryUS, 0, a, 39*mercuryFrame, 50)
	require.Zero(t, act.Len(), "a victim port sends no window")
	require.Equal(t, uint64(2), s.CNPs())
}

// TestMercuryWindowBounds: over random tables, the window lies in [MercuryCellBytes,
// C·baseRTT] and within the reciprocal table's bound of the exact
// C·baseRTT·data_f/Σdata (hwtables' exhaustive test proves the bound of
// one lookup: +0.787 %, −0.098 %; Σdata's rounding to cells adds at most
// 64 B / Σdata; the truncations 1 B and the final division by 64 one
// cell).
func TestMercuryWindowBounds(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	bdp := float64(units.BytesIn(mercuryLine, mercuryRTT))
	b := hwtables.DefaultReciprocal().Bound()
	for range 2000 {
		s := newMercury(t)
		act := cc.NewActions(8)
		n := 1 + rng.Intn(40)
		sizes := make([]units.Bytes, n)
		var sum units.Bytes
		for i := range sizes {
			sizes[i] = units.Bytes(64 + rng.Intn(9000))
		}
		// Every flow but the last queues its bytes first, below or above
		// the threshold; the last frame's CNP carries the window.
		for i, sz := range sizes {
			p := &cc.Packet{Flow: cc.FlowID(i), Src: cc.NodeID(i), Dst: 99, Size: sz, Prio: 3}
			sum += sz
			act.Reset()
			require.NoError(t, s.Enqueue(units.Time(i+1), 2, p, mercuryQ(sum), act))
		}
		if sum <= 40*units.KB || act.Len() == 0 {
			continue
		}
		last := sizes[n-1]
		if s.Entry(2, cc.NodeID(n-1), 99) != uint32(last) {
			continue // a hash collision merged two flows: their sum is the window's
		}
		d := act.At(0).Feedback.Data
		w := float64(wire.MercuryWindow{}.Get(&d))
		exact := bdp * float64(last) / float64(sum)
		require.LessOrEqual(t, w, bdp)
		require.GreaterOrEqual(t, w, float64(cp.MercuryCellBytes))
		hi := exact * (1 + b.Over)
		lo := exact*(1-b.Under)*float64(sum)/float64(sum+cp.MercuryCellBytes) - 2*cp.MercuryCellBytes
		require.LessOrEqual(t, w, max(hi, float64(cp.MercuryCellBytes)), "sum %d, flow %d", sum, last)
		require.GreaterOrEqual(t, w, min(lo, bdp), "sum %d, flow %d", sum, last)
	}
}

// TestMercuryTableMatchesQueue: over a random sequence of arrivals and
// departures of many flows at one port (a FIFO model), Σdata and every
// flow's entry equal the bytes the model holds, and an entry at zero is
// free; a departure beyond its entry is refused and changes nothing.
func TestMercuryTableMatchesQueue(t *testing.T) {
	s := newMercury(t)
	rng := rand.New(rand.NewSource(9))
	type frameOf struct {
		src  cc.NodeID
		size units.Bytes
	}
	var fifo []frameOf
	held := map[cc.NodeID]uint32{}
	var total units.Bytes
	act := cc.NewActions(8)
	now := units.Time(0)
	for range 20000 {
		now += units.Time(rng.Intn(200)) * units.Nanosecond
		act.Reset()
		if len(fifo) == 0 || rng.Intn(2) == 0 {
			f := frameOf{cc.NodeID(rng.Intn(50)), units.Bytes(64 + rng.Intn(1500))}
			fifo = append(fifo, f)
			total += f.size
			held[f.src] += uint32(f.size)
			require.NoError(t, s.Enqueue(now, 3, &cc.Packet{Src: f.src, Dst: 7, Size: f.size, Prio: 3}, mercuryQ(total), act))
		} else {
			f := fifo[0]
			fifo = fifo[1:]
			total -= f.size
			held[f.src] -= uint32(f.size)
			require.NoError(t, s.Dequeue(now, 3, &cc.Packet{Src: f.src, Dst: 7, Size: f.size, Prio: 3}, mercuryQ(total), act))
		}
		pt, _ := s.Port(3)
		require.Equal(t, uint32(total), pt.Sum)
	}
	// Entries (flows that collide share one: compare sums per slot).
	slots := map[uint32]uint32{}
	for src, b := range held {
		slots[cp.MercuryFlowSlot(s, src, 7)] += b
	}
	for src := range held {
		require.Equal(t, slots[cp.MercuryFlowSlot(s, src, 7)], s.Entry(3, src, 7))
	}
	before := s.AppendRegisters(nil)
	err := s.Dequeue(now, 3, &cc.Packet{Src: 1000, Dst: 7, Size: 100, Prio: 3}, mercuryQ(0), act)
	require.ErrorIs(t, err, cp.ErrMercuryTable)
	require.Equal(t, before, s.AppendRegisters(nil))
}

// TestMercuryFlowHash: the flow hash is CRC-32C of (source, destination), 8
// bytes big-endian, as hash/crc32 computes it.
func TestMercuryFlowHash(t *testing.T) {
	tab := crc32.MakeTable(crc32.Castagnoli)
	rng := rand.New(rand.NewSource(1))
	for range 1000 {
		src, dst := cc.NodeID(rng.Uint32()), cc.NodeID(rng.Uint32())
		var k [8]byte
		binary.BigEndian.PutUint32(k[:4], uint32(src))
		binary.BigEndian.PutUint32(k[4:], uint32(dst))
		require.Equal(t, crc32.Checksum(k[:], tab), cp.MercuryFlowHash(src, dst))
	}
}

// TestMercuryRefusals: out-of-range configuration and events.
func TestMercuryRefusals(t *testing.T) {
	for _, c := range []func(*cp.MercuryConfig){
		func(c *cp.MercuryConfig) { c.Ports = 0 },
		func(c *cp.MercuryConfig) { c.Rates = c.Rates[:1] },
		func(c *cp.MercuryConfig) { c.Threshold = 0 },
		func(c *cp.MercuryConfig) { c.TableBits = 17 },
		func(c *cp.MercuryConfig) { c.Window.Offset = 13 },
		func(c *cp.MercuryConfig) { c.BaseRTT = 2 * units.Second },
		func(c *cp.MercuryConfig) { c.Prio = 8 },
	} {
		cfg := cp.MercuryPaper(4, mercuryLine, mercuryRTT)
		c(&cfg)
		_, err := cp.NewMercury(cfg)
		require.ErrorIs(t, err, cc.ErrConfig)
	}
	s := newMercury(t)
	act := cc.NewActions(8)
	require.ErrorIs(t, s.Enqueue(mercuryUS, 4, mercuryPkt(1, 1, 2), mercuryQ(mercuryFrame), act), cp.ErrMercuryPort)
	require.Error(t, s.Enqueue(mercuryUS, 0, nil, mercuryQ(mercuryFrame), act))
	require.NoError(t, s.Timer(2*mercuryUS, act))
	require.ErrorIs(t, s.Enqueue(mercuryUS, 0, mercuryPkt(1, 1, 2), mercuryQ(mercuryFrame), act), cc.ErrTimeOrder)
	require.Zero(t, act.Len())
}

// TestMercuryQueueRateRefused: with no configured Rates the window's C is the
// queue's reported rate. A 3 ms base RTT is allowed (10 Tb/s × 3 ms =
// 3.75 GB < 2^32 B); a queue reporting 20 Tb/s would make C·baseRTT
// 7.5 GB, past the window's 32 bits (it wrapped to 7.5e9 − 2^32 =
// 3 205 032 704 B), and is refused, as is a negative rate. At 10 Tb/s a
// lone flow of 9000 B (141 cells, 9024 B) gets 3.75e9·9000/9024 =
// 3.740e9 B within the table's −0.10 % (≥ 3.736e9 B), capped at
// C·baseRTT = 3.75e9 B: no wrap.
func TestMercuryQueueRateRefused(t *testing.T) {
	cfg := cp.MercuryPaper(1, mercuryLine, 3*units.Millisecond)
	cfg.Rates = nil
	p := &cc.Packet{Flow: 1, Src: 1, Dst: 2, Size: 9000, Prio: 3}
	for _, r := range []units.Rate{20 * units.Tbps, -units.Gbps} {
		s, err := cp.NewMercury(cfg)
		require.NoError(t, err)
		act := cc.NewActions(4)
		before := s.AppendRegisters(nil)
		err = s.Enqueue(mercuryUS, 0, p, cc.Queue{Len: 1 << 31, Rate: r}, act)
		require.ErrorIs(t, err, cc.ErrEvent, "rate %v", r)
		require.Zero(t, act.Len())
		require.Equal(t, before, s.AppendRegisters(nil))
	}
	s, err := cp.NewMercury(cfg)
	require.NoError(t, err)
	act := cc.NewActions(4)
	require.NoError(t, s.Enqueue(mercuryUS, 0, p, cc.Queue{Len: 1 << 31, Rate: cp.MercuryMaxRate}, act))
	require.Equal(t, 1, act.Len())
	d := act.At(0).Feedback.Data
	w := wire.MercuryWindow{}.Get(&d)
	require.LessOrEqual(t, w, uint32(3_750_000_000))
	require.GreaterOrEqual(t, w, uint32(3_736_000_000))
}

// TestMercuryLastRateIsARegister: with Rates nil the resume test's C is the rate
// the port's latest queue reported, state carried from one event to the
// next, so it is a register: two switches fed the same packets at 40 and
// at 10 Gb/s differ in last_rate (and nowhere else) and then decide the
// same RESUME differently (30 frames, 32.5 KB, in a 10 µs pause: at most
// C·Tpause = 50 KB at 40 Gb/s, PFC's backlog, Undetermined; more than
// 12.5 KB at 10 Gb/s, congestion, Determined).
func TestMercuryLastRateIsARegister(t *testing.T) {
	p := mercuryPkt(1, 10, 20)
	var regs [2][]cc.Register
	var states [2]cp.MercuryPortState
	for k, rate := range []units.Rate{mercuryLine, 10 * units.Gbps} {
		c := cp.MercuryPaper(4, mercuryLine, mercuryRTT)
		c.Rates = nil
		s, err := cp.NewMercury(c)
		require.NoError(t, err)
		act := cc.NewActions(8)
		enq := func(now units.Time, n int, start units.Bytes) {
			for i := range n {
				act.Reset()
				require.NoError(t, s.Enqueue(now, 1, p, cc.Queue{Len: start + units.Bytes(i+1)*mercuryFrame, Rate: rate}, act))
			}
		}
		enq(mercuryUS, 60, 0)
		regs[k] = s.AppendRegisters(nil)
		require.NoError(t, s.Pause(2*mercuryUS, 1, 3, true, nil))
		enq(5*mercuryUS, 30, 60*mercuryFrame)
		require.NoError(t, s.Pause(12*mercuryUS, 1, 3, false, nil))
		pt, _ := s.Port(1)
		states[k] = pt.State
	}
	var diff []string
	for i := range regs[0] {
		if regs[0][i] != regs[1][i] {
			diff = append(diff, regs[0][i].Name)
		}
	}
	require.Equal(t, []string{"port1.last_rate"}, diff, "the enqueues were on port 1")
	require.Equal(t, [2]cp.MercuryPortState{cp.MercuryUndetermined, cp.MercuryDetermined}, states)
}

// mercuryRound is one packet through a congested Determined port: it joins
// a queue of about 60 KB (above the 40 KB threshold: a CNP when its entry
// is due) and the head leaves.
func mercuryRound(s *cp.Mercury, act *cc.Actions, now units.Time, i int) error {
	act.Reset()
	p := cc.Packet{Flow: cc.FlowID(i & 15), Src: cc.NodeID(i & 15), Dst: 99, Size: mercuryFrame, Prio: 3}
	if err := s.Enqueue(now, 1, &p, mercuryQ(60*mercuryFrame), act); err != nil {
		return err
	}
	return s.Dequeue(now, 1, &p, mercuryQ(59*mercuryFrame), act)
}

func mercuryWarm(t testing.TB) (*cp.Mercury, *cc.Actions) {
	s := newMercury(t)
	act := cc.NewActions(8)
	for i := range 59 {
		p := cc.Packet{Src: cc.NodeID(i & 15), Dst: 99, Size: mercuryFrame, Prio: 3}
		act.Reset()
		require.NoError(t, s.Enqueue(0, 1, &p, mercuryQ(units.Bytes(i+1)*mercuryFrame), act))
	}
	return s, act
}

// TestMercuryNoAllocs: the switch's events allocate nothing.
func TestMercuryNoAllocs(t *testing.T) {
	s, act := mercuryWarm(t)
	now := units.Time(0)
	i := 0
	n := testing.AllocsPerRun(1000, func() {
		now += 100 * units.Nanosecond
		i++
		if err := mercuryRound(s, act, now, i); err != nil {
			panic(err)
		}
	})
	require.Zero(t, n, "Switch")
	require.Positive(t, s.CNPs())
}

// BenchmarkMercury: one enqueue and one dequeue at a congested port (a CNP
// every 50 µs per flow entry).
func BenchmarkMercury(b *testing.B) {
	s, act := mercuryWarm(b)
	now := units.Time(0)
	b.ReportAllocs()
	for i := range b.N {
		now += 100 * units.Nanosecond
		if err := mercuryRound(s, act, now, i); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzMercury drives a Mercury switch with an event sequence read from the input,
// 8 bytes per event: no panic, typed errors, a refused event changes no
// register and decides nothing, Σdata of each port equals the bytes its
// model FIFO holds, and no CNP leaves an Undetermined port.
func FuzzMercury(f *testing.F) {
	f.Add([]byte{0, 0, 1, 2, 0, 10, 0, 1, 2, 0, 1, 2, 0, 10, 0, 1, 3, 0, 0, 0, 0, 0, 0, 5})
	f.Add(make([]byte, 64))
	f.Fuzz(func(t *testing.T, in []byte) {
		s, err := cp.NewMercury(cp.MercuryPaper(2, 40*units.Gbps, 16*units.Microsecond))
		if err != nil {
			t.Fatal(err)
		}
		type fr struct {
			src  cc.NodeID
			size units.Bytes
		}
		var fifo [2][]fr
		var held [2]units.Bytes
		act := cc.NewActions(8)
		now := units.Time(0)
		for len(in) >= 8 {
			ev := in[:8]
			in = in[8:]
			at := fuzzAt(now, ev)
			port := int(ev[1] % 3) // 2 is out of range
			size := units.Bytes(binary.BigEndian.Uint16(ev[2:])%9000) + 1
			src := cc.NodeID(ev[4] % 6)
			before := s.AppendRegisters(nil)
			pstate, _ := s.Port(port)
			act.Reset()
			var err error
			switch ev[0] & 3 {
			case 0, 1: // enqueue
				var qlen units.Bytes
				if port < 2 {
					qlen = held[port] + size
				}
				err = s.Enqueue(at, port, &cc.Packet{Src: src, Dst: 9, Size: size, Prio: 3}, cc.Queue{Len: qlen, Rate: 40 * units.Gbps}, act)
				if err == nil && port < 2 {
					fifo[port] = append(fifo[port], fr{src, size})
					held[port] += size
				}
			case 2: // dequeue the head (or a bogus packet)
				if port < 2 && len(fifo[port]) > 0 && ev[5]&1 == 0 {
					h := fifo[port][0]
					err = s.Dequeue(at, port, &cc.Packet{Src: h.src, Dst: 9, Size: h.size, Prio: 3}, cc.Queue{Len: held[port] - h.size}, act)
					if err == nil {
						fifo[port] = fifo[port][1:]
						held[port] -= h.size
					}
				} else {
					// More than the port holds: always refused.
					var over units.Bytes
					if port < 2 {
						over = held[port]
					}
					err = s.Dequeue(at, port, &cc.Packet{Src: src, Dst: 9, Size: over + 1, Prio: 3}, cc.Queue{}, act)
				}
			default:
				err = s.Pause(at, port, ev[5]%9, ev[4]&1 == 0, act)
			}
			if err != nil {
				if !cc.Typed(err) {
					t.Fatalf("untyped error %v", err)
				}
				if !slices.Equal(before, s.AppendRegisters(nil)) || act.Len() != 0 {
					t.Fatalf("refused event %x changed the switch", ev)
				}
				continue
			}
			now = max(now, at)
			if act.Len() > 0 && pstate.State == cp.MercuryUndetermined {
				t.Fatalf("a CNP from an Undetermined port")
			}
			for p := range 2 {
				if pt, _ := s.Port(p); units.Bytes(pt.Sum) != held[p] {
					t.Fatalf("port %d: Σdata %d, queue %v", p, pt.Sum, held[p])
				}
			}
		}
	})
}

// TestMercuryRules: cc's rules 3, 4 and 8 at the switch. Rule 3: Enqueue
// may send a CNP, so it refuses a nil *cc.Actions with cc.ErrNoActions,
// even for a packet of another priority, changing nothing; Arrive,
// Dequeue, Pause, Message and Timer never decide and take nil. Rule 4: the
// switch has no timer (T is checked by the first Dequeue after it), so a
// twin given Timer calls between the events makes the same CNPs and holds
// the same registers but the time. Rule 8: Mercury's switches exchange no
// messages, so a Message of any kind is taken, decides nothing and
// changes no register but the time and unused_feedback, which counts it.
func TestMercuryRules(t *testing.T) {
	s := newMercury(t)
	p := mercuryPkt(1, 10, 20)
	mercuryFill(t, s, mercuryUS, 1, p, 0, 50) // above the threshold: CNPs due
	before := s.AppendRegisters(nil)
	other := *p
	other.Prio = 5
	for _, pk := range []*cc.Packet{p, &other} {
		err := s.Enqueue(2*mercuryUS, 1, pk, mercuryQ(51*mercuryFrame), nil)
		var ee *cc.EventError
		require.ErrorAs(t, err, &ee)
		require.ErrorIs(t, err, cc.ErrNoActions)
		require.Equal(t, "cp.Mercury", ee.Part)
		require.Equal(t, before, s.AppendRegisters(nil))
	}
	require.NoError(t, s.Arrive(3*mercuryUS, 0, p, nil))
	require.NoError(t, s.Dequeue(3*mercuryUS, 1, p, mercuryQ(49*mercuryFrame), nil))
	require.NoError(t, s.Pause(3*mercuryUS, 1, 3, true, nil))
	require.NoError(t, s.Timer(3*mercuryUS, nil))

	// Rule 8.
	regs := func() []cc.Register { return s.AppendRegisters(nil) }
	for i, k := range []cc.FeedbackKind{cc.FeedbackCNP, cc.FeedbackCredit, cc.FeedbackRate, cc.FeedbackUser} {
		b := regs()
		act := cc.NewActions(4)
		now := units.Time(4+i) * mercuryUS
		require.NoError(t, s.Message(now, i%2-1, &cc.Feedback{Kind: k, Flow: 1}, act))
		require.Zero(t, act.Len(), k.String())
		a := regs()
		require.Equal(t, cc.UnusedRegister, a[4].Name)
		require.Equal(t, uint64(i+1), a[4].Value, k.String())
		require.Equal(t, uint64(i+1), s.Unused())
		require.Equal(t, b[1:4], a[1:4], k.String())
		require.Equal(t, b[5:], a[5:], k.String())
		require.Equal(t, cc.TimeReg("now", now), a[0])
	}
	require.NoError(t, s.Message(8*mercuryUS, 0, &cc.Feedback{Kind: cc.FeedbackAck}, nil), "Message takes nil")

	// Rule 4.
	x, y := newMercury(t), newMercury(t)
	rng := rand.New(rand.NewSource(3))
	var fifo []*cc.Packet
	held := units.Bytes(0)
	actX, actY := cc.NewActions(4), cc.NewActions(4)
	cnps := 0
	for i := range 5000 {
		now := units.Time(i+1) * 200 * units.Nanosecond
		if rng.Intn(3) == 0 {
			require.NoError(t, x.Timer(now-1, actX))
		}
		actX.Reset()
		actY.Reset()
		switch k := rng.Intn(10); {
		case k < 5 || len(fifo) == 0:
			pk := mercuryPkt(cc.FlowID(i%7), cc.NodeID(i%7), 20)
			fifo = append(fifo, pk)
			held += pk.Size
			require.NoError(t, x.Enqueue(now, 2, pk, mercuryQ(held), actX))
			require.NoError(t, y.Enqueue(now, 2, pk, mercuryQ(held), actY))
		case k < 9:
			pk := fifo[0]
			fifo = fifo[1:]
			held -= pk.Size
			require.NoError(t, x.Dequeue(now, 2, pk, mercuryQ(held), actX))
			require.NoError(t, y.Dequeue(now, 2, pk, mercuryQ(held), actY))
		default:
			paused := rng.Intn(2) == 0
			require.NoError(t, x.Pause(now, 2, 3, paused, actX))
			require.NoError(t, y.Pause(now, 2, 3, paused, actY))
		}
		require.Equal(t, actY.All(), actX.All(), "event %d", i)
		require.Equal(t, y.AppendRegisters(nil), x.AppendRegisters(nil), "event %d", i)
		cnps += actX.Len()
	}
	require.Positive(t, cnps)
}

// fuzzAt returns the time of fuzzed event ev (8 bytes): now plus
// ev[6:8] big-endian in units of 10 ns, minus when ev[0]'s top bit is set
// (an event back in time, which the part must refuse).
func fuzzAt(now units.Time, ev []byte) units.Time {
	step := units.Time(binary.BigEndian.Uint16(ev[6:])) * 10 * units.Nanosecond
	if ev[0]&0x80 != 0 {
		step = -step
	}
	return now + step
}
