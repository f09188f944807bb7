package wire_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/wire"
)

// refBTH is an independent encoder written from the table of IBA Vol. 1
// section 9.2, one field at a time, with no constant of the package.
func refBTH(h wire.BTH) []byte {
	bit := func(v bool, pos uint) byte {
		if v {
			return 1 << pos
		}
		return 0
	}
	b := []byte{h.OpCode, bit(h.SE, 7) | bit(h.M, 6) | h.PadCnt<<4 | h.TVer}
	b = binary.BigEndian.AppendUint16(b, h.PKey)
	b = append(b, bit(h.FECN, 7)|bit(h.BECN, 6))
	b = append(b, byte(h.DestQP>>16), byte(h.DestQP>>8), byte(h.DestQP))
	b = append(b, bit(h.AckReq, 7))
	return append(b, byte(h.PSN>>16), byte(h.PSN>>8), byte(h.PSN))
}

// refCNP is an independent encoder of a CNP from the table of annex
// A17.9.3.
func refCNP(c wire.CNP) []byte {
	b := []byte{0x81, 0}
	b = binary.BigEndian.AppendUint16(b, c.PKey)
	b = append(b, 0x40, byte(c.DestQP>>16), byte(c.DestQP>>8), byte(c.DestQP), 0, 0, 0, 0)
	b = append(b, c.Reserved[:]...)
	return binary.BigEndian.AppendUint32(b, c.ICRC)
}

// goldenCNP is the CNP of Mellanox's (NVIDIA's) knowledge-base article
// "RoCEv2 CNP Packet Format Example" (2018), a capture of a real NIC's
// CNP from the BTH on: P_Key 0xFFFF, BECN, DestQP 0xD2, 16 reserved
// zeros, ICRC e4 2d ad 81. Every byte of it also follows from the table of
// annex A17.9.3.
var goldenCNP = [32]byte{
	0x81, 0x00, 0xFF, 0xFF, 0x40, 0x00, 0x00, 0xD2, // OpCode, flags, P_Key, BECN, DestQP
	0x00, 0x00, 0x00, 0x00, // AckReq 0, PSN 0
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, // reserved
	0xE4, 0x2D, 0xAD, 0x81, // ICRC
}

// TestBTHGolden: fields with distinct values land where section 9.2's
// table puts them (expected bytes written out by hand).
func TestBTHGolden(t *testing.T) {
	// An RC RDMA WRITE Only (0x0A) with SE, PadCnt 2, FECN and AckReq.
	h := wire.BTH{OpCode: 0x0A, SE: true, PadCnt: 2, PKey: 0x8001, FECN: true, DestQP: 0x123456, AckReq: true, PSN: 0xABCDEF}
	want := [12]byte{
		0x0A,       // OpCode
		0xA0,       // SE (bit 7) 1, M (bit 6) 0, PadCnt (bits 5–4) 10, TVer 0000
		0x80, 0x01, // P_Key
		0x80,             // FECN 1, BECN 0, Resv6 0
		0x12, 0x34, 0x56, // DestQP
		0x80,             // AckReq 1, Resv7 0
		0xAB, 0xCD, 0xEF, // PSN
	}
	b, err := h.Encode()
	require.NoError(t, err)
	require.Equal(t, want, b)
	got, err := wire.DecodeBTH(want[:])
	require.NoError(t, err)
	require.Equal(t, h, got)

	// A UD SEND Only (0x64) with M, PadCnt 1, BECN and the largest PSN.
	h = wire.BTH{OpCode: 0x64, M: true, PadCnt: 1, PKey: 0xFFFF, BECN: true, DestQP: 1, PSN: 0xFFFFFF}
	want = [12]byte{0x64, 0x50, 0xFF, 0xFF, 0x40, 0x00, 0x00, 0x01, 0x00, 0xFF, 0xFF, 0xFF}
	b, err = h.Encode()
	require.NoError(t, err)
	require.Equal(t, want, b)
	got, err = wire.DecodeBTH(want[:])
	require.NoError(t, err)
	require.Equal(t, h, got)

	// Put and AppendTo write the same bytes; Put leaves the rest of b.
	buf := bytes.Repeat([]byte{0xEE}, 14)
	require.NoError(t, h.Put(buf))
	require.Equal(t, want[:], buf[:12])
	require.Equal(t, []byte{0xEE, 0xEE}, buf[12:])
	out, err := h.AppendTo([]byte{0x01})
	require.NoError(t, err)
	require.Equal(t, append([]byte{0x01}, want[:]...), out)

	// The zero value: twelve zero bytes, and they decode to it.
	z, err := wire.BTH{}.Encode()
	require.NoError(t, err)
	require.Equal(t, [12]byte{}, z)
	zh, err := wire.DecodeBTH(z[:])
	require.NoError(t, err)
	require.Equal(t, wire.BTH{}, zh)

	// Decode reads only the first 12 bytes.
	long := append(want[:], 0xFF, 0xFF)
	got, err = wire.DecodeBTH(long)
	require.NoError(t, err)
	require.Equal(t, h, got)
}

