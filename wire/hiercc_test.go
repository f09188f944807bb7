package wire

import (
	"encoding/binary"
	"errors"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/voq"
)

// Independent encoders written from the layout tables with
// encoding/binary, one field at a time.
func hierccRefHeader(h HierCCHeader) []byte {
	flags := byte(0)
	if h.Mark {
		flags = 1
	}
	b := []byte{1, flags}
	b = binary.BigEndian.AppendUint16(b, h.ToR)
	b = binary.BigEndian.AppendUint32(b, uint32(h.Dst))
	b = binary.BigEndian.AppendUint16(b, h.Flows)
	b = binary.BigEndian.AppendUint32(b, h.Sent)
	return append(b, 0, 0)
}

func hierccRefCredit(c HierCCCreditPacket) []byte {
	b := []byte{1, 1}
	b = binary.BigEndian.AppendUint16(b, c.ToR)
	b = binary.BigEndian.AppendUint32(b, uint32(c.Dst))
	b = binary.BigEndian.AppendUint32(b, c.Amount)
	return binary.BigEndian.AppendUint32(b, c.Total)
}

func hierccRefRate(r HierCCRatePacket) []byte {
	flags := byte(0)
	if r.Stop {
		flags = 1
	}
	b := []byte{2, 1, flags, 0}
	b = binary.BigEndian.AppendUint32(b, uint32(r.Flow))
	b = binary.BigEndian.AppendUint32(b, r.Rate)
	return binary.BigEndian.AppendUint32(b, uint32(r.Dst))
}

// TestHierCCLayouts: fields with distinct bytes land where the tables say
// (expected bytes written out by hand from the tables).
func TestHierCCLayouts(t *testing.T) {
	h := HierCCHeader{Mark: true, ToR: 0x0ABC, Dst: 0x01020304, Flows: 0x0506, Sent: 0x0708090A}
	b, err := h.Encode()
	require.NoError(t, err)
	require.Equal(t, [16]byte{1, 1, 0x0A, 0xBC, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0x0A, 0, 0}, b)

	c := HierCCCreditPacket{ToR: 0x0123, Dst: 0xA0B0C0D0, Amount: 1000, Total: 0xDEADBEEF}
	cb, err := c.Encode()
	require.NoError(t, err)
	require.Equal(t, [16]byte{1, 1, 0x01, 0x23, 0xA0, 0xB0, 0xC0, 0xD0, 0, 0, 0x03, 0xE8, 0xDE, 0xAD, 0xBE, 0xEF}, cb)

	r := HierCCRatePacket{Flow: 0x11223344, Rate: 25_000_000, Dst: 7}
	rb, err := r.Encode()
	require.NoError(t, err)
	// 25,000,000 kb/s = 0x017D7840.
	require.Equal(t, [16]byte{2, 1, 0, 0, 0x11, 0x22, 0x33, 0x44, 0x01, 0x7D, 0x78, 0x40, 0, 0, 0, 7}, rb)
	sb, err := HierCCRatePacket{Stop: true, Flow: 9}.Encode()
	require.NoError(t, err)
	require.Equal(t, [16]byte{2, 1, 1, 0, 0, 0, 0, 9}, sb)

	// AppendTo appends the same bytes.
	out, err := h.AppendTo([]byte{0xEE})
	require.NoError(t, err)
	require.Equal(t, append([]byte{0xEE}, b[:]...), out)
	out, err = c.AppendTo(nil)
	require.NoError(t, err)
	require.Equal(t, cb[:], out)
	out, err = r.AppendTo(nil)
	require.NoError(t, err)
	require.Equal(t, rb[:], out)

	// Put writes the header into a packet; Feedback builds the messages.
	var p cc.Packet
	require.NoError(t, h.Put(&p.Hdr))
	require.Equal(t, b, p.Hdr)
	f, err := r.Feedback()
	require.NoError(t, err)
	require.Equal(t, FeedbackHierCCRate, f.Kind)
	require.Equal(t, r.Flow, f.Flow)
	require.Equal(t, rb, f.Data)
	fc, err := c.Feedback()
	require.NoError(t, err)
	require.Equal(t, FeedbackHierCCCredit, fc.Kind)
	require.Equal(t, cb, fc.Data)
	require.GreaterOrEqual(t, FeedbackHierCCRate, cc.FeedbackUser)
}

