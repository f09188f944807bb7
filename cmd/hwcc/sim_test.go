package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
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
	for _, algo := range []string{"rocc", "hpcc", "dcqcn", "dctcp"} {
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
	require.Len(t, cmp.Rows, 4)
	require.NotNil(t, cmp.Wall)
	for _, r := range cmp.Rows {
		for _, k := range []string{"algorithm", "bottleneck", "queue_p50_bytes", "queue_p99_bytes", "queue_max_bytes",
			"long_flow_bps", "incast_fct_ns", "jain", "pfc_pauses", "drops"} {
			require.Contains(t, r, k)
		}
	}
}

// jsonReport is the -json report of a single run, with the keys the issue
// requires; fields are pointers or raw so that a missing key is caught.
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
