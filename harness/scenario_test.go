package harness

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
)

func TestBuiltins(t *testing.T) {
	names := BuiltinNames()
	require.IsNonDecreasing(t, names)
	require.Contains(t, names, "single-flow")
	require.Contains(t, names, "line-rate-2to1")
	for _, n := range names {
		sc, err := Builtin(n)
		require.NoError(t, err)
		require.Equal(t, n, sc.Name)
		require.NoError(t, sc.Validate(), n)
	}
	_, err := Builtin("nope")
	require.ErrorContains(t, err, "single-flow")
	// Fresh copies: changing one does not change the next.
	a, _ := Builtin("line-rate-2to1")
	require.NoError(t, a.Set("senders", "7"))
	b, _ := Builtin("line-rate-2to1")
	require.Equal(t, 2, b.Workload.FanIn.Senders)
	require.Error(t, RegisterBuiltin("single-flow", DefaultScenario))
}

func TestSetRequiredKeys(t *testing.T) {
	sc, err := Builtin("line-rate-2to1")
	require.NoError(t, err)
	for _, kv := range []string{
		"senders=4", "link=40Gbps", "delay=2us", "size=2MB", "duration=3ms", "pfc=off",
		"buffer=12MB", "seed=42", "measure_from=1ms", "measure_to=2ms",
		"xoff=300KB", "xon=290KB", "headroom=64KB", "ecn=50KB", "payload=4000", "ack_every=2",
		"rto=2ms", "sample_interval=5us", "param.rate=1Gbps", "algorithm=static",
	} {
		k, v, _ := strings.Cut(kv, "=")
		require.NoError(t, sc.Set(k, v), kv)
	}
	require.Equal(t, 4, sc.Workload.FanIn.Senders)
	require.Equal(t, Rate(40*units.Gbps), sc.Topology.Link)
	require.Equal(t, Time(2*units.Microsecond), sc.Topology.Delay)
	require.Equal(t, Bytes(2*units.MB), sc.Workload.FanIn.Size)
	require.Equal(t, Time(3*units.Millisecond), sc.Duration)
	require.False(t, sc.Switch.PFC)
	require.Equal(t, Bytes(12*units.MB), sc.Switch.Buffer)
	require.Equal(t, uint64(42), sc.Seed)
	require.Equal(t, Time(units.Millisecond), sc.MeasureFrom)
	require.Equal(t, Time(2*units.Millisecond), sc.MeasureTo)
	require.Equal(t, Bytes(300*units.KB), sc.Switch.Xoff)
	require.Equal(t, Bytes(290*units.KB), sc.Switch.Xon)
	require.Equal(t, Bytes(64*units.KB), sc.Switch.Headroom)
	require.Equal(t, Bytes(50*units.KB), sc.Switch.ECN)
	require.Equal(t, Bytes(4000), sc.NIC.Payload)
	require.Equal(t, 2, sc.NIC.AckEvery)
	require.Equal(t, Time(2*units.Millisecond), sc.NIC.RTO)
	require.Equal(t, "1Gbps", sc.Params["rate"])
	require.Equal(t, "static", sc.Algorithm)
	require.NoError(t, sc.Validate())
	require.NoError(t, sc.Set("pfc", "on"))
	require.True(t, sc.Switch.PFC)
}

func TestSetErrors(t *testing.T) {
	sc, err := Builtin("single-flow")
	require.NoError(t, err)
	err = sc.Set("bogus", "1")
	require.ErrorContains(t, err, `unknown key`)
	for _, k := range []string{"senders", "link", "delay", "size", "duration", "pfc", "buffer", "seed", "measure_from", "measure_to"} {
		require.ErrorContains(t, err, k, "the error lists the valid keys")
	}
	bad := map[string]string{
		"senders":      "zero",
		"link":         "fast",
		"delay":        "3",
		"size":         "-1MB",
		"duration":     "0s",
		"pfc":          "maybe",
		"buffer":       "lots",
		"seed":         "-3",
		"measure_from": "1 fortnight",
		"algorithm":    "no-such",
		"load":         "0.5", // single-flow has no Poisson part
	}
	for k, v := range bad {
		err := sc.Set(k, v)
		require.Error(t, err, "%s=%s", k, v)
		require.Contains(t, err.Error(), k, "the error names the key")
	}
	require.Error(t, sc.SetAll([]string{"noequals"}))
	// A scenario's own key takes precedence and shows up in Keys.
	sc.AddParam(Param{Name: "offered", Help: "offered load", Set: func(s *Scenario, v string) error {
		s.Description = "offered " + v
		return nil
	}})
	require.Contains(t, sc.Keys(), "offered")
	require.NoError(t, sc.Set("offered", "0.9"))
	require.Equal(t, "offered 0.9", sc.Description)
	require.Len(t, sc.Help(), len(sc.Keys()))
}

