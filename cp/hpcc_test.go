package cp

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	inttel "github.com/hwcc/hwcc/int"
	"github.com/hwcc/hwcc/units"
)

func newTestHPCCPort(t testing.TB, id uint16, rate units.Rate) *HPCC {
	t.Helper()
	c, err := NewHPCC(HPCCConfig{SwitchID: id, Rate: rate})
	require.NoError(t, err)
	return c
}

// hpccWire writes the wire form of any header whose fields fit their
// widths and speed codes are the default ones, up to 15 hops: a stack as a
// port may receive it, even one above the port's MaxHops.
var hpccWire = func() *inttel.Codec {
	cfg := inttel.DefaultConfig()
	cfg.MaxHops = inttel.HopsLimit
	c, err := inttel.NewCodec(cfg)
	if err != nil {
		panic(err)
	}
	return c
}()

// hpccTel returns a telemetry stack holding h's wire form (inttel's Put).
func hpccTel(t testing.TB, h *inttel.Header) *cc.Telemetry {
	t.Helper()
	var tel cc.Telemetry
	require.NoError(t, hpccWire.Put(&tel, h))
	return &tel
}

// hpccHeaderOf reads the header a stack holds (inttel's ReadHeader).
func hpccHeaderOf(t testing.TB, tel *cc.Telemetry) inttel.Header {
	t.Helper()
	var h inttel.Header
	require.NoError(t, inttel.ReadHeader(tel.Bytes(), &h))
	return h
}

func TestHPCCConfigErrors(t *testing.T) {
	var ce *cc.ConfigError
	_, err := NewHPCC(HPCCConfig{SwitchID: 0x1000, Rate: 100 * units.Gbps})
	require.ErrorAs(t, err, &ce)
	require.Equal(t, "SwitchID", ce.Field)
	require.Equal(t, "0x1000", ce.Value)
	_, err = NewHPCC(HPCCConfig{SwitchID: 1, Rate: 99 * units.Gbps})
	require.ErrorAs(t, err, &ce)
	require.Equal(t, "Rate", ce.Field)
	require.ErrorContains(t, err, "99Gbps")
	c := newTestHPCCPort(t, 0xfff, 10*units.Gbps) // 10 Gb/s has a code (the ns-3 code's table lacks it)
	require.NotNil(t, c.Config().Codec)
}

// TestHPCCStampFields checks each stamped field against its definition
// (section 4.1, Figure 7) computed from an unbounded byte counter kept by
// the test: txBytes = ⌊Σbytes/128⌋ mod 2^20, TS = ⌊now/1 ns⌋ mod 2^24,
// qLen = min(⌊qlen/80⌋, 0xFFFF), nHop + 1, pathID ^= switch ID.
func TestHPCCStampFields(t *testing.T) {
	c := newTestHPCCPort(t, 0x5a5, 400*units.Gbps)
	var total uint64                                 // unbounded: the oracle
	now := units.Time(16_777_000) * units.Nanosecond // 216 ns before the TS wrap
	for i := range 120000 {
		pkt := units.Bytes(64 + (i*7919)%9000)
		q := units.Bytes((i * 104729) % 6_000_000) // passes the 5.24 MB saturation at times
		hdr := inttel.Header{NHop: 1, PathID: 0x0f0}
		hdr.Hops[0] = inttel.Hop{Speed: 1, TS: 7, TxBytes: 7, QLen: 7}
		require.NoError(t, c.Stamp(now, &hdr, q))
		got := hdr.Hops[1]
		require.Equal(t, uint8(2), hdr.NHop)
		require.Equal(t, uint16(0x0f0^0x5a5), hdr.PathID)
		require.Equal(t, uint8(6), got.Speed) // 400 Gb/s
		require.Equal(t, uint32(uint64(now/units.Nanosecond)%(1<<24)), got.TS)
		require.Equal(t, uint32(total/128%(1<<20)), got.TxBytes, "packet %d", i)
		require.Equal(t, uint16(min(uint64(q)/80, 0xffff)), got.QLen)
		require.NoError(t, c.OnDequeue(now, pkt, q))
		total += uint64(pkt)
		now += units.SerializationTime(pkt, 400*units.Gbps)
	}
	// 120000 packets of ~4.5 KB: about 540 MB, four txBytes wraps.
	require.Greater(t, total, uint64(4)<<27)
	s := c.State()
	require.Equal(t, uint64(120000), s.Packets)
	require.Equal(t, uint64(120000), s.Stamped)
	require.Positive(t, s.QLenSaturated)
	require.Equal(t, units.Bytes(total%(1<<27)), s.TxBytes)
}

func TestHPCCPathFullAndErrors(t *testing.T) {
	c := newTestHPCCPort(t, 3, 100*units.Gbps)
	full := inttel.Header{NHop: 5, PathID: 9}
	before := full
	require.NoError(t, c.Stamp(1, &full, 0)) // forwarded without a record
	require.Equal(t, before, full)
	require.Equal(t, uint64(1), c.State().PathFull)

	err := c.Stamp(1, nil, 0)
	require.ErrorIs(t, err, cc.ErrEvent)
	var h inttel.Header
	err = c.Stamp(-1, &h, 0)
	require.ErrorIs(t, err, cc.ErrTimeOrder)
	err = c.Stamp(1, &h, -5)
	require.ErrorIs(t, err, cc.ErrEvent)
	require.ErrorIs(t, err, inttel.ErrFieldRange)
	bad := inttel.Header{PathID: 0x1000}
	err = c.Stamp(1, &bad, 0)
	require.ErrorIs(t, err, cc.ErrEvent)
	require.ErrorIs(t, err, inttel.ErrFieldRange)
	require.Zero(t, h.NHop)
	require.ErrorIs(t, c.OnDequeue(1, -1, 0), cc.ErrEvent)
	require.ErrorIs(t, c.OnDequeue(1, 1, -1), cc.ErrEvent)
	require.ErrorIs(t, c.OnDequeue(0, 1, 1), cc.ErrTimeOrder) // the stamp at 1 was accepted
	require.Zero(t, c.State().Packets)
}

