package harness

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/units"
)

func TestForAlgorithmRoutesParams(t *testing.T) {
	sc := DefaultScenario()
	sc.Params = map[string]string{"none.x": "1", "static.y": "2", "z": "3", "nosuchalgo.w": "4"}
	sc.Compare = []string{"none", "static"}
	got := sc.ForAlgorithm("none")
	// "none.x" is for none; "static.y" is for static only; "z" has no
	// algorithm prefix and "nosuchalgo" is not registered, so both go to all.
	require.Equal(t, map[string]string{"x": "1", "z": "3", "nosuchalgo.w": "4"}, got.Params)
	require.Equal(t, "none", got.Algorithm)
	require.Empty(t, got.Compare)
	// The original is untouched.
	require.Len(t, sc.Params, 4)
	require.Equal(t, []string{"none", "static"}, sc.Compare)
}

func TestCompareRowsFromPhysics(t *testing.T) {
	sc, err := Builtin("line-rate-2to1")
	require.NoError(t, err)
	require.NoError(t, sc.SetAll([]string{"duration=500us"}))
	cmp, results, err := Compare(sc, []string{"none", "static"}, Options{NoSeries: true})
	require.NoError(t, err)
	require.Len(t, results, 2)
	require.Len(t, cmp.Rows, 2)
	for i, row := range cmp.Rows {
		require.Equal(t, []string{"none", "static"}[i], row.Algorithm)
		// Two line-rate senders share the 100 Gb/s port to h0: C/2 each
		// within 1 % (the physics test's tolerance), and the queue of that
		// port is the run's bottleneck.
		require.InEpsilon(t, 50e9, row.LongFlowBps, 0.01, row.Algorithm)
		require.Nil(t, row.IncastFCTNs, "no sized flows")
		require.Equal(t, results[i].Report.Events, row.Events)
		var maxMean float64
		for _, q := range results[i].Report.Queues {
			maxMean = max(maxMean, q.MeanBytes)
		}
		require.Positive(t, maxMean)
		require.Contains(t, row.Bottleneck, ":")
	}
	_, _, err = Compare(sc, []string{"none", "no-such-algorithm"}, Options{})
	require.ErrorContains(t, err, "no-such-algorithm")
	_, _, err = Compare(sc, nil, Options{})
	require.ErrorContains(t, err, "no algorithms")
}

func TestCompareIncastFCT(t *testing.T) {
	// One sized flow alone: the "incast" completion time is that flow's FCT,
	// which the physics tests pin to the store-and-forward ideal.
	sc, err := Builtin("single-flow")
	require.NoError(t, err)
	cmp, results, err := Compare(sc, []string{"none"}, Options{NoSeries: true})
	require.NoError(t, err)
	fct := results[0].Report.Flows[0].FCTNs
	require.NotNil(t, fct)
	require.NotNil(t, cmp.Rows[0].IncastFCTNs)
	require.Equal(t, *fct, *cmp.Rows[0].IncastFCTNs)
	require.Greater(t, *fct, int64(units.SerializationTime(units.MB, 100*units.Gbps)/units.Nanosecond))
}

func TestValidateRejectsUnknownCompareAlgorithm(t *testing.T) {
	sc, err := Builtin("single-flow")
	require.NoError(t, err)
	sc.Compare = []string{"none", "nope"}
	require.ErrorContains(t, sc.Validate(), "nope")
}

// TestValidateGivesEachComparedAlgorithmItsParams: a key prefixed with an
// algorithm's name is checked by that algorithm only, and a key that one
// algorithm of the list rejects is an error naming it.
func TestValidateGivesEachComparedAlgorithmItsParams(t *testing.T) {
	sc, err := Builtin("single-flow")
	require.NoError(t, err)
	sc.Compare = []string{"none", "test-strict"}
	sc.Params = map[string]string{"test-strict.ok": "1"}
	require.NoError(t, sc.Validate())
	sc.Params = map[string]string{"bad": "1"}
	require.ErrorContains(t, sc.Validate(), "params of test-strict")
}

// testStrict accepts only the parameter "ok".
type testStrict struct{ Algorithm }

func (testStrict) Name() string { return "test-strict" }
func (testStrict) CheckParams(p map[string]string) error {
	for k := range p {
		if k != "ok" {
			return fmt.Errorf("unknown parameter %s", k)
		}
	}
	return nil
}

func init() {
	none, err := Lookup("none")
	if err != nil {
		panic(err)
	}
	MustRegister(testStrict{none})
}
