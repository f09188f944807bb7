package algos

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cp"
	"github.com/hwcc/hwcc/harness"
	"github.com/hwcc/hwcc/np"
	"github.com/hwcc/hwcc/rp"
	"github.com/hwcc/hwcc/units"
)

// ---- Running the algorithm.

// dcqcnRun runs sc and checks that no state machine rejected an event: the
// generic adapter hands every part's error to the run's log, which the
// report shows (Report.Errors, nil when empty).
func dcqcnRun(t testing.TB, sc *harness.Scenario) *harness.Result {
	t.Helper()
	res, err := harness.Run(sc, harness.Options{})
	require.NoError(t, err)
	require.Nil(t, res.Report.Errors, "a state machine rejected an event")
	return res
}

// dcqcnBuiltin returns built-in name with sets applied.
func dcqcnBuiltin(t testing.TB, name string, sets ...string) *harness.Scenario {
	t.Helper()
	sc, err := harness.Builtin(name)
	require.NoError(t, err)
	require.NoError(t, sc.SetAll(sets))
	return sc
}

// dcqcnQueueQuantiles returns the p-quantiles of the queue of link over
// the samples taken in [from, to): the series samples the queue at evenly
// spaced instants, so sample quantiles estimate the time-weighted ones
// (the harness reports only p50 and p99 exactly). With 1 µs samples the
// estimate resolves changes of one frame time at 25 Gb/s (0.35 µs) to a
// few frames.
func dcqcnQueueQuantiles(t testing.TB, res *harness.Result, link string, from, to units.Time, ps ...float64) []units.Bytes {
	t.Helper()
	var v []units.Bytes
	for _, q := range res.Series.Queues {
		if q.Link != link {
			continue
		}
		for i, at := range res.Series.Times {
			if at >= from && at < to {
				v = append(v, q.Bytes[i])
			}
		}
	}
	require.NotEmpty(t, v, "no queue samples of %s in [%v, %v)", link, from, to)
	sort.Slice(v, func(i, j int) bool { return v[i] < v[j] })
	out := make([]units.Bytes, len(ps))
	for i, p := range ps {
		out[i] = v[min(int(p*float64(len(v))), len(v)-1)]
	}
	return out
}

// dcqcnPort returns the port result of link.
func dcqcnPort(t testing.TB, res *harness.Result, link string) harness.PortResult {
	t.Helper()
	for _, p := range res.Ports {
		if p.Link == link {
			return p
		}
	}
	require.Failf(t, "no port", "link %s", link)
	return harness.PortResult{}
}

// ---- Parameters.

// Preset names (the registry's, shared by the three parts).
const (
	dcqcnPresetConnectX = "connectx"
	dcqcnPresetHPCC     = "hpcc"
)

