package algos

import (
	"fmt"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cp"
	"github.com/hwcc/hwcc/harness"
	"github.com/hwcc/hwcc/rp"
	"github.com/hwcc/hwcc/units"
)

// Unit tests of the "rocc" scheme (the generic adapter over the registry's
// rocc parts): parameters, the port-rate mapping, the RP's reaction delay
// and fast recovery, malformed CNPs, allocations.

func TestRoCCRegistered(t *testing.T) {
	a := roccScheme(t)
	require.Contains(t, harness.Schemes(), roccName, "run by the generic adapter")
	require.Equal(t, harness.Features{}, a.Features(), "RoCC needs neither ECN marking nor INT")
	np, err := a.NewNP(harness.FlowInfo{})
	require.NoError(t, err)
	require.Nil(t, np, "RoCC has no notification point")
	// The sender runs the rate limiter, not the host calculation of
	// section III-F (the registry's first reaction point).
	r, err := a.NewRP(roccTestFlow(nil))
	require.NoError(t, err)
	require.IsType(t, &rp.RoCC{}, r.(harness.PartHolder).Part())
	c, err := a.NewCP(harness.CPInfo{Rate: 40 * units.Gbps})
	require.NoError(t, err)
	require.IsType(t, &cp.RoCC{}, c.(harness.PartHolder).Part())
}

// roccCPPart returns the cp.RoCC of egress queue info under the scheme.
func roccCPPart(t testing.TB, info harness.CPInfo) *cp.RoCC {
	t.Helper()
	c, err := roccScheme(t).NewCP(info)
	require.NoError(t, err)
	return c.(harness.PartHolder).Part().(*cp.RoCC)
}

// roccCPCfg returns the configuration the scheme gives the CP of a port of
// rate r with params.
func roccCPCfg(t testing.TB, r units.Rate, params map[string]string) cp.RoCCConfig {
	t.Helper()
	return roccCPPart(t, harness.CPInfo{Node: 3, Port: 5, NodeName: "s", PeerName: "h", Rate: r, Params: params}).Params().Config()
}

// The scenario's parameters are the registry's settings (hwcc algos rocc),
// each going to the part that has it; a bad one is a *cc.ConfigError
// naming it, its value and its range.
func TestRoCCParams(t *testing.T) {
	a := roccScheme(t).(harness.ParamChecker)
	for _, p := range []map[string]string{
		nil, {"preset": "DPDK10G", "t": "20us", "reaction_delay": "0", "recovery": "1ms", "flow_capacity": "64", "idle_gain": "On"},
		{"t": "11ms"}, {"cp.t": "20us"}, {"rp.t": "20us"}, {"reaction_delay": "2ms"}, {"recovery": "500ns"},
		{"preset": "auto"}, {"cp.preset": "tofino40g", "rp.preset": "40g"}, {"link": "100Gbps"},
		{"flow_table": "aged", "flow_max_age": "1ms"}, {"delta_f": "10Mbps"}, {"rounding": "floor", "initial_f": "zero"},
	} {
		require.NoError(t, a.CheckParams(p), "%v", p)
	}
	for v, want := range map[string]bool{"on": true, "true": true, "1": true, "off": false, "FALSE": false, "0": false} {
		require.Equal(t, want, roccCPCfg(t, 40*units.Gbps, map[string]string{"idle_gain": v}).IdleGain,
			"param.idle_gain=%s reaches every CP", v)
	}
	for _, tc := range []struct {
		key, value    string
		field, range_ string
	}{
		{"preset", "50g", "preset", "one of auto, 40g, 100g, dpdk10g, tofino40g"},
		{"t", "0", "t", "a time ≥ 1ps"},
		{"t", "fast", "t", "a time ≥ 1ps"},
		{"rp.t", "-1us", "t", "a time ≥ 1ps"},
		{"reaction_delay", "-1us", "reaction_delay", "a time ≥ 0"},
		{"recovery", "-500ns", "recovery", "a time ≥ 0"},
		{"flow_capacity", "0", "flow_capacity", "a whole number in 1..1048576"},
		{"flow_capacity", "1048577", "flow_capacity", "a whole number in 1..1048576"},
		{"flow_capacity", "1e3", "flow_capacity", "a whole number in 1..1048576"},
		{"idle_gain", "maybe", "idle_gain", "on or off"},
		{"eta", "0.95", "eta", "a parameter of rocc cp, rocc rp (hwcc algos rocc)"},
		{"rp.flow_capacity", "4", "rp.flow_capacity", "a parameter of rocc cp, rocc rp (hwcc algos rocc)"},
		{"xp.t", "1us", "xp.t", "a parameter, or cp., rp., np. or sw. and a parameter"},
	} {
		err := a.CheckParams(map[string]string{tc.key: tc.value})
		var ce *cc.ConfigError
		require.ErrorAs(t, err, &ce, "%s=%s", tc.key, tc.value)
		require.Equal(t, tc.field, ce.Field, "%s=%s", tc.key, tc.value)
		require.Equal(t, tc.range_, ce.Range, "%s=%s", tc.key, tc.value)
	}
	// A scenario with a bad parameter is refused before it runs.
	sc, err := harness.Builtin(roccMaxMinName)
	require.NoError(t, err)
	require.NoError(t, sc.Set("param.t", "0"))
	_, err = harness.Run(sc, harness.Options{})
	require.ErrorIs(t, err, cc.ErrConfig)
	require.ErrorContains(t, err, "t = 0")
}

