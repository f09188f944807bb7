package inttel

import (
	"math/big"
	"testing"

	"github.com/hwcc/hwcc/units"
	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/require"
)

func TestDeltaVectors(t *testing.T) {
	c := mustCodec(t, DefaultConfig())
	cases := []struct {
		name           string
		olderTx, newTx uint32
		olderTS, newTS uint32
		dBytes         units.Bytes
		dTime          units.Time
	}{
		{"no change", 5, 5, 9, 9, 0, 0},
		{"forward", 100, 190, 1000, 3000, 90 * 128, 2000 * units.Nanosecond},
		{"one step across the wrap", 0xfffff, 0, 0xffffff, 0, 128, units.Nanosecond},
		{"across the wrap", 0xffff0, 0x10, 0xfffff0, 0x10, 0x20 * 128, 0x20 * units.Nanosecond},
		{"largest exact advance", 0, 0xfffff, 0, 0xffffff, 0xfffff * 128, 0xffffff * units.Nanosecond},
		// "Backwards" is read as almost a full period forwards.
		{"backwards reads as forwards", 10, 9, 10, 9, 0xfffff * 128, 0xffffff * units.Nanosecond},
	}
	for _, tc := range cases {
		o := Hop{TxBytes: tc.olderTx, TS: tc.olderTS}
		n := Hop{TxBytes: tc.newTx, TS: tc.newTS}
		require.Equal(t, tc.dBytes, c.TxBytesDelta(o, n), tc.name)
		require.Equal(t, tc.dTime, c.TSDelta(o, n), tc.name)
	}
	// Fields wider than their width are taken modulo 2^width.
	require.Equal(t, units.Bytes(3*128), c.TxBytesDelta(Hop{TxBytes: 1 << 20}, Hop{TxBytes: 3}))
	require.Equal(t, 3*units.Nanosecond, c.TSDelta(Hop{TS: 5 << 24}, Hop{TS: 3}))
}

// TestTxBytesDeltaEveryK: for every k < 2^20, two readings k counts apart
// give a delta of k·128 B, with the older reading placed so that the pair
// straddles the wrap whenever k > 0 (exhaustive: 2^20 cases).
func TestTxBytesDeltaEveryK(t *testing.T) {
	c := mustCodec(t, DefaultConfig())
	for k := uint32(0); k < 1<<20; k++ {
		older := uint32(1<<20) - 1 - k/2 // newer = older + k − 2^20 for k > 0
		newer := (older + k) & (1<<20 - 1)
		if got := c.TxBytesDelta(Hop{TxBytes: older}, Hop{TxBytes: newer}); got != units.Bytes(k)*128 {
			t.Fatalf("k = %d: older %#x newer %#x: got %d, want %d", k, older, newer, got, int64(k)*128)
		}
	}
}

// TestTSDeltaEveryK: the same for the 24-bit timestamp (2^24 cases).
func TestTSDeltaEveryK(t *testing.T) {
	c := mustCodec(t, DefaultConfig())
	for k := uint32(0); k < 1<<24; k++ {
		older := uint32(1<<24) - 1 - k/2
		newer := (older + k) & (1<<24 - 1)
		if got := c.TSDelta(Hop{TS: older}, Hop{TS: newer}); got != units.Time(k)*units.Nanosecond {
			t.Fatalf("k = %d: got %v", k, got)
		}
	}
}

// TestDeltaProperty: for any start and any k below the period, and any
// configured unit, the delta is k units; k plus whole periods aliases to k.
func TestDeltaProperty(t *testing.T) {
	props := gopter.NewProperties(params(2000))
	props.Property("TxBytesDelta(start, start+k) = k·unit", prop.ForAll(
		func(start, k uint32, unit int64, wraps uint32) bool {
			cfg := DefaultConfig()
			cfg.TxBytesUnit, cfg.TSUnit = units.Bytes(unit), units.Time(unit)
			c, err := NewCodec(cfg)
			if err != nil {
				return false
			}
			newer := (uint64(start) + uint64(k) + uint64(wraps)<<20) % (1 << 20) // math on 64 bits
			newTS := (uint64(start) + uint64(k) + uint64(wraps)<<24) % (1 << 24)
			return c.TxBytesDelta(Hop{TxBytes: start & (1<<20 - 1)}, Hop{TxBytes: uint32(newer)}) ==
				units.Bytes(int64(k&(1<<20-1))*unit) &&
				c.TSDelta(Hop{TS: start & (1<<24 - 1)}, Hop{TS: uint32(newTS)}) == units.Time(int64(k&(1<<24-1))*unit)
		},
		gen.UInt32Range(0, 1<<24-1).WithLabel("start"),
		gen.UInt32Range(0, 1<<24-1).WithLabel("k"),
		gen.Int64Range(1, 1<<32).WithLabel("unit"),
		gen.UInt32Range(0, 3).WithLabel("extra wraps"),
	))
	props.TestingRun(t)
}