// The scenario's parameters are the registry's settings (hwcc algos dcqcn),
// each going to the parts that have it (preset to all three; cp., rp. and
// np. to one); a bad one is a *cc.ConfigError naming it, its value and its
// range. pmax is the CP's Q0.16 register (65536 = 1.0): the probability the
// earlier adapter took (0.2) is refused, not misread.
func TestDCQCNParams(t *testing.T) {
	a := ccAlgo(t, dcqcnName)
	good := []map[string]string{
		nil,
		{"preset": "connectx"}, {"preset": "PAPER"}, {"preset": "hpcc"},
		{"rp.preset": "hpcc", "np.preset": "paper", "cp.preset": "connectx"},
		{"kmin": "5KB", "kmax": "200KB", "pmax": "655"},
		{"kmin": "100KB", "kmax": "100KB"}, // a step marker
		{"mode": "slot", "min_time_between_cnps": "50us"}, {"mode": "min-interval", "min_time_between_cnps": "0s"},
		{"mark_at": "enqueue"}, {"mark_at": "dequeue"}, {"cp.seed": "7"},
		{"rpg_time_reset": "55us", "rpg_ai_rate": "40Mbps", "rpg_hai_rate": "200Mbps", "rpg_threshold": "5"},
		{"dce_tcp_g": "1020", "dce_tcp_rtt": "55us", "initial_alpha_value": "512", "rpg_gd": "11"},
		{"rpg_byte_reset": "10MB", "rpg_min_rate": "10Mbps", "rpg_max_rate": "10Gbps", "rate_to_set_on_first_cnp": "1Gbps"},
		{"clamp_tgt_rate": "on", "clamp_tgt_rate_after_time_inc": "off", "rpg_min_dec_fac": "0", "rate_reduce_monitor_period": "0s"},
		{"alpha_frac_bits": "10", "rate_reduce_mode": "grid"},
		// Settings whose ranges depend on each other are checked together:
		// the first CNP's rate is valid once the minimum is lowered.
		{"preset": "hpcc", "rate_to_set_on_first_cnp": "500Mbps", "rpg_min_rate": "100Mbps"},
	}
	for _, p := range good {
		require.NoError(t, a.ValidateParams(p), "%v", p)
	}
	const known = "a parameter of dcqcn cp, dcqcn rp, dcqcn np (hwcc algos dcqcn)"
	for _, c := range []struct {
		p             map[string]string
		field, range_ string
	}{
		{map[string]string{"eta": "1"}, "eta", known},
		// The earlier adapter's names are refused, naming the registry's.
		{map[string]string{"np": "slot"}, "np", known},
		{map[string]string{"cnp_interval": "4us"}, "cnp_interval", known},
		{map[string]string{"mark": "enqueue"}, "mark", known},
		{map[string]string{"rp_alpha_frac_bits": "10"}, "rp_alpha_frac_bits", known},
		{map[string]string{"xp.kmin": "1KB"}, "xp.kmin", "a parameter, or cp., rp., np. or sw. and a parameter"},
		{map[string]string{"preset": "mellanox"}, "preset", "one of connectx, paper, hpcc"},
		{map[string]string{"preset": "hpccsim"}, "preset", "one of connectx, paper, hpcc"},
		{map[string]string{"kmin": "-1"}, "kmin", "a size in 0B..4.294967295GB"},
		{map[string]string{"kmax": "5GB"}, "kmax", "a size in 0B..4.294967295GB"},
		{map[string]string{"pmax": "0.2"}, "pmax", "a whole number in 0..65536"},
		{map[string]string{"pmax": "65537"}, "pmax", "a whole number in 0..65536"},
		{map[string]string{"pmax": "NaN"}, "pmax", "a whole number in 0..65536"},
		{map[string]string{"cp.seed": "0"}, "seed", "a whole number in 1..4294967295"},
		{map[string]string{"mode": "fast"}, "mode", "one of slot, min-interval"},
		{map[string]string{"min_time_between_cnps": "2s"}, "min_time_between_cnps", "a time in 0s..1s"},
		{map[string]string{"mark_at": "egress"}, "mark_at", "one of dequeue, enqueue"},
		{map[string]string{"dce_tcp_g": "1024"}, "dce_tcp_g", "a whole number in 0..1023"},
		{map[string]string{"rpg_gd": "32"}, "rpg_gd", "a whole number in 0..31"},
		{map[string]string{"rpg_min_dec_fac": "101"}, "rpg_min_dec_fac", "a whole number in 0..100"},
		{map[string]string{"rpg_time_reset": "0s"}, "rpg_time_reset", "a time in 1ps..1s"},
		{map[string]string{"rpg_ai_rate": "fast"}, "rpg_ai_rate", "a rate ≥ 1bps"},
		{map[string]string{"clamp_tgt_rate": "maybe"}, "clamp_tgt_rate", "on or off"},
		{map[string]string{"alpha_frac_bits": "9"}, "alpha_frac_bits", "a whole number in 10..24"},
	} {
		err := a.ValidateParams(c.p)
		var ce *cc.ConfigError
		require.ErrorAs(t, err, &ce, "%v", c.p)
		require.Equal(t, c.field, ce.Field, "%v", c.p)
		require.Equal(t, c.range_, ce.Range, "%v", c.p)
	}
	// An unknown key makes the whole scenario invalid, naming the key.
	sc := dcqcnBuiltin(t, dcqcnFairnessName, "param.nope=1")
	require.ErrorContains(t, sc.Validate(), "nope")
}

// What depends on several fields or on where the part runs is the part's
// own check when it is built (New), a *cc.ConfigError naming the
// configuration field; in a run the harness aborts with it, naming the
// port of a congestion point.
func TestDCQCNParamsAtTheLineRate(t *testing.T) {
	field := func(err error) string {
		t.Helper()
		var ce *cc.ConfigError
		require.ErrorAs(t, err, &ce)
		return ce.Field
	}
	// Kmin above the scaled Kmax of a 25 Gb/s port (400 KB), or above kmax.
	_, err := portCP(dcqcnName, testPort{Port: 3, SwitchID: 1, Rate: 25 * units.Gbps}, map[string]string{"kmin": "500KB"})
	require.Equal(t, "Kmax", field(err))
	require.ErrorContains(t, err, "Kmax = 400KB: want Kmin (500KB)")
	_, err = portCP(dcqcnName, testPort{Rate: 25 * units.Gbps}, map[string]string{"kmin": "300KB", "kmax": "200KB"})
	require.Equal(t, "Kmax", field(err))
	sc := dcqcnBuiltin(t, dcqcnIncastName, "param.kmin=500KB")
	require.NoError(t, sc.Validate())
	_, err = harness.Run(sc, harness.Options{NoSeries: true})
	require.ErrorContains(t, err, "CP of s0->h")
	require.Equal(t, "Kmax", field(err))

	rpErr := func(rate units.Rate, params map[string]string) error {
		_, err := flowRP(dcqcnName, testFlow{ID: 7, LineRate: rate}, params)
		return err
	}
	// A maximum rate above the line rate.
	require.Equal(t, "RpgMaxRate", field(rpErr(25*units.Gbps, map[string]string{"rpg_max_rate": "40Gbps"})))
	// A line rate that is not a whole number of Mb/s (ConnectX's unit).
	require.Equal(t, "PortRate", field(rpErr(25*units.Gbps+1, nil)))
	// A sub-Gb/s line rate is below the HPCC preset's 1000 Mb/s minimum.
	require.Equal(t, "RpgMinRate", field(rpErr(500*units.Mbps, map[string]string{"preset": "hpcc"})))
	// Rates that are not whole numbers of the rate unit, a byte counter
	// that is not a multiple of 64 B, a first-CNP rate below the minimum.
	require.Equal(t, "RpgAIRate", field(rpErr(25*units.Gbps, map[string]string{"rpg_ai_rate": "5.5Mbps"})))
	require.ErrorContains(t, rpErr(25*units.Gbps, map[string]string{"rpg_ai_rate": "5.5Mbps"}), "multiple of RateUnit (1Mbps)")
	require.Equal(t, "RpgByteReset", field(rpErr(25*units.Gbps, map[string]string{"rpg_byte_reset": "100B"})))
	require.Equal(t, "RateToSetOnFirstCNP", field(rpErr(25*units.Gbps, map[string]string{"preset": "hpcc", "rate_to_set_on_first_cnp": "500Mbps"})))
	sc = dcqcnBuiltin(t, dcqcnIncastName, "param.rpg_max_rate=40Gbps")
	require.NoError(t, sc.Validate())
	_, err = harness.Run(sc, harness.Options{NoSeries: true})
	require.Equal(t, "RpgMaxRate", field(err))
}

