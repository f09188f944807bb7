package inttel_test

import (
	"errors"
	"fmt"

	inttel "github.com/hwcc/hwcc/int"
	"github.com/hwcc/hwcc/units"
)

// Encode a two-hop header, print its wire bytes, and decode them.
func Example() {
	c, err := inttel.NewCodec(inttel.DefaultConfig())
	if err != nil {
		panic(err)
	}
	h := inttel.Header{NHop: 2, PathID: 0xabc}
	h.Hops[0] = inttel.Hop{Speed: 6, TS: 0x123456, TxBytes: 0xabcde, QLen: 0x1234}
	h.Hops[1] = inttel.Hop{Speed: 4, TS: 0x000100, TxBytes: 0x00080, QLen: 0x0005}

	buf, err := c.AppendHeader(make([]byte, 0, inttel.MaxLen), &h)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d bytes: %x\n", len(buf), buf)

	var back inttel.Header
	n, err := c.Decode(buf, &back)
	if err != nil {
		panic(err)
	}
	fmt.Printf("consumed %d, nHop %d, pathID %#x\n", n, back.NHop, back.PathID)
	for i, hop := range back.Path() {
		v, _ := c.Values(hop)
		fmt.Printf("hop %d: %v, TS %v, txBytes %v, qLen %v\n", i, v.Rate, v.TS, v.TxBytes, v.QLen)
	}
	// Output:
	// 18 bytes: 2abc6123456abcde12344000100000800005
	// consumed 18, nHop 2, pathID 0xabc
	// hop 0: 400Gbps, TS 1.193046ms, txBytes 90.07488MB, qLen 372.8KB
	// hop 1: 100Gbps, TS 256ns, txBytes 16.384KB, qLen 400B
}

// Three switches stamp a packet; the third has a queue beyond what 16 bits
// of 80 B can say.
func ExampleCodec_Stamp() {
	c, _ := inttel.NewCodec(inttel.DefaultConfig())
	var h inttel.Header // what the sender sends: nHop 0, pathID 0
	ports := []inttel.Port{
		{SwitchID: 0x001, Rate: 100 * units.Gbps, TxBytes: 1 * units.GB, QLen: 0},
		{SwitchID: 0x010, Rate: 400 * units.Gbps, TxBytes: 5 * units.GB, QLen: 64 * units.KB},
		{SwitchID: 0x100, Rate: 100 * units.Gbps, TxBytes: 7 * units.GB, QLen: 6 * units.MB},
	}
	for i, p := range ports {
		now := units.Time(i+1) * units.Microsecond
		saturated, err := c.Stamp(now, &h, p)
		fmt.Printf("switch %#03x: nHop %d pathID %#03x saturated %v err %v\n", p.SwitchID, h.NHop, h.PathID, saturated, err)
	}
	fmt.Printf("%+v\n", h.Path())

	// A sixth switch finds the header full (MaxHops = 5) and forwards the
	// packet unchanged.
	for range 2 {
		c.Stamp(0, &h, inttel.Port{Rate: 100 * units.Gbps})
	}
	_, err := c.Stamp(0, &h, inttel.Port{SwitchID: 0xfff, Rate: 100 * units.Gbps})
	fmt.Println(errors.Is(err, inttel.ErrPathFull), h.NHop, err)
	// Output:
	// switch 0x001: nHop 1 pathID 0x001 saturated false err <nil>
	// switch 0x010: nHop 2 pathID 0x011 saturated false err <nil>
	// switch 0x100: nHop 3 pathID 0x111 saturated true err <nil>
	// [{Speed:4 TS:1000 TxBytes:472468 QLen:0} {Speed:6 TS:2000 TxBytes:265188 QLen:800} {Speed:4 TS:3000 TxBytes:161548 QLen:65535}]
	// true 5 inttel: path full, hop not stamped: header already holds Config.MaxHops = 5 records
}

// The sender's per-hop step: bytes and time between two ACKs' records of
// the same hop, across both counters' wraps.
func ExampleCodec_TxBytesDelta() {
	c, _ := inttel.NewCodec(inttel.DefaultConfig())
	older := inttel.Hop{Speed: 6, TS: 0xfffff0, TxBytes: 0xffff0}
	newer := inttel.Hop{Speed: 6, TS: 0x000060, TxBytes: 0x00020} // both wrapped
	rate, err := c.TxRate(older, newer)
	fmt.Println(c.TxBytesDelta(older, newer), c.TSDelta(older, newer), rate, err)
	fmt.Println("txBytes wraps every", c.TxBytesWrapTime(400*units.Gbps), "at 400 Gb/s; TS every", c.TSWrap())
	fmt.Println("exact if samples are at most", c.MaxSampleGap(400*units.Gbps), "apart")
	// Output:
	// 6.144KB 112ns 438.857142857Gbps <nil>
	// txBytes wraps every 2.68435456ms at 400 Gb/s; TS every 16.777216ms
	// exact if samples are at most 2.684352ms apart
}

// A configured speed table, for a fabric with 1.6 Tb/s ports.
func ExampleNewSpeedTable() {
	tab, err := inttel.NewSpeedTable([]inttel.SpeedCode{
		{Code: 0, Rate: 400 * units.Gbps}, {Code: 1, Rate: 800 * units.Gbps}, {Code: 2, Rate: 1600 * units.Gbps},
	})
	fmt.Println(tab.String(), err)
	code, ok := tab.Code(1600 * units.Gbps)
	fmt.Println(code, ok)
	_, ok = tab.Rate(3)
	fmt.Println(ok)

	_, err = inttel.NewSpeedTable([]inttel.SpeedCode{{Code: 0, Rate: 400 * units.Gbps}, {Code: 1, Rate: 400 * units.Gbps}})
	fmt.Println(err)
	// Output:
	// 0=400Gbps 1=800Gbps 2=1.6Tbps <nil>
	// 2 true
	// false
	// inttel.SpeedTable: Config.Speeds[1].Rate = 400Gbps: want a rate used once (it has code 0 already): inttel: invalid config
}
