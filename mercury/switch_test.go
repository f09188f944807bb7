package mercury_test

import (
	"encoding/binary"
	"hash/crc32"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/hwtables"
	"github.com/hwcc/hwcc/mercury"
	"github.com/hwcc/hwcc/units"
)

const (
	line40 = 40 * units.Gbps
	rtt16  = 16 * units.Microsecond
	frame  = units.Bytes(1082)
	us     = units.Microsecond
)

// newSwitch returns a 4-port switch at 40 Gb/s with a 16 µs base RTT:
// C·baseRTT = 80 KB, threshold 40 KB.
func newSwitch(t testing.TB) *mercury.Switch {
	s, err := mercury.NewSwitch(mercury.PaperSwitch(4, line40, rtt16))
	require.NoError(t, err)
	return s
}

func pkt(flow cc.FlowID, src, dst cc.NodeID) *cc.Packet {
	return &cc.Packet{Flow: flow, Src: src, Dst: dst, Payload: 1000, Size: frame, Prio: 3}
}

func q(n units.Bytes) cc.Queue { return cc.Queue{Len: n, Rate: line40} }

// fill enqueues n frames of flow at port out, the queue growing from
// start, and returns the actions of the last.
func fill(t *testing.T, s *mercury.Switch, now units.Time, out int, p *cc.Packet, start units.Bytes, n int) *cc.Actions {
	t.Helper()
	act := cc.NewActions(8)
	for i := range n {
		act.Reset()
		require.NoError(t, s.Enqueue(now, out, p, q(start+units.Bytes(i+1)*frame), act))
	}
	return act
}

// TestPortStateMachine: Algorithm 1 as docs/derivations.md states it, event by
// event: a PAUSE makes the port Undetermined; a RESUME with the queue
// above the threshold and rxByte ≤ C·Tpause keeps it Undetermined (PFC's
// backlog), with rxByte > C·Tpause makes it Determined (congested); below
// the threshold, Determined; an Undetermined port's check after T keeps it
// while the queue is above the threshold and shrank, else Determined.
func TestPortStateMachine(t *testing.T) {
	s := newSwitch(t)
	st := func() mercury.Port { p, _ := s.Port(1); return p }
	p := pkt(1, 10, 20)
	require.Equal(t, mercury.Determined, st().State)

	// 60 frames (65 KB, above the 40 KB threshold) queue, then a PAUSE.
	fill(t, s, us, 1, p, 0, 60)
	require.NoError(t, s.Pause(2*us, 1, 3, true, nil))
	require.Equal(t, mercury.Undetermined, st().State)
	require.True(t, st().Paused)
	// 10 µs of pause at 40 Gb/s could drain 50 KB: 30 frames (32.5 KB)
	// arriving is PFC's backlog.
	fill(t, s, 5*us, 1, p, 60*frame, 30)
	require.Equal(t, uint32(30*frame), st().RxBytes)
	require.NoError(t, s.Pause(12*us, 1, 3, false, nil))
	require.Equal(t, 10*us, st().TPause)
	require.Equal(t, mercury.Undetermined, st().State, "rxByte 32.5 KB ≤ C·Tpause 50 KB")

	// The check after T (10 µs): the queue above the threshold and
	// shrinking keeps it Undetermined; T is re-armed.
	act := cc.NewActions(8)
	require.NoError(t, s.Dequeue(15*us, 1, p, q(89*frame), act))
	require.Equal(t, mercury.Undetermined, st().State, "T not expired")
	require.NoError(t, s.Dequeue(22*us, 1, p, q(88*frame), act))
	require.Equal(t, mercury.Undetermined, st().State, "above the threshold and shrank from 90 to 88 frames")
	// At the next expiry the queue has grown: Determined.
	fill(t, s, 25*us, 1, p, 88*frame, 2)
	require.NoError(t, s.Dequeue(33*us, 1, p, q(89*frame), act))
	require.Equal(t, mercury.Determined, st().State, "the queue grew during T")

	// A second pause with 60 frames (65 KB > 50 KB) arriving in 10 µs:
	// congestion, Determined at the RESUME.
	require.NoError(t, s.Pause(40*us, 1, 3, true, nil))
	fill(t, s, 45*us, 1, p, 89*frame, 60)
	require.NoError(t, s.Pause(50*us, 1, 3, false, nil))
	require.Equal(t, mercury.Determined, st().State, "rxByte 65 KB > C·Tpause 50 KB")

	// A pause of another priority, or a RESUME with the queue below the
	// threshold: Determined.
	require.NoError(t, s.Pause(51*us, 1, 5, true, nil))
	require.False(t, st().Paused)
	for range 149 {
		require.NoError(t, s.Dequeue(52*us, 1, p, q(0), act))
	}
	require.NoError(t, s.Pause(53*us, 1, 3, true, nil))
	require.NoError(t, s.Pause(60*us, 1, 3, false, nil))
	require.Equal(t, mercury.Determined, st().State, "Q_Length 0 at the RESUME")
	require.Equal(t, uint64(3), s.Pauses())
}