// dcqcnParts builds the three parts of a flow at line rate link and of a
// queue of a port at that rate with params, and returns their
// configurations.
func dcqcnParts(t testing.TB, link units.Rate, params map[string]string) (cp.DCQCNConfig, np.DCQCNConfig, rp.DCQCNConfig) {
	t.Helper()
	c, err := portCP(dcqcnName, testPort{SwitchID: 1, Port: 3, Rate: link}, params)
	require.NoError(t, err)
	f := testFlow{ID: 1, LineRate: link}
	n, err := flowNP(dcqcnName, f, params)
	require.NoError(t, err)
	r, err := flowRP(dcqcnName, f, params)
	require.NoError(t, err)
	return c.(*cp.DCQCN).Config(), n.(*np.DCQCN).Config(), r.(*rp.DCQCN).Config()
}

// The presets are the cp, np and rp packages' own, the CP thresholds the
// HPCC paper's rule ([HPCC] §5.1: Kmin = 100 KB·Bw/25
// Gb/s, Kmax = 400 KB·Bw/25 Gb/s; KB = 1000 B), computed here from the
// formula, the rp's rates those of the flow's line rate, and the settings
// land in the named fields.
func TestDCQCNPresetConfigs(t *testing.T) {
	for _, link := range []units.Rate{10 * units.Gbps, 25 * units.Gbps, 40 * units.Gbps, 100 * units.Gbps} {
		c, n, r := dcqcnParts(t, link, nil)
		require.Equal(t, units.Bytes(100_000*float64(link)/25e9), c.Kmin, "Kmin at %v", link)
		require.Equal(t, units.Bytes(400_000*float64(link)/25e9), c.Kmax, "Kmax at %v", link)
		require.Equal(t, uint32(13107), c.Pmax) // 0.2·65536 = 13107.2
		require.NotZero(t, c.Seed)
		require.Equal(t, cp.DCQCNMarkDequeue, c.MarkAt)
		// connectx is the default.
		require.Equal(t, np.DCQCNConnectX(), n)
		require.Equal(t, rp.DCQCNConnectX(link), r)
	}
	presets := map[string]struct {
		rp func(units.Rate) rp.DCQCNConfig
		np np.DCQCNConfig
	}{
		"connectx": {rp.DCQCNConnectX, np.DCQCNConnectX()},
		"paper":    {rp.DCQCNPaper, np.DCQCNPaper()},
		"hpcc":     {rp.DCQCNHPCCSim, np.DCQCNHPCCSim()},
	}
	for name, want := range presets {
		c, n, r := dcqcnParts(t, 25*units.Gbps, map[string]string{"preset": name})
		require.Equal(t, want.rp(25*units.Gbps), r, name)
		require.Equal(t, want.np, n, name)
		c.Seed = cp.DCQCNDefaultSeed
		require.Equal(t, cp.DCQCNHPCCSim(25*units.Gbps), c, "%s: one marker under every preset", name)
	}
	// A scoped preset configures one part.
	_, n, r := dcqcnParts(t, 25*units.Gbps, map[string]string{"rp.preset": "hpcc"})
	require.Equal(t, rp.DCQCNHPCCSim(25*units.Gbps), r)
	require.Equal(t, np.DCQCNConnectX(), n)

	// pmax 655 is 0.01 (0.01·65536 = 655.36).
	c, n, r := dcqcnParts(t, 100*units.Gbps, map[string]string{
		"kmin": "5KB", "kmax": "200KB", "pmax": "655", "mode": "slot", "min_time_between_cnps": "50us",
		"rpg_ai_rate": "40Mbps", "rpg_time_reset": "55us", "dce_tcp_g": "1020", "clamp_tgt_rate": "on",
		"rpg_byte_reset": "10MB", "mark_at": "enqueue", "alpha_frac_bits": "16",
	})
	require.Equal(t, cp.DCQCNConfig{Kmin: 5000, Kmax: 200_000, Pmax: 655, Seed: c.Seed, MarkAt: cp.DCQCNMarkEnqueue}, c)
	require.Equal(t, np.DCQCNConfig{Mode: np.DCQCNSlot, Interval: 50 * units.Microsecond}, n)
	want := rp.DCQCNConnectX(100 * units.Gbps)
	want.RpgAIRate, want.RpgTimeReset, want.DceTCPG, want.ClampTgtRate = 40*units.Mbps, 55*units.Microsecond, 1020, true
	want.RpgByteReset, want.AlphaFracBits = 10*units.MB, 16
	require.Equal(t, want, r)
}

