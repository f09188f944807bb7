// Command libhwcc builds hwcc's C library: the archive or shared library
// whose interface is capi/hwcc.h, with every algorithm hwcc registers.
//
//	go build -buildmode=c-archive -o libhwcc.a ./capi/libhwcc
//	go build -buildmode=c-shared -o libhwcc.so ./capi/libhwcc
//
// A vendor whose own parts must be reachable through the same ABI builds
// the library from a main of their own that imports package capi and
// registers the parts (cc.MustRegisterAlgorithm), as examples/vendorpart
// does; this command is that main with nothing added.
package main

import _ "github.com/hwcc/hwcc/capi" // the C ABI's exported functions

func main() {}