// TestHierCCRoundTrip: for random valid values of every field, Encode agrees
// with the reference encoder and Decode gives the value back.
func TestHierCCRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for range 20000 {
		h := HierCCHeader{Mark: rng.Intn(2) == 0, ToR: uint16(rng.Intn(4096)), Dst: voq.Key(rng.Uint32()), Flows: uint16(rng.Uint32()), Sent: rng.Uint32()}
		b, err := h.Encode()
		require.NoError(t, err)
		require.Equal(t, hierccRefHeader(h), b[:])
		got, err := DecodeHierCCHeader(append(b[:], 0xFF)) // bytes past 16 are not read
		require.NoError(t, err)
		require.Equal(t, h, got)

		c := HierCCCreditPacket{ToR: uint16(rng.Intn(4096)), Dst: voq.Key(rng.Uint32()), Amount: 1 + uint32(rng.Intn(1<<30)), Total: rng.Uint32()}
		cb, err := c.Encode()
		require.NoError(t, err)
		require.Equal(t, hierccRefCredit(c), cb[:])
		gc, err := DecodeHierCCCreditPacket(cb[:])
		require.NoError(t, err)
		require.Equal(t, c, gc)

		r := HierCCRatePacket{Flow: cc.FlowID(rng.Uint32()), Dst: voq.Key(rng.Uint32())}
		if rng.Intn(4) == 0 {
			r.Stop = true
		} else {
			r.Rate = max(rng.Uint32(), 1)
		}
		rb, err := r.Encode()
		require.NoError(t, err)
		require.Equal(t, hierccRefRate(r), rb[:])
		gr, err := DecodeHierCCRatePacket(rb[:])
		require.NoError(t, err)
		require.Equal(t, r, gr)
	}
}

func hierccDecodeOffset(t *testing.T, err error) int {
	t.Helper()
	var de *cc.DecodeError
	require.ErrorAs(t, err, &de)
	require.ErrorIs(t, err, cc.ErrDecode)
	return de.Offset
}