// dcqcnOldSeed is the LFSR seed the harness's earlier DCQCN adapter gave the
// queue with congestion-point ID id: DCQCNDefaultSeed XOR (id + 1)·(2^32/φ)
// mod 2^32, DCQCNDefaultSeed for the one ID that maps to 0.
func dcqcnOldSeed(id harness.CPID) uint32 {
	s := cp.DCQCNDefaultSeed ^ (uint32(id)+1)*0x9E3779B1
	if s == 0 {
		return cp.DCQCNDefaultSeed
	}
	return s
}

// dcqcnQueue is a congestion point a dcqcn run built: where it runs (its
// queue's congestion-point ID is Env.Index − 1) and its part.
type dcqcnQueue struct {
	at harness.Place
	cp *cp.DCQCN
}

// dcqcnRecord runs sc under dcqcn and returns the congestion points it
// built, in the order it built them.
func dcqcnRecord(t *testing.T, sc *harness.Scenario) []dcqcnQueue {
	t.Helper()
	sc.Algorithm = dcqcnName
	res, parts := runKeepingParts(t, sc, harness.Options{NoSeries: true})
	require.Nil(t, res.Report.Errors)
	var qs []dcqcnQueue
	for _, b := range parts {
		if b.at.Role == cc.RoleCP {
			qs = append(qs, dcqcnQueue{b.at, b.part.(*cp.DCQCN)})
		}
	}
	require.NotEmpty(t, qs)
	return qs
}

// Each queue's LFSR gets its own seed, so that the marks of different
// ports are not correlated: the registration derives it from the switch
// ID and the port (algos/dcqcn.go, the cp part's Env hook), which a run
// gives each queue's part (Options.Wrap keeps them). On one switch every
// queue's seed is the one the earlier adapter gave it from its
// congestion-point ID, which is there the port number; on several switches
// the seeds stay distinct (they are other seeds than the earlier adapter's
// beyond the first switch, whose IDs counted the ports of the switches
// before). An explicit seed gives every queue that one.
func TestDCQCNSeeds(t *testing.T) {
	star := dcqcnRecord(t, dcqcnBuiltin(t, dcqcnIncastName, "at=50us", "size=20KB", "senders=3"))
	require.Len(t, star, 5)
	for _, q := range star {
		id := harness.CPID(q.at.Env.Index - 1)
		require.Equal(t, harness.CPID(q.at.Port), id, "one switch: the ID is the port")
		require.Equal(t, dcqcnOldSeed(id), q.cp.Config().Seed, "%s port %d", q.at.Node, q.at.Port)
	}

	// A chain of three switches with two hosts each: switches of 3, 4 and 3
	// ports.
	sc := harness.DefaultScenario()
	sc.Topology = harness.TopologySpec{Kind: "chain", Switches: 3, HostsPerSwitch: 2}
	sc.Workload.Flows = []harness.FlowSpec{{Src: "h0_0", Dst: "h2_1"}}
	sc.Duration = harness.Time(50 * units.Microsecond)
	multi := dcqcnRecord(t, sc)
	require.Len(t, multi, 10)
	seen := map[uint32]harness.Place{}
	switches := map[uint16]bool{}
	for _, q := range multi {
		at := q.at
		switches[at.Env.SwitchID] = true
		s := q.cp.Config().Seed
		prev, dup := seen[s]
		require.False(t, dup, "%s port %d and %s port %d share seed %#x", prev.Node, prev.Port, at.Node, at.Port, s)
		seen[s] = at
		if at.Env.SwitchID == 1 {
			require.Equal(t, dcqcnOldSeed(harness.CPID(at.Env.Index-1)), s, "%s port %d", at.Node, at.Port)
		}
	}
	require.Len(t, switches, 3)

	sc = dcqcnBuiltin(t, dcqcnIncastName, "at=50us", "size=20KB", "senders=3", "param.cp.seed=7")
	for _, q := range dcqcnRecord(t, sc) {
		require.Equal(t, uint32(7), q.cp.Config().Seed)
	}
}

