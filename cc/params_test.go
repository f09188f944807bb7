package cc_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
)

// demoConfig has a field of every kind a Spec handles.
type demoConfig struct {
	Period  units.Time
	Queue   units.Bytes
	Link    units.Rate
	Gain    float64
	Bits    uint8
	Offset  int32
	On      bool
	Mode    uint8
	Derived units.Rate // set from the link by the preset
}

// demoPart is a part that does nothing, holding its configuration.
type demoPart struct {
	cfg demoConfig
	cc.Monotonic
}

func (d *demoPart) NextDeadline() units.Time { return units.MaxTime }
func (d *demoPart) Timer(now units.Time, _ *cc.Actions) error {
	return d.Accept("demo", "Timer", now)
}
func (d *demoPart) AppendRegisters(dst []cc.Register) []cc.Register {
	return append(dst, d.Register())
}
func (d *demoPart) Receive(now units.Time, _ *cc.Packet, _ *cc.Actions) error {
	return d.Accept("demo", "Receive", now)
}
func (d *demoPart) Feedback(now units.Time, _ *cc.Feedback, _ *cc.Actions) error {
	return d.Accept("demo", "Feedback", now)
}

var _ cc.NotificationPoint = (*demoPart)(nil)

func demoSpec() *cc.Spec[demoConfig] {
	return &cc.Spec[demoConfig]{
		Link: 40 * units.Gbps,
		Presets: []cc.Preset[demoConfig]{
			{Name: "small", Doc: "the small one", Config: func(env cc.Env) demoConfig {
				link := env.Rate
				return demoConfig{Period: 40 * units.Microsecond, Queue: 150 * units.KB, Link: link, Gain: 0.3, Bits: 10, Mode: 1, Derived: link / 2}
			}},
			{Name: "big", Config: func(env cc.Env) demoConfig {
				link := env.Rate
				return demoConfig{Period: 100 * units.Microsecond, Queue: 300 * units.KB, Link: link, Gain: 0.45, Bits: 12, Mode: 2, Derived: link / 4}
			}},
		},
		Fields: []cc.Field[demoConfig]{
			{Param: cc.Param{Name: "t", Min: "1us", Max: "10ms", Doc: "period", Source: "§VI"}, Ptr: func(c *demoConfig) any { return &c.Period }},
			{Param: cc.Param{Name: "qref", Min: "0", Max: "1MB"}, Ptr: func(c *demoConfig) any { return &c.Queue }},
			{Param: cc.Param{Name: "rate"}, Ptr: func(c *demoConfig) any { return &c.Link }},
			{Param: cc.Param{Name: "gain", Min: "0", Max: "256"}, Ptr: func(c *demoConfig) any { return &c.Gain }},
			{Param: cc.Param{Name: "bits", Unit: "bits", Min: "1", Max: "16"}, Ptr: func(c *demoConfig) any { return &c.Bits }},
			{Param: cc.Param{Name: "offset", Unit: "B"}, Ptr: func(c *demoConfig) any { return &c.Offset }},
			{Param: cc.Param{Name: "on"}, Ptr: func(c *demoConfig) any { return &c.On }},
			{Param: cc.Param{Name: "mode", Choices: []cc.Choice{{Name: "slot", Value: 1}, {Name: "interval", Value: 2}}}, Ptr: func(c *demoConfig) any { return &c.Mode }},
		},
		New: func(c demoConfig) (cc.Part, error) {
			if c.Bits > 12 && c.Mode == 1 {
				return nil, &cc.ConfigError{Field: "bits", Value: "13..16", Range: "≤ 12 in slot mode"}
			}
			if c.Offset == 7 {
				return nil, errors.New("seven is unlucky")
			}
			return &demoPart{cfg: c}, nil
		},
	}
}

func build(t *testing.T, settings string) (demoConfig, error) {
	t.Helper()
	st, err := cc.ParseSettings(settings)
	require.NoError(t, err)
	return demoSpec().Config("demo np", st)
}

func TestSpecAppliesEveryKind(t *testing.T) {
	c, err := build(t, "t=25us, qref=64KiB, rate=10Gbps, gain=1.5, bits=0x0c, offset=-5, on=yes, mode=INTERVAL")
	require.NoError(t, err)
	require.Equal(t, demoConfig{
		Period: 25 * units.Microsecond, Queue: 64 * 1024, Link: 10 * units.Gbps, Gain: 1.5, Bits: 12,
		Offset: -5, On: true, Mode: 2, Derived: 20 * units.Gbps, // the default preset at the default link
	}, c)
}

