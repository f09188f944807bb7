package inttel

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
)

// sentinels are every error sentinel of the package, with the names the
// tests count outcomes by.
var sentinels = []struct {
	name string
	err  error
}{
	{"short buffer", ErrShortBuffer},
	{"length", ErrLength},
	{"too many hops", ErrTooManyHops},
	{"path full", ErrPathFull},
	{"unknown speed", ErrUnknownSpeed},
	{"field range", ErrFieldRange},
	{"config", ErrConfig},
	{"zero interval", ErrZeroInterval},
}

// sentinelOf names the one sentinel err wraps ("" for nil, "none" for an
// error that wraps none).
func sentinelOf(err error) string {
	if err == nil {
		return ""
	}
	for _, s := range sentinels {
		if errors.Is(err, s.err) {
			return s.name
		}
	}
	return "none"
}

// wireCodec writes and reads any header whose fields fit their widths:
// every speed code assigned, 15 hops. The wire form does not depend on the
// Codec, so it builds the stacks the tests hand to other codecs.
func wireCodec(t testing.TB) *Codec { return mustCodec(t, fullConfig()) }

// randomStackHeader draws a header as a stack may hold it: nHop 0..15
// (mostly within maxHops, maxHops itself often: the path-full case), any
// 12-bit pathID, records with any speed code (the ones already in a stack
// are not read by Push or Stamp) and fields within their widths.
func randomStackHeader(rng *rand.Rand, maxHops int) Header {
	n := rng.IntN(maxHops + 1)
	switch rng.IntN(8) {
	case 0:
		n = maxHops
	case 1:
		n = rng.IntN(HopsLimit + 1)
	}
	h := Header{NHop: uint8(n), PathID: uint16(rng.IntN(MaxPathID + 1))}
	for i := range n {
		h.Hops[i] = Hop{Speed: uint8(rng.IntN(MaxSpeed + 1)), TS: uint32(rng.IntN(MaxTS + 1)),
			TxBytes: uint32(rng.IntN(MaxTxBytes + 1)), QLen: uint16(rng.Uint32())}
	}
	return h
}

// randomPort draws a port state for codec c and a time: mostly valid, with
// queues past qLen's saturation, and now and then each kind of bad value.
func randomPort(rng *rand.Rand, c *Codec) (units.Time, Port) {
	speeds := c.Config().Speeds
	now := units.Time(rng.Int64N(1 << 50))
	p := Port{
		SwitchID: uint16(rng.IntN(MaxPathID + 1)),
		Rate:     speeds[rng.IntN(len(speeds))].Rate,
		TxBytes:  units.Bytes(rng.Int64N(1 << 45)),
		QLen:     units.Bytes(rng.Int64N(6_000_000)), // 5.24 MB saturates at 80 B
	}
	switch rng.IntN(40) {
	case 0:
		p.Rate = 99 * units.Gbps // no code in either table
	case 1:
		p.SwitchID = 0x1000 | uint16(rng.IntN(0xf000))
	case 2:
		now = -1 - units.Time(rng.Int64N(1<<40))
	case 3:
		p.TxBytes = -1
	case 4:
		p.QLen = -80
	}
	return now, p
}

// junkStack returns a stack whose bytes are all random, so that a test can
// see that Push and Put write nothing but what they should.
func junkStack(rng *rand.Rand) cc.Telemetry {
	var t cc.Telemetry
	for i := range t.Data {
		t.Data[i] = byte(rng.Uint32())
	}
	return t
}

