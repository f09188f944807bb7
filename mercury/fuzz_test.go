package mercury_test

import (
	"bytes"
	"encoding/binary"
	"slices"
	"testing"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/mercury"
	"github.com/hwcc/hwcc/wire"
	"github.com/hwcc/hwcc/units"
)

// FuzzCNPWindow: arbitrary bytes as a RoCEv2 CNP on the wire. What
// wire decodes re-encodes to the same bytes; its window (from the
// reserved bytes, at every offset and in both orders) is what Window.Put
// wrote there; and the sender takes the CNP without panicking, with a
// window never above C·baseRTT (and never 0).
func FuzzCNPWindow(f *testing.F) {
	good := wire.CNP{DestQP: 0xD2, PKey: 0xFFFF}
	mercury.Window{}.Put(&good.Reserved, 20_000)
	b, _ := good.Encode()
	f.Add(b[:])
	f.Add(make([]byte, 32))
	f.Fuzz(func(t *testing.T, in []byte) {
		c, err := wire.DecodeCNP(in)
		if err != nil {
			if !cc.Typed(err) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		out, err := c.Encode()
		if err != nil || !bytes.Equal(out[:], in[:wire.CNPBytes]) {
			t.Fatalf("decoded CNP re-encodes to %x, not %x (%v)", out, in[:wire.CNPBytes], err)
		}
		for off := 0; off <= 12; off++ {
			for _, o := range []mercury.ByteOrder{mercury.BigEndian, mercury.LittleEndian} {
				w := mercury.Window{Offset: off, Order: o}
				var order binary.ByteOrder = binary.BigEndian
				if o == mercury.LittleEndian {
					order = binary.LittleEndian
				}
				if got, want := w.Get(&c.Reserved), order.Uint32(c.Reserved[off:]); got != want {
					t.Fatalf("window at %d: %d, want %d", off, got, want)
				}
				cp := c.Reserved
				w.Put(&cp, w.Get(&c.Reserved))
				if cp != c.Reserved {
					t.Fatal("Put(Get) changed the bytes")
				}
			}
		}
		s, _ := mercury.NewSender(mercury.PaperSender(40*units.Gbps, 16*units.Microsecond))
		fb := cc.Feedback{Kind: cc.FeedbackCNP, Data: c.Reserved}
		if err := s.Feedback(units.Microsecond, &fb, nil); err != nil {
			t.Fatal(err)
		}
		if w := s.Limits().Window; w < 1 || w > s.Config().InitWindow {
			t.Fatalf("window %v", w)
		}
	})
}

// FuzzSwitch drives a Switch with an event sequence read from the input,
// 8 bytes per event: no panic, typed errors, a refused event changes no
// register and decides nothing, Σdata of each port equals the bytes its
// model FIFO holds, and no CNP leaves an Undetermined port.
func FuzzSwitch(f *testing.F) {
	f.Add([]byte{0, 0, 1, 2, 0, 10, 0, 1, 2, 0, 1, 2, 0, 10, 0, 1, 3, 0, 0, 0, 0, 0, 0, 5})
	f.Add(make([]byte, 64))
	f.Fuzz(func(t *testing.T, in []byte) {
		s, err := mercury.NewSwitch(mercury.PaperSwitch(2, 40*units.Gbps, 16*units.Microsecond))
		if err != nil {
			t.Fatal(err)
		}
		type fr struct {
			src  cc.NodeID
			size units.Bytes
		}
		var fifo [2][]fr
		var held [2]units.Bytes
		act := cc.NewActions(8)
		now := units.Time(0)
		for len(in) >= 8 {
			ev := in[:8]
			in = in[8:]
			step := units.Time(binary.BigEndian.Uint16(ev[6:])) * 10 * units.Nanosecond
			if ev[0]&0x80 != 0 {
				step = -step
			}
			at := now + step
			port := int(ev[1] % 3) // 2 is out of range
			size := units.Bytes(binary.BigEndian.Uint16(ev[2:])%9000) + 1
			src := cc.NodeID(ev[4] % 6)
			before := s.AppendRegisters(nil)
			pstate, _ := s.Port(port)
			act.Reset()
			var err error
			switch ev[0] & 3 {
			case 0, 1: // enqueue
				var qlen units.Bytes
				if port < 2 {
					qlen = held[port] + size
				}
				err = s.Enqueue(at, port, &cc.Packet{Src: src, Dst: 9, Size: size, Prio: 3}, cc.Queue{Len: qlen, Rate: 40 * units.Gbps}, act)
				if err == nil && port < 2 {
					fifo[port] = append(fifo[port], fr{src, size})
					held[port] += size
				}
			case 2: // dequeue the head (or a bogus packet)
				if port < 2 && len(fifo[port]) > 0 && ev[5]&1 == 0 {
					h := fifo[port][0]
					err = s.Dequeue(at, port, &cc.Packet{Src: h.src, Dst: 9, Size: h.size, Prio: 3}, cc.Queue{Len: held[port] - h.size}, act)
					if err == nil {
						fifo[port] = fifo[port][1:]
						held[port] -= h.size
					}
				} else {
					// More than the port holds: always refused.
					var over units.Bytes
					if port < 2 {
						over = held[port]
					}
					err = s.Dequeue(at, port, &cc.Packet{Src: src, Dst: 9, Size: over + 1, Prio: 3}, cc.Queue{}, act)
				}
			default:
				err = s.Pause(at, port, ev[5]%9, ev[4]&1 == 0, act)
			}
			if err != nil {
				if !cc.Typed(err) {
					t.Fatalf("untyped error %v", err)
				}
				if !slices.Equal(before, s.AppendRegisters(nil)) || act.Len() != 0 {
					t.Fatalf("refused event %x changed the switch", ev)
				}
				continue
			}
			now = max(now, at)
			if act.Len() > 0 && pstate.State == mercury.Undetermined {
				t.Fatalf("a CNP from an Undetermined port")
			}
			for p := range 2 {
				if pt, _ := s.Port(p); units.Bytes(pt.Sum) != held[p] {
					t.Fatalf("port %d: Σdata %d, queue %v", p, pt.Sum, held[p])
				}
			}
		}
	})
}
