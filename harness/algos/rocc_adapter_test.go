package algos

import (
	"errors"
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

// Unit tests of the "rocc" adapter: parameters, the port-rate mapping, the
// RP's reaction delay and fast recovery, malformed CNPs, allocations.

func TestRoCCRegistered(t *testing.T) {
	a, err := harness.Lookup("rocc")
	require.NoError(t, err)
	require.Equal(t, harness.Features{}, a.Features(), "RoCC needs neither ECN marking nor INT")
	np, err := a.NewNP(harness.FlowInfo{})
	require.NoError(t, err)
	require.Nil(t, np, "RoCC has no notification point")
}

func TestRoCCParams(t *testing.T) {
	p, err := roccParseParams(nil)
	require.NoError(t, err)
	require.Equal(t, roccParams{preset: -1, reactionDelay: 15 * units.Microsecond, flowCapacity: 1024}, p)

	p, err = roccParseParams(map[string]string{
		"preset": "DPDK10G", "t": "20us", "reaction_delay": "0", "recovery": "1ms", "flow_capacity": "64",
		"idle_gain": "On",
	})
	require.NoError(t, err)
	require.Equal(t, roccParams{preset: 2, t: 20 * units.Microsecond, reactionDelay: 0,
		recovery: units.Millisecond, flowCapacity: 64, idleGain: true}, p)
	for v, want := range map[string]bool{"on": true, "true": true, "1": true, "off": false, "FALSE": false, "0": false} {
		p, err = roccParseParams(map[string]string{"idle_gain": v})
		require.NoError(t, err, v)
		require.Equal(t, want, p.idleGain, v)
		info := harness.CPInfo{NodeName: "s", PeerName: "h", Rate: 40 * units.Gbps}
		cfg, err := roccCPConfig(info, p)
		require.NoError(t, err)
		require.Equal(t, want, cfg.IdleGain, "param.idle_gain=%s reaches every CP", v)
	}

	for _, tc := range []struct {
		key, value string
		want       string // in the error
	}{
		{"preset", "50g", "param.preset = \"50g\": want one of auto, 40g, 100g, dpdk10g, tofino40g"},
		{"t", "0", "param.t = \"0\": want a time in 1us..10ms"},
		{"t", "11ms", "want a time in 1us..10ms"},
		{"t", "fast", "want a time in 1us..10ms"},
		{"reaction_delay", "-1us", "want a time in 0s..1ms"},
		{"reaction_delay", "2ms", "want a time in 0s..1ms"},
		{"recovery", "500ns", "want a time in 1us..100ms"},
		{"flow_capacity", "0", "param.flow_capacity = \"0\": want a whole number in 1..1048576"},
		{"flow_capacity", "1048577", "want a whole number in 1..1048576"},
		{"flow_capacity", "1e3", "want a whole number in 1..1048576"},
		{"idle_gain", "yes", "param.idle_gain = \"yes\": want on or off"},
		{"eta", "0.95", "unknown parameter param.eta (known: flow_capacity, idle_gain, preset, reaction_delay, recovery, t)"},
	} {
		_, err := roccParseParams(map[string]string{tc.key: tc.value})
		require.ErrorContains(t, err, tc.want, "%s=%s", tc.key, tc.value)
		require.ErrorContains(t, roccAlgo{}.CheckParams(map[string]string{tc.key: tc.value}), tc.want)
	}
	// A scenario with a bad parameter is refused before it runs.
	sc, err := harness.Builtin(roccMaxMinName)
	require.NoError(t, err)
	require.NoError(t, sc.Set("param.t", "0"))
	_, err = harness.Run(sc, harness.Options{})
	require.ErrorContains(t, err, "param.t")
}

// TestRoCCPresetMapping checks the port-rate mapping of the package
// documentation (RoCC presets and the port-rate mapping) against the
// paper's parameter tables (section VI and REFERENCE.md), and the scaling
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
		presetName       string
	}
	auto := map[string]string{}
	for _, tc := range []struct {
		rate   units.Rate
		params map[string]string
		w      want
	}{
		// ≤ 40 Gb/s: the 40 Gb/s simulation preset, Fmax = the port.
		{10 * units.Gbps, auto, want{40 * units.Microsecond, 150 * kb, 300 * kb, 360 * kb, 0.3, 1.5, 600, 10 * units.Gbps, 1024, "40g"}},
		{25 * units.Gbps, auto, want{40 * units.Microsecond, 150 * kb, 300 * kb, 360 * kb, 0.3, 1.5, 600, 25 * units.Gbps, 1024, "40g"}},
		{40 * units.Gbps, auto, want{40 * units.Microsecond, 150 * kb, 300 * kb, 360 * kb, 0.3, 1.5, 600, 40 * units.Gbps, 1024, "40g"}},
		// > 40 Gb/s: the 100 Gb/s preset.
		{100 * units.Gbps, auto, want{40 * units.Microsecond, 300 * kb, 600 * kb, 660 * kb, 0.45, 2.25, 600, 100 * units.Gbps, 1024, "100g"}},
		{400 * units.Gbps, auto, want{40 * units.Microsecond, 300 * kb, 600 * kb, 660 * kb, 0.45, 2.25, 600, 400 * units.Gbps, 1024, "100g"}},
		// Fmax rounds down to a whole ΔF.
		{10*units.Gbps + 9*units.Mbps, auto, want{40 * units.Microsecond, 150 * kb, 300 * kb, 360 * kb, 0.3, 1.5, 600, 10 * units.Gbps, 1024, "40g"}},
		// Named presets on any port: the testbeds (VI-B, VI-C).
		{10 * units.Gbps, map[string]string{"preset": "dpdk10g"}, want{100 * units.Microsecond, 75 * kb, 150 * kb, 210 * kb, 0.3, 1.5, 600, 10 * units.Gbps, 1024, "dpdk10g"}},
		{40 * units.Gbps, map[string]string{"preset": "tofino40g"}, want{20 * units.Microsecond, 75 * kb, 150 * kb, 210 * kb, 0.3, 1.5, 80, 40 * units.Gbps, 1024, "tofino40g"}},
		{40 * units.Gbps, map[string]string{"preset": "100g"}, want{40 * units.Microsecond, 300 * kb, 600 * kb, 660 * kb, 0.45, 2.25, 600, 40 * units.Gbps, 1024, "100g"}},
		// param.t and flow_capacity apply to every port.
		{100 * units.Gbps, map[string]string{"t": "10us", "flow_capacity": "7"}, want{10 * units.Microsecond, 300 * kb, 600 * kb, 660 * kb, 0.45, 2.25, 600, 100 * units.Gbps, 7, "100g"}},
	} {
		p, err := roccParseParams(tc.params)
		require.NoError(t, err)
		info := harness.CPInfo{Node: 3, Port: 5, NodeName: "s", PeerName: "h", Rate: tc.rate}
		cfg, err := roccCPConfig(info, p)
		require.NoError(t, err, "%v %v", tc.rate, tc.params)
		name, _ := roccPresetFor(p, tc.rate)
		require.Equal(t, tc.w.presetName, name)
		require.Equal(t, tc.w.period, cfg.Period, "%v %v", tc.rate, tc.params)
		require.Equal(t, [3]units.Bytes{tc.w.qref, tc.w.qmid, tc.w.qmax}, [3]units.Bytes{cfg.QRef, cfg.QMid, cfg.QMax})
		require.Equal(t, [2]float64{tc.w.alpha, tc.w.beta}, [2]float64{cfg.AlphaBar, cfg.BetaBar})
		require.Equal(t, tc.w.deltaQ, cfg.DeltaQ)
		require.Equal(t, 10*units.Mbps, cfg.DeltaF)
		require.Equal(t, 100*units.Mbps, cfg.FMin, "Fmin = 10 ΔF on every port")
		require.Equal(t, tc.w.fmax, cfg.FMax)
		require.Equal(t, tc.w.capacity, cfg.FlowCapacity)
		require.Equal(t, cp.RoCCQueueTable, cfg.FlowTable, "the paper's default flow table")
		require.Equal(t, units.Time(0), cfg.Start)
		require.Equal(t, uint32(3), cfg.Switch)
		require.Equal(t, uint16(5), cfg.Port)
		_, err = cp.NewRoCC(cfg)
		require.NoError(t, err)
	}
	// Ports the 16-bit rate field cannot describe.
	for _, r := range []units.Rate{100 * units.Mbps, 50 * units.Mbps, 656 * units.Gbps} {
		_, err := roccCPConfig(harness.CPInfo{NodeName: "s0", PeerName: "h1", Rate: r}, roccParams{preset: -1, flowCapacity: 1})
		require.ErrorContains(t, err, "port s0->h1 runs at "+r.String())
	}
	// NewCP reports them too.
	_, err := roccAlgo{}.NewCP(harness.CPInfo{NodeName: "s0", PeerName: "h1", Rate: 50 * units.Mbps})
	require.Error(t, err)
}

