package inttel

import (
	"testing"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
	"github.com/stretchr/testify/require"
)

// fiveHops is a full HPCC header (42 bytes) for the benchmarks.
func fiveHops(tb testing.TB, c *Codec) Header {
	var h Header
	for i := range 5 {
		_, err := c.Stamp(units.Time(i)*units.Microsecond, &h, Port{
			SwitchID: uint16(i + 1), Rate: 100 * units.Gbps, TxBytes: units.Bytes(i) * units.MB, QLen: 1000,
		})
		require.NoError(tb, err)
	}
	return h
}

// TestNoAllocs asserts that every per-packet operation, including the
// refused stamp past MaxHops and TxRate's zero-interval error, allocates
// nothing.
func TestNoAllocs(t *testing.T) {
	c := mustCodec(t, DefaultConfig())
	h := fiveHops(t, c)
	buf := make([]byte, 0, MaxLen)
	wire, err := c.AppendHeader(nil, &h)
	require.NoError(t, err)
	var sink Header
	port := Port{SwitchID: 9, Rate: 400 * units.Gbps, TxBytes: 1 << 40, QLen: 1 << 30}
	older, newer := h.Hops[0], h.Hops[1]
	var tel, full cc.Telemetry // a stack a switch pushes onto, and a full one
	require.NoError(t, c.Put(&full, &h))
	ops := []struct {
		name string
		op   func()
	}{
		{"AppendHeader", func() { buf, _ = c.AppendHeader(buf[:0], &h) }},
		{"Decode", func() { _, _ = c.Decode(wire, &sink) }},
		{"Stamp", func() {
			sink = Header{}
			_, _ = c.Stamp(units.Millisecond, &sink, port)
		}},
		{"Stamp ErrPathFull", func() { _, _ = c.Stamp(units.Millisecond, &h, port) }},
		{"Put", func() { _ = c.Put(&tel, &h) }},
		{"Get", func() { _ = c.Get(&full, &sink) }},
		{"ReadHeader", func() { _ = ReadHeader(wire, &sink) }},
		{"Push", func() {
			tel.Len, tel.Data[0], tel.Data[1] = PrefixLen, 0, 0 // the empty header
			_, _ = c.Push(units.Millisecond, &tel, port)        // port's queue saturates qLen
		}},
		{"Push ErrPathFull", func() { _, _ = c.Push(units.Millisecond, &full, port) }},
		{"Values", func() { _, _ = c.Values(newer) }},
		{"TxBytesDelta", func() { _ = c.TxBytesDelta(older, newer) }},
		{"TSDelta", func() { _ = c.TSDelta(older, newer) }},
		{"TxRate", func() { _, _ = c.TxRate(older, newer) }},
		{"TxRate ErrZeroInterval", func() { _, _ = c.TxRate(older, older) }},
		{"MaxSampleGap", func() { _ = c.MaxSampleGap(400 * units.Gbps) }},
		{"Code", func() { _, _ = c.Code(800 * units.Gbps) }},
		{"Rate", func() { _, _ = c.Rate(7) }},
	}
	for _, o := range ops {
		require.Zero(t, testing.AllocsPerRun(100, o.op), o.name)
	}
	// The refused stamp really was refused (so the 0 above measured that
	// path), and so was the push; the other push stamped, saturated.
	_, err = c.Stamp(0, &h, port)
	require.ErrorIs(t, err, ErrPathFull)
	_, err = c.Push(0, &full, port)
	require.ErrorIs(t, err, ErrPathFull)
	tel.Len, tel.Data[0], tel.Data[1] = PrefixLen, 0, 0
	sat, err := c.Push(0, &tel, port)
	require.NoError(t, err)
	require.True(t, sat)
	require.Equal(t, HeaderLen(1), int(tel.Len))
}

func BenchmarkAppendHeader(b *testing.B) {
	c := mustCodec(b, DefaultConfig())
	h := fiveHops(b, c)
	buf := make([]byte, 0, MaxLen)
	b.ReportAllocs()
	b.SetBytes(int64(h.Len()))
	for b.Loop() {
		buf, _ = c.AppendHeader(buf[:0], &h)
	}
}

func BenchmarkDecode(b *testing.B) {
	c := mustCodec(b, DefaultConfig())
	h := fiveHops(b, c)
	wire, _ := c.AppendHeader(nil, &h)
	var out Header
	b.ReportAllocs()
	b.SetBytes(int64(len(wire)))
	for b.Loop() {
		_, _ = c.Decode(wire, &out)
	}
}

func BenchmarkStamp(b *testing.B) {
	c := mustCodec(b, DefaultConfig())
	port := Port{SwitchID: 9, Rate: 400 * units.Gbps, TxBytes: 1 << 40, QLen: 12345}
	var h Header
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if h.NHop == 5 {
			h.NHop, h.PathID = 0, 0
		}
		port.TxBytes += 1500
		_, _ = c.Stamp(units.Time(i)*units.Nanosecond, &h, port)
	}
}

// BenchmarkPush is BenchmarkStamp on the wire form: one record pushed onto
// a frame's telemetry stack per call.
func BenchmarkPush(b *testing.B) {
	c := mustCodec(b, DefaultConfig())
	port := Port{SwitchID: 9, Rate: 400 * units.Gbps, TxBytes: 1 << 40, QLen: 12345}
	var tel cc.Telemetry
	tel.Len = PrefixLen
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if tel.Len == uint8(HeaderLen(5)) {
			tel.Len, tel.Data[0], tel.Data[1] = PrefixLen, 0, 0
		}
		port.TxBytes += 1500
		_, _ = c.Push(units.Time(i)*units.Nanosecond, &tel, port)
	}
}

// BenchmarkReadHeader and BenchmarkGet read a 5-hop stack: without a
// Codec (lengths only) and with one (Decode's checks).
func BenchmarkReadHeader(b *testing.B) {
	c := mustCodec(b, DefaultConfig())
	h := fiveHops(b, c)
	var tel cc.Telemetry
	require.NoError(b, c.Put(&tel, &h))
	var out Header
	b.ReportAllocs()
	b.SetBytes(int64(tel.Len))
	for b.Loop() {
		_ = ReadHeader(tel.Bytes(), &out)
	}
}

func BenchmarkGet(b *testing.B) {
	c := mustCodec(b, DefaultConfig())
	h := fiveHops(b, c)
	var tel cc.Telemetry
	require.NoError(b, c.Put(&tel, &h))
	var out Header
	b.ReportAllocs()
	b.SetBytes(int64(tel.Len))
	for b.Loop() {
		_ = c.Get(&tel, &out)
	}
}

func BenchmarkTxRate(b *testing.B) {
	c := mustCodec(b, DefaultConfig())
	older := Hop{Speed: 6, TS: 0xfffff0, TxBytes: 0xffff0}
	newer := Hop{Speed: 6, TS: 0x000060, TxBytes: 0x00020}
	b.ReportAllocs()
	for b.Loop() {
		_, _ = c.TxRate(older, newer)
	}
}
