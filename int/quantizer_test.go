package inttel

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/units"
)

// TestQuantizersMatchFieldDefinitions: the Codec's fixedpoint quantisers
// give each field its Figure 7 definition, bit for bit, for units drawn
// over their whole range (1..2^32) and inputs over every non-negative
// int64, with math/big as the oracle:
//
//	TS      = ⌊now/TSUnit⌋ mod 2^24
//	txBytes = ⌊tx/TxBytesUnit⌋ mod 2^20
//	qLen    = min(⌊q/QLenUnit⌋, 0xFFFF), saturated iff ⌊q/QLenUnit⌋ > 0xFFFF
//
// and the physical values and wrap periods are the fields times their
// units.
func TestQuantizersMatchFieldDefinitions(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 2019))
	floorMod := func(v, unit uint64, width uint) uint64 {
		q := new(big.Int).Quo(new(big.Int).SetUint64(v), new(big.Int).SetUint64(unit))
		return q.Mod(q, new(big.Int).Lsh(big.NewInt(1), width)).Uint64()
	}
	draw := func() uint64 { // a unit in 1..2^32, often a power of two or small
		switch rng.IntN(3) {
		case 0:
			return 1 << rng.IntN(33)
		case 1:
			return 1 + rng.Uint64N(200)
		}
		return 1 + rng.Uint64N(1<<32)
	}
	value := func() uint64 { // a non-negative int64, of any magnitude
		return rng.Uint64N(1<<63) >> rng.IntN(63)
	}
	for range 20000 {
		cfg := DefaultConfig()
		cfg.TSUnit = units.Time(draw())
		cfg.TxBytesUnit = units.Bytes(draw())
		cfg.QLenUnit = units.Bytes(draw())
		c := mustCodec(t, cfg)
		tsU, txU, qU := uint64(cfg.TSUnit), uint64(cfg.TxBytesUnit), uint64(cfg.QLenUnit)
		now, tx, q := value(), value(), value()
		var h Header
		sat, err := c.Stamp(units.Time(now), &h, Port{Rate: 100 * units.Gbps, TxBytes: units.Bytes(tx), QLen: units.Bytes(q)})
		require.NoError(t, err)
		p := h.Hops[0]
		require.Equal(t, floorMod(now, tsU, TSBits), uint64(p.TS), "TS: now %d unit %d", now, tsU)
		require.Equal(t, floorMod(tx, txU, TxBytesBits), uint64(p.TxBytes), "txBytes: %d unit %d", tx, txU)
		wantQ := q / qU
		require.Equal(t, wantQ > MaxQLen, sat)
		require.Equal(t, min(wantQ, MaxQLen), uint64(p.QLen), "qLen: %d unit %d", q, qU)
		v, err := c.Values(p)
		require.NoError(t, err)
		require.Equal(t, units.Time(uint64(p.TS)*tsU), v.TS)
		require.Equal(t, units.Bytes(uint64(p.TxBytes)*txU), v.TxBytes)
		require.Equal(t, units.Bytes(uint64(p.QLen)*qU), v.QLen)
		require.Equal(t, units.Time(tsU<<TSBits), c.TSWrap())
		require.Equal(t, units.Bytes(txU<<TxBytesBits), c.TxBytesWrap())
		got := c.Config()
		require.Equal(t, cfg.TSUnit, got.TSUnit)
		require.Equal(t, cfg.TxBytesUnit, got.TxBytesUnit)
		require.Equal(t, cfg.QLenUnit, got.QLenUnit)
	}
}