func TestSpecPresetAndLink(t *testing.T) {
	c, err := build(t, "preset=big, link=100Gbps")
	require.NoError(t, err)
	require.Equal(t, 100*units.Microsecond, c.Period)
	require.Equal(t, 25*units.Gbps, c.Derived, "big scales the link by 1/4")
	// A setting overrides the preset whatever the order.
	c, err = build(t, "t=5us, preset=big")
	require.NoError(t, err)
	require.Equal(t, 5*units.Microsecond, c.Period)
}

// TestSpecErrors: every refusal is a *cc.ConfigError naming the field, the
// value and the range.
func TestSpecErrors(t *testing.T) {
	cases := []struct{ settings, field, value, rng string }{
		{"t=0", "t", "0", "a time in 1us..10ms"},
		{"t=11ms", "t", "11ms", "a time in 1us..10ms"},
		{"t=40", "t", "40", "a time in 1us..10ms"}, // no unit
		{"qref=2MB", "qref", "2MB", "a size in 0..1MB"},
		{"gain=NaN", "gain", "NaN", "a number in 0..256"},
		{"gain=-0.1", "gain", "-0.1", "a number in 0..256"},
		{"bits=17", "bits", "17", "a whole number in 1..16"},
		{"offset=3000000000", "offset", "3000000000", "a whole number"}, // fits int64, not int32
		{"on=maybe", "on", "maybe", "on or off"},
		{"mode=burst", "mode", "burst", "one of slot, interval"},
		{"preset=huge", "preset", "huge", "one of small, big"},
		{"link=0", "link", "0", "a rate ≥ 1bps"},
		{"t=1us, t=2us", "t", "2us", "one value (given twice)"},
		{"nope=1", "nope", "1", "a known parameter (preset, link, t, qref, rate, gain, bits, offset, on, mode)"},
	}
	for _, c := range cases {
		_, err := build(t, c.settings)
		var ce *cc.ConfigError
		require.ErrorAs(t, err, &ce, c.settings)
		require.ErrorIs(t, err, cc.ErrConfig)
		require.Equal(t, "demo np", ce.Part)
		require.Equal(t, c.field, ce.Field, c.settings)
		require.Equal(t, c.value, ce.Value, c.settings)
		require.Equal(t, c.rng, ce.Range, c.settings)
		require.Contains(t, err.Error(), c.field, "the message names the field")
	}
	_, err := build(t, "nope=1")
	require.ErrorIs(t, err, cc.ErrUnknown)
}

func TestSpecBuildWrapsNewErrors(t *testing.T) {
	spec := demoSpec()
	_, err := spec.Build("demo np", nil, []cc.Setting{{"bits", "13"}})
	var ce *cc.ConfigError
	require.ErrorAs(t, err, &ce)
	require.Equal(t, "bits", ce.Field)
	require.Equal(t, "demo np", ce.Part, "Build names the part New left unnamed")
	_, err = spec.Build("demo np", nil, []cc.Setting{{"offset", "7"}})
	require.ErrorAs(t, err, &ce)
	require.Equal(t, "config", ce.Field)
	require.EqualError(t, err, "demo np: config: seven is unlucky")
	p, err := spec.Build("demo np", nil, nil)
	require.NoError(t, err)
	require.Equal(t, 10*units.Gbps*2, p.(*demoPart).cfg.Derived)
}

func TestSpecDescribe(t *testing.T) {
	d := demoSpec().Describe()
	require.Equal(t, 40*units.Gbps, d.Link)
	require.Equal(t, "small", d.Presets[0].Name)
	want := map[string][2]string{ // default, kind
		"t": {"40us", "time"}, "qref": {"150KB", "bytes"}, "rate": {"40Gbps", "rate"}, "gain": {"0.3", "float"},
		"bits": {"10", "int"}, "offset": {"0", "int"}, "on": {"off", "bool"}, "mode": {"slot", "choice"},
	}
	require.Len(t, d.Params, len(want))
	for _, p := range d.Params {
		require.Equal(t, want[p.Name][0], p.Default, p.Name)
		require.Equal(t, want[p.Name][1], p.Kind.String(), p.Name)
	}
	require.NoError(t, demoSpec().Check())
}

// TestSpecDefaultsRoundTrip: every default parses back to the same value.
func TestSpecDefaultsRoundTrip(t *testing.T) {
	spec := demoSpec()
	var st []cc.Setting
	for _, p := range spec.Describe().Params {
		st = append(st, cc.Setting{Name: p.Name, Value: p.Default})
	}
	c, err := spec.Config("demo", st)
	require.NoError(t, err)
	def, err := spec.Config("demo", nil)
	require.NoError(t, err)
	require.Equal(t, def, c)
}