// TestRoCCPresetMapping checks the port-rate mapping of the package
// documentation (RoCC presets and the port-rate mapping) against the
// paper's parameter tables ([RoCC] §VI, Table II), and the scaling
// Fmax = the port's rate.
func TestRoCCPresetMapping(t *testing.T) {
	kb := units.KB
	type want struct {
		period           units.Time
		qref, qmid, qmax units.Bytes
		alpha, beta      float64
		deltaQ           units.Bytes
		fmax             units.Rate
		capacity         int
	}
	auto := map[string]string{}
	for _, tc := range []struct {
		rate   units.Rate
		params map[string]string
		w      want
	}{
		// ≤ 40 Gb/s: the 40 Gb/s simulation preset, Fmax = the port.
		{10 * units.Gbps, auto, want{40 * units.Microsecond, 150 * kb, 300 * kb, 360 * kb, 0.3, 1.5, 600, 10 * units.Gbps, 1024}},
		{25 * units.Gbps, auto, want{40 * units.Microsecond, 150 * kb, 300 * kb, 360 * kb, 0.3, 1.5, 600, 25 * units.Gbps, 1024}},
		{40 * units.Gbps, auto, want{40 * units.Microsecond, 150 * kb, 300 * kb, 360 * kb, 0.3, 1.5, 600, 40 * units.Gbps, 1024}},
		// > 40 Gb/s: the 100 Gb/s preset.
		{100 * units.Gbps, auto, want{40 * units.Microsecond, 300 * kb, 600 * kb, 660 * kb, 0.45, 2.25, 600, 100 * units.Gbps, 1024}},
		{400 * units.Gbps, auto, want{40 * units.Microsecond, 300 * kb, 600 * kb, 660 * kb, 0.45, 2.25, 600, 400 * units.Gbps, 1024}},
		{40*units.Gbps + 1, map[string]string{"preset": "auto"}, want{40 * units.Microsecond, 300 * kb, 600 * kb, 660 * kb, 0.45, 2.25, 600, 40 * units.Gbps, 1024}},
		// Fmax rounds down to a whole ΔF.
		{10*units.Gbps + 9*units.Mbps, auto, want{40 * units.Microsecond, 150 * kb, 300 * kb, 360 * kb, 0.3, 1.5, 600, 10 * units.Gbps, 1024}},
		// Named presets on any port: the testbeds (VI-B, VI-C).
		{10 * units.Gbps, map[string]string{"preset": "dpdk10g"}, want{100 * units.Microsecond, 75 * kb, 150 * kb, 210 * kb, 0.3, 1.5, 600, 10 * units.Gbps, 1024}},
		{40 * units.Gbps, map[string]string{"preset": "tofino40g"}, want{20 * units.Microsecond, 75 * kb, 150 * kb, 210 * kb, 0.3, 1.5, 80, 40 * units.Gbps, 1024}},
		{40 * units.Gbps, map[string]string{"preset": "100g"}, want{40 * units.Microsecond, 300 * kb, 600 * kb, 660 * kb, 0.45, 2.25, 600, 40 * units.Gbps, 1024}},
		{100 * units.Gbps, map[string]string{"preset": "40g"}, want{40 * units.Microsecond, 150 * kb, 300 * kb, 360 * kb, 0.3, 1.5, 600, 100 * units.Gbps, 1024}},
		// param.t and flow_capacity apply to every port.
		{100 * units.Gbps, map[string]string{"t": "10us", "flow_capacity": "7"}, want{10 * units.Microsecond, 300 * kb, 600 * kb, 660 * kb, 0.45, 2.25, 600, 100 * units.Gbps, 7}},
		{100 * units.Gbps, map[string]string{"cp.t": "10us"}, want{10 * units.Microsecond, 300 * kb, 600 * kb, 660 * kb, 0.45, 2.25, 600, 100 * units.Gbps, 1024}},
	} {
		cfg := roccCPCfg(t, tc.rate, tc.params)
		require.Equal(t, tc.w.period, cfg.Period, "%v %v", tc.rate, tc.params)
		require.Equal(t, [3]units.Bytes{tc.w.qref, tc.w.qmid, tc.w.qmax}, [3]units.Bytes{cfg.QRef, cfg.QMid, cfg.QMax})
		require.Equal(t, [2]float64{tc.w.alpha, tc.w.beta}, [2]float64{cfg.AlphaBar, cfg.BetaBar})
		require.Equal(t, tc.w.deltaQ, cfg.DeltaQ)
		require.Equal(t, 10*units.Mbps, cfg.DeltaF)
		require.Equal(t, 100*units.Mbps, cfg.FMin, "Fmin = 10 ΔF on every port")
		require.Equal(t, tc.w.fmax, cfg.FMax)
		require.Equal(t, tc.w.capacity, cfg.FlowCapacity)
		require.Equal(t, cp.RoCCQueueTable, cfg.FlowTable, "the paper's default flow table")
		require.Equal(t, 10*cfg.Period, cfg.FlowMaxAge, "the eviction age is 10 T, whatever T")
		require.Equal(t, units.Time(0), cfg.Start)
		require.Equal(t, uint32(3), cfg.Switch, "the CNP names the switch's node ID")
		require.Equal(t, uint16(5), cfg.Port, "and the egress port")
	}
	// An explicit setting wins over where the part runs.
	cfg := roccCPCfg(t, 40*units.Gbps, map[string]string{"fmax": "20Gbps", "switch": "9", "port": "1", "flow_max_age": "1ms"})
	require.Equal(t, [4]uint64{uint64(20 * units.Gbps), 9, 1, uint64(units.Millisecond)},
		[4]uint64{uint64(cfg.FMax), uint64(cfg.Switch), uint64(cfg.Port), uint64(cfg.FlowMaxAge)})
	// Ports the 16-bit rate field cannot describe: the CP's configuration
	// error names Fmax, and the run names the port.
	for _, r := range []units.Rate{100 * units.Mbps, 50 * units.Mbps, 656 * units.Gbps} {
		_, err := roccScheme(t).NewCP(harness.CPInfo{NodeName: "s0", PeerName: "h1", Rate: r})
		var ce *cc.ConfigError
		require.ErrorAs(t, err, &ce, "%v", r)
		require.Equal(t, "FMax", ce.Field, "%v", r)
	}
	sc, err := harness.Builtin(roccMaxMinName)
	require.NoError(t, err)
	require.NoError(t, sc.Set("link", "50Mbps"))
	_, err = harness.Run(sc, harness.Options{NoSeries: true})
	require.ErrorContains(t, err, "CP of s0")
	require.ErrorContains(t, err, "FMax")
}

