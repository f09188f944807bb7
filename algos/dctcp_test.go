package algos

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cc/cctest"
	"github.com/hwcc/hwcc/cp"
	"github.com/hwcc/hwcc/rp"
	"github.com/hwcc/hwcc/units"
)

// dctcpSpecs returns the registered Specs of the two parts.
func dctcpSpecs(t *testing.T) (*cc.Spec[cp.DCTCPConfig], *cc.Spec[rp.DCTCPConfig]) {
	t.Helper()
	a, err := cc.Lookup("dctcp")
	require.NoError(t, err)
	c, err := a.Part("cp")
	require.NoError(t, err)
	r, err := a.Part("rp")
	require.NoError(t, err)
	require.Equal(t, cc.RoleCP, c.Role)
	require.Equal(t, cc.RoleRP, r.Role)
	return c.Config.(*cc.Spec[cp.DCTCPConfig]), r.Config.(*cc.Spec[rp.DCTCPConfig])
}

// Every part builds by name with every preset, and plays its role.
func TestDCTCPRegistryBuilds(t *testing.T) {
	for _, s := range []string{"", "preset=hpcc", "preset=hpcc, link=25Gbps", "k=65KB, mark_at=dequeue"} {
		p, err := cc.NewCP("dctcp", "cp", s)
		require.NoError(t, err, s)
		require.IsType(t, &cp.DCTCP{}, p, s)
	}
	for _, s := range []string{"", "preset=linux", "preset=hpcc", "preset=hpcc, link=10Gbps", "slow_start=on, initial_seq=4294967295"} {
		p, err := cc.NewRP("dctcp", "rp", s)
		require.NoError(t, err, s)
		require.IsType(t, &rp.DCTCP{}, p, s)
	}
}

// The presets are the packages' preset functions at the default link,
// 100 Gb/s, and (rp hpcc) the default scenario's base RTT.
func TestDCTCPRegistryPresets(t *testing.T) {
	cs, rs := dctcpSpecs(t)
	c, err := cs.Config("cp", nil)
	require.NoError(t, err)
	require.Equal(t, cp.DCTCPHPCCSim(100*units.Gbps), c)
	require.Equal(t, 300*units.KB, c.K, "30 KB · 100 Gb/s / 10 Gb/s")
	require.Equal(t, cp.DCTCPMarkEnqueue, c.MarkAt, "the harness's default")
	c, err = cs.Config("cp", []cc.Setting{{Name: "link", Value: "25Gbps"}})
	require.NoError(t, err)
	require.Equal(t, 75*units.KB, c.K)

	r, err := rs.Config("rp", nil)
	require.NoError(t, err)
	linux := rp.DCTCPDefault(1000)
	linux.SlowStart = true // Linux's slow start, the harness's "linux" preset
	require.Equal(t, linux, r)
	r, err = rs.Config("rp", []cc.Setting{{Name: "preset", Value: "hpcc"}})
	require.NoError(t, err)
	require.Equal(t, rp.DCTCPHPCCSim(100*units.Gbps, dctcpBaseRTT), r)
	require.Equal(t, units.Bytes(52336), r.InitialCwnd, "100 Gb/s × 4.18688 µs / 8")

	// The base RTT of the harness's default scenario (harness/doc.go): two
	// hops of 1 µs, store and forward, a 1000-byte payload in a 1082-byte
	// wire frame and an 86-byte ACK.
	const link, delay = 100 * units.Gbps, units.Microsecond
	want := 2*(units.SerializationTime(1082, link)+delay) + 2*(units.SerializationTime(86, link)+delay)
	require.Equal(t, want, dctcpBaseRTT)
}

// A value outside the description's range, or one New refuses, is a
// *cc.ConfigError naming the parameter (registry name) or the Config
// field (Go name, when New decides from several fields).
func TestDCTCPRegistryBadValues(t *testing.T) {
	for _, c := range []struct {
		part, settings, field string
	}{
		{"cp", "k=4294967296B", "k"},
		{"cp", "k=-1B", "k"},
		{"cp", "mark_at=late", "mark_at"},
		{"cp", "link=0", "link"},
		{"cp", "preset=cubic", "preset"},
		{"rp", "mss=0B", "mss"},
		{"rp", "mss=65537B", "mss"},
		{"rp", "max_cwnd=1073741825B", "max_cwnd"},
		{"rp", "initial_cwnd=1B", "initial_cwnd"},
		{"rp", "dctcp_shift_g=11", "dctcp_shift_g"},
		{"rp", "dctcp_alpha_on_init=1025", "dctcp_alpha_on_init"},
		{"rp", "initial_seq=4294967296", "initial_seq"},
		{"rp", "initial_seq=-1", "initial_seq"},
		{"rp", "slow_start=sometimes", "slow_start"},
	} {
		_, err := cc.New("dctcp", c.part, c.settings)
		var ce *cc.ConfigError
		require.ErrorAs(t, err, &ce, "%s %s", c.part, c.settings)
		require.Equal(t, c.field, ce.Field, "%s %s: %v", c.part, c.settings, err)
	}
	// New's cross-field checks name the Config field.
	for _, c := range []struct{ settings, field string }{
		{"mss=6KB", "InitialCwnd"}, // 10 KB < 2·6 KB
		{"initial_cwnd=2KB, max_cwnd=1KB", "MaxCwnd"},
		{"initial_cwnd=3KB, max_cwnd=2KB", "InitialCwnd"},
	} {
		_, err := cc.New("dctcp", "rp", c.settings)
		var ce *cc.ConfigError
		require.ErrorAs(t, err, &ce, c.settings)
		require.Equal(t, c.field, ce.Field, "%s: %v", c.settings, err)
	}
}

