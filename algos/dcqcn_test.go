package algos

import (
	"math"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cp"
	"github.com/hwcc/hwcc/fixedpoint"
	"github.com/hwcc/hwcc/np"
	"github.com/hwcc/hwcc/rp"
	"github.com/hwcc/hwcc/units"
)

// dcqcnSpecs returns the registered Specs of the three parts.
func dcqcnSpecs(t *testing.T) (*cc.Spec[cp.DCQCNConfig], *cc.Spec[np.DCQCNConfig], *cc.Spec[rp.DCQCNConfig]) {
	t.Helper()
	a, err := cc.Lookup("dcqcn")
	require.NoError(t, err)
	get := func(name string, role cc.Role) cc.Configurer {
		p, err := a.Part(name)
		require.NoError(t, err)
		require.Equal(t, role, p.Role, name)
		return p.Config
	}
	return get("cp", cc.RoleCP).(*cc.Spec[cp.DCQCNConfig]),
		get("np", cc.RoleNP).(*cc.Spec[np.DCQCNConfig]),
		get("rp", cc.RoleRP).(*cc.Spec[rp.DCQCNConfig])
}

// Every part builds by name with every preset, and plays its role.
func TestDCQCNRegistryBuilds(t *testing.T) {
	for _, preset := range []string{"", "preset=connectx", "preset=paper", "preset=hpcc"} {
		for _, link := range []string{"", ", link=25Gbps"} {
			c, err := cc.NewCP("dcqcn", "cp", preset+link)
			require.NoError(t, err, preset+link)
			require.IsType(t, &cp.DCQCN{}, c)
			r, err := cc.NewRP("dcqcn", "rp", preset+link)
			require.NoError(t, err, preset+link)
			require.IsType(t, &rp.DCQCN{}, r)
		}
		n, err := cc.NewNP("dcqcn", "np", preset)
		require.NoError(t, err, preset)
		require.IsType(t, &np.DCQCN{}, n)
	}
	for part, s := range map[string]string{
		"cp": "kmin=5KB, kmax=200KB, pmax=655, seed=7, mark_at=enqueue",
		"np": "mode=slot, min_time_between_cnps=50us",
		"rp": "preset=hpcc, rate_reduce_mode=spacing, rpg_byte_reset=10MB, clamp_tgt_rate=on, alpha_frac_bits=10",
	} {
		_, err := cc.New("dcqcn", part, s)
		require.NoError(t, err, "%s: %s", part, s)
	}
}

// The presets are the packages' preset functions, at the default link of
// 100 Gb/s or the one given; the cp part has one marker under the three
// names.
func TestDCQCNRegistryPresets(t *testing.T) {
	cs, ns, rs := dcqcnSpecs(t)
	for _, preset := range []string{"connectx", "paper", "hpcc"} {
		st := []cc.Setting{{Name: "preset", Value: preset}}
		c, err := cs.Config("cp", st)
		require.NoError(t, err)
		require.Equal(t, cp.DCQCNHPCCSim(100*units.Gbps), c, preset)
		c, err = cs.Config("cp", append(st, cc.Setting{Name: "link", Value: "25Gbps"}))
		require.NoError(t, err)
		require.Equal(t, cp.DCQCNHPCCSim(25*units.Gbps), c, preset)
	}
	c, err := cs.Config("cp", nil)
	require.NoError(t, err)
	require.Equal(t, 400*units.KB, c.Kmin, "100 KB · 100 Gb/s / 25 Gb/s")
	require.Equal(t, 1600*units.KB, c.Kmax)
	require.Equal(t, cp.DCQCNMarkDequeue, c.MarkAt)

	for name, want := range map[string]np.DCQCNConfig{"": np.DCQCNConnectX(), "connectx": np.DCQCNConnectX(), "paper": np.DCQCNPaper(), "hpcc": np.DCQCNHPCCSim()} {
		var st []cc.Setting
		if name != "" {
			st = []cc.Setting{{Name: "preset", Value: name}}
		}
		n, err := ns.Config("np", st)
		require.NoError(t, err)
		require.Equal(t, want, n, name)
	}
	_, err = ns.Config("np", []cc.Setting{{Name: "link", Value: "25Gbps"}})
	require.ErrorIs(t, err, cc.ErrUnknown, "the np presets take no link")

	for name, f := range map[string]func(units.Rate) rp.DCQCNConfig{"": rp.DCQCNConnectX, "connectx": rp.DCQCNConnectX, "paper": rp.DCQCNPaper, "hpcc": rp.DCQCNHPCCSim} {
		for _, link := range []units.Rate{0, 25 * units.Gbps} {
			var st []cc.Setting
			if name != "" {
				st = append(st, cc.Setting{Name: "preset", Value: name})
			}
			want := f(100 * units.Gbps)
			if link != 0 {
				st = append(st, cc.Setting{Name: "link", Value: link.String()})
				want = f(link)
			}
			r, err := rs.Config("rp", st)
			require.NoError(t, err)
			require.Equal(t, want, r, "%s %v", name, link)
		}
	}
}

