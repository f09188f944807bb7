package rp

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/hwtables"
	inttel "github.com/hwcc/hwcc/int"
	"github.com/hwcc/hwcc/units"
)

// hpccDigestWant pins every state and every error of the streams below bit
// for bit to what the per-ACK path gave before its rework into lanes
// (the reciprocal table read by binary search, and per hop a call of
// hopUtil and Divider.Quo128; the constant-time index and
// Divider.QuoLanes give the same). Since Feedback reads the header from the ACK's telemetry
// stack, an ACK whose header has a field wider than its wire field (a TS
// above 24 bits, a speed code above 15, a 13-bit pathID) has no stack, and
// the Feedback half hands those ACKs (1375 of 72000) to the typed path
// instead: the stream changed, not the path. The code of release 0.9.0,
// whose Feedback took the header itself, computes 0xabc238e42e089b65 for
// the same calls (and for the stream before, where Feedback took those
// headers as well, the value pinned until then, 0x848e223c45650172).
// Since the typed path is unexported its errors name the event that runs
// it, Feedback, where they named OnAck, and State carries the count of
// unused messages (0 here: every message is an ACK); the code before that
// change, with "rp.HPCC OnAck:" read as "rp.HPCC Feedback:" in its error
// texts and " Unused:0" added at the end of its states, computes the value
// below.
const hpccDigestWant = 0xb1f3fe584428e8fc

// hpccDigest feeds seeded ACK streams (hpccTraceGen, with malformed headers,
// reordered sequence numbers and late times mixed in) to HPCC reaction
// points in every mode, half through the typed fast path (ack) and half
// through the contract's Feedback (its header as wire bytes, or ack where
// no wire bytes can carry it), and hashes each event's error text and the
// full State after it.
func hpccDigest(t *testing.T) uint64 {
	sum := fnv.New64a()
	mods := []func(*HPCCConfig){
		func(*HPCCConfig) {},
		func(c *HPCCConfig) { c.Window.NativeDivision = true },
		func(c *HPCCConfig) { c.Window.Table = hwtables.DefaultCompact() },
		func(c *HPCCConfig) { c.MultiRate = true },
		func(c *HPCCConfig) { c.FastReact = false },
		func(c *HPCCConfig) { c.InitialU = HPCCInitialUEta; c.Window.MaxStage = 0 },
	}
	for mi, mod := range mods {
		for seed := uint64(1); seed <= 6; seed++ {
			c := HPCCPaperSim(100 * units.Gbps)
			mod(&c)
			h, err := NewHPCC(c)
			require.NoError(t, err)
			g := newHPCCTraceGen(seed*97+uint64(mi), h.Config().Codec)
			rng := rand.New(rand.NewPCG(seed, uint64(mi)))
			for i := range 4000 {
				ev := g.next()
				switch x := rng.IntN(200); {
				case x == 0:
					ev.hdr.NHop = inttel.HopsLimit
				case x == 1 && ev.hdr.NHop > 0:
					ev.hdr.Hops[rng.IntN(int(ev.hdr.NHop))].TS |= 1 << inttel.TSBits
				case x == 2 && ev.hdr.NHop > 0:
					ev.hdr.Hops[rng.IntN(int(ev.hdr.NHop))].TxBytes |= 1 << 31
				case x == 3 && ev.hdr.NHop > 0:
					ev.hdr.Hops[rng.IntN(int(ev.hdr.NHop))].Speed = uint8(rng.IntN(256))
				case x == 4:
					ev.hdr.PathID |= 1 << 12
				case x == 5:
					ev.ackSeq = ev.sndNxt + 1
				case x == 6 && ev.ackSeq > 0:
					ev.ackSeq--
				case x == 7:
					ev.now -= units.Microsecond
				}
				var err error
				if tel, ok := hpccTelOf(&ev.hdr); i%2 == 0 || !ok {
					err = h.ack(ev.now, ev.ackSeq, ev.sndNxt, &ev.hdr)
				} else {
					err = h.Feedback(ev.now, &cc.Feedback{Kind: cc.FeedbackAck, Seq: ev.ackSeq, SndNxt: ev.sndNxt, Tel: tel}, nil)
				}
				fmt.Fprintf(sum, "%v|%+v\n", err, h.State())
			}
		}
	}
	return sum.Sum64()
}

// TestHPCCDigest: the per-ACK path's states and errors are those of the
// path before its rework into lanes, bit for bit (hpccDigestWant).
func TestHPCCDigest(t *testing.T) {
	if testing.Short() {
		t.Skip("144 000 ACKs")
	}
	got := hpccDigest(t)
	require.Equal(t, fmt.Sprintf("%#x", uint64(hpccDigestWant)), fmt.Sprintf("%#x", got))
}
