package inttel

import (
	"encoding/hex"
	"flag"
	"fmt"
	"math/big"
	"strings"
	"testing"

	"github.com/hwcc/hwcc/units"
	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/stretchr/testify/require"
)

// seed fixes the gopter seed; override with go test ./int -args -seed=N.
var seed = flag.Int64("seed", 20190819, "gopter seed for the property tests")

func params(n int) *gopter.TestParameters {
	p := gopter.DefaultTestParametersWithSeed(*seed)
	p.MinSuccessfulTests = n
	return p
}

// mustCodec builds a Codec or fails the test.
func mustCodec(t testing.TB, cfg Config) *Codec {
	t.Helper()
	c, err := NewCodec(cfg)
	require.NoError(t, err)
	return c
}

// wideConfig is HPCC's config with the largest MaxHops the 4-bit nHop allows.
func wideConfig() Config {
	cfg := DefaultConfig()
	cfg.MaxHops = HopsLimit
	return cfg
}

// fullConfig assigns all 16 speed codes and allows 15 hops, so that every
// byte string long enough is a valid header.
func fullConfig() Config {
	cfg := wideConfig()
	cfg.Speeds = nil
	for c := range MaxSpeed + 1 {
		cfg.Speeds = append(cfg.Speeds, SpeedCode{Code: uint8(c), Rate: units.Gbps * units.Rate(1+10*c)})
	}
	return cfg
}

// The oracles below write a header from Figure 7's field list alone, each
// in a different way, none sharing code with the package.

// hexOracle: every field width is a multiple of 4 bits, so the header's hex
// dump is the fields' hex digits side by side, each zero-padded to width/4.
func hexOracle(h *Header) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%01x%03x", h.NHop, h.PathID) // 4 + 12 bits
	for _, p := range h.Hops[:h.NHop] {
		fmt.Fprintf(&b, "%01x%06x%05x%04x", p.Speed, p.TS, p.TxBytes, p.QLen) // 4+24+20+16
	}
	return b.String()
}

// bigOracle: shift each field into an arbitrary-precision integer, most
// significant first, and write it big-endian into 2 + 8·nHop bytes.
func bigOracle(h *Header) []byte {
	v := new(big.Int)
	push := func(x uint64, width uint) {
		v.Lsh(v, width)
		v.Or(v, new(big.Int).SetUint64(x))
	}
	push(uint64(h.NHop), 4)
	push(uint64(h.PathID), 12)
	for _, p := range h.Hops[:h.NHop] {
		push(uint64(p.Speed), 4)
		push(uint64(p.TS), 24)
		push(uint64(p.TxBytes), 20)
		push(uint64(p.QLen), 16)
	}
	return v.FillBytes(make([]byte, 2+8*int(h.NHop)))
}

// shiftOracle: the 16-bit prefix and 64-bit words with explicit shifts,
// written out byte by byte, most significant byte first.
func shiftOracle(h *Header) []byte {
	prefix := uint16(h.NHop)<<12 | h.PathID
	out := []byte{byte(prefix >> 8), byte(prefix)}
	for _, p := range h.Hops[:h.NHop] {
		w := uint64(p.Speed)<<60 | uint64(p.TS)<<36 | uint64(p.TxBytes)<<16 | uint64(p.QLen)
		for k := 0; k < 8; k++ {
			out = append(out, byte(w>>(56-8*k)))
		}
	}
	return out
}

// bigDecodeOracle reads the fields back out of bytes with math/big: the
// bit range [from, from+width) counted from the most significant bit.
func bigDecodeOracle(b []byte, nHop int) Header {
	v := new(big.Int).SetBytes(b[:2+8*nHop])
	total := uint(16 + 64*nHop)
	field := func(from, width uint) uint64 {
		x := new(big.Int).Rsh(v, total-from-width)
		return x.And(x, big.NewInt(1<<width-1)).Uint64()
	}
	h := Header{NHop: uint8(field(0, 4)), PathID: uint16(field(4, 12))}
	for i := range nHop {
		base := uint(16 + 64*i)
		h.Hops[i] = Hop{
			Speed:   uint8(field(base, 4)),
			TS:      uint32(field(base+4, 24)),
			TxBytes: uint32(field(base+28, 20)),
			QLen:    uint16(field(base+48, 16)),
		}
	}
	return h
}

func mustHex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	require.NoError(t, err)
	return b
}

// genHop draws a valid hop record with a speed code below nCodes.
func genHop(nCodes uint8) gopter.Gen {
	return gopter.CombineGens(
		gen.UInt8Range(0, nCodes-1),
		gen.UInt32Range(0, 1<<24-1),
		gen.UInt32Range(0, 1<<20-1),
		gen.UInt16Range(0, 1<<16-1),
	).Map(func(v []interface{}) Hop {
		return Hop{Speed: v[0].(uint8), TS: v[1].(uint32), TxBytes: v[2].(uint32), QLen: v[3].(uint16)}
	})
}

// genHeader draws a valid header of 0..maxHops records, Hops past NHop zero.
func genHeader(maxHops int, nCodes uint8) gopter.Gen {
	return gopter.CombineGens(
		gen.IntRange(0, maxHops),
		gen.UInt16Range(0, 1<<12-1),
		gen.SliceOfN(15, genHop(nCodes)),
	).Map(func(v []interface{}) Header {
		h := Header{NHop: uint8(v[0].(int)), PathID: v[1].(uint16)}
		copy(h.Hops[:h.NHop], v[2].([]Hop))
		return h
	})
}