// A value outside the description's range is a *cc.ConfigError naming the
// parameter (registry name); one that New refuses from several fields
// names the Config field (Go name).
func TestDCQCNRegistryBadValues(t *testing.T) {
	for _, c := range []struct {
		part, settings, field string
	}{
		{"cp", "kmin=4294967296B", "kmin"},
		{"cp", "pmax=65537", "pmax"},
		{"cp", "seed=0", "seed"},
		{"cp", "mark_at=egress", "mark_at"},
		{"cp", "preset=mellanox", "preset"},
		{"np", "mode=fast", "mode"},
		{"np", "min_time_between_cnps=2s", "min_time_between_cnps"},
		{"rp", "dce_tcp_g=1024", "dce_tcp_g"},
		{"rp", "rpg_gd=32", "rpg_gd"},
		{"rp", "alpha_frac_bits=9", "alpha_frac_bits"},
		{"rp", "rpg_min_dec_fac=101", "rpg_min_dec_fac"},
		{"rp", "rpg_time_reset=0s", "rpg_time_reset"},
		{"rp", "rate_reduce_monitor_period=-1us", "rate_reduce_monitor_period"},
		{"rp", "rate_reduce_mode=poll", "rate_reduce_mode"},
		{"rp", "rpg_threshold=256", "rpg_threshold"},
		{"rp", "clamp_tgt_rate=maybe", "clamp_tgt_rate"},
		{"rp", "rpg_ai_rate=fast", "rpg_ai_rate"},
		{"rp", "link=0", "link"},
	} {
		_, err := cc.New("dcqcn", c.part, c.settings)
		var ce *cc.ConfigError
		require.ErrorAs(t, err, &ce, "%s %s", c.part, c.settings)
		require.Equal(t, c.field, ce.Field, "%s %s: %v", c.part, c.settings, err)
	}
	for _, c := range []struct{ part, settings, field string }{
		{"cp", "kmin=500KB, kmax=400KB", "Kmax"},
		{"rp", "rpg_ai_rate=5500Kbps", "RpgAIRate"},                                    // not a whole number of Mb/s
		{"rp", "rpg_max_rate=200Gbps", "RpgMaxRate"},                                   // above the 100 Gb/s port
		{"rp", "rpg_byte_reset=100B", "RpgByteReset"},                                  // not a multiple of 64 B
		{"rp", "preset=hpcc, link=500Mbps", "RpgMinRate"},                              // below the preset's 1000 Mb/s minimum
		{"rp", "preset=hpcc, rate_to_set_on_first_cnp=500Mbps", "RateToSetOnFirstCNP"}, // below rpg_min_rate
	} {
		_, err := cc.New("dcqcn", c.part, c.settings)
		var ce *cc.ConfigError
		require.ErrorAs(t, err, &ce, c.settings)
		require.Equal(t, c.field, ce.Field, "%s: %v", c.settings, err)
	}
}

// An unknown parameter's error lists the known ones.
func TestDCQCNRegistryUnknown(t *testing.T) {
	for part, want := range map[string]string{
		"cp": "preset, link, kmin, kmax, pmax, seed, mark_at",
		"np": "preset, mode, min_time_between_cnps",
		"rp": "preset, link, port_rate, rate_unit, dce_tcp_g, dce_tcp_rtt, initial_alpha_value, rate_to_set_on_first_cnp, " +
			"rpg_gd, alpha_frac_bits, rpg_min_dec_fac, rpg_min_rate, rpg_max_rate, rate_reduce_monitor_period, rate_reduce_mode, " +
			"rpg_time_reset, rpg_byte_reset, rpg_threshold, rpg_ai_rate, rpg_hai_rate, clamp_tgt_rate, clamp_tgt_rate_after_time_inc",
	} {
		_, err := cc.New("dcqcn", part, "eta=1")
		require.ErrorIs(t, err, cc.ErrUnknown, part)
		require.ErrorContains(t, err, want, part)
	}
	_, err := cc.New("dcqcn", "hostcp", "")
	require.ErrorIs(t, err, cc.ErrUnknown)
	require.ErrorContains(t, err, "cp, np, rp")
}

