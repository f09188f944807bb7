package np_test

import (
	"fmt"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cp"
	"github.com/hwcc/hwcc/np"
	"github.com/hwcc/hwcc/units"
)

// ExampleFECN: FECN. The switch marks; the receiver answers the first mark
// and those 50 µs or more after its last answer.
func ExampleFECN() {
	sw, _ := cp.NewBECN(cp.BECNSurvey(cp.BECNModeFECN, 25*units.Gbps))
	rcv, _ := np.NewFECN(np.FECNSurvey())
	act := cc.NewActions(1)
	for _, now := range []units.Time{0, 20 * units.Microsecond, 49 * units.Microsecond, 50 * units.Microsecond} {
		p := &cc.Packet{Flow: 4, Payload: 1000, Size: 1082}
		act.Reset()
		_ = sw.Enqueue(now, p, cc.Queue{Len: 150_000}, act)
		p.CE = act.Has(cc.ActionMarkCE)
		act.Reset()
		_ = rcv.Receive(now, p, act)
		fmt.Printf("%v: marked %v, notifications %d\n", now, p.CE, act.Len())
	}
	// Output:
	// 0s: marked true, notifications 1
	// 20us: marked true, notifications 0
	// 49us: marked true, notifications 0
	// 50us: marked true, notifications 1
}
