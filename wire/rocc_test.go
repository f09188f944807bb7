package wire

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
)

// roccDecodeOffset returns the byte offset of err, a *cc.DecodeError, or
// fails the test.
func roccDecodeOffset(t testing.TB, err error) int {
	t.Helper()
	var de *cc.DecodeError
	if !errors.As(err, &de) {
		t.Fatalf("error %v (%T) is not a *cc.DecodeError", err, err)
	}
	if !errors.Is(err, cc.ErrDecode) {
		t.Fatalf("error %v does not match cc.ErrDecode", err)
	}
	return de.Offset
}

func TestRoCCFeedbackLayout(t *testing.T) {
	fb := RoCCFeedback{Type: RoCCRateFeedback, Seq: 0xa5, Port: 0x0102, Switch: 0x0a000001, Rate: 4000, QDepth: 250, Flow: 0xdeadbeef}
	// Built by hand from the layout on RoCCFeedback: version 1 and type
	// 1 in byte 0, then counter, port, switch, rate (4000 = 0x0fa0),
	// qdepth (250 = 0x00fa), flow, all big-endian.
	want := []byte{0x11, 0xa5, 0x01, 0x02, 0x0a, 0x00, 0x00, 0x01, 0x0f, 0xa0, 0x00, 0xfa, 0xde, 0xad, 0xbe, 0xef}
	require.Equal(t, want, fb.Append(nil))
	require.Equal(t, append([]byte{9}, want...), fb.Append([]byte{9}), "Append appends")
	got, err := DecodeRoCCFeedback(append(want, 0, 0, 0)) // Ethernet padding is ignored
	require.NoError(t, err)
	require.Equal(t, fb, got)
	require.Equal(t, uint64(0x0a000001_0102), got.CP())
	require.Equal(t, "rocc rate cp=167772161:258 seq=165 F=4000 Q=250 flow=3735928559", got.String())
}

func TestRoCCFeedbackMalformed(t *testing.T) {
	good := RoCCFeedback{Type: RoCCRateFeedback, Rate: 1}.Append(nil)
	for n := range RoCCFeedbackLen {
		_, err := DecodeRoCCFeedback(good[:n])
		require.Equal(t, n, roccDecodeOffset(t, err), "%d bytes: the first missing byte", n)
	}
	mut := func(b0 byte, rate uint16) []byte {
		b := append([]byte(nil), good...)
		b[0] = b0
		b[8], b[9] = byte(rate>>8), byte(rate)
		return b
	}
	cases := []struct {
		b      []byte
		offset int
		reason string
	}{
		{mut(0x01, 1), 0, "version 0, want 1"},
		{mut(0x21, 1), 0, "version 2, want 1"},
		{mut(0x10, 1), 0, "type 0, want 1 (rate) or 2 (report)"},
		{mut(0x13, 1), 0, "type 3"},
		{mut(0x1f, 1), 0, "type 15"},
		{mut(0x11, 0), 8, "rate message with rate 0"}, // the rate field is bytes 8–9
	}
	for _, c := range cases {
		_, err := DecodeRoCCFeedback(c.b)
		require.Equal(t, c.offset, roccDecodeOffset(t, err), "% x", c.b)
		require.ErrorContains(t, err, c.reason)
		require.ErrorContains(t, err, "RoCC feedback: byte ")
	}
	fb, err := DecodeRoCCFeedback(mut(0x12, 0)) // a report may omit F
	require.NoError(t, err)
	require.Equal(t, RoCCReportFeedback, fb.Type)
}

// FuzzDecodeRoCCFeedback: the decoder never panics, fails only with its
// documented errors, and a decoded message re-encodes to the same 16 bytes.
func FuzzDecodeRoCCFeedback(f *testing.F) {
	f.Add([]byte{0x11, 0xa5, 0x01, 0x02, 0x0a, 0, 0, 1, 0x0f, 0xa0, 0, 0xfa, 0xde, 0xad, 0xbe, 0xef}) // valid rate message
	f.Add([]byte{0x12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})                                  // report without F
	f.Add([]byte{0x11, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})                                  // rate 0: malformed
	f.Add([]byte{0x21})                                                                               // short, bad version
	f.Add([]byte{0x1f, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17})                    // bad type, padded
	f.Fuzz(func(t *testing.T, b []byte) {
		fb, err := DecodeRoCCFeedback(b)
		if err != nil {
			// The documented offsets: the first missing byte of a short
			// buffer, 0 for version and type, 8 for a rate of 0.
			off := roccDecodeOffset(t, err)
			if !(len(b) < RoCCFeedbackLen && off == len(b)) && off != 0 && off != 8 {
				t.Fatalf("undocumented error %v", err)
			}
			return
		}
		if got := fb.Append(nil); string(got) != string(b[:RoCCFeedbackLen]) {
			t.Fatalf("re-encoded % x, input % x", got, b[:RoCCFeedbackLen])
		}
	})
}

// FuzzRoCCFeedbackRoundTrip: decode(encode(m)) = m for every valid message,
// and an invalid one is refused with the error Validate gives.
func FuzzRoCCFeedbackRoundTrip(f *testing.F) {
	f.Add(uint8(1), uint8(7), uint16(3), uint32(0x0a000001), uint16(2037), uint16(250), uint32(42)) // rate message
	f.Add(uint8(2), uint8(255), uint16(0), uint32(0), uint16(0), uint16(65535), uint32(0))          // report, counter about to wrap
	f.Add(uint8(1), uint8(0), uint16(0), uint32(0), uint16(0), uint16(0), uint32(0))                // rate 0: invalid
	f.Add(uint8(9), uint8(0), uint16(0), uint32(0), uint16(1), uint16(0), uint32(0))                // unknown type
	f.Fuzz(func(t *testing.T, typ, seq uint8, port uint16, sw uint32, rate, q uint16, flow uint32) {
		m := RoCCFeedback{Type: RoCCFeedbackType(typ & roccFbTypeMask), Seq: seq, Port: port, Switch: sw, Rate: rate, QDepth: q, Flow: flow}
		got, err := DecodeRoCCFeedback(m.Append(nil))
		if verr := m.Validate(); verr != nil {
			if err == nil || err.Error() != verr.Error() {
				t.Fatalf("%+v: Validate %v, decode %v", m, verr, err)
			}
			return
		}
		if err != nil || got != m {
			t.Fatalf("%+v: decoded %+v, %v", m, got, err)
		}
	})
}

// TestRoCCFeedbackPutIsAppend: Put (two 64-bit words) writes the bytes
// Append appends, for seeded random messages of every field value range,
// Type above 15 included (its high bits are lost alike); PutRoCCFlow on a
// message put with another flow writes what Put writes with this one.
func TestRoCCFeedbackPutIsAppend(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 16))
	for i := range 20000 {
		f := RoCCFeedback{
			Type: RoCCFeedbackType(rng.Uint32()), Seq: uint8(rng.Uint32()), Port: uint16(rng.Uint32()),
			Switch: rng.Uint32(), Rate: uint16(rng.Uint32()), QDepth: uint16(rng.Uint32()), Flow: rng.Uint32(),
		}
		if i < 16 {
			f.Type = RoCCFeedbackType(i)
		}
		var b [RoCCFeedbackLen]byte
		f.Put(&b)
		require.Equal(t, f.Append(nil), b[:], "%+v", f)
		other := f
		other.Flow = rng.Uint32()
		var c [RoCCFeedbackLen]byte
		other.Put(&c)
		PutRoCCFlow(&c, f.Flow)
		require.Equal(t, b, c, "%+v", f)
	}
}