// TestPushMatchesStamp is a differential test of Push (on the wire form)
// against Stamp (on the Header) over seeded random headers and ports, for
// MaxHops 1, 5 and 15: the same saturation flag and the same sentinel; on
// success the stack is the stamped header's wire form and no byte past it
// changed; on every error the stack is unchanged. Every outcome occurs.
func TestPushMatchesStamp(t *testing.T) {
	wire := wireCodec(t)
	for _, maxHops := range []int{1, HPCCMaxHops, HopsLimit} {
		cfg := DefaultConfig()
		cfg.MaxHops = maxHops
		c := mustCodec(t, cfg)
		rng := rand.New(rand.NewPCG(uint64(*seed), uint64(maxHops)))
		seen := map[string]int{}
		for i := range 30000 {
			h := randomStackHeader(rng, maxHops)
			tel := junkStack(rng)
			require.NoError(t, wire.Put(&tel, &h))
			now, p := randomPort(rng, c)
			before, stamped := tel, h
			satS, errS := c.Stamp(now, &stamped, p)
			satP, errP := c.Push(now, &tel, p)
			msg := fmt.Sprintf("MaxHops %d, case %d: %+v at %v on %x: Stamp %v, Push %v", maxHops, i, p, now, before.Bytes(), errS, errP)
			require.Equal(t, satS, satP, msg)
			require.Equal(t, sentinelOf(errS), sentinelOf(errP), msg)
			if errS != nil {
				require.Equal(t, before, tel, "%s: the stack changed", msg)
				seen[sentinelOf(errS)]++
				continue
			}
			want, err := wire.AppendHeader(nil, &stamped)
			require.NoError(t, err)
			require.Equal(t, want, tel.Bytes(), msg)
			require.Equal(t, before.Data[tel.Len:], tel.Data[tel.Len:], "%s: a byte past the record changed", msg)
			seen["stamped"]++
			if satP {
				seen["saturated"]++
			}
		}
		for _, o := range []string{"stamped", "saturated", "path full", "unknown speed", "field range"} {
			require.Positive(t, seen[o], "MaxHops %d: outcome %q never occurred", maxHops, o)
		}
		if maxHops < HopsLimit {
			require.Positive(t, seen["too many hops"], "MaxHops %d", maxHops)
		}
	}
}

// TestPushMalformedStacks: a stack that is not one header is refused with
// a *DecodeError naming the byte (the first missing one, or the first one
// too many), except that a path already full or an nHop above MaxHops is
// reported as Stamp reports it; the stack is unchanged every time.
func TestPushMalformedStacks(t *testing.T) {
	c := mustCodec(t, DefaultConfig()) // MaxHops 5
	hop := "4000000100002000"          // a 100 Gb/s record
	five := "5123" + hop + hop + hop + hop + hop
	cases := []struct {
		name   string
		wire   string
		len    int // Len when it is not the wire's length (above the cap)
		want   error
		offset int // -1: not a *DecodeError
	}{
		{"no bytes", "", 0, ErrShortBuffer, 0},
		{"half a prefix", "10", 0, ErrShortBuffer, 1},
		{"prefix only, one hop announced", "1000", 0, ErrShortBuffer, 2},
		{"second record cut short", "2abc" + hop + hop[:12], 0, ErrShortBuffer, 16},
		{"a byte after the prefix", "0000ff", 0, ErrLength, 2},
		{"a byte after the record", "1000" + hop + "00", 0, ErrLength, 10},
		{"Len 129, above the cap", "0000", 129, ErrLength, 128},
		{"Len 255", "0000", 255, ErrLength, 128},
		{"five records, one cut short: not full", five[:len(five)-2], 0, ErrShortBuffer, 41},
		{"five records and a byte: not full", five + "00", 0, ErrLength, 42},
		{"five records: full", five, 0, ErrPathFull, -1},
		{"nHop 6 above MaxHops", "6000", 0, ErrTooManyHops, -1},
		{"nHop 15, 122 bytes", "f000" + fmt.Sprintf("%0240d", 0), 0, ErrTooManyHops, -1},
	}
	port := Port{SwitchID: 1, Rate: 100 * units.Gbps, QLen: 1 << 30}
	for _, tc := range cases {
		var tel cc.Telemetry
		require.True(t, tel.Set(mustHex(t, tc.wire)), tc.name)
		if tc.len != 0 {
			tel.Len = uint8(tc.len)
		}
		before := tel
		sat, err := c.Push(units.Millisecond, &tel, port)
		require.ErrorIs(t, err, tc.want, tc.name)
		require.False(t, sat, tc.name)
		require.Equal(t, before, tel, "%s: the stack changed", tc.name)
		var de *DecodeError
		if tc.offset < 0 {
			require.False(t, errors.As(err, &de), "%s: %v", tc.name, err)
			continue
		}
		require.ErrorAs(t, err, &de, tc.name)
		require.ErrorIs(t, err, cc.ErrDecode, tc.name)
		require.Equal(t, tc.offset, de.Offset, "%s: %v", tc.name, err)
		require.ErrorContains(t, err, fmt.Sprintf("byte %d:", tc.offset), tc.name)
	}
}

