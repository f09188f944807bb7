package inttel

import (
	"encoding/hex"
	"errors"
	"fmt"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
)

func TestLayoutConstants(t *testing.T) {
	// Figure 7: 4 + 12 bits of prefix, 4 + 24 + 20 + 16 = 64 bits per hop.
	require.Equal(t, 2, PrefixLen)
	require.Equal(t, 8, HopLen)
	require.Equal(t, 15, HopsLimit)
	// The paper's "42 bytes for 5 hops" (Figure 7, section 4.1): 2 + 5·8.
	require.Equal(t, 42, HeaderLen(5))
	require.Equal(t, 2+15*8, MaxLen)
}

// headerVectors are hand-written from the bit layout: prefix nHop<<12 |
// pathID, then B<<60 | TS<<36 | txBytes<<16 | qLen per hop. The fields are
// nibble-aligned, so each vector reads as its fields' hex digits in order.
var headerVectors = []struct {
	name string
	h    Header
	wire string
}{
	{"empty (what the sender sends)", Header{}, "0000"},
	{"no hops, pathID max", Header{PathID: 0xfff}, "0fff"},
	{"one zero hop at 10 Gb/s", Header{NHop: 1, Hops: [15]Hop{{}}}, "1000" + "0000000000000000"},
	{
		"two hops",
		Header{NHop: 2, PathID: 0xabc, Hops: [15]Hop{
			{Speed: 6, TS: 0x123456, TxBytes: 0xabcde, QLen: 0x1234},
			{Speed: 4, TS: 0xffffff, TxBytes: 0xfffff, QLen: 0xffff},
		}},
		"2abc" + "6" + "123456" + "abcde" + "1234" + "4" + "ffffff" + "fffff" + "ffff",
	},
	{
		"single-bit fields: each lowest bit set",
		Header{NHop: 1, PathID: 1, Hops: [15]Hop{{Speed: 1, TS: 1, TxBytes: 1, QLen: 1}}},
		"1001" + "1" + "000001" + "00001" + "0001",
	},
	{
		"five hops, 42 bytes",
		Header{NHop: 5, PathID: 0x5a5, Hops: [15]Hop{
			{7, 0x000001, 0x00002, 0x0003}, {0, 0x800000, 0x80000, 0x8000},
			{3, 0x0f0f0f, 0x0f0f0, 0x0f0f}, {5, 0x7fffff, 0x7ffff, 0x7fff}, {2, 0xa5a5a5, 0x5a5a5, 0xa5a5},
		}},
		"55a5" + "7000001000020003" + "0800000800008000" + "30f0f0f0f0f00f0f" + "57fffff7ffff7fff" + "2a5a5a55a5a5a5a5",
	},
}

func TestAppendHeaderVectors(t *testing.T) {
	c := mustCodec(t, DefaultConfig())
	for _, v := range headerVectors {
		want := mustHex(t, v.wire)
		// The hand-written vector agrees with the three oracles...
		require.Equal(t, v.wire, hexOracle(&v.h), v.name)
		require.Equal(t, want, bigOracle(&v.h), v.name)
		require.Equal(t, want, shiftOracle(&v.h), v.name)
		// ...and with the package.
		got, err := c.AppendHeader(nil, &v.h)
		require.NoError(t, err, v.name)
		require.Equal(t, want, got, v.name)
		require.Len(t, got, v.h.Len(), v.name)
		// Appending keeps what was in dst.
		got, err = c.AppendHeader([]byte{0xee}, &v.h)
		require.NoError(t, err)
		require.Equal(t, append([]byte{0xee}, want...), got)
	}
}

func TestDecodeVectors(t *testing.T) {
	c := mustCodec(t, DefaultConfig())
	bth := []byte{0xde, 0xad, 0xbe, 0xef} // what follows the header: not read
	for _, v := range headerVectors {
		b := append(mustHex(t, v.wire), bth...)
		h := Header{NHop: 3, PathID: 7, Hops: [15]Hop{{1, 2, 3, 4}, {}, {}, {5, 6, 7, 8}}} // stale
		n, err := c.Decode(b, &h)
		require.NoError(t, err, v.name)
		require.Equal(t, len(v.wire)/2, n, v.name)
		require.Equal(t, v.h, h, v.name) // stale records past NHop were zeroed
		require.Equal(t, bigDecodeOracle(b, int(v.h.NHop)), h, v.name)
	}
}

// TestEncodeAgainstOracles checks encoding against all three oracles, and
// decoding against the math/big field extractor, over random valid headers
// of every length up to 15 hops.
func TestEncodeAgainstOracles(t *testing.T) {
	c := mustCodec(t, wideConfig())
	props := gopter.NewProperties(params(2000))
	props.Property("AppendHeader = hex = math/big = shift oracle; Decode = math/big", prop.ForAll(
		func(h Header) bool {
			got, err := c.AppendHeader(nil, &h)
			if err != nil {
				return false
			}
			if hex.EncodeToString(got) != hexOracle(&h) || string(got) != string(bigOracle(&h)) ||
				string(got) != string(shiftOracle(&h)) {
				return false
			}
			var back Header
			n, err := c.Decode(got, &back)
			return err == nil && n == len(got) && back == bigDecodeOracle(got, int(h.NHop))
		},
		genHeader(HopsLimit, 8),
	))
	props.TestingRun(t)
}

