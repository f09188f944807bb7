package inttel

import (
	"bytes"
	"errors"
	"math"
	"math/big"
	"slices"
	"testing"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
)

// isSentinel reports whether err wraps one of the package's sentinels.
func isSentinel(err error) bool {
	for _, s := range []error{ErrShortBuffer, ErrLength, ErrTooManyHops, ErrPathFull, ErrUnknownSpeed, ErrFieldRange, ErrConfig, ErrZeroInterval} {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

// FuzzDecode feeds arbitrary bytes to two decoders (HPCC's default, and one
// where every code is assigned and 15 hops are allowed, so that most inputs
// decode). It checks: no panic; on error a *DecodeError wrapping a
// sentinel, its offset within the buffer (at most len(b), the first missing
// byte), n = 0 and the header untouched; on success n = HeaderLen(nHop) ≤ len(b), the fields equal the
// math/big extraction, and re-encoding gives back exactly b[:n].
func FuzzDecode(f *testing.F) {
	f.Add([]byte{})                                              // nothing
	f.Add([]byte{0x00, 0x00})                                    // the empty header a sender sends
	f.Add([]byte{0x10, 0x00})                                    // one hop announced, none present
	f.Add(mustHex(f, "2abc6123456abcde1234"+"4fffffffffffffff")) // the two-hop vector
	f.Add(mustHex(f, "1000f000000000000000"))                    // speed code 15
	f.Add(mustHex(f, "6000"))                                    // nHop 6 > default MaxHops
	f.Add(append(mustHex(f, "f123"), make([]byte, 120)...))      // 15 zero hops
	f.Add(mustHex(f, "1fff8fffffffffffffffdeadbeef"))            // code 8, trailing bytes
	codecs := []*Codec{mustCodec(f, DefaultConfig()), mustCodec(f, fullConfig())}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, c := range codecs {
			stale := Header{NHop: 1, PathID: 0x321, Hops: [15]Hop{{Speed: 1, TS: 2, TxBytes: 3, QLen: 4}}}
			h := stale
			n, err := c.Decode(b, &h)
			if err != nil {
				var de *DecodeError
				if !isSentinel(err) || n != 0 || h != stale || !errors.As(err, &de) || de.Offset < 0 || de.Offset > len(b) {
					t.Fatalf("error %v: sentinel %v, n %d, header changed %v", err, isSentinel(err), n, h != stale)
				}
				continue
			}
			if n != h.Len() || n > len(b) || int(h.NHop) > c.MaxHops() {
				t.Fatalf("n = %d, nHop %d, len %d", n, h.NHop, len(b))
			}
			if want := bigDecodeOracle(b, int(h.NHop)); want != h {
				t.Fatalf("decoded %+v, math/big says %+v", h, want)
			}
			out, err := c.AppendHeader(nil, &h)
			if err != nil || !bytes.Equal(out, b[:n]) {
				t.Fatalf("re-encode %x, %v; consumed %x", out, err, b[:n])
			}
		}
	})
}

// FuzzStamp stamps an arbitrary port state onto a header that already
// holds pre hops. On success: nHop + 1, pathID ^ switch ID, the record equal
// to the math/big quantisation, the saturation flag right, and the header
// survives the wire. On error: a sentinel and the header untouched.
func FuzzStamp(f *testing.F) {
	f.Add(int64(0), int64(0), int64(0), int64(100e9), uint16(1), uint8(0))                   // a first hop at rest
	f.Add(int64(20e9), int64(10e9), int64(12345), int64(400e9), uint16(0x5a5), uint8(2))     // a third hop
	f.Add(int64(1<<62), int64(1<<62), int64(5242880), int64(800e9), uint16(0xfff), uint8(4)) // saturated qLen, huge counters
	f.Add(int64(1), int64(1), int64(1), int64(10e9), uint16(7), uint8(5))                    // path full at MaxHops 5
	f.Add(int64(-1), int64(-1), int64(-1), int64(99e9), uint16(0x1000), uint8(9))            // everything wrong
	f.Add(int64(999), int64(127), int64(79), int64(25e9), uint16(0), uint8(15))              // just under one unit each
	codecs := []*Codec{mustCodec(f, DefaultConfig()), mustCodec(f, wideConfig())}
	f.Fuzz(func(t *testing.T, now, tx, q, rate int64, id uint16, pre uint8) {
		for _, c := range codecs {
			var h Header
			for i := range min(int(pre&0x0f), c.MaxHops()) {
				if _, err := c.Stamp(units.Time(i), &h, Port{SwitchID: uint16(i), Rate: 10 * units.Gbps}); err != nil {
					t.Fatal(err)
				}
			}
			before := h
			p := Port{SwitchID: id, Rate: units.Rate(rate), TxBytes: units.Bytes(tx), QLen: units.Bytes(q)}
			sat, err := c.Stamp(units.Time(now), &h, p)
			if err != nil {
				if !isSentinel(err) || h != before || sat {
					t.Fatalf("error %v: header changed %v, sat %v", err, h != before, sat)
				}
				full := int(before.NHop) == c.MaxHops()
				if full != errors.Is(err, ErrPathFull) {
					t.Fatalf("nHop %d of %d, error %v", before.NHop, c.MaxHops(), err)
				}
				continue
			}
			code, ok := c.Code(p.Rate)
			qq := q / 80
			want := Hop{
				Speed:   code,
				TS:      uint32(bigFloorMod(now, 1000, 24)),
				TxBytes: uint32(bigFloorMod(tx, 128, 20)),
				QLen:    uint16(min(qq, 0xffff)),
			}
			if !ok || now < 0 || tx < 0 || q < 0 || id > 0xfff {
				t.Fatalf("accepted a bad port %+v at %d", p, now)
			}
			exp := before // earlier records untouched, one appended
			exp.Hops[before.NHop] = want
			exp.NHop++
			exp.PathID ^= id
			if h != exp || sat != (qq > 0xffff) {
				t.Fatalf("stamp of %+v at %d on %+v gave %+v (sat %v), want record %+v", p, now, before, h, sat, want)
			}
			buf, err := c.AppendHeader(nil, &h)
			var back Header
			if _, derr := c.Decode(buf, &back); err != nil || derr != nil || back != h {
				t.Fatalf("wire round trip: %v %v", err, derr)
			}
		}
	})
}