// TestPushPath stamps a path switch by switch on the wire and on a Header
// and compares at every hop: what a frame carries through a network is
// what the Header-based API computes.
func TestPushPath(t *testing.T) {
	c := mustCodec(t, DefaultConfig())
	var tel cc.Telemetry
	var h Header
	require.NoError(t, c.Put(&tel, &h))
	require.Equal(t, []byte{0, 0}, tel.Bytes(), "the empty header a sender attaches")
	for i := range HPCCMaxHops + 2 {
		p := Port{SwitchID: uint16(0x111 * (i + 1)), Rate: 400 * units.Gbps, TxBytes: units.Bytes(i) * units.GB, QLen: units.Bytes(i) * 2 * units.MB}
		now := units.Time(i+1) * units.Microsecond
		satS, errS := c.Stamp(now, &h, p)
		satP, errP := c.Push(now, &tel, p)
		require.Equal(t, satS, satP, "hop %d", i)
		require.Equal(t, errS, errP, "hop %d", i) // the path-full error is one value
		var back Header
		require.NoError(t, c.Get(&tel, &back), "hop %d", i)
		require.Equal(t, h, back, "hop %d", i)
	}
	require.Equal(t, uint8(HPCCMaxHops), h.NHop)
	require.Equal(t, 42, int(tel.Len)) // Figure 7's 42 bytes for 5 hops
}

// TestReadHeaderMatchesDecode: over every valid header (any nHop 0..15, any
// speed code), ReadHeader reads what Decode reads from the same bytes, and
// leaves the records past nHop as they were.
func TestReadHeaderMatchesDecode(t *testing.T) {
	c := wireCodec(t)
	stale := Header{NHop: 15, PathID: 0x321}
	for i := range stale.Hops {
		stale.Hops[i] = Hop{Speed: 9, TS: uint32(i), TxBytes: 7, QLen: 7}
	}
	props := gopter.NewProperties(params(3000))
	props.Property("ReadHeader = Decode on the header's bytes", prop.ForAll(
		func(h Header) bool {
			b, err := c.AppendHeader(nil, &h)
			if err != nil {
				return false
			}
			var dec Header
			if n, err := c.Decode(b, &dec); err != nil || n != len(b) {
				return false
			}
			got := stale
			if ReadHeader(b, &got) != nil {
				return false
			}
			return got.NHop == dec.NHop && got.PathID == dec.PathID &&
				slices.Equal(got.Path(), dec.Path()) && slices.Equal(got.Hops[got.NHop:], stale.Hops[got.NHop:])
		},
		genHeader(HopsLimit, 16),
	))
	props.TestingRun(t)
}

// TestReadHeaderAgainstDecodeOnAnyBytes: on random byte strings of lengths
// about a header's, with the Codec that accepts every nHop and speed code,
// ReadHeader fails exactly when Decode fails (the same sentinel and
// offset) or Decode leaves bytes over (ErrLength at the first of them), and
// otherwise reads what Decode reads; on every error the header is as it
// was.
func TestReadHeaderAgainstDecodeOnAnyBytes(t *testing.T) {
	c := wireCodec(t)
	rng := rand.New(rand.NewPCG(uint64(*seed), 2))
	seen := map[string]int{}
	for i := range 50000 {
		nHop := rng.IntN(HopsLimit + 1)
		n := max(0, HeaderLen(nHop)+rng.IntN(5)-2) // ±2 bytes around the header's length
		if rng.IntN(10) == 0 {
			n = rng.IntN(3)
		}
		b := make([]byte, n)
		for k := range b {
			b[k] = byte(rng.Uint32())
		}
		if n > 0 {
			b[0] = b[0]&0x0f | byte(nHop)<<4
		}
		stale := Header{NHop: 2, PathID: 0x5a5, Hops: [15]Hop{{1, 2, 3, 4}, {5, 6, 7, 8}}}
		dec, got := stale, stale
		m, errD := c.Decode(b, &dec)
		errR := ReadHeader(b, &got)
		msg := fmt.Sprintf("case %d: %x: Decode %d %v, ReadHeader %v", i, b, m, errD, errR)
		switch {
		case errD != nil:
			require.Equal(t, sentinelOf(errD), sentinelOf(errR), msg)
			var dd, dr *DecodeError
			require.ErrorAs(t, errD, &dd, msg)
			require.ErrorAs(t, errR, &dr, msg)
			require.Equal(t, dd.Offset, dr.Offset, msg)
			require.Equal(t, stale, got, msg)
			seen["short"]++
		case m < len(b):
			require.ErrorIs(t, errR, ErrLength, msg)
			var dr *DecodeError
			require.ErrorAs(t, errR, &dr, msg)
			require.Equal(t, m, dr.Offset, msg)
			require.Equal(t, stale, got, msg)
			seen["long"]++
		default:
			require.NoError(t, errR, msg)
			require.Equal(t, dec.NHop, got.NHop, msg)
			require.Equal(t, dec.PathID, got.PathID, msg)
			require.Equal(t, dec.Path(), got.Path(), msg)
			seen["read"]++
		}
	}
	require.Positive(t, seen["short"])
	require.Positive(t, seen["long"])
	require.Positive(t, seen["read"])
}

