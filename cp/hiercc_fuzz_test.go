package cp

import (
	"encoding/binary"
	"slices"
	"testing"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/voq"
	"github.com/hwcc/hwcc/wire"
)

// senderSnap is every register of a SenderToR.
func hierccSenderSnap(s *hierccSender) []cc.Register {
	r := s.AppendRegisters(nil)
	for i := range s.VOQs().Config().Slots {
		r = s.AppendSlotRegisters(r, voq.Slot(i))
	}
	return r
}

// FuzzHierCCSender drives a SenderToR with an event sequence read from the
// input, 8 bytes per event (kind, then its values), times moving forward
// mostly and now and then back: it never panics, every error is typed, a
// refused event changes no register and appends nothing, the advertised
// rates stay in [0, line rate], and the rate packets all encode.
func FuzzHierCCSender(f *testing.F) {
	f.Add([]byte{0, 1, 0, 4, 0, 0, 0, 1, 1, 1, 0, 4, 0, 0, 0, 1, 2, 0, 0, 4, 0, 0, 0, 1})
	f.Add(make([]byte, 64))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg := hierccPaperSender(2, 4, hierccLine25, 1000)
		cfg.VOQs = 3
		cfg.StopFlows = 2
		s, err := newHierCCSender(cfg)
		if err != nil {
			t.Fatal(err)
		}
		now := units.Time(0)
		out := make([]wire.HierCCRatePacket, 0, 8)
		for len(data) >= 8 {
			ev := data[:8]
			data = data[8:]
			step := units.Time(binary.BigEndian.Uint16(ev[6:])) * 10 * units.Nanosecond
			if ev[0]&0x80 != 0 {
				step = -step
			}
			at := now + step
			dst := voq.Key(ev[1] % 5) // 4 is out of range
			size := units.Bytes(binary.BigEndian.Uint16(ev[2:]) % 1200)
			before := hierccSenderSnap(s)
			out = out[:0]
			var err error
			switch ev[0] & 7 {
			case 0, 1:
				_, out, err = s.Arrive(at, hierccArrival{Flow: cc.FlowID(ev[4] % 6), Dst: dst, Size: size, Mark: ev[5]&1 != 0}, out)
			case 2:
				if sl, ok := s.Next(); ok && ev[5]&1 == 0 {
					st, _ := s.VOQs().State(sl)
					size = min(size, st.Queued)
					_, out, err = s.Dequeue(at, sl, size, out)
				} else {
					_, out, err = s.Dequeue(at, voq.Slot(ev[4]%4), size, out)
				}
			case 3:
				err = s.Credit(at, wire.HierCCCreditPacket{ToR: uint16(ev[4] % 3), Dst: dst, Amount: uint32(size) * 100, Total: binary.BigEndian.Uint32(ev[2:])})
			case 4:
				err = s.FlowStart(at, dst)
			case 5:
				err = s.FlowEnd(at, dst)
			default:
				err = s.Timer(at)
			}
			if err != nil {
				if !cc.Typed(err) {
					t.Fatalf("untyped error %v", err)
				}
				if !slices.Equal(before, hierccSenderSnap(s)) {
					t.Fatalf("refused event %v changed the registers", ev)
				}
				if len(out) != 0 {
					t.Fatalf("refused event appended %v", out)
				}
				continue
			}
			now = max(now, at)
			for _, r := range out {
				if _, err := r.Encode(); err != nil {
					t.Fatalf("rate packet %+v does not encode: %v", r, err)
				}
			}
			for i := range 3 {
				if r := s.Rate(voq.Slot(i)); r < 0 || r > hierccLine25 {
					t.Fatalf("rate %v", r)
				}
			}
		}
	})
}

// FuzzHierCCReceiver drives a ReceiverToR with headers and timers read from
// the input: no panic, typed errors, refused events change nothing, and
// C_ij ≤ S_ij + Δ − 1 for every entry after every event.
func FuzzHierCCReceiver(f *testing.F) {
	f.Add([]byte{0, 1, 0, 0, 0x10, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 9})
	f.Add(make([]byte, 48))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := newHierCCReceiver(hierccPaperReceiver(2, 3, hierccLine25))
		if err != nil {
			t.Fatal(err)
		}
		now := units.Time(0)
		var out []wire.HierCCCreditPacket
		sent := [2][3]uint32{}
		for len(data) >= 8 {
			ev := data[:8]
			data = data[8:]
			step := units.Time(ev[7]) * 100 * units.Nanosecond
			if ev[0]&0x80 != 0 {
				step = -step
			}
			at := now + step
			before := r.AppendRegisters(nil)
			var err error
			out = out[:0]
			if ev[0]&1 == 0 {
				port := int(ev[1]%3) - (int(ev[0]>>1) & 1) // −1..2: two out of range
				tor := uint16(ev[2] % 4)                   // 3 is out of range
				var s uint32
				if port >= 0 && port < 2 && tor < 3 {
					s = sent[port][tor] + binary.BigEndian.Uint32(ev[3:])>>8 - 1<<20 // ahead or behind
				}
				_, err = r.Arrive(at, port, wire.HierCCHeader{ToR: tor, Dst: voq.Key(ev[6] % 3), Flows: uint16(ev[5]), Sent: s})
				if err == nil {
					sent[port][tor] = s
				}
			} else {
				out, err = r.Timer(at, out)
			}
			if err != nil {
				if !cc.Typed(err) {
					t.Fatalf("untyped error %v", err)
				}
				if !slices.Equal(before, r.AppendRegisters(nil)) || len(out) != 0 {
					t.Fatalf("refused event %v changed the ToR", ev)
				}
				continue
			}
			now = max(now, at)
			for p := range 2 {
				for tor := range 3 {
					if e, ok := r.Entry(p, tor); ok && int32(e.C-e.S) > 999 {
						t.Fatalf("port %d ToR %d: C %d > S %d + Δ − 1", p, tor, e.C, e.S)
					}
				}
			}
		}
	})
}