func TestValidateErrors(t *testing.T) {
	cases := map[string]struct {
		mod  func(*Scenario)
		want string
	}{
		"window":    {func(s *Scenario) { s.MeasureFrom = s.Duration }, "measure_from"},
		"to":        {func(s *Scenario) { s.MeasureTo = s.Duration + 1 }, "measure_to"},
		"algorithm": {func(s *Scenario) { s.Algorithm = "x" }, "algorithm = x: want one of"},
		"xon":       {func(s *Scenario) { s.Switch.Xon = s.Switch.Xoff }, "switch.xon"},
		"kind":      {func(s *Scenario) { s.Topology.Kind = "ring" }, "fat-tree"},
		"unused":    {func(s *Scenario) { s.Topology.Leaves = 3 }, "topology.leaves is not used by kind star"},
		"empty":     {func(s *Scenario) { s.Workload = WorkloadSpec{} }, "workload: empty"},
		"payload":   {func(s *Scenario) { s.NIC.Payload = 0 }, "nic.payload"},
		"load":      {func(s *Scenario) { s.Workload.Poisson = &PoissonSpec{Load: 1.5, CDF: "websearch"} }, "workload.poisson.load"},
		"cdf":       {func(s *Scenario) { s.Workload.Poisson = &PoissonSpec{Load: 0.5, CDF: "zipf"} }, "websearch"},
		"stop":      {func(s *Scenario) { s.Workload.FanIn.Stop = 1; s.Workload.FanIn.Start = 2 }, "fan_in.stop"},
		"interval":  {func(s *Scenario) { s.SampleInterval = 0 }, "sample_interval"},
	}
	for name, c := range cases {
		sc, err := Builtin("single-flow")
		require.NoError(t, err)
		c.mod(sc)
		require.ErrorContains(t, sc.Validate(), c.want, name)
	}
	// Host names are checked against the topology when the run is built.
	sc := DefaultScenario()
	sc.Workload.Flows = []FlowSpec{{Src: "h1", Dst: "h9"}}
	sc.Topology.Hosts = 3
	_, err := New(sc, Options{})
	require.ErrorContains(t, err, `no host "h9"`)
}

func TestDecodeScenarioRoundTrip(t *testing.T) {
	for _, n := range BuiltinNames() {
		sc, err := Builtin(n)
		require.NoError(t, err)
		b, err := json.Marshal(sc)
		require.NoError(t, err)
		back, err := DecodeScenario(bytes.NewReader(b))
		require.NoError(t, err, string(b))
		sc.extra = nil
		require.Equal(t, sc, back)
	}
}

func TestDecodeScenarioStrict(t *testing.T) {
	cases := map[string][]string{
		`{"name":"x","bogus":1}`:                                           {`unknown field "bogus"`, "allowed:", "duration", "workload"},
		`{"topology":{"kind":"star","hots":3}}`:                            {"scenario.topology", `"hots"`, "hosts"},
		`{"workload":{"flows":[{"src":"h1","dst":"h0","sise":1}]}}`:        {"scenario.workload.flows[0]", `"sise"`, "size"},
		`{"duration":"10 parsecs"}`:                                        {"scenario.duration", "parsecs"},
		`{"duration":10}`:                                                  {"scenario.duration", "string"},
		`{"seed":"abc"}`:                                                   {"scenario.seed", "whole number"},
		`{"switch":{"pfc":"yes"}}`:                                         {"scenario.switch.pfc", "true or false"},
		`{"topology":{"kind":"ring"},"workload":{"fan_in":{"senders":1}}}`: {"topology.kind", "leaf-spine"},
		`{"workload":{"fan_in":{"senders":1}}} {}`:                         {"trailing"},
		`[1,2]`: {"want a JSON object"},
		`{"workload":{"fan_in":{"senders":1}},"topology":{"kind":"star","link":"100Gbps"},"switch":{"buffer":"1MB","xoff":"2MB","ecn":100}}`: nil,
	}
	for in, wants := range cases {
		_, err := DecodeScenario(strings.NewReader(in))
		if wants == nil {
			require.NoError(t, err, in)
			continue
		}
		require.Error(t, err, in)
		for _, w := range wants {
			require.Contains(t, err.Error(), w, in)
		}
	}
}