// FuzzDCQCNParams: any parameter set either fails ValidateParams (what a
// run checks before it starts) with an error, or builds a CP, RP and NP
// at 25 Gb/s (or fails their line-rate or cross-field checks with a
// *cc.ConfigError) — never a panic; the RP never asks for more than its
// line rate. Seeds: a valid set, each kind of bad value, an unknown key.
func FuzzDCQCNParams(f *testing.F) {
	f.Add("preset", "hpcc", "kmin", "5KB")                      // valid
	f.Add("rpg_ai_rate", "5.5Mbps", "pmax", "13107")            // rate not a multiple of 1 Mb/s
	f.Add("kmax", "1KB", "kmin", "2KB")                         // kmin > kmax
	f.Add("rpg_max_rate", "40Gbps", "mode", "min-interval")     // above the line rate: the rp's error
	f.Add("nope", "1", "mark_at", "dequeue")                    // unknown key
	f.Add("dce_tcp_rtt", "0s", "min_time_between_cnps", "-1us") // out of range
	f.Add("np.preset", "paper", "cp.seed", "1")
	a := ccAlgo(f, dcqcnName)
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2 string) {
		params := map[string]string{k1: v1, k2: v2}
		if a.ValidateParams(params) != nil {
			return
		}
		if c, err := portCP(dcqcnName, testPort{SwitchID: 1, Rate: 25 * units.Gbps}, params); err == nil {
			require.NotNil(t, c)
		} else {
			require.ErrorIs(t, err, cc.ErrConfig)
		}
		fi := testFlow{LineRate: 25 * units.Gbps}
		if r, err := flowRP(dcqcnName, fi, params); err == nil {
			require.LessOrEqual(t, sendRate(r.Limits(), fi.LineRate), fi.LineRate)
		} else {
			require.ErrorIs(t, err, cc.ErrConfig)
		}
		n, err := flowNP(dcqcnName, fi, params)
		require.NoError(t, err) // the NP has no line-rate dependent field
		require.NotNil(t, n)
	})
}

// ---- The parts through the contract.

// The deployment keeps ACKs from the rp (DCQCN reacts to CNPs only), and
// an ACK that reaches it anyway changes no rate; the rp's rate is RC, the
// line rate until the first CNP, with no window (the NIC paces at
// min(offered, line rate, RC): TestOfferedRateCapsThePart); a CNP cuts RC
// below an offered 20 Gb/s; the bytes sent reach the byte counter; an
// event earlier than the last is refused and changes nothing; the NP asks
// for a CNP as ConnectX does.
func TestDCQCNAdapterMapping(t *testing.T) {
	require.True(t, ccAlgo(t, dcqcnName).Deploy.NoAcks, "the NIC hands the rp no ACK")
	f := testFlow{ID: 1, LineRate: 25 * units.Gbps}
	r, err := flowRP(dcqcnName, f, nil)
	require.NoError(t, err)
	d := r.(*rp.DCQCN)
	s := newTestSender(r, f.ID)
	require.Equal(t, cc.Limits{Rate: f.LineRate}, r.Limits(), "the line rate, no window")
	require.NoError(t, s.cnp(0)) // first CNP: RC ← RC·(1 − α/2) with α = 1023/1024, cut at most 50 %
	require.Equal(t, d.Rate(), r.Limits().Rate, "the DCQCN rate")
	require.Less(t, d.Rate(), 20*units.Gbps, "below an offered 20 Gb/s")
	rate := d.Rate()
	require.NoError(t, s.ack(1, 1000, 1000, false))
	require.Equal(t, rate, r.Limits().Rate, "an ACK changes no rate")
	// The ConnectX byte counter expires after rpg_byte_reset = 32767·64 B.
	per := harness.DefaultPayload
	n := int(rp.DCQCNConnectX(f.LineRate).RpgByteReset/per) + 1
	for i := 0; i < n; i++ {
		require.NoError(t, s.sent(units.Time(i+1), uint64(i)*uint64(per), per))
	}
	require.Equal(t, uint32(1), d.State().ByteStage)
	// Time going backwards is refused (a run lists the error in its
	// report), not applied.
	before := d.State()
	require.ErrorIs(t, s.cnp(units.Time(n)-2), cc.ErrTimeOrder)
	require.Equal(t, before, d.State())

	// NP: ConnectX sends a CNP for the first mark, none within 4 µs.
	nn, err := flowNP(dcqcnName, f, nil)
	require.NoError(t, err)
	require.False(t, receiveCNP(t, nn, 0, &cc.Packet{Flow: 1}))
	require.True(t, receiveCNP(t, nn, 1, &cc.Packet{Flow: 1, CE: true}))
	require.False(t, receiveCNP(t, nn, 2*units.Microsecond, &cc.Packet{Flow: 1, CE: true}))
	require.True(t, receiveCNP(t, nn, 5*units.Microsecond, &cc.Packet{Flow: 1, CE: true}))
	require.Equal(t, units.MaxTime, nn.NextDeadline())
}

// ---- Scenarios.

