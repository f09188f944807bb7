package harness

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
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
// algorithm of the list rejects (static takes a rate; test-strict takes
// only ok) is an error naming it.
func TestValidateGivesEachComparedAlgorithmItsParams(t *testing.T) {
	registerStrict()
	sc, err := Builtin("single-flow")
	require.NoError(t, err)
	sc.Compare = []string{"static", "test-strict"}
	sc.Params = map[string]string{"test-strict.ok": "1"}
	require.NoError(t, sc.Validate())
	sc.Params = map[string]string{"rate": "1Gbps"}
	require.ErrorContains(t, sc.Validate(), "params of test-strict")
}

var strictOnce sync.Once

// registerStrict registers test-strict, whose only part takes only the
// parameter "ok" (besides every part's preset).
func registerStrict() {
	strictOnce.Do(func() {
		type strict struct{ OK int }
		cc.MustRegisterAlgorithm(cc.Algorithm{
			Name: "test-strict", Title: "strict", Paper: "none", Doc: "takes one parameter",
			Parts: []cc.PartSpec{{Name: "rp", Role: cc.RoleRP, Doc: "paces nothing", Config: &cc.Spec[strict]{
				Presets: []cc.Preset[strict]{{Name: "only", Config: func(cc.Env) strict { return strict{} }}},
				Fields:  []cc.Field[strict]{{Param: cc.Param{Name: "ok", Doc: "accepted"}, Ptr: func(c *strict) any { return &c.OK }}},
				New:     func(strict) (cc.Part, error) { return idleRP{}, nil },
			}}},
		})
	})
}

// idleRP is a reaction point that limits nothing and takes every event.
type idleRP struct{}

func (idleRP) Sent(units.Time, *cc.Packet, *cc.Actions) error       { return nil }
func (idleRP) Feedback(units.Time, *cc.Feedback, *cc.Actions) error { return nil }
func (idleRP) Limits() cc.Limits                                    { return cc.Limits{} }
func (idleRP) NextDeadline() units.Time                             { return units.MaxTime }
func (idleRP) Timer(units.Time, *cc.Actions) error                  { return nil }
func (idleRP) AppendRegisters(dst []cc.Register) []cc.Register      { return dst }
