package harness

import (
	"errors"
	"fmt"
	"github.com/hwcc/hwcc/cc"
	"sort"
	"strconv"
	"strings"

	"github.com/hwcc/hwcc/harness/workloads"
	"github.com/hwcc/hwcc/units"
)

// Param is one key of Scenario.Set: its name, a one-line help and the
// function that applies a value. Built-in scenarios add their own with
// AddParam; a scenario's own key takes precedence over a common key of the
// same name.
type Param struct {
	Name string
	Help string
	Set  func(s *Scenario, value string) error
}

// AddParam adds a key to this scenario's Set.
func (s *Scenario) AddParam(p Param) { s.extra = append(s.extra, p) }

// commonParams are the keys every scenario accepts.
var commonParams = []Param{
	{"algorithm", "algorithm name (hwcc algos)", func(s *Scenario, v string) error {
		if _, err := cc.Lookup(v); err != nil {
			return err
		}
		s.Algorithm = v
		return nil
	}},
	{"senders", "number of senders of the fan-in (or of the only incast)", func(s *Scenario, v string) error {
		n, err := parseCount(v, 1, 4096)
		if err != nil {
			return err
		}
		switch {
		case s.Workload.FanIn != nil:
			s.Workload.FanIn.Senders, s.Workload.FanIn.Hosts = n, nil
		case len(s.Workload.Incast) == 1:
			s.Workload.Incast[0].Senders, s.Workload.Incast[0].Hosts = n, nil
		default:
			return errors.New("the workload has no fan_in and not exactly one incast")
		}
		return nil
	}},
	{"size", "flow size of the fan-in, incasts and explicit flows (0: long-lived)", func(s *Scenario, v string) error {
		b, err := units.ParseBytes(v)
		if err != nil {
			return err
		}
		n := 0
		if s.Workload.FanIn != nil {
			s.Workload.FanIn.Size = Bytes(b)
			n++
		}
		for i := range s.Workload.Incast {
			if b == 0 {
				return errors.New("incast flows need a size > 0")
			}
			s.Workload.Incast[i].Size = Bytes(b)
			n++
		}
		for i := range s.Workload.Flows {
			s.Workload.Flows[i].Size = Bytes(b)
			n++
		}
		if n == 0 {
			return errors.New("the workload has no flows with a size")
		}
		return nil
	}},
	{"link", "host link rate (all links of star, chain, dumbbell access)", setRate(func(s *Scenario) *Rate { return &s.Topology.Link })},
	{"core_link", "rate of the links between switches", setRate(func(s *Scenario) *Rate { return &s.Topology.CoreLink })},
	{"delay", "propagation delay of every link", setTime(func(s *Scenario) *Time { return &s.Topology.Delay }, true)},
	{"hosts", "number of hosts of a star", func(s *Scenario, v string) error {
		n, err := parseCount(v, 2, 4096)
		s.Topology.Hosts = n
		return err
	}},
	{"duration", "simulated time", setTime(func(s *Scenario) *Time { return &s.Duration }, false)},
	{"measure_from", "start of the measurement window", setTime(func(s *Scenario) *Time { return &s.MeasureFrom }, true)},
	{"measure_to", "end of the measurement window (0: duration)", setTime(func(s *Scenario) *Time { return &s.MeasureTo }, true)},
	{"sample_interval", "time-series step", setTime(func(s *Scenario) *Time { return &s.SampleInterval }, false)},
	{"seed", "random seed (unsigned integer)", func(s *Scenario, v string) error {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return fmt.Errorf("%q: want an unsigned integer", v)
		}
		s.Seed = n
		return nil
	}},
	{"pfc", "PFC on or off", func(s *Scenario, v string) error {
		switch strings.ToLower(v) {
		case "on", "true", "1":
			s.Switch.PFC = true
		case "off", "false", "0":
			s.Switch.PFC = false
		default:
			return fmt.Errorf("%q: want on or off", v)
		}
		return nil
	}},
	{"flow_control", "link flow control into switches: pfc, cbfc (InfiniBand credits) or none (overrides pfc)", func(s *Scenario, v string) error {
		switch v = strings.ToLower(v); v {
		case FlowPFC, FlowCBFC, FlowNone:
			s.Switch.FlowControl = v
			return nil
		}
		return fmt.Errorf("%q: want pfc, cbfc or none", v)
	}},
	{"cbfc_buffer", "CBFC receive buffer per ingress port and data priority (0: 128 KiB, 2048 blocks)", setBytes(func(s *Scenario) *Bytes { return &s.Switch.CBFCBuffer })},
	{"cbfc_period", "longest spacing of CBFC flow-control packets (0: 65,536 byte times of the link)", setTime(func(s *Scenario) *Time { return &s.Switch.CBFCPeriod }, true)},
	{"cbfc_gap", "shortest spacing of the CBFC flow-control packets a credit change sends (0: period/8)", setTime(func(s *Scenario) *Time { return &s.Switch.CBFCGap }, true)},
	{"voq_gate", "what voq-credit gates by credit: all (every port), uplinks (edge switches' ports toward switches) or local (at edge switches, the frames of their own hosts)", func(s *Scenario, v string) error {
		switch v = strings.ToLower(v); v {
		case VOQGateAll, VOQGateUplinks, VOQGateLocal:
			s.Switch.VOQGate = v
			return nil
		}
		return fmt.Errorf("%q: want all, uplinks or local", v)
	}},
	{"ecmp", "what ECMP hashes onto the equal-cost paths: flow (the flow and its ends), or destination (the destination host only: one port per destination at each switch, HierCC's VOQs)", func(s *Scenario, v string) error {
		switch v = strings.ToLower(v); v {
		case ECMPFlow, ECMPDestination:
			s.Switch.ECMP = v
			return nil
		}
		return fmt.Errorf("%q: want flow or destination", v)
	}},
	{"voq_credit", "credit each VOQ starts with under scheduler voq-credit (default 10 KB, HierCC's C0; 0: none)", func(s *Scenario, v string) error {
		b, err := units.ParseBytes(v)
		if err != nil {
			return err
		}
		c := Bytes(b)
		s.Switch.VOQCredit = &c
		return nil
	}},
	{"scheduler", "egress scheduler of the data frames: strict, dwrr, voq or voq-credit", func(s *Scenario, v string) error {
		if _, err := newScheduler(v, nil, 1); err != nil {
			return err
		}
		s.Switch.Scheduler = strings.ToLower(v)
		return nil
	}},
	{"weights", "DWRR weights by priority, comma-separated (priority 0 first)", func(s *Scenario, v string) error {
		var w []int
		for _, f := range strings.Split(v, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil {
				return fmt.Errorf("%q: want whole numbers separated by commas", v)
			}
			w = append(w, n)
		}
		if _, err := newDWRR(w, 1); err != nil {
			return err
		}
		s.Switch.Weights = w
		return nil
	}},
	{"buffer", "buffer per switch, PFC headroom included (ignored when pool > 0)", setBytes(func(s *Scenario) *Bytes { return &s.Switch.Buffer })},
	{"pool", "shared pool per switch: buffer = pool + its ports' PFC headroom (0: use buffer)", setBytes(func(s *Scenario) *Bytes { return &s.Switch.Pool })},
	{"xoff", "PFC pause threshold per ingress port", setBytes(func(s *Scenario) *Bytes { return &s.Switch.Xoff })},
	{"xon", "PFC resume threshold (0: xoff minus two frames)", setBytes(func(s *Scenario) *Bytes { return &s.Switch.Xon })},
	{"headroom", "PFC headroom per ingress port (0: automatic)", setBytes(func(s *Scenario) *Bytes { return &s.Switch.Headroom })},
	{"ecn", "ECN marking threshold of the default marker", setBytes(func(s *Scenario) *Bytes { return &s.Switch.ECN })},
	{"payload", "payload of a full data packet", setBytes(func(s *Scenario) *Bytes { return &s.NIC.Payload })},
	{"ack_every", "ACK every n-th data packet", func(s *Scenario, v string) error {
		n, err := parseCount(v, 1, 1<<16)
		s.NIC.AckEvery = n
		return err
	}},
	{"rto", "retransmission timeout (0: none)", setTime(func(s *Scenario) *Time { return &s.NIC.RTO }, true)},
	{"load", "Poisson load, fraction of the host link rate", func(s *Scenario, v string) error {
		if s.Workload.Poisson == nil {
			return errors.New("the workload has no poisson part")
		}
		x, err := strconv.ParseFloat(v, 64)
		if err != nil || !(x > 0 && x <= 1) {
			return fmt.Errorf("%q: want a number in (0, 1]", v)
		}
		s.Workload.Poisson.Load = x
		return nil
	}},
	{"cdf", "Poisson flow-size distribution: " + strings.Join(workloads.Names(), ", "), func(s *Scenario, v string) error {
		if s.Workload.Poisson == nil {
			return errors.New("the workload has no poisson part")
		}
		if _, err := workloads.Named(v); err != nil {
			return err
		}
		s.Workload.Poisson.CDF = v
		return nil
	}},
}

