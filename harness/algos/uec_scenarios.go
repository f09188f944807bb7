package algos

import (
	"fmt"
	"math/rand/v2"

	"github.com/hwcc/hwcc/harness"
	"github.com/hwcc/hwcc/units"
)

// The Ultra Ethernet scenarios ([UEC]; the consortium's model, [uet-htsim],
// validates NSCC and RCCC on incasts and permutations in its
// validate_uec_*.txt plans): on the 3-tier k = 8 fat tree (128 hosts) at
// 100 Gb/s with 9000-byte frames and 1 µs links,
//
//	uec-incast        16 senders × 2 MB into h0 (the incast-fattree
//	                  senders): every byte through h0's link, ideally
//	                  32 MB/100 Gb/s = 2.56 ms
//	uec-permutation   every host sends 2 MB to another, a random
//	                  permutation with no fixed point: full load
//
// each compared under uec (NSCC with RCCC), nscc and rccc on the
// trimming fabric their registrations deploy, and hpcc and dcqcn on the
// lossless fabric (PFC) the scenario sets.
const (
	uecIncastName = "uec-incast"
	uecPermName   = "uec-permutation"
	// uecFrame is a full frame, 9000 B: the payload is what the harness's
	// 62 bytes of headers and trailer leave.
	uecFrame    = 9000 * units.Byte
	uecPayload  = uecFrame - harness.DataOverheadBytes
	uecSize     = 2 * units.MB
	uecSenders  = 16
	uecK        = 8
	uecPermSeed = 2025
	// uecIdealIncast is the incast's ideal: every payload byte at h0's
	// line rate, 16·2 MB·8/100 Gb/s.
	uecIdealIncast = 2560 * units.Microsecond
)

// uecCompare are the algorithms the scenarios run side by side.
var uecCompare = []string{uecName, nsccName, rcccName, hpccName, dcqcnName}

// uecBase is the fat tree of the Ultra Ethernet scenarios, lossless (PFC)
// for the schemes that need it, with the default ECN threshold of the
// switches' marker (100 KB, half the network's BDP: between the model's
// 0.2 and 0.8 BDP marking thresholds).
func uecBase(name, desc string) *harness.Scenario {
	s := harness.DefaultScenario()
	s.Name, s.Description = name, desc
	s.Algorithm = uecName
	s.Compare = append([]string(nil), uecCompare...)
	s.Topology = harness.TopologySpec{Kind: "fat-tree", K: uecK, Link: harness.Rate(100 * units.Gbps), Delay: harness.Time(units.Microsecond)}
	s.NIC.Payload = harness.Bytes(uecPayload)
	s.SampleInterval = harness.Time(10 * units.Microsecond)
	return s
}

// uecIncastScenario: the incast of incast-fattree with 9000-byte frames.
func uecIncastScenario() *harness.Scenario {
	s := uecBase(uecIncastName, fmt.Sprintf("Ultra Ethernet incast: %d senders × %v into h0 across the 3-tier k = %d fat tree, 100 Gb/s, 9000 B frames, 1 µs links; ideal %v",
		uecSenders, uecSize, uecK, uecIdealIncast))
	hosts := uecK * uecK * uecK / 4
	stride := hosts / uecSenders
	var from []string
	for i := range uecSenders {
		from = append(from, fmt.Sprintf("h%d", stride/2+i*stride))
	}
	s.Workload = harness.WorkloadSpec{Incast: []harness.IncastSpec{{Hosts: from, Dst: "h0", Size: harness.Bytes(uecSize)}}}
	s.Duration = harness.Time(5 * units.Millisecond)
	return s
}

// uecPermutation returns a permutation of n hosts with no fixed point
// (Sattolo's algorithm: one cycle through every host), from a fixed seed.
func uecPermutation(n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	r := rand.New(rand.NewPCG(uecPermSeed, 0))
	for i := n - 1; i > 0; i-- {
		j := r.IntN(i)
		p[i], p[j] = p[j], p[i]
	}
	return p
}

// uecPermScenario: every host sends 2 MB to its image under the
// permutation, all at t = 0.
func uecPermScenario() *harness.Scenario {
	hosts := uecK * uecK * uecK / 4
	s := uecBase(uecPermName, fmt.Sprintf("Ultra Ethernet permutation: each of the %d hosts of the 3-tier k = %d fat tree sends %v to another (a fixed random permutation, one cycle), all at once, 100 Gb/s, 9000 B frames, 1 µs links",
		hosts, uecK, uecSize))
	for i, d := range uecPermutation(hosts) {
		s.Workload.Flows = append(s.Workload.Flows, harness.FlowSpec{Src: fmt.Sprintf("h%d", i), Dst: fmt.Sprintf("h%d", d), Size: harness.Bytes(uecSize)})
	}
	s.Duration = harness.Time(3 * units.Millisecond)
	return s
}

func init() {
	registerBuiltins([]builtinScenario{
		{uecIncastName, uecIncastScenario},
		{uecPermName, uecPermScenario},
	})
}