func TestSpecCheckRefusesBadDescriptions(t *testing.T) {
	mutate := []func(s *cc.Spec[demoConfig]){
		func(s *cc.Spec[demoConfig]) { s.Presets = nil },
		func(s *cc.Spec[demoConfig]) { s.New = nil },
		func(s *cc.Spec[demoConfig]) { s.Fields[1].Name = "t" },                                          // duplicate
		func(s *cc.Spec[demoConfig]) { s.Fields[1].Name = "preset" },                                     // reserved
		func(s *cc.Spec[demoConfig]) { s.Fields[1].Name = "Q Ref" },                                      // not a key
		func(s *cc.Spec[demoConfig]) { s.Fields[0].Min = "fast" },                                        // bound does not parse
		func(s *cc.Spec[demoConfig]) { s.Fields[0].Max = "10us" },                                        // default 40us out of range
		func(s *cc.Spec[demoConfig]) { s.Fields[0].Ptr = func(c *demoConfig) any { return c } },          // not a field
		func(s *cc.Spec[demoConfig]) { s.Presets[0].Name = "Small" },                                     // upper case
		func(s *cc.Spec[demoConfig]) { s.Fields[0].Ptr = func(c *demoConfig) any { return &c.Derived } }, // a rate: "1us" is no rate
	}
	for i, m := range mutate {
		s := demoSpec()
		m(s)
		err := s.Check()
		require.Error(t, err, "mutation %d", i)
		require.ErrorIs(t, err, cc.ErrConfig)
	}
}

func TestParseSettings(t *testing.T) {
	st, err := cc.ParseSettings(" A = 1 ,b=2\nc=3;; ")
	require.NoError(t, err)
	require.Equal(t, []cc.Setting{{"a", "1"}, {"b", "2"}, {"c", "3"}}, st)
	st, err = cc.ParseSettings("")
	require.NoError(t, err)
	require.Empty(t, st)
	_, err = cc.ParseSettings("a=1, b")
	require.ErrorIs(t, err, cc.ErrConfig)
	_, err = cc.ParseSettings("=3")
	require.ErrorIs(t, err, cc.ErrConfig)
	require.Equal(t, []cc.Setting{{"a", "1"}, {"b", "2"}}, cc.SettingsOf(map[string]string{"B": "2", "a": "1"}))
}

func TestParamRange(t *testing.T) {
	require.Equal(t, "a time ≥ 1us", cc.Param{Kind: cc.KindTime, Min: "1us"}.Range())
	require.Equal(t, "a rate ≤ 1Tbps", cc.Param{Kind: cc.KindRate, Max: "1Tbps"}.Range())
	require.Equal(t, "a size", cc.Param{Kind: cc.KindBytes}.Range())
	require.True(t, strings.HasPrefix(cc.KindChoice.String(), "choice"))
}

// TestSpecEnv: the environment scales the preset (its Rate is the default
// link), the Env hook derives what depends on it, and explicit settings
// still win over both.
func TestSpecEnv(t *testing.T) {
	spec := demoSpec()
	spec.Env = func(c *demoConfig, env cc.Env) {
		if env.BaseRTT > 0 {
			c.Period = env.BaseRTT
		}
	}
	env := &cc.Env{Rate: 100 * units.Gbps, BaseRTT: 12 * units.Microsecond}
	c, err := spec.ConfigIn("demo", env, nil)
	require.NoError(t, err)
	require.Equal(t, 100*units.Gbps, c.Link, "the preset scaled to the environment's rate")
	require.Equal(t, 50*units.Gbps, c.Derived)
	require.Equal(t, 12*units.Microsecond, c.Period, "the hook")
	c, err = spec.ConfigIn("demo", env, []cc.Setting{{"t", "5us"}, {"link", "10Gbps"}})
	require.NoError(t, err)
	require.Equal(t, 5*units.Microsecond, c.Period, "a setting wins over the hook")
	require.Equal(t, 10*units.Gbps, c.Link, "and link over the environment")
	c, err = spec.ConfigIn("demo", &cc.Env{}, nil)
	require.NoError(t, err)
	require.Equal(t, 40*units.Microsecond, c.Period, "zero fields are unknown: the preset stands")
	require.Equal(t, 40*units.Gbps, c.Link)
}
