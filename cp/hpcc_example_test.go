package cp_test

import (
	"fmt"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cp"
	inttel "github.com/hwcc/hwcc/int"
	"github.com/hwcc/hwcc/units"
)

// Two switches stamp a packet on its way (section 4.1): each pushes its
// egress port's record onto the packet's telemetry stack as the packet
// leaves it (Dequeue) and XORs its ID into pathID. The first port has sent
// 3000 B before this packet and has 8000 B queued behind it.
func ExampleHPCC() {
	tor, err := cp.NewHPCC(cp.HPCCConfig{SwitchID: 0x101, Rate: 100 * units.Gbps})
	if err != nil {
		panic(err)
	}
	agg, err := cp.NewHPCC(cp.HPCCConfig{SwitchID: 0x202, Rate: 400 * units.Gbps})
	if err != nil {
		panic(err)
	}
	_ = tor.Dequeue(0, &cc.Packet{Size: 3000}, cc.Queue{}, nil) // earlier traffic on the ToR port, no INT

	var tel cc.Telemetry // the sender attaches the empty header: nHop = 0, pathID = 0
	if err := tor.Config().Codec.Put(&tel, &inttel.Header{}); err != nil {
		panic(err)
	}
	p := cc.Packet{Size: 1048, Tel: &tel}
	now := 2 * units.Microsecond
	_ = tor.Dequeue(now, &p, cc.Queue{Len: 8000, Rate: 100 * units.Gbps}, nil) // stamp, then count the packet
	now += 1500 * units.Nanosecond
	_ = agg.Dequeue(now, &p, cc.Queue{Rate: 400 * units.Gbps}, nil)

	var hdr inttel.Header
	if err := inttel.ReadHeader(tel.Bytes(), &hdr); err != nil {
		panic(err)
	}
	fmt.Printf("nHop %d pathID %#x\n", hdr.NHop, hdr.PathID)
	for _, h := range hdr.Path() {
		fmt.Printf("B=%d TS=%d ns txBytes=%d×128 B qLen=%d×80 B\n", h.Speed, h.TS, h.TxBytes, h.QLen)
	}
	fmt.Println("ToR port counter:", tor.State().TxBytes)
	// Output:
	// nHop 2 pathID 0x303
	// B=4 TS=2000 ns txBytes=23×128 B qLen=100×80 B
	// B=6 TS=3500 ns txBytes=0×128 B qLen=0×80 B
	// ToR port counter: 4.048KB
}

// The ToR port of the example above, the bytes on the wire: Dequeue
// pushes its record onto the packet's telemetry stack (the INT header as
// wire bytes) with the queue the packet leaves behind, then counts its
// bytes. The sender attached the empty header, 2 bytes; the port's record
// makes it 10: prefix nHop<<12 | pathID = 0x1101, record
// B<<60 | TS<<36 | txBytes<<16 | qLen = 4, 0x0007d0, 0x00017, 0x0064.
func ExampleHPCC_Dequeue() {
	tor, err := cp.NewHPCC(cp.HPCCConfig{SwitchID: 0x101, Rate: 100 * units.Gbps})
	if err != nil {
		panic(err)
	}
	_ = tor.Dequeue(0, &cc.Packet{Size: 3000}, cc.Queue{}, nil) // earlier traffic, no INT

	var tel cc.Telemetry
	if err := tor.Config().Codec.Put(&tel, &inttel.Header{}); err != nil {
		panic(err)
	}
	p := cc.Packet{Size: 1048, Tel: &tel}
	if err := tor.Dequeue(2*units.Microsecond, &p, cc.Queue{Len: 8000, Rate: 100 * units.Gbps}, nil); err != nil {
		panic(err)
	}
	fmt.Printf("%d bytes: %x\n", tel.Len, tel.Bytes())
	var hdr inttel.Header
	if err := inttel.ReadHeader(tel.Bytes(), &hdr); err != nil {
		panic(err)
	}
	fmt.Printf("nHop %d pathID %#x record %+v\n", hdr.NHop, hdr.PathID, hdr.Hops[0])
	fmt.Println("port counter:", tor.State().TxBytes)
	// Output:
	// 10 bytes: 110140007d0000170064
	// nHop 1 pathID 0x101 record {Speed:4 TS:2000 TxBytes:23 QLen:100}
	// port counter: 4.048KB
}
