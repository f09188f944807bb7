package wire_test

import (
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// expressPassPropSeed fixes gopter's random source for the ExpressPass
// codec properties; override with -wire.expresspass.seed=N.
var expressPassPropSeed = flag.Int64("wire.expresspass.seed", 20070401, "seed of the ExpressPass codec properties")

func expressPassProperties(minSuccess int) *gopter.Properties {
	p := gopter.DefaultTestParametersWithSeed(*expressPassPropSeed)
	p.MinSuccessfulTests = minSuccess
	return gopter.NewProperties(p)
}

// xpRef is an independent encoder written from the layout table with
// encoding/binary: type, version 1, two zero bytes, then flow, seq and ts
// as big-endian 32-bit words.
func xpRef(p wire.ExpressPassPacket) []byte {
	b := []byte{byte(p.Type), 1, 0, 0}
	b = binary.BigEndian.AppendUint32(b, uint32(p.Flow))
	b = binary.BigEndian.AppendUint32(b, p.Seq)
	return binary.BigEndian.AppendUint32(b, p.TS)
}

// TestExpressPassPacketLayout: packets with distinct bytes land where the
// layout table says (bytes worked out by hand from it).
func TestExpressPassPacketLayout(t *testing.T) {
	c := wire.ExpressPassPacket{Type: wire.ExpressPassTypeCredit, Flow: 0x01020304, Seq: 0xA0B0C0D0, TS: 0xDEADBEEF}
	b, err := c.Encode()
	require.NoError(t, err)
	require.Equal(t, [16]byte{0x03, 0x01, 0, 0, 0x01, 0x02, 0x03, 0x04, 0xA0, 0xB0, 0xC0, 0xD0, 0xDE, 0xAD, 0xBE, 0xEF}, b)
	req, err := wire.ExpressPassPacket{Type: wire.ExpressPassTypeRequest, Flow: 9, TS: 1}.Encode()
	require.NoError(t, err)
	require.Equal(t, [16]byte{1, 1, 0, 0, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0, 1}, req)
	stop, err := wire.ExpressPassPacket{Type: wire.ExpressPassTypeStop, Flow: 0xFFFFFFFF}.Encode()
	require.NoError(t, err)
	require.Equal(t, [16]byte{2, 1, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF}, stop)

	out, err := c.AppendTo([]byte{0xEE})
	require.NoError(t, err)
	require.Equal(t, append([]byte{0xEE}, b[:]...), out)
	require.Equal(t, 16, wire.ExpressPassPacketSize)
	require.LessOrEqual(t, wire.ExpressPassPacketSize, cc.FeedbackDataLen)

	for typ, want := range map[wire.ExpressPassType]string{
		1: "credit-request", 2: "credit-stop", 3: "credit", 0: "reserved(0)", 4: "reserved(4)", 255: "reserved(255)",
	} {
		require.Equal(t, want, typ.String())
	}
	require.Equal(t, cc.FeedbackCredit, wire.ExpressPassTypeCredit.Kind())
	require.Equal(t, cc.FeedbackCreditRequest, wire.ExpressPassTypeRequest.Kind())
	require.Equal(t, cc.FeedbackCreditStop, wire.ExpressPassTypeStop.Kind())
	require.Equal(t, cc.FeedbackNone, wire.ExpressPassType(0).Kind())

	// TS: whole nanoseconds, floored, mod 2^32.
	for _, tc := range []struct {
		now  units.Time
		want uint32
	}{
		{0, 0}, {999, 0}, {1000, 1}, {1999, 1}, {units.Second, 1_000_000_000},
		{(1<<32 + 5) * units.Nanosecond, 5}, {(1<<32 - 1) * units.Nanosecond, 0xFFFFFFFF},
	} {
		require.Equal(t, tc.want, wire.ExpressPassTS(tc.now), "%v", tc.now)
	}
}

// TestExpressPassPacketRoundTrip: for every valid packet (gopter over all
// field ranges) Encode agrees with the independent encoder, and Decode
// gives the packet back; bytes past the 16th are not read.
func TestExpressPassPacketRoundTrip(t *testing.T) {
	props := expressPassProperties(3000)
	props.Property("Decode(Encode(p)) = p, Encode = reference", prop.ForAll(
		func(typ uint8, flow, seq, ts uint32) bool {
			p := wire.ExpressPassPacket{Type: wire.ExpressPassType(typ), Flow: cc.FlowID(flow), TS: ts}
			if p.Type == wire.ExpressPassTypeCredit {
				p.Seq = max(seq, 1)
			}
			b, err := p.Encode()
			if err != nil || string(b[:]) != string(xpRef(p)) {
				return false
			}
			q, err := wire.DecodeExpressPassPacket(append(b[:], 0xFF, 0x01))
			var r wire.ExpressPassPacket
			return err == nil && q == p && r.Decode(b[:]) == nil && r == p
		},
		gen.UInt8Range(1, 3).WithLabel("type"),
		gen.UInt32().WithLabel("flow"),
		gen.UInt32().WithLabel("seq"),
		gen.UInt32().WithLabel("ts"),
	))
	props.TestingRun(t)
}

// xpDecodeOffset decodes b, requires a *cc.DecodeError and returns its
// offset.
func xpDecodeOffset(t *testing.T, b []byte) int {
	t.Helper()
	_, err := wire.DecodeExpressPassPacket(b)
	var de *cc.DecodeError
	require.ErrorAs(t, err, &de, "% x", b)
	require.ErrorIs(t, err, cc.ErrDecode)
	require.True(t, cc.Typed(err))
	return de.Offset
}

// TestExpressPassPacketDecodeErrors: each malformation is a
// *cc.DecodeError at its byte offset, in the documented order; the
// acceptance of bytes 0 and 1 is checked exhaustively.
func TestExpressPassPacketDecodeErrors(t *testing.T) {
	good := [16]byte{3, 1, 0, 0, 0, 0, 0, 5, 0, 0, 0, 7, 0, 0, 0, 9} // credit 7 of flow 5 at 9 ns
	_, err := wire.DecodeExpressPassPacket(good[:])
	require.NoError(t, err)
	for n := range 16 {
		require.Equal(t, n, xpDecodeOffset(t, good[:n]), "short %d", n)
	}
	require.Equal(t, 0, xpDecodeOffset(t, nil))
	edit := func(f func(b *[16]byte)) []byte {
		b := good
		f(&b)
		return b[:]
	}
	for _, tc := range []struct {
		name string
		b    []byte
		off  int
	}{
		{"all zero: no version", make([]byte, 16), 1},
		{"version 0", edit(func(b *[16]byte) { b[1] = 0 }), 1},
		{"version 2", edit(func(b *[16]byte) { b[1] = 2 }), 1},
		{"version before type", edit(func(b *[16]byte) { b[0], b[1] = 9, 9 }), 1},
		{"type 0", edit(func(b *[16]byte) { b[0] = 0 }), 0},
		{"type 4 (ns-2's data)", edit(func(b *[16]byte) { b[0] = 4 }), 0},
		{"type 255", edit(func(b *[16]byte) { b[0] = 255 }), 0},
		{"reserved byte 2", edit(func(b *[16]byte) { b[2] = 0x80 }), 2},
		{"reserved byte 3", edit(func(b *[16]byte) { b[3] = 1 }), 3},
		{"reserved before seq", edit(func(b *[16]byte) { b[3], b[11] = 1, 0 }), 3},
		{"credit seq 0", edit(func(b *[16]byte) { b[11] = 0 }), 8},
		{"request seq 7", edit(func(b *[16]byte) { b[0] = 1 }), 8},
		{"stop seq 2^24", edit(func(b *[16]byte) { b[0], b[8], b[11] = 2, 1, 0 }), 8},
	} {
		require.Equal(t, tc.off, xpDecodeOffset(t, tc.b), tc.name)
	}

	// Bytes 0 and 1 exhaustively: accepted exactly when the version is 1
	// and the type 1..3 (with the sequence number each type needs).
	for h := range 1 << 16 {
		b := good
		b[0], b[1] = byte(h>>8), byte(h)
		if b[0] != 3 {
			b[11] = 0 // a request or stop carries sequence number 0
		}
		_, err := wire.DecodeExpressPassPacket(b[:])
		want := b[1] == 1 && b[0] >= 1 && b[0] <= 3
		require.Equal(t, want, err == nil, "% x: %v", b[:2], err)
	}

	// A failed Decode leaves the packet as it was.
	p := wire.ExpressPassPacket{Flow: 1}
	require.Error(t, p.Decode(edit(func(b *[16]byte) { b[2] = 1 })))
	require.Equal(t, wire.ExpressPassPacket{Flow: 1}, p)
}

// TestExpressPassPacketEncodeErrors: a packet that is not valid is
// refused, never written, and AppendTo returns dst unchanged.
func TestExpressPassPacketEncodeErrors(t *testing.T) {
	for _, p := range []wire.ExpressPassPacket{
		{}, {Type: 4, Seq: 1}, {Type: wire.ExpressPassTypeCredit},
		{Type: wire.ExpressPassTypeRequest, Seq: 1}, {Type: wire.ExpressPassTypeStop, Seq: 0xFFFFFFFF},
	} {
		b, err := p.Encode()
		require.ErrorIs(t, err, cc.ErrEvent, "%+v", p)
		require.True(t, cc.Typed(err))
		require.Equal(t, [16]byte{}, b)
		dst := []byte{1, 2}
		out, err := p.AppendTo(dst)
		require.Error(t, err)
		require.Equal(t, []byte{1, 2}, out)
	}
}

// TestExpressPassPacketNoAllocs: the codec allocates nothing on success.
func TestExpressPassPacketNoAllocs(t *testing.T) {
	p := wire.ExpressPassPacket{Type: wire.ExpressPassTypeCredit, Flow: 3, Seq: 77, TS: 123}
	buf := make([]byte, 0, 64)
	var q wire.ExpressPassPacket
	require.Zero(t, testing.AllocsPerRun(1000, func() {
		b, _ := p.Encode()
		buf, _ = p.AppendTo(buf[:0])
		q, _ = wire.DecodeExpressPassPacket(b[:])
		_ = q.Decode(buf)
	}))
	require.Equal(t, p, q)
}

// FuzzDecodeExpressPassPacket: Decode never panics; it either refuses with
// a *cc.DecodeError at one of the documented offsets (len(b) when short),
// or returns a packet that encodes back to the same 16 bytes and decodes
// again to itself (decode∘encode∘decode = decode).
func FuzzDecodeExpressPassPacket(f *testing.F) {
	for _, p := range []wire.ExpressPassPacket{
		{Type: wire.ExpressPassTypeCredit, Flow: 0x01020304, Seq: 0xA0B0C0D0, TS: 0xDEADBEEF},
		{Type: wire.ExpressPassTypeRequest, Flow: 9, TS: 1},
		{Type: wire.ExpressPassTypeStop},
	} {
		b, _ := p.Encode()
		f.Add(b[:])
	}
	f.Add(make([]byte, 16))
	f.Add([]byte{3, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0xAA})
	f.Add([]byte{3, 1, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := wire.DecodeExpressPassPacket(b)
		if err != nil {
			var de *cc.DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("error %v (%T) for % x", err, err, b)
			}
			ok := de.Offset == len(b) && len(b) < 16 ||
				len(b) >= 16 && (de.Offset <= 3 || de.Offset == 8)
			if !ok {
				t.Fatalf("offset %d for % x: %v", de.Offset, b, err)
			}
			return
		}
		out, err := p.Encode()
		if err != nil || string(out[:]) != string(b[:16]) {
			t.Fatalf("decode(% x) = %+v, encodes to % x, %v", b, p, out, err)
		}
		q, err := wire.DecodeExpressPassPacket(out[:])
		if err != nil || q != p {
			t.Fatalf("decode(encode(%+v)) = %+v, %v", p, q, err)
		}
	})
}

