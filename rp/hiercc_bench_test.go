package rp

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// hierccLine25 is the paper's 25 Gb/s host link ([HierCC] §2.2).
const hierccLine25 = 25 * units.Gbps

// TestHierCCNoAllocs: a packet sent and a rate packet taken allocate
// nothing.
func TestHierCCNoAllocs(t *testing.T) {
	h, err := NewHierCC(HierCCPaper(hierccLine25))
	require.NoError(t, err)
	fb, _ := wire.HierCCRatePacket{Flow: 0, Rate: 1000}.Feedback()
	var p cc.Packet
	now := units.Time(0)
	n := testing.AllocsPerRun(500, func() {
		now += units.Microsecond
		_ = h.Sent(now, &p, nil)
		_ = h.Feedback(now, &fb, nil)
		_ = h.Limits()
	})
	require.Zero(t, n)
}

func BenchmarkHierCC(b *testing.B) {
	h, err := NewHierCC(HierCCPaper(hierccLine25))
	require.NoError(b, err)
	fb, _ := wire.HierCCRatePacket{Flow: 0, Rate: 1000}.Feedback()
	var p cc.Packet
	now := units.Time(0)
	b.ReportAllocs()
	for range b.N {
		now += units.Microsecond
		_ = h.Sent(now, &p, nil)
		_ = h.Feedback(now, &fb, nil)
	}
}