// TestCNPsOnlyAtDeterminedPorts: a packet joining a queue above the
// threshold at a Determined port makes its flow's entry send one CNP, with
// the window C·baseRTT·data_f/Σdata; at an Undetermined port, none.
func TestCNPsOnlyAtDeterminedPorts(t *testing.T) {
	s := newSwitch(t)
	a, b := pkt(1, 10, 20), pkt(2, 11, 20)
	// 30 frames of a and 7 of b: the 37th (40.03 KB) crosses 40 KB.
	act := fill(t, s, us, 0, a, 0, 30)
	require.Zero(t, act.Len(), "below the threshold")
	act = fill(t, s, us, 0, b, 30*frame, 6)
	require.Zero(t, act.Len(), "36 frames, 38.95 KB: below the threshold")
	act = fill(t, s, us, 0, b, 36*frame, 1)
	require.Equal(t, 1, act.Len(), "b's 7th frame: queue 40.03 KB > 40 KB")
	x := act.At(0)
	require.Equal(t, cc.ToSource, x.To)
	require.Equal(t, cc.FeedbackCNP, x.Feedback.Kind)
	require.Equal(t, cc.FlowID(2), x.Feedback.Flow)
	// b holds 7 of the 37 frames: 80 KB·7/37 = 15.1 KB, within the
	// reciprocal table's +0.79 %/−0.10 % (Σdata in 64-byte cells: 40034 B
	// is 625.5 cells, rounded up to 626, 0.08 % more) and the final
	// truncations.
	w := mercury.Window{}.Get(&x.Feedback.Data)
	exact := float64(units.BytesIn(line40, rtt16)) * 7 / 37
	require.InDelta(t, exact, float64(w), exact*0.0079+64)
	// The next frame of a congested flow within 50 µs sends nothing.
	act = fill(t, s, 10*us, 0, b, 37*frame, 1)
	require.Zero(t, act.Len(), "one CNP per entry per 50 µs")
	act = fill(t, s, 51*us, 0, b, 38*frame, 1)
	require.Equal(t, 1, act.Len(), "50 µs later, another")

	// Undetermined: no CNP, however long the queue.
	require.NoError(t, s.Pause(60*us, 0, 3, true, nil))
	act = fill(t, s, 200*us, 0, a, 39*frame, 50)
	require.Zero(t, act.Len(), "a victim port sends no window")
	require.Equal(t, uint64(2), s.CNPs())
}

// TestWindowBounds: over random tables, the window lies in [CellBytes,
// C·baseRTT] and within the reciprocal table's bound of the exact
// C·baseRTT·data_f/Σdata (hwtables' exhaustive test proves the bound of
// one lookup: +0.787 %, −0.098 %; Σdata's rounding to cells adds at most
// 64 B / Σdata; the truncations 1 B and the final division by 64 one
// cell).
func TestWindowBounds(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	bdp := float64(units.BytesIn(line40, rtt16))
	b := hwtables.DefaultReciprocal().Bound()
	for range 2000 {
		s := newSwitch(t)
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
			require.NoError(t, s.Enqueue(units.Time(i+1), 2, p, q(sum), act))
		}
		if sum <= 40*units.KB || act.Len() == 0 {
			continue
		}
		last := sizes[n-1]
		if mercury.FlowEntry(s, 2, cc.NodeID(n-1), 99) != uint32(last) {
			continue // a hash collision merged two flows: their sum is the window's
		}
		d := act.At(0).Feedback.Data
		w := float64(mercury.Window{}.Get(&d))
		exact := bdp * float64(last) / float64(sum)
		require.LessOrEqual(t, w, bdp)
		require.GreaterOrEqual(t, w, float64(mercury.CellBytes))
		hi := exact * (1 + b.Over)
		lo := exact*(1-b.Under)*float64(sum)/float64(sum+mercury.CellBytes) - 2*mercury.CellBytes
		require.LessOrEqual(t, w, max(hi, float64(mercury.CellBytes)), "sum %d, flow %d", sum, last)
		require.GreaterOrEqual(t, w, min(lo, bdp), "sum %d, flow %d", sum, last)
	}
}

