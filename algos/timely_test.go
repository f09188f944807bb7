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
