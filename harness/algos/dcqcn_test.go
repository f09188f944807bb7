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

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cp"
	"github.com/hwcc/hwcc/harness"
	"github.com/hwcc/hwcc/np"
	"github.com/hwcc/hwcc/rp"
	"github.com/hwcc/hwcc/units"
)

// ---- A recording wrapper: every part an adapter builds, for error checks.

// dcqcnRecorder wraps an algorithm under another name and keeps the error
// counters of every CP, RP and NP it builds, so that a test can check that
// the state machines rejected no event during a run (the adapters count
// errors instead of failing: the harness has no error path from an event).
type dcqcnRecorder struct {
	harness.Algorithm
	name string
	errs []*dcqcnErrs
}

func (r *dcqcnRecorder) Name() string { return r.name }

func (r *dcqcnRecorder) CheckParams(p map[string]string) error {
	return r.Algorithm.(harness.ParamChecker).CheckParams(p)
}

func (r *dcqcnRecorder) keep(part any) {
	switch x := part.(type) {
	case *dcqcnCP:
		r.errs = append(r.errs, &x.errs)
	case *dcqcnRP:
		r.errs = append(r.errs, &x.errs)
	case *dcqcnNP:
		r.errs = append(r.errs, &x.errs)
	}
}

func (r *dcqcnRecorder) NewCP(i harness.CPInfo) (harness.CP, error) {
	c, err := r.Algorithm.NewCP(i)
	r.keep(c)
	return c, err
}

func (r *dcqcnRecorder) NewRP(f harness.FlowInfo) (harness.RP, error) {
	p, err := r.Algorithm.NewRP(f)
	r.keep(p)
	return p, err
}

func (r *dcqcnRecorder) NewNP(f harness.FlowInfo) (harness.NP, error) {
	n, err := r.Algorithm.NewNP(f)
	if n != nil {
		r.keep(n)
	}
	return n, err
}

// The recorders, registered once as "<name>-rec".
var (
	dcqcnRecOnce sync.Once
	dcqcnRecs    = map[string]*dcqcnRecorder{}
)

func dcqcnRecorderFor(t testing.TB, algo string) *dcqcnRecorder {
	dcqcnRecOnce.Do(func() {
		for _, a := range []harness.Algorithm{dcqcnAlgo{}} {
			r := &dcqcnRecorder{Algorithm: a, name: a.Name() + "-rec"}
			harness.MustRegister(r)
			dcqcnRecs[a.Name()] = r
		}
	})
	r, ok := dcqcnRecs[algo]
	require.True(t, ok, "no recorder for %s", algo)
	return r
}

