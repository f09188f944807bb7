package algos

import (
	"fmt"

	"github.com/hwcc/hwcc/harness"
	"github.com/hwcc/hwcc/units"
)

// The fat-tree benchmark scenarios: HPCC across a 3-tier k-ary fat tree at
// 100 Gb/s with 1 µs links, sized to measure the harness's speed at
// datacenter scale (wall time, events per second, memory) and HPCC at that
// scale. The incasts (9000-byte payloads) load one edge port; the Poisson
// loads (1000-byte payloads, HPCC's own) load every port at once, the
// event queue's hardest case.
//
//	incast-fattree         k = 8 (128 hosts): 16 senders × 2 MB into h0
//	incast-fattree-1024    k = 16 (1024 hosts): 256 senders × 2 MB into h0
//	poisson-fattree        k = 8: WebSearch flows between random hosts
//	poisson-fattree-1024   k = 16: the same
//
// The incast senders are spread over every pod (every hosts/senders-th
// host, starting half a stride in), so that the incast crosses the core on
// (k/2)² equal-cost paths; h0's own edge switch is the bottleneck.
const (
	fattreeIncastName     = "incast-fattree"
	fattreeIncast1024Name = "incast-fattree-1024"
	fattreePayload        = 9000 * units.Byte
	fattreeSize           = 2 * units.MB

	fattreePoissonName     = "poisson-fattree"
	fattreePoisson1024Name = "poisson-fattree-1024"
	// The Poisson load: every host offers fattreePoissonLoad of its link
	// in payload bytes, WebSearch sizes (mean 1.7 MB), to a host drawn
	// uniformly from the others, with HPCC's 1000-byte payloads.
	fattreePoissonLoad    = 0.5
	fattreePoissonCDF     = "websearch"
	fattreePoissonPayload = 1000 * units.Byte
)

// The Poisson scenarios' default run: arrivals during the first
// fattreePoissonWindow, the run fattreePoissonRun long, short enough for a
// regression test (-set duration=10ms -set poisson_stop=2ms makes the long
// run of the README).
const (
	fattreePoissonWindow = 100 * units.Microsecond
	fattreePoissonRun    = 200 * units.Microsecond
)

// fattreeIncast returns the incast of senders flows of fattreeSize into h0
// on the k-ary fat tree, run long enough for every flow to finish at the
// receiver's line rate with HPCC's η = 95 % and a margin.
func fattreeIncast(name string, k, senders int) *harness.Scenario {
	hosts := k * k * k / 4
	s := harness.DefaultScenario()
	s.Name = name
	s.Algorithm = hpccName
	s.Description = fmt.Sprintf("%d senders × %v into h0 across the 3-tier k = %d fat tree (%d hosts), 100 Gb/s, 9000 B payloads, 1 µs links", senders, fattreeSize, k, hosts)
	s.Topology = harness.TopologySpec{Kind: "fat-tree", K: k, Link: harness.Rate(100 * units.Gbps), Delay: harness.Time(units.Microsecond)}
	s.NIC.Payload = harness.Bytes(fattreePayload)
	stride := hosts / senders
	var from []string
	for i := 0; i < senders; i++ {
		from = append(from, fmt.Sprintf("h%d", stride/2+i*stride))
	}
	s.Workload = harness.WorkloadSpec{Incast: []harness.IncastSpec{{Hosts: from, Dst: "h0", Size: harness.Bytes(fattreeSize)}}}
	// All bytes at line rate, ×1.25 for headers, INT and η, plus 1 ms.
	total := units.Bytes(senders) * fattreeSize
	d := units.SerializationTime(total, 100*units.Gbps)*5/4 + units.Millisecond
	s.Duration = harness.Time((d + 100*units.Microsecond - 1) / (100 * units.Microsecond) * (100 * units.Microsecond))
	s.SampleInterval = harness.Time(10 * units.Microsecond)
	return s
}

// fattreePoisson returns Poisson WebSearch arrivals between random hosts
// of the k-ary fat tree at fattreePoissonLoad, during the first
// fattreePoissonWindow of a run of fattreePoissonRun.
func fattreePoisson(name string, k int) *harness.Scenario {
	hosts := k * k * k / 4
	s := harness.DefaultScenario()
	s.Name = name
	s.Algorithm = hpccName
	s.Description = fmt.Sprintf("Poisson WebSearch flows between random hosts at load %.1f until %v, run %v, 3-tier k = %d fat tree (%d hosts), 100 Gb/s, %d B payloads, 1 µs links",
		fattreePoissonLoad, fattreePoissonWindow, fattreePoissonRun, k, hosts, int64(fattreePoissonPayload))
	s.Topology = harness.TopologySpec{Kind: "fat-tree", K: k, Link: harness.Rate(100 * units.Gbps), Delay: harness.Time(units.Microsecond)}
	s.NIC.Payload = harness.Bytes(fattreePoissonPayload)
	s.Workload = harness.WorkloadSpec{Poisson: &harness.PoissonSpec{
		Load: fattreePoissonLoad, CDF: fattreePoissonCDF, Stop: harness.Time(fattreePoissonWindow)}}
	s.Duration = harness.Time(fattreePoissonRun)
	s.SampleInterval = harness.Time(10 * units.Microsecond)
	return s
}

func init() {
	registerBuiltins([]builtinScenario{
		{fattreeIncastName, func() *harness.Scenario { return fattreeIncast(fattreeIncastName, 8, 16) }},
		{fattreeIncast1024Name, func() *harness.Scenario { return fattreeIncast(fattreeIncast1024Name, 16, 256) }},
		{fattreePoissonName, func() *harness.Scenario { return fattreePoisson(fattreePoissonName, 8) }},
		{fattreePoisson1024Name, func() *harness.Scenario { return fattreePoisson(fattreePoisson1024Name, 16) }},
	})
}
