package algos

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/harness"
	"github.com/hwcc/hwcc/units"
)

// roccScenarioNames are the built-ins of rocc_scenarios.go.
var roccScenarioNames = []string{roccFairnessName, roccConvergenceName, roccMultiName, roccAsymName, roccMaxMinName}

// TestRoCCScenarioFiles: every built-in has examples/scenarios/NAME.json,
// which decodes strictly to the same scenario.
func TestRoCCScenarioFiles(t *testing.T) {
	for _, name := range roccScenarioNames {
		b, err := harness.Builtin(name)
		require.NoError(t, err)
		require.NoError(t, b.Validate())
		f, err := os.Open(filepath.Join("..", "..", "examples", "scenarios", name+".json"))
		require.NoError(t, err)
		d, err := harness.DecodeScenario(f)
		require.NoError(t, f.Close())
		require.NoError(t, err, name)
		want, err := json.Marshal(b)
		require.NoError(t, err)
		got, err := json.Marshal(d)
		require.NoError(t, err)
		require.JSONEq(t, string(want), string(got), name)
		require.Equal(t, "rocc", d.Algorithm)
		require.Empty(t, d.Params, "built-ins set no parameters, so -algo none etc. run them unchanged")
	}
}

// TestRoCCScenariosRunUnderEveryBaseline: each scenario runs, shortened, under
// rocc and the baselines (the command's -algo).
func TestRoCCScenariosRunUnderEveryBaseline(t *testing.T) {
	for _, name := range roccScenarioNames {
		for _, algo := range []string{"rocc", "none", "static"} {
			sc, err := harness.Builtin(name)
			require.NoError(t, err)
			sc.Algorithm = algo
			require.NoError(t, sc.SetAll([]string{"measure_from=0s", "duration=500us"}))
			res, err := harness.Run(sc, harness.Options{NoSeries: true})
			require.NoError(t, err, "%s under %s", name, algo)
			require.Equal(t, algo, res.Report.Algorithm)
			require.Positive(t, res.Counters.DataRecvPackets, "%s under %s", name, algo)
			if algo == "rocc" {
				require.Positive(t, res.Counters.FeedbackSent, name)
			} else {
				require.Zero(t, res.Counters.FeedbackSent, name)
			}
		}
	}
}

func TestRoCCFairnessKeys(t *testing.T) {
	sc, err := harness.Builtin(roccFairnessName)
	require.NoError(t, err)
	require.Equal(t, 10, sc.Workload.FanIn.Senders)
	require.Equal(t, harness.Rate(36*units.Gbps), sc.Workload.FanIn.Rate)
	require.Equal(t, harness.Bytes(500*units.KB), sc.Switch.Xoff)
	require.NoError(t, sc.SetAll([]string{"senders=100", "link=100Gbps", "offered_load=0.5"}))
	require.Equal(t, 100, sc.Workload.FanIn.Senders)
	require.Equal(t, harness.Rate(100*units.Gbps), sc.Topology.Link)
	require.Equal(t, harness.Rate(50*units.Gbps), sc.Workload.FanIn.Rate)
	require.Equal(t, harness.Bytes(800*units.KB), sc.Switch.Xoff, "the paper's 100 Gb/s PFC threshold")
	require.NoError(t, sc.Validate())
	for _, kv := range [][2]string{{"link", "0"}, {"link", "fast"}, {"offered_load", "0"}, {"offered_load", "1.5"}} {
		require.Error(t, sc.Set(kv[0], kv[1]), "%s=%s", kv[0], kv[1])
	}
	require.Contains(t, sc.Keys(), "offered_load")
}