// TestRoCCPresetsShareDeltaF: the RP reads a CNP's rate in the ΔF it is
// configured with; every preset must use the same 10 Mb/s.
func TestRoCCPresetsShareDeltaF(t *testing.T) {
	for _, p := range roccPresets {
		require.Equal(t, 10*units.Mbps, p.cfg().DeltaF, p.name)
		require.Equal(t, 100*units.Mbps, p.cfg().FMin, p.name)
	}
	require.Equal(t, 10*units.Mbps, rp.RoCC40G().DeltaF)
}

// TestRoCCRecovery: the default recovery timer is the authors' 55 µs at
// T = 40 µs, scaled with T: 55/40 = 1.375·T.
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
	} {
		p, err := roccParseParams(tc.params)
		require.NoError(t, err)
		require.Equal(t, tc.want, roccRecovery(p), "%v", tc.params)
		// The recovery timer outlasts T, so a congested CP's CNPs (one per
		// T) keep the limiter from doubling.
		if tc.params["recovery"] == "" {
			_, cfg := roccPresetFor(p, 40*units.Gbps)
			period := cfg.Period
			if p.t > 0 {
				period = p.t
			}
			require.Greater(t, roccRecovery(p), period)
		}
	}
}

// roccTestFlow is a 40 Gb/s flow offered at the line rate.
func roccTestFlow(params map[string]string) harness.FlowInfo {
	return harness.FlowInfo{ID: 7, SrcName: "h1", DstName: "h0", LineRate: 40 * units.Gbps, Params: params}
}

