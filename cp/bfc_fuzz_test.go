package cp_test

import (
	"slices"
	"testing"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cp"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// FuzzBFC drives a 3-port BFC switch of 4 queues and an 8-entry table
// with an event sequence read from the input, 8 bytes per event (kind,
// port, flow, upstream, size, time step), times moving forward mostly and
// now and then back: no panic, typed errors, a refused event changes no
// register and decides nothing, every register fits its width, every
// queue's bytes are what its model FIFO holds of the packets assigned to
// it, every decision names a port and queue the switch has, and the held
// queues are what the pauses, resumes and lease expiries it decided say.
func FuzzBFC(f *testing.F) {
	f.Add([]byte{0, 0, 1, 0x81, 4, 0, 0, 1, 0, 1, 2, 0, 4, 0, 0, 1, 2, 1, 0, 0, 0, 0, 0, 5, 3, 2, 3, 0, 0, 0, 0, 3})
	f.Add(make([]byte, 64))
	f.Add(slices.Repeat([]byte{0, 2, 7, 0x85, 0x30, 0, 0, 0}, 40))
	f.Fuzz(func(t *testing.T, in []byte) {
		cfg := cp.BFCPaper(3, 10*units.Gbps, 3*units.Microsecond)
		cfg.Edge = []bool{true, false, false}
		cfg.Queues, cfg.TableBits = 4, 3
		cfg.Lease = 20 * units.Microsecond
		s, err := cp.NewBFC(cfg)
		if err != nil {
			t.Fatal(err)
		}
		type fr struct {
			p *cc.Packet
			q uint16
		}
		var fifo [3][]fr
		var qbytes [3][4]units.Bytes
		var held [3]uint64
		act := cc.NewActions(64)
		now := units.Time(0)
		for len(in) >= 8 {
			ev := in[:8]
			in = in[8:]
			at := fuzzAt(now, ev)
			port := int(ev[1] % 4) // 3 is out of range
			before := s.AppendRegisters(nil)
			act.Reset()
			mark := 0 // decisions a refused event must leave
			var err error
			var deq *fr
			switch ev[0] & 3 {
			case 0, 1: // a packet from port ev[3]&3 (0 a host, else tagged when bit 7 is set)
				p := &cc.Packet{Flow: cc.FlowID(ev[2] % 12), Size: units.Bytes(ev[4])*40 + 64, Prio: 3}
				from := int(ev[3] & 3)
				if ev[3]&0x80 != 0 {
					_ = wire.BFCTag{Switch: uint16(ev[3] >> 2 & 7), Port: uint16(ev[5] & 3), Queue: ev[5] >> 2 & 63}.Put(&p.Hdr)
				}
				if err = s.Arrive(at, from, p, act); err == nil {
					// The Arrive's decisions (expiries) stay: a refused
					// Enqueue must leave them and the registers as the
					// Arrive left them.
					before, mark = s.AppendRegisters(before[:0]), act.Len()
					err = s.Enqueue(at, port, p, cc.Queue{}, act)
				}
				if err == nil {
					i := slices.IndexFunc(act.All(), func(a cc.Action) bool { return a.Kind == cc.ActionAssignQueue })
					if i < 0 {
						t.Fatalf("an Enqueue of the data priority assigned no queue: %v", act.All())
					}
					q := act.At(i).Queue
					fifo[port] = append(fifo[port], fr{p, q})
					qbytes[port][q] += p.Size
				}
			case 2: // the head of a port leaves (or a packet never queued)
				if port < 3 && len(fifo[port]) > 0 && ev[5]&1 == 0 {
					deq = &fifo[port][0]
					q := *deq.p
					err = s.Dequeue(at, port, &q, cc.Queue{}, act)
				} else {
					err = s.Dequeue(at, port, &cc.Packet{Flow: 99, Size: 100, Prio: 3}, cc.Queue{}, act)
				}
				if err == nil && deq != nil {
					qbytes[port][deq.q] -= deq.p.Size
					fifo[port] = fifo[port][1:]
				}
			case 3: // a pause, resume or hold until resumed from downstream; or the timer
				if ev[5]&3 == 3 {
					err = s.Timer(at, act)
					break
				}
				m := wire.BFCPause{Port: uint16(ev[2] % 4), Queue: ev[3] % 5}
				switch ev[5] & 3 {
				case 0:
					m.Lease = units.Time(ev[4]) * units.Microsecond
				case 1:
					m.Forever = true
				}
				fb, ferr := m.Feedback(0)
				if ferr != nil {
					t.Fatal(ferr)
				}
				err = s.Message(at, port, &fb, act)
			}
			after := s.AppendRegisters(nil)
			if err != nil {
				if !cc.Typed(err) {
					t.Fatalf("untyped error %T: %v", err, err)
				}
				if !slices.Equal(before, after) || act.Len() != mark {
					t.Fatalf("refused event %v (%v) changed the switch", ev, err)
				}
				if mark == 0 {
					continue
				}
			}
			now = max(now, at)
			for _, r := range after {
				if !r.Fits() {
					t.Fatalf("register %v does not fit", r)
				}
			}
			for _, a := range act.All() {
				switch a.Kind {
				case cc.ActionAssignQueue:
					if a.Queue >= 4 {
						t.Fatalf("assigned queue %d of 4", a.Queue)
					}
				case cc.ActionPauseQueue, cc.ActionResumeQueue:
					if a.Port >= 3 || a.Queue >= 4 {
						t.Fatalf("held port %d queue %d", a.Port, a.Queue)
					}
					if a.Kind == cc.ActionPauseQueue {
						held[a.Port] |= 1 << a.Queue
					} else {
						held[a.Port] &^= 1 << a.Queue
					}
				}
			}
			for o := range 3 {
				if s.Held(o) != held[o] {
					t.Fatalf("port %d: held %b, its decisions say %b", o, s.Held(o), held[o])
				}
				for q := range 4 {
					if s.QueueLen(o, q) != qbytes[o][q] {
						t.Fatalf("port %d queue %d: %v, the model holds %v", o, q, s.QueueLen(o, q), qbytes[o][q])
					}
				}
			}
			if d := s.NextDeadline(); d <= now {
				t.Fatalf("deadline %v not after now %v", d, now)
			}
		}
	})
}