// TestRoCCPresetsShareDeltaF: the RP reads a CNP's rate in the ΔF it is
// configured with; every preset of both parts must use the same 10 Mb/s.
func TestRoCCPresetsShareDeltaF(t *testing.T) {
	a, err := cc.Lookup(roccName)
	require.NoError(t, err)
	for _, part := range []string{"cp", "rp"} {
		ps, err := a.Part(part)
		require.NoError(t, err)
		var names []string
		for _, pr := range ps.Config.Describe().Presets {
			names = append(names, pr.Name)
		}
		require.Equal(t, []string{"auto", "40g", "100g", "dpdk10g", "tofino40g"}, names, "%s: one preset setting for both parts", part)
	}
	for _, name := range []string{"auto", "40g", "100g", "dpdk10g", "tofino40g"} {
		p := map[string]string{"preset": name}
		cfg := roccCPCfg(t, 40*units.Gbps, p)
		require.Equal(t, 10*units.Mbps, cfg.DeltaF, name)
		require.Equal(t, 100*units.Mbps, cfg.FMin, name)
		require.Equal(t, 10*units.Mbps, roccTestRP(t, roccTestFlow(p)).part.Config().DeltaF, name)
	}
}

// TestRoCCRecovery: the default recovery timer is the authors' 55 µs at
// T = 40 µs, scaled with T: 55/40 = 1.375·T, T the preset's or param.t.
func TestRoCCRecovery(t *testing.T) {
	for _, tc := range []struct {
		params map[string]string
		want   units.Time
	}{
		{nil, 55 * units.Microsecond},
		{map[string]string{"preset": "100g"}, 55 * units.Microsecond},
		{map[string]string{"preset": "dpdk10g"}, 137500 * units.Nanosecond},
		{map[string]string{"preset": "tofino40g"}, 27500 * units.Nanosecond},
		{map[string]string{"preset": "tofino40g", "t": "80us"}, 110 * units.Microsecond},
		{map[string]string{"t": "8us"}, 11 * units.Microsecond},
		{map[string]string{"t": "8us", "recovery": "2ms"}, 2 * units.Millisecond},
		{map[string]string{"t": "3ps"}, 4 * units.Picosecond}, // 4.125 ps, rounded down
		// t for the CP alone leaves the RP's T, the preset's.
		{map[string]string{"cp.t": "8us"}, 55 * units.Microsecond},
		{map[string]string{"rp.t": "8us"}, 11 * units.Microsecond},
	} {
		cfg := roccTestRP(t, roccTestFlow(tc.params)).part.Config()
		require.Equal(t, tc.want, cfg.RecoveryPeriod, "%v", tc.params)
		// The recovery timer outlasts the CPs' T, so a congested CP's CNPs
		// (one per T) keep the limiter from doubling.
		if tc.params["recovery"] == "" && tc.params["cp.t"] == "" && tc.params["rp.t"] == "" {
			period := roccCPCfg(t, 40*units.Gbps, tc.params).Period
			require.Greater(t, cfg.RecoveryPeriod, period, "%v", tc.params)
		}
	}
	// A T whose recovery timer does not fit the time type is refused.
	_, err := roccScheme(t).NewRP(roccTestFlow(map[string]string{"t": units.MaxTime.String()}))
	var ce *cc.ConfigError
	require.ErrorAs(t, err, &ce)
	require.Equal(t, "t", ce.Field)
}

