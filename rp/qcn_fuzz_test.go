package rp

import (
	"slices"
	"testing"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cc/cctest"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// drive applies events to p checking what the contract asks of every
// event: no panic (the fuzzer reports one), typed errors, a refused event
// changes no register and appends nothing, registers fit their widths, a
// reaction point's rate stays in [0, maxRate].
func qcnDrive(t *testing.T, p cc.Part, events []cctest.Event, maxRate units.Rate) {
	act := cc.NewActions(2)
	var before, after []cc.Register
	for i := range events {
		ev := &events[i]
		before = p.AppendRegisters(before[:0])
		act.Reset()
		err := ev.Apply(p, act)
		after = p.AppendRegisters(after[:0])
		if err != nil {
			if !cc.Typed(err) {
				t.Fatalf("event %d (%v): untyped error %T: %v", i, ev, err, err)
			}
			if !slices.Equal(before, after) || act.Len() != 0 {
				t.Fatalf("event %d (%v) refused (%v) but changed the part", i, ev, err)
			}
		}
		for _, r := range after {
			if !r.Fits() {
				t.Fatalf("event %d: register %v does not fit", i, r)
			}
		}
		if rp, ok := p.(cc.ReactionPoint); ok {
			if l := rp.Limits(); l.Rate < 0 || l.Rate > maxRate {
				t.Fatalf("event %d: rate %v", i, l.Rate)
			}
		}
	}
}

func qcnFuzzSeeds(f *testing.F) {
	f.Add([]byte{})
	seed := make([]byte, 16*8)
	for i := range seed {
		seed[i] = byte(i*37 + 11)
	}
	f.Add(seed)
	// Enqueues into a long queue: samples and CNMs.
	var big []byte
	for i := range 64 {
		big = append(big, 1, 0, 0x10, 0, 0xdc, 0x05, byte(i), 0, 0, 3, 0xff, 0xff, 0, 0, 0, 0)
	}
	f.Add(big)
}

// FuzzQCN drives a QCN reaction point. FromBytes makes feedback of kinds
// 0..7; a set top bit of an event's byte 12 (which Feedback.Data copies)
// makes it a FeedbackCNM instead, its 16 bytes the payload, cleaned into a
// well-formed CNM when bit 6 is set too, so that the fuzzer reaches
// decreases as well as malformed messages.
func FuzzQCN(f *testing.F) {
	qcnFuzzSeeds(f)
	cfg := QCNStandard(10 * units.Gbps)
	cfg.Period, cfg.ByteLimit = 20*units.Microsecond, 5000
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := NewQCN(cfg)
		if err != nil {
			t.Fatal(err)
		}
		evs := cctest.FromBytes(data, cc.RoleRP)
		for i := range evs {
			d := &evs[i].Feedback.Data
			if evs[i].Kind != cc.EventFeedback || d[12]&0x80 == 0 {
				continue
			}
			evs[i].Feedback.Kind = wire.FeedbackCNM
			if d[12]&0x40 != 0 {
				d[0], d[1], d[14], d[15] = 0, d[1]&0x3f, 0, d[15]&7
			}
		}
		qcnDrive(t, r, evs, cfg.LineRate)
	})
}
