package wire

import (
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
)

// TestBFCTagRoundTrip: every tag within its fields' widths writes and
// reads back equal, and its bytes are the layout's table read by hand
// (an independent encoding, byte by byte).
func TestBFCTagRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for range 2000 {
		tag := BFCTag{Switch: uint16(rng.Intn(BFCMaxSwitch + 1)), Port: uint16(rng.Intn(1 << 16)), Queue: uint8(rng.Intn(BFCMaxQueue + 1))}
		var hdr [cc.PacketHdrLen]byte
		require.NoError(t, tag.Put(&hdr))
		want := [cc.PacketHdrLen]byte{1, byte(tag.Switch >> 8), byte(tag.Switch), byte(tag.Port >> 8), byte(tag.Port), tag.Queue}
		require.Equal(t, want, hdr)
		got, ok, err := DecodeBFCTag(&hdr)
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, tag, got)
	}
}

// TestBFCTagNone: an all-zero header is no tag, not an error.
func TestBFCTagNone(t *testing.T) {
	var hdr [cc.PacketHdrLen]byte
	_, ok, err := DecodeBFCTag(&hdr)
	require.NoError(t, err)
	require.False(t, ok)
}

// TestBFCTagRefuses: each malformed field is refused at its byte, and Put
// refuses what does not fit its field, writing nothing.
func TestBFCTagRefuses(t *testing.T) {
	cases := []struct {
		name   string
		hdr    [cc.PacketHdrLen]byte
		offset int
	}{
		{"version 2", [cc.PacketHdrLen]byte{2}, 0},
		{"no version, a byte set", [cc.PacketHdrLen]byte{0, 0, 0, 0, 0, 0, 0, 9}, 0},
		{"switch above 12 bits", [cc.PacketHdrLen]byte{1, 0x10}, 1},
		{"queue 64", [cc.PacketHdrLen]byte{1, 0, 0, 0, 0, 64}, 5},
		{"reserved byte 6", [cc.PacketHdrLen]byte{1, 0, 0, 0, 0, 0, 1}, 6},
		{"reserved byte 15", [cc.PacketHdrLen]byte{1, 15: 1}, 15},
	}
	for _, c := range cases {
		_, _, err := DecodeBFCTag(&c.hdr)
		var de *cc.DecodeError
		require.ErrorAs(t, err, &de, c.name)
		require.Equal(t, c.offset, de.Offset, c.name)
	}
	hdr := [cc.PacketHdrLen]byte{9, 9, 9}
	for _, bad := range []BFCTag{{Switch: BFCMaxSwitch + 1}, {Queue: BFCMaxQueue + 1}} {
		require.ErrorIs(t, bad.Put(&hdr), cc.ErrEvent)
		require.Equal(t, [cc.PacketHdrLen]byte{9, 9, 9}, hdr, "a refused Put writes nothing")
	}
}

// TestBFCPauseRoundTrip: pauses with leases, resumes and until-resumed
// pauses write and read back equal, with the time field in ns as the
// layout's table says.
func TestBFCPauseRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	for i := range 2000 {
		p := BFCPause{Port: uint16(rng.Intn(1 << 16)), Queue: uint8(rng.Intn(BFCMaxQueue + 1))}
		ns := uint32(rng.Int63n(int64(BFCUntilResumed)))
		switch i % 3 {
		case 0:
			p.Lease = units.Time(ns) * units.Nanosecond
		case 1:
			p.Forever, ns = true, BFCUntilResumed
		default:
			ns = 0 // resume
		}
		f, err := p.Feedback(42)
		require.NoError(t, err)
		require.Equal(t, FeedbackBFCPause, f.Kind)
		require.Equal(t, cc.FlowID(42), f.Flow)
		want := [cc.FeedbackDataLen]byte{1, byte(p.Port >> 8), byte(p.Port), p.Queue, byte(ns >> 24), byte(ns >> 16), byte(ns >> 8), byte(ns)}
		require.Equal(t, want, f.Data)
		got, err := DecodeBFCPause(&f.Data)
		require.NoError(t, err)
		require.Equal(t, p, got)
		require.Equal(t, i%3 == 2, got.Resume())
	}
}

// TestBFCPauseRefuses: malformed bytes are refused at their byte; leases
// that do not fit the field, or not in whole ns, are refused by Put.
func TestBFCPauseRefuses(t *testing.T) {
	cases := []struct {
		d      [cc.FeedbackDataLen]byte
		offset int
	}{
		{[cc.FeedbackDataLen]byte{0}, 0},
		{[cc.FeedbackDataLen]byte{1, 0, 0, 0x40}, 3},
		{[cc.FeedbackDataLen]byte{1, 8: 1}, 8},
		{[cc.FeedbackDataLen]byte{1, 15: 1}, 15},
	}
	for _, c := range cases {
		_, err := DecodeBFCPause(&c.d)
		var de *cc.DecodeError
		require.ErrorAs(t, err, &de)
		require.Equal(t, c.offset, de.Offset)
	}
	for _, bad := range []BFCPause{{Queue: 64}, {Lease: -units.Nanosecond}, {Lease: BFCMaxLease + units.Nanosecond}, {Lease: 1500}} {
		var d [cc.FeedbackDataLen]byte
		require.ErrorIs(t, bad.Put(&d), cc.ErrEvent, "%+v", bad)
		require.Equal(t, [cc.FeedbackDataLen]byte{}, d)
	}
}

// FuzzBFCDecode: whatever the bytes, the decoders do not panic, refuse
// only with a *cc.DecodeError, and what they accept re-encodes to the same
// bytes.
func FuzzBFCDecode(f *testing.F) {
	f.Add([]byte{1, 0, 3, 0, 2, 5})
	f.Add(make([]byte, 16))
	f.Fuzz(func(t *testing.T, b []byte) {
		var hdr [cc.PacketHdrLen]byte
		copy(hdr[:], b)
		if tag, ok, err := DecodeBFCTag(&hdr); err != nil {
			require.ErrorIs(t, err, cc.ErrDecode)
		} else if ok {
			var back [cc.PacketHdrLen]byte
			require.NoError(t, tag.Put(&back))
			require.Equal(t, hdr, back)
		}
		var d [cc.FeedbackDataLen]byte
		copy(d[:], b)
		if p, err := DecodeBFCPause(&d); err != nil {
			require.ErrorIs(t, err, cc.ErrDecode)
		} else {
			var back [cc.FeedbackDataLen]byte
			require.NoError(t, p.Put(&back))
			require.Equal(t, d, back)
		}
	})
}