// roccTestFlow is a 40 Gb/s flow offered at the line rate.
func roccTestFlow(params map[string]string) harness.FlowInfo {
	return harness.FlowInfo{ID: 7, SrcName: "h1", DstName: "h0", LineRate: 40 * units.Gbps, Params: params}
}

// roccRP is the scheme's RP of a flow and the rp.RoCC it drives.
type roccRP struct {
	harness.RP
	part *rp.RoCC
}

// roccTestRP builds the scheme's RP for f.
func roccTestRP(t testing.TB, f harness.FlowInfo) roccRP {
	t.Helper()
	r, err := roccScheme(t).NewRP(f)
	require.NoError(t, err)
	return roccRP{RP: r, part: r.(harness.PartHolder).Part().(*rp.RoCC)}
}

// roccCNP encodes a rate CNP for flow from CP (sw, port), delivered to the
// NIC of flow to, as the harness's switch sends it.
func roccCNPTo(to, flow uint32, rate uint16, sw uint32, port uint16) *harness.Feedback {
	m := cp.RoCCFeedback{Type: cp.RoCCRateFeedback, Rate: rate, Switch: sw, Port: port, Flow: flow}
	fb := &harness.Feedback{CC: cc.Feedback{Kind: cc.FeedbackRate, Flow: cc.FlowID(to), From: m.CP()}}
	m.Put(&fb.CC.Data)
	return fb
}

// roccCNP is roccCNPTo the flow the CNP names.
func roccCNP(flow uint32, rate uint16, sw uint32, port uint16) *harness.Feedback {
	return roccCNPTo(flow, flow, rate, sw, port)
}

