package credit_test

import (
	"errors"
	"fmt"

	"github.com/hwcc/hwcc/credit"
	"github.com/hwcc/hwcc/units"
)

// One virtual lane with a 4 KiB receive buffer (64 blocks). The receiver
// advertises its limit; the sender spends it on a 4096-byte packet plus
// headers (66 blocks does not fit, 64 does); the packet crosses the link
// as 6 bytes; a drain frees the buffer and the next packet hands the
// credit back.
func ExampleCBFCSender() {
	s, _ := credit.NewCBFCSender(0)
	r, _ := credit.NewCBFCReceiver(credit.CBFCReceiverConfig{
		VL: 0, Capacity: 64, Period: credit.IBAUpdatePeriod(4 * units.Nanosecond), MinGap: 0,
	})

	p, _, _ := r.Advertise(0) // the first advertisement is due at once
	wire, _ := p.Encode()
	fmt.Printf("flow-control packet % X\n", wire)
	q, _ := credit.DecodeFCPacket(wire[:])
	s.UpdateFC(10, q)
	fmt.Println("credit:", s.Credit(), "blocks")

	big := credit.BlocksOf(4096 + 128) // payload and headers: 66 blocks
	err := s.Send(20, big)
	fmt.Println("66 blocks:", errors.Is(err, credit.ErrNoCredit))
	fmt.Println("64 blocks:", s.Send(20, 64), "FCTBS", s.FCTBS())
	r.Absorb(30, 64)

	r.Drain(40, 64) // forwarded: the limit moves, a packet is due now
	fmt.Println("next packet due at", r.NextDeadline())
	p, _, _ = r.Advertise(40)
	s.UpdateFC(50, p)
	fmt.Println("FCCL", p.FCCL, "credit:", s.Credit(), "blocks")
	// Output:
	// flow-control packet 00 00 00 40 0A B7
	// credit: 64 blocks
	// 66 blocks: true
	// 64 blocks: <nil> FCTBS 64
	// next packet due at 40ps
	// FCCL 128 credit: 64 blocks
}
