package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/harness"
	"github.com/hwcc/hwcc/units"
)

// TestSimDefaultPrintsTheComparison: `hwcc sim` with no arguments runs the
// compare scenario and prints one row per algorithm.
func TestSimDefaultPrintsTheComparison(t *testing.T) {
	code, out, errOut := runArgs("sim", "-set", "duration=1ms", "-set", "at=200us")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, "scenario   compare")
	for _, col := range []string{"algorithm", "queue p50", "queue p99", "queue max", "long flow", "incast done", "Jain", "PFC pauses"} {
		require.Contains(t, out, col)
	}
	for _, algo := range []string{"rocc", "hpcc", "dcqcn", "dctcp", "qcn", "becn", "fecn"} {
		require.Regexp(t, regexp.MustCompile(`(?m)^`+algo+` `), out)
	}
}

func TestSimCompareJSON(t *testing.T) {
	code, out, errOut := runArgs("sim", "-json", "-set", "duration=1ms", "-set", "at=200us")
	require.Equal(t, exitOK, code, errOut)
	var cmp struct {
		Scenario string           `json:"scenario"`
		Rows     []map[string]any `json:"rows"`
		Wall     *float64         `json:"wall_seconds"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &cmp))
	require.Equal(t, "compare", cmp.Scenario)
	require.Len(t, cmp.Rows, 7) // rocc, hpcc, dcqcn, dctcp, qcn, becn, fecn
	require.NotNil(t, cmp.Wall)
	for _, r := range cmp.Rows {
		for _, k := range []string{"algorithm", "bottleneck", "queue_p50_bytes", "queue_p99_bytes", "queue_max_bytes",
			"long_flow_bps", "incast_fct_ns", "jain", "pfc_pauses", "drops"} {
			require.Contains(t, r, k)
		}
	}
}

// jsonReport is the -json report of a single run, with the keys
// docs/scenarios.md documents; fields are pointers or raw so that a missing key is caught.
type jsonReport map[string]json.RawMessage

func simJSON(t *testing.T, args ...string) jsonReport {
	t.Helper()
	code, out, errOut := runArgs(append([]string{"sim", "-json"}, args...)...)
	require.Equal(t, exitOK, code, errOut)
	var r jsonReport
	require.NoError(t, json.Unmarshal([]byte(out), &r))
	return r
}

func TestSimJSONHasEveryKeyAndPhysics(t *testing.T) {
	r := simJSON(t, "-scenario", "line-rate-2to1", "-set", "duration=500us")
	for _, k := range []string{"scenario", "algorithm", "flows", "queues", "links", "pfc", "drops", "fairness", "events", "wall_seconds"} {
		require.Contains(t, r, k)
	}
	var flows []map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(r["flows"], &flows))
	require.Len(t, flows, 2)
	for _, f := range flows {
		for _, k := range []string{"id", "src", "dst", "bytes", "throughput_bps", "fct_ns", "slowdown"} {
			require.Contains(t, f, k)
		}
		require.Equal(t, "null", string(f["fct_ns"]), "long-lived flows have no FCT")
		var bps float64
		require.NoError(t, json.Unmarshal(f["throughput_bps"], &bps))
		// Two line-rate senders into one 100 Gb/s port: C/N each, within
		// 1 % (the harness physics test's tolerance).
		require.InEpsilon(t, 50e9, bps, 0.01)
	}
	var queues []map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(r["queues"], &queues))
	require.NotEmpty(t, queues)
	for _, k := range []string{"node", "port", "mean_bytes", "p50_bytes", "p99_bytes", "max_bytes"} {
		require.Contains(t, queues[0], k)
	}
	var links []map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(r["links"], &links))
	require.Contains(t, links[0], "name")
	require.Contains(t, links[0], "utilization")
	var pfc map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(r["pfc"], &pfc))
	require.Contains(t, pfc, "pauses")
	require.Contains(t, pfc, "paused_ns")
	var fair map[string]float64
	require.NoError(t, json.Unmarshal(r["fairness"], &fair))
	require.GreaterOrEqual(t, fair["jain"], 0.999)

	// A sized flow has an FCT and a slowdown.
	r = simJSON(t, "-scenario", "single-flow", "-set", "size=100KB")
	require.NoError(t, json.Unmarshal(r["flows"], &flows))
	require.NotEqual(t, "null", string(flows[0]["fct_ns"]))
	require.NotEqual(t, "null", string(flows[0]["slowdown"]))
}

func TestSimSameSeedSameJSON(t *testing.T) {
	a := simJSON(t, "-scenario", "line-rate-2to1", "-set", "senders=3", "-set", "duration=300us")
	b := simJSON(t, "-scenario", "line-rate-2to1", "-set", "senders=3", "-set", "duration=300us")
	delete(a, "wall_seconds")
	delete(b, "wall_seconds")
	require.Equal(t, a, b)
}

func TestSimSetSenders(t *testing.T) {
	r := simJSON(t, "-scenario", "line-rate-2to1", "-set", "senders=4", "-set", "duration=300us")
	var flows []any
	require.NoError(t, json.Unmarshal(r["flows"], &flows))
	require.Len(t, flows, 4)
}

func TestSimAlgoFlag(t *testing.T) {
	r := simJSON(t, "-scenario", "line-rate-2to1", "-algo", "static", "-set", "duration=300us")
	require.Equal(t, `"static"`, string(r["algorithm"]))
	// One algorithm of the comparison, with its full report.
	r = simJSON(t, "-algo", "hpcc", "-set", "duration=1ms", "-set", "at=200us")
	require.Equal(t, `"hpcc"`, string(r["algorithm"]))
	require.Equal(t, `"compare"`, string(r["scenario"]))
}

func TestSimUsageErrors(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"name": "x", "duraton": "1ms"}`), 0o644))
	cases := []struct {
		args []string
		says string
	}{
		{[]string{"-scenario", "line-rate-2to1", "-set", "colour=blue"}, "colour"},
		{[]string{"-scenario", "line-rate-2to1", "-set", "senders=many"}, "many"},
		{[]string{"-scenario", "line-rate-2to1", "-set", "link=fast"}, "fast"},
		{[]string{"-scenario", "line-rate-2to1", "-set", "noequals"}, "key=value"},
		{[]string{"-scenario", "no-such-scenario"}, "no-such-scenario"},
		{[]string{"-algo", "no-such-algo"}, "no-such-algo"},
		{[]string{"-scenario", bad}, "duraton"},
		{[]string{"extra-argument"}, "extra-argument"},
	}
	for _, c := range cases {
		code, _, errOut := runArgs(append([]string{"sim"}, c.args...)...)
		require.Equal(t, exitUsage, code, "%v: %s", c.args, errOut)
		require.Contains(t, errOut, c.says, "%v", c.args)
	}
}

