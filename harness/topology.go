package harness

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hwcc/hwcc/units"
)

// TopologySpec describes the network. Kind selects a builder; the other
// fields are that kind's parameters, and a field the kind does not use must
// be left zero (Validate says which ones it uses). Zero means the kind's
// default.
//
// Every link is full duplex with the same rate and propagation delay both
// ways. Host names are listed in Network order; that order is the order
// fan-in and incast workloads pick senders in.
//
//	kind              hosts (in order)                switches                  default rates
//	star              h0..h{hosts-1}                  s0                        link 100G
//	dumbbell          l0..l{left-1}, r0..r{right-1}   s0 (left), s1             link 100G, core_link = link
//	chain             h{i}_{j}: host j on switch i    s0..s{switches-1}         link 100G, core_link = link
//	multi-bottleneck  A0..A4, B0..B5                  S0, S1                    link 10G, core_link 40G
//	asymmetric        A0..A6, B0                      S0, S1, S2                link 40G, core_link 100G
//	leaf-spine        h0..h{leaves·hosts_per_leaf-1}  leaf0.., spine0..         link 100G, core_link = link
//	fat-tree          h0..h{k³/4-1}, k/2 per edge     edge0.., agg0.., core0..  every link at link (100G)
//	clos              h0..h{tors·hosts_per_tor-1}     tor0.., agg0.., core0..   link 100G, core_link = link
//
// Delay defaults to 1 µs per link (HPCC's simulations).
//
// fat-tree is the 3-tier k-ary fat tree of [FatTree]: k-port switches (k
// even, 2..24, default 4), k pods of k/2 edge and k/2 aggregation switches,
// (k/2)² core switches, k/2 hosts per edge switch; k³/4 hosts (k = 4, 8, 16:
// 16, 128, 1024) and 5k²/4 switches. clos is a 3-tier Clos of tors ToR, aggs
// aggregation and cores core switches (totals, as the papers give them) in
// pods pods, hosts_per_tor hosts per ToR; every count must divide as its
// wiring needs, with at most 4096 hosts and 1024 switches. Its counts default
// to the 320-host topology of HPCC, HierCC and Mercury (cores 16, aggs 20,
// tors 20, pods 5, hosts_per_tor 16). The wiring of both, their ECMP path
// counts and the papers' topologies as clos lines are in the package
// documentation, section Topologies.
//
// multi-bottleneck reconstructs RoCC Fig. 10 (section VI-A d) from the
// text: "6 source nodes (A0..A4, B5) and 5 destination nodes (B0..B4)
// connected to switches S0 and S1"; each access link 10 Gb/s and S0–S1
// 40 Gb/s; Ai sends Di to Bi (i = 1..4), A0 and B5 send D0 and D5 to B0, and
// D0 "traverses two CPs, S0 and S1". The stated fair shares (D0, D5: 5 Gb/s;
// D1..D4: 8.75 Gb/s) fix the rest: A0..A4 hang off S0, B0..B5 off S1, so D0
// and D5 share the 10 Gb/s S1→B0 link (5 each, CP S1) and D0..D4 share the
// 40 Gb/s S0→S1 link (CP S0), where D0 is held to 5 and D1..D4 split the
// remaining 35 (8.75 each). The paper's source list "A0..A4, B0..B4" is a
// typo for A0..A4 and B5.
//
// asymmetric is RoCC section VI-A e: A0..A4 on S0 with 40 Gb/s links, A5 and
// A6 on S1 with 100 Gb/s links, S0–S2 and S1–S2 at 100 Gb/s, B0 on S2 at
// 100 Gb/s; every Ai sends Di to B0 and the max-min share is 100/7 Gb/s.
type TopologySpec struct {
	Kind           string `json:"kind"`
	Hosts          int    `json:"hosts,omitempty"`
	Switches       int    `json:"switches,omitempty"`
	HostsPerSwitch int    `json:"hosts_per_switch,omitempty"`
	Left           int    `json:"left,omitempty"`
	Right          int    `json:"right,omitempty"`
	Leaves         int    `json:"leaves,omitempty"`
	Spines         int    `json:"spines,omitempty"`
	HostsPerLeaf   int    `json:"hosts_per_leaf,omitempty"`
	K              int    `json:"k,omitempty"`
	Cores          int    `json:"cores,omitempty"`
	Aggs           int    `json:"aggs,omitempty"`
	ToRs           int    `json:"tors,omitempty"`
	Pods           int    `json:"pods,omitempty"`
	HostsPerToR    int    `json:"hosts_per_tor,omitempty"`
	Link           Rate   `json:"link,omitempty" zero:"a link needs a rate > 0; leave the field out for the kind's default"`
	CoreLink       Rate   `json:"core_link,omitempty" zero:"a link needs a rate > 0; leave the field out for the kind's default"`
	Delay          Time   `json:"delay,omitempty" zero:"a delay of 0 would mean the default (1us), so it cannot be set: leave the field out for the default, or give at least 1ps"`
}

// Default link parameters.
const (
	DefaultLink  = 100 * units.Gbps
	DefaultDelay = 1 * units.Microsecond
)

