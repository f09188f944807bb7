package np_test

import (
	"fmt"

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
	for _, at := range []units.Time{0, 10 * units.Microsecond, 20 * units.Microsecond} {
		cnp, _ := n.OnPacket(at, true)
		fmt.Printf("marked packet at %v: CNP now = %v\n", at, cnp)
	}
	d := n.NextDeadline()
	cnp, _ := n.OnTimer(d)
	fmt.Printf("timer at %v: CNP = %v\n", d, cnp)
	// Output:
	// marked packet at 0s: CNP now = true
	// marked packet at 10us: CNP now = false
	// marked packet at 20us: CNP now = false
	// timer at 50us: CNP = true
}
