package algos

import (
	"errors"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cp"
	"github.com/hwcc/hwcc/fixedpoint"
	inttel "github.com/hwcc/hwcc/int"
	"github.com/hwcc/hwcc/rp"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/window"
)

// hpccSpec returns the registered description of an hpcc part.
func hpccSpec(t *testing.T, part string) cc.PartSpec {
	t.Helper()
	a, err := cc.Lookup("hpcc")
	require.NoError(t, err)
	ps, err := a.Part(part)
	require.NoError(t, err)
	return ps
}

// hpccRPOf builds the rp part from settings.
func hpccRPOf(t *testing.T, settings string) *rp.HPCC {
	t.Helper()
	p, err := cc.New("hpcc", "rp", settings)
	require.NoError(t, err, settings)
	h, ok := p.(*rp.HPCC)
	require.True(t, ok)
	return h
}

// hpccSameConfig compares two rp configurations, the codecs by their
// configuration.
func hpccSameConfig(t *testing.T, want, got rp.HPCCConfig, msg string) {
	t.Helper()
	require.Equal(t, want.Codec.Config(), got.Codec.Config(), msg)
	want.Codec, got.Codec = nil, nil
	require.Equal(t, want, got, msg)
}

// TestHPCCRegistryPresets: every part and preset builds, at the default
// link (100 Gb/s) and another, into exactly what the package's preset
// function gives.
func TestHPCCRegistryPresets(t *testing.T) {
	for _, tc := range []struct {
		settings string
		want     rp.HPCCConfig
	}{
		{"", rp.HPCCPaperSim(100 * units.Gbps)},
		{"preset=papersim", rp.HPCCPaperSim(100 * units.Gbps)},
		{"preset=testbed", rp.HPCCTestbed(100 * units.Gbps)},
		{"preset=testbed, link=25Gbps", rp.HPCCTestbed(25 * units.Gbps)},
		{"link=400Gbps", rp.HPCCPaperSim(400 * units.Gbps)},
	} {
		ref, err := rp.NewHPCC(tc.want)
		require.NoError(t, err)
		hpccSameConfig(t, ref.Config(), hpccRPOf(t, tc.settings).Config(), tc.settings)
	}
	// The paper's numbers (section 5.1) at the default link.
	w := hpccRPOf(t, "").Config().Window
	require.Equal(t, 13*units.Microsecond, w.T)
	require.Equal(t, units.Bytes(162500), w.Init)
	require.Equal(t, units.Bytes(1625), w.Min)
	require.Equal(t, units.Bytes(80), w.AI)
	require.Equal(t, window.Eta95, w.Eta)

	p, err := cc.NewCP("hpcc", "cp", "")
	require.NoError(t, err)
	c := p.(*cp.HPCC)
	require.Equal(t, 100*units.Gbps, c.Config().Rate)
	require.Equal(t, inttel.DefaultConfig(), c.Config().Codec.Config())
	for _, preset := range []string{"papersim", "testbed"} {
		p, err = cc.NewCP("hpcc", "cp", "preset="+preset+", link=25Gbps, switch_id=0x5a5, port_tx_bytes=on")
		require.NoError(t, err)
		cfg := p.(*cp.HPCC).Config()
		require.Equal(t, cp.HPCCConfig{SwitchID: 0x5a5, Rate: 25 * units.Gbps, Codec: cfg.Codec, PortTxBytes: true}, cfg)
	}
}

