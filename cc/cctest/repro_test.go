package cctest_test

import (
	"bytes"
	"errors"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cc/cctest"
	"github.com/hwcc/hwcc/trace"
)

// toyCfg configures a registered toy: the deliberate breach it makes.
type toyCfg struct{ Fault int64 }

// The toy congestion point registered, so that a failing sequence can be
// written as a trace that package trace rebuilds the part from.
func init() {
	cc.MustRegisterAlgorithm(cc.Algorithm{
		Name: "zz-cctest-toy", Title: "toy", Paper: "none: cctest's own test part", Doc: "the toy parts of cctest's tests",
		Parts: []cc.PartSpec{{
			Name: "cp", Role: cc.RoleCP, Doc: "the toy congestion point",
			Config: &cc.Spec[toyCfg]{
				Presets: []cc.Preset[toyCfg]{{Name: "ok", Doc: "no breach", Source: "test", Config: cc.Fixed(func() toyCfg { return toyCfg{} })}},
				Fields: []cc.Field[toyCfg]{{
					Param: cc.Param{Name: "fault", Min: "0", Max: "63", Doc: "the breach it makes", Source: "test"},
					Ptr:   func(c *toyCfg) any { return &c.Fault },
				}},
				New: func(c toyCfg) (cc.Part, error) { return ctor(cc.RoleCP, fault(c.Fault))() },
			},
		}},
		Deploy: cc.Deployment{RP: "-"},
	})
}

// TestViolationReproduces: a violation names its sequence's seed, which
// regenerates the sequence (cctest.Sequence), and with Options.TraceDir the
// calls up to the failing one are written as a trace that package trace
// reads and replays, the failing call last.
func TestViolationReproduces(t *testing.T) {
	dir := t.TempDir()
	h := trace.Header{Algorithm: "zz-cctest-toy", Part: "cp", Role: cc.RoleCP,
		Settings: []cc.Setting{{Name: "fault", Value: strconv.Itoa(int(wipeActions))}}}
	o := quick
	o.TraceDir, o.TraceHeader = dir, &h
	err := cctest.Test(ctor(cc.RoleCP, wipeActions), o)
	require.Error(t, err)
	var v *cctest.Violation
	require.True(t, errors.As(err, &v))
	require.Equal(t, cctest.RuleAtomic, v.Rule)
	require.False(t, v.Chaos)
	require.Equal(t, cctest.SequenceSeed(1, v.Sequence), v.Seed, "the seed is the sequence's, from Options.Seed 1")
	require.Contains(t, v.Msg, "(seed "+strconv.FormatInt(v.Seed, 10)+")", "the message prints it")
	require.NotEmpty(t, v.Trace)

	f, err := os.ReadFile(v.Trace)
	require.NoError(t, err)
	gotH, calls, err := trace.ReadAll(bytes.NewReader(f))
	require.NoError(t, err)
	require.Equal(t, h.Algorithm, gotH.Algorithm)
	require.NotEmpty(t, calls)
	// The trace's events other than the timers the suite inserted are the
	// regenerated sequence's, in order.
	seq := cctest.Sequence(cc.RoleCP, v.Gen, v.Seed)
	j := 0
	for _, c := range calls {
		if c.Kind == cc.EventTimer && (j >= len(seq) || seq[j].Kind != cc.EventTimer || seq[j].At != c.At) {
			continue // a timer at a deadline
		}
		require.Less(t, j, len(seq))
		require.Equal(t, trace.Canonical(seq[j], cc.RoleCP), c, "event %d", j)
		j++
	}
	// The trace ends with the call that broke the rule: the sequence's
	// event the message names.
	m := regexp.MustCompile(`\) event (\d+)`).FindStringSubmatch(v.Msg)
	require.NotNil(t, m, v.Msg)
	k, _ := strconv.Atoi(m[1])
	require.Equal(t, k+1, j, "the sequence's events up to the failing one")
	// And it replays, one output per call.
	var out bytes.Buffer
	require.NoError(t, trace.Replay(bytes.NewReader(f), &out))
	require.Len(t, strings.Split(strings.TrimSpace(out.String()), "\n"), len(calls))
}

// TestGeneratorsShrinkToPrefixes: a failing generated sequence shrinks to
// its prefixes (half, a quarter, ..., then one event shorter), each a
// prefix of the sequence and so well formed.
func TestGeneratorsShrinkToPrefixes(t *testing.T) {
	params := gopter.DefaultGenParameters()
	res := cctest.GenEvents(cc.RoleRP, cctest.GenOptions{Events: 40})(params)
	v, ok := res.Retrieve()
	require.True(t, ok)
	evs := v.([]cc.Event)
	shrink := res.Shrinker(evs)
	var lens []int
	for {
		c, ok := shrink()
		if !ok {
			break
		}
		p := c.([]cc.Event)
		require.Equal(t, evs[:len(p)], p, "a prefix")
		lens = append(lens, len(p))
	}
	require.Equal(t, []int{20, 10, 5, 2, 1, 39}, lens)
	ch := cctest.GenChaos(cc.RoleNP, cctest.GenOptions{Events: 9})(params)
	cv, _ := ch.Retrieve()
	c, ok := ch.Shrinker(cv)()
	require.True(t, ok)
	require.Len(t, c.([]cctest.Event), 4)
}
