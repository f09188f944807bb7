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

// hpccDigestWant is the digest hpccDigest computed with a simpler form of
// the per-ACK path (the reciprocal table read by binary search, and per hop
// a call of hopUtil and Divider.Quo128; the constant-time index and
// Divider.QuoLanes give the same digest): every state and every error of
// the streams below must stay bit for bit what they were.
const hpccDigestWant = 0x848e223c45650172

// hpccDigest feeds seeded ACK streams (hpccTraceGen, with malformed headers,
// reordered sequence numbers and late times mixed in) to HPCC reaction
// points in every mode, half through OnAck and half through the contract's
// Feedback, and hashes each event's error text and the full State after it.
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
				if i%2 == 0 {
					err = h.OnAck(ev.now, ev.ackSeq, ev.sndNxt, &ev.hdr)
				} else {
					err = h.Feedback(ev.now, &cc.Feedback{Kind: cc.FeedbackAck, Seq: ev.ackSeq, SndNxt: ev.sndNxt, INT: &ev.hdr}, nil)
				}
				fmt.Fprintf(sum, "%v|%+v\n", err, h.State())
			}
		}
	}
	return sum.Sum64()
}

// TestHPCCDigest: the per-ACK path's states and errors are those of its
// simpler form, bit for bit (hpccDigestWant).
func TestHPCCDigest(t *testing.T) {
	if testing.Short() {
		t.Skip("144 000 ACKs")
	}
	got := hpccDigest(t)
	require.Equal(t, fmt.Sprintf("%#x", uint64(hpccDigestWant)), fmt.Sprintf("%#x", got))
}