// xpEchoRef is an independent encoder of a data frame's header written
// from PutExpressPassEcho's table, byte by byte: seq's bytes most
// significant first, then eight zero bytes.
func xpEchoRef(seq uint64) (b [cc.PacketHdrLen]byte) {
	for i := range 8 {
		b[i] = byte(seq >> (56 - 8*i))
	}
	return b
}

// TestExpressPassEchoLayout: echoes land where the table says (bytes
// worked out by hand), the reserved bytes are cleared whatever they held,
// and an all-zero header is echo 0.
func TestExpressPassEchoLayout(t *testing.T) {
	for _, tc := range []struct {
		seq  uint64
		want [cc.PacketHdrLen]byte
	}{
		{0, [cc.PacketHdrLen]byte{}},
		{7, [cc.PacketHdrLen]byte{7: 7}},
		{0xFFFFFFFF, [cc.PacketHdrLen]byte{4: 0xFF, 5: 0xFF, 6: 0xFF, 7: 0xFF}},
		{1 << 32, [cc.PacketHdrLen]byte{3: 1}},
		{0x0102030405060708, [cc.PacketHdrLen]byte{1, 2, 3, 4, 5, 6, 7, 8}},
	} {
		hdr := [cc.PacketHdrLen]byte{0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE}
		wire.PutExpressPassEcho(&hdr, tc.seq)
		require.Equal(t, tc.want, hdr, "%#x", tc.seq)
		e, err := wire.ExpressPassEcho(&hdr)
		require.NoError(t, err)
		require.Equal(t, tc.seq, e)
	}
	require.Equal(t, 8, wire.ExpressPassEchoSize)
}

