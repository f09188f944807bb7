package rp

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/hwcc/hwcc/cc"
	inttel "github.com/hwcc/hwcc/int"
	"github.com/hwcc/hwcc/units"
)

// hpccFuzzEvent is one ACK decoded from fuzz bytes:
//
//	byte 0      flags: bits 0-2 nHop (0..7, above 5 is malformed),
//	            bit 3 pathID 0x5A5 instead of 0x123, bit 4 time goes back,
//	            bit 5 map speed codes into the table (code mod 8),
//	            bit 6 ackSeq beyond sndNxt, bit 7 ackSeq goes back
//	bytes 1-2   Δnow in ns (big-endian)
//	byte 3      ackSeq step in 256 B
//	8 bytes per hop: B<<60 | TS<<36 | txBytes<<16 | qLen, as on the wire
func hpccFuzzEvent(data []byte, now *units.Time, seq *uint64, hdr *inttel.Header) (ackSeq, sndNxt uint64, rest []byte, ok bool) {
	if len(data) < 4 {
		return 0, 0, nil, false
	}
	flags := data[0]
	d := units.Time(binary.BigEndian.Uint16(data[1:])) * units.Nanosecond
	if flags&0x10 != 0 {
		*now -= d
	} else {
		*now += d
	}
	step := uint64(data[3]) * 256
	if flags&0x80 != 0 && *seq >= step {
		*seq -= step
	} else {
		*seq += step
	}
	data = data[4:]
	n := int(flags & 7)
	*hdr = inttel.Header{NHop: uint8(n), PathID: 0x123}
	if flags&0x08 != 0 {
		hdr.PathID = 0x5A5
	}
	for i := 0; i < n && i < inttel.HopsLimit; i++ {
		var w uint64
		if len(data) >= 8 {
			w = binary.BigEndian.Uint64(data)
			data = data[8:]
		}
		hop := inttel.Hop{Speed: uint8(w >> 60), TS: uint32(w>>36) & inttel.MaxTS,
			TxBytes: uint32(w>>16) & inttel.MaxTxBytes, QLen: uint16(w)}
		if flags&0x20 != 0 {
			hop.Speed %= 8
		}
		hdr.Hops[i] = hop
	}
	sndNxt = *seq + 100000
	if flags&0x40 != 0 {
		sndNxt = *seq - 1
	}
	return *seq, sndNxt, data, true
}

// FuzzHPCCAck feeds arbitrary INT-bearing ACK sequences to rp.HPCC's
// per-ACK path (ack, the typed form of Feedback, which also takes headers
// no telemetry stack can carry) in every mode (byte mode: bit 0 multi-rate, bit 1 fast react off, bit 2
// native divide). It must never panic; every error must be one of the
// documented sentinels and leave the state unchanged; after every accepted
// ACK the window is within [W_min, W_max], R = W·8/T, incStage ≤ maxStage
// and a packet may go when nothing is in flight.
func FuzzHPCCAck(f *testing.F) {
	hop := func(code, ts, tx, q uint64) []byte {
		return binary.BigEndian.AppendUint64(nil, code<<60|ts<<36|tx<<16|q)
	}
	cat := func(bs ...[]byte) []byte {
		var out []byte
		for _, b := range bs {
			out = append(out, b...)
		}
		return out
	}
	// Seed ACK, then one 13 µs later at line rate with a queue (MI).
	f.Add(byte(0), cat([]byte{0x21, 0, 100, 4}, hop(4, 1000, 500, 40),
		[]byte{0x21, 0x32, 0xc8, 4}, hop(4, 14000, 1769, 4000)))
	// Both counters wrap between the two ACKs.
	f.Add(byte(0), cat([]byte{0x21, 0, 1, 1}, hop(4, 0xFFFFF0, 0xFFFF0, 0),
		[]byte{0x21, 0x03, 0xe8, 1}, hop(4, 1000, 10, 0)))
	// Same TS twice (Δts = 0), then a stale record.
	f.Add(byte(1), cat([]byte{0x22, 0, 1, 1}, hop(4, 50, 5, 1), hop(6, 50, 5, 1),
		[]byte{0x22, 0, 1, 1}, hop(4, 50, 6, 1), hop(6, 40, 4, 1)))
	// Path change, then malformed events: unknown speed, too many hops,
	// time going back, ACK beyond snd_nxt, ACK going back.
	f.Add(byte(2), cat([]byte{0x21, 0, 1, 1}, hop(4, 1, 1, 1), []byte{0x29, 0, 1, 1}, hop(4, 2, 2, 2),
		[]byte{0x01, 0, 1, 1}, hop(12, 3, 3, 3), []byte{0x27, 0, 1, 1},
		[]byte{0x31, 0, 9, 1}, hop(4, 4, 4, 4), []byte{0x61, 0, 1, 1}, hop(4, 5, 5, 5),
		[]byte{0xa1, 0, 1, 9}, hop(4, 6, 6, 6)))
	// No hop at all (a direct link): never measured.
	f.Add(byte(4), []byte{0x20, 0, 1, 1, 0x20, 0, 1, 1})
	f.Fuzz(func(t *testing.T, mode byte, data []byte) {
		c := HPCCPaperSim(100 * units.Gbps)
		c.MultiRate = mode&1 != 0
		c.FastReact = mode&2 == 0
		c.Window.NativeDivision = mode&4 != 0
		h, err := NewHPCC(c)
		if err != nil {
			t.Fatal(err)
		}
		wc := h.Config().Window
		var now units.Time = units.Millisecond
		var seq uint64 = 1 << 20
		var hdr inttel.Header
		for range 256 { // at most 256 ACKs per input keeps an execution short
			ackSeq, sndNxt, rest, ok := hpccFuzzEvent(data, &now, &seq, &hdr)
			if !ok {
				return
			}
			data = rest
			before := h.State()
			if err := h.ack(now, ackSeq, sndNxt, &hdr); err != nil {
				if !errors.Is(err, ErrHPCCHeader) && !errors.Is(err, cc.ErrEvent) && !errors.Is(err, cc.ErrTimeOrder) {
					t.Fatalf("undocumented error: %v", err)
				}
				if h.State() != before {
					t.Fatalf("state changed on error %v", err)
				}
				now, seq = before.LastNow, before.LastAckSeq // resume from a valid point
				continue
			}
			s := h.State()
			if s.Window.W < wc.Min || s.Window.W > wc.Max || s.Window.Rate != h.win.Law().Rate(s.Window.W) ||
				int(s.Window.IncStage) > wc.MaxStage || !h.CanSend(0) {
				t.Fatalf("invariant broken: %+v", s.Window)
			}
			for _, r := range s.Window.Hops {
				if r.Wc < wc.Min || r.Wc > wc.Max || int(r.IncStage) > wc.MaxStage {
					t.Fatalf("per-hop reference out of bounds: %+v", r)
				}
			}
		}
	})
}
