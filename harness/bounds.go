package harness

import (
	"fmt"
	"strings"

	"github.com/hwcc/hwcc/harness/workloads"
	"github.com/hwcc/hwcc/units"
)

// Bounds of a scenario. Validate checks each before anything is built, from
// the scenario alone, and its error names the bound; docs/scenarios.md
// (section Bounds) lists them. What a run holds in memory is its network,
// its flows and its time series (MaxSeriesValues), and each is bounded
// here; the packets in flight are bounded by the switch buffers.
const (
	// MaxHosts bounds the hosts of a network, of every kind (a star that
	// sizes itself to its workload too), so a fan-in or incast has at
	// most MaxHosts − 1 senders and a host list as many entries.
	MaxHosts = 4096
	// MaxSwitches bounds the switches of a network. The routing tables
	// hold a slice header per switch and node: about 126 MB at MaxHosts
	// and MaxSwitches.
	MaxSwitches = 1024
	// MaxLinks bounds the links of a network, the hosts' included. Each
	// is two ports with their queues, schedulers and statistics (a few
	// KB); the 3-tier fat tree of k = 24 has 10,368.
	MaxLinks = 16384
	// MaxPorts bounds the ports of one switch (a star's switch has one per
	// host).
	MaxPorts = MaxHosts
	// MaxVOQs bounds, under switch.scheduler voq or voq-credit, the
	// virtual output queues of the network: every switch port keeps one
	// per host (about 50 bytes each: 2^21 take about 100 MB).
	MaxVOQs = 1 << 21
	// MaxFlows bounds the flows built before the run: the explicit flows,
	// the fan-in's, and the incasts' bursts that start within the run (the
	// later ones are not built). A flow holds about 1 KB.
	MaxFlows = 1 << 16
	// MaxPoissonFlows bounds the Poisson flows expected to arrive in a
	// run: their mean count, every host at the fastest host link rate,
	// hosts · load · rate / (8 · mean size) · (stop − start). A run holds
	// every flow it started (about 1 KB each) until its report.
	MaxPoissonFlows = 1 << 20
	// MaxScenarioBytes bounds a scenario file (DecodeScenario).
	MaxScenarioBytes = 16 << 20
)

// netShape is what a topology will build, computed without building it:
// the counts Validate bounds and the fastest host link (the Poisson
// estimate's rate).
type netShape struct {
	hosts, switches, links int
	maxPorts               int        // ports of the switch with the most
	hostRate               units.Rate // the fastest host link
	// how says how each count follows from the spec's fields, for errors:
	// "leaves × hosts_per_leaf = 16 × 64".
	how map[string]string
}

// switchPorts is the number of switch ports: one per host link, two per
// link between switches.
func (n netShape) switchPorts() int { return 2*n.links - n.hosts }

// shape returns what t builds; a star of 0 hosts is sized for workload w
// (as New does), or has 2 hosts for w nil.
func (t *TopologySpec) shape(w *WorkloadSpec) netShape {
	rate := t.link(DefaultLink)
	switch t.Kind {
	case "star":
		n, how := t.Hosts, "hosts"
		if n == 0 {
			n, how = 2, "the hosts the workload names (topology.hosts 0)"
			if w != nil {
				n = starHostsNeeded(w)
			}
		}
		return netShape{hosts: n, switches: 1, links: n, maxPorts: n, hostRate: rate,
			how: map[string]string{"hosts": how, "links": how, "ports": how}}
	case "dumbbell":
		l, r := orDefault(t.Left, 1), orDefault(t.Right, 1)
		sum := fmt.Sprintf("left + right = %d + %d", l, r)
		return netShape{hosts: l + r, switches: 2, links: l + r + 1, maxPorts: max(l, r) + 1, hostRate: rate,
			how: map[string]string{"hosts": sum, "links": sum + " + 1", "ports": "max(left, right) + 1"}}
	case "chain":
		n, per := orDefault(t.Switches, 3), orDefault(t.HostsPerSwitch, 1)
		prod := fmt.Sprintf("switches × hosts_per_switch = %d × %d", n, per)
		return netShape{hosts: n * per, switches: n, links: n*per + n - 1, maxPorts: per + min(n-1, 2), hostRate: rate,
			how: map[string]string{"hosts": prod, "switches": "switches", "links": prod + " + switches − 1", "ports": "hosts_per_switch + 2"}}
	case "multi-bottleneck":
		return netShape{hosts: 11, switches: 2, links: 12, maxPorts: 7, hostRate: t.link(10 * units.Gbps)}
	case "asymmetric":
		return netShape{hosts: 8, switches: 3, links: 10, maxPorts: 6, hostRate: max(t.link(40*units.Gbps), t.core(100*units.Gbps))}
	case "leaf-spine":
		l, sp, per := orDefault(t.Leaves, 4), orDefault(t.Spines, 2), orDefault(t.HostsPerLeaf, 4)
		prod := fmt.Sprintf("leaves × hosts_per_leaf = %d × %d", l, per)
		return netShape{hosts: l * per, switches: l + sp, links: l*per + l*sp, maxPorts: max(per+sp, l), hostRate: rate,
			how: map[string]string{"hosts": prod, "switches": fmt.Sprintf("leaves + spines = %d + %d", l, sp),
				"links": prod + fmt.Sprintf(" + leaves × spines = %d × %d", l, sp), "ports": "max(hosts_per_leaf + spines, leaves)"}}
	case "fat-tree", "clos":
		var c closShape
		if t.Kind == "fat-tree" {
			c = t.fatTreeShape()
		} else {
			c, _ = t.closShapeOf() // its errors are validate's
		}
		nt, na := c.pods*c.torsPerPod, c.pods*c.aggsPerPod
		links := c.hosts()
		if c.aggsPerPod > 0 {
			links += nt*c.aggsPerPod + na*c.coresPerAgg()
		}
		ports := c.pods
		if c.aggsPerPod > 0 {
			ports = max(c.hostsPerToR+c.aggsPerPod, c.torsPerPod+c.coresPerAgg(), c.pods)
		}
		return netShape{hosts: c.hosts(), switches: c.switches(), links: links, maxPorts: ports, hostRate: c.hostRate,
			how: map[string]string{"hosts": "tors × hosts_per_tor", "switches": "cores + aggs + tors",
				"links": "hosts + tors × aggs/pods + aggs × cores/(aggs/pods)", "ports": "max(hosts_per_tor + aggs/pods, tors/pods + cores/(aggs/pods), pods)"}}
	}
	return netShape{}
}

