package algos_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
)

// registryBound is one parameter's range as its description states it:
// the bounds (which must build a part, with the settings in with making
// the other fields compatible) and the values just outside them, which the
// description must refuse ("" where the type itself is the bound).
type registryBound struct {
	part, name, min, max, below, above, with string
}

// checkRegistryBounds checks each bound of algo's parameters against the
// part's description and builds.
func checkRegistryBounds(t *testing.T, algo string, bounds []registryBound) {
	t.Helper()
	a, err := cc.Lookup(algo)
	require.NoError(t, err)
	for _, c := range bounds {
		ps, err := a.Part(c.part)
		require.NoError(t, err)
		var p cc.Param
		for _, q := range ps.Config.Describe().Params {
			if q.Name == c.name {
				p = q
			}
		}
		require.Equal(t, c.name, p.Name, "%s %s %s: described", algo, c.part, c.name)
		require.Equal(t, c.min, p.Min, "%s %s %s: Min", algo, c.part, c.name)
		require.Equal(t, c.max, p.Max, "%s %s %s: Max", algo, c.part, c.name)
		with := ""
		if c.with != "" {
			with = ", " + c.with
		}
		for _, v := range []string{c.min, c.max} {
			_, err := cc.New(algo, c.part, c.name+"="+v+with)
			require.NoError(t, err, "%s %s %s=%s", algo, c.part, c.name, v)
		}
		for _, v := range []string{c.below, c.above} {
			if v == "" {
				continue
			}
			_, err := cc.New(algo, c.part, c.name+"="+v+with)
			var ce *cc.ConfigError
			require.ErrorAs(t, err, &ce, "%s %s=%s", algo, c.name, v)
			require.Equal(t, c.name, ce.Field, "%s %s=%s: the description refuses it", algo, c.name, v)
		}
	}
}

// The QCN and AF-QCN parameters' ranges, written out from the sources'
// register widths and hwcc's stated limits (a 32-bit queue register, w up
// to 32, jitter up to 50 %, a 32-bit LFSR; 32-bit rate registers of 1
// kb/s, Gd = 2^−1..2^−16, BC_LIMIT in a signed 32-bit counter, T of 1 µs
// to 10 s, an 8-bit threshold; a = 1/256..255/256, b = 2^−1..2^−8, Ts of 1
// µs to 100 ms, 16-bit weights).
func TestQCNRegistryBounds(t *testing.T) {
	const rates = "min_rate=1Kbps, ai_rate=1Kbps, hai_rate=1Kbps"
	checkRegistryBounds(t, "qcn", []registryBound{
		{"cp", "qeq", "1B", "4.294967295GB", "0B", "4294967296B", ""},
		{"cp", "w", "0", "32", "-1", "33", ""},
		{"cp", "jitter_percent", "0", "50", "-1", "51", "seed=1"},
		{"cp", "seed", "0", "4294967295", "-1", "4294967296", ""},
		{"cp", "cpid", "0", "9223372036854775807", "-1", "", ""},
		{"rp", "line_rate", "1Kbps", "4.294967295Tbps", "0bps", "4294967296Kbps", rates},
		{"rp", "min_rate", "1Kbps", "4.294967295Tbps", "0bps", "4294967296Kbps", "line_rate=4.294967295Tbps"},
		{"rp", "gd_shift", "1", "16", "0", "17", ""},
		{"rp", "min_dec_fac", "0", "100", "-1", "101", ""},
		{"rp", "byte_limit", "1KB", "2.147483647GB", "999B", "2147483648B", ""},
		{"rp", "period", "1us", "10s", "999ns", "10000000001ns", ""},
		{"rp", "threshold", "0", "255", "-1", "256", ""},
		{"rp", "ai_rate", "1Kbps", "4.294967295Tbps", "0bps", "4294967296Kbps", "line_rate=4.294967295Tbps"},
		{"rp", "hai_rate", "1Kbps", "4.294967295Tbps", "0bps", "4294967296Kbps", "line_rate=4.294967295Tbps"},
	})
	checkRegistryBounds(t, "afqcn", []registryBound{
		{"cp", "qeq", "1B", "4.294967295GB", "0B", "4294967296B", ""},
		{"cp", "alpha", "1", "255", "0", "256", ""},
		{"cp", "b_shift", "1", "8", "0", "9", ""},
		{"cp", "ts", "1us", "100ms", "999ns", "100000001ns", ""},
		{"cp", "weight0", "0", "65535", "-1", "65536", ""},
		{"cp", "weight7", "0", "65535", "-1", "65536", ""},
	})
}