// Every parameter's Default, given back as a setting, rebuilds the default
// preset's configuration; so do the other presets' values.
func TestDCQCNRegistryDefaultsRoundTrip(t *testing.T) {
	cs, ns, rs := dcqcnSpecs(t)
	settings := func(d cc.Description) []cc.Setting {
		var st []cc.Setting
		for _, p := range d.Params {
			require.NotEmpty(t, p.Default, p.Name)
			st = append(st, cc.Setting{Name: p.Name, Value: p.Default})
		}
		return st
	}
	c, err := cs.Config("cp", settings(cs.Describe()))
	require.NoError(t, err)
	require.Equal(t, cp.DCQCNHPCCSim(100*units.Gbps), c)
	n, err := ns.Config("np", settings(ns.Describe()))
	require.NoError(t, err)
	require.Equal(t, np.DCQCNConnectX(), n)
	r, err := rs.Config("rp", settings(rs.Describe()))
	require.NoError(t, err)
	require.Equal(t, rp.DCQCNConnectX(100*units.Gbps), r)
	// The hpcc preset's values, written out, rebuild it from connectx.
	h := rp.DCQCNHPCCSim(100 * units.Gbps)
	r, err = rs.Config("rp", []cc.Setting{
		{Name: "rate_unit", Value: h.RateUnit.String()}, {Name: "dce_tcp_g", Value: "1020"},
		{Name: "rpg_min_dec_fac", Value: "0"}, {Name: "rpg_min_rate", Value: h.RpgMinRate.String()},
		{Name: "rate_reduce_mode", Value: "grid"}, {Name: "rpg_byte_reset", Value: "0"},
		{Name: "rpg_ai_rate", Value: h.RpgAIRate.String()}, {Name: "rpg_hai_rate", Value: h.RpgHAIRate.String()},
	})
	require.NoError(t, err)
	require.Equal(t, h, r)
}

// Each parameter's Min and Max, as the description states them, build a
// part (the other fields made compatible where New checks them together),
// and the values just outside are refused by the description.
func TestDCQCNRegistryBounds(t *testing.T) {
	cs, ns, rs := dcqcnSpecs(t)
	params := map[string]map[string]cc.Param{}
	for part, d := range map[string]cc.Description{"cp": cs.Describe(), "np": ns.Describe(), "rp": rs.Describe()} {
		params[part] = map[string]cc.Param{}
		for _, p := range d.Params {
			params[part][p.Name] = p
		}
	}
	for _, c := range []struct {
		part, name, min, max, below, above, with string
	}{
		{"cp", "kmin", "0B", "4.294967295GB", "", "4294967296B", "kmax=4294967295B"},
		{"cp", "kmax", "0B", "4.294967295GB", "", "4294967296B", "kmin=0B"},
		{"cp", "pmax", "0", "65536", "-1", "65537", ""},
		{"cp", "seed", "1", "4294967295", "0", "4294967296", ""},
		{"np", "min_time_between_cnps", "0s", "1s", "-1ps", "1000000000001ps", ""},
		{"rp", "dce_tcp_g", "0", "1023", "-1", "1024", ""},
		{"rp", "dce_tcp_rtt", "1ps", "1s", "0s", "1000000000001ps", ""},
		{"rp", "initial_alpha_value", "0", "1023", "-1", "1024", ""},
		{"rp", "rpg_gd", "0", "31", "-1", "32", ""},
		{"rp", "alpha_frac_bits", "10", "24", "9", "25", ""},
		{"rp", "rpg_min_dec_fac", "0", "100", "-1", "101", ""},
		{"rp", "rate_reduce_monitor_period", "0s", "1s", "-1ps", "1000000000001ps", ""},
		{"rp", "rpg_time_reset", "1ps", "1s", "0s", "1000000000001ps", ""},
		{"rp", "rpg_byte_reset", "0B", "274.87790688GB", "", "274877906944B", ""},
		{"rp", "rpg_threshold", "0", "255", "-1", "256", ""},
	} {
		p := params[c.part][c.name]
		require.Equal(t, c.min, p.Min, "%s %s: Min", c.part, c.name)
		require.Equal(t, c.max, p.Max, "%s %s: Max", c.part, c.name)
		with := ""
		if c.with != "" {
			with = ", " + c.with
		}
		for _, v := range []string{c.min, c.max} {
			_, err := cc.New("dcqcn", c.part, c.name+"="+v+with)
			require.NoError(t, err, "%s %s=%s", c.part, c.name, v)
		}
		for _, v := range []string{c.below, c.above} {
			if v == "" {
				continue
			}
			_, err := cc.New("dcqcn", c.part, c.name+"="+v+with)
			var ce *cc.ConfigError
			require.ErrorAs(t, err, &ce, "%s=%s", c.name, v)
			require.Equal(t, c.name, ce.Field, "%s=%s: the description refuses it", c.name, v)
		}
	}
	// The rates' lower bounds are the description's; their upper bounds and
	// multiples depend on rate_unit and the port, which New checks.
	for _, name := range []string{"port_rate", "rate_unit", "rpg_min_rate", "rpg_ai_rate", "rpg_hai_rate"} {
		require.Equal(t, "1bps", params["rp"][name].Min, name)
		_, err := cc.New("dcqcn", "rp", name+"=0")
		var ce *cc.ConfigError
		require.ErrorAs(t, err, &ce, name)
		require.Equal(t, name, ce.Field, name)
	}
}

