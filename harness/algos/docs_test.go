package algos

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/harness"
)

// docsScenarioDir holds the JSON twin of every built-in scenario, and
// docsScenarioDoc is the user's reference for them (paths from this
// package's directory).
var (
	docsScenarioDir = filepath.Join("..", "..", "examples", "scenarios")
	docsScenarioDoc = filepath.Join("..", "..", "docs", "scenarios.md")
)

// docsShortRun are the -set overrides that shorten a scenario for a smoke
// run: 200 µs simulated (a few thousand frames per link at 100 Gb/s) and
// the whole run measured, so that Validate's measure_from < measure_to <=
// duration holds whatever window the scenario had.
var docsShortRun = []string{"duration=200us", "measure_from=0s", "measure_to=0s"}

// docsDecodeFile decodes examples/scenarios/NAME.json strictly.
func docsDecodeFile(name string) (*harness.Scenario, error) {
	data, err := os.ReadFile(filepath.Join(docsScenarioDir, name+".json"))
	if err != nil {
		return nil, err
	}
	return harness.DecodeScenario(bytes.NewReader(data))
}

// TestScenarioFilesMatchBuiltins: every built-in has examples/scenarios/
// NAME.json, which decodes strictly (harness.DecodeScenario: unknown fields
// and bad units are errors) into the same scenario as the built-in: both
// marshal to the same JSON. The expected value is the built-in itself, an
// independent source from the hand-written file. Every mismatch is listed,
// not just the first.
func TestScenarioFilesMatchBuiltins(t *testing.T) {
	names := harness.BuiltinNames()
	require.NotEmpty(t, names)
	var mismatches []string
	for _, name := range names {
		b, err := harness.Builtin(name)
		require.NoError(t, err)
		require.NoError(t, b.Validate(), name)
		d, err := docsDecodeFile(name)
		if err != nil {
			mismatches = append(mismatches, fmt.Sprintf("%s: %v", name, err))
			continue
		}
		want, err := json.Marshal(b)
		require.NoError(t, err)
		got, err := json.Marshal(d)
		require.NoError(t, err)
		if !bytes.Equal(want, got) {
			mismatches = append(mismatches, fmt.Sprintf("%s: file decodes to\n  %s\nbuilt-in is\n  %s", name, got, want))
		}
	}
	require.Empty(t, mismatches, "examples/scenarios differs from the built-ins:\n%s", strings.Join(mismatches, "\n"))
}

// TestScenarioFilesRun: every example file runs, shortened to 200 µs,
// under its own algorithm (a comparison under each of its Compare list),
// and delivers data: every built-in has a flow that starts at t = 0 over
// 1 µs links, so a 200 µs run that delivers nothing is broken.
func TestScenarioFilesRun(t *testing.T) {
	for _, name := range harness.BuiltinNames() {
		t.Run(name, func(t *testing.T) {
			sc, err := docsDecodeFile(name)
			require.NoError(t, err)
			require.NoError(t, sc.SetAll(docsShortRun))
			require.NoError(t, sc.Validate())
			opts := harness.Options{NoSeries: true}
			if len(sc.Compare) > 0 {
				cmp, results, err := harness.Compare(sc, nil, opts)
				require.NoError(t, err)
				require.Equal(t, name, cmp.Scenario)
				require.Len(t, cmp.Rows, len(sc.Compare))
				require.Len(t, results, len(sc.Compare))
				for i, algo := range sc.Compare {
					require.Equal(t, algo, cmp.Rows[i].Algorithm)
					require.Positive(t, results[i].Counters.DataRecvPackets, "%s under %s", name, algo)
				}
				return
			}
			res, err := harness.Run(sc, opts)
			require.NoError(t, err)
			require.Equal(t, name, res.Report.Scenario)
			require.Equal(t, sc.Algorithm, res.Report.Algorithm)
			require.Positive(t, res.Counters.DataRecvPackets)
		})
	}
}

// TestScenarioDocMentionsEverything: docs/scenarios.md names every
// built-in scenario and every registered algorithm (every one runs in the
// harness; this package's tests register none of their own), in backticks (so that "hpcc-incast" is not found inside
// "hpcc-incast-into-long", nor "none" in prose).
func TestScenarioDocMentionsEverything(t *testing.T) {
	data, err := os.ReadFile(docsScenarioDoc)
	require.NoError(t, err)
	doc := string(data)
	var missing []string
	for _, name := range append(harness.BuiltinNames(), cc.Names()...) {
		if !strings.Contains(doc, "`"+name+"`") {
			missing = append(missing, name)
		}
	}
	require.Empty(t, missing, "docs/scenarios.md does not mention these built-ins or algorithms")
}