// TestCNPGolden: the captured CNP decodes to its fields and they encode
// back to it; a CNP with every variable field distinct lands where annex
// A17.9.3 puts it.
func TestCNPGolden(t *testing.T) {
	c, err := wire.DecodeCNP(goldenCNP[:])
	require.NoError(t, err)
	require.Equal(t, wire.CNP{DestQP: 0xD2, PKey: 0xFFFF, ICRC: 0xE42DAD81}, c)
	b, err := c.Encode()
	require.NoError(t, err)
	require.Equal(t, goldenCNP, b)

	c = wire.CNP{DestQP: 0xABCDEF, PKey: 0x7FFE, ICRC: 0x01020304}
	for i := range c.Reserved {
		c.Reserved[i] = 0x10 + byte(i)
	}
	want := [32]byte{
		0x81, 0x00, 0x7F, 0xFE, 0x40, 0xAB, 0xCD, 0xEF,
		0x00, 0x00, 0x00, 0x00,
		0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1A, 0x1B, 0x1C, 0x1D, 0x1E, 0x1F,
		0x01, 0x02, 0x03, 0x04,
	}
	b, err = c.Encode()
	require.NoError(t, err)
	require.Equal(t, want, b)
	got, err := wire.DecodeCNP(want[:])
	require.NoError(t, err)
	require.Equal(t, c, got)
	require.Equal(t, byte(0x10), want[wire.CNPReservedOffset])
	require.Equal(t, byte(0x01), want[wire.CNPICRCOffset])

	// The CNP's BTH is its first 12 bytes.
	hb, err := c.BTH().Encode()
	require.NoError(t, err)
	require.Equal(t, want[:12], hb[:])
	h, err := wire.DecodeBTH(want[:])
	require.NoError(t, err)
	require.Equal(t, c.BTH(), h)
	require.Equal(t, uint8(wire.OpCodeCNP), h.OpCode)

	// Put and AppendTo write the same bytes.
	buf := make([]byte, 33)
	buf[32] = 0xEE
	require.NoError(t, c.Put(buf))
	require.Equal(t, want[:], buf[:32])
	require.Equal(t, byte(0xEE), buf[32])
	out, err := c.AppendTo([]byte{0x01})
	require.NoError(t, err)
	require.Equal(t, append([]byte{0x01}, want[:]...), out)

	require.Equal(t, 32, wire.CNPBytes)
	require.Equal(t, 12, wire.CNPReservedOffset)
	require.Equal(t, 28, wire.CNPICRCOffset)
}

// requireEventErr checks a typed encoder error.
func requireEventErr(t *testing.T, err error, part, event string) {
	t.Helper()
	require.Error(t, err)
	require.True(t, cc.Typed(err))
	require.ErrorIs(t, err, cc.ErrEvent)
	var e *cc.EventError
	require.True(t, errors.As(err, &e), "%T", err)
	require.Equal(t, part, e.Part)
	require.Equal(t, event, e.Event)
	require.NotEmpty(t, e.Reason)
}

// requireDecodeErr checks a typed decoder error and its offset.
func requireDecodeErr(t *testing.T, err error, what string, offset int) {
	t.Helper()
	require.Error(t, err)
	require.True(t, cc.Typed(err))
	require.ErrorIs(t, err, cc.ErrDecode)
	var e *cc.DecodeError
	require.True(t, errors.As(err, &e), "%T", err)
	require.Equal(t, what, e.What, "%v", err)
	require.Equal(t, offset, e.Offset, "%v", err)
	require.NotEmpty(t, e.Reason)
}