// TestExpressPassEchoRoundTrip: for every echo (gopter over all 64 bits)
// written over any header, PutExpressPassEcho agrees with the independent
// encoder and ExpressPassEcho reads the echo back; for every header whose
// reserved bytes are zero, ExpressPassEcho accepts it and
// PutExpressPassEcho writes it back byte for byte.
func TestExpressPassEchoRoundTrip(t *testing.T) {
	props := expressPassProperties(3000)
	props.Property("Echo(Put(seq)) = seq, Put = reference", prop.ForAll(
		func(seq, junk0, junk1 uint64) bool {
			var hdr [cc.PacketHdrLen]byte
			binary.BigEndian.PutUint64(hdr[:8], junk0)
			binary.BigEndian.PutUint64(hdr[8:], junk1)
			wire.PutExpressPassEcho(&hdr, seq)
			e, err := wire.ExpressPassEcho(&hdr)
			return hdr == xpEchoRef(seq) && err == nil && e == seq
		},
		gen.UInt64().WithLabel("seq"),
		gen.UInt64().WithLabel("bytes 0-7 before"),
		gen.UInt64().WithLabel("bytes 8-15 before"),
	))
	props.Property("Put(Echo(hdr)) = hdr", prop.ForAll(
		func(head uint64) bool {
			var hdr [cc.PacketHdrLen]byte
			binary.BigEndian.PutUint64(hdr[:8], head)
			e, err := wire.ExpressPassEcho(&hdr)
			if err != nil {
				return false
			}
			back := [cc.PacketHdrLen]byte{15: 0xFF}
			wire.PutExpressPassEcho(&back, e)
			return back == hdr
		},
		gen.UInt64().WithLabel("bytes 0-7"),
	))
	props.TestingRun(t)
}