func TestSimSetHelpListsKeys(t *testing.T) {
	code, out, _ := runArgs("sim", "-scenario", "line-rate-2to1", "-set", "help")
	require.Equal(t, exitOK, code)
	for _, k := range []string{"senders", "link", "delay", "size", "duration", "pfc", "buffer", "seed", "measure_from", "measure_to"} {
		require.Contains(t, out, k)
	}
}

func TestSimOutWritesCSVAndSVG(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	code, _, errOut := runArgs("sim", "-scenario", "line-rate-2to1", "-set", "duration=200us", "-out", dir)
	require.Equal(t, exitOK, code, errOut)
	for _, name := range []string{queuesCSV, throughputCSV} {
		f, err := os.Open(filepath.Join(dir, name))
		require.NoError(t, err)
		rows, err := csv.NewReader(f).ReadAll()
		f.Close()
		require.NoError(t, err, name)
		require.Greater(t, len(rows), 2, name)
		require.True(t, strings.HasPrefix(rows[0][0], "time_us"), name)
	}
	for _, name := range []string{queuesSVG, throughputSVG} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		require.Contains(t, string(b[:min(len(b), 200)]), "<svg", name)
	}
	// A comparison writes each run's files and the overlays.
	dir = filepath.Join(t.TempDir(), "cmp")
	code, _, errOut = runArgs("sim", "-set", "duration=1ms", "-set", "at=200us", "-out", dir)
	require.Equal(t, exitOK, code, errOut)
	for _, name := range []string{comparisonJSON, compareQueueCSV, compareQueueSVG, compareLongSVG, "hpcc/" + queuesCSV} {
		_, err := os.Stat(filepath.Join(dir, name))
		require.NoError(t, err, name)
	}
}

// TestSimRunsAScenarioFile: the printed scenario of a built-in is a file
// that runs.
func TestSimRunsAScenarioFile(t *testing.T) {
	code, out, errOut := runArgs("sim", "-scenario", "single-flow", "-set", "size=50KB", "-print-scenario")
	require.Equal(t, exitOK, code, errOut)
	path := filepath.Join(t.TempDir(), "s.json")
	require.NoError(t, os.WriteFile(path, []byte(out), 0o644))
	r := simJSON(t, "-scenario", path)
	require.Equal(t, `"single-flow"`, string(r["scenario"]))
}

