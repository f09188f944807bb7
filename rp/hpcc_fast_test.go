package rp

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	inttel "github.com/hwcc/hwcc/int"
	"github.com/hwcc/hwcc/units"
)

// TestHPCCDeltasMatchCodec: measure's Δts and Δtx, a masked difference
// times the unit fixed at NewHPCC, are the Codec's TSDelta and
// TxBytesDelta, for the default units and for the largest the Codec takes.
func TestHPCCDeltasMatchCodec(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 5))
	big := inttel.DefaultConfig()
	big.TSUnit, big.TxBytesUnit = inttel.MaxTSUnit, inttel.MaxByteUnit
	for _, cfg := range []inttel.Config{inttel.DefaultConfig(), big} {
		codec, err := inttel.NewCodec(cfg)
		require.NoError(t, err)
		c := HPCCPaperSim(100 * units.Gbps)
		c.Codec = codec
		h, err := NewHPCC(c)
		require.NoError(t, err)
		for range 100000 {
			a := inttel.Hop{TS: rng.Uint32N(inttel.MaxTS + 1), TxBytes: rng.Uint32N(inttel.MaxTxBytes + 1)}
			b := inttel.Hop{TS: rng.Uint32N(inttel.MaxTS + 1), TxBytes: rng.Uint32N(inttel.MaxTxBytes + 1)}
			require.Equal(t, codec.TSDelta(a, b), units.Time(uint64((b.TS-a.TS)&inttel.MaxTS)*h.tsUnit))
			require.Equal(t, codec.TxBytesDelta(a, b), units.Bytes(uint64((b.TxBytes-a.TxBytes)&inttel.MaxTxBytes)*h.txUnit))
		}
	}
}

// TestHPCCValidMatchesCheck: the per-ACK validity test and the checks that
// name a fault agree on every header, sequence and state drawn: valid is
// true exactly when check returns nil.
func TestHPCCValidMatchesCheck(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 6))
	codec, err := inttel.NewCodec(inttel.Config{
		TxBytesUnit: 128, QLenUnit: 80, TSUnit: units.Nanosecond, MaxHops: 4,
		Speeds: []inttel.SpeedCode{{Code: 1, Rate: 25 * units.Gbps}, {Code: 7, Rate: 100 * units.Gbps}, {Code: 15, Rate: 400 * units.Gbps}},
	})
	require.NoError(t, err)
	c := HPCCPaperSim(100 * units.Gbps)
	c.Codec = codec
	h, err := NewHPCC(c)
	require.NoError(t, err)
	field := func(max uint32) uint32 {
		if rng.IntN(20) == 0 {
			return max + 1 + rng.Uint32N(1<<31-max)
		}
		return rng.Uint32N(max + 1)
	}
	for i := range 200000 {
		var hdr inttel.Header
		hdr.NHop = uint8(rng.IntN(6))
		if rng.IntN(30) == 0 {
			hdr.NHop = uint8(rng.IntN(inttel.HopsLimit + 1))
		}
		hdr.PathID = uint16(field(inttel.MaxPathID))
		for j := range hdr.Hops {
			hdr.Hops[j] = inttel.Hop{Speed: []uint8{1, 7, 15, 7, 1}[rng.IntN(5)], TS: field(inttel.MaxTS), TxBytes: field(inttel.MaxTxBytes)}
			if rng.IntN(40) == 0 {
				hdr.Hops[j].Speed = uint8(rng.IntN(256))
			}
		}
		h.st.Started = rng.IntN(2) == 0
		h.st.LastAckSeq = rng.Uint64N(1000)
		ackSeq, sndNxt := rng.Uint64N(1000), rng.Uint64N(1000)
		p := &hdr
		if i%5000 == 0 {
			p = nil
		}
		err := h.check("OnAck", ackSeq, sndNxt, p)
		require.Equal(t, err == nil, h.valid(ackSeq, sndNxt, p), "header %+v, ackSeq %d, sndNxt %d, started %v, last %d: check %v",
			p, ackSeq, sndNxt, h.st.Started, h.st.LastAckSeq, err)
	}
}
