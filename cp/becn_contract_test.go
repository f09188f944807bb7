package cp_test

import (
	"testing"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cc/cctest"
	"github.com/hwcc/hwcc/cp"
	"github.com/hwcc/hwcc/units"
)

// The contract's conformance suite on the congestion point, in both modes
// and in the configurations that change its paths: judged at enqueue and
// at dequeue, paced and unpaced, a one-slot table (every flow collides)
// and a large one.
func TestBECNConformance(t *testing.T) {
	const line = 100 * units.Gbps
	cps := map[string]cp.BECNConfig{}
	for _, m := range []cp.BECNMode{cp.BECNModeBECN, cp.BECNModeFECN} {
		base := cp.BECNSurvey(m, line)
		cps[m.String()+"/survey"] = base
		deq := base
		deq.At = cp.BECNAtDequeue
		cps[m.String()+"/dequeue"] = deq
		low := base
		low.Threshold, low.MinInterval = 20_000, 0
		cps[m.String()+"/unpaced"] = low
		one := base
		one.TableBits, one.MinInterval = 0, 5*becnUs
		cps[m.String()+"/one-slot"] = one
		big := base
		big.TableBits = cp.BECNMaxTableBits
		cps[m.String()+"/big-table"] = big
	}
	for name, cfg := range cps {
		t.Run("CP/"+name, func(t *testing.T) {
			if err := cctest.TestCP(func() (cc.CongestionPoint, error) { return cp.NewBECN(cfg) }, cctest.Options{}); err != nil {
				t.Fatal(err)
			}
		})
	}

}
