package credit_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/credit"
	"github.com/hwcc/hwcc/units"
)

// TestCBFCNoAllocs: the per-event methods of the CBFC pair and the codec
// allocate nothing on their accepting paths.
func TestCBFCNoAllocs(t *testing.T) {
	s := cbfcSenderAt(t, 100, 2048)
	r := cbfcReceiver(t, 1<<20, units.Microsecond, 10)
	p := credit.FCPacket{Op: credit.FCNormal, VL: 3, FCTBS: 5, FCCL: 4000}
	buf := make([]byte, 0, 64)
	now := units.Time(0)
	allocs := testing.AllocsPerRun(1000, func() {
		now++
		_ = s.Send(now, 1)
		_, _ = s.Update(now, s.FCCL()+1&4095)
		_, _ = s.UpdateFC(now, credit.FCPacket{VL: 3, FCCL: (s.FCTBS() + 2048) & 4095})
		_ = r.Absorb(now, 1)
		_ = r.Drain(now, 1)
		_ = r.Resync(now, uint16(now)&4095)
		_, _, _ = r.Advertise(now)
		_ = r.NextDeadline()
		b, _ := p.Encode()
		buf, _ = p.AppendTo(buf[:0])
		_, _ = credit.DecodeFCPacket(b[:])
	})
	require.Zero(t, allocs)
}

func BenchmarkCBFCSend(b *testing.B) {
	s := cbfcSenderAt(b, 0, 2048)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if s.Credit() == 0 {
			_, _ = s.Update(0, (s.FCTBS()+2048)&4095)
		}
		_ = s.Send(0, 1)
	}
}

func BenchmarkCBFCUpdate(b *testing.B) {
	s := cbfcSenderAt(b, 0, 0)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		_, _ = s.Update(0, uint16(i)&2047)
	}
}

func BenchmarkCBFCAbsorb(b *testing.B) {
	r := cbfcReceiver(b, credit.MaxCapacity, units.Microsecond, 0)
	b.ReportAllocs()
	for b.Loop() {
		if r.Free() < 66 {
			_ = r.Drain(0, r.Held())
		}
		_ = r.Absorb(0, 66)
	}
}

func BenchmarkCBFCDrain(b *testing.B) {
	r := cbfcReceiver(b, credit.MaxCapacity, units.Microsecond, 0)
	b.ReportAllocs()
	for b.Loop() {
		if r.Held() == 0 {
			_ = r.Absorb(0, 2047)
		}
		_ = r.Drain(0, 1)
	}
}

func BenchmarkCBFCAdvertise(b *testing.B) {
	r := cbfcReceiver(b, 5000, 100, 0)
	b.ReportAllocs()
	now := units.Time(0)
	for b.Loop() {
		now += 50 // every other call sends
		_, _, _ = r.Advertise(now)
	}
}

func BenchmarkFCPacketEncode(b *testing.B) {
	p := credit.FCPacket{Op: credit.FCNormal, FCTBS: 1234, VL: 7, FCCL: 3210}
	buf := make([]byte, 0, 8)
	b.ReportAllocs()
	for b.Loop() {
		buf, _ = p.AppendTo(buf[:0])
	}
}

func BenchmarkFCPacketDecode(b *testing.B) {
	raw, _ := credit.FCPacket{Op: credit.FCNormal, FCTBS: 1234, VL: 7, FCCL: 3210}.Encode()
	b.ReportAllocs()
	for b.Loop() {
		_, _ = credit.DecodeFCPacket(raw[:])
	}
}
