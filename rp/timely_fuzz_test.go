package rp_test

import (
	"encoding/binary"
	"slices"
	"testing"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cc/cctest"
	"github.com/hwcc/hwcc/rp"
	"github.com/hwcc/hwcc/units"
)

// FuzzTIMELY drives an RP with the event sequence cctest.FromBytes reads from
// the input (sends, ACKs, NAKs, other kinds, times going backwards, nil
// arguments): no panic, only cc's error types, a refused event changes no
// register, the rate stays in [MinRate, LineRate], every register fits,
// and the ring stays ordered below SegEnd ≥ SndNxt.
func FuzzTIMELY(f *testing.F) {
	f.Add(make([]byte, 64))
	seed := make([]byte, 0, 16*8)
	for i := range 8 {
		ev := make([]byte, 16)
		ev[0] = byte(1 + i%2) // sent, feedback
		ev[2] = 10            // 10 ns later
		ev[5] = 4             // 1024 B
		ev[7] = byte(i)       // seq i·1000
		ev[12] = 1            // an ACK
		seed = append(seed, ev...)
	}
	f.Add(seed)
	f.Fuzz(func(t *testing.T, data []byte) {
		c := rp.TIMELYPaper(100 * units.Gbps)
		c.SegmentBytes = 2000
		if len(data) > 0 && data[0]&1 != 0 {
			c.Sample, c.SubtractSerialization = rp.TIMELYSampleFirst, false
		}
		r, err := rp.NewTIMELY(c)
		if err != nil {
			t.Fatal(err)
		}
		act := cc.NewActions(4)
		var before []cc.Register
		for i, ev := range cctest.FromBytes(data, cc.RoleRP) {
			before = r.AppendRegisters(before[:0])
			err := ev.Apply(r, act)
			after := r.AppendRegisters(nil)
			if err != nil {
				if !cc.Typed(err) {
					t.Fatalf("event %d (%v): untyped error %v", i, &ev, err)
				}
				if !slices.Equal(before, after) {
					t.Fatalf("event %d (%v): refused (%v) but changed registers", i, &ev, err)
				}
			}
			if act.Len() != 0 {
				t.Fatalf("event %d: an action", i)
			}
			timelyCheck(t, r)
		}
	})
}

func timelyCheck(t *testing.T, r *rp.TIMELY) {
	t.Helper()
	c, s := r.Config(), r.State()
	if l := r.Limits(); l.Rate < c.MinRate/rp.TIMELYRateUnit*rp.TIMELYRateUnit || l.Rate > c.LineRate || l.Window != 0 {
		t.Fatalf("limits %+v", l)
	}
	for _, x := range r.AppendRegisters(nil) {
		if !x.Fits() {
			t.Fatalf("%v does not fit", x)
		}
	}
	if s.SegEnd < s.SndNxt || s.Len > rp.TIMELYRingSize || s.Head >= rp.TIMELYRingSize {
		t.Fatalf("state %+v", s)
	}
	for i := 0; i < int(s.Len); i++ {
		e := s.Ring[(int(s.Head)+i)%rp.TIMELYRingSize]
		if e.End > s.SegEnd || e.End%uint64(c.SegmentBytes) != 0 || e.Last < e.First {
			t.Fatalf("entry %d %+v of %+v", i, e, s)
		}
		if i > 0 && s.Ring[(int(s.Head)+i-1)%rp.TIMELYRingSize].End >= e.End {
			t.Fatalf("ring out of order: %+v", s)
		}
	}
}

// FuzzTIMELYTrack: arbitrary RTT samples (4 bytes each, taken modulo 3·Thigh
// unless the top bit is set) through the integer RP and the float model
// of Algorithm 1: the tracker's derived bounds hold (ref_test.go), on the
// paper's configuration and on one with an inexact α and a large minRTT.
func FuzzTIMELYTrack(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 0x50, 0xc3, 0, 0, 0x60, 0xea, 0, 0, 0x20, 0xa1, 0x07, 0})
	f.Add(make([]byte, 400))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, c := range []rp.TIMELYConfig{rp.TIMELYPaper(10 * units.Gbps), timelyTrackConfigs()["odd-100G"]} {
			tr := newTIMELYTracker(t, c)
			top := uint32(3 * (c.Thigh / units.Nanosecond))
			for b := data; len(b) >= 4; b = b[4:] {
				x := binary.LittleEndian.Uint32(b)
				if x&(1<<31) == 0 {
					x %= top
				} else {
					x &^= 1 << 31
				}
				if !tr.step(x) {
					t.FailNow()
				}
			}
		}
	})
}