// An unknown parameter's error lists the known ones.
func TestDCTCPRegistryUnknown(t *testing.T) {
	_, err := cc.New("dctcp", "cp", "kmin=1KB")
	require.ErrorIs(t, err, cc.ErrUnknown)
	require.ErrorContains(t, err, "preset, link, k, mark_at")
	_, err = cc.New("dctcp", "rp", "g=4")
	require.ErrorIs(t, err, cc.ErrUnknown)
	require.ErrorContains(t, err, "preset, link, mss, initial_cwnd, max_cwnd, dctcp_shift_g, dctcp_alpha_on_init, slow_start, initial_seq")
}

// Every parameter's Default, given back as a setting, rebuilds the default
// preset's configuration.
func TestDCTCPRegistryDefaultsRoundTrip(t *testing.T) {
	cs, rs := dctcpSpecs(t)
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
	require.Equal(t, cp.DCTCPHPCCSim(100*units.Gbps), c)
	r, err := rs.Config("rp", settings(rs.Describe()))
	require.NoError(t, err)
	linux := rp.DCTCPDefault(1000)
	linux.SlowStart = true
	require.Equal(t, linux, r)
	// And the hpcc preset's values round-trip through the same syntax.
	h := rp.DCTCPHPCCSim(100*units.Gbps, dctcpBaseRTT)
	r, err = rs.Config("rp", []cc.Setting{{Name: "initial_cwnd", Value: h.InitialCwnd.String()}, {Name: "max_cwnd", Value: h.MaxCwnd.String()}})
	require.NoError(t, err)
	require.Equal(t, h.InitialCwnd, r.InitialCwnd)
	require.Equal(t, h.MaxCwnd, r.MaxCwnd)
}

// Each parameter's Min and Max build a part (with the other fields made
// compatible where New checks them together), and the values just outside
// are refused by the description.
func TestDCTCPRegistryBounds(t *testing.T) {
	for _, c := range []struct {
		part, name, min, max, below, above, with string
	}{
		{"cp", "k", "0B", "4294967295B", "", "4294967296B", ""},
		{"rp", "mss", "1B", "65536B", "0B", "65537B", "initial_cwnd=131072B, max_cwnd=131072B"},
		{"rp", "initial_cwnd", "2B", "1073741824B", "1B", "1073741825B", "mss=1B, max_cwnd=1073741824B"},
		{"rp", "max_cwnd", "2B", "1073741824B", "1B", "1073741825B", "mss=1B, initial_cwnd=2B"},
		{"rp", "dctcp_shift_g", "0", "10", "-1", "11", ""},
		{"rp", "dctcp_alpha_on_init", "0", "1024", "-1", "1025", ""},
		{"rp", "initial_seq", "0", "4294967295", "-1", "4294967296", ""},
	} {
		with := ""
		if c.with != "" {
			with = ", " + c.with
		}
		for _, v := range []string{c.min, c.max} {
			_, err := cc.New("dctcp", c.part, c.name+"="+v+with)
			require.NoError(t, err, "%s=%s", c.name, v)
		}
		for _, v := range []string{c.below, c.above} {
			if v == "" {
				continue
			}
			_, err := cc.New("dctcp", c.part, c.name+"="+v+with)
			var ce *cc.ConfigError
			require.ErrorAs(t, err, &ce, "%s=%s", c.name, v)
			require.Equal(t, c.name, ce.Field, "%s=%s: the description refuses it", c.name, v)
		}
	}
}

// The conformance suite over the settings the presets do not reach:
// marking at dequeue, and a sender with slow start whose sequence numbers
// wrap at once. (TestConformance runs every preset.)
func TestDCTCPConformanceOptions(t *testing.T) {
	for _, c := range []struct{ part, settings string }{
		{"cp", "mark_at=dequeue"},
		{"cp", "k=0B"},
		{"rp", "slow_start=on, initial_seq=4294967000, dctcp_shift_g=0"},
	} {
		o := cctest.Options{}
		if testing.Short() {
			o.Sequences, o.Chaos, o.AllocSequences = 6, 12, 1
		}
		err := cctest.Test(func() (cc.Part, error) { return cc.New("dctcp", c.part, c.settings) }, o)
		require.NoError(t, err, "%s %s", c.part, c.settings)
	}
}
