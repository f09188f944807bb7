package harness

import (
	"fmt"

	"github.com/hwcc/hwcc/units"
)

// Limits and defaults of the 3-tier kinds (fat-tree, clos). The wiring is
// in the package documentation, section Topologies.
const (
	// maxFatTreeK is the largest k of the fat-tree kind: k³/4 = 3456 hosts
	// and 720 switches; k = 26 would exceed MaxHosts.
	maxFatTreeK = 24
	// defaultFatTreeK is the fat-tree kind's k when the spec leaves it 0.
	defaultFatTreeK = 4

	// The clos kind's defaults: the 320-host topology of HPCC (section 5:
	// "16 Core switches, 20 Agg switches, 20 ToRs and 320 servers (16 in
	// each rack)"), HierCC (section 2.2) and Mercury, in 5 pods as in the
	// HPCC authors' topology file. Only the counts: link and core_link
	// default to 100 Gb/s like every kind's.
	defaultClosCores       = 16
	defaultClosAggs        = 20
	defaultClosToRs        = 20
	defaultClosPods        = 5
	defaultClosHostsPerToR = 16
)

// closShape is a 3-tier Clos resolved from a TopologySpec: the per-pod
// counts the builder wires, the rates and the names of the switch tiers.
type closShape struct {
	pods        int // pods
	torsPerPod  int // ToR (edge) switches per pod
	aggsPerPod  int // aggregation switches per pod
	cores       int // core switches in all
	hostsPerToR int // hosts on each ToR
	hostRate    units.Rate
	fabricRate  units.Rate // ToR–aggregation and aggregation–core links
	delay       units.Time
	torName     string // "edge" (fat tree, after Al-Fares) or "tor"
}

// coresPerAgg is the number of core switches each aggregation switch links
// to (the stripe width): cores / aggsPerPod.
func (c closShape) coresPerAgg() int { return c.cores / c.aggsPerPod }

func (c closShape) hosts() int    { return c.pods * c.torsPerPod * c.hostsPerToR }
func (c closShape) switches() int { return c.pods*(c.torsPerPod+c.aggsPerPod) + c.cores }

// fatTreeShape resolves the fat-tree kind: the clos with pods = k,
// k/2 edge and k/2 aggregation switches per pod, (k/2)² cores and k/2
// hosts per edge switch, every link at link.
func (t *TopologySpec) fatTreeShape() closShape {
	k := orDefault(t.K, defaultFatTreeK)
	r := t.link(DefaultLink)
	return closShape{
		pods: k, torsPerPod: k / 2, aggsPerPod: k / 2, cores: k * k / 4, hostsPerToR: k / 2,
		hostRate: r, fabricRate: r, delay: t.delay(), torName: "edge",
	}
}

// closShapeOf resolves the clos kind's totals into per-pod counts and
// checks that they divide: every pod has the same ToRs and aggregation
// switches, and every aggregation switch the same stripe of cores.
func (t *TopologySpec) closShapeOf() (closShape, error) {
	cores := orDefault(t.Cores, defaultClosCores)
	aggs := orDefault(t.Aggs, defaultClosAggs)
	tors := orDefault(t.ToRs, defaultClosToRs)
	pods := orDefault(t.Pods, defaultClosPods)
	per := orDefault(t.HostsPerToR, defaultClosHostsPerToR)
	dflt := func(v int) string {
		if v == 0 {
			return " (the default)"
		}
		return ""
	}
	if tors%pods != 0 {
		return closShape{}, fmt.Errorf("topology.tors = %d%s is not a multiple of topology.pods = %d%s: every pod has tors/pods ToR switches",
			tors, dflt(t.ToRs), pods, dflt(t.Pods))
	}
	if aggs%pods != 0 {
		return closShape{}, fmt.Errorf("topology.aggs = %d%s is not a multiple of topology.pods = %d%s: every pod has aggs/pods aggregation switches",
			aggs, dflt(t.Aggs), pods, dflt(t.Pods))
	}
	if cores%(aggs/pods) != 0 {
		return closShape{}, fmt.Errorf("topology.cores = %d%s is not a multiple of the %d aggregation switches per pod (aggs/pods = %d/%d): aggregation switch j of every pod links to the j-th stripe of cores/(aggs/pods) cores",
			cores, dflt(t.Cores), aggs/pods, aggs, pods)
	}
	c := closShape{
		pods: pods, torsPerPod: tors / pods, aggsPerPod: aggs / pods, cores: cores, hostsPerToR: per,
		hostRate: t.link(DefaultLink), fabricRate: t.core(t.link(DefaultLink)), delay: t.delay(), torName: "tor",
	}
	if n := c.hosts(); n > MaxHosts {
		return closShape{}, fmt.Errorf("topology: tors × hosts_per_tor = %d × %d = %d hosts, want at most %d (harness.MaxHosts)", tors, per, n, MaxHosts)
	}
	if n := c.switches(); n > MaxSwitches {
		return closShape{}, fmt.Errorf("topology: cores + aggs + tors = %d + %d + %d = %d switches, want at most %d (harness.MaxSwitches)", cores, aggs, tors, n, MaxSwitches)
	}
	return c, nil
}