// TestRoCCRPReactionDelay walks Algorithm 2 through the scheme with the
// paper's 15 µs reaction delay and the 55 µs recovery timer.
func TestRoCCRPReactionDelay(t *testing.T) {
	r := roccTestRP(t, roccTestFlow(nil))
	us := units.Microsecond
	require.Equal(t, 15*us, r.part.ReactionDelay(), "the harness's default, every preset")
	require.Equal(t, 40*units.Gbps, r.Rate(), "no limiter: the line rate")
	require.Equal(t, units.Bytes(0), r.Window())
	require.Equal(t, units.MaxTime, r.NextDeadline())

	// A CNP of 1000 ΔF (10 Gb/s) arrives at 100 µs: no effect until 115 µs.
	r.OnFeedback(100*us, roccCNP(7, 1000, 1, 2))
	require.Equal(t, 40*units.Gbps, r.Rate())
	require.Equal(t, 115*us, r.NextDeadline())
	r.OnTimer(115 * us)
	require.Equal(t, 10*units.Gbps, r.Rate())
	// Recovery: 55 µs after the CNP took effect, Rcur doubles (line 12).
	require.Equal(t, 170*us, r.NextDeadline())
	r.OnTimer(170 * us)
	require.Equal(t, 20*units.Gbps, r.Rate())

	// Two CNPs in flight at once: each takes effect 15 µs after its
	// arrival, in order. A higher rate from another CP is rejected (line 4),
	// a lower one accepted. The transport's ACKs in between are not
	// delayed and change nothing.
	r.OnFeedback(180*us, roccCNP(7, 3000, 9, 9)) // 30 Gb/s from another CP: rejected at 195 µs
	r.OnAck(182*us, &harness.Ack{Seq: 1000, Newly: 1000})
	r.OnFeedback(185*us, roccCNP(7, 500, 9, 9)) // 5 Gb/s from it: accepted at 200 µs
	require.Equal(t, 195*us, r.NextDeadline())
	r.OnTimer(195 * us)
	require.Equal(t, 20*units.Gbps, r.Rate())
	require.Equal(t, 200*us, r.NextDeadline())
	r.OnTimer(200 * us)
	require.Equal(t, 5*units.Gbps, r.Rate())
	st := r.part.State()
	require.Equal(t, uint64(2), st.Accepted)
	require.Equal(t, uint64(1), st.Rejected)
	require.Equal(t, uint64(9)<<16|9, st.CPCur)

	// Without CNPs the rate doubles every 55 µs up to the line rate, then
	// the limiter is removed (Rcur > Rmax): 5, 10, 20, 40, 80 > 40 → removed.
	now := 200 * us
	for _, want := range []units.Rate{10, 20, 40, 40} {
		now = r.NextDeadline()
		r.OnTimer(now)
		require.Equal(t, want*units.Gbps, r.Rate(), "at %v", now)
	}
	r.OnTimer(r.NextDeadline())
	require.False(t, r.part.Limited())
	require.Equal(t, units.MaxTime, r.NextDeadline())
	require.Equal(t, uint64(3), r.part.State().Accepted+r.part.State().Rejected, "every CNP reached Algorithm 2")
}

func TestRoCCRPNoDelayAndOfferedCap(t *testing.T) {
	f := roccTestFlow(map[string]string{"reaction_delay": "0"})
	f.Offered = 3 * units.Gbps
	r := roccTestRP(t, f)
	require.Equal(t, 3*units.Gbps, r.Rate(), "offered below the line rate")
	r.OnFeedback(10*units.Microsecond, roccCNP(7, 100, 1, 1)) // 1 Gb/s, at once
	require.Equal(t, 1*units.Gbps, r.Rate())
	r.OnFeedback(20*units.Microsecond, roccCNP(7, 600, 1, 1)) // 6 Gb/s > offered
	require.Equal(t, 3*units.Gbps, r.Rate())
	// A line rate that is not a whole ΔF: Rmax rounds down.
	f = roccTestFlow(nil)
	f.LineRate = 10*units.Gbps + 5*units.Mbps
	r = roccTestRP(t, f)
	require.Equal(t, 10*units.Gbps, r.Rate())
	require.Equal(t, 10*units.Gbps, r.part.Config().RMax)
	// rmax set explicitly wins over the line rate.
	require.Equal(t, 20*units.Gbps, roccTestRP(t, roccTestFlow(map[string]string{"rmax": "20Gbps"})).part.Config().RMax)
	// A line rate below ΔF cannot be a RoCC RP.
	f.LineRate = 5 * units.Mbps
	_, err := roccScheme(t).NewRP(f)
	var ce *cc.ConfigError
	require.ErrorAs(t, err, &ce)
	require.Equal(t, "RMax", ce.Field)
}

