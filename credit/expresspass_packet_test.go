package credit_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"testing"

	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/credit"
	"github.com/hwcc/hwcc/units"
)

// xpRef is an independent encoder written from the layout table with
// encoding/binary: type, version 1, two zero bytes, then flow, seq and ts
// as big-endian 32-bit words.
func xpRef(p credit.ExpressPassPacket) []byte {
	b := []byte{byte(p.Type), 1, 0, 0}
	b = binary.BigEndian.AppendUint32(b, uint32(p.Flow))
	b = binary.BigEndian.AppendUint32(b, p.Seq)
	return binary.BigEndian.AppendUint32(b, p.TS)
}

// TestExpressPassPacketLayout: packets with distinct bytes land where the
// layout table says (bytes worked out by hand from it).
func TestExpressPassPacketLayout(t *testing.T) {
	c := credit.ExpressPassPacket{Type: credit.ExpressPassTypeCredit, Flow: 0x01020304, Seq: 0xA0B0C0D0, TS: 0xDEADBEEF}
	b, err := c.Encode()
	require.NoError(t, err)
	require.Equal(t, [16]byte{0x03, 0x01, 0, 0, 0x01, 0x02, 0x03, 0x04, 0xA0, 0xB0, 0xC0, 0xD0, 0xDE, 0xAD, 0xBE, 0xEF}, b)
	req, err := credit.ExpressPassPacket{Type: credit.ExpressPassTypeRequest, Flow: 9, TS: 1}.Encode()
	require.NoError(t, err)
	require.Equal(t, [16]byte{1, 1, 0, 0, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0, 1}, req)
	stop, err := credit.ExpressPassPacket{Type: credit.ExpressPassTypeStop, Flow: 0xFFFFFFFF}.Encode()
	require.NoError(t, err)
	require.Equal(t, [16]byte{2, 1, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF}, stop)

	out, err := c.AppendTo([]byte{0xEE})
	require.NoError(t, err)
	require.Equal(t, append([]byte{0xEE}, b[:]...), out)
	require.Equal(t, 16, credit.ExpressPassPacketSize)
	require.LessOrEqual(t, credit.ExpressPassPacketSize, cc.FeedbackDataLen)

	for typ, want := range map[credit.ExpressPassType]string{
		1: "credit-request", 2: "credit-stop", 3: "credit", 0: "reserved(0)", 4: "reserved(4)", 255: "reserved(255)",
	} {
		require.Equal(t, want, typ.String())
	}
	require.Equal(t, cc.FeedbackCredit, credit.ExpressPassTypeCredit.Kind())
	require.Equal(t, cc.FeedbackCreditRequest, credit.ExpressPassTypeRequest.Kind())
	require.Equal(t, cc.FeedbackCreditStop, credit.ExpressPassTypeStop.Kind())
	require.Equal(t, cc.FeedbackNone, credit.ExpressPassType(0).Kind())

	// TS: whole nanoseconds, floored, mod 2^32.
	for _, tc := range []struct {
		now  units.Time
		want uint32
	}{
		{0, 0}, {999, 0}, {1000, 1}, {1999, 1}, {units.Second, 1_000_000_000},
		{(1<<32 + 5) * units.Nanosecond, 5}, {(1<<32 - 1) * units.Nanosecond, 0xFFFFFFFF},
	} {
		require.Equal(t, tc.want, credit.ExpressPassTS(tc.now), "%v", tc.now)
	}
}