// ParamPrefix introduces an algorithm parameter in Set: "param.eta=0.95"
// sets Params["eta"].
const ParamPrefix = "param."

func parseCount(v string, lo, hi int) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("%q: want a whole number in %d..%d", v, lo, hi)
	}
	return n, nil
}

func setRate(field func(*Scenario) *Rate) func(*Scenario, string) error {
	return func(s *Scenario, v string) error {
		r, err := units.ParseRate(v)
		if err != nil {
			return err
		}
		if r <= 0 {
			return fmt.Errorf("%q: want a rate > 0", v)
		}
		*field(s) = Rate(r)
		return nil
	}
}

func setTime(field func(*Scenario) *Time, zeroOK bool) func(*Scenario, string) error {
	return func(s *Scenario, v string) error {
		t, err := units.ParseTime(v)
		if err != nil {
			return err
		}
		if t < 0 || (t == 0 && !zeroOK) {
			return fmt.Errorf("%q: want a time > 0", v)
		}
		*field(s) = Time(t)
		return nil
	}
}

func setBytes(field func(*Scenario) *Bytes) func(*Scenario, string) error {
	return func(s *Scenario, v string) error {
		b, err := units.ParseBytes(v)
		if err != nil {
			return err
		}
		*field(s) = Bytes(b)
		return nil
	}
}