// TestBTHEncodeRefusals: a value wider than its field is refused by
// Validate, Encode, Put and AppendTo, which write nothing.
func TestBTHEncodeRefusals(t *testing.T) {
	for name, h := range map[string]wire.BTH{
		"PadCnt 4":    {PadCnt: 4},
		"TVer 16":     {TVer: 16},
		"DestQP 2^24": {DestQP: 1 << 24},
		"PSN 2^24":    {PSN: 1 << 24},
		"PSN max":     {PSN: 0xFFFFFFFF},
	} {
		t.Run(name, func(t *testing.T) {
			requireEventErr(t, h.Validate(), "wire.BTH", "Encode")
			b, err := h.Encode()
			requireEventErr(t, err, "wire.BTH", "Encode")
			require.Equal(t, [12]byte{}, b)
			buf := bytes.Repeat([]byte{0xEE}, 12)
			requireEventErr(t, h.Put(buf), "wire.BTH", "Encode")
			require.Equal(t, bytes.Repeat([]byte{0xEE}, 12), buf)
			dst := []byte{7}
			out, err := h.AppendTo(dst)
			requireEventErr(t, err, "wire.BTH", "Encode")
			require.Equal(t, []byte{7}, out)
		})
	}
	// The largest values fit; TVer 1..15 encodes though no decoder reads it.
	_, err := wire.BTH{PadCnt: 3, TVer: 15, DestQP: wire.MaxQPN, PSN: wire.MaxPSN}.Encode()
	require.NoError(t, err)
	// A short buffer.
	buf := make([]byte, 11)
	requireEventErr(t, wire.BTH{}.Put(buf), "wire.BTH", "Encode")
	require.Equal(t, make([]byte, 11), buf)
}

// TestCNPEncodeRefusals: a DestQP at or above 2^24, a short buffer.
func TestCNPEncodeRefusals(t *testing.T) {
	c := wire.CNP{DestQP: 1 << 24, PKey: 0xFFFF}
	requireEventErr(t, c.Validate(), "wire.CNP", "Encode")
	b, err := c.Encode()
	requireEventErr(t, err, "wire.CNP", "Encode")
	require.Equal(t, [32]byte{}, b)
	out, err := c.AppendTo([]byte{9})
	requireEventErr(t, err, "wire.CNP", "Encode")
	require.Equal(t, []byte{9}, out)
	buf := make([]byte, 32)
	requireEventErr(t, c.Put(buf), "wire.CNP", "Encode")
	require.Equal(t, make([]byte, 32), buf)
	requireEventErr(t, wire.CNP{}.Put(make([]byte, 31)), "wire.CNP", "Encode")
}

// TestBTHDecodeRefusals: every refusal of DecodeBTH with its offset.
func TestBTHDecodeRefusals(t *testing.T) {
	good := [12]byte{0x0A, 0xF0, 0xFF, 0xFF, 0xC0, 0xFF, 0xFF, 0xFF, 0x80, 0xFF, 0xFF, 0xFF}
	_, err := wire.DecodeBTH(good[:])
	require.NoError(t, err)
	for n := range 12 {
		_, err := wire.DecodeBTH(good[:n])
		requireDecodeErr(t, err, "BTH", n)
	}
	_, err = wire.DecodeBTH(nil)
	requireDecodeErr(t, err, "BTH", 0)
	for _, tc := range []struct {
		name   string
		at     int
		set    byte
		offset int
	}{
		{"TVer 1", 1, 0xF1, 1},
		{"TVer 15", 1, 0x0F, 1},
		{"Resv6 bit 0", 4, 0xC1, 4},
		{"Resv6 bit 5", 4, 0x20, 4},
		{"Resv7 bit 0", 8, 0x81, 8},
		{"Resv7 bit 6", 8, 0x40, 8},
	} {
		b := good
		b[tc.at] = tc.set
		_, err := wire.DecodeBTH(b[:])
		requireDecodeErr(t, err, "BTH", tc.offset)
	}
	// Checked in order: TVer before Resv6 before Resv7.
	b := good
	b[1], b[4], b[8] = 0x01, 0x01, 0x01
	_, err = wire.DecodeBTH(b[:])
	requireDecodeErr(t, err, "BTH", 1)
	b[1] = 0
	_, err = wire.DecodeBTH(b[:])
	requireDecodeErr(t, err, "BTH", 4)

	// Decode leaves *h unchanged on error.
	h := wire.BTH{OpCode: 3, PSN: 9}
	requireDecodeErr(t, h.Decode(b[:]), "BTH", 4)
	require.Equal(t, wire.BTH{OpCode: 3, PSN: 9}, h)
	require.NoError(t, h.Decode(good[:]))
	require.Equal(t, uint32(0xFFFFFF), h.DestQP)
}

