package cp_test

import (
	"testing"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cc/cctest"
	"github.com/hwcc/hwcc/cp"
	"github.com/hwcc/hwcc/units"
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

// FuzzQCN drives a QCN congestion point (small sampling intervals, jitter
// on) with the events cctest.FromBytes makes of arbitrary bytes.
func FuzzQCN(f *testing.F) {
	qcnFuzzSeeds(f)
	cfg := cp.QCNStandard()
	cfg.SampleTable = [8]units.Bytes{3000, 2000, 1500, 1000, 800, 600, 400, 200}
	cfg.JitterPercent, cfg.Seed = 25, 99
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := cp.NewQCN(cfg)
		if err != nil {
			t.Fatal(err)
		}
		fuzzDrive(t, c, cctest.FromBytes(data, cc.RoleCP), nil)
	})
}

// FuzzAFQCN drives an AF-QCN congestion point likewise.
func FuzzAFQCN(f *testing.F) {
	qcnFuzzSeeds(f)
	cfg := cp.AFQCNPaper(10 * units.Gbps)
	cfg.QCN.SampleTable = [8]units.Bytes{3000, 2000, 1500, 1000, 800, 600, 400, 200}
	cfg.Weights = [cp.AFQCNClasses]uint16{1, 0, 3, 65535, 2, 2, 9, 1}
	cfg.Ts = 5 * units.Microsecond
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := cp.NewAFQCN(cfg)
		if err != nil {
			t.Fatal(err)
		}
		fuzzDrive(t, a, cctest.FromBytes(data, cc.RoleCP), nil)
	})
}
