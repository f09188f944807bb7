package rp

import (
	"math"
	"math/rand/v2"

	inttel "github.com/hwcc/hwcc/int"
	"github.com/hwcc/hwcc/units"
)

// hpccEvent is one ACK of a synthetic INT trace.
type hpccEvent struct {
	now    units.Time
	ackSeq uint64
	sndNxt uint64
	hdr    inttel.Header
}

// hpccTraceHop is one simulated egress port of the path.
type hpccTraceHop struct {
	rate units.Rate
	tx   uint64  // cumulative bytes sent, unbounded (the 20-bit field wraps)
	q    float64 // queue, bytes (may pass the 16-bit field's 5.24 MB)
	util float64 // share of the line rate in use, [0, 1]
	id   uint16  // switch ID
}

// hpccTraceGen generates physically plausible ACK streams for one flow: a
// path of 1..5 ports with random speeds, each with a cumulative transmit
// counter that advances at most at line rate and a queue that random-walks,
// stamped by inttel's Codec exactly as a switch would. The counters start
// just below their wrap points so that the 24-bit TS and the 20-bit txBytes
// wrap within the first few ACKs, and the gaps between ACKs include zero
// (Δts = 0), the usual 0.1–5 µs, 5–45 µs (either side of T, so that τ is
// capped or not), a few milliseconds (past the re-seed
// horizon at high speeds) and rarely 20 ms (a full TS wrap). Occasionally
// the path changes (pathID or hop count), a port's speed changes, or an ACK
// echoes an older header (a reordered ACK's records).
type hpccTraceGen struct {
	rng   *rand.Rand
	codec *inttel.Codec
	codes []inttel.SpeedCode
	hops  []hpccTraceHop
	t     units.Time // switch time, ps
	now   units.Time // sender time, ps
	seq   uint64
	prev  []inttel.Header // recent headers, for echoes of older records
}

func newHPCCTraceGen(seed uint64, codec *inttel.Codec) *hpccTraceGen {
	g := &hpccTraceGen{
		rng:   rand.New(rand.NewPCG(seed, 0x4850_4343)),
		codec: codec,
		codes: codec.Config().Speeds,
	}
	// Start the switch clock within 50 µs of the 24-bit ns wrap.
	g.t = (1<<inttel.TSBits)*units.Nanosecond - units.Time(g.rng.Int64N(int64(50*units.Microsecond)))
	g.now = g.t + 2*units.Microsecond
	g.newPath()
	return g
}

// newPath draws a new path: 1..5 ports.
func (g *hpccTraceGen) newPath() {
	n := 1 + g.rng.IntN(inttel.HPCCMaxHops)
	g.hops = g.hops[:0]
	for range n {
		g.hops = append(g.hops, g.newHop())
	}
	g.prev = g.prev[:0]
}

func (g *hpccTraceGen) newHop() hpccTraceHop {
	// txBytes starts within 64 KB of its 2^27-byte wrap.
	period := uint64(g.codec.TxBytesWrap())
	return hpccTraceHop{
		rate: g.codes[g.rng.IntN(len(g.codes))].Rate,
		tx:   period*uint64(1+g.rng.IntN(8)) - uint64(g.rng.IntN(64000)),
		q:    g.rng.Float64() * 200e3,
		util: g.rng.Float64(),
		id:   uint16(g.rng.IntN(inttel.MaxPathID + 1)),
	}
}

// gap draws the time between two ACKs.
func (g *hpccTraceGen) gap() units.Time {
	switch x := g.rng.IntN(1000); {
	case x < 40:
		return units.Time(g.rng.Int64N(int64(units.Nanosecond))) // within one TS unit
	case x < 50:
		return units.Time(1+g.rng.Int64N(4)) * units.Millisecond // past the horizon at ≥ 50 Gb/s
	case x < 52:
		return 20 * units.Millisecond // a full TS wrap
	case x < 100:
		return units.Time(5+g.rng.Int64N(40)) * units.Microsecond // around T = 13 µs: τ capped or not
	case x < 300:
		return units.Time(g.rng.Int64N(int64(200 * units.Nanosecond)))
	}
	return 100*units.Nanosecond + units.Time(g.rng.Int64N(int64(5*units.Microsecond)))
}

// next returns the next ACK.
func (g *hpccTraceGen) next() hpccEvent {
	switch x := g.rng.IntN(1000); {
	case x < 4:
		g.newPath()
	case x < 8 && len(g.hops) > 0:
		g.hops[g.rng.IntN(len(g.hops))].rate = g.codes[g.rng.IntN(len(g.codes))].Rate
	}
	d := g.gap()
	g.t += d
	for i := range g.hops {
		h := &g.hops[i]
		if g.rng.IntN(20) == 0 {
			h.util = math.Min(1, g.rng.Float64()*1.2)
		}
		// At most line rate: util·B·d/8 bytes, whole bytes.
		h.tx += uint64(h.util * float64(units.BytesIn(h.rate, d)))
		h.q = math.Max(0, h.q+(g.rng.Float64()-0.5)*20e3)
		if g.rng.IntN(200) == 0 {
			h.q = g.rng.Float64() * 6e6 // a spike, beyond qLen's 5.24 MB at times
		}
	}
	var ev hpccEvent
	for _, h := range g.hops {
		// Each switch stamps at its own egress, a few hundred ns apart.
		if _, err := g.codec.Stamp(g.t, &ev.hdr, inttel.Port{
			SwitchID: h.id, Rate: h.rate, TxBytes: units.Bytes(h.tx), QLen: units.Bytes(h.q),
		}); err != nil {
			panic(err) // the generator only builds valid ports
		}
	}
	// Sometimes echo an older header instead: a reordered ACK's records.
	if len(g.prev) > 2 && g.rng.IntN(100) == 0 {
		ev.hdr = g.prev[g.rng.IntN(len(g.prev))]
	}
	g.prev = append(g.prev, ev.hdr)
	if len(g.prev) > 8 {
		g.prev = g.prev[1:]
	}
	// The sender hears it after a return delay that jitters, never going
	// back in time.
	g.now = max(g.now, g.t+units.Time(1000+g.rng.Int64N(int64(3*units.Microsecond))))
	ev.now = g.now
	if g.rng.IntN(10) != 0 {
		g.seq += uint64(1 + g.rng.IntN(4000))
	}
	ev.ackSeq = g.seq
	ev.sndNxt = g.seq + uint64(g.rng.IntN(200000))
	return ev
}
