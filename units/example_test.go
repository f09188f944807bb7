package units_test

import (
	"fmt"

	"github.com/hwcc/hwcc/units"
)

func ExampleSerializationTime() {
	// A 1048-byte frame (1000 B payload plus headers) on a 100 Gb/s port.
	fmt.Println(units.SerializationTime(1048, 100*units.Gbps))
	// Output: 83.84ns
}

func ExampleBytesIn() {
	// HPCC's initial window B·T for a 100 Gb/s NIC and T = 13 µs.
	fmt.Println(int64(units.BytesIn(100*units.Gbps, 13*units.Microsecond)), "bytes")
	// Output: 162500 bytes
}

func ExampleParseBytes() {
	kb, _ := units.ParseBytes("150KB")
	kib, _ := units.ParseBytes("150KiB")
	_, err := units.ParseBytes("150 parsecs")
	fmt.Println(int64(kb), int64(kib))
	fmt.Println(err)
	// Output:
	// 150000 153600
	// units: bad size "150 parsecs": unknown unit "parsecs" (want B, KB, MB, GB (decimal), KiB, MiB, GiB (binary))
}

func ExampleParseRate() {
	r, _ := units.ParseRate("10Mb/s")
	fmt.Println(r, int64(r))
	// Output: 10Mbps 10000000
}