// TestReadHeaderErrors pins ReadHeader's length errors, each naming its
// byte, and that it reads without a Codec what a Codec may refuse.
func TestReadHeaderErrors(t *testing.T) {
	cases := []struct {
		name   string
		wire   string
		want   error
		says   string
		offset int
	}{
		{"no bytes", "", ErrShortBuffer, "0 bytes, need 2", 0},
		{"half a prefix", "20", ErrShortBuffer, "1 bytes, need 2", 1},
		{"prefix only, one hop announced", "1000", ErrShortBuffer, "2 bytes, need 10 for nHop = 1", 2},
		{"hop cut short", "2abc6123456abcde1234" + "4fffffffffffff", ErrShortBuffer, "17 bytes, need 18", 17},
		{"a byte after the prefix", "0000ff", ErrLength, "3 bytes, nHop = 0 announces 2", 2},
		{"a BTH after the header", "1000" + "6123456abcde1234" + "deadbeef", ErrLength, "14 bytes, nHop = 1 announces 10", 10},
	}
	for _, tc := range cases {
		stale := Header{NHop: 2, PathID: 0x123, Hops: [15]Hop{{1, 2, 3, 4}, {5, 6, 7, 8}}}
		h := stale
		err := ReadHeader(mustHex(t, tc.wire), &h)
		require.ErrorIs(t, err, tc.want, tc.name)
		require.ErrorIs(t, err, cc.ErrDecode, tc.name)
		require.ErrorContains(t, err, tc.says, tc.name)
		var de *DecodeError
		require.ErrorAs(t, err, &de, tc.name)
		require.Equal(t, tc.offset, de.Offset, tc.name)
		require.ErrorContains(t, err, fmt.Sprintf("byte %d:", tc.offset), tc.name)
		require.Equal(t, stale, h, "%s: header must be untouched on error", tc.name)
	}
	// HPCC's Codec refuses nHop 6 and speed code 8; ReadHeader checks
	// lengths only and reads both, leaving the checks to the reader.
	def := mustCodec(t, DefaultConfig())
	for _, wire := range []string{"6000" + fmt.Sprintf("%096d", 0), "1fff" + "8000000000000000"} {
		b := mustHex(t, wire)
		var h Header
		_, err := def.Decode(b, &h)
		require.Error(t, err, wire)
		require.NoError(t, ReadHeader(b, &h), wire)
		require.Equal(t, bigDecodeOracle(b, int(b[0]>>4)), h, wire)
	}
}