// roccTestRP builds the adapter's RP for f.
func roccTestRP(t testing.TB, f harness.FlowInfo) *roccRP {
	r, err := roccAlgo{}.NewRP(f)
	require.NoError(t, err)
	return r.(*roccRP)
}

// roccCNP encodes a rate CNP for flow from CP (sw, port).
func roccCNP(flow uint32, rate uint16, sw uint32, port uint16) *harness.Feedback {
	fb := &harness.Feedback{}
	m := cp.RoCCFeedback{Type: cp.RoCCRateFeedback, Rate: rate, Switch: sw, Port: port, Flow: flow}
	copy(fb.Data[:], m.Append(nil))
	return fb
}

// TestRoCCRPReactionDelay walks Algorithm 2 through the adapter with the
// paper's 15 µs reaction delay and the 55 µs recovery timer.
func TestRoCCRPReactionDelay(t *testing.T) {
	r := roccTestRP(t, roccTestFlow(nil))
	us := units.Microsecond
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
	// a lower one accepted.
	r.OnFeedback(180*us, roccCNP(7, 3000, 9, 9)) // 30 Gb/s from another CP: rejected at 195 µs
	r.OnFeedback(185*us, roccCNP(7, 500, 9, 9))  // 5 Gb/s from it: accepted at 200 µs
	require.Equal(t, 195*us, r.NextDeadline())
	r.OnTimer(195 * us)
	require.Equal(t, 20*units.Gbps, r.Rate())
	require.Equal(t, 200*us, r.NextDeadline())
	r.OnTimer(200 * us)
	require.Equal(t, 5*units.Gbps, r.Rate())
	st := r.r.State()
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
	require.False(t, r.r.Limited())
	require.Equal(t, units.MaxTime, r.NextDeadline())
	require.Zero(t, r.errs.n)
	require.Equal(t, uint64(3), r.received)
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
	require.Equal(t, 10*units.Gbps, roccTestRP(t, f).Rate())
	// A line rate below ΔF cannot be a RoCC RP.
	f.LineRate = 5 * units.Mbps
	_, err := roccAlgo{}.NewRP(f)
	require.ErrorContains(t, err, "rocc: flow 7 (h1->h0, line rate 5Mbps)")
}