// TestDeltaFromStamps drives a port at up to line rate: two stamps taken at
// most MaxSampleGap apart give TxBytesDelta = (floor(b2/128) − floor(b1/128))·128
// exactly (math/big oracle), which is within one unit of the true bytes
// sent, and TSDelta within one TS unit of the true gap.
func TestDeltaFromStamps(t *testing.T) {
	c := mustCodec(t, DefaultConfig())
	rate := 400 * units.Gbps
	gap := c.MaxSampleGap(rate)
	props := gopter.NewProperties(params(3000))
	props.Property("deltas of stamped records are exact within MaxSampleGap", prop.ForAll(
		func(t1, b1 int64, frac uint64, fill uint64) bool {
			d := units.Time(frac % (uint64(gap) + 1))                        // 0 .. gap
			sent := units.Bytes(fill % (uint64(units.BytesIn(rate, d)) + 1)) // 0 .. what the line carries in d
			var h1, h2 Header
			p := Port{Rate: rate, TxBytes: units.Bytes(b1)}
			if _, err := c.Stamp(units.Time(t1), &h1, p); err != nil {
				return false
			}
			p.TxBytes += sent
			if _, err := c.Stamp(units.Time(t1)+d, &h2, p); err != nil {
				return false
			}
			wantB := new(big.Int).Sub(
				new(big.Int).Div(big.NewInt(b1+int64(sent)), big.NewInt(128)),
				new(big.Int).Div(big.NewInt(b1), big.NewInt(128)))
			wantT := new(big.Int).Sub(
				new(big.Int).Div(big.NewInt(t1+int64(d)), big.NewInt(1000)),
				new(big.Int).Div(big.NewInt(t1), big.NewInt(1000)))
			gotB := c.TxBytesDelta(h1.Hops[0], h2.Hops[0])
			gotT := c.TSDelta(h1.Hops[0], h2.Hops[0])
			return int64(gotB) == wantB.Int64()*128 && int64(gotT) == wantT.Int64()*1000 &&
				gotB > sent-128 && gotB < sent+128 && gotT > d-1000 && gotT < d+1000
		},
		gen.Int64Range(0, 1<<60).WithLabel("t1 ps"),
		gen.Int64Range(0, 1<<60).WithLabel("b1 bytes"),
		gen.UInt64().WithLabel("gap draw"),
		gen.UInt64().WithLabel("bytes draw"),
	))
	props.TestingRun(t)
}

func TestWrapPeriods(t *testing.T) {
	c := mustCodec(t, DefaultConfig())
	// 2^20 · 128 B = 2^27 B = 128 MiB.
	require.Equal(t, 128*units.MiB, c.TxBytesWrap())
	// 2^24 ns = 16.777216 ms.
	require.Equal(t, 16777216*units.Nanosecond, c.TSWrap())
	// 2^27 B · 8 = 2^30 bit; / 4e11 bit/s = 2.68435456e-3 s, exact in ps
	// (2^30 · 10^12 / (4·10^11) = 2^30 · 2.5), about 2.68 ms.
	require.Equal(t, units.Time(2684354560), c.TxBytesWrapTime(400*units.Gbps))
	require.Equal(t, units.Time(10737418240), c.TxBytesWrapTime(100*units.Gbps)) // 2^30 · 10
	require.Equal(t, units.MaxTime, c.TxBytesWrapTime(0))
	// MaxSampleGap: (2^20 − 1)·128·8 bit = 1,073,740,800 bit.
	// At 400 Gb/s: 1073740800 / 4e11 s = 2,684,352,000 ps (exact).
	require.Equal(t, units.Time(2684352000), c.MaxSampleGap(400*units.Gbps))
	// At 10 Gb/s the byte bound is 107 ms, so TS binds: (2^24 − 1) ns.
	require.Equal(t, 16777215*units.Nanosecond, c.MaxSampleGap(10*units.Gbps))
	require.Equal(t, 16777215*units.Nanosecond, c.MaxSampleGap(0))
	// 1 b/s: the quotient, bits·10^12 ps, passes 2^64 (MulDivSat saturates)
	// and the TS bound wins.
	require.Equal(t, 16777215*units.Nanosecond, c.MaxSampleGap(1))
}

