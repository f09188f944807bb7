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
	"github.com/hwcc/hwcc/wire"
)

// Unit tests of rocc as a run deploys it (the registry's rocc parts in
// the environments the harness gives them): parameters, the port-rate
// mapping, the RP's reaction delay and fast recovery, malformed CNPs,
// allocations.

// TestRoCCRegistered: RoCC's deployment asks the network for neither ECN
// marking nor telemetry nor symmetric routing and runs no notification
// point; the sender runs the rate limiter, not the host calculation of
// section III-F (the registry's first reaction point), and each queue the
// rocc cp.
func TestRoCCRegistered(t *testing.T) {
	a := ccAlgo(t, roccName)
	require.Contains(t, cc.Names(), roccName, "run by the generic adapter")
	d := a.Deploy
	require.Equal(t, [3]bool{false, false, false}, [3]bool{d.ECN, d.Telemetry != (cc.TelemetryFormat{}), d.Symmetric},
		"RoCC needs neither ECN marking nor INT")
	np, err := flowNP(roccName, roccTestFlow(), nil)
	require.NoError(t, err)
	require.Nil(t, np, "RoCC has no notification point")
	require.Equal(t, "rp", a.Deployed(cc.RoleRP))
	r, err := flowRP(roccName, roccTestFlow(), nil)
	require.NoError(t, err)
	require.IsType(t, &rp.RoCC{}, r)
	c, err := portCP(roccName, testPort{Rate: 40 * units.Gbps}, nil)
	require.NoError(t, err)
	require.IsType(t, &cp.RoCC{}, c)
}

// roccCPPart returns the cp.RoCC rocc runs at port q with params.
func roccCPPart(t testing.TB, q testPort, params map[string]string) *cp.RoCC {
	t.Helper()
	c, err := portCP(roccName, q, params)
	require.NoError(t, err)
	return c.(*cp.RoCC)
}

// roccCPCfg returns the configuration rocc gives the CP of a port of rate
// r (port 5 of switch node 3) with params.
func roccCPCfg(t testing.TB, r units.Rate, params map[string]string) cp.RoCCConfig {
	t.Helper()
	return roccCPPart(t, testPort{Node: 3, Port: 5, Rate: r}, params).Config()
}

// The scenario's parameters are the registry's settings (hwcc algos rocc),
// each going to the part that has it; a bad one is a *cc.ConfigError
// naming it, its value and its range.
func TestRoCCParams(t *testing.T) {
	a := ccAlgo(t, roccName)
	for _, p := range []map[string]string{
		nil, {"preset": "DPDK10G", "t": "20us", "reaction_delay": "0", "recovery": "1ms", "flow_capacity": "64", "idle_gain": "On"},
		{"t": "11ms"}, {"cp.t": "20us"}, {"rp.t": "20us"}, {"reaction_delay": "2ms"}, {"recovery": "500ns"},
		{"preset": "auto"}, {"cp.preset": "tofino40g", "rp.preset": "40g"}, {"link": "100Gbps"},
		{"flow_table": "aged", "flow_max_age": "1ms"}, {"delta_f": "10Mbps"}, {"rounding": "floor", "initial_f": "zero"},
	} {
		require.NoError(t, a.ValidateParams(p), "%v", p)
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
		err := a.ValidateParams(map[string]string{tc.key: tc.value})
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
		_, err := portCP(roccName, testPort{Rate: r}, nil)
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
		require.Equal(t, 10*units.Mbps, roccTestRP(t, roccTestFlow(), p).part.Config().DeltaF, name)
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
		cfg := roccTestRP(t, roccTestFlow(), tc.params).part.Config()
		require.Equal(t, tc.want, cfg.RecoveryPeriod, "%v", tc.params)
		// The recovery timer outlasts the CPs' T, so a congested CP's CNPs
		// (one per T) keep the limiter from doubling.
		if tc.params["recovery"] == "" && tc.params["cp.t"] == "" && tc.params["rp.t"] == "" {
			period := roccCPCfg(t, 40*units.Gbps, tc.params).Period
			require.Greater(t, cfg.RecoveryPeriod, period, "%v", tc.params)
		}
	}
	// A T whose recovery timer does not fit the time type is refused.
	_, err := flowRP(roccName, roccTestFlow(), map[string]string{"t": units.MaxTime.String()})
	var ce *cc.ConfigError
	require.ErrorAs(t, err, &ce)
	require.Equal(t, "t", ce.Field)
}