// The testbed presets of package rp have no reaction delay (the testbed's
// own is whatever its hosts add); the harness applies the simulation's
// 15 µs with every preset, as the scheme's default, and param.reaction_delay
// changes it.
func TestRoCCReactionDelayDefault(t *testing.T) {
	for _, p := range []map[string]string{nil, {"preset": "dpdk10g"}, {"preset": "tofino40g"}, {"rp.preset": "auto"}} {
		require.Equal(t, 15*units.Microsecond, roccTestRP(t, roccTestFlow(p)).part.ReactionDelay(), "%v", p)
	}
	r, err := cc.NewRP(roccName, "rp", "preset=tofino40g")
	require.NoError(t, err)
	require.Zero(t, r.(*rp.RoCC).ReactionDelay(), "the registry's preset is the testbed's")
	require.Equal(t, 3*units.Microsecond, roccTestRP(t, roccTestFlow(map[string]string{"preset": "tofino40g", "reaction_delay": "3us"})).part.ReactionDelay())
}

// TestRoCCRPBadFeedback: malformed CNPs are refused by the RP and change
// nothing (the run's report lists such refusals, Report.Errors).
func TestRoCCRPBadFeedback(t *testing.T) {
	us := units.Microsecond
	for _, tc := range []struct {
		name string
		fb   *harness.Feedback
		kind error // what rp.RoCC returns for it
	}{
		{"version 0", &harness.Feedback{CC: cc.Feedback{Kind: cc.FeedbackRate, Flow: 7}}, cc.ErrDecode},
		{"rate 0", roccCNP(7, 0, 1, 1), cc.ErrEvent},
		{"a report (section III-F), not a rate", func() *harness.Feedback {
			fb := &harness.Feedback{CC: cc.Feedback{Kind: cc.FeedbackRate, Flow: 7}}
			cp.RoCCFeedback{Type: cp.RoCCReportFeedback, Flow: 7}.Put(&fb.CC.Data)
			return fb
		}(), cc.ErrEvent},
		{"another flow's CNP", roccCNPTo(7, 8, 100, 1, 1), cc.ErrEvent},
	} {
		for _, delay := range []string{"0", "15us"} {
			r := roccTestRP(t, roccTestFlow(map[string]string{"reaction_delay": delay}))
			r.OnFeedback(1*us, tc.fb)
			r.OnTimer(20 * us)
			require.Equal(t, 40*units.Gbps, r.Rate(), "%s, delay %s", tc.name, delay)
			require.Equal(t, units.MaxTime, r.NextDeadline(), "%s, delay %s", tc.name, delay)
			st := r.part.State()
			require.Zero(t, st.Accepted+st.Rejected, "%s, delay %s", tc.name, delay)
		}
		// What the part says, as the report would list it.
		part, err := rp.NewRoCC(rp.RoCC40G())
		require.NoError(t, err)
		err = part.Feedback(1*us, &tc.fb.CC, nil)
		require.ErrorIs(t, err, tc.kind, tc.name)
		if tc.kind == cc.ErrDecode {
			var de *cc.DecodeError
			require.ErrorAs(t, err, &de)
			require.Equal(t, 0, de.Offset)
			require.ErrorContains(t, err, "version 0, want 1")
		}
	}
}

// roccPendingInit is the generic adapter's first delayed-message FIFO size.
const roccPendingInit = 8

