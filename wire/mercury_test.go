package wire_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/wire"
)

// TestMercuryWindowInvalid: a MercuryWindow that Validate refuses (an offset past 12, a
// negative one, an unknown order) neither panics nor writes, and reads 0.
func TestMercuryWindowInvalid(t *testing.T) {
	var d [cc.FeedbackDataLen]byte
	for i := range d {
		d[i] = 0xA5
	}
	for _, w := range []wire.MercuryWindow{{Offset: 13}, {Offset: -1}, {Order: 2}} {
		require.Error(t, w.Validate("test"))
		c := d
		w.Put(&c, 0x01020304)
		require.Equal(t, d, c, "%+v", w)
		require.Zero(t, w.Get(&d), "%+v", w)
	}
	// A valid one: offset 12, little-endian, is the last 4 bytes reversed.
	w := wire.MercuryWindow{Offset: 12, Order: wire.MercuryLittleEndian}
	w.Put(&d, 0x01020304)
	require.Equal(t, []byte{0x04, 0x03, 0x02, 0x01}, d[12:])
	require.Equal(t, uint32(0x01020304), w.Get(&d))
}