// The JSON files in examples/scenarios decode strictly into exactly the
// built-ins (their -print-scenario output), and every key refits the run.
func TestDCQCNScenarioFiles(t *testing.T) {
	for _, name := range []string{dcqcnFairnessName, dcqcnIncastName, dctcpFairnessName, dctcpIncastName} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("..", "..", "examples", "scenarios", name+".json"))
			require.NoError(t, err)
			got, err := harness.DecodeScenario(bytes.NewReader(data))
			require.NoError(t, err)
			want := dcqcnBuiltin(t, name)
			gj, err := json.Marshal(got)
			require.NoError(t, err)
			wj, err := json.Marshal(want)
			require.NoError(t, err)
			require.JSONEq(t, string(wj), string(gj))
			require.Empty(t, want.Params, "built-ins set no parameters, so that -algo can replace the algorithm")
		})
	}
}

func TestDCQCNScenarioKeys(t *testing.T) {
	sc := dcqcnBuiltin(t, dcqcnFairnessName, "senders=4", "stagger=2ms", "settle=5ms", "window=10ms")
	require.Equal(t, 4, sc.Workload.FanIn.Senders)
	require.Equal(t, harness.Time(3*2*units.Millisecond+5*units.Millisecond), sc.MeasureFrom)
	require.Equal(t, harness.Time(21*units.Millisecond), sc.Duration)
	require.NoError(t, sc.Validate())
	// Order does not matter.
	sc2 := dcqcnBuiltin(t, dcqcnFairnessName, "window=10ms", "settle=5ms", "stagger=2ms", "senders=4")
	require.Equal(t, sc.Duration, sc2.Duration)
	require.Equal(t, sc.MeasureFrom, sc2.MeasureFrom)

	ic := dcqcnBuiltin(t, dcqcnIncastName, "senders=15", "size=1MB", "at=0s", "link=100Gbps")
	require.Len(t, ic.Workload.Incast[0].Hosts, 15)
	require.Equal(t, "h16", ic.Workload.Incast[0].Hosts[14])
	// 16 MB at 100 Gb/s is 1.28 ms; twice that plus 1 ms is 3.56 ms,
	// rounded up to 100 µs.
	require.Equal(t, harness.Time(3600*units.Microsecond), ic.Duration)
	require.Zero(t, ic.MeasureFrom)
	require.NoError(t, ic.Validate())

	for _, c := range []struct{ name, set, want string }{
		{dcqcnFairnessName, "senders=0", "want a whole number in 1..4000"},
		{dcqcnFairnessName, "window=0s", "want a time in (0, 100s]"},
		{dcqcnFairnessName, "stagger=-1ms", "want a time in 0..100s"},
		{dcqcnIncastName, "size=0", "want a size > 0"},
		{dcqcnIncastName, "link=0Gbps", "a link needs a rate > 0"},
		{dcqcnIncastName, "senders=4000", "want a whole number in 1..3999"},
	} {
		sc, err := harness.Builtin(c.name)
		require.NoError(t, err)
		require.ErrorContains(t, sc.SetAll([]string{c.set}), c.want, c.set)
	}
}

// Every built-in runs under every registered algorithm (the command's
// -algo), briefly.
func TestDCQCNScenariosAcceptOtherAlgorithms(t *testing.T) {
	short := map[string][]string{
		dcqcnFairnessName: {"settle=0s", "window=300us", "stagger=100us"},
		dctcpFairnessName: {"settle=0s", "window=300us", "stagger=100us"},
		dcqcnIncastName:   {"at=50us", "size=20KB", "senders=3"},
		dctcpIncastName:   {"at=50us", "size=20KB", "senders=3"},
	}
	for name, sets := range short {
		for _, algo := range cc.Names() {
			if strings.HasPrefix(algo, "test-") {
				continue
			}
			sc := dcqcnBuiltin(t, name, sets...)
			sc.Algorithm = algo
			res, err := harness.Run(sc, harness.Options{NoSeries: true})
			require.NoError(t, err, "%s under %s", name, algo)
			require.Positive(t, res.Counters.DataRecvPackets, "%s under %s", name, algo)
		}
	}
}

// ---- Reproduction.

// dcqcnFairnessRuns runs dcqcn-fairness once per preset (shared by the
// fairness and queue tests), with the queue sampled every microsecond.
var dcqcnFairnessRuns = struct {
	sync.Mutex
	m map[string]*harness.Result
}{m: map[string]*harness.Result{}}

func dcqcnFairnessRun(t *testing.T, preset string) *harness.Result {
	dcqcnFairnessRuns.Lock()
	defer dcqcnFairnessRuns.Unlock()
	if r, ok := dcqcnFairnessRuns.m[preset]; ok {
		return r
	}
	sc := dcqcnBuiltin(t, dcqcnFairnessName, "sample_interval=1us", "param.preset="+preset)
	r := dcqcnRun(t, sc)
	dcqcnFairnessRuns.m[preset] = r
	return r
}

