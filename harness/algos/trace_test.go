package algos

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/harness"
	"github.com/hwcc/hwcc/trace"
)

// TestTraceReplaysTheRun: for every part every registered scheme runs in
// the harness, a trace recorded from a run replays, through a fresh part,
// to exactly the outputs the run's own part had after each event (its
// decisions, every register, its deadline and limits: harness
// TraceTarget.Out records them as they happened). So the recorder misses
// no event and no field, and a replay is the run, event for event. Under
// -short only the cases marked quick run, one or two of each role.
func TestTraceReplaysTheRun(t *testing.T) {
	short := []string{"duration", "300us", "measure_from", "0s"}
	cases := []struct {
		scenario, algo, which string
		set                   []string
		quick                 bool // runs under -short too
	}{
		{compareName, "rocc", "port:s0:0", nil, false},
		{compareName, "rocc", "flow:0:rp", nil, false},
		{compareName, "hpcc", "port:s0:0", nil, false},
		{compareName, "hpcc", "flow:0:rp", nil, false},
		{dcqcnIncastName, "dcqcn", "port:s0:0", []string{"duration", "1.3ms"}, false},
		{dcqcnIncastName, "dcqcn", "flow:2:np", []string{"duration", "1.3ms"}, true},
		{dcqcnIncastName, "dcqcn", "flow:2:rp", []string{"duration", "1.3ms"}, true},
		{compareName, "dctcp", "port:s0:0", nil, false},
		{compareName, "dctcp", "flow:0:rp", nil, false},
		{expressPassIncastName, expressPassName, "flow:3:np", nil, true},
		{expressPassIncastName, expressPassName, "flow:3:rp", nil, true},
		{hierccBurstName, hierccName, "switch:tor2", []string{"duration", "150us"}, false},
		{hierccBurstName, hierccName, "switch:tor0", []string{"duration", "150us"}, true},
		{hierccBurstName, hierccName, "flow:0:rp", []string{"duration", "150us"}, false},
		{mercuryBurstName, mercuryName, "switch:s0", []string{"duration", "620us"}, false},
		{mercuryBurstName, mercuryName, "flow:0:rp", []string{"duration", "800us"}, false},
		{compareName, qcnName, "port:s0:0", nil, false},
		{compareName, qcnName, "flow:0:rp", nil, false},
		{afqcnWeightedName, afqcnName, "port:s0:0", nil, true},
		{becnIncastName, becnName, "port:s0:0", []string{"duration", "1.3ms"}, false},
		{becnIncastName, becnName, "flow:3:rp", []string{"duration", "1.3ms"}, false},
		{becnIncastName, fecnName, "port:s0:0", []string{"duration", "1.3ms"}, false},
		{becnIncastName, fecnName, "flow:3:np", []string{"duration", "1.3ms"}, false},
		{becnIncastName, fecnName, "flow:3:rp", []string{"duration", "1.3ms"}, false},
		{timelyFairnessName, timelyName, "flow:1:rp", nil, false},
	}
	for _, c := range cases {
		t.Run(c.algo+"/"+c.which, func(t *testing.T) {
			if testing.Short() && !c.quick {
				t.Skip("-short runs one or two parts of each role")
			}
			sc, err := harness.Builtin(c.scenario)
			require.NoError(t, err)
			sc = sc.ForAlgorithm(c.algo)
			set := c.set
			if set == nil {
				set = short
			}
			for i := 0; i+1 < len(set); i += 2 {
				require.NoError(t, sc.Set(set[i], set[i+1]))
			}
			var tr, live, replayed bytes.Buffer
			tt := &harness.TraceTarget{Which: c.which, W: &tr, Out: &live}
			_, err = harness.Run(sc, harness.Options{NoSeries: true, Trace: tt})
			require.NoError(t, err)
			require.NoError(t, tt.Err())
			require.Positive(t, bytes.Count(tr.Bytes(), []byte("\n")), "events recorded")
			require.NoError(t, trace.Replay(bytes.NewReader(tr.Bytes()), &replayed))
			m, err := trace.Diff(bytes.NewReader(replayed.Bytes()), bytes.NewReader(live.Bytes()))
			require.NoError(t, err)
			require.Nil(t, m, "the replay differs from the run")
		})
	}
}