// TestExpressPassEchoRefused: a header with a reserved byte set is a
// *cc.DecodeError naming the first nonzero reserved byte, for every byte
// 8..15 and every value 1..255 (exhaustively), whatever the echo.
func TestExpressPassEchoRefused(t *testing.T) {
	for i := wire.ExpressPassEchoSize; i < cc.PacketHdrLen; i++ {
		for v := 1; v < 256; v++ {
			hdr := xpEchoRef(uint64(v) * 0x0101)
			hdr[i] = byte(v)
			if i < cc.PacketHdrLen-1 {
				hdr[cc.PacketHdrLen-1] = 1 // a later one is not named
			}
			e, err := wire.ExpressPassEcho(&hdr)
			var de *cc.DecodeError
			require.ErrorAs(t, err, &de, "byte %d = %#x", i, v)
			require.ErrorIs(t, err, cc.ErrDecode)
			require.Equal(t, i, de.Offset, "byte %d = %#x", i, v)
			require.Zero(t, e)
		}
	}
	hdr := xpEchoRef(3)
	hdr[9] = 0xA0
	_, err := wire.ExpressPassEcho(&hdr)
	require.EqualError(t, err, "ExpressPass data header: byte 9: reserved byte 0xa0, want 0")
}

// TestExpressPassEchoNoAllocs: writing and reading an echo allocate
// nothing.
func TestExpressPassEchoNoAllocs(t *testing.T) {
	var hdr [cc.PacketHdrLen]byte
	var e uint64
	seq := uint64(0)
	require.Zero(t, testing.AllocsPerRun(1000, func() {
		seq++
		wire.PutExpressPassEcho(&hdr, seq)
		e, _ = wire.ExpressPassEcho(&hdr)
	}))
	require.Equal(t, seq, e)
}