// Property: every queue key gets a valid LFSR seed (never the lock-up 0),
// and keys map to distinct seeds (checked for 2^16 consecutive keys, and
// for the first ports of many switches).
func TestDCQCNSeeds(t *testing.T) {
	params := gopter.DefaultTestParametersWithSeed(6)
	params.MinSuccessfulTests = 2000
	props := gopter.NewProperties(params)
	props.Property("seed is a valid LFSR state", prop.ForAll(func(k uint32) bool {
		_, err := fixedpoint.NewLFSR32(dcqcnSeed(k))
		return err == nil
	}, gen.UInt32().WithLabel("key")))
	props.TestingRun(t)
	for _, k := range []uint32{0, 1, 1 << 16, math.MaxUint32} {
		_, err := fixedpoint.NewLFSR32(dcqcnSeed(k))
		require.NoError(t, err, "key %#x", k)
	}
	seen := make(map[uint32]uint32, 1<<17)
	add := func(k uint32) {
		s := dcqcnSeed(k)
		prev, dup := seen[s]
		require.False(t, dup, "keys %#x and %#x share seed %#x", prev, k, s)
		seen[s] = k
	}
	for k := uint32(0); k < 1<<16; k++ {
		add(k)
	}
	for sw := uint16(2); sw < 4096; sw++ {
		for port := uint16(0); port < 16; port++ {
			add(dcqcnQueueKey(cc.Env{SwitchID: sw, Port: port}))
		}
	}
}

// The cp part's seed comes from where it runs: switch 1's port p gets the
// seed of key p (the earlier harness adapter's seed of its queue p on one
// switch), another switch's ports other seeds; without a switch ID the
// preset's seed stays, and an explicit seed wins over the environment.
func TestDCQCNSeedFromEnv(t *testing.T) {
	cs, _, _ := dcqcnSpecs(t)
	seed := func(env *cc.Env, st ...cc.Setting) uint32 {
		t.Helper()
		c, err := cs.ConfigIn("cp", env, st)
		require.NoError(t, err)
		return c.Seed
	}
	for port := uint16(0); port < 8; port++ {
		// The earlier adapter: DCQCNDefaultSeed XOR (id + 1)·0x9E3779B1.
		want := cp.DCQCNDefaultSeed ^ (uint32(port)+1)*0x9E3779B1
		require.Equal(t, want, seed(&cc.Env{Rate: 25 * units.Gbps, SwitchID: 1, Port: port}), "port %d", port)
		require.NotEqual(t, want, seed(&cc.Env{Rate: 25 * units.Gbps, SwitchID: 2, Port: port}), "port %d", port)
	}
	require.Equal(t, dcqcnSeed(2<<16|5), seed(&cc.Env{SwitchID: 3, Port: 5}))
	require.Equal(t, cp.DCQCNDefaultSeed, seed(nil))
	require.Equal(t, cp.DCQCNDefaultSeed, seed(&cc.Env{Rate: 25 * units.Gbps, Port: 3}), "no switch ID")
	require.Equal(t, uint32(7), seed(&cc.Env{SwitchID: 1, Port: 3}, cc.Setting{Name: "seed", Value: "7"}))
}