// topoKind is one topology builder and the fields it uses.
type topoKind struct {
	fields []string // JSON names of the fields it reads, besides kind
	build  func(s *Sim, t *TopologySpec) error
	check  func(t *TopologySpec) error // kind-specific validation, or nil
}

var topoKinds = map[string]topoKind{
	"star":             {[]string{"hosts", "link", "delay"}, buildStar, nil},
	"dumbbell":         {[]string{"left", "right", "link", "core_link", "delay"}, buildDumbbell, nil},
	"chain":            {[]string{"switches", "hosts_per_switch", "link", "core_link", "delay"}, buildChain, nil},
	"multi-bottleneck": {[]string{"link", "core_link", "delay"}, buildMultiBottleneck, nil},
	"asymmetric":       {[]string{"link", "core_link", "delay"}, buildAsymmetric, nil},
	"leaf-spine":       {[]string{"leaves", "spines", "hosts_per_leaf", "link", "core_link", "delay"}, buildLeafSpine, nil},
	"fat-tree":         {[]string{"k", "link", "delay"}, buildFatTree, checkFatTree},
	"clos":             {[]string{"cores", "aggs", "tors", "pods", "hosts_per_tor", "link", "core_link", "delay"}, buildClos, checkClos},
}

// TopologyKinds returns the topology kinds, sorted.
func TopologyKinds() []string {
	k := make([]string, 0, len(topoKinds))
	for n := range topoKinds {
		k = append(k, n)
	}
	sort.Strings(k)
	return k
}

// setFields reports, by JSON name, which fields of t are non-zero.
func (t *TopologySpec) setFields() map[string]bool {
	return map[string]bool{
		"hosts": t.Hosts != 0, "switches": t.Switches != 0, "hosts_per_switch": t.HostsPerSwitch != 0,
		"left": t.Left != 0, "right": t.Right != 0, "leaves": t.Leaves != 0, "spines": t.Spines != 0,
		"hosts_per_leaf": t.HostsPerLeaf != 0, "k": t.K != 0, "link": t.Link != 0,
		"core_link": t.CoreLink != 0, "delay": t.Delay != 0,
		"cores": t.Cores != 0, "aggs": t.Aggs != 0, "tors": t.ToRs != 0, "pods": t.Pods != 0,
		"hosts_per_tor": t.HostsPerToR != 0,
	}
}

// validate checks the kind, that only its fields are set, and their ranges.
func (t *TopologySpec) validate() error {
	k, ok := topoKinds[t.Kind]
	if !ok {
		return fmt.Errorf("topology.kind %q: want one of %s", t.Kind, strings.Join(TopologyKinds(), ", "))
	}
	used := map[string]bool{}
	for _, f := range k.fields {
		used[f] = true
	}
	set := t.setFields()
	names := make([]string, 0, len(set))
	for n := range set {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if set[n] && !used[n] {
			return fmt.Errorf("topology.%s is not used by kind %s (it uses: %s)", n, t.Kind, strings.Join(k.fields, ", "))
		}
	}
	for _, c := range []struct {
		name string
		v    int
		max  int
	}{
		{"hosts", t.Hosts, MaxHosts}, {"switches", t.Switches, MaxSwitches}, {"hosts_per_switch", t.HostsPerSwitch, 1024},
		{"left", t.Left, MaxHosts}, {"right", t.Right, MaxHosts}, {"leaves", t.Leaves, MaxSwitches}, {"spines", t.Spines, MaxSwitches},
		{"hosts_per_leaf", t.HostsPerLeaf, 1024},
		{"cores", t.Cores, MaxSwitches}, {"aggs", t.Aggs, MaxSwitches}, {"tors", t.ToRs, MaxSwitches}, {"pods", t.Pods, MaxSwitches},
		{"hosts_per_tor", t.HostsPerToR, 1024},
	} {
		if c.v < 0 || c.v > c.max {
			return fmt.Errorf("topology.%s = %d: want 1..%d (0 for the default)", c.name, c.v, c.max)
		}
	}
	if k.check != nil {
		if err := k.check(t); err != nil {
			return err
		}
	}
	if err := t.shape(nil).check(t.Kind, false); err != nil {
		return err
	}
	if t.Kind == "star" && t.Hosts == 1 {
		return fmt.Errorf("topology.hosts = 1: a star needs at least 2 hosts")
	}
	if t.Link < 0 || t.CoreLink < 0 {
		return fmt.Errorf("topology.link and core_link must be positive rates")
	}
	if t.Delay < 0 {
		return fmt.Errorf("topology.delay = %v: want >= 0", units.Time(t.Delay))
	}
	return nil
}

func orDefault[T ~int64 | ~int](v, d T) T {
	if v == 0 {
		return d
	}
	return v
}

func (t *TopologySpec) link(d units.Rate) units.Rate { return units.Rate(orDefault(t.Link, Rate(d))) }
func (t *TopologySpec) core(d units.Rate) units.Rate {
	return units.Rate(orDefault(t.CoreLink, Rate(d)))
}
func (t *TopologySpec) delay() units.Time { return units.Time(orDefault(t.Delay, Time(DefaultDelay))) }