// roccTestFlow is flow 7 of a 40 Gb/s NIC.
func roccTestFlow() testFlow {
	return testFlow{ID: 7, LineRate: 40 * units.Gbps}
}

// roccRP is a flow's rocc reaction point driven through the contract, the
// rp.RoCC it is, and the flow's line rate.
type roccRP struct {
	*testSender
	part *rp.RoCC
	line units.Rate
}

// roccTestRP builds the reaction point rocc runs for f with params.
func roccTestRP(t testing.TB, f testFlow, params map[string]string) roccRP {
	t.Helper()
	r, err := flowRP(roccName, f, params)
	require.NoError(t, err)
	return roccRP{testSender: newTestSender(r, f.ID), part: r.(*rp.RoCC), line: f.LineRate}
}

// rate is the rate the part lets its flow send at (sendRate).
func (r roccRP) rate() units.Rate { return sendRate(r.part.Limits(), r.line) }

// roccCNPTo encodes a rate CNP for flow from CP (sw, port), delivered to
// the NIC of flow to, as the cp sends it.
func roccCNPTo(to, flow uint32, rate uint16, sw uint32, port uint16) *cc.Feedback {
	m := wire.RoCCFeedback{Type: wire.RoCCRateFeedback, Rate: rate, Switch: sw, Port: port, Flow: flow}
	fb := &cc.Feedback{Kind: cc.FeedbackRate, Flow: cc.FlowID(to), From: m.CP()}
	m.Put(&fb.Data)
	return fb
}

// roccCNP is roccCNPTo the flow the CNP names.
func roccCNP(flow uint32, rate uint16, sw uint32, port uint16) *cc.Feedback {
	return roccCNPTo(flow, flow, rate, sw, port)
}

// TestRoCCRPReactionDelay walks Algorithm 2 through the contract with the
// paper's 15 µs reaction delay and the 55 µs recovery timer. The part
// gets each CNP 15 µs after it reaches the NIC, when the harness hands it
// over, and the transport's ACKs at once (TestRoCCReactionDelayInARun
// checks that a run does so).
func TestRoCCRPReactionDelay(t *testing.T) {
	r := roccTestRP(t, roccTestFlow(), nil)
	us := units.Microsecond
	d := r.part.ReactionDelay()
	require.Equal(t, 15*us, d, "the harness's default, every preset")
	require.Equal(t, 40*units.Gbps, r.rate(), "no limiter: the line rate")
	require.Equal(t, units.Bytes(0), r.part.Limits().Window)
	require.Equal(t, units.MaxTime, r.part.NextDeadline())

	// A CNP of 1000 ΔF (10 Gb/s) arrives at 100 µs and takes effect at
	// 115 µs.
	require.NoError(t, r.feedback(100*us+d, roccCNP(7, 1000, 1, 2)))
	require.Equal(t, 10*units.Gbps, r.rate())
	// Recovery: 55 µs after the CNP took effect, Rcur doubles (line 12).
	require.Equal(t, 170*us, r.part.NextDeadline())
	require.NoError(t, r.timer(170*us))
	require.Equal(t, 20*units.Gbps, r.rate())

	// Two CNPs in flight at once, arriving at 180 and 185 µs: each takes
	// effect 15 µs after its arrival, in order. A higher rate from another
	// CP is rejected (line 4), a lower one accepted. The transport's ACK in
	// between, at 182 µs, reaches the part at once and changes nothing.
	require.NoError(t, r.ack(182*us, 1000, 1000, false))
	require.Equal(t, 20*units.Gbps, r.rate())
	require.NoError(t, r.feedback(180*us+d, roccCNP(7, 3000, 9, 9))) // 30 Gb/s from another CP: rejected at 195 µs
	require.Equal(t, 20*units.Gbps, r.rate())
	require.NoError(t, r.feedback(185*us+d, roccCNP(7, 500, 9, 9))) // 5 Gb/s from it: accepted at 200 µs
	require.Equal(t, 5*units.Gbps, r.rate())
	st := r.part.State()
	require.Equal(t, uint64(2), st.Accepted)
	require.Equal(t, uint64(1), st.Rejected)
	require.Equal(t, uint64(9)<<16|9, st.CPCur)

	// Without CNPs the rate doubles every 55 µs up to the line rate, then
	// the limiter is removed (Rcur > Rmax): 5, 10, 20, 40, 80 > 40 → removed.
	for _, want := range []units.Rate{10, 20, 40, 40} {
		now := r.part.NextDeadline()
		require.NoError(t, r.timer(now))
		require.Equal(t, want*units.Gbps, r.rate(), "at %v", now)
	}
	require.NoError(t, r.timer(r.part.NextDeadline()))
	require.False(t, r.part.Limited())
	require.Equal(t, units.MaxTime, r.part.NextDeadline())
	require.Equal(t, uint64(3), r.part.State().Accepted+r.part.State().Rejected, "every CNP reached Algorithm 2")
}