// FuzzDeltas is a differential test of the wrap-safe deltas, TxRate and
// MaxSampleGap against math/big, for any readings and any valid units.
func FuzzDeltas(f *testing.F) {
	f.Add(uint32(0xfffff), uint32(0), uint32(0xffffff), uint32(0), int64(128), int64(1000), int64(400e9)) // one step over both wraps
	f.Add(uint32(5), uint32(5), uint32(9), uint32(9), int64(1), int64(1), int64(1))                       // no change: ErrZeroInterval
	f.Add(uint32(1<<31), uint32(3), uint32(1<<30), uint32(7), int64(1<<32), int64(1<<32), int64(1<<62))   // oversized fields, largest units
	f.Fuzz(func(t *testing.T, oTx, nTx, oTS, nTS uint32, txUnit, tsUnit, rate int64) {
		cfg := DefaultConfig()
		cfg.TxBytesUnit, cfg.TSUnit = units.Bytes(txUnit), units.Time(tsUnit)
		c, err := NewCodec(cfg)
		if err != nil {
			if txUnit >= 1 && txUnit <= 1<<32 && tsUnit >= 1 && tsUnit <= 1<<32 {
				t.Fatalf("valid units rejected: %v", err)
			}
			return
		}
		mod := func(a, b uint32, width uint, unit int64) *big.Int {
			d := new(big.Int).Sub(big.NewInt(int64(b)), big.NewInt(int64(a)))
			d.Mod(d, new(big.Int).Lsh(big.NewInt(1), width)) // Euclidean: in [0, 2^width)
			return d.Mul(d, big.NewInt(unit))
		}
		o, n := Hop{TxBytes: oTx, TS: oTS}, Hop{TxBytes: nTx, TS: nTS}
		wantB, wantT := mod(oTx, nTx, 20, txUnit), mod(oTS, nTS, 24, tsUnit)
		gotB, gotT := c.TxBytesDelta(o, n), c.TSDelta(o, n)
		if wantB.Int64() != int64(gotB) || wantT.Int64() != int64(gotT) {
			t.Fatalf("deltas %d %d, want %v %v", gotB, gotT, wantB, wantT)
		}
		r, err := c.TxRate(o, n)
		if gotT == 0 {
			if !errors.Is(err, ErrZeroInterval) {
				t.Fatalf("Δts = 0: %v", err)
			}
		} else {
			want := new(big.Int).Mul(wantB, big.NewInt(8e12))
			want.Quo(want, wantT)
			if !want.IsInt64() {
				want.SetInt64(math.MaxInt64) // RateOf saturates
			}
			if err != nil || want.Int64() != int64(r) {
				t.Fatalf("TxRate %d, %v, want %v", r, err, want)
			}
		}
		if rate > 0 {
			gap := c.MaxSampleGap(units.Rate(rate))
			if gap <= 0 || gap > units.Time((1<<24-1)*tsUnit) {
				t.Fatalf("MaxSampleGap(%d) = %d", rate, gap)
			}
		}
	})
}