// Two long DCQCN flows on a 25 Gb/s bottleneck, the second joining 1 ms
// after the first, converge to equal shares: over the 40 ms window that
// starts 20 ms after the second start,
//
//   - Jain's index ≥ 0.99 (DCQCN's fairness claim: HPCC Fig. 9g/h shows
//     DCQCN sharing a link fairly over seconds; two flows at 10 % from
//     their mean give J = 1/(1 + 0.1²) = 0.990),
//   - each flow within 10 % of C/2 = 12.5 Gb/s (wire bits; the flows'
//     wire rates add up to at most C), the spread Jain's 0.99 allows when
//     the link stays busy,
//
// under the default ConnectX preset and the HPCC simulations' preset.
func TestDCQCNFairness(t *testing.T) {
	skipLongReproduction(t)
	for _, preset := range []string{dcqcnPresetConnectX, dcqcnPresetHPCC} {
		t.Run(preset, func(t *testing.T) {
			res := dcqcnFairnessRun(t, preset)
			require.GreaterOrEqual(t, res.Report.Fairness.Jain, 0.99)
			half := float64(dcqcnScenarioLink) / 2
			for _, f := range res.Flows {
				require.True(t, f.Active)
				require.InEpsilon(t, half, f.Throughput, 0.10, "flow %d: %.3f Gb/s", f.ID, f.Throughput/1e9)
			}
			require.Zero(t, res.Report.PFC.Pauses, "PFC must stay out of the ECN loop")
		})
	}
}

// The bottleneck queue hovers in the RED band: over the same window the
// time-weighted p10 is at least Kmin − slack and the p90 at most Kmax
// (Kmin/Kmax = 100/400 KB at 25 Gb/s, the HPCC paper's rule).
//
// Above Kmax every frame is marked and each flow is cut every
// rate_reduce_monitor_period, so the queue rarely stays above Kmax (p90).
// Below Kmin nothing is marked; a controller that stops cutting when the
// marks stop undershoots Kmin by what the link drains during one feedback
// delay, the last marked frame's trip to the receiver and the CNP's back
// (one base RTT) plus the rate_reduce_monitor_period a pending decrease may
// still wait: slack = C·(BaseRTT + period) = 25 Gb/s·(4.9 + 4) µs ≈ 28 KB.
// p10 rather than the minimum leaves out the rare deep cuts when α is
// large.
//
// Under mark_at=enqueue this does not hold (the queue is empty about a
// quarter of the time; see doc.go and docs/scenarios.md): the mark waits
// behind the queue it reports, up to 128 µs at Kmax, and the loop
// oscillates between empty and Kmax.
func TestDCQCNQueueInBand(t *testing.T) {
	for _, preset := range []string{dcqcnPresetConnectX, dcqcnPresetHPCC} {
		t.Run(preset, func(t *testing.T) {
			res := dcqcnFairnessRun(t, preset)
			link := float64(dcqcnScenarioLink)
			kmin := units.Bytes(100_000 * link / 25e9)
			kmax := units.Bytes(400_000 * link / 25e9)
			_, _, cfg := dcqcnParts(t, dcqcnScenarioLink, map[string]string{"preset": preset})
			slack := units.BytesIn(dcqcnScenarioLink, res.Flows[0].BaseRTT+cfg.RateReduceMonitorPeriod)
			q := dcqcnQueueQuantiles(t, res, "s0->h0", units.Time(res.Scenario.MeasureFrom), res.End, 0.10, 0.90)
			t.Logf("p10 %v p90 %v; band [%v − %v, %v]", q[0], q[1], kmin, slack, kmax)
			require.LessOrEqual(t, q[1], kmax, "p90")
			if preset == dcqcnPresetHPCC {
				// The HPCC simulator's settings (its NP sends a CNP for every
				// marked packet) cut harder: with α kept at full precision
				// the queue saws between about 15 and 150 KB (p5 16 KB, p10
				// 35 KB; with the decreases spaced rather than on its 4 µs
				// grid, 5 KB and 13 KB) instead of standing in the band. It
				// stays below Kmax and the link stays busy; the
				// standing-queue claim is the ConnectX preset's.
				require.GreaterOrEqual(t, dcqcnPort(t, res, "s0->h0").Utilization, 0.99, "utilisation")
				return
			}
			require.GreaterOrEqual(t, q[0], kmin-slack, "p10")
		})
	}
}