// TestTableMatchesQueue: over a random sequence of arrivals and
// departures of many flows at one port (a FIFO model), Σdata and every
// flow's entry equal the bytes the model holds, and an entry at zero is
// free; a departure beyond its entry is refused and changes nothing.
func TestTableMatchesQueue(t *testing.T) {
	s := newSwitch(t)
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
			require.NoError(t, s.Enqueue(now, 3, &cc.Packet{Src: f.src, Dst: 7, Size: f.size, Prio: 3}, q(total), act))
		} else {
			f := fifo[0]
			fifo = fifo[1:]
			total -= f.size
			held[f.src] -= uint32(f.size)
			require.NoError(t, s.Dequeue(now, 3, &cc.Packet{Src: f.src, Dst: 7, Size: f.size, Prio: 3}, q(total), act))
		}
		pt, _ := s.Port(3)
		require.Equal(t, uint32(total), pt.Sum)
	}
	// Entries (flows that collide share one: compare sums per slot).
	slots := map[uint32]uint32{}
	for src, b := range held {
		slots[mercury.FlowSlot(s, src, 7)] += b
	}
	for src := range held {
		require.Equal(t, slots[mercury.FlowSlot(s, src, 7)], mercury.FlowEntry(s, 3, src, 7))
	}
	before := s.AppendRegisters(nil)
	err := s.Dequeue(now, 3, &cc.Packet{Src: 1000, Dst: 7, Size: 100, Prio: 3}, q(0), act)
	require.ErrorIs(t, err, mercury.ErrTable)
	require.Equal(t, before, s.AppendRegisters(nil))
}

// TestFlowHash: the flow hash is CRC-32C of (source, destination), 8
// bytes big-endian, as hash/crc32 computes it.
func TestFlowHash(t *testing.T) {
	tab := crc32.MakeTable(crc32.Castagnoli)
	rng := rand.New(rand.NewSource(1))
	for range 1000 {
		src, dst := cc.NodeID(rng.Uint32()), cc.NodeID(rng.Uint32())
		var k [8]byte
		binary.BigEndian.PutUint32(k[:4], uint32(src))
		binary.BigEndian.PutUint32(k[4:], uint32(dst))
		require.Equal(t, crc32.Checksum(k[:], tab), mercury.FlowHash(src, dst))
	}
}

// TestSwitchRefusals: out-of-range configuration and events.
func TestSwitchRefusals(t *testing.T) {
	for _, c := range []func(*mercury.SwitchConfig){
		func(c *mercury.SwitchConfig) { c.Ports = 0 },
		func(c *mercury.SwitchConfig) { c.Rates = c.Rates[:1] },
		func(c *mercury.SwitchConfig) { c.Threshold = 0 },
		func(c *mercury.SwitchConfig) { c.TableBits = 17 },
		func(c *mercury.SwitchConfig) { c.Window.Offset = 13 },
		func(c *mercury.SwitchConfig) { c.BaseRTT = 2 * units.Second },
		func(c *mercury.SwitchConfig) { c.Prio = 8 },
	} {
		cfg := mercury.PaperSwitch(4, line40, rtt16)
		c(&cfg)
		_, err := mercury.NewSwitch(cfg)
		require.ErrorIs(t, err, cc.ErrConfig)
	}
	s := newSwitch(t)
	act := cc.NewActions(8)
	require.ErrorIs(t, s.Enqueue(us, 4, pkt(1, 1, 2), q(frame), act), mercury.ErrPort)
	require.Error(t, s.Enqueue(us, 0, nil, q(frame), act))
	require.NoError(t, s.Timer(2*us, act))
	require.ErrorIs(t, s.Enqueue(us, 0, pkt(1, 1, 2), q(frame), act), cc.ErrTimeOrder)
	require.Zero(t, act.Len())
}

// TestWindowInvalid: a Window that Validate refuses (an offset past 12, a
// negative one, an unknown order) neither panics nor writes, and reads 0.
func TestWindowInvalid(t *testing.T) {
	var d [cc.FeedbackDataLen]byte
	for i := range d {
		d[i] = 0xA5
	}
	for _, w := range []mercury.Window{{Offset: 13}, {Offset: -1}, {Order: 2}} {
		require.Error(t, w.Validate("test"))
		c := d
		w.Put(&c, 0x01020304)
		require.Equal(t, d, c, "%+v", w)
		require.Zero(t, w.Get(&d), "%+v", w)
	}
	// A valid one: offset 12, little-endian, is the last 4 bytes reversed.
	w := mercury.Window{Offset: 12, Order: mercury.LittleEndian}
	w.Put(&d, 0x01020304)
	require.Equal(t, []byte{0x04, 0x03, 0x02, 0x01}, d[12:])
	require.Equal(t, uint32(0x01020304), w.Get(&d))
}