// TestHPCCTxRateFromTwoStamps: two records of a port busy at line rate
// give txRate = B through inttel's deltas, across the counter wrap.
func TestHPCCTxRateFromTwoStamps(t *testing.T) {
	c := newTestHPCCPort(t, 1, 100*units.Gbps)
	codec := c.Config().Codec
	// Bring the counter 1000 B below its 2^27 B wrap.
	require.NoError(t, c.OnDequeue(0, 1<<27-1000, 0))
	var a, b inttel.Header
	now := units.Time(5) * units.Microsecond
	require.NoError(t, c.Stamp(now, &a, 0))
	// 100 packets of 1280 B back to back at 100 Gb/s: 102.4 ns each.
	for range 100 {
		require.NoError(t, c.OnDequeue(now, 1280, 0))
		now += units.SerializationTime(1280, 100*units.Gbps)
	}
	require.NoError(t, c.Stamp(now, &b, 0))
	require.Less(t, b.Hops[0].TxBytes, a.Hops[0].TxBytes) // wrapped
	// First record: ⌊(2^27 − 1000)/128⌋ = 2^20 − 8 (remainder 24 B); second:
	// ⌊(2^27 + 127000)/128⌋ mod 2^20 = 992 (remainder 24 B again), so the
	// delta is exactly 1000 units = 128000 B, over exactly 10240 ns:
	// 128000·8/10.24 µs = 100 Gb/s.
	require.Equal(t, uint32(1<<20-8), a.Hops[0].TxBytes)
	require.Equal(t, uint32(992), b.Hops[0].TxBytes)
	r, err := codec.TxRate(a.Hops[0], b.Hops[0])
	require.NoError(t, err)
	require.Equal(t, 100*units.Gbps, r)
}

func TestHPCCNoAllocs(t *testing.T) {
	c := newTestHPCCPort(t, 7, 100*units.Gbps)
	i := 0
	allocs := testing.AllocsPerRun(1000, func() {
		var h inttel.Header
		_ = c.Stamp(units.Time(i)*units.Nanosecond, &h, units.Bytes(i))
		_ = c.OnDequeue(units.Time(i)*units.Nanosecond, 1000, units.Bytes(i))
		full := inttel.Header{NHop: 5}
		_ = c.Stamp(units.Time(i)*units.Nanosecond, &full, 0) // the path-full case must not allocate either
		i++
	})
	require.Zero(t, allocs)
}

func BenchmarkHPCCStamp(b *testing.B) {
	c := newTestHPCCPort(b, 7, 100*units.Gbps)
	b.ReportAllocs()
	var h inttel.Header
	for i := 0; b.Loop(); i++ {
		h.NHop = 0
		_ = c.Stamp(units.Time(i)*units.Nanosecond, &h, units.Bytes(i&0xffff))
		_ = c.OnDequeue(units.Time(i)*units.Nanosecond, 1000, units.Bytes(i&0xffff))
	}
}

// FuzzHPCCStamp checks the port's wrapping counter against an unbounded
// one over arbitrary packet sizes (2 bytes each, big-endian), for any
// TxBytesUnit from the fuzz input: the stamped txBytes must equal
// ⌊Σbytes/unit⌋ mod 2^20, and Stamp must never fail on valid input.
func FuzzHPCCStamp(f *testing.F) {
	f.Add(uint16(128), []byte{0x05, 0xdc, 0x00, 0x40})      // 1500 B then 64 B at 128 B units
	f.Add(uint16(80), []byte{0xff, 0xff, 0xff, 0xff, 0, 1}) // a non-power-of-two unit
	f.Add(uint16(1), []byte{})                              // unit 1 B, no packet
	f.Fuzz(func(t *testing.T, unit uint16, sizes []byte) {
		cfg := inttel.DefaultConfig()
		cfg.TxBytesUnit = units.Bytes(max(unit, 1))
		codec, err := inttel.NewCodec(cfg)
		if err != nil {
			t.Fatal(err)
		}
		c, err := NewHPCC(HPCCConfig{SwitchID: 1, Rate: 100 * units.Gbps, Codec: codec})
		if err != nil {
			t.Fatal(err)
		}
		var total uint64
		u := uint64(max(unit, 1))
		// Each 2-byte size is scaled by 4096 so that a few hundred bytes of
		// input cross the 2^20-unit wrap.
		for len(sizes) >= 2 {
			pkt := uint64(binary.BigEndian.Uint16(sizes)) << 12
			sizes = sizes[2:]
			var h inttel.Header
			if err := c.Stamp(0, &h, 0); err != nil {
				t.Fatal(err)
			}
			if want := uint32(total / u % (1 << 20)); h.Hops[0].TxBytes != want {
				t.Fatalf("txBytes = %d, want %d (total %d, unit %d)", h.Hops[0].TxBytes, want, total, u)
			}
			if err := c.OnDequeue(0, units.Bytes(pkt), 0); err != nil {
				t.Fatal(err)
			}
			total += pkt
		}
	})
}