// TestExpressPassPacketRoundTrip: for every valid packet (gopter over all
// field ranges) Encode agrees with the independent encoder, and Decode
// gives the packet back; bytes past the 16th are not read.
func TestExpressPassPacketRoundTrip(t *testing.T) {
	props := cbfcProperties(3000)
	props.Property("Decode(Encode(p)) = p, Encode = reference", prop.ForAll(
		func(typ uint8, flow, seq, ts uint32) bool {
			p := credit.ExpressPassPacket{Type: credit.ExpressPassType(typ), Flow: cc.FlowID(flow), TS: ts}
			if p.Type == credit.ExpressPassTypeCredit {
				p.Seq = max(seq, 1)
			}
			b, err := p.Encode()
			if err != nil || string(b[:]) != string(xpRef(p)) {
				return false
			}
			q, err := credit.DecodeExpressPassPacket(append(b[:], 0xFF, 0x01))
			var r credit.ExpressPassPacket
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
	_, err := credit.DecodeExpressPassPacket(b)
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
	_, err := credit.DecodeExpressPassPacket(good[:])
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
		_, err := credit.DecodeExpressPassPacket(b[:])
		want := b[1] == 1 && b[0] >= 1 && b[0] <= 3
		require.Equal(t, want, err == nil, "% x: %v", b[:2], err)
	}

	// A failed Decode leaves the packet as it was.
	p := credit.ExpressPassPacket{Flow: 1}
	require.Error(t, p.Decode(edit(func(b *[16]byte) { b[2] = 1 })))
	require.Equal(t, credit.ExpressPassPacket{Flow: 1}, p)
}

// TestExpressPassPacketEncodeErrors: a packet that is not valid is
// refused, never written, and AppendTo returns dst unchanged.
func TestExpressPassPacketEncodeErrors(t *testing.T) {
	for _, p := range []credit.ExpressPassPacket{
		{}, {Type: 4, Seq: 1}, {Type: credit.ExpressPassTypeCredit},
		{Type: credit.ExpressPassTypeRequest, Seq: 1}, {Type: credit.ExpressPassTypeStop, Seq: 0xFFFFFFFF},
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
	p := credit.ExpressPassPacket{Type: credit.ExpressPassTypeCredit, Flow: 3, Seq: 77, TS: 123}
	buf := make([]byte, 0, 64)
	var q credit.ExpressPassPacket
	require.Zero(t, testing.AllocsPerRun(1000, func() {
		b, _ := p.Encode()
		buf, _ = p.AppendTo(buf[:0])
		q, _ = credit.DecodeExpressPassPacket(b[:])
		_ = q.Decode(buf)
	}))
	require.Equal(t, p, q)
}

// FuzzDecodeExpressPassPacket: Decode never panics; it either refuses with
// a *cc.DecodeError at one of the documented offsets (len(b) when short),
// or returns a packet that encodes back to the same 16 bytes and decodes
// again to itself (decode∘encode∘decode = decode).
func FuzzDecodeExpressPassPacket(f *testing.F) {
	for _, p := range []credit.ExpressPassPacket{
		{Type: credit.ExpressPassTypeCredit, Flow: 0x01020304, Seq: 0xA0B0C0D0, TS: 0xDEADBEEF},
		{Type: credit.ExpressPassTypeRequest, Flow: 9, TS: 1},
		{Type: credit.ExpressPassTypeStop},
	} {
		b, _ := p.Encode()
		f.Add(b[:])
	}
	f.Add(make([]byte, 16))
	f.Add([]byte{3, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0xAA})
	f.Add([]byte{3, 1, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := credit.DecodeExpressPassPacket(b)
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
		q, err := credit.DecodeExpressPassPacket(out[:])
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
		credit.PutExpressPassEcho(&hdr, tc.seq)
		require.Equal(t, tc.want, hdr, "%#x", tc.seq)
		e, err := credit.ExpressPassEcho(&hdr)
		require.NoError(t, err)
		require.Equal(t, tc.seq, e)
	}
	require.Equal(t, 8, credit.ExpressPassEchoSize)
}

// TestExpressPassEchoRoundTrip: for every echo (gopter over all 64 bits)
// written over any header, PutExpressPassEcho agrees with the independent
// encoder and ExpressPassEcho reads the echo back; for every header whose
// reserved bytes are zero, ExpressPassEcho accepts it and
// PutExpressPassEcho writes it back byte for byte.
func TestExpressPassEchoRoundTrip(t *testing.T) {
	props := cbfcProperties(3000)
	props.Property("Echo(Put(seq)) = seq, Put = reference", prop.ForAll(
		func(seq, junk0, junk1 uint64) bool {
			var hdr [cc.PacketHdrLen]byte
			binary.BigEndian.PutUint64(hdr[:8], junk0)
			binary.BigEndian.PutUint64(hdr[8:], junk1)
			credit.PutExpressPassEcho(&hdr, seq)
			e, err := credit.ExpressPassEcho(&hdr)
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
			e, err := credit.ExpressPassEcho(&hdr)
			if err != nil {
				return false
			}
			back := [cc.PacketHdrLen]byte{15: 0xFF}
			credit.PutExpressPassEcho(&back, e)
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
	for i := credit.ExpressPassEchoSize; i < cc.PacketHdrLen; i++ {
		for v := 1; v < 256; v++ {
			hdr := xpEchoRef(uint64(v) * 0x0101)
			hdr[i] = byte(v)
			if i < cc.PacketHdrLen-1 {
				hdr[cc.PacketHdrLen-1] = 1 // a later one is not named
			}
			e, err := credit.ExpressPassEcho(&hdr)
			var de *cc.DecodeError
			require.ErrorAs(t, err, &de, "byte %d = %#x", i, v)
			require.ErrorIs(t, err, cc.ErrDecode)
			require.Equal(t, i, de.Offset, "byte %d = %#x", i, v)
			require.Zero(t, e)
		}
	}
	hdr := xpEchoRef(3)
	hdr[9] = 0xA0
	_, err := credit.ExpressPassEcho(&hdr)
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
		credit.PutExpressPassEcho(&hdr, seq)
		e, _ = credit.ExpressPassEcho(&hdr)
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
		for i := credit.ExpressPassEchoSize; i < cc.PacketHdrLen && first < 0; i++ {
			if hdr[i] != 0 {
				first = i
			}
		}
		e, err := credit.ExpressPassEcho(&hdr)
		if err != nil {
			var de *cc.DecodeError
			if !errors.As(err, &de) || de.Offset != first {
				t.Fatalf("% x: %v, first reserved byte set %d", hdr, err, first)
			}
			return
		}
		var back [cc.PacketHdrLen]byte
		credit.PutExpressPassEcho(&back, e)
		if first >= 0 || back != hdr {
			t.Fatalf("% x accepted as echo %d, writes back % x", hdr, e, back)
		}
	})
}

// TestExpressPassWireImages: in a receiver–sender loop, every message
// carries its wire image in Data: the request and the stop (seq 0) and
// each credit (its Seq), each with the flow and the time it was sent in
// whole nanoseconds; the sender takes the credits with their images.
func TestExpressPassWireImages(t *testing.T) {
	np, err := credit.NewExpressPassReceiver(credit.ExpressPassPaper(100 * units.Gbps))
	require.NoError(t, err)
	cfg := credit.ExpressPassSenderPaper()
	cfg.Size, cfg.Flow = 5000, 0x0A0B0C0D
	rp, err := credit.NewExpressPassSender(cfg)
	require.NoError(t, err)
	act := cc.NewActions(2)
	image := func(f cc.Feedback, typ credit.ExpressPassType, seq uint32, now units.Time) {
		t.Helper()
		want := credit.ExpressPassPacket{Type: typ, Flow: cfg.Flow, Seq: seq, TS: uint32(now / units.Nanosecond)}
		require.Equal(t, xpRef(want), f.Data[:], "%v at %v", f.Kind, now)
		require.Equal(t, typ.Kind(), f.Kind)
	}

	start := 3 * units.Microsecond
	require.NoError(t, rp.Timer(start, act))
	req := act.At(0).Feedback
	image(req, credit.ExpressPassTypeRequest, 0, start)
	act.Reset()
	require.NoError(t, np.Feedback(start, &req, act))
	var stop *cc.Feedback
	for sent := uint64(0); stop == nil; sent += 1000 {
		now := np.Last()
		c := act.At(0).Feedback
		image(c, credit.ExpressPassTypeCredit, uint32(c.Seq), now)
		act.Reset()
		require.NoError(t, rp.Feedback(now, &c, act))
		p := cc.Packet{Flow: cfg.Flow, Seq: sent, Payload: 1000, Size: 1082}
		require.NoError(t, rp.Sent(now, &p, act))
		echo, err := credit.ExpressPassEcho(&p.Hdr)
		require.NoError(t, err)
		require.Equal(t, c.Seq, echo)
		if act.Len() > 0 {
			s := act.At(0).Feedback
			image(s, credit.ExpressPassTypeStop, 0, now)
			stop = &s
			break
		}
		require.NoError(t, np.Timer(np.NextDeadline(), act))
	}
	require.Equal(t, uint64(5), rp.State().Credits)
	require.NoError(t, np.Feedback(np.Last(), stop, nil))
	require.False(t, np.State().Active)
}

// TestExpressPassSenderImageRefused: a credit whose Data is not all zero
// must decode as a credit with the credit's Seq and Flow; otherwise the
// sender refuses it with a typed error and changes nothing (in every
// phase). The image's time is not compared; all-zero Data is no image.
func TestExpressPassSenderImageRefused(t *testing.T) {
	img := func(p credit.ExpressPassPacket) [16]byte {
		var d [16]byte
		copy(d[:], xpRef(p))
		return d
	}
	credit5 := credit.ExpressPassPacket{Type: credit.ExpressPassTypeCredit, Flow: 1, Seq: 5, TS: 40}
	bad := func(d [16]byte) [16]byte { d[1] = 2; return d } // version 2
	for _, tc := range []struct {
		name   string
		seq    uint64
		data   [16]byte
		decode bool // the refusal wraps a *cc.DecodeError
	}{
		{"does not decode", 5, bad(img(credit5)), true},
		{"reserved byte set", 5, func() [16]byte { d := img(credit5); d[2] = 1; return d }(), true},
		{"seq disagrees", 6, img(credit5), false},
		{"flow disagrees", 5, img(credit.ExpressPassPacket{Type: credit.ExpressPassTypeCredit, Flow: 99, Seq: 5}), false},
		{"request image", 5, img(credit.ExpressPassPacket{Type: credit.ExpressPassTypeRequest, Flow: 1}), false},
		{"stop image", 5, img(credit.ExpressPassPacket{Type: credit.ExpressPassTypeStop, Flow: 1}), false},
		{"credit image numbered 0", 1, [16]byte{3, 1}, true},
	} {
		for _, phase := range []string{"requested", "credited", "stopped"} {
			cfg := credit.ExpressPassSenderPaper()
			cfg.Size = 1000
			x, err := credit.NewExpressPassSender(cfg)
			require.NoError(t, err)
			act := cc.NewActions(2)
			require.NoError(t, x.Timer(0, act))
			switch phase {
			case "credited":
				require.NoError(t, x.Feedback(1, &cc.Feedback{Kind: cc.FeedbackCredit, Flow: 1, Seq: 1}, act))
			case "stopped":
				require.NoError(t, x.Feedback(1, &cc.Feedback{Kind: cc.FeedbackCredit, Flow: 1, Seq: 1}, act))
				require.NoError(t, x.Sent(1, &cc.Packet{Flow: 1, Payload: 1000, Size: 1082}, act))
				require.Equal(t, credit.ExpressPassStopped, x.State().Phase)
			}
			act.Reset()
			before := x.AppendRegisters(nil)
			now := 200 * units.Microsecond // past StopTimeout: an accepted credit would resend the stop
			err = x.Feedback(now, &cc.Feedback{Kind: cc.FeedbackCredit, Flow: 1, Seq: tc.seq, Data: tc.data}, act)
			require.ErrorIs(t, err, cc.ErrEvent, "%s, %s", tc.name, phase)
			require.True(t, cc.Typed(err))
			require.Equal(t, tc.decode, errors.Is(err, cc.ErrDecode), "%s: %v", tc.name, err)
			require.Equal(t, before, x.AppendRegisters(nil), "%s, %s: refused but changed", tc.name, phase)
			require.Zero(t, act.Len())
		}
	}

	// Accepted: the image agrees (whatever its time), or there is none.
	x, err := credit.NewExpressPassSender(credit.ExpressPassSenderPaper())
	require.NoError(t, err)
	act := cc.NewActions(2)
	require.NoError(t, x.Timer(0, act))
	require.NoError(t, x.Feedback(1, &cc.Feedback{Kind: cc.FeedbackCredit, Flow: 1, Seq: 5, Data: img(credit5)}, act))
	other := credit5
	other.TS, other.Seq = 0xFFFFFFFF, 6
	require.NoError(t, x.Feedback(2, &cc.Feedback{Kind: cc.FeedbackCredit, Flow: 1, Seq: 6, Data: img(other)}, act))
	require.NoError(t, x.Feedback(3, &cc.Feedback{Kind: cc.FeedbackCredit, Flow: 1, Seq: 7}, act))
	require.Equal(t, 3, x.Held())

	// The sequence space is the sender's to judge, image or not: with
	// 8-bit sequence numbers, credit 300 is refused even with its image.
	cfg := credit.ExpressPassSenderPaper()
	cfg.SeqBits = 8
	x8, err := credit.NewExpressPassSender(cfg)
	require.NoError(t, err)
	big := credit5
	big.Seq = 300
	require.ErrorIs(t, x8.Feedback(1, &cc.Feedback{Kind: cc.FeedbackCredit, Flow: 1, Seq: 300, Data: img(big)}, act), cc.ErrEvent)
	require.Zero(t, x8.Held())
}

// TestExpressPassImagesNoAllocs: a credit leaving the receiver with its
// image, taken by the sender (which decodes it), spent and echoed: no
// allocation.
func TestExpressPassImagesNoAllocs(t *testing.T) {
	np, err := credit.NewExpressPassReceiver(credit.ExpressPassPaper(100 * units.Gbps))
	require.NoError(t, err)
	rp, err := credit.NewExpressPassSender(credit.ExpressPassSenderPaper())
	require.NoError(t, err)
	act := cc.NewActions(4)
	require.NoError(t, rp.Timer(0, act))
	req := act.At(0).Feedback
	act.Reset()
	require.NoError(t, np.Feedback(0, &req, act))
	p := cc.Packet{Payload: 1000, Size: 1082}
	var fb cc.Feedback
	var errs int
	require.Zero(t, testing.AllocsPerRun(1000, func() {
		act.Reset()
		now := np.NextDeadline()
		if np.Timer(now, act) != nil {
			errs++
		}
		fb = act.At(0).Feedback
		act.Reset()
		if rp.Feedback(now, &fb, act) != nil || rp.Sent(now, &p, act) != nil || np.Receive(now, &p, act) != nil {
			errs++
		}
	}))
	require.Zero(t, errs)
	require.NotEqual(t, [16]byte{}, fb.Data)
}

func BenchmarkExpressPassPacketEncode(b *testing.B) {
	p := credit.ExpressPassPacket{Type: credit.ExpressPassTypeCredit, Flow: 3, Seq: 1}
	var out [16]byte
	b.ReportAllocs()
	for b.Loop() {
		p.Seq++
		out, _ = p.Encode()
	}
	_ = out
}

func BenchmarkExpressPassPacketDecode(b *testing.B) {
	in, _ := credit.ExpressPassPacket{Type: credit.ExpressPassTypeCredit, Flow: 3, Seq: 77, TS: 5}.Encode()
	var p credit.ExpressPassPacket
	b.ReportAllocs()
	for b.Loop() {
		p, _ = credit.DecodeExpressPassPacket(in[:])
	}
	_ = p
}

// BenchmarkExpressPassSenderCreditImage: BenchmarkExpressPassSenderCredit
// with each credit carrying its wire image, which the sender decodes.
func BenchmarkExpressPassSenderCreditImage(b *testing.B) {
	x, err := credit.NewExpressPassSender(credit.ExpressPassSenderPaper())
	if err != nil {
		b.Fatal(err)
	}
	act := cc.NewActions(2)
	_ = x.Timer(0, act)
	var credits [1000]cc.Feedback // credits 1..1000 with their images
	for i := range credits {
		credits[i] = cc.Feedback{Kind: cc.FeedbackCredit, Seq: uint64(i + 1)}
		img, _ := credit.ExpressPassPacket{Type: credit.ExpressPassTypeCredit, Seq: uint32(i + 1)}.Encode()
		copy(credits[i].Data[:], img[:])
	}
	p := cc.Packet{Payload: 1000, Size: 1082}
	now := units.Time(0)
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		now += units.Nanosecond
		fb := &credits[i]
		i = (i + 1) % len(credits)
		act.Reset()
		_ = x.Feedback(now, fb, act)
		_ = x.Sent(now, &p, act)
	}
}

// A credit's wire image: encode it, decode it back, and see what a
// decoder says of an all-zero buffer and of a credit numbered 0.
func ExampleExpressPassPacket() {
	c := credit.ExpressPassPacket{Type: credit.ExpressPassTypeCredit, Flow: 42, Seq: 7, TS: credit.ExpressPassTS(2500 * units.Nanosecond)}
	b, _ := c.Encode()
	fmt.Printf("% x\n", b)
	p, err := credit.DecodeExpressPassPacket(b[:])
	fmt.Println(p.Type, p.Flow, p.Seq, p.TS, err)

	_, err = credit.DecodeExpressPassPacket(make([]byte, 16))
	fmt.Println(err)
	b[11] = 0
	_, err = credit.DecodeExpressPassPacket(b[:])
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
	credit.PutExpressPassEcho(&p.Hdr, 258)
	fmt.Printf("% x\n", p.Hdr)
	fmt.Println(credit.ExpressPassEcho(&p.Hdr))
	p.Hdr[8] = 1
	fmt.Println(credit.ExpressPassEcho(&p.Hdr))
	// Output:
	// 00 00 00 00 00 00 01 02 00 00 00 00 00 00 00 00
	// 258 <nil>
	// 0 ExpressPass data header: byte 8: reserved byte 0x1, want 0
}