// build adds the topology's nodes and links to s.
func (t *TopologySpec) build(s *Sim) error {
	return topoKinds[t.Kind].build(s, t)
}

// addHosts adds n hosts named by name(i), each linked to sw.
func addHosts(s *Sim, sw *node, n int, rate units.Rate, d units.Time, name func(i int) string) error {
	for i := 0; i < n; i++ {
		h, err := s.addNode(name(i), true)
		if err != nil {
			return err
		}
		if err := s.connect(h, sw, rate, d); err != nil {
			return err
		}
	}
	return nil
}

func buildStar(s *Sim, t *TopologySpec) error {
	sw, _ := s.addNode("s0", false)
	n := orDefault(t.Hosts, 2)
	return addHosts(s, sw, n, t.link(DefaultLink), t.delay(), func(i int) string { return fmt.Sprintf("h%d", i) })
}

func buildDumbbell(s *Sim, t *TopologySpec) error {
	l, _ := s.addNode("s0", false)
	r, _ := s.addNode("s1", false)
	rate, d := t.link(DefaultLink), t.delay()
	if err := addHosts(s, l, orDefault(t.Left, 1), rate, d, func(i int) string { return fmt.Sprintf("l%d", i) }); err != nil {
		return err
	}
	if err := addHosts(s, r, orDefault(t.Right, 1), rate, d, func(i int) string { return fmt.Sprintf("r%d", i) }); err != nil {
		return err
	}
	return s.connect(l, r, t.core(rate), d)
}

func buildChain(s *Sim, t *TopologySpec) error {
	n := orDefault(t.Switches, 3)
	per := orDefault(t.HostsPerSwitch, 1)
	rate, d := t.link(DefaultLink), t.delay()
	var prev *node
	for i := 0; i < n; i++ {
		sw, err := s.addNode(fmt.Sprintf("s%d", i), false)
		if err != nil {
			return err
		}
		if err := addHosts(s, sw, per, rate, d, func(j int) string { return fmt.Sprintf("h%d_%d", i, j) }); err != nil {
			return err
		}
		if prev != nil {
			if err := s.connect(prev, sw, t.core(rate), d); err != nil {
				return err
			}
		}
		prev = sw
	}
	return nil
}

func buildMultiBottleneck(s *Sim, t *TopologySpec) error {
	s0, _ := s.addNode("S0", false)
	s1, _ := s.addNode("S1", false)
	acc, d := t.link(10*units.Gbps), t.delay()
	if err := addHosts(s, s0, 5, acc, d, func(i int) string { return fmt.Sprintf("A%d", i) }); err != nil {
		return err
	}
	if err := addHosts(s, s1, 6, acc, d, func(i int) string { return fmt.Sprintf("B%d", i) }); err != nil {
		return err
	}
	return s.connect(s0, s1, t.core(40*units.Gbps), d)
}

func buildAsymmetric(s *Sim, t *TopologySpec) error {
	s0, _ := s.addNode("S0", false)
	s1, _ := s.addNode("S1", false)
	s2, _ := s.addNode("S2", false)
	slow, fast, d := t.link(40*units.Gbps), t.core(100*units.Gbps), t.delay()
	if err := addHosts(s, s0, 5, slow, d, func(i int) string { return fmt.Sprintf("A%d", i) }); err != nil {
		return err
	}
	if err := addHosts(s, s1, 2, fast, d, func(i int) string { return fmt.Sprintf("A%d", i+5) }); err != nil {
		return err
	}
	if err := addHosts(s, s2, 1, fast, d, func(int) string { return "B0" }); err != nil {
		return err
	}
	if err := s.connect(s0, s2, fast, d); err != nil {
		return err
	}
	return s.connect(s1, s2, fast, d)
}

func buildLeafSpine(s *Sim, t *TopologySpec) error {
	return leafSpine(s, orDefault(t.Leaves, 4), orDefault(t.Spines, 2), orDefault(t.HostsPerLeaf, 4),
		t.link(DefaultLink), t.core(t.link(DefaultLink)), t.delay())
}

// leafSpine builds leaves·perLeaf hosts h0.. (host n on leaf n/perLeaf),
// each leaf linked to every spine.
func leafSpine(s *Sim, leaves, spines, perLeaf int, hostRate, coreRate units.Rate, d units.Time) error {
	ls := make([]*node, leaves)
	for i := range ls {
		ls[i], _ = s.addNode(fmt.Sprintf("leaf%d", i), false)
	}
	ss := make([]*node, spines)
	for i := range ss {
		ss[i], _ = s.addNode(fmt.Sprintf("spine%d", i), false)
	}
	for i, l := range ls {
		base := i * perLeaf
		if err := addHosts(s, l, perLeaf, hostRate, d, func(j int) string { return fmt.Sprintf("h%d", base+j) }); err != nil {
			return err
		}
	}
	for _, l := range ls {
		for _, sp := range ss {
			if err := s.connect(l, sp, coreRate, d); err != nil {
				return err
			}
		}
	}
	return nil
}
