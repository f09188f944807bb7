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

// bigFloorMod returns floor(v/unit) mod 2^width, computed with math/big.
func bigFloorMod(v, unit int64, width uint) uint64 {
	q := new(big.Int).Div(big.NewInt(v), big.NewInt(unit)) // Euclidean: floor for v ≥ 0
	return q.Mod(q, new(big.Int).Lsh(big.NewInt(1), width)).Uint64()
}

func TestStampOne(t *testing.T) {
	c := mustCodec(t, DefaultConfig())
	var h Header
	now := 20*units.Millisecond + 123*units.Picosecond
	p := Port{SwitchID: 0x5a5, Rate: 400 * units.Gbps, TxBytes: 10 * units.GB, QLen: 12345}
	sat, err := c.Stamp(now, &h, p)
	require.NoError(t, err)
	require.False(t, sat)
	require.Equal(t, uint8(1), h.NHop)
	require.Equal(t, uint16(0x5a5), h.PathID) // 0 XOR 0x5a5
	// Closed forms, worked by hand:
	//   TS: 20 ms = 20,000,000 ns (the 123 ps floor away); 20,000,000 − 2^24 = 3,222,784.
	//   txBytes: 10^10 / 128 = 78,125,000; minus 74·2^20 = 77,594,624 gives 530,376.
	//   qLen: floor(12345 / 80) = 154 (154·80 = 12320).
	want := Hop{Speed: 6, TS: 3222784, TxBytes: 530376, QLen: 154}
	require.Equal(t, want, h.Hops[0])
	// The same three from math/big.
	require.Equal(t, bigFloorMod(int64(now), 1000, 24), uint64(h.Hops[0].TS))
	require.Equal(t, bigFloorMod(int64(10*units.GB), 128, 20), uint64(h.Hops[0].TxBytes))
	require.Equal(t, bigFloorMod(12345, 80, 16), uint64(h.Hops[0].QLen))
}

// TestStampRounding pins the floor rule and the qLen saturation boundary.
func TestStampRounding(t *testing.T) {
	c := mustCodec(t, DefaultConfig())
	cases := []struct {
		now     units.Time
		tx, q   units.Bytes
		ts, txb uint32
		ql      uint16
		sat     bool
	}{
		{0, 0, 0, 0, 0, 0, false},
		{999, 127, 79, 0, 0, 0, false},   // just under one unit each: floor to 0
		{1000, 128, 80, 1, 1, 1, false},  // exactly one unit
		{1999, 255, 159, 1, 1, 1, false}, // just under two
		{(1<<24 - 1) * 1000, 1<<27 - 1, 5242800, 0xffffff, 0xfffff, 0xffff, false}, // field maxima; 65535·80 = 5242800
		{1 << 24 * 1000, 1 << 27, 5242879, 0, 0, 0xffff, false},                    // counters wrap to 0; 65535.99 floors to 65535
		{units.MaxTime, units.MaxBytes, 5242880, 0xe353f7, 0xfffff, 0xffff, true},  // 65536 units: saturates
		{0, 0, units.MaxBytes, 0, 0, 0xffff, true},
	}
	for _, tc := range cases {
		var h Header
		sat, err := c.Stamp(tc.now, &h, Port{Rate: 100 * units.Gbps, TxBytes: tc.tx, QLen: tc.q})
		require.NoError(t, err)
		require.Equal(t, tc.sat, sat, "qLen %d", tc.q)
		require.Equal(t, Hop{Speed: 4, TS: tc.ts, TxBytes: tc.txb, QLen: tc.ql}, h.Hops[0], "%+v", tc)
		require.Equal(t, bigFloorMod(int64(tc.now), 1000, 24), uint64(tc.ts))
		require.Equal(t, bigFloorMod(int64(tc.tx), 128, 20), uint64(tc.txb))
	}
}

// TestStampPastMaxHops: the (MaxHops+1)-th switch refuses, the header is
// left exactly as it was, and the error is ErrPathFull.
func TestStampPastMaxHops(t *testing.T) {
	for _, maxHops := range []int{1, 5, 15} {
		cfg := DefaultConfig()
		cfg.MaxHops = maxHops
		c := mustCodec(t, cfg)
		var h Header
		for i := range maxHops {
			_, err := c.Stamp(units.Time(i)*units.Microsecond, &h, Port{SwitchID: uint16(i + 1), Rate: 100 * units.Gbps})
			require.NoError(t, err)
		}
		require.Equal(t, uint8(maxHops), h.NHop)
		before := h
		sat, err := c.Stamp(units.Millisecond, &h, Port{SwitchID: 0x800, Rate: 100 * units.Gbps, QLen: units.MaxBytes})
		require.ErrorIs(t, err, ErrPathFull)
		require.ErrorContains(t, err, "Config.MaxHops")
		require.False(t, sat)
		require.Equal(t, before, h, "nHop, pathID and records unchanged")
		// What the sender receives still decodes: the first maxHops hops.
		buf, err := c.AppendHeader(nil, &h)
		require.NoError(t, err)
		var back Header
		_, err = c.Decode(buf, &back)
		require.NoError(t, err)
		require.Equal(t, before, back)
	}
}

