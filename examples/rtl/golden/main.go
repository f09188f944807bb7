// Command golden builds the library the RTL testbenches of examples/rtl
// link, as a C archive:
//
//	go build -buildmode=c-archive -o libgolden.a ./examples/rtl/golden
//
// It is hwcc's C ABI (package capi: capi/hwcc.h, every registered
// algorithm) plus functions of this example's own, for the two
// blocks whose results no part reports as a register: the reciprocal
// table's lookup and divide (hwtables.DefaultReciprocal, what
// `hwcc tables reciprocal` exports) and the INT codec's wrap-safe deltas
// (inttel's TSDelta and TxBytesDelta at params.go's INT units). It is the
// pattern of examples/vendorpart: a main of one's own that imports capi
// and adds to it. The functions are not part of hwcc.h; c/hwcc_dpi.c
// declares them.
package main

/*
#include <stdint.h>
*/
import "C"

import (
	"fmt"
	"os"

	_ "github.com/hwcc/hwcc/capi" // hwcc.h's functions
	"github.com/hwcc/hwcc/examples/rtl"
	"github.com/hwcc/hwcc/hwtables"
	inttel "github.com/hwcc/hwcc/int"
)

// table is the reciprocal table recip_unit's ROM holds.
var table = hwtables.DefaultReciprocal()

// codec is the INT codec int_wrap implements.
var codec = func() *inttel.Codec {
	c, err := rtl.INT.Codec()
	if err != nil { // a fixed configuration: cannot happen
		fmt.Fprintln(os.Stderr, "golden:", err)
		os.Exit(2)
	}
	return c
}()

// hwccrtl_recip writes the reciprocal of n the table holds, 1/n ≈
// mant / 2^shift (hwtables.Table.Lookup: n clamped to [1, 2^22]), and
// returns a/n by the table (hwtables.Table.DivFast): one call per divisor,
// since a call from C into Go costs more than both.
//
//export hwccrtl_recip
func hwccrtl_recip(n, a C.uint64_t, mant *C.uint64_t, shift *C.uint32_t) C.uint64_t {
	m, s := table.Lookup(uint64(n))
	*mant, *shift = C.uint64_t(m), C.uint32_t(s)
	return C.uint64_t(table.DivFast(uint64(a), uint64(n)))
}

// hwccrtl_ts_delta returns the time between two 24-bit TS fields of one
// hop, older first, in ps (inttel.Codec.TSDelta).
//
//export hwccrtl_ts_delta
func hwccrtl_ts_delta(older, newer C.uint32_t) C.int64_t {
	return C.int64_t(codec.TSDelta(inttel.Hop{TS: uint32(older)}, inttel.Hop{TS: uint32(newer)}))
}

// hwccrtl_tx_delta returns the bytes sent between two 20-bit txBytes
// fields of one hop, older first (inttel.Codec.TxBytesDelta).
//
//export hwccrtl_tx_delta
func hwccrtl_tx_delta(older, newer C.uint32_t) C.int64_t {
	return C.int64_t(codec.TxBytesDelta(inttel.Hop{TxBytes: uint32(older)}, inttel.Hop{TxBytes: uint32(newer)}))
}

func main() {}
