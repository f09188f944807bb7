package algos

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/harness"
)

// TestUnknownSchemeParamCause: a parameter no part of a scheme has is a
// configuration error that lists the scheme's parts, and its cause is that
// list, not an unknown algorithm or part (hpcc and its parts are known).
func TestUnknownSchemeParamCause(t *testing.T) {
	sc, err := harness.Builtin("hpcc-incast")
	require.NoError(t, err)
	require.NoError(t, sc.Set("param.cp.eta", "0.9"))
	err = sc.Validate()
	require.ErrorIs(t, err, cc.ErrConfig)
	require.ErrorContains(t, err, "cp.eta = 0.9: want a parameter of hpcc cp, hpcc rp (hwcc algos hpcc)")
	require.NotErrorIs(t, err, cc.ErrUnknown)
	require.NotContains(t, err.Error(), "unknown algorithm or part")
}
