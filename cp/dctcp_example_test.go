package cp_test

import (
	"fmt"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cp"
	"github.com/hwcc/hwcc/units"
)

// A DCTCP marker with the HPCC paper's 100 Gb/s threshold, K = 300 KB: a
// packet that joins a queue above K gets an ActionMarkCE. Marking at
// dequeue instead judges the queue a packet leaves behind.
func ExampleDCTCP() {
	m, err := cp.NewDCTCP(cp.DCTCPHPCCSim(100 * units.Gbps))
	if err != nil {
		panic(err)
	}
	act := cc.NewActions(1)
	for i, q := range []units.Bytes{300 * units.KB, 300*units.KB + 1} {
		act.Reset()
		if err := m.Enqueue(units.Time(i), &cc.Packet{Size: 1082}, cc.Queue{Len: q}, act); err != nil {
			panic(err)
		}
		fmt.Printf("q = %v: mark = %v\n", q, act.Has(cc.ActionMarkCE))
	}
	fmt.Println(m.AppendRegisters(nil))
	// Output:
	// q = 300KB: mark = false
	// q = 300.001KB: mark = true
	// [now[64]=1 packets[64]=2 marked[64]=1]
}
