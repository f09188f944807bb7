package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/hwcc/hwcc/trace"
)

func init() {
	register(verb{name: "replay", summary: "replay a golden-model trace through a fresh state machine (-diff: compare with expected outputs)", run: runReplay})
}

func replayUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprint(w, `usage: hwcc replay FILE [-o OUT] [-diff EXPECTED]

Replays the events of trace FILE (hwcc sim -trace; format: docs/trace.md)
through a part built fresh from the trace's header, and writes one line of
outputs per event (the part's error, actions, registers, next deadline and
limits) to stdout or OUT. With -diff, compares them with the outputs file
EXPECTED and reports the first difference: exit status 1 if they differ,
0 if they are the same.

flags:
`)
	fs.SetOutput(w)
	fs.PrintDefaults()
}

func runReplay(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("hwcc replay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {}
	out := fs.String("o", "", "write the outputs to `OUT` instead of stdout")
	diff := fs.String("diff", "", "compare the outputs with the outputs file `EXPECTED`; exit 1 at the first difference")
	// FILE may come before or after the flags.
	var file string
	err := fs.Parse(args)
	if err == nil && fs.NArg() > 0 {
		file = fs.Arg(0)
		err = fs.Parse(fs.Args()[1:])
	}
	if errors.Is(err, flag.ErrHelp) {
		replayUsage(stdout, fs)
		return exitOK
	}
	if err != nil {
		fmt.Fprintln(stderr, "run 'hwcc replay -h' for the flags")
		return exitUsage
	}
	if fs.NArg() > 0 || file == "" {
		if file == "" {
			fmt.Fprintln(stderr, "hwcc replay: no trace FILE given")
		} else {
			fmt.Fprintf(stderr, "hwcc replay: unexpected argument %q (one trace at a time)\n", fs.Arg(0))
		}
		replayUsage(stderr, fs)
		return exitUsage
	}

	in, err := os.Open(file)
	if err != nil {
		fmt.Fprintf(stderr, "hwcc replay: %v\n", err)
		return exitFail
	}
	defer in.Close()
	// OUT is checked before the replay and replaced only after it
	// succeeded (outFile).
	var o *outFile
	if *out != "" {
		if o, err = openOut("-o", *out); err != nil {
			fmt.Fprintf(stderr, "hwcc replay: %v\n", err)
			return exitFail
		}
		defer o.abort()
	}
	// The outputs go, line by line as they are made, to OUT, to stdout
	// (without -diff), or nowhere; with -diff each is compared with
	// EXPECTED's line as it is made: memory does not grow with the trace.
	var dst io.Writer
	var bw *bufio.Writer
	switch {
	case o != nil:
		bw = bufio.NewWriterSize(o, 1<<16)
		dst = bw
	case *diff == "":
		bw = bufio.NewWriterSize(stdout, 1<<16)
		dst = bw
	}
	var want io.Reader
	if *diff != "" {
		f, err := os.Open(*diff)
		if err != nil {
			fmt.Fprintf(stderr, "hwcc replay: -diff: %v\n", err)
			return exitFail
		}
		defer f.Close()
		want = bufio.NewReader(f)
	}
	var m *trace.Mismatch
	if want != nil {
		m, err = trace.ReplayDiff(bufio.NewReader(in), want, dst)
	} else {
		err = trace.Replay(bufio.NewReader(in), dst)
	}
	if err != nil {
		if bw != nil && o == nil {
			bw.Flush() // what stdout got so far
		}
		var te *trace.Error
		if *diff != "" && !errors.As(err, &te) {
			fmt.Fprintf(stderr, "hwcc replay: -diff %s: %v\n", *diff, err)
		} else {
			fmt.Fprintf(stderr, "hwcc replay: %s: %v\n", file, err)
		}
		return exitFail
	}
	if bw != nil {
		if err := bw.Flush(); err != nil {
			fmt.Fprintf(stderr, "hwcc replay: %v\n", err)
			return exitFail
		}
	}
	if o != nil {
		if err := o.commit(); err != nil {
			fmt.Fprintf(stderr, "hwcc replay: -o: %v\n", err)
			return exitFail
		}
	}
	if *diff == "" {
		return exitOK
	}
	if m != nil {
		fmt.Fprintf(stderr, "hwcc replay: %s differs from %s: %s\n", file, *diff, m)
		return exitFail
	}
	fmt.Fprintf(stderr, "hwcc replay: %s: outputs match %s\n", file, *diff)
	return exitOK
}