// In the HPCC testbed's incast into a long flow (Figure 9c/d), DCQCN's
// queue builds far above HPCC's: "With DCQCN, the queue builds up to 550
// KB" while "HPCC quickly reacts after just one round trip, so the queue
// drains quickly" ([HPCC] §5.2).
//
//   - DCQCN's peak queue is at least 4× HPCC's in the same incast (550 KB
//     against a queue that drains within one round trip: HPCC's peak is one
//     window per sender, 8 × 15 KB at 25 Gb/s, so 4× leaves room for a
//     larger HPCC transient and still says "well above").
//   - The first peak, within 200 µs of the incast's start, is within a
//     factor 2 of the testbed's 550 KB. The factor covers what the paper
//     does not give (Pmax, the flows' sizes, the NIC's CNP timer
//     granularity) and the RTT (5.4 µs there, 4.9 µs here); enqueue marking
//     misses it (2.0 MB).
//
// The comparison needs the hpcc algorithm; without it the test compares with
// the `none` baseline (DCQCN's peak below it) and says so in the log, but
// if hpcc is registered the claim must hold.
func TestDCQCNIncastPeakAboveHPCC(t *testing.T) {
	dq := dcqcnRun(t, dcqcnBuiltin(t, dcqcnIncastName))
	at := units.Time(dq.Scenario.MeasureFrom)
	peak := dcqcnPort(t, dq, "s0->h0").MaxBytes
	first := dcqcnQueueQuantiles(t, dq, "s0->h0", at, at+200*units.Microsecond, 1)[0]
	t.Logf("dcqcn: peak %v, first peak %v", peak, first)
	const paper = 550 * units.KB
	require.GreaterOrEqual(t, first, paper/2)
	require.LessOrEqual(t, first, 2*paper)

	none := dcqcnBuiltin(t, dcqcnIncastName)
	none.Algorithm = "none"
	require.Less(t, peak, dcqcnPort(t, dcqcnRun(t, none), "s0->h0").MaxBytes)

	if _, err := cc.Lookup("hpcc"); err != nil {
		t.Logf("hpcc is not registered: compared with none only (%v)", err)
		return
	}
	hp := dcqcnBuiltin(t, dcqcnIncastName)
	hp.Algorithm = "hpcc"
	hpeak := dcqcnPort(t, dcqcnRun(t, hp), "s0->h0").MaxBytes
	t.Logf("hpcc: peak %v", hpeak)
	require.GreaterOrEqual(t, peak, 4*hpeak, "DCQCN %v vs HPCC %v", peak, hpeak)
}

// ---- Allocation and speed.

// The steady state allocates nothing per packet with the dcqcn scheme:
// the same long-flow scenario run for two lengths (after the same warm-up)
// differs in allocations by less than 0.01 per delivered packet. Flows,
// adapters and the network are built alike in both; only the extra
// simulated time differs.
func TestDCQCNSteadyStateAllocs(t *testing.T) {
	run := func(window string) (mallocs uint64, pkts int64) {
		sc := dcqcnBuiltin(t, dcqcnFairnessName, "settle=2ms", "window="+window)
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		m0 := ms.Mallocs
		res, err := harness.Run(sc, harness.Options{NoSeries: true})
		runtime.ReadMemStats(&ms)
		require.NoError(t, err)
		return ms.Mallocs - m0, res.Counters.DataRecvPackets
	}
	m1, p1 := run("2ms")
	m2, p2 := run("22ms")
	require.Greater(t, p2-p1, int64(50_000))
	per := (float64(m2) - float64(m1)) / float64(p2-p1)
	t.Logf("%.5f allocations per packet (%d − %d for %d more packets)", per, m2, m1, p2-p1)
	require.Less(t, per, 0.01, "%d − %d allocations for %d more packets", m2, m1, p2-p1)
}

// BenchmarkDCQCNIncast runs the whole dcqcn-incast scenario (8 flows at 25
// Gb/s, 4.6 ms) and reports simulated events per second and allocations per
// delivered packet (setup included: per-flow, per-port and time-series
// allocations are amortised over the run's packets).
func BenchmarkDCQCNIncast(b *testing.B) {
	b.ReportAllocs()
	var events, pkts int64
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	m0 := ms.Mallocs
	for i := 0; i < b.N; i++ {
		sc, err := harness.Builtin(dcqcnIncastName)
		if err != nil {
			b.Fatal(err)
		}
		res, err := harness.Run(sc, harness.Options{})
		if err != nil {
			b.Fatal(err)
		}
		events += int64(res.Report.Events)
		pkts += res.Counters.DataRecvPackets
	}
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(pkts)/float64(b.N), "packets/op")
	b.ReportMetric(float64(ms.Mallocs-m0)/float64(pkts), "allocs/packet")
}

// Example_dcqcn runs the HPCC testbed incast under DCQCN and HPCC.
func Example_dcqcn() {
	for _, algo := range []string{"dcqcn", "hpcc"} {
		sc, _ := harness.Builtin("dcqcn-incast")
		sc.Algorithm = algo
		res, err := harness.Run(sc, harness.Options{NoSeries: true})
		if err != nil {
			fmt.Println(err)
			return
		}
		done := 0
		for _, f := range res.Flows {
			if f.Finish >= 0 {
				done++
			}
		}
		var peak units.Bytes
		for _, p := range res.Ports {
			if p.Link == "s0->h0" {
				peak = p.MaxBytes
			}
		}
		fmt.Printf("%s: %d incast flows done, peak queue above 500 KB: %v\n", algo, done, peak > 500*units.KB)
	}
	// Output:
	// dcqcn: 7 incast flows done, peak queue above 500 KB: true
	// hpcc: 7 incast flows done, peak queue above 500 KB: false
}