// TestSimTableSingleRun: the table of one run has every section and
// column, and its numbers are the physics of line-rate-2to1: two senders
// at line rate into one 100 Gb/s port get C/N = 50 Gb/s each and fill the
// port (the harness physics test's 1 % tolerance, which covers the
// frame-granular window boundaries).
func TestSimTableSingleRun(t *testing.T) {
	code, out, errOut := runArgs("sim", "-scenario", "line-rate-2to1", "-set", "duration=400us")
	require.Equal(t, exitOK, code, errOut)
	require.Empty(t, errOut, "no progress or notes on a buffer")
	for _, s := range []string{
		"scenario   line-rate-2to1", "algorithm  none", "duration ", "400.000us simulated",
		"id", "src->dst", "bytes", "throughput", "FCT", "slowdown",
		"port", "link", "mean", "p50", "p99", "max", "utilisation",
		"PFC pauses", "drops", "Jain's index", "events",
	} {
		require.Contains(t, out, s)
	}
	rows := regexp.MustCompile(`(?m)^  (\d+)\s+(h\d+->h0)\s+\S+\s+([0-9.]+) Gb/s\s+-\s+-$`).FindAllStringSubmatch(out, -1)
	require.Len(t, rows, 2, out)
	for _, r := range rows {
		gbps, err := strconv.ParseFloat(r[3], 64)
		require.NoError(t, err)
		require.InEpsilon(t, 100.0/2, gbps, 0.01, r[0])
	}
	util := regexp.MustCompile(`(?m)^  s0->h0\s+([0-9.]+)%$`).FindStringSubmatch(out)
	require.NotNil(t, util, out)
	u, err := strconv.ParseFloat(util[1], 64)
	require.NoError(t, err)
	require.InDelta(t, 100, u, 1, "the bottleneck port is busy all the window")
	require.Regexp(t, `(?m)^  s0:0\s+s0->h0\s`, out, "the bottleneck queue row")
	require.Regexp(t, `(?m)^Jain's index\s+1\.0000 over the 2 flows`, out)
}

// TestSimTableManyFlows: past maxTableRows flows the table summarises them
// and says how many rows it left out; -json still lists every flow.
func TestSimTableManyFlows(t *testing.T) {
	const n = maxTableRows + 8
	args := []string{"-scenario", "line-rate-2to1", "-set", "senders=" + strconv.Itoa(n), "-set", "size=10KB",
		"-set", "duration=200us", "-set", "measure_from=0s"}
	code, out, errOut := runArgs(append([]string{"sim"}, args...)...)
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, fmt.Sprintf("flows: %d\n", n))
	require.Contains(t, out, fmt.Sprintf("(%d per-flow rows omitted, more than %d; -json lists every flow)", n, maxTableRows))
	for _, s := range []string{"throughput", "FCT", "slowdown"} {
		require.Regexp(t, `(?m)^  `+s+`\s+\S+`, out)
	}
	// n × 10 KB = 400 KB drain through one 100 Gb/s port in about 35 µs
	// of wire time: all finish well inside 200 µs.
	require.Regexp(t, fmt.Sprintf(`(?m)^  finished\s+%d of %d, 400.00KB delivered$`, n, n), out)
	require.NotContains(t, out, "h1->h0", "no per-flow rows")
	var flows []any
	require.NoError(t, json.Unmarshal(simJSON(t, args...)["flows"], &flows))
	require.Len(t, flows, n)
}

// TestPercentile: nearest rank, the smallest value with at least p % of
// the values at or below it (values from the definition, by hand).
func TestPercentile(t *testing.T) {
	v := make([]float64, 100)
	for i := range v {
		v[i] = float64(100 - i) // 100..1, unsorted
	}
	require.Equal(t, 50.0, pct(v, 50))
	require.Equal(t, 99.0, pct(v, 99))
	require.Equal(t, 100.0, pct(v, 100))
	require.Equal(t, 1.0, pct(v, 0))
	require.Equal(t, 2.0, pct([]float64{3, 1, 2}, 50), "ceil(1.5) = rank 2")
	require.Equal(t, 3.0, pct([]float64{3, 1, 2}, 99))
	require.Equal(t, 100.0, v[0], "pct leaves its input alone")
}

func TestSimFormats(t *testing.T) {
	require.Equal(t, "0s", fmtTime(0))
	require.Equal(t, "1.500us", fmtTime(1500*units.Nanosecond))
	require.Equal(t, "2.000ms", fmtTime(2*units.Millisecond))
	require.Equal(t, "999ps", fmtTime(999))
	require.Equal(t, "1.08KB", fmtBytes(1082))
	require.Equal(t, "86B", fmtBytes(86))
	require.Equal(t, "32.00MB", fmtBytes(32e6))
	require.Equal(t, "50.000 Gb/s", fmtGbps(50e9))
}