// TestCNPDecodeRefusals: every refusal of DecodeCNP with its offset.
func TestCNPDecodeRefusals(t *testing.T) {
	for n := range 32 {
		_, err := wire.DecodeCNP(goldenCNP[:n])
		requireDecodeErr(t, err, "CNP", n)
	}
	for _, tc := range []struct {
		name   string
		at     int
		set    byte
		what   string
		offset int
	}{
		{"TVer", 1, 0x01, "BTH", 1},
		{"Resv6", 4, 0x41, "BTH", 4},
		{"Resv7", 8, 0x01, "BTH", 8},
		{"OpCode 0x80", 0, 0x80, "CNP", 0},
		{"OpCode 0x01", 0, 0x01, "CNP", 0},
		{"OpCode 0x64", 0, 0x64, "CNP", 0},
		{"SE", 1, 0x80, "CNP", 1},
		{"M", 1, 0x40, "CNP", 1},
		{"PadCnt 1", 1, 0x10, "CNP", 1},
		{"PadCnt 3", 1, 0x30, "CNP", 1},
		{"BECN clear", 4, 0x00, "CNP", 4},
		{"FECN set", 4, 0xC0, "CNP", 4},
		{"FECN instead of BECN", 4, 0x80, "CNP", 4},
		{"AckReq", 8, 0x80, "CNP", 8},
		{"PSN high byte", 9, 0x01, "CNP", 9},
		{"PSN middle byte", 10, 0x01, "CNP", 9},
		{"PSN low byte", 11, 0x01, "CNP", 9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := goldenCNP
			b[tc.at] = tc.set
			_, err := wire.DecodeCNP(b[:])
			requireDecodeErr(t, err, tc.what, tc.offset)
		})
	}
	// The reserved bytes, DestQP, P_Key and ICRC take any value.
	b := goldenCNP
	for i := 2; i < 32; i++ {
		if i < 4 || (i >= 5 && i < 8) || i >= 12 {
			b[i] = 0xFF
		}
	}
	c, err := wire.DecodeCNP(b[:])
	require.NoError(t, err)
	require.Equal(t, uint32(wire.MaxQPN), c.DestQP)
	require.Equal(t, uint16(0xFFFF), c.PKey)
	require.Equal(t, uint32(0xFFFFFFFF), c.ICRC)
	require.Equal(t, [16]byte(bytes.Repeat([]byte{0xFF}, 16)), c.Reserved)

	// Decode leaves *c unchanged on error.
	c = wire.CNP{DestQP: 5}
	requireDecodeErr(t, c.Decode(goldenCNP[:31]), "CNP", 31)
	require.Equal(t, wire.CNP{DestQP: 5}, c)
	require.NoError(t, c.Decode(goldenCNP[:]))
	require.Equal(t, uint32(0xD2), c.DestQP)
}

func randBTH(r *rand.Rand) wire.BTH {
	v := r.Uint64()
	return wire.BTH{
		OpCode: uint8(v),
		SE:     v>>8&1 != 0,
		M:      v>>9&1 != 0,
		PadCnt: uint8(v >> 10 & 3),
		PKey:   uint16(v >> 12),
		FECN:   v>>28&1 != 0,
		BECN:   v>>29&1 != 0,
		AckReq: v>>30&1 != 0,
		DestQP: uint32(r.Int63n(1 << 24)),
		PSN:    uint32(r.Int63n(1 << 24)),
	}
}

func randCNP(r *rand.Rand) wire.CNP {
	c := wire.CNP{DestQP: uint32(r.Int63n(1 << 24)), PKey: uint16(r.Uint32()), ICRC: r.Uint32()}
	if r.Intn(4) != 0 { // a quarter with all-zero reserved bytes
		r.Read(c.Reserved[:])
	}
	return c
}

