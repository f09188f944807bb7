package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// hostileAlloc bounds what the command may allocate, in all, on one
// hostile input: a refusal comes before anything large is built, and a
// valid input that sounds large (an incast repeated 10^9 times) builds
// only what its run simulates. TotalAlloc counts every allocation, so it
// bounds the heap's peak too.
const hostileAlloc = 100 << 20

// hostileCase is one input a user could give: the command line, with $D
// standing for a directory holding files, the exit status and a piece of
// what the command must say on stderr (or, for a run that succeeds, on
// stdout).
type hostileCase struct {
	name  string
	files map[string]func(w io.Writer) // written into $D before the run
	args  []string
	code  int
	want  string
	not   string                                 // what the message must not say
	check func(t *testing.T, dir, stdout string) // more checks after the run
}

// scenarioFile writes a scenario given as Go values, JSON-encoded.
func scenarioFile(v any) func(io.Writer) {
	return func(w io.Writer) {
		b, err := json.Marshal(v)
		if err != nil {
			panic(err)
		}
		w.Write(b)
	}
}

// text writes s.
func text(s string) func(io.Writer) { return func(w io.Writer) { io.WriteString(w, s) } }

// incastFile is a star with one incast of 1 MB flows into h0 (hpcc-incast's
// workload) whose incast has the fields ic, over duration.
func incastFile(ic map[string]any, duration string) func(io.Writer) {
	ic["size"] = "100KB"
	return scenarioFile(map[string]any{
		"name": "hostile", "algorithm": "hpcc", "duration": duration, "sample_interval": "10us",
		"topology": map[string]any{"kind": "star", "link": "100Gbps", "delay": "1us"},
		"workload": map[string]any{"incast": []any{ic}},
	})
}

// hostList writes a scenario whose incast lists n hosts, h1..h4000 over
// and over.
func hostList(n int) func(io.Writer) {
	return func(w io.Writer) {
		var round []byte // `"h1","h2",…,"h4000",`
		for i := 1; i <= 4000; i++ {
			round = append(round, `"h`...)
			round = strconv.AppendInt(round, int64(i), 10)
			round = append(round, `",`...)
		}
		bw := bufio.NewWriter(w)
		bw.WriteString(`{"workload":{"incast":[{"size":"1MB","hosts":[`)
		for ; n > 4000; n -= 4000 {
			bw.Write(round)
		}
		tail := bytes.SplitAfterN(round, []byte(","), n+1)
		bw.Write(bytes.TrimSuffix(bytes.Join(tail[:n], nil), []byte(",")))
		bw.WriteString(`]}]}}`)
		bw.Flush()
	}
}

// unchanged checks that file $D/name still holds keep, and that no
// temporary file is left beside it.
func unchanged(name, keep string) func(*testing.T, string, string) {
	return func(t *testing.T, dir, _ string) {
		b, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		require.Equal(t, keep, string(b), "%s is as it was", name)
		left, err := filepath.Glob(filepath.Join(dir, ".*.tmp"))
		require.NoError(t, err)
		require.Empty(t, left, "no temporary file is left")
	}
}

const keepText = "a file the user keeps\n"

// goodTrace is a header and one event of a DCQCN reaction point.
const goodHeader = `{"hwcc_trace":2,"version":"devel","algorithm":"dcqcn","part":"rp","role":"RP","settings":{},"env":{"rate":100000000000}}`

