package cp_test

import (
	"testing"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cp"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// BenchmarkBFCPacket: one packet through a 32-port switch per iteration
// (Arrive, Enqueue, and the Dequeue of the packet enqueued 64 iterations
// before), 64 flows from switch upstreams over 4 ingress ports into 4
// egress ports: queues of 16 frames per port, above the threshold, so
// pauses and resumes go now and then.
func BenchmarkBFCPacket(b *testing.B) {
	s, err := cp.NewBFC(cp.BFCPaper(32, 100*units.Gbps, 3*units.Microsecond))
	if err != nil {
		b.Fatal(err)
	}
	act := cc.NewActions(16)
	var pkts [64]cc.Packet
	for i := range pkts {
		pkts[i] = cc.Packet{Flow: cc.FlowID(i), Size: 1082, Prio: 3}
		_ = wire.BFCTag{Switch: uint16(1 + i%4), Port: 2, Queue: uint8(i % 32)}.Put(&pkts[i].Hdr)
	}
	now := units.Time(0)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		now += 87 * units.Nanosecond
		p := &pkts[i%64]
		act.Reset()
		if i >= 64 {
			q := *p
			if err := s.Dequeue(now, i%4, &q, cc.Queue{}, act); err != nil {
				b.Fatal(err)
			}
		}
		if err := s.Arrive(now, 8+i%4, p, act); err != nil {
			b.Fatal(err)
		}
		if err := s.Enqueue(now, i%4, p, cc.Queue{}, act); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBFCMessage: one pause or resume from downstream per iteration,
// over 32 ports × 32 queues, leases of 50 µs.
func BenchmarkBFCMessage(b *testing.B) {
	s, err := cp.NewBFC(cp.BFCPaper(32, 100*units.Gbps, 3*units.Microsecond))
	if err != nil {
		b.Fatal(err)
	}
	act := cc.NewActions(64)
	var msgs [64]cc.Feedback
	for i := range msgs {
		m := wire.BFCPause{Port: uint16(i % 32), Queue: uint8(i / 2 % 32)}
		if i%2 == 0 {
			m.Lease = 50 * units.Microsecond
		}
		msgs[i], _ = m.Feedback(0)
	}
	now := units.Time(0)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		now += 100 * units.Nanosecond
		act.Reset()
		if err := s.Message(now, 0, &msgs[i%64], act); err != nil {
			b.Fatal(err)
		}
	}
}
