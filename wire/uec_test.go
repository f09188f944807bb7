package wire_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/wire"
)

// A header round-trips field by field, at the extremes of every width,
// and the trimmed mark a switch writes changes byte 1 alone.
func TestUECDataRoundTrip(t *testing.T) {
	for _, h := range []wire.UECData{
		{Valid: true},
		{Valid: true, Retrans: true, HasPull: true, Spec: true, Trimmed: true, LastHop: true,
			Frame: 65535, SentNs: 0xFFFFFFFF, PullTarget: 0xFFFFFFFF, Payload: 65535},
		{Valid: true, Frame: 9020, SentNs: 123456789, Payload: 8938, Trimmed: true},
	} {
		var b [wire.UECDataLen]byte
		h.Put(&b)
		got, err := wire.DecodeUECData(b[:])
		require.NoError(t, err)
		require.Equal(t, h, got)
		before := b
		wire.MarkUECTrimmed(&b, true)
		for i := range b {
			if i != 1 {
				require.Equal(t, before[i], b[i], "byte %d", i)
			}
		}
		got, err = wire.DecodeUECData(b[:])
		require.NoError(t, err)
		require.True(t, got.Trimmed && got.LastHop)
	}
	var zero [wire.UECDataLen]byte
	got, err := wire.DecodeUECData(zero[:])
	require.NoError(t, err)
	require.False(t, got.Valid, "no header")
}

// Malformed headers name their byte.
func TestUECDataMalformed(t *testing.T) {
	var b [wire.UECDataLen]byte
	wire.UECData{Valid: true}.Put(&b)
	for _, c := range []struct {
		set    func(*[16]byte)
		offset int
	}{
		{func(b *[16]byte) { b[0] |= 0x01 }, 0},
		{func(b *[16]byte) { b[1] = 0x40 }, 1},
		{func(b *[16]byte) { b[1] = 0x81 }, 1},
		{func(b *[16]byte) { b[9] = 1 }, 8},
		{func(b *[16]byte) { b[15] = 1 }, 14},
	} {
		x := b
		c.set(&x)
		_, err := wire.DecodeUECData(x[:])
		var de *cc.DecodeError
		require.ErrorAs(t, err, &de)
		require.Equal(t, c.offset, de.Offset)
	}
	_, err := wire.DecodeUECData(b[:15])
	require.Error(t, err)
}

// A pull travels in a credit message whose Seq is the pull number; a
// credit message with no data (another source's) reads as a pull too, and
// one whose data disagrees with Seq is malformed.
func TestUECPull(t *testing.T) {
	f := wire.UECPull{Pull: 0xDEADBEEF, Slow: true}.Feedback(42)
	require.Equal(t, cc.FeedbackCredit, f.Kind)
	require.Equal(t, cc.FlowID(42), f.Flow)
	p, err := wire.DecodeUECPull(&f)
	require.NoError(t, err)
	require.Equal(t, wire.UECPull{Pull: 0xDEADBEEF, Slow: true}, p)
	p, err = wire.DecodeUECPull(&cc.Feedback{Kind: cc.FeedbackCredit, Seq: 7})
	require.NoError(t, err)
	require.Equal(t, wire.UECPull{Pull: 7}, p)
	f.Seq++
	_, err = wire.DecodeUECPull(&f)
	require.Error(t, err)
}

// FuzzUECData: any 16 bytes decode or are refused with a *cc.DecodeError;
// what decodes re-encodes to the same bytes.
func FuzzUECData(f *testing.F) {
	var b [wire.UECDataLen]byte
	wire.UECData{Valid: true, HasPull: true, PullTarget: 9, Frame: 100}.Put(&b)
	f.Add(b[:])
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := wire.DecodeUECData(data)
		if err != nil {
			var de *cc.DecodeError
			require.ErrorAs(t, err, &de)
			return
		}
		if !h.Valid {
			return
		}
		var out [wire.UECDataLen]byte
		h.Put(&out)
		require.Equal(t, data[:wire.UECDataLen], out[:])
	})
}

