package harness_test

import (
	"fmt"
	"os"
	"strings"

	_ "github.com/hwcc/hwcc/algos" // the registered algorithms; the scenarios' default, none, among them
	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/harness"
	"github.com/hwcc/hwcc/units"
)

// A lone 1 MB flow across one switch at 100 Gb/s: 1000 frames of 1082 wire
// bytes back to back (86.56 µs) plus the pipeline and the ACK's way back.
func ExampleRun() {
	sc, err := harness.Builtin("single-flow")
	if err != nil {
		panic(err)
	}
	res, err := harness.Run(sc, harness.Options{})
	if err != nil {
		panic(err)
	}
	f := res.Report.Flows[0]
	fmt.Printf("%s -> %s: %d bytes, FCT %d ns, slowdown %.3f, base RTT %v\n",
		f.Src, f.Dst, f.Bytes, *f.FCTNs, *f.Slowdown, res.Flows[0].BaseRTT)
	// Output: h1 -> h0: 1000000 bytes, FCT 90660 ns, slowdown 1.000, base RTT 4.18688us
}

func ExampleScenario_Set() {
	sc, err := harness.Builtin("line-rate-2to1")
	if err != nil {
		panic(err)
	}
	for _, kv := range []string{"senders=4", "link=40Gbps", "duration=300us"} {
		if err := sc.SetAll([]string{kv}); err != nil {
			panic(err)
		}
	}
	res, err := harness.Run(sc, harness.Options{NoSeries: true})
	if err != nil {
		panic(err)
	}
	for _, f := range res.Report.Flows {
		fmt.Printf("flow %d: %.1f Gb/s\n", f.ID, f.ThroughputBps/1e9)
	}
	fmt.Printf("jain %.4f, drops %d\n", res.Report.Fairness.Jain, res.Report.Drops)
	fmt.Println(sc.Set("colour", "blue") != nil)
	// Output:
	// flow 0: 10.0 Gb/s
	// flow 1: 10.0 Gb/s
	// flow 2: 10.0 Gb/s
	// flow 3: 10.0 Gb/s
	// jain 1.0000, drops 0
	// true
}

// halfRP is the smallest algorithm the harness runs: a reaction point
// that paces its flow at half its NIC's line rate, with no congestion
// point or notification point.
type halfRP struct {
	clock cc.Monotonic
	rate  units.Rate
}

func (r *halfRP) Limits() cc.Limits        { return cc.Limits{Rate: r.rate} }
func (r *halfRP) NextDeadline() units.Time { return units.MaxTime }
func (r *halfRP) Timer(now units.Time, _ *cc.Actions) error {
	return r.clock.Accept("example-half rp", "Timer", now)
}
func (r *halfRP) Sent(now units.Time, _ *cc.Packet, _ *cc.Actions) error {
	return r.clock.Accept("example-half rp", "Sent", now)
}
func (r *halfRP) Feedback(now units.Time, _ *cc.Feedback, _ *cc.Actions) error {
	return r.clock.Accept("example-half rp", "Feedback", now)
}
func (r *halfRP) AppendRegisters(dst []cc.Register) []cc.Register {
	return append(dst, r.clock.Register(), cc.RateReg("rate", r.rate))
}

// Running an algorithm of one's own: register it in package cc, from an
// init function (here it may run more than once: go test -count=2); its
// deployment's zero value runs its one reaction point at every sender.
func Example_algorithm() {
	if _, err := cc.Lookup("example-half"); err != nil {
		cc.MustRegisterAlgorithm(cc.Algorithm{
			Name: "example-half", Title: "half rate", Paper: "none", Doc: "every flow at half its line rate",
			Parts: []cc.PartSpec{{Name: "rp", Role: cc.RoleRP, Doc: "paces at half the line rate", Config: &cc.Spec[units.Rate]{
				Presets: []cc.Preset[units.Rate]{{Name: "half", Config: func(env cc.Env) units.Rate { return env.Rate / 2 }}},
				New:     func(rate units.Rate) (cc.Part, error) { return &halfRP{rate: rate}, nil },
			}}},
		})
	}
	sc, _ := harness.Builtin("single-flow")
	_ = sc.Set("algorithm", "example-half")
	res, err := harness.Run(sc, harness.Options{NoSeries: true})
	if err != nil {
		panic(err)
	}
	fmt.Printf("slowdown %.2f\n", *res.Report.Flows[0].Slowdown)
	// Output: slowdown 1.95
}

func ExampleDecodeScenario() {
	file := `{
		"name": "dumbbell-pair",
		"topology": {"kind": "dumbbell", "left": 2, "right": 2, "core_link": "40Gbps"},
		"workload": {"flows": [
			{"src": "l0", "dst": "r0", "size": "64KB"},
			{"src": "l1", "dst": "r1", "size": "64KB"}
		]},
		"duration": "100us"
	}`
	sc, err := harness.DecodeScenario(strings.NewReader(file))
	if err != nil {
		panic(err)
	}
	res, err := harness.Run(sc, harness.Options{NoSeries: true})
	if err != nil {
		panic(err)
	}
	for _, f := range res.Report.Flows {
		fmt.Printf("%s->%s FCT %.2f us\n", f.Src, f.Dst, float64(*f.FCTNs)/1e3)
	}
	// A typo is an error that names the field and lists the allowed ones.
	_, err = harness.DecodeScenario(strings.NewReader(`{"topology": {"kind": "star", "host": 3}}`))
	fmt.Fprintln(os.Stdout, err)
	// Output:
	// l0->r0 FCT 33.69 us
	// l1->r1 FCT 33.90 us
	// scenario.topology (line 1, column 31): unknown field "host" (allowed: aggs, core_link, cores, delay, hosts, hosts_per_leaf, hosts_per_switch, hosts_per_tor, k, kind, leaves, left, link, pods, right, spines, switches, tors)
}