// dcqcnRun runs sc. For dcqcn and dctcp it runs through the recorder and
// checks that no adapter saw an error from its state machine.
func dcqcnRun(t testing.TB, sc *harness.Scenario) *harness.Result {
	t.Helper()
	var rec *dcqcnRecorder
	wrapped := sc.Algorithm == dcqcnName
	if wrapped {
		rec = dcqcnRecorderFor(t, sc.Algorithm)
		rec.errs = rec.errs[:0]
		sc.Algorithm = rec.name
	}
	res, err := harness.Run(sc, harness.Options{})
	require.NoError(t, err)
	require.Nil(t, res.Report.Errors, "a state machine rejected an event")
	if wrapped {
		require.NotEmpty(t, rec.errs)
		for _, e := range rec.errs {
			require.Zero(t, e.n, "a state machine rejected %d events; first: %v", e.n, e.first)
		}
	}
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

func TestDCQCNParams(t *testing.T) {
	a := dcqcnAlgo{}
	good := []map[string]string{
		nil,
		{"preset": "connectx"}, {"preset": "PAPER"}, {"preset": "hpcc"},
		{"kmin": "5KB", "kmax": "200KB", "pmax": "0.01"},
		{"kmin": "100KB", "kmax": "100KB"}, // a step marker
		{"np": "slot", "cnp_interval": "50us"}, {"np": "interval", "cnp_interval": "0s"},
		{"mark": "enqueue"}, {"mark": "dequeue"},
		{"rpg_time_reset": "55us", "rpg_ai_rate": "40Mbps", "rpg_hai_rate": "200Mbps", "rpg_threshold": "5"},
		{"dce_tcp_g": "1020", "dce_tcp_rtt": "55us", "initial_alpha_value": "512", "rpg_gd": "11"},
		{"rpg_byte_reset": "10MB", "rpg_min_rate": "10Mbps", "rpg_max_rate": "10Gbps", "rate_to_set_on_first_cnp": "1Gbps"},
		{"clamp_tgt_rate": "on", "clamp_tgt_rate_after_time_inc": "off", "rpg_min_dec_fac": "0", "rate_reduce_monitor_period": "0s"},
		// Keys whose ranges depend on each other are checked together:
		// the first CNP's rate is valid once the minimum is lowered.
		{"preset": "hpcc", "rate_to_set_on_first_cnp": "500Mbps", "rpg_min_rate": "100Mbps"},
	}
	for _, p := range good {
		require.NoError(t, a.CheckParams(p), "%v", p)
	}
	bad := []struct {
		p    map[string]string
		want []string // substrings of the error
	}{
		{map[string]string{"eta": "1"}, []string{"unknown parameter param.eta (known: clamp_tgt_rate"}},
		{map[string]string{"preset": "mellanox"}, []string{"param.preset = \"mellanox\": want connectx, paper or hpcc"}},
		{map[string]string{"kmin": "-1"}, []string{"param.kmin"}},
		{map[string]string{"kmax": "5GB"}, []string{"param.kmax = \"5GB\": want a size in 0..4294967295 B"}},
		{map[string]string{"kmin": "300KB", "kmax": "200KB"}, []string{"param.kmin = 300KB exceeds param.kmax = 200KB"}},
		{map[string]string{"pmax": "1.5"}, []string{"param.pmax = \"1.5\": want a probability in [0, 1]"}},
		{map[string]string{"pmax": "NaN"}, []string{"param.pmax"}},
		{map[string]string{"np": "fast"}, []string{"param.np = \"fast\": want slot"}},
		{map[string]string{"cnp_interval": "2s"}, []string{"param.cnp_interval = \"2s\": want a time in 0..1s"}},
		{map[string]string{"mark": "egress"}, []string{"param.mark = \"egress\": want enqueue or dequeue"}},
		{map[string]string{"dce_tcp_g": "1024"}, []string{"param.dce_tcp_g = \"1024\": want a whole number in 0..1023"}},
		{map[string]string{"rpg_gd": "32"}, []string{"param.rpg_gd = \"32\"", "RpgGd = 32: want 0..31"}},
		{map[string]string{"rpg_min_dec_fac": "101"}, []string{"param.rpg_min_dec_fac", "RpgMinDecFac"}},
		{map[string]string{"rpg_time_reset": "0s"}, []string{"param.rpg_time_reset", "RpgTimeReset = 0s: want (0, 1s]"}},
		{map[string]string{"rpg_byte_reset": "100B"}, []string{"param.rpg_byte_reset", "multiple of 64B"}},
		{map[string]string{"rpg_ai_rate": "5.5Mbps"}, []string{"param.rpg_ai_rate", "RpgAIRate", "multiple of RateUnit (1Mbps)"}},
		{map[string]string{"rpg_ai_rate": "fast"}, []string{"param.rpg_ai_rate = \"fast\""}},
		{map[string]string{"clamp_tgt_rate": "maybe"}, []string{"param.clamp_tgt_rate = \"maybe\": want on or off"}},
		{map[string]string{"preset": "hpcc", "rate_to_set_on_first_cnp": "500Mbps"}, []string{"param.rate_to_set_on_first_cnp", "RateToSetOnFirstCNP"}},
	}
	for _, c := range bad {
		err := a.CheckParams(c.p)
		require.Error(t, err, "%v", c.p)
		for _, w := range c.want {
			require.Contains(t, err.Error(), w, "%v", c.p)
		}
	}
	// The RP keys are looked up by binary search.
	require.True(t, sort.SliceIsSorted(dcqcnRPKeys, func(i, j int) bool { return dcqcnRPKeys[i].name < dcqcnRPKeys[j].name }))
	// An unknown key makes the whole scenario invalid, naming the key.
	sc := dcqcnBuiltin(t, dcqcnFairnessName, "param.nope=1")
	require.ErrorContains(t, sc.Validate(), "param.nope")
}

// Line-rate dependent checks come from the factories, naming the port or
// flow.
func TestDCQCNParamsAtTheLineRate(t *testing.T) {
	a := dcqcnAlgo{}
	// Kmin above the scaled Kmax of a 25 Gb/s port (400 KB).
	_, err := a.NewCP(harness.CPInfo{NodeName: "s0", Port: 3, Rate: 25 * units.Gbps, Params: map[string]string{"kmin": "500KB"}})
	require.ErrorContains(t, err, "dcqcn: CP s0 port 3 (25Gbps)")
	require.ErrorContains(t, err, "Kmax = 400KB: want Kmin (500KB)")
	// A maximum rate above the line rate.
	_, err = a.NewRP(harness.FlowInfo{ID: 7, LineRate: 25 * units.Gbps, Params: map[string]string{"rpg_max_rate": "40Gbps"}})
	require.ErrorContains(t, err, "flow 7: dcqcn: param.rpg_max_rate = \"40Gbps\": preset connectx at line rate 25Gbps")
	// A line rate that is not a whole number of Mb/s (ConnectX's unit).
	_, err = a.NewRP(harness.FlowInfo{ID: 1, LineRate: 25*units.Gbps + 1})
	require.ErrorContains(t, err, "PortRate")
	// A sub-Gb/s line rate is below the HPCC preset's 1000 Mb/s minimum.
	_, err = a.NewRP(harness.FlowInfo{ID: 1, LineRate: 500 * units.Mbps, Params: map[string]string{"preset": "hpcc"}})
	require.ErrorContains(t, err, "RpgMinRate")
}

// The presets are the cp, np and rp packages' own, the CP thresholds the
// HPCC paper's rule (papers/hpcc.txt section 5.1: Kmin = 100 KB·Bw/25
// Gb/s, Kmax = 400 KB·Bw/25 Gb/s; KB = 1000 B), computed here from the
// formula, and the overrides land in the named fields.
func TestDCQCNPresetConfigs(t *testing.T) {
	for _, link := range []units.Rate{10 * units.Gbps, 25 * units.Gbps, 40 * units.Gbps, 100 * units.Gbps} {
		p, err := dcqcnParseParams(nil)
		require.NoError(t, err)
		c := dcqcnCPConfig(p, harness.CPInfo{ID: 3, Rate: link})
		require.Equal(t, units.Bytes(100_000*float64(link)/25e9), c.Kmin, "Kmin at %v", link)
		require.Equal(t, units.Bytes(400_000*float64(link)/25e9), c.Kmax, "Kmax at %v", link)
		require.Equal(t, uint32(13107), c.Pmax) // 0.2·65536 = 13107.2
		require.NotZero(t, c.Seed)
		require.True(t, p.markDequeue)
		require.Equal(t, cp.DCQCNMarkDequeue, c.MarkAt)
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
		p, err := dcqcnParseParams(map[string]string{"preset": name})
		require.NoError(t, err)
		got, err := dcqcnRPConfig(p, 25*units.Gbps)
		require.NoError(t, err)
		require.Equal(t, want.rp(25*units.Gbps), got, name)
		require.Equal(t, want.np, dcqcnNPConfig(p), name)
	}
	require.Equal(t, dcqcnPresetConnectX, dcqcnDefaultPreset)

	p, err := dcqcnParseParams(map[string]string{
		"kmin": "5KB", "kmax": "200KB", "pmax": "0.01", "np": "slot", "cnp_interval": "50us",
		"rpg_ai_rate": "40Mbps", "rpg_time_reset": "55us", "dce_tcp_g": "1020", "clamp_tgt_rate": "on",
		"rpg_byte_reset": "10MB", "mark": "enqueue",
	})
	require.NoError(t, err)
	c := dcqcnCPConfig(p, harness.CPInfo{Rate: 100 * units.Gbps})
	require.Equal(t, cp.DCQCNConfig{Kmin: 5000, Kmax: 200_000, Pmax: 655, Seed: c.Seed, MarkAt: cp.DCQCNMarkEnqueue}, c) // 0.01·65536 = 655.36
	require.False(t, p.markDequeue)
	require.Equal(t, np.DCQCNConfig{Mode: np.DCQCNSlot, Interval: 50 * units.Microsecond}, dcqcnNPConfig(p))
	r, err := dcqcnRPConfig(p, 100*units.Gbps)
	require.NoError(t, err)
	want := rp.DCQCNConnectX(100 * units.Gbps)
	want.RpgAIRate, want.RpgTimeReset, want.DceTCPG, want.ClampTgtRate = 40*units.Mbps, 55*units.Microsecond, 1020, true
	want.RpgByteReset = 10 * units.MB
	require.Equal(t, want, r)
}

// Property: every CP ID gets a valid seed (never the LFSR's lock-up 0), and
// IDs map to distinct seeds (checked for 2^16 consecutive IDs below).
func TestDCQCNSeeds(t *testing.T) {
	params := gopter.DefaultTestParametersWithSeed(6)
	params.MinSuccessfulTests = 2000
	props := gopter.NewProperties(params)
	props.Property("seed is a valid LFSR state", prop.ForAll(func(id int32) bool {
		_, err := cp.NewLFSR32(dcqcnSeed(harness.CPID(id)))
		return err == nil
	}, gen.Int32Range(-1<<31, 1<<31-1).WithLabel("id")))
	props.TestingRun(t)
	seen := make(map[uint32]harness.CPID, 1<<16)
	for id := harness.CPID(0); id < 1<<16; id++ {
		s := dcqcnSeed(id)
		prev, dup := seen[s]
		require.False(t, dup, "CPs %d and %d share seed %#x", prev, id, s)
		seen[s] = id
	}
}

// FuzzDCQCNParams: any parameter set either fails CheckParams with an
// error, or builds a CP, RP and NP at 25 Gb/s (or fails their line-rate
// checks with an error) — never a panic. Seeds: a valid set, each kind of
// bad value, an unknown key.
func FuzzDCQCNParams(f *testing.F) {
	f.Add("preset", "hpcc", "kmin", "5KB")            // valid
	f.Add("rpg_ai_rate", "5.5Mbps", "pmax", "0.2")    // rate not a multiple of 1 Mb/s
	f.Add("kmax", "1KB", "kmin", "2KB")               // kmin > kmax
	f.Add("rpg_max_rate", "40Gbps", "np", "interval") // above the line rate: NewRP's error
	f.Add("nope", "1", "mark", "dequeue")             // unknown key
	f.Add("dce_tcp_rtt", "0s", "cnp_interval", "-1us")
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2 string) {
		params := map[string]string{k1: v1, k2: v2}
		a := dcqcnAlgo{}
		if a.CheckParams(params) != nil {
			return
		}
		if c, err := a.NewCP(harness.CPInfo{Rate: 25 * units.Gbps, Params: params}); err == nil {
			require.NotNil(t, c)
		}
		fi := harness.FlowInfo{LineRate: 25 * units.Gbps, Params: params}
		if r, err := a.NewRP(fi); err == nil {
			require.LessOrEqual(t, r.Rate(), fi.LineRate)
		}
		n, err := a.NewNP(fi)
		require.NoError(t, err) // the NP has no line-rate dependent field
		require.NotNil(t, n)
	})
}

