package credit_test

import (
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/credit"
	"github.com/hwcc/hwcc/units"
)

// cbfcBytes is a rand.Source that reads the fuzzer's bytes, eight per
// draw, and then continues with a PCG seeded from them (a constant source
// would loop forever in rand's rejection sampling).
type cbfcBytes struct {
	b    []byte
	tail *rand.PCG
}

func (s *cbfcBytes) Uint64() uint64 {
	if len(s.b) == 0 {
		return s.tail.Uint64()
	}
	var w [8]byte
	n := copy(w[:], s.b)
	s.b = s.b[n:]
	v := binary.LittleEndian.Uint64(w[:])
	s.tail.Seed(s.tail.Uint64()^v, v)
	return v
}

// FuzzCBFCPair drives a sender/receiver pair through the link model of
// TestPropCBFCNeverOverruns with every choice taken from the fuzzer's
// bytes, and between events throws bad events at both parts: each must be
// refused with a typed error and leave every register as it was. The
// model's invariants (no overrun, the sender's limit within drained +
// capacity + lost) must hold throughout.
func FuzzCBFCPair(f *testing.F) {
	f.Add([]byte{3, 40, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
	f.Add([]byte{7, 66, 9, 9, 9, 9, 9, 9, 9, 255, 254, 253, 0, 0, 0, 128})
	f.Add([]byte{0, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) < 2 {
			return
		}
		capacity := []credit.Blocks{1, 66, 500, 2047, 2048, 2049, 5000, 1 << 20}[b[0]%8]
		maxPkt := 1 + int(b[1])%66
		src := &cbfcBytes{b: b[2:], tail: rand.NewPCG(1, 2)}
		l := newCBFCLink(t, 0, capacity, int(min(credit.Blocks(maxPkt), capacity)), 50, 200, 200)
		l.rng = rand.New(src)
		steps := min(4*len(b), 4000)
		for i := range steps {
			if err := l.step(); err != nil {
				t.Fatalf("step %d: %v", i, err)
			}
			if i%7 == 0 {
				cbfcBadEvents(t, l)
			}
		}
		if _, err := l.quiesce(); err != nil {
			t.Fatalf("quiesce: %v", err)
		}
	})
}

// cbfcBadEvents sends events each part must refuse, checking the error is
// typed and the registers unchanged.
func cbfcBadEvents(t *testing.T, l *cbfcLink) {
	s0, r0 := l.s.AppendRegisters(nil), l.r.AppendRegisters(nil)
	sNow := units.Time(s0[len(s0)-1].Int()) // the sender's time register
	refused := []error{
		l.s.Send(l.now, 0),
		l.s.Send(l.now, credit.MaxPacketBlocks+1),
		l.r.Absorb(l.now, 0),
		l.r.Absorb(l.now, l.r.Free()+1),
		l.r.Drain(l.now, l.r.Held()+1),
		l.r.Resync(l.now, 4096),
		l.r.ResyncFC(l.now, credit.FCPacket{VL: 6}),
	}
	if sNow > 0 {
		refused = append(refused, l.s.Send(sNow-1, 1))
	}
	if _, err := l.s.Update(l.now, 5000); err != nil {
		refused = append(refused, err)
	} else {
		t.Fatal("Update of a 13-bit value taken")
	}
	if _, err := l.s.UpdateFC(l.now, credit.FCPacket{VL: 7, FCCL: 4096}); err != nil {
		refused = append(refused, err)
	} else {
		t.Fatal("UpdateFC of a 13-bit value taken")
	}
	if _, _, err := l.r.Advertise(-1); err != nil {
		refused = append(refused, err)
	} else {
		t.Fatal("Advertise at -1 taken")
	}
	for i, err := range refused {
		if err == nil || !cc.Typed(err) {
			t.Fatalf("bad event %d: %v", i, err)
		}
	}
	if !slices.Equal(s0, l.s.AppendRegisters(nil)) || !slices.Equal(r0, l.r.AppendRegisters(nil)) {
		t.Fatalf("a refused event changed the registers")
	}
}
