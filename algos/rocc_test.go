package algos

import (
	"math/big"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cp"
	"github.com/hwcc/hwcc/pi"
	"github.com/hwcc/hwcc/rp"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// roccSpecs returns the registered Specs of the three parts.
func roccSpecs(t *testing.T) (cpSpec *cc.Spec[cp.RoCCConfig], hostSpec *cc.Spec[pi.Config], rpSpec *cc.Spec[roccRPConfig]) {
	t.Helper()
	a, err := cc.Lookup("rocc")
	require.NoError(t, err)
	require.Equal(t, "RoCC", a.Title)
	var roles []cc.Role
	for _, name := range []string{"cp", "hostcp", "rp"} {
		p, err := a.Part(name)
		require.NoError(t, err)
		roles = append(roles, p.Role)
		switch name {
		case "cp":
			cpSpec = p.Config.(*cc.Spec[cp.RoCCConfig])
		case "hostcp":
			hostSpec = p.Config.(*cc.Spec[pi.Config])
		case "rp":
			rpSpec = p.Config.(*cc.Spec[roccRPConfig])
		}
	}
	require.Equal(t, []cc.Role{cc.RoleCP, cc.RoleRP, cc.RoleRP}, roles, "one part, one role: hostcp is a reaction point")
	return cpSpec, hostSpec, rpSpec
}

// roccSettings splits s into settings.
func roccSettings(t *testing.T, s string) []cc.Setting {
	t.Helper()
	st, err := cc.ParseSettings(s)
	require.NoError(t, err)
	return st
}

// roccRPWant is package rp's preset c as the registry builds it: the
// recovery timer 55 µs·T/40 µs with T the cp preset's of the same name.
func roccRPWant(c rp.RoCCConfig, t units.Time) rp.RoCCConfig {
	c.RecoveryPeriod = t * 55 / 40
	return c
}

// Every part builds by name with every preset, plays its role and is the
// package's type; the presets are the packages' preset functions (the rp's
// with its recovery timer scaled to the preset's T), auto the 40 Gb/s
// simulation setting at the default link.
func TestRoCCRegistryBuilds(t *testing.T) {
	cs, hs, rs := roccSpecs(t)
	cpPresets := map[string]cp.RoCCConfig{"auto": cp.RoCC40G(), "40g": cp.RoCC40G(), "100g": cp.RoCC100G(), "dpdk10g": cp.RoCCDPDK10G(), "tofino40g": cp.RoCCTofino40G()}
	rpPresets := map[string]rp.RoCCConfig{"auto": rp.RoCC40G(), "40g": rp.RoCC40G(), "100g": rp.RoCC100G(),
		"dpdk10g": roccRPWant(rp.RoCCDPDK10G(), 100*units.Microsecond), "tofino40g": roccRPWant(rp.RoCCTofino40G(), 20*units.Microsecond)}
	require.Equal(t, 137500*units.Nanosecond, rpPresets["dpdk10g"].RecoveryPeriod)
	require.Equal(t, 27500*units.Nanosecond, rpPresets["tofino40g"].RecoveryPeriod)
	for name, want := range cpPresets {
		s := "preset=" + name
		c, err := cc.NewCP("rocc", "cp", s)
		require.NoError(t, err, s)
		require.IsType(t, &cp.RoCC{}, c, s)
		require.Equal(t, want, c.(*cp.RoCC).Config(), s)
		h, err := cc.NewRP("rocc", "hostcp", s)
		require.NoError(t, err, s)
		require.IsType(t, &rp.RoCCHost{}, h, s)
		require.Equal(t, want.Config, h.(*rp.RoCCHost).Params().Config(), s)
		r, err := cc.NewRP("rocc", "rp", s)
		require.NoError(t, err, s)
		require.IsType(t, &rp.RoCC{}, r, s)
		require.Equal(t, rpPresets[name], r.(*rp.RoCC).Config(), s)
	}
	// The first preset is the default: auto, at the default link 40 Gb/s.
	// New derives what the presets leave 0: the eviction age (10 T) and
	// the recovery timer (from T).
	wantCP := cp.RoCC40G()
	wantCP.FlowMaxAge = 0
	c, err := cs.Config("cp", nil)
	require.NoError(t, err)
	require.Equal(t, wantCP, c)
	hc, err := hs.Config("hostcp", nil)
	require.NoError(t, err)
	require.Equal(t, wantCP.Config, hc)
	wantRP := rp.RoCC40G()
	wantRP.RecoveryPeriod = 0
	r, err := rs.Config("rp", nil)
	require.NoError(t, err)
	require.Equal(t, roccRPConfig{RoCCConfig: wantRP, T: 40 * units.Microsecond}, r)
	for _, spec := range []cc.Configurer{cs, hs, rs} {
		require.Equal(t, 40*units.Gbps, spec.Describe().Link, "auto's default link")
		require.Equal(t, "auto", spec.Describe().Presets[0].Name)
	}
	// The options set their fields.
	c, err = cs.Config("cp", roccSettings(t, "initial_f=zero, rounding=floor, rate_frac_bits=0, message=report_f, flow_table=aged, t=20us, fmax=10Gbps, switch=167772161, port=3"))
	require.NoError(t, err)
	require.Equal(t, pi.InitialZero, c.InitialF)
	require.Equal(t, pi.RoundFloor, c.Rounding)
	require.Zero(t, c.RateFracBits)
	require.Equal(t, cp.RoCCSendReportF, c.Message)
	require.Equal(t, cp.RoCCAgedTable, c.FlowTable)
	require.Equal(t, 20*units.Microsecond, c.Period)
	require.Equal(t, 10*units.Gbps, c.FMax)
	require.Equal(t, [2]uint64{0x0a000001, 3}, [2]uint64{uint64(c.Switch), uint64(c.Port)})
}

// The auto preset is the paper's simulation setting for the link: 40g up
// to 40 Gb/s, 100g above, with Fmax and Rmax the link rate in whole ΔF.
func TestRoCCRegistryAuto(t *testing.T) {
	for _, tc := range []struct {
		link    string
		want    func() cp.RoCCConfig
		wantRP  func() rp.RoCCConfig
		fmax    units.Rate
		comment string
	}{
		{"10Gbps", cp.RoCC40G, rp.RoCC40G, 10 * units.Gbps, "a 10 Gb/s port: the 40 Gb/s setting, Fmax 1000 ΔF"},
		{"40Gbps", cp.RoCC40G, rp.RoCC40G, 40 * units.Gbps, "the 40 Gb/s setting itself"},
		{"40000000001bps", cp.RoCC100G, rp.RoCC100G, 40 * units.Gbps, "above 40 Gb/s: the 100 Gb/s setting"},
		{"100Gbps", cp.RoCC100G, rp.RoCC100G, 100 * units.Gbps, "the 100 Gb/s setting itself"},
		{"25005Mbps", cp.RoCC40G, rp.RoCC40G, 25 * units.Gbps, "rounded down to a whole ΔF"},
	} {
		c, err := cc.NewCP("rocc", "cp", "link="+tc.link)
		require.NoError(t, err, tc.comment)
		want := tc.want()
		want.FMax = tc.fmax
		require.Equal(t, want, c.(*cp.RoCC).Config(), tc.comment)
		r, err := cc.NewRP("rocc", "rp", "link="+tc.link)
		require.NoError(t, err, tc.comment)
		wantRP := tc.wantRP()
		wantRP.RMax = tc.fmax
		require.Equal(t, wantRP, r.(*rp.RoCC).Config(), tc.comment)
		h, err := cc.NewRP("rocc", "hostcp", "link="+tc.link)
		require.NoError(t, err, tc.comment)
		require.Equal(t, want.Config, h.(*rp.RoCCHost).Params().Config(), tc.comment)
	}
	// A named preset does not scale with the link.
	c, err := cc.NewCP("rocc", "cp", "preset=40g, link=10Gbps")
	require.NoError(t, err)
	require.Equal(t, cp.RoCC40G(), c.(*cp.RoCC).Config())
}

// Where a part runs sets what depends on it, whatever the preset: a CP's
// Fmax is its port's rate (in whole ΔF) and its CNPs name its switch and
// port; an RP's Rmax is its NIC's line rate. An explicit setting wins.
func TestRoCCRegistryEnv(t *testing.T) {
	env := &cc.Env{Rate: 10*units.Gbps + 3*units.Mbps, Node: 12, Port: 4, SwitchID: 2}
	for _, preset := range []string{"auto", "40g", "100g", "dpdk10g", "tofino40g"} {
		p, err := cc.NewIn(env, "rocc", "cp", roccSettings(t, "preset="+preset))
		require.NoError(t, err, preset)
		cfg := p.(*cp.RoCC).Config()
		require.Equal(t, 10*units.Gbps, cfg.FMax, preset)
		require.Equal(t, [2]uint64{12, 4}, [2]uint64{uint64(cfg.Switch), uint64(cfg.Port)}, "%s: switch = the node", preset)
		require.Equal(t, uint64(12)<<16|4, p.(*cp.RoCC).CNP(1).CP(), preset)
		r, err := cc.NewIn(env, "rocc", "rp", roccSettings(t, "preset="+preset))
		require.NoError(t, err, preset)
		require.Equal(t, 10*units.Gbps, r.(*rp.RoCC).Config().RMax, preset)
	}
	// auto picks its setting by the environment's rate.
	p, err := cc.NewIn(&cc.Env{Rate: 100 * units.Gbps}, "rocc", "cp", nil)
	require.NoError(t, err)
	require.Equal(t, 300*units.KB, p.(*cp.RoCC).Config().QRef)
	p, err = cc.NewIn(env, "rocc", "cp", roccSettings(t, "fmax=5Gbps, switch=1, port=2"))
	require.NoError(t, err)
	cfg := p.(*cp.RoCC).Config()
	require.Equal(t, [3]uint64{uint64(5 * units.Gbps), 1, 2}, [3]uint64{uint64(cfg.FMax), uint64(cfg.Switch), uint64(cfg.Port)})
	// A port the rate field cannot describe is New's error.
	_, err = cc.NewIn(&cc.Env{Rate: 50 * units.Mbps}, "rocc", "cp", nil)
	var ce *cc.ConfigError
	require.ErrorAs(t, err, &ce)
	require.Equal(t, "FMax", ce.Field)
}

// The derived defaults follow t: the eviction age is 10 t and the RP's
// recovery timer 55 µs·t/40 µs, unless set.
func TestRoCCRegistryDerived(t *testing.T) {
	c, err := cc.NewCP("rocc", "cp", "t=20us, flow_table=aged")
	require.NoError(t, err)
	require.Equal(t, 200*units.Microsecond, c.(*cp.RoCC).Config().FlowMaxAge)
	c, err = cc.NewCP("rocc", "cp", "t=20us, flow_max_age=1ms")
	require.NoError(t, err)
	require.Equal(t, units.Millisecond, c.(*cp.RoCC).Config().FlowMaxAge)
	for _, tc := range []struct {
		settings string
		want     units.Time
	}{
		{"", 55 * units.Microsecond},
		{"t=20us", 27500 * units.Nanosecond},
		{"preset=dpdk10g", 137500 * units.Nanosecond},
		{"preset=dpdk10g, t=40us", 55 * units.Microsecond},
		{"t=20us, recovery=1ms", units.Millisecond},
		{"t=1ps", units.Picosecond},
	} {
		r, err := cc.NewRP("rocc", "rp", tc.settings)
		require.NoError(t, err, tc.settings)
		require.Equal(t, tc.want, r.(*rp.RoCC).Config().RecoveryPeriod, tc.settings)
	}
	_, err = cc.NewRP("rocc", "rp", "t="+units.MaxTime.String())
	var ce *cc.ConfigError
	require.ErrorAs(t, err, &ce)
	require.Equal(t, "t", ce.Field)
	// roccRecovery is T·55/40 rounded down, exactly, up to the largest T
	// it takes.
	for _, tt := range []units.Time{1, 39, 40, 41, 40 * units.Microsecond, 12345678901, units.MaxTime / 56} {
		got, ok := roccRecovery(tt)
		require.True(t, ok, "%v", tt)
		want := new(big.Int).Div(new(big.Int).Mul(big.NewInt(int64(tt)), big.NewInt(55)), big.NewInt(40))
		require.Equal(t, want.Int64(), int64(got), "%v", tt)
	}
	_, ok := roccRecovery(units.MaxTime)
	require.False(t, ok)
}

// A value outside the description's range, or one New refuses, is a
// *cc.ConfigError naming the parameter (registry name) or the Config field
// (Go name, when New decides from several fields).
func TestRoCCRegistryBadValues(t *testing.T) {
	for _, c := range []struct {
		part, settings, field string
	}{
		{"cp", "t=0", "t"},
		{"cp", "t=40", "t"}, // no unit
		{"cp", "start=-1us", "start"},
		{"cp", "delta_q=0B", "delta_q"},
		{"cp", "alpha_bar=256", "alpha_bar"},
		{"cp", "beta_bar=0", "beta_bar"},
		{"cp", "gain_terms=17", "gain_terms"},
		{"cp", "queue_bits=1", "queue_bits"},
		{"cp", "rate_frac_bits=17", "rate_frac_bits"},
		{"cp", "initial_f=half", "initial_f"},
		{"cp", "rounding=up", "rounding"},
		{"cp", "flow_table=lru", "flow_table"},
		{"cp", "flow_capacity=0", "flow_capacity"},
		{"cp", "message=both", "message"},
		{"cp", "idle_gain=maybe", "idle_gain"},
		{"cp", "port=65536", "port"},
		{"cp", "switch=-1", "switch"},
		{"cp", "preset=200g", "preset"},
		{"cp", "link=0", "link"},
		{"hostcp", "alpha_bar=-1", "alpha_bar"},
		{"rp", "recovery=-1us", "recovery"},
		{"rp", "t=0", "t"},
		{"rp", "reaction_delay=-1us", "reaction_delay"},
		{"rp", "rmax=0", "rmax"},
	} {
		_, err := cc.New("rocc", c.part, c.settings)
		var ce *cc.ConfigError
		require.ErrorAs(t, err, &ce, "%s %s", c.part, c.settings)
		require.Equal(t, c.field, ce.Field, "%s %s: %v", c.part, c.settings, err)
	}
	// New's checks name the Config field.
	for _, c := range []struct{ part, settings, field string }{
		{"cp", "qmid=400KB", "QRef/QMid/QMax"}, // above Qmax = 360 KB
		{"cp", "fmax=40001Mbps", "FMax"},       // not a multiple of ΔF
		{"cp", "fmin=5Mbps", "FMin"},
		{"cp", "alpha_bar=0.000001", "AlphaBar"}, // rounds to 0 at 16 fraction bits
		{"cp", "gain_frac_bits=7", "GainFracBits"},
		{"cp", "idle_gain=on, qref=4KB", "QRef"},
		{"hostcp", "queue_bits=8", "QMax"}, // 600 ΔQ > 255
		{"rp", "rmax=40001Mbps", "RMax"},
		{"rp", "delta_f=1bps", "RMax"}, // 4·10^10 ΔF > 2^31 − 1
	} {
		_, err := cc.New("rocc", c.part, c.settings)
		var ce *cc.ConfigError
		require.ErrorAs(t, err, &ce, "%s %s", c.part, c.settings)
		require.Equal(t, c.field, ce.Field, "%s %s: %v", c.part, c.settings, err)
	}
}

// An unknown parameter's error lists the known ones.
func TestRoCCRegistryUnknown(t *testing.T) {
	_, err := cc.New("rocc", "cp", "kmin=1KB")
	require.ErrorIs(t, err, cc.ErrUnknown)
	require.ErrorContains(t, err, "preset, link, delta_q, delta_f, t, start, fmin, fmax, qref, qmid, qmax, alpha_bar, beta_bar, gain_terms, gain_frac_bits, queue_bits, rate_bits, rate_frac_bits, initial_f, rounding, flow_table, flow_capacity, flow_max_age, idle_gain, message, switch, port")
	_, err = cc.New("rocc", "hostcp", "t=40us") // the host has no timer
	require.ErrorIs(t, err, cc.ErrUnknown)
	require.ErrorContains(t, err, "preset, link, delta_q, delta_f, fmin, fmax, qref, qmid, qmax, alpha_bar, beta_bar, gain_terms, gain_frac_bits, queue_bits, rate_bits, rate_frac_bits, initial_f, rounding, idle_gain")
	_, err = cc.New("rocc", "rp", "flow_capacity=4")
	require.ErrorIs(t, err, cc.ErrUnknown)
	require.ErrorContains(t, err, "preset, link, rmax, delta_f, t, recovery, reaction_delay")
	_, err = cc.New("rocc", "np", "")
	require.ErrorIs(t, err, cc.ErrUnknown)
	require.ErrorContains(t, err, "one of cp, hostcp, rp")
}

// Every parameter's Default, given back as a setting, rebuilds the default
// preset's configuration (with the derived values still 0, so still
// derived); so do the other presets' values.
func TestRoCCRegistryDefaultsRoundTrip(t *testing.T) {
	cs, hs, rs := roccSpecs(t)
	settings := func(d cc.Description) []cc.Setting {
		var st []cc.Setting
		for _, p := range d.Params {
			require.NotEmpty(t, p.Default, p.Name)
			st = append(st, cc.Setting{Name: p.Name, Value: p.Default})
		}
		return st
	}
	def, err := cs.Config("cp", nil)
	require.NoError(t, err)
	c, err := cs.Config("cp", settings(cs.Describe()))
	require.NoError(t, err)
	require.Equal(t, def, c)
	hdef, err := hs.Config("hostcp", nil)
	require.NoError(t, err)
	h, err := hs.Config("hostcp", settings(hs.Describe()))
	require.NoError(t, err)
	require.Equal(t, hdef, h)
	rdef, err := rs.Config("rp", nil)
	require.NoError(t, err)
	r, err := rs.Config("rp", settings(rs.Describe()))
	require.NoError(t, err)
	require.Equal(t, rdef, r)
	// Tofino's ΔQ and T, through the same syntax.
	tf := cp.RoCCTofino40G()
	c, err = cs.Config("cp", roccSettings(t, "delta_q="+tf.DeltaQ.String()+", t="+tf.Period.String()+", qref="+tf.QRef.String()+
		", qmid="+tf.QMid.String()+", qmax="+tf.QMax.String()+", flow_max_age="+tf.FlowMaxAge.String()))
	require.NoError(t, err)
	require.Equal(t, tf, c)
}

// Each parameter's Min and Max build a part (with the other fields made
// compatible where New checks them together), and the values just outside
// are refused by the description.
func TestRoCCRegistryBounds(t *testing.T) {
	for _, c := range []struct {
		part, name, min, max, below, above, with string
	}{
		{"cp", "delta_q", "1B", "", "0B", "", "qref=1B, qmid=2B, qmax=3B"},
		{"cp", "delta_f", "1bps", "", "0", "", "fmin=1bps, fmax=1000bps"},
		{"cp", "t", "1ps", "", "0", "", ""},
		{"cp", "start", "0", "", "-1ps", "", ""},
		{"cp", "fmin", "1bps", "", "0", "", "delta_f=1bps, fmax=1000bps"},
		{"cp", "fmax", "2bps", "", "1bps", "", "delta_f=1bps, fmin=1bps"},
		{"cp", "qref", "0B", "", "-1B", "", ""},
		{"cp", "qmid", "1B", "", "0B", "", "delta_q=1B, qref=0B, qmax=2B"},
		{"cp", "qmax", "2B", "", "1B", "", "delta_q=1B, qref=0B, qmid=1B"},
		{"cp", "alpha_bar", roccGainMin, roccGainMax, "0.00000005", "256", "gain_frac_bits=24"},
		{"cp", "beta_bar", roccGainMin, roccGainMax, "0.00000005", "256", "gain_frac_bits=24"},
		{"cp", "gain_terms", "1", "16", "0", "17", ""},
		{"cp", "gain_frac_bits", "0", "24", "-1", "25", "rate_frac_bits=0, alpha_bar=1, beta_bar=2"},
		{"cp", "queue_bits", "2", "16", "1", "17", "delta_q=150KB, qref=0B, qmid=150KB, qmax=300KB"},
		{"cp", "rate_bits", "2", "16", "1", "17", "fmin=10Mbps, fmax=30Mbps"},
		{"cp", "rate_frac_bits", "0", "16", "-1", "17", ""},
		{"cp", "flow_capacity", "1", "1048576", "0", "1048577", ""},
		{"cp", "flow_max_age", "0", "", "-1ps", "", ""},
		{"cp", "switch", "0", "4294967295", "-1", "4294967296", ""},
		{"cp", "port", "0", "65535", "-1", "65536", ""},
		{"hostcp", "alpha_bar", roccGainMin, roccGainMax, "0.00000005", "256", "gain_frac_bits=24"},
		{"rp", "rmax", "1bps", "", "0", "", "delta_f=1bps"},
		{"rp", "delta_f", "1bps", "", "0", "", "rmax=1bps"},
		{"rp", "t", "1ps", "", "0", "", ""},
		{"rp", "recovery", "0", "", "-1ps", "", ""},
		{"rp", "reaction_delay", "0", "", "-1ps", "", ""},
	} {
		with := ""
		if c.with != "" {
			with = ", " + c.with
		}
		for _, v := range []string{c.min, c.max} {
			if v == "" {
				continue
			}
			_, err := cc.New("rocc", c.part, c.name+"="+v+with)
			require.NoError(t, err, "%s %s=%s", c.part, c.name, v)
		}
		for _, v := range []string{c.below, c.above} {
			if v == "" {
				continue
			}
			_, err := cc.New("rocc", c.part, c.name+"="+v+with)
			var ce *cc.ConfigError
			require.ErrorAs(t, err, &ce, "%s %s=%s", c.part, c.name, v)
			require.Equal(t, c.name, ce.Field, "%s %s=%s: the description refuses it", c.part, c.name, v)
		}
	}
}

// roccReg returns the value of register name in p's snapshot.
func roccReg(t *testing.T, p cc.Part, name string) uint64 {
	t.Helper()
	for _, r := range p.AppendRegisters(nil) {
		if r.Name == name {
			return r.Value
		}
	}
	t.Fatalf("no register %q", name)
	return 0
}

// The three parts, built by name, run [RoCC] §III-F end to end through the
// contract: the CP reports Qcur (message=report), the host computes F as
// the switch would, bit for bit (its f and qold registers are the switch's,
// fraction bits included, over a queue that ramps past Qmax and back, so
// every branch of Algorithm 1), its rate message is the one a switch
// computing F itself sends, and the rate reaches the flow's rp. The same
// with the authors' OMNeT++ arithmetic, and with report_f (F before the
// update in the report, whole ΔF) for a host that loses every 7th report:
// it counts the gaps and still gives a valid rate.
func TestRoCCRegistryHostPath(t *testing.T) {
	const flow = 42
	us := units.Microsecond
	for _, alg1 := range []string{"", ", initial_f=zero, rounding=floor, rate_frac_bits=0"} {
		sw, err := cc.NewCP("rocc", "cp", "message=report, switch=7, port=1, start=40us"+alg1)
		require.NoError(t, err)
		ref, err := cc.NewCP("rocc", "cp", "switch=7, port=1, start=40us"+alg1) // the switch computing F itself
		require.NoError(t, err)
		swF, err := cc.NewCP("rocc", "cp", "message=report_f, switch=7, port=1, start=40us"+alg1)
		require.NoError(t, err)
		host, err := cc.NewRP("rocc", "hostcp", strings.TrimPrefix(alg1, ", "))
		require.NoError(t, err)
		lossy, err := cc.NewRP("rocc", "hostcp", strings.TrimPrefix(alg1, ", "))
		require.NoError(t, err)
		lim, err := cc.NewRP("rocc", "rp", "")
		require.NoError(t, err)
		act, out := cc.NewActions(4), cc.NewActions(4)
		pkt := cc.Packet{Flow: flow, Size: 1000}
		for i := range 300 {
			now := units.Time(i+1) * 40 * us
			q := units.Bytes((i * 7919) % 420_000)
			var msgs [3]cc.Feedback
			for k, c := range []cc.CongestionPoint{sw, ref, swF} {
				act.Reset()
				// A packet of the flow joins the queue of q bytes just
				// before the update, and leaves just after.
				require.NoError(t, c.Enqueue(now-us, &pkt, cc.Queue{Len: q}, act))
				require.NoError(t, c.Timer(now, act))
				require.Equal(t, 1, act.Len())
				msgs[k] = act.At(0).Feedback
				require.NoError(t, c.Dequeue(now+us, &pkt, cc.Queue{}, act))
			}
			m, err := wire.DecodeRoCCFeedback(msgs[0].Data[:])
			require.NoError(t, err)
			require.Equal(t, wire.RoCCReportFeedback, m.Type)

			out.Reset()
			require.NoError(t, host.Feedback(now, &msgs[0], out))
			require.Equal(t, 1, out.Len())
			rate := out.At(0)
			require.Equal(t, cc.ActionFeedback, rate.Kind)
			require.Equal(t, cc.ToSource, rate.To)
			require.Equal(t, msgs[1], rate.Feedback, "update %d: the host's rate message is the switch's", i)
			for _, r := range []string{"f", "qold"} {
				require.Equal(t, roccReg(t, ref, r), roccReg(t, host, r), "update %d: register %s", i, r)
			}
			require.NoError(t, lim.Feedback(now, &rate.Feedback, nil))
			got, _ := wire.DecodeRoCCFeedback(msgs[1].Data[:])
			require.Equal(t, units.Rate(got.Rate)*10*units.Mbps, lim.Limits().Rate, "update %d", i)
			require.NoError(t, lim.Timer(now, nil))

			if i%7 != 6 {
				out.Reset()
				require.NoError(t, lossy.Feedback(now, &msgs[2], out))
				require.Equal(t, 1, out.Len())
			}
		}
		require.Zero(t, roccReg(t, host, "gaps"))
		require.NotZero(t, roccReg(t, lossy, "gaps"))
	}
}
