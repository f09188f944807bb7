package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"github.com/hwcc/hwcc/cc"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/hwcc/hwcc/harness"
)

func init() {
	register(verb{
		name:    "sim",
		summary: "run a scenario on the reference harness and print its report",
		run:     runSim,
	})
}

// defaultSimScenario is the built-in `hwcc sim` runs without -scenario:
// the side-by-side comparison of the algorithms (harness/algos/compare.go).
const defaultSimScenario = "compare"

// simProgressEvery is the number of simulated events between progress
// callbacks: small enough that the display updates several times a second
// (a run handles millions of events per second; BenchmarkSteadyState in
// package harness measures the rate), large enough that reading the clock
// costs nothing measurable.
const simProgressEvery = 1 << 16

// setList is the repeatable -set flag.
type setList []string

func (s *setList) String() string     { return strings.Join(*s, " ") }
func (s *setList) Set(v string) error { *s = append(*s, v); return nil }

// simUsage prints the verb's usage, its flags, the built-in scenarios, the
// registered algorithms and the -set keys of sc (nil: none).
func simUsage(w io.Writer, fs *flag.FlagSet, sc *harness.Scenario) {
	fmt.Fprintln(w, "usage: hwcc sim [-scenario NAME|FILE] [-algo NAME] [-set key=value ...] [-json] [-out DIR] [-cpuprofile FILE] [-memprofile FILE]")
	fmt.Fprintln(w, "\nRuns a scenario on the reference harness and prints a summary table (or, with -json, the report).")
	fmt.Fprintf(w, "Without -scenario it runs the built-in %s.\n\nflags:\n", defaultSimScenario)
	fs.SetOutput(w)
	fs.PrintDefaults()
	fmt.Fprintln(w, "\nbuilt-in scenarios:")
	for _, name := range harness.BuiltinNames() {
		desc := ""
		if b, err := harness.Builtin(name); err == nil {
			desc = b.Description
		}
		fmt.Fprintf(w, "  %-20s %s\n", name, desc)
	}
	fmt.Fprintf(w, "\nalgorithms: %s\n", strings.Join(cc.Names(), ", "))
	if sc != nil {
		printKeys(w, sc)
	}
	fmt.Fprintln(w, "\nexamples:")
	fmt.Fprintln(w, "  hwcc sim                      # the comparison of rocc, hpcc, dcqcn, dctcp, qcn, becn and fecn")
	fmt.Fprintln(w, "  hwcc sim -algo hpcc           # one of them, with the full report")
	fmt.Fprintln(w, "  hwcc sim -scenario line-rate-2to1 -set senders=4 -set link=40Gbps")
	fmt.Fprintln(w, "  hwcc sim -scenario examples/scenarios/single-flow.json -json")
	fmt.Fprintln(w, "  hwcc sim -scenario single-flow -set size=10MB -out results")
	fmt.Fprintln(w, "  hwcc sim -scenario poisson-fattree -cpuprofile cpu.pprof   # then: go tool pprof -top cpu.pprof")
}

// printKeys lists the -set keys of sc.
func printKeys(w io.Writer, sc *harness.Scenario) {
	fmt.Fprintf(w, "\n-set keys of scenario %s (times: 10us, 1.5ms; rates: 100Gbps, 40G; sizes: 1MB, 150KB, 1500):\n", sc.Name)
	for _, h := range sc.Help() {
		fmt.Fprintf(w, "  %s\n", h)
	}
}