func TestRoCCConvergenceKeys(t *testing.T) {
	sc, err := harness.Builtin(roccConvergenceName)
	require.NoError(t, err)
	require.Len(t, sc.Workload.Flows, 100)
	require.Equal(t, harness.Time(110*units.Millisecond), sc.Duration)
	// A short staircase: 2 → 8 flows in 2 steps of 1 ms: 2, 4, 8, 4, 2.
	require.NoError(t, sc.SetAll([]string{"start_flows=2", "max_flows=8", "steps=2", "step=1ms", "link=10Gbps"}))
	require.Equal(t, harness.Time(5*units.Millisecond), sc.Duration)
	require.Len(t, sc.Workload.Flows, 8)
	type span struct{ start, stop units.Time }
	ms := units.Millisecond
	want := []span{{0, 0}, {0, 0}, {ms, 4 * ms}, {ms, 4 * ms}, {2 * ms, 3 * ms}, {2 * ms, 3 * ms}, {2 * ms, 3 * ms}, {2 * ms, 3 * ms}}
	for i, f := range sc.Workload.Flows {
		require.Equal(t, want[i], span{units.Time(f.Start), units.Time(f.Stop)}, "flow %d", i)
		require.Equal(t, harness.Rate(9*units.Gbps), f.Rate)
		require.Equal(t, "h0", f.Dst)
	}
	require.NoError(t, sc.Validate())
	res, err := harness.Run(sc, harness.Options{NoSeries: true})
	require.NoError(t, err)
	require.Len(t, res.Flows, 8)
	// Settings that cannot make a staircase are refused and change nothing.
	require.ErrorContains(t, sc.Set("max_flows", "3"), "max_flows = 3")
	require.ErrorContains(t, sc.Set("steps", "64"), "max_flows = 8")
	require.ErrorContains(t, sc.Set("step", "30s"), "want at most 100s")
	require.Error(t, sc.Set("step", "0s"))
	require.Error(t, sc.Set("start_flows", "0"))
	require.Len(t, sc.Workload.Flows, 8)
	require.Equal(t, harness.Time(5*units.Millisecond), sc.Duration)
}

func TestRoCCMultiAndAsymKeys(t *testing.T) {
	sc, err := harness.Builtin(roccMultiName)
	require.NoError(t, err)
	require.Len(t, sc.Workload.Flows, 6)
	require.NoError(t, sc.SetAll([]string{"link=25Gbps", "core_link=100Gbps", "offered_load=1"}))
	for _, f := range sc.Workload.Flows {
		require.Equal(t, harness.Rate(25*units.Gbps), f.Rate)
	}
	require.Equal(t, harness.Rate(100*units.Gbps), sc.Topology.CoreLink)
	require.Equal(t, harness.Bytes(800*units.KB), sc.Switch.Xoff)

	sc, err = harness.Builtin(roccAsymName)
	require.NoError(t, err)
	require.NoError(t, sc.SetAll([]string{"link=10Gbps", "core_link=40Gbps", "offered_load=0.5"}))
	for i, f := range sc.Workload.Flows {
		want := 5 * units.Gbps
		if i >= 5 {
			want = 20 * units.Gbps
		}
		require.Equal(t, harness.Rate(want), f.Rate, "flow %d", i)
		require.Equal(t, "B0", f.Dst)
	}
	require.Equal(t, harness.Bytes(500*units.KB), sc.Switch.Xoff)
	require.NoError(t, sc.Validate())
}

func TestRoCCMaxMinKeys(t *testing.T) {
	sc, err := harness.Builtin(roccMaxMinName)
	require.NoError(t, err)
	require.NoError(t, sc.SetAll([]string{"link=40Gbps", "offered=40Gbps, 30Gbps,10Gbps,5Gbps"}))
	require.Len(t, sc.Workload.Flows, 4)
	for i, r := range []units.Rate{40 * units.Gbps, 30 * units.Gbps, 10 * units.Gbps, 5 * units.Gbps} {
		require.Equal(t, harness.Rate(r), sc.Workload.Flows[i].Rate)
	}
	require.NoError(t, sc.Validate())
	for _, v := range []string{"", "1Gbps,,2Gbps", "0Gbps", "-1Gbps", "ten"} {
		require.Error(t, sc.Set("offered", v), "offered=%q", v)
	}
	require.Len(t, sc.Workload.Flows, 4, "a refused value changes nothing")
}

// FuzzRoCCOfferedList: the offered-rates parser never panics and returns
// either an error or positive rates.
func FuzzRoCCOfferedList(f *testing.F) {
	f.Add("10Gbps,3Gbps,1Gbps") // the default
	f.Add(" 40G , 30G,10G")     // spaces, short units
	f.Add("1Gbps,,")            // empty elements
	f.Add("-5Gbps")             // negative
	f.Fuzz(func(t *testing.T, v string) {
		var rates []units.Rate
		if err := roccParseRates(&rates)(v); err != nil {
			return
		}
		require.NotEmpty(t, rates)
		for _, r := range rates {
			require.Positive(t, r)
		}
	})
}

// TestRoCCDeterministic: the same scenario and seed give the same report.
func TestRoCCDeterministic(t *testing.T) {
	run := func() harness.Report {
		sc, err := harness.Builtin(roccMultiName)
		require.NoError(t, err)
		require.NoError(t, sc.Set("duration", "14ms"))
		res, err := harness.Run(sc, harness.Options{})
		require.NoError(t, err)
		return res.Report
	}
	require.Equal(t, run(), run())
}
