package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/hwcc/hwcc/hwtables"
	"github.com/hwcc/hwcc/hwtables/gen"
)

func init() {
	register(verb{
		name:    "tables",
		summary: "export a lookup table as $readmemh hex, a C header or JSON",
		run:     runTables,
	})
}

// tableKind is one table `hwcc tables` can export. Its flags function
// declares the table's own flags on fs and returns the builder to call once
// they are parsed. Other files add kinds with registerTable from init.
type tableKind struct {
	name    string
	summary string
	flags   func(fs *flag.FlagSet) (build func() (gen.Exportable, error))
}

// tableKinds is the list of exportable tables, filled by registerTable.
var tableKinds []tableKind

// registerTable adds a table to `hwcc tables`. Call it from an init function.
func registerTable(k tableKind) { tableKinds = append(tableKinds, k) }

func init() {
	registerTable(tableKind{
		name:    "reciprocal",
		summary: "HPCC's reciprocal table 1/n, 1 <= n <= 2^22 (section 4.3)",
		flags: func(fs *flag.FlagSet) func() (gen.Exportable, error) {
			eps := fs.String("eps", gen.FormatEps(hwtables.DefaultEpsLog2),
				"relative step eps between stored reciprocals: a power of two, as 2^-7, 1/128 or 0.0078125; range 2^-16 .. 2^-1")
			mant := fs.Uint("mant", 0, "stored mantissa fraction bits F, 1..30 (0: e+3 for eps = 2^-e)")
			return func() (gen.Exportable, error) {
				e, err := gen.ParseEps(*eps)
				if err != nil {
					return nil, fmt.Errorf("-eps: %w", err)
				}
				t, err := hwtables.NewReciprocal(hwtables.ReciprocalConfig{EpsLog2: e, MantBits: *mant})
				if err != nil {
					return nil, err
				}
				return gen.Table(t), nil
			}
		},
	})
	registerTable(tableKind{
		name:    "reciprocal-compact",
		summary: "2^k reciprocals of normalised mantissas, addressed by the k bits after n's leading one",
		flags: func(fs *flag.FlagSet) func() (gen.Exportable, error) {
			bits := fs.Uint("bits", hwtables.DefaultIndexBits, "index bits k: the table has 2^k entries; range 1..16")
			mant := fs.Uint("mant", 0, "stored mantissa fraction bits F, k..30 (0: k+4)")
			return func() (gen.Exportable, error) {
				if *bits == 0 {
					return nil, fmt.Errorf("-bits 0: want %d..%d", hwtables.MinIndexBits, hwtables.MaxIndexBits)
				}
				t, err := hwtables.NewCompact(hwtables.CompactConfig{IndexBits: *bits, MantBits: *mant})
				if err != nil {
					return nil, err
				}
				return gen.Table(t), nil
			}
		},
	})
}

// outFormat is one -format value and its exporter.
type outFormat struct {
	name  string
	write func(io.Writer, gen.Exportable) error
}

// formats lists the -format values.
var formats = []outFormat{
	{"memh", gen.WriteMemh},
	{"c", gen.WriteC},
	{"json", gen.WriteJSON},
}

// tablesUsage lists the tables and the common flags.
func tablesUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: hwcc tables <table> [-format memh|c|json] [-o FILE] [table flags]\n\ntables:")
	for _, k := range tableKinds {
		fmt.Fprintf(w, "  %-20s %s\n", k.name, k.summary)
	}
	fmt.Fprintln(w, "\nexamples:\n  hwcc tables reciprocal -eps 2^-7 -format memh -o recip.memh")
	fmt.Fprintln(w, "  hwcc tables reciprocal-compact -bits 6 -format c")
	fmt.Fprintln(w, "\nRun 'hwcc tables <table> -h' for the table's flags.")
}

// runTables implements `hwcc tables <table> [flags]`.
func runTables(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		tablesUsage(stderr)
		return exitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		tablesUsage(stdout)
		return exitOK
	}
	if strings.HasPrefix(args[0], "-") {
		fmt.Fprintf(stderr, "hwcc tables: name the table before the flags (got %q first)\n\n", args[0])
		tablesUsage(stderr)
		return exitUsage
	}
	i := slices.IndexFunc(tableKinds, func(k tableKind) bool { return k.name == args[0] })
	if i < 0 {
		fmt.Fprintf(stderr, "hwcc tables: unknown table %q\n\n", args[0])
		tablesUsage(stderr)
		return exitUsage
	}
	kind := tableKinds[i]

	fs := flag.NewFlagSet("hwcc tables "+kind.name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "memh", "output format: memh ($readmemh hex), c (C header) or json")
	out := fs.String("o", "", "write to `FILE` instead of standard output")
	build := kind.flags(fs)
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage // the flag package has printed the error and the flags
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "hwcc tables %s: unexpected argument %q\n", kind.name, fs.Arg(0))
		return exitUsage
	}
	f := slices.IndexFunc(formats, func(x outFormat) bool { return x.name == *format })
	if f < 0 {
		fmt.Fprintf(stderr, "hwcc tables %s: -format %q: want memh, c or json\n", kind.name, *format)
		return exitUsage
	}
	var o *outFile
	if *out != "" {
		var err error
		if o, err = openOut("-o", *out); err != nil {
			fmt.Fprintf(stderr, "hwcc tables %s: %v\n", kind.name, err)
			return exitFail
		}
		defer o.abort()
	}
	t, err := build()
	if err != nil {
		fmt.Fprintf(stderr, "hwcc tables %s: %v\n", kind.name, flagError(err))
		return exitUsage
	}
	// Render fully before writing, so a failure leaves no partial file.
	var buf bytes.Buffer
	if err := formats[f].write(&buf, t); err != nil {
		fmt.Fprintf(stderr, "hwcc tables %s: %v\n", kind.name, err)
		return exitFail
	}
	if o == nil {
		if _, err := stdout.Write(buf.Bytes()); err != nil {
			fmt.Fprintf(stderr, "hwcc tables %s: %v\n", kind.name, err)
			return exitFail
		}
		return exitOK
	}
	_, err = o.Write(buf.Bytes())
	if err == nil {
		err = o.commit()
	}
	if err != nil {
		fmt.Fprintf(stderr, "hwcc tables %s: -o %s: %v\n", kind.name, *out, err)
		return exitFail
	}
	return exitOK
}

// flagOf names the flag that sets each configuration field a table's
// constructor names in its *hwtables.RangeError.
var flagOf = map[string]string{
	"ReciprocalConfig.EpsLog2":  "eps",
	"ReciprocalConfig.MantBits": "mant",
	"CompactConfig.IndexBits":   "bits",
	"CompactConfig.MantBits":    "mant",
}

// flagError rewrites a constructor's *hwtables.RangeError in terms of the
// flag the user typed: "-mant 100: want 1..30" for
// "ReciprocalConfig.MantBits = 100 out of range [1, 30]".
func flagError(err error) error {
	var re *hwtables.RangeError
	if !errors.As(err, &re) {
		return err
	}
	name, ok := flagOf[re.Name]
	if !ok {
		return err
	}
	if name == "eps" { // ε = 2^-EpsLog2: the larger EpsLog2, the smaller ε
		return fmt.Errorf("-eps %s: want %s .. %s", gen.FormatEps(uint(re.Value)), gen.FormatEps(uint(re.Max)), gen.FormatEps(uint(re.Min)))
	}
	return fmt.Errorf("-%s %d: want %d..%d", name, re.Value, re.Min, re.Max)
}
