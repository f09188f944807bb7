package rp_test

import (
	"fmt"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cp"
	"github.com/hwcc/hwcc/rp"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// A congestion point samples a queue that has grown to 60 KB; its CNM
// cuts the source's rate, and the byte counter's five fast-recovery
// cycles bring the rate back toward the target.
func ExampleQCN() {
	cp, _ := cp.NewQCN(cp.QCNStandard()) // Qeq 26 000 B, w 2
	rp, _ := rp.NewQCN(rp.QCNStandard(10 * units.Gbps))
	act := cc.NewActions(1)

	// 100 frames of 1500 B: the 100th is the first sample (150 000 B).
	frame := &cc.Packet{Flow: 7, Size: 1500, Prio: 3}
	var now units.Time
	for i := 1; i <= 100; i++ {
		now += units.Microsecond
		q := cc.Queue{Len: units.Bytes(i) * 600} // 60 KB at the sample
		if err := cp.Enqueue(now, frame, q, act); err != nil {
			panic(err)
		}
	}
	cnm := act.At(0).Feedback
	m, _ := wire.DecodeCNM(cnm.Data[:])
	fmt.Println(cnm.Kind == wire.FeedbackCNM, "flow", cnm.Flow, m)
	// Fb = −((60000 − 26000) + 2·(60000 − 0)) = −154000: beyond Fbmax
	// (130 000 B), so it saturates at 63; qoff = ⌊34 000/64⌋ = 531, qdelta
	// = ⌊60 000/64⌋ = 937.

	// RC = 10^7 − ⌊10^7·63/128⌋ = 5 078 125 Kb/s, RT = 10^7 Kb/s; each
	// fast-recovery cycle RC ← ⌈(RC + RT)/2⌉: 7 539 063 (⌈7 539 062.5⌉),
	// 8 769 532, 9 384 766, 9 692 383, 9 846 192 Kb/s.
	_ = rp.Feedback(now, &cnm, nil)
	fmt.Println("after the CNM:", rp.Rate(), "target", rp.Target())
	for cycle := 1; cycle <= 5; cycle++ {
		for range 100 { // 150 000 B: one byte-counter cycle
			_ = rp.Sent(now, frame, nil)
		}
		fmt.Println("fast recovery", cycle, rp.Rate())
	}
	// Output:
	// true flow 7 cnm fb=63 cpid=0 qoff=531 qdelta=937 prio=3
	// after the CNM: 5.078125Gbps target 10Gbps
	// fast recovery 1 7.539063Gbps
	// fast recovery 2 8.769532Gbps
	// fast recovery 3 9.384766Gbps
	// fast recovery 4 9.692383Gbps
	// fast recovery 5 9.846192Gbps
}
