package cp_test

import (
	"fmt"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cp"
	"github.com/hwcc/hwcc/units"
)

// A DCQCN marker with the HPCC paper's 25 Gb/s thresholds (Kmin = 100 KB,
// Kmax = 400 KB, Pmax = 0.2): the marking probability at a few queue lengths,
// and how many of 10 000 packets are marked at 250 KB (probability 0.1:
// binomial mean 1000, σ = 30).
func ExampleDCQCN() {
	m, err := cp.NewDCQCN(cp.DCQCNHPCCSim(25 * units.Gbps))
	if err != nil {
		panic(err)
	}
	for _, q := range []units.Bytes{50 * units.KB, 250 * units.KB, 400 * units.KB, 401 * units.KB} {
		fmt.Printf("q = %v: p = %.4f\n", q, float64(m.MarkProbability(q))/(1<<32))
	}
	act := cc.NewActions(1)
	marked := 0
	for i := range 10000 {
		act.Reset()
		_ = m.Dequeue(units.Time(i)*units.Nanosecond, nil, cc.Queue{Len: 250 * units.KB}, act)
		marked += act.Len()
	}
	fmt.Println("marked at 250KB:", marked, "of 10000")
	// Output:
	// q = 50KB: p = 0.0000
	// q = 250KB: p = 0.1000
	// q = 400KB: p = 0.2000
	// q = 401KB: p = 1.0000
	// marked at 250KB: 981 of 10000
}
