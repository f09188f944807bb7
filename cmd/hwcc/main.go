// Command hwcc is the hwcc command: it runs the library's reference
// harness (package harness, with the adapters of package harness/algos),
// lists the algorithms of the cc registry (package algos) with their
// parameters, and exports the hardware lookup tables (package hwtables/gen).
//
// Usage:
//
//	hwcc <verb> [flags]
//
// Verbs:
//
//	sim      run a scenario on the reference harness (with no flags, the
//	         default comparison of RoCC, HPCC, DCQCN, DCTCP, QCN, BECN and
//	         FECN)
//	algos    list the algorithms, their parts and their parameters
//	tables   export a lookup table as $readmemh hex, a C header or JSON
//	replay   replay a golden-model trace through a fresh state machine and
//	         compare its outputs with expected ones (docs/trace.md)
//	version  print hwcc's version (cc.Version) and the trace format it writes
//
// Examples:
//
//	hwcc sim                                   # the built-in compare: seven algorithms side by side
//	hwcc sim -scenario hpcc-incast -json       # one built-in, the report as JSON
//	hwcc sim -scenario dcqcn-incast -set param.mark_at=enqueue -out dir   # with time series and plots
//	hwcc algos dcqcn                           # a registered algorithm's parts and parameters
//	hwcc tables reciprocal -eps 2^-7 -format memh -o recip.memh
//	hwcc sim -scenario dcqcn-incast -trace rp.trace -trace-part flow:0:rp   # record a golden-model trace
//	hwcc replay rp.trace -o rp.out             # replay it; -diff rp.out compares
//
// The built-in scenarios are described in docs/scenarios.md; `hwcc sim -h`
// lists them and `hwcc sim -scenario NAME -set help` lists a scenario's keys.
//
// Run `hwcc <verb> -h` for a verb's flags. Exit status: 0 on success, 1 when
// the work failed (an unwritable output file), 2 on a usage error (unknown
// verb, bad flag, value out of range).
package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// Exit statuses.
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

// verb is one subcommand. Each lives in its own file (tables.go, sim.go, …)
// and adds itself to the table with register from an init function, so a
// new verb needs no edit here.
type verb struct {
	name    string
	summary string // one line for the usage listing
	// run executes the verb with the arguments after its name and returns
	// the exit status. It writes results to stdout and diagnostics to
	// stderr and must not call os.Exit, so tests can run it in-process.
	run func(args []string, stdout, stderr io.Writer) int
}

// verbs is the dispatch table, filled by register.
var verbs []verb

// register adds v to the dispatch table. Call it from an init function.
// A name registered twice is reported by run as an internal error (and by
// TestVerbsUnique), never by a panic.
func register(v verb) { verbs = append(verbs, v) }

// lookup returns the registered verb called name.
func lookup(name string) (verb, bool) {
	for _, v := range verbs {
		if v.name == name {
			return v, true
		}
	}
	return verb{}, false
}

// duplicate returns a verb name registered more than once, or "".
func duplicate() string {
	seen := make(map[string]bool, len(verbs))
	for _, v := range verbs {
		if seen[v.name] {
			return v.name
		}
		seen[v.name] = true
	}
	return ""
}

// usage lists the verbs in name order.
func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: hwcc <verb> [flags]\n\nverbs:")
	all := slices.Clone(verbs)
	slices.SortFunc(all, func(a, b verb) int { return strings.Compare(a.name, b.name) })
	for _, v := range all {
		fmt.Fprintf(w, "  %-8s %s\n", v.name, v.summary)
	}
	fmt.Fprintln(w, "\nRun 'hwcc <verb> -h' for the verb's flags.")
}

// run dispatches args (without the program name) and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if d := duplicate(); d != "" {
		fmt.Fprintf(stderr, "hwcc: internal error: verb %q registered twice\n", d)
		return exitFail
	}
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		usage(stdout)
		return exitOK
	}
	v, ok := lookup(args[0])
	if !ok {
		fmt.Fprintf(stderr, "hwcc: unknown verb %q\n\n", args[0])
		usage(stderr)
		return exitUsage
	}
	return v.run(args[1:], stdout, stderr)
}

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }
