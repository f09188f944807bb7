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

// TestHPCCStampFields checks each record Dequeue pushes against its
// definition (section 4.1, Figure 7) computed from an unbounded byte
// counter kept by the test: txBytes = ⌊Σbytes/128⌋ mod 2^20 over the
// packets dequeued before this one, TS = ⌊now/1 ns⌋ mod 2^24, qLen =
// min(⌊qlen/80⌋, 0xFFFF), nHop + 1, pathID ^= switch ID; the records
// already on the stack are kept.
func TestHPCCStampFields(t *testing.T) {
	c := newTestHPCCPort(t, 0x5a5, 400*units.Gbps)
	var total uint64                                 // unbounded: the oracle
	now := units.Time(16_777_000) * units.Nanosecond // 216 ns before the TS wrap
	upstream := inttel.Hop{Speed: 1, TS: 7, TxBytes: 7, QLen: 7}
	for i := range 120000 {
		pkt := units.Bytes(64 + (i*7919)%9000)
		q := units.Bytes((i * 104729) % 6_000_000) // passes the 5.24 MB saturation at times
		hdr := inttel.Header{NHop: 1, PathID: 0x0f0}
		hdr.Hops[0] = upstream
		tel := hpccTel(t, &hdr)
		require.NoError(t, c.Dequeue(now, &cc.Packet{Size: pkt, Tel: tel}, cc.Queue{Len: q}, nil))
		hdr = hpccHeaderOf(t, tel)
		got := hdr.Hops[1]
		require.Equal(t, uint8(2), hdr.NHop)
		require.Equal(t, uint16(0x0f0^0x5a5), hdr.PathID)
		require.Equal(t, upstream, hdr.Hops[0])
		require.Equal(t, uint8(6), got.Speed) // 400 Gb/s
		require.Equal(t, uint32(uint64(now/units.Nanosecond)%(1<<24)), got.TS)
		require.Equal(t, uint32(total/128%(1<<20)), got.TxBytes, "packet %d", i)
		require.Equal(t, uint16(min(uint64(q)/80, 0xffff)), got.QLen)
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

// TestHPCCPathFull: a packet whose stack already holds the Codec's MaxHops
// records is forwarded as it is: no record, counted in PathFull (not an
// error), its bytes counted all the same.
func TestHPCCPathFull(t *testing.T) {
	c := newTestHPCCPort(t, 3, 100*units.Gbps)
	full := hpccTel(t, &inttel.Header{NHop: 5, PathID: 9})
	before := *full
	require.NoError(t, c.Dequeue(1, &cc.Packet{Size: 1500, Tel: full}, cc.Queue{}, nil))
	require.Equal(t, before, *full)
	s := c.State()
	require.Equal(t, uint64(1), s.PathFull)
	require.Zero(t, s.Stamped)
	require.Equal(t, uint64(1), s.Packets)
	require.Equal(t, units.Bytes(1500), s.TxBytes)
}

// TestHPCCTxRateFromTwoStamps: two records of a port busy at line rate
// give txRate = B through inttel's deltas, across the counter wrap.
func TestHPCCTxRateFromTwoStamps(t *testing.T) {
	c := newTestHPCCPort(t, 1, 100*units.Gbps)
	codec := c.Config().Codec
	// Bring the counter 1000 B below its 2^27 B wrap.
	require.NoError(t, c.Dequeue(0, &cc.Packet{Size: 1<<27 - 1000}, cc.Queue{}, nil))
	a, b := hpccTel(t, &inttel.Header{}), hpccTel(t, &inttel.Header{})
	now := units.Time(5) * units.Microsecond
	// 100 packets of 1280 B back to back at 100 Gb/s, 102.4 ns each, the
	// first carrying a, then the packet carrying b.
	for k := range 100 {
		p := cc.Packet{Size: 1280}
		if k == 0 {
			p.Tel = a
		}
		require.NoError(t, c.Dequeue(now, &p, cc.Queue{}, nil))
		now += units.SerializationTime(1280, 100*units.Gbps)
	}
	require.NoError(t, c.Dequeue(now, &cc.Packet{Size: 1280, Tel: b}, cc.Queue{}, nil))
	ra, rb := hpccHeaderOf(t, a).Hops[0], hpccHeaderOf(t, b).Hops[0]
	require.Less(t, rb.TxBytes, ra.TxBytes) // wrapped
	// First record: ⌊(2^27 − 1000)/128⌋ = 2^20 − 8 (remainder 24 B); second:
	// ⌊(2^27 + 127000)/128⌋ mod 2^20 = 992 (remainder 24 B again), so the
	// delta is exactly 1000 units = 128000 B, over exactly 10240 ns:
	// 128000·8/10.24 µs = 100 Gb/s.
	require.Equal(t, uint32(1<<20-8), ra.TxBytes)
	require.Equal(t, uint32(992), rb.TxBytes)
	r, err := codec.TxRate(ra, rb)
	require.NoError(t, err)
	require.Equal(t, 100*units.Gbps, r)
}

// FuzzHPCCStamp checks the port's wrapping counter against an unbounded
// one over arbitrary packet sizes (2 bytes each, big-endian), for any
// TxBytesUnit from the fuzz input: the txBytes of the record Dequeue
// pushes must equal ⌊Σbytes/unit⌋ mod 2^20 over the packets before it,
// and Dequeue must never fail on valid input.
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
			var tel cc.Telemetry
			var h inttel.Header
			if err := codec.Put(&tel, &h); err != nil {
				t.Fatal(err)
			}
			if err := c.Dequeue(0, &cc.Packet{Size: units.Bytes(pkt), Tel: &tel}, cc.Queue{}, nil); err != nil {
				t.Fatal(err)
			}
			if err := codec.Get(&tel, &h); err != nil {
				t.Fatal(err)
			}
			if want := uint32(total / u % (1 << 20)); h.Hops[0].TxBytes != want {
				t.Fatalf("txBytes = %d, want %d (total %d, unit %d)", h.Hops[0].TxBytes, want, total, u)
			}
			total += pkt
		}
	})
}
