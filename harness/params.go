package harness

import (
	"errors"
	"fmt"
	"github.com/hwcc/hwcc/cc"
	"slices"
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
	// Applies, if set, says whether the key means anything for a
	// scenario (a topology or workload part it sets exists); Keys and Help
	// leave out the keys that do not apply. Nil: it always applies.
	Applies func(s *Scenario) bool
}

// applies reports whether p applies to s.
func (p *Param) applies(s *Scenario) bool { return p.Applies == nil || p.Applies(s) }

// Conditions of the common keys (Param.Applies).
func hasSenders(s *Scenario) bool { return s.Workload.FanIn != nil || len(s.Workload.Incast) == 1 }
func hasSized(s *Scenario) bool {
	return s.Workload.FanIn != nil || len(s.Workload.Incast) > 0 || len(s.Workload.Flows) > 0
}
func hasPoisson(s *Scenario) bool { return s.Workload.Poisson != nil }
func isStar(s *Scenario) bool     { return s.Topology.Kind == "star" }
func usesCoreLink(s *Scenario) bool {
	return slices.Contains(topoKinds[s.Topology.Kind].fields, "core_link")
}

// AddParam adds a key to this scenario's Set.
func (s *Scenario) AddParam(p Param) { s.extra = append(s.extra, p) }

