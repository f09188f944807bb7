package rp_test

import (
	"fmt"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/rp"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// The host of a 2500-byte flow at 25 Gb/s: it marks its first packet and
// the next one sent 10 µs or more later, flags the first and the last
// packet for the ToR's flow count, paces at the rate its ToR sends and is
// gated by a stop until the next rate packet.
func ExampleHierCC() {
	cfg := rp.HierCCPaper(25 * units.Gbps)
	cfg.Size = 2500
	h, _ := rp.NewHierCC(cfg)
	for i, at := range []units.Time{0, 4 * units.Microsecond, 12 * units.Microsecond} {
		p := cc.Packet{Flow: 3, Seq: uint64(1000 * i), Payload: min(1000, units.Bytes(2500-1000*i))}
		_ = h.Sent(at, &p, nil) // a host decides nothing: nil actions are fine
		f, _ := wire.DecodeHierCCHostHeader(p.Hdr[:])
		fmt.Printf("packet %d: mark %v, first %v, last %v\n", i, f&wire.HierCCFlagMark != 0, f&wire.HierCCFlagFirst != 0, f&wire.HierCCFlagLast != 0)
	}
	for _, r := range []wire.HierCCRatePacket{{Flow: 3, Rate: 5_000_000}, {Flow: 3, Stop: true}} {
		f, _ := r.Feedback()
		_ = h.Feedback(13*units.Microsecond, &f, nil)
		l := h.Limits()
		fmt.Printf("limits: rate %v, gated %v\n", l.Rate, l.Credited)
	}
	// Output:
	// packet 0: mark true, first true, last false
	// packet 1: mark false, first false, last false
	// packet 2: mark true, first false, last true
	// limits: rate 5Gbps, gated false
	// limits: rate 5Gbps, gated true
}