// Without reaction delay a CNP takes effect as it arrives. The part's rate
// may be above what the flow offers (the NIC then sends at the offered
// rate: TestOfferedRateCapsThePart); Rmax is the line rate rounded down to
// a whole ΔF, or rmax when set, and a line rate below ΔF cannot be a RoCC
// RP.
func TestRoCCRPNoDelayAndOfferedCap(t *testing.T) {
	r := roccTestRP(t, roccTestFlow(), map[string]string{"reaction_delay": "0"})
	require.Zero(t, r.part.ReactionDelay())
	require.NoError(t, r.feedback(10*units.Microsecond, roccCNP(7, 100, 1, 1))) // 1 Gb/s, at once
	require.Equal(t, 1*units.Gbps, r.rate())
	require.NoError(t, r.feedback(20*units.Microsecond, roccCNP(7, 600, 1, 1))) // 6 Gb/s, above an offered 3 Gb/s
	require.Equal(t, 6*units.Gbps, r.rate())
	// A line rate that is not a whole ΔF: Rmax rounds down.
	f := roccTestFlow()
	f.LineRate = 10*units.Gbps + 5*units.Mbps
	r = roccTestRP(t, f, nil)
	require.Equal(t, 10*units.Gbps, r.rate())
	require.Equal(t, 10*units.Gbps, r.part.Config().RMax)
	// rmax set explicitly wins over the line rate.
	require.Equal(t, 20*units.Gbps, roccTestRP(t, roccTestFlow(), map[string]string{"rmax": "20Gbps"}).part.Config().RMax)
	// A line rate below ΔF cannot be a RoCC RP.
	f.LineRate = 5 * units.Mbps
	_, err := flowRP(roccName, f, nil)
	var ce *cc.ConfigError
	require.ErrorAs(t, err, &ce)
	require.Equal(t, "RMax", ce.Field)
}

// The testbed presets of package rp have no reaction delay (the testbed's
// own is whatever its hosts add); the deployment gives the simulation's
// 15 µs with every preset, as its default, and param.reaction_delay
// changes it.
func TestRoCCReactionDelayDefault(t *testing.T) {
	for _, p := range []map[string]string{nil, {"preset": "dpdk10g"}, {"preset": "tofino40g"}, {"rp.preset": "auto"}} {
		require.Equal(t, 15*units.Microsecond, roccTestRP(t, roccTestFlow(), p).part.ReactionDelay(), "%v", p)
	}
	r, err := cc.NewRP(roccName, "rp", "preset=tofino40g")
	require.NoError(t, err)
	require.Zero(t, r.(*rp.RoCC).ReactionDelay(), "the registry's preset is the testbed's")
	require.Equal(t, 3*units.Microsecond, roccTestRP(t, roccTestFlow(), map[string]string{"preset": "tofino40g", "reaction_delay": "3us"}).part.ReactionDelay())
}

