package window_test

import (
	"fmt"

	"github.com/hwcc/hwcc/fixedpoint"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/window"
)

// A flow in the paper's simulation (100 Gb/s NIC, T = 13 µs) starts at line
// rate; an ACK reports the bottleneck at twice the target (U = 2η), so the
// window halves (line 13) and the pacing rate follows (R = W/T). A second
// ACK for data sent before that commit reacts from the same Wc and does not
// halve again (Figure 5). The division goes through the NIC's reciprocal
// table (ε = 2^-7), which reads 1/U up to 0.79 % high: the exact law gives
// 162500/2 + 80 = 81330 B where the table gives 81790 B (+0.57 %).
func ExampleWindow() {
	w, err := window.New(window.Config{
		T:        13 * units.Microsecond,
		Init:     162500, // W_init = 100 Gb/s × 13 µs
		Min:      1625,
		AI:       80,
		Eta:      window.Eta95,
		MaxStage: 5,
	})
	if err != nil {
		panic(err)
	}
	fmt.Println("start:", w.Window(), w.Rate())
	u := 2 * window.Eta95
	w.OnAck(u, 1000, 200000) // ack.seq > lastUpdateSeq = 0: commits
	fmt.Println("after 1st ACK:", w.Window(), w.Rate(), "Wc", w.State().Wc)
	w.OnAck(u, 2000, 201000) // 2000 ≤ lastUpdateSeq = 200000: no commit
	fmt.Println("after 2nd ACK:", w.Window(), "Wc", w.State().Wc)
	fmt.Println("may send with 81 KB in flight:", w.CanSend(81*units.KB))
	// Output:
	// start: 162.5KB 100Gbps
	// after 1st ACK: 81.79KB 50.332307692Gbps Wc 81.79KB
	// after 2nd ACK: 41.206KB Wc 81.79KB
	// may send with 81 KB in flight: false
}

// One step of the law with U below η and incStage < maxStage: additive
// increase by W_AI (line 17).
func ExampleLaw_ComputeWind() {
	l, err := window.NewLaw(window.Config{
		T: 13 * units.Microsecond, Init: 162500, Max: 200000, Min: 1625,
		AI: 80, Eta: window.Eta95, MaxStage: 5,
	})
	if err != nil {
		panic(err)
	}
	ref := l.InitialReference()
	half := fixedpoint.UQ32_32One / 2
	for range 6 {
		w := l.ComputeWind(&ref, half, true)
		fmt.Println(w, ref.IncStage)
	}
	// Output:
	// 162.58KB 1
	// 162.66KB 2
	// 162.74KB 3
	// 162.82KB 4
	// 162.9KB 5
	// 200KB 0
}

// The W_AI rule of section 3.3 for the paper's 16-flow incast at 100 Gb/s
// with a 4 µs base RTT (section 5.4: "should not exceed ... ≈ 150 bytes").
func ExampleAIRule() {
	init := units.BytesIn(100*units.Gbps, 4*units.Microsecond)
	ai, err := window.AIRule(init, window.Eta95, 16)
	fmt.Println(init, ai, err)
	// Output: 50KB 156B <nil>
}

// Dividing through HPCC's reciprocal table (ε = 2^-7, 10-bit mantissas):
// 1e9/3 reads 0.024 % low (1/3's mantissa rounded down), 1e9/1000003 reads
// 0.3 % high (n falls in an interval whose lower end's reciprocal is
// stored). The native divide gives the exact floors.
func ExampleDivider() {
	d := window.NewDivider(nil, false)
	fmt.Println(d.Quo(1e9, 3), d.Quo(1e9, 1000003))
	n := window.NewDivider(nil, true)
	fmt.Println(n.Quo(1e9, 3), n.Quo(1e9, 1000003))
	// Output:
	// 333251953 1003
	// 333333333 999
}
