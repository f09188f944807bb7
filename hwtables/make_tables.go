//go:build ignore

// make_tables writes tables_gen.go, the default tables of package hwtables.
// Run it with `go generate ./hwtables` (or `go run make_tables.go` in this
// directory). The generation logic is gen.GenerateGo in hwtables/gen, so
// that a test there can prove the committed file is up to date.
package main

import (
	"bytes"
	"fmt"
	"os"

	"github.com/hwcc/hwcc/hwtables/gen"
)

func main() {
	var b bytes.Buffer
	if err := gen.GenerateGo(&b); err != nil {
		fmt.Fprintln(os.Stderr, "make_tables:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(gen.GeneratedFile, b.Bytes(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "make_tables:", err)
		os.Exit(1)
	}
}