// TestRoCCRPBadFeedback: malformed CNPs are refused by the RP (a run lists
// such refusals in its report, Report.Errors) and change nothing, whether
// they waited out a reaction delay or not.
func TestRoCCRPBadFeedback(t *testing.T) {
	us := units.Microsecond
	for _, tc := range []struct {
		name string
		fb   *cc.Feedback
		kind error // what rp.RoCC returns for it
	}{
		{"version 0", &cc.Feedback{Kind: cc.FeedbackRate, Flow: 7}, cc.ErrDecode},
		{"rate 0", roccCNP(7, 0, 1, 1), cc.ErrEvent},
		{"another flow's CNP", roccCNPTo(7, 8, 100, 1, 1), cc.ErrEvent},
	} {
		for _, delay := range []string{"0", "15us"} {
			r := roccTestRP(t, roccTestFlow(), map[string]string{"reaction_delay": delay})
			err := r.feedback(1*us+r.part.ReactionDelay(), tc.fb)
			require.ErrorIs(t, err, tc.kind, "%s, delay %s", tc.name, delay)
			if tc.kind == cc.ErrDecode {
				var de *cc.DecodeError
				require.ErrorAs(t, err, &de)
				require.Equal(t, 0, de.Offset)
				require.ErrorContains(t, err, "version 0, want 1")
			}
			require.NoError(t, r.timer(20*us))
			require.Equal(t, 40*units.Gbps, r.rate(), "%s, delay %s", tc.name, delay)
			require.Equal(t, units.MaxTime, r.part.NextDeadline(), "%s, delay %s", tc.name, delay)
			st := r.part.State()
			require.Zero(t, st.Accepted+st.Rejected, "%s, delay %s", tc.name, delay)
		}
	}
}

// TestRoCCRPReport: a report ([RoCC] §III-F), which is for the host
// computation (hostcp), reaching the RP is taken and counted in its
// unused_feedback register (rule 8 of package cc), not applied: the flow
// keeps its rate.
func TestRoCCRPReport(t *testing.T) {
	us := units.Microsecond
	fb := &cc.Feedback{Kind: cc.FeedbackRate, Flow: 7}
	wire.RoCCFeedback{Type: wire.RoCCReportFeedback, Flow: 7, QDepth: 500}.Put(&fb.Data)
	for _, delay := range []string{"0", "15us"} {
		r := roccTestRP(t, roccTestFlow(), map[string]string{"reaction_delay": delay})
		require.NoError(t, r.feedback(1*us+r.part.ReactionDelay(), fb), "delay %s", delay)
		st := r.part.State()
		require.Equal(t, uint64(1), st.Unused, "delay %s", delay)
		require.Zero(t, st.Accepted+st.Rejected, "delay %s", delay)
		require.Equal(t, 40*units.Gbps, r.rate(), "delay %s", delay)
	}
}

// roccDelayLine hands a reaction point its CNPs delay after they arrive,
// in arrival order, and runs its timer at its deadlines in between (a CNP
// due at a deadline first), as a NIC with a reaction delay does.
type roccDelayLine struct {
	r       roccRP
	delay   units.Time
	pending []roccPending
}

type roccPending struct {
	at units.Time
	fb *cc.Feedback
}

// arrive queues fb, arriving now.
func (l *roccDelayLine) arrive(now units.Time, fb *cc.Feedback) {
	l.pending = append(l.pending, roccPending{now + l.delay, fb})
}

// advance runs every delivery and timer due by now, in time order.
func (l *roccDelayLine) advance(now units.Time) error {
	for {
		d := l.r.part.NextDeadline()
		if len(l.pending) > 0 && l.pending[0].at <= now && l.pending[0].at <= d {
			if err := l.r.feedback(l.pending[0].at, l.pending[0].fb); err != nil {
				return err
			}
			l.pending = l.pending[1:]
			continue
		}
		if d > now {
			return nil
		}
		if err := l.r.timer(d); err != nil {
			return err
		}
	}
}