// TestRoCCRPBadFeedback: malformed CNPs are counted and change nothing.
func TestRoCCRPBadFeedback(t *testing.T) {
	r := roccTestRP(t, roccTestFlow(nil))
	var zero harness.Feedback
	r.OnFeedback(1, &zero) // version 0
	bad := roccCNP(7, 0, 1, 1)
	r.OnFeedback(2, bad) // rate 0
	rep := &harness.Feedback{}
	copy(rep.Data[:], cp.RoCCFeedback{Type: cp.RoCCReportFeedback, Flow: 7}.Append(nil))
	r.OnFeedback(3, rep) // a report (section III-F), not a rate
	require.Equal(t, uint64(3), r.errs.n)
	// The first: version 0 at byte 0.
	var de *cc.DecodeError
	require.ErrorAs(t, r.errs.first, &de)
	require.Equal(t, 0, de.Offset)
	require.ErrorContains(t, r.errs.first, "version 0, want 1")
	r.OnFeedback(4, roccCNP(8, 100, 1, 1)) // another flow's
	require.Equal(t, uint64(1), r.wrongFlow)
	require.Equal(t, 40*units.Gbps, r.Rate())
	require.Equal(t, units.MaxTime, r.NextDeadline())
	require.Equal(t, uint64(4), r.received)
	require.True(t, errors.Is(r.errs.first, cc.ErrDecode))
}

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
	require.Equal(t, n, r.n)
	for i := 0; i < n; i++ {
		due := units.Time(i)*100*ns + 15*units.Microsecond
		require.Equal(t, due, r.NextDeadline())
		r.OnTimer(due)
		require.Equal(t, units.Rate(n-i)*10*units.Mbps, r.Rate(), "CNP %d", i)
	}
	require.Zero(t, r.n)
	require.Zero(t, r.errs.n)
}