// TestRoCCRPPendingGrows: more CNPs within one reaction delay than the
// FIFO's initial capacity all take effect, in order.
func TestRoCCRPPendingGrows(t *testing.T) {
	r := roccTestRP(t, roccTestFlow(nil))
	const n = 3*roccPendingInit + 1
	ns := units.Nanosecond
	for i := 0; i < n; i++ {
		// Rates n, n−1, …, 1 (ΔF), 100 ns apart, all from one CP.
		r.OnFeedback(units.Time(i)*100*ns, roccCNP(7, uint16(n-i), 1, 1))
	}
	require.Equal(t, 15*units.Microsecond, r.NextDeadline())
	require.Zero(t, r.part.State().Accepted, "all still waiting")
	for i := 0; i < n; i++ {
		due := units.Time(i)*100*ns + 15*units.Microsecond
		require.Equal(t, due, r.NextDeadline())
		r.OnTimer(due)
		require.Equal(t, units.Rate(n-i)*10*units.Mbps, r.Rate(), "CNP %d", i)
	}
	require.Equal(t, uint64(n), r.part.State().Accepted)
}

// TestRoCCRPDelayProperty: the scheme's RP with reaction delay d is rp.RoCC
// fed the same CNPs d later. For random CNP streams (times, rates, CPs) the
// RP driven as the harness drives it (OnTimer at each NextDeadline before
// the next arrival) and a bare rp.RoCC fed each CNP at arrival + d report
// the same rate at every event.
func TestRoCCRPDelayProperty(t *testing.T) {
	params := gopter.DefaultTestParameters()
	params.Rng.Seed(0x5eed)
	params.MinSuccessfulTests = 300
	props := gopter.NewProperties(params)
	props.Property("scheme RP = rp.RoCC shifted by the delay", prop.ForAll(
		func(gaps []int64, rates []uint16, cps []uint8, delayNs int64) string {
			delay := units.Time(delayNs) * units.Nanosecond
			r := roccTestRP(t, roccTestFlow(map[string]string{"reaction_delay": delay.String()}))
			cfg := rp.RoCC40G()
			cfg.ReactionDelay = delay
			ref, err := rp.NewRoCC(cfg)
			if err != nil {
				return err.Error()
			}
			type ev struct {
				at   units.Time
				rate uint32
				cp   uint64
			}
			var refQ []ev
			// step advances both to time now: the scheme's RP through its
			// timers, the reference through the delayed CNPs and its own
			// recovery timer, in time order.
			step := func(now units.Time) string {
				for d := r.NextDeadline(); d <= now; d = r.NextDeadline() {
					r.OnTimer(d)
				}
				for len(refQ) > 0 && refQ[0].at <= now {
					if _, err := ref.OnFeedback(refQ[0].at, refQ[0].rate, refQ[0].cp); err != nil {
						return err.Error()
					}
					refQ = refQ[1:]
				}
				if _, err := ref.OnTimer(now); err != nil {
					return err.Error()
				}
				if r.Rate() != ref.Rate() {
					return fmt.Sprintf("at %v: scheme %v, reference %v", now, r.Rate(), ref.Rate())
				}
				return ""
			}
			now := units.Time(0)
			n := 0
			for i, g := range gaps {
				now += units.Time(g) * units.Nanosecond
				if msg := step(now); msg != "" {
					return msg
				}
				rate := rates[i%len(rates)]
				cpID := uint16(cps[i%len(cps)] % 3)
				r.OnFeedback(now, roccCNP(7, rate, 1, cpID))
				refQ = append(refQ, ev{now + delay, uint32(rate), 1<<16 | uint64(cpID)})
				n++
			}
			if msg := step(now + 10*units.Millisecond); msg != "" {
				return msg
			}
			// No CNP was refused: every one reached Algorithm 2.
			if st := r.part.State(); st.Accepted+st.Rejected != uint64(n) {
				return fmt.Sprintf("%d CNPs, %d accepted and %d rejected", n, st.Accepted, st.Rejected)
			}
			return ""
		},
		gen.SliceOfN(40, gen.Int64Range(1, 100_000)).WithLabel("gaps ns"),
		gen.SliceOfN(40, gen.UInt16Range(1, 8000)).WithLabel("rates ΔF"),
		gen.SliceOfN(40, gen.UInt8()).WithLabel("cps"),
		gen.Int64Range(0, 100_000).WithLabel("delay ns"),
	))
	props.TestingRun(t)
}