// TestRoCCRPDelayProperty: the RP rocc deploys, driven through the
// contract with each CNP handed over d after it arrives (roccDelayLine),
// is an rp.RoCC built from the package's preset and fed the same CNPs d
// later, its timer run at each step. For random CNP
// streams (times, rates, CPs) both report the same rate at every event,
// and every CNP reaches Algorithm 2.
func TestRoCCRPDelayProperty(t *testing.T) {
	params := gopter.DefaultTestParameters()
	params.Rng.Seed(0x5eed)
	params.MinSuccessfulTests = 300
	props := gopter.NewProperties(params)
	props.Property("contract RP = rp.RoCC shifted by the delay", prop.ForAll(
		func(gaps []int64, rates []uint16, cps []uint8, delayNs int64) string {
			delay := units.Time(delayNs) * units.Nanosecond
			line := &roccDelayLine{r: roccTestRP(t, roccTestFlow(), map[string]string{"reaction_delay": delay.String()}), delay: delay}
			if got := line.r.part.ReactionDelay(); got != delay {
				return fmt.Sprintf("reaction delay %v, want %v", got, delay)
			}
			cfg := rp.RoCC40G()
			cfg.ReactionDelay = delay
			ref, err := rp.NewRoCC(cfg)
			if err != nil {
				return err.Error()
			}
			type ev struct {
				at units.Time
				fb *cc.Feedback
			}
			var refQ []ev
			// step advances both to time now: the contract side through its
			// delay line, the reference through the delayed CNPs and its
			// own recovery timer, in time order.
			step := func(now units.Time) string {
				if err := line.advance(now); err != nil {
					return err.Error()
				}
				for len(refQ) > 0 && refQ[0].at <= now {
					if err := ref.Feedback(refQ[0].at, refQ[0].fb, nil); err != nil {
						return err.Error()
					}
					refQ = refQ[1:]
				}
				if err := ref.Timer(now, nil); err != nil {
					return err.Error()
				}
				if line.r.rate() != ref.Rate() {
					return fmt.Sprintf("at %v: contract %v, reference %v", now, line.r.rate(), ref.Rate())
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
				line.arrive(now, roccCNP(7, rate, 1, cpID))
				refQ = append(refQ, ev{now + delay, roccCNP(7, rate, 1, cpID)})
				n++
			}
			if msg := step(now + 10*units.Millisecond); msg != "" {
				return msg
			}
			// No CNP was refused: every one reached Algorithm 2.
			if st := line.r.part.State(); st.Accepted+st.Rejected != uint64(n) {
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

// TestRoCCRPNoAllocs: an ACK, a sent packet, a CNP after its reaction
// delay and the timer allocate nothing through the contract (the
// harness's delay line is its own tests' subject).
func TestRoCCRPNoAllocs(t *testing.T) {
	r := roccTestRP(t, roccTestFlow(), nil)
	fb := roccCNP(7, 1000, 1, 1)
	d := r.part.ReactionDelay()
	now := units.Time(0)
	var errs [4]error
	allocs := testing.AllocsPerRun(1000, func() {
		now += 40 * units.Microsecond // a CNP arrives
		errs[0] = r.ack(now+units.Microsecond, 1000, 1000, false)
		errs[1] = r.sent(now+2*units.Microsecond, 0, 1000)
		errs[2] = r.feedback(now+d, fb)
		errs[3] = r.timer(now + d)
		_ = r.rate()
	})
	require.Zero(t, allocs)
	require.Equal(t, [4]error{}, errs)
	require.Equal(t, uint64(1001), r.part.State().Accepted)
}

// FuzzRoCCRPFeedback feeds arbitrary 16-byte payloads to the RP rocc
// deploys, each handed over after its reaction delay: it never panics,
// refuses what it cannot take, changing nothing, counts a report (which it
// does not use), never sends above the line rate, and sends at what it
// accepted.
func FuzzRoCCRPFeedback(f *testing.F) {
	f.Add(roccCNP(7, 1000, 1, 2).Data[:], int64(0))    // a valid CNP for this flow
	f.Add(roccCNP(8, 1000, 1, 2).Data[:], int64(5000)) // another flow's
	f.Add(make([]byte, 16), int64(1))                  // version 0
	f.Add(func() []byte {                              // a report
		var b [16]byte
		wire.RoCCFeedback{Type: wire.RoCCReportFeedback, Flow: 7}.Put(&b)
		return b[:]
	}(), int64(0))
	f.Add(roccCNP(7, 0, 1, 2).Data[:], int64(0))     // rate 0
	f.Add(roccCNP(7, 65535, 1, 2).Data[:], int64(0)) // the largest rate
	f.Fuzz(func(t *testing.T, data []byte, delayNs int64) {
		delay := units.Time(delayNs%1_000_000) * units.Nanosecond
		if delay < 0 {
			delay = -delay
		}
		r := roccTestRP(t, roccTestFlow(), map[string]string{"reaction_delay": delay.String()})
		fb := cc.Feedback{Kind: cc.FeedbackRate, Flow: 7}
		copy(fb.Data[:], data)
		err := r.feedback(1000+delay, &fb) // the CNP's effect, before any recovery expiry
		require.NoError(t, r.timer(1000+delay))
		require.LessOrEqual(t, r.rate(), 40*units.Gbps)
		require.Positive(t, r.rate())
		m, derr := wire.DecodeRoCCFeedback(fb.Data[:])
		if derr == nil && m.Type == wire.RoCCReportFeedback && m.Flow == 7 {
			require.NoError(t, err, "a report is taken and counted")
			require.Equal(t, uint64(1), r.part.State().Unused)
			require.Equal(t, 40*units.Gbps, r.rate())
			return
		}
		if derr != nil || m.Type != wire.RoCCRateFeedback || m.Flow != 7 || m.Rate == 0 {
			require.Error(t, err)
			require.Zero(t, r.part.State().Accepted)
			require.Equal(t, 40*units.Gbps, r.rate())
			return
		}
		require.NoError(t, err)
		require.Equal(t, uint64(1), r.part.State().Accepted)
		require.Equal(t, min(units.Rate(m.Rate)*10*units.Mbps, 40*units.Gbps), r.rate())
	})
}

// FuzzRoCCParams: any parameter map is either refused by ValidateParams,
// or gives a CP for a 40 Gb/s port and an RP for a 40 Gb/s flow, or (a
// value valid alone but not with the other, or not where the part runs) a
// configuration error building one.
func FuzzRoCCParams(f *testing.F) {
	f.Add("preset", "auto", "t", "40us")          // the defaults, spelled out
	f.Add("preset", "tofino40g", "recovery", "1") // a bare number is not a time
	f.Add("flow_capacity", "1", "reaction_delay", "1ms")
	f.Add("t", "-5us", "x", "")
	f.Add("fmax", "100Gbps", "rp.delta_f", "7Mbps") // New refuses the pair
	a := ccAlgo(f, roccName)
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2 string) {
		params := map[string]string{k1: v1, k2: v2}
		if a.ValidateParams(params) != nil {
			return
		}
		c, err := portCP(roccName, testPort{Rate: 40 * units.Gbps}, params)
		if err != nil {
			require.ErrorIs(t, err, cc.ErrConfig)
		} else {
			require.NotNil(t, c)
		}
		r, err := flowRP(roccName, testFlow{LineRate: 40 * units.Gbps}, params)
		if err != nil {
			require.ErrorIs(t, err, cc.ErrConfig)
			return
		}
		require.Positive(t, sendRate(r.Limits(), 40*units.Gbps))
		if params["rmax"] == "" && params["rp.rmax"] == "" {
			require.Equal(t, 40*units.Gbps, r.(*rp.RoCC).Config().RMax, "Rmax = the line rate")
		}
	})
}

// roccInjectingCP wraps a port's rocc cp (Options.Wrap): at the first data
// dequeue at or after at it sends the flow of the frame n rate CNPs at
// once from a CP of its own (switch 4000, port 9), with rates n, n−1, …,
// 1 ΔF, and records when.
type roccInjectingCP struct {
	cc.CongestionPoint
	at, sent units.Time
	n        int
}

func (c *roccInjectingCP) Dequeue(now units.Time, p *cc.Packet, q cc.Queue, act *cc.Actions) error {
	if c.sent != 0 || now < c.at {
		return c.CongestionPoint.Dequeue(now, p, q, act)
	}
	// Room first: a part that asks for more changes nothing.
	if err := act.Reserve("test injector", "Dequeue", c.n+4); err != nil {
		return err
	}
	if err := c.CongestionPoint.Dequeue(now, p, q, act); err != nil {
		return err
	}
	for i := 0; i < c.n; i++ {
		act.Send(cc.ToSource, cc.ControlPrio, *roccCNP(uint32(p.Flow), uint16(c.n-i), roccInjectSwitch, roccInjectPort))
	}
	c.sent = now
	return nil
}

// The CP identity of the injected CNPs.
const (
	roccInjectSwitch = 4000
	roccInjectPort   = 9
)

// roccDelayRP wraps a flow's rocc rp: it records when each injected CNP
// reached the part, the rate it carried and the part's rate after it, and
// when each ACK reached it. It does not forward the part's ReactionDelay:
// the run reads it from the part it built.
type roccDelayRP struct {
	cc.ReactionPoint
	r            *rp.RoCC
	got          []units.Time
	rates, after []units.Rate
	acks         []units.Time
}

func (r *roccDelayRP) Feedback(now units.Time, f *cc.Feedback, act *cc.Actions) error {
	err := r.ReactionPoint.Feedback(now, f, act)
	switch m, derr := wire.DecodeRoCCFeedback(f.Data[:]); {
	case f.Kind == cc.FeedbackAck:
		r.acks = append(r.acks, now)
	case f.Kind == cc.FeedbackRate && derr == nil && f.From == uint64(roccInjectSwitch)<<16|roccInjectPort:
		r.got = append(r.got, now)
		r.rates = append(r.rates, units.Rate(m.Rate)*10*units.Mbps)
		r.after = append(r.after, r.r.Rate())
	}
	return err
}

// TestRoCCReactionDelayInARun: a run hands a rocc rp each CNP its
// ReactionDelay after the CNP reaches the NIC, in the order they arrive,
// however many wait at once, and the transport's ACKs at once. One flow
// of 40 Gb/s across one switch; at 5 µs the switch's port to the receiver
// sends the flow 25 CNPs at once (more than the harness's delay line
// starts with, 8), before rocc's own first update (T = 40 µs). The same
// run without reaction delay gives when each reached the NIC: until the
// first takes effect nothing in the two runs differs, and the CNPs queue
// back to back on the way to the sender, ahead of anything the new rate
// could change. With a delay d each CNP reaches the part exactly d later
// than without; every one takes effect, in order (each a lower rate from
// the same CP, which Algorithm 2 accepts); all 25 arrive before the first
// takes effect; and ACKs reach the part while they wait. The rp's wrapper
// (a probe) does not forward the part's ReactionDelay: the run takes the
// delay from the part it built.
func TestRoCCReactionDelayInARun(t *testing.T) {
	const n = 25
	us := units.Microsecond
	run := func(delay string) *roccDelayRP {
		sc := harness.DefaultScenario()
		sc.Algorithm = roccName
		sc.Topology.Hosts, sc.Topology.Link = 2, harness.Rate(40*units.Gbps)
		sc.Workload.Flows = []harness.FlowSpec{{Src: "h1", Dst: "h0"}}
		sc.Duration = harness.Time(35 * us)
		if delay != "" {
			require.NoError(t, sc.Set("param.reaction_delay", delay))
		}
		// Every port injects at its first data dequeue: only the port to
		// h0 dequeues data.
		var ins []*roccInjectingCP
		var out *roccDelayRP
		wrap := func(at harness.Place, p cc.Part) cc.Part {
			switch at.Role {
			case cc.RoleCP:
				in := &roccInjectingCP{CongestionPoint: p.(cc.CongestionPoint), at: 5 * us, n: n}
				ins = append(ins, in)
				return in
			case cc.RoleRP:
				out = &roccDelayRP{ReactionPoint: p.(cc.ReactionPoint), r: p.(*rp.RoCC)}
				return out
			}
			return p
		}
		res, err := harness.Run(sc, harness.Options{NoSeries: true, Wrap: wrap})
		require.NoError(t, err)
		require.Nil(t, res.Report.Errors)
		var in *roccInjectingCP
		for _, c := range ins {
			if c.sent != 0 {
				require.Nil(t, in, "two ports dequeued data")
				in = c
			}
		}
		require.NotNil(t, in, "no port dequeued data")
		require.NotNil(t, out)
		require.Len(t, out.got, n, "delay %q: every CNP reached the part", delay)
		for i := range n {
			want := units.Rate(n-i) * 10 * units.Mbps
			require.Equal(t, want, out.rates[i], "delay %q: CNP %d in order", delay, i)
			require.Equal(t, want, out.after[i], "delay %q: CNP %d took effect", delay, i)
			require.Greater(t, out.got[i], in.sent)
		}
		require.Equal(t, uint64(n), out.r.State().Accepted)
		return out
	}
	none := run("0")
	require.Less(t, none.got[n-1], none.got[0]+15*us, "all arrive within one reaction delay")
	for _, c := range []struct {
		set string
		d   units.Time
	}{{"", 15 * us}, {"3us", 3 * us}} {
		got := run(c.set)
		require.Equal(t, c.d, got.r.ReactionDelay())
		for i := range n {
			require.Equal(t, none.got[i]+c.d, got.got[i], "delay %v, CNP %d", c.d, i)
		}
		acks := 0
		for _, at := range got.acks {
			if at > none.got[0] && at < got.got[0] {
				acks++
			}
		}
		require.Positive(t, acks, "delay %v: no ACK reached the part while the CNPs waited", c.d)
	}
}