// TestHierCCDecodeErrors: each malformed field is refused with its byte offset.
func TestHierCCDecodeErrors(t *testing.T) {
	good, _ := HierCCHeader{ToR: 5, Dst: 6}.Encode()
	for _, tc := range []struct {
		name   string
		mutate func(b []byte) []byte
		offset int
	}{
		{"short", func(b []byte) []byte { return b[:15] }, 15},
		{"empty", func(b []byte) []byte { return nil }, 0},
		{"no header (all zero)", func(b []byte) []byte { return make([]byte, 16) }, 0},
		{"version", func(b []byte) []byte { b[0] = 2; return b }, 0},
		{"flags", func(b []byte) []byte { b[1] = 2; return b }, 1},
		{"tor high bits", func(b []byte) []byte { b[2] = 0x10; return b }, 2},
		{"reserved 14", func(b []byte) []byte { b[14] = 1; return b }, 14},
		{"reserved 15", func(b []byte) []byte { b[15] = 1; return b }, 15},
	} {
		b := append([]byte(nil), good[:]...)
		_, err := DecodeHierCCHeader(tc.mutate(b))
		require.Equal(t, tc.offset, hierccDecodeOffset(t, err), tc.name)
	}
	cgood, _ := HierCCCreditPacket{ToR: 1, Dst: 2, Amount: 1000}.Encode()
	for _, tc := range []struct {
		name   string
		mutate func(b []byte) []byte
		offset int
	}{
		{"short", func(b []byte) []byte { return b[:3] }, 3},
		{"type", func(b []byte) []byte { b[0] = 2; return b }, 0},
		{"version", func(b []byte) []byte { b[1] = 0; return b }, 1},
		{"tor", func(b []byte) []byte { b[2] = 0xF0; return b }, 2},
		{"amount 0", func(b []byte) []byte { copy(b[8:12], []byte{0, 0, 0, 0}); return b }, 8},
		{"amount 2^30+1", func(b []byte) []byte { copy(b[8:12], []byte{0x40, 0, 0, 1}); return b }, 8},
	} {
		b := append([]byte(nil), cgood[:]...)
		_, err := DecodeHierCCCreditPacket(tc.mutate(b))
		require.Equal(t, tc.offset, hierccDecodeOffset(t, err), tc.name)
	}
	rgood, _ := HierCCRatePacket{Flow: 1, Rate: 5}.Encode()
	for _, tc := range []struct {
		name   string
		mutate func(b []byte) []byte
		offset int
	}{
		{"short", func(b []byte) []byte { return b[:0] }, 0},
		{"type", func(b []byte) []byte { b[0] = 1; return b }, 0},
		{"version", func(b []byte) []byte { b[1] = 9; return b }, 1},
		{"flags", func(b []byte) []byte { b[2] = 0x80; return b }, 2},
		{"reserved", func(b []byte) []byte { b[3] = 1; return b }, 3},
		{"stop with a rate", func(b []byte) []byte { b[2] = 1; return b }, 8},
		{"rate 0 without stop", func(b []byte) []byte { copy(b[8:12], []byte{0, 0, 0, 0}); return b }, 8},
	} {
		b := append([]byte(nil), rgood[:]...)
		_, err := DecodeHierCCRatePacket(tc.mutate(b))
		require.Equal(t, tc.offset, hierccDecodeOffset(t, err), tc.name)
	}
	// A credit never decodes as a rate packet and back.
	_, err := DecodeHierCCRatePacket(cgood[:])
	require.Equal(t, 0, hierccDecodeOffset(t, err))
	_, err = DecodeHierCCCreditPacket(rgood[:])
	require.Equal(t, 0, hierccDecodeOffset(t, err))

	// Decode methods leave the value unchanged on error.
	h := HierCCHeader{ToR: 7}
	require.Error(t, h.Decode(nil))
	require.Equal(t, HierCCHeader{ToR: 7}, h)
	c := HierCCCreditPacket{Amount: 3}
	require.Error(t, c.Decode(nil))
	require.Equal(t, uint32(3), c.Amount)
	r := HierCCRatePacket{Rate: 3}
	require.Error(t, r.Decode(nil))
	require.Equal(t, uint32(3), r.Rate)
}

// TestHierCCEncodeErrors: invalid values are refused with typed errors and
// AppendTo returns dst unchanged.
func TestHierCCEncodeErrors(t *testing.T) {
	for _, err := range []error{
		HierCCHeader{ToR: 4096}.Validate(),
		HierCCCreditPacket{Amount: 0}.Validate(),
		HierCCCreditPacket{Amount: 1<<30 + 1}.Validate(),
		HierCCCreditPacket{ToR: 5000, Amount: 1}.Validate(),
		HierCCRatePacket{Stop: true, Rate: 1}.Validate(),
		HierCCRatePacket{}.Validate(),
	} {
		require.ErrorIs(t, err, cc.ErrEvent)
	}
	dst := []byte{1, 2}
	out, err := HierCCHeader{ToR: 4096}.AppendTo(dst)
	require.Error(t, err)
	require.Equal(t, dst, out)
	var p cc.Packet
	require.Error(t, HierCCHeader{ToR: 4096}.Put(&p.Hdr))
	require.Equal(t, [16]byte{}, p.Hdr)
	_, err = HierCCRatePacket{}.Feedback()
	require.Error(t, err)
	_, err = HierCCCreditPacket{}.Feedback()
	require.Error(t, err)
}

// TestHierCCCodecAllocs: encode and decode allocate nothing.
func TestHierCCCodecAllocs(t *testing.T) {
	h := HierCCHeader{ToR: 1, Dst: 2, Flows: 3, Sent: 4}
	c := HierCCCreditPacket{ToR: 1, Dst: 2, Amount: 1000, Total: 5}
	r := HierCCRatePacket{Flow: 1, Rate: 2, Dst: 3}
	buf := make([]byte, 0, 64)
	var sink int
	n := testing.AllocsPerRun(200, func() {
		hb, _ := h.Encode()
		x, _ := DecodeHierCCHeader(hb[:])
		cb, _ := c.Encode()
		y, _ := DecodeHierCCCreditPacket(cb[:])
		rb, _ := r.Encode()
		z, _ := DecodeHierCCRatePacket(rb[:])
		b, _ := h.AppendTo(buf[:0])
		b, _ = c.AppendTo(b)
		b, _ = r.AppendTo(b)
		f, _ := r.Feedback()
		sink += int(x.Flows) + int(y.Amount) + int(z.Rate) + len(b) + int(f.Flow)
	})
	require.Zero(t, n)
	_ = sink
}