// FuzzTelemetry hands arbitrary bytes to the wire-form API as a frame's
// telemetry stack (Len = the input's length, so inputs past 128 bytes are
// a Len above the cap) and checks each function against the Header-based
// one it stands for, under HPCC's Codec and the one that accepts every
// nHop and speed code:
//
//   - ReadHeader against Decode: they fail alike (sentinel and offset),
//     or Decode leaves bytes over and ReadHeader refuses them (ErrLength
//     at the first), or both read the same header;
//   - Get against Decode: Get reads what Decode reads when Decode takes
//     every byte, and otherwise fails with a *DecodeError, the header
//     untouched;
//   - Push against Stamp on the header ReadHeader read, with an arbitrary
//     port: the same flag and sentinel, the stamped header's bytes on
//     success, the stack untouched on error; when ReadHeader refuses the
//     stack, Push refuses it too.
//
// Nothing may panic.
func FuzzTelemetry(f *testing.F) {
	f.Add([]byte{0x00, 0x00}, int64(0), int64(0), int64(0), int64(100e9), uint16(1))
	f.Add(mustHex(f, "2abc6123456abcde1234"+"4fffffffffffffff"), int64(20e9), int64(10e9), int64(6e6), int64(400e9), uint16(0x5a5))
	f.Add(mustHex(f, "55a5"+"7000001000020003"+"0800000800008000"+"30f0f0f0f0f00f0f"+"57fffff7ffff7fff"+"2a5a5a55a5a5a5a5"),
		int64(1), int64(1), int64(1), int64(10e9), uint16(7)) // full at MaxHops 5
	f.Add(mustHex(f, "1000f000000000000000ff"), int64(1), int64(1), int64(1), int64(10e9), uint16(7)) // code 15, a byte over
	f.Add(make([]byte, 129), int64(-1), int64(-1), int64(-1), int64(99e9), uint16(0x1000))            // above the cap
	f.Add(append(mustHex(f, "f123"), make([]byte, 120)...), int64(5), int64(5), int64(5), int64(25e9), uint16(0))
	codecs := []*Codec{mustCodec(f, DefaultConfig()), mustCodec(f, fullConfig())}
	wire := codecs[1]
	f.Fuzz(func(t *testing.T, b []byte, now, tx, q, rate int64, id uint16) {
		if len(b) > 255 {
			b = b[:255]
		}
		var tel cc.Telemetry
		copy(tel.Data[:], b)
		tel.Len = uint8(len(b))
		stale := Header{NHop: 1, PathID: 0x321, Hops: [15]Hop{{Speed: 1, TS: 2, TxBytes: 3, QLen: 4}}}

		// ReadHeader against Decode (which, with every code assigned and
		// 15 hops allowed, fails only for a short buffer).
		read, dec := stale, stale
		errR := ReadHeader(tel.Bytes(), &read)
		n, errD := wire.Decode(tel.Bytes(), &dec)
		var dr *DecodeError
		if errR != nil && (!errors.As(errR, &dr) || read != stale) {
			t.Fatalf("ReadHeader: %v, header changed %v", errR, read != stale)
		}
		switch {
		case errD != nil:
			var dd *DecodeError
			if errR == nil || !errors.As(errD, &dd) || dd.Offset != dr.Offset || !errors.Is(errR, ErrShortBuffer) || !errors.Is(errD, ErrShortBuffer) {
				t.Fatalf("Decode %v, ReadHeader %v", errD, errR)
			}
		case n < len(tel.Bytes()):
			if !errors.Is(errR, ErrLength) || dr.Offset != n {
				t.Fatalf("Decode took %d of %d, ReadHeader %v", n, len(tel.Bytes()), errR)
			}
		default:
			if errR != nil || read.NHop != dec.NHop || read.PathID != dec.PathID || !slices.Equal(read.Path(), dec.Path()) {
				t.Fatalf("Decode %+v, ReadHeader %+v (%v)", dec, read, errR)
			}
		}

		p := Port{SwitchID: id, Rate: units.Rate(rate), TxBytes: units.Bytes(tx), QLen: units.Bytes(q)}
		for _, c := range codecs {
			// Get against Decode.
			got, dec := stale, stale
			errG := c.Get(&tel, &got)
			n, errD := c.Decode(tel.Bytes(), &dec)
			if whole := errD == nil && n == len(b); whole != (errG == nil) || (whole && got != dec) {
				t.Fatalf("Get %v %+v, Decode %d of %d %v %+v", errG, got, n, len(b), errD, dec)
			}
			var dg *DecodeError
			if errG != nil && (!errors.As(errG, &dg) || got != stale || !isSentinel(errG)) {
				t.Fatalf("Get: %v, header changed %v", errG, got != stale)
			}

			// Push against Stamp.
			before := tel
			sat, errP := c.Push(units.Time(now), &tel, p)
			if errP != nil && (tel != before || sat || !isSentinel(errP)) {
				t.Fatalf("Push %v: stack changed %v, sat %v", errP, tel != before, sat)
			}
			if errR != nil {
				if errP == nil {
					t.Fatalf("Push took a stack ReadHeader refuses (%v)", errR)
				}
				continue
			}
			stamped := read
			satS, errS := c.Stamp(units.Time(now), &stamped, p)
			if satS != sat || sentinelOf(errS) != sentinelOf(errP) {
				t.Fatalf("Stamp %v %v, Push %v %v", satS, errS, sat, errP)
			}
			if errP == nil {
				want, err := wire.AppendHeader(nil, &stamped)
				if err != nil || !bytes.Equal(want, tel.Bytes()) {
					t.Fatalf("pushed %x, stamped %x (%v)", tel.Bytes(), want, err)
				}
				tel = before // the next Codec pushes onto the same stack
			}
		}
	})
}