// TestHPCCRegistryEnv: where the part runs (cc.Env) sets what the paper
// derives from it, and an explicit setting still wins. The rp: T is the
// flow's base RTT and W_AI the rule of section 3.3 at that T, W_init =
// line rate·T; the cp: the port's rate and the switch's ID. Without an
// environment (or with its fields unknown) the presets stand.
func TestHPCCRegistryEnv(t *testing.T) {
	spec := hpccSpec(t, "rp").Config
	build := func(env *cc.Env, settings string) rp.HPCCConfig {
		t.Helper()
		st, err := cc.ParseSettings(settings)
		require.NoError(t, err)
		p, err := spec.Build("hpcc rp", env, st)
		require.NoError(t, err, settings)
		return p.(*rp.HPCC).Config()
	}
	rtt := 4189440 * units.Picosecond // the 100 Gb/s star's, with INT
	env := &cc.Env{Rate: 100 * units.Gbps, BaseRTT: rtt}
	w := build(env, "").Window
	require.Equal(t, rtt, w.T)
	require.Equal(t, units.Bytes(52368), w.Init)             // 100 Gb/s × T / 8
	require.Equal(t, units.Bytes(52368*5/100/100), w.AI)     // ⌊W_init·(1 − η)/100⌋ = 26 B
	require.Equal(t, units.Bytes(523), w.Min)                // 1 Gb/s × T / 8
	require.Equal(t, w, build(env, "preset=testbed").Window) // the same rules, whatever the preset's T
	require.Equal(t, w, build(env, "wai=0").Window)          // 0 is the rule
	require.Equal(t, units.Bytes(80), build(env, "wai=80").Window.AI)
	w = build(env, "t=13us, eta=0.9").Window // the rule follows T and η
	require.Equal(t, 13*units.Microsecond, w.T)
	require.Equal(t, units.Bytes(162500*10/100/100), w.AI)
	w = build(&cc.Env{Rate: 25 * units.Gbps}, "").Window // base RTT unknown: the preset
	require.Equal(t, 13*units.Microsecond, w.T)
	require.Equal(t, units.Bytes(40625), w.Init)
	require.Equal(t, units.Bytes(80), w.AI)
	want := rp.HPCCPaperSim(25 * units.Gbps).Window
	want.Table = w.Table // resolved by the part
	require.Equal(t, want, w)

	cpSpec := hpccSpec(t, "cp").Config
	p, err := cpSpec.Build("hpcc cp", &cc.Env{Rate: 40 * units.Gbps, SwitchID: 0x123, Node: 7, Port: 3}, nil)
	require.NoError(t, err)
	cfg := p.(*cp.HPCC).Config()
	require.Equal(t, uint16(0x123), cfg.SwitchID)
	require.Equal(t, 40*units.Gbps, cfg.Rate)
	require.False(t, cfg.PortTxBytes, "the registry's default counts the queue's own packets")
	p, err = cpSpec.Build("hpcc cp", &cc.Env{Rate: 40 * units.Gbps, SwitchID: 0x123}, []cc.Setting{{Name: "switch_id", Value: "9"}})
	require.NoError(t, err)
	require.Equal(t, uint16(9), p.(*cp.HPCC).Config().SwitchID)
}

// TestHPCCRegistrySettings: each setting reaches its field; t alone keeps
// W_init = link·T and W_min = 1 Gb/s·T, as the presets do.
func TestHPCCRegistrySettings(t *testing.T) {
	h := hpccRPOf(t, "t=9us, eta=0.9, max_stage=0, fast_react=off, multi_rate=on, initial_u=one, native_division=on, wai=50B")
	c := h.Config()
	require.Equal(t, 9*units.Microsecond, c.Window.T)
	require.Equal(t, units.Bytes(112500), c.Window.Init) // 100 Gb/s × 9 µs / 8
	require.Equal(t, units.Bytes(112500), c.Window.Max)
	require.Equal(t, units.Bytes(1125), c.Window.Min) // 1 Gb/s × 9 µs / 8
	q, err := fixedpoint.UQ32_32FromFloat(0.9)
	require.NoError(t, err)
	require.Equal(t, q, c.Window.Eta)
	require.Equal(t, 0, c.Window.MaxStage)
	require.Equal(t, units.Bytes(50), c.Window.AI)
	require.False(t, c.FastReact)
	require.True(t, c.MultiRate)
	require.True(t, c.Window.NativeDivision)
	require.Equal(t, rp.HPCCInitialUOne, c.InitialU)
	require.Equal(t, fixedpoint.UQ32_32One, h.U())

	c = hpccRPOf(t, "w_init=100KB, w_min=2KB, w_max=200KB, int_max_hops=7, int_tx_bytes_unit=256B, int_qlen_unit=160B, int_ts_unit=2ns").Config()
	require.Equal(t, units.Bytes(100000), c.Window.Init)
	require.Equal(t, units.Bytes(2000), c.Window.Min)
	require.Equal(t, units.Bytes(200000), c.Window.Max)
	ic := c.Codec.Config()
	require.Equal(t, 7, ic.MaxHops)
	require.Equal(t, units.Bytes(256), ic.TxBytesUnit)
	require.Equal(t, units.Bytes(160), ic.QLenUnit)
	require.Equal(t, 2*units.Nanosecond, ic.TSUnit)

	p, err := cc.New("hpcc", "cp", "int_max_hops=3, rate=400Gbps")
	require.NoError(t, err)
	require.Equal(t, 3, p.(*cp.HPCC).Config().Codec.MaxHops())
	require.Equal(t, 400*units.Gbps, p.(*cp.HPCC).Config().Rate)
}