// commonParams are the keys every scenario accepts.
var commonParams = []Param{
	{Name: "algorithm", Help: "algorithm name (hwcc algos)", Set: func(s *Scenario, v string) error {
		if _, err := cc.Lookup(v); err != nil {
			return err
		}
		s.Algorithm = v
		return nil
	}},
	{Name: "senders", Help: "number of senders of the fan-in (or of the only incast)", Set: func(s *Scenario, v string) error {
		n, err := parseCount(v, 1, MaxHosts-1)
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
	}, Applies: hasSenders},
	{Name: "size", Help: "flow size of the fan-in, incasts and explicit flows (0: long-lived)", Set: func(s *Scenario, v string) error {
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
	}, Applies: hasSized},
	{Name: "link", Help: "host link rate (all links of star, chain, dumbbell access)", Set: setRate(func(s *Scenario) *Rate { return &s.Topology.Link })},
	{Name: "core_link", Help: "rate of the links between switches", Set: setRate(func(s *Scenario) *Rate { return &s.Topology.CoreLink }), Applies: usesCoreLink},
	{Name: "delay", Help: "propagation delay of every link (at least 1ps)", Set: func(s *Scenario, v string) error {
		t, err := units.ParseTime(v)
		if err != nil {
			return err
		}
		if t <= 0 {
			return fmt.Errorf("%q: want a time >= 1ps (a delay of 0 would mean the default, 1us)", v)
		}
		s.Topology.Delay = Time(t)
		return nil
	}},
	{Name: "hosts", Help: "number of hosts of a star", Set: func(s *Scenario, v string) error {
		n, err := parseCount(v, 2, MaxHosts)
		s.Topology.Hosts = n
		return err
	}, Applies: isStar},
	{Name: "duration", Help: "simulated time", Set: setTime(func(s *Scenario) *Time { return &s.Duration }, false)},
	{Name: "measure_from", Help: "start of the measurement window", Set: setTime(func(s *Scenario) *Time { return &s.MeasureFrom }, true)},
	{Name: "measure_to", Help: "end of the measurement window (0: duration)", Set: setTime(func(s *Scenario) *Time { return &s.MeasureTo }, true)},
	{Name: "sample_interval", Help: "time-series step", Set: setTime(func(s *Scenario) *Time { return &s.SampleInterval }, false)},
	{Name: "seed", Help: "random seed (unsigned integer)", Set: func(s *Scenario, v string) error {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return fmt.Errorf("%q: want an unsigned integer", v)
		}
		s.Seed = n
		return nil
	}},
	{Name: "pfc", Help: "PFC on or off", Set: func(s *Scenario, v string) error {
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
	{Name: "flow_control", Help: "link flow control into switches: pfc, cbfc (InfiniBand credits), none, or trim (packet trimming; needs transport sack) (overrides pfc)", Set: setOneOf(func(s *Scenario) *string { return &s.Switch.FlowControl }, FlowPFC, FlowCBFC, FlowNone, FlowTrim)},
	{Name: "cbfc_buffer", Help: "CBFC receive buffer per ingress port and data priority (0: 128 KiB, 2048 blocks)", Set: setBytes(func(s *Scenario) *Bytes { return &s.Switch.CBFCBuffer })},
	{Name: "cbfc_period", Help: "longest spacing of CBFC flow-control packets (0: 65,536 byte times of the link)", Set: setTime(func(s *Scenario) *Time { return &s.Switch.CBFCPeriod }, true)},
	{Name: "cbfc_gap", Help: "shortest spacing of the CBFC flow-control packets a credit change sends (0: period/8)", Set: setTime(func(s *Scenario) *Time { return &s.Switch.CBFCGap }, true)},
	{Name: "voq_gate", Help: "what voq-credit gates by credit: all (every port), uplinks (edge switches' ports toward switches) or local (at edge switches, the frames of their own hosts)", Set: setOneOf(func(s *Scenario) *string { return &s.Switch.VOQGate }, VOQGateAll, VOQGateUplinks, VOQGateLocal)},
	{Name: "ecmp", Help: "what ECMP hashes onto the equal-cost paths: flow (the flow and its ends), or destination (the destination host only: one port per destination at each switch, HierCC's VOQs)", Set: setOneOf(func(s *Scenario) *string { return &s.Switch.ECMP }, ECMPFlow, ECMPDestination)},
	{Name: "voq_credit", Help: "credit each VOQ starts with under scheduler voq-credit (default 10 KB, HierCC's C0; 0: none)", Set: func(s *Scenario, v string) error {
		b, err := units.ParseBytes(v)
		if err != nil {
			return err
		}
		c := Bytes(b)
		s.Switch.VOQCredit = &c
		return nil
	}},
	{Name: "queues", Help: "physical queues per egress port under scheduler queues (0: 32)", Set: func(s *Scenario, v string) error {
		n, err := parseCount(v, 0, MaxPortQueues)
		if err != nil {
			return err
		}
		s.Switch.Queues = n
		return nil
	}},
	{Name: "scheduler", Help: "egress scheduler of the data frames: strict, dwrr, voq, voq-credit or queues", Set: func(s *Scenario, v string) error {
		if _, err := newScheduler(v, nil, 1); err != nil {
			return err
		}
		s.Switch.Scheduler = strings.ToLower(v)
		return nil
	}},
	{Name: "weights", Help: "DWRR weights by priority, comma-separated (priority 0 first)", Set: func(s *Scenario, v string) error {
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
	{Name: "buffer", Help: "buffer per switch, PFC headroom included (ignored when pool > 0)", Set: setBytes(func(s *Scenario) *Bytes { return &s.Switch.Buffer })},
	{Name: "pool", Help: "shared pool per switch: buffer = pool + its ports' PFC headroom (0: use buffer)", Set: setBytes(func(s *Scenario) *Bytes { return &s.Switch.Pool })},
	{Name: "xoff", Help: "PFC pause threshold per ingress port", Set: setBytes(func(s *Scenario) *Bytes { return &s.Switch.Xoff })},
	{Name: "xon", Help: "PFC resume threshold (0: xoff minus two frames)", Set: setBytes(func(s *Scenario) *Bytes { return &s.Switch.Xon })},
	{Name: "headroom", Help: "PFC headroom per ingress port (0: automatic)", Set: setBytes(func(s *Scenario) *Bytes { return &s.Switch.Headroom })},
	{Name: "ecn", Help: "ECN marking threshold of the default marker", Set: setBytes(func(s *Scenario) *Bytes { return &s.Switch.ECN })},
	{Name: "payload", Help: "payload of a full data packet", Set: setBytes(func(s *Scenario) *Bytes { return &s.NIC.Payload })},
	{Name: "ack_every", Help: "ACK every n-th data packet", Set: func(s *Scenario, v string) error {
		n, err := parseCount(v, 1, 1<<16)
		s.NIC.AckEvery = n
		return err
	}},
	{Name: "rto", Help: "retransmission timeout (0: none)", Set: setTime(func(s *Scenario) *Time { return &s.NIC.RTO }, true)},
	{Name: "load", Help: "Poisson load, fraction of the host link rate", Set: func(s *Scenario, v string) error {
		if s.Workload.Poisson == nil {
			return errors.New("the workload has no poisson part")
		}
		x, err := strconv.ParseFloat(v, 64)
		if err != nil || !(x > 0 && x <= 1) {
			return fmt.Errorf("%q: want a number in (0, 1]", v)
		}
		s.Workload.Poisson.Load = x
		return nil
	}, Applies: hasPoisson},
	{Name: "poisson_stop", Help: "end of the Poisson arrivals (0: the end of the run)", Set: func(s *Scenario, v string) error {
		if s.Workload.Poisson == nil {
			return errors.New("the workload has no poisson part")
		}
		return setTime(func(s *Scenario) *Time { return &s.Workload.Poisson.Stop }, true)(s, v)
	}, Applies: hasPoisson},
	{Name: "cdf", Help: "Poisson flow-size distribution: " + strings.Join(workloads.Names(), ", "), Set: func(s *Scenario, v string) error {
		if s.Workload.Poisson == nil {
			return errors.New("the workload has no poisson part")
		}
		if _, err := workloads.Named(v); err != nil {
			return err
		}
		s.Workload.Poisson.CDF = v
		return nil
	}, Applies: hasPoisson},
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
			return fmt.Errorf("%q: a link needs a rate > 0", v)
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

// setOneOf sets a string field to one of vals, matched without regard to
// case and stored in lower case; any other value is refused, naming the
// choices ("want a, b or c").
func setOneOf(field func(*Scenario) *string, vals ...string) func(*Scenario, string) error {
	want := vals[len(vals)-1]
	if n := len(vals); n > 1 {
		want = strings.Join(vals[:n-1], ", ") + " or " + want
	}
	return func(s *Scenario, v string) error {
		v = strings.ToLower(v)
		if slices.Contains(vals, v) {
			*field(s) = v
			return nil
		}
		return fmt.Errorf("%q: want %s", v, want)
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
// "param.NAME" standing for the algorithm parameters. A key that does not
// apply to it (Param.Applies: senders without a fan-in or single incast,
// hosts on a topology other than a star, load without Poisson arrivals)
// is left out.
func (s *Scenario) Keys() []string {
	seen := map[string]bool{}
	var out []string
	for _, list := range [][]Param{s.extra, commonParams} {
		for _, p := range list {
			if !seen[p.Name] {
				seen[p.Name] = true
				if p.applies(s) {
					out = append(out, p.Name)
				}
			}
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
				if p.applies(s) {
					out = append(out, p.Name+": "+p.Help)
				}
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
// Where the description names the key with its default in parentheses
// ("`senders` (8)"), it then shows the value set ("`senders` (3)").
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
				s.Description = describeSet(s.Description, key, value)
				return nil
			}
		}
	}
	return fmt.Errorf("set %s: unknown key for scenario %s (valid: %s)", key, s.Name, strings.Join(s.Keys(), ", "))
}

// describeSet returns description with the value of key shown as value:
// built-in descriptions name their keys in backticks, each followed by
// its default in parentheses ("`senders` (8) × `size` (500KB)", "`senders`
// (default 2)"), and after a Set the parentheses hold the value set.
func describeSet(description, key, value string) string {
	mark := "`" + key + "` ("
	var b strings.Builder
	rest := description
	for {
		i := strings.Index(rest, mark)
		if i < 0 {
			break
		}
		j := strings.IndexByte(rest[i+len(mark):], ')')
		if j < 0 {
			break
		}
		b.WriteString(rest[:i+len(mark)])
		b.WriteString(value)
		b.WriteByte(')')
		rest = rest[i+len(mark)+j+1:]
	}
	if b.Len() == 0 {
		return description
	}
	b.WriteString(rest)
	return b.String()
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
