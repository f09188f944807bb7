package cp_test

import (
	"fmt"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cp"
	"github.com/hwcc/hwcc/units"
)

// DCQCN+TCD at a 40 Gb/s port (threshold = Kmin = 160 KB, Kmax = 640 KB,
// max(Ton) = 20 µs): a queue of 700 KB, above Kmax, where DCQCN alone
// marks every packet. While PFC pauses the port, and for 20 µs after it
// resumes, the port is undetermined and nothing is marked; once it has
// sent for max(Ton) it is congested and its packets are marked; a short
// queue is non-congested.
func ExampleTCD() {
	t, err := cp.NewTCD(cp.TCDDCQCN(40 * units.Gbps))
	if err != nil {
		panic(err)
	}
	act := cc.NewActions(1)
	us := units.Microsecond
	for _, e := range []struct {
		at     units.Time
		q      units.Bytes
		paused bool
	}{
		{0, 700 * units.KB, false},
		{10 * us, 700 * units.KB, true},
		{30 * us, 700 * units.KB, false}, // the resume
		{45 * us, 700 * units.KB, false},
		{50 * us, 700 * units.KB, false},
		{60 * us, 100 * units.KB, false},
	} {
		act.Reset()
		_ = t.Dequeue(e.at, nil, cc.Queue{Len: e.q, Paused: e.paused}, act)
		fmt.Printf("%v: %v, marked %v\n", e.at, t.State(), act.Has(cc.ActionMarkCE))
	}
	// Output:
	// 0s: congested, marked true
	// 10us: undetermined, marked false
	// 30us: undetermined, marked false
	// 45us: undetermined, marked false
	// 50us: congested, marked true
	// 60us: non-congested, marked false
}
