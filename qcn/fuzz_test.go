package qcn

import (
	"slices"
	"testing"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cc/cctest"
	"github.com/hwcc/hwcc/units"
)

// FuzzDecodeCNM: arbitrary bytes decode without panic to a message or a
// *cc.DecodeError at an offset within the input (or at len(b) for a short
// one); what decodes re-encodes to the same first 16 bytes and validates.
func FuzzDecodeCNM(f *testing.F) {
	f.Add(CNM{QntzFb: 63, CPID: 1, QOffset: -5, QDelta: 7, Prio: 3}.Append(nil))
	f.Add([]byte{})
	f.Add(make([]byte, 15))
	f.Add([]byte{0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{0, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xee})
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := DecodeCNM(b)
		if err != nil {
			var de *cc.DecodeError
			if !cc.Typed(err) || !asDecode(err, &de) {
				t.Fatalf("error %T is not a *cc.DecodeError: %v", err, err)
			}
			if de.Offset < 0 || de.Offset > min(len(b), CNMLen) {
				t.Fatalf("offset %d outside the input (%d bytes)", de.Offset, len(b))
			}
			return
		}
		if err := m.Validate(); err != nil {
			t.Fatalf("decoded %+v does not validate: %v", m, err)
		}
		if enc := m.Append(nil); !slices.Equal(enc, b[:CNMLen]) {
			t.Fatalf("% x re-encodes as % x", b[:CNMLen], enc)
		}
	})
}

func asDecode(err error, de **cc.DecodeError) bool {
	d, ok := err.(*cc.DecodeError)
	*de = d
	return ok
}

// drive applies events to p checking what the contract asks of every
// event: no panic (the fuzzer reports one), typed errors, a refused event
// changes no register and appends nothing, registers fit their widths, a
// reaction point's rate stays in [0, maxRate].
func drive(t *testing.T, p cc.Part, events []cctest.Event, maxRate units.Rate) {
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

func fuzzSeeds(f *testing.F) {
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

// FuzzCP drives a QCN congestion point (small sampling intervals, jitter
// on) with the events cctest.FromBytes makes of arbitrary bytes.
func FuzzCP(f *testing.F) {
	fuzzSeeds(f)
	cfg := StandardCP()
	cfg.SampleTable = [8]units.Bytes{3000, 2000, 1500, 1000, 800, 600, 400, 200}
	cfg.JitterPercent, cfg.Seed = 25, 99
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := NewCP(cfg)
		if err != nil {
			t.Fatal(err)
		}
		drive(t, c, cctest.FromBytes(data, cc.RoleCP), 0)
	})
}

// FuzzAFCP drives an AF-QCN congestion point likewise.
func FuzzAFCP(f *testing.F) {
	fuzzSeeds(f)
	cfg := PaperAFCP(10 * units.Gbps)
	cfg.CP.SampleTable = [8]units.Bytes{3000, 2000, 1500, 1000, 800, 600, 400, 200}
	cfg.Weights = [Classes]uint16{1, 0, 3, 65535, 2, 2, 9, 1}
	cfg.Ts = 5 * units.Microsecond
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := NewAFCP(cfg)
		if err != nil {
			t.Fatal(err)
		}
		drive(t, a, cctest.FromBytes(data, cc.RoleCP), 0)
	})
}

// FuzzRP drives a QCN reaction point. FromBytes makes feedback of kinds
// 0..7; a set top bit of an event's byte 12 (which Feedback.Data copies)
// makes it a FeedbackCNM instead, its 16 bytes the payload, cleaned into a
// well-formed CNM when bit 6 is set too, so that the fuzzer reaches
// decreases as well as malformed messages.
func FuzzRP(f *testing.F) {
	fuzzSeeds(f)
	cfg := StandardRP(10 * units.Gbps)
	cfg.Period, cfg.ByteLimit = 20*units.Microsecond, 5000
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := NewRP(cfg)
		if err != nil {
			t.Fatal(err)
		}
		evs := cctest.FromBytes(data, cc.RoleRP)
		for i := range evs {
			d := &evs[i].Feedback.Data
			if evs[i].Kind != cc.EventFeedback || d[12]&0x80 == 0 {
				continue
			}
			evs[i].Feedback.Kind = FeedbackCNM
			if d[12]&0x40 != 0 {
				d[0], d[1], d[14], d[15] = 0, d[1]&0x3f, 0, d[15]&7
			}
		}
		drive(t, r, evs, cfg.LineRate)
	})
}
