package rp

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	inttel "github.com/hwcc/hwcc/int"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/window"
)

// TestHPCCDeltasMatchCodec: measure's Δts and Δtx, a masked difference
// times the unit fixed at NewHPCC, are the Codec's TSDelta and
// TxBytesDelta, for the default units and for the largest the Codec takes;
// and sample's stale test on the counts (bit 23 of the TS count, bit 19 of
// the txBytes count) is the test of the deltas against half the fields'
// periods (TSWrap/2, TxBytesWrap/2).
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
			require.Equal(t, codec.TSDelta(a, b), units.Time(uint64((b.TS-a.TS)&inttel.MaxTS)*h.tab.tsUnit))
			require.Equal(t, codec.TxBytesDelta(a, b), units.Bytes(uint64((b.TxBytes-a.TxBytes)&inttel.MaxTxBytes)*h.tab.txUnit))
			cts, ctx := uint64((b.TS-a.TS)&inttel.MaxTS), uint64((b.TxBytes-a.TxBytes)&inttel.MaxTxBytes)
			require.Equal(t, codec.TSDelta(a, b) >= codec.TSWrap()/2 || codec.TxBytesDelta(a, b) >= codec.TxBytesWrap()/2,
				cts>>(inttel.TSBits-1)|ctx>>(inttel.TxBytesBits-1) != 0, "hops %+v, %+v", a, b)
		}
	}
}

// hpccFieldsCodec is the Codec of the field-check tests: maxHops hops and
// three speed codes (1, 7, 15: 25, 100 and 400 Gb/s), so that other codes
// are unknown.
func hpccFieldsCodec(t *testing.T, maxHops int) *inttel.Codec {
	codec, err := inttel.NewCodec(inttel.Config{
		TxBytesUnit: 128, QLenUnit: 80, TSUnit: units.Nanosecond, MaxHops: maxHops,
		Speeds: []inttel.SpeedCode{{Code: 1, Rate: 25 * units.Gbps}, {Code: 7, Rate: 100 * units.Gbps}, {Code: 15, Rate: 400 * units.Gbps}},
	})
	require.NoError(t, err)
	return codec
}

// TestHPCCValidMatchesCheck: the per-ACK validity test and the checks that
// name a fault agree on every header, sequence and state drawn: valid is
// true exactly when check returns nil.
func TestHPCCValidMatchesCheck(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 6))
	codec := hpccFieldsCodec(t, 4)
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
		h.started = rng.IntN(2) == 0
		h.lastAckSeq = rng.Uint64N(1000)
		ackSeq, sndNxt := rng.Uint64N(1000), rng.Uint64N(1000)
		p := &hdr
		if i%5000 == 0 {
			p = nil
		}
		err := h.check(ackSeq, sndNxt, p)
		require.Equal(t, err == nil, h.valid(ackSeq, sndNxt, p), "header %+v, ackSeq %d, sndNxt %d, started %v, last %d: check %v",
			p, ackSeq, sndNxt, h.started, h.lastAckSeq, err)
	}
}