// refHost is an independent encoder of the host's header written from
// its table: version 0, the flags byte, fourteen zero bytes.
func hierccRefHost(mark, first, last bool) [cc.PacketHdrLen]byte {
	var b [cc.PacketHdrLen]byte
	for i, set := range []bool{mark, first, last} {
		if set {
			b[1] |= 1 << i
		}
	}
	return b
}

// TestHierCCHostHeader: the three flags land at bits 0, 1 and 2 of byte 1 (the
// reference encoder, and bytes written by hand), the mark where a ToR's
// header has its M bit; reserved bits of the flags are not written; for
// every flags byte (exhaustively) DecodeHostHeader reads back what
// HostHeader wrote, and what it accepts HostHeader writes back byte for
// byte.
func TestHierCCHostHeader(t *testing.T) {
	require.Equal(t, [cc.PacketHdrLen]byte{}, HierCCHostHeader(0), "no flag: none")
	require.Equal(t, [cc.PacketHdrLen]byte{1: 0x07}, HierCCHostHeader(HierCCFlagMark|HierCCFlagFirst|HierCCFlagLast))
	require.Equal(t, [cc.PacketHdrLen]byte{1: 0x04}, HierCCHostHeader(0xFC), "reserved bits dropped")
	m := HierCCHostHeader(HierCCFlagMark)
	h, _ := HierCCHeader{Mark: true}.Encode()
	require.Equal(t, h[1], m[1], "the mark at the M bit's place")
	for v := range 256 {
		f := HierCCFlags(v)
		b := HierCCHostHeader(f)
		want := hierccRefHost(f&HierCCFlagMark != 0, f&HierCCFlagFirst != 0, f&HierCCFlagLast != 0)
		require.Equal(t, want, b, "flags %#x", v)
		got, err := DecodeHierCCHostHeader(b[:])
		require.NoError(t, err)
		require.Equal(t, f&7, got, "flags %#x", v)

		// Byte 1 as a decoder sees it: accepted exactly when no reserved
		// bit is set, and then written back as it was.
		raw := [cc.PacketHdrLen]byte{1: byte(v)}
		got, err = DecodeHierCCHostHeader(raw[:])
		if v&^7 != 0 {
			require.Equal(t, 1, hierccDecodeOffset(t, err), "flags byte %#x", v)
			continue
		}
		require.NoError(t, err)
		require.Equal(t, raw, HierCCHostHeader(got))
	}
}

// TestHierCCHostHeaderDecodeErrors: short input, a version (every nonzero
// value: a ToR's header is not a host's, nor the reverse), and every
// nonzero value of every reserved byte are refused at their offsets, the
// first nonzero reserved byte named.
func TestHierCCHostHeaderDecodeErrors(t *testing.T) {
	good := HierCCHostHeader(HierCCFlagMark | HierCCFlagLast)
	for n := range 16 {
		_, err := DecodeHierCCHostHeader(good[:n])
		require.Equal(t, n, hierccDecodeOffset(t, err), "short %d", n)
	}
	for v := 1; v < 256; v++ {
		b := good
		b[0] = byte(v)
		_, err := DecodeHierCCHostHeader(b[:])
		require.Equal(t, 0, hierccDecodeOffset(t, err), "version %d", v)
		for i := 2; i < 16; i++ {
			b := good
			b[i] = byte(v)
			b[15] |= 1 // a later one is not named
			_, err := DecodeHierCCHostHeader(b[:])
			require.Equal(t, i, hierccDecodeOffset(t, err), "byte %d = %#x", i, v)
		}
	}
	th, _ := HierCCHeader{Mark: true, ToR: 1}.Encode()
	_, err := DecodeHierCCHostHeader(th[:])
	require.Equal(t, 0, hierccDecodeOffset(t, err), "a ToR's header")
	_, err = DecodeHierCCHeader(good[:])
	require.Equal(t, 0, hierccDecodeOffset(t, err), "a host's header is no ToR's")
	require.ErrorContains(t, err, "HierCC header")
	_, err = DecodeHierCCHostHeader(th[:])
	require.ErrorContains(t, err, "HierCC host header: byte 0: version 1")
}