// checkShape checks a network's counts against the bounds; voq says the
// switches keep a VOQ per host at every port.
func (n netShape) check(kind string, voq bool) error {
	for _, c := range []struct {
		what string
		v    int
		max  int
		name string
	}{
		{"hosts", n.hosts, MaxHosts, "MaxHosts"},
		{"switches", n.switches, MaxSwitches, "MaxSwitches"},
		{"links", n.links, MaxLinks, "MaxLinks"},
		{"ports", n.maxPorts, MaxPorts, "MaxPorts"},
	} {
		if c.v > c.max {
			how := ""
			if h := n.how[c.what]; h != "" {
				how = " (" + h + ")"
			}
			what := c.what
			if what == "ports" {
				what = "ports on one switch"
			}
			return fmt.Errorf("topology %s: %d %s%s, want at most %d (harness.%s)", kind, c.v, what, how, c.max, c.name)
		}
	}
	if voq {
		if v := int64(n.switchPorts()) * int64(n.hosts); v > MaxVOQs {
			return fmt.Errorf("topology %s: switch.scheduler voq keeps a VOQ per host at every switch port: %d ports × %d hosts = %d VOQs, want at most %d (harness.MaxVOQs)",
				kind, n.switchPorts(), n.hosts, v, MaxVOQs)
		}
	}
	return nil
}

// bursts is the number of bursts of incast ic that start within a run of
// duration d (at ≤ d: events at d still run); the later ones are not
// built.
func (ic *IncastSpec) bursts(d Time) int {
	n := max(ic.Repeat, 1)
	if ic.At > d {
		return 0
	}
	if ic.Interval > 0 {
		n = int(min(int64(n), int64((d-ic.At)/ic.Interval)+1))
	}
	return n
}

// senders is the number of senders of a fan-in or incast.
func senders(n int, hosts []string) int {
	if len(hosts) > 0 {
		return len(hosts)
	}
	return n
}

// checkFlows bounds the flows of w in a run of duration d on a network of
// the given shape: those built before the run, and apart the Poisson flows
// expected to arrive.
func (w *WorkloadSpec) checkFlows(d Time, net netShape) error {
	n := int64(len(w.Flows))
	parts := []string{fmt.Sprintf("flows %d", len(w.Flows))}
	if fi := w.FanIn; fi != nil {
		k := senders(fi.Senders, fi.Hosts)
		n += int64(k)
		parts = append(parts, fmt.Sprintf("fan_in %d", k))
	}
	for i := range w.Incast {
		ic := &w.Incast[i]
		k, b := senders(ic.Senders, ic.Hosts), ic.bursts(d)
		n += int64(k) * int64(b)
		parts = append(parts, fmt.Sprintf("incast[%d] %d senders × %d bursts", i, k, b))
	}
	if n > MaxFlows {
		return fmt.Errorf("workload: %d flows built before the run (%s; an incast's bursts that start after the run are not built), want at most %d (harness.MaxFlows)",
			n, strings.Join(parts, ", "), MaxFlows)
	}
	if p := w.Poisson; p != nil {
		if e := p.expected(d, net); e > MaxPoissonFlows {
			return fmt.Errorf("workload.poisson: about %.0f flows expected to arrive (%d hosts at load %v of %v for %v, mean size %v), want at most %d (harness.MaxPoissonFlows): lower the load, the hosts or the time",
				e, p.hostCount(net), p.Load, net.hostRate, units.Time(p.stop(d)-p.Start), units.Bytes(p.mean()), MaxPoissonFlows)
		}
	}
	return nil
}

// stop is the end of the arrivals in a run of duration d.
func (p *PoissonSpec) stop(d Time) Time {
	if p.Stop == 0 || p.Stop > d {
		return d
	}
	return p.Stop
}

func (p *PoissonSpec) hostCount(net netShape) int {
	if len(p.Hosts) > 0 {
		return len(p.Hosts)
	}
	return net.hosts
}

func (p *PoissonSpec) mean() float64 {
	cdf, err := workloads.Named(p.CDF)
	if err != nil {
		return 0
	}
	return cdf.Mean()
}

// expected is the mean number of Poisson arrivals in a run of duration d,
// every host at the fastest host link rate of net (an upper bound):
// hosts · λ · (stop − start), λ = load · rate / (8 · mean size).
func (p *PoissonSpec) expected(d Time, net netShape) float64 {
	span := units.Time(p.stop(d) - p.Start)
	mean := p.mean()
	if span <= 0 || mean <= 0 {
		return 0
	}
	lambda := p.Load * float64(net.hostRate) / (8 * mean)
	return float64(p.hostCount(net)) * lambda * span.Seconds()
}