// TestSimSetErrorsNameKeyValueAndForms: a bad -set names the key, the
// value and what is accepted, and exits 2.
func TestSimSetErrorsNameKeyValueAndForms(t *testing.T) {
	cases := []struct {
		set  string
		says []string
	}{
		{"senders=many", []string{"senders", "many", "1..4095"}},
		{"pfc=maybe", []string{"pfc", "maybe", "on or off"}},
		{"delay=5", []string{"delay", `"5"`, "missing unit", "us"}},
		{"link=fast", []string{"link", "fast", "Gbps"}},
		{"buffer=-1MB", []string{"buffer", "-1MB", "negative"}},
		{"colour=blue", []string{"colour", "unknown key", "valid:", "senders", "measure_from"}},
	}
	for _, c := range cases {
		code, out, errOut := runArgs("sim", "-scenario", "line-rate-2to1", "-set", c.set)
		require.Equal(t, exitUsage, code, c.set)
		require.Empty(t, out, c.set)
		for _, s := range c.says {
			require.Contains(t, errOut, s, c.set)
		}
	}
	// A value Set accepts but Validate refuses: named with its range.
	code, _, errOut := runArgs("sim", "-scenario", "line-rate-2to1", "-set", "duration=50us")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "measure_from = 100us")
}

func TestSimUnknownNamesListTheKnownOnes(t *testing.T) {
	code, _, errOut := runArgs("sim", "-scenario", "no-such")
	require.Equal(t, exitUsage, code)
	for _, name := range harness.BuiltinNames() {
		require.Contains(t, errOut, name)
	}
	code, _, errOut = runArgs("sim", "-scenario", "line-rate-2to1", "-algo", "no-such")
	require.Equal(t, exitUsage, code)
	for _, name := range cc.Names() {
		require.Contains(t, errOut, name)
	}
	// A directory and a file of the wrong shape.
	code, _, errOut = runArgs("sim", "-scenario", t.TempDir())
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "directory")
	bad := filepath.Join(t.TempDir(), "trunc.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"name": "x", "duration": "1ms"`), 0o644))
	code, _, errOut = runArgs("sim", "-scenario", bad)
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "trunc.json")
}

// TestSimHelp: -h lists the flags, every built-in and every algorithm, and
// the -set keys of the scenario named before it.
func TestSimHelp(t *testing.T) {
	code, out, _ := runArgs("sim", "-h")
	require.Equal(t, exitOK, code)
	require.Contains(t, out, "usage: hwcc sim")
	for _, f := range []string{"-scenario", "-algo", "-set", "-json", "-out"} {
		require.Contains(t, out, f)
	}
	for _, name := range append(harness.BuiltinNames(), cc.Names()...) {
		require.Contains(t, out, name)
	}
	code, out, _ = runArgs("sim", "-scenario", "single-flow", "-help")
	require.Equal(t, exitOK, code)
	require.Contains(t, out, "-set keys of scenario single-flow")
	require.Contains(t, out, "  size: ")
	code, _, errOut := runArgs("sim", "-nosuchflag")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "nosuchflag")
}

// TestSimOutCSVRows: every CSV row parses, and the files hold one row per
// series and sample: 200 µs at the default 10 µs interval is 20 samples;
// line-rate-2to1's star has 3 switch egress ports and 2 flows.
func TestSimOutCSVRows(t *testing.T) {
	dir := t.TempDir()
	code, _, errOut := runArgs("sim", "-scenario", "line-rate-2to1", "-set", "duration=200us", "-out", dir)
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, errOut, filepath.Join(dir, queuesCSV), "says what it wrote")
	read := func(name string) [][]string {
		f, err := os.Open(filepath.Join(dir, name))
		require.NoError(t, err)
		defer f.Close()
		rows, err := csv.NewReader(f).ReadAll()
		require.NoError(t, err)
		return rows
	}
	const samples = 20
	q := read(queuesCSV)
	require.Equal(t, strings.Split(queuesHeader, ","), q[0])
	require.Len(t, q, 1+3*samples)
	for _, r := range q[1:] {
		us, err := strconv.ParseFloat(r[0], 64)
		require.NoError(t, err, r)
		require.Greater(t, us, 0.0)
		require.LessOrEqual(t, us, 200.0)
		_, err = strconv.Atoi(r[2])
		require.NoError(t, err, r)
		b, err := strconv.ParseInt(r[4], 10, 64)
		require.NoError(t, err, r)
		require.GreaterOrEqual(t, b, int64(0))
	}
	th := read(throughputCSV)
	require.Equal(t, strings.Split(throughputHead, ","), th[0])
	require.Len(t, th, 1+2*samples)
	for _, r := range th[1:] {
		_, err := strconv.ParseFloat(r[0], 64)
		require.NoError(t, err, r)
		g, err := strconv.ParseFloat(r[4], 64)
		require.NoError(t, err, r)
		// A sender's wire rate never exceeds its 100 Gb/s link (+1 % for a
		// frame that straddles a sample boundary).
		require.True(t, g >= 0 && g <= 101, "%v", r)
	}
	for _, name := range []string{queuesSVG, throughputSVG} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		require.True(t, bytes.HasPrefix(b, []byte("<?xml")) || bytes.HasPrefix(b, []byte("<svg")), name)
	}
}