// TestRoundTrips: Encode then Decode is the identity on random valid
// values, the bytes are the reference encoder's, and what Decode accepts
// of random bytes Encode writes back byte for byte.
func TestRoundTrips(t *testing.T) {
	r := rand.New(rand.NewSource(20240917))
	for range 20000 {
		h := randBTH(r)
		b, err := h.Encode()
		require.NoError(t, err)
		require.Equal(t, refBTH(h), b[:], "%+v", h)
		got, err := wire.DecodeBTH(b[:])
		require.NoError(t, err)
		require.Equal(t, h, got)

		c := randCNP(r)
		cb, err := c.Encode()
		require.NoError(t, err)
		require.Equal(t, refCNP(c), cb[:], "%+v", c)
		gc, err := wire.DecodeCNP(cb[:])
		require.NoError(t, err)
		require.Equal(t, c, gc)
	}

	// Random bytes, with the fixed bits forced now and then so that some
	// are accepted.
	var accepted [2]int
	for range 50000 {
		var b [32]byte
		r.Read(b[:])
		if r.Intn(2) == 0 {
			b[1] &^= 0x0F
			b[4] &^= 0x3F
			b[8] &^= 0x7F
		}
		if r.Intn(2) == 0 {
			b[0], b[1], b[4], b[8], b[9], b[10], b[11] = 0x81, 0, 0x40, 0, 0, 0, 0
		}
		if h, err := wire.DecodeBTH(b[:]); err == nil {
			accepted[0]++
			out, err := h.Encode()
			require.NoError(t, err)
			require.Equal(t, b[:12], out[:])
		} else {
			require.True(t, cc.Typed(err))
		}
		if c, err := wire.DecodeCNP(b[:]); err == nil {
			accepted[1]++
			out, err := c.Encode()
			require.NoError(t, err)
			require.Equal(t, b, out)
		} else {
			require.True(t, cc.Typed(err))
		}
	}
	require.Greater(t, accepted[0], 10000)
	require.Greater(t, accepted[1], 5000)
}

// TestReservedWord: a 32-bit word at offsets 0..12 of the reserved bytes,
// in either byte order, touching only its 4 bytes; other offsets and a nil
// order refused.
func TestReservedWord(t *testing.T) {
	for off := 0; off <= 12; off++ {
		for _, order := range []binary.ByteOrder{binary.BigEndian, binary.LittleEndian, binary.NativeEndian} {
			var res [16]byte
			for i := range res {
				res[i] = 0xA0 + byte(i)
			}
			before := res
			require.NoError(t, wire.PutReservedWord(&res, off, order, 0x11223344))
			want := before
			order.PutUint32(want[off:], 0x11223344)
			require.Equal(t, want, res, "%v at %d", order, off)
			v, err := wire.ReservedWord(&res, off, order)
			require.NoError(t, err)
			require.Equal(t, uint32(0x11223344), v)
		}
	}
	// Big-endian at offset 4 is bytes 16..19 of the CNP, in wire order.
	c := wire.CNP{DestQP: 1}
	require.NoError(t, wire.PutReservedWord(&c.Reserved, 4, binary.BigEndian, 0xCAFEF00D))
	b, err := c.Encode()
	require.NoError(t, err)
	require.Equal(t, []byte{0xCA, 0xFE, 0xF0, 0x0D}, b[16:20])
	d, err := wire.DecodeCNP(b[:])
	require.NoError(t, err)
	v, err := wire.ReservedWord(&d.Reserved, 4, binary.BigEndian)
	require.NoError(t, err)
	require.Equal(t, uint32(0xCAFEF00D), v)
	v, err = wire.ReservedWord(&d.Reserved, 4, binary.LittleEndian)
	require.NoError(t, err)
	require.Equal(t, uint32(0x0DF0FECA), v)

	for _, off := range []int{-1, 13, 16, 1 << 40} {
		var res [16]byte
		_, err := wire.ReservedWord(&res, off, binary.BigEndian)
		requireEventErr(t, err, "wire.CNP", "ReservedWord")
		requireEventErr(t, wire.PutReservedWord(&res, off, binary.BigEndian, 1), "wire.CNP", "PutReservedWord")
		require.Equal(t, [16]byte{}, res)
	}
	var res [16]byte
	_, err = wire.ReservedWord(&res, 0, nil)
	requireEventErr(t, err, "wire.CNP", "ReservedWord")
	requireEventErr(t, wire.PutReservedWord(&res, 0, nil, 1), "wire.CNP", "PutReservedWord")
}

