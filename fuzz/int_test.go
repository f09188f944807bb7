package fuzz

import (
	"errors"
	"testing"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/hwtables"
	inttel "github.com/hwcc/hwcc/int"
	"github.com/hwcc/hwcc/units"
)

// FuzzINTStampDecode drives the path a sender's rate estimate depends on, from
// the switch's counters to the NIC's divider: the sender attaches the empty
// header to a frame's telemetry stack, switches push records of arbitrary
// counters onto it on the wire, the sender decodes it and divides each hop's
// byte delta by its time delta with the 1/n table. Nothing may panic; the
// stack must decode to the registers the same stamps give on a Header, and
// re-encode to its own bytes; the wrap-safe delta must equal the counters'
// true difference modulo the counter range; and the table quotient must stay
// within the table's stated bound of the exact quotient.
func FuzzINTStampDecode(f *testing.F) {
	// Seeds: an ordinary 100G hop; a 20-bit txBytes wrap (128 MiB); a qLen
	// that saturates (> 65535·80 B); a Δts of zero; a 24-bit TS wrap.
	f.Add(uint16(0x101), uint64(5_000_000), uint64(100_000), uint64(40_000), int64(1_000_000), int64(13_000), uint8(3))
	f.Add(uint16(0x303), uint64(128<<20-1000), uint64(600_000), uint64(0), int64(5_000_000), int64(13_000), uint8(1))
	f.Add(uint16(0xfff), uint64(0), uint64(1), uint64(10_000_000), int64(0), int64(1), uint8(5))
	f.Add(uint16(1), uint64(7), uint64(0), uint64(0), int64(42), int64(0), uint8(2))
	f.Add(uint16(2), uint64(1), uint64(128), uint64(80), int64(16_777_215_000), int64(2_000), uint8(4))
	codec, err := inttel.NewCodec(inttel.DefaultConfig())
	if err != nil {
		f.Fatal(err)
	}
	div := hwtables.DefaultReciprocal()
	f.Fuzz(func(t *testing.T, id uint16, tx, sent, qlen uint64, nowNs, gapNs int64, hops uint8) {
		id &= 0xfff
		tx &= 1<<50 - 1
		sent &= 1<<24 - 1 // < 2^20 units of 128 B: at most one counter range
		qlen &= 1<<30 - 1
		if nowNs < 0 || gapNs < 0 || nowNs > 1<<40 || gapNs >= 1<<24 {
			return
		}
		n := int(hops%6) + 1 // 1..6: the sixth stamp passes MaxHops (5)
		var prev, cur inttel.Header
		for pkt := 0; pkt < 2; pkt++ {
			var tel cc.Telemetry // the frame's stack, on the wire
			var h inttel.Header  // the same stamps on a Header
			if err := codec.Put(&tel, &h); err != nil {
				t.Fatal(err)
			}
			now := units.Time(nowNs+int64(pkt)*gapNs) * units.Nanosecond
			for i := 0; i < n; i++ {
				port := inttel.Port{SwitchID: (id + uint16(i)) & 0xfff, Rate: 100 * units.Gbps,
					TxBytes: units.Bytes(tx + uint64(pkt)*sent), QLen: units.Bytes(qlen)}
				satP, err := codec.Push(now, &tel, port)
				satS, errS := codec.Stamp(now, &h, port)
				if satP != satS || !errors.Is(err, errS) {
					t.Fatalf("hop %d: Push %v %v, Stamp %v %v", i+1, satP, err, satS, errS)
				}
				if i >= codec.MaxHops() {
					if !errors.Is(err, inttel.ErrPathFull) {
						t.Fatalf("stamp %d past MaxHops: err %v", i+1, err)
					}
					continue
				}
				if err != nil {
					t.Fatalf("stamp %d: %v", i+1, err)
				}
			}
			if err := codec.Get(&tel, &cur); err != nil || cur != h || int(tel.Len) != h.Len() {
				t.Fatalf("decode: %d bytes, err %v, %+v != %+v", tel.Len, err, cur, h)
			}
			var again cc.Telemetry
			if err := codec.Put(&again, &cur); err != nil || again != tel {
				t.Fatalf("re-encoded %x (%v), carried %x", again.Bytes(), err, tel.Bytes())
			}
			if pkt == 0 {
				prev = cur
			}
		}
		for i := 0; i < int(cur.NHop); i++ {
			// The counter's true difference in 128 B units, modulo 2^20.
			want := ((tx+sent)/128 - tx/128) % (1 << 20)
			if got := codec.TxBytesDelta(prev.Hops[i], cur.Hops[i]); uint64(got) != want*128 {
				t.Fatalf("hop %d: ΔtxBytes %d, want %d", i, got, want*128)
			}
			dT := uint64(codec.TSDelta(prev.Hops[i], cur.Hops[i]) / units.Nanosecond)
			if dT == 0 || dT > hwtables.MaxN {
				continue // HPCC skips Δts = 0; the table's domain ends at 2^22
			}
			a := want * 128 * 8
			q := div.DivFast(a, dT)
			exact := float64(a) / float64(dT)
			b := div.Bound()
			if float64(q) > exact*(1+b.Over)+1 || float64(q) < exact*(1-b.Under)-1 {
				t.Fatalf("hop %d: %d/%d by table = %d, exact %f, bound %+v", i, a, dT, q, exact, b)
			}
		}
	})
}
