package wire_test

import (
	"fmt"

	"github.com/hwcc/hwcc/wire"
)

// A host's header: the flags rp.HierCC writes into a data packet's Hdr
// for the sender-side ToR, version 0 so that it is never taken for a
// ToR's.
func ExampleHierCCHostHeader() {
	hdr := wire.HierCCHostHeader(wire.HierCCFlagMark | wire.HierCCFlagFirst)
	fmt.Printf("% x\n", hdr)
	f, err := wire.DecodeHierCCHostHeader(hdr[:])
	fmt.Println(f&wire.HierCCFlagMark != 0, f&wire.HierCCFlagFirst != 0, f&wire.HierCCFlagLast != 0, err)
	_, err = wire.DecodeHierCCHeader(hdr[:])
	fmt.Println(err)
	// Output:
	// 00 03 00 00 00 00 00 00 00 00 00 00 00 00 00 00
	// true true false <nil>
	// HierCC header: byte 0: version 0, want 1
}