// TestRoundTrip is the property encode∘decode = identity over all valid
// headers (any nHop 0..15, pathID, and every field value in range).
func TestRoundTrip(t *testing.T) {
	c := mustCodec(t, fullConfig())
	props := gopter.NewProperties(params(3000))
	props.Property("Decode(AppendHeader(h)) = h", prop.ForAll(
		func(h Header) bool {
			buf, err := c.AppendHeader(make([]byte, 0, MaxLen), &h)
			if err != nil {
				return false
			}
			var back Header
			n, err := c.Decode(buf, &back)
			return err == nil && n == HeaderLen(int(h.NHop)) && back == h
		},
		genHeader(HopsLimit, 16),
	))
	props.TestingRun(t)
}

func TestDecodeErrors(t *testing.T) {
	c := mustCodec(t, DefaultConfig()) // MaxHops 5, codes 0..7
	cases := []struct {
		name   string
		wire   string
		want   error
		says   string // the message must name the problem
		offset int    // the byte where decoding failed
	}{
		{"no bytes", "", ErrShortBuffer, "0 bytes, need 2", 0},
		{"half a prefix", "20", ErrShortBuffer, "1 bytes, need 2", 1},
		{"prefix only, one hop announced", "1000", ErrShortBuffer, "2 bytes, need 10 for nHop = 1", 2},
		{"hop cut short", "2abc6123456abcde1234" + "4fffffffffffff", ErrShortBuffer, "17 bytes, need 18", 17},
		{"nHop 6 > MaxHops 5", "6000", ErrTooManyHops, "nHop = 6, want 0..5", 0},
		{"nHop 15", "f000", ErrTooManyHops, "nHop = 15", 0},
		{"speed code 8 unassigned", "1000" + "8000000000000000", ErrUnknownSpeed, "hop 0: speed code B = 8", 2},
		{"speed code 15 in hop 1", "2000" + "6000000000000000" + "f000000000000000", ErrUnknownSpeed, "hop 1: speed code B = 15", 10},
	}
	for _, tc := range cases {
		stale := Header{NHop: 2, PathID: 0x123, Hops: [15]Hop{{1, 2, 3, 4}, {5, 6, 7, 8}}}
		h := stale
		n, err := c.Decode(mustHex(t, tc.wire), &h)
		require.ErrorIs(t, err, tc.want, tc.name)
		require.ErrorContains(t, err, tc.says, tc.name)
		var de *DecodeError
		require.ErrorAs(t, err, &de, tc.name)
		require.Equal(t, tc.offset, de.Offset, tc.name)
		require.ErrorIs(t, err, cc.ErrDecode, "%s: the contract's decode error (cc.ErrDecode)", tc.name)
		require.ErrorContains(t, err, fmt.Sprintf("byte %d:", tc.offset), tc.name)
		require.Zero(t, n, tc.name)
		require.Equal(t, stale, h, "%s: header must be untouched on error", tc.name)
	}
	// A wider configuration accepts what the default rejected.
	wide := mustCodec(t, fullConfig())
	var h Header
	n, err := wide.Decode(mustHex(t, "1000f000000000000000"), &h)
	require.NoError(t, err)
	require.Equal(t, 10, n)
	require.Equal(t, uint8(15), h.Hops[0].Speed)
}

func TestAppendHeaderErrors(t *testing.T) {
	c := mustCodec(t, DefaultConfig())
	ok := Hop{Speed: 4, TS: 1, TxBytes: 1, QLen: 1}
	cases := []struct {
		name string
		h    Header
		want error
		says string
	}{
		{"nHop above MaxHops", Header{NHop: 6}, ErrTooManyHops, "Header.NHop = 6, want 0..5"},
		{"nHop above 15", Header{NHop: 16}, ErrTooManyHops, "Header.NHop = 16"},
		{"pathID 13 bits", Header{PathID: 0x1000}, ErrFieldRange, "Header.PathID = 0x1000"},
		{"TS 25 bits", Header{NHop: 2, Hops: [15]Hop{ok, {Speed: 4, TS: 1 << 24}}}, ErrFieldRange, "hop 1: TS = 0x1000000"},
		{"txBytes 21 bits", Header{NHop: 1, Hops: [15]Hop{{Speed: 4, TxBytes: 1 << 20}}}, ErrFieldRange, "hop 0: TxBytes = 0x100000"},
		{"unassigned speed", Header{NHop: 1, Hops: [15]Hop{{Speed: 9}}}, ErrUnknownSpeed, "hop 0: speed code B = 9"},
		{"speed above 4 bits", Header{NHop: 1, Hops: [15]Hop{{Speed: 16}}}, ErrUnknownSpeed, "speed code B = 16"},
	}
	for _, tc := range cases {
		dst := []byte{1, 2, 3}
		got, err := c.AppendHeader(dst, &tc.h)
		require.ErrorIs(t, err, tc.want, tc.name)
		require.ErrorContains(t, err, tc.says, tc.name)
		require.Equal(t, []byte{1, 2, 3}, got, "%s: dst unchanged", tc.name)
	}
}

func TestHeaderPath(t *testing.T) {
	h := Header{NHop: 2, Hops: [15]Hop{{Speed: 1}, {Speed: 2}, {Speed: 3}}}
	require.Equal(t, []Hop{{Speed: 1}, {Speed: 2}}, h.Path())
	require.Empty(t, (&Header{}).Path())
	h.NHop = 200 // hand-built nonsense: clamped, no panic
	require.Len(t, h.Path(), HopsLimit)
	require.Equal(t, 2+200*8, h.Len())
}

func TestSentinelsDistinct(t *testing.T) {
	all := []error{ErrConfig, ErrShortBuffer, ErrLength, ErrTooManyHops, ErrPathFull, ErrUnknownSpeed, ErrFieldRange, ErrZeroInterval}
	for i, a := range all {
		for j, b := range all {
			require.Equal(t, i == j, errors.Is(a, b), "%v vs %v", a, b)
		}
	}
}
