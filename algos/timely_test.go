package algos_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
)

// The description's bounds of α and β are rp.TIMELYConfig.Validate's: 2^−16
// = 0.0000152587890625 and 2^−10 = 0.0009765625 exactly build a part, and
// the largest doubles below them are refused by the description.
func TestTimelyRegistryGainBounds(t *testing.T) {
	a, err := cc.Lookup("timely")
	require.NoError(t, err)
	params := map[string]cc.Param{}
	for _, p := range a.Parts[0].Config.Describe().Params {
		params[p.Name] = p
	}
	for _, c := range []struct{ name, min, below string }{
		{"alpha", "0.0000152587890625", "0.00001525878906249999"},
		{"beta", "0.0009765625", "0.00097656249999999"},
	} {
		require.Equal(t, c.min, params[c.name].Min, c.name)
		require.Equal(t, "1", params[c.name].Max, c.name)
		for _, v := range []string{c.min, "1"} {
			_, err := cc.New("timely", "rp", c.name+"="+v)
			require.NoError(t, err, "%s=%s", c.name, v)
		}
		_, err := cc.New("timely", "rp", c.name+"="+c.below)
		var ce *cc.ConfigError
		require.ErrorAs(t, err, &ce, "%s=%s", c.name, c.below)
	}
}

// The TIMELY parameters' ranges, written out from the register widths and
// hwcc's stated limits (a 32-bit rate register of 1 kb/s and a line rate
// of at least 1 Mb/s, RTTs in a signed 32-bit register of ns, minRTT of
// 1 µs to 1 s, an 8-bit increase counter, segments of 1 B to 16 MiB).
func TestTimelyRegistryBounds(t *testing.T) {
	const slow = "min_rate=1Kbps, initial_rate=1Mbps, delta=1Kbps"
	const fast = "line_rate=4.294967295Tbps, initial_rate=4.294967295Tbps, delta=4.294967295Tbps"
	checkRegistryBounds(t, "timely", []registryBound{
		{"rp", "line_rate", "1Mbps", "4.294967295Tbps", "999999bps", "4294967296Kbps", slow},
		{"rp", "min_rate", "1Kbps", "4.294967295Tbps", "0bps", "4294967296Kbps", fast},
		{"rp", "initial_rate", "1Kbps", "4.294967295Tbps", "0bps", "4294967296Kbps", "min_rate=1Kbps, line_rate=4.294967295Tbps"},
		{"rp", "t_low", "0s", "2.147483647s", "-1ps", "2147483648ns", "t_high=2.147483647s"},
		{"rp", "t_high", "1ns", "2.147483647s", "999ps", "2147483648ns", "t_low=0s"},
		{"rp", "min_rtt", "1us", "1s", "999ns", "1000000001ns", ""},
		{"rp", "delta", "1Kbps", "4.294967295Tbps", "0bps", "4294967296Kbps", "line_rate=4.294967295Tbps"},
		{"rp", "hai_threshold", "1", "255", "0", "256", ""},
		{"rp", "hai_factor", "1", "255", "0", "256", ""},
		{"rp", "segment_bytes", "1B", "16.777216MB", "0B", "16777217B", ""},
	})
}
