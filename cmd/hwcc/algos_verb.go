package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	// The state machines register themselves in the cc registry.
	_ "github.com/hwcc/hwcc/algos"
	"github.com/hwcc/hwcc/cc"
)

func init() {
	register(verb{
		name:    "algos",
		summary: "list the algorithms, their parts, presets and parameters (unit, default, range, source)",
		run:     runAlgos,
	})
}

// algosUsage is the verb's help text.
const algosUsage = `usage: hwcc algos [-json] [NAME [PART]]

Lists every registered algorithm (package algos) with its parts. With NAME,
and PART, shows each part's presets and parameters: kind and unit, default
(in the first preset, at the default link rate), range, source and meaning.
These are the settings cc.New takes, written name=value.
`

// algosJSON is one part in -json output.
type algosJSON struct {
	Algorithm string       `json:"algorithm"`
	Title     string       `json:"title"`
	Paper     string       `json:"paper"`
	Part      string       `json:"part"`
	Role      string       `json:"role"`
	Doc       string       `json:"doc"`
	Link      string       `json:"link,omitempty"`
	Presets   []string     `json:"presets"`
	Params    []paramsJSON `json:"params"`
}

type paramsJSON struct {
	Name    string   `json:"name"`
	Kind    string   `json:"kind"`
	Unit    string   `json:"unit,omitempty"`
	Default string   `json:"default"`
	Range   string   `json:"range"`
	Choices []string `json:"choices,omitempty"`
	Doc     string   `json:"doc"`
	Source  string   `json:"source,omitempty"`
}

func runAlgos(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("algos", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, algosUsage); fs.PrintDefaults() }
	asJSON := fs.Bool("json", false, "print JSON: one object per part")
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return exitOK
		}
		return exitUsage
	}
	rest := fs.Args()
	if len(rest) > 2 {
		fmt.Fprintln(stderr, "hwcc algos: at most an algorithm and a part")
		return exitUsage
	}
	algos := cc.Algorithms()
	if len(rest) > 0 {
		a, err := cc.Lookup(rest[0])
		if err != nil {
			fmt.Fprintf(stderr, "hwcc algos: %v\n", err)
			return exitUsage
		}
		if len(rest) == 2 {
			p, err := a.Part(rest[1])
			if err != nil {
				fmt.Fprintf(stderr, "hwcc algos: %v\n", err)
				return exitUsage
			}
			a.Parts = []cc.PartSpec{p}
		}
		algos = []cc.Algorithm{a}
	}
	if *asJSON {
		var out []algosJSON
		for _, a := range algos {
			for _, p := range a.Parts {
				out = append(out, partJSON(a, p))
			}
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			fmt.Fprintf(stderr, "hwcc algos: %v\n", err)
			return exitFail
		}
		return exitOK
	}
	detail := len(rest) > 0
	for i, a := range algos {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		fmt.Fprintf(stdout, "%s (%s): %s\n  paper: %s\n", a.Name, a.Title, a.Doc, a.Paper)
		for _, p := range a.Parts {
			d := p.Config.Describe()
			presets := make([]string, len(d.Presets))
			for i, pr := range d.Presets {
				presets[i] = pr.Name
			}
			fmt.Fprintf(stdout, "  %-7s %s: %s\n", p.Name, p.Role.Short(), p.Doc)
			fmt.Fprintf(stdout, "          presets: %s", strings.Join(presets, ", "))
			if d.Link != 0 {
				fmt.Fprintf(stdout, "; link %v", d.Link)
			}
			fmt.Fprintln(stdout)
			if !detail {
				continue
			}
			tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "          param\tkind\tdefault\trange\tsource\tmeaning")
			for _, q := range d.Params {
				kind := q.Kind.String()
				if q.Unit != "" {
					kind += " (" + q.Unit + ")"
				}
				fmt.Fprintf(tw, "          %s\t%s\t%s\t%s\t%s\t%s\n", q.Name, kind, q.Default, q.Range(), q.Source, q.Doc)
			}
			tw.Flush()
		}
	}
	if !detail {
		fmt.Fprintln(stdout, "\n'hwcc algos NAME' lists a part's parameters; settings are written name=value (cc.New).")
	}
	return exitOK
}

func partJSON(a cc.Algorithm, p cc.PartSpec) algosJSON {
	d := p.Config.Describe()
	j := algosJSON{Algorithm: a.Name, Title: a.Title, Paper: a.Paper, Part: p.Name, Role: p.Role.Short(), Doc: p.Doc}
	if d.Link != 0 {
		j.Link = d.Link.String()
	}
	for _, pr := range d.Presets {
		j.Presets = append(j.Presets, pr.Name)
	}
	for _, q := range d.Params {
		pj := paramsJSON{Name: q.Name, Kind: q.Kind.String(), Unit: q.Unit, Default: q.Default, Range: q.Range(), Doc: q.Doc, Source: q.Source}
		for _, c := range q.Choices {
			pj.Choices = append(pj.Choices, c.Name)
		}
		j.Params = append(j.Params, pj)
	}
	return j
}