// TestHierCCHostHeaderAllocs: writing and reading a host's header allocate
// nothing.
func TestHierCCHostHeaderAllocs(t *testing.T) {
	var sink HierCCFlags
	var p cc.Packet
	require.Zero(t, testing.AllocsPerRun(200, func() {
		p.Hdr = HierCCHostHeader(sink + 1)
		f, _ := DecodeHierCCHostHeader(p.Hdr[:])
		sink = f & 3
	}))
}

// checkDecoded is the fuzz targets' shared oracle: a decoder either
// refuses with a *cc.DecodeError whose offset lies in 0..16, or accepts,
// and then Encode writes back the first 16 bytes exactly.
func hierccCheckDecoded(t *testing.T, data []byte, err error, enc func() ([16]byte, error)) {
	if err != nil {
		var de *cc.DecodeError
		if !errors.As(err, &de) || de.Offset < 0 || de.Offset > 16 {
			t.Fatalf("error %v is not a DecodeError with an offset in 0..16", err)
		}
		return
	}
	b, err := enc()
	if err != nil {
		t.Fatalf("decoded a value Encode refuses: %v", err)
	}
	if string(b[:]) != string(data[:16]) {
		t.Fatalf("round trip: % x became % x", data[:16], b)
	}
}

func FuzzHierCCHeader(f *testing.F) {
	b, _ := HierCCHeader{Mark: true, ToR: 4095, Dst: 9, Flows: 3, Sent: 1 << 31}.Encode()
	f.Add(b[:])
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := DecodeHierCCHeader(data)
		hierccCheckDecoded(t, data, err, h.Encode)
	})
}

func FuzzHierCCCreditPacket(f *testing.F) {
	b, _ := HierCCCreditPacket{ToR: 3, Dst: 4, Amount: 1000, Total: 77}.Encode()
	f.Add(b[:])
	f.Add([]byte{1, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := DecodeHierCCCreditPacket(data)
		hierccCheckDecoded(t, data, err, c.Encode)
	})
}

func FuzzHierCCRatePacket(f *testing.F) {
	b, _ := HierCCRatePacket{Flow: 3, Rate: 1000, Dst: 4}.Encode()
	f.Add(b[:])
	s, _ := HierCCRatePacket{Flow: 3, Stop: true}.Encode()
	f.Add(s[:])
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := DecodeHierCCRatePacket(data)
		hierccCheckDecoded(t, data, err, r.Encode)
	})
}

// FuzzHierCCHostHeader: DecodeHostHeader refuses with a *cc.DecodeError at an
// offset in 0..16, or accepts and HostHeader writes back the first 16
// bytes; nothing both it and DecodeHeader accept.
func FuzzHierCCHostHeader(f *testing.F) {
	b := HierCCHostHeader(HierCCFlagMark | HierCCFlagFirst)
	f.Add(b[:])
	f.Add([]byte{0, 8})
	f.Fuzz(func(t *testing.T, data []byte) {
		fl, err := DecodeHierCCHostHeader(data)
		hierccCheckDecoded(t, data, err, func() ([16]byte, error) { return HierCCHostHeader(fl), nil })
		if _, err2 := DecodeHierCCHeader(data); err == nil && err2 == nil {
			t.Fatalf("% x decodes as both a host's and a ToR's header", data)
		}
	})
}

func BenchmarkHierCCCodecs(b *testing.B) {
	hd := HierCCHeader{ToR: 1, Dst: 2, Flows: 3, Sent: 4}
	b.ReportAllocs()
	for range b.N {
		var p cc.Packet
		_ = hd.Put(&p.Hdr)
		x, _ := DecodeHierCCHeader(p.Hdr[:])
		f, _ := HierCCRatePacket{Flow: 1, Rate: x.Sent}.Feedback()
		_, _ = DecodeHierCCRatePacket(f.Data[:])
	}
}