// TestQueueRateRefused: with no configured Rates the window's C is the
// queue's reported rate. A 3 ms base RTT is allowed (10 Tb/s × 3 ms =
// 3.75 GB < 2^32 B); a queue reporting 20 Tb/s would make C·baseRTT
// 7.5 GB, past the window's 32 bits (it wrapped to 7.5e9 − 2^32 =
// 3 205 032 704 B), and is refused, as is a negative rate. At 10 Tb/s a
// lone flow of 9000 B (141 cells, 9024 B) gets 3.75e9·9000/9024 =
// 3.740e9 B within the table's −0.10 % (≥ 3.736e9 B), capped at
// C·baseRTT = 3.75e9 B: no wrap.
func TestQueueRateRefused(t *testing.T) {
	cfg := mercury.PaperSwitch(1, line40, 3*units.Millisecond)
	cfg.Rates = nil
	p := &cc.Packet{Flow: 1, Src: 1, Dst: 2, Size: 9000, Prio: 3}
	for _, r := range []units.Rate{20 * units.Tbps, -units.Gbps} {
		s, err := mercury.NewSwitch(cfg)
		require.NoError(t, err)
		act := cc.NewActions(4)
		before := s.AppendRegisters(nil)
		err = s.Enqueue(us, 0, p, cc.Queue{Len: 1 << 31, Rate: r}, act)
		require.ErrorIs(t, err, cc.ErrEvent, "rate %v", r)
		require.Zero(t, act.Len())
		require.Equal(t, before, s.AppendRegisters(nil))
	}
	s, err := mercury.NewSwitch(cfg)
	require.NoError(t, err)
	act := cc.NewActions(4)
	require.NoError(t, s.Enqueue(us, 0, p, cc.Queue{Len: 1 << 31, Rate: mercury.MaxRate}, act))
	require.Equal(t, 1, act.Len())
	d := act.At(0).Feedback.Data
	w := mercury.Window{}.Get(&d)
	require.LessOrEqual(t, w, uint32(3_750_000_000))
	require.GreaterOrEqual(t, w, uint32(3_736_000_000))
}

// TestLastRateIsARegister: with Rates nil the resume test's C is the rate
// the port's latest queue reported, state carried from one event to the
// next, so it is a register: two switches fed the same packets at 40 and
// at 10 Gb/s differ in last_rate (and nowhere else) and then decide the
// same RESUME differently (30 frames, 32.5 KB, in a 10 µs pause: at most
// C·Tpause = 50 KB at 40 Gb/s, PFC's backlog, Undetermined; more than
// 12.5 KB at 10 Gb/s, congestion, Determined).
func TestLastRateIsARegister(t *testing.T) {
	p := pkt(1, 10, 20)
	var regs [2][]cc.Register
	var states [2]mercury.PortState
	for k, rate := range []units.Rate{line40, 10 * units.Gbps} {
		c := mercury.PaperSwitch(4, line40, rtt16)
		c.Rates = nil
		s, err := mercury.NewSwitch(c)
		require.NoError(t, err)
		act := cc.NewActions(8)
		enq := func(now units.Time, n int, start units.Bytes) {
			for i := range n {
				act.Reset()
				require.NoError(t, s.Enqueue(now, 1, p, cc.Queue{Len: start + units.Bytes(i+1)*frame, Rate: rate}, act))
			}
		}
		enq(us, 60, 0)
		regs[k] = s.AppendRegisters(nil)
		require.NoError(t, s.Pause(2*us, 1, 3, true, nil))
		enq(5*us, 30, 60*frame)
		require.NoError(t, s.Pause(12*us, 1, 3, false, nil))
		pt, _ := s.Port(1)
		states[k] = pt.State
	}
	var diff []string
	for i := range regs[0] {
		if regs[0][i] != regs[1][i] {
			diff = append(diff, regs[0][i].Name)
		}
	}
	require.Equal(t, []string{"last_rate"}, diff)
	require.Equal(t, [2]mercury.PortState{mercury.Undetermined, mercury.Determined}, states)
}
