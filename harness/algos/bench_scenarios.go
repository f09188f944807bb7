package algos

import (
	"fmt"

	"github.com/hwcc/hwcc/harness"
	"github.com/hwcc/hwcc/units"
)

// The fat-tree benchmark scenarios: HPCC incasts across
// a 3-tier k-ary fat tree at 100 Gb/s with 9000-byte payloads and 1 µs
// links, sized to measure the harness's speed at datacenter scale (wall
// time, events per second, memory) and HPCC's efficiency in a large incast.
//
//	incast-fattree        k = 8 (128 hosts): 16 senders × 2 MB into h0
//	incast-fattree-1024   k = 16 (1024 hosts): 256 senders × 2 MB into h0
//
// The senders are spread over every pod (every hosts/senders-th host,
// starting half a stride in), so that the incast crosses the core on
// (k/2)² equal-cost paths; h0's own edge switch is the bottleneck.
const (
	fattreeIncastName     = "incast-fattree"
	fattreeIncast1024Name = "incast-fattree-1024"
	fattreePayload        = 9000 * units.Byte
	fattreeSize           = 2 * units.MB
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

func init() {
	registerBuiltins([]builtinScenario{
		{fattreeIncastName, func() *harness.Scenario { return fattreeIncast(fattreeIncastName, 8, 16) }},
		{fattreeIncast1024Name, func() *harness.Scenario { return fattreeIncast(fattreeIncast1024Name, 16, 256) }},
	})
}