// FuzzExpressPassEcho: ExpressPassEcho never panics; it refuses a header
// exactly when a reserved byte is set, naming the first one, and what it
// accepts PutExpressPassEcho writes back byte for byte.
func FuzzExpressPassEcho(f *testing.F) {
	f.Add(make([]byte, 16))
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		var hdr [cc.PacketHdrLen]byte
		copy(hdr[:], b)
		first := -1
		for i := wire.ExpressPassEchoSize; i < cc.PacketHdrLen && first < 0; i++ {
			if hdr[i] != 0 {
				first = i
			}
		}
		e, err := wire.ExpressPassEcho(&hdr)
		if err != nil {
			var de *cc.DecodeError
			if !errors.As(err, &de) || de.Offset != first {
				t.Fatalf("% x: %v, first reserved byte set %d", hdr, err, first)
			}
			return
		}
		var back [cc.PacketHdrLen]byte
		wire.PutExpressPassEcho(&back, e)
		if first >= 0 || back != hdr {
			t.Fatalf("% x accepted as echo %d, writes back % x", hdr, e, back)
		}
	})
}

func BenchmarkExpressPassPacketEncode(b *testing.B) {
	p := wire.ExpressPassPacket{Type: wire.ExpressPassTypeCredit, Flow: 3, Seq: 1}
	var out [16]byte
	b.ReportAllocs()
	for b.Loop() {
		p.Seq++
		out, _ = p.Encode()
	}
	_ = out
}

func BenchmarkExpressPassPacketDecode(b *testing.B) {
	in, _ := wire.ExpressPassPacket{Type: wire.ExpressPassTypeCredit, Flow: 3, Seq: 77, TS: 5}.Encode()
	var p wire.ExpressPassPacket
	b.ReportAllocs()
	for b.Loop() {
		p, _ = wire.DecodeExpressPassPacket(in[:])
	}
	_ = p
}

// A credit's wire image: encode it, decode it back, and see what a
// decoder says of an all-zero buffer and of a credit numbered 0.
func ExampleExpressPassPacket() {
	c := wire.ExpressPassPacket{Type: wire.ExpressPassTypeCredit, Flow: 42, Seq: 7, TS: wire.ExpressPassTS(2500 * units.Nanosecond)}
	b, _ := c.Encode()
	fmt.Printf("% x\n", b)
	p, err := wire.DecodeExpressPassPacket(b[:])
	fmt.Println(p.Type, p.Flow, p.Seq, p.TS, err)

	_, err = wire.DecodeExpressPassPacket(make([]byte, 16))
	fmt.Println(err)
	b[11] = 0
	_, err = wire.DecodeExpressPassPacket(b[:])
	fmt.Println(err)
	// Output:
	// 03 01 00 00 00 00 00 2a 00 00 00 07 00 00 09 c4
	// credit 42 7 2500 <nil>
	// ExpressPass control packet: byte 1: version 0, want 1
	// ExpressPass control packet: byte 8: credit with sequence number 0
}

// A data frame's header: the sender writes the echo of the credit the
// frame spends, the receiver reads it, and refuses a header with a
// reserved byte set.
func ExamplePutExpressPassEcho() {
	var p cc.Packet
	wire.PutExpressPassEcho(&p.Hdr, 258)
	fmt.Printf("% x\n", p.Hdr)
	fmt.Println(wire.ExpressPassEcho(&p.Hdr))
	p.Hdr[8] = 1
	fmt.Println(wire.ExpressPassEcho(&p.Hdr))
	// Output:
	// 00 00 00 00 00 00 01 02 00 00 00 00 00 00 00 00
	// 258 <nil>
	// 0 ExpressPass data header: byte 8: reserved byte 0x1, want 0
}