func TestMaxSampleGapAgainstBig(t *testing.T) {
	props := gopter.NewProperties(params(2000))
	props.Property("MaxSampleGap = min(floor((2^20−1)·u·8e12/r), (2^24−1)·uts)", prop.ForAll(
		func(r int64, unit int64, tsUnit int64) bool {
			cfg := DefaultConfig()
			cfg.TxBytesUnit, cfg.TSUnit = units.Bytes(unit), units.Time(tsUnit)
			c, err := NewCodec(cfg)
			if err != nil {
				return false
			}
			num := new(big.Int).Mul(big.NewInt((1<<20-1)*unit*8), big.NewInt(1e12))
			q := num.Quo(num, big.NewInt(r))
			ts := big.NewInt((1<<24 - 1) * tsUnit)
			if q.Cmp(ts) > 0 {
				q = ts
			}
			return int64(c.MaxSampleGap(units.Rate(r))) == q.Int64()
		},
		gen.Int64Range(1, 1<<62).WithLabel("rate"),
		gen.Int64Range(1, 1<<32).WithLabel("txBytes unit"),
		gen.Int64Range(1, 1<<32).WithLabel("TS unit"),
	))
	props.TestingRun(t)
}

func TestTxRate(t *testing.T) {
	c := mustCodec(t, DefaultConfig())
	// 390 counts = 49,920 B in 1000 ns: 49920·8 / 1e-6 s = 399.36 Gb/s.
	r, err := c.TxRate(Hop{TxBytes: 0xffff0, TS: 0xfffe00}, Hop{TxBytes: (0xffff0 + 390) & 0xfffff, TS: (0xfffe00 + 1000) & 0xffffff})
	require.NoError(t, err)
	require.Equal(t, units.Rate(399_360_000_000), r)
	// Rounded down: 1 count = 128 B in 3 ns = 341.33 Gb/s → 341333333333.
	r, err = c.TxRate(Hop{}, Hop{TxBytes: 1, TS: 3})
	require.NoError(t, err)
	require.Equal(t, units.Rate(341_333_333_333), r)
	// Same timestamp: no rate, no division by zero.
	r, err = c.TxRate(Hop{TxBytes: 1, TS: 5}, Hop{TxBytes: 9, TS: 5})
	require.ErrorIs(t, err, ErrZeroInterval)
	require.Zero(t, r)
	// No bytes in a non-zero interval: rate 0, no error.
	r, err = c.TxRate(Hop{TxBytes: 9, TS: 5}, Hop{TxBytes: 9, TS: 6})
	require.NoError(t, err)
	require.Zero(t, r)
}

func TestValues(t *testing.T) {
	c := mustCodec(t, DefaultConfig())
	v, err := c.Values(Hop{Speed: 6, TS: 0x123456, TxBytes: 0xabcde, QLen: 0x1234})
	require.NoError(t, err)
	require.Equal(t, HopValues{
		Rate:    400 * units.Gbps,
		TS:      0x123456 * units.Nanosecond,
		TxBytes: 0xabcde * 128,
		QLen:    0x1234 * 80,
	}, v)
	v, err = c.Values(Hop{Speed: 0, TS: 0xffffff, TxBytes: 0xfffff, QLen: 0xffff})
	require.NoError(t, err)
	require.Equal(t, units.Bytes(65535*80), v.QLen) // saturated reading: at least 5,242,800 B
	require.Equal(t, c.TSWrap()-units.Nanosecond, v.TS)
	require.Equal(t, c.TxBytesWrap()-128, v.TxBytes)

	_, err = c.Values(Hop{Speed: 12})
	require.ErrorIs(t, err, ErrUnknownSpeed)
	_, err = c.Values(Hop{Speed: 1, TS: 1 << 24})
	require.ErrorIs(t, err, ErrFieldRange)
	_, err = c.Values(Hop{Speed: 1, TxBytes: 1 << 20})
	require.ErrorIs(t, err, ErrFieldRange)
}
