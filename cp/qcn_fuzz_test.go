package cp

import (
	"slices"
	"testing"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cc/cctest"
	"github.com/hwcc/hwcc/units"
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

// FuzzQCN drives a QCN congestion point (small sampling intervals, jitter
// on) with the events cctest.FromBytes makes of arbitrary bytes.
func FuzzQCN(f *testing.F) {
	qcnFuzzSeeds(f)
	cfg := QCNStandard()
	cfg.SampleTable = [8]units.Bytes{3000, 2000, 1500, 1000, 800, 600, 400, 200}
	cfg.JitterPercent, cfg.Seed = 25, 99
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := NewQCN(cfg)
		if err != nil {
			t.Fatal(err)
		}
		qcnDrive(t, c, cctest.FromBytes(data, cc.RoleCP), 0)
	})
}

// FuzzAFQCN drives an AF-QCN congestion point likewise.
func FuzzAFQCN(f *testing.F) {
	qcnFuzzSeeds(f)
	cfg := AFQCNPaper(10 * units.Gbps)
	cfg.QCN.SampleTable = [8]units.Bytes{3000, 2000, 1500, 1000, 800, 600, 400, 200}
	cfg.Weights = [AFQCNClasses]uint16{1, 0, 3, 65535, 2, 2, 9, 1}
	cfg.Ts = 5 * units.Microsecond
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := NewAFQCN(cfg)
		if err != nil {
			t.Fatal(err)
		}
		qcnDrive(t, a, cctest.FromBytes(data, cc.RoleCP), 0)
	})
}