// TestRoCCRPDelayProperty: the adapter with reaction delay d is rp.RoCC fed
// the same CNPs d later. For random CNP streams (times, rates, CPs) the
// adapter driven as the harness drives it (OnTimer at each NextDeadline
// before the next arrival) and a bare rp.RoCC fed each CNP at arrival + d
// report the same rate at every event.
func TestRoCCRPDelayProperty(t *testing.T) {
	params := gopter.DefaultTestParameters()
	params.Rng.Seed(0x5eed)
	params.MinSuccessfulTests = 300
	props := gopter.NewProperties(params)
	props.Property("adapter = rp.RoCC shifted by the delay", prop.ForAll(
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
			// step advances both to time now: the adapter through its
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
					return fmt.Sprintf("at %v: adapter %v, reference %v", now, r.Rate(), ref.Rate())
				}
				return ""
			}
			now := units.Time(0)
			for i, g := range gaps {
				now += units.Time(g) * units.Nanosecond
				if msg := step(now); msg != "" {
					return msg
				}
				rate := rates[i%len(rates)]
				cpID := uint16(cps[i%len(cps)] % 3)
				r.OnFeedback(now, roccCNP(7, rate, 1, cpID))
				refQ = append(refQ, ev{now + delay, uint32(rate), 1<<16 | uint64(cpID)})
			}
			if msg := step(now + 10*units.Millisecond); msg != "" {
				return msg
			}
			if r.errs.n != 0 {
				return r.errs.first.Error()
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
	now := units.Time(0)
	allocs := testing.AllocsPerRun(1000, func() {
		now += 40 * units.Microsecond
		r.OnFeedback(now, fb)
		r.OnTimer(r.NextDeadline())
		_ = r.Rate()
	})
	require.Zero(t, allocs)
	require.Zero(t, r.errs.n)
}

// FuzzRoCCRPFeedback feeds arbitrary 16-byte payloads to the RP adapter:
// it never panics, counts what it cannot use, and never sends above the
// line rate and sends at what it accepted.
func FuzzRoCCRPFeedback(f *testing.F) {
	f.Add(roccCNP(7, 1000, 1, 2).Data[:], int64(0))    // a valid CNP for this flow
	f.Add(roccCNP(8, 1000, 1, 2).Data[:], int64(5000)) // another flow's
	f.Add(make([]byte, 16), int64(1))                  // version 0
	f.Add(roccCNP(7, 0, 1, 2).Data[:], int64(0))       // rate 0
	f.Add(roccCNP(7, 65535, 1, 2).Data[:], int64(0))   // the largest rate
	f.Fuzz(func(t *testing.T, data []byte, delayNs int64) {
		delay := units.Time(delayNs%1_000_000) * units.Nanosecond
		if delay < 0 {
			delay = -delay
		}
		r := roccTestRP(t, roccTestFlow(map[string]string{"reaction_delay": delay.String()}))
		var fb harness.Feedback
		copy(fb.Data[:], data)
		r.OnFeedback(1000, &fb)
		r.OnTimer(1000 + delay) // the CNP's effect, before any recovery expiry
		require.LessOrEqual(t, r.Rate(), 40*units.Gbps)
		require.Positive(t, r.Rate())
		m, err := cp.DecodeRoCCFeedback(fb.Data[:])
		switch {
		case err != nil || m.Type != cp.RoCCRateFeedback:
			require.Equal(t, uint64(1), r.errs.n)
			require.Equal(t, 40*units.Gbps, r.Rate())
		case m.Flow != 7:
			require.Equal(t, uint64(1), r.wrongFlow)
			require.Equal(t, 40*units.Gbps, r.Rate())
		default:
			require.Zero(t, r.errs.n)
			require.Equal(t, min(units.Rate(m.Rate)*10*units.Mbps, 40*units.Gbps), r.Rate())
		}
	})
}

// FuzzRoCCParams: any parameter map is either refused with an error or
// gives configurations the state machines accept for a 40 Gb/s port and
// flow.
func FuzzRoCCParams(f *testing.F) {
	f.Add("preset", "auto", "t", "40us")          // the defaults, spelled out
	f.Add("preset", "tofino40g", "recovery", "1") // a bare number is not a time
	f.Add("flow_capacity", "1", "reaction_delay", "1ms")
	f.Add("t", "-5us", "x", "")
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2 string) {
		params := map[string]string{k1: v1, k2: v2}
		p, err := roccParseParams(params)
		if err != nil {
			require.ErrorContains(t, err, "rocc: ")
			return
		}
		cfg, err := roccCPConfig(harness.CPInfo{Rate: 40 * units.Gbps}, p)
		require.NoError(t, err)
		_, err = cp.NewRoCC(cfg)
		require.NoError(t, err)
		rcfg, err := roccRPConfig(roccTestFlow(params), p)
		require.NoError(t, err)
		require.NoError(t, rcfg.Validate())
	})
}
