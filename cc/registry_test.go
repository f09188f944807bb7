package cc_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
)

// The registry is global: this test registers under names no real
// algorithm uses.
func TestRegistry(t *testing.T) {
	a := cc.Algorithm{Name: "zz-demo", Title: "Demo", Paper: "none", Doc: "a test algorithm", Parts: []cc.PartSpec{
		{Name: "np", Role: cc.RoleNP, Doc: "does nothing", Config: demoSpec()},
		{Name: "cp", Role: cc.RoleCP, Doc: "claims to be a CP but builds an NP", Config: demoSpec()},
	}}
	require.NoError(t, cc.RegisterAlgorithm(a))
	require.ErrorIs(t, cc.RegisterAlgorithm(a), cc.ErrConfig, "twice")
	got, err := cc.Lookup("zz-demo")
	require.NoError(t, err)
	require.Equal(t, "Demo", got.Title)
	require.Contains(t, cc.Names(), "zz-demo")

	p, err := cc.New("zz-demo", "np", "t=10us")
	require.NoError(t, err)
	require.Equal(t, 10_000_000, int(p.(*demoPart).cfg.Period))
	np, err := cc.NewNP("zz-demo", "np", "")
	require.NoError(t, err)
	require.NotNil(t, np)

	_, err = cc.New("zz-none", "np", "")
	require.ErrorIs(t, err, cc.ErrUnknown)
	require.Contains(t, err.Error(), "zz-demo", "lists the registered names")
	_, err = cc.New("zz-demo", "rp", "")
	require.ErrorIs(t, err, cc.ErrUnknown)
	require.Contains(t, err.Error(), "one of np, cp")
	_, err = cc.New("zz-demo", "np", "t=1s")
	require.ErrorIs(t, err, cc.ErrConfig)
	_, err = cc.New("zz-demo", "np", "t")
	require.ErrorIs(t, err, cc.ErrConfig)
	_, err = cc.NewCP("zz-demo", "np", "")
	require.ErrorIs(t, err, cc.ErrConfig, "an NP asked for as a CP")
	_, err = cc.New("zz-demo", "cp", "")
	require.ErrorContains(t, err, "a part that is a congestion point", "the built part must play its registered role")

	bad := []cc.Algorithm{
		{Name: "ZZ", Parts: a.Parts},
		{Name: "zz-empty"},
		{Name: "zz-dup", Parts: []cc.PartSpec{a.Parts[0], a.Parts[0]}},
		{Name: "zz-role", Parts: []cc.PartSpec{{Name: "np", Role: 0, Config: demoSpec()}}},
		{Name: "zz-nocfg", Parts: []cc.PartSpec{{Name: "np", Role: cc.RoleNP}}},
	}
	for _, b := range bad {
		require.ErrorIs(t, cc.RegisterAlgorithm(b), cc.ErrConfig, b.Name)
	}
	broken := demoSpec()
	broken.Fields[0].Max = "1us"
	require.ErrorIs(t, cc.RegisterAlgorithm(cc.Algorithm{Name: "zz-broken", Parts: []cc.PartSpec{{Name: "np", Role: cc.RoleNP, Config: broken}}}), cc.ErrConfig)
	for _, n := range cc.Names() {
		require.NotEqual(t, "zz-broken", n)
	}
}