// TestHPCCRegistryBadValues: a bad value is a *cc.ConfigError naming the
// parameter (the description's check) or the Config field (New's).
func TestHPCCRegistryBadValues(t *testing.T) {
	for _, tc := range []struct {
		part, settings, field string
	}{
		{"rp", "t=5ns", "t"},
		{"rp", "t=fast", "t"},
		{"rp", "eta=0.4", "eta"},
		{"rp", "eta=1.01", "eta"},
		{"rp", "max_stage=256", "max_stage"},
		{"rp", "initial_u=two", "initial_u"},
		{"rp", "w_init=5GB", "w_init"},
		{"rp", "int_max_hops=16", "int_max_hops"},
		{"rp", "w_min=200KB", "Window.Min"}, // above W_init: New's check
		{"rp", "wai=200KB", "Window.AI"},    // above W_max
		{"rp", "link=1Tbps", "Window.Init"}, // 1 Tb/s × 13 µs is fine, but …
		{"cp", "switch_id=4096", "switch_id"},
		{"cp", "rate=5Gbps", "rate"},
		{"cp", "rate=99Gbps", "Rate"}, // in range, but no speed code: New's check
		{"cp", "port_tx_bytes=maybe", "port_tx_bytes"},
	} {
		_, err := cc.New("hpcc", tc.part, tc.settings)
		if tc.settings == "link=1Tbps" {
			// … 1 Tb/s has no speed code for the cp, and the rp builds.
			require.NoError(t, err)
			_, err = cc.New("hpcc", "cp", tc.settings)
			tc.field = "Rate"
		}
		require.ErrorIs(t, err, cc.ErrConfig, tc.settings)
		var ce *cc.ConfigError
		require.ErrorAs(t, err, &ce, tc.settings)
		require.Equal(t, tc.field, ce.Field, "%s: %v", tc.settings, err)
	}
}

// TestHPCCRegistryUnknownParam: an unknown parameter lists the known ones.
func TestHPCCRegistryUnknownParam(t *testing.T) {
	_, err := cc.New("hpcc", "rp", "w_ai=80B")
	require.ErrorIs(t, err, cc.ErrUnknown)
	for _, name := range []string{"preset", "link", "t", "w_init", "w_min", "w_max", "wai", "eta", "max_stage",
		"fast_react", "multi_rate", "initial_u", "native_division", "int_max_hops", "int_tx_bytes_unit", "int_qlen_unit", "int_ts_unit"} {
		require.ErrorContains(t, err, name)
	}
	_, err = cc.New("hpcc", "cp", "kmin=1")
	require.ErrorIs(t, err, cc.ErrUnknown)
	for _, name := range []string{"switch_id", "rate", "port_tx_bytes", "int_max_hops"} {
		require.ErrorContains(t, err, name)
	}
	_, err = cc.New("hpcc", "np", "")
	require.ErrorIs(t, err, cc.ErrUnknown)
}

// TestHPCCRegistryDefaultsRoundTrip: setting a parameter to its listed
// default changes nothing, for every parameter of both parts.
func TestHPCCRegistryDefaultsRoundTrip(t *testing.T) {
	for _, part := range []string{"cp", "rp"} {
		ps := hpccSpec(t, part)
		d := ps.Config.Describe()
		require.Equal(t, hpccLink, d.Link)
		base, err := cc.New("hpcc", part, "")
		require.NoError(t, err)
		for _, p := range d.Params {
			require.NotEmpty(t, p.Doc, p.Name)
			require.NotEmpty(t, p.Source, p.Name)
			if p.Kind == cc.KindInt || p.Kind == cc.KindFloat {
				require.NotEmpty(t, p.Unit, p.Name)
			}
			got, err := cc.New("hpcc", part, p.Name+"="+p.Default)
			require.NoError(t, err, "%s=%s", p.Name, p.Default)
			require.Equal(t, base.AppendRegisters(nil), got.AppendRegisters(nil), "%s=%s", p.Name, p.Default)
			hpccSamePart(t, base, got, p.Name)
		}
	}
}