// runSim implements `hwcc sim`.
func runSim(args []string, stdout, stderr io.Writer) (status int) {
	fs := flag.NewFlagSet("hwcc sim", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {} // printed below, to stdout for -h and stderr for errors
	scenario := fs.String("scenario", "", "built-in scenario `NAME` or path of a JSON scenario FILE (default "+defaultSimScenario+")")
	algo := fs.String("algo", "", "run the scenario under algorithm `NAME` instead of its own")
	var sets setList
	fs.Var(&sets, "set", "override a scenario setting, `key=value`; repeatable; '-set help' lists the keys")
	asJSON := fs.Bool("json", false, "print the report as JSON instead of the table")
	out := fs.String("out", "", "also write time series (CSV) and plots (SVG) into `DIR`, created if missing")
	printSc := fs.Bool("print-scenario", false, "print the scenario as JSON (after -algo and -set) and exit without running")
	strict := fs.Bool("strict", false, "exit with status 1 if a state machine refused any event (the report lists them)")
	traceFile := fs.String("trace", "", "record the events of one part (-trace-part) as a golden-model trace into `FILE` (see 'hwcc replay')")
	tracePart := fs.String("trace-part", "", "the part -trace records: flow:N:rp, flow:N:np, port:NODE:PORT (a congestion point, port:s0:0) or switch:NODE (`WHICH`)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the run (runtime/pprof; read it with 'go tool pprof') into `FILE`")
	memProfile := fs.String("memprofile", "", "write an allocation profile of the run (runtime/pprof; 'go tool pprof') into `FILE` when it ends")
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		sc, _ := loadScenario(*scenario) // the keys of the named scenario, if it loads
		simUsage(stdout, fs, sc)
		return exitOK
	}
	if err != nil {
		// The flag package has printed the problem.
		fmt.Fprintln(stderr, "run 'hwcc sim -h' for the flags")
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "hwcc sim: unexpected argument %q (a scenario is named with -scenario %s)\n", fs.Arg(0), fs.Arg(0))
		return exitUsage
	}
	// A flag given with an empty value names nothing: it is not the
	// flag's default (-scenario '' would run the default comparison).
	var empty []string
	fs.Visit(func(f *flag.Flag) {
		if f.Value.String() == "" && f.Name != "set" {
			empty = append(empty, "-"+f.Name)
		}
	})
	if len(empty) > 0 {
		fmt.Fprintf(stderr, "hwcc sim: %s: an empty value (leave the flag out for its default)\n", strings.Join(empty, ", "))
		return exitUsage
	}

	sc, err := loadScenario(*scenario)
	if err != nil {
		fmt.Fprintf(stderr, "hwcc sim: %v\n", err)
		return exitUsage
	}
	if slices.Contains(sets, "help") {
		printKeys(stdout, sc)
		return exitOK
	}
	if *algo != "" {
		if _, err := cc.Lookup(*algo); err != nil {
			fmt.Fprintf(stderr, "hwcc sim: -algo: %v\n", err)
			return exitUsage
		}
		if len(sc.Compare) > 0 {
			// One algorithm of a comparison: the parameters meant for it.
			sc = sc.ForAlgorithm(*algo)
		}
		if *algo != sc.Algorithm && len(sc.Params) > 0 {
			// Params belong to the scenario's own algorithm; another one
			// would reject them. -set param.NAME=VALUE gives it its own.
			fmt.Fprintf(stderr, "hwcc sim: note: -algo %s drops the parameters of %s (%s)\n",
				*algo, sc.Algorithm, strings.Join(sortedKeys(sc.Params), ", "))
			sc.Params = nil
		}
		sc.Algorithm = *algo
	}
	if err := sc.SetAll(sets); err != nil {
		fmt.Fprintf(stderr, "hwcc sim: -set: %v\n", err)
		if !strings.Contains(err.Error(), "valid:") {
			fmt.Fprintf(stderr, "run 'hwcc sim -scenario %s -set help' for the keys\n", sc.Name)
		}
		return exitUsage
	}
	if err := sc.Validate(); err != nil {
		fmt.Fprintf(stderr, "hwcc sim: %v\n", err)
		return exitUsage
	}
	if *printSc {
		if err := writeJSON(stdout, sc); err != nil {
			fmt.Fprintf(stderr, "hwcc sim: %v\n", err)
			return exitFail
		}
		return exitOK
	}

	if (*traceFile == "") != (*tracePart == "") {
		fmt.Fprintln(stderr, "hwcc sim: -trace FILE and -trace-part WHICH go together")
		return exitUsage
	}
	var target *harness.TraceTarget
	if *traceFile != "" {
		if len(sc.Compare) > 0 {
			fmt.Fprintf(stderr, "hwcc sim: -trace records one part of one algorithm's run, and scenario %s compares %d algorithms: pick one with -algo NAME\n", sc.Name, len(sc.Compare))
			return exitUsage
		}
		target = &harness.TraceTarget{Which: *tracePart}
		if err := target.Validate(); err != nil {
			fmt.Fprintf(stderr, "hwcc sim: -trace-part: %v\n", err)
			return exitUsage
		}
	}

	// The outputs are checked before the run: an unwritable path is an
	// error now, not after it.
	if *out != "" {
		if err := checkOutDir(*out); err != nil {
			fmt.Fprintf(stderr, "hwcc sim: %v\n", err)
			return exitFail
		}
	}

	if *cpuProfile != "" || *memProfile != "" {
		prof, err := startProfiles(*cpuProfile, *memProfile)
		if err != nil {
			fmt.Fprintf(stderr, "hwcc sim: %v\n", err)
			return exitFail
		}
		defer func() {
			if err := prof.stop(status == exitOK); err != nil {
				fmt.Fprintf(stderr, "hwcc sim: %v\n", err)
				if status == exitOK {
					status = exitFail
				}
			}
		}()
	}

	if len(sc.Compare) > 0 {
		return runCompare(sc, *asJSON, *out, *strict, stdout, stderr)
	}

	prog := newProgress(stderr, time.Now)
	opts := harness.Options{NoSeries: *out == "", ProgressEvery: simProgressEvery}
	if prog != nil {
		opts.Progress = prog.update
	}
	var traceOut *outFile
	var traceBuf *bufio.Writer
	if target != nil {
		// The trace goes to a file beside FILE, renamed over it once the
		// run has succeeded: a failed run leaves an existing FILE as it was.
		if traceOut, err = openOut("-trace", *traceFile); err != nil {
			fmt.Fprintf(stderr, "hwcc sim: %v\n", err)
			return exitFail
		}
		defer traceOut.abort()
		traceBuf = bufio.NewWriter(traceOut)
		target.W, opts.Trace = traceBuf, target
	}
	start := time.Now()
	s, err := harness.New(sc, opts)
	if err != nil {
		// The scenario passed Validate but cannot be built: a host name
		// the topology lacks, a series too long, an adapter refusing it.
		fmt.Fprintf(stderr, "hwcc sim: %v\n", err)
		return exitUsage
	}
	if target != nil {
		if err := target.CheckPart(s); err != nil {
			fmt.Fprintf(stderr, "hwcc sim: -trace-part: %v\n", err)
			return exitUsage
		}
	}
	res, err := s.Run()
	wall := time.Since(start)
	if prog != nil {
		prog.done()
	}
	if err != nil {
		fmt.Fprintf(stderr, "hwcc sim: run failed: %v\n", err)
		return exitFail
	}
	res.Report.WallSeconds = wall.Seconds()
	if target != nil {
		err := target.Err()
		if err == nil {
			err = traceBuf.Flush()
		}
		if err == nil {
			err = traceOut.commit()
		}
		if err != nil {
			fmt.Fprintf(stderr, "hwcc sim: -trace %s: %v\n", *traceFile, err)
			return exitFail
		}
		fmt.Fprintf(stderr, "hwcc sim: wrote trace of %s to %s\n", *tracePart, *traceFile)
	}

	if *asJSON {
		err = res.Report.WriteJSON(stdout)
	} else {
		err = writeTable(stdout, res)
	}
	if err != nil {
		fmt.Fprintf(stderr, "hwcc sim: %v\n", err)
		return exitFail
	}
	if *out != "" {
		files, err := writeOut(*out, res)
		if len(files) > 0 {
			fmt.Fprintf(stderr, "hwcc sim: wrote %s\n", strings.Join(files, ", "))
		}
		if err != nil {
			fmt.Fprintf(stderr, "hwcc sim: -out: %v\n", err)
			return exitFail
		}
	}
	return strictStatus(*strict, stderr, res)
}