// ---- The adapter's own mapping, without the harness.

// Rate = min(offered, line rate, RC); OnSend's bytes reach the byte counter;
// the NP's CNP decision and the CP's mark reach the packet.
func TestDCQCNAdapterMapping(t *testing.T) {
	a := dcqcnAlgo{}
	f := harness.FlowInfo{ID: 1, LineRate: 25 * units.Gbps, Offered: 20 * units.Gbps}
	r, err := a.NewRP(f)
	require.NoError(t, err)
	require.Equal(t, 20*units.Gbps, r.Rate(), "capped at the offered rate")
	require.Zero(t, r.Window())
	r.OnCNP(0) // first CNP: RC ← RC·(1 − α/2) with α = 1023/1024, cut at most 50 %
	d := r.(*dcqcnRP).d
	require.Equal(t, d.Rate(), r.Rate(), "below the offered rate, the DCQCN rate")
	require.Less(t, d.Rate(), 20*units.Gbps)
	// The ConnectX byte counter expires after rpg_byte_reset = 32767·64 B.
	per := harness.DefaultPayload
	n := int(rp.DCQCNConnectX(f.LineRate).RpgByteReset/per) + 1
	for i := 0; i < n; i++ {
		r.OnSend(units.Time(i), uint64(i)*uint64(per), per)
	}
	require.Equal(t, uint32(1), d.State().ByteStage)
	require.Zero(t, r.(*dcqcnRP).errs.n)
	// Time going backwards is counted, not applied.
	r.OnCNP(units.Time(n) - 2)
	require.Equal(t, uint64(1), r.(*dcqcnRP).errs.n)
	require.ErrorIs(t, r.(*dcqcnRP).errs.first, cc.ErrTimeOrder)

	// NP: ConnectX sends a CNP for the first mark, none within 4 µs.
	nn, err := a.NewNP(f)
	require.NoError(t, err)
	require.False(t, nn.OnData(0, &harness.Packet{}))
	require.True(t, nn.OnData(1, &harness.Packet{CE: true}))
	require.False(t, nn.OnData(2*units.Microsecond, &harness.Packet{CE: true}))
	require.True(t, nn.OnData(5*units.Microsecond, &harness.Packet{CE: true}))
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
		{dcqcnIncastName, "link=0Gbps", "want a rate > 0"},
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
		for _, algo := range harness.Names() {
			if strings.HasSuffix(algo, "-rec") || strings.HasPrefix(algo, "test-") {
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
// Under mark=enqueue this does not hold (the queue is empty about a
// quarter of the time; see dcqcn.go and docs/scenarios.md): the mark waits
// behind the queue it reports, up to 128 µs at Kmax, and the loop
// oscillates between empty and Kmax.
func TestDCQCNQueueInBand(t *testing.T) {
	for _, preset := range []string{dcqcnPresetConnectX, dcqcnPresetHPCC} {
		t.Run(preset, func(t *testing.T) {
			res := dcqcnFairnessRun(t, preset)
			link := float64(dcqcnScenarioLink)
			kmin := units.Bytes(100_000 * link / 25e9)
			kmax := units.Bytes(400_000 * link / 25e9)
			p, err := dcqcnParseParams(map[string]string{"preset": preset})
			require.NoError(t, err)
			cfg, err := dcqcnRPConfig(p, dcqcnScenarioLink)
			require.NoError(t, err)
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
// drains quickly" (papers/hpcc.txt section 5.2).
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
// The comparison needs the hpcc adapter; without it the test compares with
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

	if _, err := harness.Lookup("hpcc"); err != nil {
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

// The steady state allocates nothing per packet with the dcqcn adapter:
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