// TestNoAllocs: the accepting paths allocate nothing.
func TestNoAllocs(t *testing.T) {
	h := wire.BTH{OpCode: 0x0A, SE: true, PadCnt: 2, PKey: 0x8001, FECN: true, DestQP: 0x123456, AckReq: true, PSN: 0xABCDEF}
	c := wire.CNP{DestQP: 0xD2, PKey: 0xFFFF, ICRC: 0xE42DAD81}
	buf := make([]byte, 0, 64)
	var sink uint32
	n := testing.AllocsPerRun(1000, func() {
		hb, _ := h.Encode()
		_ = h.Put(buf[:12])
		out, _ := h.AppendTo(buf[:0])
		d, _ := wire.DecodeBTH(hb[:])
		_ = d.Decode(out)
		_ = h.Validate()

		cb, _ := c.Encode()
		_ = c.Put(buf[:32])
		out, _ = c.AppendTo(buf[:0])
		e, _ := wire.DecodeCNP(cb[:])
		_ = e.Decode(out)
		_ = e.BTH()

		_ = wire.PutReservedWord(&c.Reserved, 8, binary.BigEndian, d.PSN)
		_ = wire.PutReservedWord(&c.Reserved, 0, binary.LittleEndian, d.DestQP)
		v, _ := wire.ReservedWord(&e.Reserved, 8, binary.BigEndian)
		w, _ := wire.ReservedWord(&e.Reserved, 0, binary.LittleEndian)
		sink += v + w
	})
	require.Zero(t, n)
	_ = sink
}

var (
	sinkBTH   wire.BTH
	sinkCNP   wire.CNP
	sinkBytes [32]byte
)

func BenchmarkBTHEncode(b *testing.B) {
	h := wire.BTH{OpCode: 0x0A, SE: true, PadCnt: 2, PKey: 0x8001, FECN: true, DestQP: 0x123456, AckReq: true, PSN: 0xABCDEF}
	b.ReportAllocs()
	for i := range b.N {
		h.PSN = uint32(i) & wire.MaxPSN
		x, _ := h.Encode()
		copy(sinkBytes[:], x[:])
	}
}

func BenchmarkBTHPut(b *testing.B) {
	h := wire.BTH{OpCode: 0x0A, PKey: 0xFFFF, DestQP: 0x123456}
	buf := make([]byte, 12)
	b.ReportAllocs()
	for i := range b.N {
		h.PSN = uint32(i) & wire.MaxPSN
		_ = h.Put(buf)
	}
}

func BenchmarkBTHDecode(b *testing.B) {
	in := [12]byte{0x0A, 0xA0, 0x80, 0x01, 0x80, 0x12, 0x34, 0x56, 0x80, 0xAB, 0xCD, 0xEF}
	b.ReportAllocs()
	for i := range b.N {
		in[11] = byte(i)
		sinkBTH, _ = wire.DecodeBTH(in[:])
	}
}

func BenchmarkCNPEncode(b *testing.B) {
	c := wire.CNP{DestQP: 0xD2, PKey: 0xFFFF, ICRC: 0xE42DAD81}
	b.ReportAllocs()
	for i := range b.N {
		c.DestQP = uint32(i) & wire.MaxQPN
		sinkBytes, _ = c.Encode()
	}
}

func BenchmarkCNPAppendTo(b *testing.B) {
	c := wire.CNP{DestQP: 0xD2, PKey: 0xFFFF, ICRC: 0xE42DAD81}
	buf := make([]byte, 0, 32)
	b.ReportAllocs()
	for i := range b.N {
		c.DestQP = uint32(i) & wire.MaxQPN
		buf, _ = c.AppendTo(buf[:0])
	}
}

func BenchmarkCNPDecode(b *testing.B) {
	in := goldenCNP
	b.ReportAllocs()
	for i := range b.N {
		in[7] = byte(i)
		sinkCNP, _ = wire.DecodeCNP(in[:])
	}
}
