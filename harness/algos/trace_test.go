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
// no event and no field, and a replay is the run, event for event.
func TestTraceReplaysTheRun(t *testing.T) {
	short := []string{"duration", "300us", "measure_from", "0s"}
	cases := []struct {
		scenario, algo, which string
		set                   []string
	}{
		{compareName, "rocc", "port:s0:0", nil},
		{compareName, "rocc", "flow:0:rp", nil},
		{compareName, "hpcc", "port:s0:0", nil},
		{compareName, "hpcc", "flow:0:rp", nil},
		{dcqcnIncastName, "dcqcn", "port:s0:0", []string{"duration", "1.3ms"}},
		{dcqcnIncastName, "dcqcn", "flow:2:np", []string{"duration", "1.3ms"}},
		{dcqcnIncastName, "dcqcn", "flow:2:rp", []string{"duration", "1.3ms"}},
		{compareName, "dctcp", "port:s0:0", nil},
		{compareName, "dctcp", "flow:0:rp", nil},
		{expressPassIncastName, expressPassName, "flow:3:np", nil},
		{expressPassIncastName, expressPassName, "flow:3:rp", nil},
		{hierccBurstName, hierccName, "switch:tor2", []string{"duration", "150us"}},
		{hierccBurstName, hierccName, "switch:tor0", []string{"duration", "150us"}},
		{hierccBurstName, hierccName, "flow:0:rp", []string{"duration", "150us"}},
		{mercuryBurstName, mercuryName, "switch:s0", []string{"duration", "620us"}},
		{mercuryBurstName, mercuryName, "flow:0:rp", []string{"duration", "800us"}},
		{compareName, qcnName, "port:s0:0", nil},
		{compareName, qcnName, "flow:0:rp", nil},
		{afqcnWeightedName, afqcnName, "port:s0:0", nil},
		{becnIncastName, becnName, "port:s0:0", []string{"duration", "1.3ms"}},
		{becnIncastName, becnName, "flow:3:rp", []string{"duration", "1.3ms"}},
		{becnIncastName, fecnName, "port:s0:0", []string{"duration", "1.3ms"}},
		{becnIncastName, fecnName, "flow:3:np", []string{"duration", "1.3ms"}},
		{becnIncastName, fecnName, "flow:3:rp", []string{"duration", "1.3ms"}},
		{timelyFairnessName, timelyName, "flow:1:rp", nil},
	}
	for _, c := range cases {
		t.Run(c.algo+"/"+c.which, func(t *testing.T) {
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