// TestSimOutScenarioReruns: DIR/scenario.json is the scenario as run, -set
// included: running it again with -out gives DIR/report.json again (wall
// time aside).
func TestSimOutScenarioReruns(t *testing.T) {
	dir, again := t.TempDir(), t.TempDir()
	code, _, errOut := runArgs("sim", "-scenario", "line-rate-2to1", "-set", "senders=3", "-set", "duration=200us", "-out", dir)
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = runArgs("sim", "-scenario", filepath.Join(dir, scenarioJSON), "-out", again)
	require.Equal(t, exitOK, code, errOut)
	read := func(d string) jsonReport {
		data, err := os.ReadFile(filepath.Join(d, reportJSON))
		require.NoError(t, err)
		var r jsonReport
		require.NoError(t, json.Unmarshal(data, &r))
		delete(r, "wall_seconds")
		return r
	}
	require.Equal(t, read(dir), read(again))
}

// TestSimReportSameWithAndWithoutOut: keeping the time series (-out) does
// not change the report, events included: samples are not network events.
func TestSimReportSameWithAndWithoutOut(t *testing.T) {
	args := []string{"-scenario", "line-rate-2to1", "-set", "duration=200us"}
	plain := simJSON(t, args...)
	withSeries := simJSON(t, append(args, "-out", t.TempDir())...)
	for _, r := range []jsonReport{plain, withSeries} {
		delete(r, "wall_seconds")
	}
	require.Equal(t, plain, withSeries)
}

// TestSimExampleFilesThroughTheCommand: every file of examples/scenarios
// loads through -scenario (strict decode, validation, -set of the short
// run); a non-comparison one runs and gives the same report as its
// built-in twin.
func TestSimExampleFilesThroughTheCommand(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "examples", "scenarios", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		code, _, errOut := runArgs("sim", "-scenario", f, "-set", "duration=200us", "-set", "measure_from=0s",
			"-set", "measure_to=0s", "-print-scenario")
		require.Equal(t, exitOK, code, "%s: %s", f, errOut)
	}
	short := []string{"-set", "duration=300us"}
	fromFile := simJSON(t, append([]string{"-scenario", filepath.Join("..", "..", "examples", "scenarios", "line-rate-2to1.json")}, short...)...)
	builtin := simJSON(t, append([]string{"-scenario", "line-rate-2to1"}, short...)...)
	delete(fromFile, "wall_seconds")
	delete(builtin, "wall_seconds")
	require.Equal(t, builtin, fromFile)
}

// FuzzSimArgs: no argument list makes the command panic, and every one
// ends in 0 (help, a printed scenario) or 2 (a usage error). Each input is
// a space-separated argument list; -print-scenario is appended so nothing
// is simulated, and arguments that could undo it or reach outside the
// working directory are skipped.
func FuzzSimArgs(f *testing.F) {
	for _, seed := range []string{
		"", // the default scenario
		"-scenario line-rate-2to1 -set senders=4", // a valid override
		"-scenario single-flow -set size=-1",      // a negative size
		"-set senders=0 -set link=0G",             // out of range
		"-set help",                               // the key list
		"-algo none -set param.x=1",               // params for a baseline
		"-set =",                                  // empty key
		"-scenario . -json",                       // a directory
		"-h",                                      // usage
		"-set duration=1e9s -set seed=99999999999999999999", // overflow
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		args := strings.Fields(in)
		for _, a := range args {
			if strings.Contains(a, "print-scenario") || strings.ContainsAny(a, `/\`) || strings.Contains(a, "..") {
				t.Skip()
			}
		}
		var o, e bytes.Buffer
		code := runSim(append(args, "-print-scenario"), &o, &e)
		require.Contains(t, []int{exitOK, exitUsage}, code, "%q: %s", args, e.String())
	})
}
