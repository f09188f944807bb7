package np_test

import (
	"fmt"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/np"
	"github.com/hwcc/hwcc/units"
)

// The paper's NP (slots of N = 50 µs) answering a burst of marked packets:
// the first mark sends a CNP at once, the rest of the burst shares one CNP at
// the slot boundary.
func ExampleDCQCN() {
	n, err := np.NewDCQCN(np.DCQCNPaper())
	if err != nil {
		panic(err)
	}
	act := cc.NewActions(2)
	for _, at := range []units.Time{0, 10 * units.Microsecond, 20 * units.Microsecond} {
		act.Reset()
		_ = n.Receive(at, &cc.Packet{Flow: 7, CE: true}, act)
		fmt.Printf("marked packet at %v: CNPs now = %d\n", at, act.Len())
	}
	d := n.NextDeadline()
	act.Reset()
	_ = n.Timer(d, act)
	fmt.Printf("timer at %v: CNPs = %d, to flow %d\n", d, act.Len(), act.At(0).Feedback.Flow)
	// Output:
	// marked packet at 0s: CNPs now = 1
	// marked packet at 10us: CNPs now = 0
	// marked packet at 20us: CNPs now = 0
	// timer at 50us: CNPs = 1, to flow 7
}