func TestStampErrors(t *testing.T) {
	c := mustCodec(t, DefaultConfig())
	good := Port{SwitchID: 1, Rate: 100 * units.Gbps, TxBytes: 1, QLen: 1}
	cases := []struct {
		name string
		now  units.Time
		h    Header
		edit func(*Port)
		want error
		says string
	}{
		{"unknown rate", 0, Header{}, func(p *Port) { p.Rate = 99 * units.Gbps }, ErrUnknownSpeed, "Port.Rate = 99Gbps has no speed code"},
		{"zero rate", 0, Header{}, func(p *Port) { p.Rate = 0 }, ErrUnknownSpeed, "Port.Rate"},
		{"switch ID 13 bits", 0, Header{}, func(p *Port) { p.SwitchID = 0x1000 }, ErrFieldRange, "Port.SwitchID = 0x1000, want 0..0xfff"},
		{"negative now", -1, Header{}, func(*Port) {}, ErrFieldRange, "now = -1ps"},
		{"negative txBytes", 0, Header{}, func(p *Port) { p.TxBytes = -1 }, ErrFieldRange, "Port.TxBytes = -1"},
		{"negative qLen", 0, Header{}, func(p *Port) { p.QLen = -80 }, ErrFieldRange, "Port.QLen = -80"},
		{"header pathID 13 bits", 0, Header{PathID: 0x1fff}, func(*Port) {}, ErrFieldRange, "Header.PathID = 0x1fff"},
		{"header nHop above MaxHops", 0, Header{NHop: 9}, func(*Port) {}, ErrTooManyHops, "Header.NHop = 9"},
	}
	for _, tc := range cases {
		p := good
		tc.edit(&p)
		h := tc.h
		sat, err := c.Stamp(tc.now, &h, p)
		require.ErrorIs(t, err, tc.want, tc.name)
		require.ErrorContains(t, err, tc.says, tc.name)
		require.False(t, sat)
		require.Equal(t, tc.h, h, "%s: header unchanged", tc.name)
	}
}

// TestStampPathProperty: stamping n times gives nHop = n, pathID = XOR of
// the IDs, each record the quantised port state, and a header that survives
// the wire; a further stamp past MaxHops changes nothing.
func TestStampPathProperty(t *testing.T) {
	c := mustCodec(t, wideConfig())
	rates := []units.Rate{10, 25, 40, 50, 100, 200, 400, 800}
	props := gopter.NewProperties(params(1000))
	props.Property("n stamps: nHop = n, pathID = XOR(ids), records quantised", prop.ForAll(
		func(n int, all []uint16, base int64) bool {
			ids := all[:n]
			var h Header
			var xor uint16
			for i, id := range ids {
				// Distinct, deterministic port states per hop.
				now := units.Time(base + int64(i)*1_000_003)
				p := Port{SwitchID: id, Rate: rates[i%8] * units.Gbps,
					TxBytes: units.Bytes(base*3 + int64(i)*7919), QLen: units.Bytes(int64(i) * 40000)}
				if _, err := c.Stamp(now, &h, p); err != nil {
					return false
				}
				xor ^= id // the oracle: a fold over the IDs
				want := Hop{
					Speed:   uint8(i % 8),
					TS:      uint32(bigFloorMod(int64(now), 1000, 24)),
					TxBytes: uint32(bigFloorMod(int64(p.TxBytes), 128, 20)),
					QLen:    uint16(min(int64(i)*40000/80, 0xffff)),
				}
				if h.Hops[i] != want {
					return false
				}
			}
			if int(h.NHop) != len(ids) || h.PathID != xor {
				return false
			}
			buf, err := c.AppendHeader(nil, &h)
			var back Header
			if _, derr := c.Decode(buf, &back); err != nil || derr != nil || back != h {
				return false
			}
			if len(ids) == HopsLimit {
				before := h
				_, err := c.Stamp(0, &h, Port{SwitchID: 1, Rate: 10 * units.Gbps})
				return err != nil && h == before
			}
			return true
		},
		gen.IntRange(0, HopsLimit).WithLabel("hops"),
		gen.SliceOfN(HopsLimit, gen.UInt16Range(0, MaxPathID)).WithLabel("switch IDs"),
		gen.Int64Range(0, 1<<50).WithLabel("base"),
	))
	// Every path length 0..15 explicitly as well, with IDs 1..n.
	for n := 0; n <= HopsLimit; n++ {
		var h Header
		var xor uint16
		for i := 1; i <= n; i++ {
			_, err := c.Stamp(0, &h, Port{SwitchID: uint16(i * 0x111 & MaxPathID), Rate: 10 * units.Gbps})
			require.NoError(t, err)
			xor ^= uint16(i * 0x111 & MaxPathID)
		}
		require.Equal(t, uint8(n), h.NHop)
		require.Equal(t, xor, h.PathID)
	}
	props.TestingRun(t)
}

// TestStampINTMulti: ns-3's INT_MULTI scales both byte units; the records
// shrink by the factor and the decoded values stay lower bounds.
func TestStampINTMulti(t *testing.T) {
	cfg := DefaultConfig()
	cfg.TxBytesUnit, cfg.QLenUnit = 128*4, 80*4
	c := mustCodec(t, cfg)
	var h Header
	sat, err := c.Stamp(0, &h, Port{Rate: 25 * units.Gbps, TxBytes: 1 << 30, QLen: 20 * units.MB})
	require.NoError(t, err)
	require.False(t, sat) // 20 MB / 320 B = 62500 < 65536: fits with the wider unit
	require.Equal(t, uint32((1<<30)/512%(1<<20)), h.Hops[0].TxBytes)
	require.Equal(t, uint16(62500), h.Hops[0].QLen)
	v, err := c.Values(h.Hops[0])
	require.NoError(t, err)
	require.Equal(t, 20*units.MB, v.QLen)
}
