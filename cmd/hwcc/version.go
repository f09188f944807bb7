package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/trace"
)

func init() {
	register(verb{
		name:    "version",
		summary: "print hwcc's version and the trace format it writes",
		run:     runVersion,
	})
}

// runVersion prints cc.Version and trace.FormatVersion on one line:
//
//	hwcc 0.9.0 (trace format 1)
func runVersion(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprintln(stderr, "usage: hwcc version") }
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "hwcc version: unexpected argument %q\n", fs.Arg(0))
		fs.Usage()
		return exitUsage
	}
	fmt.Fprintf(stdout, "hwcc %s (trace format %d)\n", cc.Version, trace.FormatVersion)
	return exitOK
}