// TestHPCCSampleRefusesAsCheck: an ACK of the stored path takes measure's
// path, which tests the hop fields in its first pass instead of valid; it
// is refused exactly when check finds a fault, and a refused ACK changes
// nothing (State, registers). The headers are drawn around the stored
// records with out-of-range TS and TxBytes fields, unknown and other speed
// codes, and sequences in and out of order.
func TestHPCCSampleRefusesAsCheck(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 34))
	codec := hpccFieldsCodec(t, 5)
	for _, mod := range []func(*HPCCConfig){
		func(*HPCCConfig) {},
		func(c *HPCCConfig) { c.MultiRate = true },
		func(c *HPCCConfig) { c.FastReact = false },
	} {
		c := HPCCPaperSim(100 * units.Gbps)
		c.Codec = codec
		mod(&c)
		h, err := NewHPCC(c)
		require.NoError(t, err)
		speeds := []uint8{1, 7, 15}
		var first inttel.Header
		first.NHop, first.PathID = 4, 0x123
		for j := range first.NHop {
			first.Hops[j] = inttel.Hop{Speed: speeds[rng.IntN(3)], TS: rng.Uint32N(inttel.MaxTS + 1), TxBytes: rng.Uint32N(inttel.MaxTxBytes + 1)}
		}
		now, seq := units.Microsecond, uint64(1000)
		require.NoError(t, h.ack(now, seq, seq+50000, &first))
		refused := 0
		for range 50000 {
			hdr := first
			for j := range hdr.NHop {
				p, old := &hdr.Hops[j], h.hops[j].rec
				*p = old
				p.TS = (old.TS + rng.Uint32N(20000)) & inttel.MaxTS
				p.TxBytes = (old.TxBytes + rng.Uint32N(3000)) & inttel.MaxTxBytes
				p.QLen = uint16(rng.IntN(1 << 16))
				switch rng.IntN(60) {
				case 0:
					p.TS += (1 + rng.Uint32N(255)) << inttel.TSBits
				case 1:
					p.TxBytes += (1 + rng.Uint32N(1<<12-1)) << inttel.TxBytesBits
				case 2:
					p.Speed = uint8(rng.IntN(256))
				case 3:
					p.Speed = speeds[rng.IntN(3)]
				}
			}
			now += units.Time(rng.IntN(20000)) * units.Nanosecond
			ackSeq := seq + uint64(rng.IntN(3000))
			if rng.IntN(50) == 0 {
				ackSeq = seq - 1 - uint64(rng.IntN(100))
			}
			sndNxt := ackSeq + uint64(rng.IntN(100000))
			if rng.IntN(50) == 0 {
				sndNxt = ackSeq - 1
			}
			want := h.check(ackSeq, sndNxt, &hdr)
			before, regs := h.State(), h.AppendRegisters(nil)
			got := h.ack(now, ackSeq, sndNxt, &hdr)
			require.Equal(t, want == nil, got == nil, "header %+v: check %v, ack %v", hdr, want, got)
			if got != nil {
				require.Equal(t, want.Error(), got.Error())
				require.Equal(t, before, h.State())
				require.Equal(t, regs, h.AppendRegisters(nil))
				refused++
				continue
			}
			seq = ackSeq
		}
		require.Greater(t, refused, 1000)
		require.Positive(t, h.State().Acks)
	}
}

// TestHPCCEWMAMatchesBig: ewma equals lines 8–9 computed exactly (math/big)
// with its documented roundings: w = ⌊τ·⌊2^64/T⌋ / 2^32⌋ for τ < T (1 for
// τ ≥ T), U' = ⌊(U·(2^32 − w) + u·w + 2^31) / 2^32⌋; over random τ around
// and beyond T, several T, and U, u over the whole register.
func TestHPCCEWMAMatchesBig(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 89))
	for _, T := range []units.Time{window.MinT, 9 * units.Microsecond, 13 * units.Microsecond, window.MaxT} {
		c := HPCCPaperSim(100 * units.Gbps)
		c.Window.T = T
		h, err := NewHPCC(c)
		require.NoError(t, err)
		two64 := new(big.Int).Lsh(big.NewInt(1), 64)
		wT := new(big.Int).Quo(two64, big.NewInt(int64(T)))
		for range 20000 {
			tau := units.Time(rng.Int64N(int64(2 * T)))
			if rng.IntN(10) == 0 {
				tau = T - units.Time(rng.IntN(3))
			}
			U, u := rng.Uint64()>>rng.UintN(64), rng.Uint64()>>rng.UintN(64)
			w := new(big.Int).SetUint64(1 << 32)
			if tau < T {
				w.Mul(big.NewInt(int64(tau)), wT)
				w.Rsh(w, 32)
			}
			sum := new(big.Int).Mul(new(big.Int).SetUint64(U), new(big.Int).Sub(big.NewInt(1<<32), w))
			sum.Add(sum, new(big.Int).Mul(new(big.Int).SetUint64(u), w))
			sum.Add(sum, big.NewInt(1<<31))
			sum.Rsh(sum, 32)
			require.Equal(t, sum.Uint64(), h.ewma(U, u, tau), "T %v τ %v U %#x u %#x", T, tau, U, u)
		}
	}
}
