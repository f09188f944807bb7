package rp_test

import (
	"testing"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cc/cctest"
	"github.com/hwcc/hwcc/rp"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// qcnFuzzSeeds adds the fuzz targets' seeds: no events, a spread of
// bytes, and 64 events of 1500-byte frames into a long queue.
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
	cfg := rp.QCNStandard(10 * units.Gbps)
	cfg.Period, cfg.ByteLimit = 20*units.Microsecond, 5000
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := rp.NewQCN(cfg)
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
		fuzzDrive(t, r, evs, func(ev *cctest.Event, _ *cc.Actions) {
			if l := r.Limits(); l.Rate < cfg.MinRate || l.Rate > cfg.LineRate {
				t.Fatalf("%v: rate %v outside [%v, %v]", ev, l.Rate, cfg.MinRate, cfg.LineRate)
			}
		})
	})
}