// Keys returns the keys Set accepts for this scenario, sorted, with
// "param.NAME" standing for the algorithm parameters.
func (s *Scenario) Keys() []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range s.extra {
		if !seen[p.Name] {
			seen[p.Name] = true
			out = append(out, p.Name)
		}
	}
	for _, p := range commonParams {
		if !seen[p.Name] {
			seen[p.Name] = true
			out = append(out, p.Name)
		}
	}
	out = append(out, ParamPrefix+"NAME")
	sort.Strings(out)
	return out
}

// Help returns "key: help" lines for every key of Keys.
func (s *Scenario) Help() []string {
	seen := map[string]bool{}
	var out []string
	for _, list := range [][]Param{s.extra, commonParams} {
		for _, p := range list {
			if !seen[p.Name] {
				seen[p.Name] = true
				out = append(out, p.Name+": "+p.Help)
			}
		}
	}
	out = append(out, ParamPrefix+"NAME: algorithm parameter NAME, passed to the adapter")
	sort.Strings(out)
	return out
}

// Set applies one key=value override (the command's -set). Values are
// parsed with units.ParseRate, ParseTime and ParseBytes. An unknown key is
// an error listing the valid ones; a bad value an error naming the key.
// Set does not validate the whole scenario; Validate (and Run) do.
func (s *Scenario) Set(key, value string) error {
	key = strings.TrimSpace(key)
	value = strings.TrimSpace(value)
	if name, ok := strings.CutPrefix(key, ParamPrefix); ok {
		if name == "" {
			return fmt.Errorf("set %s: empty parameter name", key)
		}
		if s.Params == nil {
			s.Params = map[string]string{}
		}
		s.Params[name] = value
		return nil
	}
	for _, list := range [][]Param{s.extra, commonParams} {
		for _, p := range list {
			if p.Name == key {
				if err := p.Set(s, value); err != nil {
					return fmt.Errorf("set %s=%s: %w", key, value, err)
				}
				return nil
			}
		}
	}
	return fmt.Errorf("set %s: unknown key for scenario %s (valid: %s)", key, s.Name, strings.Join(s.Keys(), ", "))
}

// SetAll applies "key=value" strings in order.
func (s *Scenario) SetAll(kvs []string) error {
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return fmt.Errorf("set %q: want key=value", kv)
		}
		if err := s.Set(k, v); err != nil {
			return err
		}
	}
	return nil
}
