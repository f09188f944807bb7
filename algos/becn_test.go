package algos_test

import "testing"

// The BECN and FECN parameters' ranges, written out from the register
// widths and hwcc's stated limits (a 32-bit byte threshold, intervals and
// periods up to 1 s, a table of up to 2^16 slots; a 32-bit rate register
// of 1 kb/s, an 8-bit row counter, a quiet period of at least 1 ns).
func TestBECNRegistryBounds(t *testing.T) {
	for _, algo := range []string{"becn", "fecn"} {
		checkRegistryBounds(t, algo, []registryBound{
			{"cp", "threshold", "0B", "4.294967295GB", "-1B", "4294967296B", ""},
			{"rp", "line_rate", "1Kbps", "4.294967295Tbps", "0bps", "4294967296Kbps", "min_rate=1Kbps"},
			{"rp", "min_rate", "1Kbps", "4.294967295Tbps", "0bps", "4294967296Kbps", "line_rate=4.294967295Tbps"},
			{"rp", "pause_after", "0", "255", "-1", "256", ""},
			{"rp", "quiet_period", "1ns", "1s", "999ps", "1000000000001ps", ""},
			{"rp", "pause_time", "0s", "1s", "-1ps", "1000000000001ps", ""},
		})
	}
	checkRegistryBounds(t, "becn", []registryBound{
		{"cp", "min_interval", "0s", "1s", "-1ps", "1000000000001ps", ""},
		{"cp", "table_bits", "0", "16", "-1", "17", ""},
	})
	checkRegistryBounds(t, "fecn", []registryBound{
		{"np", "min_interval", "0s", "1s", "-1ps", "1000000000001ps", ""},
	})
}