func checkFatTree(t *TopologySpec) error {
	if t.K < 0 || t.K%2 != 0 || t.K > maxFatTreeK {
		return fmt.Errorf("topology.k = %d: want an even number of switch ports, 2..%d (k³/4 hosts; 0 for the default %d)", t.K, maxFatTreeK, defaultFatTreeK)
	}
	return nil
}

func checkClos(t *TopologySpec) error {
	_, err := t.closShapeOf()
	return err
}

func buildFatTree(s *Sim, t *TopologySpec) error { return buildClosShape(s, t.fatTreeShape()) }

func buildClos(s *Sim, t *TopologySpec) error {
	c, err := t.closShapeOf()
	if err != nil {
		return err
	}
	return buildClosShape(s, c)
}

// buildClosShape adds, in this order (which fixes node IDs, INT switch IDs
// and port numbers): the ToRs {tor}0.. pod by pod, the aggregation
// switches agg0.. pod by pod, the cores core0..; then the hosts h0.. with
// their links (host n on ToR n/hostsPerToR), the ToR–aggregation links
// (ToR by ToR, every aggregation switch of its pod) and the
// aggregation–core links (aggregation switch j of each pod to cores
// j·w .. j·w+w−1, w = cores/aggsPerPod). So a ToR's ports are its hosts
// then its pod's aggregation switches, an aggregation switch's its pod's
// ToRs then its cores, and a core's one aggregation switch per pod in pod
// order.
func buildClosShape(s *Sim, c closShape) error {
	nt, na := c.pods*c.torsPerPod, c.pods*c.aggsPerPod
	tors := make([]*node, nt)
	aggs := make([]*node, na)
	cores := make([]*node, c.cores)
	for _, tier := range []struct {
		nodes []*node
		name  string
	}{{tors, c.torName}, {aggs, "agg"}, {cores, "core"}} {
		for i := range tier.nodes {
			n, err := s.addNode(fmt.Sprintf("%s%d", tier.name, i), false)
			if err != nil {
				return err
			}
			tier.nodes[i] = n
		}
	}
	for i, tor := range tors {
		base := i * c.hostsPerToR
		if err := addHosts(s, tor, c.hostsPerToR, c.hostRate, c.delay, func(j int) string { return fmt.Sprintf("h%d", base+j) }); err != nil {
			return err
		}
	}
	for i, tor := range tors {
		pod := i / c.torsPerPod
		for _, agg := range aggs[pod*c.aggsPerPod : (pod+1)*c.aggsPerPod] {
			if err := s.connect(tor, agg, c.fabricRate, c.delay); err != nil {
				return err
			}
		}
	}
	w := c.coresPerAgg()
	for i, agg := range aggs {
		j := i % c.aggsPerPod
		for _, core := range cores[j*w : (j+1)*w] {
			if err := s.connect(agg, core, c.fabricRate, c.delay); err != nil {
				return err
			}
		}
	}
	return nil
}