func TestDecodedScenarioRuns(t *testing.T) {
	in := `{
		"name": "two-flows",
		"topology": {"kind": "dumbbell", "left": 2, "right": 2, "core_link": "40Gbps"},
		"workload": {"flows": [
			{"src": "l0", "dst": "r0", "size": "100KB"},
			{"src": "l1", "dst": "r1", "size": "100KB", "start": "2us"}
		]},
		"duration": "200us"
	}`
	sc, err := DecodeScenario(strings.NewReader(in))
	require.NoError(t, err)
	r := runScenario(t, sc)
	require.Len(t, r.Report.Flows, 2)
	for _, f := range r.Report.Flows {
		require.NotNil(t, f.FCTNs)
		require.GreaterOrEqual(t, *f.Slowdown, 1.0-1e-9)
	}
}

func FuzzDecodeScenario(f *testing.F) {
	// Seeds: a built-in's JSON, a minimal file, an unknown field, and junk.
	sc, _ := Builtin("line-rate-2to1")
	b, _ := json.Marshal(sc)
	f.Add(b)
	f.Add([]byte(`{"workload":{"fan_in":{"senders":1}}}`))
	f.Add([]byte(`{"bogus":1}`))
	f.Add([]byte(`{"topology":{"kind":"fat-tree","k":3}}`))
	f.Add([]byte(`nul`))
	f.Fuzz(func(t *testing.T, in []byte) {
		s, err := DecodeScenario(bytes.NewReader(in))
		if err == nil {
			require.NoError(t, s.Validate())
		}
	})
}

func FuzzSet(f *testing.F) {
	// Seeds: valid and invalid pairs for several keys.
	f.Add("senders", "3")
	f.Add("link", "25Gbps")
	f.Add("measure_to", "-1us")
	f.Add("param.", "x")
	f.Add("pfc", "")
	f.Fuzz(func(t *testing.T, k, v string) {
		sc, err := Builtin("line-rate-2to1")
		require.NoError(t, err)
		_ = sc.Set(k, v) // must not panic
		_ = sc.Validate()
	})
}

// TestNoReactionPointRefused: an algorithm whose deployment runs no
// reaction point is registered (cc allows a lone part), and the harness,
// whose every flow runs one, refuses to run it, saying so.
func TestNoReactionPointRefused(t *testing.T) {
	a, err := cc.Lookup("none")
	require.NoError(t, err)
	a.Name, a.Deploy = "zz-harness-no-rp", cc.Deployment{RP: "-"}
	require.NoError(t, cc.RegisterAlgorithm(a))
	sc, err := Builtin("single-flow")
	require.NoError(t, err)
	sc.Algorithm = a.Name
	_, err = Run(sc, Options{NoSeries: true})
	require.ErrorContains(t, err, "deploys no reaction point")
}

// TestSetChoices: each key that takes one of a few words accepts exactly
// those words (the ones its help names), in any case, stores them in lower
// case, and refuses anything else, a sentence of them included, with an
// error that lists them.
func TestSetChoices(t *testing.T) {
	for _, c := range []struct {
		key   string
		vals  []string
		want  string
		field func(*Scenario) string
	}{
		{"flow_control", []string{"pfc", "cbfc", "none", "trim"}, "want pfc, cbfc, none or trim", func(s *Scenario) string { return s.Switch.FlowControl }},
		{"voq_gate", []string{"all", "uplinks", "local"}, "want all, uplinks or local", func(s *Scenario) string { return s.Switch.VOQGate }},
		{"ecmp", []string{"flow", "destination"}, "want flow or destination", func(s *Scenario) string { return s.Switch.ECMP }},
		{"transport", []string{"gbn", "sack"}, "want gbn or sack", func(s *Scenario) string { return s.NIC.Transport }},
		{"np_scope", []string{"flow", "host"}, "want flow or host", func(s *Scenario) string { return s.NIC.NPScope }},
	} {
		sc, err := Builtin("single-flow")
		require.NoError(t, err)
		for _, v := range c.vals {
			require.NoError(t, sc.Set(c.key, strings.ToUpper(v)), "%s=%s", c.key, v)
			require.Equal(t, v, c.field(sc), c.key)
		}
		for _, v := range []string{"zzz", "", strings.Join(c.vals, " or "), c.want} {
			err := sc.Set(c.key, v)
			require.Error(t, err, "%s=%q", c.key, v)
			require.ErrorContains(t, err, c.want, c.key)
		}
	}
}