// strictStatus is the exit status under -strict: exitFail, saying so, if a
// state machine of any of results refused an event.
func strictStatus(strict bool, stderr io.Writer, results ...*harness.Result) int {
	if !strict {
		return exitOK
	}
	for _, r := range results {
		if e := r.Report.Errors; e != nil {
			fmt.Fprintf(stderr, "hwcc sim: -strict: %s: %d state-machine errors, first: %s\n", r.Report.Algorithm, e.Count, e.First[0].Message)
			return exitFail
		}
	}
	return exitOK
}

// loadScenario returns the scenario name designates: "" the default
// built-in, a built-in name that built-in, anything else the JSON file at
// that path (decoded strictly). A built-in name wins over a file of the
// same name in the working directory; write ./NAME to mean the file.
func loadScenario(name string) (*harness.Scenario, error) {
	if name == "" {
		name = defaultSimScenario
	}
	builtins := harness.BuiltinNames()
	if slices.Contains(builtins, name) {
		return harness.Builtin(name)
	}
	f, err := os.Open(name)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("-scenario %q: no built-in scenario of that name and no such file (built-ins: %s)",
				name, strings.Join(builtins, ", "))
		}
		return nil, fmt.Errorf("-scenario: %w", err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, fmt.Errorf("-scenario %q is a directory, not a JSON scenario file", name)
	}
	sc, err := harness.DecodeScenario(f)
	if err != nil {
		return nil, fmt.Errorf("-scenario %s: %w", name, err)
	}
	return sc, nil
}

// sortedKeys returns the keys of m, sorted.
func sortedKeys(m map[string]string) []string {
	k := make([]string, 0, len(m))
	for n := range m {
		k = append(k, n)
	}
	slices.Sort(k)
	return k
}
