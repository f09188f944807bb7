package credit_test

import (
	"errors"
	"flag"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/credit"
)

// cbfcPropSeed fixes gopter's random source for the CBFC properties;
// override with -credit.cbfc.seed=N.
var cbfcPropSeed = flag.Int64("credit.cbfc.seed", 20070401, "seed of the credit package's CBFC properties")

func cbfcProperties(minSuccess int) *gopter.Properties {
	p := gopter.DefaultTestParametersWithSeed(*cbfcPropSeed)
	p.MinSuccessfulTests = minSuccess
	return gopter.NewProperties(p)
}

// lpcrcMSBFirst is an independent CRC-16 over generator 0x100B written in
// the normal (MSB-first) form: each input byte is bit-reversed (IBA feeds
// bits least significant first), shifted in at the top of the register,
// and the final remainder is bit-reversed back and complemented.
func lpcrcMSBFirst(b []byte) uint16 {
	c := uint16(0xFFFF)
	for _, x := range b {
		c ^= uint16(bits.Reverse8(x)) << 8
		for range 8 {
			if c&0x8000 != 0 {
				c = c<<1 ^ credit.LPCRCPoly
			} else {
				c <<= 1
			}
		}
	}
	return ^bits.Reverse16(c)
}

// TestLPCRC pins LPCRC against the MSB-first form on fixed and random
// inputs, including the worked values in the doc comment.
func TestLPCRC(t *testing.T) {
	require.Equal(t, uint16(0x0A3D), credit.LPCRC([]byte("123456789")))
	require.Equal(t, lpcrcMSBFirst([]byte("123456789")), credit.LPCRC([]byte("123456789")))
	require.Equal(t, uint16(0x62B3), credit.LPCRC(make([]byte, 4)))
	rng := rand.New(rand.NewPCG(1, 2))
	for range 10000 {
		b := make([]byte, rng.IntN(9))
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		require.Equal(t, lpcrcMSBFirst(b), credit.LPCRC(b), "% x", b)
	}
}

// TestFCPacketLayout: a packet with distinct nibbles lands where the layout
// table says (bytes worked out by hand from it).
func TestFCPacketLayout(t *testing.T) {
	p := credit.FCPacket{Op: credit.FCInit, FCTBS: 0xABC, VL: 5, FCCL: 0x123}
	b, err := p.Encode()
	require.NoError(t, err)
	require.Equal(t, []byte{0x1A, 0xBC, 0x51, 0x23}, b[:4])
	c := lpcrcMSBFirst(b[:4])
	require.Equal(t, []byte{byte(c >> 8), byte(c)}, b[4:])
	zero, err := credit.FCPacket{}.Encode()
	require.NoError(t, err)
	require.Equal(t, [6]byte{0, 0, 0, 0, 0x62, 0xB3}, zero)

	out, err := p.AppendTo([]byte{0xEE})
	require.NoError(t, err)
	require.Equal(t, append([]byte{0xEE}, b[:]...), out)
	require.Equal(t, "init", credit.FCInit.String())
	require.Equal(t, "normal", credit.FCNormal.String())
	require.Equal(t, "reserved(9)", credit.FCOp(9).String())
}

// TestFCPacketRoundTrip: Decode(Encode(p)) = p for every valid packet
// (gopter over all field ranges), and trailing bytes are not read.
func TestFCPacketRoundTrip(t *testing.T) {
	props := cbfcProperties(2000)
	props.Property("Decode(Encode(p)) = p", prop.ForAll(
		func(op uint8, fctbs uint16, vl uint8, fccl uint16) bool {
			p := credit.FCPacket{Op: credit.FCOp(op), FCTBS: fctbs, VL: vl, FCCL: fccl}
			b, err := p.Encode()
			if err != nil {
				return false
			}
			q, err := credit.DecodeFCPacket(append(b[:], 0xFF))
			var r credit.FCPacket
			return err == nil && q == p && r.Decode(b[:]) == nil && r == p
		},
		gen.UInt8Range(0, 1).WithLabel("op"),
		gen.UInt16Range(0, 4095).WithLabel("FCTBS"),
		gen.UInt8Range(0, 14).WithLabel("VL"),
		gen.UInt16Range(0, 4095).WithLabel("FCCL"),
	))
	props.TestingRun(t)
}

// TestFCPacketDecodeErrors: each malformation is a *cc.DecodeError at its
// byte offset; every single-bit error in a valid packet is caught (a
// CRC-16 with a generator of more than one term detects all of them).
func TestFCPacketDecodeErrors(t *testing.T) {
	good, err := credit.FCPacket{FCTBS: 77, VL: 2, FCCL: 4000}.Encode()
	require.NoError(t, err)
	offset := func(b []byte) int {
		t.Helper()
		_, err := credit.DecodeFCPacket(b)
		var de *cc.DecodeError
		require.ErrorAs(t, err, &de)
		require.ErrorIs(t, err, cc.ErrDecode)
		return de.Offset
	}
	for n := range 6 {
		require.Equal(t, n, offset(good[:n]), "short %d", n)
	}
	reserved := good
	reserved[0] |= 0x20 // Op 2
	require.Equal(t, 0, offset(reserved[:]))
	vl15 := good
	vl15[2] |= 0xF0
	require.Equal(t, 2, offset(vl15[:]))
	crc := good
	crc[5] ^= 1
	require.Equal(t, 4, offset(crc[:]))
	for bit := range 48 {
		b := good
		b[bit/8] ^= 1 << (bit % 8)
		_, err := credit.DecodeFCPacket(b[:])
		require.ErrorIs(t, err, cc.ErrDecode, "bit %d", bit)
	}
	// A failed Decode leaves the packet as it was.
	p := credit.FCPacket{FCTBS: 1}
	require.Error(t, p.Decode(crc[:]))
	require.Equal(t, credit.FCPacket{FCTBS: 1}, p)
}

// TestFCPacketEncodeErrors: a field out of range is refused, never
// truncated, and AppendTo returns dst unchanged.
func TestFCPacketEncodeErrors(t *testing.T) {
	for _, p := range []credit.FCPacket{
		{Op: 2}, {FCTBS: 4096}, {VL: 15}, {FCCL: 4096},
	} {
		_, err := p.Encode()
		require.ErrorIs(t, err, cc.ErrEvent, "%+v", p)
		dst := []byte{1, 2}
		out, err := p.AppendTo(dst)
		require.Error(t, err)
		require.Equal(t, dst, out)
		require.True(t, cc.Typed(err))
	}
}

// FuzzDecodeFCPacket: Decode never panics; it either refuses with a
// *cc.DecodeError whose offset lies in the input (or at its end, for a
// short one), or returns a packet that encodes back to the same six bytes.
func FuzzDecodeFCPacket(f *testing.F) {
	good, _ := credit.FCPacket{Op: credit.FCInit, FCTBS: 0xABC, VL: 5, FCCL: 0x123}.Encode()
	f.Add(good[:])
	f.Add([]byte{0, 0, 0, 0, 0x62, 0xB3})
	f.Add([]byte{0xF0, 0, 0xF0, 0, 0, 0})
	f.Add([]byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := credit.DecodeFCPacket(b)
		if err != nil {
			var de *cc.DecodeError
			if !errors.As(err, &de) || de.Offset < 0 || de.Offset > min(len(b), 5) {
				t.Fatalf("error %v (%T) for % x", err, err, b)
			}
			return
		}
		out, err := p.Encode()
		if err != nil || string(out[:]) != string(b[:6]) {
			t.Fatalf("decode(% x) = %+v, encodes to % x, %v", b, p, out, err)
		}
	})
}
