package algos

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cp"
	"github.com/hwcc/hwcc/units"
)

// The pacc cp's defaults: PACC's 80 µs update period, and CNPs to one
// flow at most as often as the receiver PACC replaces would send them,
// the dcqcn np's default min_time_between_cnps (4 µs, ConnectX's): the
// senders run the dcqcn rp, whose constants expect that receiver.
func TestPACCRegistryDefaults(t *testing.T) {
	a, err := cc.Lookup("pacc")
	require.NoError(t, err)
	part, err := a.Part("cp")
	require.NoError(t, err)
	c, err := part.Config.(*cc.Spec[cp.PACCConfig]).Config("cp", nil)
	require.NoError(t, err)
	require.Equal(t, cp.PACCPaper(40*units.Gbps), c, "the paper preset at the 40 Gb/s default link")
	require.Equal(t, 80*units.Microsecond, c.Period)
	_, ns, _ := dcqcnSpecs(t)
	n, err := ns.Config("np", nil)
	require.NoError(t, err)
	require.Equal(t, n.Interval, c.CNPInterval, "the dcqcn np's CNP spacing")
	require.Equal(t, 4*units.Microsecond, c.CNPInterval)
	x, err := part.Config.(*cc.Spec[cp.PACCConfig]).Config("cp", []cc.Setting{{Name: "cnp_interval", Value: "80us"}})
	require.NoError(t, err)
	require.Equal(t, 80*units.Microsecond, x.CNPInterval, "still a parameter")
}