// hpccSamePart compares two parts' configurations.
func hpccSamePart(t *testing.T, a, b cc.Part, msg string) {
	t.Helper()
	switch a := a.(type) {
	case *rp.HPCC:
		hpccSameConfig(t, a.Config(), b.(*rp.HPCC).Config(), msg)
	case *cp.HPCC:
		ca, cb := a.Config(), b.(*cp.HPCC).Config()
		require.Equal(t, ca.Codec.Config(), cb.Codec.Config(), msg)
		ca.Codec, cb.Codec = nil, nil
		require.Equal(t, ca, cb, msg)
	}
}

// hpccRangeDependsOnOthers lists the bounds New narrows by another field:
// W_min ≤ W_init and W_AI ≤ W_max.
var hpccRangeDependsOnOthers = map[string]bool{"w_min.max": true, "wai.max": true}

// TestHPCCRegistryRanges: every listed bound is accepted by New (where the
// range does not depend on another field) and a value just outside it is
// refused by the description, naming the parameter.
func TestHPCCRegistryRanges(t *testing.T) {
	for _, part := range []string{"cp", "rp"} {
		for _, p := range hpccSpec(t, part).Config.Describe().Params {
			for side, bound := range map[string]string{"min": p.Min, "max": p.Max} {
				if bound == "" {
					continue
				}
				if !hpccRangeDependsOnOthers[p.Name+"."+side] {
					_, err := cc.New("hpcc", part, p.Name+"="+bound)
					require.NoError(t, err, "%s %s=%s", part, p.Name, bound)
				}
				out := hpccOutside(t, p, bound, side == "max")
				_, err := cc.New("hpcc", part, p.Name+"="+out)
				var ce *cc.ConfigError
				require.ErrorAs(t, err, &ce, "%s %s=%s", part, p.Name, out)
				require.Equal(t, p.Name, ce.Field, "%s=%s: %v", p.Name, out, err)
			}
		}
	}
}

// hpccOutside returns the value one step beyond bound (one unit of the
// kind's resolution: 1 ps, 1 B, 1 bit/s, 1, or 10^-9 for a real).
func hpccOutside(t *testing.T, p cc.Param, bound string, above bool) string {
	t.Helper()
	step := int64(-1)
	if above {
		step = 1
	}
	switch p.Kind {
	case cc.KindTime:
		v, err := units.ParseTime(bound)
		require.NoError(t, err)
		return (v + units.Time(step)).String()
	case cc.KindBytes:
		v, err := units.ParseBytes(bound)
		require.NoError(t, err)
		return strconv.FormatInt(int64(v)+step, 10) + "B"
	case cc.KindRate:
		v, err := units.ParseRate(bound)
		require.NoError(t, err)
		return strconv.FormatInt(int64(v)+step, 10) + "bps"
	case cc.KindInt:
		v, err := strconv.ParseInt(bound, 0, 64)
		require.NoError(t, err)
		return strconv.FormatInt(v+step, 10)
	case cc.KindFloat:
		v, err := strconv.ParseFloat(bound, 64)
		require.NoError(t, err)
		return strconv.FormatFloat(v+float64(step)*1e-9, 'g', -1, 64)
	}
	t.Fatalf("%s: no bounds expected on a %v", p.Name, p.Kind)
	return ""
}

// TestHPCCRegistryNewReturnsNilInterface: a constructor error leaves no
// typed nil behind the cc.Part interface.
func TestHPCCRegistryNewReturnsNilInterface(t *testing.T) {
	p, err := cc.New("hpcc", "cp", "rate=99Gbps")
	require.Error(t, err)
	require.Nil(t, p)
	require.True(t, p == nil)
	p, err = cc.New("hpcc", "rp", "w_min=1MB")
	require.Error(t, err)
	require.True(t, p == nil)
	require.False(t, errors.Is(err, cc.ErrUnknown))
}