// Put writes the layout of UECData's doc, byte by byte: the round trip
// above cannot tell a field moved in both Put and DecodeUECData.
func TestUECDataLayout(t *testing.T) {
	h := wire.UECData{Valid: true, HasPull: true, Trimmed: true,
		Frame: 0x1234, SentNs: 0x89ABCDEF, PullTarget: 0x01020304, Payload: 0x0F0E}
	var b [wire.UECDataLen]byte
	h.Put(&b)
	want := [wire.UECDataLen]byte{
		0x80 | 0x20, // valid, pull
		0x80,        // trimmed
		0x12, 0x34,  // frame
		0x89, 0xAB, 0xCD, 0xEF, // sent
		0x01, 0x02, 0x03, 0x04, // pull_target
		0x0F, 0x0E, // payload
		0, 0, // reserved
	}
	require.Equal(t, want, b)
	h = wire.UECData{Valid: true, Retrans: true, Spec: true, Trimmed: true, LastHop: true, PullTarget: 7}
	h.Put(&b)
	require.Equal(t, [wire.UECDataLen]byte{0x80 | 0x40 | 0x10, 0x80 | 0x40}, b, "no pull bit: no pull target")
}

// Feedback writes the layout of UECPull's doc, byte by byte, and
// DecodeUECPull reads those bytes back: the round trip in TestUECPull
// cannot tell a field moved in both. Data is a fixed 16-byte array, so
// no input is short; a reserved bit or byte set, or a pull number that
// differs from Seq, is a *cc.DecodeError naming its byte.
func TestUECPullLayout(t *testing.T) {
	want := [cc.FeedbackDataLen]byte{
		0x80 | 0x40, // valid, slow
		0, 0, 0,     // reserved
		0x89, 0xAB, 0xCD, 0xEF, // pull
		0, 0, 0, 0, 0, 0, 0, 0, // reserved
	}
	f := wire.UECPull{Slow: true, Pull: 0x89ABCDEF}.Feedback(5)
	require.Equal(t, cc.Feedback{Kind: cc.FeedbackCredit, Flow: 5, Seq: 0x89ABCDEF, Data: want}, f)
	got := wire.UECPull{Pull: 0x01020304}.Feedback(5).Data
	require.Equal(t, [cc.FeedbackDataLen]byte{0x80, 4: 0x01, 5: 0x02, 6: 0x03, 7: 0x04}, got, "valid, not slow")

	p, err := wire.DecodeUECPull(&cc.Feedback{Kind: cc.FeedbackCredit, Seq: 0x89ABCDEF, Data: want})
	require.NoError(t, err)
	require.Equal(t, wire.UECPull{Slow: true, Pull: 0x89ABCDEF}, p)
	p, err = wire.DecodeUECPull(&cc.Feedback{Kind: cc.FeedbackCredit, Seq: 1<<32 | 0x89ABCDEF, Data: want})
	require.NoError(t, err)
	require.Equal(t, wire.UECPull{Slow: true, Pull: 0x89ABCDEF}, p, "the pull number is Seq mod 2^32")

	bad := func(offset int, set func(*[cc.FeedbackDataLen]byte)) {
		t.Helper()
		x := want
		set(&x)
		_, err := wire.DecodeUECPull(&cc.Feedback{Kind: cc.FeedbackCredit, Seq: 0x89ABCDEF, Data: x})
		var de *cc.DecodeError
		require.ErrorAs(t, err, &de, "% x", x)
		require.ErrorIs(t, err, cc.ErrDecode)
		require.Equal(t, offset, de.Offset, "% x", x)
	}
	for bit := range 6 {
		bad(0, func(b *[cc.FeedbackDataLen]byte) { b[0] |= 1 << bit })
	}
	for i := range cc.FeedbackDataLen {
		if i == 0 || i >= 4 && i < 8 {
			continue
		}
		bad(i, func(b *[cc.FeedbackDataLen]byte) { b[i] = 0x01 })
		bad(i, func(b *[cc.FeedbackDataLen]byte) { b[i] = 0x80 })
	}
	for i := 4; i < 8; i++ {
		bad(4, func(b *[cc.FeedbackDataLen]byte) { b[i] ^= 0x10 })
	}
}
