package wire

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
)

// The layout, byte for byte, of a message whose every field is distinct:
// version 0 and reserved bits 0, QntzFb 45 = 0x2d, CPID big-endian,
// cnmQOffset −2 = 0xfffe, cnmQDelta 300 = 0x012c, priority 5 in byte 15.
func TestCNMLayout(t *testing.T) {
	m := CNM{QntzFb: 45, CPID: 0x0102030405060708, QOffset: -2, QDelta: 300, Prio: 5}
	want := []byte{0x00, 0x2d, 1, 2, 3, 4, 5, 6, 7, 8, 0xff, 0xfe, 0x01, 0x2c, 0x00, 0x05}
	require.Equal(t, want, m.Append(nil))
	var b [CNMLen]byte
	m.Put(&b)
	require.Equal(t, want, b[:])
	got, err := DecodeCNM(want)
	require.NoError(t, err)
	require.Equal(t, m, got)
	require.Equal(t, "cnm fb=45 cpid=102030405060708 qoff=-2 qdelta=300 prio=5", m.String())
	// Longer buffers (Ethernet padding) decode the first 16 bytes.
	got, err = DecodeCNM(append(want, 0xff, 0xff))
	require.NoError(t, err)
	require.Equal(t, m, got)
}

// Every malformed input is a *cc.DecodeError at the byte the doc names.
func TestCNMDecodeErrors(t *testing.T) {
	valid := CNM{QntzFb: 63, CPID: 9, Prio: 7}.Append(nil)
	for _, c := range []struct {
		name string
		mod  func(b []byte) []byte
		off  int
	}{
		{"empty", func(b []byte) []byte { return nil }, 0},
		{"short", func(b []byte) []byte { return b[:15] }, 15},
		{"version 1", func(b []byte) []byte { b[0] = 0x10; return b }, 0},
		{"version 15", func(b []byte) []byte { b[0] = 0xf0; return b }, 0},
		{"reserved in byte 0", func(b []byte) []byte { b[0] = 0x01; return b }, 0},
		{"reserved in byte 1", func(b []byte) []byte { b[1] |= 0x80; return b }, 1},
		{"reserved low bit of byte 1", func(b []byte) []byte { b[1] |= 0x40; return b }, 1},
		{"priority field byte 14", func(b []byte) []byte { b[14] = 0x80; return b }, 14},
		{"priority field byte 15", func(b []byte) []byte { b[15] = 0x08; return b }, 15},
	} {
		b := c.mod(append([]byte(nil), valid...))
		_, err := DecodeCNM(b)
		var de *cc.DecodeError
		require.ErrorAs(t, err, &de, c.name)
		require.ErrorIs(t, err, cc.ErrDecode, c.name)
		require.Equal(t, c.off, de.Offset, c.name)
		require.Equal(t, "QCN CNM", de.What)
	}
	for _, m := range []CNM{{QntzFb: 64}, {Prio: 8}} {
		var de *cc.DecodeError
		require.True(t, errors.As(m.Validate(), &de), "%+v", m)
	}
	require.NoError(t, CNM{QntzFb: 63, Prio: 7}.Validate())
}

// Round trip over random messages: every valid message encodes to bytes
// that decode to it, and the decoded message re-encodes to the same bytes.
// Random bytes decode either to an error or to a message whose encoding
// is those 16 bytes.
func TestCNMRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		m := CNM{
			QntzFb: uint8(rng.IntN(64)), CPID: rng.Uint64(),
			QOffset: int16(rng.Uint32()), QDelta: int16(rng.Uint32()), Prio: uint8(rng.IntN(8)),
		}
		b := m.Append(nil)
		got, err := DecodeCNM(b)
		require.NoError(t, err)
		require.Equal(t, m, got)

		var raw [CNMLen]byte
		for i := range raw {
			raw[i] = byte(rng.Uint32())
		}
		if rng.IntN(2) == 0 { // make it likely valid
			raw[0], raw[1], raw[14], raw[15] = 0, raw[1]&0x3f, 0, raw[15]&7
		}
		if d, err := DecodeCNM(raw[:]); err == nil {
			require.Equal(t, raw[:], d.Append(nil))
		} else {
			require.ErrorIs(t, err, cc.ErrDecode)
		}
	}
}

// cnmQ truncates toward zero in 64-byte units and saturates at ±2^15.
func TestCNMQ(t *testing.T) {
	for _, c := range []struct {
		in   int64
		want int16
	}{{0, 0}, {63, 0}, {64, 1}, {-64, -1}, {-127, -1}, {1 << 40, 32767}, {-1 << 40, -32768}, {32767 * 64, 32767}, {-32768 * 64, -32768}} {
		require.Equal(t, c.want, CNMQ(c.in), "%d", c.in)
	}
}

func TestCNMDecodeNoAllocs(t *testing.T) {
	b := CNM{QntzFb: 10, CPID: 1}.Append(nil)
	var sink CNM
	require.Zero(t, testing.AllocsPerRun(1000, func() {
		m, err := DecodeCNM(b)
		if err != nil {
			panic(err)
		}
		sink = m
	}))
	var out [CNMLen]byte
	require.Zero(t, testing.AllocsPerRun(1000, func() { sink.Put(&out) }))
	buf := make([]byte, 0, CNMLen)
	require.Zero(t, testing.AllocsPerRun(1000, func() { buf = sink.Append(buf[:0]) }), "Append with 16 bytes of room")
}