// TestHostileInputs runs the command in-process on inputs a new user could
// type, each with the message it must give, the exit status, and a bound
// on what it allocates (hostileAlloc) rather than on time.
func TestHostileInputs(t *testing.T) {
	cases := []hostileCase{
		// Counts and sizes, bounded before anything is built.
		{name: "fan-in of 1e9 senders", files: map[string]func(io.Writer){"s.json": text(`{"workload":{"fan_in":{"senders":1e9}}}`)},
			args: []string{"sim", "-scenario", "$D/s.json"}, code: exitUsage,
			want: "workload.fan_in.senders = 1000000000: want 1..4095 (harness.MaxHosts − 1)", not: "want a whole number"},
		{name: "incast of 1e9 senders", files: map[string]func(io.Writer){"s.json": incastFile(map[string]any{"senders": 1e9}, "4.6ms")},
			args: []string{"sim", "-scenario", "$D/s.json"}, code: exitUsage,
			want: "workload.incast[0].senders = 1000000000: want 1..4095"},
		{name: "fan-in of 1e5 senders (the auto-sized star)", files: map[string]func(io.Writer){"s.json": text(`{"workload":{"fan_in":{"senders":100000}}}`)},
			args: []string{"sim", "-scenario", "$D/s.json"}, code: exitUsage,
			want: "workload.fan_in.senders = 100000: want 1..4095"},
		// Bursts at 0 s, 1 s, ...: only the first starts within 4.6 ms,
		// so the run builds 16 flows and runs.
		{name: "incast repeated 1e9 times every 1s over 4.6ms", files: map[string]func(io.Writer){"s.json": incastFile(map[string]any{"senders": 16, "repeat": 1e9, "interval": "1s"}, "4.6ms")},
			args: []string{"sim", "-scenario", "$D/s.json", "-json"}, code: exitOK,
			check: func(t *testing.T, _ string, stdout string) {
				var rep struct{ Flows []json.RawMessage }
				require.NoError(t, json.Unmarshal([]byte(stdout), &rep))
				require.Len(t, rep.Flows, 16, "one burst of 16 flows")
			}},
		{name: "incast repeated every 1ns", files: map[string]func(io.Writer){"s.json": incastFile(map[string]any{"senders": 16, "repeat": 1e9, "interval": "1ns"}, "4.6ms")},
			args: []string{"sim", "-scenario", "$D/s.json"}, code: exitUsage,
			want: "workload: 73600016 flows built before the run (flows 0, incast[0] 16 senders × 4600001 bursts; an incast's bursts that start after the run are not built), want at most 65536 (harness.MaxFlows)"},
		{name: "10M hosts listed (a 77 MB file)", files: map[string]func(io.Writer){"s.json": hostList(10_000_000)},
			args: []string{"sim", "-scenario", "$D/s.json"}, code: exitUsage,
			want: "scenario file larger than 16 MB (harness.MaxScenarioBytes)"},
		{name: "2M hosts listed (15 MB)", files: map[string]func(io.Writer){"s.json": hostList(2_000_000)},
			args: []string{"sim", "-scenario", "$D/s.json"}, code: exitUsage,
			want: "scenario.workload.incast[0].hosts (line 1, column 46): more than 65536 elements"},
		{name: "5000 hosts listed", files: map[string]func(io.Writer){"s.json": hostList(5000)},
			args: []string{"sim", "-scenario", "$D/s.json"}, code: exitUsage,
			want: "workload.incast[0].hosts: 5000 hosts, want at most 4095 (harness.MaxHosts − 1)"},
		{name: "a valid scenario padded past the size limit", files: map[string]func(io.Writer){"s.json": func(w io.Writer) {
			io.WriteString(w, `{"workload":{"fan_in":{"senders":1}}`)
			w.Write([]byte(strings.Repeat(" ", 17<<20)))
			io.WriteString(w, `}`)
		}}, args: []string{"sim", "-scenario", "$D/s.json"}, code: exitUsage,
			want: "scenario file larger than 16 MB", not: "EOF"},
		{name: "leaf-spine of 1024 × 1024 hosts", files: map[string]func(io.Writer){"s.json": text(`{"topology":{"kind":"leaf-spine","leaves":1024,"hosts_per_leaf":1024},"workload":{"fan_in":{"senders":1}}}`)},
			args: []string{"sim", "-scenario", "$D/s.json"}, code: exitUsage,
			want: "topology leaf-spine: 1048576 hosts (leaves × hosts_per_leaf = 1024 × 1024), want at most 4096 (harness.MaxHosts)"},
		{name: "VOQs on a large star", files: map[string]func(io.Writer){"s.json": text(`{"topology":{"kind":"star","hosts":4096},"switch":{"scheduler":"voq"},"workload":{"fan_in":{"senders":1}}}`)},
			args: []string{"sim", "-scenario", "$D/s.json"}, code: exitUsage,
			want: "4096 ports × 4096 hosts = 16777216 VOQs, want at most 2097152 (harness.MaxVOQs)"},
		{name: "Poisson arrivals over 100 s of a fat tree", files: map[string]func(io.Writer){"s.json": text(`{"topology":{"kind":"fat-tree","k":24},"workload":{"poisson":{"load":1,"cdf":"fbhadoop"}},"duration":"100s","sample_interval":"1ms"}`)},
			args: []string{"sim", "-scenario", "$D/s.json"}, code: exitUsage,
			want: "want at most 1048576 (harness.MaxPoissonFlows)"},
		{name: "a compare list of 1000 hpcc", files: map[string]func(io.Writer){"s.json": scenarioFile(map[string]any{
			"compare": strings.Split(strings.Repeat("hpcc,", 999)+"hpcc", ","), "workload": map[string]any{"fan_in": map[string]any{"senders": 1}}})},
			args: []string{"sim", "-scenario", "$D/s.json"}, code: exitUsage,
			want: `compare: "hpcc" is listed twice ([0] and [1]): each algorithm runs once`},
		{name: "a host listed twice", files: map[string]func(io.Writer){"s.json": incastFile(map[string]any{"hosts": []string{"h2", "h2"}}, "1ms")},
			args: []string{"sim", "-scenario", "$D/s.json"}, code: exitUsage,
			want: `workload.incast[0].hosts: "h2" is listed twice ([0] and [1])`},

		// Strict JSON.
		{name: "a top-level field twice", files: map[string]func(io.Writer){"s.json": text("{\"name\":\"a\",\n\"name\":\"b\",\"workload\":{\"fan_in\":{\"senders\":1}}}")},
			args: []string{"sim", "-scenario", "$D/s.json"}, code: exitUsage,
			want: `scenario: field "name" given twice (line 1, column 2 and line 2, column 1)`},
		{name: "a nested field twice", files: map[string]func(io.Writer){"s.json": text(`{"topology":{"kind":"star","kind":"dumbbell"},"workload":{"fan_in":{"senders":1}}}`)},
			args: []string{"sim", "-scenario", "$D/s.json"}, code: exitUsage,
			want: `scenario.topology: field "kind" given twice (line 1, column 14 and line 1, column 28)`},
		{name: "a field twice in a list element", files: map[string]func(io.Writer){"s.json": text(`{"workload":{"flows":[{"src":"h1","dst":"h0","src":"h2"}]}}`)},
			args: []string{"sim", "-scenario", "$D/s.json"}, code: exitUsage,
			want: `scenario.workload.flows[0]: field "src" given twice`},
		{name: "a parameter twice", files: map[string]func(io.Writer){"s.json": text(`{"params":{"eta":"0.9","eta":"0.95"},"workload":{"fan_in":{"senders":1}}}`)},
			args: []string{"sim", "-scenario", "$D/s.json"}, code: exitUsage,
			want: `scenario.params: field "eta" given twice`},
		{name: "truncated JSON", files: map[string]func(io.Writer){"s.json": text("{\n  \"workload\": {\n    \"fan_in\": {\"senders\": 1")},
			args: []string{"sim", "-scenario", "$D/s.json"}, code: exitUsage,
			want: "scenario.workload.fan_in: line 3, column 28: unexpected end of the file: the object opened at line 3, column 15 is not closed"},
		{name: "invalid JSON", files: map[string]func(io.Writer){"s.json": text("{\n  \"name\": \"x\",\n  \"duration\": NaN\n}")},
			args: []string{"sim", "-scenario", "$D/s.json"}, code: exitUsage,
			want: "scenario.duration: line 3, column 15: want a value (a string, number, object, list, true, false or null), got 'N'"},
		{name: "a byte order mark", files: map[string]func(io.Writer){"s.json": text("\ufeff{}")},
			args: []string{"sim", "-scenario", "$D/s.json"}, code: exitUsage,
			want: "line 1, column 1: the file starts with a UTF-8 byte order mark"},
		{name: "a NUL byte", files: map[string]func(io.Writer){"s.json": text("{\"name\":\"a\"\x00}")},
			args: []string{"sim", "-scenario", "$D/s.json"}, code: exitUsage,
			want: `line 1, column 12: want ',' or '}' after the value of "name", got '\x00'`},
		{name: "a size as a whole number with an exponent", files: map[string]func(io.Writer){"s.json": text(`{"workload":{"fan_in":{"senders":1e0,"size":1.5e3}}}`)},
			args: []string{"sim", "-scenario", "$D/s.json", "-print-scenario"}, code: exitOK, want: `"size": "1.5KB"`},
		{name: "a fraction where a whole number is wanted", files: map[string]func(io.Writer){"s.json": text(`{"workload":{"fan_in":{"senders":1.5}}}`)},
			args: []string{"sim", "-scenario", "$D/s.json"}, code: exitUsage,
			want: "scenario.workload.fan_in.senders (line 1, column 34): want a whole number, got 1.5"},
		{name: "a time nested past the depth limit", files: map[string]func(io.Writer){"s.json": text(`{"duration":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`)},
			args: []string{"sim", "-scenario", "$D/s.json"}, code: exitUsage,
			want: `scenario.duration (line 1, column 13): want a time such as "10us", got a list`},

		// Zero where it means something, and where it does not.
		{name: "-set link=0", args: []string{"sim", "-scenario", "single-flow", "-set", "link=0"}, code: exitUsage,
			want: `set link=0: "0": a link needs a rate > 0`, not: "missing unit"},
		{name: "-set link=0 on a built-in's own key", args: []string{"sim", "-scenario", "hpcc-incast", "-set", "link=0"}, code: exitUsage,
			want: `set link=0: "0": a link needs a rate > 0`},
		{name: `JSON "link": "0"`, files: map[string]func(io.Writer){"s.json": text(`{"topology":{"kind":"star","link":"0"},"workload":{"fan_in":{"senders":1}}}`)},
			args: []string{"sim", "-scenario", "$D/s.json"}, code: exitUsage,
			want: `scenario.topology.link (line 1, column 35): "0": a link needs a rate > 0; leave the field out for the kind's default`},
		{name: "-set delay=0", args: []string{"sim", "-scenario", "single-flow", "-set", "delay=0"}, code: exitUsage,
			want: `"0": want a time >= 1ps (a delay of 0 would mean the default, 1us)`},
		{name: "-set measure_from=0", args: []string{"sim", "-scenario", "single-flow", "-set", "measure_from=0", "-set", "duration=20us", "-json"}, code: exitOK,
			want: `"scenario": "single-flow"`},
		{name: `JSON "measure_from": "0"`, files: map[string]func(io.Writer){"s.json": text(`{"measure_from":"0","workload":{"fan_in":{"senders":1}}}`)},
			args: []string{"sim", "-scenario", "$D/s.json", "-print-scenario"}, code: exitOK, want: `"duration": "1ms"`},
		{name: "-set duration=13", args: []string{"sim", "-scenario", "single-flow", "-set", "duration=13"}, code: exitUsage,
			want: `set duration=13: units: bad time "13": missing unit`},

		// Messages that name what the user typed.
		{name: "an unknown parameter of a scheme", args: []string{"sim", "-scenario", "hpcc-incast", "-set", "param.cp.eta=0.9"}, code: exitUsage,
			want: "cp.eta = 0.9: want a parameter of hpcc cp, hpcc rp (hwcc algos hpcc)", not: "unknown algorithm or part"},
		{name: "-trace-part naming a part the run lacks", files: map[string]func(io.Writer){"T": text(keepText)},
			args: []string{"sim", "-scenario", "hpcc-incast", "-trace", "$D/T", "-trace-part", "flow:99:rp"}, code: exitUsage,
			want:  "trace part flow:99:rp: no flow 99; this run has flows 0..15 (flow:N:rp, flow:N:np) and switches s0 (ports 0..16) (port:NODE:P, switch:NODE)",
			check: unchanged("T", keepText)},
		{name: "tables -mant 100", args: []string{"tables", "reciprocal", "-mant", "100"}, code: exitUsage,
			want: "-mant 100: want 1..30", not: "ReciprocalConfig"},
		{name: "-set help lists only the keys that apply", args: []string{"sim", "-scenario", "hiercc-burst", "-set", "help"}, code: exitOK,
			check: func(t *testing.T, _ string, stdout string) {
				require.Contains(t, stdout, "\n  core_link: ")
				for _, k := range []string{"senders", "hosts", "load", "cdf"} {
					require.NotContains(t, stdout, "\n  "+k+": ", "hiercc-burst (explicit flows on a clos) refuses %s", k)
				}
			}},
		{name: "compare's -set help", args: []string{"sim", "-scenario", "compare", "-set", "help"}, code: exitOK,
			check: func(t *testing.T, _ string, stdout string) {
				require.Contains(t, stdout, "\n  senders: ")
				require.NotContains(t, stdout, "\n  load: ")
				require.NotContains(t, stdout, "\n  cdf: ")
			}},
		{name: "the description after -set", args: []string{"sim", "-scenario", "compare", "-set", "senders=3", "-set", "size=10KB", "-print-scenario"}, code: exitOK,
			want: "`senders` (3) × `size` (10KB) joining it at `at` (500us)"},
		{name: "-scenario ''", args: []string{"sim", "-scenario", ""}, code: exitUsage,
			want: "-scenario: an empty value (leave the flag out for its default)"},
		{name: "-algo ''", args: []string{"sim", "-scenario", "single-flow", "-algo", ""}, code: exitUsage,
			want: "-algo: an empty value"},

		// Outputs checked before the work, and never left half written.
		{name: "-out under a file", args: []string{"sim", "-scenario", "single-flow", "-out", "/dev/null/out"}, code: exitFail,
			want:  "-out: mkdir /dev/null: not a directory",
			check: func(t *testing.T, _ string, stdout string) { require.Empty(t, stdout, "no table before the error") }},
		{name: "-trace over a file the run refuses", files: map[string]func(io.Writer){"T": text(keepText)},
			args: []string{"sim", "-scenario", "hpcc-incast", "-algo", "none", "-trace", "$D/T", "-trace-part", "flow:0:np"}, code: exitUsage,
			want: "algorithm none runs no notification point", check: unchanged("T", keepText)},
		{name: "-trace in a directory that does not exist", args: []string{"sim", "-scenario", "hpcc-incast", "-trace", "$D/no/T", "-trace-part", "flow:0:rp"}, code: exitFail,
			want: "-trace $D/no/T: cannot create a file in $D/no: no such file or directory"},
		{name: "replay -o where it cannot write, of a trace that would fail later", files: map[string]func(io.Writer){"t": text(goodHeader + "\n" + `{"t":1,"ev":"sen"}` + "\n")},
			args: []string{"replay", "$D/t", "-o", "/dev/null/out"}, code: exitFail,
			want: "-o /dev/null/out: cannot create a file in /dev/null: not a directory", not: "line 2"},
		{name: "replay -o over a file, of a trace that fails", files: map[string]func(io.Writer){"t": text(goodHeader + "\n" + `{"t":1,"ev":"sen"}` + "\n"), "out": text(keepText)},
			args: []string{"replay", "$D/t", "-o", "$D/out"}, code: exitFail,
			want: "line 2: field ev", check: unchanged("out", keepText)},
		{name: "tables -o over a file, with a bad flag", files: map[string]func(io.Writer){"out": text(keepText)},
			args: []string{"tables", "reciprocal", "-mant", "100", "-o", "$D/out"}, code: exitUsage,
			want: "-mant 100", check: unchanged("out", keepText)},

		// Trace headers.
		{name: "a trace header with the algorithm twice", files: map[string]func(io.Writer){"t": text(strings.Replace(goodHeader, `"part"`, `"algorithm":"hpcc","part"`, 1) + "\n")},
			args: []string{"replay", "$D/t"}, code: exitFail, want: "line 1: field algorithm: given twice"},
		{name: "a trace header rate of -1", files: map[string]func(io.Writer){"t": text(strings.Replace(goodHeader, "100000000000", "-1", 1) + "\n")},
			args: []string{"replay", "$D/t"}, code: exitFail, want: "line 1: field env.rate: -1: want > 0"},
		{name: "a trace header rate of 0", files: map[string]func(io.Writer){"t": text(strings.Replace(goodHeader, "100000000000", "0", 1) + "\n")},
			args: []string{"replay", "$D/t"}, code: exitFail, want: "line 1: field env.rate: 0: want > 0"},
		{name: "a trace header of an unknown part", files: map[string]func(io.Writer){"t": text(strings.Replace(goodHeader, `"part":"rp"`, `"part":"xp"`, 1) + "\n")},
			args: []string{"replay", "$D/t"}, code: exitFail, want: "line 1: field part"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, write := range c.files {
				f, err := os.Create(filepath.Join(dir, name))
				require.NoError(t, err)
				write(f)
				require.NoError(t, f.Close())
			}
			args := make([]string, len(c.args))
			for i, a := range c.args {
				args[i] = strings.ReplaceAll(a, "$D", dir)
			}
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			code, stdout, stderr := runArgs(args...)
			runtime.ReadMemStats(&after)
			want := strings.ReplaceAll(c.want, "$D", dir)
			require.Equal(t, c.code, code, "stderr: %s", stderr)
			if c.code == exitOK {
				require.Contains(t, stdout, want)
			} else {
				require.Contains(t, stderr, want)
			}
			if c.not != "" {
				require.NotContains(t, stderr, c.not)
			}
			require.NotContains(t, stderr, "panic")
			alloc := after.TotalAlloc - before.TotalAlloc
			require.LessOrEqual(t, alloc, uint64(hostileAlloc), "allocated %d MB", alloc>>20)
			t.Logf("allocated %.1f MB", float64(alloc)/(1<<20))
			if c.check != nil {
				c.check(t, dir, stdout)
			}
		})
	}
}

// TestTraceReplacedOnSuccess: -trace over an existing file replaces it
// once the run has succeeded, keeping its permissions.
func TestTraceReplacedOnSuccess(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "T")
	require.NoError(t, os.WriteFile(tr, []byte(keepText), 0o640))
	code, _, errOut := runArgs("sim", "-scenario", "dcqcn-incast", "-set", "duration=1.2ms", "-trace", tr, "-trace-part", "flow:0:rp")
	require.Equal(t, exitOK, code, errOut)
	b, err := os.ReadFile(tr)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(b), `{"hwcc_trace":2,`), "the trace replaced the file")
	st, err := os.Stat(tr)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o640), st.Mode().Perm())
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "no temporary file is left")
}