// TestRoCCRPNoAllocs: a CNP's arrival and its delayed effect allocate
// nothing once the FIFO has its working size.
func TestRoCCRPNoAllocs(t *testing.T) {
	r := roccTestRP(t, roccTestFlow(nil))
	fb := roccCNP(7, 1000, 1, 1)
	ack := &harness.Ack{Seq: 1000, Newly: 1000}
	now := units.Time(0)
	allocs := testing.AllocsPerRun(1000, func() {
		now += 40 * units.Microsecond
		r.OnFeedback(now, fb)
		r.OnAck(now+units.Microsecond, ack)
		r.OnSend(now+2*units.Microsecond, 0, 1000)
		r.OnTimer(r.NextDeadline())
		_ = r.Rate()
	})
	require.Zero(t, allocs)
	require.Equal(t, uint64(1001), r.part.State().Accepted)
}

// FuzzRoCCRPFeedback feeds arbitrary 16-byte payloads to the scheme's RP:
// it never panics, changes nothing for what it cannot use, never sends
// above the line rate, and sends at what it accepted.
func FuzzRoCCRPFeedback(f *testing.F) {
	f.Add(roccCNP(7, 1000, 1, 2).CC.Data[:], int64(0))    // a valid CNP for this flow
	f.Add(roccCNP(8, 1000, 1, 2).CC.Data[:], int64(5000)) // another flow's
	f.Add(make([]byte, 16), int64(1))                     // version 0
	f.Add(roccCNP(7, 0, 1, 2).CC.Data[:], int64(0))       // rate 0
	f.Add(roccCNP(7, 65535, 1, 2).CC.Data[:], int64(0))   // the largest rate
	f.Fuzz(func(t *testing.T, data []byte, delayNs int64) {
		delay := units.Time(delayNs%1_000_000) * units.Nanosecond
		if delay < 0 {
			delay = -delay
		}
		r := roccTestRP(t, roccTestFlow(map[string]string{"reaction_delay": delay.String()}))
		fb := harness.Feedback{CC: cc.Feedback{Kind: cc.FeedbackRate, Flow: 7}}
		copy(fb.CC.Data[:], data)
		r.OnFeedback(1000, &fb)
		r.OnTimer(1000 + delay) // the CNP's effect, before any recovery expiry
		require.LessOrEqual(t, r.Rate(), 40*units.Gbps)
		require.Positive(t, r.Rate())
		m, err := cp.DecodeRoCCFeedback(fb.CC.Data[:])
		if err != nil || m.Type != cp.RoCCRateFeedback || m.Flow != 7 || m.Rate == 0 {
			require.Zero(t, r.part.State().Accepted)
			require.Equal(t, 40*units.Gbps, r.Rate())
			return
		}
		require.Equal(t, uint64(1), r.part.State().Accepted)
		require.Equal(t, min(units.Rate(m.Rate)*10*units.Mbps, 40*units.Gbps), r.Rate())
	})
}

// FuzzRoCCParams: any parameter map is either refused by CheckParams, or
// gives a CP for a 40 Gb/s port and an RP for a 40 Gb/s flow, or (a value
// valid alone but not with the other, or not where the part runs) a
// configuration error from NewCP or NewRP.
func FuzzRoCCParams(f *testing.F) {
	f.Add("preset", "auto", "t", "40us")          // the defaults, spelled out
	f.Add("preset", "tofino40g", "recovery", "1") // a bare number is not a time
	f.Add("flow_capacity", "1", "reaction_delay", "1ms")
	f.Add("t", "-5us", "x", "")
	f.Add("fmax", "100Gbps", "rp.delta_f", "7Mbps") // New refuses the pair
	a := roccScheme(f)
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2 string) {
		params := map[string]string{k1: v1, k2: v2}
		if a.(harness.ParamChecker).CheckParams(params) != nil {
			return
		}
		c, err := a.NewCP(harness.CPInfo{Rate: 40 * units.Gbps, Params: params})
		if err != nil {
			require.ErrorIs(t, err, cc.ErrConfig)
		} else {
			require.NotNil(t, c)
		}
		r, err := a.NewRP(harness.FlowInfo{LineRate: 40 * units.Gbps, Params: params})
		if err != nil {
			require.ErrorIs(t, err, cc.ErrConfig)
			return
		}
		require.Positive(t, r.Rate())
		if params["rmax"] == "" && params["rp.rmax"] == "" {
			require.Equal(t, 40*units.Gbps, r.(harness.PartHolder).Part().(*rp.RoCC).Config().RMax, "Rmax = the line rate")
		}
	})
}