// TestPutGetRoundTrip: Put writes AppendHeader's bytes, replacing what the
// stack held, and Get reads back the header, over HPCC's valid headers.
func TestPutGetRoundTrip(t *testing.T) {
	c := mustCodec(t, DefaultConfig())
	rng := rand.New(rand.NewPCG(uint64(*seed), 3))
	props := gopter.NewProperties(params(3000))
	props.Property("Get(Put(h)) = h, Put = AppendHeader", prop.ForAll(
		func(h Header) bool {
			tel := junkStack(rng)
			tel.Len = uint8(rng.IntN(256)) // whatever it held, even a bad Len
			if c.Put(&tel, &h) != nil || int(tel.Len) != h.Len() {
				return false
			}
			want, err := c.AppendHeader(nil, &h)
			if err != nil || string(want) != string(tel.Bytes()) {
				return false
			}
			back := Header{NHop: 1, Hops: [15]Hop{{Speed: 3}}}
			return c.Get(&tel, &back) == nil && back == h
		},
		genHeader(HPCCMaxHops, 8),
	))
	props.TestingRun(t)
}

// TestPutRefusals: Put refuses what AppendHeader refuses, leaving every
// byte of the stack and its Len as they were.
func TestPutRefusals(t *testing.T) {
	c := mustCodec(t, DefaultConfig())
	rng := rand.New(rand.NewPCG(uint64(*seed), 4))
	for _, tc := range []struct {
		h    Header
		want error
	}{
		{Header{NHop: 6}, ErrTooManyHops},
		{Header{PathID: 0x1000}, ErrFieldRange},
		{Header{NHop: 1, Hops: [15]Hop{{Speed: 4, TS: 1 << 24}}}, ErrFieldRange},
		{Header{NHop: 2, Hops: [15]Hop{{Speed: 4}, {Speed: 4, TxBytes: 1 << 20}}}, ErrFieldRange},
		{Header{NHop: 1, Hops: [15]Hop{{Speed: 9}}}, ErrUnknownSpeed},
	} {
		tel := junkStack(rng)
		tel.Len = 42
		before := tel
		require.ErrorIs(t, c.Put(&tel, &tc.h), tc.want, "%+v", tc.h)
		require.Equal(t, before, tel, "%+v", tc.h)
	}
}

// TestGetRefusals: Get's errors, each a *DecodeError naming its byte, with
// the header unchanged: Decode's, and ErrLength for a Len above the cap or
// bytes after the header. Where a stack has two faults, the one reported
// is the documented one.
func TestGetRefusals(t *testing.T) {
	c := mustCodec(t, DefaultConfig()) // MaxHops 5, codes 0..7
	hop := "4000000100002000"
	cases := []struct {
		name   string
		wire   string
		len    int
		want   error
		offset int
	}{
		{"Len 129", "0000", 129, ErrLength, 128},
		{"Len 255", "1000" + hop, 255, ErrLength, 128},
		{"a byte after the prefix", "0000ff", 0, ErrLength, 2},
		{"a BTH after the record", "1000" + hop + "deadbeef", 0, ErrLength, 10},
		{"no bytes", "", 0, ErrShortBuffer, 0},
		{"record cut short", "2000" + hop + hop[:8], 0, ErrShortBuffer, 14},
		{"nHop 6", "6000", 0, ErrTooManyHops, 0},
		{"speed code 8", "1000" + "8000000000000000", 0, ErrUnknownSpeed, 2},
		// Two faults: nHop above MaxHops is found first; trailing bytes are
		// found before a record's speed code is read.
		{"nHop 6 and a byte over", "6000" + fmt.Sprintf("%098d", 0), 0, ErrTooManyHops, 0},
		{"speed code 8 and a byte over", "1000" + "8000000000000000" + "00", 0, ErrLength, 10},
	}
	for _, tc := range cases {
		var tel cc.Telemetry
		require.True(t, tel.Set(mustHex(t, tc.wire)), tc.name)
		if tc.len != 0 {
			tel.Len = uint8(tc.len)
		}
		stale := Header{NHop: 2, PathID: 0x123, Hops: [15]Hop{{1, 2, 3, 4}, {5, 6, 7, 8}}}
		h := stale
		err := c.Get(&tel, &h)
		require.ErrorIs(t, err, tc.want, tc.name)
		require.ErrorIs(t, err, cc.ErrDecode, tc.name)
		var de *DecodeError
		require.ErrorAs(t, err, &de, tc.name)
		require.Equal(t, tc.offset, de.Offset, "%s: %v", tc.name, err)
		require.Equal(t, stale, h, "%s: header must be untouched on error", tc.name)
	}
}
