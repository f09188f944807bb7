//go:build ignore

// make_params writes sv/rtl_params.sv from params.go (go generate).
package main

import (
	"bytes"
	"log"
	"os"

	"github.com/hwcc/hwcc/examples/rtl"
)

func main() {
	var b bytes.Buffer
	if err := rtl.WriteParams(&b); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile("sv/rtl_params.sv", b.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
}
